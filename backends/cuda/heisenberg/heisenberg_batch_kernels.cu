/*
 * Heisenberg members of an ensemble in one launch (heisenberg_batch.h; doc/ensembles.md).
 *
 * One thread block per member: the member's spins (one replica: the ensemble's replicas
 * are members) and, where they fit, its couplings are loaded into shared memory, the
 * block runs every pass of every sweep of the call there (heat bath, nover
 * overrelaxation passes; each pass colour 0, __syncthreads, colour 1: a colour's sites
 * read only the other colour), and writes the spins back in place at the end. The
 * parameters (beta, h, nover), seed and device pointers of each member come from a device
 * table, so the members of one launch may sit at different temperatures.
 *
 * Each site is updated exactly as the member's standalone CUDA sim updates it
 * (heisenberg_kernels.cu, heisenberg_colour): the local field summed in the same order
 * (mu = x, y, z: forward term, then backward; then h on e_z), the per-site rules of
 * lib/heisenberg_site.h instantiated with the same functions in the same precision, and
 * the same Philox draws, named by (seed, replica 0, sweep, colour, sub, checkerboard index
 * i / 2). The module is built with -fmad=false, so no contraction can differ between the
 * two kernels. Bit-identity is tested (tests/ensemble/test_ens_identity.c, CUDA).
 *
 * Draws: thread k of a colour takes checkerboard index j = k (+ the block's stride), so
 * the four sites 4b .. 4b + 3 sharing Philox block b are four adjacent lanes; lane q
 * computes the block of (replica q / 2, sub q mod 2) and shuffles hand every lane its
 * draws (as the lattice kernel's heisenberg_share_draws; the replica-1 blocks are unused).
 *
 * The members' sums (lib/heisenberg.h) come from the reductions at the end of this file
 * (for a tempering round, the window reduction's round form: the bonds and M_z alone;
 * where a chunk is a plane and a window a row, its form by rows, each spin converted once),
 * or, for a tempering round (LATMC_ENS_HEIS_SUMS=1), from the sweep kernel's instance
 * with SUMS: after its last sweep it adds them from the spins it holds in shared memory,
 * in the reductions' order (ens_heisenberg_chunk_sum). The sweeps' and the window reductions'
 * launches are programmatic (ens_heisenberg_launch, ens_heisenberg_wait_prior_launch).
 */
#include <cuda_pipeline.h>
#include <cuda_runtime.h>

#include "cuda_device.h"
#include "cuda_launch.cuh"
#include "heisenberg_batch.h"
#include "cuda_temper_round.cuh"
#include "heisenberg.h" /* latmc_heisenberg_rng_name */
#include "philox.h"
#include "rng_streams.h"

/* A launch that may start before the previous kernel of its stream ends (a programmatic
 * launch, sm_90: ens_heisenberg_launch): it waits here for that kernel's end and memory; and it
 * lets the next launch of the stream start its blocks (they wait likewise). Elsewhere
 * (other devices, an ordinary launch) both do nothing. */
__device__ __forceinline__ void ens_heisenberg_wait_prior_launch(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    asm volatile("griddepcontrol.wait;" ::: "memory");
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
}

/* A launch of kernel fn that may start before the previous kernel of the stream ends
 * (programmatic stream serialization): its blocks are placed as that kernel's leave and
 * wait for its end in ens_heisenberg_wait_prior_launch, so the launch's latency is hidden behind
 * the last blocks of that kernel (a device round is three launches after each sweep). */
template <typename... P, typename... A>
static cudaError_t ens_heisenberg_launch(void (*fn)(P...), unsigned grid, unsigned threads,
                                         size_t smem, cudaStream_t stream, A... args)
{
    return cuda_launch_programmatic(fn, dim3(grid), dim3(threads), smem, stream, true, args...);
}

/* the per-site rules: the same instantiation as the one-lattice kernels' */
#include "heisenberg_site_cuda.cuh"

/* ---- the kernel ---- */

/*
 * A thread's walk over a colour's items (its first even site i0 = 2 threadIdx.x as (x, y,
 * z), and the block's step 2 blockDim.x in the same digits), found once a block: the
 * coordinates move on by adding digits with carries, not by two divisions an item (about
 * 40 instructions an item against the update's ~130 in overrelaxation).
 */
struct ens_heisenberg_walk {
    int x, y, z;    /* of 2 threadIdx.x */
    int dx, dy, dz; /* of 2 blockDim.x */
};

__device__ __forceinline__ ens_heisenberg_walk ens_heisenberg_walk_of(const ens_heisenberg_shape &g)
{
    ens_heisenberg_walk w;
    const int i0 = 2 * (int)threadIdx.x, st = 2 * (int)blockDim.x;
    const int row = i0 / g.lx, st_row = st / g.lx;
    w.x = i0 - row * g.lx;
    w.y = row % g.ly;
    w.z = row / g.ly;
    w.dx = st - st_row * g.lx;
    w.dy = st_row % g.ly;
    w.dz = st_row / g.ly;
    return w;
}

/*
 * Colour `colour` of one pass of the block's member: sites of that colour by checkerboard
 * index j (site i = 2j or 2j + 1, whichever has the colour: L_x is even), the items
 * padded to whole blocks so that every lane of a warp reaches the shuffles.
 */
template <typename R, int NDIM, bool HB>
__device__ void ens_heisenberg_colour(const ens_heisenberg_shape &g, const ens_heisenberg_walk &w,
                                      float *s, const float *J, R beta, R hfield, uint64_t seed,
                                      uint64_t sweep, int colour)
{
    const int n = g.n, half = n / 2;
    const int q_lane = (int)(threadIdx.x & 3u);
    const int plane = g.lx * g.ly;
    int wx = w.x, wy = w.y, wz = w.z; /* of i0 = 2 j */
    for (int base = 0; base < half; base += (int)blockDim.x) {
        const int j = base + (int)threadIdx.x;
        const bool active = j < half;
        /* i0's digits (inactive items: past the lattice, unused), then the next item's */
        const int gx0 = wx, gy = wy, gz = NDIM == 3 ? wz : 0;
        wx += w.dx;
        wy += w.dy;
        wz += w.dz;
        if (wx >= g.lx) {
            wx -= g.lx;
            wy++;
        }
        if (wy >= g.ly) {
            wy -= g.ly;
            wz++;
        }
        uint32_t d[4] = { 0, 0, 0, 0 };
        if (HB) {
            const struct latmc_rng_name nm = latmc_rng_name_replica(
                latmc_rng_name_sub(latmc_heisenberg_rng_name(sweep, colour),
                                   (uint32_t)(q_lane & 1)),
                (uint32_t)(q_lane >> 1));
            heisenberg_share_draws(latmc_rng_name_block(seed, nm, (uint64_t)(j >> 2)), q_lane,
                                       d);
        }
        if (!active)
            continue;
        const int i0 = 2 * j; /* x even */
        const int gx = gx0 + (((gy + gz) & 1) != colour ? 1 : 0);
        const int i = i0 + (gx - gx0);
        /* neighbours' indices, forward and backward along each axis */
        const int xf = i + (gx + 1 == g.lx ? 1 - g.lx : 1);
        const int xb = i + (gx == 0 ? g.lx - 1 : -1);
        const int yf = i + (gy + 1 == g.ly ? (1 - g.ly) * g.lx : g.lx);
        const int yb = i + (gy == 0 ? (g.ly - 1) * g.lx : -g.lx);
        int zf = 0, zb = 0;
        if (NDIM == 3) {
            zf = i + (gz + 1 == g.lz ? (1 - g.lz) * plane : plane);
            zb = i + (gz == 0 ? (g.lz - 1) * plane : -plane);
        }
        const float jf[3] = { J[i], J[n + i], NDIM == 3 ? J[2 * n + i] : 0.0f };
        const float jb[3] = { J[xb], J[n + yb], NDIM == 3 ? J[2 * n + zb] : 0.0f };
        const int fw[3] = { xf, yf, zf }, bw[3] = { xb, yb, zb };
        R field[3] = { R(0), R(0), R(0) };
        /* for mu = x, y, z: the forward term, then the backward one (the CPU's order) */
#pragma unroll
        for (int mu = 0; mu < NDIM; mu++) {
            const R f = (R)jf[mu], b = (R)jb[mu];
#pragma unroll
            for (int c = 0; c < 3; c++) {
                const float sf = s[c * n + fw[mu]], sb = s[c * n + bw[mu]];
                field[c] = heisenberg_field_term(field[c], f, sf);
                field[c] = heisenberg_field_term(field[c], b, sb);
            }
        }
        field[2] += hfield;
        float out[3];
        if (HB) {
            latmc_heisenberg_heatbath_spin(field, beta, heisenberg_uniform(d[0], R(0)),
                                           heisenberg_uniform(d[1], R(0)), out);
        } else {
            out[0] = s[i];
            out[1] = s[n + i];
            out[2] = s[2 * n + i];
            latmc_heisenberg_overrelax_spin(field, out);
        }
        s[i] = out[0];
        s[n + i] = out[1];
        s[2 * n + i] = out[2];
    }
}

