/*
 * The Ising model: H = -J sum_<ij> eps_ij s_i s_j - h sum_i s_i, s = +-1, eps_ij = 1
 * (desc.couplings = UNIFORM, the default) or random +-1 per bond (BIMODAL: the +-J model,
 * drawn from desc.coupling_seed or set by the user).
 * Decision tables and observables are computed here, once, in double precision on the
 * host, so that every backend takes bit-identical decisions and reports bit-identical
 * observables from the same integer state.
 */
#include <math.h>

#include "decision.h" /* latmc_threshold_u32 */
#include "ising.h"
#include "model.h"

uint64_t latmc_threshold_u32(double p)
{
    if (!(p > 0.0))
        return 0;
    if (p >= 1.0)
        return UINT64_C(1) << 32;
    return (uint64_t)ldexp(p, 32);
}

/* Metropolis: flip s with probability min(1, exp(-beta dE)), dE = 2 s (J n + h). */
static double metropolis_probability(int s, int n, double beta, double J, double h)
{
    if (beta == 0.0)
        return 1.0;
    double de = 2.0 * s * (J * n + h);
    if (de <= 0.0)
        return 1.0; /* exactly 1, not exp() rounded */
    return exp(-beta * de);
}

/* Heat bath: the new spin is +1 with probability 1 / (1 + exp(-2 beta (J n + h))). */
static double heatbath_probability(int n, double beta, double J, double h)
{
    if (beta == 0.0)
        return 0.5;
    return 1.0 / (1.0 + exp(-2.0 * beta * (J * n + h)));
}

static void ising_update_data(latmc_sim *sim)
{
    struct latmc_ising_tables *t = sim->model_data;
    const int ndim = sim->desc.ndim;
    const double beta = sim->param[LATMC_PARAM_BETA], J = sim->param[LATMC_PARAM_J],
                 h = sim->param[LATMC_PARAM_H];
    for (int k = 0; k < LATMC_ISING_MAX_K; k++) {
        if (k > 2 * ndim) {
            t->metropolis[0][k] = t->metropolis[1][k] = t->heatbath[k] = 0;
            continue;
        }
        int n = 2 * k - 2 * ndim; /* neighbour sum */
        t->metropolis[0][k] = latmc_threshold_u32(metropolis_probability(-1, n, beta, J, h));
        t->metropolis[1][k] = latmc_threshold_u32(metropolis_probability(+1, n, beta, J, h));
        t->heatbath[k] = latmc_threshold_u32(heatbath_probability(n, beta, J, h));
    }
}

static int ising_observable(const latmc_sim *sim, const void *sums, int key, double *value)
{
    const struct latmc_ising_sums *s = sums;
    const double J = sim->param[LATMC_PARAM_J], h = sim->param[LATMC_PARAM_H];
    const double n = (double)sim->nsites;
    const double m = (double)s->spins / n;
    switch (key) {
    case LATMC_OBS_ENERGY:
        *value = latmc_ising_energy_per_site(J, h, s->bonds, s->spins, n);
        return LATMC_OK;
    default:
        return latmc_moment_observable(key, m, m * m, value);
    }
}

static size_t ising_site_bytes(const latmc_sim_desc *d)
{
    (void)d;
    return sizeof(int8_t);
}

static int ising_check_spins(const latmc_sim *sim, const void *buf)
{
    const int8_t *s = buf;
    const size_t n = (size_t)sim->nsites * (size_t)sim->desc.replicas;
    for (size_t i = 0; i < n; i++)
        if (s[i] != 1 && s[i] != -1)
            return latmc_fail(LATMC_EINVAL, "latmc_sim_set_spins: entry %zu is %d; Ising spins "
                              "are +1 or -1", i, s[i]);
    return LATMC_OK;
}

/* +-J couplings are exactly +1 or -1: the chain's integer neighbour sum needs them so. */
static int ising_check_couplings(const latmc_sim *sim, const float *buf, size_t count,
                                 const char *fn)
{
    (void)sim;
    for (size_t i = 0; i < count; i++)
        if (buf[i] != 1.0f && buf[i] != -1.0f)
            return latmc_fail(LATMC_EINVAL, "%s: coupling %zu is %.9g; Ising +-J couplings "
                              "are exactly +1 or -1", fn, i, (double)buf[i]);
    return LATMC_OK;
}

#define P(key) (1u << (key))
/* One tile's sums into a total (model.h: tiles are added in plane order). */
static void ising_add_sums(void *total, const void *tile)
{
    struct latmc_ising_sums *t = total;
    const struct latmc_ising_sums *s = tile;
    t->bonds += s->bonds;
    t->spins += s->spins;
}

/* Step s of a sweep: colour s of the checkerboard, its draws (sweep, UPDATE, phase = the
 * colour, sub 0) (lib/ising_rules.h). */
static struct latmc_step ising_step_of(const latmc_sim *sim, uint64_t sweep, int s)
{
    /* decisions = 1: the same colours and names, bit-sliced (doc/models/ising-decisions.md) */
    const int kind = sim->param[LATMC_PARAM_DECISIONS] != 0.0 ? LATMC_STEP_COLOUR_BITSLICED
                                                               : LATMC_STEP_COLOUR;
    return latmc_step_name(s, kind, s, 0, sweep, (uint32_t)s, 0);
}

const struct latmc_model_def latmc_model_ising = {
    .id = LATMC_MODEL_ISING,
    .name = "Ising",
    .implemented = true,
    .params = P(LATMC_PARAM_BETA) | P(LATMC_PARAM_J) | P(LATMC_PARAM_H) |
              P(LATMC_PARAM_DECISIONS), /* doc/models/ising-decisions.md */
    .algorithms = P(LATMC_ALGO_METROPOLIS) | P(LATMC_ALGO_HEATBATH) |
                  P(LATMC_ALGO_SWENDSEN_WANG) | P(LATMC_ALGO_WOLFF),
    .default_algorithm = LATMC_ALGO_METROPOLIS,
    .max_replicas = 1,
    .coupling_kinds = P(LATMC_COUPLINGS_UNIFORM) | P(LATMC_COUPLINGS_BIMODAL),
    .uniform_couplings = false, /* uniform: no coupling array, the fast kernels */
    .observables = P(LATMC_OBS_ENERGY) | P(LATMC_OBS_MAGNETIZATION) |
                   P(LATMC_OBS_ABS_MAGNETIZATION) | P(LATMC_OBS_M2) | P(LATMC_OBS_M4) |
                   P(LATMC_OBS_M2_K0) | P(LATMC_OBS_M2_KMIN),
    .sums_size = sizeof(struct latmc_ising_sums),
    .data_size = sizeof(struct latmc_ising_tables),
    .check_desc = latmc_check_even_extents,
    .site_bytes = ising_site_bytes,
    .check_spins = ising_check_spins,
    .check_couplings = ising_check_couplings,
    .sweep_steps = 2,        /* colour 0, then colour 1 of the checkerboard */
    .box_halo = 1,
    .box_plane_multiple = 2, /* even slabs: a slab's checkerboard is the global one */
    .step_of = ising_step_of,
    .update_data = ising_update_data,
    .observable = ising_observable,
    .add_sums = ising_add_sums,
};
