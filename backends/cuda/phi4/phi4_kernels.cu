/*
 * phi^4 on the GPU: hot start, the two sweep schedules of doc/models/phi4.md ("The CUDA
 * chain") and the reduction behind the observables.
 *
 * Chunk kernel (phi4_chunk_kernel): one block per chunk of a sub-grid. The block copies its
 * chunk plus the two-site halo (periodic) into shared memory, runs all nloc passes there
 * and writes the chunk back. Within a pass the colours follow one another, separated by
 * __syncthreads(). One thread owns a segment: 4 ncolours consecutive sites of one row of
 * the chunk (32 with 8 colours, 20 with 5), i.e. for each colour exactly the four sites
 * whose draws are the four lanes of one Philox block (their within-colour numbers are
 * 4b .. 4b+3, because segments start at multiples of 4 ncolours). Per colour it reads the
 * four sites' coronas from shared memory once, then runs nhit hits on all four with two
 * Philox calls per hit (proposal and acceptance draws), and stores the four values back.
 * The arithmetic of a hit is lib/phi4.h's (the CPU's), except the logarithm, see
 * phi4_hits.
 *
 * Site-order kernel (phi4_site_kernel): the CPU reference's order and arithmetic, one launch
 * per pass and colour, one thread per Philox block of the colour, straight from global
 * memory; for lattices the chunks do not fit.
 *
 * Measurement: one thread per row sums the row in x order, in double, exactly as the CPU
 * reference does (backends/cpu/phi4/phi4_measure_impl.h); one thread then adds the rows in
 * order. The result is deterministic and equal, bit for bit, to the CPU's for the same
 * field.
 *
 * The kernels' device code (a hit, the draws, a chunk through its passes, a site-order
 * Philox block, a row's sums and their total) is phi4_device.cuh's, which the ensembles'
 * batched kernels (phi4/phi4_batch_kernels.cu) run with a member index.
 */
#include "cuda_device.h"
#include "modes_fixed.cuh"
#include "phi4_device.cuh"

/* ---------------------------------------------------------------------------------------- */
/* Chunk kernel                                                                              */

/*
 * One sub-grid of the chunk schedule. NC colours, colour = (x + AY y + AZ z) mod NC.
 * Launch with a multiple of 32 threads and the plan's shared memory.
 */
template <typename R, int NDIM, int NC, bool BOX = false>
__global__ void __launch_bounds__(CUDA_PHI4_MAX_THREADS)
phi4_chunk_kernel(const chunk_args<R> a, R *phi, unsigned long long *accepted)
{
    extern __shared__ __align__(16) unsigned char phi4_smem[];
    R *box = reinterpret_cast<R *>(phi4_smem);
    const int64_t nchunks = (int64_t)a.hx * a.hy * a.hz;
    uint64_t total = 0;
    for (int64_t ch = blockIdx.x; ch < nchunks; ch += gridDim.x)
        total += phi4_chunk_update<R, NDIM, NC, BOX>(a, a.k, a.keys, phi, box, ch);
    cuda_warp_add(accepted, total);
}

/* ---------------------------------------------------------------------------------------- */
/* Site-order kernel: the CPU reference's chain                                              */

template <typename R>
__global__ void phi4_site_kernel(const struct site_geom g, R *phi,
                                 const typename phi4_ops<R>::coef k, uint32_t nhit,
                                 const struct cuda_phi4_keys keys, struct latmc_rng_name name,
                                 int colour, unsigned long long *accepted)
{
    const int64_t nblocks = (g.per_colour + 3) / 4;
    uint64_t total = 0;
    for (int64_t b = cuda_first_item(); b < nblocks; b += cuda_item_stride())
        total += phi4_site_block<R>(g, phi, k, nhit, keys, name, colour, b);
    cuda_warp_add(accepted, total);
}

/* ---------------------------------------------------------------------------------------- */
/* Hot start and measurement                                                                 */

template <typename R> __global__ void phi4_hot_kernel(R *phi, int64_t n, uint64_t seed)
{
    const int64_t nblocks = (n + 3) / 4;
    for (int64_t b = cuda_first_item(); b < nblocks; b += cuda_item_stride()) {
        const latmc_philox_ctr r = latmc_rng_init_block(seed, 0, 0, (uint64_t)b);
        for (int l = 0; l < 4 && 4 * b + l < n; l++)
            phi[4 * b + l] = phi4_ops<R>::draw_signed(r.v[l]);
    }
}

