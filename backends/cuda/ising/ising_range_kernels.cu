/*
 * The Ising byte-layout kernels on a plane range of a box (cuda_plane_range.h says what a
 * range is; the boxes: ising/cuda_ising_leaf.c's byte layout, where the multi-spin coded
 * one cannot run, L_x not a multiple of 16, or under LATMC_CUDA_KERNELS=reference).
 *
 * The update runs, per Philox block of the lattice's checkerboard numbering that meets the
 * range, the lanes whose sites lie in it: lib/ising_rules.h's rule on a box
 * (latmc_ising_update_lanes_box: the box's memory, its halo planes read where they lie),
 * the CPU's slab-only storage runs the same. So it writes what the one-device byte
 * kernels (and the CPU) write, bit for bit. No row-segment form: the byte leaf serves the
 * lattices the packed leaf does not, at the reference kernel's speed.
 */
#include "cuda_launch.cuh"
#include "ising_rules.h"
#include "ising_range_kernels.h"

/* Checkerboard numbers [j0, j1) of the whole lattice (the range's sites of the colour):
 * the box's rule on the box's memory, lanes of each block that fall in the range. */
__global__ void ising_bytes_range_colour_kernel(struct latmc_box_geom g, int8_t *spins,
                                                const int8_t *eps,
                                                const struct latmc_ising_tables *tables,
                                                int algorithm, uint64_t seed,
                                                struct latmc_rng_name name, int colour,
                                                int64_t j0, int64_t j1,
                                                unsigned long long *changed)
{
    const int64_t b0 = j0 / 4, b1 = (j1 + 3) / 4;
    uint64_t n_changed = 0;
    for (int64_t b = b0 + cuda_first_item(); b < b1; b += cuda_item_stride()) {
        const int lane0 = 4 * b < j0 ? (int)(j0 - 4 * b) : 0;
        const int lane1 = 4 * b + 4 > j1 ? (int)(j1 - 4 * b) : 4;
        n_changed += latmc_ising_update_lanes_box(&g, spins, eps, tables, algorithm, seed,
                                                  name, colour, b, lane0, lane1);
    }
    cuda_warp_add(changed, n_changed);
}

extern "C" cudaError_t cuda_ising_sweep_colour_range(cudaStream_t stream,
                                                     const struct latmc_lattice *local,
                                                     int8_t *spins, const int8_t *eps,
                                                     const struct latmc_ising_tables *tables,
                                                     int algorithm, uint64_t seed,
                                                     struct latmc_rng_name name, int colour,
                                                     const struct cuda_plane_range *r,
                                                     unsigned long long *changed)
{
    const int64_t plane = local->ndim == 3 ? local->lx * local->ly : local->lx;
    /* local plane 0 is global plane global_p0 - p0 (the lower halo: one below the box) */
    const struct latmc_box_geom g = { cuda_plane_range_global(local, r), *local,
                                      r->global_p0 - r->p0 };
    const int64_t j0 = r->global_p0 * plane / 2, half = r->planes * plane / 2;
    const int64_t nblocks = (half + 3) / 4 + 1;
    ising_bytes_range_colour_kernel<<<cuda_grid(nblocks), CUDA_THREADS, 0, stream>>>(
        g, spins, eps, tables, algorithm, seed, name, colour, j0, j0 + half, changed);
    return cudaGetLastError();
}

/* Sites first .. first + n - 1 of the lattice, as latmc_ising_hot_block. */
__global__ void ising_bytes_hot_range_kernel(int8_t *dst, int64_t first, int64_t n, uint64_t seed)
{
    const int64_t b0 = first / 4, b1 = (first + n + 3) / 4;
    for (int64_t b = b0 + cuda_first_item(); b < b1; b += cuda_item_stride()) {
        const latmc_philox_ctr r = latmc_rng_init_block(seed, 0, 0, (uint64_t)b);
        for (int lane = 0; lane < 4; lane++) {
            const int64_t i = 4 * b + lane - first;
            if (i >= 0 && i < n)
                dst[i] = (r.v[lane] >> 31) ? (int8_t)-1 : (int8_t)1;
        }
    }
}

