/* Internal: the parameter table (names, defaults, ranges) and the model table. */
#ifndef LATMC_LIB_PARAMS_H
#define LATMC_LIB_PARAMS_H

#include "internal.h"

/* Check a value for a key: LATMC_OK or LATMC_EINVAL with a message naming the rule. */
int latmc_param_check(int key, double value);

/* Fill param[] with every parameter's default. */
void latmc_param_defaults(double param[LATMC_PARAM_MAX + 1]);

/* What the core knows about each model. */
struct latmc_model_info {
    int model;
    const char *name;
    bool implemented;          /* false: latmc_sim_create() says "not implemented yet" */
    uint32_t params;           /* bit (1u << key) set for each parameter of the model */
    uint32_t algorithms;       /* bit (1u << algorithm) set for each supported algorithm */
    int default_algorithm;
    int max_replicas;
};

/* NULL for an unknown model number. */
const struct latmc_model_info *latmc_model_info(int model);

const char *latmc_algorithm_name(int algorithm);

#endif
