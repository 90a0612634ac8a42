/*
 * The core's side of the cluster joins of a device's parts (lib/cluster_part_steps.c,
 * lib/part.c: ops.cluster_faces), checked on any machine: CPU part sims over a transport
 * of threads whose ops are the CPU's with run_step, cluster_faces and cluster_stats
 * replaced by a recording backend (so the core runs the cluster sweep as steps, as for
 * CUDA parts). Checked: both record sizes asked before every call of sweeps, on every
 * part; one OUT and one JOIN per sweep, LATMC_CLUSTER_FACES_STATS on the last sweep of
 * each call only (calls of 3, 1 and 2 sweeps, n = 1 included), each with the record of its
 * size, every part's in part order; the sizes changing between the calls (a field set and
 * removed: the backend's records grow and shrink); a part whose step fails: every part
 * still gathers, no part joins, the call fails on every part; the statistics then read
 * without a message (part 0 alone).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <latmc/latmc.h>
#include <latmc/part.h>

#include "backend.h"
#include "cluster_sweep.h"
#include "internal.h"
#include "part.h"
#include "step.h"
#include "thread_parts.h"

enum { PARTS = 3, CALLS = 4, MAX_EVENTS = 64 };

/* A record: its part, the sweep of its label step, whether it carries the statistics,
 * then padding to the size the backend declares (the statistics' record is larger, and a
 * field makes both larger). */
struct rec_head {
    uint64_t rank, sweep, stats;
};

static size_t rec_bytes(const latmc_sim *sim, bool stats)
{
    const bool field = sim->param[LATMC_PARAM_H] != 0.0;
    return sizeof(struct rec_head) + (field ? 40 : 0) + (stats ? 24 : 0);
}

/* What each part's recording backend saw (indexed by rank: one thread each). */
struct seen {
    int sizes[2];            /* SIZE asks: plain, with the statistics */
    int outs, joins;         /* OUT and JOIN calls */
    uint64_t stats_sweeps[MAX_EVENTS]; /* the sweeps whose OUT and JOIN carried STATS */
    int n_stats, stats_joins;
    uint64_t label_sweep;    /* the last label step's sweep */
    int fail_part;           /* this part fails its bonds step of fail_sweep (-1: none) */
    uint64_t fail_sweep;
    int bad;                 /* a record out of order, of the wrong size or sweep */
};
static struct seen seen[PARTS];
static struct latmc_backend_ops rec_ops;

static int rank_of(const latmc_sim *sim)
{
    return sim->part ? sim->part->rank : 0;
}

static int rec_run_step(latmc_sim *sim, const struct latmc_step_call *call,
                        uint64_t *accepted, uint64_t *attempted)
{
    (void)accepted;
    (void)attempted;
    struct seen *s = &seen[rank_of(sim)];
    if (call->step.kind == LATMC_STEP_CLUSTER_BONDS && s->fail_part == rank_of(sim) &&
        call->sweep == s->fail_sweep)
        return latmc_fail(LATMC_EDEVICE, "recording backend: bonds of sweep %llu refused",
                          (unsigned long long)call->sweep);
    if (call->step.kind == LATMC_STEP_CLUSTER_LABEL)
        s->label_sweep = call->step.rng_sweep;
    return LATMC_OK; /* the configuration stays as it is: the joins are under test */
}

static int rec_cluster_faces(latmc_sim *sim, int what, void *buf, size_t *bytes)
{
    struct seen *s = &seen[rank_of(sim)];
    const bool stats = (what & LATMC_CLUSTER_FACES_STATS) != 0;
    const int op = what & ~LATMC_CLUSTER_FACES_STATS;
    const size_t need = rec_bytes(sim, stats);
    if (op == LATMC_CLUSTER_FACES_SIZE) {
        s->sizes[stats]++;
        *bytes = need;
        return LATMC_OK;
    }
    if (*bytes < need) {
        s->bad++;
        return latmc_fail(LATMC_EBACKEND, "recording backend: a record of %zu bytes (%zu)",
                          *bytes, need);
    }
    if (op == LATMC_CLUSTER_FACES_OUT) {
        s->outs++;
        const struct rec_head h = { (uint64_t)rank_of(sim), s->label_sweep, stats };
        memset(buf, 0xab, *bytes);
        memcpy(buf, &h, sizeof h);
        if (stats && s->n_stats < MAX_EVENTS)
            s->stats_sweeps[s->n_stats++] = s->label_sweep;
        return LATMC_OK;
    }
    s->joins++; /* JOIN: every part's record, in part order, *bytes apart */
    for (int p = 0; p < sim->part->n_parts; p++) {
        struct rec_head h;
        memcpy(&h, (const unsigned char *)buf + (size_t)p * *bytes, sizeof h);
        if (h.rank != (uint64_t)p || h.sweep != s->label_sweep || h.stats != (uint64_t)stats)
            s->bad++;
    }
    s->stats_joins += stats;
    return LATMC_OK;
}

/* The statistics: the joins with STATS seen (clusters), the last one's sweep + 1
 * (largest): what a device would have counted at them. */
