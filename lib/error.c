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
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(thread_error, sizeof thread_error, fmt, ap);
    va_end(ap);
    thread_fail_count++;
    return status;
}

unsigned long latmc_fail_count(void)
{
    return thread_fail_count;
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
