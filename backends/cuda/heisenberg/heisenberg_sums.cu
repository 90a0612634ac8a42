/*
 * The Heisenberg spin glass's observables on the GPU (heisenberg_cuda.h): each chunk's sums
 * in the CPU reference's order (lib/heisenberg.h's chunks, doc/models/heisenberg.md), each
 * plane's from its chunks, and with them, where they fit, the Fourier modes' projections in
 * fixed point (mode_fixed.h, lib/modes_exact.h).
 */
#include <climits>

#include "cuda_launch.cuh"
#include "heisenberg_cuda.h"
#include "mode_fixed.h"
#include "modes_fixed.cuh"

/* Indices into the 13 doubles of struct latmc_heisenberg_sums. */
#define HEISENBERG_SUM_BONDS 0
#define HEISENBERG_SUM_MAG 1      /* + component */
#define HEISENBERG_SUM_OVERLAP 4  /* + 3 mu + nu */
#define HEISENBERG_NSUMS 13

/*
 * The chunks' sums. Accumulator groups: 0 the bond sum, 1 the magnetisation, 2 + mu the
 * overlap row mu (two replicas). Each (group, chunk) adds its chunk's sites in site order
 * into its accumulators exactly as cpu_heisenberg_measure does (the accumulators are
 * independent, so giving them to different threads keeps every one's order) and stores
 * them at partials[k nchunks + chunk], k the accumulator's index.
 *
 * A block takes HEISENBERG_TILE_CHUNKS consecutive chunks and walks them HEISENBERG_TILE_SITES
 * sites at a time, a step. Its warps have two jobs. The producers (256 threads, two sites
 * of a step each; a warp: 32 consecutive sites of one chunk, coalesced) read a step's sites
 * and compute each site's terms, the bond terms J_mu (s . s_{+mu}) in double and the spins
 * of both replicas (converted to double once a site, exactly, so that the additions convert
 * nothing), into one of two tiles in shared memory, then issue the next step's loads. The
 * consumers (a lane per chunk; a warp per group, the overlaps' groups two a warp, one a
 * half) add the step before from the other tile, site by site, HEISENBERG_ACC_AHEAD sites'
 * terms read before they are added.
 * One barrier a step: a step's additions, a chain of dependent double additions per chunk
 * (2D: 32 x 2 for the bonds), run while the producers make the next step, rather than
 * between two barriers while the producers wait (ncu at 2D 16384^2 on an H200: half of
 * the warps' time at the barrier, before the split). A producer carries its sites' places
 * from step to step (the site, its column and row, the forward neighbour along z), so a
 * step's addresses take a few additions and compares, not a division and the wraps of
 * every direction.
 *
 * rows_per_chunk divides the rows of a plane (L_y in 3D, 1 in 2D), so a chunk lies in one
 * plane: its first row's y and z, found once per block, place every site.
 */
#define HEISENBERG_TILE_CHUNKS 16
#define HEISENBERG_TILE_SITES 32
#define HEISENBERG_TILE_PITCH (HEISENBERG_TILE_SITES + 1) /* a chunk's row in shared memory: no bank
                                                 conflicts between the chunks' threads */
#define HEISENBERG_TILE_DOUBLES (HEISENBERG_TILE_CHUNKS * HEISENBERG_TILE_PITCH) /* an array */
#define HEISENBERG_PRODUCERS 256
#define HEISENBERG_PRODUCER_WARPS (HEISENBERG_PRODUCERS / 32)
#define HEISENBERG_TILE_ITEMS                                                                      \
    (HEISENBERG_TILE_CHUNKS * HEISENBERG_TILE_SITES / HEISENBERG_PRODUCERS) /* 2 */
/* blocks an SM: 80 registers a thread with two replicas (416 threads), 96 with one (the
 * producer's next loads 36 of them, 42 with two replicas), and two tiles each */
#define HEISENBERG_SUMS_BLOCKS 2
/* sites an accumulating thread reads from shared memory together */
#define HEISENBERG_ACC_AHEAD 2
/* a step's reads stay in the chunk's row of the tile (a site past the step's last is read,
 * not added) */
static_assert(HEISENBERG_TILE_SITES % HEISENBERG_ACC_AHEAD == 0, "whole reads a step");

/* The tile's arrays: the bond terms of 3 directions, replica 0's spin, replica 1's (with
 * two); a tile's arrays: 6 or 9 (one or two replicas). */
