/*
 * Writes the ensemble-file corpus of tests/fuzz/ens-corpus/: valid ensemble files
 * (latmc_ens_save) of every model and coupling kind an ensemble runs -- Ising with uniform
 * and +-J couplings, Potts, phi^4 with a mu2 ladder, Heisenberg with uniform, Gaussian and
 * +-J couplings, one and two replicas, with and without replica exchange, and one saved
 * before any temperature or configuration -- and damaged ones derived from them, each
 * damaged in one way (doc/ensembles.md). Most damaged files are resealed (ens_format.h:
 * the file's and the members' size fields and checksums made consistent) so that they
 * test the checks behind the checksums.
 *
 *   make_ens_corpus DIR      (writes DIR/valid-*.ens and DIR/bad-*.ens)
 *
 * The files are committed; regenerate them only on purpose (a new format version): the old
 * ones loading with a new library is part of what the replay test checks.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <latmc/latmc.h>

#include "ens_format.h"

struct blob {
    unsigned char *p;
    size_t n;
};

static const char *dir;
static latmc_ctx *ctx;

static void fail(const char *what, int st, latmc_ens *e)
{
    fprintf(stderr, "make_ens_corpus: %s: %s: %s\n", what, latmc_strerror(st),
            e ? latmc_ens_last_error(e) : latmc_last_error());
    exit(1);
}

static char *path_of(const char *name)
{
    static char path[4096];
    snprintf(path, sizeof path, "%s/%s.ens", dir, name);
    return path;
}

static void write_blob(const char *name, const unsigned char *p, size_t n)
{
    const char *path = path_of(name);
    FILE *f = fopen(path, "wb");
    if (f == NULL || (n > 0 && fwrite(p, 1, n, f) != n) || fclose(f) != 0) {
        fprintf(stderr, "make_ens_corpus: cannot write %s\n", path);
        exit(1);
    }
}

static struct blob read_blob(const char *path)
{
    struct blob b = { NULL, 0 };
    FILE *f = fopen(path, "rb");
    if (!f || fseek(f, 0, SEEK_END) != 0)
        exit(1);
    b.n = (size_t)ftell(f);
    rewind(f);
    b.p = malloc(b.n + 64);
    if (!b.p || fread(b.p, 1, b.n, f) != b.n)
        exit(1);
    fclose(f);
    return b;
}

struct variant {
    const char *name;
    int model, ndim, extent, couplings, q;
    int samples, temps, replicas;
    int ladder;          /* 0: none yet, LATMC_PARAM_BETA or LATMC_PARAM_MU2 */
    double lo, hi;       /* the ladder's ends */
    int exchange_every;  /* 0: no exchanges */
    int sweeps;          /* after a hot start (-1: no configuration) */
};

static const struct variant variants[] = {
    { "ising-2d-uniform-exchange", LATMC_MODEL_ISING, 2, 4, LATMC_COUPLINGS_UNIFORM, 0,
      1, 3, 1, LATMC_PARAM_BETA, 0.3, 0.5, 1, 9 },
    { "ising-3d-bimodal-2replicas", LATMC_MODEL_ISING, 3, 4, LATMC_COUPLINGS_BIMODAL, 0,
      2, 2, 2, LATMC_PARAM_BETA, 0.2, 0.4, 2, 6 },
    { "potts-q3-2d", LATMC_MODEL_POTTS, 2, 4, LATMC_COUPLINGS_UNIFORM, 3,
      2, 2, 1, LATMC_PARAM_BETA, 0.8, 1.2, 1, 5 },
    { "phi4-2d-mu2-ladder", LATMC_MODEL_PHI4, 2, 5, LATMC_COUPLINGS_UNIFORM, 0,
      1, 2, 1, LATMC_PARAM_MU2, -1.0, 0.5, 1, 4 },
    { "heisenberg-3d-gaussian-2replicas", LATMC_MODEL_HEISENBERG, 3, 4,
      LATMC_COUPLINGS_GAUSSIAN, 0, 2, 2, 2, LATMC_PARAM_BETA, 0.5, 1.0, 3, 4 },
    { "heisenberg-2d-bimodal", LATMC_MODEL_HEISENBERG, 2, 4, LATMC_COUPLINGS_BIMODAL, 0,
      1, 2, 1, LATMC_PARAM_BETA, 0.5, 1.0, 0, 3 },
    { "heisenberg-2d-uniform", LATMC_MODEL_HEISENBERG, 2, 4, LATMC_COUPLINGS_UNIFORM, 0,
      1, 1, 1, LATMC_PARAM_BETA, 0.7, 0.7, 0, 2 },
    { "ising-2d-fresh", LATMC_MODEL_ISING, 2, 4, LATMC_COUPLINGS_UNIFORM, 0,
      2, 1, 1, 0, 0, 0, 0, -1 },
};

