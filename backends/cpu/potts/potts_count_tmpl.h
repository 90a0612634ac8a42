/*
 * The byte counting of the Potts projections (cpu_potts_count_state, potts_measure_modes.h),
 * written once and compiled by each SIMD level with its own vectors: potts_measure.c (the
 * C level: the compiler's SSE2 at 16 bytes an instruction), potts_avx2.c and
 * potts_avx512.c (through potts_simd.h: 32 and 64). The includer defines POTTS_COUNT_FN,
 * the function's name, private to its translation unit. Integers: every level counts the
 * same (tests/kernels/test_potts_count.c checks each level the machine has).
 */
#include <stdint.h>

/* Bytes a block: the block's hits add up in as many byte lanes. */
#define POTTS_COUNT_LANES 64

/* The hits add up in POTTS_COUNT_LANES byte lanes, emptied every 255 blocks (a lane then
 * holds at most 255), so that the loop is all byte compares and additions: a 32-bit sum in
 * the loop widens every byte to a lane of its own, which took 2x the whole measurement's
 * time at q = 3. */
static int64_t POTTS_COUNT_FN(uint8_t *restrict ca, const uint8_t *restrict v, uint8_t a,
                              int64_t P)
{
    int64_t total = 0, t = 0;
    while (P - t >= POTTS_COUNT_LANES) {
        uint8_t lane[POTTS_COUNT_LANES] = { 0 };
        int64_t blocks = (P - t) / POTTS_COUNT_LANES;
        if (blocks > 255)
            blocks = 255;
        for (int64_t b = 0; b < blocks; b++, t += POTTS_COUNT_LANES)
            for (int l = 0; l < POTTS_COUNT_LANES; l++) {
                const uint8_t hit = (uint8_t)(v[t + l] == a);
                ca[t + l] = (uint8_t)(ca[t + l] + hit);
                lane[l] = (uint8_t)(lane[l] + hit);
            }
        for (int l = 0; l < POTTS_COUNT_LANES; l++)
            total += lane[l];
    }
    for (; t < P; t++) {
        const uint8_t hit = (uint8_t)(v[t] == a);
        ca[t] = (uint8_t)(ca[t] + hit);
        total += hit;
    }
    return total;
}

#undef POTTS_COUNT_LANES
