/*
 * The Potts kernels on a plane range of a box (potts_range_kernels.h): the update's launcher (the
 * row kernels, else the per-block reference kernel below), the hot start of a range of the
 * lattice's sites and the reduction of a range.
 *
 * The reference kernel runs, per Philox block of the lattice's numbering that meets the
 * range, the lanes whose sites lie in it: lib/potts_rules.h's rule on a box
 * (latmc_potts_step_lanes_box: the box's memory, its neighbours along the last axis
 * read where they lie), which the CPU's slab-only storage runs too, so the same draws and
 * decisions as the CPU and the one-device kernel.
 */
#include "cuda_kernel_choice.cuh"
#include "cuda_launch.cuh"
#include "potts_range_kernels.h"

/* Within-colour numbers [j0, j1) of the whole lattice (the range's sites of the colour):
 * the box's rule (lib/potts_rules.h) on the box's memory, the lanes of each block that
 * fall in the range. */
__global__ void potts_range_colour_kernel(struct latmc_box_geom g, uint8_t *spins,
                                          struct latmc_potts_chain chain,
                                          struct latmc_rng_name rng, int colour, int64_t j0,
                                          int64_t j1,
                                          unsigned long long *changed)
{
    /* the heat bath's counters, all 0 between sites (potts_kernels.cu) */
    uint8_t n_of[LATMC_POTTS_MAX_Q + 1];
    for (int k = 0; k <= LATMC_POTTS_MAX_Q; k++)
        n_of[k] = 0;
    uint64_t n_changed = 0;
    for (int64_t b = j0 / 4 + cuda_first_item(); b < (j1 + 3) / 4; b += cuda_item_stride()) {
        const int lane0 = 4 * b < j0 ? (int)(j0 - 4 * b) : 0;
        const int lane1 = 4 * b + 4 > j1 ? (int)(j1 - 4 * b) : 4;
        n_changed += latmc_potts_step_lanes_box(&g, spins, &chain, rng, colour, b, lane0,
                                                lane1, n_of);
    }
    cuda_warp_add(changed, n_changed);
}

extern "C" cudaError_t cuda_potts_sweep_colour_range(cudaStream_t stream,
                                                     const struct latmc_lattice *local,
                                                     uint8_t *spins,
                                                     const struct latmc_potts_chain *chain,
                                                     struct latmc_rng_name rng, int colour,
                                                     const struct cuda_plane_range *r,
                                                     unsigned long long *changed)
{
    cudaError_t err = cudaSuccess;
    if (!cuda_reference_kernels_only() &&
        cuda_potts_rows_sweep_range(stream, local, spins, chain, rng, colour, r, changed,
                                    &err))
        return err;
    const int64_t plane = local->ndim == 3 ? local->lx * local->ly : local->lx;
    /* local plane 0 is global plane global_p0 - p0; the colour's sites before the range:
     * whole planes, 1/c of each */
    const struct latmc_box_geom g = { cuda_plane_range_global(local, r), *local,
                                      r->global_p0 - r->p0 };
    const int64_t j0 = r->global_p0 * plane / chain->colours;
    const int64_t per_colour = r->planes * plane / chain->colours;
    const int64_t nblocks = (per_colour + 3) / 4 + 1;
    /* capped, as the one-device kernel (its counters cleared once a thread) */
    const unsigned grid = cuda_grid_capped(nblocks);
    potts_range_colour_kernel<<<grid, CUDA_THREADS, 0, stream>>>(
        g, spins, *chain, rng, colour, j0, j0 + per_colour, changed);
    return cudaGetLastError();
}

/* Sites first .. first + n - 1 of the lattice: lane i mod 4 of INIT block i / 4, as
 * latmc_potts_hot_block. */
__global__ void potts_hot_range_kernel(uint8_t *dst, int64_t first, int64_t n, int q,
                                       uint64_t seed)
{
    const int64_t b0 = first / 4, b1 = (first + n + 3) / 4;
    for (int64_t b = b0 + cuda_first_item(); b < b1; b += cuda_item_stride()) {
        const latmc_philox_ctr r = latmc_rng_init_block(seed, 0, 0, (uint64_t)b);
        for (int lane = 0; lane < 4; lane++) {
            const int64_t i = 4 * b + lane - first;
            if (i >= 0 && i < n)
                dst[i] = (uint8_t)(((uint64_t)r.v[lane] * (uint64_t)q) >> 32);
        }
    }
}

