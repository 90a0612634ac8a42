/*
 * What the cut tests (tests/repro/test_cuts_{ising,potts,phi4,heisenberg}.c) share: a sim
 * created at one CPU level, a refused desc with its message, an accepted one keeping its
 * n_parts. (That k boxes run the one-box chain is the identity matrix's: identity/.)
 * Include after <cmocka.h>; static inline, so each test compiles its own copy.
 */
#ifndef LATMC_TESTS_BOXES_CHECK_H
#define LATMC_TESTS_BOXES_CHECK_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <latmc/latmc.h>

/* The sim of d with LATMC_CPU_MASK = level while it is created (the level is chosen at
 * creation); a refusal prints the library's message before the assertion fails. */
static inline latmc_sim *box_create(latmc_ctx *ctx, const latmc_sim_desc *d, const char *level)
{
    setenv("LATMC_CPU_MASK", level, 1);
    latmc_sim *sim = NULL;
    const int st = latmc_sim_create(ctx, d, &sim);
    unsetenv("LATMC_CPU_MASK");
    if (st != LATMC_OK)
        print_message("create: %s\n", latmc_last_error());
    assert_int_equal(st, LATMC_OK);
    return sim;
}

/* d refused with code, and the library's message names needle (the message is the
 * caller's only clue which field to change, so each refusal's wording is checked). */
static inline void box_expect_refused(const latmc_sim_desc *d, int code, const char *needle)
{
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim *sim = NULL;
    const int st = latmc_sim_create(ctx, d, &sim);
    if (st != code)
        print_message("expected %d, got %d: %s\n", code, st, latmc_last_error());
    assert_int_equal(st, code);
    assert_null(sim);
    if (!strstr(latmc_last_error(), needle)) {
        print_message("message \"%s\" lacks \"%s\"\n", latmc_last_error(), needle);
        fail();
    }
    latmc_ctx_destroy(&ctx);
}

/* d accepted, and the sim keeps the n_parts it was given (the thinnest cut allowed). */
static inline void box_expect_accepted(const latmc_sim_desc *d)
{
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim *sim = NULL;
    const int st = latmc_sim_create(ctx, d, &sim);
    if (st != LATMC_OK)
        print_message("create: %s\n", latmc_last_error());
    assert_int_equal(st, LATMC_OK);
    latmc_sim_desc got;
    got.struct_size = sizeof got;
    assert_int_equal(latmc_sim_get_desc(sim, &got), LATMC_OK);
    assert_int_equal(got.n_parts, d->n_parts);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
}

#endif
