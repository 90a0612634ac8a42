/*
 * latmc front end — the library's log callback: "latmc: warning: ..." on stderr,
 * erasing the progress bar first. Pass the struct progress * as the user pointer.
 *
 * The library logs every failed call. Where the program asks a question whose answer
 * may be "no" (does this model have parameter beta? observable m? acceptance?), it
 * wraps the call in log_sink_mute()/log_sink_unmute() so no error line appears.
 */
#ifndef LATMC_CLI_LOG_SINK_H
#define LATMC_CLI_LOG_SINK_H

/* latmc_log_fn; user: struct progress * (may be NULL). */
void log_sink(void *user, int level, const char *msg);

/* Drop messages between these two calls (they nest). Not thread-safe: latmc calls the
 * library from one thread. */
void log_sink_mute(void);
void log_sink_unmute(void);

/* True when msg (non-empty) is the text of the last message printed, or its end after
 * "...: " (e.g. "latmc_sim_create: <msg>"): the library logs
 * each failure's detail as an error, so the program's own failure line need not
 * repeat it. */
int log_sink_shown(const char *msg);

#endif
