/*
 * Internal: every member lane's integer sums (lib/ising.h's latmc_ising_sums: bonds = sum
 * of eps_ij s_i s_j over each bond once, spins = sum of s_i) from a group's words, on the
 * host: what an exchange round needs of each member (its energy -J bonds - h spins) without
 * a member's configuration. Per site and positive direction mu the word d = s_i ^ s_j ^
 * c_ij has bit l set where lane l's bond is unsatisfied (eps s_i s_j = -1), the spin word
 * where lane l's spin is -1; bonds = N ndim - 2 unsatisfied, spins = N - 2 negative. The
 * CUDA kernel (backends/cuda/ensembles) counts the same integers its own way; any count of
 * them gives the same round.
 *
 * The count is bit-sliced (plane k of a tally holds bit k of every lane's count): blocks
 * of 16 entries (32 words, two to a 64-bit entry) go through a Harley-Seal carry-save
 * tree (15 full adders, 5 operations each) into the planes ones, twos, fours, eights,
 * whose carry out (the sixteens) ripples into the planes above without a branch. The
 * planes hold counts below 2^PLANES exactly, so every 2^PLANES - 1 entries at most they
 * are read out lane by lane (shifts and masks, no popcount) into int64 sums and cleared.
 * About 3 operations a word against the 20 to 30 (and mispredicted branches) of a
 * ripple-carry add into 48 planes.
 */
#ifndef LATMC_LIB_ENS_LANES_SUMS_H
#define LATMC_LIB_ENS_LANES_SUMS_H

#include <stdint.h>
#include <string.h>

#include "ens_lanes_rules.h"

/* 4 carry-save planes and 8 above them: a flush every 4095 entries at most. The planes
 * are 64 bits wide: an entry is two consecutive words (a memcpy of 8 bytes: which word
 * lands in which half depends on the byte order, and does not matter), so an operation
 * serves two words; lane l's count is its low half's plus its high half's. */
#define LATMC_ENS_LANES_TALLY_PLANES 12
#define LATMC_ENS_LANES_TALLY_MAX ((1 << LATMC_ENS_LANES_TALLY_PLANES) - 1)

struct latmc_ens_lanes_tally {
    uint64_t plane[LATMC_ENS_LANES_TALLY_PLANES];
    int entries;                   /* entries in the planes since the last flush */
    int64_t sum[LATMC_ENS_LANES];  /* the flushed counts */
};

static inline void latmc_ens_lanes_tally_init(struct latmc_ens_lanes_tally *t)
{
    for (int k = 0; k < LATMC_ENS_LANES_TALLY_PLANES; k++)
        t->plane[k] = 0;
    for (int l = 0; l < LATMC_ENS_LANES; l++)
        t->sum[l] = 0;
    t->entries = 0;
}

/* The planes' counts into the sums, lane by lane (both halves); the planes cleared. */
static inline void latmc_ens_lanes_tally_flush(struct latmc_ens_lanes_tally *t)
{
    for (int l = 0; l < LATMC_ENS_LANES; l++) {
        int64_t lo = 0, hi = 0;
        for (int k = 0; k < LATMC_ENS_LANES_TALLY_PLANES; k++) {
            lo |= (int64_t)((t->plane[k] >> l) & 1u) << k;
            hi |= (int64_t)((t->plane[k] >> (l + 32)) & 1u) << k;
        }
        t->sum[l] += lo + hi;
    }
    for (int k = 0; k < LATMC_ENS_LANES_TALLY_PLANES; k++)
        t->plane[k] = 0;
    t->entries = 0;
}

/* Full adder: a + b + c = 2 hi + lo, bit by bit. */
#define LATMC_ENS_LANES_CSA(hi, lo, a, b, c)                                                  \
    do {                                                                                    \
        const uint64_t u_ = (a) ^ (b), a_ = (a), b_ = (b), c_ = (c);                        \
        (hi) = (a_ & b_) | (u_ & c_);                                                       \
        (lo) = u_ ^ c_;                                                                     \
    } while (0)

