/*
 * Writes the checkpoint corpus of tests/fuzz/corpus/: valid checkpoints of every model and
 * variant (dimension, algorithm, precision, colouring, couplings, replicas, no configuration
 * yet), made through the public API, and damaged ones derived from them, each damaged in
 * one documented way (doc/checkpoints.md). Most damaged files are "resealed" (size field and
 * checksum made consistent) so that they test the field checks, not just the checksum.
 *
 *   make_corpus DIR      (writes DIR/valid-*.ckpt and DIR/bad-*.ckpt)
 *
 * The files are committed; regenerate them only on purpose (a new format version): the old
 * ones loading with a new library is part of what the replay test checks.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <latmc/latmc.h>

#include "ckpt_format.h"

struct blob {
    unsigned char *p;
    size_t n;
};

static const char *dir;
static latmc_ctx *ctx;
static int failed;

static void fail(const char *what, int st, latmc_sim *sim)
{
    fprintf(stderr, "make_corpus: %s: %s: %s\n", what, latmc_strerror(st),
            sim != NULL ? latmc_sim_last_error(sim) : latmc_last_error());
    exit(1);
}

static void write_file(const char *name, const unsigned char *p, size_t n)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.ckpt", dir, name);
    FILE *f = fopen(path, "wb");
    if (f == NULL || (n > 0 && fwrite(p, 1, n, f) != n) || fclose(f) != 0) {
        fprintf(stderr, "make_corpus: cannot write %s\n", path);
        failed = 1;
    }
}

/* A sim from desc and parameters; `sweeps` sweeps after a hot start (init < 0: no
 * configuration at all). Returns its serialized bytes and writes valid-<name>. */
static struct blob valid(const char *name, const latmc_sim_desc *d, const int *keys,
                         const double *values, int nparams, int init, int sweeps)
{
    latmc_sim *sim = NULL;
    int st = latmc_sim_create(ctx, d, &sim);
    if (st != LATMC_OK)
        fail(name, st, NULL);
    for (int k = 0; k < nparams; k++)
        if ((st = latmc_sim_set_param(sim, keys[k], values[k])) != LATMC_OK)
            fail(name, st, sim);
    if (init >= 0 && (st = latmc_sim_init_spins(sim, init)) != LATMC_OK)
        fail(name, st, sim);
    if (d->model == LATMC_MODEL_PHI4 && init >= 0)
        st = latmc_sim_tune_epsilon(sim, 0.5, (uint64_t)sweeps);
    else if (init >= 0)
        st = latmc_sim_sweep(sim, (uint64_t)sweeps);
    if (st != LATMC_OK)
        fail(name, st, sim);
    struct blob b = { NULL, 0 };
    if ((st = latmc_sim_serialize(sim, NULL, 0, &b.n)) != LATMC_OK || !(b.p = malloc(b.n)) ||
        (st = latmc_sim_serialize(sim, b.p, b.n, &b.n)) != LATMC_OK)
        fail(name, st, sim);
    latmc_sim_destroy(&sim);
    char file[128];
    snprintf(file, sizeof file, "valid-%s", name);
    write_file(file, b.p, b.n);
    return b;
}

/* A checkpoint with an application-data section (format version 2, or 3 with `decisions`):
 * written to a file by latmc_sim_save_app_data and read back, since that is the only way to
 * make one. */
