/*
 * phi^4's per-site device code on the GPU (doc/models/phi4.md, "The CUDA chain"): the
 * arithmetic of a hit, the draws, a chunk of the chunk schedule through its nloc passes
 * (phi4_chunk_update), a Philox block of the site order (phi4_site_block), a row's partial
 * sums and their total in the CPU reference's order. The single lattice's kernels
 * (phi4_kernels.cu) and the ensembles' batched ones (phi4/phi4_batch_kernels.cu: a
 * member index picks the field, coefficients and keys) run this same code, so every member
 * is its standalone sim bit for bit.
 */
#ifndef LATMC_CUDA_PHI4_DEVICE_CUH
#define LATMC_CUDA_PHI4_DEVICE_CUH

#include <cuda_pipeline.h>
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
 * coronas once, nhit hits, the values back. Returns the accepted hits. k and keys: the
 * member's (a single lattice: a.k and a.keys).
 */
template <typename R, int NDIM, int NC>
__device__ __forceinline__ uint32_t phi4_segment_update(const chunk_args<R> &a,
                                                        const typename phi4_ops<R>::coef &k,
                                                        const struct cuda_phi4_keys &keys, R *box,
                                                        int base, int colour,
                                                        struct latmc_rng_name name,
                                                        const struct latmc_philox_fold3 &r1)
{
    R v[CUDA_PHI4_LANES], c[CUDA_PHI4_LANES];
#pragma unroll
    for (int l = 0; l < CUDA_PHI4_LANES; l++) {
        v[l] = box[base + NC * l];
        c[l] = phi4_box_corona<R, NDIM>(box, base + NC * l, a.py, a.pz, &k);
    }
    uint32_t n_acc = 0;
#pragma unroll phi4_hit_unroll<NDIM>::value
    for (uint32_t hit = 0; hit < a.nhit; hit++) {
        const uint32_t phase = latmc_phi4_rng_phase(colour, hit);
        const latmc_philox_ctr eta =
            phi4_draws(keys, r1, name, phase, latmc_phi4_rng_sub(hit, LATMC_PHI4_DRAW_ETA));
        const latmc_philox_ctr u = phi4_draws(keys, r1, name, phase,
                                              latmc_phi4_rng_sub(hit, LATMC_PHI4_DRAW_ACCEPT));
        n_acc += phi4_hits<R, CUDA_PHI4_LANES>(k, c, v, eta, u, CUDA_PHI4_LANES);
    }
#pragma unroll
    for (int l = 0; l < CUDA_PHI4_LANES; l++)
        box[base + NC * l] = v[l];
    return n_acc;
}

/*
 * Chunk `ch` of the sub-grid of a (its parities px, ppy, ppz) on the field phi: the chunk
 * and its halo copied into `box` (shared memory), all nloc passes there, colour by colour
 * (a block barrier between them), the chunk written back. Every thread of the block calls
 * it (the barriers); k and keys are the lattice's (a member's, in an ensemble's batch).
 * Returns the thread's accepted hits.
 */
