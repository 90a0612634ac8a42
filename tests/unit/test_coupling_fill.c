/*
 * The couplings drawn in bulk (backends/cpu/coupling_fill.h: chunks over threads, SIMD
 * block kernels) equal, bit for bit, a reference written here from the definition
 * (doc/conventions.md "Ising +-J couplings", doc/models/heisenberg.md "Couplings"):
 * coupling k takes lane k mod 4 of Philox4x32-10 with key coupling_seed and counter
 * (k / 4 mod 2^32, k / 2^34 mod 2^16, 0, 2 << 24 | sub); +-1 from the top bit of the sub 0
 * draw, Gaussian = sqrt(-2 log u0) cos(2 pi u1) in double with u = (r + 1/2) 2^-32,
 * rounded to float. For every layout, each SIMD level the machine has, 1 to 3 threads,
 * ranges that start and end inside a block, odd lengths, ranges past block 2^32, slabs
 * whose planes wrap; and through the API, sims of 2D and 3D with 1 to 3 threads.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <latmc/latmc.h>
#include "backend.h"
#include "coupling_fill.h"
#include "cpu_backend.h"
#include "cpu_features.h"
#include "latmc_math.h"
#include "philox.h"

static const uint64_t seeds[] = { 0, 1, 0x123456789abcdefULL, UINT64_MAX };

/* ---- the reference ---- */

static uint32_t ref_draw(uint64_t seed, int64_t k, uint32_t sub)
{
    const uint64_t block = (uint64_t)k / 4;
    const latmc_philox_ctr c = { { (uint32_t)block, (uint32_t)(block >> 32) & 0xffffu, 0,
                                   (2u << 24) | sub } };
    const latmc_philox_key key = { { (uint32_t)seed, (uint32_t)(seed >> 32) } };
    return latmc_philox4x32_10(c, key).v[k % 4];
}

static double ref_uniform(uint32_t r)
{
    return ((double)r + 0.5) * 0x1p-32;
}

static float ref_coupling(int layout, uint64_t seed, int64_t k)
{
    if (layout == CPU_COUPLINGS_F32_UNIFORM)
        return 1.0f;
    const uint32_t r0 = ref_draw(seed, k, 0);
    if (layout != CPU_COUPLINGS_F32_GAUSSIAN)
        return (r0 >> 31) ? -1.0f : 1.0f;
    double s, c;
    latmc_math_sincos_2pi(ref_uniform(ref_draw(seed, k, 1)), &s, &c);
    return (float)(sqrt(-2.0 * latmc_math_log(ref_uniform(r0))) * c);
}

/* out[0 .. e1 - e0) against the reference, by bits; reports the first difference. */
static void expect_range(const void *out, int layout, int64_t e0, int64_t e1, uint64_t seed,
                         const char *what)
{
    for (int64_t k = e0; k < e1; k++) {
        const float want = ref_coupling(layout, seed, k);
        int same;
        if (layout == CPU_COUPLINGS_I8_BIMODAL) {
            same = ((const int8_t *)out)[k - e0] == (int8_t)want;
        } else {
            same = memcmp((const float *)out + (k - e0), &want, sizeof want) == 0;
        }
        if (!same)
            fail_msg("%s: layout %d, seed %llx, range [%lld, %lld): coupling %lld differs",
                     what, layout, (unsigned long long)seed, (long long)e0, (long long)e1,
                     (long long)k);
    }
}

/* The levels to try: C, and AVX2 where the machine has it. */
static int levels(unsigned out[2])
{
    int n = 0;
    out[n++] = 0;
    if (cpu_flags_detected() & CPU_FLAG_AVX2)
        out[n++] = CPU_FLAG_AVX2;
    return n;
}

static void *filled(size_t n, size_t unit)
{
    void *p = malloc(n * unit + 1);
    assert_non_null(p);
    memset(p, 0x5a, n * unit + 1);
    return p;
}

/* ---- the fill, range by range ---- */

static void ranges(void **state)
{
    (void)state;
    const int64_t B32 = INT64_C(4) << 32; /* coupling 4 * 2^32: block 2^32 */
    /* (e0, length): lengths not multiples of the vector widths, starts inside a block,
     * ranges long enough for threads (LATMC_OMP_MIN_ITEMS) with a partial last chunk */
    const int64_t cases[][2] = { { 0, 1 }, { 0, 3 }, { 1, 2 }, { 2, 5 }, { 3, 33 },
                                 { 0, 120 }, { 5, 127 }, { 0, 16384 * 4 + 12 },
                                 { 7, 3 * 16384 + 13 }, { 1000001, 40003 },
                                 { B32 - 37, 300 }, { B32 - 16383 * 4 - 2, 70001 } };
    unsigned lv[2];
    const int nlv = levels(lv);
    for (int layout = 0; layout < CPU_COUPLINGS_LAYOUTS; layout++)
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++)
            for (int l = 0; l < nlv; l++)
                for (int threads = 1; threads <= 3; threads++) {
                    const uint64_t seed = seeds[(c + (size_t)threads) % 4];
                    const int64_t e0 = cases[c][0], n = cases[c][1];
                    const size_t unit = layout == CPU_COUPLINGS_I8_BIMODAL ? 1 : 4;
                    unsigned char *out = filled((size_t)n, unit);
                    cpu_draw_couplings(out, layout, e0, e0 + n, seed, threads, lv[l]);
                    expect_range(out, layout, e0, e0 + n, seed, "range");
                    assert_int_equal(out[(size_t)n * unit], 0x5a); /* nothing past the end */
                    free(out);
                }
}

