/*
 * Potts members of an ensemble in one launch (doc/ensembles.md, "Execution"): the grid
 * covers every member, `bpm` blocks a member (blockIdx.x / bpm is the member), and each
 * block runs the single-lattice kernels' own per-thread code on its member: the row
 * segments of potts/potts_rows.cuh (pr_hb_step or pr_metro_step, their step held in
 * registers, ens_potts_step; the decision table built in shared memory from the member's
 * device tables, as potts_rows.cu's blocks build theirs; the segments walked by classes of
 * rows, ens_potts_walk, so that a warp's lanes take one branch), or, where the row kernels
 * do not take the lattice, the reference's per-Philox-block update latmc_potts_step_lanes
 * (lib/potts_rules.h, as potts_kernels.cu).
 * Each member's draws are its own seed's, named as its standalone sim names them; the
 * sites, draws and integer decisions are the single-lattice kernels', so every member is
 * bit for bit its standalone CUDA sim (and the CPU's).
 *
 * One step a launch (n_sweeps 0: any member size, the plan's step), or, for small members
 * (cuda_ens_potts_fused_fits: one block a member), every colour of n_sweeps sweeps: the
 * block builds its member's table once, and a block barrier separates the colours (a
 * colour's sites read only the other colours, which the block's threads wrote before it).
 * The geometry stays in the parameter bank (each step's colour and draws in registers) and
 * each thread places its segments once, so a step is its segments and one barrier.
 */
#include "cuda_kernel_choice.cuh"
#include "cuda_launch.cuh"
#include "potts_batch.h"
#include "potts_rows.cuh"
#include "potts_rules.h"

/* Threads a block: a member of 64^2 (2D, 16-byte segments) is 256 segments a colour, one
 * a thread. At least 3 blocks an SM: <= 85 registers (at the single-lattice kernels' 64
 * several of these spill, the loop over the steps holding more; the larger tables, 2D
 * q >= 5's 128-202 KiB, allow 1 block an SM anyway). */
#define ENS_POTTS_MIN_BLOCKS 3
#define ENS_POTTS_THREADS 256
/* Members of up to this many sites run whole sweeps in one launch, one block each (a
 * thread then has at most 16 segments or Philox blocks a colour). */
#define ENS_POTTS_FUSED_SITES 32768

/*
 * The row kernels' walk over a member's segments by classes of rows (ens_potts_walk): class
 * p = (y + z) mod c holds the rows whose colour's sites sit at one offset in their groups of
 * c bytes (potts_rows.cuh, pr_offset), so a warp's consecutive segments of one class all
 * take one branch of the offset's switch. (In the natural order a warp of a 64^2 member
 * spans 8 rows, of a 16^3 member 32: both offsets, half the lanes idle in each.) The
 * members' segments counted as J = ((p lz + z) half + yh) spr + xs, the row
 * y = c yh + ((p - z) mod c); a stride of the walk as the same digits.
 */
struct ens_potts_classes {
    uint32_t half;               /* rows of a class in a plane: L_y / c */
    uint32_t st_xs, st_yh, st_z; /* a stride's digits (st_z may pass L_z: classes) */
};

struct ens_potts_launch {
    struct pr_geom g;            /* the row kernels' geometry of one member (stride: bpm blocks) */
    struct ens_potts_classes k;  /* the walk of the row kernels (ens_potts_walk) */
    struct latmc_lattice lat;    /* the reference kernel's */
    int bpm;                     /* blocks a member */
    struct cuda_ens_potts_run run;
};

/*
 * The launch's steps, body(name, colour) each, with a block barrier before every step but
 * the first (the previous colour's writes, made by this block's threads, are then visible
 * to all of them; only one-block-a-member launches run more than one step).
 */
template <class Body>
__device__ __forceinline__ void ens_potts_each_step(const cuda_ens_potts_run &r, Body &body)
{
    if (r.n_sweeps == 0) {
        body(r.rng, r.colour);
        return;
    }
    for (uint64_t s = 0; s < r.n_sweeps; s++)
        for (int c = 0; c < r.colours; c++) {
            if (s != 0 || c != 0)
                __syncthreads();
            /* potts_step_of's name (lib/model_potts.c; the host checks they agree) */
            body(latmc_rng_update_name(r.sweep0 + s, (uint32_t)c, r.sub), c);
        }
}

/* The step of the row kernels' segments (pr_hb_step, pr_metro_step: their S), its colour,
 * draws and their folds under the member's keys held here, set by set() (the geometry is
 * the launch's, in the parameter bank, as the single-lattice kernels read theirs). */
