/*
 * Swendsen-Wang's kernels on one box holding the whole lattice (cuda_sw.h). Grid-stride
 * loops; a site is a 32-bit index (the core refuses cluster updates on 2^32 sites or
 * more). The bonds, the flattening, the decisions and the flip take four sites a thread
 * where the own sites allow words (sw_grouped, sw_words), their bytes read as one word and
 * their labels as one uint4, so that a thread keeps several loads in flight (one site a
 * thread left these kernels waiting on latency); else one site a thread. The tiles' pass
 * is in 3D one site a thread, a block a tile at a time, in 2D a warp a tile, a lane a
 * column (four waves of blocks, each walking tiles: sw_tile_grid); the union pass a
 * thread per tile edge site.
 *
 * The labelling is union-find with atomicMin (the label-equivalence scheme of Komura and
 * Okabe, in the block-local form of Playne and Hawick): parents only ever point to
 * smaller sites, a union hangs the larger of the two roots under the smaller with
 * atomicMin and retries from the value it displaced, so once every bond is joined each
 * tree's root is its smallest site whatever order the threads ran in. Three passes:
 *   1. tiles (32 x 32 sites in 2D, a warp each; 16 x 4 x 4 in 3D, a block each): the
 *      bonds inside a tile joined in shared memory, every site's parent then its
 *      tile-local root's global index (the tile's order of sites is the lattice's, so a
 *      local root, the smallest local index of its piece, is its smallest site; the runs
 *      along x from warp ballots, sw_tile_rows_kernel, sw_tile_kernel);
 *   2. the bonds that leave a tile (and the wraps) joined in global memory, a thread per
 *      site that can hold one (edge_slots);
 *   3. the tiles' roots flattened to their clusters' roots; every other site's parent is
 *      its tile's root, so its cluster's name is two reads away (labels[labels[i]]).
 * The decisions are drawn at the clusters' roots only and kept in their bonds bytes; the
 * flip reads them there. A box alone without a field flattens in the flip's first pass,
 * which draws the decisions too (sw_settle4_kernel: cuda_sw_link, cuda_sw_settle_flip).
 * The bonds: four sites a thread, whose draws are whole blocks (where L_x is a multiple
 * of 4, the neighbours' spins as words: sw_bonds_rows_kernel). A find reads the parents
 * around L1 (__ldcg): a stale parent is a smaller site of the same cluster (in pass 2 not
 * always an ancestor: see unite_from_in; in pass 3, the forest fixed, an ancestor), so a
 * find always ends, and the atomicMin's old value tells a union whether it won; a union
 * steps its two finds together (unite_from_in).
 *
 * A box of several (cuda_sw_box.wrap = 0) runs the same passes on its own planes only,
 * never across its faces along the last axis: the labels are local sites, a piece's root
 * its smallest local site, which is its smallest global site too (the own planes do not
 * wrap). Its pieces that reach a face are joined with the other boxes' by
 * cuda_sw_faces.cu.
 */
#include <stdint.h>

#include "cluster_bonds.h"
#include "cuda_launch.cuh"
#include "cuda_sw.h"
#include "cuda_sw_device.cuh"

/* Bit 7 of a site's bonds byte: the site is the root of its tile's piece (pass 1), and
 * after the decisions a cluster's root keeps its decision in its byte (1: keep). */
#define SW_TILE_ROOT 0x80u
#define SW_BOND_BITS 0x07u
#define SW_TILE_ROOTS 0x80808080u /* the marks of four sites' bytes in a word */
/* Blocks of the counting flip kernel: a few per SM of any current GPU, enough to fill it. */
#define SW_COUNT_BLOCKS 2048u

/* The draws of word k (sw_bonds_kernel's comment): the ND whole Philox blocks from
 * ND (g0 / 4 + k) on, lane m & 3 of block m >> 2 the draw of the word's bond m. */
template <int ND>
__device__ __forceinline__ void word_draws(const struct cuda_sw_box &b, uint64_t seed,
                                           struct latmc_rng_name name, uint64_t k,
                                           latmc_philox_ctr c[ND])
{
#pragma unroll
    for (int q = 0; q < ND; q++)
        c[q] = latmc_rng_name_block(seed, name, (uint64_t)ND * (b.g0 / 4 + k) + (uint64_t)q);
}

/* The 4 ND couplings of the word at i0: ND whole 32-bit words from ND i0 (byte m of the
 * word's bond m: +1 or -1, its top bit the sign); all 0 without couplings (EPS false). */
template <int ND, bool EPS>
__device__ __forceinline__ void word_couplings(const struct cuda_sw_box &b, uint32_t i0,
                                               uint32_t eps_neg[ND])
{
#pragma unroll
    for (int q = 0; q < ND; q++)
        eps_neg[q] = EPS ? __ldg((const unsigned int *)(b.eps + (size_t)ND * i0) + q) : 0u;
}

/* Four own sites a thread, local i0 = first + 4 k .. + 3, global g0 + 4 k .. + 3: their
 * draws nd (g0 + 4 k) .. + 4 nd - 1 are the nd whole blocks from nd (g0 / 4 + k) on, each
 * computed once (sw_grouped: first, g0 and the own sites multiples of 4).
 * A bond's ends are satisfied iff "same state" ^ (eps < 0) ^ flip (lib/cluster_draws.c:
 * K eps s_i s_j > 0 for Ising, s_i = s_j for Potts, whose bytes compare alike as int8).
 * EPS: the +-J couplings eps[ND i + mu] are read (else uniform, eps NULL). The last own
 * plane's bonds along the last axis read the next plane, the upper halo of a box. */
