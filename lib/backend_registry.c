/*
 * Choosing a backend for a sim and describing devices. Every device kind is served by one
 * table (module_abi.h): the CPU's is built in (latmc_cpu_module), the CUDA one comes as a
 * module (module_loader.c). An explicit request that cannot be met fails with a code and
 * the reason; AUTO falls back to the CPU and logs why.
 */
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "module_loader.h"

/* The table serving `device`, or NULL with *why saying why there is none. On success *why
 * is the backend's status line. */
static const struct latmc_module *backend_module(int device, const char **why)
{
    if (device == LATMC_DEVICE_CPU) {
        *why = latmc_cpu_module_status();
        return &latmc_cpu_module;
    }
    return latmc_module_get(device, why);
}

static int cuda_backend(const latmc_sim_desc *desc, const struct latmc_backend_ops **out)
{
    const char *why = "";
    const struct latmc_module *m = latmc_module_get(LATMC_DEVICE_CUDA, &why);
    if (!m)
        return latmc_fail(LATMC_EBACKEND, "CUDA backend unavailable: %s", why);
    int count = 0;
    int st = m->device_count(&count);
    if (st < 0)
        return st;
    if (desc->device_index >= count)
        return latmc_fail(LATMC_ENODEV, "desc.device_index = %d: the CUDA backend sees %d "
                          "device(s)", desc->device_index, count);
    *out = m->ops;
    return LATMC_OK;
}

int latmc_backend_select(latmc_ctx *ctx, const latmc_sim_desc *desc,
                         const struct latmc_backend_ops **out)
{
    switch (desc->device) {
    case LATMC_DEVICE_AUTO:
        if (cuda_backend(desc, out) == LATMC_OK)
            return LATMC_OK;
        latmc_log(ctx, LATMC_LOG_INFO, "device AUTO: using the CPU (%s)", latmc_thread_error());
        break;
    case LATMC_DEVICE_CPU:
        break;
    case LATMC_DEVICE_CUDA:
        return cuda_backend(desc, out);
    default:
        return latmc_fail(LATMC_EINVAL, "desc.device = %d is not a LATMC_DEVICE_* value",
                          desc->device);
    }
    if (desc->device == LATMC_DEVICE_CPU && desc->device_index != 0)
        return latmc_fail(LATMC_ENODEV,
                          "desc.device_index = %d: the CPU backend has only device 0",
                          desc->device_index);
    *out = latmc_cpu_module.ops;
    return LATMC_OK;
}

const char *latmc_ctx_backend_status(latmc_ctx *ctx, int device)
{
    (void)ctx;
    if (device != LATMC_DEVICE_CPU && device != LATMC_DEVICE_CUDA)
        return "unknown device kind";
    const char *why = "";
    backend_module(device, &why);
    return why;
}

int latmc_ctx_device_count(latmc_ctx *ctx, int device, int *count)
{
    if (!ctx || !count)
        return latmc_fail(LATMC_EINVAL, "latmc_ctx_device_count: %s is NULL", !ctx ? "ctx" : "count");
    if (device != LATMC_DEVICE_CPU && device != LATMC_DEVICE_CUDA)
        return latmc_fail(LATMC_EINVAL, "latmc_ctx_device_count: device = %d is not "
                          "LATMC_DEVICE_CPU or LATMC_DEVICE_CUDA", device);
    const char *why = "";
    const struct latmc_module *m = backend_module(device, &why);
    if (!m)
        return latmc_fail(LATMC_EBACKEND, "CUDA backend unavailable: %s", why);
    return m->device_count(count);
}

int latmc_ctx_device_info(latmc_ctx *ctx, int device, int index, latmc_device_info *info)
{
    if (!ctx || !info)
        return latmc_fail(LATMC_EINVAL, "latmc_ctx_device_info: %s is NULL", !ctx ? "ctx" : "info");
    if (info->struct_size < sizeof *info)
        return latmc_fail(LATMC_EINVAL, "latmc_ctx_device_info: info->struct_size = %u, this "
                          "library's latmc_device_info takes %zu", (unsigned)info->struct_size,
                          sizeof *info);
    int count = 0;
    int st = latmc_ctx_device_count(ctx, device, &count);
    if (st < 0)
        return st;
    if (index < 0 || index >= count)
        return latmc_fail(LATMC_ENODEV, "latmc_ctx_device_info: index %d, there are %d "
                          "device(s)", index, count);
    latmc_device_info d;
    memset(&d, 0, sizeof d);
    d.struct_size = sizeof d;
    d.device = device;
    d.index = index;
    const char *why = "";
    const struct latmc_module *m = backend_module(device, &why);
    struct latmc_module_device md;
    memset(&md, 0, sizeof md);
    if ((st = m->device_info(index, &md)) < 0)
        return st;
    snprintf(d.name, sizeof d.name, "%s", md.name);
    d.memory_bytes = md.memory_bytes;
    d.compute_major = md.compute_major;
    d.compute_minor = md.compute_minor;
    d.multiprocessors = md.multiprocessors;
    memcpy(info, &d, sizeof d);
    return LATMC_OK;
}
