/*
 * The measurement of rows on the split layout (cpu_ising_measure_rows_fn, ising_split.h),
 * written once in plain byte loops and compiled by each level with its own vectors:
 * ising_split.c (the C level: the compiler's SSE2, 16 bytes an instruction), and through
 * ising_simd_tmpl.h ising_avx2.c (32) and ising_avx512.c (64). The includer defines
 * ISING_MEASURE_ROWS_FN, the function's name, private to its translation unit. Integers:
 * every level counts the same (checkasm's ising rows compare each level's with the
 * natural layout's reduction).
 *
 * The row's sites are bytes 1 (up) and 0 (down), even x in half-row 0 and odd x in
 * half-row 1; half-row 0's first site is copied after its end (the pad, ising_split.h),
 * so that odd site j's +x neighbour is always even byte j + 1. A bond is
 * unequal where the bytes differ: their xor (+-J: xor-ed with the bond's bit, bit mu of
 * the site's bond byte).
 */
#include <stddef.h>
#include <stdint.h>

#include "ising_rules.h" /* latmc_wrap_up */
#include "ising_split.h"

/* Byte lanes the blocks add up in: a lane gains at most 2 ndim <= 6 unequal bonds and 2
 * up spins a block, so 42 blocks keep it within a byte (252); then the lanes are emptied.
 * They carry on from row to row: a short row (3D 128^3: one block) costs no sum of its
 * own, unless its up count is wanted (row_up). */
#define ISING_MEASURE_LANES 64
#define ISING_MEASURE_BLOCKS 42

/* The sum of the lanes, which are zeroed. (Their bytes read as 64-bit words and added in
 * 16-bit fields ran slower at AVX-512: 3D 128^3 with the modes 0.30 ms against 0.255.) */
static inline __attribute__((always_inline)) uint64_t
ising_measure_lanes_empty(uint8_t *restrict lane)
{
    uint64_t n = 0;
    for (int l = 0; l < ISING_MEASURE_LANES; l++) {
        n += lane[l];
        lane[l] = 0;
    }
    return n;
}

