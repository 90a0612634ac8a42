/*
 * cuda_bandwidth: the device memory bandwidth a streaming kernel reaches, the reference
 * against which doc/PERFORMANCE.md states the fraction of bandwidth a kernel uses.
 * Standalone (not built by Meson):
 *
 *   nvcc -O2 -arch=sm_90 -o cuda_bandwidth bench/cuda_bandwidth.cu && ./cuda_bandwidth [GiB]
 *
 * Three kernels over buffers of GiB gibibytes each (default 2), float4 accesses,
 * grid-stride: read (sum, one float per block written), write (fill), copy (read one
 * buffer, write another). Best of 20 runs each, timed with CUDA events; bytes counted as
 * the kernel's own reads plus writes.
 */
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

#define CHECK(x)                                                                          \
    do {                                                                                  \
        cudaError_t e_ = (x);                                                             \
        if (e_ != cudaSuccess) {                                                          \
            fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));                      \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

__global__ void read_kernel(const float4 *a, size_t n, float *out)
{
    float s = 0.0f;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x) {
        const float4 v = a[i];
        s += v.x + v.y + v.z + v.w;
    }
    if (s == 1.2345f) /* never: keeps the loads */
        out[blockIdx.x] = s;
}

__global__ void write_kernel(float4 *a, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        a[i] = make_float4(1.0f, 2.0f, 3.0f, 4.0f);
}

__global__ void copy_kernel(const float4 *a, float4 *b, size_t n)
{
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n;
         i += (size_t)gridDim.x * blockDim.x)
        b[i] = a[i];
}

int main(int argc, char **argv)
{
    const double gib = argc > 1 ? atof(argv[1]) : 2.0;
    const size_t bytes = (size_t)(gib * 1073741824.0);
    const size_t n = bytes / sizeof(float4);
    float4 *a, *b;
    float *out;
    CHECK(cudaMalloc(&a, n * sizeof(float4)));
    CHECK(cudaMalloc(&b, n * sizeof(float4)));
    CHECK(cudaMalloc(&out, 1 << 20));
    CHECK(cudaMemset(a, 0, n * sizeof(float4)));
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    const unsigned blocks = (unsigned)prop.multiProcessorCount * 8, threads = 256;
    cudaEvent_t t0, t1;
    CHECK(cudaEventCreate(&t0));
    CHECK(cudaEventCreate(&t1));
    const char *names[3] = { "read", "write", "copy" };
    const double moved[3] = { (double)n * 16, (double)n * 16, (double)n * 32 };
    printf("%s, %.1f GiB per buffer, %u blocks x %u threads\n", prop.name, gib, blocks, threads);
    for (int k = 0; k < 3; k++) {
        float best = 1e30f;
        for (int r = 0; r < 20; r++) {
            CHECK(cudaEventRecord(t0));
            if (k == 0)
                read_kernel<<<blocks, threads>>>(a, n, out);
            else if (k == 1)
                write_kernel<<<blocks, threads>>>(b, n);
            else
                copy_kernel<<<blocks, threads>>>(a, b, n);
            CHECK(cudaEventRecord(t1));
            CHECK(cudaEventSynchronize(t1));
            float ms = 0;
            CHECK(cudaEventElapsedTime(&ms, t0, t1));
            best = ms < best ? ms : best;
        }
        printf("%-5s %8.1f GB/s (%.3f ms for %.2f GB)\n", names[k], moved[k] / (best * 1e6),
               best, moved[k] / 1e9);
    }
    return 0;
}
