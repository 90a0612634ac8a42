/*
 * n_threads beyond what the system gives (issue 13 item 7): the library never lets the
 * OpenMP runtime print and exit the process. In a child process whose address space is
 * capped (so that only some 8 MiB thread stacks fit: the OS refuses the rest, as a pid or
 * memory limit would), a sim asking for 4096 threads must either be refused cleanly at
 * latmc_sim_create (LATMC_ENOMEM with a message) or run: the child must come back
 * with its own exit status, never libgomp's "Thread creation failed" exit. Without the
 * cap, 4096 threads give LATMC_OK or that same clean refusal.
 */
#include <setjmp.h>
#include <stdarg.h>
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
        cmocka_unit_test(uncapped),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
