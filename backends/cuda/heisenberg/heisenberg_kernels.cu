/*
 * The Heisenberg spin glass on the GPU (heisenberg_cuda.h; doc/cuda.md, "Heisenberg spin
 * glass"). The chain is the CPU reference's (doc/models/heisenberg.md): checkerboard
 * colours (x + y + z) mod 2, colour 0 then colour 1 in every pass, the local field summed
 * in the same order, the same Philox draws named by (seed, replica, sweep, colour, sub,
 * checkerboard index). In double arithmetic every operation is the reference's, so an
 * overrelaxation pass gives the CPU's floats bit for bit and a heat-bath pass differs
 * only where CUDA's log / log1p / exp / expm1 / sin / cos round differently from the CPU's
 * shared versions (lib/latmc_math.h);
 * in float arithmetic (desc.precision FLOAT) the same steps run in float.
 *
 * One kernel launch is one pass over the lattice, both colours, every replica, reading
 * the configuration from one buffer and writing it to another. A block owns a tile of
 * tx x ty sites of every plane of a z range (3D) and streams through its planes with a
 * ring of five planes in shared memory (four without the prefetch), each with a halo of
 * two sites in x and y:
 *   load plane p + 1;  colour 0 on plane p, over the tile plus a halo of one site;
 *   colour 1 on plane p - 1, over the tile;  write plane p - 1 (both colours).
 * Colour 1 on plane p - 1 needs the new colour-0 spins of planes p - 2, p - 1, p and the
 * x and y neighbours just outside the tile: those the block computes itself (the halo of
 * one site), from old spins up to two sites out, exactly as the block owning them does
 * (same inputs, same draws), so no block waits for another. Each spin and coupling is
 * read from memory about once per pass instead of once per colour.
 *
 * Heat-bath draws: where L_x and tx are multiples of 8, the four sites of colour c with
 * checkerboard indices 4b .. 4b + 3 lie in one 8-site segment of a row and are handled
 * by four adjacent lanes; each lane computes one of the block's Philox calls (replica
 * 0/1 x cos theta/azimuth) and four shuffles hand every lane its four draws. Elsewhere
 * each lane computes the calls of its own site.
 */
#include <climits>
#include <cuda_pipeline.h>

#include "heisenberg_cuda.h"
#include "cuda_launch.cuh"
#include "rng_streams.h"

#include "heisenberg_site_cuda.cuh"
#include "mode_fixed.h"
#include "modes_fixed.cuh"

template <typename R>
__device__ __forceinline__ float3 heisenberg_heatbath(const R field[3], R beta, R u_cos, R u_phi)
{
    float out[3];
    latmc_heisenberg_heatbath_spin(field, beta, u_cos, u_phi, out);
    return make_float3(out[0], out[1], out[2]);
}

template <typename R>
__device__ __forceinline__ float3 heisenberg_overrelax(const R field[3], float3 s)
{
    float v[3] = { s.x, s.y, s.z };
    latmc_heisenberg_overrelax_spin(field, v);
    return make_float3(v[0], v[1], v[2]);
}

/* ---- the pass kernel ---- */

__device__ __forceinline__ int heisenberg_wrap(int v, int l)
{
    return v < 0 ? v + l : (v >= l ? v - l : v);
}

/* A block's tile and its shared memory: a ring of `slots` lattice planes, each with the
 * spin components of every replica and (jsmem) the ndim coupling arrays, each of those
 * an array of (ty + 4) rows of tx + 4 floats (tx + 8 in the float fixed-tile instances:
 * heisenberg_load_plane_wide), local (lx, ly) = global (x0 - 2 + lx, y0 - 2 + ly). */
struct heisenberg_tile {
    int x0, y0, z0;
    int w, h, zn;       /* the tile's extent (smaller at the lattice's end), planes */
    int rs;             /* row stride: tx + 4 (float fixed tiles: tx + 8) */
    int plane;          /* floats per array: (ty + 4) rs */
    int slots;          /* lattice planes in the ring (1 in 2D) */
    int nspin;          /* spin arrays per slot: 3 nrep */
    int arrays;         /* arrays per slot: nspin, + ndim with jsmem */
    bool jsmem;         /* the couplings through shared memory (g.jsmem; false, a constant
                         * of the code, in the fixed-tile instances) */
};

/*
 * A thread's place in the block's two walks over a plane's items, found once per block:
 * the walks repeat on every plane, and a division by a tile's width costs a warp about 20
 * instructions (found in every step's colours, loads and writes, they were a fifth of the
 * kernel's instructions). Rows of w/2 items (the colour steps' tile items and the writes'
 * pairs) and rows of (w + 4)/2 pairs (the loads): the thread's first item (row, item) and
 * the block's step (rows, items) in each.
 */
struct heisenberg_walks {
    int hr, hk, hdr, hdk; /* rows of w/2 */
    int lr, lk, ldr, ldk; /* rows of (w + 4)/2 */
};

__device__ __forceinline__ heisenberg_walks heisenberg_walks_of(const heisenberg_tile &t)
{
    heisenberg_walks k;
    const int nthreads = (int)blockDim.x, tid = (int)threadIdx.x;
    const int half_w = t.w >> 1, pairs = (t.w + 4) >> 1;
    k.hr = tid / half_w;
    k.hk = tid - k.hr * half_w;
    k.hdr = nthreads / half_w;
    k.hdk = nthreads - k.hdr * half_w;
    k.lr = tid / pairs;
    k.lk = tid - k.lr * pairs;
    k.ldr = nthreads / pairs;
    k.ldk = nthreads - k.ldr * pairs;
    return k;
}

/* The slot of plane p + d, slot_p being plane p's (0 <= slot_p < slots, |d| <= slots). */
__device__ __forceinline__ int heisenberg_slot(int slot_p, int d, int slots)
{
    const int s = slot_p + d;
    return s < 0 ? s + slots : (s >= slots ? s - slots : s);
}

/* A site's offset in its plane (3D: < 2^32, cuda_heisenberg_box_geometry checks) or, in 2D,
 * in the lattice. */
