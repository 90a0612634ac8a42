/*
 * Internal ABI between liblatmc and its backend modules (latmc-cuda.so, ...): a module is a
 * shared object loaded with dlopen that exports one symbol, LATMC_MODULE_ENTRY_SYMBOL, a
 * function returning its `struct latmc_module`. A module never links liblatmc: everything
 * it needs from the core (error recording, logging) comes through
 * `struct latmc_core_services`. Modules are built from this same source tree and include
 * the core's internal headers (the sim layout, the model tables), so any change to those
 * or to the structs below bumps LATMC_MODULE_ABI_VERSION; the loader refuses any other.
 */
#ifndef LATMC_LIB_MODULE_ABI_H
#define LATMC_LIB_MODULE_ABI_H

#include <latmc/ctx.h>
#include "backend.h"

/* 3: ops.own_schedule (a CUDA module's one-box phi^4 steps are its sub-grids only where
 * the core asks own_schedule: a core without it would run the wrong steps). */
/* 4: struct latmc_step_call carries the concrete step (lib/step.h) in place of its index,
 * model_def gains step_of, and ops.sweep is gone (every sweep runs through ops.run_steps). */
/* 5: core services gain draw_couplings. */
/* 6: ops.ens_temper (parallel tempering on the device). */
/* 7: ops.mode_projections and ops.mode_tiles (the Fourier modes reduced on the device). */
/* 8: ops.ens_sweep is gone: an ensemble's members sweep as a batch of ops.run_steps
 * (struct latmc_step_call gains members, n_members, n_sweeps; LATMC_STEP_CAP_BATCH*). */
/* 9: ops.cluster_stats and the step kind LATMC_STEP_CLUSTER_FLIP_SEED (Wolff on a
 * device). */
/* 10: ops.ens_temper only loads and fetches the tempering state; the sweeps and their
 * exchange rounds run as the batch's plan (LATMC_STEP_EXCHANGE, LATMC_STEP_CAP_BATCH_EXCHANGE;
 * struct latmc_step_call gains device_map, round, round_sweeps). */
/* 11: ops.cluster_faces (the clusters of Swendsen-Wang and Wolff on a device's part joined
 * across the parts of a lattice shared by processes). */
/* 12: ops.ens_lanes (the ensemble chain of member lanes on a device). */
/* 13: the lanes' job LATMC_ENS_LANES_KEEP and struct latmc_ens_lanes_keep; ops.cluster_faces'
 * LATMC_CLUSTER_FACES_SIZE and struct latmc_part's faces_room (a cluster part's record
 * size asked before every call). */
/* 14: ops.cluster_faces' flag LATMC_CLUSTER_FACES_STATS (the cluster observables on a
 * device's parts) and struct latmc_part's stats_face_bytes, stats_sweep. */
/* 15: ops.embed_step and struct latmc_embed_job (the embedded Heisenberg clusters on a
 * device). */
/* 16: struct latmc_ens_lanes_job's tables_gen (the member lanes' tables compared by a
 * number, not their bytes). */
/* 17: struct latmc_embed_job's bonds and field (ops.embed_step runs Wolff, its statistics
 * regrown by the core from the step's bonds, and Heisenberg's Swendsen-Wang in a field). */
/* 18: struct latmc_ens_temper's ladder_key and scale (tempering on the device for a mu2
 * ladder: phi^4); the embedded clusters' decisions in a field weigh each cluster's sum of
 * a as lib/cluster_embed_sum.h defines it (integers, any order: was each sum of doubles in
 * the core's order), and the core asks ops.embed_step for Wolff in a field too (a module
 * of 17 would decide in a field by the old sums). struct latmc_embed_job is unchanged. */
/* 19: struct latmc_embed_job's n_dirs, k_axis2 and k_diag (phi^4's embedded clusters with a
 * finite Lambda on a device: a module of 18 would step them with the nearest neighbours
 * alone). */
/* 20: ops.ens_measure, ops.ens_overlaps, ops.ens_swap_params and ops.ens_temper are gone:
 * they are a batch's requests, run_steps calls (LATMC_STEP_MEASURE, _OVERLAPS,
 * _SWAP_PARAMS, _TEMPER_STATE; struct latmc_step_call gains request;
 * LATMC_STEP_CAP_BATCH_MEASURE, _OVERLAPS, _SWAP), and a module frees what it keeps for a
 * batch when the batch's first member is destroyed (there is no release call). */
/* 21: Heisenberg's Fourier modes are integer projections in fixed point (lib/modes_exact.h,
 * latmc_modes_fixed), which the core asks of ops.mode_projections: a module of 20 would
 * answer its tiles' modes through ops.measure_kmin, of the definition before. */
/* 22: the member lanes' jobs LATMC_ENS_LANES_TEMPER_LOAD and _TEMPER_FETCH and struct
 * latmc_ens_lanes_job's temper, temp_tables, every and round0 (their exchange rounds on
 * the device). */
/* 23: phi^4's Fourier modes are integer projections in fixed point too
 * (latmc_modes_field_fixed); struct latmc_backend_ops loses mode_tiles, and measure_kmin
 * answers the exact sums before the model's scale. */
#define LATMC_MODULE_ABI_VERSION 23u
#define LATMC_MODULE_ENTRY_SYMBOL "latmc_module_entry"

/* What the core offers a module. Function pointers into liblatmc. */
struct latmc_core_services {
    uint32_t size;                      /* sizeof(struct latmc_core_services) */
    /* Record `status` with a message as the thread's last error; returns status. */
    int (*fail)(int status, const char *fmt, ...) LATMC_PRINTF(2, 3);
    /* Log through a ctx (silent unless its user installed a callback). */
    void (*log)(latmc_ctx *ctx, int level, const char *fmt, ...) LATMC_PRINTF(3, 4);
    /* The quenched couplings drawn on the host's threads: latmc_cpu_draw_couplings
     * (backend.h), so that a module's host copy equals the CPU's without a serial loop. */
    int (*draw_couplings)(void *out, int as_float, int kind, int64_t e0, int64_t e1,
                          uint64_t coupling_seed, int n_threads);
};

/* One device as the module reports it. */
struct latmc_module_device {
    char name[256];
    uint64_t memory_bytes;
    int compute_major, compute_minor;
    int multiprocessors;
};

struct latmc_module {
    uint32_t size;                      /* sizeof(struct latmc_module) */
    uint32_t abi_version;               /* LATMC_MODULE_ABI_VERSION of the module's build */
    const char *name;                   /* "cuda" */
    int device_kind;                    /* enum latmc_device it serves */
    /* Called once after loading. LATMC_OK, or LATMC_EBACKEND with a message recorded
     * through core->fail (no driver, no device, ...): the module then stays unused. */
    int (*init)(const struct latmc_core_services *core);
    int (*device_count)(int *count);
    int (*device_info)(int index, struct latmc_module_device *info);
    /* The backend; its create() finds the device in sim->desc.device_index. */
    const struct latmc_backend_ops *ops;
    /* Appended. Optional (NULL, or a module built with a smaller struct: no peer access
     * between different devices): whether device a can read and write device b's memory
     * directly (a != b, both valid indices, checked by the core). */
    int (*device_peer)(int a, int b, int *can_access);
};

typedef const struct latmc_module *(*latmc_module_entry_fn)(void);

#endif