struct ens_potts_step {
    static constexpr bool folded = true;
    int colour;
    struct latmc_rng_name draws, accept;
    struct cuda_philox_name_fold draws_fold, accept_fold;
    __device__ void set(struct latmc_rng_name name, int c, const struct cuda_philox_keys &keys)
    {
        colour = c;
        draws = name;
        accept = latmc_rng_name_sub(name, LATMC_POTTS_SUB_ACCEPT);
        draws_fold = cuda_philox_name_fold_by(keys, draws);
        accept_fold = cuda_philox_name_fold_by(keys, accept);
    }
    __device__ int colour_of(const struct pr_geom &) const { return colour; }
    __device__ const struct latmc_rng_name &draws_of(const struct pr_geom &) const
    {
        return draws;
    }
    __device__ const struct latmc_rng_name &accept_of(const struct pr_geom &) const
    {
        return accept;
    }
    __device__ const struct cuda_philox_name_fold &draws_fold_of(const struct pr_geom &) const
    {
        return draws_fold;
    }
    __device__ const struct cuda_philox_name_fold &accept_fold_of(const struct pr_geom &) const
    {
        return accept_fold;
    }
};

/* Where a walk stands: segment J's class and digits (ens_potts_classes). */
struct ens_potts_place {
    uint32_t p, z, yh, xs;
};

/* The place of segment J (divisions: once a launch). J >= nseg: p >= c, nothing to walk. */
template <int C>
__device__ __forceinline__ struct ens_potts_place
ens_potts_place_of(const struct pr_geom &g, const struct ens_potts_classes &k, int64_t J)
{
    const int64_t per_class = g.nseg / C, j = J % per_class, row = j / g.spr;
    const struct ens_potts_place at = { (uint32_t)(J / per_class), (uint32_t)(row / k.half),
                                        (uint32_t)(row % k.half), (uint32_t)(j % g.spr) };
    return at;
}

/* The segments from `at` on, a stride apart, class by class: each segment(s, xs, y, z). */
template <int C, class Segment>
__device__ __forceinline__ uint64_t ens_potts_walk(const struct pr_geom &g,
                                                   const struct ens_potts_classes &k,
                                                   struct ens_potts_place at,
                                                   const Segment &segment)
{
    uint64_t count = 0;
    while (at.p < C) {
        const uint32_t y = C * at.yh + (at.p + C - at.z % C) % C; /* (y + z) mod c = p */
        const int64_t s = ((int64_t)at.z * g.ly + y) * g.spr + at.xs;
        count += segment(s, at.xs, y, Segment::ndim == 2 ? 0u : at.z);
        at.xs += k.st_xs;
        at.yh += k.st_yh;
        if (at.xs >= g.spr) {
            at.xs -= g.spr;
            at.yh++;
        }
        at.z += k.st_z;
        if (at.yh >= k.half) {
            at.yh -= k.half;
            at.z++;
        }
        while (at.z >= g.lz) { /* into the next class (2D: where yh passes the last row) */
            at.z -= g.lz;
            at.p++;
        }
    }
    return count;
}

/* A row kernel's steps on its member: the thread's segments, placed once (the same ones
 * every step), walked with each step's colour and draws. */
template <int C, class Segment> struct ens_potts_rows_body {
    Segment seg;
    const struct ens_potts_classes *k;
    struct ens_potts_place at;
    uint64_t count;
    __device__ void operator()(struct latmc_rng_name name, int colour)
    {
        seg.step.set(name, colour, *seg.keys);
        count += ens_potts_walk<C>(*seg.g, *k, at, seg);
    }
};

template <int C, class Segment>
__device__ __forceinline__ ens_potts_rows_body<C, Segment>
ens_potts_rows(const Segment &seg, const struct ens_potts_classes &k, int64_t first)
{
    const ens_potts_rows_body<C, Segment> b = { seg, &k,
                                                ens_potts_place_of<C>(*seg.g, k, first), 0 };
    return b;
}

