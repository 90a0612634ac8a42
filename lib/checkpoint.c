/*
 * Checkpoints: the whole state of a sim (desc, parameters, sweep number, acceptance
 * counters, configuration, couplings) in a self-describing, versioned, checksummed
 * format (doc/checkpoints.md). The random numbers are a function of (seed, sweep, site),
 * so restoring the sweep number is all it takes for a restart to continue bit-identically.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <latmc/version.h>
#include "backend.h"
#include "checkpoint_io.h"
#include "desc.h"
#include "model.h"
#include "params.h"

#define CKPT_MAGIC "LATMCCKP"
#define CKPT_FORMAT_VERSION 1u
#define CKPT_ENDIAN_MARK 0x01020304u   /* stored in host order: a reader of the other byte
                                          order sees 0x04030201 */
#define CKPT_VERSION_BYTES 16
#define CKPT_HEADER_BYTES (8 + 4 + 4 + 8 + CKPT_VERSION_BYTES)
#define CKPT_MAX_BYTES (UINT64_C(1) << 46)

static void put_desc(struct ckpt_writer *w, const latmc_sim_desc *d)
{
    const int64_t fields[] = { d->model, d->ndim, d->extent[0], d->extent[1], d->extent[2],
                               d->extent[3], d->q, d->algorithm, d->precision, d->couplings,
                               (int64_t)d->coupling_seed, d->replicas, d->device,
                               d->device_index, d->n_threads, (int64_t)d->seed };
    ckpt_put_u32(w, (uint32_t)(sizeof fields / sizeof fields[0]));
    for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
        ckpt_put_u64(w, (uint64_t)fields[i]);
}

/* Everything but the checksum; the configuration through the backend's host copy. */
static int write_state(latmc_sim *sim, struct ckpt_writer *w, void *spins, float *couplings,
                       size_t spin_bytes, size_t ncouplings)
{
    ckpt_put_bytes(w, CKPT_MAGIC, 8);
    ckpt_put_u32(w, CKPT_FORMAT_VERSION);
    const uint32_t mark = CKPT_ENDIAN_MARK;
    ckpt_put_bytes(w, &mark, 4);
    ckpt_put_u64(w, 0); /* total size, patched by the caller */
    char version[CKPT_VERSION_BYTES] = { 0 };
    strncpy(version, LATMC_VERSION_STRING, sizeof version - 1);
    ckpt_put_bytes(w, version, sizeof version);
    put_desc(w, &sim->desc);
    ckpt_put_u32(w, LATMC_PARAM_MAX);
    for (int k = 1; k <= LATMC_PARAM_MAX; k++)
        ckpt_put_f64(w, sim->param[k]);
    ckpt_put_u64(w, sim->sweeps);
    ckpt_put_u64(w, sim->accepted);
    ckpt_put_u64(w, sim->attempted);
    ckpt_put_u32(w, sim->have_config);
    ckpt_put_u64(w, spin_bytes);
    if (spin_bytes) {
        if (w->buf) {
            int st = sim->ops->get_spins(sim, spins);
            if (st < 0)
                return st;
        }
        ckpt_put_bytes(w, spins, spin_bytes);
    }
    ckpt_put_u64(w, ncouplings);
    if (ncouplings) {
        if (w->buf) {
            int st = sim->ops->get_couplings(sim, couplings);
            if (st < 0)
                return st;
        }
        ckpt_put_bytes(w, couplings, ncouplings * sizeof(float));
    }
    return LATMC_OK;
}

static void state_sizes(const latmc_sim *sim, size_t *spin_bytes, size_t *ncouplings)
{
    *spin_bytes = 0;
    if (sim->have_config)
        latmc_sim_spins_size(sim, spin_bytes);
    *ncouplings = latmc_model_has_couplings(sim->model, &sim->desc)
                      ? (size_t)sim->nsites * (size_t)sim->desc.ndim : 0;
}

