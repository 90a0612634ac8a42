/* The phi^4 kernel table (phi4_dsp.h) and the conversions of the colour-transposed layout. */
#include <string.h>

#include "cpu_features.h"
#include "cpu_omp.h"
#include "phi4_dsp.h"
#include "phi4_ref.h"

void cpu_phi4_dsp_init(struct cpu_phi4_dsp *dsp, unsigned simd_flags)
{
    dsp->level = "c";
    dsp->transposed = false;
    dsp->step_f = cpu_phi4_step_f;
    dsp->step_d = cpu_phi4_step_d;
    dsp->segments_f = cpu_phi4_segments_f;
    dsp->segments_d = cpu_phi4_segments_d;
    CPU_DSP_LEVELS(cpu_phi4_dsp_init, dsp, simd_flags);
}

unsigned cpu_phi4_dsp_flags(const struct phi4_geom *g, unsigned simd_flags)
{
    const int64_t n = g->lat.lx / g->colouring.ncolours;
    if (n % 16 != 0 && n % 8 == 0)
        simd_flags &= ~(unsigned)CPU_FLAG_AVX512;
    return simd_flags;
}

unsigned cpu_phi4_chunk_dsp_flags(int64_t s, unsigned simd_flags)
{
    /* s = 8: paired AVX-512 groups; s = 4: paired AVX2 groups, a quarter of AVX-512's */
    if (s != 8 && s % 16 != 0 && (s % 8 == 0 || s == 4))
        simd_flags &= ~(unsigned)CPU_FLAG_AVX512;
    return simd_flags;
}

/* Colour r's values of a row: natural x = m nc + r at transposed r n + m (n = L_x / nc,
 * phi4_transposed_pos), B bytes a value, each a memcpy of a constant size (plain moves,
 * any alignment of the caller's buffer) in loops with no division: the loop a site, with
 * its two divisions and a memcpy call of a run-time size, was most of a measurement. */
#define PHI4_CONVERT_ROW(B)                                                                 \
    do {                                                                                   \
        for (int r = 0; r < nc; r++) {                                                     \
            if (to)                                                                        \
                for (int64_t m = 0; m < n; m++)                                            \
                    memcpy(dst + (tr0 + r * n + m) * (B), src + (nat0 + m * nc + r) * (B), \
                           (B));                                                           \
            else                                                                           \
                for (int64_t m = 0; m < n; m++)                                            \
                    memcpy(dst + (nat0 + m * nc + r) * (B), src + (tr0 + r * n + m) * (B), \
                           (B));                                                           \
        }                                                                                  \
    } while (0)

/* One row: natural (x) <-> transposed (r n + m); `to` chooses the direction. The natural
 * side is row `nat_row` of its buffer, the transposed side row `row` of the field. */
static void convert_row(const struct phi4_geom *g, const char *src, char *dst, int size,
                        int64_t row, int64_t nat_row, bool to)
{
    const int64_t lx = g->lat.lx;
    const int nc = g->colouring.ncolours; /* L_x a multiple of it (lib/model_phi4.c) */
    const int64_t n = lx / nc, nat0 = nat_row * lx, tr0 = row * lx;
    if (size == 8)
        PHI4_CONVERT_ROW(8);
    else if (size == 4)
        PHI4_CONVERT_ROW(4);
    else
        PHI4_CONVERT_ROW(size);
}

/* Rows [r0, r1): the natural side holds just those rows, the transposed side the field. */
static void convert(const struct phi4_geom *g, const void *src, void *dst, int size,
                    int64_t r0, int64_t r1, int n_threads, bool to)
{
    if (!cpu_use_threads(n_threads, (r1 - r0) * g->lat.lx)) {
        for (int64_t row = r0; row < r1; row++)
            convert_row(g, src, dst, size, row, row - r0, to);
        return;
    }
    LATMC_OMP(parallel for num_threads(n_threads) schedule(static))
    for (int64_t row = r0; row < r1; row++)
        convert_row(g, src, dst, size, row, row - r0, to);
}

void cpu_phi4_to_transposed(const struct phi4_geom *g, const void *natural, void *transposed,
                            int size, int n_threads)
{
    convert(g, natural, transposed, size, 0, g->lat.ly * g->lat.lz, n_threads, true);
}

void cpu_phi4_from_transposed(const struct phi4_geom *g, const void *transposed, void *natural,
                              int size, int n_threads)
{
    convert(g, transposed, natural, size, 0, g->lat.ly * g->lat.lz, n_threads, false);
}

void cpu_phi4_rows_to_transposed(const struct phi4_geom *g, const void *natural, void *transposed,
                                 int size, int64_t r0, int64_t r1, int n_threads)
{
    convert(g, natural, transposed, size, r0, r1, n_threads, true);
}

void cpu_phi4_rows_from_transposed(const struct phi4_geom *g, const void *transposed,
                                   void *natural, int size, int64_t r0, int64_t r1,
                                   int n_threads)
{
    convert(g, transposed, natural, size, r0, r1, n_threads, false);
}