template <typename R, int NDIM, bool BOX = false>
__global__ void __launch_bounds__(32 * PHI4_ROWS_WARPS)
phi4_rows_kernel(struct latmc_lattice g, const R *phi, double *partials)
{
    __shared__ double terms[PHI4_ROWS_WARPS][4 + NDIM][32];
    const int lane = threadIdx.x & 31;
    double (*t)[32] = terms[threadIdx.x >> 5];
    const int64_t rows = g.ly * g.lz;
    for (int64_t row = (int64_t)blockIdx.x * PHI4_ROWS_WARPS + (threadIdx.x >> 5); row < rows;
         row += (int64_t)gridDim.x * PHI4_ROWS_WARPS)
        phi4_row_partials<R, NDIM, BOX>(g, phi, partials, row, t, lane);
}


/* A thread a row (phi4_row_walk): the same partials as phi4_rows_kernel's. */
template <typename R, int NDIM, bool BOX = false>
__global__ void __launch_bounds__(PHI4_WALK_THREADS)
phi4_row_walk_kernel(struct latmc_lattice g, const R *phi, double *partials)
{
    const int64_t rows = g.ly * g.lz;
    for (int64_t row = cuda_first_item(); row < rows; row += cuda_item_stride())
        phi4_row_walk<R, NDIM, BOX>(g, phi, partials, row);
}

/* the rows' total: one block; its threads copy the tiles in flight (phi4_rows_total) */
#define PHI4_TOTAL_THREADS 256

__global__ void __launch_bounds__(PHI4_TOTAL_THREADS)
phi4_rows_total_kernel(int64_t rows, int64_t rows_per_plane, const double *partials,
                       struct latmc_phi4_sums *sums)
{
    phi4_rows_total(rows, rows_per_plane, partials, sums);
}

/* ---------------------------------------------------------------------------------------- */
/* Launchers                                                                                 */

static unsigned phi4_grid(int64_t items, int threads)
{
    int64_t blocks = (items + threads - 1) / threads;
    if (blocks < 1)
        blocks = 1;
    if (blocks > CUDA_MAX_BLOCKS)
        blocks = CUDA_MAX_BLOCKS;
    return (unsigned)blocks;
}

/* The plan's chunk kernel: the one-device one, or (BOX) the boxes' one. */
template <typename R, bool BOX> static const void *chunk_kernel_of(int ndim, int ncolours)
{
    if (ndim == 3)
        return (const void *)phi4_chunk_kernel<R, 3, 8, BOX>;
    if (ncolours == 8)
        return (const void *)phi4_chunk_kernel<R, 2, 8, BOX>;
    return (const void *)phi4_chunk_kernel<R, 2, 5, BOX>;
}

/*
 * The chunk kernel may use all the shared memory a block can have (the attribute is per
 * kernel and device, shared by every sim: set it to the device's limit, not to this plan's
 * size, so that one sim never lowers it under another's), and prefers shared memory to L1.
 */
template <bool BOX> static cudaError_t prepare_chunk_kernel(const struct cuda_phi4_plan *plan)
{
    if (plan->schedule != CUDA_PHI4_CHUNKS)
        return cudaSuccess;
    int device = 0, limit = 0;
    cudaError_t err = cudaGetDevice(&device);
    if (err == cudaSuccess)
        err = cuda_device_smem_optin(device, &limit);
    const void *fn = plan->precision == LATMC_PRECISION_FLOAT
                         ? chunk_kernel_of<float, BOX>(plan->ndim, plan->ncolours)
                         : chunk_kernel_of<double, BOX>(plan->ndim, plan->ncolours);
    if (err == cudaSuccess)
        err = cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, limit);
    if (err == cudaSuccess)
        err = cudaFuncSetAttribute(fn, cudaFuncAttributePreferredSharedMemoryCarveout,
                                   cudaSharedmemCarveoutMaxShared);
    return err;
}

extern "C" cudaError_t cuda_phi4_prepare(const struct cuda_phi4_plan *plan)
{
    return prepare_chunk_kernel<false>(plan);
}

extern "C" cudaError_t cuda_phi4_hot_start(cudaStream_t stream, const struct cuda_phi4_plan *plan,
                                           void *phi, int64_t n, uint64_t seed)
{
    const unsigned grid = phi4_grid((n + 3) / 4, plan->threads);
    if (plan->precision == LATMC_PRECISION_FLOAT)
        phi4_hot_kernel<float><<<grid, plan->threads, 0, stream>>>((float *)phi, n, seed);
    else
        phi4_hot_kernel<double><<<grid, plan->threads, 0, stream>>>((double *)phi, n, seed);
    return cudaGetLastError();
}

/* Sub-grid `sub` of the chunk schedule (its bits: the chunks' parities along x, y, z) of
 * the plan's chunk kernel, the one-device one or (BOX) the boxes' one. */
