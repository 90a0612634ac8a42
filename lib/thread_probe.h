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

#endif
