/*
 * A misbehaving "CUDA" backend module for the robustness suite (issue 13 item 11): one
 * fake device, Ising sims in host memory, and operations that return what no backend may
 * return, so that the core's check (lib/backend_result.c) is seen to catch each kind:
 *   device_info  -99 (not a status code at all)
 *   init_spins   7 (positive: looks like success to a careless `st < 0`)
 *   sweep        LATMC_ECORRUPT (a real code, but not one a backend may report)
 *   measure      LATMC_EDEVICE without recording a message (the core must supply one)
 *   set_spins, get_spins, create, destroy: correct.
 * Like a real module it never links liblatmc: only the core services are used.
 */
#include <stdlib.h>
#include <string.h>

#include "module_abi.h"

#define BAD_EXPORT __attribute__((visibility("default")))

static const struct latmc_core_services *core;

static int bad_init(const struct latmc_core_services *services)
{
    core = services;
    return LATMC_OK;
}

static int bad_device_count(int *count)
{
    *count = 1;
    return LATMC_OK;
}

static int bad_device_info(int index, struct latmc_module_device *info)
{
    (void)index;
    memset(info->name, 'x', sizeof info->name); /* and no NUL: the core must bound it */
    return -99;
}

static int bad_create(latmc_sim *sim)
{
    if (sim->desc.model != LATMC_MODEL_ISING)
        return core->fail(LATMC_EUNSUPPORTED, "bad module: only the Ising model");
    sim->backend = calloc(1, (size_t)sim->nsites);
    if (!sim->backend)
        return core->fail(LATMC_ENOMEM, "bad module: out of memory");
    sim->n_threads = 1;
    return LATMC_OK;
}

static void bad_destroy(latmc_sim *sim)
{
    free(sim->backend);
    sim->backend = NULL;
}

static int bad_init_spins(latmc_sim *sim, int how)
{
    (void)sim;
    (void)how;
    return 7;
}

static int bad_run_steps(latmc_sim *sim, const struct latmc_step_call *calls, int n_calls,
                         uint64_t *accepted, uint64_t *attempted)
{
    (void)sim;
    (void)calls;
    (void)n_calls;
    (void)accepted;
    (void)attempted;
    return core->fail(LATMC_ECORRUPT, "bad module: a checkpoint code from a sweep");
}

static int bad_measure(latmc_sim *sim, void *sums)
{
    (void)sim;
    (void)sums;
    return LATMC_EDEVICE; /* no message recorded */
}

static int bad_get_spins(latmc_sim *sim, void *buf)
{
    memcpy(buf, sim->backend, (size_t)sim->nsites);
    return LATMC_OK;
}

static int bad_set_spins(latmc_sim *sim, const void *buf)
{
    memcpy(sim->backend, buf, (size_t)sim->nsites);
    return LATMC_OK;
}

static const struct latmc_backend_ops bad_ops = {
    .size = sizeof(struct latmc_backend_ops),
    .name = "bad-cuda",
    .create = bad_create,
    .destroy = bad_destroy,
    .init_spins = bad_init_spins,
    .measure = bad_measure,
    .get_spins = bad_get_spins,
    .set_spins = bad_set_spins,
    .run_steps = bad_run_steps,
};

static const struct latmc_module bad_module = {
    .size = sizeof(struct latmc_module),
    .abi_version = LATMC_MODULE_ABI_VERSION,
    .name = "bad",
    .device_kind = LATMC_DEVICE_CUDA,
    .init = bad_init,
    .device_count = bad_device_count,
    .device_info = bad_device_info,
    .ops = &bad_ops,
};

BAD_EXPORT const struct latmc_module *latmc_module_entry(void);
BAD_EXPORT const struct latmc_module *latmc_module_entry(void)
{
    return &bad_module;
}