template <int ND, bool EPS>
__global__ void sw_bonds_kernel(struct cuda_sw_box b, uint64_t seed,
                                struct latmc_rng_name name, int flip, uint64_t thr)
{
    const uint64_t groups = (uint64_t)b.np * sw_plane_sites(b) / 4;
    const uint32_t first = sw_own_site(b, 0);
    for (uint64_t k = (uint64_t)cuda_first_item(); k < groups;
         k += (uint64_t)cuda_item_stride()) {
        latmc_philox_ctr c[ND];
        word_draws<ND>(b, seed, name, k, c);
        const uint32_t i0 = first + (uint32_t)(4 * k);
        const uint32_t four = *(const uint32_t *)(b.spins + i0);
        uint32_t eps_neg[ND];
        word_couplings<ND, EPS>(b, i0, eps_neg);
        uint32_t out = 0;
        /* the first site's coordinates, then each next site's by a step along x */
        const uint32_t lx = (uint32_t)b.g.lx, ly = (uint32_t)b.g.ly, row0 = i0 / lx;
        uint32_t cx = i0 - row0 * lx, cy = row0 % ly, cz = row0 / ly;
#pragma unroll
        for (int s = 0; s < 4; s++) {
            const uint32_t i = i0 + (uint32_t)s;
            if (s > 0 && ++cx == lx) {
                cx = 0;
                if (++cy == ly) {
                    cy = 0;
                    cz++;
                }
            }
            uint32_t j[3];
            neighbours_at(b.g, i, cx, cy, cz, j);
            const int8_t si = (int8_t)(four >> (8 * s));
            unsigned bits = 0;
#pragma unroll
            for (int mu = 0; mu < ND; mu++) {
                const int m = ND * s + mu; /* the draw's (and coupling's) place */
                const uint32_t u = lane_of(c[m >> 2], (unsigned)(m & 3));
                /* the coupling's byte: +1 or -1 (0xff), its top bit the sign */
                const int neg = EPS ? (int)(eps_neg[m >> 2] >> (8 * (m & 3) + 7) & 1u) : 0;
                const int same = si == b.spins[j[mu]];
                bits |= (unsigned)((same ^ neg ^ flip) & ((uint64_t)u < thr)) << mu;
            }
            out |= bits << (8 * s);
        }
        *(uint32_t *)(b.bonds + i0) = out;
    }
}

/* sw_bonds_kernel where the rows are whole words too (L_x a multiple of 4, so a word's
 * four sites share their row): the neighbours' spins along y and z are the words at
 * i0 + L_x and i0 + L_x L_y (or their wraps), along x the word shifted by a site and the
 * next word's first byte (or the row's first), compared four bytes at once (__vcmpeq4):
 * three or four loads a word instead of 2 ND + 1, and no neighbour indices per site. */
template <int ND, bool EPS>
__global__ void sw_bonds_rows_kernel(struct cuda_sw_box b, uint64_t seed,
                                     struct latmc_rng_name name, int flip, uint64_t thr)
{
    const uint64_t groups = (uint64_t)b.np * sw_plane_sites(b) / 4;
    const uint32_t first = sw_own_site(b, 0);
    const uint32_t lx = (uint32_t)b.g.lx, ly = (uint32_t)b.g.ly, lz = (uint32_t)b.g.lz;
    const uint32_t plane = lx * ly;
    const bool every = thr > 0xffffffffu; /* every draw < thr */
    const uint32_t thr32 = (uint32_t)thr;
    for (uint64_t k = (uint64_t)cuda_first_item(); k < groups;
         k += (uint64_t)cuda_item_stride()) {
        latmc_philox_ctr c[ND];
        word_draws<ND>(b, seed, name, k, c);
        const uint32_t i0 = first + (uint32_t)(4 * k);
        const uint32_t row0 = i0 / lx, cx = i0 - row0 * lx, cy = row0 % ly, cz = row0 / ly;
        const uint32_t four = *(const uint32_t *)(b.spins + i0);
        const uint32_t next = cx + 4 == lx ? i0 + 4 - lx : i0 + 4;
        const uint32_t right = four >> 8 | (uint32_t)(uint8_t)b.spins[next] << 24;
        const uint32_t iy = cy + 1 == ly ? i0 - cy * lx : i0 + lx;
        uint32_t same[3];
        same[0] = __vcmpeq4(four, right);
        same[1] = __vcmpeq4(four, *(const uint32_t *)(b.spins + iy));
        if (ND == 3) {
            const uint32_t iz = cz + 1 == lz ? i0 - cz * plane : i0 + plane;
            same[2] = __vcmpeq4(four, *(const uint32_t *)(b.spins + iz));
        }
        uint32_t eps_neg[ND];
        word_couplings<ND, EPS>(b, i0, eps_neg);
        uint32_t out = 0;
#pragma unroll
        for (int s = 0; s < 4; s++) {
#pragma unroll
            for (int mu = 0; mu < ND; mu++) {
                const int m = ND * s + mu; /* the draw's (and coupling's) place */
                const uint32_t u = lane_of(c[m >> 2], (unsigned)(m & 3));
                const uint32_t neg = EPS ? eps_neg[m >> 2] >> (8 * (m & 3) + 7) & 1u : 0u;
                const uint32_t sat = (same[mu] >> (8 * s) & 1u) ^ neg ^ (uint32_t)flip;
                out |= (sat & (uint32_t)(every || u < thr32)) << (8 * s + mu);
            }
        }
        *(uint32_t *)(b.bonds + i0) = out;
    }
}

/* The same rule one own site a thread, each draw from its block (a box whose own sites
 * do not start or end at a multiple of 4 of the lattice, or of its storage). */
template <int ND, bool EPS>
__global__ void sw_bonds_sites_kernel(struct cuda_sw_box b, uint64_t seed,
                                      struct latmc_rng_name name, int flip, uint64_t thr)
{
    const uint64_t n = (uint64_t)b.np * sw_plane_sites(b);
    for (uint64_t k = (uint64_t)cuda_first_item(); k < n; k += (uint64_t)cuda_item_stride()) {
        const uint32_t i = sw_own_site(b, (uint32_t)k);
        const uint64_t g = (uint64_t)b.g0 + k;
        uint32_t j[3];
        neighbours(b.g, i, j);
        const int8_t si = b.spins[i];
        unsigned bits = 0;
#pragma unroll
        for (int mu = 0; mu < ND; mu++) {
            const uint32_t u = sw_draw(seed, name, (uint64_t)ND * g + (uint64_t)mu);
            const int neg = EPS ? b.eps[(size_t)ND * i + (size_t)mu] < 0 : 0;
            const int same = si == b.spins[j[mu]];
            bits |= (unsigned)((same ^ neg ^ flip) & ((uint64_t)u < thr)) << mu;
        }
        b.bonds[i] = (uint8_t)bits;
    }
}

/* The tiles of pass 1: TX x TY x TZ sites, in 3D one block of CUDA_THREADS threads each
 * (sw_tile_kernel), in 2D one warp each (sw_tile_rows_kernel). */
struct tile_shape {
    uint32_t tx, ty, tz;
};

/* The shape as constants of the kernels (template ND): the divisions and remainders by
 * the tile's extents are shifts and masks, not run-time divisions. */
template <int ND> struct tile_dims {
    static constexpr uint32_t tx = ND == 3 ? 16 : 32, ty = ND == 3 ? 4 : 32, tz = ND == 3 ? 4 : 1;
};

static_assert(tile_dims<3>::tx * tile_dims<3>::ty * tile_dims<3>::tz == CUDA_THREADS,
              "a 3D tile is a block");

