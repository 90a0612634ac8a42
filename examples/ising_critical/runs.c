/*
 * ising_critical — one Markov chain per (L, T, replica), run through the public API.
 * Replicas differ only in their seed: they are independent chains, which is what makes the
 * jackknife over replicas (analysis.c) a valid error estimate.
 */
#include <math.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include <latmc/latmc.h>

#include "ex_pool.h"
#include "ex_util.h"
#include "study.h"

/* The library's reason for the first chain whose |m(k_min)|^2 it could not measure, said once
 * on stderr: the report then only says that xi/L is missing. */
static atomic_flag said_why_no_kmin = ATOMIC_FLAG_INIT;
/* The first |m(k_min)|^2 outside [0, 1] (no configuration has one: a fault of the library),
 * said once on stderr; the chain's mean keeps it, so the point's xi/L shows it too. */
static atomic_flag said_bad_kmin = ATOMIC_FLAG_INIT;

struct run_ctx {
    struct study *s;
    latmc_ctx *ctx;
    int (*order)[3];  /* task -> (l, t, r), largest lattices first for load balance */
};

static int run_chain(int task, void *user)
{
    struct run_ctx *rc = user;
    struct study *s = rc->s;
    int l = rc->order[task][0], t = rc->order[task][1], r = rc->order[task][2];
    int L = s->L[l];
    uint64_t chain_id = ((uint64_t)l * (uint64_t)s->nT + (uint64_t)t) * (uint64_t)s->R +
                        (uint64_t)r;

    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_ISING;
    d.ndim = s->dim;
    for (int k = 0; k < s->dim; k++)
        d.extent[k] = L;
    d.algorithm = s->algorithm;
    d.device = s->device[l];
    d.n_threads = 1;  /* one core per chain: the pool runs several chains at once */
    d.seed = ex_chain_seed(s->seed, chain_id);

    latmc_sim *sim = NULL;
    char what[96];
    snprintf(what, sizeof what, "L = %d, T = %.4f, chain %d", L, s->T[t], r);
    int st = ex_check(latmc_sim_create(rc->ctx, &d, &sim), NULL, what);
    if (st == LATMC_OK)
        st = ex_check(latmc_sim_set_param(sim, LATMC_PARAM_BETA, 1.0 / s->T[t]), sim, what);
    if (st == LATMC_OK)
        st = ex_check(latmc_sim_init_spins(sim, LATMC_INIT_HOT), sim, what);
    if (st == LATMC_OK)
        st = ex_check(latmc_sim_sweep(sim, s->therm[l]), sim, what);

    struct chain_means sum = { 0 };
    uint64_t n = 0;
    /* |m(k_min)|^2 for xi/L: a second reduction by planes (where the backend has none,
     * LATMC_EUNSUPPORTED, and xi/L is left out) */
    double mk2 = 0;
    bool have_k = false;
    if (st == LATMC_OK) {
        const int k = latmc_sim_observable(sim, LATMC_OBS_M2_KMIN, &mk2);
        have_k = k == LATMC_OK;
        if (k == LATMC_EUNSUPPORTED && !atomic_flag_test_and_set(&said_why_no_kmin))
            fprintf(stderr, "ising_critical: %s: no xi/L: %s\n", what,
                    latmc_sim_last_error(sim));
        if (k != LATMC_OK && k != LATMC_EUNSUPPORTED)
            st = ex_check(k, sim, what);
    }
    for (uint64_t done = 0; st == LATMC_OK && done < s->sweeps[l]; done += s->every) {
        double m2, m4, absm, e;
        st = ex_check(latmc_sim_sweep(sim, s->every), sim, what);
        /* The four values come from one reduction over the lattice (cached). */
        if (st == LATMC_OK)
            st = ex_check(latmc_sim_observable(sim, LATMC_OBS_M2, &m2), sim, what);
        if (st == LATMC_OK)
            st = ex_check(latmc_sim_observable(sim, LATMC_OBS_M4, &m4), sim, what);
        if (st == LATMC_OK)
            st = ex_check(latmc_sim_observable(sim, LATMC_OBS_ABS_MAGNETIZATION, &absm), sim,
                          what);
        if (st == LATMC_OK)
            st = ex_check(latmc_sim_observable(sim, LATMC_OBS_ENERGY, &e), sim, what);
        if (st == LATMC_OK && have_k)
            st = ex_check(latmc_sim_observable(sim, LATMC_OBS_M2_KMIN, &mk2), sim, what);
        if (st == LATMC_OK && have_k && !(mk2 >= 0.0 && mk2 <= 1.0) &&
            !atomic_flag_test_and_set(&said_bad_kmin))
            fprintf(stderr, "ising_critical: %s: |m(k_min)|^2 = %g after %llu measured "
                    "sweeps, outside [0, 1] (a fault of the library)\n", what, mk2,
                    (unsigned long long)(done + s->every));
        if (st == LATMC_OK) {
            sum.mk2 += mk2;
            sum.m2 += m2;
            sum.m4 += m4;
            sum.absm += absm;
            sum.e += e;
            sum.e2 += e * e;
            n++;
        }
    }
    latmc_sim_destroy(&sim);
    if (st != LATMC_OK)
        return st;
    struct chain_means *out = study_chain(s, l, t, r);
    out->m2 = sum.m2 / (double)n;
    out->m4 = sum.m4 / (double)n;
    out->absm = sum.absm / (double)n;
    out->e = sum.e / (double)n;
    out->e2 = sum.e2 / (double)n;
    out->mk2 = have_k ? sum.mk2 / (double)n : NAN;
    out->has_k = have_k;
    return 0;
}

int study_run(struct study *s, int jobs)
{
    int ntasks = s->nL * s->nT * s->R;
    struct run_ctx rc = { .s = s };
    rc.order = malloc((size_t)ntasks * sizeof *rc.order);
    if (rc.order == NULL) {
        fprintf(stderr, "out of memory\n");
        return 1;
    }
    int k = 0;
    for (int l = s->nL - 1; l >= 0; l--)
        for (int t = 0; t < s->nT; t++)
            for (int r = 0; r < s->R; r++) {
                rc.order[k][0] = l;
                rc.order[k][1] = t;
                rc.order[k][2] = r;
                k++;
            }
    int st = ex_check(latmc_ctx_create(&rc.ctx), NULL, "latmc_ctx_create");
    if (st == LATMC_OK)
        st = ex_pool_run(jobs, ntasks, run_chain, &rc, true);
    latmc_ctx_destroy(&rc.ctx);
    free(rc.order);
    return st;
}
