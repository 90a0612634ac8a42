/*
 * The core's switches (lib/env_switch.h, doc/environment.md), checked at every sim's
 * creation: a value outside a switch's list fails it with LATMC_EINVAL.
 */
#include "env_switches.h"

#include "env_switch.h"
#include "error.h"

static const struct latmc_env_switch core_switches[] = {
    { "LATMC_ENS_OVERLAPS_HOST", "0|1" },
    /* tempering rounds on the host where the device could run them (lib/ens_temper.c) */
    { "LATMC_ENS_HOST_ROUNDS", "0|1" },
    /* the member lanes' forms: the core takes "reference", a module the others */
    { "LATMC_ENS_LANES", "reference|plain|keys|nozeros" },
    { "LATMC_CHECKPOINT_CHUNK_BYTES", NULL },
    /* read by liblatmc_mpi (mpi/latmc_mpi.c); checked here, where the parts' creation
     * agrees on every part's failure */
    { "LATMC_MPI_SHARED_HALOS", "0|1" },
};

int latmc_env_check_core(void)
{
    const char *value = NULL;
    const struct latmc_env_switch *bad =
        latmc_env_unknown(core_switches, sizeof core_switches / sizeof *core_switches, &value);
    if (!bad)
        return LATMC_OK;
    const char *tail = latmc_env_shown_tail(value);
    if (!bad->values)
        return latmc_fail(LATMC_EINVAL, "environment: %s=\"%.*s%s\": expected a positive decimal "
                          "integer (doc/environment.md)", bad->name, LATMC_ENV_SHOWN, value, tail);
    return latmc_fail(LATMC_EINVAL, "environment: %s=\"%.*s%s\": expected one of \"%s\" (or "
                      "unset; doc/environment.md)", bad->name, LATMC_ENV_SHOWN, value, tail,
                      bad->values);
}
