/* The process-level context: reference counting and logging. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include <latmc/version.h>
#include "internal.h"

int latmc_ctx_create(latmc_ctx **out)
{
    if (!out)
        return latmc_fail(LATMC_EINVAL, "latmc_ctx_create: out is NULL");
    *out = NULL;
    latmc_ctx *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return latmc_fail(LATMC_ENOMEM, "latmc_ctx_create: cannot allocate the context");
    if (pthread_mutex_init(&ctx->lock, NULL) != 0) {
        free(ctx);
        return latmc_fail(LATMC_ENOMEM, "latmc_ctx_create: cannot create a mutex");
    }
    atomic_init(&ctx->refs, 1);
    ctx->log_min = LATMC_LOG_NONE;
    *out = ctx;
    return LATMC_OK;
}

void latmc_ctx_ref(latmc_ctx *ctx)
{
    atomic_fetch_add_explicit(&ctx->refs, 1, memory_order_relaxed);
}

void latmc_ctx_unref(latmc_ctx *ctx)
{
    /* acq_rel: the thread that frees must see every other owner's writes. */
    if (atomic_fetch_sub_explicit(&ctx->refs, 1, memory_order_acq_rel) == 1) {
        pthread_mutex_destroy(&ctx->lock);
        free(ctx);
    }
}

void latmc_ctx_destroy(latmc_ctx **ctx)
{
    if (!ctx || !*ctx)
        return;
    latmc_ctx_unref(*ctx);
    *ctx = NULL;
}

void latmc_ctx_set_log(latmc_ctx *ctx, latmc_log_fn fn, void *user, int min_level)
{
    if (!ctx)
        return;
    pthread_mutex_lock(&ctx->lock);
    ctx->log_fn = fn;
    ctx->log_user = user;
    ctx->log_min = min_level;
    pthread_mutex_unlock(&ctx->lock);
}

void latmc_log(latmc_ctx *ctx, int level, const char *fmt, ...)
{
    if (!ctx)
        return;
    pthread_mutex_lock(&ctx->lock);
    latmc_log_fn fn = ctx->log_fn;
    void *user = ctx->log_user;
    int min = ctx->log_min;
    pthread_mutex_unlock(&ctx->lock);
    if (!fn || level < min)
        return;
    /* Format outside the lock: the callback may itself call into the ctx. */
    char line[LATMC_ERRMSG_SIZE];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fn(user, level, line);
}

const char *latmc_version_string(void)
{
    return LATMC_VERSION_STRING;
}
