/*
 * The bit-sliced decisions (lib/bitslice_decision.h, lib/ising_decision_rules.h) against
 * their definition (doc/models/ising-decisions.md): lane i accepts iff u_i < t_i, u_i the
 * 32-bit number whose bit 31 - b is bit i of plane word b. The test builds u_i itself from
 * the words and compares as plain integers, so it proves the rule is today's comparison
 * "u < t" on that u; the statistics of the planes drawn and of the decisions are compared
 * with their exact values.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdio.h>

#include "ising_decision_rules.h"

#define TWO32 (UINT64_C(1) << 32)

/* A small independent generator for the test's inputs (splitmix64). */
static uint64_t next64(uint64_t *s)
{
    uint64_t z = (*s += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* u of lane i from the plane words: bit 31 - b of u is bit i of w[b]. */
static uint32_t lane_number(const uint32_t w[32], int i)
{
    uint32_t u = 0;
    for (int b = 0; b < 32; b++)
        u |= ((w[b] >> i) & 1u) << (31 - b);
    return u;
}

/* The scalar definition: the accept mask of the active lanes. */
static uint32_t scalar_mask(const uint64_t t[32], const uint32_t w[32], uint32_t active)
{
    uint32_t m = 0;
    for (int i = 0; i < 32; i++)
        if ((active >> i) & 1u)
            m |= (uint32_t)((uint64_t)lane_number(w, i) < t[i]) << i;
    return m;
}

/* The planes the comparison needs: the deepest first difference of an undecided lane. */
static int scalar_planes(const uint64_t t[32], const uint32_t w[32], uint32_t active)
{
    int need = 0;
    for (int i = 0; i < 32; i++) {
        if (!((active >> i) & 1u) || t[i] == 0 || t[i] == TWO32)
            continue;
        const uint32_t diff = lane_number(w, i) ^ (uint32_t)t[i];
        int first = 1; /* planes through the first difference; 32 if none */
        while (first < 32 && !((diff >> (32 - first)) & 1u))
            first++;
        if (first > need)
            need = first;
    }
    return need;
}

static void check_case(const uint64_t t[32], const uint32_t w[32], uint32_t active)
{
    int planes = -1;
    const uint32_t got = latmc_bitslice_decide_words(t, active, w, &planes);
    assert_int_equal(got, scalar_mask(t, w, active));
    assert_int_equal(planes, scalar_planes(t, w, active));
}

/* Random words; each lane's threshold random, or u_i itself, u_i +- 1, u_i with its low k
 * bits changed (agreeing on the top 32 - k planes), 0 or 2^32. */
static void test_against_scalar(void **state)
{
    (void)state;
    uint64_t s = 12345;
    for (int rep = 0; rep < 20000; rep++) {
        uint32_t w[32];
        uint64_t t[32];
        for (int b = 0; b < 32; b++)
            w[b] = (uint32_t)next64(&s);
        for (int i = 0; i < 32; i++) {
            const uint64_t u = lane_number(w, i), r = next64(&s);
            const int k = (int)(r >> 59); /* 0 .. 31 */
            switch ((r >> 8) % 8) {
            case 0: t[i] = (uint32_t)r; break;
            case 1: t[i] = u; break;
            case 2: t[i] = u + 1; break;                      /* up to 2^32 */
            case 3: t[i] = u ? u - 1 : 0; break;
            case 4: t[i] = u ^ ((uint32_t)(r >> 16) & ((UINT32_C(1) << k) - 1)); break;
            case 5: t[i] = 0; break;
            case 6: t[i] = TWO32; break;
            default: t[i] = (uint32_t)(r >> 32) >> k; break;  /* small thresholds */
            }
        }
        const uint32_t active = rep % 3 ? UINT32_MAX : (uint32_t)next64(&s);
        check_case(t, w, active);
    }
}

/* Pairs (u, t) whose first difference is at plane d (0 .. 31, or none: u = t), in every
 * lane, u's bit there 0 or 1 as the words fall: every depth of the comparison. */
static void test_every_depth(void **state)
{
    (void)state;
    uint64_t s = 777;
    for (int d = 0; d <= 32; d++) {
        for (int rep = 0; rep < 8; rep++) {
            uint32_t w[32];
            uint64_t t[32];
            for (int b = 0; b < 32; b++)
                w[b] = (uint32_t)next64(&s);
            for (int i = 0; i < 32; i++) {
                uint32_t u = lane_number(w, i);
                uint32_t ti = u;
                if (d < 32) {
                    /* flip bit 31 - d of t and randomise below it */
                    ti ^= UINT32_C(1) << (31 - d);
                    const uint32_t low = d < 31 ? (UINT32_C(1) << (31 - d)) - 1 : 0;
                    ti = (ti & ~low) | ((uint32_t)next64(&s) & low);
                }
                t[i] = ti;
            }
            check_case(t, w, UINT32_MAX);
        }
    }
}

/* t = 0 never accepts, t = 2^32 always, whatever the words (all zeros: u = 0 < t for every
 * t > 0; all ones: u = 2^32 - 1). */
static void test_extremes(void **state)
{
    (void)state;
    const uint32_t fills[2] = { 0, UINT32_MAX };
    for (int f = 0; f < 2; f++) {
        uint32_t w[32];
        uint64_t t[32];
        for (int b = 0; b < 32; b++)
            w[b] = fills[f];
        for (int i = 0; i < 32; i++)
            t[i] = i % 2 ? TWO32 : 0;
        int planes = -1;
        assert_int_equal(latmc_bitslice_decide_words(t, UINT32_MAX, w, &planes),
                         UINT32_C(0xaaaaaaaa));
        assert_int_equal(planes, 0); /* decided before any plane */
        for (int i = 0; i < 32; i++)
            t[i] = i % 2 ? TWO32 - 1 : 1; /* the extremes of the comparison itself */
        check_case(t, w, UINT32_MAX);
        /* u = 0 accepts t = 1; u = 2^32 - 1 accepts t = 2^32 - 1 never, t = 1 never */
        assert_int_equal(latmc_bitslice_decide_words(t, UINT32_MAX, w, &planes),
                         f == 0 ? UINT32_MAX : 0u);
        assert_int_equal(planes, 32);
    }
}

/* The library's group rule draws plane b as output b mod 4 of block (group, sweep,
 * UPDATE, phase colour, sub b / 4): rebuilt here from the Philox function and the counter
 * layout of doc/conventions.md. */
static void test_group_naming(void **state)
{
    (void)state;
    const uint64_t seed = UINT64_C(0x1234567890abcdef);
    uint64_t s = 99;
    for (int rep = 0; rep < 300; rep++) {
        const uint64_t group = next64(&s) >> 20, sweep = next64(&s) >> 17;
        const int colour = rep & 1;
        uint64_t t[32];
        for (int i = 0; i < 32; i++)
            t[i] = (uint32_t)next64(&s) >> (rep % 5);
        uint32_t w[32];
        const latmc_philox_key key = { { (uint32_t)seed, (uint32_t)(seed >> 32) } };
        for (int b = 0; b < 32; b++) {
            const latmc_philox_ctr c = { { (uint32_t)group,
                                           (uint32_t)((group >> 32) & 0xffff) |
                                               (uint32_t)((sweep >> 32) << 16),
                                           (uint32_t)sweep,
                                           ((uint32_t)colour << 16) | (uint32_t)(b / 4) } };
            w[b] = latmc_philox4x32_10(c, key).v[b % 4];
        }
        int planes = -1;
        const uint32_t got = latmc_ising_group_decide(t, UINT32_MAX, seed, sweep, colour, group,
                                                      &planes);
        assert_int_equal(got, scalar_mask(t, w, UINT32_MAX));
        assert_int_equal(planes, scalar_planes(t, w, UINT32_MAX));
    }
}

/* The class form gives the lane form's decisions and planes: random lanes in up to 14
 * classes (the Metropolis tables' count), thresholds with 0 and 2^32 among them. */
static void test_classes(void **state)
{
    (void)state;
    uint64_t s = 2718;
    for (int rep = 0; rep < 3000; rep++) {
        uint64_t ct[14], t[32];
        uint32_t mask[14] = { 0 };
        const int n = 1 + (int)(next64(&s) % 14);
        for (int c = 0; c < n; c++) {
            const uint64_t r = next64(&s);
            ct[c] = r % 9 == 0 ? 0 : r % 9 == 1 ? TWO32 : (uint32_t)(r >> 32) >> (r % 7);
        }
        uint32_t active = 0;
        for (int i = 0; i < 32; i++) {
            const uint64_t r = next64(&s);
            if (r % 11 == 0) {
                t[i] = 0; /* not in any class: no part */
                continue;
            }
            const int c = (int)((r >> 8) % (uint64_t)n);
            mask[c] |= UINT32_C(1) << i;
            t[i] = ct[c];
            active |= UINT32_C(1) << i;
        }
        int p1 = -1, p2 = -2;
        const uint32_t a = latmc_ising_group_decide(t, active, 77, (uint64_t)rep, rep & 1,
                                                    (uint64_t)rep * 3, &p1);
        const struct latmc_ising_plane_names names =
            latmc_ising_plane_names_of(77, (uint64_t)rep, rep & 1);
        const uint32_t b = latmc_ising_group_decide_classes(ct, mask, n, &names,
                                                            (uint64_t)rep * 3, &p2);
        assert_int_equal(a, b);
        assert_int_equal(p1, p2);
    }
}

/*
 * Planes per group: a lane with 0 < t < 2^32 is still undecided after b planes with
 * probability exactly 2^-b, so a group of n such lanes needs more than b planes with
 * probability 1 - (1 - 2^-b)^n and E[planes] = sum_b [1 - (1 - 2^-b)^n]. Measured over
 * Philox draws, for all 32 lanes generic (heat bath) and for the 2D Metropolis mix at
 * T_c (about half of the lanes have t = 2^32).
 */
static double expected_planes(int n)
{
    double e = 0;
    for (int b = 0; b < 32; b++)
        e += 1.0 - pow(1.0 - ldexp(1.0, -b), n);
    return e;
}

static void test_plane_statistics(void **state)
{
    (void)state;
    const int groups = 100000;
    uint64_t s = 4242;
    for (int mix = 0; mix < 2; mix++) {
        double sum = 0, sum2 = 0, expect = 0;
        for (int g = 0; g < groups; g++) {
            uint64_t t[32];
            int generic = 0;
            for (int i = 0; i < 32; i++) {
                const uint64_t r = next64(&s);
                if (mix == 0 || r % 2) {
                    t[i] = 1 + (uint32_t)(r >> 32) % (uint32_t)UINT32_MAX; /* 0 < t < 2^32 */
                    generic++;
                } else {
                    t[i] = TWO32;
                }
            }
            int planes;
            latmc_ising_group_decide(t, UINT32_MAX, 2024, 7, mix, (uint64_t)g, &planes);
            sum += planes;
            sum2 += (double)planes * planes;
            expect += expected_planes(generic);
        }
        const double mean = sum / groups, var = sum2 / groups - mean * mean;
        const double err = sqrt(var / groups);
        printf("# planes per group (%s): measured %.4f +- %.4f, exact %.4f\n",
               mix ? "half the lanes always accept" : "32 generic lanes", mean, err,
               expect / groups);
        assert_true(fabs(mean - expect / groups) < 5 * err);
    }
    printf("# exact mean for 32 generic lanes: %.4f planes\n", expected_planes(32));
}

/*
 * The decisions themselves: per threshold class, the accept frequency against t / 2^32
 * (chi^2 over classes); between lanes of one group and between the lanes of consecutive
 * groups, the joint frequency of two accepts against the product (independence).
 */
static void test_decision_statistics(void **state)
{
    (void)state;
    /* the five heat-bath thresholds of 2D Ising at beta = 0.44 and two extremes */
    const double beta = 0.44;
    uint64_t cls[7];
    double p[7];
    for (int k = 0; k < 5; k++) {
        p[k] = 1.0 / (1.0 + exp(-2.0 * beta * (2 * k - 4)));
        cls[k] = (uint64_t)ldexp(p[k], 32);
        p[k] = ldexp((double)cls[k], -32); /* exactly t / 2^32 */
    }
    cls[5] = 1;         p[5] = ldexp(1.0, -32);
    cls[6] = TWO32 - 1; p[6] = 1.0 - ldexp(1.0, -32);
    const int groups = 40000;
    double n[7] = { 0 }, acc[7] = { 0 };
    /* pairs of decisions, both of class 0 .. 4: [0] lanes 2i and 2i + 1 of one word, [1]
     * lanes i and i + 16, [2] lane i of consecutive groups (other Philox blocks) */
    double pair_both[3] = { 0 }, pair_p[3] = { 0 };
    uint32_t prev_m = 0;
    int prev_c[32];
    uint64_t s = 31337;
    for (int g = 0; g < groups; g++) {
        uint64_t t[32];
        int c[32];
        for (int i = 0; i < 32; i++) {
            c[i] = (int)(next64(&s) % 7);
            t[i] = cls[c[i]];
        }
        int planes;
        const uint32_t m = latmc_ising_group_decide(t, UINT32_MAX, 555, 3, 1, (uint64_t)g,
                                                    &planes);
        for (int i = 0; i < 32; i++) {
            n[c[i]] += 1;
            acc[c[i]] += (m >> i) & 1u;
        }
        for (int i = 0; i < 32; i++) {
            const int j[3] = { i % 2 == 0 ? i + 1 : -1, i < 16 ? i + 16 : -1, g > 0 ? i : -1 };
            const uint32_t other[3] = { m, m, prev_m };
            const int *oc[3] = { c, c, prev_c };
            for (int kind = 0; kind < 3; kind++) {
                if (j[kind] < 0 || c[i] >= 5 || oc[kind][j[kind]] >= 5)
                    continue;
                pair_both[kind] += (m >> i) & (other[kind] >> j[kind]) & 1u;
                pair_p[kind] += p[c[i]] * p[oc[kind][j[kind]]];
            }
        }
        prev_m = m;
        for (int i = 0; i < 32; i++)
            prev_c[i] = c[i];
    }
    double chi2 = 0;
    for (int k = 0; k < 5; k++) {
        const double e = n[k] * p[k];
        chi2 += (acc[k] - e) * (acc[k] - e) / (e * (1 - p[k]));
    }
    /* 5 degrees of freedom: P(chi^2 > 25) = 1.4e-4 */
    printf("# accept frequency per class: chi^2 = %.2f (5 dof)\n", chi2);
    assert_true(chi2 < 25.0);
    /* the extreme classes: p = 2^-32 and 1 - 2^-32 over ~2e5 lanes each */
    assert_true(acc[5] <= 1.0);
    assert_true(n[6] - acc[6] <= 1.0);
    /* independence: joint accepts against the product of the probabilities (the count's
     * variance is at most its expectation) */
    static const char *const what[3] = { "lanes 2i, 2i + 1", "lanes i, i + 16",
                                         "lane i of consecutive groups" };
    for (int kind = 0; kind < 3; kind++) {
        printf("# %s: both accept %.0f, independent expectation %.1f\n", what[kind],
               pair_both[kind], pair_p[kind]);
        assert_true(fabs(pair_both[kind] - pair_p[kind]) < 5 * sqrt(pair_p[kind]));
    }
}

/*
 * Across planes. (a) The bits of one lane in two planes -- neighbours in one Philox output
 * group (b, b + 1), across two blocks (3, 4) and (7, 8), far apart (0, 12) -- against four
 * equally likely pairs (chi^2, 3 dof each). (b) The decisions made past plane 8 (the
 * third Philox call and later, a group's tail): a lane whose u agrees with t on planes
 * 0 .. 7 accepts with probability (t mod 2^24) / 2^24, whatever happened on the planes
 * before; counted over lanes of one threshold, against that.
 */
static void test_plane_statistics_across(void **state)
{
    (void)state;
    static const int pairs[4][2] = { { 0, 1 }, { 3, 4 }, { 7, 8 }, { 0, 12 } };
    double cell[4][4] = { { 0 } };
    const uint64_t t = UINT64_C(0x5a3c0f99); /* the top 8 bits 0x5a; low 24: 0x3c0f99 */
    const double p_tail = ldexp((double)(t & 0xffffffu), -24);
    double tail_n = 0, tail_acc = 0;
    const struct latmc_ising_plane_names names = latmc_ising_plane_names_of(4242, 17, 1);
    const int groups = 30000;
    for (int g = 0; g < groups; g++) {
        uint32_t w[16];
        for (int q = 0; q < 4; q++) {
            const latmc_philox_ctr r = latmc_ising_plane_block(&names, (uint64_t)g, q);
            for (int l = 0; l < 4; l++)
                w[4 * q + l] = r.v[l];
        }
        for (int k = 0; k < 4; k++)
            for (int i = 0; i < 32; i++)
                cell[k][2 * ((w[pairs[k][0]] >> i) & 1u) + ((w[pairs[k][1]] >> i) & 1u)] += 1;
        /* lanes agreeing with t on planes 0 .. 7: their decisions come from planes 8 on */
        uint32_t agree = UINT32_MAX;
        for (int b = 0; b < 8; b++)
            agree &= ~(w[b] ^ (0u - (uint32_t)((t >> (31 - b)) & 1u)));
        if (!agree)
            continue;
        uint64_t tt[32];
        for (int i = 0; i < 32; i++)
            tt[i] = t;
        int planes;
        const uint32_t m = latmc_ising_group_decide_classes(&t, &agree, 1, &names,
                                                            (uint64_t)g, &planes);
        assert_true(planes > 8);
        assert_int_equal(m, latmc_ising_group_decide(tt, agree, 4242, 17, 1, (uint64_t)g,
                                                     &planes));
        for (int i = 0; i < 32; i++)
            if ((agree >> i) & 1u) {
                tail_n += 1;
                tail_acc += (m >> i) & 1u;
            }
    }
    for (int k = 0; k < 4; k++) {
        const double e = 32.0 * groups / 4;
        double chi2 = 0;
        for (int c = 0; c < 4; c++)
            chi2 += (cell[k][c] - e) * (cell[k][c] - e) / e;
        /* 3 degrees of freedom: P(chi^2 > 21) = 1.1e-4 */
        printf("# lane bits of planes %d and %d: chi^2 = %.2f (3 dof)\n", pairs[k][0],
               pairs[k][1], chi2);
        assert_true(chi2 < 21.0);
    }
    const double sd = sqrt(tail_n * p_tail * (1 - p_tail));
    printf("# decided past plane 8: %.0f of %.0f lanes accept, expected %.1f +- %.1f\n",
           tail_acc, tail_n, tail_n * p_tail, sd);
    assert_true(tail_n > 2000); /* 32 x 30000 / 256 expected */
    assert_true(fabs(tail_acc - tail_n * p_tail) < 5 * sd);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_against_scalar),
        cmocka_unit_test(test_every_depth),
        cmocka_unit_test(test_extremes),
        cmocka_unit_test(test_group_naming),
        cmocka_unit_test(test_classes),
        cmocka_unit_test(test_plane_statistics),
        cmocka_unit_test(test_decision_statistics),
        cmocka_unit_test(test_plane_statistics_across),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
