/*
 * phi^4 (Ginzburg-Landau with the higher-derivative 1/Lambda term), weight exp(-H):
 *   H = sum_x [ 1/2 sum_mu (phi(x+mu) - phi(x))^2 + mu2/2 phi^2 + g/24 phi^4
 *             + 1/(2 Lambda) (sum_mu (phi(x+mu) - 2 phi(x) + phi(x-mu)))^2 ].
 * The descriptor: extents the colouring needs, the field precision, the coefficient
 * tables every backend uses, and the observables from the backends' reduction.
 * The chain itself is defined in doc/models/phi4.md.
 */
#include <math.h>

#include "model.h"
#include "phi4.h"

static int phi4_check_desc(const latmc_sim_desc *d)
{
    if (latmc_phi4_colouring_of(d->ndim, d->extent).ncolours != 0)
        return LATMC_OK;
    if (d->ndim == 3)
        return latmc_fail(LATMC_EINVAL, "phi^4: extents %lld x %lld x %lld do not fit a "
                          "colouring of the update: in 3D every extent must be divisible by 8 "
                          "(8 colours, (x + 3y + 2z) mod 8), e.g. 8 x 8 x 8 or 16 x 16 x 32",
                          (long long)d->extent[0], (long long)d->extent[1],
                          (long long)d->extent[2]);
    return latmc_fail(LATMC_EINVAL, "phi^4: extents %lld x %lld do not fit a colouring of the "
                      "update: in 2D both extents must be divisible by 8 (8 colours, "
                      "(x + 3y) mod 8), or both divisible by 5 (5 colours, (x + 2y) mod 5), "
                      "e.g. 8 x 8, 10 x 10 or 15 x 40", (long long)d->extent[0],
                      (long long)d->extent[1]);
}

static size_t phi4_site_bytes(const latmc_sim_desc *d)
{
    return d->precision == LATMC_PRECISION_FLOAT ? sizeof(float) : sizeof(double);
}

/*
 * The largest |phi| a configuration may hold (set_spins, checkpoints). Below it every
 * observable is finite for every valid parameter set and lattice: per site the largest
 * term is g/24 phi^4 <= 1e100/24 * 1e160, times at most 2^40 sites, about 5e271, far below
 * DBL_MAX; 1e50 would already overflow. No physical field comes near it; float fields
 * cannot exceed it at all (FLT_MAX is 3.4e38).
 */
#define PHI4_FIELD_MAX 1e40

static int phi4_check_spins(const latmc_sim *sim, const void *buf)
{
    const size_t n = (size_t)sim->nsites;
    const bool single = sim->desc.precision == LATMC_PRECISION_FLOAT;
    for (size_t i = 0; i < n; i++) {
        const double v = single ? (double)((const float *)buf)[i] : ((const double *)buf)[i];
        if (!isfinite(v))
            return latmc_fail(LATMC_EINVAL, "latmc_sim_set_spins: field value %zu is %g; "
                              "phi^4 fields must be finite", i, v);
        if (fabs(v) > PHI4_FIELD_MAX)
            return latmc_fail(LATMC_EINVAL, "latmc_sim_set_spins: field value %zu is %g; "
                              "phi^4 fields must satisfy |phi| <= %g (beyond it the energy "
                              "overflows)", i, v, PHI4_FIELD_MAX);
    }
    return LATMC_OK;
}

/* The coefficients of doc/models/phi4.md, in double, then rounded once to float. */
static void phi4_update_data(latmc_sim *sim)
{
    struct latmc_phi4_tables *t = sim->model_data;
    const double k = sim->desc.ndim, mu2 = sim->param[LATMC_PARAM_MU2],
                 g = sim->param[LATMC_PARAM_G], lambda = sim->param[LATMC_PARAM_LAMBDA];
    const int finite_lambda = isfinite(lambda);
    struct latmc_phi4_coef_d *d = &t->d;
    d->finite_lambda = finite_lambda;
    d->site = k + mu2 / 2.0;
    if (finite_lambda)
        d->site += k * (1.0 + 2.0 * k) / lambda;
    d->inv_lambda = finite_lambda ? 1.0 / lambda : 0.0;
    d->quartic = g / 24.0;
    d->four_k = 4.0 * k;
    d->epsilon = sim->param[LATMC_PARAM_EPSILON];

    struct latmc_phi4_coef_f *f = &t->f;
    f->finite_lambda = finite_lambda;
    f->site = (float)d->site;
    f->inv_lambda = (float)d->inv_lambda;
    f->quartic = (float)d->quartic;
    f->four_k = (float)d->four_k;
    f->epsilon = (float)d->epsilon;

    t->nhit = (uint32_t)sim->param[LATMC_PARAM_NHIT];
    t->nloc = (uint32_t)sim->param[LATMC_PARAM_NLOC];
}

static int phi4_observable(const latmc_sim *sim, const void *sums, int key, double *value)
{
    const struct latmc_phi4_sums *s = sums;
    const double n = (double)sim->nsites;
    const double mu2 = sim->param[LATMC_PARAM_MU2], g = sim->param[LATMC_PARAM_G],
                 lambda = sim->param[LATMC_PARAM_LAMBDA];
    const double m = s->phi / n;
    switch (key) {
    case LATMC_OBS_ENERGY: {
        double h = 0.5 * s->grad2 + 0.5 * mu2 * s->phi2 + g / 24.0 * s->phi4;
        if (isfinite(lambda)) /* Lambda = inf: the term is absent, not lap2 / inf */
            h += s->lap2 / (2.0 * lambda);
        *value = h / n;
        return LATMC_OK;
    }
    case LATMC_OBS_PHI2:
        *value = s->phi2 / n;
        return LATMC_OK;
    default:
        return latmc_moment_observable(key, m, m * m, value);
    }
}