template <int NDIM> struct heisenberg_index;
template <> struct heisenberg_index<3> {
    typedef unsigned int type;
};
template <> struct heisenberg_index<2> {
    typedef long long type;
};

/*
 * Old spins of plane p (unwrapped z; 0 in 2D) with the halo of two into `slot`, and with
 * jsmem its couplings. Every array of the slot has the same (row, pair) items, two floats
 * an item: L_x, x0 and the tile's width are even (Heisenberg lattices have even extents),
 * so a pair never straddles the periodic wrap in x and both of its addresses are 8-byte
 * aligned (float offsets: row strides and array sizes even). The block's threads take
 * consecutive items of an array, a warp 32 pairs (256 bytes) at a time; a thread finds
 * its item's place once (walked without a division) and copies it from every array, so
 * a copy costs a few instructions. ASYNC: as asynchronous copies (cp.async) of the
 * calling thread, completed by __pipeline_wait_prior.
 */
template <int NDIM, int NREP, bool ASYNC>
__device__ void heisenberg_load_plane(const cuda_heisenberg_geom &g, const float *__restrict__ src,
                                const float *__restrict__ J, const heisenberg_tile &t,
                                const heisenberg_walks &wk, float *sm, int p, int slot)
{
    typedef typename heisenberg_index<NDIM>::type idx_t;
    const int gz = NDIM == 3 ? heisenberg_wrap(p, g.lz) : 0;
    const int rh = t.h + 4, pairs = (t.w + 4) >> 1;
    const int per_array = rh * pairs;
    /* the plane's sites in global memory (3D: plane gz; 2D: the lattice) */
    const long long zoff = (long long)gz * g.ly * g.lx;
    const float *const spins = src + zoff, *const couplings = J + zoff;
    float *const slot_base = sm + (size_t)(slot * t.arrays) * (size_t)t.plane;
    const int nthreads = (int)blockDim.x;
    const int dly = wk.ldr, dm = wk.ldk;
    int ly = wk.lr, m = wk.lk;
    for (int f = (int)threadIdx.x; f < per_array; f += nthreads) {
        const int gy = heisenberg_wrap(t.y0 - 2 + ly, g.ly);
        const idx_t off = (idx_t)gy * (idx_t)g.lx + (idx_t)heisenberg_wrap(t.x0 - 2 + 2 * m, g.lx);
        float *const d = slot_base + ly * t.rs + 2 * m;
#pragma unroll
        for (int k = 0; k < 3 * NREP + NDIM; k++) {
            if (k >= 3 * NREP && !t.jsmem)
                break;
            const float *s = k < 3 * NREP ? spins + (long long)k * g.n
                                          : couplings + (long long)(k - 3 * NREP) * g.n;
            float2 *to = (float2 *)(d + k * t.plane);
            const float2 *from = (const float2 *)(s + off);
            if (ASYNC)
                __pipeline_memcpy_async(to, from, sizeof(float2));
            else
                *to = __ldg(from);
        }
        m += dm;
        ly += dly;
        if (m >= pairs) {
            m -= pairs;
            ly++;
        }
    }
}

/* A 16-byte asynchronous copy (cp.async.cg: through L2 only). */
__device__ __forceinline__ void heisenberg_copy16(float *to, const float *from)
{
    const unsigned int s = (unsigned int)__cvta_generic_to_shared(to);
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" ::"r"(s), "l"(from) : "memory");
}

/* heisenberg_load_plane's asynchronous copy in a float fixed-tile instance (TX x TY whole,
 * L_x a multiple of TX, the arrays 16-byte aligned): rows of TX + 8 floats, local x from
 * -2 (global x0 - 4) in 16-byte pieces, so each row of the slot holds TX + 8 floats and
 * the arrays start 2 floats past a 16-byte boundary (heisenberg_pass_tile's sm). */
template <int NREP, int TX, int TY>
__device__ void heisenberg_load_plane_wide(const cuda_heisenberg_geom &g,
                                           const float *__restrict__ src,
                                           const heisenberg_tile &t, float *sm, int p, int slot)
{
    constexpr int RS = TX + 8, PIECES = RS / 4, PLANE = (TY + 4) * RS;
    static_assert(TX % 4 == 0, "16-byte pieces");
    const int gz = heisenberg_wrap(p, g.lz);
    const float *const spins = src + (long long)gz * g.ly * g.lx;
    float *const slot_base = sm + (size_t)slot * (size_t)(3 * NREP) * PLANE - 2;
    for (int f = (int)threadIdx.x; f < (TY + 4) * PIECES; f += (int)blockDim.x) {
        const int row = f / PIECES, piece = f - row * PIECES;
        const int gy = heisenberg_wrap(t.y0 - 2 + row, g.ly);
        const int gx = heisenberg_wrap(t.x0 - 4 + 4 * piece, g.lx);
        const unsigned int off = (unsigned int)gy * (unsigned int)g.lx + (unsigned int)gx;
        float *const d = slot_base + row * RS + 4 * piece;
#pragma unroll
        for (int k = 0; k < 3 * NREP; k++)
            heisenberg_copy16(d + k * PLANE, spins + (long long)k * g.n + off);
    }
}

/* Plane p's asynchronous copy into `slot`: the wide pieces where WIDE (float fixed tiles). */
template <int NDIM, int NREP, int TX, int TY, bool WIDE>
__device__ __forceinline__ void heisenberg_copy_plane(const cuda_heisenberg_geom &g,
                                                      const cuda_heisenberg_pass_args &a,
                                                      const heisenberg_tile &t,
                                                      const heisenberg_walks &wk, float *sm,
                                                      int p, int slot)
{
    if (WIDE)
        heisenberg_load_plane_wide<NREP, (TX > 0 ? TX : 4), (TY > 0 ? TY : 2)>(g, a.src, t, sm,
                                                                              p, slot);
    else
        heisenberg_load_plane<NDIM, NREP, true>(g, a.src, a.J, t, wk, sm, p, slot);
}

/* The tile of plane p (< L_z), both colours, from `slot` to dst: (row, pair) items as in
 * heisenberg_load_plane, each written for every spin array. */
