/*
 * The checks that the four box tests (tests/repro/test_boxes_{ising,potts,phi4,heisenberg}.c)
 * share: a sim created at one CPU level, the record of a chain's end (configuration bytes,
 * observables, acceptance counts), the bit-for-bit comparison of two such records, the
 * checkpoint taken from k boxes and restored as one, and a refused desc with its message.
 * They were written four times; here once, so that a fix or a stricter check reaches every
 * model. What differs between the models (parameters, sweep schedules, the cases) stays in
 * each test. Include after <cmocka.h>; static inline, so each test compiles its own copy
 * and needs no change to tests/repro/meson.build.
 */
#ifndef LATMC_TESTS_BOXES_CHECK_H
#define LATMC_TESTS_BOXES_CHECK_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <latmc/latmc.h>

/* The most observables a test records (phi^4 and Heisenberg ask 7). */
#define BOX_MAX_OBS 8

/* A chain's end as two runs must agree on it, bit for bit. */
struct box_result {
    void *state; /* latmc_sim_get_spins's bytes, malloc'd: box_result_free */
    size_t bytes;
    const int *ids; /* the observables asked, in order */
    size_t n_obs;
    double obs[BOX_MAX_OBS];
    int status[BOX_MAX_OBS]; /* the observable's return code (see BOX_ACCEPTANCE_MAY_FAIL) */
    uint64_t accepted, attempted;
};

/* box_take's flags. Without flags every observable must answer LATMC_OK. */
enum {
    /* LATMC_OBS_OVERLAP2 not asked (one replica has no overlap): recorded as 0, LATMC_OK */
    BOX_NO_OVERLAP = 1,
    /* LATMC_OBS_ACCEPTANCE's code recorded, not asserted (Heisenberg overrelaxation alone
     * makes no attempts: LATMC_ESTATE); box_assert_same still asks both runs to agree */
    BOX_ACCEPTANCE_MAY_FAIL = 2,
};

/* The sim of d with LATMC_CPU_MASK = level while it is created (the level is chosen at
 * creation); a refusal prints the library's message before the assertion fails. */
static inline latmc_sim *box_create(latmc_ctx *ctx, const latmc_sim_desc *d, const char *level)
{
    setenv("LATMC_CPU_MASK", level, 1);
    latmc_sim *sim = NULL;
    const int st = latmc_sim_create(ctx, d, &sim);
    unsetenv("LATMC_CPU_MASK");
    if (st != LATMC_OK)
        print_message("create: %s\n", latmc_last_error());
    assert_int_equal(st, LATMC_OK);
    return sim;
}

static inline struct box_result box_take(latmc_sim *sim, const int *ids, size_t n_obs, int flags)
{
    struct box_result r;
    assert_true(n_obs <= BOX_MAX_OBS);
    r.ids = ids;
    r.n_obs = n_obs;
    assert_int_equal(latmc_sim_spins_size(sim, &r.bytes), LATMC_OK);
    r.state = malloc(r.bytes);
    assert_non_null(r.state);
    assert_int_equal(latmc_sim_get_spins(sim, r.state, r.bytes), LATMC_OK);
    for (size_t i = 0; i < n_obs; i++) {
        r.obs[i] = 0.0;
        r.status[i] = LATMC_OK;
        if (ids[i] == LATMC_OBS_OVERLAP2 && (flags & BOX_NO_OVERLAP))
            continue;
        r.status[i] = latmc_sim_observable(sim, ids[i], &r.obs[i]);
        if (!(ids[i] == LATMC_OBS_ACCEPTANCE && (flags & BOX_ACCEPTANCE_MAY_FAIL)))
            assert_int_equal(r.status[i], LATMC_OK);
    }
    assert_int_equal(latmc_sim_acceptance_counts(sim, &r.accepted, &r.attempted), LATMC_OK);
    return r;
}

static inline void box_result_free(struct box_result *r)
{
    free(r->state);
    r->state = NULL;
}

/* The same chain: the configuration's bytes, every observable's code and bytes (memcmp,
 * not ==: -0.0 against 0.0 or two NaN would hide a difference), the acceptance counts.
 * what names the case in the message printed before a failing assertion. */
static inline void box_assert_same(const struct box_result *a, const struct box_result *b,
                                   const char *what)
{
    assert_int_equal(a->bytes, b->bytes);
    if (memcmp(a->state, b->state, a->bytes) != 0)
        print_message("%s: configurations differ\n", what);
    assert_memory_equal(a->state, b->state, a->bytes);
    assert_int_equal(a->n_obs, b->n_obs);
    for (size_t i = 0; i < a->n_obs; i++) {
        assert_int_equal(a->status[i], b->status[i]);
        if (memcmp(&a->obs[i], &b->obs[i], sizeof(double)) != 0)
            print_message("%s: %s %.17g vs %.17g\n", what, latmc_observable_name(a->ids[i]),
                          a->obs[i], b->obs[i]);
        assert_memory_equal(&a->obs[i], &b->obs[i], sizeof(double));
    }
    assert_int_equal(a->accepted, b->accepted);
    assert_int_equal(a->attempted, b->attempted);
}

