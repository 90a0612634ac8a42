/*
 * The device transposition of a Heisenberg part's planes (cuda_planes_transpose.h): one
 * thread per float of the API layout, so the writes (gather) or reads (scatter) of the
 * contiguous side are coalesced and the SoA side reads 3 runs. A copy: bit-exact.
 */
#include "cuda_launch.cuh"
#include "cuda_planes_transpose.h"

__global__ void planes_heis_gather_kernel(float *__restrict__ aos,
                                          const float *__restrict__ soa, long long stride,
                                          long long n, long long total)
{
    for (long long i = cuda_first_item(); i < total; i += cuda_item_stride()) {
        const long long t = i / 3, c = i - 3 * t, r = t / n, j = t - r * n;
        aos[i] = soa[(3 * r + c) * stride + j];
    }
}

__global__ void planes_heis_scatter_kernel(float *__restrict__ soa, long long stride,
                                           const float *__restrict__ aos, long long n,
                                           long long total)
{
    for (long long i = cuda_first_item(); i < total; i += cuda_item_stride()) {
        const long long t = i / 3, c = i - 3 * t, r = t / n, j = t - r * n;
        soa[(3 * r + c) * stride + j] = aos[i];
    }
}

extern "C" cudaError_t cuda_planes_heis_gather(cudaStream_t stream, float *aos,
                                               const float *soa, long long stride,
                                               long long n, int nrep)
{
    const long long total = 3 * n * nrep;
    planes_heis_gather_kernel<<<cuda_grid(total), CUDA_THREADS, 0, stream>>>(aos, soa, stride,
                                                                            n, total);
    return cudaGetLastError();
}

extern "C" cudaError_t cuda_planes_heis_scatter(cudaStream_t stream, float *soa,
                                                long long stride, const float *aos,
                                                long long n, int nrep)
{
    const long long total = 3 * n * nrep;
    planes_heis_scatter_kernel<<<cuda_grid(total), CUDA_THREADS, 0, stream>>>(soa, stride, aos,
                                                                             n, total);
    return cudaGetLastError();
}
