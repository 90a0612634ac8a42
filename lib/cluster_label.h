/*
 * Internal: the labelling of the clusters of a bond configuration, box by box
 * (DESIGN.md section 12, doc/clusters.md). A box is a run of planes [p0, p1) along the
 * lattice's last axis, whose sites are the global indices [p0 P, p1 P) (P sites per
 * plane). Labels are global site indices and every union links the larger root to the
 * smaller, so a parent is always smaller than its child and a cluster's root is its
 * smallest site: the cluster's name, the same whatever the boxes and whatever the order
 * of the unions.
 *
 *   1. latmc_cluster_label_box on each box (any order, concurrently): the bonds with both
 *      ends in the box; every site's parent is then its box-local root.
 *   2. latmc_cluster_merge_face on the face above each box (one after the other): the
 *      bonds from its last plane to the next box's first (the periodic wrap included).
 *   3. latmc_cluster_resolve on each box (concurrently): every site's name.
 * In one memory a face's unions are final at once; boxes in separate memories would
 * repeat step 2 through their halos until no label changes (the same fixed point).
 */
#ifndef LATMC_LIB_CLUSTER_LABEL_H
#define LATMC_LIB_CLUSTER_LABEL_H

#include <stdint.h>

/* A periodic lattice of ndim (2, 3) dimensions, extents l[0 .. ndim), site index
 * i = x + l0 (y + l1 z); planes along axis ndim - 1 of `plane` sites each. */
struct latmc_cluster_lattice {
    int ndim;
    int64_t l[3];
    int64_t nsites;
    int64_t plane;
    int64_t planes;
};

struct latmc_cluster_lattice latmc_cluster_lattice_of(int ndim, const int64_t *extent);

/* The union-find root of x, halving the path on the way (every write keeps
 * parent[y] <= y; one thread per parent array). */
static inline uint32_t latmc_cluster_find_halving(uint32_t *parent, uint32_t x)
{
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

/* The neighbour of site i in direction +mu (periodic). */
static inline int64_t latmc_cluster_up(const struct latmc_cluster_lattice *g, int64_t i,
                                       int mu)
{
    int64_t stride = 1;
    for (int nu = 0; nu < mu; nu++)
        stride *= g->l[nu];
    const int64_t x = (i / stride) % g->l[mu];
    return x + 1 == g->l[mu] ? i - (g->l[mu] - 1) * stride : i + stride;
}

/* The neighbour of site i in direction -mu (periodic). */
static inline int64_t latmc_cluster_down(const struct latmc_cluster_lattice *g, int64_t i,
                                         int mu)
{
    int64_t stride = 1;
    for (int nu = 0; nu < mu; nu++)
        stride *= g->l[nu];
    const int64_t x = (i / stride) % g->l[mu];
    return x == 0 ? i + (g->l[mu] - 1) * stride : i - stride;
}

/*
 * Step 1 on the box of planes [p0, p1): bonds[i] bit mu is bond (i, mu) (site i to its
 * +mu neighbour). Sets parent[i] for the box's sites only, to their box-local roots; reads
 * only the box's bonds.
 */
void latmc_cluster_label_box(const struct latmc_cluster_lattice *g, const uint8_t *bonds,
                             uint32_t *parent, int64_t p0, int64_t p1);

/*
 * Step 1 as latmc_cluster_label_box, also counting the box-local clusters: size[r] (and,
 * where msum is not NULL, msum[r] = the sum of (int8_t)spins over them) at each local root
 * r; the entries of other sites are left as they were.
 */
void latmc_cluster_label_box_sizes(const struct latmc_cluster_lattice *g, const uint8_t *bonds,
                                   uint32_t *parent, const uint8_t *spins, uint32_t *size,
                                   int64_t *msum, int64_t p0, int64_t p1);

/* Step 2 for the face between plane p and plane p + 1 (mod planes). Returns how many of
 * the face's unions joined two clusters that were apart. */
int64_t latmc_cluster_merge_face(const struct latmc_cluster_lattice *g, const uint8_t *bonds,
                                 uint32_t *parent, int64_t p);

/* Step 3 on sites [i0, i1): name[i] = the root of i (parent only read). */
void latmc_cluster_resolve(const uint32_t *parent, uint32_t *name, int64_t i0, int64_t i1);

#endif /* LATMC_LIB_CLUSTER_LABEL_H */
