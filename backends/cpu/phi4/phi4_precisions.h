/*
 * Instantiates a type-generic phi^4 body for float and for double fields: the includer
 * names the body's header in PHI4_BODY (phi4_simd_tmpl.h, phi4_sweep_impl.h,
 * phi4_measure_impl.h), which is written over PHI4_R (the field's type) and PHI4_S (the
 * suffix of its names: f, d). Include once per translation unit.
 */
#define PHI4_R float
#define PHI4_S f
#include PHI4_BODY
#undef PHI4_R
#undef PHI4_S

#define PHI4_R double
#define PHI4_S d
#include PHI4_BODY
#undef PHI4_R
#undef PHI4_S

#undef PHI4_BODY