/* x added to the planes from plane k0 up (weight 2^k0), no branch. */
static inline void latmc_ens_lanes_tally_ripple(uint64_t *p, int k0, uint64_t x)
{
    for (int k = k0; k < LATMC_ENS_LANES_TALLY_PLANES; k++) {
        const uint64_t carry = p[k] & x;
        p[k] ^= x;
        x = carry;
    }
}

/* n words x[0 .. n) counted, lane by lane. Which half of an entry a word lands in does
 * not matter (the halves are added), so the words are read two at a time by memcpy. */
static inline void latmc_ens_lanes_tally_words(struct latmc_ens_lanes_tally *t,
                                               const uint32_t *x, int64_t n)
{
    int64_t i = 0;
    for (; i + 32 <= n; i += 32) {
        if (t->entries > LATMC_ENS_LANES_TALLY_MAX - 16)
            latmc_ens_lanes_tally_flush(t);
        uint64_t w[16];
        memcpy(w, x + i, sizeof w);
        uint64_t ones = t->plane[0], twos = t->plane[1], fours = t->plane[2],
                 eights = t->plane[3];
        uint64_t twos_a, twos_b, fours_a, fours_b, eights_a, eights_b, sixteens;
        LATMC_ENS_LANES_CSA(twos_a, ones, ones, w[0], w[1]);
        LATMC_ENS_LANES_CSA(twos_b, ones, ones, w[2], w[3]);
        LATMC_ENS_LANES_CSA(fours_a, twos, twos, twos_a, twos_b);
        LATMC_ENS_LANES_CSA(twos_a, ones, ones, w[4], w[5]);
        LATMC_ENS_LANES_CSA(twos_b, ones, ones, w[6], w[7]);
        LATMC_ENS_LANES_CSA(fours_b, twos, twos, twos_a, twos_b);
        LATMC_ENS_LANES_CSA(eights_a, fours, fours, fours_a, fours_b);
        LATMC_ENS_LANES_CSA(twos_a, ones, ones, w[8], w[9]);
        LATMC_ENS_LANES_CSA(twos_b, ones, ones, w[10], w[11]);
        LATMC_ENS_LANES_CSA(fours_a, twos, twos, twos_a, twos_b);
        LATMC_ENS_LANES_CSA(twos_a, ones, ones, w[12], w[13]);
        LATMC_ENS_LANES_CSA(twos_b, ones, ones, w[14], w[15]);
        LATMC_ENS_LANES_CSA(fours_b, twos, twos, twos_a, twos_b);
        LATMC_ENS_LANES_CSA(eights_b, fours, fours, fours_a, fours_b);
        LATMC_ENS_LANES_CSA(sixteens, eights, eights, eights_a, eights_b);
        t->plane[0] = ones;
        t->plane[1] = twos;
        t->plane[2] = fours;
        t->plane[3] = eights;
        latmc_ens_lanes_tally_ripple(t->plane, 4, sixteens);
        t->entries += 16;
    }
    for (; i < n; i++) { /* the tail, a word an entry (the low half) */
        if (t->entries > LATMC_ENS_LANES_TALLY_MAX - 1)
            latmc_ens_lanes_tally_flush(t);
        latmc_ens_lanes_tally_ripple(t->plane, 0, x[i]);
        t->entries++;
    }
}

/* Words of the unsatisfied bonds staged for the tally: a row's piece at a time, the
 * remainder below 32 carried to the next piece so the tally sees whole blocks. */
#define LATMC_ENS_LANES_SUMS_PIECE 128

/*
 * Every lane's bonds and spins (above) from group grp's words. The same integers as the
 * per-lane count, whatever the order of the words (test_ens_lanes checks them against one
 * that reads spins and bonds lane by lane).
 */
