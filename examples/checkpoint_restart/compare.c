/* checkpoint_restart — run one case interrupted and uninterrupted, and compare. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compare.h"
#include "ex_util.h"

/* A fresh sim of case c on `threads` threads, parameters set, hot start. */
static int fresh(latmc_ctx *ctx, const struct model_case *c, int threads, latmc_sim **out)
{
    latmc_sim_desc d = c->desc;
    d.n_threads = threads;
    int st = ex_check(latmc_sim_create(ctx, &d, out), NULL, c->name);
    for (int k = 0; !st && k < c->nparams; k++)
        st = ex_check(latmc_sim_set_param(*out, c->param_key[k], c->param_value[k]), *out,
                      c->name);
    if (!st)
        st = ex_check(latmc_sim_init_spins(*out, LATMC_INIT_HOT), *out, c->name);
    return st;
}

/* n sweeps; the first part of a phi^4 run tunes epsilon while it sweeps. */
static int advance(latmc_sim *sim, const struct model_case *c, uint64_t n, bool tune)
{
    if (tune && c->tune_target > 0.0)
        return ex_check(latmc_sim_tune_epsilon(sim, c->tune_target, n), sim, c->name);
    return ex_check(latmc_sim_sweep(sim, n), sim, c->name);
}

/* The configuration bytes, and the couplings where the model has them; NULL on failure. */
static unsigned char *state_bytes(latmc_sim *sim, size_t *size)
{
    size_t spins = 0, ncoup = 0;
    if (latmc_sim_spins_size(sim, &spins) != LATMC_OK)
        return NULL;
    if (latmc_sim_couplings_size(sim, &ncoup) != LATMC_OK)
        ncoup = 0;  /* LATMC_EUNSUPPORTED: a model without couplings */
    *size = spins + ncoup * sizeof(float);
    unsigned char *buf = malloc(*size ? *size : 1);
    if (buf == NULL || latmc_sim_get_spins(sim, buf, spins) != LATMC_OK ||
        (ncoup > 0 && latmc_sim_get_couplings(sim, (float *)(void *)(buf + spins), ncoup) !=
                      LATMC_OK)) {
        free(buf);
        return NULL;
    }
    return buf;
}

/* Compare b against the uninterrupted u; print each difference. Returns their number. */
static int differences(latmc_sim *b, latmc_sim *u, const char *label)
{
    int diff = 0;
    size_t nb = 0, nu = 0;
    unsigned char *sb = state_bytes(b, &nb), *su = state_bytes(u, &nu);
    if (sb == NULL || su == NULL || nb != nu || memcmp(sb, su, nb) != 0) {
        printf("    %s: configuration differs\n", label);
        diff++;
    }
    free(sb);
    free(su);

    uint64_t cb = 0, cu = 0, ab = 0, tb = 0, au = 0, tu = 0;
    latmc_sim_sweep_count(b, &cb);
    latmc_sim_sweep_count(u, &cu);
    latmc_sim_acceptance_counts(b, &ab, &tb);
    latmc_sim_acceptance_counts(u, &au, &tu);
    if (cb != cu || ab != au || tb != tu) {
        printf("    %s: sweep count %llu vs %llu, accepted %llu/%llu vs %llu/%llu\n", label,
               (unsigned long long)cb, (unsigned long long)cu, (unsigned long long)ab,
               (unsigned long long)tb, (unsigned long long)au, (unsigned long long)tu);
        diff++;
    }
    /* Every observable and parameter the model has, compared as bit patterns: "equal
     * within rounding" is not the guarantee. Keys the model lacks fail alike on both. */
    for (int key = 1; key <= 10; key++) {
        double vb = 0, vu = 0;
        int rb = latmc_sim_observable(b, key, &vb), ru = latmc_sim_observable(u, key, &vu);
        if (latmc_observable_name(key) != NULL &&
            (rb != ru || (rb == LATMC_OK && memcmp(&vb, &vu, sizeof vb) != 0))) {
            printf("    %s: observable %s %.17g vs %.17g\n", label, latmc_observable_name(key),
                   vb, vu);
            diff++;
        }
        vb = vu = 0;
        rb = latmc_sim_get_param(b, key, &vb);
        ru = latmc_sim_get_param(u, key, &vu);
        if (latmc_param_name(key) != NULL &&
            (rb != ru || (rb == LATMC_OK && memcmp(&vb, &vu, sizeof vb) != 0))) {
            printf("    %s: parameter %s %.17g vs %.17g\n", label, latmc_param_name(key), vb,
                   vu);
            diff++;
        }
    }
    return diff;
}

int restart_check(latmc_ctx *ctx, const struct model_case *c, int threads, const char *dir)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.ckpt", dir, c->name);
    latmc_sim *a = NULL, *b = NULL, *m = NULL, *u = NULL;
    void *buf = NULL;
    size_t size = 0;
    int result = -1;

    /* The interrupted run: N1 sweeps, save to a file and to memory, and forget the sim. */
    if (fresh(ctx, c, threads, &a) || advance(a, c, c->n1, true) ||
        ex_check(latmc_sim_save(a, path), a, "latmc_sim_save") ||
        ex_check(latmc_sim_serialize(a, NULL, 0, &size), a, "latmc_sim_serialize") ||
        (buf = malloc(size)) == NULL ||
        ex_check(latmc_sim_serialize(a, buf, size, &size), a, "latmc_sim_serialize"))
        goto out;
    latmc_sim_destroy(&a);
    /* ... later, perhaps in another process: load and continue for N2 sweeps. */
    if (ex_check(latmc_sim_load(ctx, path, &b), NULL, "latmc_sim_load") ||
        ex_check(latmc_sim_deserialize(ctx, buf, size, &m), NULL, "latmc_sim_deserialize") ||
        advance(b, c, c->n2, false) || advance(m, c, c->n2, false))
        goto out;
    /* The uninterrupted run, on one thread. */
    if (fresh(ctx, c, 1, &u) || advance(u, c, c->n1, true) || advance(u, c, c->n2, false))
        goto out;

    latmc_sim_desc d;
    latmc_sim_get_desc(b, &d);
    printf("\n%s: %lld", c->name, (long long)d.extent[0]);
    for (int k = 1; k < d.ndim; k++)
        printf("x%lld", (long long)d.extent[k]);
    printf(", %llu sweeps%s, checkpoint %s (%zu bytes), then %llu more on %d thread(s); "
           "uninterrupted on 1 thread\n", (unsigned long long)c->n1,
           c->tune_target > 0.0 ? " tuning epsilon" : "", path, size,
           (unsigned long long)c->n2, d.n_threads);
    int diff = differences(b, u, "loaded from the file") +
               differences(m, u, "deserialized from memory");
    double e = 0.0;
    latmc_sim_observable(u, LATMC_OBS_ENERGY, &e);
    if (diff == 0)
        printf("    identical: configuration%s, sweep count, acceptance counters, every "
               "observable (E/N = %.17g) and parameter\n",
               c->desc.model == LATMC_MODEL_HEISENBERG ? " of both replicas, couplings" : "", e);
    result = diff > 0;
out:
    free(buf);
    latmc_sim_destroy(&a);
    latmc_sim_destroy(&b);
    latmc_sim_destroy(&m);
    latmc_sim_destroy(&u);
    return result;
}
