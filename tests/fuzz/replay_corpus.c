/*
 * Replays the checkpoint corpus (tests/fuzz/corpus/) through latmc_sim_deserialize, in the
 * normal test suite and under the sanitizers: every valid-* file must load and work (a
 * measurement, a sweep, and a serialize/deserialize round trip to the same bytes), every
 * bad-* file must be refused with exactly LATMC_ECORRUPT and leave *out NULL, and nothing
 * may crash. Files named otherwise fail the test, so nothing enters the corpus without a
 * stated expectation. Each file also goes through latmc_sim_load and
 * latmc_checkpoint_app_data by its path, which must agree with latmc_sim_deserialize (the
 * same code; *size 0 on failure; a section exactly in the version-2 files); each refusal
 * names the function called first ("latmc_sim_load: 'PATH': why"). Also checks
 * that the corpus has a valid file of each of the 16 variants the library runs (model x
 * algorithm x precision x couplings x replicas x 2D/3D), one without a configuration and
 * one with application data.
 *
 *   replay_corpus DIR
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <latmc/latmc.h>

#include "ckpt_format.h"

static latmc_ctx *ctx;

/* The variants a valid file with a configuration must cover, named by variant_name(). */
static const char *const required[] = {
    "ising 2D metropolis uniform 1r",      "ising 3D heatbath uniform 1r",
    "ising 2D metropolis +-J 1r",          "ising 3D heatbath +-J 1r",
    "potts 2D metropolis uniform 1r",      "potts 3D heatbath uniform 1r",
    "potts 2D heatbath uniform 1r",        "potts 3D metropolis uniform 1r",
    "phi4 2D metropolis double uniform 1r", "phi4 2D metropolis float uniform 1r",
    "phi4 3D metropolis double uniform 1r", "phi4 3D metropolis float uniform 1r",
    "heisenberg 3D heatbath uniform 1r",   "heisenberg 2D heatbath gaussian 2r",
    "heisenberg 3D overrelax +-J 2r",      "heisenberg 2D overrelax +-J 1r",
};
#define NREQUIRED (sizeof required / sizeof required[0])

static void variant_name(const latmc_sim_desc *d, char *buf, size_t size)
{
    static const char *const algos[] = { "default", "metropolis", "heatbath", "overrelax" };
    static const char *const couplings[] = { "uniform", "gaussian", "+-J" };
    snprintf(buf, size, "%s %dD %s%s %s %dr",
             latmc_model_name(d->model) ? latmc_model_name(d->model) : "?", d->ndim,
             algos[d->algorithm >= 0 && d->algorithm <= 3 ? d->algorithm : 0],
             d->model == LATMC_MODEL_PHI4
                 ? (d->precision == LATMC_PRECISION_FLOAT ? " float" : " double") : "",
             couplings[d->couplings >= 0 && d->couplings <= 2 ? d->couplings : 0], d->replicas);
}

static bool seen[NREQUIRED], seen_empty, seen_app;

/* Whether the thread's last message names the function called first, and the file where
 * path is not NULL: "FN: 'PATH': why" or "FN: why" (doc/checkpoints.md, "Messages"). */
static bool names_call(const char *fn, const char *path)
{
    char want[4200];
    if (path)
        snprintf(want, sizeof want, "%s: '%s': ", fn, path);
    else
        snprintf(want, sizeof want, "%s: ", fn);
    return strncmp(latmc_last_error(), want, strlen(want)) == 0;
}

/* The same file by its path: latmc_sim_load gives `want`, latmc_checkpoint_app_data too
 * (or, for a valid file, LATMC_OK with a section / LATMC_ESTATE without); a refusal names
 * the function and the file. */
