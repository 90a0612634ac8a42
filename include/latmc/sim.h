/**
 * @file latmc/sim.h
 * @brief liblatmc — a simulation: one lattice, one model, its state, on one device set.
 *
 * Thread safety: one sim must not be used by two threads at once; different sims may
 * be used concurrently from different threads, also when they share a ctx. Calls marked
 * "thread-safe as a const call" may run concurrently with each other on one sim (not with
 * a call that modifies it); when they fail they record the message only as the calling
 * thread's latmc_last_error(), never in the sim (doc/robustness.md).
 * Every function returns LATMC_OK (0) or a negative LATMC_E* code; on failure the sim
 * is unchanged and latmc_sim_last_error() says why (for const calls: latmc_last_error()). Failures on a sim also reach the
 * ctx's log: refused requests (EINVAL, EUNSUPPORTED, ESTATE, ...) at LATMC_LOG_DEBUG,
 * failures of memory, device or files (ENOMEM, EDEVICE, EIO, ECORRUPT) at LATMC_LOG_ERROR
 * (latmc_sim_load logs every failure at LATMC_LOG_ERROR; calls without a sim or ctx are
 * not logged).
 * Exceptions: a call with sim == NULL fails with LATMC_EINVAL and only latmc_last_error()
 * has the message; a sweep that fails in the backend (LATMC_EDEVICE, ...) may leave the
 * configuration partly updated (the sweep count is not advanced); a failing
 * latmc_sim_tune_epsilon() keeps the blocks it completed. Every failure is also recorded
 * as the calling thread's latmc_last_error().
 *
 * @since 0.1
 */
#ifndef LATMC_SIM_H
#define LATMC_SIM_H

#include <latmc/defs.h>
#include <latmc/ctx.h>

LATMC_BEGIN_DECLS

/**
 * Opaque simulation. Created by latmc_sim_create(), latmc_sim_load() or
 * latmc_sim_deserialize(), owned by the caller, freed by latmc_sim_destroy(). It holds a
 * reference to its ctx.
 * @since 0.1
 */
typedef struct latmc_sim latmc_sim;

/** Models (latmc_sim_desc::model). See doc/models/ and doc/conventions.md. @since 0.1 */
enum latmc_model {
    LATMC_MODEL_NONE       = 0, /**< not set: latmc_sim_create() rejects it */
    LATMC_MODEL_ISING      = 1, /**< Ising, spins +-1 */
    LATMC_MODEL_POTTS      = 2, /**< q-state Potts (desc.q) */
    LATMC_MODEL_PHI4       = 3, /**< lattice phi^4 scalar field */
    LATMC_MODEL_HEISENBERG = 4  /**< Heisenberg, 3-component unit spins */
};

/** Update algorithms (latmc_sim_desc::algorithm). @since 0.1 */
enum latmc_algorithm {
    LATMC_ALGO_DEFAULT    = 0, /**< the model's default: Ising -> Metropolis */
    LATMC_ALGO_METROPOLIS = 1, /**< Ising, Potts, phi^4 (default of all three) */
    LATMC_ALGO_HEATBATH   = 2, /**< Ising, Potts, Heisenberg (Heisenberg's default) */
    LATMC_ALGO_OVERRELAX  = 3, /**< Heisenberg */
    /** Swendsen-Wang cluster update: Ising (uniform or +-J couplings, any field) and Potts
     * (J >= 0); phi^4 and Heisenberg: their local sweep (Metropolis; heat bath +
     * overrelaxation) plus one embedded cluster step; on the CPU and CUDA backends
     * (doc/clusters.md). @since 0.2 */
    LATMC_ALGO_SWENDSEN_WANG = 4,
    /** Wolff single-cluster update, one cluster per sweep; models and backends as
     * Swendsen-Wang (doc/clusters.md). @since 0.2 */
    LATMC_ALGO_WOLFF      = 5
};

/** Floating-point precision of the phi^4 field (latmc_sim_desc::precision). @since 0.1 */
enum latmc_precision {
    LATMC_PRECISION_FLOAT  = 0, /**< float per site */
    LATMC_PRECISION_DOUBLE = 1  /**< double per site (the default) */
};

/**
 * Couplings drawn from latmc_sim_desc::coupling_seed (latmc_sim_desc::couplings):
 * Heisenberg takes all three; Ising UNIFORM or BIMODAL (the +-J model); other models
 * UNIFORM only (anything else: LATMC_EINVAL). @since 0.1
 */
enum latmc_couplings {
    LATMC_COUPLINGS_UNIFORM  = 0, /**< all equal (the default) */
    LATMC_COUPLINGS_GAUSSIAN = 1, /**< Gaussian random couplings */
    LATMC_COUPLINGS_BIMODAL  = 2  /**< random +-1 couplings */
};

/** Initial configurations (latmc_sim_init_spins()). @since 0.1 */
enum latmc_init {
    LATMC_INIT_COLD = 0, /**< ordered: Ising +1, Potts state 0, phi^4 0, Heisenberg e_z */
    LATMC_INIT_HOT  = 1  /**< independent random spins drawn from the seed */
};

/**
 * Parameter keys; latmc_param_name() / latmc_param_by_name() map them to names.
 * Each key has one valid range, a closed interval [lo, hi] the same for every model that
 * has the key (latmc_param_bounds() returns it); integer parameters take whole numbers only.
 * Real values are bounded by |value| <= 1e100, positive scales below by 1e-100; NaN is
 * never valid, +inf only for lambda. phi^4 also needs g > 0, or g = 0 with mu2 > 0 (else
 * exp(-H) is not normalisable): that rule ties two parameters, so latmc_sim_sweep()
 * checks it (LATMC_ESTATE), not latmc_sim_set_param().
 * @since 0.1
 */
