/*
 * A careless or broken latmc/part.h transport (doc/robustness.md, "Parts"): an in-process
 * fake that stands in for n_parts identical parts (every gather slot and halo gets this
 * part's bytes, as tests/mpi/mirror_transport.c) and misbehaves on request: a gather that
 * does not deliver the part's own contribution, operations returning values the header
 * does not document (+7, 2, an unknown negative code), and documented failures. Each case
 * must end in a clear status on the call that met it, never a crash, a hang or LATMC_OK,
 * and a failed create leaves no sim and never calls release. No MPI; runs in every build
 * (the sanitizer builds included).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <latmc/latmc.h>

/* What the fake does wrong: each operation returns `ret` from its `after`-th call on
 * (0: the first); until then it behaves. */
struct misstep {
    int ret;
    int after;
};

struct fake {
    int n_parts;
    bool drop_own;            /* gather leaves `all` as it is */
    struct misstep exchange, gather, broadcast, share, sync;
    int calls_exchange, calls_gather, calls_broadcast, calls_share, calls_sync;
    int released;
    unsigned char shared[8][4096]; /* share_halos' buffers (send k and recv k: one buffer) */
};

/* `ret` once the operation has been called `after` times, else `good`. */
static int step(const struct misstep *m, int *calls, int good)
{
    const int k = (*calls)++;
    return m->ret != 0 && k >= m->after ? m->ret : good;
}

static int fake_exchange(void *u, const void *to_lower, const void *to_upper, void *from_lower,
                         void *from_upper, size_t bytes)
{
    struct fake *f = u;
    memcpy(from_lower, to_upper, bytes);
    memcpy(from_upper, to_lower, bytes);
    return step(&f->exchange, &f->calls_exchange, 0);
}

static int fake_gather(void *u, int root, const void *mine, void *all, const size_t *bytes)
{
    struct fake *f = u;
    (void)root;
    unsigned char *out = all;
    for (int p = 0; all && !f->drop_own && p < f->n_parts; p++) {
        memcpy(out, mine, bytes[p] < bytes[0] ? bytes[p] : bytes[0]);
        out += bytes[p];
    }
    return step(&f->gather, &f->calls_gather, 0);
}

static int fake_broadcast(void *u, int root, void *buf, size_t bytes)
{
    struct fake *f = u;
    (void)root, (void)buf, (void)bytes;
    return step(&f->broadcast, &f->calls_broadcast, 0);
}

static void fake_release(void *u)
{
    ((struct fake *)u)->released++;
}

static int fake_share_halos(void *u, size_t bytes, void *send[4], void *recv[4])
{
    struct fake *f = u;
    if (bytes > sizeof f->shared[0])
        return 0;
    /* a part that is its own neighbour reads what it wrote: recv[2k] is send[2k + 1] */
    for (int k = 0; k < 2; k++) {
        send[2 * k] = recv[2 * k + 1] = f->shared[2 * k];
        send[2 * k + 1] = recv[2 * k] = f->shared[2 * k + 1];
    }
    return step(&f->share, &f->calls_share, 1);
}

static int fake_sync_halos(void *u, int set)
{
    struct fake *f = u;
    (void)set;
    return step(&f->sync, &f->calls_sync, 0);
}

static latmc_transport transport_of(struct fake *f, bool shared)
{
    latmc_transport t;
    memset(&t, 0, sizeof t);
    t.struct_size = sizeof t;
    t.user = f;
    t.exchange = fake_exchange;
    t.gather = fake_gather;
    t.broadcast = fake_broadcast;
    t.release = fake_release;
    if (shared) {
        t.share_halos = fake_share_halos;
        t.sync_halos = fake_sync_halos;
    }
    return t;
}

static latmc_ctx *ctx;

static int setup(void **state)
{
    (void)state;
    return latmc_ctx_create(&ctx) == LATMC_OK ? 0 : -1;
}

static int teardown(void **state)
{
    (void)state;
    latmc_ctx_destroy(&ctx);
    return 0;
}

/* A 2D Ising desc of 16 x 16 (slabs of 8 planes for 2 parts). */
static latmc_sim_desc ising_desc(void)
{
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_ISING;
    d.ndim = 2;
    d.extent[0] = d.extent[1] = 16;
    d.seed = 7;
    d.n_threads = 1;
    d.device = LATMC_DEVICE_CPU; /* the transport is the point, not AUTO's choice of device */
    return d;
}

