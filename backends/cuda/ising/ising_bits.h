/*
 * Internal to the CUDA module: what a box that holds the Ising configuration in the 1-bit
 * layout alone (cuda_ising_bits.c; the layout: cuda_ising_bitsliced.h, both colours, word
 * g of a colour group g, bit i lane i, set for a spin -1, colour 1's words after colour
 * 0's) needs beside the bit-sliced steps: the default chain's step (decisions = 0), the
 * measurement, alone or with the Fourier modes' projections (ising_bits_fold.cu), and the
 * conversions between rows of the API's bytes and the 1-bit words. Kernels: ising_bits.cu
 * and ising_bits_fold.cu. The lattice g is a box's local lattice with L_x a multiple of 64
 * (cuda_ising_bits_fits): a box alone's (the whole lattice, periodic), or a box with halos
 * (its own planes and 2 halo planes a side, starting on an even plane of the lattice, so
 * that a local row has its lattice row's parity), whose kernels take whole rows `rows`
 * (ising_packed.h: local rows [row0, row0 + nrows), row r the lattice's r + row_offset,
 * which names the draws; NULL: the whole lattice).
 */
#ifndef LATMC_CUDA_ISING_BITS_H
#define LATMC_CUDA_ISING_BITS_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#include "ising.h"
#include "ising_packed.h" /* struct cuda_ising_packed_thresholds */
#include "lattice_numbering.h"
#include "rng_streams.h"  /* struct latmc_rng_name */

#ifdef __cplusplus
extern "C" {
#endif

/* Rows [row0, row0 + nrows) (r = y + L_y z) of both colours (bits: colour 0's words, then
 * colour 1's, cuda_ising_bits_words each) from / into a piece of the API's bytes holding
 * just those rows (row r at piece + (r - row0) L_x). */
cudaError_t cuda_ising_bits_pack_rows(cudaStream_t stream, const struct latmc_lattice *g,
                                      int64_t row0, int64_t nrows, const int8_t *piece,
                                      uint32_t *bits);
cudaError_t cuda_ising_bits_unpack_rows(cudaStream_t stream, const struct latmc_lattice *g,
                                        int64_t row0, int64_t nrows, const uint32_t *bits,
                                        int8_t *piece);

/*
 * One colour's step of the default chain (decisions = 0) on the 1-bit layout, on the rows
 * `rows` (NULL: all): the packed kernel's chain bit for bit (cuda_ising_packed_sweep_rows:
 * lane i of group g is the colour's site j = 32 g + i, g numbered in the lattice, drawn
 * from output j % 4 of Philox block j / 4 of the draws named `name`, decided against thr's
 * entry of its class). own, other: the colours' words;
 * own_eps: the step's colour's coupling bits (cuda_ising_bits_couplings; NULL: uniform).
 * Adds the spins that changed to *changed.
 */
cudaError_t cuda_ising_bits_sweep_colour(cudaStream_t stream, const struct latmc_lattice *g,
                                         const struct cuda_ising_rows *rows,
                                         uint32_t *own, const uint32_t *other,
                                         const uint32_t *own_eps,
                                         const struct cuda_ising_packed_thresholds *thr,
                                         int algorithm, uint64_t seed,
                                         struct latmc_rng_name name, int colour,
                                         unsigned long long *changed);

/* The exact sums of lib/ising.h (added to *sums, zeroed by the caller) of the rows `rows`
 * (NULL: all) from both colours' words (bits) and colour 0's coupling bits (eps0; NULL:
 * uniform): each bond counted once, from its colour-0 end, so disjoint ranges of rows add
 * up to the lattice's (the rows next to a range must hold the current colour 1). */
cudaError_t cuda_ising_bits_measure(cudaStream_t stream, const struct latmc_lattice *g,
                                    const struct cuda_ising_rows *rows, const uint32_t *bits,
                                    const uint32_t *eps0, struct latmc_ising_sums *sums);

/* The sums of cuda_ising_bits_measure (added to *sums, zeroed by the caller; NULL: not
 * counted) and the projections of the Fourier modes (mode_projections.h; added to proj)
 * of the local planes r, from one read of both colours' words (ising_bits_fold.cu): the
 * integers of the measurement and of the byte projections of the unpacked rows (eps0, the
 * colour-0 coupling bits or NULL, only read with sums). */
struct cuda_proj_range;
cudaError_t cuda_ising_bits_measure_projections(cudaStream_t stream,
                                                const struct latmc_lattice *g,
                                                const uint32_t *bits, const uint32_t *eps0,
                                                const struct cuda_proj_range *r,
                                                struct latmc_ising_sums *sums, int64_t *proj);

/* The same sums and, instead of the projections, the exact sums of their modes added into
 * limbs from the weights (cuda_projections_exact's layouts in CUDA_MODES_LIMB_SLOTS slots
 * of mode_projections.h, one component; device pointers, the weights 16-byte aligned: an
 * x pair's are loaded together): each chunk's columns and rows weighed where they are
 * counted.
 * cudaErrorNotSupported, nothing launched, where the walk's chunks and blocks would add
 * more than LATMC_MODES_LIMB_SUMS sums into a limb (lib/modes_exact.h). */
cudaError_t cuda_ising_bits_measure_modes(cudaStream_t stream, const struct latmc_lattice *g,
                                          const uint32_t *bits, const uint32_t *eps0,
                                          const struct cuda_proj_range *r,
                                          struct latmc_ising_sums *sums, const int64_t *weights,
                                          int64_t *limbs);

/* +-J: both colours' coupling bits (cuda_ising_bits_couplings' layout: bits0, bits1 each
 * colour's, 2 ndim words a group) of the planes [p0, p1) of the last axis, straight from a
 * window of the couplings' bytes as cuda_ising_pack_couplings_planes takes it (slot k:
 * plane (window_plane0 + k) mod L_last; planes p0 - 1 .. p1 - 1 in it): the same bits as
 * cuda_ising_bits_couplings makes from the packed coupling words of those couplings. */
cudaError_t cuda_ising_bits_couplings_planes(cudaStream_t stream, const struct latmc_lattice *g,
                                             int64_t p0, int64_t p1, const int8_t *window,
                                             int64_t window_plane0, uint32_t *bits0,
                                             uint32_t *bits1);

#ifdef __cplusplus
}
#endif

#endif