#define HEISENBERG_TILE_BOND 0
#define HEISENBERG_TILE_S0 3
#define HEISENBERG_TILE_S1 6
__host__ __device__ constexpr int heisenberg_tile_arrays(bool two)
{
    return two ? 9 : 6;
}

/* One site's values of a step as loaded: its spin (both replicas), its forward neighbours'
 * spins of replica 0 and its couplings, floats. */
struct heisenberg_site_loads {
    float s0[3], s1[3], f[3][3], J[3];
};

/* A producer's site of a chunk, carried from step to step. I: the index type, int where
 * every index into the spins (6 n with two replicas) fits it, else long long. */
template <typename I> struct heisenberg_item {
    I i;          /* the site: plane z, row y, column x */
    I dz;         /* its forward neighbour along z, from i */
    int x, y;
    bool chunk_in; /* the chunk is one of the lattice's */
};

/* Item (chunk c of the block, site j of the chunk) at the walk's start. */
template <typename I>
__device__ __forceinline__ void heisenberg_item_start(const cuda_heisenberg_geom &g,
                                                      long long chunk0, long long nchunks,
                                                      int chunk_sites, const int *chunk_y,
                                                      const int *chunk_z, int c, int j,
                                                      heisenberg_item<I> *it)
{
    const I plane = (I)g.lx * g.ly;
    const int rr = j / g.lx, z = chunk_z[c];
    it->chunk_in = chunk0 + c < nchunks;
    it->x = j - rr * g.lx;
    it->y = chunk_y[c] + rr;
    it->i = (I)(chunk0 + c) * chunk_sites + j;
    it->dz = plane * (I)(z + 1 == g.lz ? 0 : z + 1) - plane * (I)z;
}

/* The item one step on: HEISENBERG_TILE_SITES sites along its chunk (rows of fewer sites
 * than a step wrap more than once; a chunk's rows never leave its plane). */
template <typename I>
__device__ __forceinline__ void heisenberg_item_step(const cuda_heisenberg_geom &g,
                                                     heisenberg_item<I> *it)
{
    it->i += HEISENBERG_TILE_SITES;
    it->x += HEISENBERG_TILE_SITES;
    while (it->x >= g.lx) {
        it->x -= g.lx;
        it->y++;
    }
}

/* The item's loads, all issued before any is used, so that a producer's loads of a step
 * are in flight together (and during the step before's additions). The forward
 * neighbours: i + 1, i + L_x and i + L_x L_y, each wrapped at its axis' end. */
template <typename I>
__device__ __forceinline__ void heisenberg_item_load(const cuda_heisenberg_geom &g, const float *s0,
                                                     const float *s1, const float *J, bool two,
                                                     const heisenberg_item<I> &it,
                                                     heisenberg_site_loads *l)
{
    const I n = (I)g.n, i = it.i;
    const I fwd[3] = {
        it.x + 1 == g.lx ? i + 1 - g.lx : i + 1,
        it.y + 1 == g.ly ? i + g.lx - (I)g.lx * g.ly : i + g.lx,
        i + it.dz,
    };
#pragma unroll
    for (int c3 = 0; c3 < 3; c3++) {
        l->s0[c3] = s0[c3 * n + i];
        l->s1[c3] = two ? s1[c3 * n + i] : 0.0f;
    }
#pragma unroll
    for (int mu = 0; mu < 3; mu++) {
        if (mu >= g.ndim)
            break;
        l->J[mu] = J[mu * n + i];
#pragma unroll
        for (int c3 = 0; c3 < 3; c3++)
            l->f[mu][c3] = s0[c3 * n + fwd[mu]];
    }
}

/* A site's terms into the tile at k: the bond terms in double, the spins converted. */
__device__ __forceinline__ void heisenberg_item_terms(const heisenberg_site_loads &l, int ndim,
                                                      bool two, double *tile, int k)
{
#pragma unroll
    for (int mu = 0; mu < 3; mu++) {
        if (mu >= ndim)
            break;
        const double dot = (double)l.s0[0] * l.f[mu][0] + (double)l.s0[1] * l.f[mu][1] +
                           (double)l.s0[2] * l.f[mu][2];
        tile[(HEISENBERG_TILE_BOND + mu) * HEISENBERG_TILE_DOUBLES + k] = (double)l.J[mu] * dot;
    }
#pragma unroll
    for (int c3 = 0; c3 < 3; c3++) {
        tile[(HEISENBERG_TILE_S0 + c3) * HEISENBERG_TILE_DOUBLES + k] = (double)l.s0[c3];
        if (two)
            tile[(HEISENBERG_TILE_S1 + c3) * HEISENBERG_TILE_DOUBLES + k] = (double)l.s1[c3];
    }
}

