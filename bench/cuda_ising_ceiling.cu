/*
 * cuda_ising_ceiling: the compute ceilings of the multi-spin coded CUDA Ising kernel
 * (backends/cuda/ising/ising_packed.cu), for doc/PERFORMANCE.md's roofline. Standalone (not
 * built by Meson), from the repository root:
 *
 *   nvcc -O2 -arch=sm_90 -fmad=false -Ilib -Iinclude -Ibackends/cuda -Ibackends/cuda/ising \
 *        -o cuda_ising_ceiling bench/cuda_ising_ceiling.cu && ./cuda_ising_ceiling
 *
 * Kernels, none touching memory inside the loop (one word per thread written at the end),
 * best of 10 runs each, timed with CUDA events, one wave of threads per SM:
 *   imad.wide  8 independent chains of 32x32->64-bit multiply-adds (the Philox multiply)
 *   lop3       8 independent chains of a three-input logic operation (the Philox xor)
 *   philox     Philox4x32-10 as lib/rng_streams.h defines it, outputs per ns
 *   folded     the same draws with the first two rounds folded (cuda_philox.cuh)
 *   decide     folded draws plus the kernel's per-site step (packed_update_word: class
 *              lookup in shared memory, compare, predicated flip) on synthetic words:
 *              the kernel's work without its loads and stores, in flips per ns
 */
#include <cstdio>
#include <cstdlib>

#include <cuda_runtime.h>

#include "ising_packed.cuh"

#define CHECK(x)                                                                          \
    do {                                                                                  \
        cudaError_t e_ = (x);                                                             \
        if (e_ != cudaSuccess) {                                                          \
            fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_));                      \
            exit(1);                                                                      \
        }                                                                                 \
    } while (0)

#define ITER 4096