enum latmc_param {
    LATMC_PARAM_BETA    = 1,  /**< "beta": inverse temperature, [0, 1e100] (not phi^4; default 0) */
    LATMC_PARAM_J       = 2,  /**< "J": coupling, [-1e100, 1e100] (Ising, Potts; default 1) */
    LATMC_PARAM_H       = 3,  /**< "h": external field, [-1e100, 1e100] (not phi^4; default 0) */
    LATMC_PARAM_MU2     = 4,  /**< "mu2", [-1e100, 1e100] (phi^4; default 0) */
    LATMC_PARAM_G       = 5,  /**< "g", [0, 1e100] (phi^4; default 0) */
    LATMC_PARAM_LAMBDA  = 6,  /**< "lambda", [1e-100, +inf] (phi^4; default +inf: 1/Lambda term off) */
    LATMC_PARAM_EPSILON = 7,  /**< "epsilon" (phi^4 proposal half-width; [1e-100, 1e100], default 0.5) */
    LATMC_PARAM_NHIT    = 8,  /**< "nhit" (phi^4 hits per site per pass; integer, [1, 65535]) */
    LATMC_PARAM_NLOC    = 9,  /**< "nloc" (phi^4 passes per sweep; integer, [1, 65535]) */
    LATMC_PARAM_NOVER   = 10, /**< "nover" (Heisenberg overrelaxation passes; integer, [0, 65535]) */
    /** "decisions" (Ising; integer, [0, 1], default 0): 0 takes each site's decision from
     * one 32-bit draw, 1 from bit-sliced draws, 32 sites per word and bit plane, each
     * decision exactly as probable (doc/models/ising-decisions.md; Metropolis and heat
     * bath on the CPU backend and, with uniform couplings, on CUDA's boxes of one
     * process, "Where it runs"; elsewhere LATMC_EUNSUPPORTED; checkpoints record it in
     * format version 3, doc/checkpoints.md). @since 0.2 */
    LATMC_PARAM_DECISIONS = 11
};

/** Observable keys: values per site, accumulated in double. @since 0.1 */
enum latmc_observable {
    LATMC_OBS_ENERGY          = 1, /**< H/N */
    LATMC_OBS_MAGNETIZATION   = 2, /**< signed M/N; Potts, Heisenberg: same as ABS */
    LATMC_OBS_ABS_MAGNETIZATION = 3, /**< |M|/N */
    LATMC_OBS_M2              = 4, /**< m^2, m = M/N of this configuration */
    LATMC_OBS_M4              = 5, /**< m^4 */
    LATMC_OBS_PHI2            = 6, /**< phi^4: sum phi^2 / N */
    LATMC_OBS_ACCEPTANCE      = 7, /**< accepted / attempted since the last reset */
    LATMC_OBS_OVERLAP2        = 8, /**< Heisenberg, two replicas: sum_{mu,nu} q_{mu nu}^2 */
    /** Cluster algorithms (doc/clusters.md), of the last cluster sweep: the clusters it
     * built (Swendsen-Wang; Wolff: 1). LATMC_ESTATE before the sim's first cluster sweep,
     * LATMC_EUNSUPPORTED for other algorithms. @since 0.2 */
    LATMC_OBS_CLUSTERS        = 9,
    /** Cluster algorithms, of the last cluster sweep: its largest cluster's sites / N
     * (Wolff: its one cluster's). @since 0.2 */
    LATMC_OBS_LARGEST_CLUSTER = 10,
    /** Cluster algorithms, of the last cluster sweep: the improved estimator of m^2,
     * sum over its clusters of |C|^2 / N^2 (Swendsen-Wang) or |C| / N (Wolff). For the
     * Ising model at h = 0 its mean is <m^2> (LATMC_OBS_M2's), with a smaller variance;
     * for Potts the Fortuin-Kasteleyn connectedness; phi^4 and Heisenberg: |C| weighted
     * by the embedded values (doc/clusters.md). @since 0.2 */
    LATMC_OBS_CLUSTER_M2      = 11,
    /**
     * |m(0)|^2 with m(k) = (1/N) sum_x s_x e^{i k.x}, the order parameter of the Fourier
     * observables: Ising s_x = +-1, phi^4 the field, Heisenberg replica 0's vector spins
     * (these three: the same value as M2), Potts the simplex vector of s_x
     * (e_a . e_b = (q delta_ab - 1) / (q - 1); 0 for equal populations, 1 when ordered,
     * unlike M2, which is built from the largest population). chi = N <|m(0)|^2>.
     * @since 0.2
     */
    LATMC_OBS_M2_K0           = 12,
    /**
     * |m(k_min)|^2, k_min = (2 pi / L) e_mu, averaged over the ndim directions mu, with
     * m(k) as for M2_K0; a lattice of equal extents only (else LATMC_EUNSUPPORTED).
     * F = N <|m(k_min)|^2>; the second-moment correlation length is
     * xi = sqrt(chi / F - 1) / (2 sin(pi / L)) (latmc_acc_corr_length(),
     * doc/observables.md). Summed exactly, so the same bits for every decomposition:
     * phi^4's field values are taken as round(phi 2^20) 2^-20 and Heisenberg's spin
     * components as round(v 2^25) 2^-25; a phi^4 field too large for that fixed point
     * to stay exact (2^20 sqrt(N sum phi^2) > 2^61 or 2^20 sqrt(sum phi^2) > 2^50) is
     * LATMC_EUNSUPPORTED, with the reason. @since 0.2
     */
    LATMC_OBS_M2_KMIN         = 13,
    /**
     * Heisenberg, two replicas: sum_{mu,nu} |q_{mu nu}(k_min)|^2, the tensor overlap
     * q_{mu nu}(k) = (1/N) sum_x s^0_{x,mu} s^1_{x,nu} e^{i k.x} at k_min, averaged over the
     * directions as M2_KMIN (equal extents only); with OVERLAP2 the spin-glass correlation
     * length. @since 0.2
     */
    LATMC_OBS_OVERLAP2_KMIN   = 14
};

/**
 * Describes a simulation to create. Always start from latmc_sim_desc_init(), then set
 * fields: the struct may grow at its end in later versions (struct_size tells which
 * version the caller was compiled against). Caller-allocated; latmc_sim_create() copies it.
 * @since 0.1
 */
