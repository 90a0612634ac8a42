/*
 * Where CUDA runs the bit-sliced Ising decisions (decisions = 1, doc/models/ising-decisions.md,
 * "Where it runs"): one box on one GPU, 2D or 3D, L_x a multiple of 16, uniform couplings,
 * Metropolis and heat bath. Elsewhere latmc_sim_set_param refuses the value with
 * LATMC_EUNSUPPORTED and the parameter keeps its old value (several devices, several boxes
 * on one GPU, +-J couplings, L_x not a multiple of 16); every sim sweeps afterwards. The chains themselves are the identity matrix's CUDA rows
 * (tests/repro/identity). Exits 77 (skipped, saying why) without a usable CUDA module and GPU.
 */
#include "sim_helpers.h"
/* after the helpers: it declares the tests' ctx */
#include "cuda_devices_test.h"

struct decisions_case {
    int ndim;
    int64_t lx, ly, lz;
    int algorithm, couplings, n_devices, n_parts;
    bool runs;
    const char *why;
};

static const struct decisions_case cases[] = {
    { 2, 64, 32, 0, LATMC_ALGO_METROPOLIS, LATMC_COUPLINGS_UNIFORM, 1, 1, true, "2D Metropolis" },
    { 2, 48, 10, 0, LATMC_ALGO_HEATBATH, LATMC_COUPLINGS_UNIFORM, 1, 1, true, "2D heat bath" },
    { 3, 16, 6, 8, LATMC_ALGO_METROPOLIS, LATMC_COUPLINGS_UNIFORM, 1, 1, true, "3D" },
    { 2, 64, 32, 0, LATMC_ALGO_METROPOLIS, LATMC_COUPLINGS_UNIFORM, 2, 1, false,
      "two devices" },
    { 2, 64, 32, 0, LATMC_ALGO_METROPOLIS, LATMC_COUPLINGS_UNIFORM, 1, 2, false,
      "two boxes on one GPU" },
    { 2, 64, 32, 0, LATMC_ALGO_METROPOLIS, LATMC_COUPLINGS_BIMODAL, 1, 1, false, "+-J" },
    { 2, 24, 32, 0, LATMC_ALGO_METROPOLIS, LATMC_COUPLINGS_UNIFORM, 1, 1, false,
      "L_x not a multiple of 16" },
};

static void where_it_runs(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct decisions_case *c = &cases[i];
        latmc_sim_desc d = ising_desc(c->ndim, c->lx, c->ly, c->lz, c->algorithm, 1, 9);
        d.device = LATMC_DEVICE_CUDA;
        d.couplings = c->couplings;
        d.coupling_seed = 3;
        if (c->n_parts > 1) /* 0 otherwise: with several devices it must be 0 or their count */
            d.n_parts = c->n_parts;
        latmc_sim *sim = create_on(d, c->n_devices);
        assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
        const int st = latmc_sim_set_param(sim, LATMC_PARAM_DECISIONS, 1);
        char msg[512];
        snprintf(msg, sizeof msg, "%s", latmc_last_error()); /* before the next call */
        double v = -1;
        assert_int_equal(latmc_sim_get_param(sim, LATMC_PARAM_DECISIONS, &v), LATMC_OK);
        if (st != (c->runs ? LATMC_OK : LATMC_EUNSUPPORTED) || v != (c->runs ? 1.0 : 0.0))
            print_error("%s: set_param %d (%s), value %g\n", c->why, st, msg, v);
        assert_int_equal(st, c->runs ? LATMC_OK : LATMC_EUNSUPPORTED);
        assert_true(v == (c->runs ? 1.0 : 0.0));
        if (!c->runs) /* the message says where the chain runs */
            assert_non_null(strstr(msg, "decisions"));
        assert_int_equal(latmc_sim_sweep(sim, 2), LATMC_OK);
        latmc_sim_destroy(&sim);
    }
}

int main(void)
{
    const int open = devices_open();
    if (open != 0)
        return open;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(where_it_runs),
    };
    const int ret = cmocka_run_group_tests(tests, NULL, NULL);
    latmc_ctx_destroy(&ctx);
    return ret;
}