__host__ __device__ static inline struct tile_shape tile_of(int ndim)
{
    const struct tile_shape t2 = { tile_dims<2>::tx, tile_dims<2>::ty, tile_dims<2>::tz };
    const struct tile_shape t3 = { tile_dims<3>::tx, tile_dims<3>::ty, tile_dims<3>::tz };
    return ndim == 3 ? t3 : t2;
}

/* The extents of the own sites (the last axis: np planes). */
struct own_shape {
    uint32_t ex, ey, ez;
};

__host__ __device__ static inline struct own_shape own_of(const struct cuda_sw_box &b)
{
    const struct own_shape o2 = { (uint32_t)b.g.lx, b.np, 1 };
    const struct own_shape o3 = { (uint32_t)b.g.lx, (uint32_t)b.g.ly, b.np };
    return b.g.ndim == 3 ? o3 : o2;
}

/* Bond (x, mu) lies inside its tile: the next site along mu is in the same tile and no
 * wrap (nor a box's face) is crossed. */
__device__ __forceinline__ bool inside_tile(uint32_t c, uint32_t t, uint32_t l)
{
    return c % t + 1 < t && c + 1 < l;
}

/* The origin (x0, y0, z0) of tile `tile` among nx x ny x nz (32-bit divisions: a tile
 * holds a site, so tile < 2^32; in 2D nz = 1, the rest < ny). */
template <int ND>
__device__ __forceinline__ void tile_origin(uint32_t tile, uint32_t nx, uint32_t ny,
                                            uint32_t *x0, uint32_t *y0, uint32_t *z0)
{
    const tile_dims<ND> t;
    const uint32_t rest = tile / nx, gx = tile - rest * nx;
    const uint32_t ry0 = ND == 3 ? rest / ny : 0u;
    *x0 = gx * t.tx;
    *y0 = (rest - ry0 * ny) * t.ty;
    *z0 = ry0 * t.tz;
}

/* Pass 1 in 3D (the file's comment; 2D: sw_tile_rows_kernel): blockDim.x = tx ty tz =
 * CUDA_THREADS; the tiles cover the own sites, own coordinates (x, y, z) at local site
 * first + x + ex (y + ey z). A warp holds whole rows of the tile (tx = 16: two rows), so
 * its bonds along x come as one ballot:
 * the runs they join need no union, each site's parent starts as its run's first site
 * (the smallest of the run, as a union would have left it). Of the bonds along y (z) only
 * the first of each stretch that joins the same two runs is united: where the bond beside
 * it (x - 1) is active too and both rows' runs go on from x - 1 to x, the four sites are
 * already one piece. The pieces, their roots (smallest local sites) and so the labels are
 * those the unions of every bond give, in any order. ND (3: the one instance; a 2D tile is
 * a warp's, not a block's) makes the tile's extents constants: a block's one tile took
 * some 14 run-time divisions a thread. */
template <int ND>
__global__ void sw_tile_kernel(struct cuda_sw_box b)
{
    static_assert(tile_dims<ND>::tx * tile_dims<ND>::ty * tile_dims<ND>::tz == CUDA_THREADS,
                  "a tile is a block");
    __shared__ uint32_t parent[CUDA_THREADS];
    __shared__ uint32_t runs[CUDA_THREADS / 32]; /* each warp's bonds along x, lane l to l + 1 */
    const tile_dims<ND> t;
    const struct own_shape o = own_of(b);
    const uint32_t first = sw_own_site(b, 0);
    const uint32_t nx = (o.ex + t.tx - 1) / t.tx, ny = (o.ey + t.ty - 1) / t.ty;
    const uint32_t nz = (o.ez + t.tz - 1) / t.tz;
    const uint64_t tiles = (uint64_t)nx * ny * nz;
    const uint32_t me = threadIdx.x, lane = me & 31u, warp = me & ~31u;
    const uint32_t upto = 0xffffffffu >> (31u - lane); /* lanes 0 .. lane */
    const uint32_t mx = me % t.tx, my = me / t.tx % t.ty, mz = me / (t.tx * t.ty);
    const uint32_t up_y = me + t.tx, up_z = me + t.tx * t.ty;
    for (uint64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        uint32_t x0, y0, z0;
        tile_origin<ND>((uint32_t)tile, nx, ny, &x0, &y0, &z0);
        const uint32_t x = x0 + mx, y = y0 + my, z = z0 + mz;
        const bool valid = x < o.ex && y < o.ey && z < o.ez;
        const uint32_t i = first + x + o.ex * (y + o.ey * z);
        const unsigned bits = valid ? b.bonds[i] : 0u; /* no mark yet */
        /* bit l: the bond from lane l to l + 1 (never across a row's end: inside_tile) */
        const uint32_t link = __ballot_sync(0xffffffffu, bits & 1u && inside_tile(x, t.tx, o.ex));
        const uint32_t ylink = __ballot_sync(0xffffffffu, bits & 2u && inside_tile(y, t.ty, o.ey));
        const uint32_t zlink = __ballot_sync(0xffffffffu, bits & 4u && inside_tile(z, t.tz, o.ez));
        /* a run starts at lane l unless the bond from l - 1 joins it */
        const uint32_t start = warp + 31u - __clz(~(link << 1) & upto);
        parent[me] = start;
        if (lane == 0)
            runs[me >> 5] = link;
        __syncthreads();
        /* the bond beside (from x - 1) is active and both runs go on from x - 1 to x */
        const bool go_on = lane > 0 && (link >> (lane - 1) & 1u);
        if (ylink >> lane & 1u &&
            !(go_on && ylink >> (lane - 1) & 1u && runs[up_y >> 5] >> ((up_y - 1) & 31u) & 1u))
            unite_shared(parent, start, up_y);
        if (zlink >> lane & 1u &&
            !(go_on && zlink >> (lane - 1) & 1u && runs[up_z >> 5] >> ((up_z - 1) & 31u) & 1u))
            unite_shared(parent, start, up_z);
        __syncthreads();
        const uint32_t r = find_shared(parent, start);
        /* the local root's site (a valid one: it is joined to this site by bonds) */
        const uint32_t rx = r % t.tx, ry = r / t.tx % t.ty, rz = r / (t.tx * t.ty);
        if (valid)
            b.labels[i] = first + x0 + rx + o.ex * (y0 + ry + o.ey * (z0 + rz));
        if (valid && r == me)
            b.bonds[i] = (uint8_t)(bits | SW_TILE_ROOT);
        if (tile + gridDim.x < tiles)
            __syncthreads(); /* parent[] and runs[] are the next tile's */
    }
}

/* Of the y bonds yl between two rows (bit l: lane l's), those that join two runs no
 * earlier bond of the same stretch joins: bit l of both is set where both rows' runs go
 * on from l to l + 1, so a bond at l is implied by one at t < l where both's bits t .. l - 1
 * are all set. reach (bit l: a bond at some t <= l with both's bits t .. l - 1 set) is the
 * carry chain of an addition with generate yl and propagate both << 1 (carry into bit l +
 * 1: bit l + 1 of (A + B) ^ A ^ B with A & B = yl, A ^ B = propagate without yl). */
