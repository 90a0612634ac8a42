/*
 * Ensembles: creation, member addressing and seeds, temperatures, parameters, spins and
 * observables (include/latmc/ens.h, doc/ensembles.md). Execution lives in ens_exec.c,
 * exchanges in ens_exchange.c, overlaps in ens_overlap.c, files in ens_io.c.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "desc.h"
#include "cluster_sweep.h"
#include "ens_internal.h"
#include "model.h"
#include "params.h"
#include "rng_streams.h"
#include "thread_probe.h"

int latmc_ens_record_failure(const latmc_ens *cens, int status)
{
    latmc_ens *ens = (latmc_ens *)cens; /* the message buffer is mutable state */
    snprintf(ens->errmsg, sizeof ens->errmsg, "%s", latmc_thread_error());
    latmc_log(ens->ctx, status == LATMC_ENOMEM || status == LATMC_EIO ||
                        status == LATMC_ECORRUPT || status == LATMC_EDEVICE
                            ? LATMC_LOG_ERROR : LATMC_LOG_DEBUG, "%s", ens->errmsg);
    return status;
}

/* Draws 0 and 1 of block `block` of (key, stream, sweep 0, phase 0, sub 0) as one 64-bit
 * number: a hash of (key, block) that is documented and the same everywhere. */
static uint64_t derive(uint64_t key, uint32_t stream, uint64_t block)
{
    const latmc_philox_ctr r =
        latmc_rng_name_block(key, latmc_rng_ens_name(latmc_rng_stream(stream, 0), 0), block);
    return (uint64_t)r.v[0] | (uint64_t)r.v[1] << 32;
}

uint64_t latmc_ens_member_seed(uint64_t seed, uint64_t member)
{
    return derive(seed, LATMC_STREAM_ENS_MEMBER_SEED, member);
}

uint64_t latmc_ens_sample_coupling_seed(uint64_t coupling_seed, uint64_t sample)
{
    return derive(coupling_seed, LATMC_STREAM_ENS_SAMPLE_DISORDER, sample);
}

/* The layout of 0.2: the size the symbol latmc_ens_layout_init fills forever. */
#define LAYOUT_SIZE_V02 sizeof(latmc_ens_layout)

int latmc_ens_layout_init_size(latmc_ens_layout *l, size_t size)
{
    if (!l)
        return latmc_fail(LATMC_EINVAL, "latmc_ens_layout_init_size: layout is NULL");
    if (size < sizeof *l || size > LATMC_STRUCT_SIZE_MAX)
        return latmc_fail(LATMC_EINVAL, "latmc_ens_layout_init_size: size %zu is no version's "
                          "latmc_ens_layout (%zu, or larger up to %u for a newer header): pass "
                          "sizeof(latmc_ens_layout)", size, sizeof *l, LATMC_STRUCT_SIZE_MAX);
    memset(l, 0, size);
    l->struct_size = (uint32_t)size;
    l->n_samples = l->n_temperatures = l->n_replicas = 1;
    return LATMC_OK;
}

/* The symbol (ens.h); the parentheses keep the header's macro from expanding here. */
void(latmc_ens_layout_init)(latmc_ens_layout *l)
{
    if (l)
        (void)latmc_ens_layout_init_size(l, LAYOUT_SIZE_V02);
}

/* Bytes one member will take, generously: the host configuration three times (backend
 * layouts, host copies), its couplings twice, and the sim's fixed part. */
static double member_bytes(const latmc_sim_desc *d, int64_t nsites)
{
    const struct latmc_model_def *model = latmc_model_get(d->model);
    double per_site = 3.0 * (double)model->site_bytes(d) * d->replicas;
    if (latmc_model_has_couplings(model, d))
        per_site += 2.0 * 4.0 * d->ndim;
    return per_site * (double)nsites + 16384.0;
}

static double physical_memory(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 ? (double)pages * (double)page : 1e18;
}

static void ens_free(latmc_ens *e)
{
    if (!e)
        return;
    /* a backend frees what it keeps for the members as a batch with their first member
     * (lib/module_abi.h, ABI 20): destroyed first */
    if (e->members)
        for (int m = 0; m < e->n_members; m++)
            latmc_sim_destroy(&e->members[m]);
    free(e->members);
    free(e->beta);
    free(e->member_at);
    free(e->temp_of);
    free(e->applied_at);
    free(e->applied_temp);
    free(e->pair_accepted);
    free(e->pair_attempted);
    free(e->rt_dir);
    free(e->rt_start);
    free(e->scratch);
    free(e->status);
    free(e->counts);
    free(e->pending);
    free(e->batch_sums);
    latmc_ens_swaps_free(&e->swaps);
    latmc_ens_lanes_free(e);
    if (e->ctx)
        latmc_ctx_unref(e->ctx);
    free(e);
}

