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

/*
 * Integer acceptance decisions for Ising, computed once per parameter change by the core
 * and used unchanged by every backend, so all backends take the same decisions: a uniform
 * 32-bit draw u accepts iff u < threshold, threshold = floor(p * 2^32) in [0, 2^32].
 * Index k = (n + 2 ndim) / 2 where n = sum of the 2 ndim neighbour spins.
 */
#define LATMC_ISING_MAX_K 7   /* 2 * ndim + 1 entries for ndim <= 3 */
struct latmc_ising_tables {
    uint64_t metropolis[2][LATMC_ISING_MAX_K]; /* [s == +1][k]: accept the flip of s */
    uint64_t heatbath[LATMC_ISING_MAX_K];      /* [k]: new spin is +1 */
};

/* Exact integer sums behind the Ising observables: one reduction gives all of them. */
struct latmc_ising_sums {
    int64_t bonds;   /* sum_x sum_mu s_x s_{x+mu} */
    int64_t spins;   /* sum_x s_x */
};

struct latmc_backend_ops;

struct latmc_sim {
    latmc_ctx *ctx;
    latmc_sim_desc desc;               /* validated; algorithm resolved from DEFAULT */
    int64_t nsites;                    /* product of the extents */
    int n_threads;                     /* resolved thread count (>= 1) */
    double param[LATMC_PARAM_MAX + 1];
    struct latmc_ising_tables ising;
    const struct latmc_backend_ops *ops;
    void *backend;                     /* backend-private state */
    bool have_config;                  /* init_spins or set_spins done */
    uint64_t sweeps;                   /* sweeps done: the next sweep has this number */
    uint64_t accepted, attempted;      /* since the last reset */
    bool sums_valid;                   /* cached reduction of the current configuration */
    struct latmc_ising_sums sums;
    char errmsg[LATMC_ERRMSG_SIZE];
};

/* Logging through the ctx (silent unless the user installed a callback). */
void latmc_log(latmc_ctx *ctx, int level, const char *fmt, ...) LATMC_PRINTF(3, 4);

/* Reference counting of the ctx by its sims. */
void latmc_ctx_ref(latmc_ctx *ctx);
void latmc_ctx_unref(latmc_ctx *ctx);

#endif
