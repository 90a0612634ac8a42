/*
 * The cluster observables (LATMC_OBS_CLUSTERS, LATMC_OBS_LARGEST_CLUSTER,
 * LATMC_OBS_CLUSTER_M2; doc/clusters.md) on the parts of a lattice shared by processes: 1
 * to 4 parts over a transport of threads (tests/support/thread_parts.h), each part's
 * values after every call of sweeps bit for bit those of one sim of the whole lattice on
 * the CPU (and the configurations the same), for Ising Swendsen-Wang and Wolff (uniform
 * and +-J couplings), Potts q = 3 (and q = 5 in a field) Swendsen-Wang and Wolff, with and
 * without a field (set, removed and set again between the calls, so the parts' records
 * change size), 2D and 3D, slabs of two planes to twelve, equal and not. After the last call part 0 alone reads them once more: the
 * reads exchange no message (a collective one would wait for the other parts for ever,
 * and the test's timeout fail it).
 *
 * Usage: test_cluster_stats_parts [cuda]: the parts on the CPU backend, or on CUDA (exit
 * 77 where no CUDA sim can be made: nothing checked).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <latmc/latmc.h>
#include <latmc/part.h>

#include "thread_parts.h"

enum { CALLS = 3, KEYS = 3, MAX_SITES = 6 * 6 * 12 };

static const int keys[KEYS] = { LATMC_OBS_CLUSTERS, LATMC_OBS_LARGEST_CLUSTER,
                                LATMC_OBS_CLUSTER_M2 };

struct scase {
    const char *name;
    int model, algorithm, couplings, ndim;
    int64_t extent[3];
    double beta, h; /* the field of the first and the last call (the second: none) */
    bool cold;      /* a cold start (Wolff: clusters across the parts at once) */
    int q;          /* Potts: q states (0: 3) */
};

static const struct scase cases[] = {
    { "ising2d_sw", LATMC_MODEL_ISING, LATMC_ALGO_SWENDSEN_WANG, LATMC_COUPLINGS_UNIFORM, 2,
      { 16, 12, 0 }, 0.44, 0.0, false, 0 },
    { "ising2d_sw_field", LATMC_MODEL_ISING, LATMC_ALGO_SWENDSEN_WANG, LATMC_COUPLINGS_UNIFORM,
      2, { 16, 12, 0 }, 0.44, 0.1, false, 0 },
    { "ising2d_wolff", LATMC_MODEL_ISING, LATMC_ALGO_WOLFF, LATMC_COUPLINGS_UNIFORM, 2,
      { 16, 12, 0 }, 0.5, 0.0, true, 0 },
    { "ising2d_wolff_field", LATMC_MODEL_ISING, LATMC_ALGO_WOLFF, LATMC_COUPLINGS_UNIFORM, 2,
      { 16, 12, 0 }, 0.44, 0.1, false, 0 },
    { "ising3d_pmj_sw_field", LATMC_MODEL_ISING, LATMC_ALGO_SWENDSEN_WANG,
      LATMC_COUPLINGS_BIMODAL, 3, { 6, 4, 8 }, 0.9, 0.2, false, 0 },
    { "ising3d_sw", LATMC_MODEL_ISING, LATMC_ALGO_SWENDSEN_WANG, LATMC_COUPLINGS_UNIFORM, 3,
      { 6, 4, 8 }, 0.22, 0.0, false, 0 },
    { "potts3_sw", LATMC_MODEL_POTTS, LATMC_ALGO_SWENDSEN_WANG, LATMC_COUPLINGS_UNIFORM, 2,
      { 16, 12, 0 }, 1.0, 0.0, false, 0 },
    { "potts3_sw_field", LATMC_MODEL_POTTS, LATMC_ALGO_SWENDSEN_WANG, LATMC_COUPLINGS_UNIFORM,
      2, { 16, 12, 0 }, 1.0, 0.2, false, 0 },
    { "potts3_wolff", LATMC_MODEL_POTTS, LATMC_ALGO_WOLFF, LATMC_COUPLINGS_UNIFORM, 3,
      { 6, 6, 12 }, 0.6, 0.0, false, 0 },
    { "potts3_wolff_field", LATMC_MODEL_POTTS, LATMC_ALGO_WOLFF, LATMC_COUPLINGS_UNIFORM, 2,
      { 16, 12, 0 }, 1.1, 0.2, true, 0 },
    /* 3D in a field, 5 units of two planes: slabs of 4 6, 2 4 4 and 2 2 2 4 planes */
    { "potts3_sw_field_3d", LATMC_MODEL_POTTS, LATMC_ALGO_SWENDSEN_WANG,
      LATMC_COUPLINGS_UNIFORM, 3, { 6, 4, 10 }, 0.8, 0.15, false, 0 },
    { "ising3d_wolff_field", LATMC_MODEL_ISING, LATMC_ALGO_WOLFF, LATMC_COUPLINGS_UNIFORM, 3,
      { 6, 4, 10 }, 0.22, 0.1, false, 0 },
    /* q = 5 in a field: the sizes and decisions of more states */
    { "potts5_sw_field", LATMC_MODEL_POTTS, LATMC_ALGO_SWENDSEN_WANG, LATMC_COUPLINGS_UNIFORM,
      2, { 16, 12, 0 }, 1.2, 0.2, false, 5 },
    { "potts5_wolff_field", LATMC_MODEL_POTTS, LATMC_ALGO_WOLFF, LATMC_COUPLINGS_UNIFORM, 2,
      { 16, 12, 0 }, 1.2, 0.2, false, 5 },
};

