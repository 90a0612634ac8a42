/*
 * The thread rules of doc/robustness.md, hammered (issue 13 items 2 and 3); meant to run
 * under ThreadSanitizer too (tools/ci-tsan.sh), where any data race fails it:
 *  - const calls on ONE sim from several threads at once, failing and succeeding: each
 *    thread's latmc_last_error() names its own failure, the sim's message is not written
 *    (it keeps what the last non-const failure put there);
 *  - non-const calls on DIFFERENT sims of one ctx at once (sweeps, measurements, refused
 *    parameters), each sim's message its own; log callbacks and set_log concurrently;
 *  - latmc_ctx_backend_status(CPU) obtained in a thread that has exited stays readable
 *    and unchanged (it is not a thread's buffer).
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sim_helpers.h"

#define NTHREADS 4
#define ROUNDS 400

static latmc_sim *new_ising(latmc_ctx *ctx, uint64_t seed)
{
    latmc_sim_desc d = ising_desc(2, 16, 16, 0, LATMC_ALGO_METROPOLIS, 1, seed);
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    return sim;
}

struct const_job {
    const latmc_sim *sim;
    int failures; /* checks that went wrong (asserting inside threads is not safe) */
};

static void *const_calls(void *arg)
{
    struct const_job *job = arg;
    for (int r = 0; r < ROUNDS; r++) {
        size_t n;
        double v;
        uint64_t c, a;
        latmc_sim_desc d;
        if (latmc_sim_spins_size(job->sim, NULL) != LATMC_EINVAL ||
            !strstr(latmc_last_error(), "bytes is NULL"))
            job->failures++;
        if (latmc_sim_couplings_size(job->sim, &n) != LATMC_EUNSUPPORTED ||
            !strstr(latmc_last_error(), "no couplings"))
            job->failures++;
        if (latmc_sim_get_param(job->sim, LATMC_PARAM_MU2, &v) != LATMC_EUNSUPPORTED ||
            !strstr(latmc_last_error(), "mu2"))
            job->failures++;
        if (latmc_sim_get_param(job->sim, 999, &v) != LATMC_EINVAL ||
            !strstr(latmc_last_error(), "999"))
            job->failures++;
        if (latmc_sim_sweep_count(job->sim, NULL) != LATMC_EINVAL ||
            latmc_sim_acceptance_counts(job->sim, NULL, &a) != LATMC_EINVAL ||
            latmc_sim_get_desc(job->sim, NULL) != LATMC_EINVAL)
            job->failures++;
        if (latmc_sim_get_param(job->sim, LATMC_PARAM_BETA, &v) != LATMC_OK || v != 0.25 ||
            latmc_sim_sweep_count(job->sim, &c) != LATMC_OK ||
            latmc_sim_acceptance_counts(job->sim, &a, &c) != LATMC_OK ||
            latmc_sim_spins_size(job->sim, &n) != LATMC_OK || n != 256 ||
            latmc_sim_get_desc(job->sim, &d) != LATMC_OK ||
            strcmp(latmc_sim_backend_name(job->sim), "cpu") != 0)
            job->failures++;
        /* Reading the sim's message is a const call too; nobody writes it now. */
        if (!strstr(latmc_sim_last_error(job->sim), "beta = -1 "))
            job->failures++;
    }
    return NULL;
}

static void const_calls_on_one_sim(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim *sim = new_ising(ctx, 1);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, 0.25), LATMC_OK);
    assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
    /* A non-const failure first: the sim's message, which the const calls must keep. */
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, -1.0), LATMC_EINVAL);
    char before[512];
    snprintf(before, sizeof before, "%s", latmc_sim_last_error(sim));
    assert_non_null(strstr(before, "-1"));
    pthread_t t[NTHREADS];
    struct const_job jobs[NTHREADS];
    for (int i = 0; i < NTHREADS; i++) {
        jobs[i] = (struct const_job){ sim, 0 };
        assert_int_equal(pthread_create(&t[i], NULL, const_calls, &jobs[i]), 0);
    }
    for (int i = 0; i < NTHREADS; i++) {
        assert_int_equal(pthread_join(t[i], NULL), 0);
        assert_int_equal(jobs[i].failures, 0);
    }
    assert_string_equal(latmc_sim_last_error(sim), before);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
}

