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
 * the construct at all: even with an if(0) clause libgomp pays a futex round trip.
 */
static inline int cpu_use_threads(int n_threads, long long items)
{
#ifdef _OPENMP
    return n_threads > 1 && items >= LATMC_OMP_MIN_ITEMS;
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

/* Every member waits for the others (nothing for a team of one). */
static inline void cpu_team_barrier(const struct cpu_team *t)
{
    if (t->size > 1) {
        LATMC_OMP(barrier)
    }
}

#endif
