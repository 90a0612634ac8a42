/*
 * phi^4 members of an ensemble in one launch (doc/ensembles.md, "Execution"): the grid
 * covers every member, `bpm` blocks a member (blockIdx.x / bpm is the member), and each
 * block runs the single lattice's own code (phi4/phi4_device.cuh) on its member's field
 * with its member's coefficients and round keys:
 *
 * - chunk schedule: a launch a sub-grid, the block's chunks of it through all nloc passes
 *   in shared memory (phi4_chunk_update, the single chunk kernel's body);
 * - site order: a launch a colour step, the block's Philox blocks of the colour
 *   (phi4_site_block, the single site kernel's body), or, for small members
 *   (cuda_ens_phi4_fused_fits: one block a member), every pass and colour of n_sweeps
 *   sweeps in one launch, a block barrier between two steps (a colour's sites read only
 *   other colours' sites, which the block's threads wrote before the barrier), the member's
 *   field in shared memory for the launch where it fits (float: all of them), the site
 *   order's indices then in 32-bit integers (phi4_sites32).
 *
 * The draws are named as the standalone sim names them (by site, sweep, pass and colour,
 * never by block), the arithmetic is the same code, so every member is bit for bit its
 * standalone CUDA sim. The sums: the single lattice's per-row code with a member index,
 * then one block a member adds the rows in its order; a tempering round's sum phi^2 alone
 * in one launch, the same additions in the same order.
 */
#include <string.h>

#include "cuda_device.h"
#include "cuda_launch.cuh"
#include "phi4_batch.h"
#include "cuda_temper_round.cuh"
#include "phi4_device.cuh"

/* Members of up to this many sites (site order) run whole sweeps in one launch, one block
 * each: 32^3 has 4096 sites a colour, 4 Philox blocks a thread of 256. */
#define ENS_PHI4_FUSED_SITES 32768

template <typename R> __device__ __forceinline__ typename phi4_ops<R>::coef
ens_phi4_coef(const struct cuda_ens_phi4_member &me);
template <> __device__ __forceinline__ struct latmc_phi4_coef_f
ens_phi4_coef<float>(const struct cuda_ens_phi4_member &me)
{
    return me.f;
}
template <> __device__ __forceinline__ struct latmc_phi4_coef_d
ens_phi4_coef<double>(const struct cuda_ens_phi4_member &me)
{
    return me.d;
}

/* The member's round keys into shared memory (20 words; the caller's barrier publishes
 * them). */
__device__ __forceinline__ void ens_phi4_load_keys(const struct cuda_ens_phi4_member &me,
                                                   struct cuda_phi4_keys *keys)
{
    if (threadIdx.x < 20)
        (&keys->k[0][0])[threadIdx.x] = (&me.keys.k[0][0])[threadIdx.x];
}

/* A sub-grid of the chunk schedule on every member: a's geometry and sweep (its k and keys
 * unused: the member's). */
template <typename R, int NDIM, int NC>
__global__ void __launch_bounds__(CUDA_PHI4_MAX_THREADS)
ens_phi4_chunk_kernel(const chunk_args<R> a, const struct cuda_ens_phi4_member *members,
                      int bpm, unsigned long long *accepted)
{
    extern __shared__ __align__(16) unsigned char ens_phi4_smem[];
    __shared__ struct cuda_phi4_keys keys;
    R *box = reinterpret_cast<R *>(ens_phi4_smem);
    const int m = (int)(blockIdx.x / (unsigned)bpm);
    const struct cuda_ens_phi4_member &me = members[m];
    ens_phi4_load_keys(me, &keys);
    const typename phi4_ops<R>::coef k = ens_phi4_coef<R>(me);
    R *phi = (R *)me.phi;
    const int64_t nchunks = (int64_t)a.hx * a.hy * a.hz;
    uint64_t total = 0;
    /* phi4_chunk_update starts with a block barrier: the keys are there before any use */
    for (int64_t ch = blockIdx.x % (unsigned)bpm; ch < nchunks; ch += bpm)
        total += phi4_chunk_update<R, NDIM, NC, false>(a, k, keys, phi, box, ch);
    cuda_warp_add(accepted + m, total);
}

/* The steps of a whole-sweep launch, body(name, colour) each, a block barrier before every
 * step but the first (the previous step's values, written by this block's threads). */