template <typename R, int NDIM, int NC, bool BOX>
__device__ __forceinline__ uint64_t phi4_chunk_update(const chunk_args<R> &a,
                                                      const typename phi4_ops<R>::coef &k,
                                                      const struct cuda_phi4_keys &keys, R *phi,
                                                      R *box, int64_t ch)
{
    const int T = blockDim.x, tid = threadIdx.x;
    const int warp = tid >> 5, lane = tid & 31, nwarps = T >> 5;
    const int rows = a.by * a.bz;                     /* rows of the chunk */
    uint64_t total = 0;
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
                latmc_philox_fold3_name(keys.k[0][0], keys.k[0][1], name, sg.block);
            for (int colour = 0; colour < NC; colour++) {
                if (mine) {
                    const int off = colour - sg.shift;
                    total += phi4_segment_update<R, NDIM, NC>(
                        a, k, keys, box, sg.base + off + (off < 0 ? NC : 0), colour, name, r1);
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
                        latmc_philox_fold3_name(keys.k[0][0], keys.k[0][1], name, sg.block);
                    const int off = colour - sg.shift;
                    total += phi4_segment_update<R, NDIM, NC>(
                        a, k, keys, box, sg.base + off + (off < 0 ? NC : 0), colour, name, r1);
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
    return total;
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
 * phi at x + d (|d_mu| <= 2 per axis). NDIM: the dimension where it is fixed at compile time
 * (0: ndim). */
template <typename R, int NDIM, typename Value>
__device__ __forceinline__ R corona_of(int ndim, const typename phi4_ops<R>::coef *k,
                                       const Value &value)
{
    const int n = NDIM > 0 ? NDIM : ndim;
    R near = 0, far = 0, diag = 0;
#pragma unroll
    for (int mu = 0; mu < n; mu++) {
        const int e[3] = { mu == 0, mu == 1, mu == 2 };
        near += value(e[0], e[1], e[2]);
        near += value(-e[0], -e[1], -e[2]);
        far += value(2 * e[0], 2 * e[1], 2 * e[2]);
        far += value(-2 * e[0], -2 * e[1], -2 * e[2]);
    }
#pragma unroll
    for (int mu = 0; mu < n; mu++)
#pragma unroll
        for (int nu = mu + 1; nu < n; nu++)
#pragma unroll
            for (int a = 1; a >= -1; a -= 2)
#pragma unroll
                for (int b = 1; b >= -1; b -= 2) {
                    int d[3] = { 0, 0, 0 };
                    d[mu] += a;
                    d[nu] += b;
                    diag += value(d[0], d[1], d[2]);
                }
    return phi4_ops<R>::corona(k, near, far, diag);
}

template <typename R, typename Value>
__device__ __forceinline__ R corona_by(const struct site_geom &g,
                                       const typename phi4_ops<R>::coef *k, const Value &value)
{
    return corona_of<R, 0>(g.ndim, k, value);
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

/* The lattice's site order as the single site kernel names it (64-bit, any lattice): site j
 * of a colour, its index, its corona (site_of, site_corona). */
struct phi4_sites {
    typedef int64_t index;
    static constexpr bool unrolled = false;
    const struct site_geom &g;
    __device__ __forceinline__ int64_t per_colour() const { return g.per_colour; }
    __device__ __forceinline__ void place(int colour, int64_t j, int64_t x[3], int64_t &idx) const
    {
        site_of(g, colour, j, x);
        idx = x[0] + g.lx * (x[1] + g.ly * x[2]);
    }
    template <typename R>
    __device__ __forceinline__ R corona(const R *phi, const int64_t x[3],
                                        const typename phi4_ops<R>::coef *k) const
    {
        return site_corona<R>(g, phi, x, k);
    }
};

/* The same sites, indices and sums in 32-bit integers with the dimension fixed, for
 * lattices of fewer than 2^31 sites (the ensembles' whole-sweep kernel): site_of's
 * divisions of non-negative numbers, site_value's wrap, corona_of's order. */
template <int NDIM> struct phi4_sites32 {
    typedef int index;
    static constexpr bool unrolled = true;
    int ncolours, ay, az, lx, ly, lz, runs_per_row, per;
    __device__ __forceinline__ int64_t per_colour() const { return per; }
    __device__ __forceinline__ void place(int colour, int64_t jj, int x[3], int &idx) const
    {
        const int j = (int)jj, row = j / runs_per_row, run = j - row * runs_per_row;
        x[1] = row % ly;
        x[2] = row / ly;
        const int shift = (ay * x[1] + az * x[2]) % ncolours;
        x[0] = ncolours * run + (colour - shift + ncolours) % ncolours;
        idx = x[0] + lx * (x[1] + ly * x[2]);
    }
    static __device__ __forceinline__ int wrap(int a, int l)
    {
        return a < 0 ? a + l : (a >= l ? a - l : a);
    }
    template <typename R>
    __device__ __forceinline__ R corona(const R *phi, const int x[3],
                                        const typename phi4_ops<R>::coef *k) const
    {
        return corona_of<R, NDIM>(NDIM, k, [&](int dx, int dy, int dz) {
            const int a = wrap(x[0] + dx, lx), b = wrap(x[1] + dy, ly),
                      c = NDIM == 3 ? wrap(x[2] + dz, lz) : 0;
            return phi[a + lx * (b + ly * c)];
        });
    }
};

template <int NDIM>
static inline __host__ __device__ struct phi4_sites32<NDIM>
phi4_sites32_of(const struct site_geom &g)
{
    const struct phi4_sites32<NDIM> s = { g.ncolours, g.ay, g.az, (int)g.lx, (int)g.ly, (int)g.lz,
                                         (int)(g.lx / g.ncolours), (int)g.per_colour };
    return s;
}

/* Philox block b of colour `colour` in the site order of `sites` (phi4_sites, phi4_sites32:
 * its four sites, the last block perhaps fewer): coronas from phi, nhit hits, the values
 * back. Returns the accepted hits. */
template <typename R, typename Sites>
__device__ __forceinline__ uint32_t phi4_site_block_of(const Sites &sites, R *phi,
                                                       const typename phi4_ops<R>::coef &k,
                                                       uint32_t nhit,
                                                       const struct cuda_phi4_keys &keys,
                                                       struct latmc_rng_name name, int colour,
                                                       int64_t b)
{
    uint32_t total = 0;
    typename Sites::index idx[4] = { 0, 0, 0, 0 };
    R v[4] = { 0, 0, 0, 0 }, c[4] = { 0, 0, 0, 0 };
    /* the block's sites of the colour: a prefix of its four lanes (Sites::unrolled: the
     * lanes unrolled, the arrays in registers; else a loop, as the single site kernel has
     * always run it) */
    int nlanes = 0;
    if (Sites::unrolled) {
#pragma unroll
        for (int l = 0; l < 4; l++)
            if (4 * b + l < sites.per_colour()) {
                typename Sites::index x[3];
                sites.place(colour, 4 * b + l, x, idx[l]);
                v[l] = phi[idx[l]];
                c[l] = sites.template corona<R>(phi, x, &k);
                nlanes = l + 1;
            }
    } else {
        for (; nlanes < 4 && 4 * b + nlanes < sites.per_colour(); nlanes++) {
            typename Sites::index x[3];
            sites.place(colour, 4 * b + nlanes, x, idx[nlanes]);
            v[nlanes] = phi[idx[nlanes]];
            c[nlanes] = sites.template corona<R>(phi, x, &k);
        }
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
    if (Sites::unrolled) {
#pragma unroll
        for (int l = 0; l < 4; l++)
            if (l < nlanes)
                phi[idx[l]] = v[l];
    } else {
        for (int l = 0; l < nlanes; l++)
            phi[idx[l]] = v[l];
    }
    return total;
}

/* The site kernel's Philox block (phi4_sites: 64-bit, any lattice). */
template <typename R>
__device__ __forceinline__ uint32_t phi4_site_block(const struct site_geom &g, R *phi,
                                                    const typename phi4_ops<R>::coef &k,
                                                    uint32_t nhit,
                                                    const struct cuda_phi4_keys &keys,
                                                    struct latmc_rng_name name, int colour,
                                                    int64_t b)
{
    const struct phi4_sites sites = { g };
    return phi4_site_block_of<R>(sites, phi, k, nhit, keys, name, colour, b);
}

enum { PHI4_NPARTIALS = 5 };

/*
 * Row `row`'s first site and the offsets of its rows y +- 1 and z +- 1 through the periodic
 * wrap (a box: the planes of the cut axis beyond its own are halo planes in memory, no
 * wrap there).
 */
template <int NDIM, bool BOX> struct phi4_row_at {
    int64_t base, up_y, down_y, up_z, down_z;
    __device__ __forceinline__ phi4_row_at(const struct latmc_lattice &g, int64_t row)
    {
        const int64_t y = row % g.ly, z = row / g.ly;
        base = g.lx * row;
        up_y = (BOX && NDIM == 2 ? 1 : (y + 1 < g.ly ? 1 : 1 - g.ly)) * g.lx;
        down_y = (BOX && NDIM == 2 ? -1 : (y >= 1 ? -1 : g.ly - 1)) * g.lx;
        up_z = NDIM == 3 ? (BOX ? 1 : (z + 1 < g.lz ? 1 : 1 - g.lz)) * g.lx * g.ly : 0;
        down_z = NDIM == 3 ? (BOX ? -1 : (z >= 1 ? -1 : g.lz - 1)) * g.lx * g.ly : 0;
    }
};

/*
 * Row `row` (fixed y, z) summed in x order: backends/cpu/phi4/phi4_measure_impl.h, the same
 * operations in the same order (each rounded separately: -fmad=false), so each row's
 * partial sums equal the CPU's bit for bit. One warp per row: the lanes compute the
 * terms of 32 consecutive sites at once (v, v^2, v^4, lap^2 and the ndim squared
 * differences), then lanes 0..4 each add one sum's terms in the CPU's order (grad2 gets
 * its ndim terms per site in axis order).
 */
#define PHI4_ROWS_WARPS 4
/* phi4_row_walk's kernel: threads a block, and the rows it takes (launch_rows) */
#define PHI4_WALK_THREADS 128
#define PHI4_WALK_MIN_LX 256
#define PHI4_WALK_MIN_ROWS 4096

template <typename R, int NDIM, bool BOX = false>
__device__ __forceinline__ void phi4_row_partials(const struct latmc_lattice &g, const R *phi,
                                                  double *partials, int64_t row,
                                                  double (*t)[32], int lane)
{
    const struct phi4_row_at<NDIM, BOX> at(g, row);
    const int64_t base = at.base, up_y = at.up_y, down_y = at.down_y, up_z = at.up_z,
                  down_z = at.down_z;
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

/*
 * The same partial sums of row `row`, one thread walking the whole row (phi4_row_walk_kernel):
 * 4 sites at a time from 16-byte loads (L_x a multiple of 4: the rows' starts aligned), the
 * next 4 loaded before these are added, each site's terms made and added into the five
 * sums at once, in x order, with the operations of phi4_row_partials (so the same doubles).
 * Where rows are many and long, this keeps every lane adding instead of five of a warp's 32.
 */
template <typename R> struct phi4_quad;
template <> struct phi4_quad<float> {
    static __device__ __forceinline__ void load(const float *p, double (&v)[4])
    {
        const float4 q = *reinterpret_cast<const float4 *>(p);
        v[0] = q.x; v[1] = q.y; v[2] = q.z; v[3] = q.w;
    }
};
template <> struct phi4_quad<double> {
    static __device__ __forceinline__ void load(const double *p, double (&v)[4])
    {
        const double2 a = reinterpret_cast<const double2 *>(p)[0];
        const double2 b = reinterpret_cast<const double2 *>(p)[1];
        v[0] = a.x; v[1] = a.y; v[2] = b.x; v[3] = b.y;
    }
};

/*
 * A row's five sums (sum, sum2, sum4, grad2, lap2) walked in x order: site x's terms made
 * from its value v, its x neighbours (right: x + 1, left: x - 1), y neighbours (u, d) and,
 * in 3D, z neighbours (f, b), and added, in phi4_row_partials' operations and order (so
 * the same doubles). phi4_row_walk and the tile walk (phi4_tile_walk.cu) both add so.
 */
struct phi4_row_sums {
    double sum = 0, sum2 = 0, sum4 = 0, grad2 = 0, lap2 = 0;

    template <int NDIM>
    __device__ __forceinline__ void add(double v, double right, double left, double u,
                                        double d, double f = 0, double b = 0)
    {
        const double v2 = v * v;
        const double gx = (right - v) * (right - v);
        double lap = 0;
        lap += right - 2.0 * v + left;
        const double gy = (u - v) * (u - v);
        lap += u - 2.0 * v + d;
        double gz = 0;
        if (NDIM == 3) {
            gz = (f - v) * (f - v);
            lap += f - 2.0 * v + b;
        }
        sum += v;
        sum2 += v2;
        sum4 += v2 * v2;
        grad2 += gx;
        grad2 += gy;
        if (NDIM == 3)
            grad2 += gz;
        lap2 += lap * lap;
    }

    __device__ __forceinline__ void store(double *out) const
    {
        out[0] = sum;
        out[1] = sum2;
        out[2] = sum4;
        out[3] = grad2;
        out[4] = lap2;
    }
};

template <typename R, int NDIM, bool BOX>
__device__ __forceinline__ void phi4_row_walk(const struct latmc_lattice &g, const R *phi,
                                              double *partials, int64_t row)
{
    const struct phi4_row_at<NDIM, BOX> at(g, row);
    const int64_t up_y = at.up_y, down_y = at.down_y, up_z = at.up_z, down_z = at.down_z;
    const R *own = phi + at.base;
    struct phi4_row_sums s;
    double c[4], next[4];
    phi4_quad<R>::load(own, c);
    const double first = c[0];
#pragma unroll
    for (int k = 0; k < 4; k++)
        next[k] = first;
    double prev = own[g.lx - 1]; /* x = -1: the row's last site */
    for (int64_t x0 = 0; x0 < g.lx; x0 += 4) {
        double u[4], d[4], f[4], b[4];
        if (x0 + 4 < g.lx)
            phi4_quad<R>::load(own + x0 + 4, next);
        else
            next[0] = first; /* x = L_x: the row's first site */
        phi4_quad<R>::load(own + up_y + x0, u);
        phi4_quad<R>::load(own + down_y + x0, d);
        if (NDIM == 3) {
            phi4_quad<R>::load(own + up_z + x0, f);
            phi4_quad<R>::load(own + down_z + x0, b);
        }
#pragma unroll
        for (int k = 0; k < 4; k++)
            s.add<NDIM>(c[k], k < 3 ? c[k + 1] : next[0], k > 0 ? c[k - 1] : prev, u[k], d[k],
                        NDIM == 3 ? f[k] : 0.0, NDIM == 3 ? b[k] : 0.0);
        prev = c[3];
#pragma unroll
        for (int k = 0; k < 4; k++)
            c[k] = next[k];
    }
    s.store(partials + PHI4_NPARTIALS * row);
}

/*
 * The rows in order, as the CPU adds them: each plane's rows (rows_per_plane: 1 in 2D, L_y
 * in 3D) in one serial chain from zero, the planes' sums in a serial chain over the planes
 * (the per-plane tiles of lib/model.h, add_sums). One block: lanes 0..4 of warp 0 add a
 * tile of row partials, one sum each, while every thread's asynchronous copies of the next
 * tile into shared memory are in flight (all of a thread's at once: the copy of a tile
 * takes about one memory latency, not one a piece, and the chain of additions, the one
 * serial part, sets the pace).
 */
#define PHI4_TOTAL_TILE 512

__device__ __forceinline__ void phi4_rows_total_issue(int64_t rows, const double *partials,
                                                      int64_t first, double *dst)
{
    const int64_t n = first < rows ? (rows - first < PHI4_TOTAL_TILE ? rows - first
                                                                     : PHI4_TOTAL_TILE) : 0;
    const double *src = partials + PHI4_NPARTIALS * first;
    for (int64_t k = threadIdx.x; k < n * PHI4_NPARTIALS; k += blockDim.x)
        __pipeline_memcpy_async(dst + k, src + k, sizeof(double));
    __pipeline_commit();
}

__device__ __forceinline__ void phi4_rows_total(int64_t rows, int64_t rows_per_plane,
                                                const double *partials,
                                                struct latmc_phi4_sums *sums)
{
    __shared__ double tile[2][PHI4_TOTAL_TILE * PHI4_NPARTIALS];
    const int tid = threadIdx.x;
    const int64_t ntiles = (rows + PHI4_TOTAL_TILE - 1) / PHI4_TOTAL_TILE;
    double acc = 0, plane = 0;
    int64_t in_plane = 0;
    phi4_rows_total_issue(rows, partials, 0, tile[0]);
    for (int64_t t = 0; t < ntiles; t++) {
        const int64_t first = t * PHI4_TOTAL_TILE;
        const int count = (int)(rows - first < PHI4_TOTAL_TILE ? rows - first : PHI4_TOTAL_TILE);
        /* the next tile into the other buffer, free since the last barrier */
        phi4_rows_total_issue(rows, partials, first + PHI4_TOTAL_TILE, tile[(t + 1) & 1]);
        __pipeline_wait_prior(1); /* tile t's copies, this thread's */
        __syncthreads();          /* ... and every thread's */
        if (tid < PHI4_NPARTIALS && rows_per_plane == 1) {
            /* 2D: a plane's sum is 0 + its row's; without a test a row, the loads of 8
             * rows go ahead of their additions and the chain waits for the adder only */
            const double *src = tile[t & 1] + tid;
#pragma unroll 8
            for (int r = 0; r < count; r++)
                acc += 0.0 + src[PHI4_NPARTIALS * r];
        } else if (tid < PHI4_NPARTIALS) {
            const double *src = tile[t & 1] + tid;
            for (int r = 0; r < count;) { /* the rest of a plane's rows in this tile */
                const int64_t left = rows_per_plane - in_plane;
                const int run = (int)(count - r < left ? count - r : left);
#pragma unroll 8
                for (int k = 0; k < run; k++)
                    plane += src[PHI4_NPARTIALS * (r + k)];
                r += run;
                in_plane += run;
                if (in_plane == rows_per_plane) {
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
/* The kernels' arguments, from the plan (host)                                              */

template <typename R> static typename phi4_ops<R>::coef coef_of(const struct latmc_phi4_tables *t);
template <> inline struct latmc_phi4_coef_f coef_of<float>(const struct latmc_phi4_tables *t) { return t->f; }
template <> inline struct latmc_phi4_coef_d coef_of<double>(const struct latmc_phi4_tables *t) { return t->d; }

/* The chunk kernel's arguments but the sub-grid (and, for boxes, k0 and cut0). */
template <typename R>
static inline chunk_args<R> chunk_args_of(const struct cuda_phi4_plan *p, const struct latmc_lattice *g,
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

/* The site kernels' geometry of lattice g under plan p. */
static inline struct site_geom site_geom_of(const struct cuda_phi4_plan *p, const struct latmc_lattice *g)
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

#endif