template <int NDIM, int C, int NW, int NT, bool REPL, bool HI>
__global__ void __launch_bounds__(ENS_POTTS_THREADS, ENS_POTTS_MIN_BLOCKS)
ens_potts_hb_kernel(const __grid_constant__ struct ens_potts_launch L,
                    const struct cuda_ens_potts_member *members, unsigned long long *changed)
{
    extern __shared__ uint4 ens_pr_smem[];
    __shared__ struct cuda_philox_keys keys;
    uint32_t *table = (uint32_t *)ens_pr_smem;
    const int m = (int)(blockIdx.x / (unsigned)L.bpm);
    const struct cuda_ens_potts_member me = members[m];
    if (threadIdx.x == 0)
        latmc_philox_round_keys(me.seed, keys.k);
    const int64_t entries = pr_hb_table_entries(NDIM, L.g.radix);
    for (int64_t e = threadIdx.x; e < entries; e += blockDim.x)
        pr_hb_build_entry<NDIM, NT, REPL>(L.g, me.tables, (uint32_t)e, table);
    __syncthreads();
    const pr_hb_step<NDIM, C, NW, NT, REPL, HI, ens_potts_step> seg = {
        &L.g, me.spins, table, threadIdx.x & 7u, &keys, {} };
    auto body = ens_potts_rows<C>(seg, L.k, (int64_t)(blockIdx.x % (unsigned)L.bpm) *
                                                   blockDim.x + threadIdx.x);
    ens_potts_each_step(L.run, body);
    cuda_warp_add(changed + m, body.count);
}

template <int NDIM, int C, int NW>
__global__ void __launch_bounds__(ENS_POTTS_THREADS, ENS_POTTS_MIN_BLOCKS)
ens_potts_metro_kernel(const __grid_constant__ struct ens_potts_launch L,
                       const struct cuda_ens_potts_member *members, unsigned long long *changed)
{
    __shared__ uint64_t thr[PR_METRO_ENTRIES * 16];
    __shared__ struct cuda_philox_keys keys;
    const int m = (int)(blockIdx.x / (unsigned)L.bpm);
    const struct cuda_ens_potts_member me = members[m];
    if (threadIdx.x == 0)
        latmc_philox_round_keys(me.seed, keys.k);
    for (int i = threadIdx.x; i < PR_METRO_ENTRIES * 16; i += blockDim.x)
        thr[i] = pr_metro_entry(me.tables, i / 16);
    __syncthreads();
    const pr_metro_step<NDIM, C, NW, ens_potts_step> seg = { &L.g, me.spins, thr,
                                                             threadIdx.x & 15u, &keys, {} };
    auto body = ens_potts_rows<C>(seg, L.k, (int64_t)(blockIdx.x % (unsigned)L.bpm) *
                                                   blockDim.x + threadIdx.x);
    ens_potts_each_step(L.run, body);
    cuda_warp_add(changed + m, body.count);
}

/* The reference kernel's steps: the thread's Philox blocks of the colour, each by
 * latmc_potts_step_lanes (potts_kernels.cu's per-block update). */
struct ens_potts_ref_body {
    const struct latmc_lattice *lat;
    uint8_t *spins;
    struct latmc_potts_chain chain;
    int64_t first, stride, nblocks;
    uint8_t *n_of;
    uint64_t count;
    __device__ void operator()(struct latmc_rng_name name, int colour)
    {
        for (int64_t b = first; b < nblocks; b += stride)
            count += latmc_potts_step_lanes(lat, spins, &chain, name, colour, b, 0, 4, n_of);
    }
};

__global__ void __launch_bounds__(ENS_POTTS_THREADS)
ens_potts_ref_kernel(const __grid_constant__ struct ens_potts_launch L,
                     const struct cuda_ens_potts_member *members, unsigned long long *changed)
{
    const int m = (int)(blockIdx.x / (unsigned)L.bpm);
    const struct cuda_ens_potts_member me = members[m];
    /* the heat bath's per-state counters (0 between calls), cleared once a thread */
    uint8_t n_of[LATMC_POTTS_MAX_Q + 1];
    if (L.run.algorithm == LATMC_ALGO_HEATBATH)
        for (int k = 0; k <= LATMC_POTTS_MAX_Q; k++)
            n_of[k] = 0;
    ens_potts_ref_body body = {
        &L.lat, me.spins,
        { me.tables, L.run.algorithm, L.run.q, L.run.colours, me.seed },
        (int64_t)(blockIdx.x % (unsigned)L.bpm) * blockDim.x + threadIdx.x,
        (int64_t)L.bpm * blockDim.x, (L.lat.nsites / L.run.colours + 3) / 4, n_of, 0 };
    ens_potts_each_step(L.run, body);
    cuda_warp_add(changed + m, body.count);
}

/* ---- launch ---- */

/* The device's attributes the launches need (kept per device by cuda_device.c: a launch
 * pays one cudaGetDevice). */
struct ens_potts_device {
    int device, sms;
    int smem_block; /* opt-in shared memory of a block */
};

