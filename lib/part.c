/*
 * A sim as one part of a lattice shared by cooperating processes (lib/part.h,
 * include/latmc/part.h): creation with the desc compared across the parts, the agreement on
 * a status, halos, and the collective forms of measuring and of reading and writing the
 * configuration. Every reduction is a sequence of per-plane tiles combined in plane order
 * (model->add_sums), never in the order the parts answer, so the results do not depend on
 * n_parts. Halos go by the transport's exchange, or, where it offers share_halos, in place:
 * the border planes are read straight into buffers the neighbours read, and the exchange
 * is the transport's handshake (sync_halos), the two sets of buffers used in turn.
 */
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "checkpoint_desc.h"
#include "cluster_sweep.h"
#include "desc.h"
#include "model.h"
#include "modes.h"
#include "part.h"
#include "plan.h"
#include "thread_probe.h"

/* The size of a transport built against a header without share_halos and sync_halos. */
#define TRANSPORT_OLD_SIZE offsetof(latmc_transport, share_halos)

/* One part's say in an agreement: its status and message, two counters to add up, and
 * (has_params, before a sweep) its parameters, compared across the parts. */
struct vote {
    int32_t status;
    int32_t has_params;
    uint64_t count[2];
    double param[LATMC_PARAM_MAX + 1];
    char msg[LATMC_ERRMSG_SIZE];
};

/* The planes of one plane-sized layer along the last axis: sites of a plane. */
static int64_t plane_sites(const latmc_sim_desc *d)
{
    int64_t n = 1;
    for (int mu = 0; mu < d->ndim - 1; mu++)
        n *= d->extent[mu];
    return n;
}

/* A transport operation's status; `fails` is latmc_fail_count() before the call (did the
 * operation record a message?). 0 is success; a negative LATMC_E* code is that failure;
 * anything else (a positive value, an unknown negative one) is the transport's bug, an
 * error too: taking +7 for success would run on with buffers the transport never filled. */
static int transport_status(int st, unsigned long fails, const char *what)
{
    if (st == 0)
        return LATMC_OK;
    const bool own = latmc_fail_count() != fails;
    if (st > 0 || !latmc_status_known(st))
        return latmc_fail(LATMC_EBACKEND, "part transport: %s returned %d, neither 0 nor a "
                          "negative liblatmc status", what, st);
    if (own)
        return st;
    return latmc_fail(st, "part transport: %s failed (%s)", what, latmc_strerror(st));
}

#define TRANSPORT(st, what, call)                                                           \
    do {                                                                                    \
        const unsigned long fails_ = latmc_fail_count();                                    \
        (st) = transport_status((call), fails_, (what));                                    \
    } while (0)

int latmc_part_gather(struct latmc_part *part, const char *what, int root, const void *mine,
                      void *all, const size_t *bytes)
{
    int st;
    TRANSPORT(st, what, part->tr.gather(part->tr.user, root, mine, all, bytes));
    return st;
}

int latmc_part_broadcast(struct latmc_part *part, const char *what, int root, void *buf,
                         size_t bytes)
{
    int st;
    TRANSPORT(st, what, part->tr.broadcast(part->tr.user, root, buf, bytes));
    return st;
}

int latmc_record_failure(int status, const char *message)
{
    if (status >= 0 || !latmc_status_known(status))
        status = LATMC_EINVAL;
    return latmc_fail(status, "%s", message ? message : "(no message)");
}

/*
 * The parameters of every part against part 0's, bit for bit (set_param is local: a part
 * that set another beta would run a chain no one asked for). The same verdict and message
 * on every part, from the same gathered votes.
 */
static int compare_params(const struct vote *all, int n)
{
    for (int p = 1; p < n; p++)
        for (int k = 0; k <= LATMC_PARAM_MAX; k++) {
            if (!all[p].has_params || !all[0].has_params)
                return latmc_fail(LATMC_EBACKEND, "part transport: part %d of %d made another "
                                  "call than part 0 (a sweep on some parts only)", p, n);
            if (memcmp(&all[p].param[k], &all[0].param[k], sizeof all[0].param[k]) != 0) {
                const char *name = latmc_param_name(k);
                char a[32], b[32]; /* short, unless only the last digits differ */
                snprintf(a, sizeof a, "%.15g", all[p].param[k]);
                snprintf(b, sizeof b, "%.15g", all[0].param[k]);
                if (strcmp(a, b) == 0) {
                    snprintf(a, sizeof a, "%.17g", all[p].param[k]);
                    snprintf(b, sizeof b, "%.17g", all[0].param[k]);
                }
                return latmc_fail(LATMC_EINVAL, "latmc_sim_sweep: the parameters differ "
                                  "between the parts: part %d of %d has %s = %s, part 0 has %s "
                                  "(every part must set the same parameters before a sweep)",
                                  p, n, name ? name : "(internal)", a, b);
            }
        }
    return LATMC_OK;
}

/*
 * The agreement itself, on a part that may not be attached to a sim yet: every part's
 * vote to every part, then the first failure in part order wins; count[] become the sums
 * over the parts, added in part order.
 */
