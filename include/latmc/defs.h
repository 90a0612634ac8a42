/*
 * liblatmc — common definitions: export macro, status codes, log levels.
 *
 * Includes only <stddef.h>, <stdint.h> and <stdbool.h>; compiles as C99 and C++.
 */
#ifndef LATMC_DEFS_H
#define LATMC_DEFS_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

#if defined(LATMC_STATIC)
#  define LATMC_API
#elif defined(__GNUC__) && defined(LATMC_BUILDING_LIBRARY)
#  define LATMC_API __attribute__((visibility("default")))
#else
#  define LATMC_API
#endif

#ifdef __cplusplus
#  define LATMC_BEGIN_DECLS extern "C" {
#  define LATMC_END_DECLS }
#else
#  define LATMC_BEGIN_DECLS
#  define LATMC_END_DECLS
#endif

/*
 * The one list of status codes. Each entry: name, value, message.
 * Values are part of the ABI: they are never renumbered, new codes are appended.
 * The enum below and latmc_strerror() are both generated from this list.
 */
#define LATMC_STATUS_LIST(X)                                                        \
    X(LATMC_OK,           0,   "success")                                           \
    X(LATMC_EINVAL,      -1,   "invalid argument")                                  \
    X(LATMC_EUNSUPPORTED,-2,   "unsupported combination of model, algorithm or option") \
    X(LATMC_EBACKEND,    -3,   "backend unavailable")                               \
    X(LATMC_ENODEV,      -4,   "no such device")                                    \
    X(LATMC_EDEVICE,     -5,   "device failure")                                    \
    X(LATMC_ENOMEM,      -6,   "out of memory")                                     \
    X(LATMC_EIO,         -7,   "input/output error")                                \
    X(LATMC_ECORRUPT,    -8,   "corrupt or mismatched file")                        \
    X(LATMC_ESTATE,      -9,   "call not valid in the current state")              \
    X(LATMC_ECANCELLED, -10,   "cancelled")

#define LATMC_STATUS_ENUM_ENTRY_(name, value, msg) name = value,
/** Status codes returned by every fallible liblatmc function. */
enum latmc_status {
    LATMC_STATUS_LIST(LATMC_STATUS_ENUM_ENTRY_)
};
#undef LATMC_STATUS_ENUM_ENTRY_

/** Log levels; a message is delivered when its level >= the ctx's min_level. */
enum latmc_log_level {
    LATMC_LOG_DEBUG = 0,
    LATMC_LOG_INFO  = 1,
    LATMC_LOG_WARN  = 2,
    LATMC_LOG_ERROR = 3,
    LATMC_LOG_NONE  = 4  /* as min_level: deliver nothing */
};

/**
 * Log callback. @p msg is a NUL-terminated line without trailing newline, valid only
 * during the call. Called from whichever thread made the library call that logs.
 */
typedef void (*latmc_log_fn)(void *user, int level, const char *msg);

#endif /* LATMC_DEFS_H */
