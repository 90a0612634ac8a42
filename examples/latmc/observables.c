/* latmc front end — measuring observables into an accumulator. */
#include <string.h>

#include "observables.h"

static const struct {
    int key;
    const char *csv_name;
    const char *label;
} candidates[OBS_MAX_COLS] = {
    { LATMC_OBS_ENERGY, "energy", "energy" },
    { LATMC_OBS_MAGNETIZATION, "m", "m" },
    { LATMC_OBS_ABS_MAGNETIZATION, "absm", "|m|" },
    { LATMC_OBS_M2, "m2", "m^2" },
    { LATMC_OBS_M4, "m4", "m^4" },
    { LATMC_OBS_PHI2, "phi2", "phi^2" },
    { LATMC_OBS_OVERLAP2, "overlap2", "q^2" },
    { LATMC_OBS_M2_K0, "m2_k0", "|m(0)|^2" },
    { LATMC_OBS_M2_KMIN, "m2_kmin", "|m(kmin)|^2" },
    { LATMC_OBS_OVERLAP2_KMIN, "overlap2_kmin", "|q(kmin)|^2" },
    { LATMC_OBS_CLUSTERS, "clusters", "clusters" },
    { LATMC_OBS_LARGEST_CLUSTER, "largest_cluster", "largest C/N" },
    { LATMC_OBS_CLUSTER_M2, "cluster_m2", "cluster m^2" },
};

void observables_destroy(struct observables *o)
{
    latmc_acc_destroy(&o->acc);
}

/* Is observable key recorded? Asks the library once: LATMC_EUNSUPPORTED means the
 * model (or, for the overlap, its replica count) does not define it. */
static int probe(latmc_sim *sim, int key, bool *defined)
{
    double v = 0.0;
    int rc = latmc_sim_observable(sim, key, &v);
    *defined = rc == LATMC_OK;
    if (rc == LATMC_EUNSUPPORTED)
        return LATMC_OK;
    return rc;
}

int observables_setup(struct observables *o, latmc_sim *sim, struct failure *f)
{
    memset(o, 0, sizeof *o);
    o->col_energy = o->col_absm = o->col_m2 = o->col_m4 = o->col_overlap2 = -1;
    o->col_k0 = o->col_kmin = o->col_overlap2_kmin = o->col_cluster_m2 = -1;
    latmc_sim_desc desc;
    latmc_sim_desc_init(&desc);
    int rc = latmc_sim_get_desc(sim, &desc);
    if (rc != LATMC_OK)
        return failure_set(f, rc, latmc_sim_last_error(sim), "reading the sim's desc");
    o->scalar = desc.model == LATMC_MODEL_ISING || desc.model == LATMC_MODEL_PHI4;
    const bool clusters = desc.algorithm == LATMC_ALGO_SWENDSEN_WANG ||
                          desc.algorithm == LATMC_ALGO_WOLFF;

    for (int i = 0; i < OBS_MAX_COLS; i++) {
        int key = candidates[i].key;
        bool defined = false;
        if (key == LATMC_OBS_MAGNETIZATION && !o->scalar)
            continue; /* the same as |m| */
        if (key == LATMC_OBS_M2_K0 && desc.model != LATMC_MODEL_POTTS)
            continue; /* the same as m^2 */
        const bool cluster_key = key == LATMC_OBS_CLUSTERS ||
                                 key == LATMC_OBS_LARGEST_CLUSTER ||
                                 key == LATMC_OBS_CLUSTER_M2;
        if (cluster_key && !clusters)
            continue;
        if (key == LATMC_OBS_CLUSTERS && desc.algorithm == LATMC_ALGO_WOLFF)
            continue; /* always 1: a constant column would only be flagged */
        /* the clusters' observables describe the last cluster sweep: none before it */
        rc = cluster_key ? (defined = true, LATMC_OK) : probe(sim, key, &defined);
        if (rc != LATMC_OK)
            return failure_set(f, rc, latmc_sim_last_error(sim), "measuring %s",
                               candidates[i].label);
        if (!defined)
            continue;
        int c = o->n_cols++;
        o->key[c] = key;
        o->csv_name[c] = candidates[i].csv_name;
        o->label[c] = candidates[i].label;
        switch (key) {
        case LATMC_OBS_ENERGY: o->col_energy = c; break;
        case LATMC_OBS_ABS_MAGNETIZATION: o->col_absm = c; break;
        case LATMC_OBS_M2: o->col_m2 = c; break;
        case LATMC_OBS_M4: o->col_m4 = c; break;
        case LATMC_OBS_OVERLAP2: o->col_overlap2 = c; break;
        case LATMC_OBS_M2_K0: o->col_k0 = c; break;
        case LATMC_OBS_M2_KMIN: o->col_kmin = c; break;
        case LATMC_OBS_OVERLAP2_KMIN: o->col_overlap2_kmin = c; break;
        case LATMC_OBS_CLUSTER_M2: o->col_cluster_m2 = c; break;
        default: break;
        }
    }
    if (o->col_k0 < 0)
        o->col_k0 = o->col_m2;
    if (o->n_cols == 0)
        return failure_set(f, LATMC_EUNSUPPORTED, "", "this model has none of the observables "
                           "latmc knows");

    rc = latmc_acc_create(&o->acc, o->n_cols);
    if (rc != LATMC_OK)
        return failure_set(f, rc, latmc_last_error(), "creating an accumulator");
    return LATMC_OK;
}

int observables_measure(struct observables *o, latmc_sim *sim, struct failure *f)
{
    double row[OBS_MAX_COLS];
    for (int c = 0; c < o->n_cols; c++) {
        int rc = latmc_sim_observable(sim, o->key[c], &row[c]);
        if (rc != LATMC_OK)
            return failure_set(f, rc, latmc_sim_last_error(sim), "measuring %s", o->label[c]);
    }
    int rc = latmc_acc_push(o->acc, row, o->n_cols);
    if (rc != LATMC_OK)
        return failure_set(f, rc, latmc_last_error(), "storing a measurement");
    return LATMC_OK;
}

int observables_pool_acceptance(struct observables *o, const latmc_sim *sim, struct failure *f)
{
    int rc = latmc_sim_acceptance_counts(sim, &o->accepted, &o->attempted);
    if (rc != LATMC_OK)
        return failure_set(f, rc, latmc_sim_last_error(sim), "reading the acceptance counts");
    o->accept_valid = true;
    return LATMC_OK;
}
