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
 */
#include <math.h>

#include "cuda_launch.cuh"
#include "phi4_cuda.h"
#include "philox_fold.h"
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
 * The acceptance test -dH > log(u), u = unit(r) = RN(r + 1) 2^-32 (lib/phi4.h), with log
 * the chain's shared latmc_math_logf (float) or latmc_math_log (double) of lib/latmc_math.h,
 * maximum error 1 ulp (float; 1.5 double: doc/math.md).
 * Those take some 20 (float) to 40 (double) instructions. The hit decides instead from
 *
 *   e = dH + fast,  fast = lg2.approx(F) ln2 - 32 ln2  (one FFMA),  F = RN(RN(r) + 1),
 *
 * three full-rate instructions and one MUFU.LG2: F >= 1 needs no denormal handling and
 * its 32-bit conversion runs at full rate (the exact u needs a 64-bit one). Errors:
 * F vs r + 1 relative 2^-23, log-wise 2^-23; lg2.approx 2^-22 absolute on [1, 2) and
 * 2 ulp of a result <= 32 elsewhere, <= 2^-17 (log2 units); the FFMA and its constant
 * 2^-20 each; logf itself 2^-19 (ulp of |log u| <= 22.2). So |fast - logf(u)| < 2^-16.5,
 * and when the computed e (one rounding, relative 2^-24) exceeds MARGIN = 2^-14 in size,
 * dH + logf(u) has the sign of e: accept iff e < 0 is the exact decision. Otherwise
 * (probability below 2 MARGIN per hit: the density of dH + log u is at most 1) the
 * exact -dH > logf(u) decides. A NaN dH (overflow) gives a NaN e, not ambiguous, not < 0:
 * rejected, as -NaN > logf(u) is.
 */
#define PHI4_LOG_MARGIN 0x1p-14

/*
 * Hits of the chunk kernel's loop unrolled, per dimension (a build-time tuning knob,
 * PHI4_HIT_UNROLL overrides it): with 2, the next hit's Philox overlaps this hit's energy
 * change, at the price of registers (float: 74 instead of 63 in 3D, 66 instead of 57 in
 * 2D). Measured on an H200 (doc/PERFORMANCE.md): 3D 2.87 against 2.92 ps per hit, 2D 2.61
 * against 2.56, so 2 in 3D and 1 in 2D.
 */
template <int NDIM> struct phi4_hit_unroll {
#ifdef PHI4_HIT_UNROLL
    static constexpr int value = PHI4_HIT_UNROLL;
#else
    static constexpr int value = NDIM == 3 ? 2 : 1;
#endif
};
#define PHI4_LN2 0.693147180559945309f

/* lg2.approx with flush-to-zero: no denormal path (F >= 1). */
__device__ __forceinline__ float phi4_lg2(float x)
{
    float y;
    asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
    return y;
}

/* The fast estimate of log(unit(r)) above. */
__device__ __forceinline__ float phi4_fast_log(uint32_t r)
{
    const float f = __fadd_rn(__uint2float_rn(r), 1.0f);
    return __fmaf_rn(phi4_lg2(f), PHI4_LN2, -32.0f * PHI4_LN2);
}

/* e = dH + fast(r): the decision is e < 0 unless phi4_ambiguous(e). */
template <typename R> __device__ __forceinline__ R phi4_margin(R dh, uint32_t r)
{
    return dh + (R)phi4_fast_log(r);
}

template <typename R> __device__ __forceinline__ bool phi4_ambiguous(R e)
{
    return fabs(e) <= (R)PHI4_LOG_MARGIN;
}

/* The exact decision, for the ambiguous cases. */
template <typename R> __device__ __noinline__ bool phi4_accept_exact(R dh, uint32_t r)
{
    return -dh > phi4_ops<R>::log_exact(phi4_ops<R>::draw_unit(r));
}

/*
 * The hit on the LANES sites of a thread: proposals from eta, decisions from u; v updated
 * in place, returns the number accepted. Shared by both schedules.
 */
