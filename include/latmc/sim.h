/*
 * liblatmc — a simulation: one lattice, one model, its state, on one device set.
 *
 * Thread safety: one sim must not be used by two threads at once; different sims may
 * be used concurrently from different threads, also when they share a ctx.
 * Every function returns LATMC_OK (0) or a negative LATMC_E* code; on failure the sim
 * is unchanged and latmc_sim_last_error() says why. Failures also reach the ctx's log:
 * refused requests (EINVAL, EUNSUPPORTED, ESTATE, ...) at LATMC_LOG_DEBUG, failures of
 * memory, device or files (ENOMEM, EDEVICE, EIO, ECORRUPT) at LATMC_LOG_ERROR.
 */
#ifndef LATMC_SIM_H
#define LATMC_SIM_H

#include <latmc/defs.h>
#include <latmc/ctx.h>

LATMC_BEGIN_DECLS

typedef struct latmc_sim latmc_sim;

enum latmc_model {
    LATMC_MODEL_NONE       = 0, /* not set: latmc_sim_create() rejects it */
    LATMC_MODEL_ISING      = 1,
    LATMC_MODEL_POTTS      = 2,
    LATMC_MODEL_PHI4       = 3,
    LATMC_MODEL_HEISENBERG = 4
};

enum latmc_algorithm {
    LATMC_ALGO_DEFAULT    = 0, /* the model's default: Ising -> Metropolis */
    LATMC_ALGO_METROPOLIS = 1,
    LATMC_ALGO_HEATBATH   = 2,
    LATMC_ALGO_OVERRELAX  = 3
};

enum latmc_precision {
    LATMC_PRECISION_FLOAT  = 0,
    LATMC_PRECISION_DOUBLE = 1
};

enum latmc_couplings {
    LATMC_COUPLINGS_UNIFORM  = 0,
    LATMC_COUPLINGS_GAUSSIAN = 1,
    LATMC_COUPLINGS_BIMODAL  = 2
};

enum latmc_init {
    LATMC_INIT_COLD = 0, /* ordered: Ising +1, Potts state 0, phi^4 0, Heisenberg e_z */
    LATMC_INIT_HOT  = 1  /* independent random spins drawn from the seed */
};

/** Parameter keys; latmc_param_name() / latmc_param_by_name() map them to names. */
enum latmc_param {
    LATMC_PARAM_BETA    = 1,  /* "beta": inverse temperature, >= 0 */
    LATMC_PARAM_J       = 2,  /* "J": coupling */
    LATMC_PARAM_H       = 3,  /* "h": external field */
    LATMC_PARAM_MU2     = 4,  /* "mu2" (phi^4) */
    LATMC_PARAM_G       = 5,  /* "g" (phi^4) */
    LATMC_PARAM_LAMBDA  = 6,  /* "lambda" (phi^4; +inf switches the 1/Lambda term off) */
    LATMC_PARAM_EPSILON = 7,  /* "epsilon" (phi^4 proposal half-width) */
    LATMC_PARAM_NHIT    = 8,  /* "nhit" (phi^4 hits per site per pass) */
    LATMC_PARAM_NLOC    = 9,  /* "nloc" (phi^4 passes per sweep) */
    LATMC_PARAM_NOVER   = 10  /* "nover" (Heisenberg overrelaxation passes per sweep) */
};

/** Observable keys: values per site, accumulated in double. */
enum latmc_observable {
    LATMC_OBS_ENERGY          = 1, /* H/N */
    LATMC_OBS_MAGNETIZATION   = 2, /* signed M/N (scalar models) */
    LATMC_OBS_ABS_MAGNETIZATION = 3, /* |M|/N */
    LATMC_OBS_M2              = 4, /* m^2, m = M/N of this configuration */
    LATMC_OBS_M4              = 5, /* m^4 */
    LATMC_OBS_PHI2            = 6, /* phi^4: sum phi^2 / N */
    LATMC_OBS_ACCEPTANCE      = 7, /* accepted / attempted since the last reset */
    LATMC_OBS_OVERLAP2        = 8  /* Heisenberg, two replicas: sum_{mu,nu} q_{mu nu}^2 */
};

/**
 * Describes a simulation to create. Always start from latmc_sim_desc_init(), then set
 * fields: the struct may grow at its end in later versions (struct_size tells which
 * version the caller was compiled against).
 */
typedef struct latmc_sim_desc {
    uint32_t struct_size;   /* set by latmc_sim_desc_init(); the struct may only grow */
    int      model;         /* enum latmc_model */
    int      ndim;          /* 2 or 3 */
    int64_t  extent[4];     /* L_x, L_y[, L_z]; unused entries 0 or 1 */
    int      q;             /* Potts states */
    int      algorithm;     /* enum latmc_algorithm */
    int      precision;     /* phi^4: enum latmc_precision */
    int      couplings;     /* Heisenberg: enum latmc_couplings */
    uint64_t coupling_seed; /* disorder realisation, independent of the MC seed */
    int      replicas;      /* 1, or 2 for the overlap */
    int      device;        /* enum latmc_device */
    int      device_index;  /* first device */
    int      n_threads;     /* CPU threads, 0 = runtime default */
    uint64_t seed;          /* Monte Carlo seed */
} latmc_sim_desc;