template <int NDIM, int NREP>
__device__ void heisenberg_write_plane(const cuda_heisenberg_geom &g, float *__restrict__ dst,
                                 const heisenberg_tile &t, const heisenberg_walks &wk, float *sm,
                                 int p, int slot)
{
    typedef typename heisenberg_index<NDIM>::type idx_t;
    const int pairs = t.w >> 1;
    const int per_array = t.h * pairs;
    /* the tile's first site in array 0 */
    float *const corner = dst + ((long long)p * g.ly + t.y0) * g.lx + t.x0;
    const float *const slot_base = sm + (size_t)(slot * t.arrays) * (size_t)t.plane + 2 * t.rs + 2;
    const int nthreads = (int)blockDim.x;
    const int dy = wk.hdr, dm = wk.hdk;
    int y = wk.hr, m = wk.hk;
    for (int f = (int)threadIdx.x; f < per_array; f += nthreads) {
        const idx_t off = (idx_t)y * (idx_t)g.lx + (idx_t)(2 * m);
        const float *const s = slot_base + y * t.rs + 2 * m;
#pragma unroll
        for (int rc = 0; rc < 3 * NREP; rc++)
            *(float2 *)(corner + (long long)rc * g.n + off) = *(const float2 *)(s + rc * t.plane);
        m += dm;
        y += dy;
        if (m >= pairs) {
            m -= pairs;
            y++;
        }
    }
}

/* The same write of plane p (3D) by the block's writer threads alone, wi = 0 .. nw - 1 of
 * them, in a fixed-tile instance (TX x TY whole: the pairs' places by shifts; rows of TX + PAD
 * floats, heisenberg_pass_tile's t.rs): the threads
 * that a TX x TY tile's colour-1 step leaves idle (heisenberg_pass_tile). */
template <int NREP, int TX, int TY, int PAD>
__device__ void heisenberg_write_plane_fixed(const cuda_heisenberg_geom &g,
                                             float *__restrict__ dst, const heisenberg_tile &t,
                                             const float *sm, int p, int slot, int wi, int nw)
{
    constexpr int PAIRS = TX / 2, RS = TX + PAD, PLANE = (TY + 4) * RS;
    static_assert((PAIRS & (PAIRS - 1)) == 0, "a row's pairs: a power of two");
    float *const corner = dst + ((long long)p * g.ly + t.y0) * g.lx + t.x0;
    const float *const slot_base = sm + (size_t)slot * (size_t)t.arrays * PLANE + 2 * RS + 2;
    for (int f = wi; f < TY * PAIRS; f += nw) {
        const int y = f / PAIRS, m = f % PAIRS;
        const unsigned int off = (unsigned int)y * (unsigned int)g.lx + (unsigned int)(2 * m);
        const float *const s = slot_base + y * RS + 2 * m;
#pragma unroll
        for (int rc = 0; rc < 3 * NREP; rc++)
            *(float2 *)(corner + (long long)rc * g.n + off) = *(const float2 *)(s + rc * PLANE);
    }
}

/*
 * Update the sites of colour `colour` of plane p (unwrapped z; 0 in 2D) in `sl0`, whose
 * planes below and above are in slm and slp, on local rows [ly0, ly0 + nrows): the tile's
 * columns and, with halo_columns, the one of local x = 1, w + 2 that has the colour.
 * Items: first the tile's columns, nrows x w/2 sites row by row (padded to whole warps),
 * then the halo columns, one site per row. A thread's tile items are walked without a
 * division (row r, pair k advanced by the block's size); the plane's global offsets are
 * taken once per call, the sites' offsets inside it in 32 bits (3D).
 */