int latmc_ens_alloc(latmc_ctx *ctx, const latmc_sim_desc *member, const latmc_ens_layout *layout,
                    latmc_ens **out)
{
    *out = NULL;
    if (layout->struct_size < sizeof(latmc_ens_layout))
        return latmc_fail(LATMC_EINVAL, "latmc_ens_create: layout.struct_size %u is too small "
                          "(fill it with latmc_ens_layout_init)", layout->struct_size);
    if (layout->struct_size > LATMC_STRUCT_SIZE_MAX)
        return latmc_fail(LATMC_EINVAL, "latmc_ens_create: layout.struct_size %u is larger "
                          "than any layout can be (at most %u)", layout->struct_size,
                          LATMC_STRUCT_SIZE_MAX);
    /* a newer caller's layout: accepted where every field this version does not know is 0 */
    const unsigned char *extra = (const unsigned char *)layout + sizeof(latmc_ens_layout);
    for (size_t i = 0; i < layout->struct_size - sizeof(latmc_ens_layout); i++)
        if (extra[i] != 0)
            return latmc_fail(LATMC_EUNSUPPORTED, "latmc_ens_create: layout sets fields this "
                              "version of liblatmc does not know (byte %zu past its end is "
                              "non-zero)", i);
    const int counts[3] = { layout->n_samples, layout->n_temperatures, layout->n_replicas };
    const char *names[3] = { "n_samples", "n_temperatures", "n_replicas" };
    for (int i = 0; i < 3; i++)
        if (counts[i] < 1)
            return latmc_fail(LATMC_EINVAL, "latmc_ens_create: layout.%s = %d, must be >= 1",
                              names[i], counts[i]);
    const double members = (double)counts[0] * counts[1] * counts[2];
    if (members > LATMC_ENS_MAX_MEMBERS)
        return latmc_fail(LATMC_EINVAL, "latmc_ens_create: %.0f members; at most %d",
                          members, LATMC_ENS_MAX_MEMBERS);
    if (layout->n_threads < 0 || layout->n_threads > 4096)
        return latmc_fail(LATMC_EINVAL, "latmc_ens_create: layout.n_threads = %d is not in "
                          "0..4096", layout->n_threads);
    latmc_sim_desc d;
    int64_t nsites = 0;
    int st = latmc_desc_validate(member, &d, &nsites);
    if (st < 0)
        return st;
    /* the team over members, as latmc_sim_create checks a sim's (the OpenMP runtime
     * would end the process where the system refuses a thread) */
    if ((st = latmc_thread_probe(latmc_ens_resolve_threads(layout->n_threads))) < 0) {
        char why[LATMC_ERRMSG_SIZE];
        snprintf(why, sizeof why, "%s", latmc_thread_error());
        return latmc_fail(st, "latmc_ens_create: layout.%s", why);
    }
    if (d.replicas != 1)
        return latmc_fail(LATMC_EUNSUPPORTED, "latmc_ens_create: member desc.replicas = %d; "
                          "an ensemble's replicas are its layout.n_replicas (members have 1)",
                          d.replicas);
    /* Refuse before allocating anything what cannot fit: a huge layout must not first
     * create thousands of members and then fail half way. */
    const double need = members * member_bytes(&d, nsites), have = physical_memory();
    if (need > have)
        return latmc_fail(LATMC_ENOMEM, "latmc_ens_create: %.0f members of %lld sites need "
                          "about %.3g GB, more than this machine's %.3g GB of memory",
                          members, (long long)nsites, need / 1e9, have / 1e9);
    latmc_ens *e = calloc(1, sizeof *e);
    if (!e)
        return latmc_fail(LATMC_ENOMEM, "latmc_ens_create: cannot allocate the ensemble");
    const int M = (int)members, nT = layout->n_temperatures;
    e->n_members = M;
    e->nsites = nsites;
    e->desc = d;
    e->layout = *layout;
    e->layout.n_threads = latmc_ens_resolve_threads(layout->n_threads);
    e->ladder_key = LATMC_PARAM_BETA;
    e->members = calloc((size_t)M, sizeof *e->members);
    e->beta = calloc((size_t)nT, sizeof *e->beta);
    e->member_at = calloc((size_t)M, sizeof *e->member_at);
    e->temp_of = calloc((size_t)M, sizeof *e->temp_of);
    e->pair_accepted = calloc((size_t)nT, sizeof *e->pair_accepted);
    e->pair_attempted = calloc((size_t)nT, sizeof *e->pair_attempted);
    e->rt_dir = calloc((size_t)M, sizeof *e->rt_dir);
    e->rt_start = calloc((size_t)M, sizeof *e->rt_start);
    e->scratch = calloc((size_t)M, sizeof *e->scratch);
    e->status = calloc((size_t)M, sizeof *e->status);
    if (!e->members || !e->beta || !e->member_at || !e->temp_of || !e->pair_accepted ||
        !e->pair_attempted || !e->rt_dir || !e->rt_start || !e->scratch || !e->status) {
        ens_free(e);
        return latmc_fail(LATMC_ENOMEM, "latmc_ens_create: cannot allocate the tables of %d "
                          "members", M);
    }
    latmc_ctx_ref(ctx);
    e->ctx = ctx;
    latmc_ens_reset_map(e);
    *out = e;
    return LATMC_OK;
}

