/* latmc front end — log callback. */
#include <stdio.h>

#include <latmc/latmc.h>

#include "log_sink.h"
#include "progress.h"

void log_sink(void *user, int level, const char *msg)
{
    if (level >= LATMC_LOG_ERROR)
        return; /* the detail of a failure that the failing call returns: see log_sink.h */
    const char *tag = level == LATMC_LOG_WARN ? "warning"
                    : level == LATMC_LOG_INFO ? "info" : "debug";
    if (user != NULL)
        progress_clear((struct progress *)user);
    fprintf(stderr, "latmc: %s: %s\n", tag, msg != NULL ? msg : "");
}
