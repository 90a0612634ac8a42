/*
 * potts_transition — one chain per temperature of the scan. The accumulator (latmc_acc)
 * keeps each chain's series and gives the binning errors of the means and the jackknife
 * errors of the specific heat and susceptibility: the library's analysis, used as a
 * downstream code would.
 */
#include <math.h>
#include <stdio.h>

#include "ex_pool.h"
#include "ex_util.h"
#include "potts.h"

struct scan_job {
    latmc_ctx *ctx;
    const struct potts_case *c;
    const struct run_plan *p;
    struct scan_point *pts;
};

enum { COL_E, COL_M, COL_M2, COL_K0, COL_KMIN, NCOL };

static int scan_point(int i, void *user)
{
    struct scan_job *job = user;
    const struct potts_case *c = job->c;
    double beta = c->beta_c * (c->lo + (c->hi - c->lo) * i / (c->nscan > 1 ? c->nscan - 1 : 1));
    double N = (double)c->L * c->L;

    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_POTTS;
    d.q = c->q;
    d.ndim = 2;
    d.extent[0] = d.extent[1] = c->L;
    d.algorithm = LATMC_ALGO_HEATBATH;  /* for large q far better than Metropolis */
    d.device = LATMC_DEVICE_CPU;
    d.n_threads = 1;
    d.seed = ex_chain_seed(job->p->seed, (uint64_t)c->q * 1000 + (uint64_t)i);

    char what[64];
    snprintf(what, sizeof what, "q = %d, beta = %.5f", c->q, beta);
    latmc_sim *sim = NULL;
    latmc_acc *acc = NULL;
    int st = ex_check(latmc_sim_create(job->ctx, &d, &sim), NULL, what);
    if (!st)
        st = ex_check(latmc_acc_create(&acc, NCOL), NULL, what);
    if (!st)
        st = ex_check(latmc_sim_set_param(sim, LATMC_PARAM_BETA, beta), sim, what);
    /* Start ordered on the ordered side and disordered on the other, so that a short
     * thermalisation suffices even where the first-order transition is metastable. */
    if (!st)
        st = ex_check(latmc_sim_init_spins(sim, beta > c->beta_c ? LATMC_INIT_COLD
                                                                  : LATMC_INIT_HOT), sim, what);
    if (!st)
        st = ex_check(latmc_sim_sweep(sim, job->p->therm), sim, what);
    for (uint64_t k = 0; !st && k < job->p->sweeps; k++) {
        double row[NCOL];
        st = ex_check(latmc_sim_sweep(sim, 1), sim, what);
        if (!st)
            st = ex_check(latmc_sim_observable(sim, LATMC_OBS_ENERGY, &row[COL_E]), sim, what);
        if (!st)
            st = ex_check(latmc_sim_observable(sim, LATMC_OBS_MAGNETIZATION, &row[COL_M]), sim,
                          what);
        if (!st)
            st = ex_check(latmc_sim_observable(sim, LATMC_OBS_M2, &row[COL_M2]), sim, what);
        /* |m(0)|^2 and |m(k_min)|^2 of the simplex order parameter, for xi/L */
        if (!st)
            st = ex_check(latmc_sim_observable(sim, LATMC_OBS_M2_K0, &row[COL_K0]), sim, what);
        if (!st)
            st = ex_check(latmc_sim_observable(sim, LATMC_OBS_M2_KMIN, &row[COL_KMIN]), sim,
                          what);
        if (!st)
            st = ex_check(latmc_acc_push(acc, row, NCOL), NULL, what);
    }
    struct scan_point *pt = &job->pts[i];
    pt->beta = beta;
    if (!st)
        st = ex_check(latmc_acc_mean(acc, COL_E, &pt->e), NULL, what);
    if (!st)
        st = ex_check(latmc_acc_error(acc, COL_E, &pt->de), NULL, what);
    if (!st)
        st = ex_check(latmc_acc_mean(acc, COL_M, &pt->m), NULL, what);
    if (!st)
        st = ex_check(latmc_acc_error(acc, COL_M, &pt->dm), NULL, what);
    if (!st)
        st = ex_check(latmc_acc_specific_heat(acc, COL_E, beta * beta * N, 32, &pt->c, &pt->dc),
                      NULL, what);
    /* Potts m is never negative, so m itself plays the role of |m| in chi. */
    if (!st)
        st = ex_check(latmc_acc_susceptibility(acc, COL_M, COL_M2, beta * N, 32, &pt->chi,
                                               &pt->dchi), NULL, what);
    pt->xil = pt->dxil = NAN;
    if (!st && latmc_acc_corr_length(acc, COL_K0, COL_KMIN, c->L, 32, &pt->xil, &pt->dxil) ==
                   LATMC_OK) {
        pt->xil /= c->L;
        pt->dxil /= c->L;
    }
    latmc_acc_destroy(&acc);
    latmc_sim_destroy(&sim);
    return st;
}

int potts_scan(latmc_ctx *ctx, const struct potts_case *c, const struct run_plan *p,
               struct scan_point *pts)
{
    struct scan_job job = { ctx, c, p, pts };
    return ex_pool_run(p->jobs, c->nscan, scan_point, &job, true);
}
