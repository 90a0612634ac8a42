/* latmc front end — log callback. */
#include <stdio.h>
#include <string.h>

#include <latmc/latmc.h>

#include "log_sink.h"
#include "progress.h"

static int muted = 0;
static char last_shown[1024];

void log_sink_mute(void)
{
    muted++;
}

void log_sink_unmute(void)
{
    if (muted > 0)
        muted--;
}

void log_sink(void *user, int level, const char *msg)
{
    if (muted > 0)
        return;
    const char *tag;
    switch (level) {
    case LATMC_LOG_DEBUG: tag = "debug"; break;
    case LATMC_LOG_INFO:  tag = "info"; break;
    case LATMC_LOG_WARN:  tag = "warning"; break;
    default:              tag = "error"; break;
    }
    if (user != NULL)
        progress_clear((struct progress *)user);
    fprintf(stderr, "latmc: %s: %s\n", tag, msg != NULL ? msg : "");
    snprintf(last_shown, sizeof last_shown, "%s", msg != NULL ? msg : "");
}

int log_sink_shown(const char *msg)
{
    if (msg == NULL || msg[0] == '\0')
        return 0;
    size_t n = strlen(msg), m = strlen(last_shown);
    /* the same text, or the logged line is "function: text" */
    return strcmp(msg, last_shown) == 0 ||
           (m > n + 2 && strcmp(last_shown + m - n, msg) == 0 &&
            last_shown[m - n - 2] == ':' && last_shown[m - n - 1] == ' ');
}
