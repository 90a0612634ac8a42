/*
 * The q-state Potts model: H = -J sum_<ij> delta(s_i, s_j) - h sum_i delta(s_i, 0).
 * Not implemented yet: latmc_sim_create() refuses it with LATMC_EUNSUPPORTED.
 */
#include "model.h"

#define P(key) (1u << (key))
const struct latmc_model_def latmc_model_potts = {
    .id = LATMC_MODEL_POTTS,
    .name = "Potts",
    .implemented = false,
    .params = P(LATMC_PARAM_BETA) | P(LATMC_PARAM_J) | P(LATMC_PARAM_H),
    .algorithms = P(LATMC_ALGO_METROPOLIS) | P(LATMC_ALGO_HEATBATH),
    .default_algorithm = LATMC_ALGO_METROPOLIS,
    .max_replicas = 1,
};
