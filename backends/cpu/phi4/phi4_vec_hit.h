/*
 * The Metropolis hit of the phi^4 SIMD levels, written once over the level's primitives:
 * included at the end of phi4_vec_avx2.h and phi4_vec_avx512.h, after vec_S, mask_S,
 * add_S, sub_S, mul_S, neg_S, gt_S, select_S, set1_f, lt_f, unit_f, logn_f, logq_one_f,
 * PHI4_LOGQ_BOUND_F, phi4_iv and the lane-mask primitives mask_or_f, mask_and_f and mask_all_f.
 * Each function performs, lane by lane, the operations of latmc_phi4_hit (lib/phi4.h) in
 * its order, so every level decides as the reference does, bit for bit.
 */
#ifndef LATMC_CPU_PHI4_VEC_HIT_H
#define LATMC_CPU_PHI4_VEC_HIT_H

/*
 * dH of the proposal n = o + step (o the old value, c the neighbour sum times kappa's
 * coefficient, site and quartic the action's coefficients), in the reference's order:
 * dH = (n - o) ((n + o) (site + quartic (n n + o o)) - c). Sets *n.
 */
#define PHI4_DEFINE_DH(S)                                                                         \
    static inline __attribute__((always_inline)) vec_##S dh_##S(                                  \
        vec_##S o, vec_##S step, vec_##S c, vec_##S site, vec_##S quartic, vec_##S *n)           \
    {                                                                                              \
        *n = add_##S(o, step);                                                                     \
        const vec_##S nn_oo = add_##S(mul_##S(*n, *n), mul_##S(o, o));                            \
        const vec_##S inner = add_##S(site, mul_##S(quartic, nn_oo));                             \
        return mul_##S(sub_##S(*n, o), sub_##S(mul_##S(add_##S(*n, o), inner), c));              \
    }
PHI4_DEFINE_DH(f)
PHI4_DEFINE_DH(d)
#undef PHI4_DEFINE_DH

/*
 * One Metropolis hit on W lanes (latmc_phi4_hit): proposal n = o + step (step =
 * epsilon signed(r_eta)), accepted iff -dH > lg (lg = log(unit(r_u))); returns the new
 * values and sets *acc.
 */
#define PHI4_DEFINE_HIT(S)                                                                        \
    static inline __attribute__((always_inline)) vec_##S hit_##S(                                 \
        vec_##S o, vec_##S step, vec_##S lg, vec_##S c, vec_##S site, vec_##S quartic,           \
        mask_##S *acc)                                                                             \
    {                                                                                              \
        vec_##S n;                                                                                 \
        const vec_##S dh = dh_##S(o, step, c, site, quartic, &n);                                 \
        *acc = gt_##S(neg_##S(dh), lg);                                                            \
        return select_##S(*acc, n, o);                                                             \
    }
PHI4_DEFINE_HIT(f)
PHI4_DEFINE_HIT(d)
#undef PHI4_DEFINE_HIT

/* PHI4_LOG_N quick logarithms (float; logq_one_f, the level's polynomial with its bound
 * PHI4_LOGQ_BOUND_F) or exact ones (double: its hit decides on them, logq_d). */
static inline __attribute__((always_inline)) void logq_f(const vec_f x[PHI4_LOG_N],
                                                         vec_f out[PHI4_LOG_N])
{
    for (int i = 0; i < PHI4_LOG_N; i++)
        out[i] = logq_one_f(x[i]);
}

/*
 * hit_f with lq = logq_one_f(unitq_f(r_u)) in place of the exact logarithm; sets *acc to
 * the accepted lanes. With t = RN(dH + lq) and E = PHI4_LOGQ_BOUND_F + PHI4_UNITQ_SLACK_F
 * (phi4_vec_avx2.h proves it; the slack: phi4_vec_avx512.h's unitq_f): t < -E is surely
 * accepted, t > E surely rejected, as the reference decides;
 * a lane neither -- |t| <= E, or NaN -- sends the vector to the exact logarithm (about 4
 * vectors in 10^4), and r_u is read only there.
 */
