/*
 * The CPU's reduction of a phi^4 field (backends/cpu/phi4/phi4_measure_impl.h, every
 * measurement of the CPU backend and, through the CUDA kernels that copy its order, of the
 * GPU's) against the definition typed in here from doc/models/phi4.md ("Observables"):
 * per row (fixed y, z), site by site in x order from zero, S1 += v, S2 += v^2, S4 += v^4,
 * G += (phi(x + mu) - phi(x))^2 for mu in axis order, L += (sum over mu in axis order, from
 * zero, of phi(x + mu) - 2 phi(x) + phi(x - mu))^2, with periodic neighbours; each plane
 * along the last axis its rows added in order from zero. Bit for bit, in float and double,
 * 2D and 3D, extents of 5 to 24 and rows of 1040, every plane and a range of planes, 1 and
 * 2 threads, the field in natural order and colour-transposed (the SIMD levels' layout,
 * phi4_dsp.h, measured in place).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "phi4_dsp.h"
#include "phi4_ref.h"
#include "sim_helpers.h"

struct shape {
    int ndim;
    int64_t L[3];
};

/* Site (x, y, z)'s value, the extents periodic. */
static double at(const struct shape *s, const double *phi, int64_t x, int64_t y, int64_t z)
{
    x = (x % s->L[0] + s->L[0]) % s->L[0];
    y = (y % s->L[1] + s->L[1]) % s->L[1];
    z = (z % s->L[2] + s->L[2]) % s->L[2];
    return phi[x + s->L[0] * (y + s->L[1] * z)];
}

/* The definition: plane p's five sums (S1, S2, S4, G, L) into out. */
static void plane_sums(const struct shape *s, const double *phi, int64_t p, double out[5])
{
    double plane[5] = { 0, 0, 0, 0, 0 };
    const int64_t rows = s->ndim == 3 ? s->L[1] : 1;
    for (int64_t r = 0; r < rows; r++) {
        const int64_t y = s->ndim == 3 ? r : p, z = s->ndim == 3 ? p : 0;
        double row[5] = { 0, 0, 0, 0, 0 };
        for (int64_t x = 0; x < s->L[0]; x++) {
            const double v = at(s, phi, x, y, z);
            double lap = 0;
            for (int mu = 0; mu < s->ndim; mu++) {
                const int64_t dx = mu == 0, dy = mu == 1, dz = mu == 2;
                const double up = at(s, phi, x + dx, y + dy, z + dz);
                const double down = at(s, phi, x - dx, y - dy, z - dz);
                row[3] += (up - v) * (up - v);
                lap += up - 2.0 * v + down;
            }
            row[0] += v;
            row[1] += v * v;
            row[2] += (v * v) * (v * v);
            row[4] += lap * lap;
        }
        for (int k = 0; k < 5; k++)
            plane[k] += row[k];
    }
    memcpy(out, plane, sizeof plane);
}

static void against_definition(void **state)
{
    (void)state;
    static const struct shape shapes[] = {
        { 2, { 5, 10, 1 } },  { 2, { 8, 16, 1 } },  { 2, { 40, 15, 1 } },
        { 3, { 8, 8, 16 } },  { 3, { 16, 8, 8 } },  { 3, { 24, 16, 8 } },
        { 2, { 1040, 10, 1 } },
    };
    uint64_t rng = 12345;
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++) {
        const struct shape *s = &shapes[k];
        const int64_t n = s->L[0] * s->L[1] * s->L[2];
        const int64_t planes = s->L[s->ndim - 1], rows = n / s->L[0];
        struct latmc_lattice lat = { s->ndim, s->L[0], s->L[1], s->L[2], n };
        const struct phi4_geom g = phi4_geom_of(&lat);
        double *d = malloc((size_t)n * sizeof *d);
        double *want = malloc((size_t)planes * 5 * sizeof *want);
        float *f = malloc((size_t)n * sizeof *f);
        double *fd = malloc((size_t)n * sizeof *fd);
        double *partials = malloc((size_t)rows * 5 * sizeof *partials);
        struct latmc_phi4_sums *got = malloc((size_t)planes * sizeof *got);
        /* the same fields colour-transposed (the SIMD levels' layout) */
        double *dt = malloc((size_t)n * sizeof *dt);
        float *ft = malloc((size_t)n * sizeof *ft);
        assert_true(d && want && f && fd && partials && got && dt && ft);
        const int transposable = s->L[0] % g.colouring.ncolours == 0;
        for (int64_t i = 0; i < n; i++) { /* values of several sizes, both signs */
            const double u = (double)(test_rng_next(&rng) >> 11) * 0x1p-53;
            d[i] = (2 * u - 1) * ldexp(1.0, (int)(test_rng_next(&rng) % 6) - 2);
            f[i] = (float)d[i];
            fd[i] = f[i];
        }
        if (transposable) {
            cpu_phi4_to_transposed(&g, d, dt, (int)sizeof *d, 1);
            cpu_phi4_to_transposed(&g, f, ft, (int)sizeof *f, 1);
        }
        for (int single = 0; single < 2; single++) {
            for (int64_t p = 0; p < planes; p++)
                plane_sums(s, single ? fd : d, p, want + 5 * p);
            for (int threads = 1; threads <= 2; threads++) {
                /* every plane, then planes [1, planes - 1); natural order, then (where
                 * the colouring divides L_x) colour-transposed */
                for (int part = 0; part < 4; part++) {
                    const int64_t p0 = part % 2, p1 = planes - part % 2;
                    const int tr = part >= 2;
                    if (tr && !transposable)
                        break;
                    if (single && tr)
                        cpu_phi4_measure_planes_transposed_f(&g, ft, partials, p0, p1, got,
                                                             threads);
                    else if (single)
                        cpu_phi4_measure_planes_f(&g, f, partials, p0, p1, got, threads);
                    else if (tr)
                        cpu_phi4_measure_planes_transposed_d(&g, dt, partials, p0, p1, got,
                                                             threads);
                    else
                        cpu_phi4_measure_planes_d(&g, d, partials, p0, p1, got, threads);
                    for (int64_t p = p0; p < p1; p++) {
                        const double have[5] = { got[p - p0].phi, got[p - p0].phi2,
                                                 got[p - p0].phi4, got[p - p0].grad2,
                                                 got[p - p0].lap2 };
                        if (memcmp(have, want + 5 * p, sizeof have) != 0)
                            fail_msg("%dD %lldx%lldx%lld %s%s plane %lld (planes %lld..%lld, "
                                     "%d threads): got %.17g %.17g %.17g %.17g %.17g, want "
                                     "%.17g %.17g %.17g %.17g %.17g", s->ndim,
                                     (long long)s->L[0], (long long)s->L[1], (long long)s->L[2],
                                     single ? "float" : "double", tr ? " transposed" : "",
                                     (long long)p, (long long)p0,
                                     (long long)p1, threads, have[0], have[1], have[2], have[3],
                                     have[4], want[5 * p], want[5 * p + 1], want[5 * p + 2],
                                     want[5 * p + 3], want[5 * p + 4]);
                    }
                }
            }
        }
        free(d);
        free(want);
        free(f);
        free(fd);
        free(partials);
        free(got);
        free(dt);
        free(ft);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(against_definition),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
