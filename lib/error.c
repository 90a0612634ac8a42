/* Status strings (generated from the one list in defs.h) and the thread's last error. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <latmc/ctx.h>
#include "error.h"

static _Thread_local char thread_error[LATMC_ERRMSG_SIZE];

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
    return status;
}

const char *latmc_thread_error(void)
{
    return thread_error;
}

const char *latmc_last_error(void)
{
    return thread_error;
}