/**
 * Fill *d with defaults and set struct_size: model NONE (must be set), ndim 2,
 * extents 0 (must be set), q 2, algorithm DEFAULT, precision DOUBLE, couplings UNIFORM,
 * coupling_seed 0, replicas 1, device AUTO, device_index 0, n_threads 0, seed 0.
 * Accepts NULL (does nothing). Thread-safe. Since 0.1.
 */
LATMC_API void latmc_sim_desc_init(latmc_sim_desc *d);

/**
 * Create a sim on ctx. The sim starts with no configuration: call latmc_sim_init_spins()
 * or latmc_sim_set_spins() before sweeping or measuring (LATMC_ESTATE otherwise).
 * Parameters start at their defaults (beta 0, J 1, h 0). The ctx may be destroyed
 * before the sim (the sim keeps it alive).
 * Errors: LATMC_EINVAL (NULL, bad field: the message names it), LATMC_EUNSUPPORTED
 * (model, dimension, algorithm or option not available), LATMC_EBACKEND,
 * LATMC_ENODEV, LATMC_ENOMEM. On failure *out is set to NULL and nothing is leaked.
 * Thread-safe (ctx-level). Since 0.1.
 */
LATMC_API int latmc_sim_create(latmc_ctx *ctx, const latmc_sim_desc *desc, latmc_sim **out);

/** Destroy a sim and set *sim = NULL. Accepts NULL and *sim == NULL. Since 0.1. */
LATMC_API void latmc_sim_destroy(latmc_sim **sim);

/**
 * Copy the sim's desc into *out: validated, with defaults resolved (algorithm DEFAULT
 * replaced by the model's default, n_threads 0 by the thread count in use). Since 0.1.
 */
LATMC_API int latmc_sim_get_desc(const latmc_sim *sim, latmc_sim_desc *out);

/** Name of the backend the sim runs on ("cpu", ...); never NULL. Since 0.1. */
LATMC_API const char *latmc_sim_backend_name(const latmc_sim *sim);

/**
 * Set a model parameter (enum latmc_param). Values must be finite (lambda may be +inf);
 * beta >= 0. Errors: LATMC_EINVAL (unknown key, NaN, inf, out of range),
 * LATMC_EUNSUPPORTED (the parameter does not belong to the sim's model).
 * Since 0.1.
 */
LATMC_API int latmc_sim_set_param(latmc_sim *sim, int key, double value);

/** Read a model parameter. Errors as latmc_sim_set_param(). Since 0.1. */
LATMC_API int latmc_sim_get_param(const latmc_sim *sim, int key, double *value);

/**
 * Map a parameter name ("beta", "J", "h", "mu2", "g", "lambda", "epsilon", "nhit",
 * "nloc", "nover"; case-sensitive) to its key. Errors: LATMC_EINVAL. Thread-safe. Since 0.1.
 */
LATMC_API int latmc_param_by_name(const char *name, int *key);

/** Name of a parameter key, or NULL for an unknown key. Thread-safe. Since 0.1. */
LATMC_API const char *latmc_param_name(int key);

/** Name of an observable key ("energy", ...), or NULL for an unknown key. Since 0.1. */
LATMC_API const char *latmc_observable_name(int key);

/**
 * Set the configuration: LATMC_INIT_COLD (ordered, see enum latmc_init) or
 * LATMC_INIT_HOT (random, drawn from desc.seed: the same seed always gives the same hot
 * configuration; both replicas get their own).
 * Resets the acceptance counters. Since 0.1.
 */
LATMC_API int latmc_sim_init_spins(latmc_sim *sim, int how);

/**
 * Perform n sweeps (n = 0 is a no-op). One sweep offers every site one update (phi^4:
 * nloc passes of nhit hits; Heisenberg: a heat-bath pass plus nover overrelaxation
 * passes), colour by colour (doc/conventions.md and doc/models/). The result depends only on the seed, the sweep number and
 * the configuration, never on threads or backend (see doc/conventions.md).
 * Errors: LATMC_ESTATE (no configuration yet). Since 0.1.
 */
LATMC_API int latmc_sim_sweep(latmc_sim *sim, uint64_t n);

/** Number of sweeps performed since creation. Since 0.1. */
LATMC_API int latmc_sim_sweep_count(const latmc_sim *sim, uint64_t *count);

/**
 * Measure an observable (enum latmc_observable) of the current configuration.
 * A measurement is one reduction over the lattice, cached until the state changes.
 * Errors: LATMC_EINVAL (unknown key or NULL), LATMC_EUNSUPPORTED (not defined for
 * this model; OVERLAP2 with one replica), LATMC_ESTATE (no configuration yet;
 * ACCEPTANCE: nothing attempted since the last reset). Since 0.1.
 */
LATMC_API int latmc_sim_observable(latmc_sim *sim, int key, double *value);

