/*
 * The CPU backend as the core sees it: the same description a loaded module gives
 * (lib/module_abi.h: device count, device info, the ops), built into liblatmc, plus its
 * status line. The core reaches the CPU only through this table and the ops, so it knows
 * nothing of the CPU's features or of /proc.
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "cpu_features.h"
#include "module_abi.h"

static int cpu_module_init(const struct latmc_core_services *core)
{
    (void)core; /* built in: the core's services are linked directly */
    return LATMC_OK;
}

/* One device: the host's CPUs, run by OpenMP threads. */
static int cpu_module_device_count(int *count)
{
    *count = 1;
    return LATMC_OK;
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

static int cpu_module_device_info(int index, struct latmc_module_device *info)
{
    (void)index; /* the core checked it against the count */
    memset(info, 0, sizeof *info);
    cpu_name(info->name, sizeof info->name);
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    info->multiprocessors = n > 0 ? (int)n : 1;
    return LATMC_OK;
}

const struct latmc_module latmc_cpu_module = {
    .size = sizeof(struct latmc_module),
    .abi_version = LATMC_MODULE_ABI_VERSION,
    .name = "cpu",
    .device_kind = LATMC_DEVICE_CPU,
    .init = cpu_module_init,
    .device_count = cpu_module_device_count,
    .device_info = cpu_module_device_info,
    .ops = &latmc_cpu_backend_ops,
};

const char *latmc_cpu_module_status(void)
{
    return cpu_status();
}