template <class Body>
__device__ __forceinline__ void ens_phi4_each_step(const struct cuda_ens_phi4_run &r,
                                                   int ncolours, Body &body)
{
    for (uint64_t s = 0; s < r.n_sweeps; s++)
        for (uint32_t pass = 0; pass < r.nloc; pass++)
            for (int colour = 0; colour < ncolours; colour++) {
                if (s != 0 || pass != 0 || colour != 0)
                    __syncthreads();
                /* phi4_step_of's name (lib/model_phi4.c; the host checks they agree) */
                body(latmc_phi4_rng_name(r.sweep0 + s, r.nloc, pass, colour), colour);
            }
}

/* A thread's Philox blocks of a colour step in `sites`' order (phi4_site_block_of). */
template <typename R, typename Sites> struct ens_phi4_site_body {
    const Sites &sites;
    R *phi;
    const typename phi4_ops<R>::coef &k;
    const struct cuda_phi4_keys &keys;
    uint32_t nhit;
    int64_t first, stride, nblocks;
    uint64_t total;
    __device__ __forceinline__ void operator()(struct latmc_rng_name name, int colour)
    {
        for (int64_t b = first; b < nblocks; b += stride)
            total += phi4_site_block_of<R>(sites, phi, k, nhit, keys, name, colour, b);
    }
};

/* Site order on every member from global memory: one step (bpm blocks a member), or
 * (bpm 1) whole sweeps: the single site kernel's code and indices. */
template <typename R>
__global__ void __launch_bounds__(CUDA_PHI4_MAX_THREADS)
ens_phi4_site_kernel(const struct site_geom g, const struct cuda_ens_phi4_run r,
                     const struct cuda_ens_phi4_member *members, int bpm,
                     unsigned long long *accepted)
{
    __shared__ struct cuda_phi4_keys keys;
    const int m = (int)(blockIdx.x / (unsigned)bpm);
    const struct cuda_ens_phi4_member &me = members[m];
    ens_phi4_load_keys(me, &keys);
    __syncthreads();
    const typename phi4_ops<R>::coef k = ens_phi4_coef<R>(me);
    const struct phi4_sites sites = { g };
    ens_phi4_site_body<R, phi4_sites> body = {
        sites, (R *)me.phi, k, keys, r.nhit,
        (int64_t)(blockIdx.x % (unsigned)bpm) * blockDim.x + threadIdx.x,
        (int64_t)bpm * blockDim.x, (g.per_colour + 3) / 4, 0 };
    if (r.n_sweeps == 0)
        body(r.rng, r.colour);
    else
        ens_phi4_each_step(r, g.ncolours, body);
    cuda_warp_add(accepted + m, body.total);
}

/*
 * Whole sweeps of small members, one block a member, its field copied into shared memory
 * first, every step run on the copy and the copy written back at the end: the site order's
 * code (phi4_site_block_of) in 32-bit integers with the dimension fixed (phi4_sites32: the
 * same sites, indices and sums as the single site kernel's 64-bit ones).
 */
template <typename R, int NDIM>
__global__ void __launch_bounds__(CUDA_PHI4_MAX_THREADS)
ens_phi4_site_smem_kernel(const struct site_geom g, const struct cuda_ens_phi4_run r,
                          const struct cuda_ens_phi4_member *members,
                          unsigned long long *accepted)
{
    extern __shared__ __align__(16) unsigned char ens_phi4_field[];
    __shared__ struct cuda_phi4_keys keys;
    const int m = (int)blockIdx.x;
    const struct cuda_ens_phi4_member &me = members[m];
    ens_phi4_load_keys(me, &keys);
    const typename phi4_ops<R>::coef k = ens_phi4_coef<R>(me);
    R *const global = (R *)me.phi, *const phi = reinterpret_cast<R *>(ens_phi4_field);
    const int nsites = (int)(g.per_colour * g.ncolours);
    for (int i = threadIdx.x; i < nsites; i += blockDim.x)
        phi[i] = global[i];
    __syncthreads();
    const struct phi4_sites32<NDIM> sites = phi4_sites32_of<NDIM>(g);
    ens_phi4_site_body<R, phi4_sites32<NDIM>> body = {
        sites, phi, k, keys, r.nhit, (int64_t)threadIdx.x, (int64_t)blockDim.x,
        (g.per_colour + 3) / 4, 0 };
    ens_phi4_each_step(r, g.ncolours, body);
    __syncthreads(); /* the last step's values */
    for (int i = threadIdx.x; i < nsites; i += blockDim.x)
        global[i] = phi[i];
    cuda_warp_add(accepted + m, body.total);
}