int latmc_sim_serialize(latmc_sim *sim, void *buf, size_t capacity, size_t *size)
{
    if (!sim)
        return latmc_fail(LATMC_EINVAL, "latmc_sim_serialize: sim is NULL");
    if (!size)
        return SIM_FAIL(sim, LATMC_EINVAL, "latmc_sim_serialize: size is NULL");
    size_t spin_bytes, ncouplings;
    state_sizes(sim, &spin_bytes, &ncouplings);
    struct ckpt_writer count = { NULL, 0, 0 };
    write_state(sim, &count, NULL, NULL, spin_bytes, ncouplings);
    *size = count.len + 8;
    if (!buf)
        return LATMC_OK;
    if (capacity < *size)
        return SIM_FAIL(sim, LATMC_EINVAL, "latmc_sim_serialize: buffer of %zu bytes, the state "
                        "takes %zu", capacity, *size);
    void *spins = spin_bytes ? malloc(spin_bytes) : NULL;
    float *couplings = ncouplings ? malloc(ncouplings * sizeof(float)) : NULL;
    if ((spin_bytes && !spins) || (ncouplings && !couplings)) {
        free(spins);
        free(couplings);
        return SIM_FAIL(sim, LATMC_ENOMEM, "latmc_sim_serialize: cannot allocate a host copy");
    }
    struct ckpt_writer w = { buf, capacity, 0 };
    int st = write_state(sim, &w, spins, couplings, spin_bytes, ncouplings);
    free(spins);
    free(couplings);
    if (st < 0)
        return latmc_sim_record_failure(sim, st);
    unsigned char *bytes = buf;
    struct ckpt_writer patch = { bytes + 16, 8, 0 };
    ckpt_put_u64(&patch, *size);
    ckpt_put_u64(&w, ckpt_checksum(bytes, w.len));
    return LATMC_OK;
}

/* A checkpoint field that must fit an int. */
static bool fits_int(int64_t v)
{
    return v >= -2147483647 - 1 && v <= 2147483647;
}

static int corrupt(const char *what)
{
    return latmc_fail(LATMC_ECORRUPT, "checkpoint: %s", what);
}

static int read_desc(struct ckpt_reader *r, latmc_sim_desc *d)
{
    if (ckpt_get_u32(r) != 16)
        return corrupt("the desc does not have the 16 fields of format version 1");
    int64_t f[16];
    for (int i = 0; i < 16; i++)
        f[i] = (int64_t)ckpt_get_u64(r);
    latmc_sim_desc_init(d);
    const int int_fields[] = { 0, 1, 6, 7, 8, 9, 11, 12, 13, 14 };
    for (size_t i = 0; i < sizeof int_fields / sizeof int_fields[0]; i++)
        if (!fits_int(f[int_fields[i]]))
            return corrupt("a desc field is out of range");
    d->model = (int)f[0];
    d->ndim = (int)f[1];
    for (int mu = 0; mu < 4; mu++)
        d->extent[mu] = f[2 + mu];
    d->q = (int)f[6];
    d->algorithm = (int)f[7];
    d->precision = (int)f[8];
    d->couplings = (int)f[9];
    d->coupling_seed = (uint64_t)f[10];
    d->replicas = (int)f[11];
    d->device = (int)f[12];
    d->device_index = (int)f[13];
    d->n_threads = (int)f[14];
    d->seed = (uint64_t)f[15];
    return LATMC_OK;
}

/* Checks that need nothing but the bytes: magic, version, byte order, size, checksum. */
static int check_envelope(const unsigned char *p, size_t size)
{
    if (size < CKPT_HEADER_BYTES + 8)
        return corrupt(size >= 8 && memcmp(p, CKPT_MAGIC, 8) == 0
                           ? "truncated (shorter than its header)"
                           : "not a liblatmc checkpoint (too short)");
    if (memcmp(p, CKPT_MAGIC, 8) != 0)
        return corrupt("not a liblatmc checkpoint (bad magic)");
    struct ckpt_reader r = { p, size, 8, false };
    uint32_t version = ckpt_get_u32(&r);
    if (version != CKPT_FORMAT_VERSION)
        return latmc_fail(LATMC_ECORRUPT, "checkpoint: format version %u; this liblatmc reads "
                          "version %u", version, CKPT_FORMAT_VERSION);
    uint32_t mark;
    ckpt_get_bytes(&r, &mark, 4);
    if (mark != CKPT_ENDIAN_MARK)
        return corrupt(mark == 0x04030201u ? "written on a machine of the other byte order"
                                           : "bad byte-order mark");
    uint64_t total = ckpt_get_u64(&r);
    if (total != size)
        return latmc_fail(LATMC_ECORRUPT, "checkpoint: header says %llu bytes, have %zu "
                          "(truncated or extended)", (unsigned long long)total, size);
    struct ckpt_reader tail = { p, size, size - 8, false };
    if (ckpt_get_u64(&tail) != ckpt_checksum(p, size - 8))
        return corrupt("checksum mismatch (the file is damaged)");
    return LATMC_OK;
}

/* Everything after the desc, parsed and checked against the desc before any sim exists,
 * so that a small damaged file can never make the loader allocate a huge lattice. */
struct ckpt_state {
    double param[LATMC_PARAM_MAX + 1];
    uint64_t sweeps, accepted, attempted;
    bool have_config;
    const unsigned char *spins;       /* spin_bytes raw bytes inside the buffer */
    uint64_t spin_bytes;
    const unsigned char *couplings;   /* ncouplings raw floats inside the buffer */
    uint64_t ncouplings;
};

