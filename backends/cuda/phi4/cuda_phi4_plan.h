/*
 * Internal to the CUDA module: phi^4's plan of a sim's sweeps (cuda_phi4_plan.c: the
 * schedule, the chunk shape, threads per block, shared-memory strides) and the Philox
 * round keys of its seed, which the leaf (cuda_phi4_leaf.c) hands to the kernels
 * (phi4_kernels.cu).
 */
#ifndef LATMC_CUDA_PHI4_PLAN_H
#define LATMC_CUDA_PHI4_PLAN_H

#include <stdbool.h>
#include <stdint.h>

#include "internal.h"
#include "lattice_numbering.h"
#include "phi4_cuda.h"

/* The plan of sim's sweeps, the shared-memory limit read from `device` (each of a sim's
 * boxes gets the same plan: the first box's device). LATMC_EINVAL with the reason for
 * LATMC_CUDA_PHI4_CHUNK / _THREADS values that do not fit. shape_only: the schedule and
 * chunk extents only (no strides, no shared-memory checks: what the cut of the lattice
 * needs, without the ~5 ms search of the strides). */
int cuda_phi4_plan_make(const latmc_sim *sim, int device, bool shape_only,
                        struct cuda_phi4_plan *p);

/* The whole lattice of a sim's description. */
struct latmc_lattice cuda_phi4_lattice(const latmc_sim_desc *d);

/* The round keys of a seed (struct cuda_phi4_keys). */
void cuda_phi4_keys_of(uint64_t seed, struct cuda_phi4_keys *keys);

/* The plan a phi^4 box runs (cuda_phi4_leaf.c: made at box_create; an ensemble's batch
 * runs its members by their own plans, phi4/cuda_phi4_batch.c). */
struct cuda_box;
const struct cuda_phi4_plan *cuda_phi4_box_plan(const struct cuda_box *b);

#endif
