/*
 * phi4_lab — one chain per (L, mu2). The proposal width epsilon is tuned during
 * thermalisation (latmc_sim_tune_epsilon) and then frozen, so that the measured chain is a
 * proper Metropolis chain; the accumulators give binning errors and jackknife errors of the
 * derived quantities.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "ex_pool.h"
#include "ex_util.h"
#include "lab.h"

struct scan_job {
    const struct lab *lab;
    latmc_ctx *ctx;
    struct lab_point *res;
};

enum { COL_ABSM, COL_M2, COL_M4, COL_PHI2, NCOL };

/*
 * The start: a uniform field at the minimum of the local potential mu2/2 phi^2 + g/24 phi^4,
 * phi = sqrt(-6 mu2 / g) for mu2 < 0, else 0. A random start in the broken phase orders into
 * domains whose walls take far longer than the thermalisation to disappear on large
 * lattices, and the lab would show <|phi|> ~ 0 where the field is ordered; a uniform start
 * has no walls, and in the symmetric phase it melts quickly.
 */
static int start_ordered(latmc_sim *sim, const struct lab *lab, double mu2, size_t n,
                         const char *what)
{
    double v = mu2 < 0.0 ? sqrt(-6.0 * mu2 / lab->g) : 0.0;
    bool single = lab->precision == LATMC_PRECISION_FLOAT;
    size_t bytes = n * (single ? sizeof(float) : sizeof(double));
    void *field = malloc(bytes);
    if (field == NULL) {
        fprintf(stderr, "%s: out of memory\n", what);
        return LATMC_ENOMEM;
    }
    for (size_t i = 0; i < n; i++) {
        if (single)
            ((float *)field)[i] = (float)v;
        else
            ((double *)field)[i] = v;
    }
    int st = ex_check(latmc_sim_set_spins(sim, field, bytes), sim, what);
    free(field);
    return st;
}

static int run_point(int task, void *user)
{
    struct scan_job *job = user;
    const struct lab *lab = job->lab;
    /* Largest lattices first: the longest tasks start early, which balances the pool. */
    int l = lab->nL - 1 - task / lab->npoints, i = task % lab->npoints;
    double mu2 = lab->npoints > 1
        ? lab->mu2_lo + (lab->mu2_hi - lab->mu2_lo) * i / (lab->npoints - 1) : lab->mu2_lo;
    double N = 1.0;

    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_PHI4;
    d.ndim = lab->ndim;
    for (int k = 0; k < lab->ndim; k++) {
        d.extent[k] = lab->L[l];
        N *= lab->L[l];
    }
    d.precision = lab->precision;
    d.device = LATMC_DEVICE_CPU;
    d.n_threads = 1;
    d.seed = ex_chain_seed(lab->seed, (uint64_t)task);

    char what[64];
    snprintf(what, sizeof what, "L = %d, mu2 = %.4f", lab->L[l], mu2);
    latmc_sim *sim = NULL;
    latmc_acc *acc = NULL;
    struct lab_point *p = &job->res[l * lab->npoints + i];
    p->mu2 = mu2;
    int st = ex_check(latmc_sim_create(job->ctx, &d, &sim), NULL, what);
    if (!st)
        st = ex_check(latmc_acc_create(&acc, NCOL), NULL, what);
    const struct { int key; double v; } params[] = {
        { LATMC_PARAM_MU2, mu2 }, { LATMC_PARAM_G, lab->g }, { LATMC_PARAM_LAMBDA, lab->lambda },
        { LATMC_PARAM_NHIT, lab->nhit }, { LATMC_PARAM_NLOC, lab->nloc },
    };
    for (size_t k = 0; !st && k < sizeof params / sizeof params[0]; k++)
        st = ex_check(latmc_sim_set_param(sim, params[k].key, params[k].v), sim, what);
    if (!st)
        st = start_ordered(sim, lab, mu2, (size_t)N, what);
    if (!st)
        st = ex_check(latmc_sim_tune_epsilon(sim, lab->target, lab->therm), sim, what);
    if (!st)
        st = ex_check(latmc_sim_reset_acceptance(sim), sim, what);
    for (uint64_t n = 0; !st && n < lab->sweeps; n++) {
        double row[NCOL];
        st = ex_check(latmc_sim_sweep(sim, 1), sim, what);
        if (!st)
            st = ex_check(latmc_sim_observable(sim, LATMC_OBS_ABS_MAGNETIZATION, &row[COL_ABSM]),
                          sim, what);
        if (!st)
            st = ex_check(latmc_sim_observable(sim, LATMC_OBS_M2, &row[COL_M2]), sim, what);
        if (!st)
            st = ex_check(latmc_sim_observable(sim, LATMC_OBS_M4, &row[COL_M4]), sim, what);
        if (!st)
            st = ex_check(latmc_sim_observable(sim, LATMC_OBS_PHI2, &row[COL_PHI2]), sim, what);
        if (!st)
            st = ex_check(latmc_acc_push(acc, row, NCOL), NULL, what);
    }
    if (!st)
        st = ex_check(latmc_sim_observable(sim, LATMC_OBS_ACCEPTANCE, &p->acceptance), sim,
                      what);
    if (!st)
        st = ex_check(latmc_sim_get_param(sim, LATMC_PARAM_EPSILON, &p->epsilon), sim, what);
    if (!st)
        st = ex_check(latmc_acc_mean(acc, COL_ABSM, &p->absm), NULL, what);
    if (!st)
        st = ex_check(latmc_acc_error(acc, COL_ABSM, &p->dabsm), NULL, what);
    if (!st)
        st = ex_check(latmc_acc_mean(acc, COL_PHI2, &p->phi2), NULL, what);
    if (!st)
        st = ex_check(latmc_acc_error(acc, COL_PHI2, &p->dphi2), NULL, what);
    /* There is no beta in phi^4 (weight exp(-H)): the susceptibility factor is N alone. */
    if (!st)
        st = ex_check(latmc_acc_susceptibility(acc, COL_ABSM, COL_M2, N, 32, &p->chi, &p->dchi),
                      NULL, what);
    if (!st)
        st = ex_check(latmc_acc_binder(acc, COL_M2, COL_M4, 32, &p->u4, &p->du4), NULL, what);
    latmc_acc_destroy(&acc);
    latmc_sim_destroy(&sim);
    return st;
}

int lab_run(const struct lab *lab, struct lab_point *res)
{
    struct scan_job job = { .lab = lab, .res = res };
    int st = ex_check(latmc_ctx_create(&job.ctx), NULL, "latmc_ctx_create");
    if (!st)
        st = ex_pool_run(lab->jobs, lab->nL * lab->npoints, run_point, &job, true);
    latmc_ctx_destroy(&job.ctx);
    return st;
}
