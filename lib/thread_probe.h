/* Internal: checking that the system can start a team of threads before OpenMP tries. */
#ifndef LATMC_LIB_THREAD_PROBE_H
#define LATMC_LIB_THREAD_PROBE_H

/*
 * Start n - 1 threads that are all alive at once (with the default thread attributes, as
 * the OpenMP runtime starts its team), then let them end and join them. LATMC_OK when all
 * started; LATMC_ENOMEM with a message naming n, how many started and why, otherwise.
 * Why: when the OS refuses a thread, libgomp prints "Thread creation failed" and exits the
 * process, which liblatmc promises never to do; asking first turns that into a clean
 * error at latmc_sim_create(). (A limit that drops after the probe is out of reach.)
 */
int latmc_thread_probe(int n);

/*
 * Before a call that may start OpenMP teams of up to n threads from the calling thread:
 * LATMC_OK at once when this thread has already had a team of n or more checked (the
 * runtime keeps a calling thread's team threads for its next regions), else
 * latmc_thread_probe(n) and, when it succeeds, n remembered for this thread. So a thread
 * count raised after create, a new calling thread, or the caller's own threads having
 * used up the system's limit since, is LATMC_ENOMEM instead of the runtime's exit. What
 * stays out of reach (doc/robustness.md): a limit reached after the check while the
 * runtime must start threads again for this thread (its pool shrank).
 */
int latmc_team_ready(int n);

#endif