/**
 * The counters behind LATMC_OBS_ACCEPTANCE: updates accepted and attempted since the
 * last reset (exact integers, for pooling acceptance over runs of any length). Since 0.1.
 */
LATMC_API int latmc_sim_acceptance_counts(const latmc_sim *sim, uint64_t *accepted,
                                          uint64_t *attempted);

/** Zero the acceptance counters. Since 0.1. */
LATMC_API int latmc_sim_reset_acceptance(latmc_sim *sim);

/**
 * Bytes of the host spin buffer: sites x replicas x bytes per site (Ising int8 +-1, Potts
 * uint8 0..q-1, phi^4 float or double per desc.precision, Heisenberg 3 floats x,y,z).
 * Since 0.1.
 */
LATMC_API int latmc_sim_spins_size(const latmc_sim *sim, size_t *bytes);

/**
 * Copy the configuration to buf in site order i = x + L_x*(y + L_y*z), layout as in
 * latmc_sim_spins_size() (two replicas: replica 0 first). bytes must equal
 * latmc_sim_spins_size() exactly. Errors: LATMC_EINVAL, LATMC_ESTATE. Since 0.1.
 */
LATMC_API int latmc_sim_get_spins(latmc_sim *sim, void *buf, size_t bytes);

/**
 * Set the configuration from buf (layout as latmc_sim_get_spins()). Every value is
 * checked first; on LATMC_EINVAL nothing changes. Resets the acceptance counters.
 * Since 0.1.
 */
LATMC_API int latmc_sim_set_spins(latmc_sim *sim, const void *buf, size_t bytes);

/**
 * Number of couplings of a model that has them (Heisenberg): one per site and positive
 * direction, sites x ndim floats, coupling between site i and its neighbour in direction
 * mu (0 = x, 1 = y, 2 = z) at index ndim * i + mu. Errors: LATMC_EUNSUPPORTED for models
 * without couplings. Since 0.1.
 */
LATMC_API int latmc_sim_couplings_size(const latmc_sim *sim, size_t *count);

/** Copy the couplings out (count must equal latmc_sim_couplings_size()). Since 0.1. */
LATMC_API int latmc_sim_get_couplings(latmc_sim *sim, float *buf, size_t count);

/**
 * Replace the couplings (count must equal latmc_sim_couplings_size(); every value finite,
 * else LATMC_EINVAL and nothing changes). Replicas share them. Since 0.1.
 */
LATMC_API int latmc_sim_set_couplings(latmc_sim *sim, const float *buf, size_t count);

/**
 * Models with a proposal width (phi^4 "epsilon"): run `sweeps` sweeps in blocks that end
 * at multiples of 10 of the sweep number, after each block scaling epsilon by
 * acceptance / target (the factor clamped to [1/2, 2]), so that the acceptance approaches
 * `target` (0 < target < 1). Because blocks follow the sweep number, tuning split over
 * several calls gives the same chain as one call. Meant for thermalization: the sweeps
 * count as ordinary sweeps. Errors: LATMC_EUNSUPPORTED
 * (no epsilon), LATMC_EINVAL, LATMC_ESTATE. Since 0.1.
 */
LATMC_API int latmc_sim_tune_epsilon(latmc_sim *sim, double target, uint64_t sweeps);

/**
 * Write a checkpoint of the whole state (desc, parameters, sweep number, acceptance
 * counters, configuration, couplings) to `path`: self-describing, versioned and
 * checksummed (doc/checkpoints.md). Written to path.tmp, flushed to disk and renamed, so
 * a crash never leaves a partial file where a good one was. A sim loaded from it
 * continues bit-identically. Errors: LATMC_EINVAL, LATMC_EIO, LATMC_ENOMEM. Since 0.1.
 */
LATMC_API int latmc_sim_save(latmc_sim *sim, const char *path);

/**
 * Create a sim from a checkpoint written by latmc_sim_save(). Truncated, damaged,
 * wrong-version, other-byte-order or inconsistent files give LATMC_ECORRUPT; a missing
 * or unreadable file LATMC_EIO. On failure *out is NULL and nothing is allocated.
 * Thread-safe (ctx-level). Since 0.1.
 */
LATMC_API int latmc_sim_load(latmc_ctx *ctx, const char *path, latmc_sim **out);

/**
 * The checkpoint as bytes, for host codes that store state their own way. With buf NULL
 * only *size is set; otherwise capacity must be >= the size (LATMC_EINVAL, *size set).
 * Since 0.1.
 */
LATMC_API int latmc_sim_serialize(latmc_sim *sim, void *buf, size_t capacity, size_t *size);

/** Create a sim from latmc_sim_serialize() bytes; errors as latmc_sim_load(). Since 0.1. */
LATMC_API int latmc_sim_deserialize(latmc_ctx *ctx, const void *buf, size_t size,
                                    latmc_sim **out);

/**
 * Detail of the sim's last failure ("" if none). Never NULL, also for sim == NULL.
 * Valid until the next call on the sim. Since 0.1.
 */
LATMC_API const char *latmc_sim_last_error(const latmc_sim *sim);

LATMC_END_DECLS

#endif /* LATMC_SIM_H */