static inline __attribute__((always_inline)) vec_f hitq_f(vec_f o, vec_f step, vec_f lq,
                                                          vec_f c, vec_f site, vec_f quartic,
                                                          const phi4_iv *r_u, mask_f *acc)
{
    vec_f n;
    const vec_f dh = dh_f(o, step, c, site, quartic, &n);
    const vec_f t = add_f(dh, lq), e = set1_f(PHI4_LOGQ_BOUND_F + PHI4_UNITQ_SLACK_F);
    mask_f a = lt_f(t, neg_f(e));
    if (__builtin_expect(!mask_all_f(mask_or_f(a, gt_f(t, e))), 0)) {
        const vec_f u[PHI4_LOG_N] = { unit_f(*r_u), unit_f(*r_u) };
        vec_f lg[PHI4_LOG_N];
        logn_f(u, lg);
        a = gt_f(neg_f(dh), lg[0]);
    }
    *acc = a;
    return select_f(a, n, o);
}

/*
 * hitq_f on PHI4_HIT_N vectors at once (independent sites), stage by stage: each
 * stage of the N dH chains side by side in the instruction stream, so that the
 * out-of-order core finds independent work at the head of its scheduler (one site's hit is
 * a chain of ~45 cycles of 11 dependent operations; issued group after group, the
 * scheduler filled with the waiting operations of the first groups). Lane for lane the
 * operations of hitq_f, in its order; the exact path where any vector of the N has an
 * undecided lane.
 */
enum { PHI4_HIT_N = 4 };
static inline __attribute__((always_inline)) void hitq_n_f(
    vec_f o[PHI4_HIT_N], const vec_f step[PHI4_HIT_N], const vec_f lq[PHI4_HIT_N],
    const vec_f c[PHI4_HIT_N], vec_f site, vec_f quartic, const phi4_iv r_u[PHI4_HIT_N],
    mask_f acc[PHI4_HIT_N])
{
    enum { N = PHI4_HIT_N };
    vec_f n[N], x[N], dh[N];
    const vec_f e = set1_f(PHI4_LOGQ_BOUND_F + PHI4_UNITQ_SLACK_F), ne = neg_f(e);
#pragma GCC unroll 8
    for (int i = 0; i < N; i++)
        n[i] = add_f(o[i], step[i]);
#pragma GCC unroll 8
    for (int i = 0; i < N; i++)
        x[i] = add_f(mul_f(n[i], n[i]), mul_f(o[i], o[i]));
#pragma GCC unroll 8
    for (int i = 0; i < N; i++)
        x[i] = add_f(site, mul_f(quartic, x[i]));
#pragma GCC unroll 8
    for (int i = 0; i < N; i++)
        x[i] = sub_f(mul_f(add_f(n[i], o[i]), x[i]), c[i]);
#pragma GCC unroll 8
    for (int i = 0; i < N; i++)
        dh[i] = mul_f(sub_f(n[i], o[i]), x[i]);
    mask_f decided[N];
#pragma GCC unroll 8
    for (int i = 0; i < N; i++) {
        const vec_f t = add_f(dh[i], lq[i]);
        acc[i] = lt_f(t, ne);
        decided[i] = mask_or_f(acc[i], gt_f(t, e));
    }
    mask_f all = decided[0];
#pragma GCC unroll 8
    for (int i = 1; i < N; i++)
        all = mask_and_f(all, decided[i]);
    if (__builtin_expect(!mask_all_f(all), 0)) {
        for (int i = 0; i < N; i++) {
            if (mask_all_f(decided[i]))
                continue;
            const vec_f u[PHI4_LOG_N] = { unit_f(r_u[i]), unit_f(r_u[i]) };
            vec_f lg[PHI4_LOG_N];
            logn_f(u, lg);
            acc[i] = gt_f(neg_f(dh[i]), lg[0]);
        }
    }
#pragma GCC unroll 8
    for (int i = 0; i < N; i++)
        o[i] = select_f(acc[i], n[i], o[i]);
}

/* The double hit decides on the exact logarithm (logq_d): lg is log(unit(r_u)) already. */
static inline __attribute__((always_inline)) vec_d hitq_d(vec_d o, vec_d step, vec_d lg,
                                                          vec_d c, vec_d site, vec_d quartic,
                                                          const phi4_iv *r_u, mask_d *acc)
{
    (void)r_u;
    return hit_d(o, step, lg, c, site, quartic, acc);
}