static struct blob make_valid(const struct variant *v)
{
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = v->model;
    d.ndim = v->ndim;
    for (int mu = 0; mu < v->ndim; mu++)
        d.extent[mu] = v->extent;
    d.couplings = v->couplings;
    d.q = v->q;
    d.device = LATMC_DEVICE_CPU;
    latmc_ens_layout l;
    latmc_ens_layout_init(&l);
    l.n_samples = v->samples;
    l.n_temperatures = v->temps;
    l.n_replicas = v->replicas;
    l.seed = 17;
    l.coupling_seed = 23;
    l.n_threads = 1;
    latmc_ens *e = NULL;
    int st = latmc_ens_create(ctx, &d, &l, &e);
    if (st != LATMC_OK)
        fail(v->name, st, NULL);
    if (v->model == LATMC_MODEL_PHI4 && (st = latmc_ens_set_param(e, LATMC_PARAM_G, 1.0)) < 0)
        fail(v->name, st, e);
    if (v->ladder) {
        double values[8];
        for (int t = 0; t < v->temps; t++)
            values[t] = v->temps > 1 ? v->lo + (v->hi - v->lo) * t / (v->temps - 1) : v->lo;
        if ((st = latmc_ens_set_ladder(e, v->ladder, values, v->temps)) < 0)
            fail(v->name, st, e);
    }
    if (v->exchange_every && (st = latmc_ens_set_exchange(e, (uint64_t)v->exchange_every)) < 0)
        fail(v->name, st, e);
    if (v->sweeps >= 0 && ((st = latmc_ens_init_spins(e, LATMC_INIT_HOT)) < 0 ||
                           (st = latmc_ens_sweep(e, (uint64_t)v->sweeps)) < 0))
        fail(v->name, st, e);
    char name[128];
    snprintf(name, sizeof name, "valid-%s", v->name);
    if ((st = latmc_ens_save(e, path_of(name))) < 0)
        fail(v->name, st, e);
    latmc_ens_destroy(&e);
    return read_blob(path_of(name));
}

/* A damaged copy of b: `edit` applied, resealed or not. */
static void damaged(const char *name, const struct blob *b, bool reseal,
                    void (*edit)(unsigned char *p, size_t *n))
{
    unsigned char *p = malloc(b->n + 64);
    if (!p)
        exit(1);
    memcpy(p, b->p, b->n);
    size_t n = b->n;
    edit(p, &n);
    if (reseal && n >= 32)
        ens_reseal(p, n);
    char file[128];
    snprintf(file, sizeof file, "bad-%s", name);
    write_blob(file, p, n);
    free(p);
}

static struct ens_layout L(const unsigned char *p, size_t n)
{
    const struct ens_layout l = ens_layout_of(p, n);
    if (!l.members)
        exit(2);
    return l;
}