typedef struct latmc_sim_desc {
    uint32_t struct_size;   /**< set by latmc_sim_desc_init(); the struct may only grow */
    int      model;         /**< enum latmc_model */
    int      ndim;          /**< 2 or 3 */
    int64_t  extent[4];     /**< L_x, L_y[, L_z], each >= 2; unused entries 0 or 1 */
    int      q;             /**< Potts states, 2..255 */
    int      algorithm;     /**< enum latmc_algorithm */
    int      precision;     /**< phi^4: enum latmc_precision */
    int      couplings;     /**< Heisenberg, Ising (UNIFORM, BIMODAL): enum latmc_couplings */
    uint64_t coupling_seed; /**< disorder realisation, independent of the MC seed */
    int      replicas;      /**< 1, or 2 for the overlap (Heisenberg) */
    int      device;        /**< enum latmc_device */
    int      device_index;  /**< first device (CPU: 0 only) */
    int      n_threads;     /**< CPU threads, 0 = runtime default; at most 4096, and no more
                                 than the system lets start at once (checked at create) */
    uint64_t seed;          /**< Monte Carlo seed */
    /**
     * Run the sim as this many boxes: slabs along the last axis (y in 2D, z in 3D), 0 =
     * automatic (1 box for now). The chain, every observable and the acceptance are
     * bit-identical for any value (doc/architecture.md). Rules (LATMC_EINVAL otherwise):
     * >= 0; each slab at least the model's halo width thick, and a whole number of the
     * colouring's planes (so a slab's own colouring is the global one): an even number
     * for checkerboard models (at most L_last / 2 parts), a multiple of 3 for Potts
     * lattices of 3 colours (at most L_last / 3), of the colouring's period for phi^4
     * (doc/models/phi4.md). All four models run more than one box on the CPU and on
     * CUDA (there each box has its own memory, all on device_index; doc/cuda.md; phi^4 on
     * its chunk schedule needs a whole number of chunk layers per box,
     * LATMC_EUNSUPPORTED otherwise).
     * A caller built against a header without this field passes a smaller struct_size:
     * then n_parts = 0. Not stored in checkpoints (a loaded sim runs as 1 box;
     * latmc_sim_set_parts() cuts it again).
     * @since 0.2
     */
    int      n_parts;
    /**
     * Run the sim on this many devices of desc.device's kind, one slab along the last axis
     * per device (the cut of n_parts: each slab at least the model's halo thick, a whole
     * number of its plane units, LATMC_EINVAL otherwise), halos exchanged between the
     * devices. 0 or 1 = one device (desc.device_index), as before. The chain, every
     * observable and the acceptance are bit-identical for any value (doc/cuda.md,
     * "Several GPUs"). n_parts must then be 0 or equal to n_devices. CUDA only: the CPU
     * backend is one device (LATMC_EUNSUPPORTED; use n_parts there). More devices than
     * exist: LATMC_ENODEV. Not stored in checkpoints (a loaded sim runs on one device;
     * latmc_sim_load_on() places it on several).
     * A caller built against a header without this field passes a smaller struct_size:
     * then n_devices = 0 and device_list = NULL.
     * @since 0.2
     */
    int      n_devices;
    /**
     * Optional, with n_devices > 1: the n_devices device indices in slab order (slab 0 on
     * device_list[0], ...). NULL = device_index, device_index + 1, ... A device may appear
     * more than once (several slabs on one GPU: the same chain, for tests and for
     * uneven machines). Read by latmc_sim_create, which keeps its own copy
     * (latmc_sim_get_desc points to that copy, valid while the sim lives).
     * @since 0.2
     */
    const int *device_list;
} latmc_sim_desc;

/**
 * Fill the first `size` bytes of *d with defaults and set struct_size = size: model NONE
 * (must be set), ndim 2, extents 0 (must be set), q 2, algorithm DEFAULT, precision
 * DOUBLE, couplings UNIFORM, coupling_seed 0, replicas 1, device AUTO, device_index 0,
 * n_threads 0, seed 0, n_parts 0, n_devices 0, device_list NULL. Writes nothing past
 * `size` bytes, so a caller's struct of any version is safe. Call it through the
 * latmc_sim_desc_init() macro, which passes the size of the desc the caller was compiled
 * with.
 * @param[out] d    the caller's desc (NULL: nothing is written, LATMC_EINVAL).
 * @param[in]  size the caller's sizeof(latmc_sim_desc): the size of this version's desc or
 *                  of an older one (0.1: up to seed; 0.2 before n_devices: up to n_parts),
 *                  or larger (a newer header: the bytes past this version's desc are
 *                  zeroed, i.e. left at their defaults). Any other size: LATMC_EINVAL, and
 *                  nothing is written.
 * @return LATMC_OK or LATMC_EINVAL.
 * @note Thread-safe.
 * @since 0.2
 */
LATMC_API int latmc_sim_desc_init_size(latmc_sim_desc *d, size_t size);

/**
 * The 0.1 function: fills the 0.1 desc only (the fields up to seed; struct_size = that
 * size), because a program built against the 0.1 header passes a struct that ends there.
 * Code compiled against this header gets the macro below instead, which fills the whole
 * desc. Accepts NULL (does nothing).
 * @param[out] d the caller's desc.
 * @note Thread-safe.
 * @since 0.1
 */
LATMC_API void latmc_sim_desc_init(latmc_sim_desc *d);

/**
 * Fill *d (a latmc_sim_desc *) with defaults for the desc of the header the caller is
 * compiled with: latmc_sim_desc_init_size(d, sizeof(latmc_sim_desc)). A pointer to the
 * function `latmc_sim_desc_init` (written `(latmc_sim_desc_init)`) gets the 0.1 function
 * above; bindings that call the library by symbol (ctypes, cffi) call
 * latmc_sim_desc_init_size with their struct's size.
 * @since 0.2
 */
#define latmc_sim_desc_init(d) ((void)latmc_sim_desc_init_size((d), sizeof(latmc_sim_desc)))

/**
 * Create a sim on ctx. The sim starts with no configuration: call latmc_sim_init_spins()
 * or latmc_sim_set_spins() before sweeping or measuring (LATMC_ESTATE otherwise).
 * Parameters start at their defaults (beta 0, J 1, h 0). The ctx may be destroyed
 * before the sim (the sim keeps it alive).
 * Extents the update colouring needs: Ising, Heisenberg even; Potts all even or all
 * divisible by 3; phi^4 divisible by 8 (2D also: both divisible by 5).
 * @param[in]  ctx  the context; the sim takes its own reference.
 * @param[in]  desc from latmc_sim_desc_init(); copied, need not outlive the call.
 * @param[out] out  receives the new sim, owned by the caller (latmc_sim_destroy()).
 * @return LATMC_OK; LATMC_EINVAL (NULL, bad field: the message names it; also ndim
 *         other than 2 or 3, struct_size smaller than this version's desc or larger
 *         than 4096, extents the colouring cannot use, q out of range);
 *         LATMC_EUNSUPPORTED (algorithm or replicas not available for
 *         the model, fields of a newer desc set, CUDA explicitly requested for a model
 *         without CUDA kernels); LATMC_EBACKEND (CUDA requested, module unusable);
 *         LATMC_ENODEV (device_index negative or beyond the devices; with device AUTO
 *         any index other than 0 that no CUDA device answers, since the CPU has only
 *         device 0); LATMC_ENOMEM (also: the system cannot start n_threads threads);
 *         LATMC_EDEVICE (device failure). On failure *out is set to NULL (when out is
 *         not NULL) and nothing is leaked.
 * @note Thread-safe (ctx-level).
 * @since 0.1
 */
