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
 * phi4_accept.
 *
 * Site-order kernel (phi4_site_kernel): the CPU reference's order and arithmetic, one launch
 * per pass and colour, one thread per Philox block of the colour, straight from global
 * memory; for lattices the chunks do not fit.
 *
 * Measurement: one thread per row sums the row in x order, in double, exactly as the CPU
 * reference does (backends/cpu/phi4_measure_impl.h); one thread then adds the rows in
 * order. The result is deterministic and equal, bit for bit, to the CPU's for the same
 * field.
 */
#include <math.h>

#include "cuda_launch.cuh"
#include "phi4_cuda.h"
#include "rng_streams.h"

/* ---------------------------------------------------------------------------------------- */
/* The arithmetic of one hit, per precision                                                  */

template <typename R> struct phi4_ops;

template <> struct phi4_ops<float> {
    typedef struct latmc_phi4_coef_f coef;
    static __device__ __forceinline__ float draw_signed(uint32_t r) { return latmc_phi4_signed_f(r); }
    static __device__ __forceinline__ float draw_unit(uint32_t r) { return latmc_phi4_unit_f(r); }
    static __device__ __forceinline__ float corona(const coef *k, float a, float b, float c)
    {
        return latmc_phi4_corona_f(k, a, b, c);
    }
    static __device__ __forceinline__ float delta_h(const coef *k, float c, float o, float n)
    {
        return latmc_phi4_delta_h_f(k, c, o, n);
    }
    static __device__ __forceinline__ float log_exact(float u) { return latmc_phi4_log_f(u); }
};

template <> struct phi4_ops<double> {
    typedef struct latmc_phi4_coef_d coef;
    static __device__ __forceinline__ double draw_signed(uint32_t r) { return latmc_phi4_signed_d(r); }
    static __device__ __forceinline__ double draw_unit(uint32_t r) { return latmc_phi4_unit_d(r); }
    static __device__ __forceinline__ double corona(const coef *k, double a, double b, double c)
    {
        return latmc_phi4_corona_d(k, a, b, c);
    }
    static __device__ __forceinline__ double delta_h(const coef *k, double c, double o, double n)
    {
        return latmc_phi4_delta_h_d(k, c, o, n);
    }
    static __device__ __forceinline__ double log_exact(double u) { return latmc_phi4_log_d(u); }
};

/*
 * The acceptance test -dH > log(u), with log the device library's logf (float) or log
 * (double): documented maximum errors 1 ulp. Those take some 20 (float) to 40 (double)
 * instructions; the hardware logarithm __logf (MUFU.LG2 and a multiply) takes two, with a
 * documented error of at most 2^-21.41 absolute on [0.5, 2] and 3 ulp elsewhere, i.e.
 * below 2^-17 for every u in [2^-32, 1] (|log u| <= 22.2, ulp <= 2^-19); converting a
 * double u to float first adds at most 2^-24. So |__logf(u) - log(u)| < 2^-16 < MARGIN.
 * When the computed d = -dH - __logf(u) exceeds MARGIN in size, the true difference does
 * too (rounding is monotonic and MARGIN is representable), and its sign is the sign of
 * -dH - log(u): the decision is the exact one. Otherwise (probability below 2 MARGIN =
 * 2^-13 per hit: the density of -dH - log u is at most 1) the exact log decides. NaN
 * (an overflowing dH) takes the exact path and is rejected, as on the CPU.
 */
#define PHI4_LOG_MARGIN 0x1p-14

template <typename R> __device__ __forceinline__ bool phi4_accept(R minus_dh, R u)
{
    const R fast = (R)__logf((float)u);
    const R d = minus_dh - fast;
    if (fabs(d) > (R)PHI4_LOG_MARGIN)
        return d > (R)0;
    return minus_dh > phi4_ops<R>::log_exact(u);
}

/* ---------------------------------------------------------------------------------------- */
/* Philox with the round keys from the host and the first round's products hoisted        */

struct round1 {
    uint32_t a, b, c, d;   /* the state after round 1, before c3 is xored into c */
};

/*
 * Round 1 of latmc_philox4x32_10 on the counter (block, sweep, c3) depends on c3 only
 * through r.v[2] = hi(M0 c0) ^ c3 ^ k1: everything else is computed once per block and
 * pass and reused for all 2 nhit draws of the four sites.
 */