/*
 * One chunk's sum of accumulator k (0: the bonds; 1 .. 3: the components of M) from the
 * member's spins `s` and couplings `J` wherever they lie (shared or global memory, the SoA
 * layout of the member's buffers), exactly as heisenberg_chunk_sums_kernel of
 * heisenberg_sums.cu (and this file's reductions) forms it: the chunk's sites in site
 * order from zero (bonds: each site's terms in mu order, each J_{i,mu} (s_i . s_{i+mu})
 * rounded as the sequential kernel rounds it: the module has no fused multiply-adds).
 *
 * `lane` (0 .. 31) only skews the walk: the thread idles `lane` steps first, so that the
 * lanes of a warp, whose chunks start a multiple of 32 sites apart, read different shared
 * memory banks at every step. Unskewed, every lane of a warp reads one bank at every step
 * (16 bond chunks of a 16^3 member: 16-way conflicts on each of a term's 7 loads): the
 * first form, so written, made the last launch before a round 757 us longer than a plain
 * one at 2048 x 16^3 (ncu, one H200; about 250 cycles a bond term a block, which the
 * conflicts account for by count). The idle steps load the chunk's first site and add
 * nothing. Host-callable: tools/heisenberg-sums-host-check.sh compares it with the sequential
 * order on the host.
 */
template <int NDIM>
__host__ __device__ inline double
ens_heisenberg_chunk_sum(const ens_heisenberg_shape &g, const float *s, const float *J,
                         const ens_heisenberg_chunks &ch, int k, int chunk, int lane)
{
    const int n = g.n, rows = g.ly * g.lz;
    const int first = chunk * ch.rows_per_chunk;
    const int last = first + ch.rows_per_chunk < rows ? first + ch.rows_per_chunk : rows;
    const int len = (last - first) * g.lx;
    double acc = 0.0;
    if (k != 0) {
        const float *c = s + (size_t)(k - 1) * n + (size_t)first * g.lx;
        for (int j = -lane; j < len; j++) {
            const float v = c[j < 0 ? 0 : j];
            if (j >= 0)
                acc += (double)v;
        }
        return acc;
    }
    /* the current site: x on row `row` (y, z), its row's forward offsets */
    int x = 0, row = first;
    int y = row % g.ly, z = row / g.ly, rbase = row * g.lx;
    int yf = g.lx * ((y + 1 == g.ly ? 0 : y + 1) + g.ly * z);
    int zf = g.lx * (y + g.ly * (z + 1 == g.lz ? 0 : z + 1));
    for (int j = -lane; j < len; j++) {
        const int i = rbase + x;
        const int fwd[3] = { rbase + (x + 1 == g.lx ? 0 : x + 1), x + yf, x + zf };
        double term[3];
        for (int mu = 0; mu < NDIM; mu++) {
            const int f = fwd[mu];
            const double dot = (double)s[i] * s[f] + (double)s[n + i] * s[n + f] +
                               (double)s[2 * n + i] * s[2 * n + f];
            term[mu] = (double)J[mu * n + i] * dot;
        }
        if (j < 0)
            continue; /* idle: the lanes' skew */
        for (int mu = 0; mu < NDIM; mu++)
            acc += term[mu];
        if (++x == g.lx) {
            x = 0;
            if (++row < last) {
                y = row % g.ly;
                z = row / g.ly;
                rbase = row * g.lx;
                yf = g.lx * ((y + 1 == g.ly ? 0 : y + 1) + g.ly * z);
                zf = g.lx * (y + g.ly * (z + 1 == g.lz ? 0 : z + 1));
            }
        }
    }
    return acc;
}

/* How a plane's chunks and the planes add up (heisenberg_planes_total_kernel's order): each
 * plane's chunks in chunk order from zero, then the planes in plane order. */
__host__ __device__ inline double ens_heisenberg_chunks_total(const double *p,
                                                              const ens_heisenberg_chunks &ch)
{
    double total = 0.0;
    for (int c0 = 0; c0 < ch.nchunks; c0 += ch.chunks_per_plane) {
        double plane = 0.0;
        for (int c = c0; c < c0 + ch.chunks_per_plane; c++)
            plane += p[c];
        total += plane;
    }
    return total;
}

/*
 * The member's sums (bonds, then M) into out[0 .. 3]: each accumulator's chunks on warps of
 * their own (a warp takes 32 chunks of one accumulator, so the bond chunks' longer walk
 * never shares a warp with M's), their partial sums in partials[k nchunks + chunk]; after
 * __syncthreads one thread per accumulator adds them up. Every thread of the block must
 * reach it (one __syncthreads). The same doubles as the reduction kernels below (written
 * apart from them, so that LATMC_ENS_HEIS_SUMS=check compares two codes,
 * heisenberg/cuda_heisenberg_batch.c).
 */
template <int NDIM>
__device__ void ens_heisenberg_block_sums(const ens_heisenberg_shape &g, const float *s,
                                          const float *J, const ens_heisenberg_chunks &ch,
                                          double *partials, double *out)
{
    const int nchunks = ch.nchunks, warps_per_k = (nchunks + 31) / 32;
    for (int t = (int)threadIdx.x; t < 4 * 32 * warps_per_k; t += (int)blockDim.x) {
        const int w = t / 32, lane = t % 32, k = w / warps_per_k;
        const int chunk = (w - k * warps_per_k) * 32 + lane;
        if (chunk < nchunks)
            partials[k * nchunks + chunk] =
                ens_heisenberg_chunk_sum<NDIM>(g, s, J, ch, k, chunk, lane);
    }
    __syncthreads();
    const int k = (int)threadIdx.x;
    if (k < 4)
        out[k] = ens_heisenberg_chunks_total(partials + k * nchunks, ch);
}

/* Registers per thread, as the lattice kernel caps them (heisenberg_kernels.cu). */
#define ENS_HEISENBERG_MAXNREG(R) (sizeof(R) == 4 ? 80 : 128)

/* The byte offset of the sums' partials in the sweep kernel's shared memory (after the
 * spins and the couplings, 8-byte aligned) and the shared memory of a launch with them. */
static __host__ __device__ size_t ens_heisenberg_partials_at(const ens_heisenberg_shape &g,
                                                             int jsmem)
{
    const size_t b = (size_t)(3 + (jsmem ? g.ndim : 0)) * (size_t)g.n * sizeof(float);
    return (b + 7) & ~(size_t)7;
}