void latmc_ens_reset_map(latmc_ens *e)
{
    for (int m = 0; m < e->n_members; m++) {
        const int t = (m / e->layout.n_replicas) % e->layout.n_temperatures;
        e->temp_of[m] = t;
        e->member_at[m] = m; /* home: slot index == member index */
        e->rt_dir[m] = t == 0 ? 1 : 0;
        e->rt_start[m] = e->sweeps;
    }
    memset(e->pair_accepted, 0, (size_t)e->layout.n_temperatures * sizeof *e->pair_accepted);
    memset(e->pair_attempted, 0, (size_t)e->layout.n_temperatures * sizeof *e->pair_attempted);
    e->rt_count = e->rt_sum_sweeps = 0;
}

int latmc_ens_member_desc(const latmc_ens *e, int m, latmc_sim_desc *out)
{
    if (!e)
        return latmc_fail(LATMC_EINVAL, "latmc_ens_member_desc: ens is NULL");
    if (!out || m < 0 || m >= e->n_members)
        return ENS_FAIL(e, LATMC_EINVAL, "latmc_ens_member_desc: %s", !out ? "out is NULL"
                        : "member index out of range");
    latmc_sim_desc d = e->desc;
    d.seed = latmc_ens_member_seed(e->layout.seed, (uint64_t)m);
    d.coupling_seed = latmc_ens_sample_coupling_seed(e->layout.coupling_seed,
                                                     (uint64_t)ens_sample_of(e, m));
    d.n_threads = 1;
    /* a caller built against an older header gets its own struct's fields only */
    latmc_desc_copy_out(&d, out);
    return LATMC_OK;
}

/* Whether device AUTO puts a sim of member 0's desc on a backend that batches its cluster
 * steps (lib/cluster_steps.c; latmc_plan_step_caps: LATMC_STEP_CAP_BATCH): a sim made and
 * destroyed to ask. A failure to make it answers no (the members then go to the CPU,
 * whose own creation reports what fails there). What the probe records (its failure, or
 * AUTO's CUDA failure before it falls back to the CPU) is its own: the thread's last error
 * is given back as it was, so that a create or load that then succeeds leaves none. */
static bool auto_batches_clusters(latmc_ens *e)
{
    struct latmc_error_mark mark;
    latmc_error_mark(&mark);
    latmc_sim_desc d = { .struct_size = sizeof d };
    latmc_ens_member_desc(e, 0, &d);
    latmc_sim *sim = NULL;
    bool batched = false;
    if (latmc_sim_create(e->ctx, &d, &sim) == LATMC_OK) {
        batched = sim->ops != &latmc_cpu_backend_ops && latmc_cluster_as_steps(sim) &&
                  (latmc_plan_step_caps(sim) & LATMC_STEP_CAP_BATCH) != 0;
        latmc_sim_destroy(&sim);
    }
    latmc_error_restore(&mark); /* the probe's failure is not the caller's */
    return batched;
}

bool latmc_ens_member_placed(latmc_ens *e, int m, latmc_sim_desc *out)
{
    latmc_ens_member_desc(e, m, out);
    if (out->device != LATMC_DEVICE_AUTO || !latmc_cluster_algorithm(out->algorithm))
        return false;
    if (!e->cluster_auto)
        e->cluster_auto = auto_batches_clusters(e) ? 1 : -1;
    if (e->cluster_auto > 0)
        return false;
    out->device = LATMC_DEVICE_CPU;
    return true;
}

