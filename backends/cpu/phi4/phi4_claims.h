/*
 * The claims of the phi^4 chunk schedule on the CPU (phi4_chunks.c; doc/models/phi4.md,
 * "How the CPU runs it"): the tickets of one chunk's colour steps, claimed by the members
 * of a team one piece at a time or the rest of a step at once. A header of its own so that
 * tests/unit/test_phi4_claims.c drives these very functions through the orders of claims
 * that a team meets only by chance (an owner's claim of the rest of a step after a helper
 * took a piece of it).
 */
#ifndef LATMC_CPU_PHI4_CLAIMS_H
#define LATMC_CPU_PHI4_CLAIMS_H

#include <stdatomic.h>
#include <stdbool.h>

/*
 * The pieces of one chunk in the current sub-grid, counted over its nloc x ncolours
 * colour steps of `pieces` pieces each: ticket t is piece t mod pieces of colour step
 * t / pieces. `next` the first ticket not yet claimed, `done` how many have finished;
 * step s is open once done >= s pieces (its previous step complete). One cache line per
 * chunk: members claiming pieces of different chunks do not share lines.
 */
struct cpu_phi4_piece_counts {
    _Alignas(64) atomic_llong next;
    atomic_llong done;
    atomic_int owned; /* a member runs the chunk as its own (counts[nk]: members helping) */
};

/* Tickets [t, t + *n) of `k` (of `total`), all of one open colour step, or -1: *n = 1 (a
 * single piece), or with `whole` the rest of the step (*n set to how many). The acquire
 * load of `done` orders the pieces after every piece of the steps before them (their
 * release increments, cpu_phi4_claims_done). */
static inline long long cpu_phi4_claim(struct cpu_phi4_piece_counts *k, long long total,
                                       int pieces, bool whole, int *n)
{
    long long t = atomic_load_explicit(&k->next, memory_order_relaxed);
    while (t < total) {
        const long long step_first = t - t % pieces;
        if (atomic_load_explicit(&k->done, memory_order_acquire) < step_first)
            return -1; /* its step waits for the previous one */
        const long long end = whole ? step_first + pieces : t + 1;
        if (atomic_compare_exchange_weak_explicit(&k->next, &t, end, memory_order_relaxed,
                                                  memory_order_relaxed)) {
            *n = (int)(end - t);
            return t;
        }
    }
    return -1;
}

/* n claimed tickets of `k` run: counted after their pieces' writes (release). */
static inline void cpu_phi4_claims_done(struct cpu_phi4_piece_counts *k, int n)
{
    atomic_fetch_add_explicit(&k->done, n, memory_order_release);
}

#endif