static cudaError_t ens_potts_device_of(struct ens_potts_device *out)
{
    struct ens_potts_device d = { 0, 0, 0 };
    cudaError_t err = cudaGetDevice(&d.device);
    if (err == cudaSuccess)
        err = cuda_device_sm_count(d.device, &d.sms);
    if (err == cudaSuccess)
        err = cuda_device_smem_optin(d.device, &d.smem_block);
    *out = d;
    return err;
}

/*
 * The table's copies in the members' blocks: pr_dispatch's, but one copy for 3D q <= 3
 * (729 entries: 11.7 KiB instead of 93, so an SM holds 3 blocks, not 2; its bank
 * conflicts cost less than the third block buys: one H200, 4096 x 16^3 heat bath 337
 * against 279 updates/ns). The same entries and lookups, the same decisions.
 */
template <int NDIM, int NT, bool REPL> constexpr bool ens_potts_repl()
{
    return REPL && !(NDIM == 3 && NT == 2);
}

/* Launches the batch kernel of what pr_dispatch() picks (potts_rows.cuh: the one place
 * that maps a lattice to a row kernel). */
struct ens_potts_launcher {
    cudaStream_t stream;
    unsigned grid;
    struct ens_potts_launch *L;
    const struct cuda_ens_potts_member *members;
    unsigned long long *changed;

    template <int NDIM, int C, int NW, int NT, bool REPL, bool HI>
    cudaError_t hb(const struct pr_geom &g)
    {
        constexpr bool R = ens_potts_repl<NDIM, NT, REPL>();
        const size_t bytes = pr_hb_table_bytes<NT, R>(NDIM, g.radix);
        auto kernel = ens_potts_hb_kernel<NDIM, C, NW, NT, R, HI>;
        if (bytes > 47 * 1024) { /* beside the static part, over the default 48 KiB */
            const cudaError_t err = cuda_allow_shared((const void *)kernel, bytes);
            if (err != cudaSuccess)
                return err;
        }
        L->g = g;
        kernel<<<grid, ENS_POTTS_THREADS, bytes, stream>>>(*L, members, changed);
        return cudaGetLastError();
    }

    template <int NDIM, int C, int NW> cudaError_t metro(const struct pr_geom &g)
    {
        L->g = g;
        ens_potts_metro_kernel<NDIM, C, NW><<<grid, ENS_POTTS_THREADS, 0, stream>>>(*L, members,
                                                                                  changed);
        return cudaGetLastError();
    }
};

/* The dynamic shared memory of the kernel pr_dispatch() picks. */
struct ens_potts_shared_bytes {
    template <int NDIM, int C, int NW, int NT, bool REPL, bool HI>
    size_t hb(const struct pr_geom &g)
    {
        return pr_hb_table_bytes<NT, ens_potts_repl<NDIM, NT, REPL>()>(NDIM, g.radix);
    }
    template <int NDIM, int C, int NW> size_t metro(const struct pr_geom &g)
    {
        (void)g;
        return 0; /* its table is static */
    }
};

extern "C" int cuda_ens_potts_fused_fits(const struct latmc_lattice *lat)
{
    return lat->nsites <= ENS_POTTS_FUSED_SITES;
}

/* Blocks a member: enough for its items (a thread each), at least one, and no more than
 * about two blocks an SM over all members (each block builds its member's table). */
static int blocks_per_member(int64_t items, int n, int sms)
{
    int64_t want = (items + ENS_POTTS_THREADS - 1) / ENS_POTTS_THREADS;
    const int64_t spread = (2 * (int64_t)sms + n - 1) / n;
    if (want > spread)
        want = spread;
    return want < 1 ? 1 : (int)want;
}

