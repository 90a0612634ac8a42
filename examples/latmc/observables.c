/* latmc front end — measuring observables into accumulators. */
#include <string.h>

#include "log_sink.h"
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
};

void observables_destroy(struct observables *o)
{
    latmc_acc_destroy(&o->acc);
    latmc_acc_destroy(&o->acc_accept);
}

int observables_setup(struct observables *o, latmc_sim *sim, struct failure *f)
{
    memset(o, 0, sizeof *o);
    o->col_energy = o->col_absm = o->col_m2 = o->col_m4 = -1;

    for (int i = 0; i < OBS_MAX_COLS; i++) {
        double v = 0.0;
        log_sink_mute(); /* "unsupported" is an expected answer here */
        int rc = latmc_sim_observable(sim, candidates[i].key, &v);
        log_sink_unmute();
        if (rc == LATMC_EUNSUPPORTED)
            continue; /* the model does not define it */
        if (rc != LATMC_OK)
            return failure_set(f, rc, latmc_sim_last_error(sim), "measuring %s",
                               candidates[i].label);
        int c = o->n_cols++;
        o->key[c] = candidates[i].key;
        o->csv_name[c] = candidates[i].csv_name;
        o->label[c] = candidates[i].label;
        switch (candidates[i].key) {
        case LATMC_OBS_ENERGY: o->col_energy = c; break;
        case LATMC_OBS_ABS_MAGNETIZATION: o->col_absm = c; break;
        case LATMC_OBS_M2: o->col_m2 = c; break;
        case LATMC_OBS_M4: o->col_m4 = c; break;
        default: break;
        }
    }
    if (o->n_cols == 0)
        return failure_set(f, LATMC_EUNSUPPORTED, "",
                           "this model has none of energy, m, |m|, m^2, m^4");

    int rc = latmc_acc_create(&o->acc, o->n_cols);
    if (rc == LATMC_OK)
        rc = latmc_acc_create(&o->acc_accept, 1);
    if (rc != LATMC_OK) {
        observables_destroy(o);
        return failure_set(f, rc, latmc_last_error(), "creating an accumulator");
    }
    o->accept_available = true;
    return LATMC_OK;
}

int observables_reset_acceptance(struct observables *o, latmc_sim *sim, struct failure *f)
{
    (void)o;
    int rc = latmc_sim_reset_acceptance(sim);
    if (rc != LATMC_OK)
        return failure_set(f, rc, latmc_sim_last_error(sim), "resetting the acceptance");
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

    if (o->accept_available) {
        double a = 0.0;
        log_sink_mute(); /* an algorithm may not count acceptance: then n/a */
        rc = latmc_sim_observable(sim, LATMC_OBS_ACCEPTANCE, &a);
        log_sink_unmute();
        if (rc != LATMC_OK) {
            /* e.g. an algorithm that accepts everything and does not count: n/a */
            o->accept_available = false;
            o->accept_status = rc;
            return LATMC_OK;
        }
        rc = latmc_acc_push(o->acc_accept, &a, 1);
        if (rc != LATMC_OK)
            return failure_set(f, rc, latmc_last_error(), "storing a measurement");
        return observables_reset_acceptance(o, sim, f);
    }
    return LATMC_OK;
}

int observables_write_csv(const struct observables *o, const char *path, struct failure *f)
{
    int rc = latmc_acc_write_csv(o->acc, path, o->csv_name);
    if (rc != LATMC_OK)
        return failure_set(f, rc, latmc_last_error(), "writing '%s'", path);
    return LATMC_OK;
}
