/*
 * The shared transcendental functions of lib/latmc_math.h (logf, log, the exp kernel,
 * sincos(2 pi u)), written once over one SIMD level's primitives: each performs, in every
 * lane, exactly the rounded operations of its scalar original in the same order (the exact
 * steps -- exponent extraction, power-of-two scaling, integer conversions -- by other
 * exact means), so the results are bit-identical to the scalar ones. Any change to the
 * scalar originals must be made here; the kernels test suite compares whole Markov chains.
 *
 * Included by math_avx2.h and math_avx512.h, which define before the inclusion (and this
 * file undefines after it):
 *   LATMC_MATH_ISA       the suffix of the functions' names (avx2, avx512);
 *   LATMC_MATH_LOG_N     logarithms per call (LATMC_LOG_<ISA>_N);
 *   MV_F, MV_D, MV_I     a vector of floats, of doubles, of integers;
 *   MV_<op>_F, _D        set1, add, sub, mul, div (one rounding each); MV_CVT_I32_F;
 *   MV_<op>_I            set1_32, set1_64, sub32, add64, and, or, srli32, srli64, slli64;
 *   MV_CAST_<a>_<b>      bit casts between the three;
 *   MV_XOR_D             sign flips;
 * and the steps whose exact means differ by level (compares into vectors of all-ones lanes
 * or into mask registers):
 *   MV_HALVE_BIG_F(mb, e)   where m (bits mb, 32-bit lanes) > sqrt 2: halve m, raise e;
 *   MV_HALVE_BIG_D(mb, k)   the same on 64-bit lanes, raising the double k by 1.0;
 *   MV_CLAMP_BELOW_D(x, lim) x < lim ? lim : x;
 *   MV_M, MV_ODD_QUADRANT(quad, one) a lane mask: (quad & one) == one (64-bit lanes);
 *   MV_SELECT_D(m, a, b)    m ? b : a.
 */

#define LATMC_MATH_CAT2_(a, b, c) a##b##c
#define LATMC_MATH_CAT_(a, b, c) LATMC_MATH_CAT2_(a, b, c)
#define LATMC_MATH_FN_(head, tail) LATMC_MATH_CAT_(head, LATMC_MATH_ISA, tail)
#define LATMC_MATH_EACH_ _Pragma("GCC unroll 4") for (int i_ = 0; i_ < LATMC_MATH_LOG_N; i_++)

/*
 * latmc_math_logf on LATMC_MATH_LOG_N vectors of positive normal floats at once, step by
 * step, so that the instruction stream interleaves independent dependency chains (a
 * logarithm is ~50 cycles of serial latency: division, then the series).
 */
static inline __attribute__((always_inline)) void LATMC_MATH_FN_(latmc_logf_, _n)(
    const MV_F x[LATMC_MATH_LOG_N], MV_F out[LATMC_MATH_LOG_N])
{
    MV_I e[LATMC_MATH_LOG_N], mb[LATMC_MATH_LOG_N];
    MV_F f[LATMC_MATH_LOG_N], s[LATMC_MATH_LOG_N], z[LATMC_MATH_LOG_N], r[LATMC_MATH_LOG_N];
    LATMC_MATH_EACH_
    {
        const MV_I b = MV_CAST_F_I(x[i_]);
        e[i_] = MV_SUB32_I(MV_SRLI32_I(b, 23), MV_SET1_32_I(127));
        mb[i_] = MV_OR_I(MV_AND_I(b, MV_SET1_32_I(0x007fffff)), MV_SET1_32_I(0x3f800000));
    }
    LATMC_MATH_EACH_
    {
        MV_HALVE_BIG_F(mb[i_], e[i_]);
        f[i_] = MV_SUB_F(MV_CAST_I_F(mb[i_]), MV_SET1_F(1.0f));
    }
    LATMC_MATH_EACH_ s[i_] = MV_DIV_F(f[i_], MV_ADD_F(MV_SET1_F(2.0f), f[i_]));
    LATMC_MATH_EACH_ z[i_] = MV_MUL_F(s[i_], s[i_]);
    LATMC_MATH_EACH_ r[i_] = MV_MUL_F(z[i_], MV_SET1_F(LATMC_MATH_LOG_C4_F));
    LATMC_MATH_EACH_ r[i_] = MV_MUL_F(z[i_], MV_ADD_F(MV_SET1_F(LATMC_MATH_LOG_C3_F), r[i_]));
    LATMC_MATH_EACH_ r[i_] = MV_MUL_F(z[i_], MV_ADD_F(MV_SET1_F(LATMC_MATH_LOG_C2_F), r[i_]));
    LATMC_MATH_EACH_ r[i_] = MV_MUL_F(z[i_], MV_ADD_F(MV_SET1_F(LATMC_MATH_LOG_C1_F), r[i_]));
    LATMC_MATH_EACH_
    {
        const MV_F k = MV_CVT_I32_F(e[i_]);
        const MV_F t = MV_SUB_F(MV_MUL_F(s[i_], MV_SUB_F(f[i_], r[i_])),
                                MV_MUL_F(k, MV_SET1_F(LATMC_MATH_LN2_LO_F)));
        out[i_] = MV_ADD_F(MV_MUL_F(k, MV_SET1_F(LATMC_MATH_LN2_HI_F)), MV_SUB_F(f[i_], t));
    }
}

