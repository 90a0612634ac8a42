/*
 * Parts of one lattice in one process (latmc/part.h without MPI): n threads, each holding
 * one part sim, joined by a transport of shared slots and barriers (exchange, gather,
 * broadcast; optionally halos in memory the parts share, share_halos / sync_halos, with a
 * handshake between neighbours only, as liblatmc_mpi's). Public API only; links pthreads.
 */
#ifndef LATMC_TEST_THREAD_PARTS_H
#define LATMC_TEST_THREAD_PARTS_H

#include <stdbool.h>

#include <latmc/part.h>

enum { THREAD_PARTS_MAX = 8 };

/* What a part's thread runs: part `rank` of `n`, with its transport (copy it into
 * latmc_sim_create_part and the like; it stays valid until the threads end). */
typedef void (*thread_part_fn)(int rank, int n, const latmc_transport *t, void *arg);

/* How the transport behaves (all false / -1 / 0: a plain, working transport). */
struct thread_parts_opts {
    bool shared_halos;  /* offer share_halos (the exchange in place) */
    int declines_on;    /* this part answers 0 to share_halos (-1: none) */
};

/* What the transport saw, after the threads ended. */
struct thread_parts_stats {
    int syncs;      /* sync_halos calls of part 0 */
    int released;   /* release calls (one per part sim destroyed) */
};

/* Run body on n threads (1 <= n <= THREAD_PARTS_MAX), part p getting args[p] (args may be
 * NULL: each gets NULL), and wait for them; 0, or -1 when the threads could not start.
 * opts may be NULL; stats may be NULL. */
int thread_parts_run(int n, const struct thread_parts_opts *opts, thread_part_fn body,
                     void *const *args, struct thread_parts_stats *stats);

/* Make the calling part's next k-th gather fail (LATMC_EIO, on the calling part only; the
 * caller plants it on every part for an agreed failure). t: the part's transport. */
void thread_parts_fail_gather_in(const latmc_transport *t, int k);

/* The gathers the calling part's transport has made so far. */
int thread_parts_gathers(const latmc_transport *t);

#endif