static void flip_middle(unsigned char *p, size_t *n) { p[*n / 2] ^= 0x10; }
static void cut_9(unsigned char *p, size_t *n) { (void)p; *n -= 9; }
static void one_more(unsigned char *p, size_t *n) { p[*n] = p[*n - 1]; (*n)++; }
static void version_2(unsigned char *p, size_t *n) { (void)n; ckpt_put_le(p + ENS_OFF_VERSION, 2, 4); }
static void magic(unsigned char *p, size_t *n) { (void)n; p[3] ^= 0x20; }
static void byte_order(unsigned char *p, size_t *n) { (void)n; ckpt_put_le(p + ENS_OFF_MARK, 0x04030201u, 4); }
static void samples_0(unsigned char *p, size_t *n) { (void)n; ckpt_put_le(p + ENS_OFF_SAMPLES, 0, 4); }
static void samples_huge(unsigned char *p, size_t *n) { (void)n; ckpt_put_le(p + ENS_OFF_SAMPLES, 0x7fffffff, 4); }
static void threads_5000(unsigned char *p, size_t *n) { (void)n; ckpt_put_le(p + ENS_OFF_THREADS, 5000, 4); }
static void desc_model_99(unsigned char *p, size_t *n)
{
    (void)n;
    ckpt_put_le(p + ENS_OFF_DESC + 4 + 8 * DESC_MODEL, 99, 8);
}
static void desc_replicas_2(unsigned char *p, size_t *n)
{
    (void)n;
    ckpt_put_le(p + ENS_OFF_DESC + 4 + 8 * DESC_REPLICAS, 2, 8);
}
static void ladder_3(unsigned char *p, size_t *n) { (void)n; ckpt_put_le(p + ENS_OFF_LADDER, 3, 4); }
static void ladder_value(unsigned char *p, size_t *n)
{
    (void)n; /* no member sits at this beta any more */
    ckpt_put_le(p + ENS_OFF_LADDER_VALUES, 0x3fe8000000000000u, 8); /* 0.75 */
}
static void map_duplicate(unsigned char *p, size_t *n)
{
    const struct ens_layout l = L(p, *n);
    memcpy(p + l.temp_of + 4, p + l.temp_of, 4); /* members 0 and 1 at one temperature */
}
static void map_out_of_range(unsigned char *p, size_t *n)
{
    const struct ens_layout l = L(p, *n);
    ckpt_put_le(p + l.temp_of, l.n_temps, 4);
}
static void accepted_above(unsigned char *p, size_t *n)
{
    const struct ens_layout l = L(p, *n);
    ckpt_put_le(p + l.accepted, ckpt_get_le(p + l.attempted, 8) + 1, 8);
}
static void attempted_above_2_63(unsigned char *p, size_t *n)
{
    const struct ens_layout l = L(p, *n); /* an exchange round could wrap it around 2^64 */
    ckpt_put_le(p + l.attempted, (UINT64_C(1) << 63) + 1, 8);
}
static void rt_count_above_2_63(unsigned char *p, size_t *n)
{
    const struct ens_layout l = L(p, *n); /* the next trips could wrap it around 2^64 */
    ckpt_put_le(p + l.rt_count, (UINT64_C(1) << 63) + 1, 8);
}
static void rt_sum_above_2_63(unsigned char *p, size_t *n)
{
    const struct ens_layout l = L(p, *n); /* the trips' sweeps in all: likewise */
    ckpt_put_le(p + l.rt_count + 8, (UINT64_C(1) << 63) + 1, 8);
}
static void rt_start_after_sweeps(unsigned char *p, size_t *n)
{
    const struct ens_layout l = L(p, *n); /* the trip's length, sweeps - start, would wrap */
    ckpt_put_le(p + l.rt_start, ckpt_get_le(p + l.every + 8, 8) + 1, 8);
}
static void rounds_above_sweeps(unsigned char *p, size_t *n)
{
    const struct ens_layout l = L(p, *n); /* a round follows at least one sweep */
    ckpt_put_le(p + l.every + 16, ckpt_get_le(p + l.every + 8, 8) + 1, 8);
}
static void rt_dir_3(unsigned char *p, size_t *n)
{
    const struct ens_layout l = L(p, *n);
    p[l.rt_dir] = 3;
}
static void every_without_temps(unsigned char *p, size_t *n)
{
    const struct ens_layout l = L(p, *n);
    ckpt_put_le(p + l.every, 1, 8);
}
static void sweeps_plus_1(unsigned char *p, size_t *n)
{
    const struct ens_layout l = L(p, *n);
    ckpt_put_le(p + l.every + 8, ckpt_get_le(p + l.every + 8, 8) + 1, 8);
}
static void member_size_huge(unsigned char *p, size_t *n)
{
    const struct ens_layout l = L(p, *n);
    ckpt_put_le(p + l.members, UINT64_C(1) << 62, 8);
}
/* a byte of a member flipped, the file's envelope resealed but not the member's: the
 * member's own checksum must catch it */
