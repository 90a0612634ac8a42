/*
 * The CUDA backend module (latmc-cuda.so): its one exported symbol, latmc_module_entry,
 * returns the module description that the core's loader checks (module_abi.h). Everything
 * else in the module is hidden, and the module never links liblatmc: the core services
 * handed to init() are its only way to record errors and log.
 */
#include <stdio.h>
#include <string.h>

#include "cuda_backend.h"
#include "cuda_check.h"

#define LATMC_MODULE_EXPORT __attribute__((visibility("default")))

static int cuda_module_init(const struct latmc_core_services *core)
{
    if (!core || core->size < sizeof *core || !core->fail || !core->log ||
        !core->draw_couplings)
        return LATMC_EBACKEND; /* a core this module cannot talk to */
    cuda_core = core;
    int count = 0;
    cudaError_t err = cudaGetDeviceCount(&count);
    if (err != cudaSuccess) {
        (void)cudaGetLastError();
        return core->fail(LATMC_EBACKEND, "no CUDA device: %s (%s)", cudaGetErrorString(err),
                          cudaGetErrorName(err));
    }
    if (count == 0)
        return core->fail(LATMC_EBACKEND, "no CUDA device: the driver reports none");
    return LATMC_OK;
}

static int cuda_module_device_count(int *count)
{
    int n = 0;
    int st = cuda_check(cudaGetDeviceCount(&n), "cudaGetDeviceCount");
    if (st < 0)
        return st;
    *count = n;
    return LATMC_OK;
}

static int cuda_module_device_info(int index, struct latmc_module_device *info)
{
    int count = 0;
    int st = cuda_module_device_count(&count);
    if (st < 0)
        return st;
    if (index < 0 || index >= count)
        return cuda_core->fail(LATMC_ENODEV, "CUDA device %d: the CUDA backend sees %d "
                               "device(s)", index, count);
    struct cudaDeviceProp prop;
    if ((st = cuda_check(cudaGetDeviceProperties(&prop, index), "cudaGetDeviceProperties")) < 0)
        return st;
    memset(info, 0, sizeof *info);
    snprintf(info->name, sizeof info->name, "%s", prop.name);
    info->memory_bytes = (uint64_t)prop.totalGlobalMem;
    info->compute_major = prop.major;
    info->compute_minor = prop.minor;
    info->multiprocessors = prop.multiProcessorCount;
    return LATMC_OK;
}

static int cuda_module_device_peer(int a, int b, int *can_access)
{
    int can = 0;
    int st = cuda_check(cudaDeviceCanAccessPeer(&can, a, b), "cudaDeviceCanAccessPeer");
    if (st == LATMC_OK)
        *can_access = can;
    return st;
}

static const struct latmc_module cuda_module = {
    .size = sizeof(struct latmc_module),
    .abi_version = LATMC_MODULE_ABI_VERSION,
    .name = "cuda",
    .device_kind = LATMC_DEVICE_CUDA,
    .init = cuda_module_init,
    .device_count = cuda_module_device_count,
    .device_info = cuda_module_device_info,
    .ops = &latmc_cuda_backend_ops,
    .device_peer = cuda_module_device_peer,
};

LATMC_MODULE_EXPORT const struct latmc_module *latmc_module_entry(void);

LATMC_MODULE_EXPORT const struct latmc_module *latmc_module_entry(void)
{
    return &cuda_module;
}