/* A slab's local planes wrap around the lattice (part 0: origin negative). */
static void slabs(void **state)
{
    (void)state;
    const int64_t per_plane = 3 * 14 * 10 + 1; /* odd: no plane starts on a block */
    struct cpu_state st;
    memset(&st, 0, sizeof st);
    st.slab.on = true;
    st.slab.global_planes = 16;
    st.slab.planes = 9;
    unsigned lv[2];
    const int nlv = levels(lv);
    for (int origin = -3; origin <= 12; origin += 5)
        for (int l = 0; l < nlv; l++)
            for (int layout = 0; layout < CPU_COUPLINGS_LAYOUTS; layout++) {
                st.slab.origin = origin;
                st.simd_flags = lv[l];
                const size_t unit = layout == CPU_COUPLINGS_I8_BIMODAL ? 1 : 4;
                unsigned char *out = filled((size_t)(st.slab.planes * per_plane), unit);
                cpu_draw_slab_couplings(&st, out, layout, per_plane, 77, 2);
                for (int64_t p = 0; p < st.slab.planes; p++) {
                    const int64_t g = cpu_slab_global(&st, p);
                    expect_range(out + (size_t)(p * per_plane) * unit, layout, g * per_plane,
                                 (g + 1) * per_plane, 77, "slab plane");
                }
                free(out);
            }
}

/* The core's entry: refuses what names nothing, draws what does. */
static void core_entry(void **state)
{
    (void)state;
    int8_t e[40];
    float f[40];
    assert_int_equal(latmc_cpu_draw_couplings(e, 0, LATMC_COUPLINGS_GAUSSIAN, 0, 40, 1, 1),
                     LATMC_EINVAL);
    assert_int_equal(latmc_cpu_draw_couplings(e, 0, LATMC_COUPLINGS_BIMODAL, 5, 4, 1, 1),
                     LATMC_EINVAL);
    assert_int_equal(latmc_cpu_draw_couplings(NULL, 1, LATMC_COUPLINGS_BIMODAL, 0, 4, 1, 1),
                     LATMC_EINVAL);
    assert_int_equal(latmc_cpu_draw_couplings(f, 1, 7, 0, 4, 1, 1), LATMC_EINVAL);
    assert_int_equal(latmc_cpu_draw_couplings(e, 0, LATMC_COUPLINGS_BIMODAL, 3, 43, 9, 0),
                     LATMC_OK);
    expect_range(e, CPU_COUPLINGS_I8_BIMODAL, 3, 43, 9, "core entry");
    assert_int_equal(latmc_cpu_draw_couplings(f, 1, LATMC_COUPLINGS_GAUSSIAN, 1, 41, 9, 2),
                     LATMC_OK);
    expect_range(f, CPU_COUPLINGS_F32_GAUSSIAN, 1, 41, 9, "core entry");
}

/* ---- through the API ---- */

static void sim_couplings(int model, int kind, int ndim, const int64_t ext[3], int threads,
                          uint64_t seed)
{
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = model;
    d.ndim = ndim;
    for (int mu = 0; mu < ndim; mu++)
        d.extent[mu] = ext[mu];
    d.couplings = kind;
    d.coupling_seed = seed;
    d.n_threads = threads;
    d.device = LATMC_DEVICE_CPU;
    latmc_ctx *ctx = NULL;
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    size_t n = 0;
    assert_int_equal(latmc_sim_couplings_size(sim, &n), LATMC_OK);
    assert_int_equal(n, (size_t)(ext[0] * ext[1] * (ndim == 3 ? ext[2] : 1) * ndim));
    float *j = malloc(n * sizeof *j);
    assert_non_null(j);
    assert_int_equal(latmc_sim_get_couplings(sim, j, n), LATMC_OK);
    const int layout = kind == LATMC_COUPLINGS_GAUSSIAN ? CPU_COUPLINGS_F32_GAUSSIAN
                                                          : CPU_COUPLINGS_F32_BIMODAL;
    expect_range(j, layout, 0, (int64_t)n, seed,
                 model == LATMC_MODEL_ISING ? "Ising sim" : "Heisenberg sim");
    free(j);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
}

static void sims(void **state)
{
    (void)state;
    /* small ones (one thread draws), and ones past LATMC_OMP_MIN_ITEMS couplings */
    const int64_t two[][3] = { { 6, 10, 0 }, { 130, 134, 0 } };
    const int64_t three[][3] = { { 6, 4, 10 }, { 34, 26, 22 } };
    for (int threads = 1; threads <= 3; threads++)
        for (int s = 0; s < 2; s++) {
            const uint64_t seed = seeds[(s + threads) % 4];
            sim_couplings(LATMC_MODEL_ISING, LATMC_COUPLINGS_BIMODAL, 2, two[s], threads, seed);
            sim_couplings(LATMC_MODEL_ISING, LATMC_COUPLINGS_BIMODAL, 3, three[s], threads, seed);
            sim_couplings(LATMC_MODEL_HEISENBERG, LATMC_COUPLINGS_GAUSSIAN, 3, three[s], threads,
                          seed);
            sim_couplings(LATMC_MODEL_HEISENBERG, LATMC_COUPLINGS_BIMODAL, 2, two[s], threads,
                          seed);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ranges),
        cmocka_unit_test(slabs),
        cmocka_unit_test(core_entry),
        cmocka_unit_test(sims),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
