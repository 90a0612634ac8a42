/*
 * The double fields' primitives of phi4_simd_tmpl.h that every level writes alike, over
 * its own (set1_d, select_d, lanes_d, signed_d, unit_d): included at the end of
 * phi4_vec_avx2.h and phi4_vec_avx512.h. No level has a cheaper draw conversion for
 * double (the exact fused multiply-add per half is already one instruction), nor a
 * cheaper unit value for the quick decision (the double hit decides on the exact
 * logarithm of the exact unit value).
 */
#ifndef LATMC_CPU_PHI4_VEC_DOUBLE_H
#define LATMC_CPU_PHI4_VEC_DOUBLE_H

/* v with lane `lane` replaced by s. */
static inline vec_d set_lane_d(vec_d v, int lane, double s)
{
    return select_d(lanes_d(lane, lane + 1), set1_d(s), v);
}

/* the template's signed_raw_d (phi4_simd_tmpl.h): signed_d itself */
#define PHI4_SIGNED_SCALE_d 1.0
static inline vec_d signed_raw_d(phi4_iv r)
{
    return signed_d(r);
}

static inline vec_d unitq_d(phi4_iv r)
{
    return unit_d(r);
}

#endif
