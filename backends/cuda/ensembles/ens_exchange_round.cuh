/*
 * Internal to the CUDA module: one (sample, replica) chain's exchange round on the device
 * (doc/ensembles.md "Exchange rule"), done by one whole warp, wherever it runs: the round's
 * own launch (ens_exchange_kernels.cu) or the last block of the chain to finish the fused
 * sweep launch before it (ens_ising_packed_kernels.cu). Lane l decides the pairs (t, t + 1),
 * t = round mod 2 + 2 l (+ 64 k), with the host's energies, draws and decision
 * (lib/ens_exchange_rule.h); pairs of a round are disjoint, so their moves never meet.
 * After __syncwarp every lane knows the chain's new map and does the round-trip bookkeeping
 * of the members at its temperatures. The counters are integers added atomically: their
 * order does not matter.
 */
#ifndef LATMC_CUDA_ENS_EXCHANGE_ROUND_CUH
#define LATMC_CUDA_ENS_EXCHANGE_ROUND_CUH

#include "ens_ising_batch.h"
#include "ens_exchange_rule.h"

/* The members' sums are read past the L1 cache (__ldcg): in the fused launch other blocks
 * wrote them during this launch, made visible by their __threadfence before they arrived. */
__device__ inline double ens_round_energy(const struct cuda_ens_temper_dev &d,
                                          const struct cuda_ens_round &r, int m)
{
    const long long bonds = __ldcg((const long long *)&d.sums[m].bonds);
    const long long spins = __ldcg((const long long *)&d.sums[m].spins);
    return latmc_ising_energy_per_site(r.J, r.h, (int64_t)bonds, (int64_t)spins, r.nsites);
}

__device__ inline void ens_exchange_chain(const struct cuda_ens_temper_dev &d,
                                          const struct cuda_ens_round &r,
                                          struct cuda_ens_packed_member *members, int64_t chain,
                                          int lane)
{
    const int nT = r.n_temperatures, nR = r.n_replicas;
    const int64_t s = chain / nR, rep = chain - s * nR;
    const int64_t base = s * nT * nR + rep; /* slot (s, t, rep) = base + t nR */
    for (int t = (int)(r.round % 2) + 2 * lane; t + 1 < nT; t += 64) {
        const int64_t ia = base + (int64_t)t * nR, ib = ia + nR;
        const int a = d.member_at[ia], b = d.member_at[ib];
        const double va = ens_round_energy(d, r, a), vb = ens_round_energy(d, r, b);
        const double delta = latmc_ens_exchange_delta(1.0, d.ladder[t], d.ladder[t + 1], va, vb,
                                                      r.nsites);
        const uint32_t u = latmc_ens_exchange_draw(r.seed, r.stream, r.round,
                                                   (uint64_t)chain * (uint64_t)(nT - 1) +
                                                       (uint64_t)t);
        if (latmc_ens_exchange_accept(delta, u)) {
            atomicAdd(&d.stats[2 + t], 1ull);
            d.member_at[ia] = b;
            d.member_at[ib] = a;
            d.temp_of[a] = t + 1;
            d.temp_of[b] = t;
            members[a].thr = d.thr_of_t[t + 1];
            members[b].thr = d.thr_of_t[t];
        }
    }
    __syncwarp(); /* the chain's moves seen by every lane */
    for (int t = lane; t < nT; t += 32) {
        const int m = d.member_at[base + (int64_t)t * nR];
        signed char dir = d.rt_dir[m];
        uint64_t start = d.rt_start[m], trip = 0;
        if (latmc_ens_trip_step(&dir, &start, t, nT - 1, r.sweeps, &trip)) {
            atomicAdd(&d.stats[0], 1ull);
            atomicAdd(&d.stats[1], (unsigned long long)trip);
        }
        d.rt_dir[m] = dir;
        d.rt_start[m] = start;
    }
}

#endif
