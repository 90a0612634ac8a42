/*
 * Internal to the CUDA module: the Potts kernels, and the Ising byte-layout kernels, on a
 * range of planes of a box (potts/cuda_potts.c; doc/cuda.md, "Several GPUs").
 *
 * A slab keeps its own planes of the lattice's last axis plus one halo plane on each side
 * (local plane 0: the lower halo). A range is `planes` consecutive local planes from p0,
 * a multiple of the colours c counted from a lattice plane that is itself a multiple of c
 * (the plan cuts slabs in multiples of c), so that (x + y + z) mod c read from the range's
 * own coordinates is the lattice's colouring. The kernels never wrap along the last axis:
 * the planes next to the range are read where they lie (an own plane or a halo plane).
 * Every draw is named by the lattice's within-colour index, so an update of a range writes
 * what the one-device update writes there, bit for bit.
 */
#ifndef LATMC_CUDA_POTTS_SLABS_H
#define LATMC_CUDA_POTTS_SLABS_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#include "cuda_kernels.h"

#ifdef __cplusplus
extern "C" {
#endif

struct cuda_potts_range {
    int64_t p0;         /* first local plane of the range */
    int64_t planes;     /* planes in the range (> 0, a multiple of the colours) */
    int64_t global_p0;  /* the lattice's plane at local plane p0 */
    int64_t global_planes; /* the lattice's planes along the last axis: the update names
                              its sites by the whole lattice (unused by the reductions) */
};

/* The whole lattice of a range's update: `local`'s extents but along the last axis. */
static inline struct latmc_lattice cuda_potts_range_global(const struct latmc_lattice *local,
                                                           const struct cuda_potts_range *r)
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
static inline struct latmc_lattice cuda_potts_range_view(const struct latmc_lattice *local,
                                                         const struct cuda_potts_range *r,
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

/*
 * One colour of sweep `sweep` on the range r of the local lattice `local` (the slab's
 * extents: own planes + 2 along the last axis), spins its local byte array: the row
 * kernels where the one-device launcher takes them (potts_rows.cu), else the per-block
 * reference kernel. Adds the sites that changed to *changed.
 */
cudaError_t cuda_potts_sweep_colour_range(cudaStream_t stream, const struct latmc_lattice *local,
                                          uint8_t *spins, const struct latmc_potts_chain *chain,
                                          struct latmc_rng_name rng, int colour,
                                          const struct cuda_potts_range *r,
                                          unsigned long long *changed);

/* Hot start of sites first .. first + n - 1 of the lattice into dst[0 .. n): the
 * one-device hot start's draws. */
cudaError_t cuda_potts_hot_start_range(cudaStream_t stream, uint8_t *dst, int64_t first,
                                       int64_t n, int q, uint64_t seed);

/* Adds the sums of the range's sites (bonds in the positive directions, the last axis's
 * read from the plane after the range) to *sums (device, zeroed by the caller). */
cudaError_t cuda_potts_measure_range(cudaStream_t stream, const struct latmc_lattice *local,
                                     const uint8_t *spins, const struct cuda_potts_range *r,
                                     struct latmc_potts_sums *sums);

/* ising_slab_kernels.cu: Ising on the byte layout, the same ranges (spins int8 +-1; eps:
 * NULL, or the +-J couplings of the local lattice, eps[ndim i + mu]; tables: a device
 * copy of struct latmc_ising_tables). The update is the per-block reference rule on a box
 * (lib/ising_rules.h). */
cudaError_t cuda_ising_sweep_colour_range(cudaStream_t stream, const struct latmc_lattice *local,
                                          int8_t *spins, const int8_t *eps,
                                          const struct latmc_ising_tables *tables, int algorithm,
                                          uint64_t seed, struct latmc_rng_name name, int colour,
                                          const struct cuda_potts_range *r,
                                          unsigned long long *changed);
cudaError_t cuda_ising_bytes_hot_start_range(cudaStream_t stream, int8_t *dst, int64_t first,
                                             int64_t n, uint64_t seed);
cudaError_t cuda_ising_measure_range(cudaStream_t stream, const struct latmc_lattice *local,
                                     const int8_t *spins, const int8_t *eps,
                                     const struct cuda_potts_range *r,
                                     struct latmc_ising_sums *sums);

/* potts_rows.cu: the row kernels on a range, where they apply (returns 1 and the launch
 * status in *err; 0: nothing launched), as cuda_potts_rows_sweep_colour. */
int cuda_potts_rows_sweep_range(cudaStream_t stream, const struct latmc_lattice *local,
                                uint8_t *spins, const struct latmc_potts_chain *chain,
                                struct latmc_rng_name rng, int colour,
                                const struct cuda_potts_range *r, unsigned long long *changed,
                                cudaError_t *err);

#ifdef __cplusplus
}
#endif

#endif
