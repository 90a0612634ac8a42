/*
 * latmc front end — the library's log callback: "latmc: warning: ..." on stderr,
 * erasing the progress bar first. Pass the struct progress * as the user pointer.
 *
 * liblatmc logs refused requests (a model without beta, an observable it does not
 * define, ...) at LATMC_LOG_DEBUG, below the level latmc asks for, so probing what a
 * model supports stays silent. It logs failures of the machine (memory, device, files)
 * at LATMC_LOG_ERROR, but only as the detail of a call that also returns the failure:
 * latmc prints every failure itself, once, with that detail (failure.c), so the sink
 * drops ERROR messages rather than print them twice.
 */
#ifndef LATMC_CLI_LOG_SINK_H
#define LATMC_CLI_LOG_SINK_H

/* latmc_log_fn; user: struct progress * (may be NULL). */
void log_sink(void *user, int level, const char *msg);

#endif
