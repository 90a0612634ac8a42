/*
 * spinglass_replicas — one sim per (disorder sample, temperature), holding both replicas.
 * The couplings come from desc.coupling_seed, independently of the Monte Carlo seed, so the
 * two replicas (and every temperature of a sample) see the same disorder; each replica
 * runs its own chain.
 */
#include <math.h>
#include <stdio.h>

#include <latmc/latmc.h>

#include "ex_pool.h"
#include "ex_util.h"
#include "sg.h"

struct sg_job {
    const struct sg_study *s;
    latmc_ctx *ctx;
    struct sg_chain *res;
};

static int run_chain(int task, void *user)
{
    struct sg_job *job = user;
    const struct sg_study *s = job->s;
    int t = task / s->nsamples, k = task % s->nsamples;
    struct sg_chain *out = &job->res[task];

    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_HEISENBERG;
    d.ndim = s->ndim;
    for (int i = 0; i < s->ndim; i++)
        d.extent[i] = s->L;
    d.couplings = LATMC_COUPLINGS_GAUSSIAN;
    d.coupling_seed = (uint64_t)k + 1;  /* sample k: the same disorder at every T */
    d.replicas = 2;
    d.algorithm = LATMC_ALGO_HEATBATH;
    d.device = LATMC_DEVICE_CPU;
    d.n_threads = 1;
    d.seed = ex_chain_seed(s->seed, (uint64_t)task);

    char what[64];
    snprintf(what, sizeof what, "sample %d, T = %.3f", k + 1, s->T[t]);
    latmc_sim *sim = NULL;
    int st = ex_check(latmc_sim_create(job->ctx, &d, &sim), NULL, what);
    if (!st)
        st = ex_check(latmc_sim_set_param(sim, LATMC_PARAM_BETA, 1.0 / s->T[t]), sim, what);
    if (!st)
        st = ex_check(latmc_sim_set_param(sim, LATMC_PARAM_NOVER, s->nover), sim, what);
    if (!st)
        st = ex_check(latmc_sim_init_spins(sim, LATMC_INIT_HOT), sim, what);
    if (!st)
        st = ex_check(latmc_sim_sweep(sim, s->therm), sim, what);
    *out = (struct sg_chain){ 0 };
    double late = 0.0;
    for (uint64_t n = 0; !st && n < s->sweeps; n++) {
        double e, q2;
        st = ex_check(latmc_sim_sweep(sim, 1), sim, what);
        if (!st)
            st = ex_check(latmc_sim_observable(sim, LATMC_OBS_ENERGY, &e), sim, what);
        if (!st)
            st = ex_check(latmc_sim_observable(sim, LATMC_OBS_OVERLAP2, &q2), sim, what);
        if (st)
            break;
        out->e += e;
        out->q2 += q2;
        out->q4 += q2 * q2;
        if (2 * n >= s->sweeps)
            late += q2;
        out->hist[sg_qbin(q2)] += 1.0;
    }
    latmc_sim_destroy(&sim);
    if (st)
        return st;
    double n = (double)s->sweeps;
    out->e /= n;
    out->q2 /= n;
    out->q4 /= n;
    out->q2_late = late / (double)(s->sweeps / 2);  /* n >= ceil(S/2): floor(S/2) terms */
    for (int b = 0; b < SG_QBINS; b++)
        out->hist[b] /= n;
    return 0;
}

int sg_qbin(double q2)
{
    /* q^2 = sum of the 9 squared entries of q_{mu nu} lies in [0, 1] (Cauchy-Schwarz for
     * unit spins); 1 itself belongs to the last bin, q^2 <= 10^SG_QLOG_MIN to the first. */
    if (!(q2 > 0.0))
        return 0;
    int b = (int)floor((log10(q2) - SG_QLOG_MIN) / -SG_QLOG_MIN * SG_QBINS);
    return b < 0 ? 0 : b >= SG_QBINS ? SG_QBINS - 1 : b;
}

double sg_qbin_centre(int b)
{
    return pow(10.0, SG_QLOG_MIN * (1.0 - (b + 0.5) / SG_QBINS));
}

int sg_run(const struct sg_study *s, struct sg_chain *res)
{
    struct sg_job job = { .s = s, .res = res };
    int st = ex_check(latmc_ctx_create(&job.ctx), NULL, "latmc_ctx_create");
    if (!st)
        st = ex_pool_run(s->jobs, s->nT * s->nsamples, run_chain, &job, true);
    latmc_ctx_destroy(&job.ctx);
    return st;
}
