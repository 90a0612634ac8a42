/*
 * The Heisenberg spin glass: H = -sum_<ij> J_ij s_i . s_j - h sum_i s_i^z, unit 3-vectors
 * s_i, couplings one per site and positive direction (Gaussian, +-1 or uniform 1, drawn
 * from desc.coupling_seed, or set by the user). Heat bath plus overrelaxation; the
 * definition of the chain is doc/models/heisenberg.md.
 */
#include <math.h>

#include "heisenberg.h"
#include "model.h"

static void heisenberg_update_data(latmc_sim *sim)
{
    struct latmc_heisenberg_params *p = sim->model_data;
    p->beta = sim->param[LATMC_PARAM_BETA];
    p->h = sim->param[LATMC_PARAM_H];
    p->nover = (int)sim->param[LATMC_PARAM_NOVER]; /* an integer in [0, 65535]: params.c */
}

static double norm3(const double v[3])
{
    return sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
}

/* Every observable but the overlap describes replica 0. */
static int heisenberg_observable(const latmc_sim *sim, const void *sums, int key, double *value)
{
    const struct latmc_heisenberg_sums *s = sums;
    const double n = (double)sim->nsites;
    const double h = sim->param[LATMC_PARAM_H];
    const double m[3] = { s->mag[0] / n, s->mag[1] / n, s->mag[2] / n };
    const double m2 = m[0] * m[0] + m[1] * m[1] + m[2] * m[2];
    switch (key) {
    case LATMC_OBS_ENERGY:
        *value = latmc_heisenberg_energy_per_site(h, s->bonds, s->mag[2], n);
        return LATMC_OK;
    case LATMC_OBS_OVERLAP2: {
        double q2 = 0.0;
        for (int mu = 0; mu < 3; mu++)
            for (int nu = 0; nu < 3; nu++) {
                const double q = s->overlap[mu][nu] / n;
                q2 += q * q;
            }
        *value = q2;
        return LATMC_OK;
    }
    default: /* vectors have no sign: MAGNETIZATION = ABS_MAGNETIZATION = |M| / N */
        return latmc_moment_observable(key, norm3(m), m2, value);
    }
}

static size_t heisenberg_site_bytes(const latmc_sim_desc *d)
{
    (void)d;
    return LATMC_HEISENBERG_COMPONENTS * sizeof(float);
}

static int heisenberg_check_spins(const latmc_sim *sim, const void *buf)
{
    const float *s = buf;
    const size_t n = (size_t)sim->nsites * (size_t)sim->desc.replicas;
    for (size_t k = 0; k < n; k++) {
        const float *v = s + LATMC_HEISENBERG_COMPONENTS * k;
        const size_t site = k % (size_t)sim->nsites, replica = k / (size_t)sim->nsites;
        if (!isfinite(v[0]) || !isfinite(v[1]) || !isfinite(v[2]))
            return latmc_fail(LATMC_EINVAL, "latmc_sim_set_spins: spin of site %zu (replica %zu) "
                              "has a non-finite component", site, replica);
        const double d[3] = { v[0], v[1], v[2] };
        const double len = norm3(d);
        if (!(fabs(len - 1.0) <= LATMC_HEISENBERG_UNIT_TOLERANCE))
            return latmc_fail(LATMC_EINVAL, "latmc_sim_set_spins: spin of site %zu (replica %zu) "
                              "has length %.9g: Heisenberg spins must be unit vectors "
                              "(length within %g of 1)", site, replica, len,
                              LATMC_HEISENBERG_UNIT_TOLERANCE);
    }
    return LATMC_OK;
}

/* Whether the sim's local passes start with the heat bath: every algorithm but
 * overrelaxation alone (the cluster algorithms run the heat-bath sweep, then their
 * cluster step: lib/cluster_embed_sweep.c). */
static int heisenberg_heatbath(const latmc_sim *sim)
{
    return sim->desc.algorithm != LATMC_ALGO_OVERRELAX;
}