static struct blob valid_app_chain(const char *name, const latmc_sim_desc *d, int sweeps,
                                   const void *data, size_t size, int decisions)
{
    latmc_sim *sim = NULL;
    int st = latmc_sim_create(ctx, d, &sim);
    if (st != LATMC_OK || (st = latmc_sim_init_spins(sim, LATMC_INIT_HOT)) != LATMC_OK ||
        (decisions && (st = latmc_sim_set_param(sim, LATMC_PARAM_DECISIONS, 1)) != LATMC_OK) ||
        (st = latmc_sim_sweep(sim, (uint64_t)sweeps)) != LATMC_OK)
        fail(name, st, sim);
    char path[4096];
    snprintf(path, sizeof path, "%s/valid-%s.ckpt", dir, name);
    if ((st = latmc_sim_save_app_data(sim, path, data, size)) != LATMC_OK)
        fail(name, st, sim);
    latmc_sim_destroy(&sim);
    struct blob b = { NULL, 0 };
    FILE *f = fopen(path, "rb");
    if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (b.n = (size_t)ftell(f)) == 0 ||
        fseek(f, 0, SEEK_SET) != 0 || !(b.p = malloc(b.n)) || fread(b.p, 1, b.n, f) != b.n) {
        fprintf(stderr, "make_corpus: cannot read back %s\n", path);
        exit(1);
    }
    fclose(f);
    return b;
}

static struct blob valid_app(const char *name, const latmc_sim_desc *d, int sweeps,
                             const void *data, size_t size)
{
    return valid_app_chain(name, d, sweeps, data, size, 0);
}

/* A damaged copy: edit(copy) then, if reseal, fix the size field and the checksum. */
static void bad(const char *name, const struct blob *src, size_t n,
                void (*edit)(unsigned char *p, size_t n, const void *arg), const void *arg,
                int reseal)
{
    unsigned char *p = calloc(n > 0 ? n : 1, 1);
    if (p == NULL)
        exit(1);
    memcpy(p, src->p, n < src->n ? n : src->n);
    if (edit != NULL)
        edit(p, n, arg);
    if (reseal)
        ckpt_reseal(p, n);
    char file[128];
    snprintf(file, sizeof file, "bad-%s", name);
    write_file(file, p, n);
    free(p);
}

struct field_edit {
    size_t offset;
    int bytes;
    uint64_t value;
};

static void set_field(unsigned char *p, size_t n, const void *arg)
{
    const struct field_edit *e = arg;
    if (e->offset + (size_t)e->bytes <= n)
        ckpt_put_le(p + e->offset, e->value, e->bytes);
}

static void set_desc(unsigned char *p, size_t n, int field, int64_t value)
{
    struct field_edit e = { CKPT_OFF_DESC + 8 * (size_t)field, 8, (uint64_t)value };
    set_field(p, n, &e);
}

static void flip_bit(unsigned char *p, size_t n, const void *arg)
{
    size_t at = *(const size_t *)arg;
    if (at < n)
        p[at] ^= 0x10;
}

/* Edits by name, for the table below. */
static void odd_extent(unsigned char *p, size_t n, const void *a)
{
    (void)a;
    set_desc(p, n, DESC_EXTENT0, 7);
}
static void model_99(unsigned char *p, size_t n, const void *a)
{
    (void)a;
    set_desc(p, n, DESC_MODEL, 99);
}
static void ndim_4(unsigned char *p, size_t n, const void *a)
{
    (void)a;
    set_desc(p, n, DESC_NDIM, 4);
}
static void q_1(unsigned char *p, size_t n, const void *a)
{
    (void)a;
    set_desc(p, n, DESC_Q, 1);
}
static void replicas_3(unsigned char *p, size_t n, const void *a)
{
    (void)a;
    set_desc(p, n, DESC_REPLICAS, 3);
}
static void extent_huge(unsigned char *p, size_t n, const void *a)
{
    (void)a;  /* 2^21 x 2^21 sites: beyond the library's 2^40 */
    set_desc(p, n, DESC_EXTENT0, INT64_C(1) << 21);
    set_desc(p, n, DESC_EXTENT1, INT64_C(1) << 21);
}
static void extent_negative(unsigned char *p, size_t n, const void *a)
{
    (void)a;
    set_desc(p, n, DESC_EXTENT1, -8);
}

