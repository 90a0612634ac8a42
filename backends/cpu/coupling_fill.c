/*
 * The couplings drawn in bulk (coupling_fill.h): the C level's block kernels, the split of
 * a range into chunks over threads, and the core's entry (latmc_cpu_draw_couplings,
 * lib/backend.h), which the CUDA module reaches through its core services.
 */
#include <string.h>

#include "backend.h"
#include "coupling_draws.h"
#include "coupling_fill.h"
#include "coupling_fill_blocks.h"
#include "cpu_backend.h"
#include "cpu_features.h"
#include "cpu_omp.h"
#include "heisenberg_rules.h"
#include "thread_probe.h"

/* Blocks per chunk, the unit of work of one thread: 16 Ki couplings, small enough to spread
 * a plane over the threads, large enough to make the loop's overhead nothing. */
#define CHUNK_BLOCKS 4096

/* ---- the C level: the definition, block by block ---- */

static void i8_bimodal_c(void *out, int64_t b0, int64_t nb, uint64_t seed)
{
    cpu_couplings_i8_blocks(out, b0, nb, seed);
}

static void f32_bimodal_c(void *out, int64_t b0, int64_t nb, uint64_t seed)
{
    cpu_couplings_f32_blocks(out, b0, nb, seed, LATMC_COUPLINGS_BIMODAL);
}

static void f32_gaussian_c(void *out, int64_t b0, int64_t nb, uint64_t seed)
{
    cpu_couplings_f32_blocks(out, b0, nb, seed, LATMC_COUPLINGS_GAUSSIAN);
}

void cpu_couplings_dsp_init(struct cpu_couplings_dsp *dsp, unsigned simd_flags)
{
    dsp->blocks[CPU_COUPLINGS_I8_BIMODAL] = i8_bimodal_c;
    dsp->blocks[CPU_COUPLINGS_F32_BIMODAL] = f32_bimodal_c;
    dsp->blocks[CPU_COUPLINGS_F32_GAUSSIAN] = f32_gaussian_c;
    dsp->level = "c";
    CPU_DSP_AVX2(cpu_couplings_dsp_init, dsp, simd_flags);
}

int cpu_couplings_float_layout(int kind)
{
    return kind == LATMC_COUPLINGS_GAUSSIAN  ? CPU_COUPLINGS_F32_GAUSSIAN
           : kind == LATMC_COUPLINGS_BIMODAL ? CPU_COUPLINGS_F32_BIMODAL
                                             : CPU_COUPLINGS_F32_UNIFORM;
}

/* ---- a range over threads ---- */

static size_t element_bytes(int layout)
{
    return layout == CPU_COUPLINGS_I8_BIMODAL ? 1 : sizeof(float);
}

/* Couplings [e0, e1) inside one block, or all of a uniform range, one by one. */
static void draw_few(char *out, int layout, int64_t e0, int64_t e1, uint64_t seed)
{
    if (layout == CPU_COUPLINGS_I8_BIMODAL)
        latmc_ising_bimodal_range((int8_t *)out, e0, e1, seed);
    else if (layout == CPU_COUPLINGS_F32_GAUSSIAN)
        latmc_heisenberg_couplings_range((float *)out, e0, e1, LATMC_COUPLINGS_GAUSSIAN, seed);
    else if (layout == CPU_COUPLINGS_F32_BIMODAL)
        latmc_heisenberg_couplings_range((float *)out, e0, e1, LATMC_COUPLINGS_BIMODAL, seed);
    else
        for (int64_t e = e0; e < e1; e++)
            ((float *)out)[e - e0] = 1.0f;
}

void cpu_draw_couplings(void *out, int layout, int64_t e0, int64_t e1, uint64_t seed,
                        int n_threads, unsigned simd_flags)
{
    char *o = out;
    const size_t unit = element_bytes(layout);
    const int64_t b0 = (e0 + 3) / 4, b1 = e1 / 4; /* the whole blocks inside */
    if (layout == CPU_COUPLINGS_F32_UNIFORM || b0 >= b1) {
        draw_few(o, layout, e0, e1, seed);
        return;
    }
    draw_few(o, layout, e0, 4 * b0, seed);
    draw_few(o + (size_t)(4 * b1 - e0) * unit, layout, 4 * b1, e1, seed);
    struct cpu_couplings_dsp dsp;
    cpu_couplings_dsp_init(&dsp, simd_flags);
    const cpu_couplings_blocks_fn blocks = dsp.blocks[layout];
    char *first = o + (size_t)(4 * b0 - e0) * unit; /* coupling 4 b0 */
    const int64_t nchunks = (b1 - b0 + CHUNK_BLOCKS - 1) / CHUNK_BLOCKS;
    if (!cpu_use_threads(n_threads, e1 - e0)) {
        blocks(first, b0, b1 - b0, seed);
        return;
    }
    LATMC_OMP(parallel for num_threads(n_threads) schedule(static))
    for (int64_t c = 0; c < nchunks; c++) {
        const int64_t c0 = b0 + c * CHUNK_BLOCKS;
        const int64_t n = b1 - c0 < CHUNK_BLOCKS ? b1 - c0 : CHUNK_BLOCKS;
        blocks(first + (size_t)(4 * (c0 - b0)) * unit, c0, n, seed);
    }
}

void cpu_draw_slab_couplings(const struct cpu_state *st, void *out, int layout,
                             int64_t per_plane, uint64_t seed, int n_threads)
{
    char *o = out;
    const size_t unit = element_bytes(layout);
    int64_t l = 0;
    while (l < st->slab.planes) { /* runs of consecutive global planes (a wrap breaks one) */
        const int64_t g = cpu_slab_global(st, l);
        int64_t run = 1;
        while (l + run < st->slab.planes && cpu_slab_global(st, l + run) == g + run)
            run++;
        cpu_draw_couplings(o + (size_t)(l * per_plane) * unit, layout, g * per_plane,
                           (g + run) * per_plane, seed, n_threads, st->simd_flags);
        l += run;
    }
}

/* ---- the core's entry ---- */

int latmc_cpu_draw_couplings(void *out, int as_float, int kind, int64_t e0, int64_t e1,
                             uint64_t coupling_seed, int n_threads)
{
    if (!out || e0 < 0 || e1 < e0 || e1 / 4 > (int64_t)LATMC_RNG_MAX_BLOCK || n_threads < 0 ||
        (kind != LATMC_COUPLINGS_UNIFORM && kind != LATMC_COUPLINGS_BIMODAL &&
         kind != LATMC_COUPLINGS_GAUSSIAN) ||
        (!as_float && kind != LATMC_COUPLINGS_BIMODAL))
        return latmc_fail(LATMC_EINVAL, "drawing couplings: no such request (kind %d, %s, "
                          "[%lld, %lld), %d threads)", kind, as_float ? "float" : "int8",
                          (long long)e0, (long long)e1, n_threads);
    unsigned flags;
    int st = cpu_flags(&flags);
    if (st < 0)
        return st;
#ifdef _OPENMP
    if (n_threads == 0)
        n_threads = omp_get_max_threads();
#endif
    /* a team the system refuses would end the process (thread_probe.h): draw alone then,
     * the same values */
    if (n_threads > 1 && latmc_team_ready(n_threads) < 0)
        n_threads = 1;
    cpu_draw_couplings(out, as_float ? cpu_couplings_float_layout(kind) : CPU_COUPLINGS_I8_BIMODAL,
                       e0, e1, coupling_seed, n_threads, flags);
    return LATMC_OK;
}