template <typename R, bool BOX>
static cudaError_t launch_sub_grid(cudaStream_t stream, const struct cuda_phi4_plan *p,
                                   unsigned grid, chunk_args<R> a, int sub, R *phi,
                                   unsigned long long *accepted)
{
    a.px = sub & 1;
    a.ppy = (sub >> 1) & 1;
    a.ppz = (sub >> 2) & 1;
    if (p->ndim == 3)
        phi4_chunk_kernel<R, 3, 8, BOX><<<grid, p->threads, p->smem_bytes, stream>>>(a, phi, accepted);
    else if (p->ncolours == 8)
        phi4_chunk_kernel<R, 2, 8, BOX><<<grid, p->threads, p->smem_bytes, stream>>>(a, phi, accepted);
    else
        phi4_chunk_kernel<R, 2, 5, BOX><<<grid, p->threads, p->smem_bytes, stream>>>(a, phi, accepted);
    return cudaGetLastError();
}

/* Sub-grid `sub` of the chunk schedule: every chunk of it, all nloc passes inside. */
template <typename R>
static cudaError_t step_chunks(cudaStream_t stream, const struct cuda_phi4_plan *p,
                               const struct latmc_lattice *g, R *phi,
                               const struct latmc_phi4_tables *t, const struct cuda_phi4_keys *keys,
                               uint64_t sweep, int sub, unsigned long long *accepted)
{
    const chunk_args<R> a = chunk_args_of<R>(p, g, t, keys, sweep);
    const int64_t nchunks = (int64_t)a.hx * a.hy * a.hz;
    const unsigned grid = (unsigned)(nchunks < CUDA_MAX_BLOCKS ? nchunks : CUDA_MAX_BLOCKS);
    return launch_sub_grid<R, false>(stream, p, grid, a, sub, phi, accepted);
}

/* The step's colour in the site order, nhit hits per site, its draws named by the step's
 * name (lib/model_phi4.c's step_of). */
template <typename R>
static cudaError_t step_sites(cudaStream_t stream, const struct cuda_phi4_plan *p,
                              const struct latmc_lattice *g, R *phi,
                              const struct latmc_phi4_tables *t, const struct cuda_phi4_keys *keys,
                              struct latmc_rng_name name, int colour,
                              unsigned long long *accepted)
{
    const struct site_geom sg = site_geom_of(p, g);
    const unsigned grid = phi4_grid((sg.per_colour + 3) / 4, p->threads);
    phi4_site_kernel<R><<<grid, p->threads, 0, stream>>>(
        sg, phi, coef_of<R>(t), t->nhit, *keys, name, colour, accepted);
    return cudaGetLastError();
}

extern "C" cudaError_t cuda_phi4_step(cudaStream_t stream, const struct cuda_phi4_plan *plan,
                                      const struct latmc_lattice *g, void *phi,
                                      const struct latmc_phi4_tables *tables,
                                      const struct cuda_phi4_keys *keys, uint64_t sweep,
                                      const struct latmc_step *step,
                                      unsigned long long *accepted)
{
    const bool single = plan->precision == LATMC_PRECISION_FLOAT;
    if (plan->schedule == CUDA_PHI4_CHUNKS)
        return single ? step_chunks<float>(stream, plan, g, (float *)phi, tables, keys, sweep,
                                           step->index, accepted)
                      : step_chunks<double>(stream, plan, g, (double *)phi, tables, keys, sweep,
                                            step->index, accepted);
    return single ? step_sites<float>(stream, plan, g, (float *)phi, tables, keys,
                                      step->rng, step->colour, accepted)
                  : step_sites<double>(stream, plan, g, (double *)phi, tables, keys,
                                       step->rng, step->colour, accepted);
}

/*
 * The rows' partials of `g` (rows = L_y L_z): a thread a row, its rows staged in shared
 * memory in 2D where the tile walk takes them (cuda_phi4_tile_walk_fits), else straight
 * from global memory (phi4_row_walk_kernel) where the rows are long and many (L_x a
 * multiple of 4, at least PHI4_WALK_MIN_LX sites, at least PHI4_WALK_MIN_ROWS rows: the
 * serial walk then has rows enough to fill the GPU), else a warp a row (phi4_rows_kernel).
 * The same doubles every way.
 */