static void member_bitflip(unsigned char *p, size_t *n)
{
    const struct ens_layout l = L(p, *n);
    p[l.members + 8 + 100] ^= 0x01;
    ckpt_put_le(p + *n - 8, ckpt_fnv1a(p, *n - 8), 8);
}
/* members 0 and 1 swapped: each is a valid checkpoint, of the other position */
static void members_swapped(unsigned char *p, size_t *n)
{
    const struct ens_layout l = L(p, *n);
    const size_t a = ens_member_offset(p, *n, &l, 0), b = ens_member_offset(p, *n, &l, 1);
    const size_t na = 8 + (size_t)ckpt_get_le(p + a, 8), nb = 8 + (size_t)ckpt_get_le(p + b, 8);
    unsigned char *tmp = malloc(na + nb);
    if (!tmp || b != a + na)
        exit(2);
    memcpy(tmp, p + b, nb);
    memcpy(tmp + nb, p + a, na);
    memcpy(p + a, tmp, na + nb);
    free(tmp);
}
/* a member's sweep count edited (the member resealed: a valid checkpoint of another time) */
static void member_sweeps(unsigned char *p, size_t *n)
{
    const struct ens_layout l = L(p, *n);
    unsigned char *m = p + l.members + 8;
    const size_t at = CKPT_OFF_PARAMS + 8 * (size_t)ckpt_get_le(m + CKPT_OFF_NPARAMS, 4);
    ckpt_put_le(m + at, ckpt_get_le(m + at, 8) + 1, 8);
}
/* a member's couplings seed edited: a valid checkpoint of another disorder sample */
static void member_coupling_seed(unsigned char *p, size_t *n)
{
    const struct ens_layout l = L(p, *n);
    unsigned char *m = p + l.members + 8;
    ckpt_put_le(m + CKPT_OFF_DESC + 8 * DESC_COUPLING_SEED,
                ckpt_get_le(m + CKPT_OFF_DESC + 8 * DESC_COUPLING_SEED, 8) ^ 1, 8);
}
static void header_only(unsigned char *p, size_t *n) { (void)p; *n = ENS_MIN_SIZE + 8; }

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: make_ens_corpus DIR\n");
        return 2;
    }
    dir = argv[1];
    if (latmc_ctx_create(&ctx) != LATMC_OK)
        return 1;
    struct blob b[sizeof variants / sizeof *variants];
    for (size_t i = 0; i < sizeof variants / sizeof *variants; i++)
        b[i] = make_valid(&variants[i]);
    const struct blob *ising = &b[0], *pmj = &b[1], *fresh = &b[7], *phi4 = &b[3];
    damaged("checksum-bitflip", ising, false, flip_middle);
    damaged("truncated-9", ising, false, cut_9);
    damaged("trailing-byte-resealed", ising, true, one_more);
    damaged("header-only-resealed", ising, true, header_only);
    damaged("format-version-2", ising, true, version_2);
    damaged("magic", ising, true, magic);
    damaged("other-byte-order", ising, true, byte_order);
    damaged("n-samples-0", ising, true, samples_0);
    damaged("n-samples-2^31", ising, true, samples_huge);
    damaged("n-threads-5000", ising, true, threads_5000);
    damaged("desc-model-99", ising, true, desc_model_99);
    damaged("desc-replicas-2", pmj, true, desc_replicas_2);
    damaged("ladder-3", ising, true, ladder_3);
    damaged("ladder-value-changed", ising, true, ladder_value);
    damaged("map-duplicate", ising, true, map_duplicate);
    damaged("map-out-of-range", pmj, true, map_out_of_range);
    damaged("accepted-above-attempted", ising, true, accepted_above);
    damaged("pair-attempted-2^63+1", ising, true, attempted_above_2_63);
    damaged("round-trips-2^63+1", ising, true, rt_count_above_2_63);
    damaged("round-trip-sweeps-2^63+1", ising, true, rt_sum_above_2_63);
    damaged("round-trip-start-after-sweeps", ising, true, rt_start_after_sweeps);
    damaged("rounds-above-sweeps", ising, true, rounds_above_sweeps);
    damaged("round-trip-direction-3", ising, true, rt_dir_3);
    damaged("exchange-without-temperatures", fresh, true, every_without_temps);
    damaged("sweeps-plus-1", phi4, true, sweeps_plus_1);
    damaged("member-size-2^62", ising, true, member_size_huge);
    damaged("member-bitflip", pmj, false, member_bitflip);
    damaged("members-swapped", pmj, true, members_swapped);
    damaged("member-sweeps", ising, true, member_sweeps);
    damaged("member-coupling-seed", pmj, true, member_coupling_seed);
    for (size_t i = 0; i < sizeof b / sizeof *b; i++)
        free(b[i].p);
    latmc_ctx_destroy(&ctx);
    return 0;
}