__device__ __forceinline__ uint32_t first_y_bonds(uint32_t yl, uint32_t both)
{
    const uint32_t prop = both << 1; /* bit l: the runs go on from l - 1 to l */
    const uint32_t a = yl | (prop & ~yl);
    const uint32_t carry = (a + yl) ^ a ^ yl; /* bit l: reach at l - 1 */
    return yl & ~(prop & carry);
}

/* Pass 1 in 2D, a warp per tile of 32 x 32 sites (tile_dims<2>): lane l holds column
 * x0 + l of all R rows, so the bonds along y are a lane's own and no block barrier is
 * needed (the warp's __syncwarp between its phases; its parents, bonds bytes and rows'
 * runs are its own part of the block's shared memory, no other warp reads them). A block
 * a tile of 32 x 8 paid three barriers a tile, and its set-up (the tile's origin, a
 * division) in each of its warps; a tile of 32 x 32 leaves the union pass 63 edge sites
 * of 1024 instead of 39 of 256. The rows' bonds bytes are loaded 8 at a time, then kept in
 * shared memory (registers would hold all R and their addresses). Per row pair (r, r + 1)
 * only the first y bond of each stretch where both rows' runs go on along x is united
 * (first_y_bonds). Local index 32 r + l orders the tile's sites as the lattice does, so a
 * piece's root (the smallest local index, whatever order the unions ran in) is its
 * smallest site.
 * Shared memory: in the union phase the lanes' unions read parents plainly while others'
 * atomicMin move them (unite_from_in: any value read is a smaller site of the same piece,
 * as in sw_tile_kernel's block); in the last phase the forest is fixed but for each run's
 * first lane setting its first site's parent to the root its find reached (atomicMin: the
 * root, an ancestor, is the smallest value of the tree), so every other lane's find reads
 * there the old parent or the root, both ancestors, and ends at the same root. */
__global__ void __launch_bounds__(CUDA_THREADS) sw_tile_rows_kernel(struct cuda_sw_box b)
{
    constexpr uint32_t TX = tile_dims<2>::tx, R = tile_dims<2>::ty, WARPS = CUDA_THREADS / 32;
    static_assert(TX == 32 && R <= 32, "a tile's row is a warp; todo holds its rows");
    __shared__ uint32_t parents[WARPS][TX * R];
    __shared__ uint8_t bytes[WARPS][TX * R];
    __shared__ uint32_t links[WARPS][R];
    const uint32_t lane = threadIdx.x & 31u, w = threadIdx.x >> 5;
    uint32_t *parent = parents[w];
    uint8_t *sbits = bytes[w];
    uint32_t *slink = links[w];
    const struct own_shape o = own_of(b);
    const uint32_t first = sw_own_site(b, 0);
    const uint32_t nx = (o.ex + TX - 1) / TX, ny = (o.ey + R - 1) / R;
    const uint64_t tiles = (uint64_t)nx * ny;
    const uint32_t upto = 0xffffffffu >> (31u - lane); /* lanes 0 .. lane */
    for (uint64_t tile = (uint64_t)blockIdx.x * WARPS + w; tile < tiles;
         tile += (uint64_t)gridDim.x * WARPS) {
        const uint32_t gy = (uint32_t)tile / nx, gx = (uint32_t)tile - gy * nx;
        const uint32_t x0 = gx * TX, y0 = gy * R, x = x0 + lane;
        const uint32_t rows = min(R, o.ey - y0); /* the tile's rows (warp-uniform) */
        const bool xin = x < o.ex;
        const bool xon = lane + 1 < TX && x + 1 < o.ex; /* inside_tile(x, TX, ex) */
        const uint32_t i0 = first + x + o.ex * y0;      /* row r: i0 + r ex */
#pragma unroll
        for (uint32_t r0 = 0; r0 < R; r0 += 8) { /* 8 loads in flight, then their stores */
            uint32_t v[8];
#pragma unroll
            for (uint32_t r = 0; r < 8; r++)
                v[r] = xin && r0 + r < rows ? b.bonds[i0 + (r0 + r) * o.ex] : 0u; /* no mark */
#pragma unroll
            for (uint32_t r = 0; r < 8; r++)
                sbits[TX * (r0 + r) + lane] = (uint8_t)v[r];
        }
        /* bit r: this lane's y bond from row r to r + 1 is united (all ballots before any
         * union: the lanes diverge only there) */
        uint32_t todo = 0, link_up = 0, yl_up = 0; /* row r - 1's */
#pragma unroll 4
        for (uint32_t r = 0; r < R; r++) {
            const uint32_t bits = sbits[TX * r + lane];
            /* bit l: the bond from lane l to l + 1; a run starts at l unless l - 1 joins it */
            const uint32_t link = __ballot_sync(0xffffffffu, bits & 1u && xon);
            parent[TX * r + lane] = TX * r + 31u - __clz(~(link << 1) & upto);
            if (lane == 0)
                slink[r] = link;
            if (r > 0)
                todo |= (first_y_bonds(yl_up, link_up & link) >> lane & 1u) << (r - 1);
            link_up = link;
            yl_up = __ballot_sync(0xffffffffu, bits & 2u && r + 1 < rows);
        }
        __syncwarp();
        /* from the sites: their parents are their runs' first sites (or, once united,
         * smaller sites of the same piece: unite_from_in) */
        while (todo) {
            const uint32_t r = (uint32_t)__ffs(todo) - 1u;
            todo &= todo - 1u;
            unite_shared(parent, TX * r + lane, TX * (r + 1) + lane);
        }
        __syncwarp();
#pragma unroll 4
        for (uint32_t r = 0; r < R; r++) {
            if (!xin || r >= rows)
                continue;
            /* from the run's first site, whose parent then becomes the root, so that the
             * finds of the rows below that pass through it stop there */
            const uint32_t start = TX * r + 31u - __clz(~(slink[r] << 1) & upto);
            const uint32_t root = find_shared(parent, start);
            if (start == TX * r + lane && root != start)
                atomicMin(parent + start, root);
            const uint32_t i = i0 + r * o.ex;
            b.labels[i] = first + x0 + (root & 31u) + o.ex * (y0 + (root >> 5));
            if (root == TX * r + lane)
                b.bonds[i] = (uint8_t)(sbits[TX * r + lane] | SW_TILE_ROOT);
        }
        __syncwarp(); /* parent[] and sbits[] are the next tile's */
    }
}