/* Steps of one sweep for the current nover and the sim's algorithm (lib/heisenberg.h). */
static int heisenberg_sweep_schedule(const latmc_sim *sim)
{
    const int nover = (int)sim->param[LATMC_PARAM_NOVER];
    return 2 * latmc_heisenberg_passes(heisenberg_heatbath(sim), nover);
}

/* Step s of a sweep: colour s % 2 of pass s / 2, the heat bath in pass 0 of a heat-bath
 * sweep (draws: sweep, the replica's UPDATE stream, phase = the colour, subs 0 and 1),
 * overrelaxation otherwise (no draws) (lib/heisenberg.h). */
static struct latmc_step heisenberg_step_of(const latmc_sim *sim, uint64_t sweep, int s)
{
    const int heatbath =
        latmc_heisenberg_step_is_heatbath(heisenberg_heatbath(sim), s);
    const int colour = latmc_heisenberg_step_colour(s);
    return latmc_step_name(s, heatbath ? LATMC_STEP_COLOUR : LATMC_STEP_OVERRELAX, colour,
                           s / 2, sweep, (uint32_t)colour, 0);
}

#define P(key) (1u << (key))
/* One tile's sums into a total (model.h: tiles are added in plane order). */
static void heisenberg_add_sums(void *total, const void *tile)
{
    struct latmc_heisenberg_sums *t = total;
    const struct latmc_heisenberg_sums *s = tile;
    t->bonds += s->bonds;
    for (int a = 0; a < 3; a++) {
        t->mag[a] += s->mag[a];
        for (int b = 0; b < 3; b++)
            t->overlap[a][b] += s->overlap[a][b];
    }
}

const struct latmc_model_def latmc_model_heisenberg = {
    .id = LATMC_MODEL_HEISENBERG,
    .name = "Heisenberg",
    .implemented = true,
    .params = P(LATMC_PARAM_BETA) | P(LATMC_PARAM_H) | P(LATMC_PARAM_NOVER),
    /* the cluster algorithms: the heat-bath sweep, then one embedded cluster step
     * (lib/cluster_embed.h) */
    .algorithms = P(LATMC_ALGO_HEATBATH) | P(LATMC_ALGO_OVERRELAX) |
                  P(LATMC_ALGO_SWENDSEN_WANG) | P(LATMC_ALGO_WOLFF),
    .default_algorithm = LATMC_ALGO_HEATBATH,
    .max_replicas = 2,
    .coupling_kinds = (1u << LATMC_COUPLINGS_UNIFORM) | (1u << LATMC_COUPLINGS_GAUSSIAN) |
                      (1u << LATMC_COUPLINGS_BIMODAL),
    .uniform_couplings = true,
    .observables = P(LATMC_OBS_ENERGY) | P(LATMC_OBS_MAGNETIZATION) |
                   P(LATMC_OBS_ABS_MAGNETIZATION) | P(LATMC_OBS_M2) | P(LATMC_OBS_M4) |
                   P(LATMC_OBS_OVERLAP2) | P(LATMC_OBS_M2_K0) | P(LATMC_OBS_M2_KMIN) |
                   P(LATMC_OBS_OVERLAP2_KMIN),
    .sums_size = sizeof(struct latmc_heisenberg_sums),
    .data_size = sizeof(struct latmc_heisenberg_params),
    .check_desc = latmc_check_even_extents,
    .site_bytes = heisenberg_site_bytes,
    .check_spins = heisenberg_check_spins,
    /* the heat bath's two colours, then 2 steps per overrelaxation pass (sweep_schedule) */
    .sweep_steps = 2,
    .sweep_schedule = heisenberg_sweep_schedule,
    .box_halo = 1,
    .box_plane_multiple = 2, /* even slabs: a slab's checkerboard is the global one */
    .step_of = heisenberg_step_of,
    .update_data = heisenberg_update_data,
    .observable = heisenberg_observable,
    .add_sums = heisenberg_add_sums,
};