LATMC_API int latmc_sim_create(latmc_ctx *ctx, const latmc_sim_desc *desc, latmc_sim **out);

/**
 * Destroy a sim and set *sim = NULL. Accepts NULL and *sim == NULL. Releases the sim's
 * reference to its ctx (freeing the ctx if it was the last).
 * @param[in,out] sim address of the caller's handle.
 * @note Not concurrently with any other call on the same sim.
 * @since 0.1
 */
LATMC_API void latmc_sim_destroy(latmc_sim **sim);

/**
 * Copy the sim's desc into *out: validated, with defaults resolved (algorithm DEFAULT
 * replaced by the model's default, n_threads 0 by the thread count in use; unused
 * extents 0).
 * @param[in]  sim the sim.
 * @param[out] out receives this version's latmc_sim_desc (struct_size = its size); if
 *             out->struct_size is the size of the 0.1 struct (before n_parts), only that
 *             prefix is written (callers built against the 0.1 header).
 * @return LATMC_OK; LATMC_EINVAL (sim or out NULL).
 * @note Thread-safe as a const call: not concurrently with a call modifying the sim.
 * @since 0.1
 */
LATMC_API int latmc_sim_get_desc(const latmc_sim *sim, latmc_sim_desc *out);

/**
 * Cut the sim's lattice into n_parts slabs along its last axis from the next sweep on,
 * with the rules of latmc_sim_desc.n_parts (0 or 1: one box); latmc_sim_get_desc then
 * reports it. The chain is bit-identical for every cut, so n_parts is a choice of how to
 * run, like n_threads, and checkpoints do not store it: a sim loaded from one runs as one
 * box, and this continues it on k.
 * @param[in] sim     the sim.
 * @param[in] n_parts the number of slabs.
 * @return LATMC_OK; LATMC_EINVAL (sim NULL, or a cut the lattice cannot take: the message
 *         names the rule); LATMC_EUNSUPPORTED (a part of a lattice shared by processes, a
 *         sim on several devices, or a backend whose boxes each own their memory, which is
 *         cut at creation: CUDA); LATMC_ENOMEM. On failure the sim is unchanged.
 * @note Not concurrently with any other call on the same sim.
 * @since 0.2
 */
LATMC_API int latmc_sim_set_parts(latmc_sim *sim, int n_parts);

/**
 * Name of the backend the sim runs on ("cpu", ...); never NULL ("none" for a NULL sim).
 * @param[in] sim the sim.
 * @return a static string owned by the library (do not free).
 * @note Thread-safe as a const call.
 * @since 0.1
 */
LATMC_API const char *latmc_sim_backend_name(const latmc_sim *sim);

/**
 * Set a model parameter (enum latmc_param). The value must lie in the key's range
 * (latmc_param_bounds(), listed in enum latmc_param); on failure the old value stays.
 * @param[in,out] sim   the sim.
 * @param[in]     key   enum latmc_param.
 * @param[in]     value the new value.
 * @return LATMC_OK; LATMC_EINVAL (sim NULL, unknown key, NaN, out of range, not a whole
 *         number for an integer key: the message names the range);
 *         LATMC_EUNSUPPORTED (the parameter does not belong to the sim's model).
 * @note Not concurrently with any other call on the same sim.
 * @since 0.1
 */
LATMC_API int latmc_sim_set_param(latmc_sim *sim, int key, double value);

/**
 * Read a model parameter.
 * @param[in]  sim   the sim.
 * @param[in]  key   enum latmc_param.
 * @param[out] value receives the value.
 * @return LATMC_OK; LATMC_EINVAL (sim or value NULL, unknown key); LATMC_EUNSUPPORTED
 *         (the parameter does not belong to the sim's model).
 * @note Thread-safe as a const call.
 * @since 0.1
 */
LATMC_API int latmc_sim_get_param(const latmc_sim *sim, int key, double *value);

/**
 * Map a parameter name ("beta", "J", "h", "mu2", "g", "lambda", "epsilon", "nhit",
 * "nloc", "nover"; case-sensitive) to its key.
 * @param[in]  name NUL-terminated name.
 * @param[out] key  receives the enum latmc_param key.
 * @return LATMC_OK; LATMC_EINVAL (name or key NULL, unknown name).
 * @note Thread-safe.
 * @since 0.1
 */
LATMC_API int latmc_param_by_name(const char *name, int *key);

/**
 * The valid range of a parameter of a model, as zstd's ZSTD_cParam_getBounds: every value
 * v with lo <= v <= hi is accepted by latmc_sim_set_param() (both ends closed; integer
 * keys nhit, nloc, nover take whole numbers only; lambda's hi is +inf, which is valid and
 * switches its term off). The ranges do not depend on the desc. phi^4's rule between g and
 * mu2 (enum latmc_param) is not a range and is checked by latmc_sim_sweep().
 * @param[in]  model enum latmc_model.
 * @param[in]  key   enum latmc_param.
 * @param[out] lo    receives the smallest valid value.
 * @param[out] hi    receives the largest valid value.
 * @return LATMC_OK; LATMC_EINVAL (lo or hi NULL, unknown model or key); LATMC_EUNSUPPORTED
 *         (the key does not belong to the model). On failure *lo and *hi are unchanged.
 * @note Thread-safe.
 * @since 0.2
 */
LATMC_API int latmc_param_bounds(int model, int key, double *lo, double *hi);

/**
 * Name of a parameter key, or NULL for an unknown key.
 * @param[in] key enum latmc_param.
 * @return a static string (do not free), or NULL.
 * @note Thread-safe.
 * @since 0.1
 */
