/* CUDA errors as library errors (cuda_check.h). */
#include "cuda_check.h"

const struct latmc_core_services *cuda_core;

int cuda_check(cudaError_t err, const char *what)
{
    if (err == cudaSuccess)
        return LATMC_OK;
    /* Reset the runtime's last error (a no-op for sticky errors, which stay: every later
     * call then fails with LATMC_EDEVICE, and the sim can still be destroyed). */
    (void)cudaGetLastError();
    const int status = err == cudaErrorMemoryAllocation ? LATMC_ENOMEM : LATMC_EDEVICE;
    return cuda_core->fail(status, "CUDA backend: %s: %s (%s)", what, cudaGetErrorString(err),
                           cudaGetErrorName(err));
}
