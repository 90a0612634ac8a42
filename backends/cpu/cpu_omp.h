/*
 * OpenMP in the CPU backend: only through clauses on the constructs (num_threads, if),
 * never through global OpenMP state, so that a host code's own OpenMP settings are left
 * alone. Without OpenMP the pragmas vanish and every loop runs serially.
 */
#ifndef LATMC_CPU_OMP_H
#define LATMC_CPU_OMP_H

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

#endif