/*
 * The Fourier modes' projections in the same kernel (PROJ: HEISENBERG_PROJ_SHARED or
 * _GLOBAL, the spin's 3 components; 0: the sums alone), with one replica where L_x is a
 * multiple of 32 (each 32-site step of a chunk lies in one row): the integers of
 * cuda_fixed_projections (mode_fixed.h, lib/modes_exact.h's latmc_modes_fixed), counted
 * from the sites the step holds in shared memory, with no second read of the
 * configuration. The rows: the consumers that add a chunk's
 * magnetisation (group 1) add the same sites' fixed-point values too
 * (heisenberg_proj_rows), which go to the projections at the row's end. The columns: a
 * unit is a component and a half of the block's 16 chunks, 8 (heisenberg_proj_units: 6,
 * on producer warps after their step); lane x of its warp adds site x of the step in each
 * of the unit's chunks into the component's column counter of that x: in shared memory,
 * added to the projections once, at the block's end, where the block's columns fit there
 * (HEISENBERG_PROJ_SHARED); else straight into the projections' P_x by a 64-bit atomic a
 * column and unit (HEISENBERG_PROJ_GLOBAL: rows past 1,344 sites; 3 / 8 of an atomic a
 * site, reductions in L2 that the kernel does not wait for, against a second read of the
 * spins). Integers, so the atomics' order does not matter. Two replicas' 12 components
 * (the 9 products too) take the projections' own kernel (cuda_fixed_projections): counted
 * here, by the producers or the consumers, they lengthened the step more than a second
 * read of the spins costs (one H200, 3D 256^3).
 */
struct heisenberg_fixed_proj {
    unsigned long long *proj; /* lib/modes.h's layout, component c at c n_entries */
    long long n_entries;      /* L_x + L_y (+ L_z) */
    long long last_at;        /* P_last's first entry within a component */
    long long global_p0;      /* the range's first plane in the lattice */
    long long rows_per_plane; /* L_y in 3D, 1 in 2D */
};

#define HEISENBERG_PROJ_SHARED 1 /* the block's columns in shared memory */
#define HEISENBERG_PROJ_GLOBAL 2 /* each step's columns into P_x */
#define HEISENBERG_PROJ_C 3                                  /* components: the spin's */
#define HEISENBERG_PROJ_CHUNKS (HEISENBERG_TILE_CHUNKS / 2)  /* a unit's set of chunks */
#define HEISENBERG_PROJ_UNITS (HEISENBERG_PROJ_C * 2)

/* Producer warp w's units [*u0, *u1) of the step before: the 6 one a warp, on 6 of the 8. */
__device__ __forceinline__ void heisenberg_proj_units(int w, int *u0, int *u1)
{
    *u0 = w * HEISENBERG_PROJ_UNITS / HEISENBERG_PRODUCER_WARPS;
    *u1 = (w + 1) * HEISENBERG_PROJ_UNITS / HEISENBERG_PRODUCER_WARPS;
}

/* The dynamic shared memory of the projections' counters: each component's rows (one a
 * chunk, 64-bit), then, with HEISENBERG_PROJ_SHARED, its columns (one an x: the 16-bit
 * halves' sums, 32 bits each, added by the units of both halves of the chunks). */
static size_t heisenberg_proj_smem(int proj, int lx)
{
    if (!proj)
        return 0;
    const size_t rows = (size_t)HEISENBERG_PROJ_C * HEISENBERG_TILE_CHUNKS * sizeof(long long);
    return proj == HEISENBERG_PROJ_SHARED
               ? rows + (size_t)HEISENBERG_PROJ_C * (size_t)lx * 2 * sizeof(int)
               : rows;
}

/* A block's dynamic shared memory: the two tiles, then the projections' counters. */
static size_t heisenberg_sums_smem(int proj, bool two, int lx)
{
    return 2 * (size_t)heisenberg_tile_arrays(two) * HEISENBERG_TILE_DOUBLES * sizeof(double) +
           heisenberg_proj_smem(proj, lx);
}

/* A step's row parts rq of the 3 components of the chunk of lane cb (an accumulating
 * thread's) into its row counters (shared memory), which at the row's end go to the
 * projections' P_y (3D) and P_last and start again from zero. */