__device__ __forceinline__ struct round1 phi4_round1(const struct cuda_phi4_keys &keys,
                                                     uint64_t block, uint64_t sweep)
{
    const latmc_philox_ctr c = latmc_rng_counter(block, sweep, 0, 0, 0);
    const uint64_t p0 = (uint64_t)LATMC_PHILOX_M0 * c.v[0];
    const uint64_t p1 = (uint64_t)LATMC_PHILOX_M1 * c.v[2];
    struct round1 r;
    r.a = (uint32_t)(p1 >> 32) ^ c.v[1] ^ keys.k[0][0];
    r.b = (uint32_t)p1;
    r.c = (uint32_t)(p0 >> 32) ^ keys.k[0][1];
    r.d = (uint32_t)p0;
    return r;
}

/* The four draws of counter (block, sweep, c3): rounds 2 .. 10 after round 1. */
__device__ __forceinline__ latmc_philox_ctr phi4_draws(const struct cuda_phi4_keys &keys,
                                                       const struct round1 &r1, uint32_t c3)
{
    latmc_philox_ctr c;
    c.v[0] = r1.a;
    c.v[1] = r1.b;
    c.v[2] = r1.c ^ c3;
    c.v[3] = r1.d;
#pragma unroll
    for (int round = 1; round < 10; round++) {
        latmc_philox_key k;
        k.v[0] = keys.k[round][0];
        k.v[1] = keys.k[round][1];
        c = latmc_philox_round(c, k);
    }
    return c;
}

/* c3 of the UPDATE stream (0) for phase and sub: doc/conventions.md. */
__device__ __forceinline__ uint32_t phi4_c3(uint32_t phase, uint32_t sub)
{
    return ((phase & 0xffu) << 16) | (sub & 0xffffu);
}

/* ---------------------------------------------------------------------------------------- */
/* Chunk kernel                                                                              */

template <typename R> struct chunk_args {
    int64_t lx, ly, lz;
    int bx, by, bz;            /* chunk */
    int boxx, boxy, boxz;      /* chunk + halo */
    int py, pz;                /* shared strides of y and z */
    int hx, hy, hz;            /* chunks of the sub-grid per axis */
    int px, ppy, ppz;          /* the sub-grid's parities */
    int segments;              /* per chunk */
    uint32_t nhit, nloc;
    uint64_t rng_sweep0;       /* sweep * nloc */
    typename phi4_ops<R>::coef k;
    struct cuda_phi4_keys keys;
};

/* a in [-2, l + 2) wrapped into [0, l) (l > 2). */
__device__ __forceinline__ int64_t phi4_wrap(int64_t a, int64_t l)
{
    return a < 0 ? a + l : (a >= l ? a - l : a);
}

/*
 * Corona of the site at shared index s: c01, c02, c11 summed left to right from 0 in the
 * order of doc/models/phi4.md, then lib/phi4.h's linear coefficient.
 */
template <typename R, int NDIM>
__device__ __forceinline__ R phi4_box_corona(const R *box, int s, int py, int pz,
                                             const typename phi4_ops<R>::coef *k)
{
    const int step[3] = { 1, py, pz };
    R near = 0, far = 0, diag = 0;
#pragma unroll
    for (int mu = 0; mu < NDIM; mu++) {
        near += box[s + step[mu]];
        near += box[s - step[mu]];
        far += box[s + 2 * step[mu]];
        far += box[s - 2 * step[mu]];
    }
#pragma unroll
    for (int mu = 0; mu < NDIM; mu++)
#pragma unroll
        for (int nu = mu + 1; nu < NDIM; nu++) {
            diag += box[s + step[mu] + step[nu]];
            diag += box[s + step[mu] - step[nu]];
            diag += box[s - step[mu] + step[nu]];
            diag += box[s - step[mu] - step[nu]];
        }
    return phi4_ops<R>::corona(k, near, far, diag);
}

/*
 * One sub-grid of the chunk schedule. NC colours, colour = (x + AY y + AZ z) mod NC.
 * Launch with a multiple of 32 threads and the plan's shared memory.
 */
