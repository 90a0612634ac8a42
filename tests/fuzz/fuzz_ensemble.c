/*
 * libFuzzer harness for the ensemble-file loader: latmc_ens_load on arbitrary bytes.
 *
 * latmc_ens_load reads a path, so each input is written to an in-memory file (memfd,
 * opened through /proc/self/fd) and loaded twice: as it is, and resealed (ens_format.h:
 * the member checkpoints' and the file's size fields and checksums made consistent),
 * because random bytes almost never pass the checksums and the checks behind them are
 * where a loader goes wrong. libFuzzer's own mutations do the rest; seeded with
 * tests/fuzz/ens-corpus (every model and coupling kind an ensemble runs).
 *
 * A loaded ensemble must work: it is measured, swept once when that is cheap (Ising and
 * Potts members of a small lattice: the fuzzer looks for bugs, not for timeouts), saved,
 * and its file must load again and save to the same bytes. Crashes, sanitizer reports,
 * leaks, allocations past -malloc_limit_mb and broken invariants (abort) are findings;
 * refusals are not.
 *
 * Built only with clang -fsanitize=fuzzer (tools/ci-fuzz.sh, or meson -Dfuzz=enabled).
 */
#define _GNU_SOURCE /* memfd_create */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <latmc/latmc.h>

#include "ens_format.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static latmc_ctx *ctx;
static int input_fd = -1;
static char input_path[64];
static char work[64];

static void require(int cond, const char *what)
{
    if (!cond) {
        fprintf(stderr, "fuzz_ensemble: invariant broken: %s\n", what);
        abort();
    }
}

static unsigned char *read_all(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    require(f != NULL, "own file readable");
    fseek(f, 0, SEEK_END);
    *n = (size_t)ftell(f);
    rewind(f);
    unsigned char *b = malloc(*n ? *n : 1);
    require(b != NULL && fread(b, 1, *n, f) == *n, "own file read");
    fclose(f);
    return b;
}

static void exercise(latmc_ens *e)
{
    latmc_ens_layout l;
    latmc_ens_layout_init(&l);
    require(latmc_ens_get_layout(e, &l) == LATMC_OK, "layout");
    const int M = l.n_samples * l.n_temperatures * l.n_replicas;
    latmc_sim_desc d = { .struct_size = sizeof d };
    require(latmc_ens_member_desc(e, 0, &d) == LATMC_OK, "member desc");
    size_t bytes = 0;
    require(latmc_ens_spins_size(e, &bytes) == LATMC_OK, "spins size");
    double *v = malloc(sizeof *v * (size_t)M);
    require(v != NULL, "allocation");
    latmc_ens_observables(e, LATMC_OBS_ENERGY, LATMC_ENS_BY_MEMBER, v, (size_t)M);
    if ((d.model == LATMC_MODEL_ISING || d.model == LATMC_MODEL_POTTS) &&
        (double)bytes * M <= 65536)
        latmc_ens_sweep(e, 1);
    free(v);
    /* Round trip: what loaded must save, load again and save the same bytes. */
    char a[128], b[128];
    snprintf(a, sizeof a, "%s/a.ens", work);
    snprintf(b, sizeof b, "%s/b.ens", work);
    require(latmc_ens_save(e, a) == LATMC_OK, "save");
    latmc_ens *again = NULL;
    require(latmc_ens_load(ctx, a, &again) == LATMC_OK, "reload of own file");
    require(latmc_ens_save(again, b) == LATMC_OK, "save of the reloaded ensemble");
    size_t na = 0, nb = 0;
    unsigned char *ba = read_all(a, &na), *bb = read_all(b, &nb);
    require(na == nb && memcmp(ba, bb, na) == 0, "reload saves the same bytes");
    free(ba);
    free(bb);
    unlink(a);
    unlink(b);
    latmc_ens_destroy(&again);
}

static void remove_work(void)
{
    rmdir(work);
}

static void try_load(const uint8_t *data, size_t size)
{
    require(ftruncate(input_fd, 0) == 0 && pwrite(input_fd, data, size, 0) == (ssize_t)size,
            "input written");
    latmc_ens *e = NULL;
    const int st = latmc_ens_load(ctx, input_path, &e);
    require((st == LATMC_OK) == (e != NULL), "*out set exactly on success");
    require(st <= 0 && st != LATMC_EIO, "a status of the list, never EIO for a readable file");
    if (e != NULL)
        exercise(e);
    latmc_ens_destroy(&e);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (ctx == NULL) {
        if (latmc_ctx_create(&ctx) != LATMC_OK)
            abort();
        input_fd = memfd_create("latmc-ens-input", MFD_CLOEXEC);
        require(input_fd >= 0, "memfd");
        snprintf(input_path, sizeof input_path, "/proc/self/fd/%d", input_fd);
        strcpy(work, "/tmp/latmc-fuzz-ens-XXXXXX");
        require(mkdtemp(work) != NULL, "work directory");
        atexit(remove_work);
    }
    try_load(data, size);
    if (size >= ENS_MIN_SIZE + 8) {
        unsigned char *copy = malloc(size);
        if (copy == NULL)
            return 0;
        memcpy(copy, data, size);
        ens_reseal(copy, size);
        try_load(copy, size);
        free(copy);
    }
    return 0;
}
