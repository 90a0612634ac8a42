/*
 * Built with -mavx2 (tests/kernels/meson.build), called by test_simd_rules.c only when the
 * CPU has AVX2. Each check evaluates one vector function of the AVX2 kernels
 * (math_avx2.h, phi4_vec_avx2.h, heisenberg_rules_avx2.h) lane by lane against its scalar
 * original (lib/latmc_math.h, lib/phi4.h, heisenberg_rules.h) on dense or random inputs
 * with edge values, and counts the lanes whose bits differ. This sees differences the
 * whole-chain comparison of test_*_kernels.c can miss: a double that differs in its last
 * bit rarely changes the float spin it is rounded to.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "heisenberg_rules_avx2.h"
#include "phi4_vec_avx2.h"
#include "simd_rules.h"

static uint64_t state = UINT64_C(0x2545f4914f6cdd1d);

static uint64_t next(void)
{
    uint64_t z = (state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

static double unit(void)
{
    return (double)(next() >> 11) * 0x1p-53;
}

/* Log-uniform magnitude in [2^lo, 2^hi). */
static double logu(int lo, int hi)
{
    return ldexp(1.0 + unit(), lo + (int)(next() % (uint64_t)(hi - lo)));
}

static long report(const char *what, long bad, long total)
{
    printf("  %-40s %ld of %ld lanes differ\n", what, bad, total);
    return bad;
}