/* latmc_math_log on LATMC_MATH_LOG_N vectors of positive normal doubles at once. */
static inline __attribute__((always_inline)) void LATMC_MATH_FN_(latmc_log_, _n)(
    const MV_D x[LATMC_MATH_LOG_N], MV_D out[LATMC_MATH_LOG_N])
{
    MV_D k[LATMC_MATH_LOG_N], f[LATMC_MATH_LOG_N], s[LATMC_MATH_LOG_N], z[LATMC_MATH_LOG_N];
    MV_D r[LATMC_MATH_LOG_N];
    LATMC_MATH_EACH_
    {
        const MV_I b = MV_CAST_D_I(x[i_]);
        /* e + 1023 as a double: the 11 exponent bits under the exponent of 2^52 */
        const MV_I magic = MV_SET1_64_I(0x4330000000000000LL);
        k[i_] = MV_SUB_D(MV_CAST_I_D(MV_OR_I(MV_SRLI64_I(b, 52), magic)),
                         MV_SET1_D(0x1p52 + 1023.0));
        MV_I mb = MV_OR_I(MV_AND_I(b, MV_SET1_64_I(0x000fffffffffffffLL)),
                          MV_SET1_64_I(0x3ff0000000000000LL));
        MV_HALVE_BIG_D(mb, k[i_]);
        f[i_] = MV_SUB_D(MV_CAST_I_D(mb), MV_SET1_D(1.0));
    }
    LATMC_MATH_EACH_ s[i_] = MV_DIV_D(f[i_], MV_ADD_D(MV_SET1_D(2.0), f[i_]));
    LATMC_MATH_EACH_ z[i_] = MV_MUL_D(s[i_], s[i_]);
    LATMC_MATH_EACH_ r[i_] = MV_MUL_D(z[i_], MV_SET1_D(LATMC_MATH_LOG_C9));
#define LATMC_LOG_STEP_(C) LATMC_MATH_EACH_ r[i_] = MV_MUL_D(z[i_], MV_ADD_D(MV_SET1_D(C), r[i_]))
    LATMC_LOG_STEP_(LATMC_MATH_LOG_C8);
    LATMC_LOG_STEP_(LATMC_MATH_LOG_C7);
    LATMC_LOG_STEP_(LATMC_MATH_LOG_C6);
    LATMC_LOG_STEP_(LATMC_MATH_LOG_C5);
    LATMC_LOG_STEP_(LATMC_MATH_LOG_C4);
    LATMC_LOG_STEP_(LATMC_MATH_LOG_C3);
    LATMC_LOG_STEP_(LATMC_MATH_LOG_C2);
    LATMC_LOG_STEP_(LATMC_MATH_LOG_C1);
#undef LATMC_LOG_STEP_
    LATMC_MATH_EACH_
    {
        const MV_D t = MV_SUB_D(MV_MUL_D(s[i_], MV_SUB_D(f[i_], r[i_])),
                                MV_MUL_D(k[i_], MV_SET1_D(LATMC_MATH_LN2_LO)));
        out[i_] = MV_ADD_D(MV_MUL_D(k[i_], MV_SET1_D(LATMC_MATH_LN2_HI)), MV_SUB_D(f[i_], t));
    }
}

