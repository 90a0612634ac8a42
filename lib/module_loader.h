/* Internal: finding, loading and checking backend modules (latmc-cuda.so). */
#ifndef LATMC_LIB_MODULE_LOADER_H
#define LATMC_LIB_MODULE_LOADER_H

#include "module_abi.h"

/*
 * The module serving `device` (LATMC_DEVICE_CUDA), loaded on first use for the whole
 * process. NULL when it is not there or not usable; then *why (never NULL) says what was
 * tried and why each candidate was rejected.
 */
const struct latmc_module *latmc_module_get(int device, const char **why);

#endif