static const char *by_path(const char *path, int want, bool version2)
{
    latmc_sim *sim = NULL;
    int st = latmc_sim_load(ctx, path, &sim);
    latmc_sim_destroy(&sim);
    if (st != want)
        return "latmc_sim_load disagrees with latmc_sim_deserialize";
    if (want != LATMC_OK && !names_call("latmc_sim_load", path))
        return "latmc_sim_load's refusal does not start with \"latmc_sim_load: 'PATH': \"";
    size_t size = 12345;
    st = latmc_checkpoint_app_data(path, NULL, 0, &size);
    if (want != LATMC_OK && st == want && !names_call("latmc_checkpoint_app_data", path))
        return "latmc_checkpoint_app_data's refusal does not name it and the file";
    if (want != LATMC_OK)
        return st == want && size == 0 ? NULL : "latmc_checkpoint_app_data disagrees";
    if (st != (version2 ? LATMC_OK : LATMC_ESTATE) || (!version2 && size != 0))
        return "latmc_checkpoint_app_data: a section exactly in version-2 files";
    if (version2) {
        unsigned char *buf = malloc(size + 1);
        size_t again = 0;
        st = buf ? latmc_checkpoint_app_data(path, buf, size, &again) : LATMC_ENOMEM;
        free(buf);
        if (st != LATMC_OK || again != size)
            return "latmc_checkpoint_app_data: the section does not read back";
        seen_app = true;
    }
    return NULL;
}

static unsigned char *read_all(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (f == NULL)
        return NULL;
    size_t cap = 4096, n = 0;
    unsigned char *buf = malloc(cap);
    for (size_t got; buf != NULL && (got = fread(buf + n, 1, cap - n, f)) > 0;) {
        n += got;
        if (n == cap) {
            unsigned char *bigger = realloc(buf, cap *= 2);
            if (bigger == NULL)
                free(buf);
            buf = bigger;
        }
    }
    int err = ferror(f);
    fclose(f);
    if (err) {
        free(buf);
        return NULL;
    }
    *size = n;
    return buf;
}

/* A loaded sim must be usable and serialize back to bytes that load to the same state. */
static const char *exercise(latmc_sim *sim)
{
    double e;
    int st = latmc_sim_sweep(sim, 1);
    if (st == LATMC_OK && latmc_sim_observable(sim, LATMC_OBS_ENERGY, &e) != LATMC_OK)
        return "no energy after a sweep";
    if (st != LATMC_OK && st != LATMC_ESTATE)  /* ESTATE: saved before any configuration */
        return "cannot sweep";
    size_t n = 0, m = 0;
    if (latmc_sim_serialize(sim, NULL, 0, &n) != LATMC_OK)
        return "cannot serialize";
    unsigned char *a = malloc(n), *b = malloc(n);
    latmc_sim *again = NULL;
    const char *why = NULL;
    if (a == NULL || b == NULL)
        why = "out of memory";
    else if (latmc_sim_serialize(sim, a, n, &n) != LATMC_OK)
        why = "cannot serialize";
    else if (latmc_sim_deserialize(ctx, a, n, &again) != LATMC_OK)
        why = "its own serialization does not load";
    else if (latmc_sim_serialize(again, b, n, &m) != LATMC_OK || m != n || memcmp(a, b, n))
        why = "the reloaded sim serializes differently";
    latmc_sim_destroy(&again);
    free(a);
    free(b);
    return why;
}

/* 0 if the file behaves as its name says; prints and returns 1 otherwise. */
/* Room for the models' numbers in models_seen (a model beyond it fails the check). */
enum { MAX_MODELS = 64 };