int latmc_ens_create(latmc_ctx *ctx, const latmc_sim_desc *member, const latmc_ens_layout *layout,
                     latmc_ens **out)
{
    if (out)
        *out = NULL;
    if (!ctx || !member || !layout || !out)
        return latmc_fail(LATMC_EINVAL, "latmc_ens_create: %s is NULL", !ctx ? "ctx"
                          : !member ? "member" : !layout ? "layout" : "out");
    latmc_ens *e = NULL;
    int st = latmc_ens_alloc(ctx, member, layout, &e);
    if (st < 0)
        return st;
    for (int m = 0; m < e->n_members && st == LATMC_OK; m++) {
        latmc_sim_desc d = { .struct_size = sizeof d };
        latmc_ens_member_placed(e, m, &d); /* AUTO: cluster members where batched, or the CPU */
        st = latmc_sim_create(ctx, &d, &e->members[m]);
        if (st < 0) {
            char why[LATMC_ERRMSG_SIZE];
            snprintf(why, sizeof why, "%s", latmc_thread_error());
            latmc_fail(st, "latmc_ens_create: member %d: %s", m, why);
        }
    }
    if (st < 0) {
        ens_free(e);
        return st;
    }
    e->desc.n_threads = 1;
    *out = e;
    return LATMC_OK;
}

void latmc_ens_destroy(latmc_ens **pe)
{
    if (!pe || !*pe)
        return;
    ens_free(*pe);
    *pe = NULL;
}

int latmc_ens_get_layout(const latmc_ens *e, latmc_ens_layout *out)
{
    if (!e)
        return latmc_fail(LATMC_EINVAL, "latmc_ens_get_layout: ens is NULL");
    if (!out)
        return ENS_FAIL(e, LATMC_EINVAL, "latmc_ens_get_layout: out is NULL");
    /* The caller's struct is as large as its struct_size says: never write past it (a
     * later library's larger layout into this header's struct), nor into a struct that
     * does not say (this version's size or more, as latmc_ens_layout_init() sets it). */
    if (out->struct_size < sizeof *out || out->struct_size > LATMC_STRUCT_SIZE_MAX)
        return ENS_FAIL(e, LATMC_EINVAL, "latmc_ens_get_layout: out->struct_size = %u, this "
                        "library's latmc_ens_layout takes %zu (at most %u): fill it with "
                        "latmc_ens_layout_init() first", (unsigned)out->struct_size,
                        sizeof *out, LATMC_STRUCT_SIZE_MAX);
    const uint32_t size = out->struct_size;
    *out = e->layout;
    out->struct_size = size; /* the fields past this version's, if any, stay the caller's */
    return LATMC_OK;
}

static int check_coords(const latmc_ens *e, const char *fn, int s, int t, int r, const void *out)
{
    if (!out)
        return ENS_FAIL(e, LATMC_EINVAL, "%s: out is NULL", fn);
    if (s < 0 || s >= e->layout.n_samples || t < 0 || t >= e->layout.n_temperatures ||
        r < 0 || r >= e->layout.n_replicas)
        return ENS_FAIL(e, LATMC_EINVAL, "%s: (sample %d, temperature %d, replica %d) is "
                        "outside %d x %d x %d", fn, s, t, r, e->layout.n_samples,
                        e->layout.n_temperatures, e->layout.n_replicas);
    return LATMC_OK;
}

int latmc_ens_member_index(const latmc_ens *e, int s, int slot, int r, int *member)
{
    if (!e)
        return latmc_fail(LATMC_EINVAL, "latmc_ens_member_index: ens is NULL");
    int st = check_coords(e, "latmc_ens_member_index", s, slot, r, member);
    if (st == LATMC_OK)
        *member = ens_slot_index(e, s, slot, r);
    return st;
}

int latmc_ens_member_at(const latmc_ens *e, int s, int t, int r, int *member)
{
    if (!e)
        return latmc_fail(LATMC_EINVAL, "latmc_ens_member_at: ens is NULL");
    int st = check_coords(e, "latmc_ens_member_at", s, t, r, member);
    if (st == LATMC_OK) /* a cache fill: e is logically const */
        st = latmc_ens_sync_map((latmc_ens *)e);
    if (st == LATMC_OK)
        *member = e->member_at[ens_slot_index(e, s, t, r)];
    return st;
}