/* A failed create: status `want`, no sim, the transport's user still the caller's. */
static void expect_create_fails(struct fake *f, const latmc_sim_desc *d, bool shared, int want)
{
    latmc_transport t = transport_of(f, shared);
    latmc_sim *sim = (latmc_sim *)&t; /* must be set to NULL */
    const int st = latmc_sim_create_part(ctx, d, 0, f->n_parts, &t, &sim);
    if (st != want)
        fail_msg("create_part: %d (%s), expected %d", st, latmc_last_error(), want);
    assert_null(sim);
    assert_int_equal(f->released, 0);
    assert_true(strlen(latmc_last_error()) > 0);
}

static latmc_sim *create_ok(struct fake *f, bool shared)
{
    latmc_sim_desc d = ising_desc();
    latmc_transport t = transport_of(f, shared);
    latmc_sim *sim = NULL;
    const int st = latmc_sim_create_part(ctx, &d, 0, f->n_parts, &t, &sim);
    if (st != LATMC_OK)
        fail_msg("create_part: %s", latmc_last_error());
    return sim;
}

/* ---- item 1: the part's own vote ---- */

/* A gather that does not deliver this part's own vote, and the part's create fails (an
 * odd extent: no checkerboard): the failure stands (on 995e5fe the create went on without a
 * sim and dereferenced NULL), with one part and with two. */
static void own_vote_dropped_failed_create(void **state)
{
    (void)state;
    for (int n = 1; n <= 2; n++) {
        struct fake f = { .n_parts = n, .drop_own = true };
        latmc_sim_desc d = ising_desc();
        d.extent[0] = 15;
        expect_create_fails(&f, &d, false, LATMC_EINVAL);
        assert_non_null(strstr(latmc_last_error(), "own vote"));
    }
}

/* The same gather and a create that would succeed: the transport's bug is refused
 * (LATMC_EBACKEND) rather than the votes of parts it never delivered taken for OK. */
static void own_vote_dropped_good_create(void **state)
{
    (void)state;
    for (int n = 1; n <= 2; n++) {
        struct fake f = { .n_parts = n, .drop_own = true };
        latmc_sim_desc d = ising_desc();
        expect_create_fails(&f, &d, false, LATMC_EBACKEND);
        assert_non_null(strstr(latmc_last_error(), "vote"));
    }
}

/* ---- undocumented return values are errors ---- */

/* gather returning +7 (or an unknown negative code) at its k-th call: create fails for
 * every k the create makes, with LATMC_EBACKEND and no sim. */
static void gather_bad_values_in_create(void **state)
{
    (void)state;
    const int values[] = { 7, 1, INT32_MAX, -1000, INT32_MIN };
    for (size_t v = 0; v < sizeof values / sizeof *values; v++) {
        /* how many gathers a good create makes */
        struct fake probe = { .n_parts = 2 };
        latmc_sim *sim = create_ok(&probe, false);
        latmc_sim_destroy(&sim);
        assert_int_equal(probe.released, 1);
        assert_true(probe.calls_gather >= 2);
        for (int k = 0; k < probe.calls_gather; k++) {
            struct fake f = { .n_parts = 2, .gather = { values[v], k } };
            latmc_sim_desc d = ising_desc();
            expect_create_fails(&f, &d, false, LATMC_EBACKEND);
            assert_non_null(strstr(latmc_last_error(), "gather"));
        }
    }
}

/* A documented failure keeps its own code and the message the transport recorded. */
static int gather_records(void *u, int root, const void *mine, void *all, const size_t *bytes)
{
    (void)u, (void)root, (void)mine, (void)all, (void)bytes;
    return latmc_record_failure(LATMC_EIO, "fake: the link went down");
}

static void gather_documented_failure(void **state)
{
    (void)state;
    struct fake f = { .n_parts = 2 };
    latmc_transport t = transport_of(&f, false);
    t.gather = gather_records;
    latmc_sim_desc d = ising_desc();
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create_part(ctx, &d, 0, 2, &t, &sim), LATMC_EIO);
    assert_null(sim);
    assert_non_null(strstr(latmc_last_error(), "link went down"));
    assert_int_equal(f.released, 0);
}

/* After a good create: each collective call meets an operation returning +7 and fails
 * with LATMC_EBACKEND; the sim stays destroyable (release once). */
