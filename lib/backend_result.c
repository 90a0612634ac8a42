/*
 * What a backend (the built-in CPU backend, or a module such as latmc-cuda.so) returns is
 * checked before it reaches the caller: the public API promises LATMC_OK or a documented
 * LATMC_E* code with a message, and a module is code the core cannot vouch for.
 */
#include "internal.h"

static bool backend_may_return(int status)
{
    switch (status) {
    case LATMC_EINVAL:       /* a setting the backend reads itself (environment) */
    case LATMC_EUNSUPPORTED: /* no kernels for this model or option */
    case LATMC_EBACKEND:
    case LATMC_ENODEV:
    case LATMC_EDEVICE:
    case LATMC_ENOMEM:
        return true;
    default:
        return false;
    }
}

int latmc_backend_result(const char *backend, const char *what, int status,
                         unsigned long fails_before)
{
    if (status == LATMC_OK)
        return LATMC_OK;
    if (!backend_may_return(status))
        return latmc_fail(LATMC_EBACKEND, "the %s backend returned status %d from %s, which "
                          "is not a code a backend may report (%s): a bug in the backend",
                          backend, status, what,
                          latmc_status_known(status) ? latmc_strerror(status) : "unknown code");
    if (latmc_fail_count() == fails_before)
        return latmc_fail(status, "the %s backend failed in %s (%s) and gave no detail",
                          backend, what, latmc_strerror(status));
    return status;
}
