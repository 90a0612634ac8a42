/*
 * Internal to the one CUDA executor (exec/): its state, shared by cuda_exec.c (the boxes'
 * life, their configuration and couplings, the steps) and cuda_exec_measure.c (the
 * measurements, the Fourier modes' projections, and a part's per-plane forms).
 * Nothing outside exec/ includes it: the rest of the module sees struct cuda_exec as
 * opaque (cuda_exec.h).
 */
#ifndef LATMC_CUDA_EXEC_STATE_H
#define LATMC_CUDA_EXEC_STATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cuda_exec.h"
#include "cuda_halo.h"
#include "cuda_part_wire.h"

struct cuda_exec {
    const struct cuda_leaf *leaf;
    int n;
    struct cuda_box *box;
    const struct cuda_halo_transport **transport; /* per box (halo > 0) */
    int64_t halo, border, L;
    int64_t sent;               /* halo planes sent after a step (cuda_leaf.h) */
    size_t plane_bytes;         /* of one array (cuda_leaf.h) */
    int arrays;
    size_t api_plane_bytes;     /* a plane of the API's layout (get/set_spins) */
    void *couplings;            /* the leaf's host couplings of planes [cpl_first, +
                                   cpl_planes) (mod L), or NULL */
    int64_t cpl_first, cpl_planes;
    bool drawn;                 /* the boxes drew their couplings on their devices: the
                                   host's are drawn when first needed (host_couplings) */
    bool part;                  /* the one box of a part of a lattice shared by processes */
    int64_t own_sites;          /* the boxes' own sites */
    void *stage;                /* pinned host memory of planes in transit (stage_bytes) */
    size_t stage_bytes;
    struct cuda_part_wire wire; /* a part's halo planes on the wire (cuda_part_wire.h) */
    bool halves;                /* a box alone's steps, split boxes' interiors, in halves
                                   where the leaf takes them (halves_wanted) */
    int half_kind;              /* the kind of the last step in halves since the host's
                                   last wait and the last whole step; -1: none */
};

/* Every box's streams waited for (the part's pending sets with them). */
static inline int cuda_exec_finish_all(struct cuda_exec *x, const char *what)
{
    x->wire.sets_pending = false; /* every stream waited for */
    return cuda_box_exec_finish_all(&x->box[0].ex, sizeof *x->box, x->n, what);
}

/* Local planes [p0, p0 + planes) of box b as a range (global planes from its origin). */
static inline struct cuda_box_range cuda_exec_range_of(const struct cuda_exec *x,
                                                       const struct cuda_box *b, int64_t p0,
                                                       int64_t planes)
{
    const struct cuda_box_range r = { b, p0, planes, b->ex.origin + p0 - x->halo, x->L,
                                      x->halo == 0 };
    return r;
}

#endif
