/*
 * Internal: recording failures. Every failing public call goes through one of these,
 * so the thread's last error (latmc_last_error) always describes the latest failure.
 */
#ifndef LATMC_LIB_ERROR_H
#define LATMC_LIB_ERROR_H

#include <latmc/defs.h>

#if defined(__GNUC__)
#  define LATMC_PRINTF(fmt_idx, arg_idx) __attribute__((format(printf, fmt_idx, arg_idx)))
#else
#  define LATMC_PRINTF(fmt_idx, arg_idx)
#endif

/* Size of every error-message buffer (thread-local and per sim). */
#define LATMC_ERRMSG_SIZE 512

/*
 * Record `status` with a printf-style detail as this thread's last error and return
 * status, so that call sites read `return latmc_fail(LATMC_EINVAL, "...", ...);`.
 */
int latmc_fail(int status, const char *fmt, ...) LATMC_PRINTF(2, 3);

/* The thread's last error message buffer (read-only view). */
const char *latmc_thread_error(void);

/* How many failures this thread has recorded (latmc_fail calls): tells whether a callee,
 * such as a backend module, left a message. */
unsigned long latmc_fail_count(void);

/* The thread's last error as a call found it, to give back where the call succeeds
 * although something inside it failed on the way (device AUTO trying a backend that
 * cannot take the sim): a successful public call leaves latmc_last_error() as it was. */
struct latmc_error_mark {
    unsigned long fails;
    char text[LATMC_ERRMSG_SIZE];
};
void latmc_error_mark(struct latmc_error_mark *m);
/* Puts the marked message back if a failure was recorded since (the failure count is
 * left as it is: it counts what was recorded). */
void latmc_error_restore(const struct latmc_error_mark *m);

/* Whether status is one of the codes of LATMC_STATUS_LIST. */
bool latmc_status_known(int status);

#endif
