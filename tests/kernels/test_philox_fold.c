/*
 * lib/philox_fold.h against the definition: for random seeds, counter words and blocks,
 * Philox4x32-10 restarted from the folded constants (the identities at the top of the
 * header, round by round) gives latmc_philox4x32_10's outputs, and the round keys are the
 * ones latmc_philox4x32_10 bumps. Every SIMD level and CUDA start from these constants,
 * some using only a part of them: this checks all of them, whichever kernel runs.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "philox_fold.h"

static uint64_t rng_state = 0x9e3779b97f4a7c15u;

static uint64_t next(void)
{
    /* splitmix64: independent of the generator under test */
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* Rounds 0..2 from the fold, as the header writes them; then rounds 3..9 as defined. */
static latmc_philox_ctr from_fold(const struct latmc_philox_fold *f, uint32_t c0)
{
    const uint64_t m0c0 = (uint64_t)LATMC_PHILOX_M0 * c0;
    latmc_philox_ctr x; /* after round 0 */
    x.v[0] = f->u0;
    x.v[1] = f->u1;
    x.v[2] = (uint32_t)(m0c0 >> 32) ^ f->a1;
    x.v[3] = (uint32_t)m0c0;
    const uint64_t m1x2 = (uint64_t)LATMC_PHILOX_M1 * x.v[2];
    latmc_philox_ctr y; /* after round 1 */
    y.v[0] = (uint32_t)(m1x2 >> 32) ^ f->a2;
    y.v[1] = (uint32_t)m1x2;
    y.v[2] = x.v[3] ^ f->a3;
    y.v[3] = (uint32_t)f->m0u0;
    const uint64_t m0y0 = (uint64_t)LATMC_PHILOX_M0 * y.v[0];
    const uint64_t m1y2 = (uint64_t)LATMC_PHILOX_M1 * y.v[2];
    latmc_philox_ctr z; /* after round 2 */
    z.v[0] = (uint32_t)(m1y2 >> 32) ^ y.v[1] ^ f->k[2].v[0];
    z.v[1] = (uint32_t)m1y2;
    z.v[2] = (uint32_t)(m0y0 >> 32) ^ f->a4;
    z.v[3] = (uint32_t)m0y0;
    for (int r = 3; r < 10; r++)
        z = latmc_philox_round(z, f->k[r]);
    return z;
}

/* The fold of a name (any pass: stream, phase, sub, sweep word and block >> 32). */
static void fold_name_equals_definition(void **state)
{
    (void)state;
    for (int t = 0; t < 2000; t++) {
        const uint64_t seed = next(), sweep = next() & LATMC_RNG_MAX_SWEEP;
        const uint32_t block_hi = (uint32_t)(next() & 0xffffu), stream = (uint32_t)(next() & 0xffu);
        const uint32_t phase = (uint32_t)(next() & 0xffu), sub = (uint32_t)(next() & 0xffffu);
        const struct latmc_philox_fold f =
            latmc_philox_fold_name(seed, latmc_rng_name_of(sweep, stream, phase, sub), block_hi);
        /* the keys of the definition */
        latmc_philox_key k = latmc_rng_key(seed);
        for (int r = 0; r < 10; r++) {
            assert_int_equal(f.k[r].v[0], k.v[0]);
            assert_int_equal(f.k[r].v[1], k.v[1]);
            k.v[0] += LATMC_PHILOX_W0;
            k.v[1] += LATMC_PHILOX_W1;
        }
        for (int b = 0; b < 4; b++) {
            const uint32_t c0 = b == 0 ? 0u : b == 1 ? 0xffffffffu : (uint32_t)next();
            const uint64_t block = (uint64_t)block_hi << 32 | c0;
            const latmc_philox_ctr want = latmc_rng_block(seed, block, sweep, stream, phase, sub);
            const latmc_philox_ctr got = from_fold(&f, c0);
            for (int w = 0; w < 4; w++)
                assert_int_equal(got.v[w], want.v[w]);
        }
    }
}

/* The fold of a pass's words from round keys kept by the caller (latmc_philox_fold_fill,
 * the CUDA ensembles' per-pass fold) is the fold of the seed. */
