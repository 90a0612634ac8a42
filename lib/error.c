/* Status strings (generated from the one list in defs.h) and the thread's last error. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <latmc/ctx.h>
#include "error.h"

static _Thread_local char thread_error[LATMC_ERRMSG_SIZE];
static _Thread_local unsigned long thread_fail_count;

const char *latmc_strerror(int status)
{
    switch (status) {
#define LATMC_STATUS_CASE_(name, value, msg) case value: return msg;
    LATMC_STATUS_LIST(LATMC_STATUS_CASE_)
#undef LATMC_STATUS_CASE_
    default: return "unknown status";
    }
}

int latmc_fail(int status, const char *fmt, ...)
{
    /* formatted apart, then copied: a caller may pass the thread's last message (its
     * cause, latmc_last_error()) as an argument, which formatting straight into the same
     * buffer would overwrite before reading it */
    char msg[LATMC_ERRMSG_SIZE];
    va_list ap;
    va_start(ap, fmt);
    if (vsnprintf(msg, sizeof msg, fmt, ap) < 0)
        msg[0] = '\0'; /* (an encoding error leaves the array unknown) */
    va_end(ap);
    memcpy(thread_error, msg, strlen(msg) + 1);
    thread_fail_count++;
    return status;
}

unsigned long latmc_fail_count(void)
{
    return thread_fail_count;
}

void latmc_error_mark(struct latmc_error_mark *m)
{
    m->fails = thread_fail_count;
    memcpy(m->text, thread_error, sizeof m->text);
}

void latmc_error_restore(const struct latmc_error_mark *m)
{
    if (thread_fail_count != m->fails)
        memcpy(thread_error, m->text, sizeof thread_error);
}

bool latmc_status_known(int status)
{
    switch (status) {
#define LATMC_STATUS_KNOWN_(name, value, msg) case value: return true;
    LATMC_STATUS_LIST(LATMC_STATUS_KNOWN_)
#undef LATMC_STATUS_KNOWN_
    default: return false;
    }
}

const char *latmc_thread_error(void)
{
    return thread_error;
}

const char *latmc_last_error(void)
{
    return thread_error;
}
