/*
 * Parallel tempering: replica exchange between neighbouring temperatures of the same
 * sample and replica (doc/ensembles.md, "Exchange rule").
 *
 * Round number r (0, 1, ... counted over the ensemble's life) offers the pairs (t, t+1)
 * with t = r mod 2, t + 2, ...: even pairs in even rounds, odd pairs in odd rounds, so no
 * member is in two pairs of a round and every pair gets its turn. The swap of the members
 * a (at t) and b (at t+1) is accepted with probability
 *     min(1, exp(Delta)),  Delta = (beta[t+1] - beta[t]) (E_b - E_a),  E = total energy,
 * decided as every decision of liblatmc: accept <=> u < floor(p 2^32), p = 1 exactly when
 * Delta >= 0, p from liblatmc's own exp (doc/math.md), u a Philox draw named by
 *     key = layout.seed, stream 15, sweep field = r, phase 0, sub 0,
 *     draw number j = (sample * n_R + replica) * (n_T - 1) + t.
 * An accepted swap exchanges the two members' temperatures (their beta), not their
 * configurations.
 *
 * A phi^4 ladder in mu2 (latmc_ens_set_ladder) is the same with the weight exp(-H),
 * H = sum_x [... + mu2/2 phi(x)^2 + ...] (lib/phi4.h): mu2 enters only through
 * (mu2/2) P, P = sum_x phi(x)^2, so mu2/2 plays beta's part and P the energy's:
 *     Delta = (mu2[t+1] - mu2[t]) / 2 * (P_b - P_a),
 * the same draws, the same decision; a swap exchanges the two members' mu2.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "ens_internal.h"
#include "ens_exchange_rule.h"
#include "model.h"
#include "rng_streams.h"

void latmc_ens_track_trip(latmc_ens *e, int m, int t)
{
    uint64_t trip = 0;
    if (latmc_ens_trip_step(&e->rt_dir[m], &e->rt_start[m], t, e->layout.n_temperatures - 1,
                            e->sweeps, &trip)) {
        e->rt_count++;
        e->rt_sum_sweeps += trip;
    }
}

static void swap_bytes(void *x, void *y, size_t n)
{
    unsigned char *p = x, *q = y, t[256];
    for (size_t i = 0; i < n; i += sizeof t) { /* a piece at a time, by memcpy */
        const size_t k = n - i < sizeof t ? n - i : sizeof t;
        memcpy(t, p + i, k);
        memcpy(p + i, q + i, k);
        memcpy(q + i, t, k);
    }
}

void latmc_ens_swaps_begin(struct latmc_ens_swaps *q, latmc_sim *const *members, int n_members,
                           int key)
{
    q->members = members;
    q->n_members = n_members;
    q->key = key;
    q->n = 0;
    const latmc_sim *m0 = members[0];
    q->batched = (m0->desc.model == LATMC_MODEL_ISING || m0->desc.model == LATMC_MODEL_HEISENBERG ||
                  m0->desc.model == LATMC_MODEL_POTTS || m0->desc.model == LATMC_MODEL_PHI4) &&
                 !latmc_cluster_as_steps(m0) &&
                 (latmc_plan_step_caps(m0) & LATMC_STEP_CAP_BATCH_SWAP);
    /* a round moves at most n_members / 2 pairs, a map's sync n_members: room for all, so
     * that the call comes once; without the room the pairs take set_param */
    if (q->batched && q->cap < n_members) {
        int32_t *pairs = realloc(q->pairs, 2 * (size_t)n_members * sizeof *pairs);
        if (pairs)
            q->pairs = pairs;
        double *values = realloc(q->values, 2 * (size_t)n_members * sizeof *values);
        if (values)
            q->values = values;
        q->cap = pairs && values ? n_members : 0;
    }
}

/* The pair's parameter and model data exchanged in place (an involution: twice undoes). */
static void swap_in_place(latmc_sim *a, latmc_sim *b, int key, double value_a, double value_b)
{
    a->param[key] = value_a;
    b->param[key] = value_b;
    swap_bytes(a->model_data, b->model_data, a->model->data_size);
}

bool latmc_ens_params_alike(const latmc_sim *a, const latmc_sim *b, int except)
{
    for (int k = 0; k <= LATMC_PARAM_MAX; k++) {
        const double x = a->param[k], y = b->param[k];
        if (k != except && x != y && !(x != x && y != y)) /* NaN alike */
            return false;
    }
    return true;
}