/* The sites of a tile that can hold a bond leaving it: those whose coordinate along some
 * axis is the tile's last (a tile at the lattice's or box's end may be cut short): 2D
 * tx + ty - 1 (63 of the 32 x 32 tiles' 1024), 3D tx ty + (tz - 1)(tx + ty - 1) (121 of
 * 256). */
__host__ __device__ static inline uint32_t edge_slots(int ndim)
{
    const struct tile_shape t = tile_of(ndim);
    return ndim == 3 ? t.tx * t.ty + (t.tz - 1) * (t.tx + t.ty - 1) : t.tx + t.ty - 1;
}

/* Pass 2: the bonds that pass 1 left, those leaving a tile or wrapping; a box's bonds
 * across its upper face along the last axis are the faces' (cuda_sw_faces.cu). A thread
 * per edge site of a tile (edge_slots), each once: the last plane (3D), then in each other
 * plane the last row, then the last column; so the threads of a warp mostly have bonds to
 * join (a thread per site left 85 % of them idle in 2D, 53 % in 3D). */
template <int ND>
__global__ void sw_union_kernel(struct cuda_sw_box b)
{
    const struct own_shape o = own_of(b);
    const tile_dims<ND> t;
    const uint32_t first = sw_own_site(b, 0);
    const uint32_t nx = (o.ex + t.tx - 1) / t.tx, ny = (o.ey + t.ty - 1) / t.ty;
    const uint32_t nz = (o.ez + t.tz - 1) / t.tz;
    const uint32_t slots = edge_slots(ND), row = t.tx + t.ty - 1; /* constants */
    const uint64_t n = (uint64_t)nx * ny * nz * slots;
    const unsigned last = 1u << (ND - 1);
    for (uint64_t k = (uint64_t)cuda_first_item(); k < n; k += (uint64_t)cuda_item_stride()) {
        const uint32_t tile = (uint32_t)(k / slots); /* a tile holds a site: < 2^32 */
        const uint32_t s = (uint32_t)(k % slots);
        uint32_t x0, y0, z0;
        tile_origin<ND>(tile, nx, ny, &x0, &y0, &z0);
        /* the tile's last coordinates (local) */
        const uint32_t lx = min(t.tx, o.ex - x0) - 1, ly = min(t.ty, o.ey - y0) - 1;
        const uint32_t lz = min(t.tz, o.ez - z0) - 1;
        uint32_t mx, my, mz;
        if (ND == 3 && s < t.tx * t.ty) { /* the last plane */
            mx = s % t.tx;
            my = s / t.tx;
            mz = lz;
        } else {
            const uint32_t r = ND == 3 ? (s - t.tx * t.ty) % row : s;
            mz = ND == 3 ? (s - t.tx * t.ty) / row : 0;
            if (mz >= lz && ND == 3)
                continue; /* the last plane's, or past the tile's end */
            if (r < t.tx) { /* the last row */
                mx = r;
                my = ly;
            } else {        /* the last column, the last row's site left out */
                mx = lx;
                my = r - t.tx;
                if (my >= ly)
                    continue;
            }
        }
        if (mx > lx || my > ly)
            continue;
        const uint32_t x = x0 + mx, y = y0 + my, z = z0 + mz;
        const uint32_t i = first + x + o.ex * (y + o.ey * z);
        /* the directions whose bond would leave the tile here (or wrap) */
        unsigned leaving = (1u << ND) - 1u;
        if (inside_tile(x, t.tx, o.ex))
            leaving &= ~1u;
        if (inside_tile(y, t.ty, o.ey))
            leaving &= ~2u;
        if (ND == 3 && inside_tile(z, t.tz, o.ez))
            leaving &= ~4u;
        if (!b.wrap && (ND == 3 ? z : y) + 1 == b.np)
            leaving &= ~last; /* across the box's upper face */
        if (!leaving)
            continue;
        /* the stored lattice's coordinates: the own ones, the last axis from plane p0 */
        uint32_t j[3];
        neighbours_at(b.g, i, x, ND == 3 ? y : b.p0 + y, ND == 3 ? b.p0 + z : 0u, j);
        /* the parents of i and of the far ends loaded with the bonds byte, not after it:
         * a union's finds then start a step on, and most end at that step (a tile root's
         * label is itself), so a union waits on two loads instead of five */
        const uint32_t pi = __ldcg(b.labels + i);
        uint32_t pj[3];
#pragma unroll
        for (int mu = 0; mu < ND; mu++)
            pj[mu] = leaving >> mu & 1u ? __ldcg(b.labels + j[mu]) : 0u;
        const unsigned bits = b.bonds[i] & leaving;
#pragma unroll
        for (int mu = 0; mu < ND; mu++)
            if (bits >> mu & 1u)
                unite_from(b.labels, i, pi, j[mu], pj[mu]);
    }
}

/* Pass 3: each tile root's label flattened to its cluster's root. The other sites'
 * parents are their tile roots still (pass 2 only hangs roots), so after this pass every
 * site reaches its cluster's name in two steps: labels[labels[i]]. A root's label is
 * read by others while it is written: the old parent or the root, both its ancestors. */
__global__ void sw_flatten_kernel(struct cuda_sw_box b)
{
    const uint64_t n = (uint64_t)b.np * sw_plane_sites(b);
    for (uint64_t k = (uint64_t)cuda_first_item(); k < n; k += (uint64_t)cuda_item_stride()) {
        const uint32_t i = sw_own_site(b, (uint32_t)k);
        if (!(b.bonds[i] & SW_TILE_ROOT))
            continue;
        const uint32_t p = b.labels[i];
        if (p == i)
            continue;
        const uint32_t r = find_root(b.labels, p);
        if (r != p)
            b.labels[i] = r;
    }
}

/* The finds of a word's marked sites that are not roots (bit s of live: site i0 + s, from
 * its label p[s], now at x[s]), stepped together so that a thread keeps up to four loads in
 * flight, then the labels that changed written back. The forest is fixed while they walk
 * (pass 2 has run), so each find ends at its root whatever it reads on the way. */
__device__ __forceinline__ void finish_finds4(uint32_t *labels, uint32_t i0,
                                              const uint32_t p[4], uint32_t x[4],
                                              unsigned live)
{
    const unsigned walked = live;
    while (live) {
#pragma unroll
        for (int s = 0; s < 4; s++) {
            if (!(live >> s & 1u))
                continue;
            const uint32_t q = __ldcg(labels + x[s]);
            if (q == x[s])
                live &= ~(1u << s);
            else
                x[s] = q;
        }
    }
#pragma unroll
    for (int s = 0; s < 4; s++)
        if (walked >> s & 1u && x[s] != p[s])
            labels[i0 + (uint32_t)s] = x[s];
}

