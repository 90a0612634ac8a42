/*
 * The models the CUDA module runs: each a leaf of the one executor (cuda_leaf.h), in
 * every layout (one box, boxes on several devices, an MPI part's box).
 */
#include "cuda_heisenberg_leaf.h"
#include "cuda_ising_leaf.h"
#include "cuda_leaf.h"
#include "cuda_phi4_leaf.h"

extern const struct cuda_leaf cuda_potts_leaf; /* potts/cuda_potts.c */
extern const struct cuda_leaf cuda_sw_ising_leaf, cuda_sw_potts_leaf; /* clusters/cuda_sw_leaf.c */

const struct cuda_leaf *cuda_leaf_of(const latmc_sim *sim)
{
    const bool discrete = sim->desc.model == LATMC_MODEL_ISING ||
                          sim->desc.model == LATMC_MODEL_POTTS;
    if (discrete && (sim->desc.algorithm == LATMC_ALGO_SWENDSEN_WANG ||
                     sim->desc.algorithm == LATMC_ALGO_WOLFF))
        /* the cluster steps; they refuse what they lack */
        return sim->desc.model == LATMC_MODEL_POTTS ? &cuda_sw_potts_leaf : &cuda_sw_ising_leaf;
    switch (sim->desc.model) {
    case LATMC_MODEL_POTTS:
        return &cuda_potts_leaf;
    case LATMC_MODEL_ISING:
        return cuda_ising_leaf_of(sim);
    case LATMC_MODEL_PHI4:
        return cuda_phi4_leaf_of(sim);
    case LATMC_MODEL_HEISENBERG:
        return cuda_heis_leaf_of(sim);
    default:
        return NULL;
    }
}
