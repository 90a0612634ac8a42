/*
 * The ensemble layout: the spec's members in an ensemble of 2 samples x 2 temperatures x
 * the spec's replicas (exchanges off), each member's configuration and energy (and
 * magnetization, Ising) against its standalone chain: a sim created from
 * latmc_ens_member_desc() on one thread at the C level (CUDA members: one GPU), given the
 * spec's parameters and its slot's beta. A middle `save` saves and loads the ensemble.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "identity.h"

enum { NS = 2, NT = 2 };

static double spec_beta(const struct spec *s, bool *has)
{
    for (int i = 0; i < SPEC_MAX_PARAMS && s->keys[i]; i++)
        if (s->keys[i] == LATMC_PARAM_BETA) {
            *has = true;
            return s->values[i];
        }
    *has = false;
    return 0;
}

#define FAIL_IF(cond, ...)                                                                 \
    do {                                                                                   \
        if (cond) {                                                                        \
            out->verdict = FAILED;                                                         \
            snprintf(out->why, sizeof out->why, __VA_ARGS__);                              \
            goto done;                                                                     \
        }                                                                                  \
    } while (0)

/* The member's standalone chain: its spins and energy (and magnetization). */
static int standalone(const struct spec *s, const latmc_sim_desc *md, double beta,
                      bool has_beta, int how, latmc_ctx *ctx, unsigned char *spins,
                      size_t bytes, double *energy, double *mag)
{
    latmc_sim_desc d = *md;
    d.n_threads = 1;
    setenv("LATMC_CPU_MASK", "c", 1);
    latmc_sim *sim = NULL;
    int st = latmc_sim_create(ctx, &d, &sim);
    unsetenv("LATMC_CPU_MASK");
    if (st == LATMC_OK)
        st = spec_set_params(s, sim);
    if (st == LATMC_OK && has_beta)
        st = latmc_sim_set_param(sim, LATMC_PARAM_BETA, beta);
    if (st == LATMC_OK)
        st = latmc_sim_init_spins(sim, how);
    if (st == LATMC_OK)
        st = latmc_sim_sweep(sim, s->sweeps1);
    if (st == LATMC_OK && s->change_key)
        st = latmc_sim_set_param(sim, s->change_key, s->change_value);
    if (st == LATMC_OK)
        st = latmc_sim_sweep(sim, s->sweeps2);
    if (st == LATMC_OK)
        st = latmc_sim_get_spins(sim, spins, bytes);
    if (st == LATMC_OK)
        st = latmc_sim_observable(sim, LATMC_OBS_ENERGY, energy);
    if (st == LATMC_OK && s->model == LATMC_MODEL_ISING)
        st = latmc_sim_observable(sim, LATMC_OBS_MAGNETIZATION, mag);
    latmc_sim_destroy(&sim);
    return st;
}

