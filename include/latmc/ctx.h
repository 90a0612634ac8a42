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

/** Human-readable name of a status code; never NULL ("unknown status" if unknown). Since 0.1. */
LATMC_API const char *latmc_strerror(int status);

/** Version of the loaded library, "MAJOR.MINOR.PATCH". Never NULL. Since 0.1. */
LATMC_API const char *latmc_version_string(void);

LATMC_END_DECLS

#endif /* LATMC_CTX_H */
