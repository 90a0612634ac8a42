/*
 * The Heisenberg spin glass: H = -sum_<ij> J_ij s_i . s_j - h . sum_i s_i, unit 3-vectors.
 * Not implemented yet: latmc_sim_create() refuses it with LATMC_EUNSUPPORTED.
 */
#include "model.h"

#define P(key) (1u << (key))
const struct latmc_model_def latmc_model_heisenberg = {
    .id = LATMC_MODEL_HEISENBERG,
    .name = "Heisenberg",
    .implemented = false,
    .params = P(LATMC_PARAM_BETA) | P(LATMC_PARAM_H) | P(LATMC_PARAM_NOVER),
    .algorithms = P(LATMC_ALGO_HEATBATH) | P(LATMC_ALGO_OVERRELAX),
    .default_algorithm = LATMC_ALGO_HEATBATH,
    .max_replicas = 2,
};