/*
 * A member's array into shared memory at a launch's start: where both ends are 16-byte
 * aligned and the count a multiple of 4, as 16-byte asynchronous copies (cp.async: no
 * registers, every piece of the thread in flight at once, where a load-then-store loop
 * waits for its loads every few iterations -- 96 KiB a 16^3 member with its couplings,
 * paid at every launch, a round's relaunch among them); else 4 bytes a thread at a time.
 * Completed by the caller's __pipeline_commit, __pipeline_wait_prior(0) and barrier. The
 * same bytes either way.
 */
__device__ __forceinline__ void ens_heisenberg_copy_in(float *dst, const float *src, int count)
{
    if ((((uintptr_t)src | (uintptr_t)dst) & 15u) == 0 && (count & 3) == 0) {
        for (int k = (int)threadIdx.x; k < count / 4; k += (int)blockDim.x)
            __pipeline_memcpy_async((float4 *)dst + k, (const float4 *)src + k, 16);
    } else {
        for (int k = (int)threadIdx.x; k < count; k += (int)blockDim.x)
            dst[k] = src[k];
    }
}

/* The spins back at the launch's end, 16 bytes a store where aligned. */
__device__ __forceinline__ void ens_heisenberg_copy_out(float *dst, const float *src, int count)
{
    if ((((uintptr_t)src | (uintptr_t)dst) & 15u) == 0 && (count & 3) == 0) {
        for (int k = (int)threadIdx.x; k < count / 4; k += (int)blockDim.x)
            ((float4 *)dst)[k] = ((const float4 *)src)[k];
    } else {
        for (int k = (int)threadIdx.x; k < count; k += (int)blockDim.x)
            dst[k] = src[k];
    }
}

/*
 * SUMS: after the last sweep the block also leaves the member's sums at sums + 13 m (the
 * first four doubles; the overlap left as it was) from the spins it holds in shared
 * memory, the very doubles cuda_ens_heisenberg_measure gives (ens_heisenberg_block_sums). A
 * separate instance, so that the launches without sums keep their code.
 */
template <typename R, int NDIM, bool SUMS>
__global__ void __maxnreg__(ENS_HEISENBERG_MAXNREG(R))
    ens_heisenberg_kernel(const ens_heisenberg_shape g,
                          const cuda_ens_heisenberg_member *__restrict__ members, int heatbath,
                          uint64_t sweep0, uint64_t n_sweeps, int jsmem, double *sums,
                          const ens_heisenberg_chunks ch, int after_round)
{
    extern __shared__ __align__(16) float sm[];
    const cuda_ens_heisenberg_member *const me = members + blockIdx.x;
    /* a programmatic launch waits for the kernel before it (ens_heisenberg_wait_prior_launch):
     * after a round's launch only for the member's parameters, its spins and couplings on
     * their way in meanwhile; after anything else before the copies. The round wrote no
     * spins, and the sweeps before it had ended before this launch's blocks began: the
     * round's blocks let them begin only after their own wait (for the sums' launch, or
     * the sweeps' with LATMC_ENS_HEIS_SUMS=1), and the sums' launch waited for the sweeps
     * likewise (cuda_launch.cuh). So after_round is for a launch that nothing writing
     * spins or couplings separates from the round's (heisenberg_run: nothing at all). */
    if (!after_round)
        ens_heisenberg_wait_prior_launch();
    /* the member's arrays, which no round moves (from L2, as the table may change beside) */
    float *const spins = (float *)__ldcg((const unsigned long long *)&me->spins);
    const float *const mJ = (const float *)__ldcg((const unsigned long long *)&me->J);
    const int n = g.n;
    float *s = sm;
    ens_heisenberg_copy_in(s, spins, 3 * n);
    const float *J = mJ;
    if (jsmem) {
        float *js = sm + 3 * n;
        ens_heisenberg_copy_in(js, mJ, NDIM * n);
        J = js;
    }
    __pipeline_commit();
    if (after_round)
        ens_heisenberg_wait_prior_launch(); /* the round's betas */
    const cuda_ens_heisenberg_member m = *me;
    __pipeline_wait_prior(0); /* this thread's copies; the barrier, everyone's */
    __syncthreads();
    const R beta = (R)m.beta, h = (R)m.h;
    int passes = m.nover;
    if (heatbath)
        passes += 1;
    else if (passes < 1)
        passes = 1;
    const ens_heisenberg_walk w = ens_heisenberg_walk_of(g);
    for (uint64_t t = 0; t < n_sweeps; t++)
        for (int p = 0; p < passes; p++)
            for (int colour = 0; colour < 2; colour++) {
                if (heatbath && p == 0)
                    ens_heisenberg_colour<R, NDIM, true>(g, w, s, J, beta, h, m.seed,
                                                         sweep0 + t, colour);
                else
                    ens_heisenberg_colour<R, NDIM, false>(g, w, s, J, beta, h, m.seed,
                                                          sweep0 + t, colour);
                __syncthreads();
            }
    ens_heisenberg_copy_out(spins, s, 3 * n);
    if (SUMS)
        ens_heisenberg_block_sums<NDIM>(g, s, J, ch,
                                  (double *)((char *)sm + ens_heisenberg_partials_at(g, jsmem)),
                                  sums + 13 * (size_t)blockIdx.x);
}

typedef void (*ens_heisenberg_fn)(const ens_heisenberg_shape, const cuda_ens_heisenberg_member *,
                                  int, uint64_t, uint64_t, int, double *,
                                  const ens_heisenberg_chunks, int);

static ens_heisenberg_fn ens_heisenberg_kernel_of(int dbl, int ndim, bool sums)
{
    if (sums) {
        if (dbl)
            return ndim == 3 ? ens_heisenberg_kernel<double, 3, true>
                             : ens_heisenberg_kernel<double, 2, true>;
        return ndim == 3 ? ens_heisenberg_kernel<float, 3, true>
                         : ens_heisenberg_kernel<float, 2, true>;
    }
    if (dbl)
        return ndim == 3 ? ens_heisenberg_kernel<double, 3, false>
                         : ens_heisenberg_kernel<double, 2, false>;
    return ndim == 3 ? ens_heisenberg_kernel<float, 3, false>
                     : ens_heisenberg_kernel<float, 2, false>;
}

extern "C" size_t cuda_ens_heisenberg_smem(const ens_heisenberg_shape *g, int jsmem)
{
    return (size_t)(3 + (jsmem ? g->ndim : 0)) * (size_t)g->n * sizeof(float);
}

extern "C" size_t cuda_ens_heisenberg_sums_smem(const ens_heisenberg_shape *g, int jsmem,
                                          const ens_heisenberg_chunks *ch)
{
    return ens_heisenberg_partials_at(*g, jsmem) + 4 * (size_t)ch->nchunks * sizeof(double);
}

/* One instance made launchable with smem bytes (the most the device gives, so that the
 * instance with sums may take a little more); cudaErrorInvalidConfiguration where it
 * cannot take smem or threads. */
static cudaError_t ens_heisenberg_prepare_fn(ens_heisenberg_fn fn, size_t smem, int threads,
                                             int optin)
{
    struct cudaFuncAttributes attr;
    cudaError_t err = cudaFuncGetAttributes(&attr, (const void *)fn);
    if (err != cudaSuccess)
        return err;
    if (threads > attr.maxThreadsPerBlock || smem + attr.sharedSizeBytes > (size_t)optin)
        return cudaErrorInvalidConfiguration;
    return cudaFuncSetAttribute((const void *)fn, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                (int)((size_t)optin - attr.sharedSizeBytes));
}

/* The current device's opt-in shared memory of a block, asked once per device
 * (cuda_device.c): the measurement's launches ask it at every call. */
static cudaError_t ens_heisenberg_smem_optin(int *optin)
{
    int device = 0;
    const cudaError_t err = cudaGetDevice(&device);
    return err == cudaSuccess ? cuda_device_smem_optin(device, optin) : err;
}

