/*
 * The q-state Potts model: H = -J sum_<ij> delta(s_i, s_j) - h sum_i delta(s_i, 0).
 * Decision tables and observables are computed here, once, in double precision on the
 * host, so that every backend takes bit-identical decisions (integer comparisons only)
 * and reports bit-identical observables from the same integer state.
 */
#include <math.h>

#include "decision.h" /* latmc_threshold_u32 */
#include "model.h"
#include "modes.h"
#include "potts.h"
#include "potts_rules.h" /* LATMC_POTTS_SUB_* */

static int potts_check_desc(const latmc_sim_desc *d)
{
    if (d->q < LATMC_POTTS_MIN_Q || d->q > LATMC_POTTS_MAX_Q)
        return latmc_fail(LATMC_EINVAL, "desc.q = %d: the Potts model takes q from %d to %d "
                          "states", d->q, LATMC_POTTS_MIN_Q, LATMC_POTTS_MAX_Q);
    if (latmc_potts_colours(d->ndim, d->extent) == 0) {
        if (d->ndim == 2)
            return latmc_fail(LATMC_EINVAL, "Potts lattice %lld x %lld: the update colours "
                              "sites by (x + y) mod 2 or mod 3, which needs every extent even "
                              "or every extent divisible by 3", (long long)d->extent[0],
                              (long long)d->extent[1]);
        return latmc_fail(LATMC_EINVAL, "Potts lattice %lld x %lld x %lld: the update colours "
                          "sites by (x + y + z) mod 2 or mod 3, which needs every extent even "
                          "or every extent divisible by 3", (long long)d->extent[0],
                          (long long)d->extent[1], (long long)d->extent[2]);
    }
    return LATMC_OK;
}

/* Metropolis: accept s -> s' with probability min(1, exp(-beta dE)), dE = -J dn - h dz. */
static double metropolis_probability(int dn, int dz, double beta, double J, double h)
{
    const double de = -(J * dn + h * dz);
    if (de <= 0.0)
        return 1.0; /* exactly 1, not exp() rounded */
    return exp(-beta * de);
}

/* a_c = J n + h z: the log-weight of class c = 2 n + z, divided by beta. */
static double class_field(int c, double J, double h)
{
    return J * (double)(c / 2) + h * (double)(c % 2);
}

/*
 * floor(2^32 exp(beta (a_c - a_r))), clamped to [0, 2^32 - 1]. Used only when a_c <= a_r
 * (r is the largest class present); ties, and the NaN of inf - inf at absurd parameters,
 * give the largest weight.
 */
static uint32_t heatbath_weight(double a_c, double a_r, double beta)
{
    const double x = beta * (a_c - a_r);
    if (!(x < 0.0))
        return UINT32_MAX;
    const double w = ldexp(exp(x), 32); /* < 2^32 since exp(x) < 1 */
    return w >= 4294967295.0 ? UINT32_MAX : (uint32_t)w;
}

static void potts_update_data(latmc_sim *sim)
{
    struct latmc_potts_tables *t = sim->model_data;
    const int two_d = 2 * sim->desc.ndim;
    const double beta = sim->param[LATMC_PARAM_BETA], J = sim->param[LATMC_PARAM_J],
                 h = sim->param[LATMC_PARAM_H];
    for (int row = 0; row < LATMC_POTTS_METRO_ROWS; row++)
        for (int dz = -1; dz <= 1; dz++)
            t->metropolis[row][dz + 1] = row > 2 * two_d ? 0 :
                latmc_threshold_u32(metropolis_probability(row - two_d, dz, beta, J, h));

    const int nclasses = 2 * (two_d + 1);
    for (int c = 0; c < LATMC_POTTS_CLASSES; c++) {
        t->rank[c] = 0;
        for (int r = 0; r < LATMC_POTTS_CLASSES; r++)
            t->heatbath[r][c] = 0;
    }
    for (int c = 0; c < nclasses; c++) {
        const double a_c = class_field(c, J, h);
        for (int r = 0; r < nclasses; r++) {
            const double a_r = class_field(r, J, h);
            /* beta >= 0: a larger field is a larger weight (beta = 0: all tie) */
            if (beta > 0.0 && a_r < a_c)
                t->rank[c]++;
            t->heatbath[r][c] = heatbath_weight(a_c, a_r, beta);
        }
    }
}

/* max_k n_k, the size of the largest state population. */
static int64_t largest_population(const struct latmc_potts_sums *s, int q)
{
    int64_t best = 0;
    for (int k = 0; k < q; k++)
        if (s->count[k] > best)
            best = s->count[k];
    return best;
}