static int agree_part(struct latmc_part *part, int status, uint64_t count[2],
                      const double *params)
{
    const int n = part->n_parts;
    struct vote mine;
    memset(&mine, 0, sizeof mine);
    mine.status = status;
    if (count) {
        mine.count[0] = count[0];
        mine.count[1] = count[1];
    }
    if (params) {
        mine.has_params = 1;
        memcpy(mine.param, params, sizeof mine.param);
    }
    if (status < 0)
        snprintf(mine.msg, sizeof mine.msg, "%s", latmc_thread_error());
    /* the votes' room was allocated with the part (latmc_part_create): a part that could
     * not allocate it here would return without taking part, leaving the others waiting */
    struct vote *all = part->votes;
    size_t *bytes = part->vote_bytes;
    /* not zeros: a slot the transport leaves unfilled reads as no valid vote, not as OK */
    memset(all, 0xa5, (size_t)n * sizeof *all);
    for (int p = 0; p < n; p++)
        bytes[p] = sizeof mine;
    int st;
    TRANSPORT(st, "gather (status agreement)", part->tr.gather(part->tr.user, -1, &mine, all, bytes));
    if (st < 0)
        return st;
    /* This part's own vote must be among them: a transport that drops it would let this
     * part go on from a failure it had (a create without a sim), so its status always
     * counts, and a gather that loses it is the transport's failure. */
    if (memcmp(&all[part->rank], &mine, sizeof mine) != 0) {
        if (status < 0)
            return latmc_fail(status, "%s (and the part transport's gather (status agreement) "
                              "did not deliver this part's own vote)", mine.msg);
        return latmc_fail(LATMC_EBACKEND, "part transport: gather (status agreement) did not "
                          "deliver part %d's own vote in its slot", part->rank);
    }
    int verdict = LATMC_OK, who = -1;
    uint64_t sum[2] = { 0, 0 };
    for (int p = 0; p < n; p++) {
        if (all[p].status != 0 && verdict == LATMC_OK) {
            verdict = all[p].status < 0 && latmc_status_known(all[p].status) ? all[p].status
                                                                            : LATMC_EBACKEND;
            who = p;
            if (verdict != all[p].status) /* not a status any part votes: no vote came */
                snprintf(all[p].msg, sizeof all[p].msg, "part transport: gather (status "
                         "agreement) delivered no valid vote from it (status %d)",
                         (int)all[p].status);
        }
        sum[0] += all[p].count[0];
        sum[1] += all[p].count[1];
    }
    if (count) {
        count[0] = sum[0];
        count[1] = sum[1];
    }
    if (verdict == LATMC_OK && params)
        return compare_params(all, n);
    if (verdict < 0 && who != part->rank) {
        all[who].msg[sizeof all[who].msg - 1] = '\0';
        latmc_fail(verdict, "part %d of %d: %s", who, n, all[who].msg);
    } else if (verdict < 0 && status >= 0) {
        latmc_fail(verdict, "part %d of %d failed", who, n);
    }
    return verdict < 0 ? (who == part->rank ? status : verdict) : LATMC_OK;
}

int latmc_part_agree(latmc_sim *sim, int status)
{
    if (!latmc_part_many(sim))
        return status;
    return agree_part(sim->part, status, NULL, NULL);
}

int latmc_part_agree_counts(latmc_sim *sim, int status, uint64_t count[2])
{
    if (!latmc_part_many(sim))
        return status;
    return agree_part(sim->part, status, count, NULL);
}

int latmc_part_exchange(struct latmc_part *part, const char *what, const void *to_lower,
                        const void *to_upper, void *from_lower, void *from_upper, size_t bytes)
{
    int st;
    TRANSPORT(st, what, part->tr.exchange(part->tr.user, to_lower, to_upper, from_lower,
                                          from_upper, bytes));
    return st;
}

int latmc_part_agree_params(latmc_sim *sim, int status)
{
    if (!latmc_part_many(sim))
        return status;
    return agree_part(sim->part, status, NULL, sim->param);
}

void latmc_part_free(struct latmc_part *part)
{
    if (!part)
        return;
    if (part->tr.release)
        part->tr.release(part->tr.user);
    free(part->staged_spins);
    free(part->staged_couplings);
    free(part->first);
    free(part->halo_buf);
    free(part->gather_bytes);
    free(part->votes);
    free(part->vote_bytes);
    free(part->faces);
    free(part);
}

/* ---- halos ---- */

/* Planes [d, d + n) from each end of this part's slab to its neighbours, which keep them
 * d .. d + n - 1 planes beyond their ends; the same from them into this part's. The
 * planes sent are this part's own (checked: slabs thinner than d + n are refused) and
 * neither range wraps inside itself. Returns a transport failure (every part sees it);
 * a local one is latched in *local (if still LATMC_OK) after the exchange, so that no
 * neighbour is left waiting. */
