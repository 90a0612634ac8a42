/*
 * OpenMP in the CPU backend: only through clauses on the constructs (num_threads, if),
 * never through global OpenMP state, so that a host code's own OpenMP settings are left
 * alone. Without OpenMP the pragmas vanish and every loop runs serially.
 */
#ifndef LATMC_CPU_OMP_H
#define LATMC_CPU_OMP_H

#include <stdint.h>

#ifdef _OPENMP
#  include <omp.h>
#  define LATMC_PRAGMA_(x) _Pragma(#x)
#  define LATMC_OMP(x) LATMC_PRAGMA_(omp x)
#else
#  define LATMC_OMP(x)
#endif

/*
 * Below this many work items (sites) a parallel region costs more than it saves: waking
 * the team costs microseconds when cores are idle, milliseconds when they are busy, while
 * a site update costs ~10 ns. Only speed depends on it: results never depend on the
 * thread count.
 */
#define LATMC_OMP_MIN_ITEMS 32768

/*
 * Whether a loop over `items` should open a parallel region. Serial loops must not enter
 * the construct at all: even with an if(0) clause libgomp pays a futex round trip. Inside
 * an active region (a step's thread team calling a model's per-plane copy, a caller's own
 * team) none is opened: nested, it would run on one thread by default, or oversubscribe
 * the cores where the host program enabled nesting.
 */
static inline int cpu_use_threads(int n_threads, long long items)
{
#ifdef _OPENMP
    return n_threads > 1 && items >= LATMC_OMP_MIN_ITEMS && !omp_in_parallel();
#else
    (void)n_threads;
    (void)items;
    return 0;
#endif
}

/*
 * One member of the thread team that runs a step of the plan (lib/box.h): member `id` of
 * `size`. A step kernel takes its share of the step from it (cpu_team_share) and adds the
 * counts of its share only, so that the members' counts add up to the step's.
 *
 * size 1: the caller alone, perhaps inside a parallel region of the host code's own, so the
 * kernel must enter no OpenMP construct at all. size > 1: every member runs the kernel with
 * the same arguments inside the parallel region of the CPU backend's cpu_run_steps
 * (cpu_backend.c), which puts a barrier between two steps; the kernel may use orphaned
 * work-sharing constructs (for ... nowait, single nowait) and cpu_team_barrier, which bind
 * to that region and are met by every member in the same order. A kernel opens no region
 * of its own, and ends without a barrier (the caller's barrier is the step's end).
 */
struct cpu_team {
    int id;
    int size;
};

/* The caller alone (see above). */
static inline struct cpu_team cpu_team_alone(void)
{
    const struct cpu_team alone = { 0, 1 };
    return alone;
}

/* Member t's part [*begin, *end) of n items cut into t->size consecutive parts. */
static inline void cpu_team_share(const struct cpu_team *t, int64_t n, int64_t *begin,
                                  int64_t *end)
{
    *begin = n * t->id / t->size;
    *end = n * (t->id + 1) / t->size;
}

/*
 * Member t's share of the numbers [j0, j1) of one colour, counted in Philox blocks of 4
 * (the reference kernels' partition of a box's range): the whole blocks
 * [whole_begin, whole_end), the team's blocks cut as cpu_team_share cuts them, and up to
 * two partial blocks at the ends of the range, lane by lane and by member 0 only (their
 * other lanes belong to the neighbouring range): n_partial pieces, block partial[k].b,
 * lanes [partial[k].l0, partial[k].l1).
 */
struct cpu_block_share {
    int64_t whole_begin, whole_end;
    int n_partial;
    struct {
        int64_t b;
        int l0, l1;
    } partial[2];
};

static inline struct cpu_block_share cpu_team_blocks(const struct cpu_team *t, int64_t j0,
                                                     int64_t j1)
{
    struct cpu_block_share s;
    s.whole_begin = s.whole_end = 0;
    s.n_partial = 0;
    if (j1 <= j0)
        return s;
    const int64_t b0 = (j0 + 3) / 4, b1 = j1 / 4;
    if (b1 < b0) { /* j0 and j1 inside one block */
        if (t->id == 0) {
            s.partial[0].b = j0 / 4;
            s.partial[0].l0 = (int)(j0 % 4);
            s.partial[0].l1 = (int)(j1 - 4 * (j0 / 4));
            s.n_partial = 1;
        }
        return s;
    }
    if (t->id == 0 && j0 % 4) {
        s.partial[s.n_partial].b = j0 / 4;
        s.partial[s.n_partial].l0 = (int)(j0 % 4);
        s.partial[s.n_partial++].l1 = 4;
    }
    if (t->id == 0 && j1 % 4) {
        s.partial[s.n_partial].b = b1;
        s.partial[s.n_partial].l0 = 0;
        s.partial[s.n_partial++].l1 = (int)(j1 % 4);
    }
    int64_t s0, s1;
    cpu_team_share(t, b1 - b0, &s0, &s1);
    s.whole_begin = b0 + s0;
    s.whole_end = b0 + s1;
    return s;
}

/* Every member waits for the others (nothing for a team of one). */
static inline void cpu_team_barrier(const struct cpu_team *t)
{
    if (t->size > 1) {
        LATMC_OMP(barrier)
    }
}

#endif