/* A word of four bonds bytes with the decisions of its clusters' roots (bit s of roots:
 * site i0 + s, global site g0 + s) drawn into their bytes, the other bytes as they were.
 * GROUPED (sw_grouped): g0 is a multiple of 4, so the four names are the lanes of one
 * Philox block, drawn once for the word (a warp with a root at each of the four places
 * would otherwise run four). */
template <bool GROUPED>
__device__ __forceinline__ uint32_t decide_roots4(uint32_t word, unsigned roots, uint32_t g0,
                                                  uint64_t seed, struct latmc_rng_name name,
                                                  uint64_t keep, int q)
{
    if (GROUPED) {
        const latmc_philox_ctr c = latmc_rng_name_block(seed, name, g0 >> 2);
#pragma unroll
        for (int s = 0; s < 4; s++)
            if (roots >> s & 1u)
                word = (word & ~(0xffu << (8 * s))) |
                       (uint32_t)sw_decision_of(lane_of(c, (unsigned)s), keep, q) << (8 * s);
    } else {
#pragma unroll
        for (int s = 0; s < 4; s++)
            if (roots >> s & 1u)
                word = (word & ~(0xffu << (8 * s))) |
                       (uint32_t)sw_decision(seed, name, g0 + (uint32_t)s, keep, q) << (8 * s);
    }
    return word;
}

/* The word of four own sites from i0 (sw_words): its bonds bytes and their tile-root marks,
 * and, where any site is marked, the four labels into p (one uint4). Returns the marks (0:
 * none, p not read). */
__device__ __forceinline__ uint32_t sw_marked_word(const struct cuda_sw_box &b, uint32_t i0,
                                                   uint32_t &word, uint32_t p[4])
{
    word = *(const uint32_t *)(b.bonds + i0);
    const uint32_t marks = word & SW_TILE_ROOTS;
    if (marks) {
        const uint4 l4 = *(const uint4 *)(b.labels + i0);
        p[0] = l4.x;
        p[1] = l4.y;
        p[2] = l4.z;
        p[3] = l4.w;
    }
    return marks;
}

/* Pass 3 four own sites a thread (sw_words): their marks read as one word of bonds, their
 * labels as one uint4, and the finds of the marked ones stepped together, so that a thread
 * keeps up to four loads in flight (one site a thread left the kernel waiting on latency).
 * The result is pass 3's: the forest is fixed once pass 2 has run, so every find of a
 * tree ends at its root whatever it reads on the way. */
__global__ void sw_flatten4_kernel(struct cuda_sw_box b)
{
    const uint64_t groups = (uint64_t)b.np * sw_plane_sites(b) / 4;
    const uint32_t first = sw_own_site(b, 0);
    for (uint64_t k = (uint64_t)cuda_first_item(); k < groups;
         k += (uint64_t)cuda_item_stride()) {
        const uint32_t i0 = first + (uint32_t)(4 * k);
        uint32_t word, p[4];
        const uint32_t marks = sw_marked_word(b, i0, word, p);
        if (!marks)
            continue;
        uint32_t x[4];
        unsigned live = 0; /* bit s: site i0 + s's find still walks */
#pragma unroll
        for (int s = 0; s < 4; s++) {
            x[s] = p[s];
            if (marks >> (8 * s) & SW_TILE_ROOT && p[s] != i0 + (uint32_t)s)
                live |= 1u << s;
        }
        finish_finds4(b.labels, i0, p, x, live);
    }
}

/* The decision of every cluster, drawn at its name (its root's global site), into the
 * root's bonds byte: Ising 1 keep, 0 flip (q = 0); Potts its new colour (q >= 2). As
 * latmc_cluster_decide without a field. */
__global__ void sw_decide_kernel(struct cuda_sw_box b, uint64_t seed,
                                 struct latmc_rng_name name, uint64_t keep, int q)
{
    const uint64_t n = (uint64_t)b.np * sw_plane_sites(b);
    for (uint64_t k = (uint64_t)cuda_first_item(); k < n; k += (uint64_t)cuda_item_stride()) {
        const uint32_t r = sw_own_site(b, (uint32_t)k);
        if (!(b.bonds[r] & SW_TILE_ROOT) || b.labels[r] != r)
            continue;
        b.bonds[r] = sw_decision(seed, name, sw_global(b, r), keep, q);
    }
}

/* The decisions four own sites a thread (sw_words): their marks and the decisions written
 * back as one word of bonds (the other bytes as they were), the labels as one uint4.
 * GROUPED (sw_grouped): the word's first global site is a multiple of 4. */
template <bool GROUPED>
__global__ void sw_decide4_kernel(struct cuda_sw_box b, uint64_t seed,
                                  struct latmc_rng_name name, uint64_t keep, int q)
{
    const uint64_t groups = (uint64_t)b.np * sw_plane_sites(b) / 4;
    const uint32_t first = sw_own_site(b, 0);
    for (uint64_t k = (uint64_t)cuda_first_item(); k < groups;
         k += (uint64_t)cuda_item_stride()) {
        const uint32_t i0 = first + (uint32_t)(4 * k);
        uint32_t word, p[4];
        const uint32_t marks = sw_marked_word(b, i0, word, p);
        if (!marks)
            continue;
        unsigned roots = 0; /* bit s: site i0 + s is its cluster's root */
#pragma unroll
        for (int s = 0; s < 4; s++)
            if (marks >> (8 * s) & SW_TILE_ROOT && p[s] == i0 + (uint32_t)s)
                roots |= 1u << s;
        if (!roots)
            continue;
        *(uint32_t *)(b.bonds + i0) =
            decide_roots4<GROUPED>(word, roots, sw_global(b, i0), seed, name, keep, q);
    }
}

/* Pass 3 and the decisions in one pass, four own sites a thread (sw_words; GROUPED as
 * sw_decide4_kernel's): a word's marked sites (the tiles' roots) are either their
 * clusters' roots, whose decisions are drawn into their bytes, or flattened to their
 * clusters' roots (sw_flatten4_kernel's finds, stepped together). One read of the bonds
 * and of the marked words' labels instead of two: the finds read only the labels, and a
 * word's bytes are this thread's. */
