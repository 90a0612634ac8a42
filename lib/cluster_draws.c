/*
 * The cluster updates' random numbers and decisions (lib/cluster_bonds.h defines them):
 * the bond pass of a Swendsen-Wang sweep, a row's Philox blocks computed together, and a
 * cluster's new state from its draw.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cluster_bonds.h"
#include "cluster_job.h"
#include "decision.h"

int latmc_cluster_can_join(const struct latmc_cluster_job *job, const uint8_t *s, int64_t i,
                           int64_t j, int mu)
{
    if (job->potts)
        return s[i] == s[j];
    const int eps = job->eps ? job->eps[(int64_t)job->g.ndim * i + mu] : 1;
    return latmc_cluster_ising_satisfied(job->sign_k, eps, (int8_t)s[i], (int8_t)s[j]);
}

/* The same for the bonds of one row: "same state" flipped where K eps < 0 (Ising). */
static inline int can_bond(const struct latmc_cluster_job *job, const uint8_t *s, int64_t i,
                           int64_t j, int mu, int flip)
{
    int same = s[i] == s[j];
    if (job->eps) /* the same branch for every site */
        same ^= job->eps[(int64_t)job->g.ndim * i + mu] < 0;
    return same ^ flip;
}

/*
 * The draws of the LATMC_CLUSTER_BATCH blocks blk[k] of phase `phase` of the sweep
 * (lib/cluster_bonds.h) into out[4 k + lane]: latmc_rng_block's numbers, computed
 * together so that the rounds of independent blocks overlap (one block's ten rounds are
 * one long chain of dependent multiplications; the compiler also vectorises these loops).
 */
void latmc_cluster_batch(uint64_t seed, uint64_t sweep, uint32_t phase, const uint64_t *blk,
                         uint32_t *out)
{
    const uint32_t stream = latmc_rng_stream(LATMC_STREAM_CLUSTER, 0);
    const latmc_philox_key key = latmc_rng_key(seed);
    enum { B = LATMC_CLUSTER_BATCH };
    uint32_t x0[B], x1[B], x2[B], x3[B];
    for (int k = 0; k < B; k++) {
        const latmc_philox_ctr c = latmc_rng_counter(blk[k], sweep, stream, phase, 0);
        x0[k] = c.v[0], x1[k] = c.v[1], x2[k] = c.v[2], x3[k] = c.v[3];
    }
    uint32_t key0 = key.v[0], key1 = key.v[1];
    for (int round = 0; round < 10; round++) {
        for (int k = 0; k < B; k++) {
            const uint64_t p0 = (uint64_t)LATMC_PHILOX_M0 * x0[k];
            const uint64_t p1 = (uint64_t)LATMC_PHILOX_M1 * x2[k];
            const uint32_t y0 = (uint32_t)(p1 >> 32) ^ x1[k] ^ key0;
            const uint32_t y2 = (uint32_t)(p0 >> 32) ^ x3[k] ^ key1;
            x1[k] = (uint32_t)p1;
            x3[k] = (uint32_t)p0;
            x0[k] = y0;
            x2[k] = y2;
        }
        key0 += LATMC_PHILOX_W0;
        key1 += LATMC_PHILOX_W1;
    }
    for (int k = 0; k < B; k++) {
        out[4 * k] = x0[k], out[4 * k + 1] = x1[k], out[4 * k + 2] = x2[k];
        out[4 * k + 3] = x3[k];
    }
}

/* The draws of blocks b0 .. b0 + n - 1 into out[4 (b - b0) + lane] (room for n rounded
 * up to a multiple of LATMC_CLUSTER_BATCH blocks). */
static void cluster_blocks(uint64_t seed, uint64_t sweep, uint32_t phase, uint64_t b0,
                           int64_t n, uint32_t *out)
{
    for (int64_t k0 = 0; k0 < n; k0 += LATMC_CLUSTER_BATCH) {
        uint64_t blk[LATMC_CLUSTER_BATCH];
        for (int k = 0; k < LATMC_CLUSTER_BATCH; k++)
            blk[k] = b0 + (uint64_t)(k0 + k);
        latmc_cluster_batch(seed, sweep, phase, blk, out + 4 * k0);
    }
}

