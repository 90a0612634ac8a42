/*
 * The CUDA module's link to the core, and CUDA errors as library errors.
 *
 * A module never links liblatmc (module_abi.h): failures are recorded and logs are written
 * through the core services the loader hands to init(), kept in cuda_core. Calling
 * latmc_fail or latmc_log directly would fail at link time (-Wl,--no-undefined).
 */
#ifndef LATMC_CUDA_CHECK_H
#define LATMC_CUDA_CHECK_H

#include <cuda_runtime_api.h>

#include "module_abi.h"

/* Set once by the module's init(), before any other entry point is called. */
extern const struct latmc_core_services *cuda_core;

/*
 * LATMC_OK for cudaSuccess; otherwise record "CUDA backend: <what>: <CUDA message>
 * (<error name>)" through the core and return LATMC_ENOMEM for cudaErrorMemoryAllocation,
 * LATMC_EDEVICE for every other error. A non-sticky error is also cleared from the
 * runtime's last-error slot, so that a later launch check does not report it again.
 */
int cuda_check(cudaError_t err, const char *what);

#endif