/* ---- launch ---- */

static const void *ens_chunk_kernel_of(const struct cuda_phi4_plan *p)
{
    const bool single = p->precision == LATMC_PRECISION_FLOAT;
    if (p->ndim == 3)
        return single ? (const void *)ens_phi4_chunk_kernel<float, 3, 8>
                      : (const void *)ens_phi4_chunk_kernel<double, 3, 8>;
    if (p->ncolours == 8)
        return single ? (const void *)ens_phi4_chunk_kernel<float, 2, 8>
                      : (const void *)ens_phi4_chunk_kernel<double, 2, 8>;
    return single ? (const void *)ens_phi4_chunk_kernel<float, 2, 5>
                  : (const void *)ens_phi4_chunk_kernel<double, 2, 5>;
}

/* As prepare_chunk_kernel (phi4_kernels.cu): the device's whole shared memory allowed. */
/* The whole-sweep kernel that keeps the member in shared memory. */
static const void *ens_site_smem_kernel_of(const struct cuda_phi4_plan *p)
{
    const bool single = p->precision == LATMC_PRECISION_FLOAT;
    if (p->ndim == 3)
        return single ? (const void *)ens_phi4_site_smem_kernel<float, 3>
                      : (const void *)ens_phi4_site_smem_kernel<double, 3>;
    return single ? (const void *)ens_phi4_site_smem_kernel<float, 2>
                  : (const void *)ens_phi4_site_smem_kernel<double, 2>;
}

extern "C" cudaError_t cuda_ens_phi4_prepare(const struct cuda_phi4_plan *plan)
{
    int device = 0, limit = 0;
    cudaError_t err = cudaGetDevice(&device);
    if (err == cudaSuccess)
        err = cuda_device_smem_optin(device, &limit);
    const void *fn = plan->schedule == CUDA_PHI4_CHUNKS ? ens_chunk_kernel_of(plan)
                                                        : ens_site_smem_kernel_of(plan);
    if (err == cudaSuccess)
        err = cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                   limit - (int)sizeof(struct cuda_phi4_keys));
    if (err == cudaSuccess)
        err = cudaFuncSetAttribute(fn, cudaFuncAttributePreferredSharedMemoryCarveout,
                                   cudaSharedmemCarveoutMaxShared);
    return err;
}

extern "C" int cuda_ens_phi4_fused_fits(const struct cuda_phi4_plan *plan,
                                        const struct latmc_lattice *lat)
{
    return plan->schedule == CUDA_PHI4_SITE_ORDER && lat->nsites <= ENS_PHI4_FUSED_SITES;
}

/* Blocks a member: enough for its items (`per` a block), at least one, and no more than
 * about four blocks an SM over all members. */
static int ens_phi4_bpm(int64_t items, int64_t per, int n)
{
    int device = 0, sms = 0;
    if (cudaGetDevice(&device) != cudaSuccess || cuda_device_sm_count(device, &sms) != cudaSuccess)
        sms = 1; /* reported by the launch's own error check, if it persists */
    int64_t want = (items + per - 1) / per;
    const int64_t spread = (4 * (int64_t)sms + n - 1) / n;
    if (want > spread)
        want = spread;
    return want < 1 ? 1 : (int)want;
}

