/**
 * @file latmc/ctx.h
 * @brief liblatmc — the process-level context: logging, backend registry, devices.
 *
 * Thread safety: every function here may be called from any thread, concurrently,
 * including on the same ctx (creating and destroying sims on a ctx is likewise safe).
 * Failing calls record their message for the calling thread (latmc_last_error()).
 *
 * @since 0.1
 */
#ifndef LATMC_CTX_H
#define LATMC_CTX_H

#include <latmc/defs.h>

LATMC_BEGIN_DECLS

/**
 * Opaque, reference-counted context. Created by latmc_ctx_create(); the caller's
 * reference is released by latmc_ctx_destroy(), and every sim created on it holds one more.
 * @since 0.1
 */
typedef struct latmc_ctx latmc_ctx;

/** Device kinds (latmc_sim_desc::device, latmc_ctx_device_count()). @since 0.1 */
enum latmc_device {
    LATMC_DEVICE_AUTO = 0, /**< CUDA when usable for the model, else the CPU (logged at INFO) */
    LATMC_DEVICE_CPU  = 1, /**< the built-in CPU backend: one device, index 0 */
    LATMC_DEVICE_CUDA = 2  /**< NVIDIA GPUs through the latmc-cuda module, loaded on first use */
};

/**
 * Create a context. On success *out holds a new ctx and LATMC_OK is returned.
 * It starts silent (no log callback, min_level LATMC_LOG_NONE).
 * @param[out] out receives the new ctx, owned by the caller (release it with
 *                 latmc_ctx_destroy()); set to NULL on failure when out is not NULL.
 * @return LATMC_OK; LATMC_EINVAL (out is NULL); LATMC_ENOMEM (no memory for the ctx or
 *         its mutex).
 * @note Thread-safe.
 * @since 0.1
 */
LATMC_API int latmc_ctx_create(latmc_ctx **out);

/**
 * Release the caller's reference and set *ctx = NULL. Accepts NULL and *ctx == NULL.
 * Sims created on the ctx hold their own reference: the ctx is freed when the last of
 * them is destroyed, so destroying a ctx before its sims is safe.
 * @param[in,out] ctx address of the caller's ctx handle; the handle must not be used
 *                    afterwards (it is set to NULL).
 * @note Thread-safe (the reference count is atomic); call it once per latmc_ctx_create().
 * @since 0.1
 */
LATMC_API void latmc_ctx_destroy(latmc_ctx **ctx);

/**
 * Install a log callback (NULL: silent, the default). Messages below min_level
 * (enum latmc_log_level) are dropped. The library never prints on its own.
 * Replaces any previous callback; does nothing when ctx is NULL. min_level is not checked.
 * @param[in] ctx       the context.
 * @param[in] fn        the callback, or NULL for none.
 * @param[in] user      passed to fn unchanged; not owned by the library. fn and user must
 *                      stay valid while the ctx lives (also through its sims, which keep
 *                      it alive) or until another callback is installed and calls in flight
 *                      on other threads have returned.
 * @param[in] min_level the lowest level delivered (enum latmc_log_level).
 * @note Thread-safe; fn may be called concurrently from several threads.
 * @since 0.1
 */
LATMC_API void latmc_ctx_set_log(latmc_ctx *ctx, latmc_log_fn fn, void *user, int min_level);

/**
 * The message of the last failed liblatmc call made by the calling thread
 * ("" when none has failed). Never NULL; valid until the thread's next failing call.
 * Useful after latmc_sim_create() or latmc_ctx_create() fail, when no sim exists.
 * @return a thread-local string owned by the library (do not free); a successful call
 *         does not clear it.
 * @note Thread-safe: each thread has its own message.
 * @since 0.1
 */
LATMC_API const char *latmc_last_error(void);

/**
 * A device as a backend reports it (latmc_ctx_device_info()). Caller-allocated; may grow
 * at its end in later versions.
 * @since 0.1
 */
typedef struct latmc_device_info {
    uint32_t struct_size;      /**< set by the caller to sizeof(latmc_device_info) */
    int      device;           /**< LATMC_DEVICE_CPU or LATMC_DEVICE_CUDA */
    int      index;            /**< the device's index within its kind */
    char     name[256];        /**< "NVIDIA H200", say, or the CPU's model name; NUL-ended */
    uint64_t memory_bytes;     /**< device memory (CUDA); 0 for the CPU */
    int      compute_major;    /**< CUDA compute capability; 0 for the CPU */
    int      compute_minor;    /**< CUDA compute capability, minor; 0 for the CPU */
    int      multiprocessors;  /**< CUDA multiprocessors; CPU: logical processors */
} latmc_device_info;