template <bool BOX>
static cudaError_t launch_rows(cudaStream_t stream, const struct latmc_lattice &g, bool single,
                               const void *phi, double *partials)
{
    const int64_t rows = g.ly * g.lz;
    if (cuda_phi4_tile_walk_fits(&g, single)) /* 2D: staged rows (phi4_tile_walk.cu) */
        return cuda_phi4_tile_walk(stream, &g, single, BOX, phi, partials, NULL, 0);
    if (g.lx % 4 == 0 && g.lx >= PHI4_WALK_MIN_LX && rows >= PHI4_WALK_MIN_ROWS) {
        const unsigned grid = phi4_grid(rows, PHI4_WALK_THREADS);
        if (g.ndim == 3 && single)
            phi4_row_walk_kernel<float, 3, BOX><<<grid, PHI4_WALK_THREADS, 0, stream>>>(
                g, (const float *)phi, partials);
        else if (g.ndim == 3)
            phi4_row_walk_kernel<double, 3, BOX><<<grid, PHI4_WALK_THREADS, 0, stream>>>(
                g, (const double *)phi, partials);
        else if (single)
            phi4_row_walk_kernel<float, 2, BOX><<<grid, PHI4_WALK_THREADS, 0, stream>>>(
                g, (const float *)phi, partials);
        else
            phi4_row_walk_kernel<double, 2, BOX><<<grid, PHI4_WALK_THREADS, 0, stream>>>(
                g, (const double *)phi, partials);
        return cudaGetLastError();
    }
    const int threads = 32 * PHI4_ROWS_WARPS; /* one warp per row */
    const unsigned grid = phi4_grid(rows, PHI4_ROWS_WARPS);
    if (g.ndim == 3 && single)
        phi4_rows_kernel<float, 3, BOX><<<grid, threads, 0, stream>>>(g, (const float *)phi,
                                                                      partials);
    else if (g.ndim == 3)
        phi4_rows_kernel<double, 3, BOX><<<grid, threads, 0, stream>>>(g, (const double *)phi,
                                                                       partials);
    else if (single)
        phi4_rows_kernel<float, 2, BOX><<<grid, threads, 0, stream>>>(g, (const float *)phi,
                                                                      partials);
    else
        phi4_rows_kernel<double, 2, BOX><<<grid, threads, 0, stream>>>(g, (const double *)phi,
                                                                       partials);
    return cudaGetLastError();
}

extern "C" cudaError_t cuda_phi4_measure(cudaStream_t stream, const struct cuda_phi4_plan *plan,
                                         const struct latmc_lattice *g, const void *phi,
                                         double *partials, struct latmc_phi4_sums *sums)
{
    const int64_t rows = g->ly * g->lz;
    const bool single = plan->precision == LATMC_PRECISION_FLOAT;
    cudaError_t err = launch_rows<false>(stream, *g, single, phi, partials);
    if (err != cudaSuccess)
        return err;
    phi4_rows_total_kernel<<<1, PHI4_TOTAL_THREADS, 0, stream>>>(rows, g->ndim == 3 ? g->ly : 1,
                                                                 partials, sums);
    return cudaGetLastError();
}

/* ---------------------------------------------------------------------------------------- */
/* Box variants (a box with halos: phi4/cuda_phi4_leaf.c)                                  */
/*
 * A box's memory holds planes [cut0, cut0 + n) of the lattice's last axis (its own
 * planes and two halo planes on each side), in natural order: global plane p is memory
 * plane p - cut0. Every kernel names sites, draws and colours by global coordinates, as
 * the one-device kernels do, so each update is the one-device update bit for bit.
 */

/* phi at x + d (|d_mu| <= 2) in a box's memory: wrapped along x (and y in 3D), the cut
 * axis read from the halo planes. */
template <typename R>
__device__ __forceinline__ R box_value(const struct site_geom &g, const R *phi,
                                        const int64_t x[3], int dx, int dy, int dz, int64_t cut0)
{
    const int64_t a = phi4_wrap(x[0] + dx, g.lx);
    if (g.ndim == 3)
        return phi[a + g.lx * (phi4_wrap(x[1] + dy, g.ly) + g.ly * (x[2] + dz - cut0))];
    return phi[a + g.lx * (x[1] + dy - cut0)];
}

/* site_corona through box_value: the same sums in the same order. */
template <typename R>
__device__ R box_corona(const struct site_geom &g, const R *phi, const int64_t x[3],
                         const typename phi4_ops<R>::coef *k, int64_t cut0)
{
    return corona_by<R>(g, k, [&](int dx, int dy, int dz) {
        return box_value(g, phi, x, dx, dy, dz, cut0);
    });
}

/*
 * phi4_site_kernel on the sites of the colour with within-colour numbers [j0, j1) (whole
 * planes of the cut axis). A Philox block may straddle j0 or j1 (2D, 5 colours): its
 * lanes outside the range are left to the neighbouring box, which draws the same block.
 */
