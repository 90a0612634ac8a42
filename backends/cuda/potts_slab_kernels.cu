/*
 * The Potts kernels on a plane range of a slab (potts_slabs.h): the update's launcher (the
 * row kernels, else the per-block reference kernel below), the hot start of a range of the
 * lattice's sites and the reduction of a range.
 *
 * The reference kernel runs, per Philox block of the lattice's numbering that meets the
 * range, the lanes whose sites lie in it: the draws of latmc_potts_update_lanes for that
 * block and the rules of lib/potts_rules.h (latmc_potts_metropolis, latmc_potts_heatbath),
 * so the same decisions as the CPU and the one-device kernel. Its sites are found in the
 * range's own numbering (the colouring agrees, potts_slabs.h), its neighbours along the
 * last axis read without wrap.
 */
#include "cuda_kernel_choice.cuh"
#include "cuda_launch.cuh"
#include "potts_slabs.h"

/* latmc_potts_gather_neighbours with the last axis read one plane away (v: the range's
 * view, spins at its first plane). */
__device__ __forceinline__ int range_neighbours(const struct latmc_lattice *v,
                                                const uint8_t *spins, struct latmc_site s,
                                                uint8_t nb[LATMC_POTTS_MAX_NB])
{
    const int64_t lx = v->lx, ly = v->ly;
    const int64_t row_start = s.index - s.x;
    nb[0] = spins[row_start + latmc_wrap_up(s.x, lx)];
    nb[1] = spins[row_start + latmc_wrap_down(s.x, lx)];
    if (v->ndim == 2) {
        nb[2] = spins[s.index + lx];
        nb[3] = spins[s.index - lx];
        return 4;
    }
    nb[2] = spins[s.x + lx * (latmc_wrap_up(s.y, ly) + ly * s.z)];
    nb[3] = spins[s.x + lx * (latmc_wrap_down(s.y, ly) + ly * s.z)];
    nb[4] = spins[s.index + lx * ly];
    nb[5] = spins[s.index - lx * ly];
    return 6;
}

/* j_off: the lattice's within-colour index of the range's first site of the colour. */
__global__ void potts_range_colour_kernel(struct latmc_lattice v, uint8_t *spins,
                                          struct latmc_potts_chain chain, uint64_t sweep,
                                          int colour, int64_t j_off,
                                          unsigned long long *changed)
{
    const int64_t per_colour = v.nsites / chain.colours;
    const int64_t b0 = j_off / 4, b1 = (j_off + per_colour + 3) / 4;
    const uint32_t stream = latmc_rng_stream(LATMC_STREAM_UPDATE, 0);
    const int metropolis = chain.algorithm == LATMC_ALGO_METROPOLIS;
    /* the heat bath's counters, all 0 between sites (potts_kernels.cu) */
    uint8_t n_of[LATMC_POTTS_MAX_Q + 1];
    if (!metropolis)
        for (int k = 0; k <= LATMC_POTTS_MAX_Q; k++)
            n_of[k] = 0;
    uint64_t n_changed = 0;
    for (int64_t b = b0 + cuda_first_item(); b < b1; b += cuda_item_stride()) {
        const latmc_philox_ctr r0 =
            latmc_rng_block(chain.seed, (uint64_t)b, sweep, stream, (uint32_t)colour,
                            metropolis ? LATMC_POTTS_SUB_PROPOSE : LATMC_POTTS_SUB_HEATBATH);
        latmc_philox_ctr r1 = { { 0, 0, 0, 0 } };
        if (metropolis)
            r1 = latmc_rng_block(chain.seed, (uint64_t)b, sweep, stream, (uint32_t)colour,
                                 LATMC_POTTS_SUB_ACCEPT);
        for (int lane = 0; lane < 4; lane++) {
            const int64_t j = 4 * b + lane - j_off;
            if (j < 0 || j >= per_colour)
                continue;
            const struct latmc_site s = latmc_colour_site(&v, chain.colours, colour, j);
            uint8_t nb[LATMC_POTTS_MAX_NB];
            const int n_nb = range_neighbours(&v, spins, s, nb);
            const int old = spins[s.index];
            const int new_state =
                metropolis ? latmc_potts_metropolis(chain.tables, v.ndim, chain.q, old, nb, n_nb,
                                                    r0.v[lane], r1.v[lane])
                           : latmc_potts_heatbath(chain.tables, chain.q, nb, n_nb, r0.v[lane],
                                                  n_of);
            n_changed += new_state != old;
            spins[s.index] = (uint8_t)new_state;
        }
    }
    cuda_warp_add(changed, n_changed);
}

extern "C" cudaError_t cuda_potts_sweep_colour_range(cudaStream_t stream,
                                                     const struct latmc_lattice *local,
                                                     uint8_t *spins,
                                                     const struct latmc_potts_chain *chain,
                                                     uint64_t sweep, int colour,
                                                     const struct cuda_potts_range *r,
                                                     unsigned long long *changed)
{
    cudaError_t err = cudaSuccess;
    if (!cuda_reference_kernels_only() &&
        cuda_potts_rows_sweep_range(stream, local, spins, chain, sweep, colour, r, changed,
                                    &err))
        return err;
    int64_t plane = 0;
    const struct latmc_lattice v = cuda_potts_range_view(local, r, &plane);
    /* the colour's sites before the range: whole planes, 1/c of each */
    const int64_t j_off = r->global_p0 * plane / chain->colours;
    const int64_t nblocks = (v.nsites / chain->colours + 3) / 4 + 1;
    /* at most 8192 blocks, as the one-device kernel (its counters cleared once a thread) */
    const unsigned grid = cuda_grid(nblocks) > 8192 ? 8192u : cuda_grid(nblocks);
    potts_range_colour_kernel<<<grid, CUDA_THREADS, 0, stream>>>(
        v, spins + r->p0 * plane, *chain, sweep, colour, j_off, changed);
    return cudaGetLastError();
}

/* Sites first .. first + n - 1 of the lattice: lane i mod 4 of INIT block i / 4, as
 * latmc_potts_hot_block. */
__global__ void potts_hot_range_kernel(uint8_t *dst, int64_t first, int64_t n, int q,
                                       uint64_t seed)
{
    const int64_t b0 = first / 4, b1 = (first + n + 3) / 4;
    const uint32_t stream = latmc_rng_stream(LATMC_STREAM_INIT, 0);
    for (int64_t b = b0 + cuda_first_item(); b < b1; b += cuda_item_stride()) {
        const latmc_philox_ctr r = latmc_rng_block(seed, (uint64_t)b, 0, stream, 0, 0);
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
                                                const struct cuda_potts_range *r,
                                                struct latmc_potts_sums *sums)
{
    int64_t plane = 0;
    const struct latmc_lattice v = cuda_potts_range_view(local, r, &plane);
    const unsigned grid = cuda_grid(v.nsites) > 8192 ? 8192u : cuda_grid(v.nsites);
    const int64_t stride = (int64_t)grid * CUDA_THREADS;
    /* a stride moves x by st_x and the row by st_row (3D: y by st_row mod L_y) */
    const int64_t st_x = stride % v.lx, st_row = stride / v.lx;
    potts_measure_range_kernel<<<grid, CUDA_THREADS, 0, stream>>>(
        v, spins + r->p0 * plane, st_x, v.ndim == 3 ? st_row % v.ly : 0, sums);
    return cudaGetLastError();
}