static int potts_observable(const latmc_sim *sim, const void *sums, int key, double *value)
{
    const struct latmc_potts_sums *s = sums;
    const double J = sim->param[LATMC_PARAM_J], h = sim->param[LATMC_PARAM_H];
    const double n = (double)sim->nsites, q = (double)sim->desc.q;
    /* (q max_k n_k / N - 1) / (q - 1): 0 for equal populations, 1 when ordered; >= 0 */
    const double m = (q * (double)largest_population(s, sim->desc.q) / n - 1.0) / (q - 1.0);
    switch (key) {
    case LATMC_OBS_ENERGY:
        *value = (-J * (double)s->matches - h * (double)s->count[0]) / n;
        return LATMC_OK;
    case LATMC_OBS_M2_K0: /* the simplex order parameter's (lib/modes.h) */
        *value = latmc_potts_simplex_m2(s->count, sim->desc.q, sim->nsites);
        return LATMC_OK;
    default: /* m >= 0: MAGNETIZATION and ABS_MAGNETIZATION coincide */
        return latmc_moment_observable(key, m, m * m, value);
    }
}

static size_t potts_site_bytes(const latmc_sim_desc *d)
{
    (void)d;
    return sizeof(uint8_t);
}

static int potts_check_spins(const latmc_sim *sim, const void *buf)
{
    const uint8_t *s = buf;
    const size_t n = (size_t)sim->nsites * (size_t)sim->desc.replicas;
    for (size_t i = 0; i < n; i++)
        if (s[i] >= sim->desc.q)
            return latmc_fail(LATMC_EINVAL, "latmc_sim_set_spins: entry %zu is %d; Potts states "
                              "are 0 .. q-1 = %d", i, s[i], sim->desc.q - 1);
    return LATMC_OK;
}

#define P(key) (1u << (key))
/* One tile's sums into a total (model.h: tiles are added in plane order). */
static void potts_add_sums(void *total, const void *tile)
{
    struct latmc_potts_sums *t = total;
    const struct latmc_potts_sums *s = tile;
    t->matches += s->matches;
    for (int k = 0; k <= LATMC_POTTS_MAX_Q; k++)
        t->count[k] += s->count[k];
}

/*
 * The plan's rules (lib/plan.c): a sweep is one step per colour of the lattice's colouring
 * (latmc_potts_colours: 2, the checkerboard, or 3), colour 0 first; a step reads the
 * nearest neighbours (box_halo 1); a slab is a whole number of c planes, so that
 * (x + y + z) mod c is the same colouring in every slab as in the lattice. The desc is
 * validated, so c is 2 or 3.
 */
static int potts_sweep_schedule(const latmc_sim *sim)
{
    return latmc_potts_colours(sim->desc.ndim, sim->desc.extent);
}

/* Step s of a sweep: colour s, its draws (sweep, UPDATE, phase = the colour, the first
 * sub of the algorithm: Metropolis proposes there and accepts at the next) (lib/potts_rules.h). */
static struct latmc_step potts_step_of(const latmc_sim *sim, uint64_t sweep, int s)
{
    const uint32_t sub = sim->desc.algorithm == LATMC_ALGO_METROPOLIS ? LATMC_POTTS_SUB_PROPOSE
                                                                       : LATMC_POTTS_SUB_HEATBATH;
    return latmc_step_name(s, LATMC_STEP_COLOUR, s, 0, sweep, (uint32_t)s, sub);
}

static int potts_box_plane_multiple(const latmc_sim_desc *d)
{
    return latmc_potts_colours(d->ndim, d->extent);
}

const struct latmc_model_def latmc_model_potts = {
    .id = LATMC_MODEL_POTTS,
    .name = "Potts",
    .implemented = true,
    .params = P(LATMC_PARAM_BETA) | P(LATMC_PARAM_J) | P(LATMC_PARAM_H),
    .algorithms = P(LATMC_ALGO_METROPOLIS) | P(LATMC_ALGO_HEATBATH) |
                  P(LATMC_ALGO_SWENDSEN_WANG) | P(LATMC_ALGO_WOLFF),
    .default_algorithm = LATMC_ALGO_METROPOLIS,
    .max_replicas = 1,
    .observables = P(LATMC_OBS_ENERGY) | P(LATMC_OBS_MAGNETIZATION) |
                   P(LATMC_OBS_ABS_MAGNETIZATION) | P(LATMC_OBS_M2) | P(LATMC_OBS_M4) |
                   P(LATMC_OBS_M2_K0) | P(LATMC_OBS_M2_KMIN),
    .sums_size = sizeof(struct latmc_potts_sums),
    .data_size = sizeof(struct latmc_potts_tables),
    .check_desc = potts_check_desc,
    .site_bytes = potts_site_bytes,
    .check_spins = potts_check_spins,
    .update_data = potts_update_data,
    .observable = potts_observable,
    .box_halo = 1,
    .add_sums = potts_add_sums,
    .sweep_schedule = potts_sweep_schedule,     /* the colours: 2 or 3 steps */
    .box_plane_multiple_of = potts_box_plane_multiple,
    .step_of = potts_step_of,
};