template <typename R, int LANES>
__device__ __forceinline__ uint32_t phi4_hits(const typename phi4_ops<R>::coef &k, const R *c,
                                              R *v, const latmc_philox_ctr &eta,
                                              const latmc_philox_ctr &u, int nlanes,
                                              int first_lane = 0)
{
    R n[LANES], dh[LANES], e[LANES];
    bool ambiguous = false;
#pragma unroll
    for (int l = 0; l < LANES; l++) {
        n[l] = v[l] + k.epsilon * phi4_ops<R>::draw_signed(eta.v[l]);
        dh[l] = phi4_ops<R>::delta_h(&k, c[l], v[l], n[l]);
        e[l] = phi4_margin<R>(dh[l], u.v[l]);
        ambiguous |= l >= first_lane && l < nlanes && phi4_ambiguous<R>(e[l]);
    }
    bool ok[LANES];
#pragma unroll
    for (int l = 0; l < LANES; l++)
        ok[l] = e[l] < (R)0;
    if (ambiguous) {
#pragma unroll
        for (int l = 0; l < LANES; l++)
            if (phi4_ambiguous<R>(e[l]))
                ok[l] = phi4_accept_exact<R>(dh[l], u.v[l]);
    }
    uint32_t accepted = 0;
#pragma unroll
    for (int l = 0; l < LANES; l++)
        if (l >= first_lane && l < nlanes) {
            v[l] = ok[l] ? n[l] : v[l];
            accepted += ok[l];
        }
    return accepted;
}

/* ---------------------------------------------------------------------------------------- */
/* Philox with the round keys from the host and the first round's products hoisted        */

/*
 * The 2 nhit draws of a block's four sites differ in counter word 3 only (phase and sub):
 * lib/philox_fold.h's second fold (latmc_philox_fold3_name) gives round 0 once per block
 * and pass; each draw then xors in the word 3 of its name (the pass's name at the hit's
 * phase and sub, latmc_rng_name_at) and runs rounds 1 .. 9 with the host's keys.
 */