template <typename R>
__global__ void phi4_site_box_kernel(const struct site_geom g, R *phi,
                                      const typename phi4_ops<R>::coef k, uint32_t nhit,
                                      const struct cuda_phi4_keys keys, struct latmc_rng_name name,
                                      int colour, int64_t j0, int64_t j1, int64_t cut0,
                                      unsigned long long *accepted)
{
    const int64_t b0 = j0 / 4, nblocks = (j1 + 3) / 4 - b0;
    uint64_t total = 0;
    for (int64_t i = cuda_first_item(); i < nblocks; i += cuda_item_stride()) {
        const int64_t b = b0 + i;
        int64_t idx[4] = { 0, 0, 0, 0 };
        R v[4] = { 0, 0, 0, 0 }, c[4] = { 0, 0, 0, 0 };
        const int lo = 4 * b < j0 ? (int)(j0 - 4 * b) : 0;
        const int hi = 4 * b + 4 > j1 ? (int)(j1 - 4 * b) : 4;
        for (int l = lo; l < hi; l++) {
            int64_t x[3];
            site_of(g, colour, 4 * b + l, x);
            idx[l] = g.ndim == 3 ? x[0] + g.lx * (x[1] + g.ly * (x[2] - cut0))
                                 : x[0] + g.lx * (x[1] - cut0);
            v[l] = phi[idx[l]];
            c[l] = box_corona<R>(g, phi, x, &k, cut0);
        }
        const struct latmc_philox_fold3 r1 =
            latmc_philox_fold3_name(keys.k[0][0], keys.k[0][1], name, (uint64_t)b);
        for (uint32_t hit = 0; hit < nhit; hit++) {
            const uint32_t phase = latmc_phi4_rng_phase(colour, hit);
            const latmc_philox_ctr eta =
                phi4_draws(keys, r1, name, phase, latmc_phi4_rng_sub(hit, LATMC_PHI4_DRAW_ETA));
            const latmc_philox_ctr u = phi4_draws(keys, r1, name, phase,
                                                  latmc_phi4_rng_sub(hit, LATMC_PHI4_DRAW_ACCEPT));
            total += phi4_hits<R, 4>(k, c, v, eta, u, hi, lo);
        }
        for (int l = lo; l < hi; l++)
            phi[idx[l]] = v[l];
    }
    cuda_warp_add(accepted, total);
}

/* Hot start of sites [first, first + n) of the lattice into dst[0 .. n): the draws of
 * phi4_hot_kernel. */
template <typename R> __global__ void phi4_hot_range_kernel(R *dst, int64_t first, int64_t n,
                                                            uint64_t seed)
{
    for (int64_t i = cuda_first_item(); i < n; i += cuda_item_stride()) {
        const int64_t site = first + i;
        const latmc_philox_ctr r = latmc_rng_init_block(seed, 0, 0, (uint64_t)(site / 4));
        dst[i] = phi4_ops<R>::draw_signed(r.v[site % 4]);
    }
}

/* Each plane's rows added in order from zero (phi4_rows_total_kernel's `plane`): one
 * thread per plane and sum. */
__global__ void phi4_plane_sums_kernel(int64_t planes, int64_t rows_per_plane,
                                       const double *partials, double *plane_sums)
{
    for (int64_t t = cuda_first_item(); t < planes * PHI4_NPARTIALS; t += cuda_item_stride()) {
        const int64_t p = t / PHI4_NPARTIALS, k = t % PHI4_NPARTIALS;
        double plane = 0;
        for (int64_t r = 0; r < rows_per_plane; r++)
            plane += partials[PHI4_NPARTIALS * (p * rows_per_plane + r) + k];
        plane_sums[t] = plane;
    }
}

extern "C" cudaError_t cuda_phi4_prepare_boxes(const struct cuda_phi4_plan *plan)
{
    return prepare_chunk_kernel<true>(plan);
}

extern "C" cudaError_t cuda_phi4_hot_range(cudaStream_t stream, const struct cuda_phi4_plan *plan,
                                           void *dst, int64_t first, int64_t n, uint64_t seed)
{
    if (n <= 0)
        return cudaSuccess;
    const unsigned grid = phi4_grid(n, plan->threads);
    if (plan->precision == LATMC_PRECISION_FLOAT)
        phi4_hot_range_kernel<float><<<grid, plan->threads, 0, stream>>>((float *)dst, first, n,
                                                                         seed);
    else
        phi4_hot_range_kernel<double><<<grid, plan->threads, 0, stream>>>((double *)dst, first,
                                                                          n, seed);
    return cudaGetLastError();
}

