/*
 * Choosing a backend for a sim and describing devices. Every device kind is served by one
 * table (module_abi.h): the CPU's is built in (latmc_cpu_module), the CUDA one comes as a
 * module (module_loader.c). An explicit request that cannot be met fails with a code and
 * the reason; AUTO falls back to the CPU and logs why.
 */
#include <pthread.h>
#include <stddef.h>
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

/* The module's device count, its status checked (latmc_backend_result). */
static int module_device_count(const struct latmc_module *m, int *count)
{
    const unsigned long fails_before = latmc_fail_count();
    int n = 0;
    int st = latmc_backend_result(m->name ? m->name : "module", "device_count",
                                  m->device_count(&n), fails_before);
    if (st == LATMC_OK && n < 0)
        st = latmc_fail(LATMC_EBACKEND, "the %s backend counted %d devices: a bug in the "
                        "backend", m->name ? m->name : "module", n);
    if (st == LATMC_OK)
        *count = n;
    return st;
}

static int cuda_backend(const latmc_sim_desc *desc, const struct latmc_backend_ops **out)
{
    const char *why = "";
    const struct latmc_module *m = latmc_module_get(LATMC_DEVICE_CUDA, &why);
    if (!m)
        return latmc_fail(LATMC_EBACKEND, "CUDA backend unavailable: %s", why);
    int count = 0;
    int st = module_device_count(m, &count);
    if (st < 0)
        return st;
    if (desc->device_index >= count)
        return latmc_fail(LATMC_ENODEV, "desc.device_index = %d: the CUDA backend sees %d "
                          "device(s)", desc->device_index, count);
    /* Several devices: each of them must exist (desc.c checked the list's signs). */
    for (int i = 0; desc->n_devices > 1 && i < desc->n_devices; i++) {
        const int dev = desc->device_list ? desc->device_list[i] : desc->device_index + i;
        if (dev >= count)
            return latmc_fail(LATMC_ENODEV, "desc.n_devices = %d: slab %d would run on CUDA "
                              "device %d (%s), but the CUDA backend sees %d device(s)",
                              desc->n_devices, i, dev, desc->device_list ? "desc.device_list"
                              : "desc.device_index + slab", count);
    }
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
        /* The CPU has only device 0: AUTO must not turn a device_index that names no
         * device anywhere into a CPU run (the CPU refuses it when asked by name). */
        if (desc->n_devices > 1) {
            char why[LATMC_ERRMSG_SIZE];
            snprintf(why, sizeof why, "%s", latmc_thread_error());
            return latmc_fail(LATMC_ENODEV, "desc.n_devices = %d with device AUTO: the CUDA "
                              "backend cannot run them (%.300s), and the CPU is one device",
                              desc->n_devices, why);
        }
        if (desc->device_index != 0) {
            char why[LATMC_ERRMSG_SIZE];
            snprintf(why, sizeof why, "%s", latmc_thread_error());
            return latmc_fail(LATMC_ENODEV, "desc.device_index = %d with device AUTO: no CUDA "
                              "device %d (%.300s), and the CPU has only device 0",
                              desc->device_index, desc->device_index, why);
        }
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

/*
 * The CPU's status line depends on LATMC_CPU_MASK, which a process may change, so it is
 * built at each call; but the string returned must stay valid for the whole process (not a
 * thread's buffer). Each distinct line is kept once, never freed; the lines are few (one
 * per mask value tried) and the table is capped.
 */
#define CPU_STATUS_LINES 16
static const char *cpu_status_interned(void)
{
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static char lines[CPU_STATUS_LINES][256];
    static int nlines;
    char now[256];
    snprintf(now, sizeof now, "%s", latmc_cpu_module_status());
    const char *found = "built in; SIMD level unknown (too many LATMC_CPU_MASK values "
                        "seen by this process)";
    pthread_mutex_lock(&lock);
    for (int i = 0; i < nlines; i++)
        if (strcmp(lines[i], now) == 0) {
            found = lines[i];
            goto out;
        }
    if (nlines < CPU_STATUS_LINES) {
        snprintf(lines[nlines], sizeof lines[nlines], "%s", now);
        found = lines[nlines++];
    }
out:
    pthread_mutex_unlock(&lock);
    return found;
}

const char *latmc_ctx_backend_status(latmc_ctx *ctx, int device)
{
    (void)ctx;
    if (device == LATMC_DEVICE_CPU)
        return cpu_status_interned();
    if (device != LATMC_DEVICE_CUDA)
        return "unknown device kind";
    const char *why = "";
    backend_module(device, &why);
    return why;
}

/* The device count of a kind, its refusals under the name of the public function `fn`
 * that asked (device_info and device_peer count first). */
static int device_count_for(const char *fn, int device, int *count)
{
    if (device != LATMC_DEVICE_CPU && device != LATMC_DEVICE_CUDA)
        return latmc_fail(LATMC_EINVAL, "%s: device = %d is not LATMC_DEVICE_CPU or "
                          "LATMC_DEVICE_CUDA", fn, device);
    const char *why = "";
    const struct latmc_module *m = backend_module(device, &why);
    if (!m) /* device_count's message stays as it was: programs print it as the reason */
        return strcmp(fn, "latmc_ctx_device_count") == 0
                   ? latmc_fail(LATMC_EBACKEND, "CUDA backend unavailable: %s", why)
                   : latmc_fail(LATMC_EBACKEND, "%s: CUDA backend unavailable: %s", fn, why);
    return module_device_count(m, count);
}

int latmc_ctx_device_count(latmc_ctx *ctx, int device, int *count)
{
    if (!ctx || !count)
        return latmc_fail(LATMC_EINVAL, "latmc_ctx_device_count: %s is NULL", !ctx ? "ctx" : "count");
    return device_count_for("latmc_ctx_device_count", device, count);
}

int latmc_ctx_device_info(latmc_ctx *ctx, int device, int index, latmc_device_info *info)
{
    if (!ctx || !info)
        return latmc_fail(LATMC_EINVAL, "latmc_ctx_device_info: %s is NULL", !ctx ? "ctx" : "info");
    if (info->struct_size < sizeof *info || info->struct_size > LATMC_STRUCT_SIZE_MAX)
        return latmc_fail(LATMC_EINVAL, "latmc_ctx_device_info: info->struct_size = %u, this "
                          "library's latmc_device_info takes %zu (at most %u: a struct_size "
                          "struct never grows past it)", (unsigned)info->struct_size,
                          sizeof *info, LATMC_STRUCT_SIZE_MAX);
    int count = 0;
    int st = device_count_for("latmc_ctx_device_info", device, &count);
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
    const unsigned long fails_before = latmc_fail_count();
    st = latmc_backend_result(m->name ? m->name : "module", "device_info",
                              m->device_info(index, &md), fails_before);
    if (st < 0)
        return st;
    md.name[sizeof md.name - 1] = '\0'; /* a module's string, bounded before use */
    snprintf(d.name, sizeof d.name, "%s", md.name);
    d.memory_bytes = md.memory_bytes;
    d.compute_major = md.compute_major;
    d.compute_minor = md.compute_minor;
    d.multiprocessors = md.multiprocessors;
    memcpy(info, &d, sizeof d);
    return LATMC_OK;
}

int latmc_ctx_device_peer(latmc_ctx *ctx, int device, int a, int b, int *can_access)
{
    if (!ctx || !can_access)
        return latmc_fail(LATMC_EINVAL, "latmc_ctx_device_peer: %s is NULL",
                          !ctx ? "ctx" : "can_access");
    int count = 0;
    int st = device_count_for("latmc_ctx_device_peer", device, &count);
    if (st < 0)
        return st;
    if (a < 0 || a >= count || b < 0 || b >= count)
        return latmc_fail(LATMC_ENODEV, "latmc_ctx_device_peer: devices %d and %d, there are "
                          "%d device(s)", a, b, count);
    if (a == b) {
        *can_access = 1;
        return LATMC_OK;
    }
    const char *why = "";
    const struct latmc_module *m = backend_module(device, &why);
    int can = 0;
    if (m->size >= offsetof(struct latmc_module, device_peer) + sizeof m->device_peer &&
        m->device_peer) {
        const unsigned long fails_before = latmc_fail_count();
        st = latmc_backend_result(m->name ? m->name : "module", "device_peer",
                                  m->device_peer(a, b, &can), fails_before);
        if (st < 0)
            return st;
    }
    *can_access = can != 0;
    return LATMC_OK;
}