/**
 * Number of devices of a kind (LATMC_DEVICE_CPU: 1; LATMC_DEVICE_CUDA: the GPUs the CUDA
 * module sees). Loads the module on first use (once per process).
 * @param[in]  ctx    the context.
 * @param[in]  device LATMC_DEVICE_CPU or LATMC_DEVICE_CUDA (not AUTO).
 * @param[out] count  receives the number of devices.
 * @return LATMC_OK; LATMC_EINVAL (ctx or count NULL, other device kind); LATMC_EBACKEND
 *         (no usable module: the message, and latmc_ctx_backend_status(), say why; or a
 *         status the module may not return); or the CUDA module's error code when it
 *         cannot count its devices (EDEVICE, ...).
 * @note Thread-safe.
 * @since 0.1
 */
LATMC_API int latmc_ctx_device_count(latmc_ctx *ctx, int device, int *count);

/**
 * Describe device `index` of a kind. info->struct_size must be set (it may only grow).
 * @param[in]     ctx    the context.
 * @param[in]     device LATMC_DEVICE_CPU or LATMC_DEVICE_CUDA.
 * @param[in]     index  0 <= index < latmc_ctx_device_count().
 * @param[in,out] info   caller-allocated; struct_size in, the whole struct (this
 *                       version's fields) out. Unchanged on failure.
 * @return LATMC_OK; LATMC_EINVAL (ctx or info NULL, struct_size smaller than this
 *         library's struct or larger than 4096, other device kind); LATMC_EBACKEND (also:
 *         the module returned a status it may not); LATMC_ENODEV (index out of range); or
 *         the CUDA module's error code (EDEVICE, ENOMEM, ...).
 * @note Thread-safe.
 * @since 0.1
 */
LATMC_API int latmc_ctx_device_info(latmc_ctx *ctx, int device, int index, latmc_device_info *info);

/**
 * Whether device `a` of a kind reaches device `b`'s memory directly (CUDA: peer access,
 * cudaDeviceCanAccessPeer), which a sim on several devices (latmc_sim_desc::n_devices)
 * uses for its halo copies; without it they are staged through pinned host memory.
 * A device always reaches itself (a == b: 1).
 * @param[in]  device     LATMC_DEVICE_CPU or LATMC_DEVICE_CUDA.
 * @param[in]  a, b       0 <= a, b < latmc_ctx_device_count().
 * @param[out] can_access receives 1 or 0.
 * @return LATMC_OK; LATMC_EINVAL (ctx or can_access NULL, other device kind);
 *         LATMC_ENODEV (a or b out of range); LATMC_EBACKEND (CUDA backend unusable);
 *         LATMC_EDEVICE (the driver's query failed).
 * @note Thread-safe.
 * @since 0.2
 */
LATMC_API int latmc_ctx_device_peer(latmc_ctx *ctx, int device, int a, int b, int *can_access);

/**
 * One line saying where the backend for `device` comes from and, when it is not usable,
 * why ("built in", "loaded /path/latmc-cuda.so", or every candidate tried with its
 * reason). Never NULL; valid for the life of the process. Loads the CUDA module on
 * first use.
 * @param[in] ctx    the context (not used; may be NULL).
 * @param[in] device LATMC_DEVICE_CPU or LATMC_DEVICE_CUDA; any other value gives
 *                   "unknown device kind".
 * @return a static string owned by the library (do not free).
 * @note Thread-safe.
 * @since 0.1
 */
LATMC_API const char *latmc_ctx_backend_status(latmc_ctx *ctx, int device);

/**
 * Human-readable name of a status code; never NULL ("unknown status" if unknown).
 * @param[in] status a value of enum latmc_status.
 * @return a static string (do not free).
 * @note Thread-safe.
 * @since 0.1
 */
LATMC_API const char *latmc_strerror(int status);

/**
 * Version of the loaded library, "MAJOR.MINOR.PATCH". Never NULL.
 * LATMC_VERSION_STRING is the version of the headers compiled against.
 * @return a static string (do not free).
 * @note Thread-safe.
 * @since 0.1
 */
LATMC_API const char *latmc_version_string(void);

LATMC_END_DECLS

#endif /* LATMC_CTX_H */