static int exchange_planes(latmc_sim *sim, int64_t d, int64_t n, const char *what, int *local)
{
    struct latmc_part *part = sim->part;
    const int64_t L = part->planes;
    const size_t bytes = (size_t)n * part->plane_bytes; /* halo_buf: 4 halo planes */
    unsigned char *to_lower = part->halo_buf, *to_upper = to_lower + bytes;
    unsigned char *from_lower = to_upper + bytes, *from_upper = from_lower + bytes;
    const int set = part->shared_set;
    if (part->shared) {
        /* in place: the planes go straight into the memory the neighbours read */
        to_lower = part->shared_send[2 * set];
        to_upper = part->shared_send[2 * set + 1];
        from_lower = part->shared_recv[2 * set];
        from_upper = part->shared_recv[2 * set + 1];
        part->shared_set = 1 - set;
    }
    int st = part->p1 - part->p0 >= d + n
                 ? LATMC_OK
                 : latmc_fail(LATMC_EINVAL, "part %d: a slab of %lld planes cannot fill "
                              "halos %lld planes deep", part->rank,
                              (long long)(part->p1 - part->p0), (long long)(d + n));
    if (st == LATMC_OK)
        st = sim->ops->get_planes(sim, part->p0 + d, part->p0 + d + n, to_lower);
    if (st == LATMC_OK)
        st = sim->ops->get_planes(sim, part->p1 - d - n, part->p1 - d, to_upper);
    int tst;
    if (part->shared)
        TRANSPORT(tst, what, part->tr.sync_halos(part->tr.user, set));
    else
        TRANSPORT(tst, what, part->tr.exchange(part->tr.user, to_lower, to_upper, from_lower,
                                               from_upper, bytes));
    if (tst < 0)
        return tst;
    const int64_t lo = ((part->p0 - d - n) % L + L) % L, hi = (part->p1 + d) % L;
    if (st == LATMC_OK)
        st = sim->ops->set_planes(sim, lo, lo + n, from_lower);
    if (st == LATMC_OK)
        st = sim->ops->set_planes(sim, hi, hi + n, from_upper);
    if (*local == LATMC_OK)
        *local = st;
    return LATMC_OK;
}

/* Halos in memory shared with the neighbours, where the transport offers it (collective:
 * every part asks, and the transport answers alike on every part). */
static int share_halos(struct latmc_part *part)
{
    if (part->n_parts < 2 || !part->tr.share_halos)
        return LATMC_OK;
    const unsigned long fails = latmc_fail_count();
    const int shared = part->tr.share_halos(part->tr.user,
                                            (size_t)part->halo * part->plane_bytes,
                                            part->shared_send, part->shared_recv);
    /* 1 (offered) and 0 (not) are its answers; anything else is an error */
    const int st = shared == 1 ? LATMC_OK : transport_status(shared, fails, "share_halos");
    if (st == LATMC_OK && shared == 1) {
        for (int k = 0; k < 4; k++)
            if (!part->shared_send[k] || !part->shared_recv[k])
                return latmc_fail(LATMC_EBACKEND, "part transport: share_halos gave a NULL "
                                  "buffer");
        part->shared = true;
    }
    return st;
}

/* The halo planes from and to the neighbours. */
static int part_halo_planes(latmc_sim *sim)
{
    int local = LATMC_OK;
    const int st = exchange_planes(sim, 0, sim->part->halo, "exchange (halo planes)", &local);
    return st < 0 ? st : local;
}

/* The halo table of a part (lib/plan.h): the plan's loop calls it after every step. A
 * device's cluster steps (lib/cluster_steps.c): the clusters joined after the labels, the
 * halos sent after the flip only (the bonds and labels change no spin). */
static int part_exchange(latmc_sim *sim, const struct latmc_step *step, int status)
{
    if (latmc_cluster_as_steps(sim) && step->kind == LATMC_STEP_CLUSTER_LABEL)
        return latmc_cluster_part_join(sim, status,
                                       step->rng_sweep == sim->part->stats_sweep);
    if (latmc_cluster_as_steps(sim) && step->kind == LATMC_STEP_CLUSTER_BONDS)
        return LATMC_OK;
    return part_halo_planes(sim);
}

/* The planes beyond each end of the slab that the backend keeps (ops.part_halo_depth). */
static int64_t halo_depth(const latmc_sim *sim)
{
    const struct latmc_backend_ops *ops = sim->ops;
    const int64_t h = sim->part->halo;
    if (ops->size < offsetof(struct latmc_backend_ops, part_halo_depth) +
                        sizeof ops->part_halo_depth ||
        !ops->part_halo_depth)
        return h;
    const int64_t d = ops->part_halo_depth(sim);
    return d > h ? d : h;
}

int latmc_part_fill_halos(latmc_sim *sim)
{
    const int64_t depth = halo_depth(sim);
    int local = LATMC_OK;
    int st = exchange_planes(sim, 0, sim->part->halo, "exchange (halo planes)", &local);
    /* beyond the halo one plane a round (the buffers hold 4 halo planes) */
    for (int64_t d = sim->part->halo; st == LATMC_OK && d < depth; d++)
        st = exchange_planes(sim, d, 1, "exchange (halo planes beyond the halo)", &local);
    return st < 0 ? st : local;
}

/* ---- sweeps and measurements ---- */

int latmc_part_sweep(latmc_sim *sim, uint64_t n, uint64_t *accepted, uint64_t *attempted)
{
    uint64_t count[2] = { 0, 0 };
    sim->part->stats_sweep = sim->sweeps + n - 1; /* the cluster statistics' join */
    /* The plan's loop runs this part's box and exchanges halos after every step; a failed
     * step there is latched and the exchanges go on, so no part is left waiting. */
    int st = latmc_plan_sweep(sim, sim->plan, n, &count[0], &count[1]);
    st = agree_part(sim->part, st, count, NULL);
    if (st < 0)
        return st;
    *accepted += count[0];
    *attempted += count[1];
    return LATMC_OK;
}