template <typename R>
static cudaError_t box_chunks(cudaStream_t stream, const struct cuda_phi4_plan *p,
                               const struct latmc_lattice *g, R *phi,
                               const struct latmc_phi4_tables *t, const struct cuda_phi4_keys *keys,
                               uint64_t sweep, const struct cuda_phi4_box_range *r,
                               unsigned long long *accepted)
{
    /* the layers of the parity in [first, first + count) */
    const int64_t c0 = r->first + ((r->first - r->parity) & 1);
    const int64_t n = c0 < r->first + r->count ? (r->first + r->count - c0 + 1) / 2 : 0;
    if (n == 0)
        return cudaSuccess;
    chunk_args<R> a = chunk_args_of<R>(p, g, t, keys, sweep);
    a.k0 = (c0 - r->parity) / 2;
    a.cut0 = r->cut0;
    if (p->ndim == 3)
        a.hz = (int)n;
    else
        a.hy = (int)n;
    const int64_t nchunks = (int64_t)a.hx * a.hy * a.hz;
    const unsigned grid = (unsigned)(nchunks < CUDA_MAX_BLOCKS ? nchunks : CUDA_MAX_BLOCKS);
    /* the one-device order of the sub-grids of this cut parity (the cut axis' parity is
     * the highest bit of the sub-grid's number) */
    const int nsub = 1 << (p->ndim - 1);
    for (int s = 0; s < nsub; s++) {
        const cudaError_t err = launch_sub_grid<R, true>(stream, p, grid, a, s + nsub * r->parity,
                                                          phi, accepted);
        if (err != cudaSuccess)
            return err;
    }
    return cudaSuccess;
}

template <typename R>
static cudaError_t box_sites(cudaStream_t stream, const struct cuda_phi4_plan *p,
                              const struct latmc_lattice *g, R *phi,
                              const struct latmc_phi4_tables *t, const struct cuda_phi4_keys *keys,
                              struct latmc_rng_name name, int colour,
                              const struct cuda_phi4_box_range *r, unsigned long long *accepted)
{
    const struct site_geom sg = site_geom_of(p, g);
    const int64_t per_plane = sg.per_colour / (g->ndim == 3 ? g->lz : g->ly);
    const int64_t j0 = r->first * per_plane, j1 = (r->first + r->count) * per_plane;
    if (j1 <= j0)
        return cudaSuccess;
    const unsigned grid = phi4_grid((j1 + 3) / 4 - j0 / 4, p->threads);
    phi4_site_box_kernel<R><<<grid, p->threads, 0, stream>>>(
        sg, phi, coef_of<R>(t), t->nhit, *keys, name, colour, j0, j1, r->cut0, accepted);
    return cudaGetLastError();
}

extern "C" cudaError_t cuda_phi4_box_update(cudaStream_t stream, const struct cuda_phi4_plan *plan,
                                             const struct latmc_lattice *g, void *phi,
                                             const struct latmc_phi4_tables *tables,
                                             const struct cuda_phi4_keys *keys, uint64_t sweep,
                                             const struct latmc_step *step,
                                             const struct cuda_phi4_box_range *r,
                                             unsigned long long *accepted)
{
    const bool single = plan->precision == LATMC_PRECISION_FLOAT;
    if (plan->schedule == CUDA_PHI4_CHUNKS)
        return single ? box_chunks<float>(stream, plan, g, (float *)phi, tables, keys, sweep, r,
                                           accepted)
                      : box_chunks<double>(stream, plan, g, (double *)phi, tables, keys, sweep,
                                            r, accepted);
    return single ? box_sites<float>(stream, plan, g, (float *)phi, tables, keys,
                                      step->rng, step->colour, r, accepted)
                  : box_sites<double>(stream, plan, g, (double *)phi, tables, keys,
                                       step->rng, step->colour, r, accepted);
}

/* Range r's own planes as a lattice of r->count planes (*own), read from memory plane
 * first - cut0 (the return value). */
static const void *own_planes(const struct cuda_phi4_plan *plan, const struct latmc_lattice *g,
                              const void *phi, const struct cuda_phi4_box_range *r,
                              struct latmc_lattice *own)
{
    *own = *g;
    int64_t plane_sites = g->lx;
    if (g->ndim == 3) {
        own->lz = r->count;
        plane_sites *= g->ly;
    } else {
        own->ly = r->count;
    }
    own->nsites = plane_sites * r->count;
    const size_t vb = plan->precision == LATMC_PRECISION_FLOAT ? sizeof(float) : sizeof(double);
    return (const char *)phi + (size_t)((r->first - r->cut0) * plane_sites) * vb;
}

static cudaError_t launch_plane_sums(cudaStream_t stream, const struct latmc_lattice *g,
                                     int64_t count, const double *partials, double *plane_sums)
{
    phi4_plane_sums_kernel<<<phi4_grid(count * PHI4_NPARTIALS, 128), 128, 0, stream>>>(
        count, g->ndim == 3 ? g->ly : 1, partials, plane_sums);
    return cudaGetLastError();
}

