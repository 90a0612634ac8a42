/*
 * Ising on the GPU, multi-spin coded: the spins of each colour packed as nibbles, eight
 * spins of a colour per 32-bit word (doc/cuda.md, "Multi-spin coded Ising"). The chain
 * is the one of lib/ising_rules.h, bit for bit: the same Philox draw per site and the
 * same integer decision; only the storage and the arithmetic that finds a site's
 * neighbour count differ.
 *
 * Layout (the packed layout): colour c in {0, 1} is an array of R = L_y L_z rows (row
 * r = y + L_y z) of W = L_x / 16 words; nibble m (bits 4m .. 4m + 3) of word w of row r
 * holds the site x = 2 (8 w + m) + par, par = (c + y + z) & 1, as 0 (spin +1) or 1
 * (spin -1). Its within-colour number is j = 8 (W r + w) + m, so the site's Philox
 * block j / 4 is 2 (W r + w) + m / 4: the two blocks of a word are the two halves of its
 * index times two.
 *
 * +-J couplings: nibble-packed bits per site and neighbour direction
 * (cuda_ising_packed_coupling_words), CW words beside each spin word.
 *
 * Used where L_x is a multiple of 16 and the decision tables fit 32-bit thresholds (every
 * Metropolis threshold >= 1, every heat-bath threshold < 2^32: all but extreme beta); the
 * byte kernels (ising_kernels.cu) run otherwise. The packed leaf (ising/cuda_ising_packed.c)
 * keeps the two layouts consistent.
 */
#ifndef LATMC_CUDA_ISING_PACKED_H
#define LATMC_CUDA_ISING_PACKED_H

#include <stdbool.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "ising.h"
#include "lattice_numbering.h"
#include "rng_streams.h" /* struct latmc_rng_name */

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Per-site decision of the packed kernels, indexed by a site's class: bits 0-2 the number
 * m of its neighbours at -1, bit 3 set when the site itself is -1.
 *   Metropolis: flip iff u <= t[class]   (t = metropolis[own == +1][2 ndim - m] - 1)
 *   heat bath:  new spin -1 iff u >= t[class]   (t = heatbath[2 ndim - m])
 * Both are exactly the CPU's u < threshold, as long as the thresholds fit (see above).
 */
struct cuda_ising_packed_thresholds {
    uint32_t t[16];
};

/* The packed kernels may run (not LATMC_CUDA_KERNELS=reference). */
bool cuda_ising_packed_allowed(void);

/* The packed layout can hold this lattice (L_x a multiple of 16). */
bool cuda_ising_packed_fits(const struct latmc_lattice *g);

/* Coupling words per spin word: bit b of nibble m of coupling word q is set when the bond of
 * that site to its neighbour in direction 4 q + b is -1 (directions: ising_packed.cu,
 * packed_neighbours); 1 in 2D, 2 in 3D. */
int cuda_ising_packed_coupling_words(const struct latmc_lattice *g);

/* The +-J couplings (int8 +-1) of the planes [p0, p1) of the last axis (3D: z planes, 2D:
 * rows) into both colours' coupling words (cuda_ising_packed_words() x
 * cuda_ising_packed_coupling_words() words each), from a window of whole planes of couplings: slot k of `window` (L_plane ndim bytes) holds the
 * couplings of plane (window_plane0 + k) mod L_last. The window must hold the planes p0 - 1
 * (periodic) .. p1 - 1. The whole lattice's couplings are the window of plane 0 and all
 * planes. */
cudaError_t cuda_ising_pack_couplings_planes(cudaStream_t stream, const struct latmc_lattice *g,
                                             int64_t p0, int64_t p1, const int8_t *window,
                                             int64_t window_plane0, uint32_t *colour0,
                                             uint32_t *colour1);

/* Words of one colour's array. */
int64_t cuda_ising_packed_words(const struct latmc_lattice *g);

/* The thresholds of the packed kernels for these tables, or false when one of them does
 * not fit 32 bits (the byte kernels must run). */
bool cuda_ising_packed_thresholds_of(const struct latmc_ising_tables *t, int algorithm, int ndim,
                                     struct cuda_ising_packed_thresholds *out);

/* Natural byte layout <-> packed layout (both colours). */
cudaError_t cuda_ising_pack(cudaStream_t stream, const struct latmc_lattice *g,
                            const int8_t *spins, uint32_t *colour0, uint32_t *colour1);
cudaError_t cuda_ising_unpack(cudaStream_t stream, const struct latmc_lattice *g,
                              const uint32_t *colour0, const uint32_t *colour1, int8_t *spins);
/* The same for the rows [row0, row0 + nrows) only (rows r = y + L_y z), between the packed
 * arrays of the whole lattice and a byte piece holding just those rows (row r at
 * piece + (r - row0) L_x): get/set_spins and the hot start of a sim whose byte layout is
 * made on demand, a piece at a time (ising/cuda_ising_packed.c). */
cudaError_t cuda_ising_pack_rows(cudaStream_t stream, const struct latmc_lattice *g,
                                 int64_t row0, int64_t nrows, const int8_t *piece,
                                 uint32_t *colour0, uint32_t *colour1);
