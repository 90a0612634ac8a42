/*
 * phi^4 (Ginzburg-Landau with the higher-derivative 1/Lambda term).
 * Not implemented yet: latmc_sim_create() refuses it with LATMC_EUNSUPPORTED.
 */
#include "model.h"

#define P(key) (1u << (key))
const struct latmc_model_def latmc_model_phi4 = {
    .id = LATMC_MODEL_PHI4,
    .name = "phi^4",
    .implemented = false,
    .params = P(LATMC_PARAM_MU2) | P(LATMC_PARAM_G) | P(LATMC_PARAM_LAMBDA) |
              P(LATMC_PARAM_EPSILON) | P(LATMC_PARAM_NHIT) | P(LATMC_PARAM_NLOC),
    .algorithms = P(LATMC_ALGO_METROPOLIS),
    .default_algorithm = LATMC_ALGO_METROPOLIS,
    .max_replicas = 1,
};
