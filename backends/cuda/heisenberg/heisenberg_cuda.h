/*
 * The Heisenberg spin glass on the GPU: the kernels' plain C launchers
 * (heisenberg_kernels.cu) and their launch geometry (heisenberg/cuda_heisenberg_geometry.c),
 * for the executor's leaf (heisenberg/cuda_heisenberg_leaf.c). doc/cuda.md,
 * "Heisenberg spin glass", says how it works; doc/models/heisenberg.md defines the chain.
 *
 * Device layout, structure of arrays (SoA), natural site order i = x + L_x (y + L_y z):
 *   spins      component c of replica r at (3 r + c) N + i, in two buffers (a pass reads
 *              one and writes the other; see cuda_heisenberg_pass)
 *   couplings  J_{i,mu} at mu N + i (mu < ndim)
 * The API's layouts (3 floats per site, replica 0 then 1; ndim floats per site) are
 * converted on the host (cuda_heisenberg_leaf.c).
 */
#ifndef LATMC_CUDA_HEISENBERG_H
#define LATMC_CUDA_HEISENBERG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "rng_streams.h" /* struct latmc_rng_name */

struct cuda_fixed_range; /* mode_fixed.h */

#ifdef __cplusplus
extern "C" {
#endif

/* Launch geometry of a pass (cuda_heisenberg_geometry.c chooses it; LATMC_CUDA_HEISENBERG_TILE). */
struct cuda_heisenberg_geom {
    int ndim, nrep;
    int lx, ly, lz;              /* lz = 1 in 2D */
    long long n;                 /* sites */
    int tx, ty;                  /* a block's tile: tx x ty sites of each plane (even) */
    int zc;                      /* 3D: planes per block; 2D: 1 */
    int prefetch;                /* 3D: copy the next plane in while computing (5 planes
                                    in shared memory instead of 4) */
    int jsmem;                   /* couplings through shared memory (copied in with the
                                    spins) rather than read from global memory */
    int threads;                 /* per block, a multiple of 32 */
    int tiles_x, tiles_y, chunks_z;
    size_t smem;                 /* dynamic shared memory of the pass kernel, bytes */
    /* The planes a pass updates along the last axis (z in 3D, y in 2D) and where they lie
     * in the lattice (a box alone: own0 = 0, own_n = lcut = the extent, cut0 = 0). A box
     * with halos (cuda_heisenberg_leaf.c) holds its own planes [own0, own0 + own_n) between two
     * halo planes per side; local plane p is plane cut0 + p of the lattice (mod lcut),
     * which names the draws and the colouring, so a box's pass is the one-device pass. */
    int cut0, lcut, own0, own_n;
};

/* One pass over the lattice (both colours, every replica). */
struct cuda_heisenberg_pass_args {
    const float *src;            /* the configuration before the pass */
    float *dst;                  /* after it (another buffer: every site is written) */
    const float *J;              /* couplings, SoA */
    double beta, h;
    uint64_t seed;               /* heat bath: the draws' key */
    /* heat bath: the sweep word of the pass's draws (its colour-0 step's name, lib/step.h,
     * which the leaf checks is the UPDATE stream's of replica 0 at phase 0, sub 0): the
     * kernel draws colour c's subs 0 and 1 of replica r's UPDATE stream as latmc_rng_block
     * (heisenberg_rng_block: the same counter, wide multiplies), the form nvcc schedules
     * best (the derived names cost one GPU 3 %) */
    uint64_t sweep;
    unsigned long long *count;   /* heat bath: += the updates done (device counter) */
};

/* Shared memory of the pass kernel for this geometry (set g->smem to it). */
size_t cuda_heisenberg_smem_bytes(const struct cuda_heisenberg_geom *g);

/*
 * Make the pass kernels of g's ndim and nrep (one replica: cuda_heisenberg_pass_batch's
 * too) launchable with g's shared memory and threads: cudaSuccess,
 * cudaErrorInvalidConfiguration when the device or a kernel's register use cannot take
 * them (*limit_threads, *limit_smem: what it can), or the runtime's error.
 */
cudaError_t cuda_heisenberg_prepare(const struct cuda_heisenberg_geom *g, int *limit_threads,
                              size_t *limit_smem);

/* One heat-bath (heatbath != 0) or overrelaxation pass, in double (dbl != 0) or float
 * arithmetic. */
cudaError_t cuda_heisenberg_pass(cudaStream_t stream, const struct cuda_heisenberg_geom *g,
                           const struct cuda_heisenberg_pass_args *a, int dbl, int heatbath);

/*
 * The same pass of n_members lattices of one replica each and of geometry g, in one launch
 * (the ensembles' members too large for their whole sweeps in one block,
 * heisenberg/cuda_heisenberg_batch.c): members (a device array) gives each lattice's buffers,
 * couplings, parameters and seed, its src read and dst written (swapped where `swap`); the
 * heat bath's sweep word and counter are the launch's (sweep, count). Each lattice's pass
 * is the one cuda_heisenberg_pass makes of it, bit for bit. cudaErrorInvalidValue for g of
 * two replicas or an odd L_x; the buffers 8-byte aligned, as cuda_heisenberg_pass asks.
 */
cudaError_t cuda_heisenberg_pass_batch(cudaStream_t stream, const struct cuda_heisenberg_geom *g,
                                       const struct cuda_heisenberg_pass_args *members,
                                       int n_members, int swap, uint64_t sweep,
                                       unsigned long long *count, int dbl, int heatbath);

/* Every spin of every replica e_z (SoA). */
cudaError_t cuda_heisenberg_cold_start(cudaStream_t stream, float *spins, long long n, int nrep);

/*
 * The sums of lib/heisenberg.h (13 doubles: bonds, mag[3], overlap[3][3]) per plane, in
 * the CPU reference's order: chunks of rows_per_chunk rows (a divisor of a plane's rows)
 * summed site by site, plane q's chunks added in order from zero into its 13 doubles at
 * plane_sums[13 q ..] for the planes of g (nchunks chunks of whole planes), members past
 * the replicas' untouched; `partials` holds 13 * nchunks doubles. The caller adds the
 * planes in plane order from zero (model add_sums), the CPU's total.
 */
cudaError_t cuda_heisenberg_measure_planes(cudaStream_t stream,
                                           const struct cuda_heisenberg_geom *g, const float *spins,
                                           const float *J, long long rows_per_chunk,
                                           long long nchunks, double *partials, double *plane_sums);

/*
 * The same, and in the same kernel, from the sites it holds, the integer projections of
 * the Fourier modes that cuda_fixed_projections (mode_fixed.h) adds into proj (device,
 * lib/modes.h's layout) for range r (g's planes):
 * the spin's 3 components. Where cuda_heisenberg_measure_proj_fits (one replica, L_x a
 * multiple of 32), else cudaErrorNotSupported, nothing launched.
 */
bool cuda_heisenberg_measure_proj_fits(const struct cuda_heisenberg_geom *g);
cudaError_t cuda_heisenberg_measure_planes_proj(
    cudaStream_t stream, const struct cuda_heisenberg_geom *g, const float *spins, const float *J,
    long long rows_per_chunk, long long nchunks, double *partials, double *plane_sums,
    int64_t *proj, const struct cuda_fixed_range *r);

#ifdef __cplusplus
}
#else
/* The launch geometry of heat-bath (heatbath != 0) or overrelaxation passes over a lattice
 * with the sim's extents but local_planes planes along the last axis, updating planes
 * [own0, own0 + own_n), local plane p being plane cut0 + p of the sim's lattice
 * (cuda_heisenberg_geometry.c; a box alone: the extent, 0, the extent, 0). LATMC_OK or the failure
 * (message set). */
struct latmc_sim;
int cuda_heisenberg_box_geometry(const struct latmc_sim *sim, int heatbath, int local_planes,
                                 int own0, int own_n, int cut0, struct cuda_heisenberg_geom *g);
/* The same geometry narrowed to the planes [own0, own0 + own_n) of those it was made for
 * (the grid shrinks; tiles and shared memory stay). */
void cuda_heisenberg_geom_range(struct cuda_heisenberg_geom *g, int own0, int own_n);
#endif

#endif