extern "C" cudaError_t cuda_ens_heisenberg_prepare(int dbl, int ndim, size_t smem, int threads)
{
    int optin = 0;
    cudaError_t err = ens_heisenberg_smem_optin(&optin);
    if (err != cudaSuccess)
        return err;
    return ens_heisenberg_prepare_fn(ens_heisenberg_kernel_of(dbl, ndim, false), smem, threads,
                                     optin);
}

extern "C" cudaError_t cuda_ens_heisenberg_prepare_sums(int dbl, int ndim, size_t smem,
                                                  size_t plain_smem, int threads)
{
    int optin = 0;
    cudaError_t err = ens_heisenberg_smem_optin(&optin);
    if (err != cudaSuccess)
        return err;
    const ens_heisenberg_fn fn = ens_heisenberg_kernel_of(dbl, ndim, true);
    if ((err = ens_heisenberg_prepare_fn(fn, smem, threads, optin)) != cudaSuccess)
        return err;
    int with = 0, without = 0;
    err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&with, (const void *)fn, threads, smem);
    if (err == cudaSuccess)
        err = cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            &without, (const void *)ens_heisenberg_kernel_of(dbl, ndim, false), threads,
            plain_smem);
    if (err != cudaSuccess)
        return err;
    return with < without ? cudaErrorInvalidConfiguration : cudaSuccess;
}

extern "C" cudaError_t
cuda_ens_heisenberg_sweeps(cudaStream_t stream, const ens_heisenberg_shape *g,
                           const struct cuda_ens_heisenberg_member *members, int n_members, int dbl,
                           int heatbath, int jsmem, int threads, uint64_t sweep0, uint64_t n_sweeps,
                           double *sums, const ens_heisenberg_chunks *ch, int after_round)
{
    const ens_heisenberg_chunks none = { 0, 0, 0 };
    const ens_heisenberg_fn fn = ens_heisenberg_kernel_of(dbl, g->ndim, sums != NULL);
    const size_t smem =
        sums ? cuda_ens_heisenberg_sums_smem(g, jsmem, ch) : cuda_ens_heisenberg_smem(g, jsmem);
    return ens_heisenberg_launch(fn, (unsigned)n_members, (unsigned)threads, smem, stream, *g,
                                 members, heatbath, sweep0, n_sweeps, jsmem, sums,
                                 sums ? *ch : none, after_round);
}

/* ---- the members' sums (lib/heisenberg.h), in the order of heisenberg_sums.cu ---- */

/* Site i = rbase + x at (x, y, z) (rbase: its row's first site): its forward neighbours
 * along x, y, z, periodic. */
__device__ __forceinline__ void ens_heisenberg_forward(const ens_heisenberg_shape &g, int x,
                                                       int y, int z, int rbase, int fwd[3])
{
    fwd[0] = rbase + (x + 1 == g.lx ? 0 : x + 1);
    fwd[1] = x + g.lx * ((y + 1 == g.ly ? 0 : y + 1) + g.ly * z);
    fwd[2] = x + g.lx * (y + g.ly * (z + 1 == g.lz ? 0 : z + 1));
}

/* Bond (i, mu)'s term J_{i,mu} (s_i . s_f), f its forward neighbour, in double. */
__device__ __forceinline__ double ens_heisenberg_bond(const float *__restrict__ s0,
                                                      const float *__restrict__ J, int n, int i,
                                                      int f, int mu)
{
    const double dot = (double)s0[i] * s0[f] + (double)s0[n + i] * s0[n + f] +
                       (double)s0[2 * n + i] * s0[2 * n + f];
    return (double)J[mu * n + i] * dot;
}

/*
 * One block per member. Thread (group, chunk) of heisenberg_chunk_sums_kernel's decomposition
 * (group 0 the bond sum, group 1 the magnetisation; one replica: no overlap) adds its
 * chunk's sites in site order exactly as that kernel does, into shared memory; then one
 * thread per accumulator adds each plane's chunks in chunk order from zero and the planes
 * in plane order (heisenberg_planes_total_kernel). The sums of member m go to sums[13 m ..]
 * (the overlap left as the caller zeroed it).
 */
__global__ void ens_heisenberg_measure_kernel(const ens_heisenberg_shape g,
                                        const cuda_ens_heisenberg_member *__restrict__ members,
                                        int rows_per_chunk, int nchunks, int chunks_per_plane,
                                        double *sums)
{
    extern __shared__ double partials[]; /* [4][nchunks] */
    const cuda_ens_heisenberg_member m = members[blockIdx.x];
    const float *__restrict__ s0 = m.spins, *__restrict__ J = m.J;
    const int n = g.n, rows = g.ly * g.lz;
    for (int t = (int)threadIdx.x; t < 2 * nchunks; t += (int)blockDim.x) {
        const int group = t / nchunks, chunk = t - group * nchunks;
        const int first = chunk * rows_per_chunk;
        const int last = first + rows_per_chunk < rows ? first + rows_per_chunk : rows;
        double acc[3] = { 0.0, 0.0, 0.0 };
        for (int row = first; row < last; row++) {
            const int y = row % g.ly, z = row / g.ly;
            const int rbase = row * g.lx;
            for (int x = 0; x < g.lx; x++) {
                const int i = rbase + x;
                if (group == 0) {
                    int fwd[3];
                    ens_heisenberg_forward(g, x, y, z, rbase, fwd);
                    for (int mu = 0; mu < g.ndim; mu++)
                        acc[0] += ens_heisenberg_bond(s0, J, n, i, fwd[mu], mu);
                } else {
                    for (int c = 0; c < 3; c++)
                        acc[c] += s0[c * n + i];
                }
            }
        }
        if (group == 0) {
            partials[chunk] = acc[0];
        } else {
            for (int c = 0; c < 3; c++)
                partials[(1 + c) * nchunks + chunk] = acc[c];
        }
    }
    __syncthreads();
    const int k = (int)threadIdx.x;
    if (k < 4) {
        const ens_heisenberg_chunks ch = { rows_per_chunk, nchunks, chunks_per_plane };
        sums[13 * (size_t)blockIdx.x + k] = ens_heisenberg_chunks_total(partials + k * nchunks, ch);
    }
}

/*
 * The same sums, faster: the products of every site's bond terms first, all threads at
 * once, into shared memory (term (i, mu) = J_{i,mu} (s_i . s_{i+mu}), rounded to double
 * exactly as the sequential kernel rounds it before adding: no fused multiply-add), then
 * one thread per (accumulator, chunk) adds its chunk's terms in site order (bonds: each
 * site's terms in mu order, which is the order they lie in; the magnetisation one
 * component per thread), then the totals as above. Every double is the same as in
 * ens_heisenberg_measure_kernel; only the waiting for global memory in the sequential adds is
 * gone. Each chunk's terms lie one double past the previous chunk's end
 * (ens_heisenberg_term_at): unpadded, the chunks of a 16^3 member (768 doubles each) start a
 * multiple of 128 bytes apart, so the threads of a warp, one chunk each, read one
 * shared-memory bank at every step; padded, chunk c starts 2c banks further and 16 chunks'
 * threads read 16 different pairs of banks. Where a term lies changes no addition.
 */
/* Where term (i, mu) lies in the fast kernel's shared memory: its chunk's terms in site
 * and mu order, after one double of padding per chunk before it. */
__device__ inline int ens_heisenberg_term_at(int i, int mu, int ndim, int chunk_sites)
{
    return i * ndim + mu + i / chunk_sites;
}