__device__ __forceinline__ void heisenberg_proj_rows(const int (&rq)[3], int cb, int r0,
                                                     bool row_end, int lx, long long chunk0,
                                                     long long rows_per_chunk, long long *rows,
                                                     const heisenberg_fixed_proj &fp)
{
    const long long row = (chunk0 + cb) * rows_per_chunk + r0;
    const long long p = row / fp.rows_per_plane, y = row % fp.rows_per_plane;
#pragma unroll
    for (int i = 0; i < 3; i++) {
        long long *row_of = rows + i * HEISENBERG_TILE_CHUNKS + cb;
        const long long acc = *row_of + rq[i];
        *row_of = row_end ? 0 : acc;
        if (row_end && acc != 0) {
            unsigned long long *o = fp.proj + i * fp.n_entries;
            if (fp.rows_per_plane > 1)
                atomicAdd(o + lx + y, (unsigned long long)acc);
            atomicAdd(o + fp.last_at + fp.global_p0 + p, (unsigned long long)acc);
        }
    }
}

/* Units [u0, u1) of a step (with the projections): a unit is a component c of the spin
 * and a half of the chunks; lane x reads site x of each of the half's chunks and sums
 * their fixed-point values (the chunks past the range add zeros, so no branch parts them;
 * at most 8 values: |sum| < 2^29), added to the component's column counter of x0 + x as
 * 16-bit halves (HEISENBERG_PROJ_SHARED: shared atomics, the units of both halves of the
 * chunks add there; a block's rows, at most 16 x 1024 / 32, keep each counter within 32
 * bits), or into P_x (HEISENBERG_PROJ_GLOBAL). */
template <int PROJ>
__device__ __forceinline__ void heisenberg_proj_columns(const double *s0t, int u0, int u1,
                                                        int lane, int x0, int lx,
                                                        long long chunk0, long long nchunks,
                                                        unsigned *col_lo, int *col_hi,
                                                        const heisenberg_fixed_proj &fp)
{
    constexpr int TD = HEISENBERG_TILE_DOUBLES, P = HEISENBERG_TILE_PITCH;
    constexpr int K = HEISENBERG_PROJ_CHUNKS;
    static_assert(K <= 8, "a unit's column part within 32 bits");
#pragma unroll 1
    for (int u = u0; u < u1; u++) {
        const int c = u % HEISENBERG_PROJ_C, set = u / HEISENBERG_PROJ_C;
        const long long left = nchunks - chunk0 - set * K;
        const int nk = left < K ? (int)left : K;
        const int at = set * K * P + lane;
        int col = 0;
#pragma unroll
        for (int k = 0; k < K; k++) {
            const int q = cuda_modes_fixed(s0t[c * TD + at + k * P]);
            col += k < nk ? q : 0;
        }
        const int x = x0 + lane;
        if (PROJ == HEISENBERG_PROJ_SHARED)
            cuda_modes_add_halves(col_lo + c * lx + x, col_hi + c * lx + x, col);
        else if (col != 0)
            atomicAdd(fp.proj + c * fp.n_entries + x, (unsigned long long)(long long)col);
    }
}

/* Group `group`'s additions of a step (m sites of the chunk at k0 of `tile`) into its
 * accumulators, and with the projections the row parts rq of its fixed-point values; ND
 * and a whole step (FULL) known to the compiler, so that no addition of the chain waits on
 * a select. */