static int parse_state(struct ckpt_reader *r, const latmc_sim_desc *d, int64_t nsites,
                       struct ckpt_state *st)
{
    const struct latmc_model_def *model = latmc_model_get(d->model);
    if (ckpt_get_u32(r) != LATMC_PARAM_MAX)
        return corrupt("unexpected number of parameters");
    latmc_param_defaults(st->param);
    for (int k = 1; k <= LATMC_PARAM_MAX; k++) {
        double v = ckpt_get_f64(r);
        if (!(model->params & (1u << k)))
            continue;
        if (latmc_param_check(k, v) != LATMC_OK)
            return corrupt("a parameter value is out of range");
        st->param[k] = v;
    }
    st->sweeps = ckpt_get_u64(r);
    st->accepted = ckpt_get_u64(r);
    st->attempted = ckpt_get_u64(r);
    uint32_t have_config = ckpt_get_u32(r);
    st->have_config = have_config == 1;
    st->spin_bytes = ckpt_get_u64(r);
    const uint64_t want_spins = (uint64_t)nsites * (uint64_t)d->replicas * model->site_bytes(d);
    if (have_config > 1 || st->accepted > st->attempted ||
        st->spin_bytes != (st->have_config ? want_spins : 0))
        return corrupt("inconsistent configuration size or counters");
    if (r->truncated || st->spin_bytes > r->len - r->pos)
        return corrupt("truncated");
    st->spins = r->buf + r->pos;
    r->pos += st->spin_bytes;
    st->ncouplings = ckpt_get_u64(r);
    const uint64_t want_couplings = latmc_model_has_couplings(model, d) ? (uint64_t)nsites * (uint64_t)d->ndim : 0;
    if (st->ncouplings != want_couplings)
        return corrupt("inconsistent number of couplings");
    if (r->truncated || st->ncouplings * sizeof(float) > r->len - r->pos)
        return corrupt("truncated");
    st->couplings = r->buf + r->pos;
    r->pos += st->ncouplings * sizeof(float);
    if (r->pos != r->len - 8)
        return corrupt("truncated or trailing bytes");
    return LATMC_OK;
}

/* Put a parsed state into a freshly created sim. */
static int apply_state(latmc_sim *sim, const struct ckpt_state *st)
{
    int status = LATMC_OK;
    if (st->ncouplings) {
        float *couplings = malloc(st->ncouplings * sizeof(float));
        if (!couplings)
            return latmc_fail(LATMC_ENOMEM, "checkpoint: cannot allocate the couplings");
        memcpy(couplings, st->couplings, st->ncouplings * sizeof(float));
        for (uint64_t i = 0; i < st->ncouplings && status == LATMC_OK; i++)
            if (!isfinite(couplings[i]))
                status = corrupt("a coupling is not finite");
        if (status == LATMC_OK && sim->model->check_couplings &&
            sim->model->check_couplings(sim, couplings, (size_t)st->ncouplings,
                                        "checkpoint") < 0)
            status = corrupt("a coupling is not a value the model takes");
        if (status == LATMC_OK)
            status = sim->ops->set_couplings(sim, couplings);
        free(couplings);
        if (status < 0)
            return status;
    }
    if (st->have_config) {
        /* Copy out: the bytes may be unaligned for the model's element type. */
        void *aligned = malloc(st->spin_bytes);
        if (!aligned)
            return latmc_fail(LATMC_ENOMEM, "checkpoint: cannot allocate the configuration");
        memcpy(aligned, st->spins, st->spin_bytes);
        status = sim->model->check_spins(sim, aligned);
        if (status < 0)
            status = corrupt("the configuration holds invalid values");
        else
            status = sim->ops->set_spins(sim, aligned);
        free(aligned);
        if (status < 0)
            return status;
    }
    memcpy(sim->param, st->param, sizeof st->param);
    if ((status = latmc_sim_params_changed(sim)) < 0)
        return status;
    sim->sweeps = st->sweeps;
    sim->accepted = st->accepted;
    sim->attempted = st->attempted;
    sim->have_config = st->have_config;
    sim->sums_valid = false;
    return LATMC_OK;
}

