/*
 * Internal to the CUDA module: the devices' attributes that calls ask again and again
 * (capability queries, launches), asked once per device and kept (cuda_device.c).
 * Callable from C and CUDA files, from several threads at once.
 */
#ifndef LATMC_CUDA_DEVICE_H
#define LATMC_CUDA_DEVICE_H

#include <stdbool.h>
#include <stddef.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The opt-in shared memory a block of `device` may have
 * (cudaDevAttrMaxSharedMemoryPerBlockOptin) into *bytes: the runtime asked on the first
 * call for the device only. A failed query is returned (not kept; *bytes 0) and left in the
 * runtime's last-error slot, as cudaDeviceGetAttribute leaves it. */
cudaError_t cuda_device_smem_optin(int device, int *bytes);
/* Whether `bytes` of dynamic shared memory (beside a kernel's static ~100 bytes) fit a block
 * of the device's opt-in; false, the error cleared, where the device cannot be asked. */
bool cuda_device_smem_fits(int device, size_t bytes);

/* The multiprocessors of `device` (cudaDevAttrMultiProcessorCount) into *count, kept and
 * failing as cuda_device_smem_optin. */
cudaError_t cuda_device_sm_count(int device, int *count);

/* The PTX version the module's kernels were compiled from for `device`, which must be the
 * current device (cuda_kernels_ptx_version), into *version: kept and failing as
 * cuda_device_smem_optin. */
cudaError_t cuda_device_code_ptx(int device, int *version);

#ifdef __cplusplus
}
#endif

#endif
