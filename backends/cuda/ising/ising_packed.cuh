/*
 * The per-word step of the multi-spin coded Ising kernels (ising_packed.cu), shared with
 * the bench program that measures its compute ceiling (bench/cuda_ising_ceiling.cu).
 */
#ifndef LATMC_CUDA_ISING_PACKED_CUH
#define LATMC_CUDA_ISING_PACKED_CUH

#include "cuda_philox.cuh"
#include "ising_packed.h"

/*
 * The decision of one site, with the flip (Metropolis) or the new -1 (heat bath) applied
 * by a predicated xor / or: a compare and one predicated logic operation, the fewest
 * integer-pipe instructions (the compiler's own choice, a select and a merge, costs more).
 */
template <bool HEATBATH>
__device__ __forceinline__ void packed_decide(uint32_t &w, uint32_t u, uint32_t t, uint32_t bit)
{
    if (HEATBATH)
        asm("{\n\t.reg .pred p;\n\tsetp.ge.u32 p, %1, %2;\n\t@p or.b32 %0, %0, %3;\n\t}"
            : "+r"(w) : "r"(u), "r"(t), "r"(bit));
    else
        asm("{\n\t.reg .pred p;\n\tsetp.le.u32 p, %1, %2;\n\t@p xor.b32 %0, %0, %3;\n\t}"
            : "+r"(w) : "r"(u), "r"(t), "r"(bit));
}

/*
 * The new word of 8 sites: own their spins (nibbles 0 / 1), cls their classes (nibbles),
 * u0 / u1 the draws of their two Philox blocks (nibbles 0-3 / 4-7). Per site the threshold
 * is threshold(x, q): x one of two pre-shifted copies of cls whose byte q holds
 * 4 x class | sub (sub: bits 6 and 7 of every byte, the caller's), then packed_decide.
 */
template <bool HEATBATH, typename Threshold>
__device__ __forceinline__ uint32_t packed_update_word_by(uint32_t own, uint32_t cls,
                                                          const latmc_philox_ctr &u0,
                                                          const latmc_philox_ctr &u1,
                                                          uint32_t sub,
                                                          const Threshold &threshold)
{
    /* byte q of even4 = 4 x class of nibble 2q, of odd4 = 4 x class of nibble 2q+1 */
    const uint32_t even4 = ((cls << 2) & 0x3c3c3c3cu) | sub;
    const uint32_t odd4 = ((cls >> 2) & 0x3c3c3c3cu) | sub;
    uint32_t w = HEATBATH ? 0u : own;
#pragma unroll
    for (int n = 0; n < 8; n++) {
        const uint32_t t = threshold(n & 1 ? odd4 : even4, n >> 1);
        packed_decide<HEATBATH>(w, n < 4 ? u0.v[n] : u1.v[n - 4], t, 1u << (4 * n));
    }
    return w;
}

/*
 * The same with table_bytes the 16-entry threshold table in shared memory: a byte permute
 * pulls 4 x class out of one of the two copies, a shared load reads the threshold (16
 * distinct words: distinct banks, no conflict).
 */
template <bool HEATBATH>
__device__ __forceinline__ uint32_t packed_update_word(uint32_t own, uint32_t cls,
                                                       const latmc_philox_ctr &u0,
                                                       const latmc_philox_ctr &u1,
                                                       const unsigned char *table_bytes)
{
    return packed_update_word_by<HEATBATH>(
        own, cls, u0, u1, 0u, [table_bytes](uint32_t x, int q) {
            return *(const uint32_t *)(table_bytes + __byte_perm(x, 0, 0x4440 | q));
        });
}

#endif