template <typename R, int NDIM, int NC>
__global__ void __launch_bounds__(CUDA_PHI4_MAX_THREADS)
phi4_chunk_kernel(const chunk_args<R> a, R *phi, unsigned long long *accepted)
{
    constexpr int W = CUDA_PHI4_LANES * NC;           /* segment width */
    constexpr int AY = NC == 8 ? 3 : 2, AZ = NC == 8 ? 2 : 0;
    extern __shared__ __align__(16) unsigned char phi4_smem[];
    R *box = reinterpret_cast<R *>(phi4_smem);
    const int T = blockDim.x, tid = threadIdx.x;
    const int warp = tid >> 5, lane = tid & 31, nwarps = T >> 5;
    const int64_t nchunks = (int64_t)a.hx * a.hy * a.hz;
    const int rows = a.by * a.bz;                     /* rows of the chunk */
    const uint64_t blocks_per_row = (uint64_t)(a.lx / W);
    uint64_t total = 0;

    for (int64_t ch = blockIdx.x; ch < nchunks; ch += gridDim.x) {
        const int64_t cx = 2 * (ch % a.hx) + a.px;
        const int64_t cy = 2 * ((ch / a.hx) % a.hy) + a.ppy;
        const int64_t cz = 2 * (ch / ((int64_t)a.hx * a.hy)) + a.ppz;
        const int64_t x0 = cx * a.bx, y0 = cy * a.by, z0 = cz * a.bz;

        /* load the chunk and its halo: one warp per row of the box */
        __syncthreads(); /* the previous chunk is written back */
        for (int r = warp; r < a.boxy * a.boxz; r += nwarps) {
            const int yy = r % a.boxy, zz = r / a.boxy;
            const int64_t gy = phi4_wrap(y0 - CUDA_PHI4_HALO + yy, a.ly);
            const int64_t gz = NDIM == 3 ? phi4_wrap(z0 - CUDA_PHI4_HALO + zz, a.lz) : 0;
            const R *src = phi + (gy + a.ly * gz) * a.lx;
            R *dst = box + yy * a.py + zz * a.pz;
            for (int xx = lane; xx < a.boxx; xx += 32)
                dst[xx] = src[phi4_wrap(x0 - CUDA_PHI4_HALO + xx, a.lx)];
        }
        __syncthreads();

        for (uint32_t pass = 0; pass < a.nloc; pass++) {
            const uint64_t rng_sweep = a.rng_sweep0 + pass;
            for (int colour = 0; colour < NC; colour++) {
                for (int s = tid; s < a.segments; s += T) {
                    /* segment s: row s mod rows, the (s / rows)-th segment of that row, so
                     * that a warp's threads take consecutive rows (spread over the banks) */
                    const int row = s % rows, xs = s / rows;
                    const int y = row % a.by, z = row / a.by;
                    const int64_t gy = y0 + y, gz = z0 + z, gx = x0 + (int64_t)xs * W;
                    const int shift = (int)((AY * gy + AZ * gz) % NC);
                    const int off = (colour - shift + NC) % NC;
                    const int base = CUDA_PHI4_HALO + xs * W + off + (y + CUDA_PHI4_HALO) * a.py +
                                     (NDIM == 3 ? (z + CUDA_PHI4_HALO) * a.pz : 0);
                    /* within-colour numbers j = gx / NC + lane + (L_x / NC) row: block b */
                    const uint64_t block = (uint64_t)(gx / W) +
                                           blocks_per_row * (uint64_t)(gy + a.ly * gz);
                    R v[CUDA_PHI4_LANES], c[CUDA_PHI4_LANES];
#pragma unroll
                    for (int l = 0; l < CUDA_PHI4_LANES; l++) {
                        v[l] = box[base + NC * l];
                        c[l] = phi4_box_corona<R, NDIM>(box, base + NC * l, a.py, a.pz, &a.k);
                    }
                    const struct round1 r1 = phi4_round1(a.keys, block, rng_sweep);
                    uint32_t n_acc = 0;
                    for (uint32_t hit = 0; hit < a.nhit; hit++) {
                        const uint32_t phase = latmc_phi4_rng_phase(colour, hit);
                        const latmc_philox_ctr eta = phi4_draws(
                            a.keys, r1, phi4_c3(phase, latmc_phi4_rng_sub(hit, LATMC_PHI4_DRAW_ETA)));
                        const latmc_philox_ctr u = phi4_draws(
                            a.keys, r1, phi4_c3(phase, latmc_phi4_rng_sub(hit, LATMC_PHI4_DRAW_ACCEPT)));
#pragma unroll
                        for (int l = 0; l < CUDA_PHI4_LANES; l++) {
                            const R o = v[l];
                            const R n = o + a.k.epsilon * phi4_ops<R>::draw_signed(eta.v[l]);
                            const R dh = phi4_ops<R>::delta_h(&a.k, c[l], o, n);
                            const bool ok = phi4_accept<R>(-dh, phi4_ops<R>::draw_unit(u.v[l]));
                            v[l] = ok ? n : o;
                            n_acc += ok;
                        }
                    }
#pragma unroll
                    for (int l = 0; l < CUDA_PHI4_LANES; l++)
                        box[base + NC * l] = v[l];
                    total += n_acc;
                }
                __syncthreads();
            }
        }

        /* write the chunk back (the halo belongs to other chunks) */
        for (int r = warp; r < rows; r += nwarps) {
            const int y = r % a.by, z = r / a.by;
            R *dst = phi + ((y0 + y) + a.ly * (z0 + z)) * a.lx + x0;
            const R *src = box + CUDA_PHI4_HALO + (y + CUDA_PHI4_HALO) * a.py +
                           (NDIM == 3 ? (z + CUDA_PHI4_HALO) * a.pz : 0);
            for (int xx = lane; xx < a.bx; xx += 32)
                dst[xx] = src[xx];
        }
    }
    cuda_warp_add(accepted, total);
}

