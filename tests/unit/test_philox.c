/* Philox4x32-10 known-answer tests (Random123's kat_vectors) and the counter layout. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "philox.h"
#include "rng_streams.h"

static void check_kat(uint32_t k0, uint32_t k1, const uint32_t c[4], const uint32_t want[4])
{
    latmc_philox_ctr ctr = { { c[0], c[1], c[2], c[3] } };
    latmc_philox_key key = { { k0, k1 } };
    latmc_philox_ctr r = latmc_philox4x32_10(ctr, key);
    for (int i = 0; i < 4; i++)
        assert_int_equal(r.v[i], want[i]);
}

static void kat_zero(void **state)
{
    (void)state;
    const uint32_t c[4] = { 0, 0, 0, 0 };
    const uint32_t want[4] = { 0x6627e8d5, 0xe169c58d, 0xbc57ac4c, 0x9b00dbd8 };
    check_kat(0, 0, c, want);
}

static void kat_ones(void **state)
{
    (void)state;
    const uint32_t c[4] = { 0xffffffff, 0xffffffff, 0xffffffff, 0xffffffff };
    const uint32_t want[4] = { 0x408f276d, 0x41c83b0e, 0xa20bc7c6, 0x6d5451fd };
    check_kat(0xffffffff, 0xffffffff, c, want);
}

static void kat_pi(void **state)
{
    (void)state;
    const uint32_t c[4] = { 0x243f6a88, 0x85a308d3, 0x13198a2e, 0x03707344 };
    const uint32_t want[4] = { 0xd16cfe09, 0x94fdcceb, 0x5001e420, 0x24126ea1 };
    check_kat(0xa4093822, 0x299f31d0, c, want);
}

/* The counter layout of rng_streams.h, field by field. */
static void counter_layout(void **state)
{
    (void)state;
    uint64_t block = UINT64_C(0xabcd12345678);
    uint64_t sweep = UINT64_C(0x7654deadbeef);
    latmc_philox_ctr c = latmc_rng_counter(block, sweep, 3, 5, 0x1234);
    assert_int_equal(c.v[0], 0x12345678u);
    assert_int_equal(c.v[1], 0x7654abcdu);
    assert_int_equal(c.v[2], 0xdeadbeefu);
    assert_int_equal(c.v[3], 0x03051234u);
    latmc_philox_key k = latmc_rng_key(UINT64_C(0x0123456789abcdef));
    assert_int_equal(k.v[0], 0x89abcdefu);
    assert_int_equal(k.v[1], 0x01234567u);
}

/* Outputs must look uniform: mean of 2^20 top bits and of u/2^32 near 1/2. */
static void outputs_uniform(void **state)
{
    (void)state;
    double sum = 0;
    const int nblocks = 1 << 18;
    for (int b = 0; b < nblocks; b++) {
        latmc_philox_ctr r = latmc_rng_block(42, (uint64_t)b, 7, 0, 1, 0);
        for (int i = 0; i < 4; i++)
            sum += r.v[i] * (1.0 / 4294967296.0);
    }
    double mean = sum / (4.0 * nblocks);
    /* sigma of the mean of 2^20 U(0,1) = sqrt(1/12 / 2^20) = 2.8e-4 */
    assert_true(mean > 0.5 - 4 * 2.8e-4 && mean < 0.5 + 4 * 2.8e-4);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(kat_zero),
        cmocka_unit_test(kat_ones),
        cmocka_unit_test(kat_pi),
        cmocka_unit_test(counter_layout),
        cmocka_unit_test(outputs_uniform),
    };
    return cmocka_run_group_tests_name("philox", tests, NULL, NULL);
}