/* latmc_math_exp_kernel on one vector of doubles: returns p = e^r - 1, sets *scale = 2^k. */
static inline __attribute__((always_inline)) MV_D LATMC_MATH_FN_(latmc_exp_kernel_, )(MV_D x,
                                                                                      MV_D *scale)
{
    const MV_D xc = MV_CLAMP_BELOW_D(x, MV_SET1_D(-708.0));
    const MV_D t = MV_ADD_D(MV_MUL_D(xc, MV_SET1_D(LATMC_MATH_INV_LN2)),
                            MV_SET1_D(LATMC_MATH_ROUND_MAGIC));
    const MV_D k = MV_SUB_D(t, MV_SET1_D(LATMC_MATH_ROUND_MAGIC));
    const MV_D r = MV_SUB_D(MV_SUB_D(xc, MV_MUL_D(k, MV_SET1_D(LATMC_MATH_LN2_HI))),
                            MV_MUL_D(k, MV_SET1_D(LATMC_MATH_LN2_LO)));
    MV_D q = MV_MUL_D(r, MV_SET1_D(LATMC_MATH_INV_FACT13));
#define LATMC_EXP_STEP_(C) q = MV_MUL_D(r, MV_ADD_D(MV_SET1_D(C), q))
    LATMC_EXP_STEP_(LATMC_MATH_INV_FACT12);
    LATMC_EXP_STEP_(LATMC_MATH_INV_FACT11);
    LATMC_EXP_STEP_(LATMC_MATH_INV_FACT10);
    LATMC_EXP_STEP_(LATMC_MATH_INV_FACT9);
    LATMC_EXP_STEP_(LATMC_MATH_INV_FACT8);
    LATMC_EXP_STEP_(LATMC_MATH_INV_FACT7);
    LATMC_EXP_STEP_(LATMC_MATH_INV_FACT6);
    LATMC_EXP_STEP_(LATMC_MATH_INV_FACT5);
    LATMC_EXP_STEP_(LATMC_MATH_INV_FACT4);
    LATMC_EXP_STEP_(LATMC_MATH_INV_FACT3);
#undef LATMC_EXP_STEP_
    q = MV_ADD_D(MV_SET1_D(LATMC_MATH_INV_FACT2), q);
    /* 2^k: the low bits of t hold k (t = 1.5 2^52 + k); (k + 1023) << 52 is its double */
    *scale = MV_CAST_I_D(MV_SLLI64_I(MV_ADD64_I(MV_CAST_D_I(t), MV_SET1_64_I(1023)), 52));
    return MV_ADD_D(r, MV_MUL_D(MV_MUL_D(r, r), q));
}