void ens_check(const struct spec *s, const struct row *r, const struct layout *l,
               latmc_ctx *ctx, struct outcome *out)
{
    out->verdict = PASSED;
    out->why[0] = '\0';
    latmc_ens *e = NULL;
    unsigned char *a = NULL, *b = NULL;
    char dir[] = "/tmp/latmc-matrix-ens-XXXXXX", path[64] = "";
    int gpus = 0;
    if (l->first.cuda && (latmc_ctx_device_count(ctx, LATMC_DEVICE_CUDA, &gpus) != LATMC_OK ||
                          gpus < 1)) {
        out->verdict = SKIPPED;
        snprintf(out->why, sizeof out->why, "no usable CUDA module or GPU");
        return;
    }
    latmc_sim_desc d = spec_desc(s, r);
    d.replicas = 1; /* the ensemble's replicas are its layout's */
    d.device = l->first.cuda ? LATMC_DEVICE_CUDA : LATMC_DEVICE_CPU;
    latmc_ens_layout lay;
    latmc_ens_layout_init(&lay);
    lay.n_samples = NS;
    lay.n_temperatures = NT;
    lay.n_replicas = s->replicas;
    lay.seed = 1234;
    lay.coupling_seed = 1234 ^ 0x5eed;
    lay.n_threads = l->first.threads ? l->first.threads : 1;
    const int members = NS * NT * s->replicas;
    bool has_beta;
    const double beta0 = spec_beta(s, &has_beta);
    const double beta[NT] = { beta0, 0.8 * beta0 };
    int st = latmc_ens_create(ctx, &d, &lay, &e);
    FAIL_IF(st != LATMC_OK, "ens create: %s", latmc_last_error());
    if (has_beta)
        FAIL_IF(latmc_ens_set_temperatures(e, beta, NT) != LATMC_OK, "temperatures: %s",
                latmc_last_error());
    for (int i = 0; i < SPEC_MAX_PARAMS && s->keys[i]; i++)
        if (s->keys[i] != LATMC_PARAM_BETA)
            FAIL_IF(latmc_ens_set_param(e, s->keys[i], s->values[i]) != LATMC_OK,
                    "ens set_param %s: %s", latmc_param_name(s->keys[i]), latmc_last_error());
    const int how = l->cold ? LATMC_INIT_COLD : LATMC_INIT_HOT;
    FAIL_IF(latmc_ens_init_spins(e, how) != LATMC_OK, "start: %s",
            latmc_last_error());
    FAIL_IF(latmc_ens_sweep(e, s->sweeps1) != LATMC_OK, "sweeps1: %s", latmc_last_error());
    if (s->change_key)
        FAIL_IF(latmc_ens_set_param(e, s->change_key, s->change_value) != LATMC_OK,
                "change: %s", latmc_last_error());
    if (l->mid == MID_SAVE) {
        FAIL_IF(!mkdtemp(dir), "no temporary directory");
        snprintf(path, sizeof path, "%s/ens.ckpt", dir);
        FAIL_IF(latmc_ens_save(e, path) != LATMC_OK, "ens save: %s", latmc_last_error());
        latmc_ens_destroy(&e);
        FAIL_IF(latmc_ens_load(ctx, path, &e) != LATMC_OK, "ens load: %s", latmc_last_error());
    }
    FAIL_IF(latmc_ens_sweep(e, s->sweeps2) != LATMC_OK, "sweeps2: %s", latmc_last_error());
    size_t bytes = 0;
    FAIL_IF(latmc_ens_spins_size(e, &bytes) != LATMC_OK, "spins size");
    double en[NS * NT * 2], mag[NS * NT * 2];
    FAIL_IF(latmc_ens_observables(e, LATMC_OBS_ENERGY, LATMC_ENS_BY_MEMBER, en, members) !=
                LATMC_OK, "energies: %s", latmc_last_error());
    if (s->model == LATMC_MODEL_ISING)
        FAIL_IF(latmc_ens_observables(e, LATMC_OBS_MAGNETIZATION, LATMC_ENS_BY_MEMBER, mag,
                                      members) != LATMC_OK,
                "magnetizations: %s", latmc_last_error());
    a = malloc(bytes);
    b = malloc(bytes);
    FAIL_IF(!a || !b, "no memory");
    for (int m = 0; m < members; m++) {
        latmc_sim_desc md;
        int t = -1;
        FAIL_IF(latmc_ens_member_desc(e, m, &md) != LATMC_OK, "member_desc %d", m);
        FAIL_IF(latmc_ens_temperature_of(e, m, &t) != LATMC_OK || t < 0 || t >= NT,
                "member %d: temperature", m);
        double energy = 0, magn = 0;
        st = standalone(s, &md, beta[t], has_beta, how, ctx, a, bytes, &energy, &magn);
        FAIL_IF(st != LATMC_OK, "member %d standalone: %s", m, latmc_last_error());
        FAIL_IF(latmc_ens_get_spins(e, m, b, bytes) != LATMC_OK, "get_spins %d", m);
        FAIL_IF(memcmp(a, b, bytes) != 0, "member %d: configuration differs from its "
                "standalone sim", m);
        FAIL_IF(memcmp(&energy, &en[m], sizeof energy) != 0, "member %d: energy %.17g vs "
                "standalone %.17g", m, en[m], energy);
        FAIL_IF(s->model == LATMC_MODEL_ISING && memcmp(&magn, &mag[m], sizeof magn) != 0,
                "member %d: magnetization %.17g vs standalone %.17g", m, mag[m], magn);
    }
done:
    free(a);
    free(b);
    latmc_ens_destroy(&e);
    if (path[0]) {
        unlink(path);
        rmdir(dir);
    }
}