/* The bonds of sites [i0, i1) of sweep `sweep`, i0 and i1 at the start of rows, from the
 * draws of lib/cluster_bonds.h (a row's blocks computed together). */
int latmc_cluster_draw_bonds(const struct latmc_cluster_job *job, uint64_t sweep,
                             const uint8_t *s, uint8_t *bonds, int64_t i0, int64_t i1)
{
    const int nd = job->g.ndim;
    const int64_t lx = job->g.l[0], ly = job->g.l[1], lz = job->g.l[2];
    if (job->bond_threshold == 0) { /* K = 0: no bond */
        memset(bonds + i0, 0, (size_t)(i1 - i0));
        return LATMC_OK;
    }
    const int flip = !job->potts && job->sign_k < 0;
    const int64_t row_blocks = (lx * nd + 3) / 4 + 1; /* a row's draws span at most these */
    uint32_t *draws = malloc((size_t)(row_blocks + LATMC_CLUSTER_BATCH) * 4 * sizeof *draws);
    if (!draws)
        return LATMC_ENOMEM;
    for (int64_t row = i0 / lx; row < i1 / lx; row++) {
        const int64_t y = row % ly, z = row / ly, base = row * lx;
        const int64_t up_y = y + 1 == ly ? -(ly - 1) * lx : lx;
        const int64_t up_z = nd == 3 ? (z + 1 == lz ? -(lz - 1) * lx * ly : lx * ly) : 0;
        const uint64_t d0 = (uint64_t)base * (uint64_t)nd, b0 = d0 >> 2;
        const uint64_t b1 = ((uint64_t)(base + lx) * (uint64_t)nd + 3) >> 2;
        cluster_blocks(job->seed, sweep, LATMC_CLUSTER_PHASE_BONDS, b0, (int64_t)(b1 - b0),
                       draws);
        const uint32_t *u = draws + (d0 - 4 * b0); /* u[d - d0]: draw d */
        /* without branches on the spins or the draws: they are unpredictable */
        for (int64_t x = 0; x < lx; x++) {
            const int64_t i = base + x;
            const int64_t j[3] = { x + 1 == lx ? base : i + 1, i + up_y, i + up_z };
            unsigned b = 0;
            for (int mu = 0; mu < nd; mu++) {
                const unsigned on = (unsigned)can_bond(job, s, i, j[mu], mu, flip) &
                                    (unsigned)((uint64_t)u[x * nd + mu] < job->bond_threshold);
                b |= on << mu;
            }
            bonds[i] = (uint8_t)b;
        }
    }
    free(draws);
    return LATMC_OK;
}

/* The threshold below which Ising keeps a cluster of magnetisation m (heat bath on the
 * field energy; 2^31 without a field). */
static uint64_t keep_threshold(const struct latmc_cluster_job *job, int64_t m)
{
    if (job->beta_h == 0.0)
        return UINT64_C(1) << 31;
    return latmc_threshold_u32(1.0 / (1.0 + exp(-2.0 * job->beta_h * (double)m)));
}

/* The decision of the cluster named r from its draw u: Ising 1 keep, 0 flip; Potts the
 * new colour. size: its sites, m: its magnetisation (Ising), old: its colour (Potts). */
uint8_t latmc_cluster_decide(const struct latmc_cluster_job *job, uint32_t u, int64_t size,
                             int64_t m, int old)
{
    if (!job->potts) {
        if (job->wolff && job->beta_h == 0.0)
            return 0;
        return (uint8_t)latmc_cluster_ising_keep(u, keep_threshold(job, m));
    }
    if (job->beta_h == 0.0)
        return (uint8_t)(job->wolff ? latmc_cluster_potts_other(u, old, job->q)
                                    : latmc_cluster_potts_uniform(u, job->q));
    const double p0 = 1.0 / (1.0 + (double)(job->q - 1) * exp(-job->beta_h * (double)size));
    return (uint8_t)latmc_cluster_potts_colour(u, latmc_threshold_u32(p0), job->q);
}

/* The decision of the one cluster named r (Wolff). */
uint8_t latmc_cluster_decide_one(const struct latmc_cluster_job *job, uint64_t sweep,
                                 int64_t r, int64_t size, int64_t m, int old)
{
    return latmc_cluster_decide(job, latmc_cluster_decide_draw(job->seed, sweep, r), size, m, old);
}