__global__ void ens_heisenberg_measure_fast_kernel(const ens_heisenberg_shape g,
                                             const cuda_ens_heisenberg_member *__restrict__ members,
                                             int rows_per_chunk, int nchunks,
                                             int chunks_per_plane, double *sums)
{
    /* [n ndim + nchunks] terms (ens_heisenberg_term_at), then [4][nchunks] partials */
    extern __shared__ double shared_terms[];
    double *terms = shared_terms, *partials = shared_terms + (size_t)g.n * g.ndim + nchunks;
    const cuda_ens_heisenberg_member m = members[blockIdx.x];
    const float *__restrict__ s0 = m.spins, *__restrict__ J = m.J;
    const int n = g.n, rows = g.ly * g.lz, chunk_sites = rows_per_chunk * g.lx;
    for (int i = (int)threadIdx.x; i < n; i += (int)blockDim.x) {
        const int row = i / g.lx, x = i - row * g.lx;
        const int y = row % g.ly, z = row / g.ly;
        const int rbase = row * g.lx;
        int fwd[3];
        ens_heisenberg_forward(g, x, y, z, rbase, fwd);
        for (int mu = 0; mu < g.ndim; mu++)
            terms[ens_heisenberg_term_at(i, mu, g.ndim, chunk_sites)] =
                ens_heisenberg_bond(s0, J, n, i, fwd[mu], mu);
    }
    __syncthreads();
    for (int t = (int)threadIdx.x; t < 4 * nchunks; t += (int)blockDim.x) {
        const int k = t / nchunks, chunk = t - k * nchunks; /* k: bonds, mag x, y, z */
        const int first = chunk * rows_per_chunk;
        const int last = first + rows_per_chunk < rows ? first + rows_per_chunk : rows;
        double acc = 0.0;
        if (k == 0) {
            /* the chunk's terms, contiguous in site and mu order */
            const double *t0 = terms + ens_heisenberg_term_at(first * g.lx, 0, g.ndim, chunk_sites);
            const int nt = (last - first) * g.lx * g.ndim;
#pragma unroll 16
            for (int j = 0; j < nt; j++)
                acc += t0[j];
        } else {
            const float *c = s0 + (size_t)(k - 1) * n;
            /* unrolled: the loads go out together, the adds stay in site order */
#pragma unroll 16
            for (int i = first * g.lx; i < last * g.lx; i++)
                acc += c[i];
        }
        partials[k * nchunks + chunk] = acc;
    }
    __syncthreads();
    const int k = (int)threadIdx.x;
    if (k < 4) {
        const ens_heisenberg_chunks ch = { rows_per_chunk, nchunks, chunks_per_plane };
        sums[13 * (size_t)blockIdx.x + k] = ens_heisenberg_chunks_total(partials + k * nchunks, ch);
    }
}

/*
 * The same sums again, as a pipeline of windows (the default where it applies:
 * ens_heisenberg_win_of). The sums' order is a chain of dependent additions per (accumulator,
 * chunk) -- 768 of them for a 16^3 member's bond chunk -- so a member's critical path is
 * that chain, and the kernel above held every term of the member in shared memory first
 * (96 KiB at 16^3: two blocks an SM, the chains of 2 members at a time, all other warps
 * idle while 16 threads add). Here the terms pass through a small ring instead: window w
 * is sites [w W, w W + W) of every chunk at once. Producer threads (one per (chunk, site
 * of the window)) compute a window's terms from global memory -- each site's NDIM terms
 * J_{i,mu} (s_i . s_{i+mu}) rounded exactly as above, and its components in double
 * -- into one half of the ring while consumer threads, one per (accumulator, chunk)
 * (at most 64 bond and 128 magnetisation threads: beyond, a thread takes its chains in
 * turn), add the previous window's from the other half, in site order (bonds: each site's
 * terms in mu order): one barrier a window. The additions and their order are the
 * other kernels' (each chunk's sum from 0.0 over its sites in order, then the planes'
 * totals as above); only where a term waits differs. The ring is ~26 KiB at 16^3, so
 * several members share an SM and their chains run side by side. Rows of the ring are an
 * odd number of doubles apart (a consumer warp's lanes, one chunk each, read 16 different
 * pairs of banks); bond and magnetisation chains sit in warps of their own (a bond chain
 * adds NDIM times the terms a window; a warp holding both would run both paths in turn).
 * Each producer loads its next window's site before the barrier, so the loads are in
 * flight while the consumers add. Two sites a producer (half the windows, a warp's loads
 * whole lines) measured slower at 56 or 72 registers, with three or two blocks an SM
 * (doc/PERFORMANCE.md).
 *
 * ROUND: an exchange round's form, the two sums its energy reads (the bonds and M_z,
 * latmc_heisenberg_energy_per_site) and no others: one magnetisation component in the
 * ring and a third of its chains; the same doubles in the same order as the full form's
 * bonds and M_z. The ring's stores and loads of M_x and M_y share the L1 with the
 * producers' loads (72 % busy under ncu): without them a round measured 111 against 118 us
 * (doc/PERFORMANCE.md). Cutting the loads instead (a producer's next site taken from its
 * y neighbour, its x neighbour from the next lane: 9 loads a site, not 15) measured slower.
 */
/*
 * The pipeline's barrier: consumer and producer threads each reach it from their own loop,
 * so it is the non-aligned form (barrier.sync, which PTX allows in divergent code from
 * sm_70 on). __syncthreads() is the aligned form (bar.sync = barrier.sync.aligned): every
 * thread of the block must then execute the same barrier instruction, which these loops do
 * not (compute-sanitizer's synccheck reported each window and row launch's warps there).
 */
__device__ __forceinline__ void ens_heisenberg_pipeline_barrier(void)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 700
    asm volatile("barrier.sync 0;" ::: "memory");
#else
    __syncthreads();
#endif
}

#define ENS_HEISENBERG_WIN_PRODUCERS 256
#define ENS_HEISENBERG_WIN_BOND_THREADS 64 /* at most */
#define ENS_HEISENBERG_WIN_MAG_THREADS 128 /* at most */
#define ENS_HEISENBERG_WIN_MAX_THREADS                                                             \
    (ENS_HEISENBERG_WIN_PRODUCERS + ENS_HEISENBERG_WIN_BOND_THREADS +                              \
     ENS_HEISENBERG_WIN_MAG_THREADS)

/* The pipeline's shape for a member (ens_heisenberg_win_of). */
struct ens_heisenberg_win {
    int W;         /* sites of each chunk in a window (a power of two) */
    int nw;        /* windows */
    int bond, mag; /* consumer threads: bond chains, then magnetisation (multiples of 32) */
    int bs, ms;    /* doubles from one chunk's row of the ring to the next (odd) */
    int mc;        /* magnetisation components in the ring: 3, or 1 (M_z: ROUND) */
    int rows;      /* ROUND by rows (ens_heisenberg_rows_body): 3D, a chunk a plane, W = L_x */
};

/* One producer's site: its coordinates, and its loads (the spin, the NDIM forward
 * neighbours, the NDIM couplings). */
template <int NDIM> struct ens_heisenberg_win_site {
    float si[3], sf[NDIM][3], j[NDIM];
};

template <int NDIM>
__device__ __forceinline__ void
ens_heisenberg_win_load(const ens_heisenberg_shape &g, const float *s0, const float *J, int x,
                        int y, int z, ens_heisenberg_win_site<NDIM> &v)
{
    const int n = g.n, rbase = g.lx * (y + g.ly * z), i = rbase + x;
    int fwd[3];
    ens_heisenberg_forward(g, x, y, z, rbase, fwd);
#pragma unroll
    for (int c = 0; c < 3; c++)
        v.si[c] = __ldg(s0 + c * n + i);
#pragma unroll
    for (int mu = 0; mu < NDIM; mu++) {
#pragma unroll
        for (int c = 0; c < 3; c++)
            v.sf[mu][c] = __ldg(s0 + c * n + fwd[mu]);
        v.j[mu] = __ldg(J + mu * n + i);
    }
}

/* A consumer of the window pipeline: its chains' partials from 0.0, window wc's terms
 * added at step wc + LAG (one barrier a step, win.nw + LAG steps: the producers' count). */