extern "C" cudaError_t cuda_phi4_measure_planes(cudaStream_t stream,
                                                const struct cuda_phi4_plan *plan,
                                                const struct latmc_lattice *g, const void *phi,
                                                const struct cuda_phi4_box_range *r,
                                                double *partials, double *plane_sums)
{
    struct latmc_lattice own;
    const void *at = own_planes(plan, g, phi, r, &own);
    const bool single = plan->precision == LATMC_PRECISION_FLOAT;
    cudaError_t err = launch_rows<true>(stream, own, single, at, partials);
    if (err != cudaSuccess)
        return err;
    return launch_plane_sums(stream, g, r->count, partials, plane_sums);
}

/* ---------------------------------------------------------------------------------------- */
/* The Fourier modes' integer projections (lib/modes.h; q = round(phi 2^20), modes_fixed.cuh) */

#define PHI4_PROJ_WARPS 8 /* a block: 256 columns, a warp's 32 each */
#define PHI4_PROJ_ROWS 32 /* a group of rows: a lane each when their sums go out */
#define PHI4_PROJ_BATCH 8 /* rows whose loads go out together */
/* threads a launch aims at: every SM filled a few times over, chunks of rows long enough
 * that the columns' atomics stay few */
#define PHI4_PROJ_THREADS_WANTED ((int64_t)1 << 19)

/* A range's rows and where their sums go (one component of lib/modes.h's layout). */
struct phi4_proj_geom {
    int64_t lx, rpp;       /* sites of a row, rows of a plane (2D: 1, 3D: L_y) */
    int64_t nrows, chunk;  /* the range's rows; rows a block, a multiple of PHI4_PROJ_ROWS */
    int64_t last_at;       /* P_last's entry of the range's first plane */
    bool three;
};

/* A row group's sums (lane k: row r0 + k, k < nr) out: P_y (3D) a row, P_last a row in 2D
 * and in 3D a plane, the lanes of one plane added first (most groups lie in one). */
__device__ __forceinline__ void phi4_proj_rows_out(const struct phi4_proj_geom &p, int64_t r0,
                                                   int nr, unsigned long long v,
                                                   unsigned long long *proj)
{
    const int lane = threadIdx.x % 32;
    const int64_t row = r0 + (lane < nr ? lane : nr - 1);
    const int64_t plane = row / p.rpp;
    if (!p.three) {
        if (lane < nr)
            atomicAdd(proj + p.last_at + plane, v);
        return;
    }
    if (lane < nr)
        atomicAdd(proj + p.lx + (row - plane * p.rpp), v);
    const bool one_plane = r0 / p.rpp == (r0 + nr - 1) / p.rpp;
    if (!one_plane) {
        if (lane < nr)
            atomicAdd(proj + p.last_at + plane, v);
        return;
    }
    if (lane >= nr)
        v = 0;
    for (int o = 16; o > 0; o /= 2)
        v += __shfl_xor_sync(0xffffffffu, v, o);
    if (lane == 0)
        atomicAdd(proj + p.last_at + plane, v);
}

/*
 * A thread a column x of the range (grid.x: strips of 256 columns), down a chunk of rows
 * (grid.y), in groups of 32 rows: each site's q (its raw bits) into the column's 64-bit
 * sum, and through two warp sums of its pieces into the row's, which lane k of the warp
 * keeps for row k of the group; the block's warps' row sums added in shared memory, one
 * atomic a row (3D: its P_y, and a plane's P_last), and one a column at the chunk's end.
 * Lanes past L_x, and rows past a group's in its last batch, count phi = 0 (q = 0).
 */