template <int PROJ, int ND, bool FULL>
__device__ __forceinline__ void heisenberg_consume_of(int group, const double *tile, int k0,
                                                      int m_any, double (&acc)[3], int (&rq)[3])
{
    const int m = FULL ? HEISENBERG_TILE_SITES : m_any;
    constexpr int A = HEISENBERG_ACC_AHEAD, TD = HEISENBERG_TILE_DOUBLES;
    const double *bond = tile + HEISENBERG_TILE_BOND * TD + k0;
    const double *s0t = tile + HEISENBERG_TILE_S0 * TD + k0;
    const double *s1t = tile + HEISENBERG_TILE_S1 * TD + k0;
    if (group == 0) {
        for (int a0 = 0; a0 < m; a0 += A) {
            double v[A][3];
#pragma unroll
            for (int e = 0; e < A; e++)
#pragma unroll
                for (int mu = 0; mu < 3; mu++)
                    v[e][mu] = mu < ND ? bond[mu * TD + a0 + e] : 0.0;
#pragma unroll
            for (int e = 0; e < A; e++) {
                if (a0 + e >= m)
                    break;
#pragma unroll
                for (int mu = 0; mu < 3; mu++)
                    if (mu < ND)
                        acc[0] += v[e][mu];
            }
        }
    } else if (group == 1) {
        for (int a0 = 0; a0 < m; a0 += A) {
            double v[A][3];
#pragma unroll
            for (int e = 0; e < A; e++)
#pragma unroll
                for (int c3 = 0; c3 < 3; c3++)
                    v[e][c3] = s0t[c3 * TD + a0 + e];
#pragma unroll
            for (int e = 0; e < A; e++) {
                if (a0 + e >= m)
                    break;
#pragma unroll
                for (int c3 = 0; c3 < 3; c3++) {
                    acc[c3] += v[e][c3];
                    if (PROJ)
                        rq[c3] += cuda_modes_fixed(v[e][c3]);
                }
            }
        }
    } else {
        const int mu = group - 2;
        for (int a0 = 0; a0 < m; a0 += A) {
            double va[A], vb[A][3];
#pragma unroll
            for (int e = 0; e < A; e++) {
                va[e] = s0t[mu * TD + a0 + e];
#pragma unroll
                for (int nu = 0; nu < 3; nu++)
                    vb[e][nu] = s1t[nu * TD + a0 + e];
            }
#pragma unroll
            for (int e = 0; e < A; e++) {
                if (a0 + e >= m)
                    break;
#pragma unroll
                for (int nu = 0; nu < 3; nu++) {
                    acc[nu] += va[e] * vb[e][nu];
                }
            }
        }
    }
}

template <int PROJ>
__device__ __forceinline__ void heisenberg_consume(int group, int ndim, const double *tile, int k0,
                                                   int m, double (&acc)[3], int (&rq)[3])
{
    if (m == HEISENBERG_TILE_SITES) {
        if (ndim == 3)
            heisenberg_consume_of<PROJ, 3, true>(group, tile, k0, m, acc, rq);
        else
            heisenberg_consume_of<PROJ, 2, true>(group, tile, k0, m, acc, rq);
    } else if (ndim == 3) {
        heisenberg_consume_of<PROJ, 3, false>(group, tile, k0, m, acc, rq);
    } else {
        heisenberg_consume_of<PROJ, 2, false>(group, tile, k0, m, acc, rq);
    }
}

/* The consumer warps of NG groups (2 with one replica, 5 with two): one a group, a lane a
 * chunk, except the overlaps' two of each warp, one a half (16 lanes: the 16 chunks). */
__host__ __device__ constexpr int heisenberg_consumer_warps(int ng)
{
    return ng == 5 ? 4 : 2;
}

/* NG groups' consumer warps, then the producers. */
template <int PROJ, int NG, typename I>
__global__ void __launch_bounds__(32 * heisenberg_consumer_warps(NG) + HEISENBERG_PRODUCERS,
                                  HEISENBERG_SUMS_BLOCKS)
