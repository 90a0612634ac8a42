/*
 * Tempering on the device (cuda_temper.h; doc/ensembles.md "Exchange rule"): the exchange
 * round of lib/ens_exchange.c as one launch, a template over the model, which each model's
 * leaf instantiates in its batch's kernels. Warp c takes the (sample, replica) chain c:
 * lane l decides the pairs (t, t + 1), t = round mod 2 + 2 l (+ 64 k), with the host's
 * values, draws and decision (lib/ens_exchange_rule.h: Delta = r.scale (ladder[t + 1] -
 * ladder[t]) (V_b - V_a) N); pairs of a round are disjoint, so their moves never meet.
 * After __syncwarp every lane knows the chain's new map and does the round-trip
 * bookkeeping of the members at its temperatures. The counters are integers added
 * atomically: their order does not matter.
 *
 * What differs between the models is a struct with two members: value(d, r, m), member
 * m's value per site of the quantity conjugate to the ladder's parameter (the energy for
 * beta, sum phi^2 for phi^4's mu2; from the sums the sweep's last launch or a reduction
 * left), and move(d, m, t), member m moved to temperature t in the batch's table of
 * members (Ising: the thresholds of that temperature; Heisenberg: its beta; phi^4: the
 * coefficients of its mu2).
 */
#ifndef LATMC_CUDA_TEMPER_ROUND_CUH
#define LATMC_CUDA_TEMPER_ROUND_CUH

#include "cuda_launch.cuh"
#include "cuda_temper.h"
#include "ens_exchange_rule.h"

#define CUDA_TEMPER_ROUND_THREADS 128 /* four chains a block */

template <class Model>
__global__ void __launch_bounds__(CUDA_TEMPER_ROUND_THREADS)
ens_exchange_kernel(struct cuda_ens_temper_dev d, struct cuda_ens_round r, Model model)
{
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    /* a programmatic launch (cuda_temper_exchange_round, Heisenberg): the blocks may start
     * before the sums' launch ends and wait for it here; and they let the sweeps' launch
     * after the round start its blocks (which wait for this one likewise). An ordinary
     * launch: both do nothing. */
    asm volatile("griddepcontrol.wait;" ::: "memory");
    asm volatile("griddepcontrol.launch_dependents;" ::: "memory");
#endif
    const int64_t local = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    if (local >= (int64_t)r.n_samples * r.n_replicas)
        return; /* a whole warp: the chain is the warp's */
    const int lane = (int)(threadIdx.x & 31u), nT = r.n_temperatures, nR = r.n_replicas;
    const int64_t chain = (int64_t)r.first_sample * nR + local; /* the ensemble's */
    const int64_t s = chain / nR, rep = chain - s * nR;
    const int64_t base = s * nT * nR + rep; /* slot (s, t, rep) = base + t nR */
    for (int t = (int)(r.round % 2) + 2 * lane; t + 1 < nT; t += 64) {
        const int64_t ia = base + (int64_t)t * nR, ib = ia + nR;
        const int a = d.member_at[ia], b = d.member_at[ib];
        const double va = model.value(d, r, a), vb = model.value(d, r, b);
        const double delta = latmc_ens_exchange_delta(r.scale, d.ladder[t], d.ladder[t + 1], va,
                                                      vb, r.nsites);
        const uint32_t u = latmc_ens_exchange_draw(r.seed, r.stream, r.round,
                                                   (uint64_t)chain * (uint64_t)(nT - 1) +
                                                       (uint64_t)t);
        if (latmc_ens_exchange_accept(delta, u)) {
            atomicAdd(&d.stats[2 + t], 1ull);
            d.member_at[ia] = b;
            d.member_at[ib] = a;
            d.temp_of[a] = t + 1;
            d.temp_of[b] = t;
            model.move(d, a, t + 1);
            model.move(d, b, t);
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

/* Every member moved to the temperature the map gives it (after a table upload from the
 * host, whose members' parameters lag behind the device's map). */
template <class Model>
__global__ void ens_temper_place_kernel(struct cuda_ens_temper_dev d, Model model, int64_t n)
{
    for (int64_t m = cuda_first_item(); m < n; m += cuda_item_stride())
        model.move(d, (int)m, d.temp_of[m]);
}

/* programmatic: the launch may start before the previous kernel of the stream ends (its
 * blocks wait for it in the kernel; sm_90): Heisenberg's round, between the sums' launch
 * and the sweeps' that both let it (heisenberg_batch_kernels.cu, ens_heisenberg_launch) */
template <class Model>
static cudaError_t cuda_temper_exchange_round(cudaStream_t stream,
                                              const struct cuda_ens_temper_dev *d,
                                              const struct cuda_ens_round *r, const Model &model,
                                              bool programmatic)
{
    const int64_t threads = (int64_t)r->n_samples * r->n_replicas * 32;
    const unsigned bt = CUDA_TEMPER_ROUND_THREADS;
    const dim3 grid((unsigned)((threads + bt - 1) / bt));
    return cuda_launch_programmatic(ens_exchange_kernel<Model>, grid, dim3(bt), 0, stream,
                                    programmatic, *d, *r, model);
}

template <class Model>
static cudaError_t cuda_temper_place(cudaStream_t stream, const struct cuda_ens_temper_dev *d,
                                     const Model &model, int64_t n)
{
    ens_temper_place_kernel<Model><<<cuda_grid(n), CUDA_THREADS, 0, stream>>>(*d, model, n);
    return cudaGetLastError();
}

#endif
