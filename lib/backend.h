/*
 * Internal: the table of operations every backend provides. The core validates every
 * argument and the sim's state before calling; backends never re-validate, and report
 * only their own failures (allocation, device) through latmc_fail().
 */
#ifndef LATMC_LIB_BACKEND_H
#define LATMC_LIB_BACKEND_H

#include "internal.h"

struct latmc_backend_ops {
    size_t size;            /* sizeof(struct latmc_backend_ops) of the backend's build */
    const char *name;

    /* Allocate sim->backend for sim->desc (configuration undefined until init/set). */
    int (*create)(latmc_sim *sim);
    void (*destroy)(latmc_sim *sim);

    int (*init_spins)(latmc_sim *sim, int how);
    /* n sweeps numbered sim->sweeps, sim->sweeps + 1, ...; adds accepted updates. */
    int (*sweep)(latmc_sim *sim, uint64_t n, uint64_t *accepted);
    int (*measure_ising)(latmc_sim *sim, struct latmc_ising_sums *out);
    /* Host copies in site order i = x + L_x (y + L_y z); sizes checked by the core. */
    int (*get_spins)(latmc_sim *sim, void *buf);
    int (*set_spins)(latmc_sim *sim, const void *buf);
};

extern const struct latmc_backend_ops latmc_cpu_backend_ops;

/*
 * Pick the backend for desc->device / desc->device_index. AUTO falls back to the CPU and
 * logs why; an explicit request that cannot be met fails (never a silent CPU run).
 */
int latmc_backend_select(latmc_ctx *ctx, const latmc_sim_desc *desc,
                         const struct latmc_backend_ops **out);

#endif