heisenberg_chunk_sums_kernel(const cuda_heisenberg_geom g, const float *__restrict__ spins,
                             const float *__restrict__ J, long long rows_per_chunk,
                             long long nchunks, double *partials, heisenberg_fixed_proj fp)
{
    static_assert(PROJ == 0 || NG == 2, "the projections with one replica");
    static_assert(HEISENBERG_TILE_CHUNKS == 16, "a consumer lane a chunk, two groups a warp");
    constexpr bool two = NG > 2;
    constexpr int TD = HEISENBERG_TILE_DOUBLES;
    constexpr int TILE = heisenberg_tile_arrays(two) * TD; /* doubles a tile */
    extern __shared__ double sums_smem[];
    double *tiles = sums_smem;
    __shared__ int chunk_y[HEISENBERG_TILE_CHUNKS], chunk_z[HEISENBERG_TILE_CHUNKS];
    const long long chunk0 = (long long)blockIdx.x * HEISENBERG_TILE_CHUNKS;
    const int chunk_sites = (int)(rows_per_chunk * g.lx); /* at most max(1024, L_x) */
    const int nsteps = (chunk_sites + HEISENBERG_TILE_SITES - 1) / HEISENBERG_TILE_SITES;
    const float *s0 = spins, *s1 = spins + 3 * g.n;
    const int t = (int)threadIdx.x, w = t / 32, lane = t % 32;
    if (t < HEISENBERG_TILE_CHUNKS) {
        const long long row = (chunk0 + t) * rows_per_chunk;
        chunk_y[t] = (int)(row % g.ly);
        chunk_z[t] = (int)(row / g.ly);
    }
    /* the consumers: group `group`, lane cb adds chunk chunk0 + cb (the upper half of
     * warps 0 and 1, and of warp 3, idle: group NG) */
    constexpr int NCW = heisenberg_consumer_warps(NG);
    const bool producer = w >= NCW;
    const int half = lane / 16, cb = lane % 16;
    const int group = w < 2 ? (half ? NG : w) : 2 + 2 * (w - 2) + half;
    const long long my_chunk = chunk0 + cb;
    const bool accumulates = !producer && group < NG && my_chunk < nchunks;
    double acc[3] = { 0.0, 0.0, 0.0 };
    /* the projections' counters after the tiles, the columns' zeroed by all */
    long long *proj_rows = (long long *)(tiles + 2 * TILE);
    unsigned *proj_col_lo = (unsigned *)(proj_rows + HEISENBERG_PROJ_C * HEISENBERG_TILE_CHUNKS);
    int *proj_col_hi = (int *)(proj_col_lo + HEISENBERG_PROJ_C * g.lx);
    int u0 = 0, u1 = 0;
    if (PROJ) {
        if (producer)
            heisenberg_proj_units(w - NCW, &u0, &u1);
        for (int i = t; i < HEISENBERG_PROJ_C * HEISENBERG_TILE_CHUNKS; i += blockDim.x)
            proj_rows[i] = 0;
        if (PROJ == HEISENBERG_PROJ_SHARED)
            for (int i = t; i < HEISENBERG_PROJ_C * g.lx; i += blockDim.x) {
                proj_col_lo[i] = 0;
                proj_col_hi[i] = 0;
            }
    }
    __syncthreads();
    /* a producer's items: chunk pw + 8 u of the block, site `lane` of each step */
    const int pw = w - NCW;
    heisenberg_item<I> it[HEISENBERG_TILE_ITEMS];
    heisenberg_site_loads l[HEISENBERG_TILE_ITEMS];
    if (producer)
#pragma unroll
        for (int u = 0; u < HEISENBERG_TILE_ITEMS; u++) {
            heisenberg_item_start<I>(g, chunk0, nchunks, chunk_sites, chunk_y, chunk_z,
                                     pw + HEISENBERG_PRODUCER_WARPS * u, lane, &it[u]);
            if (it[u].chunk_in && lane < chunk_sites)
                heisenberg_item_load<I>(g, s0, s1, J, two, it[u], &l[u]);
        }
    /* step s: the producers make step s into tile s % 2, the consumers add step s - 1 */
    for (int s = 0; s <= nsteps; s++) {
        const double *last = tiles + ((s - 1) & 1) * TILE; /* step s - 1's */
        const int j1 = (s - 1) * HEISENBERG_TILE_SITES;
        /* step s - 1's place in its row (the projections: L_x a multiple of the step) */
        const int r1 = PROJ ? j1 / g.lx : 0, x1 = j1 - r1 * g.lx;
        if (producer) {
            const int j0 = s * HEISENBERG_TILE_SITES;
            if (s < nsteps) {
                double *tile = tiles + (s & 1) * TILE;
                const bool in = j0 + lane < chunk_sites;
#pragma unroll
                for (int u = 0; u < HEISENBERG_TILE_ITEMS; u++)
                    if (it[u].chunk_in && in)
                        heisenberg_item_terms(l[u], g.ndim, two, tile,
                                              (pw + HEISENBERG_PRODUCER_WARPS * u) *
                                                      HEISENBERG_TILE_PITCH + lane);
            }
            /* then the next step's loads, in flight during the barrier (loads issued
             * between an item's terms and the next's made the next wait for them: a
             * warp's scoreboards are shared by its loads) */
            const bool next = j0 + HEISENBERG_TILE_SITES + lane < chunk_sites;
            if (s < nsteps)
#pragma unroll
                for (int u = 0; u < HEISENBERG_TILE_ITEMS; u++)
                    if (it[u].chunk_in && next) {
                        heisenberg_item_step<I>(g, &it[u]);
                        heisenberg_item_load<I>(g, s0, s1, J, two, it[u], &l[u]);
                    }
            /* the step before's columns */
            if (PROJ && s > 0 && u0 < u1)
                heisenberg_proj_columns<PROJ>(last + HEISENBERG_TILE_S0 * TD, u0, u1, lane, x1,
                                              g.lx, chunk0, nchunks, proj_col_lo, proj_col_hi,
                                              fp);
        } else if (s > 0 && accumulates) {
            int rq[3] = { 0, 0, 0 }; /* the step's row parts (|sum| < 2^31) */
            const int m = chunk_sites - j1 < HEISENBERG_TILE_SITES ? chunk_sites - j1
                                                                     : HEISENBERG_TILE_SITES;
            heisenberg_consume<PROJ>(group, g.ndim, last, cb * HEISENBERG_TILE_PITCH, m, acc, rq);
            if (PROJ && group == 1) /* components 0-2 */
                heisenberg_proj_rows(rq, cb, r1, x1 + HEISENBERG_TILE_SITES == g.lx, g.lx,
                                     chunk0, rows_per_chunk, proj_rows, fp);
        }
        __syncthreads();
    }
    if (PROJ == HEISENBERG_PROJ_SHARED) /* the columns, after the last step's barrier */
        for (int i = t; i < HEISENBERG_PROJ_C * g.lx; i += blockDim.x) {
            const long long v = cuda_modes_halves_value(proj_col_lo[i], proj_col_hi[i]);
            if (v != 0)
                atomicAdd(fp.proj + i / g.lx * fp.n_entries + i % g.lx, (unsigned long long)v);
        }
    if (!accumulates)
        return;
    if (group == 0) {
        partials[HEISENBERG_SUM_BONDS * nchunks + my_chunk] = acc[0];
    } else {
        const int k0 = group == 1 ? HEISENBERG_SUM_MAG : HEISENBERG_SUM_OVERLAP + 3 * (group - 2);
        for (int c = 0; c < 3; c++)
            partials[(k0 + c) * nchunks + my_chunk] = acc[c];
    }
}