/* ---------------------------------------------------------------------------------------- */
/* Site-order kernel: the CPU reference's chain                                              */

struct site_geom {
    int ndim, ncolours, ay, az;
    int64_t lx, ly, lz, per_colour;
};

/* Site j of colour `colour`: backends/cpu/phi4_lattice.h, phi4_colour_site. */
__device__ __forceinline__ void site_of(const struct site_geom &g, int colour, int64_t j,
                                        int64_t x[3])
{
    const int64_t runs_per_row = latmc_div(g.lx, g.ncolours);
    const int64_t row = latmc_div(j, runs_per_row), run = j - row * runs_per_row;
    x[1] = latmc_mod(row, g.ly);
    x[2] = latmc_div(row, g.ly);
    const int64_t shift = latmc_mod(g.ay * x[1] + g.az * x[2], g.ncolours);
    x[0] = g.ncolours * run + (colour - shift + g.ncolours) % g.ncolours;
}

/* phi at x + d (|d_mu| <= 2 per axis), through the periodic wrap. */
template <typename R>
__device__ __forceinline__ R site_value(const struct site_geom &g, const R *phi, const int64_t x[3],
                                        int dx, int dy, int dz)
{
    const int64_t a = phi4_wrap(x[0] + dx, g.lx), b = phi4_wrap(x[1] + dy, g.ly),
                  c = g.ndim == 3 ? phi4_wrap(x[2] + dz, g.lz) : 0;
    return phi[a + g.lx * (b + g.ly * c)];
}

/* The neighbourhood sums of backends/cpu/phi4_lattice.h, same order. */
template <typename R>
__device__ R site_corona(const struct site_geom &g, const R *phi, const int64_t x[3],
                         const typename phi4_ops<R>::coef *k)
{
    R near = 0, far = 0, diag = 0;
    for (int mu = 0; mu < g.ndim; mu++) {
        const int e[3] = { mu == 0, mu == 1, mu == 2 };
        near += site_value(g, phi, x, e[0], e[1], e[2]);
        near += site_value(g, phi, x, -e[0], -e[1], -e[2]);
        far += site_value(g, phi, x, 2 * e[0], 2 * e[1], 2 * e[2]);
        far += site_value(g, phi, x, -2 * e[0], -2 * e[1], -2 * e[2]);
    }
    for (int mu = 0; mu < g.ndim; mu++)
        for (int nu = mu + 1; nu < g.ndim; nu++)
            for (int a = 1; a >= -1; a -= 2)
                for (int b = 1; b >= -1; b -= 2) {
                    int d[3] = { 0, 0, 0 };
                    d[mu] += a;
                    d[nu] += b;
                    diag += site_value(g, phi, x, d[0], d[1], d[2]);
                }
    return phi4_ops<R>::corona(k, near, far, diag);
}