/* The i-th parameter (key i + 1) set to a double's bit pattern. */
static void param_value(unsigned char *p, size_t n, int key, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, 8);
    struct field_edit e = { CKPT_OFF_PARAMS + 8 * (size_t)(key - 1), 8, bits };
    set_field(p, n, &e);
}
static void beta_nan(unsigned char *p, size_t n, const void *a)
{
    (void)a;
    param_value(p, n, LATMC_PARAM_BETA, NAN);
}
static void beta_negative(unsigned char *p, size_t n, const void *a)
{
    (void)a;
    param_value(p, n, LATMC_PARAM_BETA, -1.0);
}
static void lambda_zero(unsigned char *p, size_t n, const void *a)
{
    (void)a;
    param_value(p, n, LATMC_PARAM_LAMBDA, 0.0);
}
static void nhit_huge(unsigned char *p, size_t n, const void *a)
{
    (void)a;
    param_value(p, n, LATMC_PARAM_NHIT, 1e9);
}

/* Fields after the parameters, at offsets from the configuration's start. */
static void after_params(unsigned char *p, size_t n, long delta, int bytes, uint64_t v)
{
    struct field_edit e = { (size_t)((long)ckpt_config_offset(p) + delta), bytes, v };
    set_field(p, n, &e);
}
static void accepted_gt(unsigned char *p, size_t n, const void *a)
{
    (void)a;  /* accepted (at config - 28) > attempted (at config - 20) */
    after_params(p, n, -28, 8, 1000);
    after_params(p, n, -20, 8, 10);
}
static void attempted_huge(unsigned char *p, size_t n, const void *a)
{
    (void)a;  /* a fuzzer's finding: counters that wrap around 2^64 in the next sweep */
    after_params(p, n, -28, 8, 192);
    after_params(p, n, -20, 8, UINT64_MAX);
}
static void have_config_2(unsigned char *p, size_t n, const void *a)
{
    (void)a;
    after_params(p, n, -12, 4, 2);
}
static void config_bytes_plus(unsigned char *p, size_t n, const void *a)
{
    (void)a;
    uint64_t b = ckpt_get_le(p + ckpt_config_offset(p) - 8, 8);
    after_params(p, n, -8, 8, b + 1);
}
static void nparams_9(unsigned char *p, size_t n, const void *a)
{
    (void)a;
    struct field_edit e = { CKPT_OFF_NPARAMS, 4, 9 };
    set_field(p, n, &e);
}
static void nfields_15(unsigned char *p, size_t n, const void *a)
{
    (void)a;
    struct field_edit e = { CKPT_OFF_NFIELDS, 4, 15 };
    set_field(p, n, &e);
}
static void version_2(unsigned char *p, size_t n, const void *a)
{
    (void)a;
    struct field_edit e = { CKPT_OFF_VERSION, 4, 2 };
    set_field(p, n, &e);
}
static void byte_order(unsigned char *p, size_t n, const void *a)
{
    (void)a;  /* the mark as a machine of the other byte order writes it */
    unsigned char t;
    t = p[12], p[12] = p[15], p[15] = t;
    t = p[13], p[13] = p[14], p[14] = t;
    (void)n;
}
static void magic(unsigned char *p, size_t n, const void *a)
{
    (void)a;
    (void)n; p[0] = 'X';
}
static void size_plus_one(unsigned char *p, size_t n, const void *a)
{
    (void)a;  /* applied after the reseal: the checksum is right, the size field is not */
    ckpt_reseal(p, n);
    ckpt_put_le(p + CKPT_OFF_SIZE, (uint64_t)n + 1, 8);
}
/* A value the model cannot hold in the first configuration element. */
static void spin_value(unsigned char *p, size_t n, const void *arg)
{
    const struct field_edit *e = arg;
    size_t at = ckpt_config_offset(p) + e->offset;
    if (at + (size_t)e->bytes <= n)
        ckpt_put_le(p + at, e->value, e->bytes);
}
/* The first coupling (after the configuration and the coupling count) set to +inf. */
static void coupling_inf(unsigned char *p, size_t n, const void *a)
{
    (void)a;
    size_t cfg = ckpt_config_offset(p);
    size_t at = cfg + (size_t)ckpt_get_le(p + cfg - 8, 8) + 8;
    if (at + 4 <= n)
        ckpt_put_le(p + at, 0x7f800000u, 4);
}
static void ncouplings_minus(unsigned char *p, size_t n, const void *a)
{
    (void)a;
    size_t cfg = ckpt_config_offset(p);
    size_t at = cfg + (size_t)ckpt_get_le(p + cfg - 8, 8);
    if (at + 8 <= n)
        ckpt_put_le(p + at, ckpt_get_le(p + at, 8) - 1, 8);
}

