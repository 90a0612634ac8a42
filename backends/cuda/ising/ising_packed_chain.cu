/*
 * A chain of colour steps of the packed layout in one launch (ising_packed.h,
 * cuda_ising_packed_chain; doc/cuda.md, "Chains of steps").
 *
 * Why: a small lattice's step launched on its own costs more than its sites at a large
 * lattice's rate. A warp-level timeline of the step kernels (globaltimer stamps; one H100,
 * 4096^2 and 256^3) showed each launch's warps ending over 5-11 us (a thread takes one or
 * two groups of 64 sites, each some 6 us of latency) and about 2 us between one launch's
 * last warp and the next one's first: the SMs idle for a quarter to a third of a step.
 * Here the warps of one resident wave take tasks from a queue in step order, a task being
 * 32 consecutive groups of the step's colour (a group of 8 words, or 2 or 1 on the
 * smallest lattices, a lane: packed_update_group, the step kernels' update), and start one
 * as soon as the tasks of the step before that hold the rows its groups read are done: a
 * step's first tasks overlap the previous step's last ones, and no launch lies between
 * them.
 *
 * Dependencies. A step of colour c reads the other colour's words of its own rows and of
 * the rows y +- 1 and (3D) z +- 1, and writes its colour's words of its own rows. With
 * rows r = y + L_y z on a circle of L_y L_z rows, every row a step reads is within R rows
 * of its own (R = 1 in 2D; L_y in 3D: z +- 1 is L_y rows away, the periodic y neighbour
 * L_y - 1). A task of step s waits until every task of step s - 1 holding a row within R
 * of its rows has its stamp. Then what it reads is written (step s - 1 wrote the other
 * colour there), step s - 1 no longer reads what it writes (the readers of its rows are
 * those tasks), and step s - 2's writes of its rows are done (task j of step s - 2 lies in
 * the window of task j of step s - 1, which waited for it). The first step of a launch
 * waits for nothing: the launch follows the stream's earlier work.
 *
 * Order and progress: the queue hands out tasks step by step, so when a warp takes a task
 * of step s every task of step s - 1 is held by a running warp (a warp holds one task at a
 * time and runs it to the end), which waits only for tasks of step s - 2: the earliest
 * unfinished task waits for nothing, and no residency of the whole grid is needed (a block
 * not started holds no task). Step s takes its tasks from task s x shift on, shift being
 * the task window's width and one: the first tasks of a step then read rows that the step
 * before did among its first, not among its last (on the circle the rows before a step's
 * start are next to it), so they rarely wait.
 *
 * Memory: a task's lanes store their words, the warp synchronises, and lane 0 stores the
 * task's stamp with release semantics (gpu scope); a waiting task's lanes read the stamps
 * with acquire loads (gpu scope), then the warp synchronises before any lane loads a
 * word: the pattern of a grid's sync, at the scale of a warp. The acquire also keeps the
 * SM's L1 from serving words of earlier steps that other SMs rewrote in the same launch.
 */
#include "cuda_launch.cuh"
#include "cuda_philox.cuh"
#include "ising_packed.cuh"
#include "ising_packed_groups.cuh"
#include "ising_packed_waves.cuh"

#include <latmc/sim.h> /* LATMC_ALGO_* */

#define CHAIN_WARP 32
#define CHAIN_FULL 0xffffffffu

struct chain_args {
    struct cuda_philox_keys keys;
    /* each step's fold words (the keys, which the seed alone sets, every step shares) */
    struct cuda_philox_name_fold fold[CUDA_ISING_CHAIN_STEPS];
    unsigned long long colours; /* bit i: step i's colour */
    int n;                      /* steps */
    uint32_t stamp0;            /* step i's stamp: stamp0 + i + 1 */
    unsigned tasks;             /* tasks a step */
    long long groups;           /* groups a step (the colour's) */
    long long radius;           /* R: rows within which a step's reads lie */
    unsigned shift;             /* step s takes its tasks from task s shift on (mod tasks) */
};

