/* latmc front end — saving checkpoints. */
#include <stdio.h>

#include "checkpoint.h"

int checkpoint_series_path(const char *path, char *buf, size_t size)
{
    int n = snprintf(buf, size, "%s.csv", path);
    return n < 0 || (size_t)n >= size ? -1 : 0;
}

int checkpoint_save(latmc_sim *sim, const struct observables *obs, const char *path,
                    struct failure *f)
{
    char series[4096];
    if (checkpoint_series_path(path, series, sizeof series) != 0)
        return failure_set(f, LATMC_EINVAL, "", "--checkpoint: path too long");
    int rc = observables_write_csv(obs, series, f);
    if (rc != LATMC_OK)
        return rc;
    rc = latmc_sim_save(sim, path);
    if (rc != LATMC_OK)
        return failure_set(f, rc, latmc_sim_last_error(sim), "saving the checkpoint '%s'",
                           path);
    return LATMC_OK;
}
