/*
 * liblatmc examples — run independent tasks on a few threads.
 *
 * A study is many independent chains (lattice sizes x temperatures x replicas). Small
 * lattices use one core per sim best, so the examples run several sims at once, one per
 * thread (liblatmc allows different sims to run concurrently), instead of splitting each
 * lattice over threads.
 */
#ifndef LATMC_EX_POOL_H
#define LATMC_EX_POOL_H

#include <stdbool.h>

/* Task `index` of the pool: 0 on success, anything else stops the pool (reported back). */
typedef int (*ex_task_fn)(int index, void *user);

/*
 * Run fn(0..ntasks-1) on `jobs` threads (jobs <= 0: the number of online CPUs), tasks taken
 * in index order. With progress, prints "done/total" on stderr while running (when stderr is
 * a terminal). Returns 0, or the first nonzero task result (remaining tasks are skipped).
 */
int ex_pool_run(int jobs, int ntasks, ex_task_fn fn, void *user, bool progress);

/* The number of online CPUs (at least 1). */
int ex_cpu_count(void);

#endif