/* A model's configured sim (its parameters set) from a desc at a CPU level; arg is the
 * test's own (nover, Lambda, ...). */
typedef latmc_sim *(*box_make_fn)(latmc_ctx *ctx, const latmc_sim_desc *d, const char *level,
                                  const void *arg);

/* A fresh context, d made, hot start, nsweeps sweeps: the end of the chain. */
static inline struct box_result box_run(const latmc_sim_desc *d, const char *level,
                                        box_make_fn make, const void *arg, uint64_t nsweeps,
                                        const int *ids, size_t n_obs)
{
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim *sim = make(ctx, d, level, arg);
    assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
    assert_int_equal(latmc_sim_sweep(sim, nsweeps), LATMC_OK);
    struct box_result r = box_take(sim, ids, n_obs, 0);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
    return r;
}

/*
 * The checkpoint of k boxes restored continues the uncut chain: d (n_parts > 1) made in a
 * fresh context, hot start, before sweeps, serialized, destroyed, deserialized at the same
 * level; the restored sim reports n_parts 0 (not stored: it is one box); it is cut into
 * resume_parts boxes (latmc_sim_set_parts; 0: left as one box, after a refused cut that
 * must leave it so), sweeps after more and must end where straight (the uncut chain of
 * before + after sweeps, taken with the same observables) ended. flags as box_take's.
 */
static inline void box_check_restored(const struct box_result *straight,
                                      const latmc_sim_desc *d, const char *level,
                                      box_make_fn make, const void *arg, uint64_t before,
                                      uint64_t after, int flags, int resume_parts)
{
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim *sim = make(ctx, d, level, arg);
    assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
    assert_int_equal(latmc_sim_sweep(sim, before), LATMC_OK);
    size_t size = 0;
    assert_int_equal(latmc_sim_serialize(sim, NULL, 0, &size), LATMC_OK);
    void *buf = malloc(size);
    assert_non_null(buf);
    assert_int_equal(latmc_sim_serialize(sim, buf, size, &size), LATMC_OK);
    latmc_sim_destroy(&sim);
    setenv("LATMC_CPU_MASK", level, 1);
    assert_int_equal(latmc_sim_deserialize(ctx, buf, size, &sim), LATMC_OK);
    unsetenv("LATMC_CPU_MASK");
    free(buf);
    latmc_sim_desc got;
    got.struct_size = sizeof got;
    assert_int_equal(latmc_sim_get_desc(sim, &got), LATMC_OK);
    assert_int_equal(got.n_parts, 0); /* not stored: the restored sim is one box */
    if (resume_parts > 0) {
        assert_int_equal(latmc_sim_set_parts(sim, resume_parts), LATMC_OK);
    } else { /* a cut thinner than any halo: refused, the sim left as it was */
        const int64_t planes = d->extent[d->ndim - 1];
        assert_int_equal(latmc_sim_set_parts(sim, (int)planes + 1), LATMC_EINVAL);
        assert_int_equal(latmc_sim_set_parts(sim, -1), LATMC_EINVAL);
    }
    assert_int_equal(latmc_sim_get_desc(sim, &got), LATMC_OK);
    assert_int_equal(got.n_parts, resume_parts);
    assert_int_equal(latmc_sim_sweep(sim, after), LATMC_OK);
    struct box_result resumed = box_take(sim, straight->ids, straight->n_obs, flags);
    char what[96];
    snprintf(what, sizeof what, "checkpoint from %d boxes, continued on %d", d->n_parts,
             resume_parts > 0 ? resume_parts : 1);
    box_assert_same(straight, &resumed, what);
    box_result_free(&resumed);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
}

/* d refused with code, and the library's message names needle (the message is the
 * caller's only clue which field to change, so each refusal's wording is checked). */
static inline void box_expect_refused(const latmc_sim_desc *d, int code, const char *needle)
{
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim *sim = NULL;
    const int st = latmc_sim_create(ctx, d, &sim);
    if (st != code)
        print_message("expected %d, got %d: %s\n", code, st, latmc_last_error());
    assert_int_equal(st, code);
    assert_null(sim);
    if (!strstr(latmc_last_error(), needle)) {
        print_message("message \"%s\" lacks \"%s\"\n", latmc_last_error(), needle);
        fail();
    }
    latmc_ctx_destroy(&ctx);
}

/* d accepted, and the sim keeps the n_parts it was given (the thinnest cut allowed). */
static inline void box_expect_accepted(const latmc_sim_desc *d)
{
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim *sim = NULL;
    const int st = latmc_sim_create(ctx, d, &sim);
    if (st != LATMC_OK)
        print_message("create: %s\n", latmc_last_error());
    assert_int_equal(st, LATMC_OK);
    latmc_sim_desc got;
    got.struct_size = sizeof got;
    assert_int_equal(latmc_sim_get_desc(sim, &got), LATMC_OK);
    assert_int_equal(got.n_parts, d->n_parts);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
}

#endif
