/*
 * The SIMD dispatch's feature detection and LATMC_CPU_MASK (backends/cpu/cpu_features.h):
 * masks parse as documented, the level in use never exceeds what the CPU has, and a bad
 * mask is refused at sim creation with LATMC_EINVAL and a message naming it; phi^4 and
 * Heisenberg drop AVX-512 exactly on the geometries where its vectors would straddle rows
 * that AVX2's fill.
 *
 * Run twice by meson: plainly, and with LATMC_CPU_MASK=avx3 (argument "bad-mask").
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <latmc/latmc.h>

#include "cpu_features.h"
#include "heisenberg_dsp.h"
#include "phi4_dsp.h"

static int bad_mask_run;

static void test_mask_parse(void **state)
{
    (void)state;
    unsigned m = 99;
    assert_int_equal(cpu_mask_parse("c", &m), 0);
    assert_int_equal(m, 0);
    assert_int_equal(cpu_mask_parse("avx2", &m), 0);
    assert_int_equal(m, CPU_FLAG_AVX2);
    assert_int_equal(cpu_mask_parse("avx512", &m), 0);
    assert_int_equal(m, CPU_FLAG_AVX2 | CPU_FLAG_AVX512);
    assert_int_equal(cpu_mask_parse("0x1", &m), 0);
    assert_int_equal(m, 1);
    assert_int_equal(cpu_mask_parse("3", &m), 0);
    assert_int_equal(m, 3);
    const char *bad[] = { "", "AVX2", "avx3", "-1", "0x", "1x", " 1", "sse", "99999999999" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_int_equal(cpu_mask_parse(bad[i], &m), -1);
}

static void test_levels(void **state)
{
    (void)state;
    const unsigned have = cpu_flags_detected();
    unsigned used = 0;
    assert_int_equal(cpu_flags(&used), bad_mask_run ? LATMC_EINVAL : LATMC_OK);
    assert_int_equal(used & ~have, 0);                      /* masks only lower */
    assert_int_equal(have & ~(unsigned)CPU_FLAG_ALL, 0);
    if (have & CPU_FLAG_AVX512)                             /* levels are nested */
        assert_true(have & CPU_FLAG_AVX2);
    assert_string_equal(cpu_level_name(0), "c");
    assert_string_equal(cpu_level_name(CPU_FLAG_AVX2), "avx2");
    assert_string_equal(cpu_level_name(CPU_FLAG_ALL), "avx512");
    print_message("CPU has %s, level in use %s; status: %s\n", cpu_level_name(have),
                  cpu_level_name(used), cpu_status());
}

/* The level shows in the CPU backend's status line; a bad mask fails sim creation. */
static struct phi4_geom phi4_geom_at(int ndim, int64_t lx, int64_t ly, int64_t lz)
{
    struct latmc_lattice lat = { ndim, lx, ly, ndim == 3 ? lz : 1, 0 };
    lat.nsites = lat.lx * lat.ly * lat.lz;
    return phi4_geom_of(&lat);
}

static void test_geometry_levels(void **state)
{
    (void)state;
    const unsigned all = CPU_FLAG_AVX2 | CPU_FLAG_AVX512;
    /* phi^4: L_x / ncolours 16, 32 (80 x 10: 5 colours) keep AVX-512; 8, 24 (whole AVX2
     * groups) drop it; 1, 2, 3, 9 (no whole groups at either width) keep it */
    const struct {
        int ndim;
        int64_t lx, ly, lz;
        unsigned want;
    } phi4[] = {
        { 3, 128, 128, 128, all },      { 3, 256, 8, 8, all },  { 2, 80, 10, 0, all },
        { 3, 64, 64, 64, CPU_FLAG_AVX2 }, { 2, 192, 8, 0, CPU_FLAG_AVX2 },
        { 3, 8, 8, 8, all },            { 2, 16, 16, 0, all },  { 2, 24, 24, 0, all },
        { 2, 45, 20, 0, all },
    };
    for (size_t i = 0; i < sizeof phi4 / sizeof phi4[0]; i++) {
        const struct phi4_geom g = phi4_geom_at(phi4[i].ndim, phi4[i].lx, phi4[i].ly, phi4[i].lz);
        assert_int_equal(cpu_phi4_dsp_flags(&g, all), phi4[i].want);
        assert_int_equal(cpu_phi4_dsp_flags(&g, CPU_FLAG_AVX2), CPU_FLAG_AVX2);
        assert_int_equal(cpu_phi4_dsp_flags(&g, 0), 0);
    }
    /* Heisenberg: L_x / 2 8, 16 keep AVX-512; 4, 12 drop it; 1, 3, 5 keep it */
    const struct {
        int64_t lx;
        unsigned want;
    } heisenberg[] = { { 16, all }, { 32, all }, { 8, CPU_FLAG_AVX2 }, { 24, CPU_FLAG_AVX2 },
                 { 2, all },  { 6, all },  { 10, all } };
    for (size_t i = 0; i < sizeof heisenberg / sizeof heisenberg[0]; i++) {
        const struct latmc_lattice g = { 3, heisenberg[i].lx, 4, 4, heisenberg[i].lx * 16 };
        assert_int_equal(cpu_heisenberg_dsp_flags(&g, all), heisenberg[i].want);
        assert_int_equal(cpu_heisenberg_dsp_flags(&g, CPU_FLAG_AVX2), CPU_FLAG_AVX2);
    }
}

static void test_sim_create(void **state)
{
    (void)state;
    latmc_ctx *ctx;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    const char *status = latmc_ctx_backend_status(ctx, LATMC_DEVICE_CPU);
    assert_non_null(strstr(status, "SIMD level"));
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_ISING;
    d.ndim = 2;
    d.extent[0] = d.extent[1] = 8;
    d.device = LATMC_DEVICE_CPU;
    latmc_sim *sim = NULL;
    int st = latmc_sim_create(ctx, &d, &sim);
    if (bad_mask_run) {
        assert_int_equal(st, LATMC_EINVAL);
        assert_null(sim);
        assert_non_null(strstr(latmc_last_error(), "LATMC_CPU_MASK"));
        assert_non_null(strstr(latmc_last_error(), "avx3"));
        assert_non_null(strstr(status, "not a level"));
        /* the variable is read per sim: a good value now lets sims be made again */
        setenv("LATMC_CPU_MASK", "c", 1);
        assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
        assert_non_null(strstr(latmc_ctx_backend_status(ctx, LATMC_DEVICE_CPU), "level c"));
        latmc_sim_destroy(&sim);
    } else {
        assert_int_equal(st, LATMC_OK);
        latmc_sim_destroy(&sim);
    }
    latmc_ctx_destroy(&ctx);
}

int main(int argc, char **argv)
{
    bad_mask_run = argc > 1 && strcmp(argv[1], "bad-mask") == 0;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mask_parse),
        cmocka_unit_test(test_levels),
        cmocka_unit_test(test_geometry_levels),
        cmocka_unit_test(test_sim_create),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