template <int NDIM, int MC, int K0>
__device__ __forceinline__ void ens_heisenberg_win_consume(const ens_heisenberg_win &win, int nch,
                                                     int chunk_sites, int lag,
                                                     const double *bond_ring,
                                                     const double *mag_ring, double *partials)
{
    /* bond chains q < nch on the first win.bond threads, the rest magnetisation chains
     * q = (1 + k) nch + chunk (k: the component, from K0), which is where their partials
     * lie */
    const int tid = (int)threadIdx.x, W = win.W;
    const bool bond = tid < win.bond;
    const int q0 = bond ? tid : (1 + K0) * nch + (tid - win.bond);
    const int dq = bond ? win.bond : win.mag, q1 = bond ? nch : 4 * nch;
    for (int q = q0; q < q1; q += dq)
        partials[q] = 0.0;
    for (int w = 0; w < win.nw + lag; w++) {
        if (w >= lag) {
            const int wc = w - lag, buf = wc & 1;
            const int len = chunk_sites - wc * W < W ? chunk_sites - wc * W : W;
            for (int q = q0; q < q1; q += dq) {
                double acc = partials[q];
                if (bond) {
                    const double *t = bond_ring + (buf * nch + q) * win.bs;
#pragma unroll 16
                    for (int j = 0; j < len * NDIM; j++)
                        acc += t[j];
                } else {
                    const double *t = mag_ring + (buf * MC * nch + (q - (1 + K0) * nch)) * win.ms;
#pragma unroll 16
                    for (int j = 0; j < len; j++)
                        acc += t[j];
                }
                partials[q] = acc;
            }
        }
        ens_heisenberg_pipeline_barrier();
    }
}

/* The totals from the chunks' partials (after the pipeline's last barrier): each
 * accumulator's planes in order, as every reduction adds them (ROUND: the bonds and M_z). */
__device__ __forceinline__ void ens_heisenberg_win_totals(const ens_heisenberg_chunks &ch,
                                                          bool round, const double *partials,
                                                          double *sums)
{
    const int k = (int)threadIdx.x, nch = ch.nchunks;
    if (k < 4 && (!round || k == 0 || k == 3)) {
        double s = 0.0;
        const double *pk = partials + k * nch;
        for (int c0 = 0; c0 < nch; c0 += ch.chunks_per_plane) {
            double plane = 0.0;
            for (int c = c0; c < c0 + ch.chunks_per_plane; c++)
                plane += pk[c];
            s += plane;
        }
        sums[13 * (size_t)blockIdx.x + k] = s;
    }
}

template <int NDIM, bool ROUND>
__device__ __forceinline__ void ens_heisenberg_window_body(const ens_heisenberg_shape &g,
                                                     const cuda_ens_heisenberg_member &m,
                                                     const ens_heisenberg_chunks &ch,
                                                     const ens_heisenberg_win &win, double *sums,
                                                     double *win_shared)
{
    /* MC magnetisation components in the ring, from component K0 on (ROUND: z alone) */
    constexpr int MC = ROUND ? 1 : 3, K0 = 3 - MC;
    /* [2][nchunks][bs] bond terms, [2][MC nchunks][ms] components, [4][nchunks] partials */
    const int nch = ch.nchunks, W = win.W;
    double *const bond_ring = win_shared;
    double *const mag_ring = bond_ring + 2 * nch * win.bs;
    double *const partials = mag_ring + 2 * MC * nch * win.ms;
    const float *__restrict__ s0 = m.spins, *__restrict__ J = m.J;
    const int chunk_sites = ch.rows_per_chunk * g.lx, tid = (int)threadIdx.x;
    const int consumers = win.bond + win.mag;
    if (tid < consumers) {
        ens_heisenberg_win_consume<NDIM, MC, K0>(win, nch, chunk_sites, 1, bond_ring, mag_ring,
                                           partials);
    } else {
        /* a producer: site j of chunk c's window, each window W sites further */
        const int p = tid - consumers, c = p / W, j = p - c * W;
        const bool mine = c < nch; /* nch W producers may be fewer than the threads */
        int x = 0, y = 0, z = 0;
        if (mine) {
            const int i0 = c * chunk_sites + j, row = i0 / g.lx;
            x = i0 - row * g.lx;
            y = row % g.ly;
            z = row / g.ly;
        }
        ens_heisenberg_win_site<NDIM> v;
        if (mine && j < chunk_sites)
            ens_heisenberg_win_load<NDIM>(g, s0, J, x, y, z, v);
        for (int w = 0; w <= win.nw; w++) {
            const int off = w * W + j;
            if (w < win.nw && mine && off < chunk_sites) {
                const int buf = w & 1;
                const double a0 = v.si[0], a1 = v.si[1], a2 = v.si[2];
                double *t = bond_ring + (buf * nch + c) * win.bs + j * NDIM;
#pragma unroll
                for (int mu = 0; mu < NDIM; mu++) {
                    /* as ens_heisenberg_measure_kernel: no fused multiply-add (-fmad=false) */
                    const double dot = a0 * v.sf[mu][0] + a1 * v.sf[mu][1] + a2 * v.sf[mu][2];
                    t[mu] = (double)v.j[mu] * dot;
                }
                double *mg = mag_ring + (buf * MC * nch + c) * win.ms + j;
                if (!ROUND) {
                    mg[0] = a0;
                    mg[nch * win.ms] = a1;
                }
                mg[(MC - 1) * nch * win.ms] = a2;
                /* the next window's site: W sites on along the rows */
                x += W;
                while (x >= g.lx) {
                    x -= g.lx;
                    if (++y == g.ly) {
                        y = 0;
                        ++z;
                    }
                }
                if (off + W < chunk_sites)
                    ens_heisenberg_win_load<NDIM>(g, s0, J, x, y, z, v);
            }
            ens_heisenberg_pipeline_barrier();
        }
    }
    /* the last barrier above saw every partial written */
    ens_heisenberg_win_totals(ch, ROUND, partials, sums);
}

/*
 * A round's form by rows (ens_heisenberg_win_of's win.rows: 3D, a chunk a plane, W = L_x, so
 * window w is row y = w of every plane). Each spin is converted to double once: producer
 * (x, plane c) converts its site's spin of row s at step s into a slot of doubles in
 * shared memory, and at the same step adds row s - 1's terms -- its own spin of row s - 1
 * (kept in registers), its x neighbour (x + 1, the slot of row s - 1), its y neighbour
 * (its own spin of row s, just converted; row 0's, loaded again, for the last row) and
 * its z neighbour (plane c + 1 of the same slot). The window form converts 15 floats a
 * site (its spin, its three neighbours', its couplings), this one 6 (its spin, its
 * couplings), and loads 6 instead of 15. The doubles are the same (a float converts to
 * one double), the products and sums the same in the same order: the same bits.
 * Consumers add window wc at step wc + 2 (ens_heisenberg_win_consume), one barrier a step,
 * L_y + 2 steps. At 2048 x 16^3 it took 82 us under ncu against the window form's 85
 * (conversions 6.3 a site against 15.4): the conversions were not what bound the launch.
 * Measured slower (doc/PERFORMANCE.md): the producer's step restructured to about 68
 * instructions a site against 120 (spilling at 48 registers: 88 us), and the loads two
 * rows ahead (88 us).
 */