static int check_member(const latmc_ens *e, const char *fn, int m)
{
    if (m < 0 || m >= e->n_members)
        return ENS_FAIL(e, LATMC_EINVAL, "%s: member %d is not in 0..%d", fn, m,
                        e->n_members - 1);
    return LATMC_OK;
}

int latmc_ens_temperature_of(const latmc_ens *e, int m, int *t)
{
    if (!e)
        return latmc_fail(LATMC_EINVAL, "latmc_ens_temperature_of: ens is NULL");
    if (!t)
        return ENS_FAIL(e, LATMC_EINVAL, "latmc_ens_temperature_of: t is NULL");
    int st = check_member(e, "latmc_ens_temperature_of", m);
    if (st == LATMC_OK) /* a cache fill: e is logically const */
        st = latmc_ens_sync_map((latmc_ens *)e);
    if (st == LATMC_OK)
        *t = e->temp_of[m];
    return st;
}

/* The parameter a ladder may set, and the observable its exchange needs (ens_exchange.c):
 * beta with the energy; phi^4's mu2 with sum phi^2. */
static bool ladder_key_ok(const latmc_ens *e, int key)
{
    const struct latmc_model_def *model = e->members[0]->model;
    if (key == LATMC_PARAM_BETA)
        return (model->params & (1u << LATMC_PARAM_BETA)) != 0;
    return key == LATMC_PARAM_MU2 && (model->params & (1u << LATMC_PARAM_MU2)) &&
           (model->observables & (1u << LATMC_OBS_PHI2));
}

static int set_ladder(latmc_ens *e, const char *fn, int key, const double *v, int n)
{
    const char *name = key == LATMC_PARAM_BETA ? "beta" : "mu2";
    if (!v)
        return ENS_FAIL(e, LATMC_EINVAL, "%s: values is NULL", fn);
    if (key != LATMC_PARAM_BETA && key != LATMC_PARAM_MU2)
        return ENS_FAIL(e, LATMC_EINVAL, "%s: key %d is not LATMC_PARAM_BETA or "
                        "LATMC_PARAM_MU2", fn, key);
    if (!ladder_key_ok(e, key))
        return ENS_FAIL(e, LATMC_EUNSUPPORTED, "%s: the %s model has no %s", fn,
                        e->members[0]->model->name, name);
    if (n != e->layout.n_temperatures)
        return ENS_FAIL(e, LATMC_EINVAL, "%s: %d values for %d temperatures", fn, n,
                        e->layout.n_temperatures);
    for (int t = 0; t < n; t++)
        if (!isfinite(v[t]) || latmc_param_check(key, v[t]) < 0)
            return ENS_FAIL(e, LATMC_EINVAL, "%s: %s[%d] = %g is not a finite value %s", fn,
                            name, t, v[t], key == LATMC_PARAM_BETA ? ">= 0"
                                                                   : "in [-1e100, 1e100]");
    if (n > 1) {
        const bool up = v[1] > v[0];
        for (int t = 0; t + 1 < n; t++)
            if (up ? !(v[t + 1] > v[t]) : !(v[t + 1] < v[t]))
                return ENS_FAIL(e, LATMC_EINVAL, "%s: %s[%d] = %g and %s[%d] = %g break the "
                                "strict %s order", fn, name, t, v[t], name, t + 1, v[t + 1],
                                up ? "increasing" : "decreasing");
    }
    const int st = latmc_ens_sync(e); /* the members' parameters where the map says */
    if (st < 0)
        return st;
    memcpy(e->beta, v, (size_t)n * sizeof *v);
    e->have_temps = true;
    e->ladder_key = key;
    latmc_ens_reset_map(e);
    latmc_ens_lanes_params_changed(e, -1);
    for (int m = 0; m < e->n_members; m++)
        latmc_sim_set_param(e->members[m], key, v[e->temp_of[m]]);
    return LATMC_OK;
}

int latmc_ens_set_temperatures(latmc_ens *e, const double *beta, int n)
{
    if (!e)
        return latmc_fail(LATMC_EINVAL, "latmc_ens_set_temperatures: ens is NULL");
    return set_ladder(e, "latmc_ens_set_temperatures", LATMC_PARAM_BETA, beta, n);
}