static int same_d(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

static int same_f(float a, float b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* ---- shared math ---- */

static long check_logf(void)
{
    long bad = 0, total = 0;
    float in[2][8], out[2][8];
    int fill = 0;
    /* every third float of [2^-32, 1] (the phi^4 acceptance test's range), then random
     * normal floats */
    for (uint64_t i = 0;; i++) {
        uint32_t b;
        if (i < (0x3f800000u - 0x2f800000u) / 3 + 1)
            b = 0x2f800000u + 3u * (uint32_t)i;
        else if (i < (0x3f800000u - 0x2f800000u) / 3 + 1 + 1000000)
            b = (uint32_t)(next() % (0x7f800000u - 0x00800000u)) + 0x00800000u;
        else
            break;
        memcpy(&in[fill / 8][fill % 8], &b, 4);
        if (++fill == 16) {
            __m256 x[2] = { _mm256_loadu_ps(in[0]), _mm256_loadu_ps(in[1]) }, y[2];
            latmc_logf_avx2_n(x, y);
            _mm256_storeu_ps(out[0], y[0]);
            _mm256_storeu_ps(out[1], y[1]);
            for (int k = 0; k < 16; k++)
                bad += !same_f(out[k / 8][k % 8], latmc_math_logf(in[k / 8][k % 8]));
            total += 16;
            fill = 0;
        }
    }
    return report("latmc_logf_avx2_n", bad, total);
}

static long check_log(void)
{
    long bad = 0, total = 0;
    for (int i = 0; i < 1000000; i++) {
        double in[2][4], out[2][4];
        for (int k = 0; k < 8; k++) {
            double x;
            switch (k % 3) {
            case 0: {
                const uint64_t b =
                    next() % (UINT64_C(0x7ff0000000000000) - UINT64_C(0x0010000000000000)) +
                    UINT64_C(0x0010000000000000);
                memcpy(&x, &b, 8);
                break;
            }
            case 1:
                x = logu(-34, 0);
                break;
            default:
                x = 1.0 + (unit() - 0.5) * ldexp(1.0, -(int)(next() % 50));
                break;
            }
            in[k / 4][k % 4] = x;
        }
        const __m256d x[2] = { _mm256_loadu_pd(in[0]), _mm256_loadu_pd(in[1]) };
        __m256d y[2];
        latmc_log_avx2_n(x, y);
        _mm256_storeu_pd(out[0], y[0]);
        _mm256_storeu_pd(out[1], y[1]);
        for (int k = 0; k < 8; k++)
            bad += !same_d(out[k / 4][k % 4], latmc_math_log(in[k / 4][k % 4]));
        total += 8;
    }
    return report("latmc_log_avx2_n", bad, total);
}

static long check_exp(void)
{
    long bad = 0, total = 0;
    for (int i = 0; i < 1000000; i++) {
        double in[4], p[4], sc[4];
        for (int k = 0; k < 4; k++) {
            switch ((i + k) % 4) {
            case 0:
                in[k] = -800.0 + 1509.0 * unit();
                break;
            case 1:
                in[k] = -1.0 * unit();
                break;
            case 2:
                in[k] = -708.0 - 0.01 * unit();
                break;
            default:
                in[k] = -(unit() - 0.5) * ldexp(1.0, -(int)(next() % 60));
                break;
            }
        }
        if (i == 0) {
            in[0] = 0.0;
            in[1] = -0.0;
            in[2] = -708.0;
            in[3] = -1e300;
        }
        __m256d scale;
        const __m256d pv = latmc_exp_kernel_avx2(_mm256_loadu_pd(in), &scale);
        _mm256_storeu_pd(p, pv);
        _mm256_storeu_pd(sc, scale);
        for (int k = 0; k < 4; k++) {
            double s;
            const double ps = latmc_math_exp_kernel(in[k], &s);
            bad += !same_d(p[k], ps) || !same_d(sc[k], s);
        }
        total += 4;
    }
    return report("latmc_exp_kernel_avx2", bad, total);
}

static long check_sincos(void)
{
    long bad = 0, total = 0;
    for (int i = 0; i < 1000000; i++) {
        double in[4], so[4], co[4];
        for (int k = 0; k < 4; k++)
            in[k] = (i + k) % 2 ? unit() : ((double)(next() >> 32) + 0.5) * 0x1p-32;
        if (i < 2)
            for (int k = 0; k < 4; k++)
                in[k] = 0.125 * (4 * i + k); /* the octant and quadrant points */
        __m256d s, c;
        latmc_sincos_2pi_avx2(_mm256_loadu_pd(in), &s, &c);
        _mm256_storeu_pd(so, s);
        _mm256_storeu_pd(co, c);
        for (int k = 0; k < 4; k++) {
            double ss, cc;
            latmc_math_sincos_2pi(in[k], &ss, &cc);
            bad += !same_d(so[k], ss) || !same_d(co[k], cc);
        }
        total += 4;
    }
    return report("latmc_sincos_2pi_avx2", bad, total);
}

/* ---- phi^4 ---- */

/* Draws: random, and the edges of the conversions' integer splits. */
static uint32_t draw(long i)
{
    static const uint32_t edge[] = { 0u,          1u,          2u,          0xffu,
                                     0x100u,      0x101u,      0x7fffffffu, 0x80000000u,
                                     0x80000001u, 0xfffffeffu, 0xffffff00u, 0xffffff7fu,
                                     0xffffff80u, 0xfffffffeu, 0xffffffffu, 0x00ffffffu,
                                     0x01000000u, 0x7fffff80u, 0x7fffff7fu, 0x8000007fu };
    if (i < (long)(sizeof edge / sizeof edge[0]))
        return edge[i];
    if (i % 5 == 0) /* near multiples of 2^8 .. 2^31, where float rounding ties */
        return (uint32_t)((uint64_t)1 << (8 + next() % 24)) * (uint32_t)(next() % 256) +
               (uint32_t)(next() % 3) - 1u;
    return (uint32_t)next();
}

static long check_phi4_draws(void)
{
    long bad = 0, total = 0;
    for (long i = 0; i < 4000000; i += 8) {
        uint32_t r[8];
        for (int k = 0; k < 8; k++)
            r[k] = draw(i + k);
        const __m256i rv = _mm256_loadu_si256((const __m256i *)r);
        float sf[8], uf[8];
        double sd[8], ud[8];
        store_f(sf, signed_f(rv));
        store_f(uf, unit_f(rv));
        store_d(sd, signed_d(rv));
        store_d(ud, unit_d(rv));
        for (int k = 0; k < 8; k++)
            bad += !same_f(sf[k], latmc_phi4_signed_f(r[k])) ||
                   !same_f(uf[k], latmc_phi4_unit_f(r[k])) ||
                   !same_d(sd[k], latmc_phi4_signed_d(r[k])) ||
                   !same_d(ud[k], latmc_phi4_unit_d(r[k]));
        total += 8;
    }
    return report("phi4 signed8/unit8 (float, double)", bad, total);
}

/* One random field value: ordinary, large, tiny, zero. */
static double field_value(void)
{
    switch (next() % 6) {
    case 0:
        return (unit() - 0.5) * 60.0;
    case 1:
        return (unit() - 0.5) * 1e-20;
    case 2:
        return 0.0;
    default:
        return (unit() - 0.5) * 4.0;
    }
}

/* The whole hit (conversions, log, dH, decision) against latmc_phi4_hit_f/_d. */
static long check_phi4_hit(void)
{
    long bad = 0, total = 0;
    for (int i = 0; i < 300000; i++) {
        struct latmc_phi4_coef_f kf;
        struct latmc_phi4_coef_d kd;
        kd.site = 3.0 + (unit() - 0.5) * 4.0 + (i % 3 ? 0.0 : 20.0 * unit());
        kd.quartic = i % 4 ? unit() * (i % 7 ? 0.1 : 400.0) : 0.0;
        kd.epsilon = i % 5 ? 0.1 + 2.0 * unit() : logu(-20, 10);
        kd.inv_lambda = kd.four_k = 0.0;
        kd.finite_lambda = 0;
        kf.site = (float)kd.site;
        kf.quartic = (float)kd.quartic;
        kf.epsilon = (float)kd.epsilon;
        kf.inv_lambda = kf.four_k = 0.0f;
        kf.finite_lambda = 0;
        float of[8], cf[8];
        double od[8], cd[8];
        uint32_t re[8], ru[8];
        for (int k = 0; k < 8; k++) {
            od[k] = field_value();
            cd[k] = field_value() * 6.0;
            of[k] = (float)od[k];
            cf[k] = (float)cd[k];
            re[k] = draw(8L * i + k);
            ru[k] = (uint32_t)next();
        }
        const __m256i rev = _mm256_loadu_si256((const __m256i *)re);
        const __m256i ruv = _mm256_loadu_si256((const __m256i *)ru);
        {
            vec_f u[2] = { unit_f(ruv), unit_f(ruv) }, lg[2];
            logn_f(u, lg);
            mask_f acc;
            const vec_f n = hit_f(load_f(of), mul_f(set1_f(kf.epsilon), signed_f(rev)), lg[0],
                                    load_f(cf), set1_f(kf.site), set1_f(kf.quartic), &acc);
            float nv[8];
            store_f(nv, n);
            const unsigned bits = bits_f(acc);
            for (int k = 0; k < 8; k++) {
                float phi;
                const int a = latmc_phi4_hit_f(&kf, cf[k], of[k], re[k], ru[k], &phi);
                bad += !same_f(phi, nv[k]) || a != (int)(bits >> k & 1);
            }
        }
        {
            vec_d u[2] = { unit_d(ruv), unit_d(ruv) }, lg[2];
            logn_d(u, lg);
            mask_d acc;
            const vec_d n = hit_d(load_d(od), mul_d(set1_d(kd.epsilon), signed_d(rev)), lg[0],
                                    load_d(cd), set1_d(kd.site), set1_d(kd.quartic), &acc);
            double nv[8];
            store_d(nv, n);
            const unsigned bits = bits_d(acc);
            for (int k = 0; k < 8; k++) {
                double phi;
                const int a = latmc_phi4_hit_d(&kd, cd[k], od[k], re[k], ru[k], &phi);
                bad += !same_d(phi, nv[k]) || a != (int)(bits >> k & 1);
            }
        }
        total += 16;
    }
    return report("phi4 hit (float, double)", bad, total);
}

/* ---- Heisenberg ---- */

static long check_heisenberg_uniform(void)
{
    long bad = 0, total = 0;
    for (long i = 0; i < 1000000; i += 4) {
        uint32_t r[4];
        for (int k = 0; k < 4; k++)
            r[k] = draw(i + k);
        double u[4];
        _mm256_storeu_pd(u, heisenberg_uniform_avx2(_mm_loadu_si128((const __m128i *)r)));
        for (int k = 0; k < 4; k++)
            bad += !same_d(u[k], latmc_heisenberg_uniform(r[k]));
        total += 4;
    }
    return report("heisenberg_uniform_avx2", bad, total);
}

/* a over every branch of the cos theta inversion and its edges. */
static double heisenberg_a(int i)
{
    switch (i % 9) {
    case 0:
        return 0.0;
    case 1:
        return logu(-1000, -27); /* below 1e-8 */
    case 2:
        return 1e-8 * (1.0 + (unit() - 0.5) * 1e-6);
    case 3:
        return logu(-27, -1); /* log1p branch */
    case 4:
        return 0.5 * (1.0 + (unit() - 0.5) * 1e-6);
    case 5:
        return 0.5 + 20.0 * unit();
    case 6:
        return 354.0 + (unit() - 0.5) * 0.1; /* exp(-2a) flushed to 0 below -708 */
    case 7:
        return logu(5, 600);
    default:
        return 0.5 + 3.0 * unit();
    }
}

static long check_heisenberg_sample_cos(void)
{
    long bad = 0, total = 0;
    for (int i = 0; i < 500000; i++) {
        double a[8], u[8], x[8];
        for (int k = 0; k < 8; k++) {
            a[k] = heisenberg_a(8 * i + k);
            u[k] = latmc_heisenberg_uniform(draw(8L * i + k));
        }
        const __m256d av[2] = { _mm256_loadu_pd(a), _mm256_loadu_pd(a + 4) };
        const __m256d uv[2] = { _mm256_loadu_pd(u), _mm256_loadu_pd(u + 4) };
        __m256d xv[2];
        heisenberg_sample_cos_pair_avx2(av, uv, xv);
        _mm256_storeu_pd(x, xv[0]);
        _mm256_storeu_pd(x + 4, xv[1]);
        for (int k = 0; k < 8; k++)
            bad += !same_d(x[k], latmc_heisenberg_sample_cos(a[k], u[k]));
        total += 8;
    }
    return report("heisenberg_sample_cos_pair_avx2", bad, total);
}

/* A local field: random direction and size, axis-aligned and diagonal ones (ties in the
 * frame's choice of axis), zero, tiny, huge. */
static void heisenberg_field(int i, double f[3])
{
    static const double dir[][3] = { { 0, 0, 1 },  { 1, 0, 0 }, { 0, -1, 0 },  { 1, 1, 0 },
                                     { 1, -1, 1 }, { 0, 1, 1 }, { -1, 0, -1 }, { 0, 0, 0 } };
    const double size = i % 4 == 0 ? logu(-40, 40) : 0.1 + 5.0 * unit();
    if (i % 3 == 0) {
        const int d = (int)(next() % 8);
        for (int c = 0; c < 3; c++)
            f[c] = dir[d][c] * size;
        return;
    }
    for (int c = 0; c < 3; c++)
        f[c] = (unit() - 0.5) * size;
}

static long check_heisenberg_heatbath(void)
{
    long bad = 0, total = 0;
    static const double betas[] = { 0.0, 1e-9, 0.05, 0.7, 1.0, 3.0, 50.0, 1e6 };
    for (int i = 0; i < 200000; i++) {
        const double beta = betas[i % 8];
        double f[2][3][4], uc[8], up[8];
        for (int k = 0; k < 8; k++) {
            double fk[3];
            heisenberg_field(8 * i + k, fk);
            for (int c = 0; c < 3; c++)
                f[k / 4][c][k % 4] = fk[c];
            uc[k] = latmc_heisenberg_uniform(draw(8L * i + k));
            up[k] = latmc_heisenberg_uniform((uint32_t)next());
        }
        __m256d fv[2][3], out[2][3];
        for (int v = 0; v < 2; v++)
            for (int c = 0; c < 3; c++)
                fv[v][c] = _mm256_loadu_pd(f[v][c]);
        const __m256d ucv[2] = { _mm256_loadu_pd(uc), _mm256_loadu_pd(uc + 4) };
        const __m256d upv[2] = { _mm256_loadu_pd(up), _mm256_loadu_pd(up + 4) };
        heisenberg_heatbath_pair_avx2(fv, beta, ucv, upv, out);
        for (int k = 0; k < 8; k++) {
            double o[3][4];
            for (int c = 0; c < 3; c++)
                _mm256_storeu_pd(o[c], out[k / 4][c]);
            const double fk[3] = { f[k / 4][0][k % 4], f[k / 4][1][k % 4], f[k / 4][2][k % 4] };
            float s[3];
            latmc_heisenberg_heatbath_spin(fk, beta, uc[k], up[k], s);
            for (int c = 0; c < 3; c++)
                bad += !same_d(o[c][k % 4], (double)s[c]);
        }
        total += 8;
    }
    return report("heisenberg_heatbath_pair_avx2", bad, total);
}

static long check_heisenberg_overrelax(void)
{
    long bad = 0, total = 0;
    for (int i = 0; i < 200000; i++) {
        double f[HEISENBERG_V][3][4], s[HEISENBERG_V][3][4];
        for (int k = 0; k < 4 * HEISENBERG_V; k++) {
            double fk[3], sk[3];
            heisenberg_field(4 * HEISENBERG_V * i + k, fk);
            heisenberg_field(4 * HEISENBERG_V * i + k + 1, sk);
            double n = sqrt(sk[0] * sk[0] + sk[1] * sk[1] + sk[2] * sk[2]);
            if (!(n > 0)) {
                sk[0] = sk[1] = 0.0;
                sk[2] = n = 1.0;
            }
            for (int c = 0; c < 3; c++) {
                f[k / 4][c][k % 4] = fk[c];
                s[k / 4][c][k % 4] = (float)(sk[c] / n);
            }
        }
        __m256d fv[HEISENBERG_V][3], sv[HEISENBERG_V][3], out[HEISENBERG_V][3];
        for (int v = 0; v < HEISENBERG_V; v++)
            for (int c = 0; c < 3; c++) {
                fv[v][c] = _mm256_loadu_pd(f[v][c]);
                sv[v][c] = _mm256_loadu_pd(s[v][c]);
            }
        heisenberg_overrelax_avx2(fv, sv, out);
        for (int k = 0; k < 4 * HEISENBERG_V; k++) {
            double o[3][4];
            for (int c = 0; c < 3; c++)
                _mm256_storeu_pd(o[c], out[k / 4][c]);
            const double fk[3] = { f[k / 4][0][k % 4], f[k / 4][1][k % 4], f[k / 4][2][k % 4] };
            float sp[3] = { (float)s[k / 4][0][k % 4], (float)s[k / 4][1][k % 4],
                            (float)s[k / 4][2][k % 4] };
            latmc_heisenberg_overrelax_spin(fk, sp);
            for (int c = 0; c < 3; c++)
                bad += !same_d(o[c][k % 4], (double)sp[c]);
        }
        total += 4 * HEISENBERG_V;
    }
    return report("heisenberg_overrelax_avx2", bad, total);
}

long simd_rules_check_avx2(void)
{
    return check_logf() + check_log() + check_exp() + check_sincos() + check_phi4_draws() +
           check_phi4_hit() + check_heisenberg_uniform() + check_heisenberg_sample_cos() +
           check_heisenberg_heatbath() + check_heisenberg_overrelax();
}