template <typename R>
static cudaError_t ens_chunks(cudaStream_t stream, const struct cuda_phi4_plan *p,
                              const struct latmc_lattice *lat,
                              const struct cuda_ens_phi4_member *members, int n,
                              const struct cuda_ens_phi4_run *run, unsigned long long *accepted)
{
    struct latmc_phi4_tables t;
    memset(&t, 0, sizeof t);
    t.nhit = run->nhit;
    t.nloc = run->nloc;
    struct cuda_phi4_keys none;
    memset(&none, 0, sizeof none);
    chunk_args<R> a = chunk_args_of<R>(p, lat, &t, &none, run->sweep);
    a.px = run->sub & 1;
    a.ppy = (run->sub >> 1) & 1;
    a.ppz = (run->sub >> 2) & 1;
    const int64_t nchunks = (int64_t)a.hx * a.hy * a.hz;
    const int bpm = ens_phi4_bpm(nchunks, 1, n);
    const unsigned grid = (unsigned)n * (unsigned)bpm;
    if (p->ndim == 3)
        ens_phi4_chunk_kernel<R, 3, 8><<<grid, p->threads, p->smem_bytes, stream>>>(
            a, members, bpm, accepted);
    else if (p->ncolours == 8)
        ens_phi4_chunk_kernel<R, 2, 8><<<grid, p->threads, p->smem_bytes, stream>>>(
            a, members, bpm, accepted);
    else
        ens_phi4_chunk_kernel<R, 2, 5><<<grid, p->threads, p->smem_bytes, stream>>>(
            a, members, bpm, accepted);
    return cudaGetLastError();
}

template <typename R>
static cudaError_t ens_sites(cudaStream_t stream, const struct cuda_phi4_plan *p,
                             const struct latmc_lattice *lat,
                             const struct cuda_ens_phi4_member *members, int n,
                             const struct cuda_ens_phi4_run *run, unsigned long long *accepted)
{
    const struct site_geom g = site_geom_of(p, lat);
    const int64_t nblocks = (g.per_colour + 3) / 4;
    int threads = p->threads, bpm = 1;
    if (run->n_sweeps != 0) { /* one block a member, no more threads than Philox blocks */
        const int64_t t = (nblocks + 31) / 32 * 32;
        threads = (int)(t < CUDA_PHI4_MAX_THREADS ? t : CUDA_PHI4_MAX_THREADS);
        /* the member in shared memory where it fits beside the keys (cuda_ens_phi4_prepare
         * allowed the kernel the device's limit) */
        int device = 0, limit = 0;
        const size_t bytes = (size_t)lat->nsites * sizeof(R);
        if (cudaGetDevice(&device) == cudaSuccess &&
            cuda_device_smem_optin(device, &limit) == cudaSuccess &&
            bytes + sizeof(struct cuda_phi4_keys) <= (size_t)limit) {
            if (g.ndim == 3)
                ens_phi4_site_smem_kernel<R, 3><<<(unsigned)n, threads, bytes, stream>>>(
                    g, *run, members, accepted);
            else
                ens_phi4_site_smem_kernel<R, 2><<<(unsigned)n, threads, bytes, stream>>>(
                    g, *run, members, accepted);
            return cudaGetLastError();
        }
    } else {
        bpm = ens_phi4_bpm(nblocks, threads, n);
    }
    ens_phi4_site_kernel<R><<<(unsigned)n * (unsigned)bpm, threads, 0, stream>>>(
        g, *run, members, bpm, accepted);
    return cudaGetLastError();
}

extern "C" cudaError_t cuda_ens_phi4_steps(cudaStream_t stream, const struct cuda_phi4_plan *plan,
                                           const struct latmc_lattice *lat,
                                           const struct cuda_ens_phi4_member *members, int n,
                                           const struct cuda_ens_phi4_run *run,
                                           unsigned long long *accepted)
{
    const bool single = plan->precision == LATMC_PRECISION_FLOAT;
    if (plan->schedule == CUDA_PHI4_CHUNKS)
        return single ? ens_chunks<float>(stream, plan, lat, members, n, run, accepted)
                      : ens_chunks<double>(stream, plan, lat, members, n, run, accepted);
    return single ? ens_sites<float>(stream, plan, lat, members, n, run, accepted)
                  : ens_sites<double>(stream, plan, lat, members, n, run, accepted);
}

/* ---- the members' sums ---- */

/* Every member's rows (phi4_rows_kernel's per-row code), bpm blocks a member; partials:
 * 5 doubles a row, the member's rows after one another. */