template <typename R, int NDIM, int NREP, bool HB>
__device__ void heisenberg_colour(const cuda_heisenberg_geom &g, const cuda_heisenberg_pass_args &a,
                                  const heisenberg_tile &t, const heisenberg_walks &wk, float *sm,
                                  int colour, int p, int slm, int sl0, int slp, int ly0, int nrows,
                                  bool halo_columns, bool share)
{
    typedef typename heisenberg_index<NDIM>::type idx_t;
    const int half_w = t.w / 2;
    const int n_tile = nrows * half_w;
    const int n_tile_pad = (n_tile + 31) & ~31;
    const int n_items = n_tile_pad + (halo_columns ? nrows : 0);
    const int gz = NDIM == 3 ? heisenberg_wrap(p, g.lz) : 0;
    const long long n = g.n;
    const idx_t lx_g = (idx_t)g.lx;
    const long long plane_sites = (long long)g.lx * g.ly;
    /* couplings J_mu of this plane (3D; 2D: of the lattice) and J_z of the plane below */
    const float *jx = a.J + (NDIM == 3 ? (long long)gz * plane_sites : 0);
    const float *jy = jx + n;
    const float *jz = jx + 2 * n;
    const float *jzb = a.J + 2 * n + (long long)(gz == 0 ? g.lz - 1 : gz - 1) * plane_sites;
    const idx_t y_wrap = (idx_t)(g.ly - 1) * lx_g; /* from row 0 to row L_y - 1 */
    /* 3D: a site's index in the whole lattice (its draws' name) is rng_base plus its offset
     * in the plane (a box's plane p is plane cut0 + p of the lattice; one device: p) */
    const unsigned long long rng_base =
        NDIM == 3 ? (unsigned long long)heisenberg_wrap(p + g.cut0, g.lcut) *
                        (unsigned long long)plane_sites
                  : 0;
    const R beta = (R)a.beta, hfield = (R)a.h;
    const int q_lane = (int)(threadIdx.x & 3u);
    /* the slots' spin arrays (component c of replica rep: + (3 rep + c) t.plane) */
    float *const s0 = sm + (size_t)(sl0 * t.arrays) * (size_t)t.plane;
    float *const sp = sm + (size_t)(slp * t.arrays) * (size_t)t.plane;
    float *const smn = sm + (size_t)(slm * t.arrays) * (size_t)t.plane;
    const float *const jsm0 = s0 + t.nspin * t.plane;  /* jsmem: J_mu of slot sl0 */
    const float *const jsmm = smn + t.nspin * t.plane; /* and of slot slm */
    /* the colour's parity on local row ly0 (tile items: lx = 2 + 2 k + (par0 + r) mod 2) */
    const int par0 = (colour + t.x0 + (t.y0 - 2 + ly0) + p + g.cut0) & 1;
    const int nthreads = (int)blockDim.x;
    const int dr = wk.hdr, dk = wk.hdk;
    int r_next = wk.hr, k_next = wk.hk;

    for (int base = 0; base < n_items; base += nthreads) {
        const int it = base + (int)threadIdx.x;
        const bool in_tile = it < n_tile_pad; /* the same for a whole warp */
        const int r_tile = r_next, k_tile = k_next;
        k_next += dk;
        r_next += dr;
        if (k_next >= half_w) {
            k_next -= half_w;
            r_next++;
        }
        bool active;
        int lx, ly;
        if (in_tile) {
            active = it < n_tile;
            const int r = active ? r_tile : 0;
            ly = ly0 + r;
            lx = 2 + 2 * (active ? k_tile : 0) + ((par0 + r) & 1);
        } else {
            /* past the last item where there are no halo columns: idle */
            const int r = it - n_tile_pad;
            active = halo_columns && r < nrows;
            ly = ly0 + (active ? r : 0);
            lx = ((t.x0 - 1 + (t.y0 - 2 + ly) + p + g.cut0 + colour) & 1) == 0 ? 1 : t.w + 2;
        }
        const int gx = heisenberg_wrap(t.x0 - 2 + lx, g.lx),
                  gy = heisenberg_wrap(t.y0 - 2 + ly, g.ly);
        /* the site's offset in its plane (2D: the lattice) */
        const idx_t o = (idx_t)gy * lx_g + (idx_t)gx;

        /* couplings: forward J_{i,mu}, backward J_{i - e_mu, mu}; loaded before the heat
         * bath's draws, whose arithmetic then covers the loads' latency (an idle item's
         * place is a site of the tile: its loads are in bounds) */
        const int at = ly * t.rs + lx;
        float jf[3] = { 0.0f, 0.0f, 0.0f }, jb[3] = { 0.0f, 0.0f, 0.0f };
        if (t.jsmem) {
            jf[0] = jsm0[at];
            jb[0] = jsm0[at - 1];
            jf[1] = jsm0[t.plane + at];
            jb[1] = jsm0[t.plane + at - t.rs];
            if (NDIM == 3) {
                jf[2] = jsm0[2 * t.plane + at];
                jb[2] = jsmm[2 * t.plane + at];
            }
        } else {
            /* the neighbours' offsets on pointers, not on the 32-bit offset o (whose
             * unsigned wrap the compiler must keep: an address computed a load) */
            const float *const px = jx + o, *const py = jy + o;
            jf[0] = __ldg(px);
            jb[0] = __ldg(gx == 0 ? px + (lx_g - 1) : px - 1);
            jf[1] = __ldg(py);
            jb[1] = __ldg(gy == 0 ? py + y_wrap : py - lx_g);
            if (NDIM == 3) {
                jf[2] = __ldg(jz + o);
                jb[2] = __ldg(jzb + o);
            }
        }
        /* draws: d[2 rep + sub], sub 0 cos theta, sub 1 azimuth */
        uint32_t d[4] = { 0, 0, 0, 0 };
        if (HB) {
            /* the site's index in the whole lattice (2D: a box's row cut0 + y): names its
             * draws */
            const unsigned long long i_rng =
                NDIM == 3 ? rng_base + (unsigned long long)o
                          : (unsigned long long)heisenberg_wrap(t.y0 - 2 + ly + g.cut0, g.lcut) *
                                    (unsigned long long)g.lx +
                                (unsigned long long)gx;
            const uint64_t j = (uint64_t)i_rng >> 1;
            const uint64_t block = j >> 2;
            const int q = (int)(j & 3u);
            if (in_tile && share) {
                const latmc_philox_ctr v = heisenberg_rng_block(
                    a.seed, block, a.sweep,
                    latmc_rng_stream(LATMC_STREAM_UPDATE, (uint32_t)(q_lane >> 1)),
                    (uint32_t)colour, (uint32_t)(q_lane & 1));
                heisenberg_share_draws(v, q_lane, d);
            } else if (active) {
#pragma unroll
                for (int rep = 0; rep < NREP; rep++) {
                    const uint32_t stream = latmc_rng_stream(LATMC_STREAM_UPDATE, (uint32_t)rep);
                    d[2 * rep] = heisenberg_word(
                        heisenberg_rng_block(a.seed, block, a.sweep, stream, (uint32_t)colour, 0),
                        q);
                    d[2 * rep + 1] = heisenberg_word(
                        heisenberg_rng_block(a.seed, block, a.sweep, stream, (uint32_t)colour, 1),
                        q);
                }
            }
        }
        if (!active)
            continue;

        /* every replica's field (and overrelaxation's old spin) first, then their new
         * spins: no store between the replicas' loads, so their chains interleave */
        R field[NREP][3];
        float3 old[NREP];
#pragma unroll
        for (int rep = 0; rep < NREP; rep++) {
            const float *own[3];
            for (int c = 0; c < 3; c++) {
                own[c] = s0 + (rep * 3 + c) * t.plane + at;
                field[rep][c] = R(0);
            }
            /* for mu = x, y, z: the forward term, then the backward one (the CPU's order) */
#pragma unroll
            for (int mu = 0; mu < NDIM; mu++) {
                const R f = (R)jf[mu], b = (R)jb[mu];
#pragma unroll
                for (int c = 0; c < 3; c++) {
                    float sf, sb;
                    if (mu == 0) {
                        sf = own[c][1];
                        sb = own[c][-1];
                    } else if (mu == 1) {
                        sf = own[c][t.rs];
                        sb = own[c][-t.rs];
                    } else {
                        sf = sp[(rep * 3 + c) * t.plane + at];
                        sb = smn[(rep * 3 + c) * t.plane + at];
                    }
                    field[rep][c] = heisenberg_field_term(field[rep][c], f, sf);
                    field[rep][c] = heisenberg_field_term(field[rep][c], b, sb);
                }
            }
            field[rep][2] += hfield;
            if (!HB)
                old[rep] = make_float3(*own[0], *own[1], *own[2]);
        }
#pragma unroll
        for (int rep = 0; rep < NREP; rep++) {
            float3 s;
            if (HB)
                s = heisenberg_heatbath(field[rep], beta,
                                        heisenberg_uniform(d[2 * rep], R(0)),
                                        heisenberg_uniform(d[2 * rep + 1], R(0)));
            else
                s = heisenberg_overrelax(field[rep], old[rep]);
            float *const own0 = s0 + rep * 3 * t.plane + at;
            own0[0] = s.x;
            own0[t.plane] = s.y;
            own0[2 * t.plane] = s.z;
        }
    }
}

