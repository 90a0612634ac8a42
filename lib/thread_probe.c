/* See thread_probe.h: start a team's worth of threads once, to fail cleanly if we cannot. */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "thread_probe.h"

struct probe {
    pthread_mutex_t lock;
    pthread_cond_t go;
    bool released;
};

static void *probe_thread(void *arg)
{
    struct probe *p = arg;
    pthread_mutex_lock(&p->lock);
    while (!p->released)
        pthread_cond_wait(&p->go, &p->lock);
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

int latmc_thread_probe(int n)
{
    if (n <= 1)
        return LATMC_OK;
    pthread_t *tids = malloc(sizeof *tids * (size_t)(n - 1));
    if (!tids)
        return latmc_fail(LATMC_ENOMEM, "n_threads = %d: cannot allocate the thread check", n);
    struct probe p = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false };
    int started = 0, err = 0;
    /* Every thread waits until all have started: the team must exist at once. */
    while (started < n - 1 && (err = pthread_create(&tids[started], NULL, probe_thread, &p)) == 0)
        started++;
    pthread_mutex_lock(&p.lock);
    p.released = true;
    pthread_cond_broadcast(&p.go);
    pthread_mutex_unlock(&p.lock);
    for (int i = 0; i < started; i++)
        pthread_join(tids[i], NULL);
    free(tids);
    pthread_cond_destroy(&p.go);
    pthread_mutex_destroy(&p.lock);
    if (err == 0)
        return LATMC_OK;
    const long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    return latmc_fail(LATMC_ENOMEM, "n_threads = %d: the system started only %d threads at "
                      "once besides the caller (%s); ask for fewer (this machine has %ld "
                      "processors)", n, started, strerror(err), cpus);
}

/* The largest team checked for this calling thread (the runtime's pool is per thread). */
static _Thread_local int checked_team = 1;

int latmc_team_ready(int n)
{
    if (n <= checked_team)
        return LATMC_OK;
    const int st = latmc_thread_probe(n);
    if (st == LATMC_OK)
        checked_team = n;
    return st;
}