template <typename R, int NDIM>
__global__ void __launch_bounds__(32 * PHI4_ROWS_WARPS)
ens_phi4_rows_kernel(const struct latmc_lattice g, const struct cuda_ens_phi4_member *members,
                     int bpm, double *partials)
{
    __shared__ double terms[PHI4_ROWS_WARPS][4 + NDIM][32];
    const int lane = threadIdx.x & 31;
    double (*t)[32] = terms[threadIdx.x >> 5];
    const int m = (int)(blockIdx.x / (unsigned)bpm);
    const R *phi = (const R *)members[m].phi;
    const int64_t rows = g.ly * g.lz;
    double *mine = partials + (size_t)m * (size_t)rows * PHI4_NPARTIALS;
    for (int64_t row = (int64_t)(blockIdx.x % (unsigned)bpm) * PHI4_ROWS_WARPS + (threadIdx.x >> 5);
         row < rows; row += (int64_t)bpm * PHI4_ROWS_WARPS)
        phi4_row_partials<R, NDIM, false>(g, phi, mine, row, t, lane);
}

/* Each member's rows added in the single lattice's order: one block a member. */
__global__ void __launch_bounds__(64) ens_phi4_total_kernel(int64_t rows, int64_t rows_per_plane,
                                                            const double *partials,
                                                            struct latmc_phi4_sums *out)
{
    phi4_rows_total(rows, rows_per_plane,
                    partials + (size_t)blockIdx.x * (size_t)rows * PHI4_NPARTIALS,
                    out + blockIdx.x);
}

extern "C" cudaError_t cuda_ens_phi4_measure(cudaStream_t stream, const struct cuda_phi4_plan *plan,
                                             const struct latmc_lattice *lat,
                                             const struct cuda_ens_phi4_member *members, int n,
                                             double *partials, struct latmc_phi4_sums *out)
{
    const int64_t rows = lat->ly * lat->lz;
    const int bpm = ens_phi4_bpm(rows, PHI4_ROWS_WARPS, n);
    const unsigned grid = (unsigned)n * (unsigned)bpm;
    const int threads = 32 * PHI4_ROWS_WARPS;
    const bool single = plan->precision == LATMC_PRECISION_FLOAT;
    if (lat->ndim == 3 && single)
        ens_phi4_rows_kernel<float, 3><<<grid, threads, 0, stream>>>(*lat, members, bpm, partials);
    else if (lat->ndim == 3)
        ens_phi4_rows_kernel<double, 3><<<grid, threads, 0, stream>>>(*lat, members, bpm, partials);
    else if (single)
        ens_phi4_rows_kernel<float, 2><<<grid, threads, 0, stream>>>(*lat, members, bpm, partials);
    else
        ens_phi4_rows_kernel<double, 2><<<grid, threads, 0, stream>>>(*lat, members, bpm, partials);
    const cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess)
        return err;
    ens_phi4_total_kernel<<<(unsigned)n, 64, 0, stream>>>(rows, lat->ndim == 3 ? lat->ly : 1,
                                                          partials, out);
    return cudaGetLastError();
}

/* ---- a tempering round's sum phi^2 alone ---- */

#define ENS_PHI4_PHI2_THREADS 256

/*
 * Each member's sum phi^2 into out[m].phi2 (its other sums left as they were), the very
 * double cuda_ens_phi4_measure gives: a row's partial is its v^2 (v the field value in
 * double, v^2 rounded) added in x order from zero (phi4_row_partials' lane 1), a plane's
 * sum its rows added in order from zero, the total the planes' sums in order from zero
 * (phi4_rows_total). One block a member: a thread a row, then a thread a plane, then one
 * thread the planes (the member's partials in its part of `scratch`: rows + planes
 * doubles; global writes are seen by the block's threads after the barrier).
 */
template <typename R>
__global__ void __launch_bounds__(ENS_PHI4_PHI2_THREADS)
ens_phi4_phi2_kernel(const struct latmc_lattice g, const struct cuda_ens_phi4_member *members,
                     int64_t rows_per_plane, double *scratch, struct latmc_phi4_sums *out)
{
    const int m = (int)blockIdx.x;
    const R *phi = (const R *)members[m].phi;
    const int64_t rows = g.ly * g.lz, planes = rows / rows_per_plane;
    double *row_sums = scratch + (size_t)m * (size_t)rows * PHI4_NPARTIALS;
    double *plane_sums = row_sums + rows; /* rows + planes <= 5 rows */
    for (int64_t r = threadIdx.x; r < rows; r += blockDim.x) {
        const R *row = phi + g.lx * r;
        double acc = 0;
        for (int64_t x = 0; x < g.lx; x++) {
            const double v = row[x];
            const double v2 = v * v;
            acc += v2;
        }
        row_sums[r] = acc;
    }
    __syncthreads();
    for (int64_t p = threadIdx.x; p < planes; p += blockDim.x) {
        const double *in_plane = row_sums + p * rows_per_plane;
        double plane = 0;
        for (int64_t j = 0; j < rows_per_plane; j++)
            plane += in_plane[j];
        plane_sums[p] = plane;
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        double acc = 0;
        for (int64_t p = 0; p < planes; p++)
            acc += plane_sums[p];
        out[m].phi2 = acc;
    }
}