int latmc_sim_deserialize(latmc_ctx *ctx, const void *buf, size_t size, latmc_sim **out)
{
    if (out)
        *out = NULL;
    if (!ctx || !buf || !out)
        return latmc_fail(LATMC_EINVAL, "latmc_sim_deserialize: %s is NULL",
                          !ctx ? "ctx" : !buf ? "buf" : "out");
    const unsigned char *p = buf;
    int st = check_envelope(p, size);
    if (st < 0)
        return st;
    struct ckpt_reader r = { p, size, CKPT_HEADER_BYTES, false };
    latmc_sim_desc d, valid;
    int64_t nsites = 0;
    if ((st = read_desc(&r, &d)) < 0)
        return st;
    st = latmc_desc_validate(&d, &valid, &nsites);
    if (st == LATMC_EINVAL) {
        char why[LATMC_ERRMSG_SIZE]; /* latmc_fail writes the buffer it would read */
        snprintf(why, sizeof why, "%s", latmc_thread_error());
        return latmc_fail(LATMC_ECORRUPT, "checkpoint: its desc is invalid: %s", why);
    }
    if (st < 0)
        return st;
    struct ckpt_state state;
    if ((st = parse_state(&r, &valid, nsites, &state)) < 0)
        return st;
    latmc_sim *sim = NULL;
    if ((st = latmc_sim_create(ctx, &d, &sim)) < 0)
        return st;
    if ((st = apply_state(sim, &state)) < 0) {
        latmc_sim_destroy(&sim);
        return st;
    }
    *out = sim;
    return LATMC_OK;
}

int latmc_sim_save(latmc_sim *sim, const char *path)
{
    if (!sim)
        return latmc_fail(LATMC_EINVAL, "latmc_sim_save: sim is NULL");
    if (!path)
        return SIM_FAIL(sim, LATMC_EINVAL, "latmc_sim_save: path is NULL");
    size_t size = 0;
    int st = latmc_sim_serialize(sim, NULL, 0, &size);
    unsigned char *bytes = st == LATMC_OK ? malloc(size) : NULL;
    if (st == LATMC_OK && !bytes)
        return SIM_FAIL(sim, LATMC_ENOMEM, "latmc_sim_save: cannot allocate %zu bytes", size);
    if (st == LATMC_OK)
        st = latmc_sim_serialize(sim, bytes, size, &size);
    if (st < 0) {
        free(bytes);
        return st;
    }
    /* Write beside the target, flush to the disk, then rename: a crash at any point leaves
     * either the old checkpoint or the new one at `path`, never a partial file. */
    size_t tmp_len = strlen(path) + 5;
    char *tmp = malloc(tmp_len);
    if (!tmp) {
        free(bytes);
        return SIM_FAIL(sim, LATMC_ENOMEM, "latmc_sim_save: cannot allocate a path");
    }
    snprintf(tmp, tmp_len, "%s.tmp", path);
    FILE *f = fopen(tmp, "wb");
    int err = 0;
    if (!f)
        err = errno;
    else {
        if (fwrite(bytes, 1, size, f) != size || fflush(f) != 0 || fsync(fileno(f)) != 0)
            err = errno ? errno : EIO;
        if (fclose(f) != 0 && !err)
            err = errno;
        if (!err && rename(tmp, path) != 0)
            err = errno;
        if (err)
            remove(tmp);
    }
    free(bytes);
    if (err) {
        st = SIM_FAIL(sim, LATMC_EIO, "latmc_sim_save: cannot write %s: %s", tmp, strerror(err));
        free(tmp);
        return st;
    }
    free(tmp);
    return LATMC_OK;
}

int latmc_sim_load(latmc_ctx *ctx, const char *path, latmc_sim **out)
{
    if (out)
        *out = NULL;
    if (!ctx || !path || !out)
        return latmc_fail(LATMC_EINVAL, "latmc_sim_load: %s is NULL",
                          !ctx ? "ctx" : !path ? "path" : "out");
    FILE *f = fopen(path, "rb");
    if (!f) {
        int st = latmc_fail(LATMC_EIO, "latmc_sim_load: cannot open %s: %s", path,
                            strerror(errno));
        latmc_log(ctx, LATMC_LOG_ERROR, "%s", latmc_thread_error());
        return st;
    }
    unsigned char *bytes = NULL;
    size_t len = 0, cap = 0;
    int st = LATMC_OK;
    for (;;) {
        if (len == cap) {
            size_t ncap = cap ? 2 * cap : 65536;
            unsigned char *nb = ncap <= CKPT_MAX_BYTES ? realloc(bytes, ncap) : NULL;
            if (!nb) {
                st = latmc_fail(ncap > CKPT_MAX_BYTES ? LATMC_ECORRUPT : LATMC_ENOMEM,
                                "latmc_sim_load: %s is too large to read", path);
                break;
            }
            bytes = nb;
            cap = ncap;
        }
        size_t got = fread(bytes + len, 1, cap - len, f);
        len += got;
        if (got == 0) {
            if (ferror(f))
                st = latmc_fail(LATMC_EIO, "latmc_sim_load: cannot read %s", path);
            break;
        }
    }
    fclose(f);
    if (st == LATMC_OK)
        st = latmc_sim_deserialize(ctx, bytes, len, out);
    free(bytes);
    if (st < 0)
        latmc_log(ctx, LATMC_LOG_ERROR, "latmc_sim_load: %s: %s", path, latmc_thread_error());
    return st;
}
