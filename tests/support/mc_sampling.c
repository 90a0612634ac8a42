#include <math.h>
#include <stdio.h>

#include "mc_sampling.h"

int mc_sample_ising(latmc_sim *sim, uint64_t therm, uint64_t nmeas, latmc_acc **out)
{
    return mc_sample_every(sim, therm, nmeas, 1, out);
}

int mc_sample_every(latmc_sim *sim, uint64_t therm, uint64_t nmeas, uint64_t every,
                    latmc_acc **out)
{
    return mc_sample_from(sim, LATMC_INIT_HOT, therm, nmeas, every, out);
}

int mc_sample_from(latmc_sim *sim, int init, uint64_t therm, uint64_t nmeas, uint64_t every,
                   latmc_acc **out)
{
    static const int keys[NCOLS] = { LATMC_OBS_ENERGY, LATMC_OBS_ABS_MAGNETIZATION,
                                     LATMC_OBS_M2, LATMC_OBS_M4, LATMC_OBS_MAGNETIZATION };
    latmc_acc *acc = NULL;
    int st = latmc_acc_create(&acc, NCOLS);
    if (st == LATMC_OK)
        st = latmc_sim_init_spins(sim, init);
    if (st == LATMC_OK)
        st = latmc_sim_sweep(sim, therm);
    for (uint64_t t = 0; st == LATMC_OK && t < nmeas; t++) {
        double row[NCOLS];
        st = latmc_sim_sweep(sim, every);
        for (int c = 0; st == LATMC_OK && c < NCOLS; c++)
            st = latmc_sim_observable(sim, keys[c], &row[c]);
        if (st == LATMC_OK)
            st = latmc_acc_push(acc, row, NCOLS);
    }
    if (st != LATMC_OK) {
        latmc_acc_destroy(&acc);
        return st;
    }
    *out = acc;
    return LATMC_OK;
}

double mc_ising_moments_deviation(const latmc_acc *acc, const struct exact_ising_moments *ex,
                                  bool check_m, const char *prefix)
{
    const double exact[NCOLS] = { [COL_E] = ex->e, [COL_ABSM] = ex->absm, [COL_M2] = ex->m2,
                                  [COL_M4] = ex->m4, [COL_M] = ex->m };
    static const char *const names[NCOLS] = { [COL_E] = "<e>", [COL_ABSM] = "<|m|>",
                                              [COL_M2] = "<m^2>", [COL_M4] = "<m^4>",
                                              [COL_M] = "<m>" };
    double worst = 0;
    for (int c = 0; c < (check_m ? NCOLS : COL_M); c++) {
        char label[128];
        snprintf(label, sizeof label, "%s %s", prefix, names[c]);
        const double dev = fabs(mc_deviation(acc, c, exact[c], label));
        if (dev > worst)
            worst = dev;
    }
    return worst;
}

double mc_deviation(const latmc_acc *acc, int col, double exact, const char *label)
{
    double mean = 0, err = 0, tau = 0;
    if (latmc_acc_mean(acc, col, &mean) != LATMC_OK || latmc_acc_error(acc, col, &err) != LATMC_OK ||
        latmc_acc_tau_int(acc, col, &tau) != LATMC_OK || !(err > 0)) {
        printf("%s: no error estimate\n", label);
        return HUGE_VAL;
    }
    double dev = (mean - exact) / err;
    printf("%-44s %.6f +- %.6f  exact %.6f  %+5.2f sigma  tau_int %.1f\n", label, mean, err, exact,
           dev, tau);
    return dev;
}