extern "C" cudaError_t cuda_ens_potts_steps(cudaStream_t stream, const struct latmc_lattice *lat,
                                            const struct cuda_ens_potts_member *members, int n,
                                            const struct cuda_ens_potts_run *run,
                                            unsigned long long *changed, int *rows)
{
    *rows = 0;
    struct ens_potts_device dev;
    const cudaError_t err = ens_potts_device_of(&dev);
    if (err != cudaSuccess)
        return err;
    struct ens_potts_launch L;
    memset(&L, 0, sizeof L);
    L.lat = *lat;
    L.run = *run;
    const bool fused = run->n_sweeps != 0;
    /* the row kernels where the single lattice runs them (potts_rows.cu, rows_sweep) */
    int nw = pr_words_hb(lat, run->colours, run->algorithm, run->q);
    /* whole sweeps: 16-byte segments where the 32-byte ones (2D q >= 5) leave threads of
     * the member's block without a segment (64^2: 128 of 256) */
    if (fused && nw == 8 && lat->nsites / 32 < ENS_POTTS_THREADS)
        nw = pr_words(lat, run->colours);
    if (!cuda_reference_kernels_only() && nw != 0 &&
        (run->algorithm != LATMC_ALGO_HEATBATH || pr_hb_table_q(lat->ndim, run->q))) {
        const int64_t nseg = lat->nsites / (4 * nw);
        L.bpm = fused ? 1 : blocks_per_member(nseg, n, dev.sms);
        struct pr_geom g;
        if (pr_geom_init(&g, lat, run->colours, nw, run->q, run->colour, run->rng,
                         (int64_t)L.bpm * ENS_POTTS_THREADS)) {
            /* the walk by classes (every extent a multiple of the colours) */
            const int64_t stride = (int64_t)L.bpm * ENS_POTTS_THREADS, st_rows = stride / g.spr;
            L.k.half = g.ly / (uint32_t)run->colours;
            L.k.st_xs = (uint32_t)(stride % g.spr);
            L.k.st_yh = (uint32_t)(st_rows % L.k.half);
            L.k.st_z = (uint32_t)(st_rows / L.k.half);
            struct ens_potts_shared_bytes size;
            const size_t bytes = pr_dispatch(size, g, run->colours, nw, run->algorithm);
            /* with the static part (the keys) */
            if (bytes + 1024 <= (size_t)dev.smem_block) {
                struct ens_potts_launcher l = { stream, (unsigned)n * (unsigned)L.bpm, &L,
                                                members, changed };
                *rows = 1;
                return pr_dispatch(l, g, run->colours, nw, run->algorithm);
            }
        }
    }
    /* the reference kernel: a thread a Philox block of four sites of the colour */
    L.bpm = fused ? 1 : blocks_per_member((lat->nsites / run->colours + 3) / 4, n, dev.sms);
    ens_potts_ref_kernel<<<(unsigned)n * (unsigned)L.bpm, ENS_POTTS_THREADS, 0, stream>>>(
        L, members, changed);
    return cudaGetLastError();
}

/* ---- the members' sums ---- */

/*
 * The integer sums of lib/potts.h of every member, one block a member: matches (each site
 * with its +x, +y (, +z) neighbour, periodic) and the sites in each state, in a block
 * histogram. Integers: the order of the additions does not matter, so each member's sums
 * are exactly its own measurement's. out: q + 1 counters a member, matches first.
 */
__global__ void __launch_bounds__(ENS_POTTS_THREADS)
ens_potts_measure_kernel(const __grid_constant__ struct latmc_lattice g,
                         const struct cuda_ens_potts_member *members, int q,
                         unsigned long long *out)
{
    __shared__ unsigned int hist[LATMC_POTTS_MAX_Q + 1];
    __shared__ unsigned long long matches_all;
    for (int k = threadIdx.x; k < q; k += blockDim.x)
        hist[k] = 0;
    if (threadIdx.x == 0)
        matches_all = 0;
    __syncthreads();
    const uint8_t *spins = members[blockIdx.x].spins;
    const int64_t lx = g.lx, ly = g.ly, lz = g.lz, plane = g.lx * g.ly;
    unsigned long long matches = 0;
    for (int64_t i = threadIdx.x; i < g.nsites; i += blockDim.x) {
        const int64_t x = i % lx, row = i / lx, y = row % ly, z = row / ly;
        const unsigned s = spins[i];
        matches += (s == spins[i + (x + 1 == lx ? 1 - lx : 1)]) +
                   (s == spins[i + (y + 1 == ly ? -(ly - 1) * lx : lx)]);
        if (g.ndim == 3)
            matches += s == spins[i + (z + 1 == lz ? -(lz - 1) * plane : plane)];
        atomicAdd(&hist[s], 1u); /* s < q: a member's states are valid */
    }
    cuda_warp_add(&matches_all, matches);
    __syncthreads();
    unsigned long long *mine = out + (size_t)blockIdx.x * (size_t)(q + 1);
    if (threadIdx.x == 0)
        mine[0] = matches_all;
    for (int k = threadIdx.x; k < q; k += blockDim.x)
        mine[1 + k] = hist[k];
}

extern "C" cudaError_t cuda_ens_potts_measure(cudaStream_t stream, const struct latmc_lattice *lat,
                                              const struct cuda_ens_potts_member *members, int n,
                                              int q, unsigned long long *out)
{
    ens_potts_measure_kernel<<<(unsigned)n, ENS_POTTS_THREADS, 0, stream>>>(*lat, members, q,
                                                                          out);
    return cudaGetLastError();
}
