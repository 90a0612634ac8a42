/*
 * The devices' attributes kept (cuda_device.h). lib/plan.c asks a sim's capabilities at
 * every standalone latmc_sim_sweep, and the batches' answers depend on the opt-in shared
 * memory of a block: a table read costs a relaxed load, the runtime's attribute query is
 * asked once per device. Threads that find a device not yet asked may each ask it and
 * store the same value: no lock is needed.
 */
#include <stdatomic.h>
#include <stdbool.h>

#include "cuda_device.h"

/* Devices 0 .. CUDA_DEVICES_KEPT - 1 are kept; a higher ordinal asks at every call. */
enum { CUDA_DEVICES_KEPT = 64 };

static _Atomic int smem_optin[CUDA_DEVICES_KEPT]; /* 0: not asked yet */

cudaError_t cuda_device_smem_optin(int device, int *bytes)
{
    const bool kept = device >= 0 && device < CUDA_DEVICES_KEPT;
    int v = kept ? atomic_load_explicit(&smem_optin[device], memory_order_relaxed) : 0;
    if (v > 0) {
        *bytes = v;
        return cudaSuccess;
    }
    const cudaError_t err =
        cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
    if (err != cudaSuccess) {
        *bytes = 0;
        return err;
    }
    if (kept)
        atomic_store_explicit(&smem_optin[device], v, memory_order_relaxed);
    *bytes = v;
    return cudaSuccess;
}