template <int PROJ, int NG>
static cudaError_t launch_chunk_sums_of(cudaStream_t stream, long long blocks,
                                        const cuda_heisenberg_geom &g, const float *spins,
                                        const float *J, long long rows_per_chunk,
                                        long long nchunks, double *partials,
                                        const heisenberg_fixed_proj &fp)
{
    const size_t smem = heisenberg_sums_smem(PROJ, NG > 2, g.lx);
    /* 32-bit indices where the spins' largest (two replicas: 6 n) fits an int */
    const bool narrow = 6 * g.n < (long long)INT_MAX;
    const void *k = narrow ? (const void *)heisenberg_chunk_sums_kernel<PROJ, NG, int>
                           : (const void *)heisenberg_chunk_sums_kernel<PROJ, NG, long long>;
    /* the kernel's attribute at the device's whole room, not this L_x's smem: another
     * sim's thread may launch it with another size (cuda_allow_shared) */
    const cudaError_t err = cuda_allow_shared(k, smem);
    if (err != cudaSuccess)
        return err;
    const unsigned threads = 32 * heisenberg_consumer_warps(NG) + HEISENBERG_PRODUCERS;
    if (narrow)
        heisenberg_chunk_sums_kernel<PROJ, NG, int><<<(unsigned)blocks, threads, smem, stream>>>(
            g, spins, J, rows_per_chunk, nchunks, partials, fp);
    else
        heisenberg_chunk_sums_kernel<PROJ, NG, long long>
            <<<(unsigned)blocks, threads, smem, stream>>>(g, spins, J, rows_per_chunk, nchunks,
                                                          partials, fp);
    return cudaGetLastError();
}

/* The columns' counters of one block in shared memory, at most (two blocks an SM beside
 * their tiles); wider rows' columns go to P_x step by step (HEISENBERG_PROJ_GLOBAL). */
#define HEISENBERG_PROJ_SMEM_MAX ((size_t)32 << 10)

static cudaError_t launch_chunk_sums(cudaStream_t stream, const cuda_heisenberg_geom &g,
                                     const float *spins, const float *J, long long rows_per_chunk,
                                     long long nchunks, double *partials,
                                     const heisenberg_fixed_proj *fp)
{
    const long long blocks = (nchunks + HEISENBERG_TILE_CHUNKS - 1) / HEISENBERG_TILE_CHUNKS;
    const heisenberg_fixed_proj none = { NULL, 0, 0, 0, 1 };
    if (!fp)
        return g.nrep == 2 ? launch_chunk_sums_of<0, 5>(stream, blocks, g, spins, J,
                                                        rows_per_chunk, nchunks, partials, none)
                           : launch_chunk_sums_of<0, 2>(stream, blocks, g, spins, J,
                                                        rows_per_chunk, nchunks, partials, none);
    if (heisenberg_proj_smem(HEISENBERG_PROJ_SHARED, g.lx) <= HEISENBERG_PROJ_SMEM_MAX)
        return launch_chunk_sums_of<HEISENBERG_PROJ_SHARED, 2>(
            stream, blocks, g, spins, J, rows_per_chunk, nchunks, partials, *fp);
    return launch_chunk_sums_of<HEISENBERG_PROJ_GLOBAL, 2>(stream, blocks, g, spins, J,
                                                           rows_per_chunk, nchunks, partials, *fp);
}