template <int NDIM>
__device__ __forceinline__ void ens_heisenberg_rows_body(const ens_heisenberg_shape &g,
                                                   const cuda_ens_heisenberg_member &m,
                                                   const ens_heisenberg_chunks &ch,
                                                   const ens_heisenberg_win &win, double *sums,
                                                   double *win_shared)
{
    /* the ring and partials as the window form's (M_z alone), then [2][3][nch lx] spins */
    const int nch = ch.nchunks, lx = g.lx;
    double *const bond_ring = win_shared;
    double *const mag_ring = bond_ring + 2 * nch * win.bs;
    double *const partials = mag_ring + 2 * nch * win.ms;
    double *const spin_rows = partials + 4 * nch;
    const int tid = (int)threadIdx.x, consumers = win.bond + win.mag;
    if (tid < consumers) {
        ens_heisenberg_win_consume<NDIM, 1, 2>(win, nch, lx * g.ly, 2, bond_ring, mag_ring,
                                               partials);
    } else {
        const float *__restrict__ s0 = m.spins, *__restrict__ J = m.J;
        const int n = g.n, ncl = nch * lx; /* a slot's doubles of one component */
        const int p = tid - consumers, c = p / lx, x = p - c * lx;
        const bool mine = c < nch;
        const int at = c * lx + x, at_x = c * lx + (x + 1 == lx ? 0 : x + 1);
        const int at_z = (c + 1 == nch ? 0 : c + 1) * lx + x;
        const int i0 = c * lx * g.ly + x; /* site (x, 0, c) */
        int i = i0;
        float sf0 = 0.f, sf1 = 0.f, sf2 = 0.f, j0 = 0.f, j1 = 0.f, j2 = 0.f;
        double p0 = 0.0, p1 = 0.0, p2 = 0.0;
        if (mine) {
            sf0 = __ldg(s0 + i);
            sf1 = __ldg(s0 + n + i);
            sf2 = __ldg(s0 + 2 * n + i);
        }
        for (int st = 0; st <= g.ly + 1; st++) {
            if (mine && st <= g.ly) {
                /* row st's spin; after the last row, row 0's again (its y neighbours) */
                const double c0 = sf0, c1 = sf1, c2 = sf2;
                if (st < g.ly) {
                    double *sl = spin_rows + (st & 1) * 3 * ncl;
                    sl[at] = c0;
                    sl[ncl + at] = c1;
                    sl[2 * ncl + at] = c2;
                }
                if (st > 0) {
                    /* row st - 1's terms, in mu order; no fused multiply-add (-fmad=false) */
                    const int r = st - 1;
                    const double *sl = spin_rows + (r & 1) * 3 * ncl;
                    double *t = bond_ring + ((r & 1) * nch + c) * win.bs + x * 3;
                    const double dx = p0 * sl[at_x] + p1 * sl[ncl + at_x] + p2 * sl[2 * ncl + at_x];
                    const double dy = p0 * c0 + p1 * c1 + p2 * c2;
                    const double dz = p0 * sl[at_z] + p1 * sl[ncl + at_z] + p2 * sl[2 * ncl + at_z];
                    t[0] = (double)j0 * dx;
                    t[1] = (double)j1 * dy;
                    t[2] = (double)j2 * dz;
                    mag_ring[((r & 1) * nch + c) * win.ms + x] = p2;
                }
                p0 = c0;
                p1 = c1;
                p2 = c2;
                /* in flight over the barrier: row st's couplings, row st + 1's spin (row 0's
                 * after the last row: reloaded rather than kept, 6 registers fewer) */
                if (st < g.ly) {
                    j0 = __ldg(J + i);
                    j1 = __ldg(J + n + i);
                    j2 = __ldg(J + 2 * n + i);
                    i = st + 1 < g.ly ? i + lx : i0;
                    sf0 = __ldg(s0 + i);
                    sf1 = __ldg(s0 + n + i);
                    sf2 = __ldg(s0 + 2 * n + i);
                }
            }
            ens_heisenberg_pipeline_barrier();
        }
    }
    ens_heisenberg_win_totals(ch, true, partials, sums);
}

/* The full form: 40 registers (3D: 12 bytes spilled, ptxas -v of CUDA 13.0), four blocks
 * of 352 threads an SM at 16^3. */
template <int NDIM>
__global__ void __launch_bounds__(ENS_HEISENBERG_WIN_MAX_THREADS, 3)
    ens_heisenberg_measure_window_kernel(const ens_heisenberg_shape g,
                                         const cuda_ens_heisenberg_member *__restrict__ members,
                                         const ens_heisenberg_chunks ch,
                                         const ens_heisenberg_win win, double *sums)
{
    extern __shared__ double win_shared[];
    ens_heisenberg_wait_prior_launch();
    const cuda_ens_heisenberg_member m = members[blockIdx.x];
    ens_heisenberg_window_body<NDIM, false>(g, m, ch, win, sums, win_shared);
}

/* The round's form: 48 registers, no spills (at 40, as above, ptxas spilled 12 bytes in
 * 3D); its 320 threads at 16^3 still four blocks an SM. */
template <int NDIM>
__global__ void __maxnreg__(48)
    ens_heisenberg_round_window_kernel(const ens_heisenberg_shape g,
                                       const cuda_ens_heisenberg_member *__restrict__ members,
                                       const ens_heisenberg_chunks ch, const ens_heisenberg_win win,
                                       double *sums)
{
    extern __shared__ double win_shared[];
    ens_heisenberg_wait_prior_launch();
    const cuda_ens_heisenberg_member m = members[blockIdx.x];
    ens_heisenberg_window_body<NDIM, true>(g, m, ch, win, sums, win_shared);
}

/* The round's form by rows (win.rows): 3D alone; 48 registers, no spills (ptxas of CUDA
 * 13.0), four blocks of 320 threads an SM at 16^3 as the window form's. */
__global__ void __maxnreg__(48)
    ens_heisenberg_round_rows_kernel(const ens_heisenberg_shape g,
                                     const cuda_ens_heisenberg_member *__restrict__ members,
                                     const ens_heisenberg_chunks ch, const ens_heisenberg_win win,
                                     double *sums)
{
    extern __shared__ double win_shared[];
    ens_heisenberg_wait_prior_launch();
    const cuda_ens_heisenberg_member m = members[blockIdx.x];
    ens_heisenberg_rows_body<3>(g, m, ch, win, sums, win_shared);
}

static int ens_heisenberg_round32(int t)
{
    return (t + 31) / 32 * 32;
}

/* The pipeline's shape (false where it does not apply: more chunks than producers): W the
 * largest power of two with nchunks W <= the producers, no larger than a chunk needs; a
 * round's form (ROUND) with M_z's chains alone. */
static bool ens_heisenberg_win_of(const ens_heisenberg_shape *g, const ens_heisenberg_chunks *ch,
                                  bool round, ens_heisenberg_win *w)
{
    const int nch = ch->nchunks, chunk_sites = ch->rows_per_chunk * g->lx;
    if (nch < 1 || nch > ENS_HEISENBERG_WIN_PRODUCERS)
        return false;
    int W = 1;
    while (2 * W * nch <= ENS_HEISENBERG_WIN_PRODUCERS && W < chunk_sites)
        W *= 2;
    const int mag_chains = (round ? 1 : 3) * nch;
    w->W = W;
    w->nw = (chunk_sites + W - 1) / W;
    w->bond = ens_heisenberg_round32(nch) < ENS_HEISENBERG_WIN_BOND_THREADS
                  ? ens_heisenberg_round32(nch)
                  : ENS_HEISENBERG_WIN_BOND_THREADS;
    w->mag = ens_heisenberg_round32(mag_chains) < ENS_HEISENBERG_WIN_MAG_THREADS
                 ? ens_heisenberg_round32(mag_chains)
                 : ENS_HEISENBERG_WIN_MAG_THREADS;
    w->bs = (W * g->ndim) | 1;
    w->ms = W | 1;
    w->mc = round ? 1 : 3;
    w->rows = round && g->ndim == 3 && ch->rows_per_chunk == g->ly && W == g->lx;
    return true;
}

static size_t ens_heisenberg_win_smem(const ens_heisenberg_chunks *ch, const ens_heisenberg_win *w)
{
    const size_t nch = (size_t)ch->nchunks;
    const size_t rows = w->rows ? 2 * 3 * nch * (size_t)w->W : 0; /* the spins' two slots */
    return (2 * nch * (size_t)w->bs + 2 * (size_t)w->mc * nch * (size_t)w->ms + 4 * nch +
            rows) *
           sizeof(double);
}