static inline __attribute__((always_inline)) void
ising_measure_rows_impl(const struct cpu_ising_split *s, int64_t r0, int64_t r1,
                        uint8_t *restrict cols, uint64_t *restrict row_up, uint64_t *unequal,
                        uint64_t *up, const int three, const int coupled, const int modes)
{
    const int64_t half = s->half, ly = s->ly;
    uint8_t lane_u[ISING_MEASURE_LANES] = { 0 }, lane_s[ISING_MEASURE_LANES] = { 0 };
    uint8_t *restrict ce = cols, *restrict co = modes ? cols + half : NULL;
    uint64_t n_unequal = 0, n_up = 0;
    int fill = 0; /* blocks in the lanes since they were emptied */
    for (int64_t r = r0; r < r1; r++) {
        const int64_t y = r % ly, z = r / ly;
        const int64_t ryp = latmc_wrap_up(y, ly) + ly * z;
        const int64_t rzp = three ? y + ly * latmc_wrap_up(z, s->lz) : r;
        const uint8_t *restrict e = cpu_ising_split_row(s, r, 0);
        const uint8_t *restrict o = cpu_ising_split_row(s, r, 1);
        const uint8_t *restrict ey = cpu_ising_split_row(s, ryp, 0);
        const uint8_t *restrict oy = cpu_ising_split_row(s, ryp, 1);
        const uint8_t *restrict ez = cpu_ising_split_row(s, rzp, 0);
        const uint8_t *restrict oz = cpu_ising_split_row(s, rzp, 1);
        const uint8_t *restrict fe = coupled ? cpu_ising_split_bond_row(s, r, 0) : NULL;
        const uint8_t *restrict fo = coupled ? cpu_ising_split_bond_row(s, r, 1) : NULL;
        uint64_t row_n_up = 0; /* modes: the row's up spins outside lane_s */
        int64_t j = 0;
        for (; half - j >= ISING_MEASURE_LANES; j += ISING_MEASURE_LANES) {
            if (fill == ISING_MEASURE_BLOCKS) {
                n_unequal += ising_measure_lanes_empty(lane_u);
                row_n_up += ising_measure_lanes_empty(lane_s);
                fill = 0;
            }
            for (int l = 0; l < ISING_MEASURE_LANES; l++) {
                const int64_t x = j + l;
                const uint8_t ve = e[x], vo = o[x];
                const uint8_t be = coupled ? fe[x] : 0, bo = coupled ? fo[x] : 0;
                uint8_t t = (uint8_t)((ve ^ vo ^ (be & 1)) + (vo ^ e[x + 1] ^ (bo & 1)) +
                                      (ve ^ ey[x] ^ ((be >> 1) & 1)) +
                                      (vo ^ oy[x] ^ ((bo >> 1) & 1)));
                if (three)
                    t = (uint8_t)(t + (ve ^ ez[x] ^ ((be >> 2) & 1)) +
                                  (vo ^ oz[x] ^ ((bo >> 2) & 1)));
                lane_u[l] = (uint8_t)(lane_u[l] + t);
                lane_s[l] = (uint8_t)(lane_s[l] + ve + vo);
                if (modes) {
                    ce[x] = (uint8_t)(ce[x] + ve);
                    co[x] = (uint8_t)(co[x] + vo);
                }
            }
            fill++;
        }
        for (; j < half; j++) {
            const unsigned ve = e[j], vo = o[j];
            const unsigned be = coupled ? fe[j] : 0u, bo = coupled ? fo[j] : 0u;
            n_unequal += (ve ^ vo ^ (be & 1)) + (vo ^ e[j + 1] ^ (bo & 1)) +
                         (ve ^ ey[j] ^ (be >> 1 & 1)) + (vo ^ oy[j] ^ (bo >> 1 & 1));
            if (three)
                n_unequal += (ve ^ ez[j] ^ (be >> 2 & 1)) + (vo ^ oz[j] ^ (bo >> 2 & 1));
            row_n_up += ve + vo;
            if (modes) {
                ce[j] = (uint8_t)(ce[j] + ve);
                co[j] = (uint8_t)(co[j] + vo);
            }
        }
        if (modes) { /* the row's up spins, all of them out of the lanes */
            row_n_up += ising_measure_lanes_empty(lane_s);
            row_up[r - r0] = row_n_up;
        }
        n_up += row_n_up;
    }
    n_unequal += ising_measure_lanes_empty(lane_u);
    n_up += ising_measure_lanes_empty(lane_s);
    *unequal += n_unequal;
    *up += n_up;
}

static void ISING_MEASURE_ROWS_FN(const struct cpu_ising_split *s, int64_t r0, int64_t r1,
                                  uint8_t *cols, uint64_t *row_up, uint64_t *unequal,
                                  uint64_t *up)
{
    /* (three, coupled, modes) as constants: each instance's loop without a branch; modes:
     * the columns and the rows' up counts (the Fourier modes' projections) */
#define ISING_MEASURE_CASE(T, C)                                                            \
    do {                                                                                    \
        if (cols)                                                                           \
            ising_measure_rows_impl(s, r0, r1, cols, row_up, unequal, up, T, C, 1);         \
        else                                                                                \
            ising_measure_rows_impl(s, r0, r1, NULL, NULL, unequal, up, T, C, 0);           \
    } while (0)
    const int coupled = s->bonds != NULL;
    if (s->ndim == 3) {
        if (coupled)
            ISING_MEASURE_CASE(1, 1);
        else
            ISING_MEASURE_CASE(1, 0);
    } else {
        if (coupled)
            ISING_MEASURE_CASE(0, 1);
        else
            ISING_MEASURE_CASE(0, 0);
    }
#undef ISING_MEASURE_CASE
}

#undef ISING_MEASURE_LANES
#undef ISING_MEASURE_BLOCKS
