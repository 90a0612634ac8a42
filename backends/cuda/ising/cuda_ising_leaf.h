/*
 * Internal to the CUDA module: the Ising model's leaves of the one executor
 * (exec/cuda_leaf.h), one per layout of the configuration, and what they share.
 *
 *   cuda_ising_packed.c  the multi-spin coded layout (ising_packed.h: one array per
 *                        colour, half a byte per site), where L_x is a multiple of 16
 *                        (64 with +-J couplings)
 *   cuda_ising_bytes.c   the API's layout (one int8 per site), every other lattice
 *   cuda_ising_leaf.c    the choice between them and the +-J couplings both keep
 */
#ifndef LATMC_CUDA_ISING_LEAF_H
#define LATMC_CUDA_ISING_LEAF_H

#include "cuda_leaf.h"

extern const struct cuda_leaf cuda_ising_packed_leaf;
extern const struct cuda_leaf cuda_ising_bytes_leaf;

/* The leaf of an Ising sim: the packed layout where its lattice fits it, else the bytes. */
const struct cuda_leaf *cuda_ising_leaf_of(const latmc_sim *sim);

/* +-J couplings (desc.couplings = BIMODAL; the leaves' draw_couplings, couplings_to_float,
 * couplings_from_float): one int8 +-1 per bond, eps[ndim i + mu], of the planes a sim
 * keeps on the host (the whole lattice, or a part's local planes), each drawn where it
 * lies in the core's draw_couplings (lib/coupling_draws.h: the CPU's couplings bit for
 * bit). cuda_ising_coupling_plane: couplings of one plane. */
int64_t cuda_ising_coupling_plane(const latmc_sim *sim);
int cuda_ising_draw_couplings(const latmc_sim *sim, int64_t first, int64_t planes, void **host);
void cuda_ising_couplings_to_float(const latmc_sim *sim, const void *host, int64_t host_plane,
                                   float *buf, int64_t planes);
void cuda_ising_couplings_from_float(const latmc_sim *sim, void *host, int64_t host_plane,
                                     const float *whole, int64_t global_plane, int64_t planes);

#endif