template <bool GROUPED>
__global__ void sw_settle4_kernel(struct cuda_sw_box b, uint64_t seed,
                                  struct latmc_rng_name name, uint64_t keep, int q)
{
    const uint64_t groups = (uint64_t)b.np * sw_plane_sites(b) / 4;
    const uint32_t first = sw_own_site(b, 0);
    for (uint64_t k = (uint64_t)cuda_first_item(); k < groups;
         k += (uint64_t)cuda_item_stride()) {
        const uint32_t i0 = first + (uint32_t)(4 * k);
        uint32_t word, p[4];
        const uint32_t marks = sw_marked_word(b, i0, word, p);
        if (!marks)
            continue;
        uint32_t x[4];
        unsigned live = 0, roots = 0; /* bit s: site i0 + s's find walks; it is a root */
#pragma unroll
        for (int s = 0; s < 4; s++) {
            x[s] = p[s];
            if (marks >> (8 * s) & SW_TILE_ROOT) {
                if (p[s] != i0 + (uint32_t)s)
                    live |= 1u << s;
                else
                    roots |= 1u << s;
            }
        }
        if (roots)
            *(uint32_t *)(b.bonds + i0) =
                decide_roots4<GROUPED>(word, roots, sw_global(b, i0), seed, name, keep, q);
        finish_finds4(b.labels, i0, p, x, live);
    }
}

/* Every site takes its cluster's decision; counts the sites that changed. */
template <bool POTTS>
__global__ void sw_flip_kernel(struct cuda_sw_box b, unsigned long long *changed)
{
    const uint64_t n = (uint64_t)b.np * sw_plane_sites(b);
    unsigned long long flipped = 0;
    for (uint64_t k = (uint64_t)cuda_first_item(); k < n; k += (uint64_t)cuda_item_stride()) {
        const uint32_t i = sw_own_site(b, (uint32_t)k);
        flipped += sw_take_decision<POTTS>(b.spins, i, b.bonds[sw_root(b, i)]);
    }
    cuda_warp_add(changed, flipped);
}

/* The flip four own sites a thread (sw_words): their tile roots read as one uint4, the
 * four roots' labels and decisions then loaded together, the spins as one word. */
template <bool POTTS>
__global__ void sw_flip4_kernel(struct cuda_sw_box b, unsigned long long *changed)
{
    const uint64_t groups = (uint64_t)b.np * sw_plane_sites(b) / 4;
    const uint32_t first = sw_own_site(b, 0);
    unsigned long long flipped = 0;
    for (uint64_t k = (uint64_t)cuda_first_item(); k < groups;
         k += (uint64_t)cuda_item_stride()) {
        const uint32_t i0 = first + (uint32_t)(4 * k);
        const uint4 t4 = *(const uint4 *)(b.labels + i0);
        const uint32_t t[4] = { t4.x, t4.y, t4.z, t4.w };
        uint32_t r[4], d[4];
#pragma unroll
        for (int s = 0; s < 4; s++)
            r[s] = b.labels[t[s]];
#pragma unroll
        for (int s = 0; s < 4; s++)
            d[s] = b.bonds[r[s]];
        const uint32_t old = *(const uint32_t *)(b.spins + i0);
        uint32_t four = old;
#pragma unroll
        for (int s = 0; s < 4; s++) {
            const int8_t o = (int8_t)(old >> (8 * s));
            const int8_t v = POTTS ? (int8_t)d[s] : d[s] ? o : (int8_t)-o;
            four = (four & ~(0xffu << (8 * s))) | (uint32_t)(uint8_t)v << (8 * s);
            flipped += v != o;
        }
        if (four != old)
            *(uint32_t *)(b.spins + i0) = four;
    }
    cuda_warp_add(changed, flipped);
}

/* The four-site kernels apply (flattening, decisions, flip): the own sites start at a
 * multiple of 4 of the storage (their words of bonds and spins, uint4 of labels) and are
 * a multiple of 4. */
static bool sw_words(const struct cuda_sw_box *b)
{
    const uint64_t plane = b->g.ndim == 3 ? (uint64_t)(b->g.lx * b->g.ly) : (uint64_t)b->g.lx;
    return (uint64_t)b->p0 * plane % 4 == 0 && (uint64_t)b->np * plane % 4 == 0;
}

/* The grouped bonds kernel applies: the own sites start at a multiple of 4 of the storage
 * (its 32-bit loads) and of the lattice (its draws' blocks), and are a multiple of 4. */
static bool sw_grouped(const struct cuda_sw_box *b)
{
    const uint64_t plane = b->g.ndim == 3 ? (uint64_t)(b->g.lx * b->g.ly) : (uint64_t)b->g.lx;
    return (uint64_t)b->p0 * plane % 4 == 0 && b->g0 % 4 == 0 && (uint64_t)b->np * plane % 4 == 0;
}

/* The own sites of a box. */
static int64_t own_sites(const struct cuda_sw_box *b)
{
    return (int64_t)b->np * (b->g.ndim == 3 ? b->g.lx * b->g.ly : b->g.lx);
}

/* Waves of resident blocks in the tiles' grid: each block then walks several tiles, its
 * set-up (~45 of a warp's ~150 instructions a tile) paid once for them. One H200, 16384^2
 * and 512^3: a block a tile (a million blocks) 24.1 and 34.1 ps a site and sweep, one wave
 * 24.7 and 35.3, four waves 23.9 and 33.9 (2D then a block a tile too; its warp a tile
 * was measured with four waves only). */
#define SW_TILE_WAVES 4

/* The tiles' grid: SW_TILE_WAVES waves of Kernel's resident blocks on the current device,
 * or a block per per_block tiles (3D 1, 2D 8: a warp a tile; capped as cuda_grid caps it)
 * where that is fewer or the device is not known. */
template <auto Kernel> static unsigned sw_tile_grid(int64_t tiles, int64_t per_block = 1)
{
    const int64_t blocks = (tiles + per_block - 1) / per_block;
    const unsigned capped = blocks < CUDA_MAX_BLOCKS ? (unsigned)blocks : CUDA_MAX_BLOCKS;
    const unsigned wave = cuda_resident_wave<Kernel>();
    if (wave == 0) /* the launch reports a real problem */
        return capped;
    const unsigned waves = SW_TILE_WAVES * wave;
    return capped < waves ? capped : waves;
}

template <int ND>
static void launch_bonds(cudaStream_t stream, const struct cuda_sw_box *b, uint64_t seed,
                         struct latmc_rng_name name, int flip, uint64_t thr)
{
    const int64_t sites = own_sites(b);
    if (sw_grouped(b) && b->g.lx % 4 == 0) {
        const unsigned grid = cuda_grid(sites / 4);
        if (b->eps)
            sw_bonds_rows_kernel<ND, true><<<grid, CUDA_THREADS, 0, stream>>>(*b, seed, name,
                                                                             flip, thr);
        else
            sw_bonds_rows_kernel<ND, false><<<grid, CUDA_THREADS, 0, stream>>>(*b, seed, name,
                                                                              flip, thr);
        return;
    }
    if (sw_grouped(b)) {
        const unsigned grid = cuda_grid(sites / 4);
        if (b->eps)
            sw_bonds_kernel<ND, true><<<grid, CUDA_THREADS, 0, stream>>>(*b, seed, name, flip,
                                                                        thr);
        else
            sw_bonds_kernel<ND, false><<<grid, CUDA_THREADS, 0, stream>>>(*b, seed, name, flip,
                                                                         thr);
        return;
    }
    const unsigned grid = cuda_grid(sites);
    if (b->eps)
        sw_bonds_sites_kernel<ND, true><<<grid, CUDA_THREADS, 0, stream>>>(*b, seed, name, flip,
                                                                          thr);
    else
        sw_bonds_sites_kernel<ND, false><<<grid, CUDA_THREADS, 0, stream>>>(*b, seed, name, flip,
                                                                           thr);
}