int latmc_ens_set_ladder(latmc_ens *e, int key, const double *values, int n)
{
    if (!e)
        return latmc_fail(LATMC_EINVAL, "latmc_ens_set_ladder: ens is NULL");
    return set_ladder(e, "latmc_ens_set_ladder", key, values, n);
}

int latmc_ens_get_ladder(const latmc_ens *e, int *key, double *values, int n)
{
    if (!e)
        return latmc_fail(LATMC_EINVAL, "latmc_ens_get_ladder: ens is NULL");
    if (!key || !values || n != e->layout.n_temperatures)
        return ENS_FAIL(e, LATMC_EINVAL, "latmc_ens_get_ladder: %s", !key || !values
                        ? "a NULL argument" : "n is not n_temperatures");
    *key = e->ladder_key;
    memcpy(values, e->beta, (size_t)n * sizeof *values);
    return LATMC_OK;
}

int latmc_ens_get_temperatures(const latmc_ens *e, double *beta, int n)
{
    if (!e)
        return latmc_fail(LATMC_EINVAL, "latmc_ens_get_temperatures: ens is NULL");
    if (!beta || n != e->layout.n_temperatures)
        return ENS_FAIL(e, LATMC_EINVAL, "latmc_ens_get_temperatures: %s", !beta
                        ? "beta is NULL" : "n is not n_temperatures");
    memcpy(beta, e->beta, (size_t)n * sizeof *beta);
    return LATMC_OK;
}

int latmc_ens_set_param(latmc_ens *e, int key, double value)
{
    if (!e)
        return latmc_fail(LATMC_EINVAL, "latmc_ens_set_param: ens is NULL");
    if (key == LATMC_PARAM_BETA)
        return ENS_FAIL(e, LATMC_EINVAL, "latmc_ens_set_param: beta is set per temperature "
                        "(latmc_ens_set_temperatures)");
    if (e->have_temps && key == e->ladder_key)
        return ENS_FAIL(e, LATMC_EINVAL, "latmc_ens_set_param: mu2 is set per temperature "
                        "by the ladder (latmc_ens_set_ladder)");
    int st = latmc_ens_sync(e); /* the members' parameters where the map says */
    if (st < 0)
        return st;
    /* decisions = 2: the ensemble's chain of member lanes (lib/ens_lanes.c), not a
     * member's value (a sim refuses 2); the members' own value stays as it was */
    if (key == LATMC_PARAM_DECISIONS && value == 2.0) {
        if ((st = latmc_ens_lanes_check(e, "latmc_ens_set_param")) < 0)
            return latmc_ens_record_failure(e, st);
        e->lanes = true;
        return LATMC_OK;
    }
    /* The first member checks key and value; they are the same for all. */
    latmc_ens_lanes_params_changed(e, -1);
    st = latmc_sim_set_param(e->members[0], key, value);
    if (st < 0)
        return latmc_ens_record_failure(e, st);
    for (int m = 1; m < e->n_members; m++)
        latmc_sim_set_param(e->members[m], key, value);
    if (key == LATMC_PARAM_DECISIONS && e->lanes) {
        /* 0 or 1: each member its own sim's chain again (the members flushed by the sync
         * above; the words freed, the CPU's kept copies with them: the members' own sweeps
         * will change the configurations, and decisions = 2 again packs them anew) */
        e->lanes = false;
        st = latmc_ens_lanes_drop(e);
        if (st == LATMC_OK)
            latmc_ens_lanes_free(e);
        return st;
    }
    return LATMC_OK;
}

int latmc_ens_set_exchange(latmc_ens *e, uint64_t every)
{
    if (!e)
        return latmc_fail(LATMC_EINVAL, "latmc_ens_set_exchange: ens is NULL");
    if (every > 0 && e->layout.n_temperatures < 2)
        return ENS_FAIL(e, LATMC_EINVAL, "latmc_ens_set_exchange: exchanges need at least two "
                        "temperatures (the layout has %d)", e->layout.n_temperatures);
    if (every > 0 && !e->have_temps)
        return ENS_FAIL(e, LATMC_ESTATE, "latmc_ens_set_exchange: set the temperatures first "
                        "(latmc_ens_set_temperatures)");
    e->every = every;
    return LATMC_OK;
}

int latmc_ens_get_exchange(const latmc_ens *e, uint64_t *every)
{
    if (!e || !every)
        return latmc_fail(LATMC_EINVAL, "latmc_ens_get_exchange: %s is NULL", !e ? "ens" : "every");
    *every = e->every;
    return LATMC_OK;
}