int latmc_part_measure(latmc_sim *sim, void *sums)
{
    struct latmc_part *part = sim->part;
    const int n = part->n_parts;
    const size_t ss = sim->model->sums_size;
    size_t *bytes = part->gather_bytes;
    for (int p = 0; p < n; p++)
        bytes[p] = (size_t)(part->first[p + 1] - part->first[p]) * ss;
    /* this part's tiles, then every part's in `tiles`, in plane order */
    unsigned char *mine = malloc(bytes[part->rank] ? bytes[part->rank] : 1);
    unsigned char *tiles = calloc((size_t)part->planes, ss);
    int st = mine && tiles ? LATMC_OK
                           : latmc_fail(LATMC_ENOMEM, "measure: cannot allocate %lld tiles",
                                        (long long)part->planes);
    if (st == LATMC_OK) /* its team, before the runtime could end the process */
        st = latmc_team_ready(sim->n_threads);
    if (st == LATMC_OK)
        st = sim->ops->measure_planes(sim, part->p0, part->p1, mine);
    if ((st = agree_part(part, st, NULL, NULL)) == LATMC_OK)
        TRANSPORT(st, "gather (measurement tiles)",
                  part->tr.gather(part->tr.user, -1, mine, tiles, bytes));
    if (st == LATMC_OK) {
        /* The whole lattice's sums: the planes' tiles from zeros, in plane order. */
        latmc_model_add_planes(sim->model, sums, tiles, part->planes);
    }
    free(tiles);
    free(mine);
    return st;
}

int latmc_part_modes(latmc_sim *sim, double *modes)
{
    struct latmc_part *part = sim->part;
    const int n = part->n_parts;
    size_t *bytes = part->gather_bytes, total = 0;
    for (int p = 0; p < n; p++) {
        bytes[p] = latmc_modes_partial_bytes(&sim->desc);
        total += bytes[p];
    }
    /* as latmc_part_measure: this part's partial result, then every part's, in part order */
    void *mine = malloc(bytes[part->rank] ? bytes[part->rank] : 1);
    void *all = malloc(total ? total : 1);
    int st = mine && all ? LATMC_OK
                         : latmc_fail(LATMC_ENOMEM, "Fourier modes: cannot allocate the "
                                      "parts' partial sums");
    if (st == LATMC_OK) /* its teams: agreed on just below, as latmc_part_measure does */
        st = latmc_team_ready(sim->n_threads);
    if (st == LATMC_OK)
        st = latmc_modes_partial(sim, part->p0, part->p1, mine);
    if ((st = agree_part(part, st, NULL, NULL)) == LATMC_OK)
        TRANSPORT(st, "gather (Fourier modes)",
                  part->tr.gather(part->tr.user, -1, mine, all, bytes));
    if (st == LATMC_OK)
        st = latmc_modes_combine(&sim->desc, all, n, modes);
    free(all);
    free(mine);
    return st;
}

/* This part's tiles of its planes and its modes' partial result: in one pass where the
 * backend can (ops.measure_planes_modes), else measure_planes and latmc_modes_partial. */
static int part_tiles_and_partial(latmc_sim *sim, void *tiles, void *partial)
{
    const struct latmc_part *part = sim->part;
    const struct latmc_backend_ops *ops = sim->ops;
    if (LATMC_BACKEND_OP(ops, measure_planes_modes) &&
        ops->measure_planes_modes(sim, part->p0, part->p1, NULL, NULL) == LATMC_OK)
        return ops->measure_planes_modes(sim, part->p0, part->p1, tiles, partial);
    const int st = ops->measure_planes(sim, part->p0, part->p1, tiles);
    return st < 0 ? st : latmc_modes_partial(sim, part->p0, part->p1, partial);
}

int latmc_part_measure_modes(latmc_sim *sim, void *sums, double *modes)
{
    struct latmc_part *part = sim->part;
    const int n = part->n_parts;
    const size_t ss = sim->model->sums_size;
    size_t *bytes = part->gather_bytes, total = 0;
    for (int p = 0; p < n; p++)
        total += latmc_modes_partial_bytes(&sim->desc);
    const int64_t own = part->p1 - part->p0;
    const size_t own_partial = latmc_modes_partial_bytes(&sim->desc);
    /* as latmc_part_measure and latmc_part_modes: this part's, then every part's */
    unsigned char *mine = malloc(own > 0 ? (size_t)own * ss : 1);
    unsigned char *tiles = calloc((size_t)part->planes, ss);
    void *mine_partial = malloc(own_partial ? own_partial : 1);
    void *all = malloc(total ? total : 1);
    int st = mine && tiles && mine_partial && all
                 ? LATMC_OK
                 : latmc_fail(LATMC_ENOMEM, "measure: cannot allocate the parts' tiles and "
                              "Fourier modes");
    if (st == LATMC_OK) /* its team, before the runtime could end the process */
        st = latmc_team_ready(sim->n_threads);
    if (st == LATMC_OK)
        st = part_tiles_and_partial(sim, mine, mine_partial);
    if ((st = agree_part(part, st, NULL, NULL)) == LATMC_OK) {
        for (int p = 0; p < n; p++)
            bytes[p] = (size_t)(part->first[p + 1] - part->first[p]) * ss;
        TRANSPORT(st, "gather (measurement tiles)",
                  part->tr.gather(part->tr.user, -1, mine, tiles, bytes));
    }
    if (st == LATMC_OK) {
        for (int p = 0; p < n; p++)
            bytes[p] = latmc_modes_partial_bytes(&sim->desc);
        TRANSPORT(st, "gather (Fourier modes)",
                  part->tr.gather(part->tr.user, -1, mine_partial, all, bytes));
    }
    if (st == LATMC_OK) {
        latmc_model_add_planes(sim->model, sums, tiles, part->planes);
        st = latmc_modes_combine_phases(&sim->desc, latmc_modes_sim_phases(sim), all, n,
                                        modes);
    }
    free(all);
    free(mine_partial);
    free(tiles);
    free(mine);
    return st;
}