template <typename R>
__global__ void phi4_site_kernel(const struct site_geom g, R *phi,
                                 const typename phi4_ops<R>::coef k, uint32_t nhit,
                                 const struct cuda_phi4_keys keys, uint64_t rng_sweep, int colour,
                                 unsigned long long *accepted)
{
    const int64_t nblocks = (g.per_colour + 3) / 4;
    uint64_t total = 0;
    for (int64_t b = cuda_first_item(); b < nblocks; b += cuda_item_stride()) {
        int64_t idx[4];
        R v[4], c[4];
        int nlanes = 0;
        for (; nlanes < 4 && 4 * b + nlanes < g.per_colour; nlanes++) {
            int64_t x[3];
            site_of(g, colour, 4 * b + nlanes, x);
            idx[nlanes] = x[0] + g.lx * (x[1] + g.ly * x[2]);
            v[nlanes] = phi[idx[nlanes]];
            c[nlanes] = site_corona<R>(g, phi, x, &k);
        }
        const struct round1 r1 = phi4_round1(keys, (uint64_t)b, rng_sweep);
        for (uint32_t hit = 0; hit < nhit; hit++) {
            const uint32_t phase = latmc_phi4_rng_phase(colour, hit);
            const latmc_philox_ctr eta =
                phi4_draws(keys, r1, phi4_c3(phase, latmc_phi4_rng_sub(hit, LATMC_PHI4_DRAW_ETA)));
            const latmc_philox_ctr u =
                phi4_draws(keys, r1, phi4_c3(phase, latmc_phi4_rng_sub(hit, LATMC_PHI4_DRAW_ACCEPT)));
            for (int l = 0; l < nlanes; l++) {
                const R o = v[l];
                const R n = o + k.epsilon * phi4_ops<R>::draw_signed(eta.v[l]);
                const R dh = phi4_ops<R>::delta_h(&k, c[l], o, n);
                const bool ok = phi4_accept<R>(-dh, phi4_ops<R>::draw_unit(u.v[l]));
                v[l] = ok ? n : o;
                total += ok;
            }
        }
        for (int l = 0; l < nlanes; l++)
            phi[idx[l]] = v[l];
    }
    cuda_warp_add(accepted, total);
}

/* ---------------------------------------------------------------------------------------- */
/* Hot start and measurement                                                                 */

template <typename R> __global__ void phi4_hot_kernel(R *phi, int64_t n, uint64_t seed)
{
    const int64_t nblocks = (n + 3) / 4;
    for (int64_t b = cuda_first_item(); b < nblocks; b += cuda_item_stride()) {
        const latmc_philox_ctr r = latmc_rng_block(seed, (uint64_t)b, 0,
                                                   latmc_rng_stream(LATMC_STREAM_INIT, 0), 0, 0);
        for (int l = 0; l < 4 && 4 * b + l < n; l++)
            phi[4 * b + l] = phi4_ops<R>::draw_signed(r.v[l]);
    }
}

enum { PHI4_NPARTIALS = 5 };

/* Row `row` (fixed y, z) summed in x order: backends/cpu/phi4_measure_impl.h. */
template <typename R>
__global__ void phi4_rows_kernel(struct latmc_lattice g, const R *phi, double *partials)
{
    const int64_t rows = g.ly * g.lz;
    for (int64_t row = cuda_first_item(); row < rows; row += cuda_item_stride()) {
        const int64_t y = row % g.ly, z = row / g.ly;
        const int64_t st[3] = { 1, g.lx, g.lx * g.ly };
        const int64_t ext[3] = { g.lx, g.ly, g.lz };
        double sum = 0, sum2 = 0, sum4 = 0, grad2 = 0, lap2 = 0;
        for (int64_t x = 0; x < g.lx; x++) {
            const int64_t at[3] = { x, y, z };
            const int64_t i = x + g.lx * row;
            const double v = phi[i], v2 = v * v;
            double lap = 0;
            for (int mu = 0; mu < g.ndim; mu++) {
                const int64_t a = at[mu], l = ext[mu];
                const double up = phi[i + (a + 1 < l ? 1 : 1 - l) * st[mu]];
                const double down = phi[i + (a >= 1 ? -1 : l - 1) * st[mu]];
                grad2 += (up - v) * (up - v);
                lap += up - 2.0 * v + down;
            }
            sum += v;
            sum2 += v2;
            sum4 += v2 * v2;
            lap2 += lap * lap;
        }
        double *p = partials + PHI4_NPARTIALS * row;
        p[0] = sum;
        p[1] = sum2;
        p[2] = sum4;
        p[3] = grad2;
        p[4] = lap2;
    }
}

