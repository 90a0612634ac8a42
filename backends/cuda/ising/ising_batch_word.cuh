/*
 * One word of an ensemble member on the multi-spin coded layout (ising_packed.h), as every
 * ensemble Ising kernel sees it: the per-colour and fused kernels
 * (ising_batch_packed_kernels.cu) differ only in where the neighbour indices and the
 * thresholds come from, so the word's neighbours, couplings, class sum, draws, decision and
 * bond count are written once here. The resident tempering chains (ising_batch_temper_kernels.cu)
 * take the draws, the block products and the bond count from here and write the same
 * neighbours, class sums and decisions with fewer ALU-pipe instructions of their own.
 * Device only; everything inlines into its kernel (the callers' generated code is what it
 * was with these lines written out).
 */
#ifndef LATMC_CUDA_ISING_BATCH_WORD_CUH
#define LATMC_CUDA_ISING_BATCH_WORD_CUH

#include "cuda_philox.cuh"
#include "ising_packed.cuh"

/* The indices of a word's neighbour words in the other colour's array (same index: the
 * first x neighbour). `right`: its other x neighbour is nibble m + 1, the missing nibble
 * from the next word of its row (else m - 1, from the previous one; periodic). */
struct ens_word_nbrs {
    uint32_t w, y_up, y_down, z_up, z_down, next, prev;
    bool right;
};

/* The 2 ND neighbour words of word n.w, the +-J couplings e (CW words, bit d of nibble m
 * set: bond d of site m is antiferromagnetic) xor-ed in; word(i) reads the other colour's
 * word at the place i that n names (an index, or a byte offset where the caller keeps
 * those). */
template <int ND, int CW, typename Word>
__device__ __forceinline__ void ens_neighbours_at(const Word &word, const ens_word_nbrs &n,
                                                  const uint32_t *e, uint32_t nb[ND])
{
    nb[0] = word(n.w);
    nb[2] = word(n.y_up);
    nb[3] = word(n.y_down);
    if constexpr (ND == 6) {
        nb[4] = word(n.z_up);
        nb[5] = word(n.z_down);
    }
    if (n.right)
        nb[1] = __funnelshift_r(nb[0], word(n.next), 4);
    else
        nb[1] = __funnelshift_l(word(n.prev), nb[0], 4);
    if constexpr (CW > 0) {
#pragma unroll
        for (int d = 0; d < ND; d++)
            nb[d] ^= (e[d / 4] >> (d % 4)) & 0x11111111u;
    }
}

/* The same with n's indices into the other colour's array. */
template <int ND, int CW>
__device__ __forceinline__ void ens_neighbours(const uint32_t *other, const ens_word_nbrs &n,
                                               const uint32_t *e, uint32_t nb[ND])
{
    ens_neighbours_at<ND, CW>([other](uint32_t i) { return other[i]; }, n, e, nb);
}

/* The anti-aligned bonds (eps s_i s_j = -1) between a word and its neighbour words. */
template <int ND>
__device__ __forceinline__ uint32_t ens_anti_bonds(uint32_t own, const uint32_t nb[ND])
{
    uint32_t anti = 0;
#pragma unroll
    for (int d = 0; d < ND; d++)
        anti += __popc(own ^ nb[d]);
    return anti;
}

/*
 * The new word of 8 sites from its neighbour words: the class sum (own spin x 8 plus the
 * neighbours, a nibble each), the draws of Philox blocks 2 w and 2 w + 1 of the pass's
 * fold, given by their first products p_even = M0 (2 w) and p_odd = M0 (2 w + 1)
 * (cuda_philox_folded_draws_p0), and the decision by `decide(own, cls, u0, u1)` (the
 * caller's threshold table).
 */
/* The class of each of a word's 8 sites: its own spin x 8 plus its neighbours, a nibble
 * each (at most 6 + 8: no carry between nibbles). */
template <int ND>
__device__ __forceinline__ uint32_t ens_word_class(uint32_t own, const uint32_t nb[ND])
{
    uint32_t cls = own << 3;
#pragma unroll
    for (int d = 0; d < ND; d++)
        cls += nb[d];
    return cls;
}

template <int ND, typename Decide>
__device__ __forceinline__ uint32_t ens_new_word(uint32_t own, const uint32_t nb[ND],
                                                 const struct cuda_philox_folded &f,
                                                 const struct cuda_philox_group &grp,
                                                 uint64_t p_even, uint64_t p_odd,
                                                 const Decide &decide)
{
    const uint32_t cls = ens_word_class<ND>(own, nb);
    const latmc_philox_ctr u0 = cuda_philox_folded_draws_p0(f, grp, p_even);
    const latmc_philox_ctr u1 = cuda_philox_folded_draws_p0(f, grp, p_odd);
    return decide(own, cls, u0, u1);
}

/* Round 1's product of Philox block b (ens_new_word's p_even, p_odd). */
__device__ __forceinline__ uint64_t ens_block_product(uint32_t b)
{
    return (uint64_t)LATMC_PHILOX_M0 * b;
}

/* The decision with the 16 thresholds in shared memory, one word each (packed_update_word). */
template <bool HEATBATH>
struct ens_decide_table {
    const unsigned char *table_bytes;
    __device__ __forceinline__ uint32_t operator()(uint32_t own, uint32_t cls,
                                                   const latmc_philox_ctr &u0,
                                                   const latmc_philox_ctr &u1) const
    {
        return packed_update_word<HEATBATH>(own, cls, u0, u1, table_bytes);
    }
};

#endif
