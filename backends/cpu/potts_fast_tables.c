/*
 * The per-parameter tables of the Potts fast paths (potts_fast.h), derived from the core's
 * integer tables (lib/potts.h) exactly like the reference rule uses them, and the uniform
 * part of the Philox counters of one pass. Level-independent C.
 */
#include <string.h>

#include "potts_fast.h"

uint64_t cpu_potts_ceil_frac32(uint64_t a, uint64_t b)
{
    /* a 2^32 = (a 2^16) 2^16: two long-division steps of 16 bits, each fits in 64 bits
     * because a, b < 2^48. */
    const uint64_t x = a << 16;
    const uint64_t q1 = x / b, r1 = x % b;
    const uint64_t y = r1 << 16;
    const uint64_t q2 = y / b, r2 = y % b;
    return (q1 << 16) + q2 + (r2 != 0);
}

/* Bytes 3 and 2 of min(v, 2^32 - 1), each XOR 0x80: the kernels compare signed bytes. */
static void top_bytes(uint64_t v, uint8_t *b3, uint8_t *b2)
{
    const uint32_t c = v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
    *b3 = (uint8_t)((c >> 24) ^ 0x80u);
    *b2 = (uint8_t)(((c >> 16) & 0xffu) ^ 0x80u);
}

static int levels_for(int entries)
{
    return (entries + 15) / 16;
}

static void metropolis_tables(struct cpu_potts_fast_tables *f, const struct latmc_potts_tables *t,
                              int ndim)
{
    const int two_d = 2 * ndim;
    for (int dn = -two_d; dn <= two_d; dn++)
        for (int dz = -1; dz <= 1; dz++) {
            const int idx = 3 * (dn + two_d) + dz + 1;
            top_bytes(t->metropolis[dn + two_d][dz + 1], &f->metro_b3[idx], &f->metro_b2[idx]);
        }
    f->metro_levels = levels_for(3 * (2 * two_d) + 3);
}

/*
 * Heat-bath thresholds of one neighbour count vector n[0 .. q-1] (sum 2 ndim), q <= 3.
 * The weights are those of latmc_potts_heatbath(): class c_k = (n_k, delta(k, 0)) of every
 * state k, row of the present class of highest rank (tied ranks have identical rows), and
 * U_k = ceil(cum_k 2^32 / total).
 */
static void heatbath_thresholds(const struct latmc_potts_tables *t, int q, const int *n,
                                uint64_t *u_thr)
{
    int cls[3], ref = -1;
    for (int k = 0; k < q; k++) {
        cls[k] = latmc_potts_class(n[k], k == 0);
        if (ref < 0 || t->rank[cls[k]] > t->rank[ref])
            ref = cls[k];
    }
    uint64_t w[3], total = 0;
    for (int k = 0; k < q; k++) {
        w[k] = t->heatbath[ref][cls[k]];
        total += w[k];
    }
    uint64_t cum = 0;
    for (int k = 0; k + 1 < q; k++) {
        cum += w[k];
        u_thr[k] = cpu_potts_ceil_frac32(cum, total);
    }
}

static void heatbath_tables(struct cpu_potts_fast_tables *f, const struct latmc_potts_tables *t,
                            int ndim, int q)
{
    const int two_d = 2 * ndim, base = two_d + 1;
    memset(f->hb_f, 0, sizeof f->hb_f);
    f->hb_vector = q <= 3;
    if (!f->hb_vector)
        return;
    /* hash = sum over the neighbours of f(state): q = 3: base n_0 + n_1; q = 2: n_0 */
    if (q == 3) {
        f->hb_f[0] = (uint8_t)base;
        f->hb_f[1] = 1;
    } else {
        f->hb_f[0] = 1;
    }
    int max_hash = 0;
    for (int n0 = 0; n0 <= two_d; n0++)
        for (int n1 = 0; n1 <= two_d - n0; n1++) {
            if (q == 2 && n1 != two_d - n0)
                continue;               /* q = 2: n_1 = 2 ndim - n_0 */
            const int n[3] = { n0, n1, two_d - n0 - n1 };
            const int hash = q == 3 ? base * n0 + n1 : n0;
            uint64_t u_thr[2];
            heatbath_thresholds(t, q, n, u_thr);
            for (int k = 0; k + 1 < q; k++)
                top_bytes(u_thr[k], &f->hb_b3[k][hash], &f->hb_b2[k][hash]);
            if (hash > max_hash)
                max_hash = hash;
        }
    f->hb_levels = levels_for(max_hash + 1);
}

void cpu_potts_fast_tables_build(struct cpu_potts_fast_tables *f,
                                 const struct latmc_potts_tables *t, int ndim, int q)
{
    memset(f, 0, sizeof *f);
    metropolis_tables(f, t, ndim);
    heatbath_tables(f, t, ndim, q);
}

/*
 * Within one pass (seed, sweep, colour, sub) and one value of block >> 32, the Philox
 * counter words c1, c2, c3 are the same for every block; only c0 = block mod 2^32 varies.
 * So the first round's c0' and c1' are the same for all blocks, and so are parts of the
 * second and third rounds; the kernels start from these (potts_simd.h, philox_chunk):
 *   round 1: c0' = U0 (uniform), c1' = U1 (uniform), c2' = hi(M0 c0) ^ a1, c3' = lo(M0 c0)
 *   round 2: c0'' = hi(M1 c2') ^ a2, c1'' = lo(M1 c2'), c2'' = c3' ^ a3, c3'' = u3 (uniform)
 *   round 3: c2''' = hi(M0 c0'') ^ a4, the rest as in every round.
 */
void cpu_potts_philox_init(struct cpu_potts_philox *r, uint64_t seed, uint64_t sweep,
                           uint32_t colour, uint32_t sub, uint32_t block_hi)
{
    const latmc_philox_key key = latmc_rng_key(seed);
    const latmc_philox_ctr c = latmc_rng_counter((uint64_t)block_hi << 32, sweep,
                                                 latmc_rng_stream(LATMC_STREAM_UPDATE, 0),
                                                 colour, sub);
    r->block_hi = block_hi;
    for (int round = 0; round < 10; round++) {
        r->k0[round] = key.v[0] + (uint32_t)round * LATMC_PHILOX_W0;
        r->k1[round] = key.v[1] + (uint32_t)round * LATMC_PHILOX_W1;
    }
    const uint64_t p1 = (uint64_t)LATMC_PHILOX_M1 * c.v[2];
    const uint32_t u0 = (uint32_t)(p1 >> 32) ^ c.v[1] ^ r->k0[0];
    const uint32_t u1 = (uint32_t)p1;
    r->a1 = c.v[3] ^ r->k1[0];
    const uint64_t p0 = (uint64_t)LATMC_PHILOX_M0 * u0;
    r->m0u0_hi = (uint32_t)(p0 >> 32);
    r->a2 = u1 ^ r->k0[1];
    r->a3 = r->m0u0_hi ^ r->k1[1];
    r->u3 = (uint32_t)p0;
    r->a4 = r->u3 ^ r->k1[2];
}