/* Version 3 on a version-1 file: it lacks the chain block (its checksum stands there). */
static void version_3(unsigned char *p, size_t n, const void *a)
{
    (void)a;
    struct field_edit e = { CKPT_OFF_VERSION, 4, 3 };
    set_field(p, n, &e);
}
static void version_4(unsigned char *p, size_t n, const void *a)
{
    (void)a;
    struct field_edit e = { CKPT_OFF_VERSION, 4, 4 };
    set_field(p, n, &e);
}
/* Version 3's chain block: `arg` a field_edit whose offset counts from the block. */
static void chain_field(unsigned char *p, size_t n, const void *arg)
{
    struct field_edit e = *(const struct field_edit *)arg;
    size_t at = ckpt_chain_offset(p, n);
    if (at) {
        e.offset += at;
        set_field(p, n, &e);
    }
}
/* A lattice of 2^17 x 2^17 sites declared by a file without a configuration (issue 13,
 * item 1: a 308-byte file that asked for 16 GiB). */
static void extent_2_17(unsigned char *p, size_t n, const void *a)
{
    (void)a;
    set_desc(p, n, DESC_EXTENT0, INT64_C(1) << 17);
    set_desc(p, n, DESC_EXTENT1, INT64_C(1) << 17);
}
/* The first coupling set to a float's bit pattern (after the configuration and the
 * coupling count). */
static void coupling_value(unsigned char *p, size_t n, const void *arg)
{
    size_t cfg = ckpt_config_offset(p);
    size_t at = cfg + (size_t)ckpt_get_le(p + cfg - 8, 8) + 8;
    if (at + 4 <= n)
        ckpt_put_le(p + at, *(const uint32_t *)arg, 4);
}
/* The application-data size (format version 2), 8 bytes before the section's data;
 * `arg` the change to it. */
