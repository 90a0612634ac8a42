/*
 * potts_transition — the energy histogram at beta_c from independent chains. With J = 1 and
 * h = 0 the energy is E = -B, B the number of satisfied bonds, an integer: counting B
 * exactly keeps every bit of information for reweighting (reweight.c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "ex_pool.h"
#include "ex_util.h"
#include "potts.h"

struct hist_job {
    latmc_ctx *ctx;
    const struct potts_case *c;
    const struct run_plan *p;
    struct energy_hist *h;
};

static int hist_chain(int k, void *user)
{
    struct hist_job *job = user;
    const struct potts_case *c = job->c;
    struct energy_hist *h = job->h;
    uint64_t *count = h->count + (size_t)k * (size_t)(2 * h->N + 1);

    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_POTTS;
    d.q = c->q;
    d.ndim = 2;
    d.extent[0] = d.extent[1] = c->L;
    d.algorithm = LATMC_ALGO_HEATBATH;
    d.device = LATMC_DEVICE_CPU;
    d.n_threads = 1;
    d.seed = ex_chain_seed(job->p->seed, (uint64_t)c->q * 1000 + 100 + (uint64_t)k);

    char what[64];
    snprintf(what, sizeof what, "q = %d histogram chain %d", c->q, k);
    latmc_sim *sim = NULL;
    int st = ex_check(latmc_sim_create(job->ctx, &d, &sim), NULL, what);
    if (!st)
        st = ex_check(latmc_sim_set_param(sim, LATMC_PARAM_BETA, h->beta_run), sim, what);
    /* Half the chains start ordered, half disordered: at a first-order point each start
     * lingers in its own phase, and both phases must be sampled. */
    if (!st)
        st = ex_check(latmc_sim_init_spins(sim, k % 2 ? LATMC_INIT_COLD : LATMC_INIT_HOT), sim,
                      what);
    if (!st)
        st = ex_check(latmc_sim_sweep(sim, job->p->therm), sim, what);
    for (uint64_t n = 0; !st && n < job->p->sweeps; n++) {
        double e;
        st = ex_check(latmc_sim_sweep(sim, 1), sim, what);
        if (!st)
            st = ex_check(latmc_sim_observable(sim, LATMC_OBS_ENERGY, &e), sim, what);
        if (!st) {
            long B = lround(-e * h->N);  /* exact: e = -B/N */
            if (B < 0 || B > 2L * h->N) {
                fprintf(stderr, "%s: energy %g out of range\n", what, e);
                st = 1;
            } else {
                count[B]++;
            }
        }
    }
    latmc_sim_destroy(&sim);
    return st;
}

int potts_histogram(latmc_ctx *ctx, const struct potts_case *c, const struct run_plan *p,
                    struct energy_hist *h)
{
    h->N = c->L * c->L;
    h->nchains = c->nchains;
    h->beta_run = c->beta_c;
    h->count = calloc((size_t)c->nchains * (size_t)(2 * h->N + 1), sizeof *h->count);
    if (h->count == NULL) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    struct hist_job job = { ctx, c, p, h };
    return ex_pool_run(p->jobs, c->nchains, hist_chain, &job, true);
}

void hist_free(struct energy_hist *h)
{
    free(h->count);
    h->count = NULL;
}