static inline void latmc_ens_lanes_sums(const struct latmc_lattice *g,
                                        const struct latmc_ens_lanes_group *grp,
                                        int64_t bonds[LATMC_ENS_LANES],
                                        int64_t spins[LATMC_ENS_LANES])
{
    struct latmc_ens_lanes_tally unsat, neg;
    latmc_ens_lanes_tally_init(&unsat);
    latmc_ens_lanes_tally_init(&neg);
    latmc_ens_lanes_tally_words(&neg, grp->spin, g->nsites);
    uint32_t stage[3 * LATMC_ENS_LANES_SUMS_PIECE + 32];
    int64_t n = 0;
    const int nd = g->ndim;
    const int64_t lx = g->lx, ly = g->ly, lz = g->lz;
    for (int64_t z = 0; z < lz; z++)
        for (int64_t y = 0; y < ly; y++) {
            const int64_t row = lx * (y + ly * z);
            const uint32_t *r = grp->spin + row;
            const uint32_t *ry = grp->spin + lx * (latmc_wrap_up(y, ly) + ly * z);
            const uint32_t *rz = grp->spin + lx * (y + ly * latmc_wrap_up(z, lz));
            const uint32_t *b = grp->bond ? grp->bond + nd * row : NULL;
            for (int64_t x0 = 0; x0 < lx; x0 += LATMC_ENS_LANES_SUMS_PIECE) {
                const int64_t x1 = lx - x0 < LATMC_ENS_LANES_SUMS_PIECE
                                       ? lx : x0 + LATMC_ENS_LANES_SUMS_PIECE;
                /* the sites whose +x neighbour is x + 1 by loops without a branch
                 * (one per shape: they vectorise), then the row's last site */
                const int64_t xe = x1 < lx ? x1 : lx - 1;
                uint32_t *o = stage + n;
                if (nd == 3 && b)
                    for (int64_t x = x0; x < xe; x++, o += 3) {
                        o[0] = r[x] ^ r[x + 1] ^ b[3 * x];
                        o[1] = r[x] ^ ry[x] ^ b[3 * x + 1];
                        o[2] = r[x] ^ rz[x] ^ b[3 * x + 2];
                    }
                else if (nd == 3)
                    for (int64_t x = x0; x < xe; x++, o += 3) {
                        o[0] = r[x] ^ r[x + 1];
                        o[1] = r[x] ^ ry[x];
                        o[2] = r[x] ^ rz[x];
                    }
                else if (nd == 2 && b)
                    for (int64_t x = x0; x < xe; x++, o += 2) {
                        o[0] = r[x] ^ r[x + 1] ^ b[2 * x];
                        o[1] = r[x] ^ ry[x] ^ b[2 * x + 1];
                    }
                else if (nd == 2)
                    for (int64_t x = x0; x < xe; x++, o += 2) {
                        o[0] = r[x] ^ r[x + 1];
                        o[1] = r[x] ^ ry[x];
                    }
                else
                    for (int64_t x = x0; x < xe; x++)
                        *o++ = r[x] ^ r[x + 1] ^ (b ? b[x] : 0u);
                n = o - stage;
                for (int64_t x = xe > x0 ? xe : x0; x < x1; x++) { /* x = lx - 1 */
                    const uint32_t w = r[x];
                    const uint32_t *c = b ? b + nd * x : NULL;
                    stage[n++] = w ^ r[x + 1 < lx ? x + 1 : 0] ^ (c ? c[0] : 0u);
                    if (nd >= 2)
                        stage[n++] = w ^ ry[x] ^ (c ? c[1] : 0u);
                    if (nd == 3)
                        stage[n++] = w ^ rz[x] ^ (c ? c[2] : 0u);
                }
                const int64_t whole = n & ~(int64_t)31;
                latmc_ens_lanes_tally_words(&unsat, stage, whole);
                for (int64_t k = whole; k < n; k++)
                    stage[k - whole] = stage[k];
                n -= whole;
            }
        }
    latmc_ens_lanes_tally_words(&unsat, stage, n);
    latmc_ens_lanes_tally_flush(&unsat);
    latmc_ens_lanes_tally_flush(&neg);
    for (int l = 0; l < LATMC_ENS_LANES; l++) {
        bonds[l] = g->nsites * nd - 2 * unsat.sum[l];
        spins[l] = g->nsites - 2 * neg.sum[l];
    }
}

#endif /* LATMC_LIB_ENS_LANES_SUMS_H */
