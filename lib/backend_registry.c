/* Choosing a backend for a sim: the CPU is built in; other backends come as modules. */
#include "backend.h"

int latmc_backend_select(latmc_ctx *ctx, const latmc_sim_desc *desc,
                         const struct latmc_backend_ops **out)
{
    switch (desc->device) {
    case LATMC_DEVICE_AUTO:
        latmc_log(ctx, LATMC_LOG_INFO,
                  "device AUTO: using the CPU (this liblatmc has no CUDA backend module)");
        break;
    case LATMC_DEVICE_CPU:
        break;
    case LATMC_DEVICE_CUDA:
        return latmc_fail(LATMC_EBACKEND,
                          "device CUDA requested, but this liblatmc has no CUDA backend module");
    default:
        return latmc_fail(LATMC_EINVAL, "desc.device = %d is not a LATMC_DEVICE_* value",
                          desc->device);
    }
    if (desc->device_index != 0)
        return latmc_fail(LATMC_ENODEV,
                          "desc.device_index = %d: the CPU backend has only device 0",
                          desc->device_index);
    *out = &latmc_cpu_backend_ops;
    return LATMC_OK;
}
