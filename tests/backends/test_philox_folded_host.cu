/*
 * The folded Philox of backends/cuda/cuda_philox.cuh (the first two rounds shared by a
 * group of blocks, used by the multi-spin coded Ising kernels; also refolded for another
 * pass from the keys kept, as the ensembles' kernels do), and its plain update
 * draws with precomputed round keys (the Ising row and Potts kernels), on the host, against
 * latmc_rng_block, the definition of every draw (lib/rng_streams.h): the four outputs must
 * be equal for seeds, sweeps (also past 2^32, where c1 carries the sweep's high bits),
 * streams, phases, subs and block numbers (also past 2^32 and at the ends of a group).
 * Runs without a GPU, wherever the CUDA module is built.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
extern "C" {
#include <cmocka.h>
}

#include "cuda_philox.cuh"
#include "sim_helpers.h"

static void folded_equals_definition(void **state)
{
    (void)state;
    uint64_t rng = 0x243f6a8885a308d3u;
    const uint64_t sweeps[] = { 0, 1, 7, 0xffffffffu, UINT64_C(0x100000000), UINT64_C(0xfffffffffff3),
                                LATMC_RNG_MAX_SWEEP };
    unsigned checked = 0, checked_plain = 0;
    for (int t = 0; t < 400; t++) {
        const uint64_t seed = test_rng_next(&rng);
        const uint64_t sweep = t < 7 ? sweeps[t] : test_rng_next(&rng) & LATMC_RNG_MAX_SWEEP;
        const uint32_t stream = latmc_rng_stream((uint32_t)(t % 3), (uint32_t)(t / 3 % 2));
        const uint32_t phase = (uint32_t)(test_rng_next(&rng) % 5);
        const uint32_t sub = (uint32_t)(t % 4 == 0 ? 0 : test_rng_next(&rng) & 0xffffu);
        const struct latmc_rng_name name = latmc_rng_name_of(sweep, stream, phase, sub);
        struct cuda_philox_folded f = cuda_philox_fold_named(seed, name);
        if (t % 2) { /* a pass folded again from another's keys (the ensembles' refold) */
            f = cuda_philox_fold_named(seed, latmc_rng_name_of(sweep ^ 1, stream, phase ^ 1, sub));
            cuda_philox_refold_named(&f, name);
        }
        /* a group of 8 blocks starting at a multiple of 8, low or past 2^32 */
        uint64_t block0 = test_rng_next(&rng) & (t % 2 ? LATMC_RNG_MAX_BLOCK : 0xffffffffu);
        if (t == 1)
            block0 = UINT64_C(0x100000000) - 8;  /* the last group below 2^32 */
        if (t == 3)
            block0 = LATMC_RNG_MAX_BLOCK - 7;    /* the last group */
        block0 &= ~UINT64_C(7);
        const struct cuda_philox_group g = cuda_philox_group_of(f, block0);
        const struct cuda_philox_keys keys = cuda_philox_round_keys(seed);
        for (uint32_t i = 0; i < 8; i++) {
            const uint64_t block = block0 + i;
            const latmc_philox_ctr want = latmc_rng_block(seed, block, sweep, stream, phase, sub);
            const latmc_philox_ctr got = cuda_philox_folded_draws(f, g, (uint32_t)block);
            for (int lane = 0; lane < 4; lane++) {
                if (want.v[lane] != got.v[lane])
                    print_error("seed %llx sweep %llx stream %u phase %u sub %u block %llx lane "
                                "%d: %08x, want %08x\n", (unsigned long long)seed,
                                (unsigned long long)sweep, stream, phase, sub,
                                (unsigned long long)block, lane, got.v[lane], want.v[lane]);
                assert_int_equal(got.v[lane], want.v[lane]);
                checked++;
            }
            { /* the unfolded draws of a name (the Potts row kernels) */
                const latmc_philox_ctr plain = cuda_philox_named_draws(
                    keys, latmc_rng_name_of(sweep, stream, phase, sub), block);
                for (int lane = 0; lane < 4; lane++)
                    assert_int_equal(plain.v[lane], want.v[lane]);
                checked_plain += 4;
            }
        }
    }
    print_message("%u folded and %u named draws equal to latmc_rng_block\n", checked,
                  checked_plain);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(folded_equals_definition),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
