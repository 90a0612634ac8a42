/*
 * The models the CUDA module runs: each a leaf of the one executor (cuda_leaf.h), in
 * every layout (one box, boxes on several devices, an MPI part's box), each model's
 * batch of an ensemble's members (cuda_batch.h) and its tempering on the device
 * (cuda_temper.h). They are found by the models' list (lib/model_list.h): the functions
 * cuda_<m>_leaf_of, cuda_<m>_batch_of and cuda_<m>_temper_of of each line, in the list's
 * order, which is enum latmc_model's (1, 2, ...).
 */
#include "cuda_batch.h"
#include "cuda_leaf.h"
#include "cuda_temper.h"

typedef const struct cuda_leaf *(*model_leaf_of)(const latmc_sim *sim);

static const model_leaf_of model_leaves[] = {
#define LATMC_MODEL(m) cuda_##m##_leaf_of,
#include "model_list.h"
#undef LATMC_MODEL
};

const struct cuda_leaf *cuda_leaf_of(const latmc_sim *sim)
{
    const struct cuda_leaf *cluster = cuda_cluster_leaf_of(sim); /* they refuse what they lack */
    if (cluster)
        return cluster;
    const int model = sim->desc.model;
    if (model < 1 || model > (int)(sizeof model_leaves / sizeof model_leaves[0]))
        return NULL;
    const struct cuda_leaf *leaf = model_leaves[model - 1](sim);
    /* a leaf names its model: a list out of the enum's order runs no model on another's
     * leaf (the module then refuses it) */
    return leaf && leaf->model == model ? leaf : NULL;
}

typedef const struct cuda_batch_model *(*model_batch_of)(const latmc_sim *sim);

static const model_batch_of model_batches[] = {
#define LATMC_MODEL(m) cuda_##m##_batch_of,
#include "model_list.h"
#undef LATMC_MODEL
};

const struct cuda_batch_model *cuda_batch_model_of(const latmc_sim *sim)
{
    const struct cuda_batch_model *cluster = cuda_cluster_batch_of(sim);
    if (cluster)
        return cluster;
    const int model = sim->desc.model;
    if (model < 1 || model > (int)(sizeof model_batches / sizeof model_batches[0]))
        return NULL;
    return model_batches[model - 1](sim);
}

typedef const struct cuda_temper_model *(*model_temper_of)(const latmc_sim *sim);

static const model_temper_of model_tempers[] = {
#define LATMC_MODEL(m) cuda_##m##_temper_of,
#include "model_list.h"
#undef LATMC_MODEL
};

const struct cuda_temper_model *cuda_temper_model_of(const latmc_sim *sim)
{
    if (cuda_cluster_batch_of(sim)) /* the cluster steps' members: the host's rounds */
        return NULL;
    const int model = sim->desc.model;
    if (model < 1 || model > (int)(sizeof model_tempers / sizeof model_tempers[0]))
        return NULL;
    return model_tempers[model - 1](sim);
}
