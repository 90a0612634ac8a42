/*
 * A sim made ready for a test (cmocka): its parameters set (struct test_params,
 * sim_helpers.h) and its spins initialised, or the test fails with the library's message.
 * The tests' sims differ only in how they are created, their desc and their parameters,
 * which stay data in each test.
 */
#ifndef LATMC_TEST_SIM_MAKE_H
#define LATMC_TEST_SIM_MAKE_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "sim_helpers.h"

/* Sets params on sim and, start >= 0, initialises its spins (LATMC_INIT_COLD or _HOT;
 * -1: left as created). Returns sim. */
static inline latmc_sim *test_sim_ready(latmc_sim *sim, const struct test_params *params,
                                        int start)
{
    assert_non_null(sim);
    int st = test_set_params(sim, params);
    if (st == LATMC_OK && start >= 0)
        st = latmc_sim_init_spins(sim, start);
    if (st != LATMC_OK)
        print_error("making the test's sim ready: %s (%s)\n", latmc_strerror(st),
                    latmc_last_error());
    assert_int_equal(st, LATMC_OK);
    return sim;
}

#endif