int latmc_ens_init_spins(latmc_ens *e, int how)
{
    if (!e)
        return latmc_fail(LATMC_EINVAL, "latmc_ens_init_spins: ens is NULL");
    /* the members as the map says, before they change; the member lanes' words, flushed
     * by the sync, forgotten before anything is written (the next sweep packs again) */
    int sync = latmc_ens_sync(e);
    if (sync == LATMC_OK)
        sync = latmc_ens_lanes_drop(e);
    if (sync < 0)
        return sync;
    for (int m = 0; m < e->n_members; m++) {
        int st = latmc_sim_init_spins(e->members[m], how);
        if (st < 0)
            return ENS_FAIL(e, st, "latmc_ens_init_spins: member %d: %s", m,
                            latmc_sim_last_error(e->members[m]));
    }
    return LATMC_OK;
}

/*
 * The whole call within the counters, refused at once: with rounds the members sweep in
 * periods that would each pass latmc_sim_sweep's check (members in step share one count and
 * nloc; their acceptance counters are checked after each batched call, lib/ens_exec.c
 * batch_done). The acceptance counters, the members' and the pairs', and the round-trip
 * statistics as latmc_sim_sweep's: what the ensemble saves loads again.
 */
static int counters_allow(latmc_ens *e, uint64_t n)
{
    if (!e->members_in_step)
        latmc_ens_exec_settle(e); /* every member's own counts */
    for (int m = 0; m < (e->members_in_step ? 1 : e->n_members); m++) {
        const latmc_sim *sim = e->members[m];
        const uint64_t max = latmc_sim_max_sweeps(sim), done = sim->sweeps + e->lag_sweeps;
        /* the batched calls' counts the ensemble keeps for it (lib/ens_exec.c) */
        const uint64_t attempted =
            sim->attempted + (e->unsettled ? e->pending[e->n_members + m] : 0);
        if (done > max || n > max - done)
            return ENS_FAIL(e, LATMC_EINVAL, "latmc_ens_sweep: member %d: %llu more sweeps "
                            "would pass the %llu sweeps the random-number counters can name",
                            m, (unsigned long long)n, (unsigned long long)max);
        if (attempted > LATMC_SWEEP_MAX_ATTEMPTED)
            return ENS_FAIL(e, LATMC_ESTATE, "latmc_ens_sweep: member %d's acceptance "
                            "counters hold %llu attempted updates, more than 2^62 (its own "
                            "configuration given back by latmc_ens_set_spins empties them)",
                            m, (unsigned long long)attempted);
    }
    for (int t = 0; t + 1 < e->layout.n_temperatures; t++)
        if (e->pair_attempted[t] > LATMC_SWEEP_MAX_ATTEMPTED)
            return ENS_FAIL(e, LATMC_ESTATE, "latmc_ens_sweep: the exchange counters of the "
                            "pair %d, %d hold %llu attempts, more than 2^62 (latmc_ens_set_ladder "
                            "empties them)", t, t + 1,
                            (unsigned long long)e->pair_attempted[t]);
    /* the host's copy of the round trips: where the device runs the rounds it is behind by
     * the trips since the last sync, nowhere near 2^62 more */
    if (e->rt_count > LATMC_SWEEP_MAX_ATTEMPTED || e->rt_sum_sweeps > LATMC_SWEEP_MAX_ATTEMPTED)
        return ENS_FAIL(e, LATMC_ESTATE, "latmc_ens_sweep: the round-trip statistics hold "
                        "%llu trips of %llu sweeps in all, more than 2^62 (latmc_ens_set_ladder "
                        "empties them)", (unsigned long long)e->rt_count,
                        (unsigned long long)e->rt_sum_sweeps);
    return LATMC_OK;
}

