/*
 * What the tests of a sim on several CUDA devices share (test_cuda_devices.c: Ising,
 * test_cuda_devices_heis.c: Heisenberg): the context and GPU count, the device list that
 * puts slab i on GPU i mod (GPUs), the skip without a GPU, and the comparisons of two
 * sims' configurations and acceptance counts. Header only (static): one test file
 * includes it.
 */
#ifndef LATMC_TEST_CUDA_DEVICES_TEST_H
#define LATMC_TEST_CUDA_DEVICES_TEST_H

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <latmc/latmc.h>

static latmc_ctx *ctx;
static int ngpus;

/* The device list of n slabs: slab i on GPU i mod (GPUs), so that with 2 GPUs and more
 * slabs both kinds of neighbours occur (peer copies, and copies within one GPU). */
static int list[64];

static const int *devices_for(int n)
{
    for (int i = 0; i < n; i++)
        list[i] = i % ngpus;
    return list;
}

/* The context and ngpus; 0 with at least one GPU, else the exit status (77: skipped,
 * saying why; 1: no context). */
static int devices_open(void)
{
    if (latmc_ctx_create(&ctx) != LATMC_OK)
        return 1;
    const int st = latmc_ctx_device_count(ctx, LATMC_DEVICE_CUDA, &ngpus);
    if (st != LATMC_OK || ngpus < 1) {
        printf("skipped: no usable CUDA module or GPU (%s)\n",
               st != LATMC_OK ? latmc_last_error() : "no device");
        latmc_ctx_destroy(&ctx);
        return 77;
    }
    printf("%d GPU(s): slab i on GPU i mod %d\n", ngpus, ngpus);
    /* LATMC_TEST_FILTER=same_chain etc.: one case (e.g. under compute-sanitizer, where
     * out_of_memory's card-sized allocations would only be slow) */
    if (getenv("LATMC_TEST_FILTER"))
        cmocka_set_test_filter(getenv("LATMC_TEST_FILTER"));
    return 0;
}

/* How many bytes of a's and b's configurations differ (sizes asserted equal); *n: the
 * size, *first: the first differing byte (*n when none). */
static size_t spin_bytes_differing(latmc_sim *a, latmc_sim *b, size_t *n, size_t *first)
{
    size_t na = 0, nb = 0;
    assert_int_equal(latmc_sim_spins_size(a, &na), LATMC_OK);
    assert_int_equal(latmc_sim_spins_size(b, &nb), LATMC_OK);
    assert_int_equal(na, nb);
    unsigned char *sa = malloc(na), *sb = malloc(nb);
    assert_non_null(sa);
    assert_non_null(sb);
    assert_int_equal(latmc_sim_get_spins(a, sa, na), LATMC_OK);
    assert_int_equal(latmc_sim_get_spins(b, sb, nb), LATMC_OK);
    size_t diff = 0;
    *first = na;
    for (size_t i = 0; i < na; i++)
        if (sa[i] != sb[i]) {
            diff++;
            if (*first == na)
                *first = i;
        }
    free(sa);
    free(sb);
    *n = na;
    return diff;
}

static void assert_same_counts(latmc_sim *a, latmc_sim *b)
{
    uint64_t aa = 0, at = 0, ba = 0, bt = 0;
    assert_int_equal(latmc_sim_acceptance_counts(a, &aa, &at), LATMC_OK);
    assert_int_equal(latmc_sim_acceptance_counts(b, &ba, &bt), LATMC_OK);
    assert_int_equal(aa, ba);
    assert_int_equal(at, bt);
}

#endif