extern "C" cudaError_t cuda_sw_bonds(cudaStream_t stream, const struct cuda_sw_box *b,
                                     uint64_t seed, struct latmc_rng_name name, int flip,
                                     uint64_t threshold)
{
    if (b->g.ndim == 3)
        launch_bonds<3>(stream, b, seed, name, flip, threshold);
    else
        launch_bonds<2>(stream, b, seed, name, flip, threshold);
    return cudaGetLastError();
}

extern "C" cudaError_t cuda_sw_link(cudaStream_t stream, const struct cuda_sw_box *b)
{
    const struct tile_shape t = tile_of(b->g.ndim);
    const struct own_shape o = own_of(*b);
    const int64_t tiles = (int64_t)((o.ex + t.tx - 1) / t.tx) * ((o.ey + t.ty - 1) / t.ty) *
                          ((o.ez + t.tz - 1) / t.tz);
    if (b->g.ndim == 3)
        sw_tile_kernel<3><<<sw_tile_grid<sw_tile_kernel<3>>(tiles), CUDA_THREADS, 0, stream>>>(*b);
    else
        sw_tile_rows_kernel<<<sw_tile_grid<sw_tile_rows_kernel>(tiles, CUDA_THREADS / 32),
                              CUDA_THREADS, 0, stream>>>(*b);
    cudaError_t err = cudaGetLastError();
    if (err == cudaSuccess) {
        const unsigned grid = cuda_grid(tiles * edge_slots(b->g.ndim));
        if (b->g.ndim == 3)
            sw_union_kernel<3><<<grid, CUDA_THREADS, 0, stream>>>(*b);
        else
            sw_union_kernel<2><<<grid, CUDA_THREADS, 0, stream>>>(*b);
        err = cudaGetLastError();
    }
    return err;
}

extern "C" cudaError_t cuda_sw_flatten(cudaStream_t stream, const struct cuda_sw_box *b)
{
    if (sw_words(b))
        sw_flatten4_kernel<<<cuda_grid(own_sites(b) / 4), CUDA_THREADS, 0, stream>>>(*b);
    else
        sw_flatten_kernel<<<cuda_grid(own_sites(b)), CUDA_THREADS, 0, stream>>>(*b);
    return cudaGetLastError();
}

extern "C" cudaError_t cuda_sw_label(cudaStream_t stream, const struct cuda_sw_box *b)
{
    const cudaError_t err = cuda_sw_link(stream, b);
    return err == cudaSuccess ? cuda_sw_flatten(stream, b) : err;
}

extern "C" cudaError_t cuda_sw_decide(cudaStream_t stream, const struct cuda_sw_box *b,
                                      uint64_t seed, struct latmc_rng_name name,
                                      uint64_t keep_threshold, int q)
{
    if (sw_grouped(b))
        sw_decide4_kernel<true><<<cuda_grid(own_sites(b) / 4), CUDA_THREADS, 0, stream>>>(
            *b, seed, name, keep_threshold, q);
    else if (sw_words(b))
        sw_decide4_kernel<false><<<cuda_grid(own_sites(b) / 4), CUDA_THREADS, 0, stream>>>(
            *b, seed, name, keep_threshold, q);
    else
        sw_decide_kernel<<<cuda_grid(own_sites(b)), CUDA_THREADS, 0, stream>>>(
            *b, seed, name, keep_threshold, q);
    return cudaGetLastError();
}

extern "C" cudaError_t cuda_sw_apply(cudaStream_t stream, const struct cuda_sw_box *b, int q,
                                     unsigned long long *changed)
{
    /* a bounded grid, each thread many sites: one atomicAdd per warp on one counter,
     * per 32 sites, would serialise in the L2 */
    const bool words = sw_words(b);
    const unsigned grid = cuda_grid(words ? own_sites(b) / 4 : own_sites(b));
    const unsigned blocks = grid < SW_COUNT_BLOCKS ? grid : SW_COUNT_BLOCKS;
    if (words && q)
        sw_flip4_kernel<true><<<blocks, CUDA_THREADS, 0, stream>>>(*b, changed);
    else if (words)
        sw_flip4_kernel<false><<<blocks, CUDA_THREADS, 0, stream>>>(*b, changed);
    else if (q)
        sw_flip_kernel<true><<<blocks, CUDA_THREADS, 0, stream>>>(*b, changed);
    else
        sw_flip_kernel<false><<<blocks, CUDA_THREADS, 0, stream>>>(*b, changed);
    return cudaGetLastError();
}

extern "C" cudaError_t cuda_sw_flip(cudaStream_t stream, const struct cuda_sw_box *b,
                                    uint64_t seed, struct latmc_rng_name name,
                                    uint64_t keep_threshold, int q, unsigned long long *changed)
{
    const cudaError_t err = cuda_sw_decide(stream, b, seed, name, keep_threshold, q);
    return err == cudaSuccess ? cuda_sw_apply(stream, b, q, changed) : err;
}

extern "C" cudaError_t cuda_sw_settle_flip(cudaStream_t stream, const struct cuda_sw_box *b,
                                           uint64_t seed, struct latmc_rng_name name,
                                           uint64_t keep_threshold, int q,
                                           unsigned long long *changed)
{
    cudaError_t err;
    if (sw_grouped(b)) {
        sw_settle4_kernel<true><<<cuda_grid(own_sites(b) / 4), CUDA_THREADS, 0, stream>>>(
            *b, seed, name, keep_threshold, q);
        err = cudaGetLastError();
    } else if (sw_words(b)) {
        sw_settle4_kernel<false><<<cuda_grid(own_sites(b) / 4), CUDA_THREADS, 0, stream>>>(
            *b, seed, name, keep_threshold, q);
        err = cudaGetLastError();
    } else {
        err = cuda_sw_flatten(stream, b);
        if (err == cudaSuccess)
            err = cuda_sw_decide(stream, b, seed, name, keep_threshold, q);
    }
    return err == cudaSuccess ? cuda_sw_apply(stream, b, q, changed) : err;
}
