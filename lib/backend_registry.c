/*
 * Choosing a backend for a sim and describing devices. The CPU backend is built in; the
 * CUDA backend comes as a module (module_loader.c). An explicit request that cannot be met
 * fails with a code and the reason; AUTO falls back to the CPU and logs why.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "cpu_features.h"
#include "module_loader.h"

#ifdef _OPENMP
#  include <omp.h>
#endif

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
    *out = &latmc_cpu_backend_ops;
    return LATMC_OK;
}

const char *latmc_ctx_backend_status(latmc_ctx *ctx, int device)
{
    (void)ctx;
    if (device == LATMC_DEVICE_CPU)
        return cpu_status();
    const char *why = "unknown device kind";
    if (device == LATMC_DEVICE_CUDA)
        latmc_module_get(device, &why);
    return why;
}

int latmc_ctx_device_count(latmc_ctx *ctx, int device, int *count)
{
    if (!ctx || !count)
        return latmc_fail(LATMC_EINVAL, "latmc_ctx_device_count: %s is NULL", !ctx ? "ctx" : "count");
    if (device == LATMC_DEVICE_CPU) {
        *count = 1;
        return LATMC_OK;
    }
    if (device != LATMC_DEVICE_CUDA)
        return latmc_fail(LATMC_EINVAL, "latmc_ctx_device_count: device = %d is not "
                          "LATMC_DEVICE_CPU or LATMC_DEVICE_CUDA", device);
    const char *why = "";
    const struct latmc_module *m = latmc_module_get(device, &why);
    if (!m)
        return latmc_fail(LATMC_EBACKEND, "CUDA backend unavailable: %s", why);
    return m->device_count(count);
}

/* The CPU's model name from /proc/cpuinfo where there is one. */
static void cpu_name(char *name, size_t size)
{
    snprintf(name, size, "CPU");
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (strncmp(line, "model name", 10) == 0) {
            const char *colon = strchr(line, ':');
            if (colon) {
                colon += colon[1] == ' ' ? 2 : 1;
                snprintf(name, size, "%.*s", (int)strcspn(colon, "\n"), colon);
            }
            break;
        }
    }
    fclose(f);
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
    if (device == LATMC_DEVICE_CPU) {
        cpu_name(d.name, sizeof d.name);
        long n = sysconf(_SC_NPROCESSORS_ONLN);
        d.multiprocessors = n > 0 ? (int)n : 1;
    } else {
        const char *why = "";
        const struct latmc_module *m = latmc_module_get(device, &why);
        struct latmc_module_device md;
        memset(&md, 0, sizeof md);
        if ((st = m->device_info(index, &md)) < 0)
            return st;
        snprintf(d.name, sizeof d.name, "%s", md.name);
        d.memory_bytes = md.memory_bytes;
        d.compute_major = md.compute_major;
        d.compute_minor = md.compute_minor;
        d.multiprocessors = md.multiprocessors;
    }
    memcpy(info, &d, sizeof d);
    return LATMC_OK;
}