static int rec_cluster_stats(latmc_sim *sim, struct latmc_cluster_stats *out)
{
    const struct seen *s = &seen[rank_of(sim)];
    if (s->n_stats == 0)
        return latmc_fail(LATMC_ESTATE, "recording backend: no statistics yet");
    out->clusters = s->stats_joins;
    out->largest = (int64_t)s->stats_sweeps[s->n_stats - 1] + 1;
    out->size2_sum = 0.0;
    return LATMC_OK;
}

/* Each part's result, read by the main thread. */
struct part_out {
    int st[CALLS];
    double clusters, largest, again;
    int create;
};
static struct part_out outs[PARTS];

static void part_body(int rank, int n, const latmc_transport *t, void *arg)
{
    (void)arg;
    struct part_out *o = &outs[rank];
    latmc_ctx *ctx = NULL;
    latmc_sim *sim = NULL;
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_ISING;
    d.algorithm = LATMC_ALGO_SWENDSEN_WANG;
    d.ndim = 2;
    d.extent[0] = 8;
    d.extent[1] = 12;
    d.n_threads = 1;
    d.seed = 7;
    d.device = LATMC_DEVICE_CPU;
    o->create = latmc_ctx_create(&ctx);
    if (o->create == LATMC_OK)
        o->create = latmc_sim_create_part(ctx, &d, rank, n, t, &sim);
    if (o->create == LATMC_OK)
        o->create = latmc_sim_init_spins(sim, LATMC_INIT_HOT);
    if (o->create != LATMC_OK) {
        latmc_sim_destroy(&sim);
        latmc_ctx_destroy(&ctx);
        return;
    }
    sim->ops = &rec_ops; /* the cluster sweep as steps from here on (not the CPU's ops) */
    /* calls of 3, 1 (the field set: larger records), 2 (removed) and 2 sweeps (the last
     * one with part 1 failing its bonds at its first sweep) */
    static const uint64_t sweeps[CALLS] = { 3, 1, 2, 2 };
    static const double field[CALLS] = { 0.0, 0.3, 0.0, 0.0 };
    for (int c = 0; c < CALLS; c++) {
        latmc_sim_set_param(sim, LATMC_PARAM_H, field[c]);
        o->st[c] = latmc_sim_sweep(sim, sweeps[c]);
        if (c == 2) { /* the statistics of the third call, every part */
            latmc_sim_observable(sim, LATMC_OBS_CLUSTERS, &o->clusters);
            latmc_sim_observable(sim, LATMC_OBS_LARGEST_CLUSTER, &o->largest);
        }
    }
    /* part 0 alone: a read that sent a message would wait for ever */
    if (rank == 0)
        latmc_sim_observable(sim, LATMC_OBS_CLUSTERS, &o->again);
    sim->ops = &latmc_cpu_backend_ops;
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
}

static void joins_of_parts(void **state)
{
    (void)state;
    rec_ops = latmc_cpu_backend_ops;
    rec_ops.run_step = rec_run_step;
    rec_ops.run_steps = NULL; /* a part's steps go one by one either way (its halos) */
    rec_ops.own_schedule = NULL; /* the cluster steps, not a chain of the backend's own */
    rec_ops.cluster_faces = rec_cluster_faces;
    rec_ops.cluster_stats = rec_cluster_stats;
    memset(seen, 0, sizeof seen);
    memset(outs, 0, sizeof outs);
    for (int p = 0; p < PARTS; p++) {
        seen[p].fail_part = 1; /* part 1, the first sweep of the fourth call (sweep 6) */
        seen[p].fail_sweep = 6;
    }
    assert_int_equal(thread_parts_run(PARTS, NULL, part_body, NULL, NULL), 0);
    for (int p = 0; p < PARTS; p++) {
        const struct seen *s = &seen[p];
        assert_int_equal(outs[p].create, LATMC_OK);
        assert_int_equal(outs[p].st[0], LATMC_OK);
        assert_int_equal(outs[p].st[1], LATMC_OK);
        assert_int_equal(outs[p].st[2], LATMC_OK);
        assert_true(outs[p].st[3] < 0); /* part 1's failure, agreed on by every part */
        assert_int_equal(s->bad, 0);
        /* both sizes before every call (the fourth's too) */
        assert_int_equal(s->sizes[0], CALLS);
        assert_int_equal(s->sizes[1], CALLS);
        /* one OUT a sweep (part 1 none after its failure at sweep 6: the other parts'
         * outs at sweeps 6 and 7) and a JOIN a sweep of the first three calls only */
        assert_int_equal(s->outs, p == 1 ? 6 : 8);
        assert_int_equal(s->joins, 6);
        /* STATS at the last sweep of each call: 2, 3, 5, and 7 where the part went out */
        assert_int_equal(s->n_stats, p == 1 ? 3 : 4);
        assert_int_equal(s->stats_sweeps[0], 2);
        assert_int_equal(s->stats_sweeps[1], 3);
        assert_int_equal(s->stats_sweeps[2], 5);
        if (p != 1)
            assert_int_equal(s->stats_sweeps[3], 7);
        assert_int_equal(s->stats_joins, 3);
        /* after the third call: three joins with STATS, the last at sweep 5 */
        assert_true(outs[p].clusters == 3.0);
        assert_true(outs[p].largest == 6.0 / 96.0);
    }
    assert_true(outs[0].again == 3.0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(joins_of_parts),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