/*
 * An accepted swap: member a takes value_a of the ladder's parameter `key`, b value_b.
 * Where each holds what the other is to get and all their other parameters agree, the
 * members' model data (Ising and Potts: the tables; Heisenberg: beta, h, nover; phi^4: the
 * coefficients, nhit, nloc; a function of the parameters alone) change places at once, and
 * a backend that takes LATMC_STEP_SWAP_PARAMS moves what it derived from them (CUDA: device
 * tables, Ising thresholds) for all such pairs at latmc_ens_swaps_end: exactly the state
 * set_param would leave, without a table upload per member. Otherwise set_param on both,
 * after the pairs waiting (their order kept).
 */
void latmc_ens_swap_ladder_values(struct latmc_ens_swaps *q, int a, int b, double value_a,
                                  double value_b)
{
    latmc_sim *sa = q->members[a], *sb = q->members[b];
    const int key = q->key;
    const bool fast = q->batched && sb->ops == sa->ops && sa->param[key] == value_b &&
                      sb->param[key] == value_a && latmc_ens_params_alike(sa, sb, key);
    if (!fast || q->cap == 0) {
        latmc_ens_swaps_end(q); /* the pairs before it first: a member may be in both */
        latmc_sim_set_param(sa, key, value_a);
        latmc_sim_set_param(sb, key, value_b);
        return;
    }
    if (q->n == q->cap) /* never with begin's room; the pairs before it go first */
        latmc_ens_swaps_end(q);
    swap_in_place(sa, sb, key, value_a, value_b);
    q->pairs[2 * q->n] = a;
    q->pairs[2 * q->n + 1] = b;
    q->values[2 * q->n] = value_a;
    q->values[2 * q->n + 1] = value_b;
    q->n++;
}

void latmc_ens_swaps_end(struct latmc_ens_swaps *q)
{
    const int n = q->n;
    q->n = 0;
    if (n == 0)
        return;
    const struct latmc_batch_request request = { .pairs = q->pairs, .n_pairs = n };
    struct latmc_error_mark mark;
    latmc_error_mark(&mark);
    const int st = latmc_plan_batch_request(q->members, q->n_members, LATMC_STEP_SWAP_PARAMS,
                                            &request);
    if (st == LATMC_OK)
        return;
    /* refused (nothing moved on the backend; a decline is no failure) or failed: undone
     * in reverse, then the long way in order, as set_param leaves each member (it sets
     * the backend's tables from the parameters whatever the call left) */
    if (st == LATMC_EUNSUPPORTED)
        latmc_error_restore(&mark);
    const int key = q->key;
    for (int k = n - 1; k >= 0; k--)
        swap_in_place(q->members[q->pairs[2 * k]], q->members[q->pairs[2 * k + 1]], key,
                      q->values[2 * k + 1], q->values[2 * k]);
    for (int k = 0; k < n; k++) {
        latmc_sim_set_param(q->members[q->pairs[2 * k]], key, q->values[2 * k]);
        latmc_sim_set_param(q->members[q->pairs[2 * k + 1]], key, q->values[2 * k + 1]);
    }
}

void latmc_ens_swaps_free(struct latmc_ens_swaps *q)
{
    free(q->pairs);
    free(q->values);
    q->pairs = NULL;
    q->values = NULL;
    q->cap = q->n = 0;
}

double latmc_ens_ladder_scale(const latmc_ens *e)
{
    return e->ladder_key == LATMC_PARAM_MU2 ? 0.5 : 1.0; /* mu2 / 2, or beta */
}

