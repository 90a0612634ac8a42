/* liblatmc examples — run independent tasks on a few threads. */
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

#include "ex_pool.h"

struct pool {
    pthread_mutex_t lock;
    ex_task_fn fn;
    void *user;
    int ntasks;
    int next;      /* next task to hand out */
    int done;
    int result;    /* first failure, 0 while none */
    bool progress;
};

static void *worker(void *arg)
{
    struct pool *p = arg;
    for (;;) {
        pthread_mutex_lock(&p->lock);
        int task = p->result == 0 && p->next < p->ntasks ? p->next++ : -1;
        pthread_mutex_unlock(&p->lock);
        if (task < 0)
            return NULL;
        int rc = p->fn(task, p->user);
        pthread_mutex_lock(&p->lock);
        p->done++;
        if (rc != 0 && p->result == 0)
            p->result = rc;
        if (p->progress)
            fprintf(stderr, "\r  %d/%d runs", p->done, p->ntasks);
        pthread_mutex_unlock(&p->lock);
    }
}

int ex_cpu_count(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

int ex_pool_run(int jobs, int ntasks, ex_task_fn fn, void *user, bool progress)
{
    struct pool p = { .fn = fn, .user = user, .ntasks = ntasks,
                      .progress = progress && isatty(STDERR_FILENO) };
    pthread_mutex_init(&p.lock, NULL);
    if (jobs <= 0)
        jobs = ex_cpu_count();
    if (jobs > ntasks)
        jobs = ntasks > 0 ? ntasks : 1;
    enum { MAX_JOBS = 256 };
    if (jobs > MAX_JOBS)
        jobs = MAX_JOBS;
    pthread_t threads[MAX_JOBS];
    int started = 0;
    /* The calling thread works too, so a failed pthread_create only costs parallelism. */
    for (int t = 1; t < jobs; t++) {
        if (pthread_create(&threads[started], NULL, worker, &p) != 0)
            break;
        started++;
    }
    worker(&p);
    for (int t = 0; t < started; t++)
        pthread_join(threads[t], NULL);
    if (p.progress)
        fprintf(stderr, "\r%*s\r", 30, "");
    pthread_mutex_destroy(&p.lock);
    return p.result;
}
