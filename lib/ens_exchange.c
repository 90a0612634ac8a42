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

/*
 * An accepted swap: member a takes value_a of the ladder's parameter `key`, b value_b.
 * Where each holds what the other is to get and all their other parameters agree, the
 * members' model data (Ising and Potts: the tables; Heisenberg: beta, h, nover; phi^4: the
 * coefficients, nhit, nloc; a function of the parameters alone) change places and a
 * backend with ens_swap_params moves what it derived from them (CUDA: device tables,
 * Ising thresholds):
 * exactly the state set_param would leave, without a table upload per member. Otherwise
 * (or where the backend declines) set_param on both, as always.
 */
void latmc_ens_swap_ladder_values(latmc_sim *a, latmc_sim *b, int key, double value_a,
                                  double value_b)
{
    const struct latmc_backend_ops *ops = a->ops;
    bool fast = (a->desc.model == LATMC_MODEL_ISING || a->desc.model == LATMC_MODEL_HEISENBERG ||
                 a->desc.model == LATMC_MODEL_POTTS || a->desc.model == LATMC_MODEL_PHI4) &&
                b->ops == ops && !latmc_cluster_as_steps(a) &&
                LATMC_BACKEND_OP(ops, ens_swap_params) && a->param[key] == value_b && b->param[key] == value_a;
    for (int k = 0; fast && k <= LATMC_PARAM_MAX; k++)
        fast = k == key || a->param[k] == b->param[k] ||
               (a->param[k] != a->param[k] && b->param[k] != b->param[k]); /* NaN alike */
    if (fast) {
        a->param[key] = value_a;
        b->param[key] = value_b;
        swap_bytes(a->model_data, b->model_data, a->model->data_size);
        if (ops->ens_swap_params(a, b) == LATMC_OK)
            return;
        a->param[key] = value_b; /* declined: undo, take the long way */
        b->param[key] = value_a;
        swap_bytes(a->model_data, b->model_data, a->model->data_size);
    }
    latmc_sim_set_param(a, key, value_a);
    latmc_sim_set_param(b, key, value_b);
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
    int st = latmc_ens_sync_map(e);
    if (st == LATMC_OK)
        st = latmc_ens_exec_round_values(e, mu2 ? LATMC_OBS_PHI2 : LATMC_OBS_ENERGY, energy);
    if (st < 0)
        return st;
    const double nsites = (double)e->nsites;
    const double scale = latmc_ens_ladder_scale(e);
    const uint64_t round = e->rounds;
    const uint32_t stream = latmc_rng_stream(LATMC_STREAM_ENS_EXCHANGE, 0);
    for (int s = 0; s < e->layout.n_samples; s++)
        for (int r = 0; r < nR; r++) {
            const uint64_t chain = (uint64_t)s * (uint64_t)nR + (uint64_t)r;
            for (int t = (int)(round % 2); t + 1 < nT; t += 2) {
                const int ia = ens_slot_index(e, s, t, r), ib = ens_slot_index(e, s, t + 1, r);
                const int a = e->member_at[ia], b = e->member_at[ib];
                const double delta = latmc_ens_exchange_delta(scale, e->beta[t], e->beta[t + 1],
                                                              energy[a], energy[b], nsites);
                const uint32_t u = latmc_ens_exchange_draw(
                    e->layout.seed, stream, round, chain * (uint64_t)(nT - 1) + (uint64_t)t);
                e->pair_attempted[t]++;
                if (!latmc_ens_exchange_accept(delta, u))
                    continue;
                e->pair_accepted[t]++;
                e->member_at[ia] = b;
                e->member_at[ib] = a;
                e->temp_of[a] = t + 1;
                e->temp_of[b] = t;
                latmc_ens_swap_ladder_values(e->members[a], e->members[b], e->ladder_key,
                                   e->beta[t + 1], e->beta[t]);
                latmc_ens_lanes_params_changed(e, a);
                latmc_ens_lanes_params_changed(e, b);
            }
        }
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