int latmc_ens_sweep(latmc_ens *e, uint64_t n)
{
    if (!e)
        return latmc_fail(LATMC_EINVAL, "latmc_ens_sweep: ens is NULL");
    for (int m = 0; m < e->n_members && !e->all_config; m++)
        if (!e->members[m]->have_config)
            return ENS_FAIL(e, LATMC_ESTATE, "latmc_ens_sweep: member %d has no configuration "
                            "yet (latmc_ens_init_spins)", m);
    e->all_config = true; /* have_config never goes back to false */
    const int allowed = counters_allow(e, n);
    if (allowed < 0)
        return allowed;
    /* The device's own rounds where it runs them (lib/ens_temper.c: the batch's, or the
     * member lanes' on their device), else the host's. */
    const int dev = latmc_ens_temper_sweep(e, n);
    if (dev != LATMC_EUNSUPPORTED)
        return dev;
    /* the device's map; the members' configurations stay where the member lanes keep newer
     * ones, and their parameters where the lanes' rounds left them lagging (map_lagging) */
    const int sync = latmc_ens_sync_device_map(e);
    if (sync < 0)
        return sync;
    /* Sweep up to each multiple of `every`, then exchange: the rounds follow the sweep
     * count, so a run split into calls (or across a save) does the same rounds. */
    while (n > 0) {
        uint64_t chunk = n;
        if (e->every > 0) {
            const uint64_t to_round = e->every - e->sweeps % e->every;
            if (to_round < chunk)
                chunk = to_round;
        }
        int st = latmc_ens_exec_sweeps(e, chunk);
        if (st < 0) {
            e->members_in_step = false; /* some members may have swept, others not */
            return st;
        }
        e->sweeps += chunk;
        n -= chunk;
        if (e->every > 0 && e->sweeps % e->every == 0 && (st = latmc_ens_exchange_round(e)) < 0)
            return st;
    }
    return LATMC_OK;
}

int latmc_ens_sweep_count(const latmc_ens *e, uint64_t *count)
{
    if (!e)
        return latmc_fail(LATMC_EINVAL, "latmc_ens_sweep_count: ens is NULL");
    if (!count)
        return ENS_FAIL(e, LATMC_EINVAL, "latmc_ens_sweep_count: count is NULL");
    *count = e->sweeps;
    return LATMC_OK;
}

int latmc_ens_observables(latmc_ens *e, int key, int order, double *values, size_t count)
{
    if (!e)
        return latmc_fail(LATMC_EINVAL, "latmc_ens_observables: ens is NULL");
    if (!values || count != (size_t)e->n_members)
        return ENS_FAIL(e, LATMC_EINVAL, "latmc_ens_observables: %s", !values
                        ? "values is NULL" : "count is not the number of members");
    if (order != LATMC_ENS_BY_MEMBER && order != LATMC_ENS_BY_TEMPERATURE)
        return ENS_FAIL(e, LATMC_EINVAL, "latmc_ens_observables: order %d is not a "
                        "LATMC_ENS_BY_* value", order);
    int st = latmc_ens_sync(e);
    if (st == LATMC_OK)
        st = latmc_ens_exec_observable(e, key, e->scratch);
    if (st < 0)
        return st;
    for (int i = 0; i < e->n_members; i++)
        values[i] = order == LATMC_ENS_BY_MEMBER ? e->scratch[i] : e->scratch[e->member_at[i]];
    return LATMC_OK;
}

int latmc_ens_spins_size(const latmc_ens *e, size_t *bytes)
{
    if (!e)
        return latmc_fail(LATMC_EINVAL, "latmc_ens_spins_size: ens is NULL");
    if (!bytes)
        return ENS_FAIL(e, LATMC_EINVAL, "latmc_ens_spins_size: bytes is NULL");
    return latmc_sim_spins_size(e->members[0], bytes);
}

int latmc_ens_get_spins(latmc_ens *e, int m, void *buf, size_t bytes)
{
    if (!e)
        return latmc_fail(LATMC_EINVAL, "latmc_ens_get_spins: ens is NULL");
    int st = check_member(e, "latmc_ens_get_spins", m);
    if (st == LATMC_OK)
        st = latmc_ens_sync(e);
    if (st == LATMC_OK && (st = latmc_sim_get_spins(e->members[m], buf, bytes)) < 0)
        return latmc_ens_record_failure(e, st);
    return st;
}

int latmc_ens_set_spins(latmc_ens *e, int m, const void *buf, size_t bytes)
{
    if (!e)
        return latmc_fail(LATMC_EINVAL, "latmc_ens_set_spins: ens is NULL");
    int st = check_member(e, "latmc_ens_set_spins", m);
    if (st == LATMC_OK)
        st = latmc_ens_sync(e);
    if (st == LATMC_OK) /* the member lanes' words are forgotten before the member changes */
        st = latmc_ens_lanes_drop(e);
    if (st == LATMC_OK && (st = latmc_sim_set_spins(e->members[m], buf, bytes)) < 0)
        return latmc_ens_record_failure(e, st);
    return st;
}

const char *latmc_ens_last_error(const latmc_ens *e)
{
    return e ? e->errmsg : "ens is NULL";
}
