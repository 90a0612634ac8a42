/*
 * The models the CUDA module runs: the leaves of the one executor (cuda_leaf.h: Potts,
 * Ising and phi^4 in every layout), and the kernel tables of the models still on the old executors
 * (cuda_backend.h).
 */
#include "cuda_backend.h"
#include "cuda_ising_leaf.h"
#include "cuda_leaf.h"
#include "phi4/cuda_phi4_leaf.h"
#include "heisenberg_cuda.h"

const struct cuda_model_kernels *cuda_model_kernels_get(int model)
{
    switch (model) {
    case LATMC_MODEL_HEISENBERG: return &cuda_heisenberg_kernels;
    default:                return NULL;
    }
}

extern const struct cuda_leaf cuda_potts_leaf; /* potts/cuda_potts.c */

const struct cuda_leaf *cuda_leaf_of(const latmc_sim *sim)
{
    switch (sim->desc.model) {
    case LATMC_MODEL_POTTS:
        return &cuda_potts_leaf;
    case LATMC_MODEL_ISING:
        return cuda_ising_leaf_of(sim);
    case LATMC_MODEL_PHI4:
        return cuda_phi4_leaf_of(sim);
    default:
        return NULL;
    }
}