__device__ __forceinline__ latmc_philox_ctr phi4_draws(const struct cuda_phi4_keys &keys,
                                                       const struct latmc_philox_fold3 &r0,
                                                       struct latmc_rng_name name,
                                                       uint32_t phase, uint32_t sub)
{
    latmc_philox_ctr c = latmc_philox_fold3_round0(&r0, latmc_rng_name_at(name, phase, sub).c3);
#pragma unroll
    for (int round = 1; round < 10; round++) {
        latmc_philox_key k;
        k.v[0] = keys.k[round][0];
        k.v[1] = keys.k[round][1];
        c = latmc_philox_round(c, k);
    }
    return c;
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
    uint64_t sweep;            /* the sim's sweep: pass p's draws are latmc_phi4_rng_name's */
    typename phi4_ops<R>::coef k;
    struct cuda_phi4_keys keys;
    /* box kernels only (BOX): the chunks along the cut (last) axis are 2 (k0 + i) +
     * parity, and global plane g of the cut axis is plane g - cut0 of the memory */
    int64_t k0, cut0;
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

/* A thread's segment within its chunk. */
struct segment {
    int base;              /* shared index of the segment's first site, minus the colour's offset */
    int shift;             /* (AY y + AZ z) mod NC: colour c starts at x offset (c - shift) mod NC */
    uint64_t block;        /* the Philox block of the segment's four sites of any colour */
};

/*
 * Segment s of the chunk at (x0, y0, z0): row s mod rows, the (s / rows)-th segment of
 * that row, so that a warp's threads take consecutive rows (spread over the banks). The
 * sites of colour c are x = gx + off + NC l, l = 0..3, off = (c - shift) mod NC; their
 * within-colour numbers are j = gx / NC + l + (L_x / NC) (y + L_y z): Philox block
 * gx / W + (L_x / W) (y + L_y z), lane l (gx and L_x are multiples of W = 4 NC).
 */
template <int NDIM, int NC, typename A>
__device__ __forceinline__ struct segment phi4_segment(const A &a, int s, int rows, int64_t x0,
                                                       int64_t y0, int64_t z0)
{
    constexpr int W = CUDA_PHI4_LANES * NC;
    constexpr int AY = NC == 8 ? 3 : 2, AZ = NC == 8 ? 2 : 0;
    const int row = s % rows, xs = s / rows;
    const int y = row % a.by, z = row / a.by;
    const int64_t gy = y0 + y, gz = z0 + z, gx = x0 + (int64_t)xs * W;
    struct segment sg;
    sg.shift = (int)((AY * gy + AZ * gz) % NC);
    sg.base = CUDA_PHI4_HALO + xs * W + (y + CUDA_PHI4_HALO) * a.py +
              (NDIM == 3 ? (z + CUDA_PHI4_HALO) * a.pz : 0);
    sg.block = (uint64_t)(gx / W) + (uint64_t)(a.lx / W) * (uint64_t)(gy + a.ly * gz);
    return sg;
}

/*
 * The four sites of colour `colour` of one segment, the first at shared index `base`:
 * coronas once, nhit hits, the values back. Returns the accepted hits.
 */
template <typename R, int NDIM, int NC>
__device__ __forceinline__ uint32_t phi4_segment_update(const chunk_args<R> &a, R *box, int base,
                                                        int colour, struct latmc_rng_name name,
                                                        const struct latmc_philox_fold3 &r1)
{
    R v[CUDA_PHI4_LANES], c[CUDA_PHI4_LANES];
#pragma unroll
    for (int l = 0; l < CUDA_PHI4_LANES; l++) {
        v[l] = box[base + NC * l];
        c[l] = phi4_box_corona<R, NDIM>(box, base + NC * l, a.py, a.pz, &a.k);
    }
    uint32_t n_acc = 0;
#pragma unroll phi4_hit_unroll<NDIM>::value
    for (uint32_t hit = 0; hit < a.nhit; hit++) {
        const uint32_t phase = latmc_phi4_rng_phase(colour, hit);
        const latmc_philox_ctr eta =
            phi4_draws(a.keys, r1, name, phase, latmc_phi4_rng_sub(hit, LATMC_PHI4_DRAW_ETA));
        const latmc_philox_ctr u = phi4_draws(a.keys, r1, name, phase,
                                              latmc_phi4_rng_sub(hit, LATMC_PHI4_DRAW_ACCEPT));
        n_acc += phi4_hits<R, CUDA_PHI4_LANES>(a.k, c, v, eta, u, CUDA_PHI4_LANES);
    }
#pragma unroll
    for (int l = 0; l < CUDA_PHI4_LANES; l++)
        box[base + NC * l] = v[l];
    return n_acc;
}

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
    const int T = blockDim.x, tid = threadIdx.x;
    const int warp = tid >> 5, lane = tid & 31, nwarps = T >> 5;
    const int64_t nchunks = (int64_t)a.hx * a.hy * a.hz;
    const int rows = a.by * a.bz;                     /* rows of the chunk */
    uint64_t total = 0;

    for (int64_t ch = blockIdx.x; ch < nchunks; ch += gridDim.x) {
        const int64_t cx = 2 * (ch % a.hx) + a.px;
        const int64_t cy = 2 * ((ch / a.hx) % a.hy) + a.ppy + (BOX && NDIM == 2 ? 2 * a.k0 : 0);
        const int64_t cz = 2 * (ch / ((int64_t)a.hx * a.hy)) + a.ppz +
                           (BOX && NDIM == 3 ? 2 * a.k0 : 0);
        const int64_t x0 = cx * a.bx, y0 = cy * a.by, z0 = cz * a.bz;

        /* load the chunk and its halo: one warp per row of the box */
        __syncthreads(); /* the previous chunk is written back */
        for (int r = warp; r < a.boxy * a.boxz; r += nwarps) {
            const int yy = r % a.boxy, zz = r / a.boxy;
            /* a box's memory holds the halo planes of the cut axis: no wrap there */
            const int64_t gy = BOX && NDIM == 2 ? y0 - CUDA_PHI4_HALO + yy - a.cut0
                                                 : phi4_wrap(y0 - CUDA_PHI4_HALO + yy, a.ly);
            const int64_t gz = NDIM == 3 ? (BOX ? z0 - CUDA_PHI4_HALO + zz - a.cut0
                                                 : phi4_wrap(z0 - CUDA_PHI4_HALO + zz, a.lz))
                                         : 0;
            const R *src = phi + (gy + a.ly * gz) * a.lx;
            R *dst = box + yy * a.py + zz * a.pz;
            for (int xx = lane; xx < a.boxx; xx += 32)
                dst[xx] = src[phi4_wrap(x0 - CUDA_PHI4_HALO + xx, a.lx)];
        }
        __syncthreads();

        if (a.segments <= T) {
            /* at most one segment per thread (the default): everything about the segment
             * but the colour's offset is fixed for the chunk, and Philox's first round
             * (block and pass, not colour) for the pass */
            const struct segment sg = phi4_segment<NDIM, NC>(a, tid, rows, x0, y0, z0);
            const bool mine = tid < a.segments;
            for (uint32_t pass = 0; pass < a.nloc; pass++) {
                const struct latmc_rng_name name = latmc_phi4_rng_name(a.sweep, a.nloc, pass, 0);
                const struct latmc_philox_fold3 r1 =
                    latmc_philox_fold3_name(a.keys.k[0][0], a.keys.k[0][1], name, sg.block);
                for (int colour = 0; colour < NC; colour++) {
                    if (mine) {
                        const int off = colour - sg.shift;
                        total += phi4_segment_update<R, NDIM, NC>(
                            a, box, sg.base + off + (off < 0 ? NC : 0), colour, name, r1);
                    }
                    __syncthreads();
                }
            }
        } else {
            for (uint32_t pass = 0; pass < a.nloc; pass++) {
                const struct latmc_rng_name name = latmc_phi4_rng_name(a.sweep, a.nloc, pass, 0);
                for (int colour = 0; colour < NC; colour++) {
                    for (int s = tid; s < a.segments; s += T) {
                        const struct segment sg = phi4_segment<NDIM, NC>(a, s, rows, x0, y0, z0);
                        const struct latmc_philox_fold3 r1 =
                            latmc_philox_fold3_name(a.keys.k[0][0], a.keys.k[0][1], name, sg.block);
                        const int off = colour - sg.shift;
                        total += phi4_segment_update<R, NDIM, NC>(
                            a, box, sg.base + off + (off < 0 ? NC : 0), colour, name, r1);
                    }
                    __syncthreads();
                }
            }
        }

        /* write the chunk back (the halo belongs to other chunks) */
        for (int r = warp; r < rows; r += nwarps) {
            const int y = r % a.by, z = r / a.by;
            R *dst = phi + ((y0 + y - (BOX && NDIM == 2 ? a.cut0 : 0)) +
                            a.ly * (z0 + z - (BOX && NDIM == 3 ? a.cut0 : 0))) * a.lx + x0;
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

/* Site j of colour `colour`: backends/cpu/phi4/phi4_lattice.h, phi4_colour_site. */
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

/* The neighbourhood sums of backends/cpu/phi4/phi4_lattice.h, same order; value(dx, dy, dz):
 * phi at x + d (|d_mu| <= 2 per axis). */
template <typename R, typename Value>
__device__ __forceinline__ R corona_by(const struct site_geom &g,
                                       const typename phi4_ops<R>::coef *k, const Value &value)
{
    R near = 0, far = 0, diag = 0;
    for (int mu = 0; mu < g.ndim; mu++) {
        const int e[3] = { mu == 0, mu == 1, mu == 2 };
        near += value(e[0], e[1], e[2]);
        near += value(-e[0], -e[1], -e[2]);
        far += value(2 * e[0], 2 * e[1], 2 * e[2]);
        far += value(-2 * e[0], -2 * e[1], -2 * e[2]);
    }
    for (int mu = 0; mu < g.ndim; mu++)
        for (int nu = mu + 1; nu < g.ndim; nu++)
            for (int a = 1; a >= -1; a -= 2)
                for (int b = 1; b >= -1; b -= 2) {
                    int d[3] = { 0, 0, 0 };
                    d[mu] += a;
                    d[nu] += b;
                    diag += value(d[0], d[1], d[2]);
                }
    return phi4_ops<R>::corona(k, near, far, diag);
}

/* The neighbourhood sums of site x through the periodic wrap. */
template <typename R>
__device__ R site_corona(const struct site_geom &g, const R *phi, const int64_t x[3],
                         const typename phi4_ops<R>::coef *k)
{
    return corona_by<R>(g, k, [&](int dx, int dy, int dz) {
        return site_value(g, phi, x, dx, dy, dz);
    });
}

template <typename R>
__global__ void phi4_site_kernel(const struct site_geom g, R *phi,
                                 const typename phi4_ops<R>::coef k, uint32_t nhit,
                                 const struct cuda_phi4_keys keys, struct latmc_rng_name name,
                                 int colour, unsigned long long *accepted)
{
    const int64_t nblocks = (g.per_colour + 3) / 4;
    uint64_t total = 0;
    for (int64_t b = cuda_first_item(); b < nblocks; b += cuda_item_stride()) {
        int64_t idx[4] = { 0, 0, 0, 0 };
        R v[4] = { 0, 0, 0, 0 }, c[4] = { 0, 0, 0, 0 };
        int nlanes = 0;
        for (; nlanes < 4 && 4 * b + nlanes < g.per_colour; nlanes++) {
            int64_t x[3];
            site_of(g, colour, 4 * b + nlanes, x);
            idx[nlanes] = x[0] + g.lx * (x[1] + g.ly * x[2]);
            v[nlanes] = phi[idx[nlanes]];
            c[nlanes] = site_corona<R>(g, phi, x, &k);
        }
        const struct latmc_philox_fold3 r1 =
            latmc_philox_fold3_name(keys.k[0][0], keys.k[0][1], name, (uint64_t)b);
        for (uint32_t hit = 0; hit < nhit; hit++) {
            const uint32_t phase = latmc_phi4_rng_phase(colour, hit);
            const latmc_philox_ctr eta =
                phi4_draws(keys, r1, name, phase, latmc_phi4_rng_sub(hit, LATMC_PHI4_DRAW_ETA));
            const latmc_philox_ctr u = phi4_draws(keys, r1, name, phase,
                                                  latmc_phi4_rng_sub(hit, LATMC_PHI4_DRAW_ACCEPT));
            total += phi4_hits<R, 4>(k, c, v, eta, u, nlanes);
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
        const latmc_philox_ctr r = latmc_rng_init_block(seed, 0, 0, (uint64_t)b);
        for (int l = 0; l < 4 && 4 * b + l < n; l++)
            phi[4 * b + l] = phi4_ops<R>::draw_signed(r.v[l]);
    }
}

enum { PHI4_NPARTIALS = 5 };

/*
 * Row `row` (fixed y, z) summed in x order: backends/cpu/phi4/phi4_measure_impl.h, the same
 * operations in the same order (each rounded separately: -fmad=false), so each row's
 * partial sums equal the CPU's bit for bit. One warp per row: the lanes compute the
 * terms of 32 consecutive sites at once (v, v^2, v^4, lap^2 and the ndim squared
 * differences), then lanes 0..4 each add one sum's terms in the CPU's order (grad2 gets
 * its ndim terms per site in axis order).
 */
#define PHI4_ROWS_WARPS 4

template <typename R, int NDIM, bool BOX = false>
__global__ void __launch_bounds__(32 * PHI4_ROWS_WARPS)
phi4_rows_kernel(struct latmc_lattice g, const R *phi, double *partials)
{
    __shared__ double terms[PHI4_ROWS_WARPS][4 + NDIM][32];
    const int lane = threadIdx.x & 31;
    double (*t)[32] = terms[threadIdx.x >> 5];
    const int64_t rows = g.ly * g.lz;
    for (int64_t row = (int64_t)blockIdx.x * PHI4_ROWS_WARPS + (threadIdx.x >> 5); row < rows;
         row += (int64_t)gridDim.x * PHI4_ROWS_WARPS) {
        const int64_t y = row % g.ly, z = row / g.ly;
        const int64_t base = g.lx * row;
        /* the rows y +- 1 and z +- 1 through the periodic wrap */
        /* (a box: the planes of the cut axis beyond its own are halo planes in memory,
         * no wrap there) */
        const int64_t up_y = (BOX && NDIM == 2 ? 1 : (y + 1 < g.ly ? 1 : 1 - g.ly)) * g.lx;
        const int64_t down_y = (BOX && NDIM == 2 ? -1 : (y >= 1 ? -1 : g.ly - 1)) * g.lx;
        const int64_t up_z =
            NDIM == 3 ? (BOX ? 1 : (z + 1 < g.lz ? 1 : 1 - g.lz)) * g.lx * g.ly : 0;
        const int64_t down_z =
            NDIM == 3 ? (BOX ? -1 : (z >= 1 ? -1 : g.lz - 1)) * g.lx * g.ly : 0;
        double acc = 0; /* lane k < 5: sum, sum2, sum4, grad2, lap2 */
        for (int64_t x0 = 0; x0 < g.lx; x0 += 32) {
            const int n = (int)(g.lx - x0 < 32 ? g.lx - x0 : 32);
            if (lane < n) {
                const int64_t x = x0 + lane, i = base + x;
                const double v = phi[i], v2 = v * v;
                double lap = 0;
                {
                    const double up = phi[base + (x + 1 < g.lx ? x + 1 : 0)];
                    const double down = phi[base + (x >= 1 ? x - 1 : g.lx - 1)];
                    t[4][lane] = (up - v) * (up - v);
                    lap += up - 2.0 * v + down;
                }
                {
                    const double up = phi[i + up_y], down = phi[i + down_y];
                    t[5][lane] = (up - v) * (up - v);
                    lap += up - 2.0 * v + down;
                }
                if (NDIM == 3) {
                    const double up = phi[i + up_z], down = phi[i + down_z];
                    t[4 + NDIM - 1][lane] = (up - v) * (up - v);
                    lap += up - 2.0 * v + down;
                }
                t[0][lane] = v;
                t[1][lane] = v2;
                t[2][lane] = v2 * v2;
                t[3][lane] = lap * lap;
            }
            __syncwarp();
            if (lane == 3) {
                for (int k = 0; k < n; k++)
#pragma unroll
                    for (int mu = 0; mu < NDIM; mu++)
                        acc += t[4 + mu][k];
            } else if (lane < 5) {
                const double *col = t[lane == 4 ? 3 : lane];
#pragma unroll 8
                for (int k = 0; k < n; k++)
                    acc += col[k];
            }
            __syncwarp();
        }
        if (lane < PHI4_NPARTIALS)
            partials[PHI4_NPARTIALS * row + lane] = acc;
    }
}

/*
 * The rows in order, as the CPU adds them: each plane's rows (rows_per_plane: 1 in 2D, L_y
 * in 3D) in one serial chain from zero, the planes' sums in a serial chain over the planes
 * (the per-plane tiles of lib/model.h, add_sums). Two warps of one block: warp 1 copies the next tile of row partials into
 * shared memory while lanes 0..4 of warp 0 add the current tile, one sum each.
 */
#define PHI4_TOTAL_TILE 256

__global__ void __launch_bounds__(64) phi4_rows_total_kernel(int64_t rows, int64_t rows_per_plane,
                                                             const double *partials,
                                                             struct latmc_phi4_sums *sums)
{
    __shared__ double tile[2][PHI4_TOTAL_TILE * PHI4_NPARTIALS];
    const int tid = threadIdx.x;
    const int64_t ntiles = (rows + PHI4_TOTAL_TILE - 1) / PHI4_TOTAL_TILE;
    double acc = 0, plane = 0;
    int64_t in_plane = 0;
    for (int64_t k = tid; k < PHI4_TOTAL_TILE * PHI4_NPARTIALS && k < rows * PHI4_NPARTIALS;
         k += blockDim.x)
        tile[0][k] = partials[k];
    __syncthreads();
    for (int64_t t = 0; t < ntiles; t++) {
        const int64_t first = t * PHI4_TOTAL_TILE;
        const int count = (int)(rows - first < PHI4_TOTAL_TILE ? rows - first : PHI4_TOTAL_TILE);
        if (tid >= 32) {
            const int64_t next = first + PHI4_TOTAL_TILE;
            const int64_t n = next < rows ? (rows - next < PHI4_TOTAL_TILE ? rows - next
                                                                          : PHI4_TOTAL_TILE) : 0;
            double *dst = tile[(t + 1) & 1];
            const double *src = partials + PHI4_NPARTIALS * next;
            for (int64_t k = tid - 32; k < n * PHI4_NPARTIALS; k += 32)
                dst[k] = src[k];
        } else if (tid < PHI4_NPARTIALS) {
            const double *src = tile[t & 1];
#pragma unroll 8
            for (int r = 0; r < count; r++) {
                plane += src[PHI4_NPARTIALS * r + tid];
                if (++in_plane == rows_per_plane) {
                    acc += plane;
                    plane = 0;
                    in_plane = 0;
                }
            }
        }
        __syncthreads();
    }
    if (tid < PHI4_NPARTIALS)
        ((double *)sums)[tid] = acc;
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
        err = cudaDeviceGetAttribute(&limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
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

template <typename R> static typename phi4_ops<R>::coef coef_of(const struct latmc_phi4_tables *t);
template <> struct latmc_phi4_coef_f coef_of<float>(const struct latmc_phi4_tables *t) { return t->f; }
template <> struct latmc_phi4_coef_d coef_of<double>(const struct latmc_phi4_tables *t) { return t->d; }

/* The chunk kernel's arguments but the sub-grid (and, for boxes, k0 and cut0). */
template <typename R>
static chunk_args<R> chunk_args_of(const struct cuda_phi4_plan *p, const struct latmc_lattice *g,
                                   const struct latmc_phi4_tables *t,
                                   const struct cuda_phi4_keys *keys, uint64_t sweep)
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
    a.sweep = sweep;
    a.k = coef_of<R>(t);
    a.keys = *keys;
    a.k0 = 0;
    a.cut0 = 0;
    return a;
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

/* The site kernels' geometry of lattice g under plan p. */
static struct site_geom site_geom_of(const struct cuda_phi4_plan *p, const struct latmc_lattice *g)
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
    return sg;
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

extern "C" cudaError_t cuda_phi4_measure(cudaStream_t stream, const struct cuda_phi4_plan *plan,
                                         const struct latmc_lattice *g, const void *phi,
                                         double *partials, struct latmc_phi4_sums *sums)
{
    const int64_t rows = g->ly * g->lz;
    const int threads = 32 * PHI4_ROWS_WARPS; /* one warp per row */
    const unsigned grid = phi4_grid(rows, PHI4_ROWS_WARPS);
    const bool single = plan->precision == LATMC_PRECISION_FLOAT;
    if (g->ndim == 3 && single)
        phi4_rows_kernel<float, 3><<<grid, threads, 0, stream>>>(*g, (const float *)phi, partials);
    else if (g->ndim == 3)
        phi4_rows_kernel<double, 3><<<grid, threads, 0, stream>>>(*g, (const double *)phi, partials);
    else if (single)
        phi4_rows_kernel<float, 2><<<grid, threads, 0, stream>>>(*g, (const float *)phi, partials);
    else
        phi4_rows_kernel<double, 2><<<grid, threads, 0, stream>>>(*g, (const double *)phi, partials);
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess)
        return err;
    phi4_rows_total_kernel<<<1, 64, 0, stream>>>(rows, g->ndim == 3 ? g->ly : 1, partials, sums);
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

extern "C" cudaError_t cuda_phi4_measure_planes(cudaStream_t stream,
                                                const struct cuda_phi4_plan *plan,
                                                const struct latmc_lattice *g, const void *phi,
                                                const struct cuda_phi4_box_range *r,
                                                double *partials, double *plane_sums)
{
    /* the own planes as a lattice of r->count planes, read from memory plane first - cut0 */
    struct latmc_lattice own = *g;
    int64_t plane_sites = g->lx;
    if (g->ndim == 3) {
        own.lz = r->count;
        plane_sites *= g->ly;
    } else {
        own.ly = r->count;
    }
    own.nsites = plane_sites * r->count;
    const size_t vb = plan->precision == LATMC_PRECISION_FLOAT ? sizeof(float) : sizeof(double);
    const void *at = (const char *)phi + (size_t)((r->first - r->cut0) * plane_sites) * vb;
    const int64_t rows = own.ly * own.lz;
    const int threads = 32 * PHI4_ROWS_WARPS;
    const unsigned grid = phi4_grid(rows, PHI4_ROWS_WARPS);
    const bool single = plan->precision == LATMC_PRECISION_FLOAT;
    if (g->ndim == 3 && single)
        phi4_rows_kernel<float, 3, true><<<grid, threads, 0, stream>>>(own, (const float *)at, partials);
    else if (g->ndim == 3)
        phi4_rows_kernel<double, 3, true><<<grid, threads, 0, stream>>>(own, (const double *)at, partials);
    else if (single)
        phi4_rows_kernel<float, 2, true><<<grid, threads, 0, stream>>>(own, (const float *)at, partials);
    else
        phi4_rows_kernel<double, 2, true><<<grid, threads, 0, stream>>>(own, (const double *)at, partials);
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess)
        return err;
    phi4_plane_sums_kernel<<<phi4_grid(r->count * PHI4_NPARTIALS, 128), 128, 0, stream>>>(
        r->count, g->ndim == 3 ? g->ly : 1, partials, plane_sums);
    return cudaGetLastError();
}

/* ---------------------------------------------------------------------------------------- */
/* The Fourier modes' tiles (lib/modes.h; lib/modes_planes.c's phi4 planes, bit for bit)     */

/*
 * Each row's three sums in latmc_modes_tiles' order: site x adds v cos(k x), v sin(k x)
 * and v into lane x mod 4 (x in order within a lane), and the lanes combine as
 * (l0 + l1) + (l2 + l3). Four threads a row, one lane each; every thread of a warp runs
 * every iteration (the shuffles), those past the last row with nothing to add.
 */
template <typename R>
__global__ void phi4_mode_rows_kernel(int64_t lx, int64_t rows, const R *phi,
                                      const double *cx, const double *sx, double *out)
{
    const int64_t groups = ((int64_t)gridDim.x * blockDim.x) / 4;
    const int64_t first = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 4;
    const int lane = threadIdx.x & 3;
    const int64_t rounds = (rows + groups - 1) / groups;
    for (int64_t k = 0; k < rounds; k++) {
        const int64_t row = first + k * groups;
        double re = 0, im = 0, sum = 0;
        if (row < rows) {
            const R *at = phi + row * lx;
            for (int64_t x = lane; x < lx; x += 4) {
                const double v = at[x];
                re += v * cx[x];
                im += v * sx[x];
                sum += v;
            }
        }
        /* lanes 0 and 2: l0 + l1, l2 + l3; lane 0: their sum */
        re += __shfl_down_sync(0xffffffffu, re, 1);
        im += __shfl_down_sync(0xffffffffu, im, 1);
        sum += __shfl_down_sync(0xffffffffu, sum, 1);
        re += __shfl_down_sync(0xffffffffu, re, 2);
        im += __shfl_down_sync(0xffffffffu, im, 2);
        sum += __shfl_down_sync(0xffffffffu, sum, 2);
        if (lane == 0 && row < rows) {
            out[3 * row] = re;
            out[3 * row + 1] = im;
            out[3 * row + 2] = sum;
        }
    }
}

/* Each plane's tile from its rows in order: x from the rows' sums, y (3D) from their
 * totals times the row's phase, the last axis from the plane's total times its phase. */
__global__ void phi4_mode_planes_kernel(int ndim, int64_t count, int64_t rows_per_plane,
                                        int64_t first, const double *rows, const double *cy,
                                        const double *sy, const double *cp, const double *sp,
                                        double *tiles)
{
    for (int64_t k = cuda_first_item(); k < count; k += cuda_item_stride()) {
        double x0 = 0, x1 = 0, y0 = 0, y1 = 0, total = 0;
        for (int64_t y = 0; y < rows_per_plane; y++) {
            const double *r = rows + 3 * (k * rows_per_plane + y);
            x0 += r[0];
            x1 += r[1];
            if (ndim == 3) {
                y0 += r[2] * cy[y];
                y1 += r[2] * sy[y];
            }
            total += r[2];
        }
        double *t = tiles + (size_t)k * 2 * (size_t)ndim;
        t[0] = x0;
        t[1] = x1;
        if (ndim == 3) {
            t[2] = y0;
            t[3] = y1;
        }
        t[2 * (ndim - 1)] = total * cp[first + k];
        t[2 * (ndim - 1) + 1] = total * sp[first + k];
    }
}

extern "C" cudaError_t cuda_phi4_mode_tiles(cudaStream_t stream, const struct cuda_phi4_plan *plan,
                                            const struct latmc_lattice *g, const void *phi,
                                            int64_t first, int64_t count, const double *phases,
                                            double *rows, double *tiles)
{
    const int64_t rows_per_plane = g->ndim == 3 ? g->ly : 1, nrows = count * rows_per_plane;
    /* the tables: cos then sin of each axis in turn (lib/modes_planes.c) */
    const double *cx = phases, *sx = phases + g->lx;
    const double *cy = phases + 2 * g->lx, *sy = cy + g->ly;
    const double *cp = g->ndim == 3 ? sy + g->ly : cy, *sp = cp + (g->ndim == 3 ? g->lz : g->ly);
    const int threads = 128;
    const unsigned grid = phi4_grid(4 * nrows, threads);
    if (plan->precision == LATMC_PRECISION_FLOAT)
        phi4_mode_rows_kernel<float><<<grid, threads, 0, stream>>>(g->lx, nrows,
                                                                    (const float *)phi, cx, sx,
                                                                    rows);
    else
        phi4_mode_rows_kernel<double><<<grid, threads, 0, stream>>>(g->lx, nrows,
                                                                     (const double *)phi, cx,
                                                                     sx, rows);
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess)
        return err;
    phi4_mode_planes_kernel<<<phi4_grid(count, 128), 128, 0, stream>>>(
        g->ndim, count, rows_per_plane, first, rows, cy, sy, cp, sp, tiles);
    return cudaGetLastError();
}