/* ---- configurations ---- */

/*
 * This part's planes [p0, p1) (all replicas, get_planes' layout) to part root (every part:
 * root < 0) in get_spins' layout: one gather per replica, each part's planes in part order
 * making that replica's sites in site order. `mine` and `all` are allocated by the caller.
 */
static int gather_configuration(latmc_sim *sim, int root, const unsigned char *mine,
                                unsigned char *all)
{
    struct latmc_part *part = sim->part;
    const int n = part->n_parts, R = sim->desc.replicas;
    const size_t one = part->plane_bytes / (size_t)R; /* one plane of one replica */
    size_t *bytes = part->gather_bytes;
    for (int p = 0; p < n; p++)
        bytes[p] = (size_t)(part->first[p + 1] - part->first[p]) * one;
    const size_t own = bytes[part->rank];
    for (int r = 0; r < R; r++) {
        int st;
        TRANSPORT(st, "gather (configuration)",
                  part->tr.gather(part->tr.user, root, mine + (size_t)r * own,
                                  all ? all + (size_t)r * (size_t)part->planes * one : NULL,
                                  bytes));
        if (st < 0)
            return st;
    }
    return LATMC_OK;
}

/* The gathers of `all` (NULL: allocate one where this part receives) from every part. */
static int get_configuration(latmc_sim *sim, int root, void *user_buf, unsigned char **out)
{
    struct latmc_part *part = sim->part;
    const bool receives = root < 0 || root == part->rank;
    const size_t whole = (size_t)part->planes * part->plane_bytes;
    unsigned char *mine = malloc((size_t)(part->p1 - part->p0) * part->plane_bytes);
    unsigned char *all = user_buf ? user_buf : receives ? malloc(whole) : NULL;
    int st = mine && (all || !receives)
                 ? LATMC_OK
                 : latmc_fail(LATMC_ENOMEM, "cannot allocate a copy of the configuration");
    if (st == LATMC_OK)
        st = sim->ops->get_planes(sim, part->p0, part->p1, mine);
    if ((st = agree_part(part, st, NULL, NULL)) == LATMC_OK)
        st = gather_configuration(sim, root, mine, all);
    free(mine);
    if (all != user_buf && (st < 0 || !out))
        free(all);
    else if (out)
        *out = all;
    return st;
}

int latmc_part_get_spins(latmc_sim *sim, void *buf)
{
    int st = get_configuration(sim, -1, buf, NULL);
    return agree_part(sim->part, st, NULL, NULL);
}

int latmc_part_set_spins(latmc_sim *sim, const void *buf)
{
    /* Each part takes its slab from its own buffer, the halos from its neighbours'. */
    int st = sim->ops->set_spins(sim, buf);
    int xst = part_halo_planes(sim);
    return agree_part(sim->part, st < 0 ? st : xst, NULL, NULL);
}

/* Whether the backend gives its couplings plane by plane (else it holds them all). */
bool latmc_part_has_coupling_planes(const latmc_sim *sim)
{
    const struct latmc_backend_ops *ops = sim->ops;
    return LATMC_BACKEND_OP(ops, get_coupling_planes) != NULL;
}

int latmc_part_own_couplings(latmc_sim *sim, float **out, size_t *off)
{
    const struct latmc_part *part = sim->part;
    const size_t nd = (size_t)sim->desc.ndim, P = (size_t)(sim->nsites / part->planes);
    const size_t count = (size_t)(part->p1 - part->p0) * P * nd;
    const bool planes = latmc_part_has_coupling_planes(sim);
    *out = NULL;
    *off = 0;
    float *c = malloc((planes ? count : (size_t)sim->nsites * nd) * sizeof *c);
    if (!c)
        return latmc_fail(LATMC_ENOMEM, "latmc_sim_sweep: cannot allocate the couplings of "
                          "the cluster update");
    int st = planes ? sim->ops->get_coupling_planes(sim, part->p0, part->p1, c)
                    : LATMC_EUNSUPPORTED;
    if (st == LATMC_EUNSUPPORTED) { /* the backend holds them all */
        float *all = planes ? realloc(c, (size_t)sim->nsites * nd * sizeof *c) : c;
        if (!all) {
            free(c);
            return latmc_fail(LATMC_ENOMEM, "latmc_sim_sweep: cannot allocate the couplings");
        }
        c = all;
        st = sim->ops->get_couplings(sim, c);
        *off = (size_t)part->p0 * P * nd;
    }
    if (st < 0) {
        free(c);
        return st;
    }
    *out = c;
    return LATMC_OK;
}

/*
 * The couplings of every part into `all` (whole lattice, get_couplings' layout) on part
 * root (every part: root < 0): each part's planes gathered in part order, where the backend
 * gives them plane by plane; else each receiving part's backend holds them all (they never
 * change in a sweep, and every part set them alike) and gives them without communication.
 * Every part takes the same branch (one backend and model).
 */