LATMC_API const char *latmc_param_name(int key);

/**
 * Name of a model ("ising", "potts", "phi4", "heisenberg": lower-case letters and digits,
 * the spelling of the latmc program's --model and of the Python package), or NULL for a
 * number that is no model of this library (LATMC_MODEL_NONE included). Models are numbered 1, 2, ... without gaps, so
 * calling it for 1, 2, ... until NULL lists every model the library has: a program that
 * lists models this way offers a model added to a later library without a change.
 * @param[in] model enum latmc_model.
 * @return a static string (do not free), or NULL.
 * @note Thread-safe.
 * @since 0.3
 */
LATMC_API const char *latmc_model_name(int model);

/**
 * Map a model name (as latmc_model_name() spells it; case-sensitive) to its number.
 * @param[in]  name  NUL-terminated name.
 * @param[out] model receives the enum latmc_model value; unchanged on failure.
 * @return LATMC_OK; LATMC_EINVAL (name or model NULL; an unknown name, whose message
 *         latmc_last_error() lists the known ones).
 * @note Thread-safe.
 * @since 0.3
 */
LATMC_API int latmc_model_by_name(const char *name, int *model);

/**
 * Name of an observable key ("energy", "magnetization", "abs_magnetization", "m2", "m4",
 * "phi2", "acceptance", "overlap2", "clusters", "largest_cluster", "cluster_m2", "m2_k0",
 * "m2_kmin", "overlap2_kmin"), or NULL for an unknown key.
 * @param[in] key enum latmc_observable.
 * @return a static string (do not free), or NULL.
 * @note Thread-safe.
 * @since 0.1
 */
LATMC_API const char *latmc_observable_name(int key);

/**
 * Set the configuration: LATMC_INIT_COLD (ordered, see enum latmc_init) or
 * LATMC_INIT_HOT (random, drawn from desc.seed: the same seed always gives the same hot
 * configuration; both replicas get their own).
 * Resets the acceptance counters (not the sweep count).
 * @param[in,out] sim the sim.
 * @param[in]     how enum latmc_init.
 * @return LATMC_OK; LATMC_EINVAL (sim NULL, how not a LATMC_INIT_* value); or the
 *         backend's failure (e.g. LATMC_EDEVICE).
 * @note Not concurrently with any other call on the same sim.
 * @since 0.1
 */
LATMC_API int latmc_sim_init_spins(latmc_sim *sim, int how);

/**
 * Perform n sweeps (n = 0 is a no-op). One sweep offers every site one update (phi^4:
 * nloc passes of nhit hits; Heisenberg: a heat-bath pass plus nover overrelaxation
 * passes), colour by colour (doc/conventions.md and doc/models/). The result depends
 * only on the seed, the sweep number and the configuration, never on threads or backend
 * (see doc/conventions.md).
 * @param[in,out] sim the sim.
 * @param[in]     n   number of sweeps.
 * @return LATMC_OK; LATMC_EINVAL (sim NULL, or the sweep number would pass what the
 *         random-number counters can name: 2^48 / nloc sweeps); LATMC_ESTATE (no
 *         configuration yet, checked before n = 0; parameters whose weight is not
 *         normalisable: phi^4 with g = 0 and mu2 <= 0; acceptance counters holding more
 *         than 2^62 attempted updates, which latmc_sim_reset_acceptance() empties: a
 *         checkpoint takes up to 2^63); or the backend's failure (e.g.
 *         LATMC_EDEVICE; the sweeps are then not counted).
 * @note Not concurrently with any other call on the same sim.
 * @since 0.1
 */
LATMC_API int latmc_sim_sweep(latmc_sim *sim, uint64_t n);

/**
 * Number of sweeps performed since creation (a loaded sim continues the count of the
 * checkpoint).
 * @param[in]  sim   the sim.
 * @param[out] count receives the count.
 * @return LATMC_OK; LATMC_EINVAL (sim or count NULL).
 * @note Thread-safe as a const call.
 * @since 0.1
 */
LATMC_API int latmc_sim_sweep_count(const latmc_sim *sim, uint64_t *count);

/**
 * Measure an observable (enum latmc_observable) of the current configuration.
 * A measurement is one reduction over the lattice, cached until the state changes.
 * Non-const because it fills that cache.
 * @param[in,out] sim   the sim.
 * @param[in]     key   enum latmc_observable.
 * @param[out]    value receives the value.
 * The Fourier observables M2_KMIN and OVERLAP2_KMIN are a second reduction by planes,
 * made on the first request after a change and cached with the first (once asked for,
 * later measurements make them in the same pass where the backend can); the CPU and CUDA
 * backends (any threads, boxes, devices, parts of a shared lattice) compute them,
 * bit-identical for every decomposition.
 * @return LATMC_OK; LATMC_EINVAL (unknown key or NULL); LATMC_EUNSUPPORTED (not defined
 *         for this model; OVERLAP2 with one replica); LATMC_ESTATE (no configuration
 *         yet; ACCEPTANCE: nothing attempted since the last reset); or the backend's
 *         failure (e.g. LATMC_EDEVICE).
 * @note Not concurrently with any other call on the same sim.
 * @since 0.1
 */
LATMC_API int latmc_sim_observable(latmc_sim *sim, int key, double *value);

/**
 * The counters behind LATMC_OBS_ACCEPTANCE: updates accepted and attempted since the
 * last reset (exact integers, for pooling acceptance over runs of any length).
 * @param[in]  sim       the sim.
 * @param[out] accepted  receives the accepted updates.
 * @param[out] attempted receives the attempted updates.
 * @return LATMC_OK; LATMC_EINVAL (a NULL argument).
 * @note Thread-safe as a const call.
 * @since 0.1
 */
LATMC_API int latmc_sim_acceptance_counts(const latmc_sim *sim, uint64_t *accepted,
                                          uint64_t *attempted);

/**
 * Zero the acceptance counters.
 * @param[in,out] sim the sim.
 * @return LATMC_OK; LATMC_EINVAL (sim NULL).
 * @note Not concurrently with any other call on the same sim.
 * @since 0.1
 */
LATMC_API int latmc_sim_reset_acceptance(latmc_sim *sim);

