/*
 * Cuts an Ising lattice cannot take (desc.n_parts, latmc_sim_set_parts): LATMC_EINVAL with
 * a message naming the rule, the sim left as it was; the thinnest allowed cut accepted;
 * the CUDA backend's slabs (where a GPU is found); and a caller of the 0.1 header (no
 * n_parts in its desc). That k boxes run the one-box chain bit for bit is the identity
 * matrix's (tests/repro/identity).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "boxes_check.h"
#include "sim_helpers.h"



static void bad_decompositions(void **state)
{
    (void)state;
    latmc_sim_desc d = ising_desc(2, 8, 10, 0, LATMC_ALGO_METROPOLIS, 1, 1);
    d.n_parts = -1;
    box_expect_refused(&d, LATMC_EINVAL, "n_parts = -1");
    d.n_parts = 6; /* 10 planes: at most 5 slabs of 2 planes */
    box_expect_refused(&d, LATMC_EINVAL, "at most 5 parts");
    d.n_parts = 11; /* more parts than planes */
    box_expect_refused(&d, LATMC_EINVAL, "n_parts = 11");
    d.n_parts = 5; /* the thinnest allowed: accepted, n_parts kept */
    box_expect_accepted(&d);
    d = ising_desc(3, 8, 8, 6, LATMC_ALGO_METROPOLIS, 1, 1);
    d.n_parts = 4; /* 3D: the cut is along z, 6 planes */
    box_expect_refused(&d, LATMC_EINVAL, "at most 3 parts");
    /* the same rules for a recut (latmc_sim_set_parts): refused, the sim left as it was */
    latmc_ctx *c = NULL;
    latmc_sim *s = NULL;
    d.n_parts = 3;
    assert_int_equal(latmc_ctx_create(&c), LATMC_OK);
    assert_int_equal(latmc_sim_create(c, &d, &s), LATMC_OK);
    assert_int_equal(latmc_sim_set_parts(s, 7), LATMC_EINVAL);
    assert_int_equal(latmc_sim_set_parts(s, -1), LATMC_EINVAL);
    latmc_sim_desc got;
    got.struct_size = sizeof got;
    assert_int_equal(latmc_sim_get_desc(s, &got), LATMC_OK);
    assert_int_equal(got.n_parts, 3);
    assert_int_equal(latmc_sim_init_spins(s, LATMC_INIT_HOT), LATMC_OK);
    assert_int_equal(latmc_sim_sweep(s, 1), LATMC_OK);
    latmc_sim_destroy(&s);
    latmc_ctx_destroy(&c);

    /* CUDA runs Ising boxes as slabs: on its multi-spin coded kernels where L_x is a
     * multiple of 16, on the byte layout otherwise (the identity matrix's cuda rows check
     * their chains). Checked where the CUDA module finds
     * a device (the lead's GPU run). */
    latmc_ctx *ctx = NULL;
    latmc_sim *sim = NULL;
    int count = 0;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    if (latmc_ctx_device_count(ctx, LATMC_DEVICE_CUDA, &count) == LATMC_OK && count > 0) {
        const int64_t lx[] = { 64, 24 };
        for (int i = 0; i < 2; i++) {
            d = ising_desc(2, lx[i], 64, 0, LATMC_ALGO_METROPOLIS, 1, 1);
            d.n_parts = 2;
            d.device = LATMC_DEVICE_CUDA;
            assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
            assert_string_equal(latmc_sim_backend_name(sim), "cuda");
            latmc_sim_destroy(&sim);
        }
        d.n_parts = 64; /* slabs of one plane: thinner than the colouring allows */
        box_expect_refused(&d, LATMC_EINVAL, "at most 32 parts");
    } else {
        print_message("no CUDA device: the CUDA backend's slabs are not checked in this "
                      "run\n");
    }
    latmc_ctx_destroy(&ctx);

    /* Potts, phi^4 and Heisenberg cuts: tests/repro/test_cuts_{potts,phi4,heisenberg}.c */
}

/* A caller built against the 0.1 header (struct_size without n_parts) still creates sims,
 * with n_parts 0, and latmc_sim_get_desc writes no byte past its shorter struct. */
static void old_desc_size(void **state)
{
    (void)state;
    const size_t v1 = offsetof(latmc_sim_desc, n_parts);
    latmc_sim_desc d = ising_desc(2, 8, 10, 0, LATMC_ALGO_METROPOLIS, 1, 1);
    d.struct_size = (uint32_t)v1;
    d.n_parts = 7; /* past the caller's struct: never read */
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    latmc_sim_desc got;
    memset(&got, 0xA5, sizeof got);
    got.struct_size = (uint32_t)v1;
    assert_int_equal(latmc_sim_get_desc(sim, &got), LATMC_OK);
    assert_int_equal(got.struct_size, v1);
    assert_int_equal(got.extent[1], 10);
    const unsigned char *tail = (const unsigned char *)&got + v1;
    for (size_t i = 0; i < sizeof got - v1; i++)
        assert_int_equal(tail[i], 0xA5);
    got.struct_size = sizeof got;
    assert_int_equal(latmc_sim_get_desc(sim, &got), LATMC_OK);
    assert_int_equal(got.n_parts, 0);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(bad_decompositions),
        cmocka_unit_test(old_desc_size),
    };
    return cmocka_run_group_tests_name("cuts_ising", tests, NULL, NULL);
}