/* What a chain gave: each call's three values and statuses, the last configuration, and
 * (parts) part 0's values read again alone. */
struct result {
    int status; /* LATMC_OK, or the first failure */
    double v[CALLS][KEYS];
    int st[CALLS][KEYS];
    unsigned char spins[MAX_SITES];
    size_t bytes;
    double again[KEYS];
};

static latmc_sim_desc desc_of(const struct scase *c, int device)
{
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = c->model;
    d.q = c->model == LATMC_MODEL_POTTS ? (c->q ? c->q : 3) : 0;
    d.ndim = c->ndim;
    for (int k = 0; k < 3; k++)
        d.extent[k] = c->extent[k];
    d.algorithm = c->algorithm;
    d.couplings = c->couplings;
    d.coupling_seed = 5;
    d.seed = 20261125;
    d.device = device;
    d.n_threads = 1;
    return d;
}

/* The script (collective on parts): a hot (or cold) start, then calls of 3, 1 and 2 sweeps, the field
 * h, 0, h, each call's cluster observables read on every part. */
static void run_script(latmc_sim *sim, const struct scase *c, struct result *r, bool alone_again,
                       int rank)
{
    static const uint64_t sweeps[CALLS] = { 3, 1, 2 };
    int st = latmc_sim_init_spins(sim, c->cold ? LATMC_INIT_COLD : LATMC_INIT_HOT);
    if (st == LATMC_OK)
        st = latmc_sim_set_param(sim, LATMC_PARAM_BETA, c->beta);
    for (int call = 0; call < CALLS && st == LATMC_OK; call++) {
        st = latmc_sim_set_param(sim, LATMC_PARAM_H, call == 1 ? 0.0 : c->h);
        if (st == LATMC_OK)
            st = latmc_sim_sweep(sim, sweeps[call]);
        for (int k = 0; k < KEYS && st == LATMC_OK; k++)
            r->st[call][k] = latmc_sim_observable(sim, keys[k], &r->v[call][k]);
    }
    if (st == LATMC_OK)
        st = latmc_sim_spins_size(sim, &r->bytes);
    if (st == LATMC_OK && r->bytes > sizeof r->spins)
        st = LATMC_ENOMEM;
    if (st == LATMC_OK)
        st = latmc_sim_get_spins(sim, r->spins, r->bytes);
    /* part 0 alone (no other part calls): no message may be needed */
    for (int k = 0; k < KEYS && st == LATMC_OK && alone_again && rank == 0; k++)
        st = latmc_sim_observable(sim, keys[k], &r->again[k]);
    r->status = st;
}

struct part_arg {
    const struct scase *c;
    int device;
    struct result *r;
};

static void part_body(int rank, int n, const latmc_transport *t, void *arg)
{
    struct part_arg *a = arg;
    struct result *r = &a->r[rank];
    latmc_ctx *ctx = NULL;
    latmc_sim *sim = NULL;
    const latmc_sim_desc d = desc_of(a->c, a->device);
    int st = latmc_ctx_create(&ctx);
    if (st == LATMC_OK)
        st = latmc_sim_create_part(ctx, &d, rank, n, t, &sim);
    if (st == LATMC_OK)
        run_script(sim, a->c, r, true, rank);
    else
        r->status = st;
    if (r->status != LATMC_OK)
        printf("  part %d of %d: status %d (%s)\n", rank, n, r->status, latmc_last_error());
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
}