/**
 * Bytes of the host spin buffer: sites x replicas x bytes per site (Ising int8 +-1, Potts
 * uint8 0..q-1, phi^4 float or double per desc.precision, Heisenberg 3 floats x,y,z).
 * @param[in]  sim   the sim.
 * @param[out] bytes receives the size.
 * @return LATMC_OK; LATMC_EINVAL (sim or bytes NULL).
 * @note Thread-safe as a const call.
 * @since 0.1
 */
LATMC_API int latmc_sim_spins_size(const latmc_sim *sim, size_t *bytes);

/**
 * Copy the configuration to buf in site order i = x + L_x*(y + L_y*z), layout as in
 * latmc_sim_spins_size() (two replicas: replica 0 first). bytes must equal
 * latmc_sim_spins_size() exactly.
 * @param[in]  sim   the sim.
 * @param[out] buf   caller's buffer of `bytes` bytes.
 * @param[in]  bytes its size, == latmc_sim_spins_size().
 * @return LATMC_OK; LATMC_EINVAL (sim or buf NULL, wrong size); LATMC_ESTATE (no
 *         configuration yet); or the backend's failure (e.g. LATMC_EDEVICE).
 * @note Not concurrently with any other call on the same sim.
 * @since 0.1
 */
LATMC_API int latmc_sim_get_spins(latmc_sim *sim, void *buf, size_t bytes);

/**
 * Set the configuration from buf (layout as latmc_sim_get_spins()). Every value is
 * checked first; on LATMC_EINVAL nothing changes. Resets the acceptance counters.
 * @param[in,out] sim   the sim.
 * @param[in]     buf   the configuration; copied, borrowed for the call only.
 * @param[in]     bytes its size, == latmc_sim_spins_size().
 * Values out of range for the model: Ising not +-1, Potts not below q, phi^4 not finite
 * or |phi| > 1e40 (below it every observable is finite for every valid parameter),
 * Heisenberg not of unit length within 1e-5 (doc/models/).
 * @return LATMC_OK; LATMC_EINVAL (sim or buf NULL, wrong size, a value out of range for
 *         the model); or the backend's failure (e.g. LATMC_EDEVICE).
 * @note Not concurrently with any other call on the same sim.
 * @since 0.1
 */
LATMC_API int latmc_sim_set_spins(latmc_sim *sim, const void *buf, size_t bytes);

/**
 * Number of couplings of a sim that has them (Heisenberg; Ising with desc.couplings =
 * LATMC_COUPLINGS_BIMODAL, values exactly +-1): one per site and positive
 * direction, sites x ndim floats, coupling between site i and its neighbour in direction
 * mu (0 = x, 1 = y, 2 = z) at index ndim * i + mu.
 * @param[in]  sim   the sim.
 * @param[out] count receives the number of floats.
 * @return LATMC_OK; LATMC_EINVAL (sim or count NULL); LATMC_EUNSUPPORTED for sims
 *         without couplings (Potts, phi^4, uniform Ising).
 * @note Thread-safe as a const call.
 * @since 0.1
 */
LATMC_API int latmc_sim_couplings_size(const latmc_sim *sim, size_t *count);

/**
 * Copy the couplings out (count must equal latmc_sim_couplings_size()).
 * @param[in]  sim   the sim.
 * @param[out] buf   caller's buffer of `count` floats.
 * @param[in]  count its length.
 * @return LATMC_OK; LATMC_EINVAL (sim or buf NULL, wrong count); LATMC_EUNSUPPORTED
 *         (no couplings); or the backend's failure.
 * @note Not concurrently with any other call on the same sim.
 * @since 0.1
 */
LATMC_API int latmc_sim_get_couplings(latmc_sim *sim, float *buf, size_t count);

/**
 * Replace the couplings (count must equal latmc_sim_couplings_size(); every value finite,
 * and for Ising exactly +1.0f or -1.0f, else LATMC_EINVAL and nothing changes). Replicas
 * share them.
 * @param[in,out] sim   the sim.
 * @param[in]     buf   `count` floats; copied, borrowed for the call only.
 * @param[in]     count their number.
 * @return LATMC_OK; LATMC_EINVAL (sim or buf NULL, wrong count, a value not finite);
 *         LATMC_EUNSUPPORTED (no couplings); or the backend's failure.
 * @note Not concurrently with any other call on the same sim.
 * @since 0.1
 */
LATMC_API int latmc_sim_set_couplings(latmc_sim *sim, const float *buf, size_t count);

/**
 * Models with a proposal width (phi^4 "epsilon"): run `sweeps` sweeps in blocks that end
 * at multiples of 10 of the sweep number, at the end of each block scaling epsilon by
 * its acceptance / target (the factor clamped to [1/2, 2]), so that the acceptance
 * approaches `target` (0 < target < 1). A block's acceptance is the sim's acceptance
 * counters, which this call zeroes where a block starts: a call that ends inside a block
 * leaves the block's part so far in them, and the next call (also after a checkpoint)
 * completes it; a call that starts inside a block counts from the last reset. So tuning
 * split over several calls, at any sweep count, gives the same chain as one call. Meant
 * for thermalization: the sweeps count as ordinary sweeps. A scaled epsilon outside its
 * valid range is not applied.
 * @param[in,out] sim    the sim.
 * @param[in]     target the acceptance to approach, 0 < target < 1.
 * @param[in]     sweeps number of sweeps (0: nothing happens).
 * @return LATMC_OK; LATMC_EUNSUPPORTED (no epsilon); LATMC_EINVAL (sim NULL, target out
 *         of range, or more sweeps than latmc_sim_sweep() would take, refused before any
 *         runs); or any code of latmc_sim_sweep() (LATMC_ESTATE: no configuration).
 *         On failure the blocks already run are kept.
 * @note Not concurrently with any other call on the same sim.
 * @since 0.1
 */
LATMC_API int latmc_sim_tune_epsilon(latmc_sim *sim, double target, uint64_t sweeps);