/* hitq_d on PHI4_HIT_N vectors (each already two chains of __m512d or __m256d). */
static inline __attribute__((always_inline)) void hitq_n_d(
    vec_d o[PHI4_HIT_N], const vec_d step[PHI4_HIT_N], const vec_d lg[PHI4_HIT_N],
    const vec_d c[PHI4_HIT_N], vec_d site, vec_d quartic, const phi4_iv r_u[PHI4_HIT_N],
    mask_d acc[PHI4_HIT_N])
{
    for (int i = 0; i < PHI4_HIT_N; i++)
        o[i] = hitq_d(o[i], step[i], lg[i], c[i], site, quartic, &r_u[i], &acc[i]);
}

/*
 * The floats with bit patterns [first, last] (positive normal) where the level's
 * logq_one_f is farther than PHI4_LOGQ_BOUND_F from its exact logarithm (logn_f): the
 * bound the float decisions rely on, for checkasm's phi4.quick_log_f to check over every
 * unit value (each level's own form of the polynomial; the levels export it as
 * cpu_phi4_<level>_logq_violations). Needs <math.h> and <string.h>.
 */
static inline int64_t phi4_logq_violations(uint32_t first, uint32_t last)
{
    enum { N = PHI4_W * PHI4_LOG_N };
    int64_t bad = 0;
    for (uint64_t b = first; b <= last; b += N) {
        float in[N];
        for (int i = 0; i < N; i++) {
            const uint32_t bits = b + (uint64_t)i <= last ? (uint32_t)(b + (uint64_t)i) : last;
            memcpy(&in[i], &bits, sizeof bits);
        }
        vec_f u[PHI4_LOG_N], exact[PHI4_LOG_N];
        for (int v = 0; v < PHI4_LOG_N; v++)
            u[v] = load_f(in + PHI4_W * v);
        logn_f(u, exact);
        for (int v = 0; v < PHI4_LOG_N; v++) {
            float q[PHI4_W], l[PHI4_W];
            store_f(q, logq_one_f(u[v]));
            store_f(l, exact[v]);
            for (int i = 0; i < PHI4_W; i++)
                bad += !(fabs((double)q[i] - (double)l[i]) <= (double)PHI4_LOGQ_BOUND_F);
        }
    }
    return bad;
}

/*
 * The draws r in [first, last] (blocks of W consecutive values every `step`) where the
 * decision's quick logarithm, logq_one_f(unitq_f(r)), is farther than PHI4_LOGQ_BOUND_F +
 * PHI4_UNITQ_SLACK_F from the exact one of the exact unit value, latmc_math_logf(unit(r)):
 * what hitq_f relies on (the slack's argument: phi4_vec_avx512.h's unitq_f), tested on
 * draws, for checkasm's phi4.quick_unit_f (cpu_phi4_<level>_unitq_violations).
 */
static inline int64_t phi4_unitq_violations(uint64_t first, uint64_t last, uint64_t step)
{
    int64_t bad = 0;
    for (uint64_t b = first; b <= last; b += step) {
        uint32_t in[PHI4_W];
        for (int i = 0; i < PHI4_W; i++)
            in[i] = (uint32_t)(b + (uint64_t)i <= last ? b + (uint64_t)i : last);
        phi4_iv r;
        memcpy(&r, in, sizeof r);
        const vec_f exact_u = unit_f(r);
        const vec_f u[PHI4_LOG_N] = { exact_u, exact_u };
        vec_f exact[PHI4_LOG_N];
        logn_f(u, exact);
        float q[PHI4_W], l[PHI4_W];
        store_f(q, logq_one_f(unitq_f(r)));
        store_f(l, exact[0]);
        for (int i = 0; i < PHI4_W; i++)
            bad += !(fabs((double)q[i] - (double)l[i]) <=
                     (double)PHI4_LOGQ_BOUND_F + (double)PHI4_UNITQ_SLACK_F);
    }
    return bad;
}

#endif
