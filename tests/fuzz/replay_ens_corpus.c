/*
 * The ensemble-file corpus (tests/fuzz/ens-corpus, written by make_ens_corpus) through
 * latmc_ens_load: every valid-*.ens loads and works (a sweep when its members have a
 * configuration, a measurement, a save whose file loads again and saves to the same
 * bytes); every bad-*.ens gives LATMC_ECORRUPT with *out NULL and a message that names
 * latmc_ens_load (not the sim loader behind it: no "checkpoint: ", no
 * latmc_sim_deserialize); each of the valid variants (every model and coupling kind an
 * ensemble runs) is present; any other name fails. In the 'api' suite, so also under ASan + UBSan in a sanitized build.
 *
 *   replay_ens_corpus CORPUS-DIR
 */
#include <dirent.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <latmc/latmc.h>

static latmc_ctx *ctx;
static char work[64];

static const char *const variants[] = {
    "valid-ising-2d-uniform-exchange.ens", "valid-ising-3d-bimodal-2replicas.ens",
    "valid-potts-q3-2d.ens", "valid-phi4-2d-mu2-ladder.ens",
    "valid-heisenberg-3d-gaussian-2replicas.ens", "valid-heisenberg-2d-bimodal.ens",
    "valid-heisenberg-2d-uniform.ens", "valid-ising-2d-fresh.ens",
};

static unsigned char *read_all(const char *path, size_t *size)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    fseek(f, 0, SEEK_END);
    const long n = ftell(f);
    rewind(f);
    unsigned char *b = malloc(n > 0 ? (size_t)n : 1);
    if (b && n > 0 && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *size = (size_t)(n > 0 ? n : 0);
    return b;
}

/* A loaded ensemble must work and save to a file that loads and saves to the same bytes. */
static const char *exercise(latmc_ens *e)
{
    latmc_ens_layout l;
    latmc_ens_layout_init(&l);
    if (latmc_ens_get_layout(e, &l) != LATMC_OK)
        return "no layout";
    const int M = l.n_samples * l.n_temperatures * l.n_replicas;
    double *v = malloc(sizeof *v * (size_t)M);
    if (!v)
        return "out of memory";
    int st = latmc_ens_sweep(e, 1);
    const char *why = NULL;
    if (st != LATMC_OK && st != LATMC_ESTATE) /* ESTATE: saved before any configuration */
        why = "cannot sweep";
    else if (st == LATMC_OK &&
             latmc_ens_observables(e, LATMC_OBS_ENERGY, LATMC_ENS_BY_MEMBER, v, (size_t)M) != 0)
        why = "no energy after a sweep";
    free(v);
    if (why)
        return why;
    char a[128], b[128];
    snprintf(a, sizeof a, "%s/a.ens", work);
    snprintf(b, sizeof b, "%s/b.ens", work);
    latmc_ens *again = NULL;
    size_t na = 0, nb = 0;
    unsigned char *ba = NULL, *bb = NULL;
    if (latmc_ens_save(e, a) != LATMC_OK)
        why = "cannot save";
    else if (latmc_ens_load(ctx, a, &again) != LATMC_OK)
        why = "its own file does not load";
    else if (latmc_ens_save(again, b) != LATMC_OK)
        why = "the reloaded ensemble cannot save";
    else if (!(ba = read_all(a, &na)) || !(bb = read_all(b, &nb)) || na != nb ||
             memcmp(ba, bb, na) != 0)
        why = "the reloaded ensemble saves different bytes";
    latmc_ens_destroy(&again);
    free(ba);
    free(bb);
    unlink(a);
    unlink(b);
    return why;
}

/* 0 if the file behaves as its name says; prints and returns 1 otherwise. */
static int replay(const char *dir, const char *name)
{
    const bool valid = strncmp(name, "valid-", 6) == 0, bad = strncmp(name, "bad-", 4) == 0;
    const size_t len = strlen(name);
    if ((!valid && !bad) || len < 5 || strcmp(name + len - 4, ".ens") != 0) {
        printf("FAIL %s: corpus files are named valid-*.ens or bad-*.ens\n", name);
        return 1;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    latmc_ens *e = (latmc_ens *)&ctx; /* not NULL: the loader must reset it */
    const int st = latmc_ens_load(ctx, path, &e);
    int result = 0;
    if (valid) {
        const char *why = st != LATMC_OK ? latmc_last_error() : exercise(e);
        if (why) {
            printf("FAIL %s: %s\n", name, why);
            result = 1;
        } else {
            printf("ok   %s\n", name);
        }
    } else if (st != LATMC_ECORRUPT || e != NULL || strlen(latmc_last_error()) == 0) {
        printf("FAIL %s: %s (want LATMC_ECORRUPT, out NULL): %s\n", name, latmc_strerror(st),
               latmc_last_error());
        result = 1;
    } else if (strncmp(latmc_last_error(), "latmc_ens_load: ", 16) != 0 ||
               strstr(latmc_last_error(), "checkpoint: ") ||
               strstr(latmc_last_error(), "latmc_sim_deserialize")) {
        /* the call made is named, not the sim loader it uses for the members */
        printf("FAIL %s: the message names another call than latmc_ens_load: %s\n", name,
               latmc_last_error());
        result = 1;
    } else {
        printf("ok   %s: %s\n", name, latmc_last_error());
    }
    if (st == LATMC_OK)
        latmc_ens_destroy(&e);
    return result;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: replay_ens_corpus CORPUS-DIR\n");
        return 2;
    }
    if (latmc_ctx_create(&ctx) != LATMC_OK)
        return 1;
    strcpy(work, "/tmp/latmc-ens-replay-XXXXXX");
    if (!mkdtemp(work))
        return 1;
    DIR *d = opendir(argv[1]);
    if (!d) {
        printf("FAIL: cannot open %s\n", argv[1]);
        return 1;
    }
    int failures = 0, files = 0;
    bool seen[sizeof variants / sizeof *variants] = { false };
    for (struct dirent *ent; (ent = readdir(d)) != NULL;) {
        if (ent->d_name[0] == '.')
            continue;
        files++;
        failures += replay(argv[1], ent->d_name);
        for (size_t v = 0; v < sizeof variants / sizeof *variants; v++)
            seen[v] = seen[v] || strcmp(ent->d_name, variants[v]) == 0;
    }
    closedir(d);
    for (size_t v = 0; v < sizeof variants / sizeof *variants; v++)
        if (!seen[v]) {
            printf("FAIL: %s is missing (make_ens_corpus writes it)\n", variants[v]);
            failures++;
        }
    rmdir(work);
    latmc_ctx_destroy(&ctx);
    printf("%d files, %d failures\n", files, failures);
    return failures ? 1 : 0;
}
