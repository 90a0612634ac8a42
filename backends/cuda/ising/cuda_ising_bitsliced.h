/*
 * Internal to the CUDA module: the Ising chain with bit-sliced decisions (parameter
 * decisions = 1, doc/models/ising-decisions.md) for one colour's step of a box alone (the
 * whole lattice, periodic) or of rows of a box with halos (several boxes, one process),
 * on the multi-spin coded layout of ising_packed.h or on the 1-bit layout below.
 *
 * The chain is lib/ising_decision_rules.h's and lib/bitslice_decision.h's, bit for bit:
 * group g of colour c is the sites j = 32 g .. 32 g + 31 of that colour, which in the packed
 * layout are the 4 words 4 g .. 4 g + 3 of the colour's array (j = 8 word + nibble), lane
 * i = 8 k + m being nibble m of word 4 g + k, and in the 1-bit layout word g; its planes are
 * the step's names' blocks g of subs sub0 + q (latmc_ising_plane_name), each site's
 * threshold the core's table entry (latmc_ising_site_threshold). Kernel: ising_bitsliced.cu.
 */
#ifndef LATMC_CUDA_ISING_BITSLICED_H
#define LATMC_CUDA_ISING_BITSLICED_H

#include <stdbool.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "ising.h"
#include "ising_packed.h" /* struct cuda_ising_rows */
#include "lattice_numbering.h"
#include "step.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The lattices the kernel takes: 2D or 3D with L_x a multiple of 16 (the packed layout),
 * uniform couplings; +-J couplings where L_x is a multiple of 64 (the packed coupling
 * words' rows, ising_packed.h: every group in one row). */
bool cuda_ising_bitsliced_fits(const struct latmc_lattice *g, int couplings);

/* The lattices whose rows the kernels take one by one (`rows` below): L_x a multiple of
 * 64, so that every group lies in one row and a box's rows hold whole groups. */
bool cuda_ising_bitsliced_rows_fit(const struct latmc_lattice *g);

/* One step of kind LATMC_STEP_COLOUR_BITSLICED on the lattice g (a box's local lattice):
 * on its rows `rows` (NULL: all, the whole lattice, periodic; else whole rows of a lattice
 * where cuda_ising_bitsliced_rows_fit, the rows next to them in g, each group named by its
 * row's row in the lattice: row + row_offset), `own` the step's colour's packed array,
 * `other` the other colour's, `own_eps` the step's colour's packed coupling words (+-J,
 * ising_packed.h; NULL: uniform), `tables` the core's (host); adds the spins that changed
 * to *changed. */
cudaError_t cuda_ising_bitsliced_colour(cudaStream_t stream, const struct latmc_lattice *g,
                                        const struct cuda_ising_rows *rows, uint32_t *own,
                                        const uint32_t *other, const uint32_t *own_eps,
                                        const struct latmc_ising_tables *tables, int algorithm,
                                        uint64_t seed, const struct latmc_step *step,
                                        unsigned long long *changed);

/*
 * The 1-bit layout (where L_x is a multiple of 64: cuda_ising_bits_fits): each colour is
 * an array of N / 64 words, word g holding group g of the colour (bit i: lane i, set for a
 * spin -1), colour 1's after colour 0's (cuda_ising_bits_words words each). The packed
 * leaf keeps it while the bit-sliced steps run (cuda_ising_packed.c): the same chain, a
 * quarter of the bytes and no reordering of the lanes.
 */
bool cuda_ising_bits_fits(const struct latmc_lattice *g);
int64_t cuda_ising_bits_words(const struct latmc_lattice *g);
cudaError_t cuda_ising_bits_from_packed(cudaStream_t stream, const struct latmc_lattice *g,
                                        const uint32_t *colour0, const uint32_t *colour1,
                                        uint32_t *bits);
cudaError_t cuda_ising_bits_to_packed(cudaStream_t stream, const struct latmc_lattice *g,
                                      const uint32_t *bits, uint32_t *colour0,
                                      uint32_t *colour1);
/*
 * +-J couplings in the 1-bit layout: cuda_ising_bits_coupling_words words for both colours,
 * colour c's from c times half of them (2 ndim a group, padded to a multiple of 4): word 2 ndim g + d has bit i set where the bond of lane i of group g to
 * its neighbour in direction d is -1 (the neighbour words' order: 0 the x neighbour in the
 * same word, 1 the other x neighbour, 2 and 3 y + 1 and y - 1, 4 and 5 z + 1 and z - 1).
 * Each bond is stored at both ends, like the packed coupling words it is made from
 * (cuda_ising_bits_couplings: eps0, eps1 the colours' packed words, whole local lattice):
 * a colour's step reads every bond once either way, and its own group's bits need no shift.
 */
int64_t cuda_ising_bits_coupling_words(const struct latmc_lattice *g);
cudaError_t cuda_ising_bits_couplings(cudaStream_t stream, const struct latmc_lattice *g,
                                      const uint32_t *eps0, const uint32_t *eps1,
                                      uint32_t *bits0, uint32_t *bits1);
/* cuda_ising_bitsliced_colour on the 1-bit layout: own and other the colours' words,
 * own_eps the step's colour's coupling bits (above; NULL: uniform). */
cudaError_t cuda_ising_bitsliced_bits_colour(cudaStream_t stream, const struct latmc_lattice *g,
                                             const struct cuda_ising_rows *rows, uint32_t *own,
                                             const uint32_t *other, const uint32_t *own_eps,
                                             const struct latmc_ising_tables *tables,
                                             int algorithm, uint64_t seed,
                                             const struct latmc_step *step,
                                             unsigned long long *changed);

#ifdef __cplusplus
}
#endif

#endif