/* The members whose phi2 differ between a and b, bit for bit, added to *diffs. */
__global__ void ens_phi4_phi2_compare_kernel(const struct latmc_phi4_sums *a,
                                             const struct latmc_phi4_sums *b, int n,
                                             unsigned long long *diffs)
{
    for (int64_t m = cuda_first_item(); m < n; m += cuda_item_stride())
        if (__double_as_longlong(a[m].phi2) != __double_as_longlong(b[m].phi2))
            atomicAdd(diffs, 1ull);
}

extern "C" cudaError_t cuda_ens_phi4_phi2(cudaStream_t stream, const struct cuda_phi4_plan *plan,
                                          const struct latmc_lattice *lat,
                                          const struct cuda_ens_phi4_member *members, int n,
                                          double *scratch, struct latmc_phi4_sums *out)
{
    const int64_t rows_per_plane = lat->ndim == 3 ? lat->ly : 1;
    if (plan->precision == LATMC_PRECISION_FLOAT)
        ens_phi4_phi2_kernel<float><<<(unsigned)n, ENS_PHI4_PHI2_THREADS, 0, stream>>>(
            *lat, members, rows_per_plane, scratch, out);
    else
        ens_phi4_phi2_kernel<double><<<(unsigned)n, ENS_PHI4_PHI2_THREADS, 0, stream>>>(
            *lat, members, rows_per_plane, scratch, out);
    return cudaGetLastError();
}

extern "C" cudaError_t cuda_ens_phi4_phi2_compare(cudaStream_t stream,
                                                  const struct latmc_phi4_sums *a,
                                                  const struct latmc_phi4_sums *b, int n,
                                                  unsigned long long *diffs)
{
    ens_phi4_phi2_compare_kernel<<<cuda_grid(n), CUDA_THREADS, 0, stream>>>(a, b, n, diffs);
    return cudaGetLastError();
}

/* ---- tempering rounds on the device (cuda_temper_round.cuh's template) ---- */

/* phi^4 members on a mu2 ladder: the batch's struct latmc_phi4_sums (its measurement's,
 * the host round's), the value sum phi^2 / N as the model's LATMC_OBS_PHI2
 * (lib/model_phi4.c); a temperature's coefficients those its mu2 gives. */
struct ens_phi4_round_model {
    struct cuda_ens_phi4_member *members;
    const struct latmc_phi4_sums *sums;
    const struct cuda_ens_phi4_coefs *coefs_of_t;
    __device__ double value(const struct cuda_ens_temper_dev &, const struct cuda_ens_round &r,
                            int m) const
    {
        return sums[m].phi2 / r.nsites;
    }
    __device__ void move(const struct cuda_ens_temper_dev &, int m, int t) const
    {
        members[m].f = coefs_of_t[t].f;
        members[m].d = coefs_of_t[t].d;
    }
};

extern "C" cudaError_t cuda_ens_phi4_exchange_round(cudaStream_t stream,
                                                    const struct cuda_ens_temper_dev *d,
                                                    const struct cuda_ens_round *r,
                                                    struct cuda_ens_phi4_member *members,
                                                    const struct latmc_phi4_sums *sums,
                                                    const struct cuda_ens_phi4_coefs *coefs_of_t)
{
    return cuda_temper_exchange_round(stream, d, r,
                                      ens_phi4_round_model{ members, sums, coefs_of_t }, false);
}

extern "C" cudaError_t cuda_ens_phi4_temper_coefs(cudaStream_t stream,
                                                  const struct cuda_ens_temper_dev *d,
                                                  struct cuda_ens_phi4_member *members,
                                                  const struct cuda_ens_phi4_coefs *coefs_of_t,
                                                  int64_t n)
{
    return cuda_temper_place(stream, d, ens_phi4_round_model{ members, nullptr, coefs_of_t }, n);
}