static int gather_couplings(latmc_sim *sim, int root, float *all, int prior)
{
    struct latmc_part *part = sim->part;
    const bool receives = root < 0 || root == part->rank;
    const size_t per_plane = (size_t)plane_sites(&sim->desc) * (size_t)sim->desc.ndim;
    int st = prior;
    float *mine = NULL;
    bool planes = latmc_part_has_coupling_planes(sim);
    if (planes && st == LATMC_OK) {
        mine = malloc((size_t)(part->p1 - part->p0) * per_plane * sizeof *mine);
        st = mine ? sim->ops->get_coupling_planes(sim, part->p0, part->p1, mine)
                  : latmc_fail(LATMC_ENOMEM, "cannot allocate a copy of the couplings");
        if (st == LATMC_EUNSUPPORTED) { /* this model's couplings are all here */
            planes = false;
            st = LATMC_OK;
        }
    }
    if (!planes && receives && st == LATMC_OK)
        st = sim->ops->get_couplings(sim, all);
    if ((st = agree_part(part, st, NULL, NULL)) == LATMC_OK && planes) {
        size_t *bytes = part->gather_bytes;
        for (int p = 0; p < part->n_parts; p++)
            bytes[p] = (size_t)(part->first[p + 1] - part->first[p]) * per_plane * sizeof *mine;
        TRANSPORT(st, "gather (couplings)",
                  part->tr.gather(part->tr.user, root, mine, receives ? all : NULL, bytes));
    }
    free(mine);
    return st;
}

void latmc_part_unstage(latmc_sim *sim)
{
    struct latmc_part *part = sim->part;
    if (!part)
        return;
    free(part->staged_spins);
    free(part->staged_couplings);
    part->staged_spins = NULL;
    part->staged_couplings = NULL;
}

int latmc_part_collect(latmc_sim *sim, int root)
{
    if (!latmc_part_many(sim))
        return LATMC_OK;
    struct latmc_part *part = sim->part;
    latmc_part_unstage(sim);
    const bool receives = root < 0 || root == part->rank;
    int st = LATMC_OK;
    /* without a configuration there is none to collect (the same on every part) */
    if (sim->have_config)
        st = get_configuration(sim, root, NULL, &part->staged_spins);
    if (st == LATMC_OK && latmc_model_has_couplings(sim->model, &sim->desc)) {
        float *all = NULL;
        if (receives && !(all = malloc((size_t)sim->nsites * (size_t)sim->desc.ndim *
                                       sizeof *all)))
            st = latmc_fail(LATMC_ENOMEM, "cannot allocate a copy of the couplings");
        /* the allocation's failure is agreed on inside, before the gather */
        st = gather_couplings(sim, root, all, st);
        part->staged_couplings = all;
    }
    st = agree_part(part, st, NULL, NULL);
    if (st < 0)
        latmc_part_unstage(sim);
    return st;
}

int latmc_part_get_couplings(latmc_sim *sim, float *buf)
{
    return agree_part(sim->part, gather_couplings(sim, -1, buf, LATMC_OK), NULL, NULL);
}

/* ---- creation ---- */

/* The fields a transport must have (struct_size of this version, no NULL operation). */
int latmc_part_check_transport(const latmc_transport *t)
{
    if (!t)
        return latmc_fail(LATMC_EINVAL, "latmc_sim_create_part: transport is NULL");
    /* an older header's struct ends before share_halos (ABI.md: struct_size structs) */
    if ((t->struct_size != TRANSPORT_OLD_SIZE && t->struct_size < sizeof *t) ||
        t->struct_size > LATMC_STRUCT_SIZE_MAX)
        return latmc_fail(LATMC_EINVAL, "latmc_sim_create_part: transport->struct_size = %u, "
                          "this library's latmc_transport takes %zu (an older header's) or %zu "
                          "(at most %u)",
                          (unsigned)t->struct_size, TRANSPORT_OLD_SIZE, sizeof *t,
                          LATMC_STRUCT_SIZE_MAX);
    const unsigned char *tail = (const unsigned char *)t + sizeof *t;
    for (size_t i = 0; t->struct_size > sizeof *t && i < t->struct_size - sizeof *t; i++)
        if (tail[i])
            return latmc_fail(LATMC_EUNSUPPORTED, "latmc_sim_create_part: the transport sets "
                              "fields this version does not know");
    if (!t->exchange || !t->gather || !t->broadcast)
        return latmc_fail(LATMC_EINVAL, "latmc_sim_create_part: transport->%s is NULL",
                          !t->exchange ? "exchange" : !t->gather ? "gather" : "broadcast");
    if (t->struct_size >= sizeof *t && !t->share_halos != !t->sync_halos)
        return latmc_fail(LATMC_EINVAL, "latmc_sim_create_part: transport->%s is NULL but "
                          "not %s (set both or neither)",
                          !t->share_halos ? "share_halos" : "sync_halos",
                          !t->share_halos ? "sync_halos" : "share_halos");
    return LATMC_OK;
}

