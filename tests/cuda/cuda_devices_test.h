/*
 * What the tests of a sim on several CUDA devices share (test_cuda_devices.c: Ising,
 * test_cuda_devices_heis.c: Heisenberg, test_cuda_devices_phi4.c: phi^4): the context
 * and GPU count, the device list that puts slab i on GPU i mod (GPUs), the skip without
 * a GPU, and the comparisons of two sims' configurations and acceptance counts. Header
 * only (static): one test file includes it.
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

/* A sim of d on n_devices slabs (devices_for; 1: one device as d names it), created or
 * the test fails with the library's message. */
static latmc_sim *create_on(latmc_sim_desc d, int n_devices)
{
    if (n_devices > 1) {
        d.n_devices = n_devices;
        d.device_list = devices_for(n_devices);
    }
    latmc_sim *sim = NULL;
    const int st = latmc_sim_create(ctx, &d, &sim);
    if (st != LATMC_OK)
        print_error("create (%d devices): %s\n", n_devices, latmc_last_error());
    assert_int_equal(st, LATMC_OK);
    return sim;
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

/* One observable of two sims, bit for bit (key names it in the message). */
static void assert_same_value(double va, double vb, int key, const char *what)
{
    if (memcmp(&va, &vb, sizeof va) != 0)
        print_error("%s: observable %s %.17g != %.17g\n", what, latmc_observable_name(key),
                    va, vb);
    assert_memory_equal(&va, &vb, sizeof va);
}

/* sim serialized into *bytes (the caller frees it) and loaded again (on one device). */
static latmc_sim *serialized_copy(latmc_sim *sim, void **bytes)
{
    size_t size = 0;
    assert_int_equal(latmc_sim_serialize(sim, NULL, 0, &size), LATMC_OK);
    *bytes = malloc(size);
    assert_non_null(*bytes);
    assert_int_equal(latmc_sim_serialize(sim, *bytes, size, &size), LATMC_OK);
    latmc_sim *loaded = NULL;
    assert_int_equal(latmc_sim_deserialize(ctx, *bytes, size, &loaded), LATMC_OK);
    return loaded;
}

static void assert_same_counts(latmc_sim *a, latmc_sim *b)
{
    uint64_t aa = 0, at = 0, ba = 0, bt = 0;
    assert_int_equal(latmc_sim_acceptance_counts(a, &aa, &at), LATMC_OK);
    assert_int_equal(latmc_sim_acceptance_counts(b, &ba, &bt), LATMC_OK);
    assert_int_equal(aa, ba);
    assert_int_equal(at, bt);
}

/* A lattice and its number of slabs, for the same-chain tests. */
struct shape {
    int ndim;
    int64_t lx, ly, lz;
    int n; /* slabs */
    const char *why;
};

#endif
