/*
 * liblatmc — the process-level context: logging, backend registry, devices.
 *
 * Thread safety: every function here may be called from any thread, concurrently,
 * including on the same ctx (creating and destroying sims on a ctx is likewise safe).
 */
#ifndef LATMC_CTX_H
#define LATMC_CTX_H

#include <latmc/defs.h>

LATMC_BEGIN_DECLS

typedef struct latmc_ctx latmc_ctx;

/** Device kinds (desc.device, latmc_ctx_device_count). */
enum latmc_device {
    LATMC_DEVICE_AUTO = 0, /* CUDA when usable for the model, else the CPU; the choice is logged */
    LATMC_DEVICE_CPU  = 1,
    LATMC_DEVICE_CUDA = 2
};

/**
 * Create a context. On success *out holds a new ctx and LATMC_OK is returned.
 * Errors: LATMC_EINVAL (out is NULL), LATMC_ENOMEM.
 * Since 0.1.
 */
LATMC_API int latmc_ctx_create(latmc_ctx **out);

/**
 * Release the caller's reference and set *ctx = NULL. Accepts NULL and *ctx == NULL.
 * Sims created on the ctx hold their own reference: the ctx is freed when the last of
 * them is destroyed, so destroying a ctx before its sims is safe.
 * Since 0.1.
 */
LATMC_API void latmc_ctx_destroy(latmc_ctx **ctx);

/**
 * Install a log callback (NULL: silent, the default). Messages below min_level
 * (enum latmc_log_level) are dropped. The library never prints on its own.
 * Since 0.1.
 */
LATMC_API void latmc_ctx_set_log(latmc_ctx *ctx, latmc_log_fn fn, void *user, int min_level);

/**
 * The message of the last failed liblatmc call made by the calling thread
 * ("" when none has failed). Never NULL; valid until the thread's next failing call.
 * Useful after latmc_sim_create() or latmc_ctx_create() fail, when no sim exists.
 * Since 0.1.
 */
LATMC_API const char *latmc_last_error(void);

/** A device as a backend reports it (latmc_ctx_device_info). */
typedef struct latmc_device_info {
    uint32_t struct_size;      /* set by the caller to sizeof(latmc_device_info) */
    int      device;           /* LATMC_DEVICE_CPU or LATMC_DEVICE_CUDA */
    int      index;
    char     name[256];        /* e.g. "NVIDIA H200", or the CPU's model name */
    uint64_t memory_bytes;     /* device memory (CUDA); 0 for the CPU */
    int      compute_major;    /* CUDA compute capability; 0 for the CPU */
    int      compute_minor;
    int      multiprocessors;  /* CUDA multiprocessors; CPU: logical processors */
} latmc_device_info;

/**
 * Number of devices of a kind (LATMC_DEVICE_CPU: 1; LATMC_DEVICE_CUDA: the GPUs the CUDA
 * module sees). Errors: LATMC_EINVAL, LATMC_EBACKEND (no usable module: the message, and
 * latmc_ctx_backend_status(), say why). Loads the module on first use. Since 0.1.
 */
LATMC_API int latmc_ctx_device_count(latmc_ctx *ctx, int device, int *count);

/**
 * Describe device `index` of a kind. info->struct_size must be set (it may only grow).
 * Errors: LATMC_EINVAL, LATMC_EBACKEND, LATMC_ENODEV. Since 0.1.
 */
LATMC_API int latmc_ctx_device_info(latmc_ctx *ctx, int device, int index, latmc_device_info *info);

/**
 * One line saying where the backend for `device` comes from and, when it is not usable,
 * why ("built in", "loaded /path/latmc-cuda.so", or every candidate tried with its
 * reason). Never NULL; valid for the life of the process. Since 0.1.
 */
LATMC_API const char *latmc_ctx_backend_status(latmc_ctx *ctx, int device);

/** Human-readable name of a status code; never NULL ("unknown status" if unknown). Since 0.1. */
LATMC_API const char *latmc_strerror(int status);

/** Version of the loaded library, "MAJOR.MINOR.PATCH". Never NULL. Since 0.1. */
LATMC_API const char *latmc_version_string(void);

LATMC_END_DECLS

#endif /* LATMC_CTX_H */