/* Whether got is want bit for bit (the values, statuses and configuration). */
static bool same(const struct scase *c, int n, int rank, const struct result *want,
                 const struct result *got)
{
    bool ok = got->status == LATMC_OK && got->bytes == want->bytes &&
              memcmp(got->spins, want->spins, want->bytes) == 0;
    if (!ok)
        printf("FAIL %s, %d parts, part %d: status %d, configuration %s\n", c->name, n, rank,
               got->status, got->bytes == want->bytes &&
                                    memcmp(got->spins, want->spins, want->bytes) == 0
                                ? "the same"
                                : "differs");
    for (int call = 0; call < CALLS; call++)
        for (int k = 0; k < KEYS; k++) {
            const bool eq = got->st[call][k] == LATMC_OK &&
                            memcmp(&got->v[call][k], &want->v[call][k], sizeof(double)) == 0;
            if (!eq)
                printf("FAIL %s, %d parts, part %d, call %d: %s %.17g (status %d), one box "
                       "%.17g\n", c->name, n, rank, call, latmc_observable_name(keys[k]),
                       got->v[call][k], got->st[call][k], want->v[call][k]);
            ok = ok && eq;
        }
    for (int k = 0; k < KEYS && rank == 0 && n > 0; k++)
        if (memcmp(&got->again[k], &want->v[CALLS - 1][k], sizeof(double)) != 0) {
            printf("FAIL %s, %d parts: part 0's %s read again alone %.17g, one box %.17g\n",
                   c->name, n, latmc_observable_name(keys[k]), got->again[k],
                   want->v[CALLS - 1][k]);
            ok = false;
        }
    return ok;
}

int main(int argc, char **argv)
{
    const bool cuda = argc > 1 && strcmp(argv[1], "cuda") == 0;
    if (argc > 2 || (argc == 2 && !cuda)) {
        fprintf(stderr, "usage: %s [cuda]\n", argv[0]);
        return 2;
    }
    const int device = cuda ? LATMC_DEVICE_CUDA : LATMC_DEVICE_CPU;
    latmc_ctx *ctx = NULL;
    if (latmc_ctx_create(&ctx) != LATMC_OK)
        return 1;
    if (cuda) { /* a CUDA sim at all? */
        latmc_sim *probe = NULL;
        const latmc_sim_desc d = desc_of(&cases[0], LATMC_DEVICE_CUDA);
        if (latmc_sim_create(ctx, &d, &probe) != LATMC_OK) {
            printf("SKIP: no CUDA sim here (%s): nothing checked\n", latmc_last_error());
            latmc_ctx_destroy(&ctx);
            return 77;
        }
        latmc_sim_destroy(&probe);
    }
    int failures = 0, rows = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct scase *c = &cases[i];
        /* the reference: one sim of the whole lattice on the CPU */
        struct result want;
        memset(&want, 0, sizeof want);
        latmc_sim *sim = NULL;
        const latmc_sim_desc d = desc_of(c, LATMC_DEVICE_CPU);
        want.status = latmc_sim_create(ctx, &d, &sim);
        if (want.status == LATMC_OK)
            run_script(sim, c, &want, false, 0);
        latmc_sim_destroy(&sim);
        bool moves = want.status == LATMC_OK;
        for (int call = 0; call < CALLS && moves; call++)
            for (int k = 0; k < KEYS; k++)
                moves = moves && want.st[call][k] == LATMC_OK;
        /* a test of something: more than one cluster size seen (Swendsen-Wang: more than
         * one cluster) */
        if (moves && c->algorithm == LATMC_ALGO_SWENDSEN_WANG)
            moves = want.v[0][0] > 1.0 && want.v[0][1] < 1.0;
        if (!moves) {
            printf("FAIL %s: the one-box reference (status %d, %s) counts no clusters to "
                   "compare\n", c->name, want.status, latmc_last_error());
            failures++;
            continue;
        }
        for (int n = 1; n <= 4; n++) {
            struct result got[4];
            memset(got, 0, sizeof got);
            struct part_arg a = { c, device, got };
            void *args[4] = { &a, &a, &a, &a };
            if (thread_parts_run(n, NULL, part_body, args, NULL) != 0) {
                printf("FAIL %s: cannot start %d part threads\n", c->name, n);
                failures++;
                continue;
            }
            bool ok = true;
            for (int p = 0; p < n; p++)
                ok = same(c, n, p, &want, &got[p]) && ok;
            rows++;
            failures += !ok;
            if (ok)
                printf("ok %s, %d part%s: clusters %.0f %.0f %.0f, largest %.4f %.4f %.4f "
                       "(the calls)\n", c->name, n, n > 1 ? "s" : "", want.v[0][0],
                       want.v[1][0], want.v[2][0], want.v[0][1], want.v[1][1], want.v[2][1]);
        }
    }
    latmc_ctx_destroy(&ctx);
    printf("%s parts: %d rows, %d failed\n", cuda ? "CUDA" : "CPU", rows, failures);
    return failures ? 1 : 0;
}
