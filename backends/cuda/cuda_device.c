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
#include "cuda_kernels.h"

/* Devices 0 .. CUDA_DEVICES_KEPT - 1 are kept; a higher ordinal asks at every call. */
enum { CUDA_DEVICES_KEPT = 64 };

static _Atomic int smem_optin[CUDA_DEVICES_KEPT]; /* 0: not asked yet */
static _Atomic int sm_count[CUDA_DEVICES_KEPT];
static _Atomic int code_ptx[CUDA_DEVICES_KEPT];

/* `attr` of `device` from `table` (0: not asked yet), else asked and kept; attr -1: the
 * kernels' PTX version (cuda_kernels_ptx_version, on the current device). */
static cudaError_t kept_attribute(_Atomic int *table, int attr, int device, int *value)
{
    const bool kept = device >= 0 && device < CUDA_DEVICES_KEPT;
    int v = kept ? atomic_load_explicit(&table[device], memory_order_relaxed) : 0;
    if (v > 0) {
        *value = v;
        return cudaSuccess;
    }
    const cudaError_t err = attr < 0 ? cuda_kernels_ptx_version(&v)
                                     : cudaDeviceGetAttribute(&v, (enum cudaDeviceAttr)attr,
                                                              device);
    if (err != cudaSuccess) {
        /* returned, not left in the runtime's last-error slot, where the next launch's
         * check (cudaGetLastError) would take it for its own */
        (void)cudaGetLastError();
        *value = 0;
        return err;
    }
    if (kept)
        atomic_store_explicit(&table[device], v, memory_order_relaxed);
    *value = v;
    return cudaSuccess;
}

cudaError_t cuda_device_smem_optin(int device, int *bytes)
{
    return kept_attribute(smem_optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device, bytes);
}

bool cuda_device_smem_fits(int device, size_t bytes)
{
    int optin = 0;
    if (cuda_device_smem_optin(device, &optin) != cudaSuccess) {
        (void)cudaGetLastError(); /* not sticky: the caller takes another path */
        return false;
    }
    return bytes + 128 <= (size_t)optin;
}

cudaError_t cuda_device_sm_count(int device, int *count)
{
    return kept_attribute(sm_count, cudaDevAttrMultiProcessorCount, device, count);
}

cudaError_t cuda_device_code_ptx(int device, int *version)
{
    return kept_attribute(code_ptx, -1, device, version);
}
