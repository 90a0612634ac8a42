/*
 * Internal to the CUDA module: a range of planes of a box, what the byte-layout range
 * kernels (Potts: potts/potts_range_kernels.h; Ising: ising/ising_range_kernels.h) update
 * and reduce (doc/cuda.md, "Several GPUs").
 *
 * A box keeps its own planes of the lattice's last axis plus one halo plane on each side
 * (local plane 0: the lower halo). A range is `planes` consecutive local planes from p0,
 * a multiple of the colours c counted from a lattice plane that is itself a multiple of c
 * (the plan cuts boxes in multiples of c), so that (x + y + z) mod c read from the range's
 * own coordinates is the lattice's colouring. The kernels never wrap along the last axis:
 * the planes next to the range are read where they lie (an own plane or a halo plane).
 * Every draw is named by the lattice's within-colour index, so an update of a range writes
 * what the one-device update writes there, bit for bit.
 */
#ifndef LATMC_CUDA_PLANE_RANGE_H
#define LATMC_CUDA_PLANE_RANGE_H

#include <stdint.h>

#include "lattice_numbering.h"

struct cuda_plane_range {
    int64_t p0;         /* first local plane of the range */
    int64_t planes;     /* planes in the range (> 0, a multiple of the colours) */
    int64_t global_p0;  /* the lattice's plane at local plane p0 */
    int64_t global_planes; /* the lattice's planes along the last axis: the update names
                              its sites by the whole lattice (unused by the reductions) */
};

/* The whole lattice of a range's update: `local`'s extents but along the last axis. */
static inline struct latmc_lattice cuda_plane_range_global(const struct latmc_lattice *local,
                                                           const struct cuda_plane_range *r)
{
    struct latmc_lattice g = *local;
    const int64_t plane = local->ndim == 3 ? local->lx * local->ly : local->lx;
    if (local->ndim == 3)
        g.lz = r->global_planes;
    else
        g.ly = r->global_planes;
    g.nsites = r->global_planes * plane;
    return g;
}

/* The range r of the local lattice as a lattice of its own (its neighbours along the last
 * axis: one plane away, no wrap); *plane: sites per plane. */
static inline struct latmc_lattice cuda_plane_range_view(const struct latmc_lattice *local,
                                                         const struct cuda_plane_range *r,
                                                         int64_t *plane)
{
    struct latmc_lattice v = *local;
    *plane = local->ndim == 3 ? local->lx * local->ly : local->lx;
    if (local->ndim == 3)
        v.lz = r->planes;
    else
        v.ly = r->planes;
    v.nsites = r->planes * *plane;
    return v;
}

#endif