/*
 * Registers per thread, capped so that more blocks share an SM (a register cap does not
 * limit the threads per block as __launch_bounds__ would). Two replicas in 3D in float:
 * their default tiles' shared memory (cuda_heisenberg_geometry.c) allows two blocks per
 * SM, of 320 threads each, which 96 registers allow: overrelaxation takes them without a
 * spill in the fixed-tile instance (uncapped, the replicas' interleaved chains took 120:
 * one block an SM), heat bath 110 uncapped, capped at 96 with a few spilled bytes in the
 * generic instance (on an H200 1.04x slower than with 128 at 256 threads, 1.08x faster at
 * 320; with 80, 1.17x slower, doc/PERFORMANCE.md). Otherwise in float:
 * overrelaxation 64 (four blocks of 256 threads per SM), heat bath 80 (three: in 3D with
 * one replica about 50 bytes spilled); double overrelaxation 80 (its speed turns on its
 * register allocation: 72, 96 and 128 were slower), double heat bath 128 (~140 uncapped:
 * one block per SM).
 */
#define HEISENBERG_MAXNREG(R, NDIM, NREP, HB)                                                    \
    (sizeof(R) == 4 ? ((NDIM) == 3 && (NREP) == 2 ? 96 : (HB) ? 80 : 64)                   \
                    : ((HB) ? 128 : 80))

/* The pass of the block's tile (blockIdx.x) and, in 3D, chunk of planes (blockIdx.y) of the
 * lattice of `a`: the pass kernel's body, the one-lattice kernel's and the batch's. TX > 0:
 * the geometry's tiles are TX x TY, every tile whole (L_x, L_y multiples of them; 3D), the
 * next plane prefetched and the couplings read from global memory
 * (heisenberg_fixed_tile), so that the tile's strides and shared-memory offsets are
 * constants of the code rather than registers. */