__global__ void imad_wide_kernel(uint32_t seed, uint32_t *out)
{
    uint64_t acc[8];
    const uint32_t a = seed ^ threadIdx.x;
    for (int i = 0; i < 8; i++)
        acc[i] = a + i;
    for (int it = 0; it < ITER; it++)
#pragma unroll
        for (int i = 0; i < 8; i++)
            acc[i] = (uint64_t)(uint32_t)acc[i] * LATMC_PHILOX_M0 + (acc[i] >> 32);
    uint32_t x = 0;
    for (int i = 0; i < 8; i++)
        x ^= (uint32_t)acc[i];
    out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

__global__ void lop3_kernel(uint32_t seed, uint32_t *out)
{
    uint32_t v[10];
    for (int i = 0; i < 10; i++)
        v[i] = seed * (threadIdx.x + i);
    for (int it = 0; it < ITER; it++)
#pragma unroll
        for (int i = 0; i < 8; i++)
            v[i] = v[i] ^ (v[i + 1] & ~v[i + 2]);
    out[blockIdx.x * blockDim.x + threadIdx.x] = v[0] ^ v[3] ^ v[7];
}

__global__ void philox_kernel(struct cuda_philox_keys keys, int64_t per_thread, uint32_t *out)
{
    const int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    uint32_t x = 0;
    for (int64_t b = 0; b < per_thread; b++) {
        const latmc_philox_ctr c = cuda_philox_update_draws(keys, t * per_thread + b, 1, 0, 0);
        x ^= c.v[0] ^ c.v[1] ^ c.v[2] ^ c.v[3];
    }
    out[t] = x;
}

__global__ void folded_kernel(struct cuda_philox_folded f, int64_t per_thread, uint32_t *out)
{
    const int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    uint32_t x = 0;
    for (int64_t b = 0; b < per_thread; b += 8) {
        const uint64_t block0 = (uint64_t)(t * per_thread + b);
        const struct cuda_philox_group g = cuda_philox_group_of(f, block0);
#pragma unroll
        for (int i = 0; i < 8; i++) {
            const latmc_philox_ctr c = cuda_philox_folded_draws(f, g, (uint32_t)block0 + i);
            x ^= c.v[0] ^ c.v[1] ^ c.v[2] ^ c.v[3];
        }
    }
    out[t] = x;
}

__global__ void decide_kernel(struct cuda_philox_folded f, struct cuda_ising_packed_thresholds thr,
                              int64_t per_thread, uint32_t *out)
{
    __shared__ uint32_t table[16];
    if (threadIdx.x == 0)
        for (int i = 0; i < 16; i++)
            table[i] = thr.t[i];
    __syncthreads();
    const int64_t t = blockIdx.x * (int64_t)blockDim.x + threadIdx.x;
    uint32_t own = (uint32_t)t * 0x9e3779b9u & 0x11111111u, x = 0;
    for (int64_t b = 0; b < per_thread; b += 8) {
        const uint64_t block0 = (uint64_t)(t * per_thread + b);
        const struct cuda_philox_group g = cuda_philox_group_of(f, block0);
#pragma unroll
        for (int k = 0; k < 4; k++) {
            /* a class word that changes with the data: own spin and 0..3 minus neighbours */
            const uint32_t cls = (own << 3) + ((own ^ x) & 0x33333333u);
            const latmc_philox_ctr u0 = cuda_philox_folded_draws(f, g, (uint32_t)block0 + 2 * k);
            const latmc_philox_ctr u1 =
                cuda_philox_folded_draws(f, g, (uint32_t)block0 + 2 * k + 1);
            own = packed_update_word<false>(own, cls, u0, u1, (const unsigned char *)table);
            x += own;
        }
    }
    out[t] = x ^ own;
}

static float best_ms(void (*launch)(void *), void *arg)
{
    cudaEvent_t a, b;
    CHECK(cudaEventCreate(&a));
    CHECK(cudaEventCreate(&b));
    float best = 1e30f;
    for (int r = 0; r < 10; r++) {
        CHECK(cudaEventRecord(a));
        launch(arg);
        CHECK(cudaEventRecord(b));
        CHECK(cudaEventSynchronize(b));
        float ms = 0;
        CHECK(cudaEventElapsedTime(&ms, a, b));
        if (ms < best)
            best = ms;
    }
    CHECK(cudaGetLastError());
    return best;
}

struct setup {
    int grid, threads;
    int64_t per_thread;
    uint32_t *out;
    struct cuda_philox_keys keys;
    struct cuda_philox_folded folded;
    struct cuda_ising_packed_thresholds thr;
};

static void run_imad(void *p)
{
    setup *s = (setup *)p;
    imad_wide_kernel<<<s->grid, s->threads>>>(1, s->out);
}
static void run_lop3(void *p)
{
    setup *s = (setup *)p;
    lop3_kernel<<<s->grid, s->threads>>>(3, s->out);
}
static void run_philox(void *p)
{
    setup *s = (setup *)p;
    philox_kernel<<<s->grid, s->threads>>>(s->keys, s->per_thread, s->out);
}
static void run_folded(void *p)
{
    setup *s = (setup *)p;
    folded_kernel<<<s->grid, s->threads>>>(s->folded, s->per_thread, s->out);
}
static void run_decide(void *p)
{
    setup *s = (setup *)p;
    decide_kernel<<<s->grid, s->threads>>>(s->folded, s->thr, s->per_thread, s->out);
}

int main(void)
{
    cudaDeviceProp prop;
    CHECK(cudaGetDeviceProperties(&prop, 0));
    int clock_khz = 0;
    CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
    const double ghz = clock_khz / 1e6, sms = prop.multiProcessorCount;
    setup s;
    s.threads = 256;
    int per_sm = 0;
    CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, decide_kernel, s.threads, 0));
    s.grid = per_sm * prop.multiProcessorCount;
    s.per_thread = 2048;
    CHECK(cudaMalloc(&s.out, (size_t)s.grid * s.threads * sizeof(uint32_t)));
    s.keys = cuda_philox_round_keys(12345);
    s.folded = cuda_philox_fold(12345, 1, 0, 0, 0);
    for (int i = 0; i < 16; i++) /* Metropolis at T = 1.5 in 2D: 1, e^{-8/3}, e^{-16/3} */
        s.thr.t[i] = (i & 7) >= 2 ? 0xffffffffu : (i & 7) == 1 ? 298700000u : 20700000u;
    const double threads = (double)s.grid * s.threads;
    printf("%s: %d SMs, %.3f GHz (nominal), grid %d x %d\n", prop.name, prop.multiProcessorCount,
           ghz, s.grid, s.threads);
    double ms = best_ms(run_imad, &s);
    double n = threads * ITER * 8;
    printf("imad.wide  %8.1f per ns = %.1f warp instructions per SM per clock\n", n / ms / 1e6,
           n / 32 / (ms * 1e6) / sms / ghz);
    ms = best_ms(run_lop3, &s);
    printf("lop3       %8.1f per ns = %.1f warp instructions per SM per clock\n", n / ms / 1e6,
           n / 32 / (ms * 1e6) / sms / ghz);
    n = threads * s.per_thread * 4;
    ms = best_ms(run_philox, &s);
    printf("philox     %8.1f outputs per ns\n", n / ms / 1e6);
    ms = best_ms(run_folded, &s);
    printf("folded     %8.1f outputs per ns\n", n / ms / 1e6);
    ms = best_ms(run_decide, &s);
    printf("decide     %8.1f flips per ns (folded draws + per-site step, no memory)\n",
           n / ms / 1e6);
    return 0;
}