/**
 * Write a checkpoint of the whole state (desc, parameters, sweep number, acceptance
 * counters, configuration, couplings) to `path`: self-describing, versioned and
 * checksummed (doc/checkpoints.md). Written to a temporary file of a unique name in the
 * same directory, flushed to disk (fsync), renamed over `path`, and the directory flushed:
 * a crash never leaves a partial file where a good one was, and readers always see a
 * complete file. A symlink is followed and the file it names replaced (the link stays);
 * a path naming anything but a regular file (FIFO, device, directory, socket) is refused
 * and left alone. Concurrent saves to one path: each completes, the last rename wins.
 * A sim loaded from it continues bit-identically.
 * @param[in] sim  the sim.
 * @param[in] path destination file (regular, or not existing yet).
 * @return LATMC_OK; LATMC_EINVAL (sim or path NULL); LATMC_EIO (not a regular file; cannot
 *         create, write, sync, close or rename: the message names the path, the step, the
 *         system's reason and what to do; `path` then is unchanged, except after a failed
 *         directory sync, which the message says); LATMC_ESTATE (no configuration yet on
 *         a lattice of more than 65536 sites x replicas: such a file could not be loaded);
 *         LATMC_ENOMEM; or the backend's failure.
 * @note Not concurrently with any other call on the same sim.
 * @since 0.1
 */
LATMC_API int latmc_sim_save(latmc_sim *sim, const char *path);

/**
 * Create a sim from a checkpoint written by latmc_sim_save() (or
 * latmc_sim_save_app_data(): the application data is checked and ignored). Truncated,
 * damaged, wrong-version, other-byte-order or inconsistent files give LATMC_ECORRUPT; a
 * missing or unreadable file, or one that is not a regular file (FIFO, device,
 * directory), LATMC_EIO. Every size is checked against the header and the desc before the
 * sim is created: a file never makes the loader allocate much more than its own size.
 * On failure *out is NULL and nothing is allocated.
 * The sim is created with the checkpoint's desc, device included (one box on one device;
 * latmc_sim_load_on() places it elsewhere).
 * @param[in]  ctx  the context; the sim takes its own reference.
 * @param[in]  path the checkpoint file.
 * @param[out] out  receives the new sim, owned by the caller (latmc_sim_destroy()).
 * @return LATMC_OK; LATMC_EINVAL (a NULL argument); LATMC_EIO; LATMC_ECORRUPT (also a
 *         file too large to be a checkpoint, or a file without a configuration for a
 *         lattice of more than 65536 sites x replicas); LATMC_ENOMEM; or any code of
 *         latmc_sim_create() for the stored desc (e.g. LATMC_EUNSUPPORTED,
 *         LATMC_EBACKEND, LATMC_ENODEV when the device it names is not there). The
 *         message names the path.
 * @note Thread-safe (ctx-level).
 * @since 0.1
 */
LATMC_API int latmc_sim_load(latmc_ctx *ctx, const char *path, latmc_sim **out);

/**
 * latmc_sim_load(), with the sim placed as *where says instead of as it was saved: its
 * device, device_index, n_threads, n_parts, n_devices and device_list replace the stored
 * ones; every other field of *where is ignored (the model, shape, seeds and parameters,
 * the chain itself, come from the file). E.g. a checkpoint of a sim on 4 GPUs loaded on one
 * GPU, or on the CPU for analysis. The configuration, couplings, parameters, sweep count
 * and accumulated counts are the saved ones; the continuation is bit-identical to the
 * saved sim's where the two placements run the same chain: any placement of the same
 * device kind (any n_parts, n_devices, n_threads), and CPU <-> CUDA for Ising and Potts
 * (doc/checkpoints.md, "Loading elsewhere").
 * @param[in]  ctx   the context; the sim takes its own reference.
 * @param[in]  path  the checkpoint file.
 * @param[in]  where a desc from latmc_sim_desc_init() with the placement fields set.
 * @param[out] out   receives the new sim (latmc_sim_destroy()).
 * @return as latmc_sim_load(); LATMC_EINVAL also for where NULL or its struct_size, and
 *         latmc_sim_create()'s codes for the placement (e.g. LATMC_ENODEV, or
 *         LATMC_EUNSUPPORTED for CUDA and a model without CUDA kernels).
 * @note Thread-safe (ctx-level).
 * @since 0.2
 */
LATMC_API int latmc_sim_load_on(latmc_ctx *ctx, const char *path, const latmc_sim_desc *where,
                                latmc_sim **out);

/**
 * latmc_sim_save() with an application-data section: `size` bytes of the caller's own
 * state (e.g. a program's accumulators) stored in the same file, covered by the same
 * checksum, so that the simulation and the program's state are replaced together in one
 * atomic rename. latmc_sim_load() and latmc_sim_deserialize() check and ignore the
 * section; latmc_checkpoint_app_data() reads it back. Such a file has format version 2
 * (doc/checkpoints.md; version 3 for a sim running Ising decisions = 1); older liblatmc
 * versions refuse it with a message naming the version.
 * @param[in] sim  the sim.
 * @param[in] path destination file, with the rules of latmc_sim_save().
 * @param[in] data the section's bytes (may be NULL when size is 0); copied during the call.
 * @param[in] size their number (0 allowed: an empty section).
 * @return as latmc_sim_save(); also LATMC_EINVAL (data NULL with size > 0).
 * @note Not concurrently with any other call on the same sim.
 * @since 0.2
 */
LATMC_API int latmc_sim_save_app_data(latmc_sim *sim, const char *path, const void *data,
                                      size_t size);

/**
 * Read the application-data section of a checkpoint file written by
 * latmc_sim_save_app_data(). The whole file is read and verified with every check of
 * latmc_sim_load() (no sim is created). *size is always set: to the section's size, or
 * to 0 when the file has none or fails a check. With buf NULL only *size is set.
 * @param[in]  path     the checkpoint file.
 * @param[out] buf      caller's buffer of `capacity` bytes, or NULL to query the size.
 * @param[in]  capacity size of buf.
 * @param[out] size     receives the section's size in bytes.
 * @return LATMC_OK (section copied to buf, or size query); LATMC_ESTATE (a valid
 *         checkpoint without a section, written by latmc_sim_save(): *size is 0);
 *         LATMC_EINVAL (path or size NULL; capacity smaller than the section: *size says
 *         how much is needed, buf is untouched); LATMC_EIO, LATMC_ECORRUPT, LATMC_ENOMEM as
 *         latmc_sim_load() (the file is damaged or unreadable: *size is 0).
 * @note Thread-safe (touches no library object).
 * @since 0.2
 */
LATMC_API int latmc_checkpoint_app_data(const char *path, void *buf, size_t capacity,
                                        size_t *size);