/* The backend's per-plane ops, present in its build and implemented for the model. */
static int check_plane_ops(latmc_sim *sim)
{
    const struct latmc_backend_ops *ops = sim->ops;
    if (ops->size < offsetof(struct latmc_backend_ops, set_planes) + sizeof ops->set_planes ||
        !ops->measure_planes || !ops->get_planes || !ops->set_planes)
        return latmc_fail(LATMC_EUNSUPPORTED, "latmc_sim_create_part: the %s backend has no "
                          "per-plane operations, needed by a sim of more than one part",
                          ops->name);
    /* The CPU backend has the ops for every model but refuses a model without the
     * kernels: ask it once, on a plane of the fresh (undefined) configuration. */
    const size_t bytes = (size_t)plane_sites(&sim->desc) * (size_t)sim->desc.replicas *
                         sim->model->site_bytes(&sim->desc);
    void *probe = malloc(bytes > sim->model->sums_size ? bytes : sim->model->sums_size);
    if (!probe)
        return latmc_fail(LATMC_ENOMEM, "latmc_sim_create_part: cannot allocate a plane");
    /* a plane of its own slab: a part may hold no other */
    const int64_t own = sim->plan->boxes[sim->part->rank].origin[sim->desc.ndim - 1];
    int st = ops->get_planes(sim, own, own + 1, probe);
    free(probe);
    if (st < 0)
        return latmc_fail(st, "latmc_sim_create_part: n_parts > 1 needs the per-plane forms "
                          "of the %s model on the %s backend: %s", sim->model->name, ops->name,
                          latmc_thread_error());
    return LATMC_OK;
}

/*
 * The device of part `rank`: desc.device_index + rank, modulo the count of devices of that
 * kind (doc/mpi.md, "GPU ranks"), for a sim on an accelerator; the CPU is one device. With
 * ranks placed on the nodes in blocks of as many ranks as a node has devices (srun's and
 * mpirun's default), rank modulo the count is the node-local rank; where each rank sees
 * one device (CUDA_VISIBLE_DEVICES per rank), the count is 1 and every part uses its own.
 * Where the count cannot be had, the index stays (the backend's create says why it fails).
 */
static int part_device(latmc_ctx *ctx, const latmc_sim_desc *d, int rank)
{
    int count = 0;
    if (d->device == LATMC_DEVICE_CPU || d->device == LATMC_DEVICE_AUTO || d->n_devices > 1 ||
        latmc_ctx_device_count(ctx, d->device, &count) != LATMC_OK || count < 1)
        return d->device_index;
    return (int)(((int64_t)d->device_index + rank) % count);
}

/* The desc as the parts compare it: the checkpoint's form (every field of the chain). */
#define DESC_WIRE_BYTES 256

static int compare_descs(struct latmc_part *part, const latmc_sim_desc *d)
{
    const int n = part->n_parts;
    unsigned char mine[DESC_WIRE_BYTES];
    memset(mine, 0, sizeof mine);
    struct ckpt_writer w = { mine, sizeof mine, 0 };
    ckpt_put_desc(&w, d);
    ckpt_put_u32(&w, (uint32_t)d->n_parts);
    unsigned char *all = calloc((size_t)n, sizeof mine);
    size_t *bytes = part->gather_bytes;
    int st = all ? LATMC_OK : latmc_fail(LATMC_ENOMEM, "latmc_sim_create_part: cannot "
                                         "allocate %d descs", n);
    if ((st = agree_part(part, st, NULL, NULL)) < 0) {
        free(all);
        return st;
    }
    for (int p = 0; p < n; p++)
        bytes[p] = sizeof mine;
    TRANSPORT(st, "gather (descs)", part->tr.gather(part->tr.user, -1, mine, all, bytes));
    for (int p = 1; st == LATMC_OK && p < n; p++)
        if (memcmp(all, all + (size_t)p * sizeof mine, sizeof mine) != 0)
            st = latmc_fail(LATMC_EINVAL, "latmc_sim_create_part: part %d of %d passed a desc "
                            "other than part 0's (every part must pass the same desc)", p, n);
    free(all);
    return st;
}

