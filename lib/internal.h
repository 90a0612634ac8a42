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

/*
 * The largest struct_size any public struct_size struct may declare (doc/ABI.md). The
 * library reads up to struct_size bytes of a caller's struct (to check that fields it does
 * not know are zero), so a caller that lies about the size could make it read past the
 * struct; the cap bounds that read, as Linux caps its extensible structs (openat2,
 * sched_setattr) at a page. Real structs stay far below it.
 */
#define LATMC_STRUCT_SIZE_MAX 4096u

/* Highest parameter key; params are stored in an array indexed by key. */
#define LATMC_PARAM_MAX LATMC_PARAM_DECISIONS

struct latmc_ctx {
    atomic_int refs;          /* the user's reference plus one per live sim */
    pthread_mutex_t lock;     /* guards the log settings */
    latmc_log_fn log_fn;
    void *log_user;
    int log_min;
};

struct latmc_backend_ops;

struct latmc_model_def;

struct latmc_plan;

struct latmc_part;

struct latmc_cluster_work;
struct latmc_embed_work;

struct latmc_halo_table;

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
    struct latmc_plan *plan;           /* boxes and schedule (lib/plan.h) */
    struct latmc_part *part;           /* NULL, or the sim is one part of a lattice shared
                                          by processes (lib/part.h) */
    /* A part of a lattice shared by processes (n_parts > 1): the halo exchange the plan's
     * loop runs after every step (lib/plan.h), and the box of the plan that this sim runs;
     * NULL and 0 otherwise. Set by lib/part.c. */
    const struct latmc_halo_table *halo;
    int halo_box;
    int *device_list;                  /* the sim's copy of desc.device_list, or NULL */
    struct latmc_cluster_work *cluster; /* cluster updates' work space (lib/cluster_sweep.c),
                                          NULL until the first cluster sweep */
    struct latmc_embed_work *embed;    /* phi^4 and Heisenberg cluster steps' work space
                                          (lib/cluster_embed_sweep.c), NULL until the first */
    /* The Fourier modes at k_min (lib/modes.h), a second reduction made on request: valid
     * only while sums_valid is too (whoever sets sums_valid clears modes_valid). */
    bool modes_valid;
    double *modes;                     /* latmc_modes_doubles doubles, or NULL */
    /* The modes were asked for: from then on, where the backend can, every measurement
     * makes them in the same pass as the sums (latmc_modes_measure_with_sums). */
    bool modes_wanted;
    double *mode_phases;               /* their phase tables (latmc_modes_sim_phases) */
    void *mode_partial;                /* the whole lattice's partial result of the modes,
                                          kept between measurements (lib/modes.c) */
};

/*
 * Record the thread's last error on the sim as well, log it, and return status. Only for
 * calls that may modify the sim (the sim's message is the sim's state): calls documented
 * "thread-safe as a const call" use SIM_FAIL_CONST, which leaves the sim's message alone
 * (two threads failing on one sim would race on it) and records the failure in the calling
 * thread's latmc_last_error() only. A status outside the documented list (a module's bug)
 * is recorded as LATMC_EBACKEND.
 */
int latmc_sim_record_failure(const latmc_sim *sim, int status);
int latmc_sim_log_failure(const latmc_sim *sim, int status);
#define SIM_FAIL(sim, status, ...) latmc_sim_record_failure((sim), latmc_fail((status), __VA_ARGS__))
#define SIM_FAIL_CONST(sim, status, ...) \
    latmc_sim_log_failure((sim), latmc_fail((status), __VA_ARGS__))

/*
 * The status a backend call returned, as the public API may pass it on: LATMC_OK, or one
 * of the codes a backend may report (EINVAL, EUNSUPPORTED, EBACKEND, ENODEV, EDEVICE,
 * ENOMEM). Anything else (a positive value, an unknown or unfitting code: a module's bug)
 * becomes LATMC_EBACKEND with a message naming it; a failure that left no message gets one.
 * `fails_before` is latmc_fail_count() read before the call.
 */
int latmc_backend_result(const char *backend, const char *what, int status,
                         unsigned long fails_before);

/* Logging through the ctx (silent unless the user installed a callback). */
void latmc_log(latmc_ctx *ctx, int level, const char *fmt, ...) LATMC_PRINTF(3, 4);

/* Reference counting of the ctx by its sims. */
void latmc_ctx_ref(latmc_ctx *ctx);
void latmc_ctx_unref(latmc_ctx *ctx);

#endif