static void fold_fill_equals_fold_name(void **state)
{
    (void)state;
    for (int t = 0; t < 200; t++) {
        const uint64_t seed = next(), sweep = next() & LATMC_RNG_MAX_SWEEP;
        const uint32_t block_hi = (uint32_t)(next() & 0xffffu), phase = (uint32_t)(next() & 0xffu);
        latmc_philox_key k[10];
        latmc_philox_round_keys(seed, k);
        const struct latmc_rng_name name = latmc_rng_name_of(sweep, 5, phase, 9);
        const struct latmc_philox_fold a = latmc_philox_fold_name(seed, name, block_hi);
        const latmc_philox_ctr c = latmc_rng_counter((uint64_t)block_hi << 32, sweep, 5, phase, 9);
        struct latmc_philox_fold b;
        latmc_philox_fold_fill(&b, k, c.v[1], c.v[2], c.v[3]);
        for (int w = 0; w < 4; w++)
            assert_int_equal(a.c.v[w], b.c.v[w]);
        assert_int_equal(a.u0, b.u0);
        assert_int_equal(a.u1, b.u1);
        assert_int_equal(a.a1, b.a1);
        assert_int_equal(a.a2, b.a2);
        assert_int_equal(a.a3, b.a3);
        assert_int_equal(a.a4, b.a4);
        assert_true(a.m0u0 == b.m0u0);
    }
}

/* The second fold (word 3 varying, phi^4's hits): round 0 from it, then rounds 1..9 as
 * defined, gives latmc_rng_block's draws for any stream, phase and sub (word 3 as a whole,
 * the name's word 3 left out). */
static void fold3_equals_definition(void **state)
{
    (void)state;
    for (int t = 0; t < 2000; t++) {
        const uint64_t seed = next(), sweep = next() & LATMC_RNG_MAX_SWEEP;
        const uint64_t block = next() & LATMC_RNG_MAX_BLOCK;
        latmc_philox_key k[10];
        latmc_philox_round_keys(seed, k);
        const struct latmc_philox_fold3 f =
            latmc_philox_fold3_name(k[0].v[0], k[0].v[1], latmc_rng_name_of(sweep, 0, 0, 0), block);
        for (int d = 0; d < 4; d++) {
            const uint32_t stream = (uint32_t)(next() & 0xffu), phase = (uint32_t)(next() & 0xffu);
            const uint32_t sub = (uint32_t)(next() & 0xffffu);
            latmc_philox_ctr got = latmc_philox_fold3_round0(&f, latmc_rng_word3(stream, phase, sub));
            for (int r = 1; r < 10; r++)
                got = latmc_philox_round(got, k[r]);
            const latmc_philox_ctr want = latmc_rng_block(seed, block, sweep, stream, phase, sub);
            for (int w = 0; w < 4; w++)
                assert_int_equal(got.v[w], want.v[w]);
        }
    }
}

/* The second fold of a name (a step's: any sweep word past 2^32 and block past 2^32), each
 * draw's word 3 from the name at its phase and sub (latmc_rng_name_at, as CUDA's phi^4
 * kernels derive their hits' draws), gives latmc_rng_block's draws of those numbers. */
static void fold3_name_equals_definition(void **state)
{
    (void)state;
    for (int t = 0; t < 2000; t++) {
        const uint64_t seed = next(), sweep = next() & LATMC_RNG_MAX_SWEEP;
        const uint64_t block = next() & LATMC_RNG_MAX_BLOCK;
        const uint32_t stream = (uint32_t)(next() & 0xffu);
        latmc_philox_key k[10];
        latmc_philox_round_keys(seed, k);
        const struct latmc_rng_name name =
            latmc_rng_name_of(sweep, stream, (uint32_t)(next() & 0xffu), 0);
        const struct latmc_philox_fold3 f =
            latmc_philox_fold3_name(k[0].v[0], k[0].v[1], name, block);
        for (int d = 0; d < 4; d++) {
            const uint32_t phase = (uint32_t)(next() & 0xffu);
            const uint32_t sub = (uint32_t)(next() & 0xffffu);
            latmc_philox_ctr got =
                latmc_philox_fold3_round0(&f, latmc_rng_name_at(name, phase, sub).c3);
            for (int r = 1; r < 10; r++)
                got = latmc_philox_round(got, k[r]);
            const latmc_philox_ctr want = latmc_rng_block(seed, block, sweep, stream, phase, sub);
            for (int w = 0; w < 4; w++)
                assert_int_equal(got.v[w], want.v[w]);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(fold_name_equals_definition),
        cmocka_unit_test(fold_fill_equals_fold_name),
        cmocka_unit_test(fold3_equals_definition),
        cmocka_unit_test(fold3_name_equals_definition),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