int latmc_ens_exchange_round(latmc_ens *e)
{
    const int nT = e->layout.n_temperatures, nR = e->layout.n_replicas;
    /* the quantity conjugate to the ladder's parameter, per site: H/N, or sum phi^2 / N */
    const bool mu2 = e->ladder_key == LATMC_PARAM_MU2;
    double *energy = e->scratch;
    /* (the members' pending counts are settled where the values are measured on the
     * members, latmc_ens_exec_round_values: not for the member lanes' words) */
    /* the device's rounds first, where it ran some (the members' configurations may lag
     * the member lanes' words: the round reads its energies from them) */
    int st = latmc_ens_sync_device_map(e);
    /* The member lanes move their words' tables alone: the members' parameters lag the map
     * (map_lagging) until something reads them (latmc_ens_sync_map), as after the device's
     * rounds; the tables a swap leaves are those set_param would (swap_ready says when) */
    const bool lag = st == LATMC_OK && e->lanes && latmc_ens_lanes_swap_ready(e);
    if (lag && !e->map_lagging) {
        const size_t M = (size_t)e->n_members;
        if (!e->applied_at && !(e->applied_at = malloc(M * sizeof *e->applied_at)))
            return ENS_FAIL(e, LATMC_ENOMEM, "exchange round: cannot allocate a map");
        if (!e->applied_temp && !(e->applied_temp = malloc(M * sizeof *e->applied_temp)))
            return ENS_FAIL(e, LATMC_ENOMEM, "exchange round: cannot allocate a map");
        memcpy(e->applied_at, e->member_at, M * sizeof *e->applied_at);
        memcpy(e->applied_temp, e->temp_of, M * sizeof *e->applied_temp);
        e->map_lagging = true;
    } else if (!lag && st == LATMC_OK) {
        st = latmc_ens_sync_map(e); /* a lag before: the members first */
    }
    if (st == LATMC_OK)
        st = latmc_ens_exec_round_values(e, mu2 ? LATMC_OBS_PHI2 : LATMC_OBS_ENERGY, energy);
    if (st < 0)
        return st;
    const double nsites = (double)e->nsites;
    const double scale = latmc_ens_ladder_scale(e);
    const uint64_t round = e->rounds;
    const uint32_t stream = latmc_rng_stream(LATMC_STREAM_ENS_EXCHANGE, 0);
    /* latmc_ens_exchange_draw's blocks, each made once: a chain's pairs t and t + 2 (draws
     * j and j + 2) share one where j mod 4 < 2 */
    const struct latmc_rng_name name = latmc_rng_ens_name(stream, round);
    uint64_t block_at = UINT64_MAX;
    latmc_philox_ctr block = { { 0, 0, 0, 0 } };
    latmc_ens_swaps_begin(&e->swaps, e->members, e->n_members, e->ladder_key);
    for (int s = 0; s < e->layout.n_samples; s++)
        for (int r = 0; r < nR; r++) {
            const uint64_t chain = (uint64_t)s * (uint64_t)nR + (uint64_t)r;
            for (int t = (int)(round % 2); t + 1 < nT; t += 2) {
                const int ia = ens_slot_index(e, s, t, r), ib = ens_slot_index(e, s, t + 1, r);
                const int a = e->member_at[ia], b = e->member_at[ib];
                const double delta = latmc_ens_exchange_delta(scale, e->beta[t], e->beta[t + 1],
                                                              energy[a], energy[b], nsites);
                const uint64_t j = chain * (uint64_t)(nT - 1) + (uint64_t)t;
                if (j / 4 != block_at) {
                    block_at = j / 4;
                    block = latmc_rng_name_block(e->layout.seed, name, block_at);
                }
                const uint32_t u = block.v[j % 4];
                e->pair_attempted[t]++;
                if (!latmc_ens_exchange_accept(delta, u))
                    continue;
                e->pair_accepted[t]++;
                e->member_at[ia] = b;
                e->member_at[ib] = a;
                e->temp_of[a] = t + 1;
                e->temp_of[b] = t;
                if (lag) {
                    latmc_ens_lanes_swap_tables(e, a, b);
                    continue;
                }
                latmc_ens_swap_ladder_values(&e->swaps, a, b, e->beta[t + 1], e->beta[t]);
                latmc_ens_lanes_params_changed(e, a);
                latmc_ens_lanes_params_changed(e, b);
            }
        }
    latmc_ens_swaps_end(&e->swaps);
    e->rounds++;
    for (int m = 0; m < e->n_members; m++)
        latmc_ens_track_trip(e, m, e->temp_of[m]);
    return LATMC_OK;
}

int latmc_ens_exchange_counts(const latmc_ens *e, uint64_t *accepted, uint64_t *attempted, int n)
{
    if (!e)
        return latmc_fail(LATMC_EINVAL, "latmc_ens_exchange_counts: ens is NULL");
    if (!accepted || !attempted || n != e->layout.n_temperatures - 1)
        return ENS_FAIL(e, LATMC_EINVAL, "latmc_ens_exchange_counts: %s",
                        !accepted || !attempted ? "a NULL argument"
                                                : "n is not n_temperatures - 1");
    const int st = latmc_ens_sync_map((latmc_ens *)e); /* a cache fill: e is logically const */
    if (st < 0)
        return st;
    for (int t = 0; t < n; t++) {
        accepted[t] = e->pair_accepted[t];
        attempted[t] = e->pair_attempted[t];
    }
    return LATMC_OK;
}

int latmc_ens_round_trips(const latmc_ens *e, uint64_t *count, double *mean_sweeps)
{
    if (!e)
        return latmc_fail(LATMC_EINVAL, "latmc_ens_round_trips: ens is NULL");
    if (!count || !mean_sweeps)
        return ENS_FAIL(e, LATMC_EINVAL, "latmc_ens_round_trips: a NULL argument");
    const int st = latmc_ens_sync_map((latmc_ens *)e); /* a cache fill: e is logically const */
    if (st < 0)
        return st;
    *count = e->rt_count;
    *mean_sweeps = e->rt_count ? (double)e->rt_sum_sweeps / (double)e->rt_count : 0.0;
    return LATMC_OK;
}
