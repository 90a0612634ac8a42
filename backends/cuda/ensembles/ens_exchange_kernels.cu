/*
 * Tempering on the device (ens_ising_batch.h; doc/ensembles.md "Exchange rule"): the exchange
 * round of lib/ens_exchange.c as a launch of its own, warp c taking the (sample, replica)
 * chain c (ens_exchange_round.cuh), where the fused sweep launch before it does not do the
 * round itself; and the members' thresholds set from the map.
 */
#include "cuda_launch.cuh"
#include "ens_exchange_round.cuh"

#define ENS_EXCHANGE_THREADS 128 /* four chains a block */

__global__ void __launch_bounds__(ENS_EXCHANGE_THREADS)
ens_exchange_kernel(struct cuda_ens_temper_dev d, struct cuda_ens_round r,
                    struct cuda_ens_packed_member *members)
{
    const int64_t chain = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    if (chain >= (int64_t)r.n_samples * r.n_replicas)
        return; /* a whole warp: the chain is the warp's */
    ens_exchange_chain(d, r, members, chain, (int)(threadIdx.x & 31u));
}

__global__ void ens_temper_thresholds_kernel(struct cuda_ens_temper_dev d,
                                             struct cuda_ens_packed_member *members, int64_t n)
{
    for (int64_t m = cuda_first_item(); m < n; m += cuda_item_stride())
        members[m].thr = d.thr_of_t[d.temp_of[m]];
}

extern "C" cudaError_t cuda_ens_exchange_round(cudaStream_t stream,
                                               const struct cuda_ens_temper_dev *d,
                                               const struct cuda_ens_round *r,
                                               struct cuda_ens_packed_member *members)
{
    const int64_t threads = (int64_t)r->n_samples * r->n_replicas * 32;
    const unsigned grid =
        (unsigned)((threads + ENS_EXCHANGE_THREADS - 1) / ENS_EXCHANGE_THREADS);
    ens_exchange_kernel<<<grid, ENS_EXCHANGE_THREADS, 0, stream>>>(*d, *r, members);
    return cudaGetLastError();
}

extern "C" cudaError_t cuda_ens_temper_thresholds(cudaStream_t stream,
                                                  const struct cuda_ens_temper_dev *d,
                                                  struct cuda_ens_packed_member *members,
                                                  int64_t n)
{
    ens_temper_thresholds_kernel<<<cuda_grid(n), CUDA_THREADS, 0, stream>>>(*d, members, n);
    return cudaGetLastError();
}
