/*
 * Internal: the boundary graph of a sweep's clusters on the parts of a lattice shared by
 * processes (lib/cluster_part.c: Ising and Potts; lib/cluster_embed_part.c: embedded
 * clusters). Each part's message holds its first and last planes' labels (each site's
 * local root, a global site index), its boundary clusters -- the local clusters that reach
 * those planes, records of `stride` bytes whose first field is the uint32 label, sorted by
 * label -- and its last plane's upward bonds, one byte a site. Gathered to every part,
 * the messages make the same graph everywhere: its nodes are every part's boundary
 * clusters in part order, which is the order of their labels, so the smaller node of a
 * union is the smaller label and a joined cluster's root node names its smallest site.
 */
#ifndef LATMC_LIB_CLUSTER_BOUNDARY_H
#define LATMC_LIB_CLUSTER_BOUNDARY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct latmc_boundary {
    int n;                        /* parts */
    int64_t P;                    /* sites a plane */
    size_t stride;                /* bytes of a boundary cluster's record */
    const uint32_t **first, **last;
    const uint8_t **face;
    const unsigned char **roots;
    int64_t *base;                /* n + 1: part p's clusters are nodes base[p] .. */
    uint32_t *uf;                 /* union-find over the nodes (latmc_cluster_find_halving) */
};

/* The graph's arrays for n parts of P sites a plane (at most 2 P boundary clusters a
 * part); false where one could not be made (latmc_boundary_free frees what was). */
bool latmc_boundary_alloc(struct latmc_boundary *b, int n, int64_t P, size_t stride);
void latmc_boundary_free(struct latmc_boundary *b);

/* The bytes of a part's message with n_roots boundary clusters. */
size_t latmc_boundary_msg_bytes(int64_t P, size_t stride, uint64_t n_roots);

/* qsort's order of records by their label (the first field). */
int latmc_boundary_by_label(const void *a, const void *b);

/* The graph of the gathered messages (`all`, part p's bytes[p] long, n_roots[p] boundary
 * clusters each), every node its own root, then the faces joined: part p's last plane to
 * part p + 1's first (the last part's to the first's), the smaller node winning. */
void latmc_boundary_join(struct latmc_boundary *b, const unsigned char *all,
                         const size_t *bytes, const uint64_t *n_roots);

/* The node of part p's boundary cluster `label` (it is one: every label sent is). */
int64_t latmc_boundary_node(const struct latmc_boundary *b, int p, uint32_t label);

/* The label (global smallest site) of node k. */
uint32_t latmc_boundary_label(const struct latmc_boundary *b, int64_t k);

/* Part p's record of node k (k in [base[p], base[p + 1])). */
static inline const void *latmc_boundary_record(const struct latmc_boundary *b, int p, int64_t k)
{
    return b->roots[p] + (size_t)(k - b->base[p]) * b->stride;
}

#endif /* LATMC_LIB_CLUSTER_BOUNDARY_H */
