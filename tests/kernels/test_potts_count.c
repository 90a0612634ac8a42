/*
 * The Potts projections' byte counting (backends/cpu/potts/potts_count_tmpl.h: the C
 * level's cpu_potts_count_state and each SIMD level's count_state in its dsp table, every
 * level this machine has): against a plain loop, on rows shorter than a block of lanes, at
 * a block's edges, past 255 blocks (where the lanes are emptied: a row of one state drives
 * every lane to 255 and over) and long random rows, each state of q = 2, 3 and 5, starting
 * from random counters (the counters wrap modulo 256, as between their flushes).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_features.h"
#include "potts_fast.h"
#include "potts_measure_modes.h"

/* The level under test. */
static cpu_potts_count_fn count_fn;

static uint64_t next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void check(int64_t P, int q, int one_state, uint64_t seed)
{
    uint8_t *v = malloc((size_t)P + 1), *ca = malloc((size_t)P + 1),
            *want = malloc((size_t)P + 1);
    assert_non_null(v);
    assert_non_null(ca);
    assert_non_null(want);
    for (int a = 0; a < q; a++) {
        uint64_t s = seed + (uint64_t)a;
        for (int64_t t = 0; t < P; t++) {
            v[t] = one_state ? (uint8_t)a : (uint8_t)(next(&s) % (uint64_t)q);
            ca[t] = want[t] = (uint8_t)next(&s);
        }
        v[P] = (uint8_t)a; /* one past the end: a site of the state, never counted */
        ca[P] = want[P] = 7;
        int64_t n = 0;
        for (int64_t t = 0; t < P; t++)
            if (v[t] == a) {
                want[t] = (uint8_t)(want[t] + 1);
                n++;
            }
        assert_int_equal(count_fn(ca, v, (uint8_t)a, P), n);
        assert_memory_equal(ca, want, (size_t)P + 1);
    }
    free(v);
    free(ca);
    free(want);
}

static void edges_of_level(void)
{
    const int64_t lengths[] = { 0, 1, 63, 64, 65, 127, 128, 129, 684, 16319, 16320,
                                16321, 16384, 32640, 32641, 40000 };
    const int qs[] = { 2, 3, 5 };
    for (size_t i = 0; i < sizeof lengths / sizeof lengths[0]; i++)
        for (size_t k = 0; k < sizeof qs / sizeof qs[0]; k++) {
            check(lengths[i], qs[k], 0, 0x9e3779b97f4a7c15ull + (uint64_t)i);
            check(lengths[i], qs[k], 1, 0x2545f4914f6cdd1dull + (uint64_t)i);
        }
}

/* Every level the machine has (the C level's entry is cpu_potts_count_state itself). */
static void edges(void **state)
{
    (void)state;
    const unsigned levels[] = { 0, CPU_FLAG_AVX2, CPU_FLAG_AVX2 | CPU_FLAG_AVX512 };
    for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++) {
        if ((levels[i] & cpu_flags_detected()) != levels[i])
            continue;
        struct cpu_potts_dsp dsp;
        cpu_potts_dsp_init(&dsp, levels[i]);
        printf("level %s\n", dsp.level);
        assert_non_null(dsp.count_state);
        count_fn = dsp.count_state;
        edges_of_level();
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = { cmocka_unit_test(edges) };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
