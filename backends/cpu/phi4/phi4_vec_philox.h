/*
 * The template's names for the level's Philox over phi4_iv (phi4_simd_tmpl.h: phi4_keys,
 * phi4_pre, phi4_keys_init, phi4_pre_of, phi4_finish_sets): philox_lanes_tmpl.h's keys,
 * hit-independent first rounds and interleaved finish, under the level's prefix
 * PHI4_PHILOX(name) (latmc_philox_x4_name, latmc_philox_x8_name), which the level's vector
 * header defines before the inclusion.
 */
#ifndef LATMC_CPU_PHI4_VEC_PHILOX_H
#define LATMC_CPU_PHI4_VEC_PHILOX_H

#define phi4_keys PHI4_PHILOX(keys)
#define phi4_pre PHI4_PHILOX(pre)
static inline void phi4_keys_init(struct phi4_keys *k, uint64_t seed)
{
    PHI4_PHILOX(keys_init)(k, seed);
}
static inline void phi4_pre_of(const struct phi4_keys *k, phi4_iv w0, phi4_iv w1, phi4_iv w2,
                               struct phi4_pre *pre)
{
    PHI4_PHILOX(pre)(k, w0, w1, w2, pre);
}
static inline __attribute__((always_inline)) void phi4_finish_sets(
    const struct phi4_keys *k, const struct phi4_pre *const pre[PHI4_NSETS], phi4_iv w3,
    phi4_iv out01[PHI4_NSETS], phi4_iv out23[PHI4_NSETS])
{
    PHI4_PHILOX(finish_sets)(k, pre, w3, out01, out23);
}

#endif
