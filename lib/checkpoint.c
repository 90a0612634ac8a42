/*
 * Checkpoints: the whole state of a sim (desc, parameters, sweep number, acceptance
 * counters, configuration, couplings) in a self-describing, versioned, checksummed
 * format (doc/checkpoints.md), optionally with a section of application data that the
 * checksum covers. The random numbers are a function of (seed, sweep, site), so restoring
 * the sweep number is all it takes for a restart to continue bit-identically.
 *
 * Loading checks everything the file says, sizes against the desc first, before it
 * creates the sim: a small damaged or crafted file can never make it allocate more than
 * a fixed multiple of its own size (doc/checkpoints.md, "Safety").
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <latmc/version.h>
#include "backend.h"
#include "checkpoint_desc.h"
#include "checkpoint_io.h"
#include "checkpoint_format.h"
#include "desc.h"
#include "model.h"
#include "params.h"
#include "part.h"
#include "safe_file.h"

/* The bytes from the magic through the configuration-size field (CKPT_PREFIX_BYTES). */
void ckpt_put_prefix(struct ckpt_writer *w, const latmc_sim *sim, uint64_t total,
                     uint64_t spin_bytes, bool app)
{
    ckpt_put_bytes(w, CKPT_MAGIC, 8);
    ckpt_put_u32(w, ckpt_version_of(sim, app));
    const uint32_t mark = CKPT_ENDIAN_MARK;
    ckpt_put_bytes(w, &mark, 4);
    ckpt_put_u64(w, total); /* 0: patched by the caller */
    char version[CKPT_VERSION_BYTES] = { 0 };
    strncpy(version, LATMC_VERSION_STRING, sizeof version - 1);
    ckpt_put_bytes(w, version, sizeof version);
    ckpt_put_desc(w, &sim->desc);
    ckpt_put_u32(w, CKPT_PARAMS);
    for (int k = 1; k <= CKPT_PARAMS; k++)
        ckpt_put_f64(w, sim->param[k]);
    ckpt_put_u64(w, sim->sweeps);
    ckpt_put_u64(w, sim->accepted);
    ckpt_put_u64(w, sim->attempted);
    ckpt_put_u32(w, sim->have_config);
    ckpt_put_u64(w, spin_bytes);
}

uint32_t ckpt_version_of(const latmc_sim *sim, bool app)
{
    double def[LATMC_PARAM_MAX + 1];
    latmc_param_defaults(def);
    for (int k = CKPT_PARAMS + 1; k <= CKPT_PARAMS_V3; k++)
        if (sim->param[k] != def[k])
            return CKPT_VERSION_CHAIN;
    return app ? CKPT_VERSION_APP_DATA : CKPT_VERSION_STATE;
}

/* Everything but the checksum; the configuration through the backend's host copy. */
static int write_state(latmc_sim *sim, struct ckpt_writer *w, void *spins, float *couplings,
                       size_t spin_bytes, size_t ncouplings, const struct app_section *app)
{
    ckpt_put_prefix(w, sim, 0, spin_bytes, app->present);
    /* a part of a shared lattice: what latmc_part_collect gathered (lib/part.h), written
     * from there (spins and couplings are then NULL: serialize allocates no copy) */
    const struct latmc_part *part = sim->part;
    if (spin_bytes) {
        const void *from = part && part->staged_spins ? part->staged_spins : spins;
        if (w->buf && from == spins) {
            int st = sim->ops->get_spins(sim, spins);
            if (st < 0)
                return st;
        }
        ckpt_put_bytes(w, from, spin_bytes);
    }
    ckpt_put_u64(w, ncouplings);
    if (ncouplings) {
        const float *from = part && part->staged_couplings ? part->staged_couplings : couplings;
        if (w->buf && from == couplings) {
            int st = sim->ops->get_couplings(sim, couplings);
            if (st < 0)
                return st;
        }
        ckpt_put_bytes(w, from, ncouplings * sizeof(float));
    }
    if (ckpt_version_of(sim, app->present) == CKPT_VERSION_CHAIN)
        ckpt_put_chain_block(w, sim, app->present);
    if (app->present) {
        ckpt_put_u64(w, app->size);
        if (app->size)
            ckpt_put_bytes(w, app->data, app->size);
    }
    return LATMC_OK;
}

void ckpt_state_sizes(const latmc_sim *sim, size_t *spin_bytes, size_t *ncouplings)
{
    *spin_bytes = 0;
    if (sim->have_config)
        latmc_sim_spins_size(sim, spin_bytes);
    *ncouplings = latmc_model_has_couplings(sim->model, &sim->desc)
                      ? (size_t)sim->nsites * (size_t)sim->desc.ndim : 0;
}

