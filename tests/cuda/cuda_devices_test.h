/*
 * What the tests of a sim on several CUDA devices share (test_cuda_devices.c: Ising,
 * test_cuda_devices_heisenberg.c: Heisenberg, test_cuda_devices_phi4.c: phi^4,
 * test_cuda_devices_potts.c: Potts): the context
 * and GPU count, the device list that puts slab i on GPU i mod (GPUs), the skip without
 * a GPU, and the comparisons of two sims' configurations, observables and acceptance
 * counts. Header
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

#include "sim_make.h"

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

/* The sim of d on `device` (CUDA: n_devices slabs as create_on places them; CPU: 1), with
 * params set and its spins initialised from start (LATMC_INIT_*). */
static inline latmc_sim *make_on(latmc_sim_desc d, int device, int n_devices,
                                 const struct test_params *params, int start)
{
    d.device = device;
    return test_sim_ready(create_on(d, n_devices), params, start);
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
static inline latmc_sim *serialized_copy(latmc_sim *sim, void **bytes)
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

/*
 * Configuration (every byte), the observables keys[0 .. n_keys) (bit for bit) and the
 * acceptance counts of a and b are equal. An observable may fail only alike in both and
 * only where it does not exist: the acceptance before any update (LATMC_ESTATE), the
 * overlap of one replica (LATMC_EUNSUPPORTED).
 */
static inline void assert_same_sims(latmc_sim *a, latmc_sim *b, const int *keys,
                                    size_t n_keys, const char *what)
{
    size_t na = 0, first = 0;
    const size_t diff = spin_bytes_differing(a, b, &na, &first);
    if (diff)
        print_error("%s: %zu of %zu bytes differ (first: byte %zu)\n", what, diff, na, first);
    assert_int_equal(diff, 0);
    for (size_t k = 0; k < n_keys; k++) {
        double va = 0, vb = 0;
        const int st_a = latmc_sim_observable(a, keys[k], &va);
        const int st_b = latmc_sim_observable(b, keys[k], &vb);
        if (st_a != st_b)
            print_error("%s: observable %s: status %d != %d\n", what,
                        latmc_observable_name(keys[k]), st_a, st_b);
        assert_int_equal(st_a, st_b);
        if (st_a == LATMC_OK) {
            assert_same_value(va, vb, keys[k], what);
            continue;
        }
        assert_true((st_a == LATMC_ESTATE && keys[k] == LATMC_OBS_ACCEPTANCE) ||
                    (st_a == LATMC_EUNSUPPORTED && keys[k] == LATMC_OBS_OVERLAP2));
    }
    assert_same_counts(a, b);
}

typedef void (*same_fn)(latmc_sim *a, latmc_sim *b, const char *what);

/*
 * The set/get case: the configuration buf (`bytes` bytes) set on one (one device) and
 * many (slabs); many reads it back as set, and both run the same chain: equal now
 * (`what`) and after `sweeps` sweeps of both.
 */
static inline void check_set_and_get(latmc_sim *one, latmc_sim *many, const void *buf,
                                     size_t bytes, int sweeps, same_fn same,
                                     const char *what)
{
    void *back = malloc(bytes);
    assert_non_null(back);
    assert_int_equal(latmc_sim_set_spins(one, buf, bytes), LATMC_OK);
    assert_int_equal(latmc_sim_set_spins(many, buf, bytes), LATMC_OK);
    assert_int_equal(latmc_sim_get_spins(many, back, bytes), LATMC_OK);
    assert_memory_equal(buf, back, bytes);
    free(back);
    same(one, many, what);
    assert_int_equal(latmc_sim_sweep(one, sweeps), LATMC_OK);
    assert_int_equal(latmc_sim_sweep(many, sweeps), LATMC_OK);
    char after[128];
    snprintf(after, sizeof after, "%s, %d sweeps", what, sweeps);
    same(one, many, after);
}

/* GPU 0's memory in bytes. */
static inline double gpu0_memory_bytes(void)
{
    latmc_device_info info;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    assert_int_equal(latmc_ctx_device_info(ctx, LATMC_DEVICE_CUDA, 0, &info), LATMC_OK);
    return (double)info.memory_bytes;
}

/*
 * The out-of-memory case on slabs: a 2D lattice of L_x = 65536 (the model's sim as
 * `model` gives it, on CUDA) cut into two slabs of 0.6 x GPU 0's memory each, both on GPU 0
 * (bytes_per_site: the slabs' device bytes a site; half_rows a multiple of `multiple`):
 * the first fits, the second does not, so creating fails with LATMC_ENOMEM naming device
 * 0 and no sim; everything was released: one slab's worth fits again, twice over.
 */
static inline void check_slabs_out_of_memory(double bytes_per_site, int64_t multiple,
                                             latmc_sim_desc model)
{
    const int64_t lx = 65536;
    int64_t half_rows = (int64_t)(0.6 * gpu0_memory_bytes() / bytes_per_site / (double)lx);
    half_rows -= half_rows % multiple;
    model.device = LATMC_DEVICE_CUDA;
    model.ndim = 2;
    model.extent[0] = lx;
    model.extent[1] = 2 * half_rows;
    model.extent[2] = 0;
    latmc_sim_desc d = model;
    d.n_devices = 2;
    const int zeros[2] = { 0, 0 };
    d.device_list = zeros;
    latmc_sim *sim = (latmc_sim *)&sim;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_ENOMEM);
    assert_null(sim);
    assert_non_null(strstr(latmc_last_error(), "device 0"));
    for (int k = 0; k < 2; k++) {
        latmc_sim_desc one = model;
        one.extent[1] = half_rows;
        assert_int_equal(latmc_sim_create(ctx, &one, &sim), LATMC_OK);
        assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_COLD), LATMC_OK);
        latmc_sim_destroy(&sim);
    }
}

/* A lattice and its number of slabs, for the same-chain tests. */
struct shape {
    int ndim;
    int64_t lx, ly, lz;
    int n; /* slabs */
    const char *why;
};

#endif