int latmc_part_create(latmc_ctx *ctx, const latmc_sim_desc *desc, int rank, int n_parts,
                      const latmc_transport *transport, int prior, latmc_sim **out)
{
    if (out)
        *out = NULL;
    if (!ctx || !desc || !out)
        return latmc_fail(LATMC_EINVAL, "latmc_sim_create_part: %s is NULL",
                          !ctx ? "ctx" : !desc ? "desc" : "out");
    if (n_parts < 1 || rank < 0 || rank >= n_parts)
        return latmc_fail(LATMC_EINVAL, "latmc_sim_create_part: rank %d of n_parts %d (need "
                          "n_parts >= 1 and 0 <= rank < n_parts)", rank, n_parts);
    int st = latmc_part_check_transport(transport);
    if (st < 0)
        return st;
    /* Everything an agreement needs, before any communication: a part short of it
     * cannot take part (the one failure that is not agreed on). */
    struct latmc_part *part = calloc(1, sizeof *part);
    size_t *gb = calloc((size_t)n_parts, sizeof *gb);
    struct vote *votes = calloc((size_t)n_parts, sizeof *votes);
    size_t *vote_bytes = calloc((size_t)n_parts, sizeof *vote_bytes);
    if (!part || !gb || !votes || !vote_bytes) {
        free(part);
        free(gb);
        free(votes);
        free(vote_bytes);
        return latmc_fail(LATMC_ENOMEM, "latmc_sim_create_part: cannot allocate the part");
    }
    part->rank = rank;
    part->n_parts = n_parts;
    part->gather_bytes = gb;
    part->votes = votes;
    part->vote_bytes = vote_bytes;
    /* an older header's struct: the fields it lacks stay NULL */
    memcpy(&part->tr, transport,
           transport->struct_size < sizeof part->tr ? transport->struct_size : sizeof part->tr);
    part->tr.struct_size = sizeof part->tr;

    /* From here on every failure is agreed on, so that no part waits for another. */
    latmc_sim_desc d;
    int64_t nsites = 0;
    /* desc.n_parts first (where the caller's struct has it): the cut it asks for is not
     * this one, whatever the validation would say of it */
    const bool has_n_parts = desc->struct_size >= offsetof(latmc_sim_desc, n_parts) +
                                                      sizeof desc->n_parts &&
                             desc->struct_size <= LATMC_STRUCT_SIZE_MAX;
    if (prior < 0)
        st = prior;
    else if (has_n_parts && desc->n_parts != 0 && desc->n_parts != n_parts)
        st = latmc_fail(LATMC_EINVAL, "latmc_sim_create_part: desc.n_parts = %d, but the sim "
                        "is cut into %d parts: use 0 or %d", desc->n_parts, n_parts, n_parts);
    else
        st = latmc_desc_validate(desc, &d, &nsites);
    d.n_parts = n_parts; /* 0 means the same: compare the cut actually used */
    if ((st = agree_part(part, st, NULL, NULL)) == LATMC_OK)
        st = compare_descs(part, &d);
    latmc_sim *sim = NULL;
    if (st == LATMC_OK) {
        /* The descs agreed, device_index too; each part then runs on its own device. */
        latmc_sim_desc mine = d;
        mine.device_index = part_device(ctx, &d, rank);
        st = latmc_sim_create_as_part(ctx, &mine, part, &sim);
        if (st == LATMC_OK)
            sim->desc.device_index = d.device_index; /* the desc every part passed */
        if (st == LATMC_OK && n_parts > 1)
            st = check_plane_ops(sim);
        if (st == LATMC_OK) {
            const struct latmc_plan *plan = sim->plan;
            const int axis = sim->desc.ndim - 1;
            part->planes = sim->desc.extent[axis];
            part->halo = plan->boxes[0].halo;
            part->p0 = plan->boxes[rank].origin[axis];
            part->p1 = part->p0 + plan->boxes[rank].extent[axis];
            part->plane_bytes = (size_t)plane_sites(&sim->desc) * (size_t)sim->desc.replicas *
                                sim->model->site_bytes(&sim->desc);
            part->first = calloc((size_t)n_parts + 1, sizeof *part->first);
            part->halo_buf = malloc(4 * (size_t)part->halo * part->plane_bytes);
            if (!part->first || !part->halo_buf)
                st = latmc_fail(LATMC_ENOMEM, "latmc_sim_create_part: cannot allocate the "
                                "halo buffers");
            for (int p = 0; st == LATMC_OK && p < n_parts; p++)
                part->first[p] = plan->boxes[p].origin[axis];
            if (st == LATMC_OK)
                part->first[n_parts] = part->planes;
        }
    }
    st = agree_part(part, st, NULL, NULL);
    if (st == LATMC_OK) {
        /* the answer agreed on too: parts of which some sync_halos and others exchange
         * would wait for each other forever (a transport's bug, refused on every part) */
        const int shared_st = share_halos(part);
        uint64_t offered[2] = { part->shared ? 1u : 0u, 0 };
        st = agree_part(part, shared_st, offered, NULL);
        if (st == LATMC_OK && offered[0] != 0 && offered[0] != (uint64_t)n_parts)
            st = latmc_fail(LATMC_EBACKEND, "part transport: share_halos offered shared halo "
                            "buffers on %llu of %d parts (every part must give the same "
                            "answer)", (unsigned long long)offered[0], n_parts);
    }
    if (st < 0) {
        if (sim)
            sim->part = NULL; /* freed below, with the transport's user left to the caller */
        latmc_sim_destroy(&sim);
        part->tr.release = NULL; /* the caller keeps its transport's user */
        latmc_part_free(part);
        return st;
    }
    sim->part = part;
    if (n_parts > 1) {
        static const struct latmc_halo_table part_halos = { part_exchange };
        sim->halo = &part_halos;
        sim->halo_box = rank;
    }
    *out = sim;
    return LATMC_OK;
}

int latmc_sim_create_part(latmc_ctx *ctx, const latmc_sim_desc *desc, int rank, int n_parts,
                          const latmc_transport *transport, latmc_sim **out)
{
    int st = latmc_part_create(ctx, desc, rank, n_parts, transport, LATMC_OK, out);
    if (st < 0 && ctx)
        latmc_log(ctx, LATMC_LOG_DEBUG, "%s", latmc_thread_error());
    return st;
}

int latmc_sim_part_info(const latmc_sim *sim, int *rank, int *n_parts, int64_t *first_plane,
                        int64_t *planes)
{
    if (!sim)
        return latmc_fail(LATMC_EINVAL, "latmc_sim_part_info: sim is NULL");
    const struct latmc_part *part = sim->part;
    const int64_t all = sim->desc.extent[sim->desc.ndim - 1];
    if (rank)
        *rank = part ? part->rank : 0;
    if (n_parts)
        *n_parts = part ? part->n_parts : 1;
    if (first_plane)
        *first_plane = part ? part->p0 : 0;
    if (planes)
        *planes = part ? part->p1 - part->p0 : all;
    return LATMC_OK;
}
