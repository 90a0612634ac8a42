/*
 * Tempering on the device (ens_cuda.h; doc/ensembles.md "Exchange rule"): the exchange
 * round of lib/ens_exchange.c for one (sample, replica) chain, taken by one warp at the
 * tail of the fused sweep kernel's launch before a round (ens_ising_packed.cu), in the
 * block of the chain's last member to finish. Lane l decides the pairs (t, t + 1),
 * t = round mod 2 + 2 l (+ 64 k), with the host's energies, draws and decision
 * (lib/ens_exchange_rule.h); pairs of a round are disjoint, so their moves never meet.
 * After __syncwarp every lane knows the chain's new map and does the round-trip
 * bookkeeping of the members at its temperatures. The counters are integers added
 * atomically: their order does not matter.
 */
#ifndef LATMC_ENS_EXCHANGE_CUH
#define LATMC_ENS_EXCHANGE_CUH

#include "ens_cuda.h"
#include "ens_exchange_rule.h"

/* The chain of member m (members are numbered (s n_T + t) n_R + r at the start, and a
 * member keeps its sample and replica). */
__device__ __forceinline__ int64_t ens_chain_of(const struct cuda_ens_round &r, int64_t m)
{
    const int64_t per_sample = (int64_t)r.n_temperatures * r.n_replicas;
    return m / per_sample * r.n_replicas + m % r.n_replicas;
}

/* The round of chain `chain` by the 32 lanes of one warp. The members' sums were written
 * by other blocks of this launch: read through L2 (__ldcg), after the caller's fence. */
__device__ __forceinline__ void ens_exchange_chain(const struct cuda_ens_temper_dev &d,
                                                   const struct cuda_ens_round &r,
                                                   struct cuda_ens_packed_member *members,
                                                   int64_t chain, int lane)
{
    const int nT = r.n_temperatures, nR = r.n_replicas;
    const int64_t s = chain / nR, rep = chain - s * nR;
    const int64_t base = s * nT * nR + rep; /* slot (s, t, rep) = base + t nR */
    for (int t = (int)(r.round % 2) + 2 * lane; t + 1 < nT; t += 64) {
        const int64_t ia = base + (int64_t)t * nR, ib = ia + nR;
        const int a = d.member_at[ia], b = d.member_at[ib];
        const double va = latmc_ising_energy_per_site(r.J, r.h, __ldcg(&d.sums[a].bonds),
                                                      __ldcg(&d.sums[a].spins), r.nsites);
        const double vb = latmc_ising_energy_per_site(r.J, r.h, __ldcg(&d.sums[b].bonds),
                                                      __ldcg(&d.sums[b].spins), r.nsites);
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
