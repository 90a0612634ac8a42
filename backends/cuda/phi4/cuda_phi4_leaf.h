/*
 * Internal to the CUDA module: phi^4's leaf of the one executor (exec/cuda_leaf.h;
 * cuda_phi4_leaf.c), one per precision (they differ in a device view's dtype).
 */
#ifndef LATMC_CUDA_PHI4_LEAF_H
#define LATMC_CUDA_PHI4_LEAF_H

#include "cuda_leaf.h"

const struct cuda_leaf *cuda_phi4_leaf_of(const latmc_sim *sim);

#endif
