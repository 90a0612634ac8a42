/*
 * The claims of the phi^4 chunk schedule on the CPU (backends/cpu/phi4/phi4_claims.h,
 * doc/models/phi4.md, "How the CPU runs it"): the library's own cpu_phi4_claim and
 * cpu_phi4_claims_done.
 *
 * - claims_in_order: fixed sequences of claims, one piece or the rest of a step, each
 *   answer checked; among them the orders a team meets only by chance: an owner's claim
 *   of the rest of a step after a helper took a piece of it (test_phi4_chunks met it in
 *   one run of three, twice, and passed four runs of four with a claim that ran the
 *   helper's piece again) must start after that piece; a step stays closed until every
 *   piece of the one before it is done; no claim past the last ticket.
 * - claims_under_threads: members on threads (one claiming the rest of each step, the
 *   others single pieces, as owners and helpers do) over many chunks' counts; every
 *   ticket runs exactly once, and when it starts every ticket of the steps before it has
 *   finished (its writes seen).
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>

#include "phi4_claims.h"

static void reset(struct cpu_phi4_piece_counts *k)
{
    atomic_init(&k->next, 0);
    atomic_init(&k->done, 0);
    atomic_init(&k->owned, 0);
}

/* A claim that must succeed with tickets [want, want + want_n). */
static void expect(struct cpu_phi4_piece_counts *k, long long total, int pieces, bool whole,
                   long long want, int want_n)
{
    int n = -1;
    const long long t = cpu_phi4_claim(k, total, pieces, whole, &n);
    assert_int_equal(t, want);
    assert_int_equal(n, want_n);
}

/* A claim that must find nothing open. */
static void expect_none(struct cpu_phi4_piece_counts *k, long long total, int pieces,
                        bool whole)
{
    int n = -1;
    assert_int_equal(cpu_phi4_claim(k, total, pieces, whole, &n), -1);
    assert_int_equal(n, -1); /* untouched */
}

static void claims_in_order(void **state)
{
    (void)state;
    struct cpu_phi4_piece_counts k;
    /* 4 colour steps of 3 pieces: tickets 0..11 */
    const int P = 3;
    const long long total = 4 * P;
    reset(&k);
    expect(&k, total, P, true, 0, 3);   /* the owner: step 0 at once */
    expect_none(&k, total, P, false);   /* step 1 waits for step 0 */
    expect_none(&k, total, P, true);
    cpu_phi4_claims_done(&k, 2);        /* not all of it done */
    expect_none(&k, total, P, false);
    cpu_phi4_claims_done(&k, 1);
    expect(&k, total, P, false, 3, 1);  /* a helper: piece 0 of step 1 */
    expect(&k, total, P, true, 4, 2);   /* the owner: the rest, not the helper's piece */
    expect_none(&k, total, P, false);   /* step 2 waits for both */
    cpu_phi4_claims_done(&k, 2);        /* the owner's two, the helper's still running */
    expect_none(&k, total, P, true);
    cpu_phi4_claims_done(&k, 1);
    expect(&k, total, P, false, 6, 1);  /* step 2 piece by piece */
    expect(&k, total, P, false, 7, 1);
    expect(&k, total, P, true, 8, 1);   /* the rest: its last piece */
    expect_none(&k, total, P, false);
    cpu_phi4_claims_done(&k, 3);
    expect(&k, total, P, true, 9, 3);   /* step 3 */
    expect_none(&k, total, P, false);   /* all claimed */
    expect_none(&k, total, P, true);
    cpu_phi4_claims_done(&k, 3);
    expect_none(&k, total, P, false);   /* all done: nothing past the last ticket */
    assert_int_equal(atomic_load(&k.done), total);
    assert_int_equal(atomic_load(&k.next), total);
    /* one piece a step: whole and single claims alike */
    reset(&k);
    expect(&k, 3, 1, false, 0, 1);
    expect_none(&k, 3, 1, true);
    cpu_phi4_claims_done(&k, 1);
    expect(&k, 3, 1, true, 1, 1);
    cpu_phi4_claims_done(&k, 1);
    expect(&k, 3, 1, false, 2, 1);
    cpu_phi4_claims_done(&k, 1);
    expect_none(&k, 3, 1, true);
}

enum { CHUNKS = 4000, PIECES = 4, STEPS = 5, TOTAL = PIECES * STEPS, MEMBERS = 4 };