/* The rows in order (one thread: the CPU's order is serial). */
__global__ void phi4_rows_total_kernel(int64_t rows, const double *partials,
                                       struct latmc_phi4_sums *sums)
{
    struct latmc_phi4_sums s = { 0, 0, 0, 0, 0 };
    for (int64_t row = 0; row < rows; row++) {
        const double *p = partials + PHI4_NPARTIALS * row;
        s.phi += p[0];
        s.phi2 += p[1];
        s.phi4 += p[2];
        s.grad2 += p[3];
        s.lap2 += p[4];
    }
    *sums = s;
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

template <typename R> static const void *chunk_kernel_of(int ndim, int ncolours)
{
    if (ndim == 3)
        return (const void *)phi4_chunk_kernel<R, 3, 8>;
    if (ncolours == 8)
        return (const void *)phi4_chunk_kernel<R, 2, 8>;
    return (const void *)phi4_chunk_kernel<R, 2, 5>;
}

/*
 * The chunk kernel may use all the shared memory a block can have (the attribute is per
 * kernel and device, shared by every sim: set it to the device's limit, not to this plan's
 * size, so that one sim never lowers it under another's), and prefers shared memory to L1.
 */
extern "C" cudaError_t cuda_phi4_prepare(const struct cuda_phi4_plan *plan)
{
    if (plan->schedule != CUDA_PHI4_CHUNKS)
        return cudaSuccess;
    int device = 0, limit = 0;
    cudaError_t err = cudaGetDevice(&device);
    if (err == cudaSuccess)
        err = cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
    const void *fn = plan->precision == LATMC_PRECISION_FLOAT
                         ? chunk_kernel_of<float>(plan->ndim, plan->ncolours)
                         : chunk_kernel_of<double>(plan->ndim, plan->ncolours);
    if (err == cudaSuccess)
        err = cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, limit);
    if (err == cudaSuccess)
        err = cudaFuncSetAttribute(fn, cudaFuncAttributePreferredSharedMemoryCarveout,
                                   cudaSharedmemCarveoutMaxShared);
    return err;
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

template <typename R> static typename phi4_ops<R>::coef coef_of(const struct latmc_phi4_tables *t);
template <> struct latmc_phi4_coef_f coef_of<float>(const struct latmc_phi4_tables *t) { return t->f; }
template <> struct latmc_phi4_coef_d coef_of<double>(const struct latmc_phi4_tables *t) { return t->d; }

template <typename R>
static cudaError_t sweep_chunks(cudaStream_t stream, const struct cuda_phi4_plan *p,
                                const struct latmc_lattice *g, R *phi,
                                const struct latmc_phi4_tables *t, const struct cuda_phi4_keys *keys,
                                uint64_t sweep, unsigned long long *accepted)
{
    chunk_args<R> a;
    a.lx = g->lx;
    a.ly = g->ly;
    a.lz = g->lz;
    a.bx = p->b[0];
    a.by = p->b[1];
    a.bz = p->b[2];
    a.boxx = p->box[0];
    a.boxy = p->box[1];
    a.boxz = p->box[2];
    a.py = p->pitch_y;
    a.pz = p->pitch_z;
    a.hx = p->nchunks[0] / 2;
    a.hy = p->nchunks[1] / 2;
    a.hz = p->ndim == 3 ? p->nchunks[2] / 2 : 1;
    a.segments = p->segments;
    a.nhit = t->nhit;
    a.nloc = t->nloc;
    a.rng_sweep0 = latmc_phi4_rng_sweep(sweep, t->nloc, 0);
    a.k = coef_of<R>(t);
    a.keys = *keys;
    const int64_t nchunks = (int64_t)a.hx * a.hy * a.hz;
    const unsigned grid = (unsigned)(nchunks < CUDA_MAX_BLOCKS ? nchunks : CUDA_MAX_BLOCKS);
    const int nsub = 1 << p->ndim;
    for (int sub = 0; sub < nsub; sub++) {
        a.px = sub & 1;
        a.ppy = (sub >> 1) & 1;
        a.ppz = (sub >> 2) & 1;
        if (p->ndim == 3)
            phi4_chunk_kernel<R, 3, 8><<<grid, p->threads, p->smem_bytes, stream>>>(a, phi, accepted);
        else if (p->ncolours == 8)
            phi4_chunk_kernel<R, 2, 8><<<grid, p->threads, p->smem_bytes, stream>>>(a, phi, accepted);
        else
            phi4_chunk_kernel<R, 2, 5><<<grid, p->threads, p->smem_bytes, stream>>>(a, phi, accepted);
        const cudaError_t err = cudaGetLastError();
        if (err != cudaSuccess)
            return err;
    }
    return cudaSuccess;
}

template <typename R>
static cudaError_t sweep_sites(cudaStream_t stream, const struct cuda_phi4_plan *p,
                               const struct latmc_lattice *g, R *phi,
                               const struct latmc_phi4_tables *t, const struct cuda_phi4_keys *keys,
                               uint64_t sweep, unsigned long long *accepted)
{
    struct site_geom sg;
    sg.ndim = g->ndim;
    sg.ncolours = p->ncolours;
    sg.ay = p->ay;
    sg.az = p->az;
    sg.lx = g->lx;
    sg.ly = g->ly;
    sg.lz = g->lz;
    sg.per_colour = g->nsites / p->ncolours;
    const unsigned grid = phi4_grid((sg.per_colour + 3) / 4, p->threads);
    const typename phi4_ops<R>::coef k = coef_of<R>(t);
    for (uint32_t pass = 0; pass < t->nloc; pass++) {
        const uint64_t rng_sweep = latmc_phi4_rng_sweep(sweep, t->nloc, pass);
        for (int colour = 0; colour < p->ncolours; colour++) {
            phi4_site_kernel<R><<<grid, p->threads, 0, stream>>>(sg, phi, k, t->nhit, *keys,
                                                                rng_sweep, colour, accepted);
            const cudaError_t err = cudaGetLastError();
            if (err != cudaSuccess)
                return err;
        }
    }
    return cudaSuccess;
}

extern "C" cudaError_t cuda_phi4_sweep(cudaStream_t stream, const struct cuda_phi4_plan *plan,
                                       const struct latmc_lattice *g, void *phi,
                                       const struct latmc_phi4_tables *tables,
                                       const struct cuda_phi4_keys *keys, uint64_t seed,
                                       uint64_t sweep, unsigned long long *accepted)
{
    (void)seed; /* in the keys */
    const bool single = plan->precision == LATMC_PRECISION_FLOAT;
    if (plan->schedule == CUDA_PHI4_CHUNKS)
        return single ? sweep_chunks<float>(stream, plan, g, (float *)phi, tables, keys, sweep,
                                            accepted)
                      : sweep_chunks<double>(stream, plan, g, (double *)phi, tables, keys, sweep,
                                             accepted);
    return single ? sweep_sites<float>(stream, plan, g, (float *)phi, tables, keys, sweep, accepted)
                  : sweep_sites<double>(stream, plan, g, (double *)phi, tables, keys, sweep,
                                        accepted);
}

extern "C" cudaError_t cuda_phi4_measure(cudaStream_t stream, const struct cuda_phi4_plan *plan,
                                         const struct latmc_lattice *g, const void *phi,
                                         double *partials, struct latmc_phi4_sums *sums)
{
    const int64_t rows = g->ly * g->lz;
    /* One thread per row and few rows: small blocks spread the rows over more SMs. */
    const int threads = 64;
    const unsigned grid = phi4_grid(rows, threads);
    if (plan->precision == LATMC_PRECISION_FLOAT)
        phi4_rows_kernel<float><<<grid, threads, 0, stream>>>(*g, (const float *)phi, partials);
    else
        phi4_rows_kernel<double><<<grid, threads, 0, stream>>>(*g, (const double *)phi, partials);
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess)
        return err;
    phi4_rows_total_kernel<<<1, 1, 0, stream>>>(rows, partials, sums);
    return cudaGetLastError();
}