cudaError_t cuda_ising_unpack_rows(cudaStream_t stream, const struct latmc_lattice *g,
                                   int64_t row0, int64_t nrows, const uint32_t *colour0,
                                   const uint32_t *colour1, int8_t *piece);

/* One colour's step, its draws named `name` (the step's, lib/step.h: latmc_ising_rng_name
 * of the sweep and colour): `own` is that colour's array, `other` the other one,
 * `own_eps` that colour's coupling words (NULL: uniform couplings); adds the spins that
 * changed to *changed. */
cudaError_t cuda_ising_packed_sweep_colour(cudaStream_t stream, const struct latmc_lattice *g,
                                           uint32_t *own, const uint32_t *other,
                                           const uint32_t *own_eps,
                                           const struct cuda_ising_packed_thresholds *thr,
                                           int algorithm, uint64_t seed,
                                           struct latmc_rng_name name, int colour,
                                           unsigned long long *changed);

/*
 * Rows of a box (several devices, doc/cuda.md "Several GPUs"): the kernels below walk the
 * rows [row0, row0 + nrows) of the (local) lattice only, and row r of it is row
 * r + row_offset of the whole lattice, which names its random numbers. Rows are
 * r = y + L_y z; row_offset keeps the parity of y + z.
 */
struct cuda_ising_rows {
    int64_t row0, nrows;
    int64_t row_offset;
};

/* cuda_ising_packed_sweep_colour on the rows `rows` only (NULL: all). */
cudaError_t cuda_ising_packed_sweep_rows(cudaStream_t stream, const struct latmc_lattice *g,
                                         const struct cuda_ising_rows *rows, uint32_t *own,
                                         const uint32_t *other, const uint32_t *own_eps,
                                         const struct cuda_ising_packed_thresholds *thr,
                                         int algorithm, uint64_t seed,
                                         struct latmc_rng_name name, int colour,
                                         unsigned long long *changed);

/*
 * A chain: up to CUDA_ISING_CHAIN_STEPS colour steps of a box alone in one launch
 * (ising_packed_chain.cu; doc/cuda.md, "Chains of steps"). Step i updates colour
 * colours[i] with the draws named names[i], exactly as cuda_ising_packed_sweep_colour
 * would, one after the other; adds the spins that changed to *changed. The kernel's warps
 * take the steps' tasks (32 groups of a colour, a group a lane) from a queue in step order,
 * and a task starts once the tasks of the step before that hold its neighbour rows are
 * done: no launch between the steps, no wait for a step's last groups anywhere else.
 * `chain`: the box's queue, task stamps and words a group (cuda_ising_packed_chain_make),
 * used by one stream at a time (made on it). Only where cuda_ising_packed_chain_fits: L_x a
 * multiple of 128, or of 32 where a step has fewer than 2,560 tasks of 2 words, or an odd
 * multiple of 16 where it has fewer than 2,560 tasks of 1 word; fewer than 2^25 tasks a
 * step.
 */
#define CUDA_ISING_CHAIN_STEPS 64
struct cuda_ising_chain {
    uint32_t *done;     /* device: each task's stamp of its last step done */
    unsigned *next;     /* device: the queue's next task */
    int64_t tasks;      /* tasks a step */
    int nw;             /* words a lane of a task (8, 2 or 1: cuda_ising_packed_chain_make) */
    uint32_t stamp;     /* stamps handed out (the next launch's steps: stamp + 1 ..) */
};
bool cuda_ising_packed_chain_fits(const struct latmc_lattice *g);
cudaError_t cuda_ising_packed_chain_make(const struct latmc_lattice *g, cudaStream_t stream,
                                         struct cuda_ising_chain *chain);
void cuda_ising_packed_chain_free(struct cuda_ising_chain *chain);
cudaError_t cuda_ising_packed_chain(cudaStream_t stream, const struct latmc_lattice *g,
                                    uint32_t *colour0, uint32_t *colour1, uint32_t *const eps[2],
                                    const struct cuda_ising_packed_thresholds *thr,
                                    int algorithm, uint64_t seed,
                                    const struct latmc_rng_name *names, const int *colours,
                                    int n, struct cuda_ising_chain *chain,
                                    unsigned long long *changed);

/* cuda_ising_packed_measure on the colour-0 words of the rows `rows` (NULL: all) and every
 * bond of theirs: each bond has one colour-0 end, so the sums of disjoint row ranges add
 * up to the lattice's. The rows next to the range must hold the current colour 1. */
cudaError_t cuda_ising_packed_measure_rows(cudaStream_t stream, const struct latmc_lattice *g,
                                           const struct cuda_ising_rows *rows,
                                           const uint32_t *colour0, const uint32_t *colour1,
                                           const uint32_t *eps0, struct latmc_ising_sums *sums);

/* The exact sums of lib/ising.h from the packed layout (added to *sums, zeroed by the
 * caller), equal to cuda_ising_measure's on the same configuration. */
cudaError_t cuda_ising_packed_measure(cudaStream_t stream, const struct latmc_lattice *g,
                                      const uint32_t *colour0, const uint32_t *colour1,
                                      const uint32_t *eps0, struct latmc_ising_sums *sums);

#ifdef __cplusplus
}
#endif

#endif