template <typename R, int NDIM, int NREP, bool HB, int TX = 0, int TY = 0>
__device__ __forceinline__ void heisenberg_pass_tile(const cuda_heisenberg_geom &g,
                                                     const cuda_heisenberg_pass_args &a)
{
    static_assert(TX == 0 || NDIM == 3, "fixed tiles: 3D");
    constexpr bool FIXED = TX > 0;
    /* float fixed tiles: rows of TX + 8 floats from local x = -2, 16-byte aligned there
     * (heisenberg_load_plane_wide; in double the larger slots cost a block an SM) */
    constexpr bool WIDE = FIXED && sizeof(R) == 4;
    constexpr int PAD = WIDE ? 8 : 4; /* a slot's row: the tile's width + PAD floats */
    extern __shared__ float4 sm_block[];
    float *const sm = (float *)sm_block + (WIDE ? 2 : 0);
    heisenberg_tile t;
    const int tile = (int)blockIdx.x;
    const int tx = FIXED ? TX : g.tx, ty = FIXED ? TY : g.ty;
    const int bx = tile % g.tiles_x, by = tile / g.tiles_x;
    t.x0 = bx * tx;
    /* the own planes [own0, own0 + own_n) of the last axis: z in 3D, y in 2D */
    t.y0 = (NDIM == 3 ? 0 : g.own0) + by * ty;
    t.z0 = NDIM == 3 ? g.own0 + (int)blockIdx.y * g.zc : 0;
    t.w = FIXED ? TX : min(g.tx, g.lx - t.x0);
    t.h = FIXED ? TY : min(g.ty, (NDIM == 3 ? g.ly : g.own0 + g.own_n) - t.y0);
    t.zn = NDIM == 3 ? min(g.zc, g.own0 + g.own_n - t.z0) : 1;
    t.rs = tx + PAD;
    t.plane = (ty + 4) * t.rs;
    const bool prefetch = FIXED || g.prefetch;
    t.slots = NDIM == 3 ? (prefetch ? 5 : 4) : 1;
    t.nspin = 3 * NREP;
    t.jsmem = !FIXED && g.jsmem;
    t.arrays = t.nspin + (t.jsmem ? NDIM : 0);
    const bool share = HB && g.lx % 8 == 0 && g.tx % 8 == 0;
    const heisenberg_walks wk = heisenberg_walks_of(t);

    if (NDIM == 2) {
        heisenberg_load_plane<NDIM, NREP, false>(g, a.src, a.J, t, wk, sm, 0, 0);
        __syncthreads();
        heisenberg_colour<R, NDIM, NREP, HB>(g, a, t, wk, sm, 0, 0, 0, 0, 0, 1, t.h + 2, true,
                                             share);
        __syncthreads();
        heisenberg_colour<R, NDIM, NREP, HB>(g, a, t, wk, sm, 1, 0, 0, 0, 0, 2, t.h, false,
                                             share);
        __syncthreads();
        heisenberg_write_plane<NDIM, NREP>(g, a.dst, t, wk, sm, 0, 0);
    } else {
        /* Planes z0 - 2 .. z0 + zn + 1; plane p in slot (p + S) mod S (p >= -2), slot_p
         * plane p's, moved on with p. Step p: colour 0 of plane p (tile and halo) from old planes
         * p - 1 .. p + 1, then colour 1 of plane p - 1 from the new colour 0 of p - 2 .. p,
         * and plane p - 1 out. With prefetch (5 slots) plane p + 2 is copied in
         * asynchronously meanwhile; else plane p + 1 is loaded at the start of the step (4
         * slots). Delayed writes (fixed tiles, whole warps past the colour-1 step's TX TY / 2
         * items): those warps write plane p - 2 while the others update colour 1 of p - 1
         * (both only read p - 2's slot), in place of a write by every thread after a
         * barrier; the barrier moves to the next step's start, before its copy into that
         * slot; the last plane is written after the loop. Two replicas only: in the
         * one-replica instances the writers' code made the heat bath spill (44 bytes; 57.1
         * against 50.7 ps per update at 256^3 on an H200, overrelaxation 19.2 against
         * 18.9), where two replicas gained (float 1.005x, double overrelaxation 1.13x);
         * not the double heat bath, whose 128 threads leave no warp idle. */
        const int S = t.slots;
        const int last = t.z0 + t.zn + 1; /* the last plane needed */
        int slot_p = (t.z0 - 1 + S) % S; /* the slot of plane z0 - 1, the first step's */
        constexpr int N1 = TX * TY / 2; /* the colour-1 step's items (fixed tiles) */
        constexpr bool DELAY = FIXED && NREP == 2 && !(HB && sizeof(R) == 8);
        const bool delayed = DELAY && (int)blockDim.x >= N1 + 32;
        if (prefetch) {
            for (int d = -1; d <= 1; d++) {
                heisenberg_copy_plane<NDIM, NREP, TX, TY, WIDE>(g, a, t, wk, sm, t.z0 - 1 + d,
                                                          heisenberg_slot(slot_p, d, S));
                __pipeline_commit();
            }
        } else {
            heisenberg_load_plane<NDIM, NREP, false>(g, a.src, a.J, t, wk, sm, t.z0 - 2,
                                                     heisenberg_slot(slot_p, -1, S));
            heisenberg_load_plane<NDIM, NREP, false>(g, a.src, a.J, t, wk, sm, t.z0 - 1,
                                                     slot_p);
        }
        for (int p = t.z0 - 1; p <= t.z0 + t.zn; p++) {
            if (delayed && p > t.z0 - 1)
                __syncthreads(); /* the last step's writes of the slot loaded next */
            if (prefetch) {
                if (p + 2 <= last)
                    heisenberg_copy_plane<NDIM, NREP, TX, TY, WIDE>(g, a, t, wk, sm, p + 2,
                                                              heisenberg_slot(slot_p, 2, S));
                __pipeline_commit();
                __pipeline_wait_prior(1); /* this thread's copies of planes up to p + 1 */
            } else {
                heisenberg_load_plane<NDIM, NREP, false>(g, a.src, a.J, t, wk, sm, p + 1,
                                                         heisenberg_slot(slot_p, 1, S));
            }
            const int s_m2 = heisenberg_slot(slot_p, -2, S);
            const int s_m1 = heisenberg_slot(slot_p, -1, S);
            const int s_p1 = heisenberg_slot(slot_p, 1, S);
            __syncthreads();
            heisenberg_colour<R, NDIM, NREP, HB>(g, a, t, wk, sm, 0, p, s_m1, slot_p, s_p1, 1,
                                                 t.h + 2, true, share);
            __syncthreads();
            if (p - 1 >= t.z0 && delayed) {
                if ((int)threadIdx.x < N1)
                    heisenberg_colour<R, NDIM, NREP, HB>(g, a, t, wk, sm, 1, p - 1, s_m2,
                                                         s_m1, slot_p, 2, t.h, false, share);
                else if (p - 2 >= t.z0)
                    heisenberg_write_plane_fixed<NREP, FIXED ? TX : 2, FIXED ? TY : 2, PAD>(
                        g, a.dst, t, sm, p - 2, s_m2, (int)threadIdx.x - N1,
                        (int)blockDim.x - N1);
            } else if (p - 1 >= t.z0) {
                heisenberg_colour<R, NDIM, NREP, HB>(g, a, t, wk, sm, 1, p - 1, s_m2, s_m1,
                                                     slot_p, 2, t.h, false, share);
                __syncthreads();
                heisenberg_write_plane<NDIM, NREP>(g, a.dst, t, wk, sm, p - 1, s_m1);
            }
            slot_p = s_p1;
        }
        if (delayed) { /* the last plane, z0 + zn - 1, two behind slot_p's now */
            __syncthreads();
            heisenberg_write_plane<NDIM, NREP>(g, a.dst, t, wk, sm, t.z0 + t.zn - 1,
                                               heisenberg_slot(slot_p, -2, S));
        }
    }
    if (HB && threadIdx.x == 0)
        atomicAdd(a.count, (unsigned long long)NREP * (unsigned long long)t.w *
                               (unsigned long long)t.h * (unsigned long long)t.zn);
}

template <typename R, int NDIM, int NREP, bool HB, int TX = 0, int TY = 0>
__global__ void __maxnreg__(HEISENBERG_MAXNREG(R, NDIM, NREP, HB))
heisenberg_pass_kernel(const cuda_heisenberg_geom g, const cuda_heisenberg_pass_args a)
{
    heisenberg_pass_tile<R, NDIM, NREP, HB, TX, TY>(g, a);
}

/* The same pass of lattice blockIdx.z of a batch (members[blockIdx.z]: src and dst swapped
 * where `swap`; sweep and count the launch's): the ensembles' members too large for their
 * whole sweeps in one block (heisenberg/cuda_heisenberg_batch.c). */
template <typename R, int NDIM, int NREP, bool HB, int TX = 0, int TY = 0>
__global__ void __maxnreg__(HEISENBERG_MAXNREG(R, NDIM, NREP, HB))
heisenberg_pass_batch_kernel(const cuda_heisenberg_geom g,
                             const cuda_heisenberg_pass_args *__restrict__ members, int swap,
                             uint64_t sweep, unsigned long long *count)
{
    const cuda_heisenberg_pass_args &m = members[blockIdx.z];
    cuda_heisenberg_pass_args a = m;
    if (swap) {
        a.src = m.dst;
        a.dst = (float *)m.src;
    }
    a.sweep = sweep;
    a.count = count;
    heisenberg_pass_tile<R, NDIM, NREP, HB, TX, TY>(g, a);
}