static void app_size_delta(unsigned char *p, size_t n, const void *arg)
{
    size_t cfg = ckpt_config_offset(p);
    size_t at = cfg + (size_t)ckpt_get_le(p + cfg - 8, 8);
    at += 8 + 4 * (size_t)ckpt_get_le(p + at, 8);
    if (at + 8 <= n)
        ckpt_put_le(p + at, ckpt_get_le(p + at, 8) + (uint64_t)*(const int64_t *)arg, 8);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: make_corpus DIR\n");
        return 2;
    }
    dir = argv[1];
    if (latmc_ctx_create(&ctx) != LATMC_OK)
        return 1;

    latmc_sim_desc d;
    int k[4];
    double v[4];

    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_ISING, d.ndim = 2, d.extent[0] = d.extent[1] = 8, d.seed = 1;
    d.algorithm = LATMC_ALGO_METROPOLIS, d.device = LATMC_DEVICE_CPU;
    k[0] = LATMC_PARAM_BETA, v[0] = 0.4, k[1] = LATMC_PARAM_H, v[1] = 0.1;
    struct blob ising = valid("ising-2d-metropolis", &d, k, v, 2, LATMC_INIT_HOT, 5);
    d.ndim = 3, d.extent[0] = d.extent[1] = d.extent[2] = 4, d.algorithm = LATMC_ALGO_HEATBATH;
    struct blob ising3 = valid("ising-3d-heatbath", &d, k, v, 1, LATMC_INIT_COLD, 3);
    d.ndim = 2, d.extent[0] = 6, d.extent[1] = 4, d.extent[2] = 0;
    struct blob ising0 = valid("ising-no-configuration", &d, k, v, 1, -1, 0);

    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_POTTS, d.q = 3, d.ndim = 2, d.extent[0] = 6, d.extent[1] = 9;
    d.seed = 2, d.device = LATMC_DEVICE_CPU;
    k[0] = LATMC_PARAM_BETA, v[0] = 1.0;
    struct blob potts = valid("potts-q3-2d-3colour", &d, k, v, 1, LATMC_INIT_HOT, 4);
    d.q = 10, d.ndim = 3, d.extent[0] = d.extent[1] = d.extent[2] = 4;
    d.algorithm = LATMC_ALGO_HEATBATH;
    struct blob potts10 = valid("potts-q10-3d-heatbath", &d, k, v, 1, LATMC_INIT_HOT, 3);

    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_PHI4, d.ndim = 2, d.extent[0] = d.extent[1] = 8, d.seed = 3;
    d.device = LATMC_DEVICE_CPU;
    k[0] = LATMC_PARAM_MU2, v[0] = -1.0, k[1] = LATMC_PARAM_G, v[1] = 6.0;
    k[2] = LATMC_PARAM_LAMBDA, v[2] = 10.0;
    struct blob phi4 = valid("phi4-2d-double-8colour", &d, k, v, 3, LATMC_INIT_HOT, 20);
    d.precision = LATMC_PRECISION_FLOAT, d.extent[0] = 10, d.extent[1] = 5;
    k[2] = LATMC_PARAM_NHIT, v[2] = 3, k[3] = LATMC_PARAM_NLOC, v[3] = 2;
    struct blob phi4f = valid("phi4-2d-float-5colour", &d, k, v, 4, LATMC_INIT_HOT, 10);
    d.precision = LATMC_PRECISION_DOUBLE, d.ndim = 3;
    d.extent[0] = d.extent[1] = d.extent[2] = 8;
    struct blob phi43 = valid("phi4-3d-double", &d, k, v, 2, LATMC_INIT_COLD, 2);

    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_HEISENBERG, d.ndim = 3, d.extent[0] = d.extent[1] = d.extent[2] = 4;
    d.seed = 4, d.device = LATMC_DEVICE_CPU;
    k[0] = LATMC_PARAM_BETA, v[0] = 1.0, k[1] = LATMC_PARAM_NOVER, v[1] = 2;
    struct blob heisenberg = valid("heisenberg-3d-uniform", &d, k, v, 2, LATMC_INIT_HOT, 3);
    d.ndim = 2, d.extent[0] = 4, d.extent[1] = 6, d.extent[2] = 0;
    d.couplings = LATMC_COUPLINGS_GAUSSIAN, d.coupling_seed = 5, d.replicas = 2;
    struct blob heisenberg2 = valid("heisenberg-2d-gaussian-2replicas", &d, k, v, 2, LATMC_INIT_HOT,
                              3);
    d.ndim = 3, d.extent[0] = d.extent[1] = d.extent[2] = 4;
    d.couplings = LATMC_COUPLINGS_BIMODAL, d.algorithm = LATMC_ALGO_OVERRELAX;
    struct blob heisenberg3 = valid("heisenberg-3d-bimodal-overrelax", &d, k, v, 2, LATMC_INIT_COLD,
                              2);

    /* The variants not covered above: Ising +-J (2D Metropolis, 3D heat bath), Potts q=4
     * 2D heat bath and q=3 3D Metropolis, phi^4 3D float, Heisenberg 2D +-J one replica
     * over-relaxation (heisenberg-3d-bimodal-overrelax above has two replicas): with the files above, every model x algorithm x
     * precision x couplings x replicas x 2D/3D the library runs (16 with a configuration). */
    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_ISING, d.ndim = 2, d.extent[0] = d.extent[1] = 8, d.seed = 6;
    d.algorithm = LATMC_ALGO_METROPOLIS, d.device = LATMC_DEVICE_CPU;
    d.couplings = LATMC_COUPLINGS_BIMODAL, d.coupling_seed = 7;
    k[0] = LATMC_PARAM_BETA, v[0] = 0.6, k[1] = LATMC_PARAM_H, v[1] = 0.2;
    struct blob pmj = valid("ising-pmj-2d-metropolis", &d, k, v, 2, LATMC_INIT_HOT, 4);
    d.ndim = 3, d.extent[0] = d.extent[1] = d.extent[2] = 4, d.algorithm = LATMC_ALGO_HEATBATH;
    struct blob pmj3 = valid("ising-pmj-3d-heatbath", &d, k, v, 1, LATMC_INIT_COLD, 3);

    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_POTTS, d.q = 4, d.ndim = 2, d.extent[0] = 8, d.extent[1] = 6;
    d.seed = 8, d.device = LATMC_DEVICE_CPU, d.algorithm = LATMC_ALGO_HEATBATH;
    k[0] = LATMC_PARAM_BETA, v[0] = 1.1, k[1] = LATMC_PARAM_H, v[1] = 0.05;
    struct blob potts4 = valid("potts-q4-2d-heatbath", &d, k, v, 2, LATMC_INIT_HOT, 3);
    d.q = 3, d.ndim = 3, d.extent[0] = d.extent[1] = d.extent[2] = 6;
    d.algorithm = LATMC_ALGO_METROPOLIS;
    struct blob potts3d = valid("potts-q3-3d-metropolis", &d, k, v, 1, LATMC_INIT_HOT, 2);

    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_PHI4, d.ndim = 3, d.extent[0] = d.extent[1] = d.extent[2] = 8;
    d.seed = 9, d.device = LATMC_DEVICE_CPU, d.precision = LATMC_PRECISION_FLOAT;
    k[0] = LATMC_PARAM_MU2, v[0] = -0.5, k[1] = LATMC_PARAM_G, v[1] = 2.0;
    struct blob phi43f = valid("phi4-3d-float", &d, k, v, 2, LATMC_INIT_HOT, 4);

    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_HEISENBERG, d.ndim = 2, d.extent[0] = 6, d.extent[1] = 4;
    d.seed = 10, d.device = LATMC_DEVICE_CPU, d.algorithm = LATMC_ALGO_OVERRELAX;
    d.couplings = LATMC_COUPLINGS_BIMODAL, d.coupling_seed = 11;
    k[0] = LATMC_PARAM_BETA, v[0] = 0.8, k[1] = LATMC_PARAM_NOVER, v[1] = 1;
    struct blob heisenberg4 = valid("heisenberg-2d-bimodal-overrelax", &d, k, v, 2, LATMC_INIT_HOT,
                              2);

    /* Application data (format version 2): a section of bytes, and an empty one. */
    unsigned char app_bytes[100];
    for (size_t i = 0; i < sizeof app_bytes; i++)
        app_bytes[i] = (unsigned char)(3 * i + 1);
    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_ISING, d.ndim = 2, d.extent[0] = d.extent[1] = 8, d.seed = 12;
    d.device = LATMC_DEVICE_CPU, d.couplings = LATMC_COUPLINGS_BIMODAL, d.coupling_seed = 13;
    struct blob app = valid_app("ising-pmj-app-data", &d, 2, app_bytes, sizeof app_bytes);
    d.couplings = LATMC_COUPLINGS_UNIFORM;
    struct blob app0 = valid_app("ising-empty-app-data", &d, 1, NULL, 0);

    /* The bit-sliced decisions (format version 3): without and with application data. */
    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_ISING, d.ndim = 2, d.extent[0] = 64, d.extent[1] = 4, d.seed = 14;
    d.device = LATMC_DEVICE_CPU, d.couplings = LATMC_COUPLINGS_BIMODAL, d.coupling_seed = 15;
    k[0] = LATMC_PARAM_BETA, v[0] = 0.5, k[1] = LATMC_PARAM_DECISIONS, v[1] = 1;
    struct blob chain = valid("ising-decisions", &d, k, v, 2, LATMC_INIT_HOT, 3);
    d.couplings = LATMC_COUPLINGS_UNIFORM, d.algorithm = LATMC_ALGO_HEATBATH;
    struct blob chain_app = valid_app_chain("ising-decisions-app-data", &d, 2, app_bytes, 7, 1);

    /* Damaged: the envelope. */
    bad("empty", &ising, 0, NULL, NULL, 0);
    bad("short-magic", &ising, 7, NULL, NULL, 0);
    bad("header-only", &ising, CKPT_MIN_SIZE, NULL, NULL, 0);
    bad("truncated-ising", &ising, ising.n / 2, NULL, NULL, 0);
    bad("truncated-potts-resealed", &potts, potts.n - 9, NULL, NULL, 1);
    bad("truncated-heisenberg", &heisenberg2, heisenberg2.n - 1, NULL, NULL, 0);
    bad("trailing-byte", &phi4, phi4.n + 1, NULL, NULL, 0);
    bad("trailing-byte-resealed", &phi4, phi4.n + 1, NULL, NULL, 1);
    size_t mid = ising.n / 2, last = ising.n - 1;
    bad("bitflip-configuration", &ising, ising.n, flip_bit, &mid, 0);
    bad("bitflip-checksum", &ising, ising.n, flip_bit, &last, 0);
    bad("magic", &ising, ising.n, magic, NULL, 1);
    bad("format-version-2", &ising, ising.n, version_2, NULL, 1); /* lacks its section */
    bad("format-version-3", &ising, ising.n, version_3, NULL, 1); /* lacks its block */
    bad("format-version-4", &chain, chain.n, version_4, NULL, 1);
    bad("other-byte-order", &ising, ising.n, byte_order, NULL, 1);
    bad("size-field", &ising, ising.n, size_plus_one, NULL, 0);
    /* Damaged: the desc. */
    bad("model-99", &ising, ising.n, model_99, NULL, 1);
    bad("ndim-4", &ising3, ising3.n, ndim_4, NULL, 1);
    bad("odd-extent", &ising, ising.n, odd_extent, NULL, 1);
    bad("negative-extent", &ising0, ising0.n, extent_negative, NULL, 1);
    bad("extent-beyond-2^40-sites", &ising0, ising0.n, extent_huge, NULL, 1);
    bad("huge-lattice-no-configuration", &ising0, ising0.n, extent_2_17, NULL, 1);
    bad("potts-q-1", &potts, potts.n, q_1, NULL, 1);
    bad("replicas-3", &heisenberg2, heisenberg2.n, replicas_3, NULL, 1);
    bad("desc-fields-15", &ising, ising.n, nfields_15, NULL, 1);
    /* Damaged: parameters and counters. */
    bad("params-9", &ising, ising.n, nparams_9, NULL, 1);
    bad("beta-nan", &ising, ising.n, beta_nan, NULL, 1);
    bad("beta-negative", &potts, potts.n, beta_negative, NULL, 1);
    bad("phi4-lambda-0", &phi4, phi4.n, lambda_zero, NULL, 1);
    bad("phi4-nhit-1e9", &phi4f, phi4f.n, nhit_huge, NULL, 1);
    bad("accepted-above-attempted", &ising, ising.n, accepted_gt, NULL, 1);
    bad("attempted-2^64-1", &ising, ising.n, attempted_huge, NULL, 1);
    bad("has-configuration-2", &ising, ising.n, have_config_2, NULL, 1);
    bad("configuration-size", &ising, ising.n, config_bytes_plus, NULL, 1);
    /* Damaged: values. */
    struct field_edit ising_3 = { 0, 1, 3 }, potts_q = { 0, 1, 3 };
    struct field_edit phi4_nan = { 0, 8, UINT64_C(0x7ff8000000000000) };
    struct field_edit heisenberg_long = { 0, 4, 0x40000000u };  /* x = 2.0: |s| != 1 */
    bad("ising-spin-3", &ising, ising.n, spin_value, &ising_3, 1);
    bad("potts-spin-q", &potts, potts.n, spin_value, &potts_q, 1);
    bad("phi4-field-nan", &phi4, phi4.n, spin_value, &phi4_nan, 1);
    bad("heisenberg-spin-length-2", &heisenberg, heisenberg.n, spin_value, &heisenberg_long, 1);
    bad("heisenberg-coupling-inf", &heisenberg2, heisenberg2.n, coupling_inf, NULL, 1);
    bad("heisenberg-couplings-count", &heisenberg2, heisenberg2.n, ncouplings_minus, NULL, 1);
    const uint32_t half = 0x3f000000u, nan_f = 0x7fc00000u;  /* 0.5f, NaN */
    bad("ising-pmj-coupling-0.5", &pmj, pmj.n, coupling_value, &half, 1);
    bad("ising-pmj-coupling-nan", &pmj3, pmj3.n, coupling_value, &nan_f, 1);
    bad("ising-pmj-couplings-count", &pmj, pmj.n, ncouplings_minus, NULL, 1);
    /* Damaged: the application-data section. */
    const int64_t plus_one = 1, minus_one = -1;
    bad("app-data-size-plus-1", &app, app.n, app_size_delta, &plus_one, 1);
    bad("app-data-size-minus-1", &app, app.n, app_size_delta, &minus_one, 1);
    bad("app-data-truncated", &app, app.n - 9, NULL, NULL, 1);
    size_t in_section = app.n - 8 - 50;
    bad("app-data-bitflip", &app, app.n, flip_bit, &in_section, 0);

    /* Damaged: version 3's chain block. */
    const struct field_edit keys_12 = { 0, 4, 12 }, keys_10 = { 0, 4, 10 };
    const struct field_edit decisions_2 = { 4, 8, UINT64_C(0x4000000000000000) }; /* 2.0 */
    const struct field_edit decisions_nan = { 4, 8, UINT64_C(0x7ff8000000000000) };
    const struct field_edit flag_2 = { 12, 4, 2 }, flag_0 = { 12, 4, 0 }, flag_1 = { 12, 4, 1 };
    bad("chain-keys-12", &chain, chain.n, chain_field, &keys_12, 1);
    bad("chain-keys-10", &chain, chain.n, chain_field, &keys_10, 1);
    bad("chain-decisions-2", &chain, chain.n, chain_field, &decisions_2, 1);
    bad("chain-decisions-nan", &chain_app, chain_app.n, chain_field, &decisions_nan, 1);
    bad("chain-app-flag-2", &chain, chain.n, chain_field, &flag_2, 1);
    bad("chain-app-flag-1-without-section", &chain, chain.n, chain_field, &flag_1, 1);
    bad("chain-app-flag-0-with-section", &chain_app, chain_app.n, chain_field, &flag_0, 1);
    bad("chain-truncated-in-block", &chain, chain.n - 8 - 6, NULL, NULL, 1);
    bad("chain-truncated", &chain_app, chain_app.n - 3, NULL, NULL, 0);

    struct blob all[] = { chain, chain_app, ising,   ising3,     ising0,      potts,       potts10,
                          phi4,  phi4f,     phi43,   heisenberg, heisenberg2, heisenberg3, pmj,
                          pmj3,  potts4,    potts3d, phi43f,     heisenberg4, app,         app0 };
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++)
        free(all[i].p);
    latmc_ctx_destroy(&ctx);
    return failed;
}