/* Each plane's chunks in chunk order, from zero: one thread per (accumulator, plane),
 * into plane_sums[q HEISENBERG_NSUMS + k], or, where plane_sums is NULL, in place into the
 * plane's first chunk (partials[k nchunks + q chunks_per_plane]: only this thread reads
 * the plane's chunks). */
__global__ void heisenberg_plane_total_kernel(double *partials, long long nchunks,
                                        long long chunks_per_plane, int nsums, double *plane_sums)
{
    const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    const long long nplanes = nchunks / chunks_per_plane;
    if (t >= nplanes * nsums)
        return;
    const int k = (int)(t / nplanes);
    const long long q = t - (long long)k * nplanes;
    double *p = partials + (long long)k * nchunks + q * chunks_per_plane;
    double plane = 0.0;
    for (long long c = 0; c < chunks_per_plane; c++)
        plane += p[c];
    if (plane_sums)
        plane_sums[q * HEISENBERG_NSUMS + k] = plane;
    else
        p[0] = plane;
}

/* The chunk sums (and with fp the projections), then each plane's (into plane_sums, or in
 * place: NULL). */
static cudaError_t chunk_and_plane_sums(cudaStream_t stream, const struct cuda_heisenberg_geom *g,
                                        const float *spins, const float *J,
                                        long long rows_per_chunk, long long nchunks,
                                        double *partials, double *plane_sums,
                                        const heisenberg_fixed_proj *fp)
{
    cudaError_t err =
        launch_chunk_sums(stream, *g, spins, J, rows_per_chunk, nchunks, partials, fp);
    if (err != cudaSuccess)
        return err;
    const long long rows_per_plane = g->ndim == 3 ? g->ly : 1; /* rows_per_chunk divides it */
    const long long per_plane = rows_per_plane / rows_per_chunk;
    const int nsums = g->nrep == 2 ? HEISENBERG_NSUMS : HEISENBERG_SUM_OVERLAP;
    const long long items = nchunks / per_plane * nsums;
    heisenberg_plane_total_kernel<<<(unsigned)((items + 127) / 128), 128, 0, stream>>>(
        partials, nchunks, per_plane, nsums, plane_sums);
    return cudaGetLastError();
}

extern "C" cudaError_t cuda_heisenberg_measure_planes(cudaStream_t stream,
                                                const struct cuda_heisenberg_geom *g,
                                                const float *spins, const float *J,
                                                long long rows_per_chunk, long long nchunks,
                                                double *partials, double *plane_sums)
{
    return chunk_and_plane_sums(stream, g, spins, J, rows_per_chunk, nchunks, partials,
                                plane_sums, NULL);
}

extern "C" bool cuda_heisenberg_measure_proj_fits(const struct cuda_heisenberg_geom *g)
{
    return g->nrep == 1 && g->lx % HEISENBERG_TILE_SITES == 0;
}

extern "C" cudaError_t cuda_heisenberg_measure_planes_proj(
    cudaStream_t stream, const struct cuda_heisenberg_geom *g, const float *spins, const float *J,
    long long rows_per_chunk, long long nchunks, double *partials, double *plane_sums,
    int64_t *proj, const struct cuda_fixed_range *r)
{
    if (!cuda_heisenberg_measure_proj_fits(g))
        return cudaErrorNotSupported;
    heisenberg_fixed_proj fp;
    int64_t last_at;
    fp.proj = (unsigned long long *)proj;
    fp.n_entries = cuda_fixed_range_entries(r, &last_at);
    fp.last_at = last_at;
    fp.global_p0 = r->global_p0;
    fp.rows_per_plane = r->ndim == 3 ? r->extent[1] : 1;
    return chunk_and_plane_sums(stream, g, spins, J, rows_per_chunk, nchunks, partials,
                                plane_sums, &fp);
}