/* ---- launchers ---- */

typedef void (*heisenberg_pass_fn)(const cuda_heisenberg_geom, const cuda_heisenberg_pass_args);

/* The default geometries in 3D (cuda_heisenberg_geometry.c) on a lattice their tiles cover
 * whole: the kernels with the tile's constants (heisenberg_pass_tile's TX, TY). Two
 * replicas: float 32 x 16, double 32 x 8 (both passes); one replica in float:
 * overrelaxation 64 x 8, 32 x 8 (heat bath's; overrelaxation's where L_x <= 32). 0: none;
 * else the instance's number below. */
static int heisenberg_fixed_tile(const struct cuda_heisenberg_geom *g, int dbl, int heatbath)
{
    static const struct {
        int dbl, nrep, hb, tx, ty; /* hb -1: either pass */
    } fixed[] = {
        { 0, 2, -1, 32, 16 }, { 1, 2, -1, 32, 8 }, { 0, 1, 0, 64, 8 }, { 0, 1, -1, 32, 8 },
    };
    if (g->ndim != 3 || !g->prefetch || g->jsmem)
        return 0;
    for (int k = 0; k < (int)(sizeof fixed / sizeof fixed[0]); k++)
        if (fixed[k].dbl == dbl && fixed[k].nrep == g->nrep &&
            (fixed[k].hb < 0 || fixed[k].hb == !!heatbath) && fixed[k].tx == g->tx &&
            fixed[k].ty == g->ty && g->lx % g->tx == 0 && g->ly % g->ty == 0)
            return k + 1;
    return 0;
}

/* The kernel for (double?, ndim, nrep, heat bath?), and for geometry g (fixed tiles). */
static heisenberg_pass_fn heisenberg_pass_kernel_of(int dbl, int ndim, int nrep, int heatbath,
                                                    const struct cuda_heisenberg_geom *g)
{
    switch (heisenberg_fixed_tile(g, dbl, heatbath)) {
    case 1:
        return heatbath ? (heisenberg_pass_fn)heisenberg_pass_kernel<float, 3, 2, true, 32, 16>
                        : (heisenberg_pass_fn)heisenberg_pass_kernel<float, 3, 2, false, 32, 16>;
    case 2:
        return heatbath ? (heisenberg_pass_fn)heisenberg_pass_kernel<double, 3, 2, true, 32, 8>
                        : (heisenberg_pass_fn)heisenberg_pass_kernel<double, 3, 2, false, 32, 8>;
    case 3:
        return (heisenberg_pass_fn)heisenberg_pass_kernel<float, 3, 1, false, 64, 8>;
    case 4:
        return heatbath ? (heisenberg_pass_fn)heisenberg_pass_kernel<float, 3, 1, true, 32, 8>
                        : (heisenberg_pass_fn)heisenberg_pass_kernel<float, 3, 1, false, 32, 8>;
    default:
        break;
    }
#define HEISENBERG_PICK(R, D, N)                                                                   \
    (heatbath ? (heisenberg_pass_fn)heisenberg_pass_kernel<R, D, N, true>                          \
              : (heisenberg_pass_fn)heisenberg_pass_kernel<R, D, N, false>)
    if (dbl) {
        if (ndim == 3)
            return nrep == 2 ? HEISENBERG_PICK(double, 3, 2) : HEISENBERG_PICK(double, 3, 1);
        return nrep == 2 ? HEISENBERG_PICK(double, 2, 2) : HEISENBERG_PICK(double, 2, 1);
    }
    if (ndim == 3)
        return nrep == 2 ? HEISENBERG_PICK(float, 3, 2) : HEISENBERG_PICK(float, 3, 1);
    return nrep == 2 ? HEISENBERG_PICK(float, 2, 2) : HEISENBERG_PICK(float, 2, 1);
#undef HEISENBERG_PICK
}

typedef void (*heisenberg_batch_fn)(const cuda_heisenberg_geom,
                                    const cuda_heisenberg_pass_args *, int, uint64_t,
                                    unsigned long long *);

/* The batch's kernel for (double?, ndim, heat bath?) and geometry g: one replica a lattice,
 * the one-lattice kernel's fixed tiles where g's are one of them. */
static heisenberg_batch_fn heisenberg_batch_kernel_of(int dbl, int ndim, int heatbath,
                                                      const struct cuda_heisenberg_geom *g)
{
    switch (heisenberg_fixed_tile(g, dbl, heatbath)) {
    case 3:
        return (heisenberg_batch_fn)heisenberg_pass_batch_kernel<float, 3, 1, false, 64, 8>;
    case 4:
        return heatbath
                   ? (heisenberg_batch_fn)heisenberg_pass_batch_kernel<float, 3, 1, true, 32, 8>
                   : (heisenberg_batch_fn)heisenberg_pass_batch_kernel<float, 3, 1, false, 32, 8>;
    default:
        break;
    }
#define HEISENBERG_PICK(R, D)                                                                      \
    (heatbath ? (heisenberg_batch_fn)heisenberg_pass_batch_kernel<R, D, 1, true>                   \
              : (heisenberg_batch_fn)heisenberg_pass_batch_kernel<R, D, 1, false>)
    if (dbl)
        return ndim == 3 ? HEISENBERG_PICK(double, 3) : HEISENBERG_PICK(double, 2);
    return ndim == 3 ? HEISENBERG_PICK(float, 3) : HEISENBERG_PICK(float, 2);
#undef HEISENBERG_PICK
}

