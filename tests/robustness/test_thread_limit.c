/*
 * n_threads beyond what the system gives (issue 13 item 7): the library never lets the
 * OpenMP runtime print and exit the process. In a child process whose address space is
 * capped (so that only some 8 MiB thread stacks fit: the OS refuses the rest, as a pid or
 * memory limit would), a sim asking for 4096 threads must either be refused cleanly at
 * latmc_sim_create (LATMC_ENOMEM with a message) or run: the child must come back
 * with its own exit status, never libgomp's "Thread creation failed" exit. Without the
 * cap, 4096 threads give LATMC_OK or that same clean refusal. The same when the cap comes
 * after the sim was created (its first parallel regions after it), and when a sim that
 * ran on one thread is called from a new thread after it (the runtime starts a team per
 * calling thread): every call that may start a team checks first (issue 37, item 8).
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdlib.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "sim_helpers.h"

#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#  define UNDER_SANITIZER 1 /* they reserve terabytes of shadow: no address-space cap */
#else
#  define UNDER_SANITIZER 0
#endif

/* Create a 4096-thread sim on a lattice big enough for a parallel sweep, sweep once.
 * 0: refused cleanly or ran; 1: anything else. */
static int ask_for_4096(int64_t l)
{
    latmc_ctx *ctx = NULL;
    if (latmc_ctx_create(&ctx) != LATMC_OK)
        return 1;
    latmc_sim_desc d = ising_desc(2, l, l, 0, LATMC_ALGO_METROPOLIS, 4096, 9);
    latmc_sim *sim = NULL;
    int st = latmc_sim_create(ctx, &d, &sim);
    int ret = 0;
    if (st == LATMC_ENOMEM) {
        ret = sim == NULL && strstr(latmc_last_error(), "4096") ? 0 : 1;
        printf("refused: %s\n", latmc_last_error());
    } else if (st == LATMC_OK) {
        latmc_sim_desc got;
        ret |= latmc_sim_get_desc(sim, &got) != LATMC_OK;
        ret |= latmc_sim_set_param(sim, LATMC_PARAM_BETA, 0.3) != LATMC_OK;
        ret |= latmc_sim_init_spins(sim, LATMC_INIT_HOT) != LATMC_OK;
        ret |= latmc_sim_sweep(sim, 1) != LATMC_OK;
        printf("ran with %d thread(s)\n", got.n_threads);
    } else {
        printf("unexpected %s: %s\n", latmc_strerror(st), latmc_last_error());
        ret = 1;
    }
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
    return ret;
}

static void capped_address_space(void **state)
{
    (void)state;
    if (UNDER_SANITIZER) {
        printf("address-space cap skipped under a sanitizer\n");
        return;
    }
    fflush(stdout);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        /* 1.5 GiB: the process and a few hundred thread stacks, far from 4096. */
        struct rlimit rl = { (rlim_t)3 << 29, (rlim_t)3 << 29 };
        if (setrlimit(RLIMIT_AS, &rl) != 0)
            _exit(3);
        const int ret = ask_for_4096(512); /* 512^2 sites: the sweep opens a parallel region */
        fflush(stdout);
        _exit(ret);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    if (WEXITSTATUS(status) != 0)
        print_error("child exited with %d (libgomp exits with 1 when it cannot start "
                    "threads)\n", WEXITSTATUS(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

/* The address space from now on: what is mapped plus `extra` bytes (a thread stack is
 * 8 MiB: two more fit, besides the stacks glibc keeps cached from joined threads). */
static int cap_address_space(unsigned long extra)
{
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long pages = 0;
    if (!f || fscanf(f, "%lu", &pages) != 1)
        return -1;
    fclose(f);
    const rlim_t now = (rlim_t)pages * (rlim_t)sysconf(_SC_PAGESIZE);
    struct rlimit rl = { now + extra, now + extra };
    return setrlimit(RLIMIT_AS, &rl);
}

/* A clean refusal (LATMC_ENOMEM naming the threads) or success: 0; anything else 1. */
static int clean(int st, const char *what, latmc_sim *sim)
{
    printf("%s: %s%s%s\n", what, latmc_strerror(st), st ? ": " : "",
           st ? latmc_sim_last_error(sim) : "");
    return st == LATMC_OK || (st == LATMC_ENOMEM && strstr(latmc_sim_last_error(sim), "thread"))
               ? 0 : 1;
}

enum { TEAM = 16, SIDE = 512 }; /* 512^2 sites: every sweep opens parallel regions */

static latmc_sim *team_sim(latmc_ctx **ctx)
{
    if (latmc_ctx_create(ctx) != LATMC_OK)
        return NULL;
    latmc_sim_desc d = ising_desc(2, SIDE, SIDE, 0, LATMC_ALGO_METROPOLIS, TEAM, 9);
    latmc_sim *sim = NULL;
    if (latmc_sim_create(*ctx, &d, &sim) != LATMC_OK ||
        latmc_sim_set_param(sim, LATMC_PARAM_BETA, 0.3) != LATMC_OK)
        return NULL;
    return sim;
}

/* The child of a case: its status back to the parent, which wants 0 (libgomp exits 1). */
static void expect_clean_child(int (*child)(void))
{
    if (UNDER_SANITIZER) {
        printf("address-space cap skipped under a sanitizer\n");
        return;
    }
    fflush(stdout);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        const int ret = child();
        fflush(stdout);
        _exit(ret);
    }
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFEXITED(status));
    if (WEXITSTATUS(status) != 0)
        print_error("child exited with %d (libgomp exits with 1 when it cannot start "
                    "threads)\n", WEXITSTATUS(status));
    assert_int_equal(WEXITSTATUS(status), 0);
}

/* The system's limit reached after create (the caller's own threads, a lowered limit):
 * the sim's first parallel regions come after it. On 995e5fe libgomp ended the child. */
static int limit_after_create_child(void)
{
    latmc_ctx *ctx = NULL;
    latmc_sim *sim = team_sim(&ctx);
    if (!sim || cap_address_space(16ul << 20) != 0)
        return 3;
    /* up to the first refusal, which must be clean */
    int st = latmc_sim_init_spins(sim, LATMC_INIT_HOT);
    int ret = clean(st, "init_spins", sim);
    if (st == LATMC_OK)
        ret = clean(st = latmc_sim_sweep(sim, 1), "sweep", sim);
    double e = 0;
    if (st == LATMC_OK)
        ret = clean(latmc_sim_observable(sim, LATMC_OBS_ENERGY, &e), "observable", sim);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
    return ret;
}

static void limit_after_create(void **state)
{
    (void)state;
    expect_clean_child(limit_after_create_child);
}

/* A sim that ran on one thread, called from another one after the limit was reached: the
 * runtime starts a team per calling thread. On 995e5fe libgomp ended the child. */
struct other_thread {
    latmc_sim *sim;
    int ret;
};

static void *sweep_elsewhere(void *arg)
{
    struct other_thread *o = arg;
    o->ret = clean(latmc_sim_sweep(o->sim, 1), "sweep from another thread", o->sim);
    return NULL;
}

static int new_calling_thread_child(void)
{
    latmc_ctx *ctx = NULL;
    latmc_sim *sim = team_sim(&ctx);
    if (!sim || latmc_sim_init_spins(sim, LATMC_INIT_HOT) != LATMC_OK ||
        latmc_sim_sweep(sim, 1) != LATMC_OK)
        return 3;
    /* this thread's team exists; the other thread's stack is mapped before the cap */
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, 1u << 20);
    struct other_thread o = { sim, 1 };
    if (cap_address_space(16ul << 20) != 0)
        return 3;
    pthread_t t;
    if (pthread_create(&t, &attr, sweep_elsewhere, &o) != 0)
        return 4; /* the cap left no room for the caller's own thread: no verdict */
    pthread_join(t, NULL);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
    return o.ret;
}

