/**
 * @file latmc/defs.h
 * @brief liblatmc — common definitions: export macro, status codes, log levels.
 *
 * Includes only <stddef.h>, <stdint.h> and <stdbool.h>; compiles as C99 and C++.
 * Everything here is a macro, an enum or a type: there is nothing to call, so no
 * thread-safety question arises.
 *
 * @since 0.1
 */
#ifndef LATMC_DEFS_H
#define LATMC_DEFS_H

#include <stddef.h>
#include <stdint.h>
#include <stdbool.h>

/**
 * @def LATMC_API
 * @brief Marks a public function: default symbol visibility while liblatmc itself is built
 * with GCC or Clang, empty otherwise (and when the user defines LATMC_STATIC).
 * @since 0.1
 */
#if defined(LATMC_STATIC)
#  define LATMC_API
#elif defined(__GNUC__) && defined(LATMC_BUILDING_LIBRARY)
#  define LATMC_API __attribute__((visibility("default")))
#else
#  define LATMC_API
#endif

/**
 * @def LATMC_BEGIN_DECLS
 * @brief Opens the declarations of a public header: `extern "C" {` in C++, empty in C.
 * @since 0.1
 */
/**
 * @def LATMC_END_DECLS
 * @brief Closes what LATMC_BEGIN_DECLS opened: `}` in C++, empty in C.
 * @since 0.1
 */
#ifdef __cplusplus
#  define LATMC_BEGIN_DECLS extern "C" {
#  define LATMC_END_DECLS }
#else
#  define LATMC_BEGIN_DECLS
#  define LATMC_END_DECLS
#endif

/**
 * The one list of status codes (an X macro). Each entry: name, value, message.
 * Values are part of the ABI: they are never renumbered, new codes are appended.
 * The enum below and latmc_strerror() are both generated from this list.
 * @param X macro applied as X(name, value, message) to each entry.
 * @since 0.1
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

/**
 * Internal helper of enum latmc_status (undefined right after use; not part of the API).
 * @param name  the enumerator.
 * @param value its value.
 * @param msg   its message (unused here).
 */
#define LATMC_STATUS_ENUM_ENTRY_(name, value, msg) name = value,
/**
 * Status codes returned by every fallible liblatmc function: LATMC_OK (0) on success, a
 * negative LATMC_E* code on failure. latmc_strerror() gives each one's message.
 * @since 0.1
 */
enum latmc_status {
    LATMC_STATUS_LIST(LATMC_STATUS_ENUM_ENTRY_)
};
#undef LATMC_STATUS_ENUM_ENTRY_

/** @var LATMC_OK
 * 0, "success". */
/** @var LATMC_EINVAL
 * -1, "invalid argument": a NULL pointer, an out-of-range value, a wrong buffer size. */
/** @var LATMC_EUNSUPPORTED
 * -2, "unsupported combination of model, algorithm or option". */
/** @var LATMC_EBACKEND
 * -3, "backend unavailable", such as a CUDA module that cannot be loaded
 * (see latmc_ctx_backend_status()). */
/** @var LATMC_ENODEV
 * -4, "no such device": a device index the backend does not have. */
/** @var LATMC_EDEVICE
 * -5, "device failure": an error reported by the device runtime. */
/** @var LATMC_ENOMEM
 * -6, "out of memory" (host or device). */
/** @var LATMC_EIO
 * -7, "input/output error": a file cannot be opened, read, written or renamed. */
/** @var LATMC_ECORRUPT
 * -8, "corrupt or mismatched file": a checkpoint that fails its checks. */
/** @var LATMC_ESTATE
 * -9, "call not valid in the current state", such as sweeping before any
 * configuration, or statistics of too few rows. */
/** @var LATMC_ECANCELLED
 * -10, "cancelled". Reserved: no function of this version returns it. */

/**
 * Log levels; a message is delivered when its level >= the ctx's min_level
 * (latmc_ctx_set_log()).
 * @since 0.1
 */
enum latmc_log_level {
    LATMC_LOG_DEBUG = 0, /**< details, and requests the library refused (EINVAL, ...) */
    LATMC_LOG_INFO  = 1, /**< choices the library made, such as device AUTO using the CPU */
    LATMC_LOG_WARN  = 2, /**< warnings, such as n_threads > 1 on a build without OpenMP */
    LATMC_LOG_ERROR = 3, /**< failures of memory, device or files */
    LATMC_LOG_NONE  = 4  /**< as min_level: deliver nothing (the default) */
};

/**
 * Log callback (latmc_ctx_set_log()). @p msg is a NUL-terminated line without trailing
 * newline, valid only during the call. Called from whichever thread made the library call
 * that logs, so with sims used from several threads it may run concurrently with itself;
 * it is called with no library lock held and may call into liblatmc.
 * @param[in] user  the pointer given to latmc_ctx_set_log(), passed through.
 * @param[in] level the message's level (enum latmc_log_level).
 * @param[in] msg   the message; borrowed, valid only during the call.
 * @since 0.1
 */
typedef void (*latmc_log_fn)(void *user, int level, const char *msg);

#endif /* LATMC_DEFS_H */