static int replay(const char *dir, const char *name, int *models_seen)
{
    bool valid = strncmp(name, "valid-", 6) == 0, bad = strncmp(name, "bad-", 4) == 0;
    if (!valid && !bad) {
        printf("FAIL %s: corpus files are named valid-* or bad-*\n", name);
        return 1;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    size_t size = 0;
    unsigned char *bytes = read_all(path, &size);
    if (bytes == NULL) {
        printf("FAIL %s: cannot read\n", name);
        return 1;
    }
    latmc_sim *sim = (latmc_sim *)&size;  /* not NULL: the loader must reset it */
    int st = latmc_sim_deserialize(ctx, size > 0 ? bytes : (const void *)"", size, &sim);
    int result = 0;
    const bool version2 = ckpt_has_app_section(bytes, size); /* version 2, or 3 with one */
    if (valid) {
        const char *why = st != LATMC_OK ? latmc_last_error() : exercise(sim);
        if (why == NULL) {
            latmc_sim_desc d;
            latmc_sim_get_desc(sim, &d);
            char variant[128];
            variant_name(&d, variant, sizeof variant);
            double e;
            if (latmc_sim_observable(sim, LATMC_OBS_ENERGY, &e) == LATMC_ESTATE)
                seen_empty = true; /* still without a configuration after exercise() */
            else
                for (size_t i = 0; i < NREQUIRED; i++)
                    if (strcmp(variant, required[i]) == 0)
                        seen[i] = true;
            why = by_path(path, LATMC_OK, version2);
        }
        if (st != LATMC_OK || why != NULL) {
            printf("FAIL %s: %s%s%s\n", name, st != LATMC_OK ? latmc_strerror(st) : "",
                   st != LATMC_OK ? ": " : "", why);
            result = 1;
        } else {
            latmc_sim_desc d;
            latmc_sim_get_desc(sim, &d);
            if (d.model >= 1 && d.model <= MAX_MODELS)
                models_seen[d.model] = 1;
            printf("ok   %s: loads and works (%zu bytes)\n", name, size);
        }
        latmc_sim_destroy(&sim);
    } else {
        char refusal[512];
        snprintf(refusal, sizeof refusal, "%s", latmc_last_error());
        const char *why = st == LATMC_ECORRUPT && !names_call("latmc_sim_deserialize", NULL)
                              ? "the refusal does not start with \"latmc_sim_deserialize: \""
                          : st == LATMC_ECORRUPT ? by_path(path, st, version2) : NULL;
        if (why != NULL) {
            printf("FAIL %s: %s\n", name, why);
            result = 1;
        } else if (st != LATMC_ECORRUPT || sim != NULL) {
            printf("FAIL %s: %s, *out %s (want LATMC_ECORRUPT and NULL)\n", name,
                   latmc_strerror(st), sim != NULL ? "set" : "NULL");
            if (st == LATMC_OK)
                latmc_sim_destroy(&sim);
            result = 1;
        } else {
            printf("ok   %s: refused: %s\n", name, refusal);
        }
    }
    free(bytes);
    return result;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: replay_corpus DIR\n");
        return 2;
    }
    DIR *dir = opendir(argv[1]);
    if (dir == NULL || latmc_ctx_create(&ctx) != LATMC_OK) {
        fprintf(stderr, "replay_corpus: cannot open %s\n", argv[1]);
        return 1;
    }
    int failures = 0, files = 0, models_seen[MAX_MODELS + 1] = { 0 };
    for (struct dirent *e; (e = readdir(dir)) != NULL;) {
        if (e->d_name[0] == '.')
            continue;
        files++;
        failures += replay(argv[1], e->d_name, models_seen);
    }
    closedir(dir);
    latmc_ctx_destroy(&ctx);
    /* every model of the library (numbered 1, 2, ... without gaps: latmc_model_name) */
    for (int m = 1; latmc_model_name(m) != NULL; m++)
        if (m > MAX_MODELS || !models_seen[m]) {
            printf("FAIL: no valid checkpoint of model %d (%s) in the corpus\n", m,
                   latmc_model_name(m));
            failures++;
        }
    for (size_t i = 0; i < NREQUIRED; i++)
        if (!seen[i]) {
            printf("FAIL: no valid checkpoint of the variant \"%s\" in the corpus\n",
                   required[i]);
            failures++;
        }
    if (!seen_empty || !seen_app) {
        printf("FAIL: no valid checkpoint %s in the corpus\n",
               !seen_empty ? "without a configuration" : "with application data");
        failures++;
    }
    printf("%d files, %d failures\n", files, failures);
    return failures == 0 && files > 0 ? 0 : 1;
}