#define P(key) (1u << (key))
/* One tile's sums into a total (model.h: tiles are added in plane order). */
static void phi4_add_sums(void *total, const void *tile)
{
    struct latmc_phi4_sums *t = total;
    const struct latmc_phi4_sums *s = tile;
    t->phi += s->phi;
    t->phi2 += s->phi2;
    t->phi4 += s->phi4;
    t->grad2 += s->grad2;
    t->lap2 += s->lap2;
}

/*
 * The schedule of a sweep for the plan (lib/plan.c, doc/architecture.md): step s is colour
 * s mod ncolours of pass s / ncolours, all nhit hits of each site of that colour inside the
 * step -- the order of the kernels' sweep (doc/models/phi4.md), so the chain is the same.
 * Sites of one colour do not interact, so a step may run its sites in any order and on any
 * box; each draw is named by (pass, colour, hit, site).
 */
static int phi4_sweep_schedule(const latmc_sim *sim)
{
    const struct latmc_phi4_colouring c =
        latmc_phi4_colouring_of(sim->desc.ndim, sim->desc.extent);
    return (int)sim->param[LATMC_PARAM_NLOC] * c.ncolours; /* <= 65535 x 8 */
}

/* Step s of a sweep: colour s mod ncolours of pass s / ncolours, its draws named by the
 * pass's sweep word (latmc_phi4_rng_sweep), phase = the colour (hits past 2^15 add to it,
 * latmc_phi4_rng_phase), sub from hit 0, draw 0 (lib/phi4.h). */
static struct latmc_step phi4_step_of(const latmc_sim *sim, uint64_t sweep, int s)
{
    const int nc = latmc_phi4_colouring_of(sim->desc.ndim, sim->desc.extent).ncolours;
    const int colour = s % nc, pass = s / nc;
    const uint32_t nloc = (uint32_t)sim->param[LATMC_PARAM_NLOC];
    return latmc_step_name(s, LATMC_STEP_COLOUR, colour, pass,
                           latmc_phi4_rng_sweep(sweep, nloc, (uint32_t)pass),
                           latmc_phi4_rng_phase(colour, 0), latmc_phi4_rng_sub(0, 0));
}

/*
 * A slab's origin along the cut axis (the last) is a multiple of the colouring's period
 * along it, so that the slab's colouring, counted from its own first plane, is the global
 * one: colour (x + ay y + az z) mod nc changes by az z0 (3D) or ay y0 (2D) at origin z0 /
 * y0. 3D: 2 z0 = 0 mod 8, z0 a multiple of 4; 2D: 3 y0 = 0 mod 8 (a multiple of 8), or
 * 2 y0 = 0 mod 5 (a multiple of 5).
 */
static int phi4_box_plane_multiple(const latmc_sim_desc *d)
{
    const struct latmc_phi4_colouring c = latmc_phi4_colouring_of(d->ndim, d->extent);
    if (c.ncolours == 0)
        return 1; /* refused by check_desc before the plan is built */
    const int a = d->ndim == 3 ? c.az : c.ay;
    int period = 1;
    while ((a * period) % c.ncolours != 0)
        period++;
    return period;
}

const struct latmc_model_def latmc_model_phi4 = {
    .id = LATMC_MODEL_PHI4,
    .name = "phi^4",
    .implemented = true,
    .params = P(LATMC_PARAM_MU2) | P(LATMC_PARAM_G) | P(LATMC_PARAM_LAMBDA) |
              P(LATMC_PARAM_EPSILON) | P(LATMC_PARAM_NHIT) | P(LATMC_PARAM_NLOC),
    /* the cluster algorithms: nloc Metropolis passes, then one embedded cluster step
     * (lib/cluster_embed.h) */
    .algorithms = P(LATMC_ALGO_METROPOLIS) | P(LATMC_ALGO_SWENDSEN_WANG) | P(LATMC_ALGO_WOLFF),
    .default_algorithm = LATMC_ALGO_METROPOLIS,
    .max_replicas = 1,
    .observables = P(LATMC_OBS_ENERGY) | P(LATMC_OBS_MAGNETIZATION) |
                   P(LATMC_OBS_ABS_MAGNETIZATION) | P(LATMC_OBS_M2) | P(LATMC_OBS_M4) |
                   P(LATMC_OBS_PHI2) | P(LATMC_OBS_M2_K0) | P(LATMC_OBS_M2_KMIN),
    .sums_size = sizeof(struct latmc_phi4_sums),
    .data_size = sizeof(struct latmc_phi4_tables),
    .check_desc = phi4_check_desc,
    .site_bytes = phi4_site_bytes,
    .check_spins = phi4_check_spins,
    .update_data = phi4_update_data,
    .observable = phi4_observable,
    .add_sums = phi4_add_sums,
    /* Halo 2 always, whatever Lambda: the 1/Lambda term reads x +- 2 e_mu and the
     * diagonals, and the kernels read those planes (and discard them) for Lambda = inf too;
     * Lambda may change between sweeps, and the plan is fixed at create. */
    .box_halo = 2,
    .sweep_schedule = phi4_sweep_schedule,
    .box_plane_multiple_of = phi4_box_plane_multiple,
    .step_of = phi4_step_of,
};