extern "C" cudaError_t cuda_ising_bytes_hot_start_range(cudaStream_t stream, int8_t *dst,
                                                        int64_t first, int64_t n, uint64_t seed)
{
    ising_bytes_hot_range_kernel<<<cuda_grid((n + 3) / 4 + 1), CUDA_THREADS, 0, stream>>>(dst, first, n,
                                                                                    seed);
    return cudaGetLastError();
}

/* Sites first_block * 4 .. of the lattice into dst[0 ..]: latmc_ising_hot_block's draws
 * (cuda_ising_hot_start_range: the packed and bit-sliced leaves' staging, whole blocks of
 * four from a multiple of 4). */
__global__ void ising_hot_range_kernel(int8_t *dst, int64_t first_block, int64_t nblocks,
                                       uint64_t seed)
{
    for (int64_t b = cuda_first_item(); b < nblocks; b += cuda_item_stride()) {
        const latmc_philox_ctr r = latmc_rng_init_block(seed, 0, 0, (uint64_t)(first_block + b));
#pragma unroll
        for (int lane = 0; lane < 4; lane++)
            dst[4 * b + lane] = (r.v[lane] >> 31) ? (int8_t)-1 : (int8_t)1;
    }
}

extern "C" cudaError_t cuda_ising_hot_start_range(cudaStream_t stream, int8_t *dst,
                                                  int64_t first_site, int64_t n, uint64_t seed)
{
    const int64_t nblocks = n / 4;
    ising_hot_range_kernel<<<cuda_grid(nblocks), CUDA_THREADS, 0, stream>>>(
        dst, first_site / 4, nblocks, seed);
    return cudaGetLastError();
}

/* bonds = sum_i s_i sum_mu eps_{i,mu} s_{i+mu} (eps 1 when NULL), spins = sum_i s_i. */
__global__ void ising_bytes_measure_range_kernel(struct latmc_lattice v, const int8_t *spins,
                                           const int8_t *eps, struct latmc_ising_sums *sums)
{
    const int64_t lx = v.lx, ly = v.ly;
    const int nd = v.ndim;
    const int64_t plane = nd == 3 ? lx * ly : lx;
    int64_t bonds = 0, total = 0;
    for (int64_t i = cuda_first_item(); i < v.nsites; i += cuda_item_stride()) {
        const int64_t x = i % lx, row = i / lx;
        int64_t up[3];
        up[0] = row * lx + latmc_wrap_up(x, lx);
        if (nd == 3) {
            const int64_t y = row % ly, z = row / ly;
            up[1] = x + lx * (latmc_wrap_up(y, ly) + ly * z);
        }
        up[nd - 1] = i + plane; /* the last axis: the next plane, no wrap */
        int nb = 0;
        for (int mu = 0; mu < nd; mu++)
            nb += (eps ? eps[nd * i + mu] : 1) * spins[up[mu]];
        bonds += spins[i] * nb;
        total += spins[i];
    }
    cuda_warp_add((unsigned long long *)&sums->bonds, (unsigned long long)bonds);
    cuda_warp_add((unsigned long long *)&sums->spins, (unsigned long long)total);
}

extern "C" cudaError_t cuda_ising_measure_range(cudaStream_t stream,
                                                const struct latmc_lattice *local,
                                                const int8_t *spins, const int8_t *eps,
                                                const struct cuda_plane_range *r,
                                                struct latmc_ising_sums *sums)
{
    int64_t plane = 0;
    const struct latmc_lattice v = cuda_plane_range_view(local, r, &plane);
    ising_bytes_measure_range_kernel<<<cuda_grid(v.nsites), CUDA_THREADS, 0, stream>>>(
        v, spins + r->p0 * plane, eps ? eps + r->p0 * plane * local->ndim : NULL, sums);
    return cudaGetLastError();
}
