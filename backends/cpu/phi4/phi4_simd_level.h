/*
 * One phi^4 SIMD level, written once: the level's file (phi4_avx2.c, phi4_avx512.c)
 * includes its vector header (phi4_vec_<isa>.h), sets PHI4_ISA (avx2, avx512),
 * PHI4_GROUPS and PHI4_HITS, and includes this file, which instantiates phi4_simd_tmpl.h
 * for float and double fields (phi4_precisions.h) and defines the level's exported
 * functions: its table entry cpu_phi4_dsp_init_<isa> (phi4_dsp.h) and checkasm's hooks
 * cpu_phi4_<isa>_logq_violations / _unitq_violations. Include once per translation unit.
 */
#define PHI4_BODY "phi4_simd_tmpl.h"
#include "phi4_precisions.h"

#define PHI4_LEVEL_CAT2_(a, b) a##_##b
#define PHI4_LEVEL_CAT_(a, b) PHI4_LEVEL_CAT2_(a, b)
#define PHI4_LEVEL_FN(name) PHI4_LEVEL_CAT_(PHI4_LEVEL_CAT_(cpu_phi4, PHI4_ISA), name)
/* phi4_simd_tmpl.h's exported steps: cpu_phi4_<kind>_<isa>_<f, d> */
#define PHI4_LEVEL_STEP(kind, S) PHI4_LEVEL_CAT_(PHI4_LEVEL_CAT_(kind, PHI4_ISA), S)
#define PHI4_LEVEL_STR2_(x) #x
#define PHI4_LEVEL_STR_(x) PHI4_LEVEL_STR2_(x)

/* The quick logarithm's misses of its bound (phi4_vec_hit.h), for checkasm: each level has
 * its own form of the polynomial (phi4_vec_<isa>.h), so its own check. */
int64_t PHI4_LEVEL_FN(logq_violations)(uint32_t first, uint32_t last)
{
    return phi4_logq_violations(first, last);
}

/* The quick unit value's draws (phi4_vec_hit.h), for checkasm. */
int64_t PHI4_LEVEL_FN(unitq_violations)(uint64_t first, uint64_t last, uint64_t step)
{
    return phi4_unitq_violations(first, last, step);
}

void PHI4_LEVEL_CAT_(cpu_phi4_dsp_init, PHI4_ISA)(struct cpu_phi4_dsp *dsp)
{
    dsp->level = PHI4_LEVEL_STR_(PHI4_ISA);
    dsp->transposed = true;
    dsp->step_f = PHI4_LEVEL_STEP(cpu_phi4_step, f);
    dsp->step_d = PHI4_LEVEL_STEP(cpu_phi4_step, d);
    dsp->segments_f = PHI4_LEVEL_STEP(cpu_phi4_segments, f);
    dsp->segments_d = PHI4_LEVEL_STEP(cpu_phi4_segments, d);
}

#undef PHI4_LEVEL_STR_
#undef PHI4_LEVEL_STR2_
#undef PHI4_LEVEL_STEP
#undef PHI4_LEVEL_FN
#undef PHI4_LEVEL_CAT_
#undef PHI4_LEVEL_CAT2_
