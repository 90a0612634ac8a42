/*
 * The per-parameter tables of the Potts fast paths (potts_fast.h), derived from the core's
 * integer tables (lib/potts.h) exactly like the reference rule uses them, and the uniform
 * part of the Philox counters of one pass. Level-independent C.
 */
#include <stdlib.h>
#include <string.h>

#include "error.h" /* LATMC_* codes */

#include "philox_fold.h"
#include "potts_fast.h"
#include "potts_thresholds.h"

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
 * Heat-bath thresholds t_k (k = 0 .. q-2) of one neighbour count vector n[0 .. q-1] (sum
 * 2 ndim): those of lib/potts_thresholds.h, which derives them from the very weights and
 * draw scaling of the reference rule. Its stored words are 2^32 - t_k, with 0 for t_k =
 * 2^32 and the leading t_k = 0 counted in word[0].
 */
static void heatbath_thresholds(const struct latmc_potts_tables *t, int ndim, int q,
                                const int *n, uint64_t *u_thr)
{
    uint8_t nb[LATMC_POTTS_MAX_NB], n_of[LATMC_POTTS_MAX_Q + 1];
    uint32_t word[3];
    int m = 0;
    for (int k = 0; k < q; k++)
        for (int i = 0; i < n[k]; i++)
            nb[m++] = (uint8_t)k;
    memset(n_of, 0, sizeof n_of);
    latmc_potts_heatbath_thresholds(t, q, nb, 2 * ndim, n_of, word, q);
    for (int k = 0; k + 1 < q; k++)
        u_thr[k] = (uint32_t)k < word[0] ? 0
                 : word[1 + k] ? (UINT64_C(1) << 32) - word[1 + k] : UINT64_C(1) << 32;
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
            heatbath_thresholds(t, ndim, q, n, u_thr);
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

static int64_t hb_table_entries(int ndim, int q)
{
    int64_t e = 1;
    for (int d = 0; d < 2 * ndim; d++)
        e *= q;
    return e;
}

int cpu_potts_hb_table_wanted(int ndim, int q, int64_t nsites)
{
    if (q < 4 || q > 9)
        return 0;
    const int64_t entries = hb_table_entries(ndim, q);
    /* ~0.08 us per entry to build (2D q = 8: 0.3 ms): at least 64 sites per entry keeps a
     * rebuild below the cost of one sweep */
    return entries <= 8192 && nsites >= 64 * entries;
}

int cpu_potts_hb_table_build(struct cpu_potts_hb_table *h, const struct latmc_potts_tables *t,
                             int ndim, int q)
{
    const int64_t entries = hb_table_entries(ndim, q);
    if (h->entries != entries) {
        cpu_potts_hb_table_free(h);
        h->entry = aligned_alloc(32, (size_t)entries * 8 * sizeof(uint32_t));
        if (!h->entry)
            return LATMC_ENOMEM;   /* not an error of any call: the kernels go without */
        h->entries = entries;
    }
    uint8_t n_of[LATMC_POTTS_MAX_Q + 1];
    memset(n_of, 0, sizeof n_of);
    for (int64_t e = 0; e < entries; e++) {
        uint8_t nb[LATMC_POTTS_MAX_NB];
        int64_t rest = e;
        for (int d = 0; d < 2 * ndim; d++) {
            nb[d] = (uint8_t)(rest % q);
            rest /= q;
        }
        uint32_t word[9];
        latmc_potts_heatbath_thresholds(t, q, nb, 2 * ndim, n_of, word, q);
        uint32_t *out = h->entry + 8 * e;
        for (int k = 0; k < 8; k++) {
            uint64_t thr = UINT32_MAX;                     /* padding: never passed */
            if (k + 1 < q)
                thr = (uint32_t)k < word[0] ? 0 : word[1 + k] ? (UINT64_C(1) << 32) - word[1 + k]
                                                             : UINT32_MAX;
            out[k] = (uint32_t)thr ^ 0x80000000u;
        }
    }
    return LATMC_OK;
}

void cpu_potts_hb_table_free(struct cpu_potts_hb_table *h)
{
    free(h->entry);
    h->entry = NULL;
    h->entries = 0;
}

/*
 * The Philox constants of the draws `name` (a step's, or its acceptance sub) and value of
 * block >> 32: lib/philox_fold.h's fold, in the names the kernels use (potts_simd.h,
 * philox_chunk).
 */
void cpu_potts_philox_init(struct cpu_potts_philox *r, uint64_t seed,
                           struct latmc_rng_name name, uint32_t block_hi)
{
    const struct latmc_philox_fold f = latmc_philox_fold_name(seed, name, block_hi);
    r->block_hi = block_hi;
    for (int round = 0; round < 10; round++) {
        r->k0[round] = f.k[round].v[0];
        r->k1[round] = f.k[round].v[1];
    }
    r->a1 = f.a1;
    r->m0u0_hi = (uint32_t)(f.m0u0 >> 32);
    r->a2 = f.a2;
    r->a3 = f.a3;
    r->u3 = (uint32_t)f.m0u0;
    r->a4 = f.a4;
}