static void bad_values_after_create(void **state)
{
    (void)state;
    enum { SWEEP_GATHER, SWEEP_EXCHANGE, MEASURE_GATHER, SPINS_GATHER, SYNC, N_CASES };
    for (int c = 0; c < N_CASES; c++) {
        struct fake f = { .n_parts = 2 };
        latmc_sim *sim = create_ok(&f, c == SYNC);
        assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
        int st = LATMC_OK;
        double m = 0;
        size_t bytes = 0;
        unsigned char *buf = NULL;
        switch (c) {
        case SWEEP_GATHER:
            f.gather = (struct misstep){ 7, f.calls_gather };
            st = latmc_sim_sweep(sim, 1);
            break;
        case SWEEP_EXCHANGE:
            f.exchange = (struct misstep){ 7, f.calls_exchange };
            st = latmc_sim_sweep(sim, 1);
            break;
        case MEASURE_GATHER:
            f.gather = (struct misstep){ 7, f.calls_gather + 1 }; /* the tiles, not the vote */
            st = latmc_sim_observable(sim, LATMC_OBS_ENERGY, &m);
            break;
        case SPINS_GATHER:
            assert_int_equal(latmc_sim_spins_size(sim, &bytes), LATMC_OK);
            buf = malloc(bytes);
            assert_non_null(buf);
            f.gather = (struct misstep){ 7, f.calls_gather + 1 };
            st = latmc_sim_get_spins(sim, buf, bytes);
            free(buf);
            break;
        case SYNC:
            assert_true(f.calls_share == 1);
            f.sync = (struct misstep){ 7, f.calls_sync };
            st = latmc_sim_sweep(sim, 1);
            break;
        }
        if (st != LATMC_EBACKEND)
            fail_msg("case %d: %d (%s), expected LATMC_EBACKEND", c, st, latmc_last_error());
        assert_non_null(strstr(latmc_sim_last_error(sim), "returned 7"));
        latmc_sim_destroy(&sim);
        assert_int_equal(f.released, 1);
    }
}

/* share_halos answers 1 (offered), 0 (not) or a negative code; 2 and 7 are errors. */
static void share_halos_bad_values(void **state)
{
    (void)state;
    const int values[] = { 2, 7, -1000 };
    for (size_t v = 0; v < sizeof values / sizeof *values; v++) {
        struct fake f = { .n_parts = 2, .share = { values[v], 0 } };
        latmc_sim_desc d = ising_desc();
        expect_create_fails(&f, &d, true, LATMC_EBACKEND);
        assert_non_null(strstr(latmc_last_error(), "share_halos"));
    }
    /* 0: halos by exchange, which works */
    struct fake f = { .n_parts = 2 };
    latmc_transport t = transport_of(&f, false);
    t.share_halos = fake_share_halos;
    t.sync_halos = fake_sync_halos;
    latmc_sim_desc d = ising_desc();
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create_part(ctx, &d, 0, 2, &t, &sim), LATMC_OK);
    latmc_sim_destroy(&sim);
}

/* The streamed load's broadcast returning +7: LATMC_EBACKEND, no sim (Ising +-J: the
 * couplings go by broadcast). */
static void broadcast_bad_value_in_load(void **state)
{
    (void)state;
    char dir[] = "/tmp/latmc-transport-XXXXXX";
    assert_non_null(mkdtemp(dir));
    char path[256];
    snprintf(path, sizeof path, "%s/pmj.ckpt", dir);
    latmc_sim_desc d = ising_desc();
    d.couplings = LATMC_COUPLINGS_BIMODAL;
    latmc_sim *plain = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &plain), LATMC_OK);
    assert_int_equal(latmc_sim_init_spins(plain, LATMC_INIT_HOT), LATMC_OK);
    assert_int_equal(latmc_sim_save(plain, path), LATMC_OK);
    latmc_sim_destroy(&plain);
    struct fake good = { .n_parts = 2 };
    latmc_transport t = transport_of(&good, false);
    latmc_sim *sim = NULL;
    const int good_st = latmc_sim_load_part(ctx, path, 0, 2, &t, &sim);
    if (good_st != LATMC_OK)
        fail_msg("load_part with a good transport: %d: %s", good_st, latmc_last_error());
    latmc_sim_destroy(&sim);
    if (good.calls_broadcast == 0)
        skip(); /* this load has no broadcast to break */
    struct fake f = { .n_parts = 2, .broadcast = { 7, 0 } };
    t = transport_of(&f, false);
    sim = (latmc_sim *)&t;
    const int st = latmc_sim_load_part(ctx, path, 0, 2, &t, &sim);
    if (st != LATMC_EBACKEND)
        fail_msg("load_part: %d (%s), expected LATMC_EBACKEND", st, latmc_last_error());
    assert_null(sim);
    assert_int_equal(f.released, 0);
    remove(path);
    rmdir(dir);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(own_vote_dropped_failed_create),
        cmocka_unit_test(own_vote_dropped_good_create),
        cmocka_unit_test(gather_bad_values_in_create),
        cmocka_unit_test(gather_documented_failure),
        cmocka_unit_test(bad_values_after_create),
        cmocka_unit_test(share_halos_bad_values),
        cmocka_unit_test(broadcast_bad_value_in_load),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