/**
 * The checkpoint as bytes, for host codes that store state their own way. With buf NULL
 * only *size is set; otherwise capacity must be >= the size (LATMC_EINVAL, *size set).
 * @param[in]  sim      the sim.
 * @param[out] buf      caller's buffer of `capacity` bytes, or NULL to query the size.
 * @param[in]  capacity size of buf.
 * @param[out] size     receives the checkpoint's size in bytes.
 * @return LATMC_OK; LATMC_EINVAL (sim or size NULL, capacity too small); LATMC_ESTATE (no
 *         configuration yet on a lattice of more than 65536 sites x replicas, as
 *         latmc_sim_save()); LATMC_ENOMEM; or the backend's failure.
 * @note Not concurrently with any other call on the same sim.
 * @since 0.1
 */
LATMC_API int latmc_sim_serialize(latmc_sim *sim, void *buf, size_t capacity, size_t *size);

/**
 * Create a sim from latmc_sim_serialize() bytes; errors as latmc_sim_load() (no EIO).
 * @param[in]  ctx  the context; the sim takes its own reference.
 * @param[in]  buf  the checkpoint bytes; borrowed for the call only.
 * @param[in]  size their number.
 * @param[out] out  receives the new sim, owned by the caller; NULL on failure.
 * @return LATMC_OK; LATMC_EINVAL (a NULL argument); LATMC_ECORRUPT; LATMC_ENOMEM; or
 *         any code of latmc_sim_create() for the stored desc.
 * @note Thread-safe (ctx-level).
 * @since 0.1
 */
LATMC_API int latmc_sim_deserialize(latmc_ctx *ctx, const void *buf, size_t size,
                                    latmc_sim **out);

/**
 * latmc_sim_deserialize() placed as *where says: latmc_sim_load_on() for bytes.
 * @return as latmc_sim_deserialize(); LATMC_EINVAL also for where NULL.
 * @note Thread-safe (ctx-level).
 * @since 0.2
 */
LATMC_API int latmc_sim_deserialize_on(latmc_ctx *ctx, const void *buf, size_t size,
                                       const latmc_sim_desc *where, latmc_sim **out);

/**
 * Detail of the sim's last failure ("" if none). Never NULL, also for sim == NULL
 * ("sim is NULL"). Valid until the next call on the sim. A successful call does not clear
 * it.
 * @param[in] sim the sim.
 * @return a string owned by the sim (do not free).
 * @note Thread-safe as a const call.
 * @since 0.1
 */
LATMC_API const char *latmc_sim_last_error(const latmc_sim *sim);

/** Element types of a device view (latmc_device_view.dtype). @since 0.2 */
typedef enum latmc_dtype {
    LATMC_DTYPE_INT8    = 1, /**< int8_t (Ising +1 / -1) */
    LATMC_DTYPE_UINT8   = 2, /**< uint8_t (Potts 0..q-1) */
    LATMC_DTYPE_FLOAT32 = 3, /**< float (phi^4 in float, Heisenberg) */
    LATMC_DTYPE_FLOAT64 = 4  /**< double (phi^4 in double) */
} latmc_dtype;

/** Axes a device view has at most: replica, z, y, x, component. @since 0.2 */
#define LATMC_VIEW_MAX_NDIM 5

/**
 * A read-only view of a sim's configuration where its backend keeps it (device memory),
 * described as one strided array in the API's order (doc/conventions.md): shape
 * (L_z, L_y, L_x) in 3D, (L_y, L_x) in 2D, then a component axis of 3 for Heisenberg,
 * and a replica axis first when the sim has 2 replicas. Strides are in bytes (they need
 * not be those of a contiguous array: the CUDA Heisenberg spins are one array per
 * component and replica). Filled by latmc_sim_device_view(). @since 0.2
 */
typedef struct latmc_device_view {
    uint32_t struct_size;      /**< set by the caller to sizeof(latmc_device_view) */
    int      device;           /**< LATMC_DEVICE_CUDA (the only kind with views) */
    int      index;            /**< the device's index within its kind */
    uint64_t data;             /**< device address of element (0, ..., 0); never 0 */
    int      dtype;            /**< enum latmc_dtype */
    int      ndim;             /**< axes in shape and strides (2 .. LATMC_VIEW_MAX_NDIM) */
    int64_t  shape[LATMC_VIEW_MAX_NDIM];   /**< extents; unused entries 0 */
    int64_t  strides[LATMC_VIEW_MAX_NDIM]; /**< bytes between neighbours along each axis */
    int      readonly;         /**< 1: the memory belongs to the sim; never write to it */
} latmc_device_view;

/**
 * Describe the sim's configuration in device memory, for zero-copy analysis (cupy, torch,
 * your own kernels through __cuda_array_interface__ or DLPack). The backend first brings
 * that memory up to date (the CUDA Ising sim unpacks its multi-spin coded words into the
 * byte array, on the device), and waits for it: the memory holds the configuration when
 * this call returns, and is read on any stream of the device.
 *
 * Validity: the view (its address included) holds until the next call that may change
 * the sim or its memory: latmc_sim_sweep(), latmc_sim_init_spins(), latmc_sim_set_spins(),
 * latmc_sim_set_param(), latmc_sim_set_couplings() and every other set_* call,
 * latmc_sim_destroy(). Reads (get_spins, measurements, save) leave it valid. After any
 * of these, call latmc_sim_device_view() again. Reading
 * while another thread runs such a call on the sim is a data race. The memory is the
 * sim's: writing to it is undefined (use latmc_sim_set_spins()).
 *
 * @param[in]     sim  the sim.
 * @param[in,out] view caller-allocated; struct_size in, the whole struct out. Unchanged
 *                     on failure.
 * @return LATMC_OK; LATMC_EINVAL (sim or view NULL, struct_size smaller than this
 *         library's struct or larger than 4096); LATMC_ESTATE (no configuration yet);
 *         LATMC_EUNSUPPORTED when the configuration is not in device memory in a layout
 *         strides can express (a CPU sim: use latmc_sim_get_spins(); a module without
 *         views), with the reason; LATMC_EDEVICE (a device failure).
 * @note Not thread-safe on the same sim.
 * @since 0.2
 */
LATMC_API int latmc_sim_device_view(latmc_sim *sim, latmc_device_view *view);

LATMC_END_DECLS

#endif /* LATMC_SIM_H */
