/*
 * The AVX2 form of a row of phi^4's Fourier-mode tiles (lib/modes_planes.c's dense planes,
 * which define the order): four sites a step, site x in lane x mod 4 of one vector of
 * each sum, so every lane adds its sites in the order the scalar code does, each term a
 * product rounded to double and then added (separate MULPD and ADDPD: no fused
 * multiply-add, as the library is built with -ffp-contract=off). The same doubles. Compiled
 * for every x86-64 by a GNU C compiler (the functions carry the target); called only where
 * latmc_have_avx2().
 */
#include "modes_phi4_avx2.h"

#ifdef LATMC_X86_AVX2
#  include <immintrin.h>

/* Lanes re, im, sum += v cx, v sx, v for the values of sites x .. x + 3. */
__attribute__((target("avx2"))) static inline void add_sites(__m256d v, const double *cx,
                                                             const double *sx, __m256d *re,
                                                             __m256d *im, __m256d *sum)
{
    *re = _mm256_add_pd(*re, _mm256_mul_pd(v, _mm256_loadu_pd(cx)));
    *im = _mm256_add_pd(*im, _mm256_mul_pd(v, _mm256_loadu_pd(sx)));
    *sum = _mm256_add_pd(*sum, v);
}

#  define DEFINE_ROW(NAME, T, LOAD4)                                                         \
      __attribute__((target("avx2"))) int64_t NAME(const T *v, int64_t lx, const double *cx, \
                                                   const double *sx, double *re, double *im,  \
                                                   double *sum)                               \
      {                                                                                      \
          __m256d r = _mm256_loadu_pd(re), i = _mm256_loadu_pd(im), s = _mm256_loadu_pd(sum); \
          int64_t x = 0;                                                                     \
          for (; x + 4 <= lx; x += 4)                                                        \
              add_sites(LOAD4(v + x), cx + x, sx + x, &r, &i, &s);                           \
          _mm256_storeu_pd(re, r);                                                           \
          _mm256_storeu_pd(im, i);                                                           \
          _mm256_storeu_pd(sum, s);                                                          \
          return x;                                                                          \
      }

#  define LOAD4_F(p) _mm256_cvtps_pd(_mm_loadu_ps(p))
#  define LOAD4_D(p) _mm256_loadu_pd(p)
DEFINE_ROW(latmc_modes_phi4_row_avx2_f, float, LOAD4_F)
DEFINE_ROW(latmc_modes_phi4_row_avx2_d, double, LOAD4_D)
#else
typedef int latmc_modes_phi4_avx2_unused; /* ISO C: a unit declares something */
#endif