static void new_calling_thread(void **state)
{
    (void)state;
    expect_clean_child(new_calling_thread_child);
}

/* An ensemble whose sweep runs its members on a team of TEAM threads (16 members of
 * 64^2 sites: enough work for the team). */
static int ensemble_child(bool cap_before_create)
{
    latmc_ctx *ctx = NULL;
    if (latmc_ctx_create(&ctx) != LATMC_OK)
        return 3;
    if (cap_before_create && cap_address_space(16ul << 20) != 0)
        return 3;
    latmc_sim_desc d = ising_desc(2, 64, 64, 0, LATMC_ALGO_METROPOLIS, 1, 9);
    latmc_ens_layout l;
    latmc_ens_layout_init(&l);
    l.n_samples = TEAM;
    l.n_threads = TEAM;
    latmc_ens *e = NULL;
    int st = latmc_ens_create(ctx, &d, &l, &e);
    int ret = st == LATMC_OK || (st == LATMC_ENOMEM && strstr(latmc_last_error(), "thread"))
                  ? 0 : 1;
    printf("ens_create: %s%s%s\n", latmc_strerror(st), st ? ": " : "",
           st ? latmc_last_error() : "");
    if (st == LATMC_OK && !cap_before_create && cap_address_space(16ul << 20) != 0)
        ret = 3;
    if (st == LATMC_OK && ret == 0) {
        const double beta = 0.3;
        st = latmc_ens_set_temperatures(e, &beta, 1);
        if (st == LATMC_OK)
            st = latmc_ens_init_spins(e, LATMC_INIT_HOT);
        if (st == LATMC_OK)
            st = latmc_ens_sweep(e, 1);
        printf("ens_sweep: %s%s%s\n", latmc_strerror(st), st ? ": " : "",
               st ? latmc_ens_last_error(e) : "");
        ret = st == LATMC_OK ||
                      (st == LATMC_ENOMEM && strstr(latmc_ens_last_error(e), "thread"))
                  ? 0 : 1;
    }
    latmc_ens_destroy(&e);
    latmc_ctx_destroy(&ctx);
    return ret;
}

static int ensemble_capped_before_create(void)
{
    return ensemble_child(true);
}

static int ensemble_capped_after_create(void)
{
    return ensemble_child(false);
}

/* An ensemble's team over members: checked at create (it was not) and at every sweep.
 * On 995e5fe libgomp ended both children. */
static void ensemble_team(void **state)
{
    (void)state;
    expect_clean_child(ensemble_capped_before_create);
    expect_clean_child(ensemble_capped_after_create);
}

static void uncapped(void **state)
{
    (void)state;
    /* A small lattice: its sweep stays serial, so 4096 threads never spin on 2 cores. */
    assert_int_equal(ask_for_4096(16), 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(capped_address_space),
        cmocka_unit_test(limit_after_create),
        cmocka_unit_test(new_calling_thread),
        cmocka_unit_test(ensemble_team),
        cmocka_unit_test(uncapped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