template <typename R>
__global__ void __launch_bounds__(32 * PHI4_PROJ_WARPS)
phi4_projections_kernel(struct phi4_proj_geom p, const R *phi, unsigned long long *proj)
{
    __shared__ unsigned long long rows_sh[2][PHI4_PROJ_WARPS][PHI4_PROJ_ROWS];
    const int lane = threadIdx.x % 32, w = threadIdx.x / 32;
    const int64_t x = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int64_t first = (int64_t)blockIdx.y * p.chunk;
    const int64_t end = first + p.chunk < p.nrows ? first + p.chunk : p.nrows;
    const bool in = x < p.lx;
    const R *at = phi + (in ? x : 0);
    unsigned long long column = 0, counted = 0; /* the raw bits, and how many */
    int set = 0;
    for (int64_t r0 = first; r0 < end; r0 += PHI4_PROJ_ROWS, set ^= 1) {
        const int nr = (int)(end - r0 < PHI4_PROJ_ROWS ? end - r0 : PHI4_PROJ_ROWS);
        unsigned row_lo = 0, row_hi = 0; /* lane k: the warp's sums of row r0 + k */
        for (int k0 = 0; k0 < nr; k0 += PHI4_PROJ_BATCH) { /* the batch's loads in flight */
            double v[PHI4_PROJ_BATCH];
#pragma unroll
            for (int i = 0; i < PHI4_PROJ_BATCH; i++) /* rows past the group's: q = 0 */
                v[i] = in && k0 + i < nr ? (double)at[(r0 + k0 + i) * p.lx] : 0.0;
            const int k = lane - k0; /* this lane's row in the batch, if any */
#pragma unroll
            for (int i = 0; i < PHI4_PROJ_BATCH; i++) {
                const unsigned long long b = cuda_modes_field_bits(v[i]);
                column += b;
                unsigned lo, hi;
                cuda_modes_field_pieces(b, ~0u, &lo, &hi);
                lo = cuda_modes_warp_sum(lo);
                hi = cuda_modes_warp_sum(hi);
                if (k == i) {
                    row_lo = lo;
                    row_hi = hi;
                }
            }
            counted += PHI4_PROJ_BATCH;
        }
        rows_sh[set][w][lane] = cuda_modes_field_value(row_lo, row_hi);
        __syncthreads(); /* the other set is written next: one barrier a group */
        if (w == 0) {
            unsigned long long v = 0;
            for (int k = 0; k < PHI4_PROJ_WARPS; k++)
                v += rows_sh[set][k][lane];
            phi4_proj_rows_out(p, r0, nr, v, proj);
        }
    }
    if (in && counted > 0)
        atomicAdd(proj + x, column - counted * CUDA_MODES_FIELD_BITS);
}

template <typename R>
static cudaError_t launch_projections(cudaStream_t stream, const struct phi4_proj_geom &p,
                                      const void *phi, int64_t *proj)
{
    const int threads = 32 * PHI4_PROJ_WARPS;
    const int64_t strips = (p.lx + threads - 1) / threads;
    phi4_projections_kernel<R><<<dim3((unsigned)strips, (unsigned)((p.nrows + p.chunk - 1) /
                                                                    p.chunk)),
                                 threads, 0, stream>>>(p, (const R *)phi,
                                                       (unsigned long long *)proj);
    return cudaGetLastError();
}

extern "C" cudaError_t cuda_phi4_projections(cudaStream_t stream, const struct cuda_phi4_plan *plan,
                                             const struct latmc_lattice *g, const void *phi,
                                             int64_t first, int64_t count, int64_t *proj)
{
    struct phi4_proj_geom p;
    p.three = g->ndim == 3;
    p.lx = g->lx;
    p.rpp = p.three ? g->ly : 1;
    p.nrows = count * p.rpp;
    p.last_at = g->lx + (p.three ? g->ly : 0) + first;
    if (p.nrows <= 0)
        return cudaSuccess;
    const int64_t strips = (p.lx + 32 * PHI4_PROJ_WARPS - 1) / (32 * PHI4_PROJ_WARPS);
    int64_t chunks = PHI4_PROJ_THREADS_WANTED / (32 * PHI4_PROJ_WARPS * strips);
    chunks = chunks < 1 ? 1 : chunks > p.nrows ? p.nrows : chunks;
    chunks = chunks > 65535 ? 65535 : chunks; /* the grid's y extent */
    const int64_t rows = (p.nrows + chunks - 1) / chunks;
    p.chunk = (rows + PHI4_PROJ_ROWS - 1) / PHI4_PROJ_ROWS * PHI4_PROJ_ROWS;
    return plan->precision == LATMC_PRECISION_FLOAT
               ? launch_projections<float>(stream, p, phi, proj)
               : launch_projections<double>(stream, p, phi, proj);
}

extern "C" cudaError_t cuda_phi4_measure_projections(cudaStream_t stream,
                                                     const struct cuda_phi4_plan *plan,
                                                     const struct latmc_lattice *g,
                                                     const void *phi,
                                                     const struct cuda_phi4_box_range *r,
                                                     double *partials, void *sums,
                                                     int64_t *proj)
{
    struct latmc_lattice own = *g;
    const void *at = r ? own_planes(plan, g, phi, r, &own) : phi;
    const bool single = plan->precision == LATMC_PRECISION_FLOAT;
    cudaError_t err = cuda_phi4_tile_walk(stream, &own, single, r != NULL, at, partials, proj,
                                          r ? r->first : 0);
    if (err != cudaSuccess) /* cudaErrorNotSupported: nothing enqueued */
        return err;
    if (r)
        return launch_plane_sums(stream, g, r->count, partials, (double *)sums);
    phi4_rows_total_kernel<<<1, PHI4_TOTAL_THREADS, 0, stream>>>(own.ly, 1, partials,
                                                                 (struct latmc_phi4_sums *)sums);
    return cudaGetLastError();
}