/* latmc_math_sincos_2pi on one vector of doubles. */
static inline __attribute__((always_inline)) void LATMC_MATH_FN_(latmc_sincos_2pi_, )(
    MV_D u, MV_D *sin_out, MV_D *cos_out)
{
    const MV_D v = MV_MUL_D(u, MV_SET1_D(4.0));
    const MV_D t = MV_ADD_D(v, MV_SET1_D(LATMC_MATH_ROUND_MAGIC));
    const MV_D q = MV_SUB_D(t, MV_SET1_D(LATMC_MATH_ROUND_MAGIC));
    const MV_D th = MV_MUL_D(MV_SUB_D(v, q), MV_SET1_D(LATMC_MATH_PI_2));
    const MV_D t2 = MV_MUL_D(th, th);
    MV_D sp = MV_MUL_D(t2, MV_SET1_D(LATMC_MATH_INV_FACT17));
    MV_D cp = MV_MUL_D(t2, MV_SET1_D(LATMC_MATH_INV_FACT16));
#define LATMC_TRIG_STEP_(acc, C) acc = MV_MUL_D(t2, MV_ADD_D(MV_SET1_D(C), acc))
    LATMC_TRIG_STEP_(sp, -LATMC_MATH_INV_FACT15);
    LATMC_TRIG_STEP_(cp, -LATMC_MATH_INV_FACT14);
    LATMC_TRIG_STEP_(sp, LATMC_MATH_INV_FACT13);
    LATMC_TRIG_STEP_(cp, LATMC_MATH_INV_FACT12);
    LATMC_TRIG_STEP_(sp, -LATMC_MATH_INV_FACT11);
    LATMC_TRIG_STEP_(cp, -LATMC_MATH_INV_FACT10);
    LATMC_TRIG_STEP_(sp, LATMC_MATH_INV_FACT9);
    LATMC_TRIG_STEP_(cp, LATMC_MATH_INV_FACT8);
    LATMC_TRIG_STEP_(sp, -LATMC_MATH_INV_FACT7);
    LATMC_TRIG_STEP_(cp, -LATMC_MATH_INV_FACT6);
    LATMC_TRIG_STEP_(sp, LATMC_MATH_INV_FACT5);
    LATMC_TRIG_STEP_(cp, LATMC_MATH_INV_FACT4);
#undef LATMC_TRIG_STEP_
    sp = MV_ADD_D(MV_SET1_D(-LATMC_MATH_INV_FACT3), sp);
    cp = MV_ADD_D(MV_SET1_D(-LATMC_MATH_INV_FACT2), cp);
    const MV_D sn = MV_ADD_D(th, MV_MUL_D(th, MV_MUL_D(t2, sp)));
    const MV_D cs = MV_ADD_D(MV_SET1_D(1.0), MV_MUL_D(t2, cp));
    /* quadrant q mod 4 (the low bits of t): 1 and 3 swap, 2 and 3 negate the sine, 1 and
     * 2 the cosine */
    const MV_I quad = MV_CAST_D_I(t);
    const MV_I one = MV_SET1_64_I(1), two = MV_SET1_64_I(2);
    const MV_M swap = MV_ODD_QUADRANT(quad, one);
    const MV_I neg_s = MV_SLLI64_I(MV_AND_I(quad, two), 62);
    const MV_I neg_c = MV_SLLI64_I(MV_AND_I(MV_ADD64_I(quad, one), two), 62);
    *sin_out = MV_XOR_D(MV_SELECT_D(swap, sn, cs), MV_CAST_I_D(neg_s));
    *cos_out = MV_XOR_D(MV_SELECT_D(swap, cs, sn), MV_CAST_I_D(neg_c));
}

#undef LATMC_MATH_EACH_
#undef LATMC_MATH_FN_
#undef LATMC_MATH_CAT_
#undef LATMC_MATH_CAT2_
#undef LATMC_MATH_ISA
#undef LATMC_MATH_LOG_N
#undef MV_F
#undef MV_D
#undef MV_I
#undef MV_SET1_F
#undef MV_ADD_F
#undef MV_SUB_F
#undef MV_MUL_F
#undef MV_DIV_F
#undef MV_CVT_I32_F
#undef MV_SET1_D
#undef MV_ADD_D
#undef MV_SUB_D
#undef MV_MUL_D
#undef MV_DIV_D
#undef MV_XOR_D
#undef MV_SET1_32_I
#undef MV_SET1_64_I
#undef MV_SUB32_I
#undef MV_ADD64_I
#undef MV_AND_I
#undef MV_OR_I
#undef MV_SRLI32_I
#undef MV_SRLI64_I
#undef MV_SLLI64_I
#undef MV_CAST_F_I
#undef MV_CAST_I_F
#undef MV_CAST_D_I
#undef MV_CAST_I_D
#undef MV_HALVE_BIG_F
#undef MV_HALVE_BIG_D
#undef MV_CLAMP_BELOW_D
#undef MV_M
#undef MV_ODD_QUADRANT
#undef MV_SELECT_D