static atomic_int log_lines;
static void count_log(void *user, int level, const char *msg)
{
    (void)user;
    (void)level;
    if (msg[0])
        atomic_fetch_add(&log_lines, 1);
}

struct sim_job {
    latmc_ctx *ctx;
    uint64_t seed;
    int failures;
};

static void *own_sim(void *arg)
{
    struct sim_job *job = arg;
    latmc_sim *sim = NULL;
    latmc_sim_desc d = ising_desc(2, 16, 16, 0, LATMC_ALGO_METROPOLIS, 1, job->seed);
    if (latmc_sim_create(job->ctx, &d, &sim) != LATMC_OK)
        return (void *)(job->failures = 1, NULL);
    char tag[32];
    snprintf(tag, sizeof tag, "%llu", (unsigned long long)(1000 + job->seed));
    latmc_sim_set_param(sim, LATMC_PARAM_BETA, 0.3);
    latmc_sim_init_spins(sim, LATMC_INIT_HOT);
    for (int r = 0; r < ROUNDS / 10; r++) {
        double e;
        if (latmc_sim_sweep(sim, 2) != LATMC_OK ||
            latmc_sim_observable(sim, LATMC_OBS_ENERGY, &e) != LATMC_OK)
            job->failures++;
        /* A refused value that names this thread: the message must be this sim's own. */
        if (latmc_sim_set_param(sim, LATMC_PARAM_BETA, -(double)(1000 + job->seed)) != LATMC_EINVAL ||
            !strstr(latmc_sim_last_error(sim), tag) || !strstr(latmc_last_error(), tag))
            job->failures++;
        if (r % 8 == 0)
            latmc_ctx_set_log(job->ctx, count_log, NULL, LATMC_LOG_DEBUG);
    }
    latmc_sim_destroy(&sim);
    return NULL;
}

static void different_sims_at_once(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_ctx_set_log(ctx, count_log, NULL, LATMC_LOG_DEBUG);
    pthread_t t[NTHREADS];
    struct sim_job jobs[NTHREADS];
    for (int i = 0; i < NTHREADS; i++) {
        jobs[i] = (struct sim_job){ ctx, (uint64_t)i + 1, 0 };
        assert_int_equal(pthread_create(&t[i], NULL, own_sim, &jobs[i]), 0);
    }
    for (int i = 0; i < NTHREADS; i++) {
        assert_int_equal(pthread_join(t[i], NULL), 0);
        assert_int_equal(jobs[i].failures, 0);
    }
    assert_true(atomic_load(&log_lines) >= NTHREADS * ROUNDS / 10);
    latmc_ctx_destroy(&ctx);
}

static void *noop_thread(void *arg)
{
    return arg;
}

static void *status_in_thread(void *arg)
{
    *(const char **)arg = latmc_ctx_backend_status(NULL, LATMC_DEVICE_CPU);
    return NULL;
}

static void backend_status_outlives_thread(void **state)
{
    (void)state;
    const char *from_thread = NULL;
    pthread_t t;
    assert_int_equal(pthread_create(&t, NULL, status_in_thread, &from_thread), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
    assert_non_null(from_thread);
    /* Start another thread: glibc hands it the cached stack (and thread-local storage) of
     * the one that exited and zeroes that storage, so a thread's buffer would now read "". */
    const char *unused = NULL;
    assert_int_equal(pthread_create(&t, NULL, noop_thread, &unused), 0);
    assert_int_equal(pthread_join(t, NULL), 0);
    /* The thread is gone; its string must still read as the line, unchanged. */
    const char *here = latmc_ctx_backend_status(NULL, LATMC_DEVICE_CPU);
    assert_non_null(strstr(from_thread, "built in"));
    assert_string_equal(from_thread, here);
    /* Also from many threads at once. */
    pthread_t ts[NTHREADS];
    const char *got[NTHREADS];
    for (int i = 0; i < NTHREADS; i++)
        assert_int_equal(pthread_create(&ts[i], NULL, status_in_thread, &got[i]), 0);
    for (int i = 0; i < NTHREADS; i++) {
        assert_int_equal(pthread_join(ts[i], NULL), 0);
        assert_string_equal(got[i], here);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(const_calls_on_one_sim),
        cmocka_unit_test(different_sims_at_once),
        cmocka_unit_test(backend_status_outlives_thread),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