void ckpt_put_chain_block(struct ckpt_writer *w, const latmc_sim *sim, bool app)
{
    ckpt_put_u32(w, CKPT_PARAMS_V3);
    for (int k = CKPT_PARAMS + 1; k <= CKPT_PARAMS_V3; k++)
        ckpt_put_f64(w, sim->param[k]);
    ckpt_put_u32(w, app);
}

/* latmc_sim_serialize with an optional application-data section; `fn` for messages. */
static int serialize(latmc_sim *sim, const struct app_section *app, void *buf,
                     size_t capacity, size_t *size, const char *fn)
{
    if (!sim->have_config &&
        (uint64_t)sim->nsites * (uint64_t)sim->desc.replicas > CKPT_MAX_EMPTY_SITES)
        return SIM_FAIL(sim, LATMC_ESTATE, "%s: the sim has no configuration yet and more than "
                        "%d sites x replicas: such a checkpoint could not be loaded (the file "
                        "would not hold the lattice it declares); call latmc_sim_init_spins or "
                        "latmc_sim_set_spins first", fn, CKPT_MAX_EMPTY_SITES);
    size_t spin_bytes, ncouplings;
    ckpt_state_sizes(sim, &spin_bytes, &ncouplings);
    struct ckpt_writer count = { NULL, 0, 0 };
    write_state(sim, &count, NULL, NULL, spin_bytes, ncouplings, app);
    *size = count.len + 8;
    if (!buf)
        return LATMC_OK;
    if (capacity < *size)
        return SIM_FAIL(sim, LATMC_EINVAL, "%s: buffer of %zu bytes, the state takes %zu", fn,
                        capacity, *size);
    /* host copies of the state, but where a part's collection staged it (write_state) */
    const bool staged_spins = sim->part && sim->part->staged_spins;
    const bool staged_couplings = sim->part && sim->part->staged_couplings;
    const bool want_spins = spin_bytes && !staged_spins;
    const bool want_couplings = ncouplings && !staged_couplings;
    void *spins = want_spins ? malloc(spin_bytes) : NULL;
    float *couplings = want_couplings ? malloc(ncouplings * sizeof(float)) : NULL;
    if ((want_spins && !spins) || (want_couplings && !couplings)) {
        free(spins);
        free(couplings);
        return SIM_FAIL(sim, LATMC_ENOMEM, "%s: cannot allocate a host copy of the state", fn);
    }
    struct ckpt_writer w = { buf, capacity, 0 };
    int st = write_state(sim, &w, spins, couplings, spin_bytes, ncouplings, app);
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

int latmc_sim_serialize(latmc_sim *sim, void *buf, size_t capacity, size_t *size)
{
    if (!sim)
        return latmc_fail(LATMC_EINVAL, "latmc_sim_serialize: sim is NULL");
    int st = size ? LATMC_OK : SIM_FAIL(sim, LATMC_EINVAL, "latmc_sim_serialize: size is NULL");
    const struct app_section none = { NULL, 0, false };
    if (!latmc_part_many(sim))
        return st < 0 ? st : serialize(sim, &none, buf, capacity, size, "latmc_sim_serialize");
    /* a part of a shared lattice: a part's bad argument fails the call on every part (none
     * waits in the gathers); then every part's slab to every part, and the same bytes */
    if ((st = latmc_part_agree(sim, st)) < 0)
        return latmc_sim_record_failure(sim, st);
    st = buf ? latmc_part_collect(sim, -1) : LATMC_OK;
    if (st == LATMC_OK)
        st = serialize(sim, &none, buf, capacity, size, "latmc_sim_serialize");
    latmc_part_unstage(sim);
    st = latmc_part_agree(sim, st);
    return st < 0 ? latmc_sim_record_failure(sim, st) : st;
}

int ckpt_corrupt(const char *what)
{
    return latmc_fail(LATMC_ECORRUPT, "%s", what);
}

int ckpt_read_desc(struct ckpt_reader *r, latmc_sim_desc *d)
{
    const char *why = ckpt_get_desc(r, d);
    return why ? ckpt_corrupt(why) : LATMC_OK;
}


static bool ckpt_known_version(uint32_t version)
{
    return version == CKPT_VERSION_STATE || version == CKPT_VERSION_APP_DATA ||
           version == CKPT_VERSION_CHAIN;
}

static int unknown_version(uint32_t version)
{
    return latmc_fail(LATMC_ECORRUPT, "format version %u; this liblatmc reads "
                      "versions %u to %u", version, CKPT_VERSION_STATE, CKPT_VERSION_CHAIN);
}

/* The envelope's checks but the checksum (which needs every byte): magic, version, byte
 * order, declared size, from the first CKPT_HEADER_BYTES of a file of `size` bytes. */
int ckpt_check_head(const unsigned char *p, size_t size, uint32_t *version)
{
    if (size < CKPT_HEADER_BYTES + 8)
        return ckpt_corrupt(size >= 8 && memcmp(p, CKPT_MAGIC, 8) == 0
                           ? "truncated (shorter than its header)"
                           : "not a liblatmc checkpoint (too short)");
    if (memcmp(p, CKPT_MAGIC, 8) != 0)
        return ckpt_corrupt("not a liblatmc checkpoint (bad magic)");
    struct ckpt_reader r = { p, size, 8, false };
    *version = ckpt_get_u32(&r);
    if (!ckpt_known_version(*version))
        return unknown_version(*version);
    uint32_t mark;
    ckpt_get_bytes(&r, &mark, 4);
    if (mark != CKPT_ENDIAN_MARK)
        return ckpt_corrupt(mark == 0x04030201u ? "written on a machine of the other byte order"
                                           : "bad byte-order mark");
    uint64_t total = ckpt_get_u64(&r);
    if (total != size)
        return latmc_fail(LATMC_ECORRUPT, "header says %llu bytes, have %zu "
                          "(truncated or extended)", (unsigned long long)total, size);
    return LATMC_OK;
}

/* Checks that need nothing but the bytes: magic, version, byte order, size, checksum. */
static int check_envelope(const unsigned char *p, size_t size, uint32_t *version)
{
    int st = ckpt_check_head(p, size, version);
    if (st < 0)
        return st;
    struct ckpt_reader tail = { p, size, size - 8, false };
    if (ckpt_get_u64(&tail) != ckpt_checksum(p, size - 8))
        return ckpt_corrupt("checksum mismatch (the file is damaged)");
    return LATMC_OK;
}

/* Stores parameter k read from a checkpoint where the model has it, after the bounds check
 * that latmc_sim_set_param makes; `where` names the block in the message. */
static int ckpt_take_param(const struct latmc_model_def *model, int k, double v,
                           struct ckpt_state *st, const char *where)
{
    if (!(model->params & (1u << k)))
        return LATMC_OK;
    if (latmc_param_check(k, v) != LATMC_OK) {
        char why[LATMC_ERRMSG_SIZE]; /* the cause, copied before the new message is recorded */
        snprintf(why, sizeof why, "%s", latmc_thread_error());
        return latmc_fail(LATMC_ECORRUPT, "a parameter value%s is out of range "
                          "(%s)", where, why);
    }
    st->param[k] = v;
    return LATMC_OK;
}

int ckpt_parse_head(struct ckpt_reader *r, const latmc_sim_desc *d, int64_t nsites,
                    struct ckpt_state *st)
{
    const struct latmc_model_def *model = latmc_model_get(d->model);
    if (ckpt_get_u32(r) != CKPT_PARAMS)
        return ckpt_corrupt("unexpected number of parameters");
    latmc_param_defaults(st->param);
    for (int k = 1; k <= CKPT_PARAMS; k++) {
        const int rc = ckpt_take_param(model, k, ckpt_get_f64(r), st, "");
        if (rc != LATMC_OK)
            return rc;
    }
    st->sweeps = ckpt_get_u64(r);
    st->accepted = ckpt_get_u64(r);
    st->attempted = ckpt_get_u64(r);
    uint32_t have_config = ckpt_get_u32(r);
    st->have_config = have_config == 1;
    st->spin_bytes = ckpt_get_u64(r);
    const uint64_t sites = (uint64_t)nsites * (uint64_t)d->replicas;
    const uint64_t want_spins = sites * model->site_bytes(d);
    if (have_config > 1)
        return latmc_fail(LATMC_ECORRUPT, "the has-configuration flag is %u (0 or "
                          "1)", have_config);
    if (st->accepted > st->attempted || st->attempted > CKPT_MAX_ATTEMPTED)
        return latmc_fail(LATMC_ECORRUPT, "%llu accepted of %llu attempted updates "
                          "(at most 2^63 attempted)", (unsigned long long)st->accepted,
                          (unsigned long long)st->attempted);
    if (st->spin_bytes != (st->have_config ? want_spins : 0))
        return latmc_fail(LATMC_ECORRUPT, "a configuration of %llu bytes where the "
                          "desc implies %llu", (unsigned long long)st->spin_bytes,
                          (unsigned long long)(st->have_config ? want_spins : 0));
    if (!st->have_config && sites > CKPT_MAX_EMPTY_SITES)
        return latmc_fail(LATMC_ECORRUPT, "holds no configuration for its lattice "
                          "of %llu sites x replicas; only lattices of at most %d may be saved "
                          "without one", (unsigned long long)sites, CKPT_MAX_EMPTY_SITES);
    return LATMC_OK;
}

int ckpt_parse_chain_block(struct ckpt_reader *r, const latmc_sim_desc *d,
                           struct ckpt_state *st)
{
    const struct latmc_model_def *model = latmc_model_get(d->model);
    const uint32_t keys = ckpt_get_u32(r);
    if (r->truncated)
        return ckpt_corrupt("truncated");
    if (keys != CKPT_PARAMS_V3)
        return latmc_fail(LATMC_ECORRUPT, "the chain block holds parameters up to "
                          "key %u; this format version has them up to %d", keys,
                          CKPT_PARAMS_V3);
    for (int k = CKPT_PARAMS + 1; k <= CKPT_PARAMS_V3; k++) {
        const double v = ckpt_get_f64(r);
        if (r->truncated)
            return ckpt_corrupt("truncated");
        const int rc = ckpt_take_param(model, k, v, st, " of the chain block");
        if (rc != LATMC_OK)
            return rc;
    }
    const uint32_t app = ckpt_get_u32(r);
    if (r->truncated)
        return ckpt_corrupt("truncated");
    if (app > 1)
        return latmc_fail(LATMC_ECORRUPT, "the application-data flag of the chain "
                          "block is %u (0 or 1)", app);
    st->has_app = app == 1;
    return LATMC_OK;
}

static int parse_state(struct ckpt_reader *r, const latmc_sim_desc *d, int64_t nsites,
                       uint32_t version, struct ckpt_state *st)
{
    const struct latmc_model_def *model = latmc_model_get(d->model);
    int status = ckpt_parse_head(r, d, nsites, st);
    if (status < 0)
        return status;
    if (r->truncated || st->spin_bytes > r->len - r->pos)
        return ckpt_corrupt("truncated");
    st->spins = r->buf + r->pos;
    r->pos += st->spin_bytes;
    st->ncouplings = ckpt_get_u64(r);
    const uint64_t want_couplings = latmc_model_has_couplings(model, d) ? (uint64_t)nsites * (uint64_t)d->ndim : 0;
    if (st->ncouplings != want_couplings)
        return latmc_fail(LATMC_ECORRUPT, "%llu couplings where the desc implies "
                          "%llu", (unsigned long long)st->ncouplings,
                          (unsigned long long)want_couplings);
    if (r->truncated || st->ncouplings * sizeof(float) > r->len - r->pos)
        return ckpt_corrupt("truncated");
    st->couplings = r->buf + r->pos;
    r->pos += st->ncouplings * sizeof(float);
    st->has_app = version == CKPT_VERSION_APP_DATA;
    st->app = NULL;
    st->app_size = 0;
    if (version == CKPT_VERSION_CHAIN) {
        const int status3 = ckpt_parse_chain_block(r, d, st);
        if (status3 < 0)
            return status3;
    }
    if (st->has_app) {
        st->app_size = ckpt_get_u64(r);
        if (r->truncated || r->len - r->pos < 8 || st->app_size != r->len - r->pos - 8)
            return ckpt_corrupt("the application-data size does not match the file");
        st->app = r->buf + r->pos;
        r->pos += st->app_size;
    }
    if (r->pos != r->len - 8)
        return ckpt_corrupt("truncated or trailing bytes");
    return LATMC_OK;
}

int ckpt_parse(const unsigned char *p, size_t size, struct ckpt_parsed *out)
{
    uint32_t version = 0;
    int st = check_envelope(p, size, &version);
    if (st < 0)
        return st;
    struct ckpt_reader r = { p, size, CKPT_HEADER_BYTES, false };
    if ((st = ckpt_read_desc(&r, &out->desc)) < 0)
        return st;
    st = latmc_desc_validate(&out->desc, &out->valid, &out->nsites);
    if (st == LATMC_EINVAL) {
        char why[LATMC_ERRMSG_SIZE]; /* the cause, copied before the new message is recorded */
        snprintf(why, sizeof why, "%s", latmc_thread_error());
        return latmc_fail(LATMC_ECORRUPT, "its desc is invalid: %s", why);
    }
    if (st < 0)
        return st;
    return parse_state(&r, &out->valid, out->nsites, version, &out->state);
}

/* The value checks of the model (spin values, couplings) on aligned copies, with no sim:
 * a stand-in holds what the checks read (desc, site count, model). On success *spins and
 * *couplings are the copies (NULL when absent), for the caller to free. */
static int check_values(const struct ckpt_parsed *c, void **spins, float **couplings)
{
    const struct ckpt_state *st = &c->state;
    *spins = NULL;
    *couplings = NULL;
    latmc_sim probe;
    memset(&probe, 0, sizeof probe);
    probe.desc = c->valid;
    probe.nsites = c->nsites;
    probe.model = latmc_model_get(c->valid.model);
    int status = LATMC_OK;
    char why[LATMC_ERRMSG_SIZE];
    if (st->ncouplings) {
        /* Copy out: the bytes may be unaligned for float. */
        float *copy = malloc(st->ncouplings * sizeof(float));
        if (!copy)
            return latmc_fail(LATMC_ENOMEM, "cannot allocate the couplings");
        memcpy(copy, st->couplings, st->ncouplings * sizeof(float));
        for (uint64_t i = 0; i < st->ncouplings && status == LATMC_OK; i++)
            if (!isfinite(copy[i]))
                status = ckpt_corrupt("a coupling is not finite");
        if (status == LATMC_OK && probe.model->check_couplings &&
            probe.model->check_couplings(&probe, copy, (size_t)st->ncouplings,
                                         "in the file") < 0) {
            snprintf(why, sizeof why, "%s", latmc_thread_error());
            status = latmc_fail(LATMC_ECORRUPT, "a coupling is not a value the "
                                "model takes (%s)", why);
        }
        if (status < 0) {
            free(copy);
            return status;
        }
        *couplings = copy;
    }
    if (st->have_config) {
        void *copy = malloc(st->spin_bytes);
        if (!copy) {
            free(*couplings);
            *couplings = NULL;
            return latmc_fail(LATMC_ENOMEM, "cannot allocate the configuration");
        }
        memcpy(copy, st->spins, st->spin_bytes);
        if (probe.model->check_spins(&probe, copy) < 0) {
            snprintf(why, sizeof why, "%s", latmc_thread_error());
            free(copy);
            free(*couplings);
            *couplings = NULL;
            return latmc_fail(LATMC_ECORRUPT, "the configuration holds invalid "
                              "values (%s)", why);
        }
        *spins = copy;
    }
    return LATMC_OK;
}

/* Put a parsed and checked state into a freshly created sim. */
static int apply_state(latmc_sim *sim, const struct ckpt_state *st, void *spins,
                       float *couplings)
{
    int status;
    if (couplings && (status = sim->ops->set_couplings(sim, couplings)) < 0)
        return status;
    if (spins && (status = sim->ops->set_spins(sim, spins)) < 0)
        return status;
    return ckpt_apply_counters(sim, st);
}

int ckpt_apply_counters(latmc_sim *sim, const struct ckpt_state *st)
{
    /* a chain the sim's placement does not run (decisions = 1 on several CUDA devices):
     * refused, rather than continued as another chain */
    int status = latmc_sim_check_chain_param(sim, LATMC_PARAM_DECISIONS,
                                             st->param[LATMC_PARAM_DECISIONS]);
    if (status < 0)
        return status;
    memcpy(sim->param, st->param, sizeof st->param);
    status = latmc_sim_params_changed(sim);
    if (status < 0)
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
    const char *fn = "latmc_sim_deserialize";
    return ckpt_name_file(ckpt_deserialize(ctx, buf, size, NULL, NULL, fn, out), fn, NULL);
}

int latmc_sim_deserialize_on(latmc_ctx *ctx, const void *buf, size_t size,
                             const latmc_sim_desc *where, latmc_sim **out)
{
    const char *fn = "latmc_sim_deserialize_on";
    if (out)
        *out = NULL;
    if (!where)
        return latmc_fail(LATMC_EINVAL, "%s: where is NULL", fn);
    return ckpt_name_file(ckpt_deserialize(ctx, buf, size, NULL, where, fn, out), fn, NULL);
}

/*
 * The placement fields of *where (any accepted struct_size) over the stored desc: where
 * and how the sim runs, never what its chain is (sim.h, latmc_sim_load_on).
 */
static int place(latmc_sim_desc *stored, const latmc_sim_desc *where, const char *fn)
{
    latmc_sim_desc w;
    if (latmc_desc_copy_in(where, &w) < 0) {
        char why[LATMC_ERRMSG_SIZE];
        snprintf(why, sizeof why, "%s", latmc_thread_error());
        return latmc_fail(LATMC_EINVAL, "%s: where: %s", fn, why);
    }
    stored->device = w.device;
    stored->device_index = w.device_index;
    stored->n_threads = w.n_threads;
    stored->n_parts = w.n_parts;
    stored->n_devices = w.n_devices;
    stored->device_list = w.device_list;
    return LATMC_OK;
}

int latmc_sim_deserialize_part(latmc_ctx *ctx, const void *buf, size_t size, int rank,
                               int n_parts, const latmc_transport *transport, latmc_sim **out)
{
    const char *fn = "latmc_sim_deserialize_part";
    const struct ckpt_part_args part = { rank, n_parts, transport };
    /* as latmc_sim_load_part's: n_parts 0 once made an ordinary sim, the transport dropped */
    const int st = ckpt_part_check_args(fn, ctx, buf, "buf", rank, n_parts, transport, out);
    if (st < 0)
        return st;
    return ckpt_name_file(ckpt_deserialize(ctx, buf, size, &part, NULL, fn, out), fn, NULL);
}

/* Every part parses the same bytes, so every check below fails alike on every part; the
 * creation and the state's application are agreed on (lib/part.h). */
int ckpt_deserialize(latmc_ctx *ctx, const void *buf, size_t size,
                     const struct ckpt_part_args *part, const latmc_sim_desc *where,
                     const char *fn, latmc_sim **out)
{
    if (out)
        *out = NULL;
    if (!ctx || !buf || !out)
        return latmc_fail(LATMC_EINVAL, "%s: %s is NULL", fn,
                          !ctx ? "ctx" : !buf ? "buf" : "out");
    struct ckpt_parsed c;
    int st = ckpt_parse(buf, size, &c);
    void *spins = NULL;
    float *couplings = NULL;
    if (st == LATMC_OK)
        st = check_values(&c, &spins, &couplings);
    latmc_sim *sim = NULL;
    if (part) {
        /* a desc the file stores is an ordinary sim's: its n_parts is not stored */
        if (st == LATMC_OK)
            c.desc.n_parts = 0;
        /* a failure so far (one part short of memory) is agreed on there */
        st = latmc_part_create(ctx, &c.desc, part->rank, part->n_parts, part->transport, st,
                               &sim);
        if (st == LATMC_OK) {
            /* every part has the whole configuration from the same bytes */
            st = latmc_part_agree(sim, apply_state(sim, &c.state, spins, couplings));
            if (st < 0) {
                sim->part->tr.release = NULL; /* the caller keeps its transport's user */
                latmc_sim_destroy(&sim);
            }
        }
    } else {
        if (st == LATMC_OK && where)
            st = place(&c.desc, where, fn);
        if (st == LATMC_OK)
            st = latmc_sim_create(ctx, &c.desc, &sim);
        if (st == LATMC_OK && (st = apply_state(sim, &c.state, spins, couplings)) < 0)
            latmc_sim_destroy(&sim);
    }
    free(spins);
    free(couplings);
    *out = sim;
    return st;
}

/* latmc_sim_save and latmc_sim_save_app_data, the whole state on this process. */
static int save_here(latmc_sim *sim, const char *path, const struct app_section *app,
                     const char *fn)
{
    if (!path || !*path)
        return SIM_FAIL(sim, LATMC_EINVAL, "%s: path is %s", fn, !path ? "NULL" : "empty");
    if (app->present && app->size && !app->data)
        return SIM_FAIL(sim, LATMC_EINVAL, "%s: data is NULL and size is %zu", fn, app->size);
    size_t size = 0;
    int st = serialize(sim, app, NULL, 0, &size, fn);
    if (st < 0)
        return st;
    unsigned char *bytes = malloc(size);
    if (!bytes)
        return SIM_FAIL(sim, LATMC_ENOMEM, "%s: cannot allocate %zu bytes for '%s'", fn, size,
                        path);
    st = serialize(sim, app, bytes, size, &size, fn);
    if (st == LATMC_OK && (st = latmc_file_replace(path, bytes, size, fn)) < 0)
        latmc_sim_record_failure(sim, st);
    free(bytes);
    return st;
}

/*
 * A part of a shared lattice (lib/part.h): part 0 writes the file (the same bytes as an
 * ordinary sim's, temp file + fsync + rename) chunk by chunk, gathered from the parts
 * that own the planes (lib/checkpoint_part.c); the status is agreed on every part.
 */
static int save(latmc_sim *sim, const char *path, const struct app_section *app,
                const char *fn)
{
    if (!latmc_part_many(sim))
        return save_here(sim, path, app, fn);
    return ckpt_part_save(sim, path, app, fn);
}

int latmc_sim_save(latmc_sim *sim, const char *path)
{
    if (!sim)
        return latmc_fail(LATMC_EINVAL, "latmc_sim_save: sim is NULL");
    const struct app_section none = { NULL, 0, false };
    return save(sim, path, &none, "latmc_sim_save");
}

int latmc_sim_save_app_data(latmc_sim *sim, const char *path, const void *data, size_t size)
{
    if (!sim)
        return latmc_fail(LATMC_EINVAL, "latmc_sim_save_app_data: sim is NULL");
    const struct app_section app = { data, size, true };
    return save(sim, path, &app, "latmc_sim_save_app_data");
}

/*
 * The size a checkpoint file must have, from its first CKPT_PREFIX_BYTES (the desc and the
 * configuration flag) and, for version 2, its application-data size field: checked
 * before the file is read, so that a large (or sparse) file is read only when its desc
 * vouches for every byte. LATMC_OK with *want, or LATMC_ECORRUPT.
 */
static int implied_file_size(int fd, const unsigned char *prefix, const char *path,
                             const char *fn, uint64_t *want)
{
    struct ckpt_reader r = { prefix, CKPT_PREFIX_BYTES, 8, false };
    uint32_t version = ckpt_get_u32(&r);
    if (!ckpt_known_version(version))
        return unknown_version(version);
    r.pos = CKPT_HEADER_BYTES;
    latmc_sim_desc d, valid;
    int64_t nsites = 0;
    int st = ckpt_read_desc(&r, &d);
    if (st < 0)
        return st;
    if (latmc_desc_validate(&d, &valid, &nsites) < 0) {
        char why[LATMC_ERRMSG_SIZE];
        snprintf(why, sizeof why, "%s", latmc_thread_error());
        return latmc_fail(LATMC_ECORRUPT, "its desc is invalid: %s", why);
    }
    if (ckpt_get_u32(&r) != CKPT_PARAMS)
        return ckpt_corrupt("unexpected number of parameters");
    r.pos = CKPT_PREFIX_BYTES - 12;
    uint32_t have_config = ckpt_get_u32(&r);
    const struct latmc_model_def *model = latmc_model_get(valid.model);
    const uint64_t spins = have_config == 1 ? (uint64_t)nsites * (uint64_t)valid.replicas *
                                                  model->site_bytes(&valid) : 0;
    const uint64_t couplings = latmc_model_has_couplings(model, &valid)
                                   ? (uint64_t)nsites * (uint64_t)valid.ndim * sizeof(float) : 0;
    *want = CKPT_PREFIX_BYTES + spins + 8 + couplings; /* the end of the couplings */
    bool app_section = version == CKPT_VERSION_APP_DATA;
    if (version == CKPT_VERSION_CHAIN) {
        unsigned char block[CKPT_CHAIN_BYTES];
        if ((st = latmc_file_read_at(fd, block, sizeof block, *want, path, fn)) < 0)
            return st == LATMC_ECORRUPT ? ckpt_corrupt("truncated") : st;
        struct ckpt_reader b = { block, sizeof block, 0, false };
        const uint32_t keys = ckpt_get_u32(&b);
        if (keys != CKPT_PARAMS_V3)
            return latmc_fail(LATMC_ECORRUPT, "the chain block holds parameters "
                              "up to key %u; this format version has them up to %d", keys,
                              CKPT_PARAMS_V3);
        b.pos = sizeof block - 4;
        const uint32_t flag = ckpt_get_u32(&b);
        if (flag > 1)
            return latmc_fail(LATMC_ECORRUPT, "the application-data flag of the "
                              "chain block is %u (0 or 1)", flag);
        app_section = flag == 1;
        *want += sizeof block;
    }
    if (app_section) {
        unsigned char field[8];
        if ((st = latmc_file_read_at(fd, field, 8, *want, path, fn)) < 0)
            return st == LATMC_ECORRUPT ? ckpt_corrupt("truncated") : st;
        struct ckpt_reader f = { field, 8, 0, false };
        uint64_t app = ckpt_get_u64(&f);
        if (app > CKPT_MAX_BYTES)
            return ckpt_corrupt("the application-data size does not match the file");
        *want += 8 + app;
    }
    *want += 8; /* the checksum */
    return LATMC_OK;
}

/* checkpoint_format.h: a checkpoint file opened with its sizes checked. */
int ckpt_open_file(const char *path, const char *fn, int *fd_out, uint64_t *size)
{
    int fd = -1;
    uint64_t file_size = 0;
    *fd_out = -1;
    *size = 0;
    int st = latmc_file_open_regular(path, fn, &fd, &file_size);
    if (st < 0)
        return st;
    unsigned char head[CKPT_HEADER_BYTES];
    if (file_size >= sizeof head) {
        if ((st = latmc_file_read_at(fd, head, sizeof head, 0, path, fn)) < 0)
            goto done;
        struct ckpt_reader r = { head, sizeof head, 16, false };
        uint64_t declared = ckpt_get_u64(&r);
        if (memcmp(head, CKPT_MAGIC, 8) != 0) {
            st = ckpt_corrupt("not a liblatmc checkpoint (bad magic)");
            goto done;
        }
        if (declared != file_size || file_size > CKPT_MAX_BYTES) {
            st = latmc_fail(LATMC_ECORRUPT, "%llu bytes, its header declares %llu "
                            "(truncated, extended or damaged)%s",
                            (unsigned long long)file_size, (unsigned long long)declared,
                            file_size > CKPT_MAX_BYTES ? "; beyond the format's limit" : "");
            goto done;
        }
    }
    if (file_size >= CKPT_PREFIX_BYTES + 8) {
        unsigned char prefix[CKPT_PREFIX_BYTES];
        uint64_t want = 0;
        if ((st = latmc_file_read_at(fd, prefix, sizeof prefix, 0, path, fn)) < 0 ||
            (st = implied_file_size(fd, prefix, path, fn, &want)) < 0)
            goto done;
        if (want != file_size) {
            st = latmc_fail(LATMC_ECORRUPT, "%llu bytes, where its desc implies %llu "
                            "(truncated, extended or damaged)", (unsigned long long)file_size,
                            (unsigned long long)want);
            goto done;
        }
    }
    *fd_out = fd;
    *size = file_size;
    return LATMC_OK;
done:
    close(fd);
    return st;
}

/*
 * A checkpoint file into memory. Only a regular file is read; its header must declare
 * the file's size, which must be within the format's limit, before anything of that size
 * is allocated. `fn` names the caller in messages.
 */
int ckpt_read_file(const char *path, const char *fn, unsigned char **bytes, size_t *size)
{
    *bytes = NULL;
    *size = 0;
    int fd = -1;
    uint64_t file_size = 0;
    int st = ckpt_open_file(path, fn, &fd, &file_size);
    if (st < 0)
        return st;
    *bytes = malloc(file_size ? (size_t)file_size : 1);
    if (!*bytes) {
        st = latmc_fail(LATMC_ENOMEM, "%s: cannot allocate %llu bytes to read '%s'", fn,
                        (unsigned long long)file_size, path);
        goto done;
    }
    if ((st = latmc_file_read_at(fd, *bytes, (size_t)file_size, 0, path, fn)) < 0) {
        free(*bytes);
        *bytes = NULL;
        goto done;
    }
    *size = (size_t)file_size;
done:
    close(fd);
    return st;
}

int ckpt_name_file(int status, const char *fn, const char *path)
{
    if (status >= 0)
        return status;
    char why[LATMC_ERRMSG_SIZE];
    snprintf(why, sizeof why, "%s", latmc_thread_error());
    const size_t n = strlen(fn);
    if (strncmp(why, fn, n) == 0 && why[n] == ':')
        return status; /* already says which call (and file) */
    if (path)
        return latmc_fail(status, "%s: '%s': %s", fn, path, why);
    return latmc_fail(status, "%s: %s", fn, why);
}

/* latmc_sim_load and latmc_sim_load_on (where NULL: the stored placement). */
static int load(latmc_ctx *ctx, const char *path, const latmc_sim_desc *where, const char *fn,
                latmc_sim **out)
{
    if (out)
        *out = NULL;
    if (!ctx || !path || !out)
        return latmc_fail(LATMC_EINVAL, "%s: %s is NULL", fn,
                          !ctx ? "ctx" : !path ? "path" : "out");
    unsigned char *bytes = NULL;
    size_t len = 0;
    int st = ckpt_read_file(path, fn, &bytes, &len);
    if (st == LATMC_OK)
        st = ckpt_deserialize(ctx, bytes, len, NULL, where, fn, out);
    free(bytes);
    if (st < 0) {
        st = ckpt_name_file(st, fn, path);
        latmc_log(ctx, LATMC_LOG_ERROR, "%s", latmc_thread_error());
    }
    return st;
}

int latmc_sim_load(latmc_ctx *ctx, const char *path, latmc_sim **out)
{
    return load(ctx, path, NULL, "latmc_sim_load", out);
}

int latmc_sim_load_on(latmc_ctx *ctx, const char *path, const latmc_sim_desc *where,
                      latmc_sim **out)
{
    if (out)
        *out = NULL;
    if (!where)
        return latmc_fail(LATMC_EINVAL, "latmc_sim_load_on: where is NULL");
    return load(ctx, path, where, "latmc_sim_load_on", out);
}

int latmc_checkpoint_app_data(const char *path, void *buf, size_t capacity, size_t *size)
{
    const char *fn = "latmc_checkpoint_app_data";
    if (size)
        *size = 0;
    if (!path || !size)
        return latmc_fail(LATMC_EINVAL, "%s: %s is NULL", fn, !path ? "path" : "size");
    /* streamed: a rank of a shared lattice asks for it too (lib/checkpoint_part.c) */
    return ckpt_file_app_data(path, fn, buf, capacity, size);
}
