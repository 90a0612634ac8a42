/*
 * Internal: exact bit-sliced acceptance decisions (doc/models/ising-decisions.md), the
 * reference rule for every backend, usable from C and CUDA (LATMC_HOSTDEV, no libc).
 *
 * A group decides 32 lanes at once. Lane i has a threshold t_i in [0, 2^32] (the core's
 * latmc_threshold_u32) and accepts iff u_i < t_i, where u_i is the 32-bit number whose bit
 * 31 - b is bit i of plane word W_b (b = 0 .. 31). That is exactly today's decision "u < t"
 * on a uniform 32-bit u; only u's bits come from one word per bit plane for all 32 lanes
 * instead of one word per lane. The comparison runs from the top bit: at plane b a lane
 * still undecided accepts if u's bit is 0 and t's bit is 1, rejects if 1 and 0, and stays
 * undecided if they are equal; a lane equal on all 32 planes has u = t and rejects. t = 0
 * rejects and t = 2^32 accepts before any plane (both agree with the comparison). So a
 * group stops at the first plane after which no lane is undecided: about 6 planes for 32
 * lanes, at most 32; whatever plane a kernel stops at, each lane's result is its own u_i <
 * t_i, a function of the named words alone.
 */
#ifndef LATMC_LIB_BITSLICE_DECISION_H
#define LATMC_LIB_BITSLICE_DECISION_H

#include <stdint.h>

#include "philox.h" /* LATMC_HOSTDEV */

#define LATMC_BITSLICE_LANES  32
#define LATMC_BITSLICE_PLANES 32

/* The state of one group's comparison. */
struct latmc_bitslice {
    uint32_t undecided;  /* lanes whose u and t agree on every plane so far */
    uint32_t accept;     /* lanes decided u < t */
    int planes;          /* planes consumed */
};

/* Start: lanes `active` take part (the others stay 0 in accept); t[i] for lane i. */
LATMC_HOSTDEV struct latmc_bitslice latmc_bitslice_start(const uint64_t t[LATMC_BITSLICE_LANES],
                                                          uint32_t active)
{
    struct latmc_bitslice s;
    uint32_t always = 0, never = 0;
    for (int i = 0; i < LATMC_BITSLICE_LANES; i++) {
        always |= (uint32_t)(t[i] >> 32 != 0) << i;  /* t = 2^32: every u < t */
        never |= (uint32_t)(t[i] == 0) << i;         /* t = 0: no u < t */
    }
    s.accept = active & always;
    s.undecided = active & ~always & ~never;
    s.planes = 0;
    return s;
}

/* Plane b of the thresholds: bit i is bit 31 - b of t[i] (t[i] < 2^32 where it matters). */
LATMC_HOSTDEV uint32_t latmc_bitslice_threshold_plane(const uint64_t t[LATMC_BITSLICE_LANES],
                                                      int b)
{
    uint32_t tb = 0;
    for (int i = 0; i < LATMC_BITSLICE_LANES; i++)
        tb |= (uint32_t)((t[i] >> (31 - b)) & 1u) << i;
    return tb;
}

/* One plane: w holds u's bit 31 - b of every lane, tb t's (latmc_bitslice_threshold_plane). */
LATMC_HOSTDEV void latmc_bitslice_plane(struct latmc_bitslice *s, uint32_t w, uint32_t tb)
{
    s->accept |= s->undecided & tb & ~w;  /* u's bit 0, t's bit 1: u < t */
    s->undecided &= ~(w ^ tb);            /* the bits differ: decided either way */
    s->planes++;
}

/*
 * The decisions of a group from given plane words w[0 ..] (w[b]: plane b), read only as
 * far as needed: the accept mask of the `active` lanes; *planes: how many words it read.
 */
LATMC_HOSTDEV uint32_t latmc_bitslice_decide_words(const uint64_t t[LATMC_BITSLICE_LANES],
                                                   uint32_t active,
                                                   const uint32_t w[LATMC_BITSLICE_PLANES],
                                                   int *planes)
{
    struct latmc_bitslice s = latmc_bitslice_start(t, active);
    for (int b = 0; b < LATMC_BITSLICE_PLANES && s.undecided; b++)
        latmc_bitslice_plane(&s, w[b], latmc_bitslice_threshold_plane(t, b));
    *planes = s.planes;
    return s.accept; /* lanes still undecided have u = t: rejected */
}

/*
 * The same comparison with the lanes given by threshold class, as kernels know them: lanes
 * mask[c] (disjoint masks) all have threshold t[c], c < n. Then plane b of the thresholds
 * is the union of the masks whose threshold has bit 31 - b set: n operations per plane
 * instead of 32. Lanes in no mask take no part.
 */
LATMC_HOSTDEV struct latmc_bitslice latmc_bitslice_start_classes(const uint64_t *t,
                                                                  const uint32_t *mask, int n)
{
    struct latmc_bitslice s;
    s.accept = s.undecided = 0;
    s.planes = 0;
    for (int c = 0; c < n; c++) {
        if (t[c] >> 32)
            s.accept |= mask[c];
        else if (t[c] != 0)
            s.undecided |= mask[c];
    }
    return s;
}

LATMC_HOSTDEV uint32_t latmc_bitslice_class_plane(const uint64_t *t, const uint32_t *mask, int n,
                                                  int b)
{
    uint32_t tb = 0;
    for (int c = 0; c < n; c++)
        tb |= mask[c] & (0u - (uint32_t)((t[c] >> (31 - b)) & 1u));
    return tb;
}

#endif /* LATMC_LIB_BITSLICE_DECISION_H */