static __device__ __forceinline__ uint32_t chain_acquire(const uint32_t *p)
{
    uint32_t v;
    asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

static __device__ __forceinline__ void chain_release(uint32_t *p, uint32_t v)
{
    asm volatile("st.release.gpu.global.u32 [%0], %1;" ::"l"(p), "r"(v) : "memory");
}

/* Tasks [first, first + count) (mod tasks) hold every row within R of task j's rows
 * (host-callable: tools/chain_host_check.cu checks it against every row each task reads). */
static __host__ __device__ __forceinline__ void chain_window(const struct packed_geom &p,
                                                            const struct chain_args &a,
                                                            unsigned j, long long *first,
                                                            long long *count)
{
    const long long rows = p.nrows, gpr = p.groups;
    const long long g0 = (long long)j * CHAIN_WARP;
    const long long g1 = (g0 + CHAIN_WARP < a.groups ? g0 + CHAIN_WARP : a.groups) - 1;
    const long long r0 = g0 / gpr - a.radius, r1 = g1 / gpr + a.radius;
    if (r1 - r0 + 1 >= rows) {
        *first = 0;
        *count = a.tasks;
        return;
    }
    /* rows r0 .. r1 on the circle: their tasks, from the first group of row r0 to the
     * last group of row r1 (r1 < r0 + rows) */
    const long long r0w = r0 < 0 ? r0 + rows : r0;
    const long long t0 = r0w * gpr / CHAIN_WARP;
    const long long t1 = ((r0w + (r1 - r0)) * gpr + gpr - 1) / CHAIN_WARP; /* unwrapped only */
    const long long tasks_around = (long long)a.tasks;
    long long c = t1 - t0 + 1;
    if ((r0w + (r1 - r0)) >= rows) /* wrapped: the tail rows' tasks counted from 0 again */
        c = (((r0w + (r1 - r0)) - rows) * gpr + gpr - 1) / CHAIN_WARP + 1 + (tasks_around - t0);
    *first = t0;
    *count = c > tasks_around ? tasks_around : c;
}

/* Until every task of the window has stamp `want` or later (stamps compared on the
 * circle of 2^32). */
static __device__ __forceinline__ void chain_wait(const uint32_t *done, long long first,
                                                  long long count, unsigned tasks, uint32_t want,
                                                  unsigned lane)
{
    for (long long i = lane; i < count; i += CHAIN_WARP) {
        long long k = first + i;
        if (k >= (long long)tasks)
            k -= tasks;
        while ((int32_t)(chain_acquire(done + k) - want) < 0)
            __nanosleep(64);
    }
    /* each lane's stamps acquired, then the warp's barrier: every lane's loads of the
     * window's words come after every stamp read (the pattern of a grid's sync) */
    __syncwarp();
}

/* three blocks an SM (80 registers): 24 warps, as the step kernels have */
template <int NW, int ND, bool HEATBATH, int CW, bool EARLY>
__global__ void __launch_bounds__(CUDA_THREADS, 3)
ising_packed_chain_kernel(struct packed_geom p, uint32_t *colour0, uint32_t *colour1,
                          const uint32_t *eps0, const uint32_t *eps1,
                          struct cuda_ising_packed_thresholds thr, struct chain_args a,
                          unsigned *next, uint32_t *done, unsigned long long *changed)
{
    __shared__ uint32_t table[16];
    if (threadIdx.x == 0) {
#pragma unroll
        for (int i = 0; i < 16; i++)
            table[i] = thr.t[i];
    }
    __syncthreads();
    const unsigned lane = threadIdx.x & (CHAIN_WARP - 1);
    const unsigned total = a.tasks * (unsigned)a.n;
    struct cuda_philox_folded draws;
    draws.keys = a.keys;
    unsigned long long flips = 0;
    for (;;) {
        unsigned q = 0;
        if (lane == 0)
            q = atomicAdd(next, 1u);
        q = __shfl_sync(CHAIN_FULL, q, 0);
        if (q >= total)
            break;
        const unsigned s = q / a.tasks;
        unsigned j = q - s * a.tasks + (unsigned)(((unsigned long long)s * a.shift) % a.tasks);
        if (j >= a.tasks)
            j -= a.tasks;
        if (s > 0) {
            long long first, count;
            chain_window(p, a, j, &first, &count);
            chain_wait(done, first, count, a.tasks, a.stamp0 + s, lane);
        }
        draws.c1_high = a.fold[s].c1_high;
        draws.p1_hi_k0 = a.fold[s].p1_hi_k0;
        draws.p1_lo_k1 = a.fold[s].p1_lo_k1;
        draws.c3_k0 = a.fold[s].c3_k0;
        const int colour = (int)((a.colours >> s) & 1u);
        /* fewer than 2^30 groups a step (cuda_ising_packed_chain_fits): 32-bit arithmetic */
        const unsigned gi = j * CHAIN_WARP + lane;
        if (gi < (unsigned)a.groups) {
            struct packed_walk wk;
            const unsigned r = gi / (unsigned)p.groups, z = r / (unsigned)p.ly;
            wk.s = gi;
            wk.g = gi - r * (unsigned)p.groups;
            wk.z = z;
            wk.y = r - z * (unsigned)p.ly;
            packed_update_group<NW, ND, HEATBATH, CW, EARLY>(
                p, packed_locate<NW>(p, wk, colour), colour ? colour1 : colour0,
                colour ? colour0 : colour1, colour ? eps1 : eps0, (const unsigned char *)table,
                draws, flips);
        }
        /* the release: the lanes' words, the warp's barrier, then lane 0's stamp with
         * release semantics (cumulative over the stores the barrier ordered before it) */
        __syncwarp();
        if (lane == 0)
            chain_release(done + j, a.stamp0 + s + 1);
    }
    cuda_warp_add(changed, flips);
}

template <int NW, int ND, bool HB, int CW, bool EARLY>
static cudaError_t launch_chain(cudaStream_t stream, const struct packed_geom &p,
                                uint32_t *colour0, uint32_t *colour1, uint32_t *const eps[2],
                                const struct cuda_ising_packed_thresholds *thr,
                                const struct chain_args &a, struct cuda_ising_chain *chain,
                                unsigned long long *changed)
{
    constexpr auto kernel = ising_packed_chain_kernel<NW, ND, HB, CW, EARLY>;
    /* one resident wave, at most a warp a task of a step: more would only wait (one H100,
     * 1024^2: half or a quarter of a step's tasks in warps 0.53x and 0.27x as fast) */
    const unsigned grid = resident_grid<kernel>((long long)a.tasks * CHAIN_WARP);
    cudaError_t err = cudaMemsetAsync(chain->next, 0, sizeof *chain->next, stream);
    if (err != cudaSuccess)
        return err;
    kernel<<<grid, CUDA_THREADS, 0, stream>>>(p, colour0, colour1, eps[0], eps[1], *thr, a,
                                              chain->next, chain->done, changed);
    return cudaGetLastError();
}

#define CHAIN_MAX_TASKS ((int64_t)1 << 25) /* tasks a step, at most */

/* Words a lane of a task: 2 where a step has fewer than CHAIN_FEW_TASKS tasks of 2 words
 * (1024^2, 128^3, 96^3 and smaller; a row of an even number of words: L_x of 32), else 8
 * (the step kernels' groups) where a row's words are a multiple of 8 (L_x of 128); 1 where
 * a row's words are odd (L_x an odd multiple of 16: 48, 80, ...) and a step has fewer than
 * CHAIN_FEW_TASKS tasks of 1 word; else no chain. Uniform and +-J couplings alike (+-J 2
 * words against 8, one H200: 1024^2 1.70x, 128^3 1.27x; 2048^2 with 2,048 tasks even).
 * Shorter tasks and more of them let more warps work at once and a step's tasks follow each
 * other sooner on small lattices, and cost more on larger ones (one H100, an earlier form
 * of the kernel, 2 words against 8: 1024^2 1.42x, 512^2 1.44x, 128^3 1.19x, 2048^2 with
 * 4,096 tasks of 2 0.90x; one H200, chains of 2 words against a launch a step: 64^3 1.51x,
 * 96^3 1.43x, 1120^2 1.5x, 160^3 with 4,000 tasks 0.87x). */
#define CHAIN_FEW_TASKS 2560

static int64_t chain_tasks(const struct latmc_lattice *g, int nw)
{
    const struct packed_geom p = packed_geom_of(g, nw);
    return (p.nrows * p.groups + CHAIN_WARP - 1) / CHAIN_WARP;
}

static int chain_words(const struct latmc_lattice *g)
{
    const int64_t wpr = g->lx / 16;
    if (wpr % 2 == 0 && chain_tasks(g, 2) < CHAIN_FEW_TASKS)
        return 2;
    if (wpr % 8 == 0)
        return 8;
    return wpr % 2 != 0 && chain_tasks(g, 1) < CHAIN_FEW_TASKS ? 1 : 0;
}

extern "C" bool cuda_ising_packed_chain_fits(const struct latmc_lattice *g)
{
    /* the queue counts tasks x steps (and a pass a warp past them) in 32 bits */
    const int nw = g->lx % 16 == 0 ? chain_words(g) : 0;
    return nw > 0 && chain_tasks(g, nw) < CHAIN_MAX_TASKS;
}

extern "C" cudaError_t cuda_ising_packed_chain_make(const struct latmc_lattice *g,
                                                    cudaStream_t stream,
                                                    struct cuda_ising_chain *chain)
{
    const int nw = chain_words(g);
    if (nw == 0)
        return cudaErrorInvalidValue;
    const int64_t tasks = chain_tasks(g, nw);
    chain->nw = nw;
    chain->tasks = tasks;
    chain->stamp = 0;
    chain->done = NULL;
    chain->next = NULL;
    cudaError_t err = cudaMalloc((void **)&chain->done, (size_t)tasks * sizeof *chain->done);
    if (err == cudaSuccess)
        err = cudaMalloc((void **)&chain->next, sizeof *chain->next);
    if (err == cudaSuccess) /* on the box's stream: the first chain follows it */
        err = cudaMemsetAsync(chain->done, 0, (size_t)tasks * sizeof *chain->done, stream);
    if (err != cudaSuccess)
        cuda_ising_packed_chain_free(chain);
    return err;
}

extern "C" void cuda_ising_packed_chain_free(struct cuda_ising_chain *chain)
{
    cudaFree(chain->done);
    cudaFree(chain->next);
    chain->done = NULL;
    chain->next = NULL;
}

extern "C" cudaError_t cuda_ising_packed_chain(cudaStream_t stream, const struct latmc_lattice *g,
                                               uint32_t *colour0, uint32_t *colour1,
                                               uint32_t *const eps[2],
                                               const struct cuda_ising_packed_thresholds *thr,
                                               int algorithm, uint64_t seed,
                                               const struct latmc_rng_name *names,
                                               const int *colours, int n,
                                               struct cuda_ising_chain *chain,
                                               unsigned long long *changed)
{
    if (n <= 0)
        return cudaSuccess;
    if (n > CUDA_ISING_CHAIN_STEPS || !cuda_ising_packed_chain_fits(g) ||
        !chain->done)
        return cudaErrorInvalidValue;
    const struct packed_geom p = packed_geom_of(g, chain->nw);
    struct chain_args a;
    a.colours = 0;
    /* the seed's round keys once, each step's fold words from its name */
    struct cuda_philox_folded f = cuda_philox_fold_named(seed, names[0]);
    a.keys = f.keys;
    for (int i = 0; i < n; i++) {
        if (i > 0)
            cuda_philox_refold_named(&f, names[i]);
        a.fold[i] = cuda_philox_name_fold_of(f);
        a.colours |= (unsigned long long)(colours[i] & 1) << i;
    }
    for (int i = n; i < CUDA_ISING_CHAIN_STEPS; i++) /* no undefined bytes in the arguments */
        a.fold[i] = a.fold[0];
    a.n = n;
    a.stamp0 = chain->stamp;
    a.tasks = (unsigned)chain->tasks;
    a.groups = (long long)(p.nrows * p.groups);
    a.radius = g->ndim == 3 ? (long long)p.ly : 1;
    /* where step s + 1 starts: past the rows that the first tasks of step s hold, and R
     * rows more, so that its first tasks read rows step s did first, not its last ones
     * (the rows before its start, which the circle puts next to them) */
    const long long window = ((a.radius + 1) * (long long)p.groups + CHAIN_WARP - 1) / CHAIN_WARP;
    a.shift = (unsigned)((window + 1) % (long long)chain->tasks);
    chain->stamp += (uint32_t)n;
    const bool hb = algorithm == LATMC_ALGO_HEATBATH;
    const bool pmj = eps[0] != NULL;
#define CHAIN_LAUNCH(NW, ND, HB, CW, EARLY)                                                  \
    launch_chain<NW, ND, HB, CW, EARLY>(stream, p, colour0, colour1, eps, thr, a, chain, changed)
    /* a task's words NW; +-J: 2 coupling words a spin word in 3D (loaded early), 1 in 2D */
#define CHAIN_PICK(NW, CW3, CW2, EARLY3)                                                     \
    (g->ndim == 3 ? (hb ? CHAIN_LAUNCH(NW, 6, true, CW3, EARLY3)                            \
                        : CHAIN_LAUNCH(NW, 6, false, CW3, EARLY3))                          \
                  : (hb ? CHAIN_LAUNCH(NW, 4, true, CW2, false)                             \
                        : CHAIN_LAUNCH(NW, 4, false, CW2, false)))
    if (pmj)
        return chain->nw == 1   ? CHAIN_PICK(1, 2, 1, true)
               : chain->nw == 2 ? CHAIN_PICK(2, 2, 1, true)
                                : CHAIN_PICK(8, 2, 1, true);
    return chain->nw == 1   ? CHAIN_PICK(1, 0, 0, false)
           : chain->nw == 2 ? CHAIN_PICK(2, 0, 0, false)
                            : CHAIN_PICK(8, 0, 0, false);
#undef CHAIN_PICK
#undef CHAIN_LAUNCH
}