extern "C" cudaError_t cuda_potts_hot_start_range(cudaStream_t stream, uint8_t *dst, int64_t first,
                                                  int64_t n, int q, uint64_t seed)
{
    potts_hot_range_kernel<<<cuda_grid((n + 3) / 4 + 1), CUDA_THREADS, 0, stream>>>(dst, first, n,
                                                                                    q, seed);
    return cudaGetLastError();
}

/* Matches by warp sums, populations by a histogram per block in shared memory, the lanes
 * of a warp holding the same state adding their count with one shared-memory atomic; the
 * site walks as a mixed-radix counter (x, row) over the grid stride, without divisions: the
 * one-device reduction (reductions.cu) with the last axis's neighbour one plane away. The
 * whole warp walks together (the stride is a multiple of 32); lanes past the range take
 * part with a value no state has and count nothing. */
__global__ void potts_measure_range_kernel(struct latmc_lattice v, const uint8_t *spins,
                                           int64_t st_x, int64_t st_row,
                                           struct latmc_potts_sums *sums)
{
    __shared__ unsigned long long hist[LATMC_POTTS_MAX_Q + 1];
    for (int k = threadIdx.x; k <= LATMC_POTTS_MAX_Q; k += blockDim.x)
        hist[k] = 0;
    __syncthreads();
    const int64_t lx = v.lx, ly = v.ly;
    const int64_t plane = v.ndim == 3 ? lx * ly : lx;
    const unsigned lane = threadIdx.x & 31u;
    const int64_t first = cuda_first_item(), stride = cuda_item_stride();
    int64_t x = first % lx, row = first / lx;
    int64_t y = v.ndim == 3 ? row % ly : 0; /* 3D: y within the plane (2D: unused) */
    int64_t matches = 0;
    for (int64_t i = first; i - (int64_t)lane < v.nsites; i += stride) {
        const bool site = i < v.nsites;
        unsigned s = 256 + lane;
        if (site) {
            s = spins[i];
            matches += (s == spins[i + (x + 1 == lx ? 1 - lx : 1)]) +
                       (s == spins[i + plane]); /* the last axis: the next plane, no wrap */
            if (v.ndim == 3)
                matches += s == spins[i + (y + 1 == ly ? -(ly - 1) * lx : lx)];
        }
        const unsigned same = __match_any_sync(0xffffffffu, s);
        if (site && lane == (unsigned)(__ffs(same) - 1))
            atomicAdd(&hist[s], (unsigned long long)__popc(same));
        x += st_x;
        y += st_row;
        if (x >= lx) {
            x -= lx;
            y++;
        }
        if (y >= ly) /* y < ly and st_row < ly: below 2 L_y */
            y -= ly;
    }
    cuda_warp_add((unsigned long long *)&sums->matches, (unsigned long long)matches);
    __syncthreads();
    for (int k = threadIdx.x; k <= LATMC_POTTS_MAX_Q; k += blockDim.x)
        if (hist[k] != 0)
            atomicAdd((unsigned long long *)&sums->count[k], hist[k]);
}

extern "C" cudaError_t cuda_potts_measure_range(cudaStream_t stream,
                                                const struct latmc_lattice *local,
                                                const uint8_t *spins,
                                                const struct cuda_plane_range *r,
                                                struct latmc_potts_sums *sums)
{
    int64_t plane = 0;
    const struct latmc_lattice v = cuda_plane_range_view(local, r, &plane);
    const unsigned grid = cuda_grid_capped(v.nsites);
    const int64_t stride = (int64_t)grid * CUDA_THREADS;
    /* a stride moves x by st_x and the row by st_row (3D: y by st_row mod L_y) */
    const int64_t st_x = stride % v.lx, st_row = stride / v.lx;
    potts_measure_range_kernel<<<grid, CUDA_THREADS, 0, stream>>>(
        v, spins + r->p0 * plane, st_x, v.ndim == 3 ? st_row % v.ly : 0, sums);
    return cudaGetLastError();
}