/* Whether the device takes smem bytes of kernel fn (and made it launchable). */
static bool ens_heisenberg_smem_ready(const void *fn, size_t smem)
{
    int optin = 0;
    if (ens_heisenberg_smem_optin(&optin) != cudaSuccess) {
        (void)cudaGetLastError();
        return false;
    }
    if (smem > (size_t)optin)
        return false;
    if (smem > 48 * 1024 && cuda_allow_shared(fn, smem) != cudaSuccess) {
        (void)cudaGetLastError();
        return false;
    }
    return true;
}

/* Shared memory of the fast kernel (its padded terms, the partials). */
static size_t ens_heisenberg_fast_smem(const ens_heisenberg_shape *g, int nchunks)
{
    return ((size_t)g->n * (size_t)g->ndim + 5 * (size_t)nchunks) * sizeof(double);
}


/* The window kernel of the full form or of a round's (ROUND), where it applies and its
 * shared memory fits (*launched). */
static cudaError_t ens_heisenberg_measure_windows(cudaStream_t stream,
                                                  const ens_heisenberg_shape *g,
                                                  const struct cuda_ens_heisenberg_member *members,
                                                  int n_members, const ens_heisenberg_chunks &ch,
                                                  bool round, double *sums, bool *launched)
{
    ens_heisenberg_win win;
    *launched = false;
    if (!ens_heisenberg_win_of(g, &ch, round, &win))
        return cudaSuccess;
    typedef void (*fn_t)(const ens_heisenberg_shape, const cuda_ens_heisenberg_member *,
                         const ens_heisenberg_chunks, const ens_heisenberg_win, double *);
    const fn_t fn = win.rows ? ens_heisenberg_round_rows_kernel
                    : g->ndim == 3 ? (round ? ens_heisenberg_round_window_kernel<3>
                                            : ens_heisenberg_measure_window_kernel<3>)
                                   : (round ? ens_heisenberg_round_window_kernel<2>
                                            : ens_heisenberg_measure_window_kernel<2>);
    const size_t smem = ens_heisenberg_win_smem(&ch, &win);
    if (!ens_heisenberg_smem_ready((const void *)fn, smem))
        return cudaSuccess;
    *launched = true;
    const unsigned threads = (unsigned)(win.bond + win.mag + ENS_HEISENBERG_WIN_PRODUCERS);
    return ens_heisenberg_launch(fn, (unsigned)n_members, threads, smem, stream, *g, members, ch,
                                 win, sums);
}

extern "C" cudaError_t cuda_ens_heisenberg_measure(cudaStream_t stream,
                                                   const ens_heisenberg_shape *g,
                                                   const struct cuda_ens_heisenberg_member *members,
                                                   int n_members, int rows_per_chunk, int nchunks,
                                                   int chunks_per_plane, double *sums)
{
    const ens_heisenberg_chunks ch = { rows_per_chunk, nchunks, chunks_per_plane };
    bool launched = false;
    cudaError_t err = ens_heisenberg_measure_windows(stream, g, members, n_members, ch, false, sums,
                                               &launched);
    if (launched || err != cudaSuccess)
        return err;
    const size_t fast = ens_heisenberg_fast_smem(g, nchunks);
    if (ens_heisenberg_smem_ready((const void *)ens_heisenberg_measure_fast_kernel, fast))
        ens_heisenberg_measure_fast_kernel<<<(unsigned)n_members, 256, fast, stream>>>(
            *g, members, rows_per_chunk, nchunks, chunks_per_plane, sums);
    else
        ens_heisenberg_measure_kernel<<<(unsigned)n_members, 64,
                                        4 * (size_t)nchunks * sizeof(double), stream>>>(
            *g, members, rows_per_chunk, nchunks, chunks_per_plane, sums);
    return cudaGetLastError();
}

extern "C" cudaError_t
cuda_ens_heisenberg_measure_round(cudaStream_t stream, const ens_heisenberg_shape *g,
                                  const struct cuda_ens_heisenberg_member *members, int n_members,
                                  int rows_per_chunk, int nchunks, int chunks_per_plane,
                                  double *sums)
{
    const ens_heisenberg_chunks ch = { rows_per_chunk, nchunks, chunks_per_plane };
    bool launched = false;
    const cudaError_t err = ens_heisenberg_measure_windows(stream, g, members, n_members, ch, true,
                                                     sums, &launched);
    if (launched || err != cudaSuccess)
        return err;
    return cuda_ens_heisenberg_measure(stream, g, members, n_members, rows_per_chunk, nchunks,
                                 chunks_per_plane, sums);
}

/* LATMC_ENS_HEIS_SUMS=check (heisenberg/cuda_heisenberg_batch.c): the bits of two sets of sums. */
__global__ void ens_heisenberg_sums_compare_kernel(const double *a, const double *b, int n_members,
                                             unsigned long long *diffs)
{
    for (int64_t m = cuda_first_item(); m < n_members; m += cuda_item_stride()) {
        bool differ = false;
        for (int k = 0; k < 4; k++)
            differ |= __double_as_longlong(a[13 * m + k]) != __double_as_longlong(b[13 * m + k]);
        if (differ)
            atomicAdd(diffs, 1ull);
    }
}

extern "C" cudaError_t cuda_ens_heisenberg_sums_compare(cudaStream_t stream, const double *a,
                                                 const double *b, int n_members,
                                                 unsigned long long *diffs)
{
    ens_heisenberg_sums_compare_kernel<<<cuda_grid(n_members), CUDA_THREADS, 0, stream>>>(
        a, b, n_members, diffs);
    return cudaGetLastError();
}

/* The fast kernel where its padded terms and partials fit the block (ens_heisenberg_fast_smem:
 * cuda_ens_heisenberg_measure opts it in), else the sequential kernel, whose 4 doubles a chunk
 * are launched without opting in: the 48 KiB any kernel may have. A 2D member has a chunk
 * a row, so a strip (8 x 2048 float: spins 192 KiB, terms 256 KiB) fits neither. */
extern "C" int cuda_ens_heisenberg_measure_fits(const ens_heisenberg_shape *g, int nchunks,
                                                int optin)
{
    return ens_heisenberg_fast_smem(g, nchunks) <= (size_t)optin ||
           4 * (size_t)nchunks * sizeof(double) <= 48 * 1024;
}

/* ---- tempering rounds on the device (cuda_temper_round.cuh's template) ---- */

/* Heisenberg members: the sums of lib/heisenberg.h (13 doubles a member, the batch's),
 * the beta of each temperature the ladder's. */
struct ens_heisenberg_round_model {
    struct cuda_ens_heisenberg_member *members;
    const double *sums;
    __device__ double value(const struct cuda_ens_temper_dev &, const struct cuda_ens_round &r,
                            int m) const
    {
        const double *s = sums + 13 * (int64_t)m;
        return latmc_heisenberg_energy_per_site(r.h, s[0], s[3], r.nsites);
    }
    __device__ void move(const struct cuda_ens_temper_dev &d, int m, int t) const
    {
        members[m].beta = d.ladder[t];
    }
};

extern "C" cudaError_t cuda_ens_heisenberg_exchange_round(cudaStream_t stream,
                                                    const struct cuda_ens_temper_dev *d,
                                                    const struct cuda_ens_round *r,
                                                    struct cuda_ens_heisenberg_member *members,
                                                    const double *sums)
{
    return cuda_temper_exchange_round(stream, d, r, ens_heisenberg_round_model{ members, sums },
                                      true);
}

extern "C" cudaError_t cuda_ens_heisenberg_temper_betas(cudaStream_t stream,
                                                  const struct cuda_ens_temper_dev *d,
                                                  struct cuda_ens_heisenberg_member *members,
                                                  int64_t n)
{
    return cuda_temper_place(stream, d, ens_heisenberg_round_model{ members, nullptr }, n);
}