struct shared {
    struct cpu_phi4_piece_counts *counts; /* CHUNKS */
    atomic_int *runs;                     /* CHUNKS x TOTAL: times each ticket started */
    /* ... and finished: plain memory, as the field, ordered by the claims alone
     * (ThreadSanitizer sees a race where they fail to) */
    int *finished;
    atomic_long early;                    /* tickets started before a step before them ended */
    atomic_long partial;                  /* whole claims that began inside their step */
    atomic_int ready;                     /* members started: all begin together */
};

/* A little time, as a piece's hits take: other members claim meanwhile. */
static void spin(int rounds)
{
    for (volatile int i = 0; i < rounds; i++) {
    }
}

struct member {
    struct shared *s;
    int id;
};

static void *member_main(void *arg)
{
    const struct member *m = arg;
    struct shared *s = m->s;
    const bool whole = m->id == 0; /* the owner claims the rest of each step, helpers pieces */
    atomic_fetch_add(&s->ready, 1);
    while (atomic_load(&s->ready) < MEMBERS)
        sched_yield();
    for (int c = 0; c < CHUNKS; c++) {
        struct cpu_phi4_piece_counts *k = &s->counts[c];
        atomic_int *runs = s->runs + (size_t)c * TOTAL;
        int *fin = s->finished + (size_t)c * TOTAL;
        int idle = 0;
        while (atomic_load_explicit(&k->done, memory_order_acquire) < TOTAL) {
            int n;
            const long long t = cpu_phi4_claim(k, TOTAL, PIECES, whole, &n);
            if (t < 0) {
                if (++idle % 64 == 0)
                    sched_yield();
                continue;
            }
            if (whole && t % PIECES != 0)
                atomic_fetch_add(&s->partial, 1);
            for (long long u = 0; u < t - t % PIECES; u++)
                if (!fin[u])
                    atomic_fetch_add(&s->early, 1);
            for (long long u = t; u < t + n; u++) {
                atomic_fetch_add_explicit(&runs[u], 1, memory_order_relaxed);
                spin(50);
                fin[u] = 1;
            }
            cpu_phi4_claims_done(k, n);
            if (whole) /* the owner late to the step it opened: helpers take pieces of it */
                spin(200);
        }
    }
    return NULL;
}

static void claims_under_threads(void **state)
{
    (void)state;
    struct shared s;
    s.counts = aligned_alloc(_Alignof(struct cpu_phi4_piece_counts),
                             CHUNKS * sizeof *s.counts);
    s.runs = calloc((size_t)CHUNKS * TOTAL, sizeof *s.runs);
    s.finished = calloc((size_t)CHUNKS * TOTAL, sizeof *s.finished);
    assert_non_null(s.counts);
    assert_non_null(s.runs);
    assert_non_null(s.finished);
    for (int c = 0; c < CHUNKS; c++)
        reset(&s.counts[c]);
    atomic_init(&s.early, 0);
    atomic_init(&s.partial, 0);
    atomic_init(&s.ready, 0);
    pthread_t th[MEMBERS];
    struct member m[MEMBERS];
    for (int i = 0; i < MEMBERS; i++) {
        m[i].s = &s;
        m[i].id = i;
        assert_int_equal(pthread_create(&th[i], NULL, member_main, &m[i]), 0);
    }
    for (int i = 0; i < MEMBERS; i++)
        assert_int_equal(pthread_join(th[i], NULL), 0);
    long twice = 0, never = 0;
    for (size_t i = 0; i < (size_t)CHUNKS * TOTAL; i++) {
        const int r = atomic_load(&s.runs[i]);
        twice += r > 1;
        never += r == 0;
    }
    printf("  %d chunks of %d steps of %d pieces, %d members: %ld tickets run twice, %ld "
           "never, %ld early; %ld claims of a step's rest after a helper's piece\n",
           CHUNKS, STEPS, PIECES, MEMBERS, twice, never, atomic_load(&s.early),
           atomic_load(&s.partial));
    assert_int_equal(twice, 0);
    assert_int_equal(never, 0);
    assert_int_equal(atomic_load(&s.early), 0);
    for (int c = 0; c < CHUNKS; c++) {
        assert_int_equal(atomic_load(&s.counts[c].done), TOTAL);
        assert_int_equal(atomic_load(&s.counts[c].next), TOTAL);
    }
    free(s.counts);
    free(s.runs);
    free(s.finished);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(claims_in_order),
        cmocka_unit_test(claims_under_threads),
    };
    return cmocka_run_group_tests_name("phi4_claims", tests, NULL, NULL);
}
