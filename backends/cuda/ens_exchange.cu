/*
 * Tempering on the device (ens_cuda.h): the members' thresholds set from the device's map
 * after a table upload. The round itself runs at the tail of the fused sweep kernel
 * (ens_exchange.cuh, ens_ising_packed.cu).
 */
#include "cuda_launch.cuh"
#include "ens_cuda.h"

__global__ void ens_temper_thresholds_kernel(struct cuda_ens_temper_dev d,
                                             struct cuda_ens_packed_member *members, int64_t n)
{
    for (int64_t m = cuda_first_item(); m < n; m += cuda_item_stride())
        members[m].thr = d.thr_of_t[d.temp_of[m]];
}

extern "C" cudaError_t cuda_ens_temper_thresholds(cudaStream_t stream,
                                                  const struct cuda_ens_temper_dev *d,
                                                  struct cuda_ens_packed_member *members,
                                                  int64_t n)
{
    ens_temper_thresholds_kernel<<<cuda_grid(n), CUDA_THREADS, 0, stream>>>(*d, members, n);
    return cudaGetLastError();
}