extern "C" size_t cuda_heisenberg_smem_bytes(const struct cuda_heisenberg_geom *g)
{
    const size_t slots = g->ndim == 3 ? (g->prefetch ? 5 : 4) : 1;
    const size_t arrays = 3 * (size_t)g->nrep + (g->jsmem ? (size_t)g->ndim : 0);
    /* rows of tx + 8 floats where a float fixed-tile instance may run
     * (heisenberg_load_plane_wide) */
    const bool wide = heisenberg_fixed_tile(g, 0, 0) != 0 || heisenberg_fixed_tile(g, 0, 1) != 0;
    const size_t row = (size_t)g->tx + (wide ? 8 : 4);
    return slots * arrays * (size_t)(g->ty + 4) * row * sizeof(float);
}

/* Kernel fn launchable with g's threads and shared memory where it can: *limit_threads and
 * *limit_smem lowered to what it takes, *fits false where g asks more. */
static cudaError_t prepare_kernel(const void *fn, const struct cuda_heisenberg_geom *g, int optin,
                                  int *limit_threads, size_t *limit_smem, bool *fits)
{
    struct cudaFuncAttributes attr;
    cudaError_t err = cudaFuncGetAttributes(&attr, fn);
    if (err != cudaSuccess)
        return err;
    if (attr.maxThreadsPerBlock < *limit_threads)
        *limit_threads = attr.maxThreadsPerBlock;
    const size_t room = (size_t)optin > attr.sharedSizeBytes
                            ? (size_t)optin - attr.sharedSizeBytes : 0;
    if (room < *limit_smem)
        *limit_smem = room;
    if (g->threads > attr.maxThreadsPerBlock || g->smem > room) {
        *fits = false;
        return cudaSuccess;
    }
    /* the device's whole opt-in, not g->smem: the attribute belongs to the kernel, and
     * another sim of the process may use a larger geometry */
    return cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)room);
}

extern "C" cudaError_t cuda_heisenberg_prepare(const struct cuda_heisenberg_geom *g,
                                               int *limit_threads, size_t *limit_smem)
{
    int device = 0, optin = 0;
    cudaError_t err = cudaGetDevice(&device);
    if (err == cudaSuccess)
        err = cuda_device_smem_optin(device, &optin);
    if (err != cudaSuccess)
        return err;
    *limit_threads = 1024;
    *limit_smem = (size_t)optin;
    bool fits = true;
    for (int dbl = 0; dbl < 2 && err == cudaSuccess; dbl++)
        for (int hb = 0; hb < 2 && err == cudaSuccess; hb++) {
            err = prepare_kernel((const void *)heisenberg_pass_kernel_of(dbl, g->ndim, g->nrep,
                                                                         hb, g),
                                 g, optin, limit_threads, limit_smem, &fits);
            /* one replica: the batch's kernel too (the same code and shared memory) */
            if (err == cudaSuccess && g->nrep == 1)
                err = prepare_kernel((const void *)heisenberg_batch_kernel_of(dbl, g->ndim, hb,
                                                                              g),
                                     g, optin, limit_threads, limit_smem, &fits);
        }
    if (err != cudaSuccess)
        return err;
    return fits ? cudaSuccess : cudaErrorInvalidConfiguration;
}

extern "C" cudaError_t cuda_heisenberg_pass(cudaStream_t stream,
                                            const struct cuda_heisenberg_geom *g,
                                            const struct cuda_heisenberg_pass_args *a, int dbl,
                                            int heatbath)
{
    /* the tile copies move pairs of floats (heisenberg_load_plane), in the float fixed-tile
     * instances 16-byte pieces of the spins (heisenberg_load_plane_wide: a box's buffers
     * are its own allocation, their arrays whole planes of L_x a multiple of 32 floats) */
    if ((((uintptr_t)a->src | (uintptr_t)a->dst | (uintptr_t)a->J) & 7u) != 0 || g->lx % 2 != 0 ||
        (!dbl && heisenberg_fixed_tile(g, dbl, heatbath) && ((uintptr_t)a->src & 15u) != 0))
        return cudaErrorMisalignedAddress;
    const heisenberg_pass_fn fn = heisenberg_pass_kernel_of(dbl, g->ndim, g->nrep, heatbath, g);
    const dim3 grid((unsigned)(g->tiles_x * g->tiles_y), (unsigned)g->chunks_z);
    fn<<<grid, (unsigned)g->threads, g->smem, stream>>>(*g, *a);
    return cudaGetLastError();
}

extern "C" cudaError_t cuda_heisenberg_pass_batch(cudaStream_t stream,
                                                  const struct cuda_heisenberg_geom *g,
                                                  const struct cuda_heisenberg_pass_args *members,
                                                  int n_members, int swap, uint64_t sweep,
                                                  unsigned long long *count, int dbl,
                                                  int heatbath)
{
    if (g->nrep != 1 || g->lx % 2 != 0)
        return cudaErrorInvalidValue;
    const heisenberg_batch_fn fn = heisenberg_batch_kernel_of(dbl, g->ndim, heatbath, g);
    /* at most 65535 lattices a grid (its z extent) */
    for (int m0 = 0; m0 < n_members; m0 += 65535) {
        const int k = n_members - m0 < 65535 ? n_members - m0 : 65535;
        const dim3 grid((unsigned)(g->tiles_x * g->tiles_y), (unsigned)g->chunks_z, (unsigned)k);
        fn<<<grid, (unsigned)g->threads, g->smem, stream>>>(*g, members + m0, swap, sweep, count);
        const cudaError_t err = cudaGetLastError();
        if (err != cudaSuccess)
            return err;
    }
    return cudaSuccess;
}

/* ---- the cold start ---- */

__global__ void heisenberg_cold_start_kernel(float *spins, long long n, int nrep)
{
    for (long long i = cuda_first_item(); i < n; i += cuda_item_stride())
        for (int r = 0; r < nrep; r++) {
            spins[(3 * r + 0) * n + i] = 0.0f;
            spins[(3 * r + 1) * n + i] = 0.0f;
            spins[(3 * r + 2) * n + i] = 1.0f;
        }
}

extern "C" cudaError_t cuda_heisenberg_cold_start(cudaStream_t stream, float *spins, long long n,
                                            int nrep)
{
    heisenberg_cold_start_kernel<<<cuda_grid(n), CUDA_THREADS, 0, stream>>>(spins, n, nrep);
    return cudaGetLastError();
}
