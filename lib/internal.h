/*
 * Internal: the ctx and sim objects, shared by the core (lib/) and the backends.
 * Nothing here is public or part of the ABI.
 */
#ifndef LATMC_LIB_INTERNAL_H
#define LATMC_LIB_INTERNAL_H

#include <pthread.h>
#include <stdatomic.h>

#include <latmc/ctx.h>
#include <latmc/sim.h>
#include "error.h"

/* Highest parameter key; params are stored in an array indexed by key. */
#define LATMC_PARAM_MAX LATMC_PARAM_NOVER

struct latmc_ctx {
    atomic_int refs;          /* the user's reference plus one per live sim */
    pthread_mutex_t lock;     /* guards the log settings */
    latmc_log_fn log_fn;
    void *log_user;
    int log_min;
};

struct latmc_backend_ops;

struct latmc_model_def;

struct latmc_sim {
    latmc_ctx *ctx;
    latmc_sim_desc desc;               /* validated; algorithm resolved from DEFAULT */
    int64_t nsites;                    /* product of the extents */
    int n_threads;                     /* resolved thread count (>= 1), set by the backend */
    double param[LATMC_PARAM_MAX + 1];
    const struct latmc_model_def *model;
    void *model_data;                  /* derived tables (model->data_size bytes) */
    const struct latmc_backend_ops *ops;
    void *backend;                     /* backend-private state */
    bool have_config;                  /* init_spins or set_spins done */
    uint64_t sweeps;                   /* sweeps done: the next sweep has this number */
    uint64_t accepted, attempted;      /* since the last reset */
    bool sums_valid;                   /* sums holds the reduction of the current state */
    void *sums;                        /* model->sums_size bytes */
    char errmsg[LATMC_ERRMSG_SIZE];
};

/* Record the thread's last error on the sim as well, log it, and return status. */
int latmc_sim_record_failure(const latmc_sim *sim, int status);
#define SIM_FAIL(sim, status, ...) latmc_sim_record_failure((sim), latmc_fail((status), __VA_ARGS__))

/* Logging through the ctx (silent unless the user installed a callback). */
void latmc_log(latmc_ctx *ctx, int level, const char *fmt, ...) LATMC_PRINTF(3, 4);

/* Reference counting of the ctx by its sims. */
void latmc_ctx_ref(latmc_ctx *ctx);
void latmc_ctx_unref(latmc_ctx *ctx);

#endif
