/* Small helpers shared by the api, repro and physics suites (public API only). */
#ifndef LATMC_TEST_SIM_HELPERS_H
#define LATMC_TEST_SIM_HELPERS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <latmc/latmc.h>

/*
 * The device of the tests that honour LATMC_TEST_DEVICE (the exact-result physics tests of
 * Ising and Potts; meson runs each also as "<test> cuda"): "cuda" runs them on the CUDA
 * backend, unset or "cpu" on the CPU reference backend. Anything else: -1 (usage error).
 */
static inline int test_device(void)
{
    const char *v = getenv("LATMC_TEST_DEVICE");
    if (v == NULL || *v == '\0' || strcmp(v, "cpu") == 0)
        return LATMC_DEVICE_CPU;
    if (strcmp(v, "cuda") == 0)
        return LATMC_DEVICE_CUDA;
    return -1;
}

/*
 * Which parameter points of those tests run: about one in LATMC_TEST_POINT_STRIDE (1 to
 * 64; unset: every point), index i runs iff (i + i / stride) mod stride == 0, a subset
 * that moves through the parameters instead of repeating the same loop position. A point
 * that runs keeps the seed, the chain and the statistics of the full run, so it passes
 * exactly when it passes in the full run; the others only skip. The meson "cuda" entries
 * use stride 3: on a GPU every measurement of these tiny lattices is a round trip to the
 * device (a sweep call, then a reduction), tens of microseconds where the CPU needs
 * microseconds, and the CUDA chain is the CPU's bit for bit anyway (backends conformance
 * suite). Returns false for every point on a bad value (test_device_check() reports it).
 */
static inline int test_point_stride(void)
{
    const char *v = getenv("LATMC_TEST_POINT_STRIDE");
    if (v == NULL || *v == '\0')
        return 1;
    char *end = NULL;
    const long stride = strtol(v, &end, 10);
    return *end == '\0' && stride >= 1 && stride <= 64 ? (int)stride : 0;
}

static inline int test_point_selected(unsigned index)
{
    const int stride = test_point_stride();
    return stride > 0 && (index + index / (unsigned)stride) % (unsigned)stride == 0;
}

/*
 * Call first in main() of a test that honours LATMC_TEST_POINT_STRIDE (test_device_check()
 * does): 0, saying how many points run; 2 (usage error) on a bad value, which would
 * otherwise skip every point and pass.
 */
static inline int test_point_stride_check(void)
{
    if (test_point_stride() == 0) {
        fprintf(stderr, "LATMC_TEST_POINT_STRIDE=%s: expected 1 to 64\n",
                getenv("LATMC_TEST_POINT_STRIDE"));
        return 2;
    }
    if (test_point_stride() > 1)
        printf("about one parameter point in %d (LATMC_TEST_POINT_STRIDE)\n",
               test_point_stride());
    return 0;
}

/*
 * Call first in main() of a test that takes no arguments (its device and its tests come
 * from the environment: LATMC_TEST_DEVICE, LATMC_TEST_FILTER): nonzero, with the reason,
 * where it was given any. Given "cuda", such a test would run the CPU's tests and pass.
 */
static inline int test_no_arguments(int argc, char **argv)
{
    if (argc <= 1)
        return 0;
    fprintf(stderr, "%s: takes no arguments (got \"%s\"): the device is "
            "LATMC_TEST_DEVICE=cpu|cuda, a subset LATMC_TEST_FILTER=pattern where the test "
            "reads it\n", argv[0], argv[1]);
    return 1;
}

/*
 * Call first in main(): 0 when the test can run on test_device(); else the exit status to
 * return, with the reason printed: 77 (meson: skipped) when the CUDA backend is not usable
 * here (no module, driver or GPU), 2 for an unknown LATMC_TEST_DEVICE or a bad
 * LATMC_TEST_POINT_STRIDE.
 */
static inline int test_device_check(void)
{
    const int device = test_device();
    if (device < 0) {
        fprintf(stderr, "LATMC_TEST_DEVICE=%s: expected cpu or cuda\n",
                getenv("LATMC_TEST_DEVICE"));
        return 2;
    }
    if (test_point_stride_check() != 0)
        return 2;
    if (device == LATMC_DEVICE_CPU)
        return 0;
    latmc_ctx *ctx = NULL;
    if (latmc_ctx_create(&ctx) != LATMC_OK)
        return 1;
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_ISING;
    d.ndim = 2;
    d.extent[0] = d.extent[1] = 8;
    d.device = LATMC_DEVICE_CUDA;
    latmc_sim *sim = NULL;
    const int st = latmc_sim_create(ctx, &d, &sim);
    int ret = 0;
    if (st == LATMC_EBACKEND || st == LATMC_ENODEV) {
        const char *why = latmc_last_error();
        const char *prefix = "CUDA backend unavailable: ";
        printf("%s%s\n", strncmp(why, prefix, strlen(prefix)) == 0 ? "" : prefix, why);
        ret = 77;
    } else if (st != LATMC_OK) { /* anything else is a failure of the backend */
        printf("creating a CUDA sim: %s (%s)\n", latmc_strerror(st), latmc_last_error());
        ret = 1;
    } else {
        printf("running on the CUDA backend (LATMC_TEST_DEVICE=cuda)\n");
    }
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
    return ret;
}

/* A desc for an Ising lattice: extents lx, ly, and lz (ignored for ndim 2), on the CPU
 * (tests that honour LATMC_TEST_DEVICE set d.device = test_device()). */
static inline latmc_sim_desc ising_desc(int ndim, int64_t lx, int64_t ly, int64_t lz,
                                        int algorithm, int n_threads, uint64_t seed)
{
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_ISING;
    d.ndim = ndim;
    d.extent[0] = lx;
    d.extent[1] = ly;
    d.extent[2] = ndim == 3 ? lz : 0;
    d.algorithm = algorithm;
    d.n_threads = n_threads;
    d.seed = seed;
    d.device = LATMC_DEVICE_CPU;
    return d;
}

/* A desc for a q-state Potts lattice, as ising_desc otherwise. */
static inline latmc_sim_desc potts_test_desc(int ndim, int64_t lx, int64_t ly, int64_t lz, int q,
                                             int algorithm, int n_threads, uint64_t seed)
{
    latmc_sim_desc d = ising_desc(ndim, lx, ly, lz, algorithm, n_threads, seed);
    d.model = LATMC_MODEL_POTTS;
    d.q = q;
    return d;
}

/* A desc for a phi^4 lattice with a double or float field (precision) and the model's
 * default algorithm, as ising_desc otherwise. */
static inline latmc_sim_desc phi4_test_desc(int ndim, int64_t lx, int64_t ly, int64_t lz,
                                            int precision, int n_threads, uint64_t seed)
{
    latmc_sim_desc d = ising_desc(ndim, lx, ly, lz, LATMC_ALGO_DEFAULT, n_threads, seed);
    d.model = LATMC_MODEL_PHI4;
    d.precision = precision;
    return d;
}

/* Parameters to set after creation, in order (LATMC_PARAM_* keys; key 0 ends the list),
 * so that a test's chain is data: a table row or one constant per test file. */
enum { TEST_MAX_PARAMS = 8 };
struct test_params {
    struct {
        int key;
        double value;
    } p[TEST_MAX_PARAMS];
};

/* Sets *params on sim in order: LATMC_OK, or the first failure's status (latmc_last_error()
 * says which parameter). */
static inline int test_set_params(latmc_sim *sim, const struct test_params *params)
{
    for (int i = 0; i < TEST_MAX_PARAMS && params->p[i].key != 0; i++) {
        const int st = latmc_sim_set_param(sim, params->p[i].key, params->p[i].value);
        if (st != LATMC_OK)
            return st;
    }
    return LATMC_OK;
}

/* A sim as table data (the layout tests' cases): the desc fields they vary and the
 * parameters set after creation. */
struct test_model {
    int model, ndim;
    int64_t extent[3];
    int algorithm, couplings;
    int replicas, q; /* 0: the desc's default */
    bool single;     /* phi^4, Heisenberg: a float field (else the default, double) */
    struct test_params params;
    int device;      /* 0: the CPU */
};

/* The desc of m: one thread, these seeds. */
static inline latmc_sim_desc test_model_desc(const struct test_model *m, uint64_t seed,
                                             uint64_t coupling_seed)
{
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = m->model;
    d.ndim = m->ndim;
    for (int mu = 0; mu < m->ndim && mu < 3; mu++)
        d.extent[mu] = m->extent[mu];
    d.algorithm = m->algorithm;
    d.couplings = m->couplings;
    d.coupling_seed = coupling_seed;
    if (m->replicas)
        d.replicas = m->replicas;
    if (m->q)
        d.q = m->q;
    if (m->single)
        d.precision = LATMC_PRECISION_FLOAT;
    d.device = m->device ? m->device : LATMC_DEVICE_CPU;
    d.n_threads = 1;
    d.seed = seed;
    return d;
}

/* The phi^4 chain of the layout tests: the ordered phase (mu2 = -0.4, g = 1.8), a fixed
 * epsilon (no tuning in between), and the cutoff and hits given. */
static inline struct test_params phi4_test_params(double lambda, int nhit, int nloc)
{
    const struct test_params p = { { { LATMC_PARAM_MU2, -0.4 }, { LATMC_PARAM_G, 1.8 },
                                     { LATMC_PARAM_LAMBDA, lambda },
                                     { LATMC_PARAM_EPSILON, 0.9 },
                                     { LATMC_PARAM_NHIT, (double)nhit },
                                     { LATMC_PARAM_NLOC, (double)nloc } } };
    return p;
}

/* splitmix64: the tests' own generator, independent of the library's Philox. */
static inline uint64_t test_rng_next(uint64_t *state)
{
    uint64_t z = (*state += UINT64_C(0x9E3779B97F4A7C15));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/*
 * A test that goes over the models by a table of its own cases: the first model of the
 * library (latmc_model_name, numbered 1, 2, ... without gaps: lib/model_list.h) that no
 * case names, or LATMC_MODEL_NONE when each has one. So a model added to the library
 * without its case fails the test, named, instead of going unchecked. Use through
 * test_model_without_case(table, count, member): member is the path of the case's model
 * number (an int) inside one element, e.g. model or desc.model.
 */
static inline int test_model_without_case_(const int *first_model, size_t count,
                                           size_t stride)
{
    const char *base = (const char *)first_model;
    for (int m = 1; latmc_model_name(m) != NULL; m++) {
        bool found = false;
        for (size_t i = 0; i < count && !found; i++) {
            int model;
            memcpy(&model, base + i * stride, sizeof model);
            found = model == m;
        }
        if (!found)
            return m;
    }
    return LATMC_MODEL_NONE;
}

#define test_model_without_case(table, count, member)                                      \
    test_model_without_case_(&(table)[0].member, (count), sizeof (table)[0])

/*
 * One configuration for several sims: the first use, config (a void *) NULL, hot-starts sim
 * and keeps a copy of its configuration in config (bytes, a size_t, its size; the caller
 * frees it); later uses give sim that configuration. A macro of cmocka asserts, as
 * assert_close: use after including <cmocka.h>.
 */
#define test_share_config(sim, config, bytes)                                              \
    do {                                                                                   \
        if (config) {                                                                      \
            assert_int_equal(latmc_sim_set_spins((sim), (config), (bytes)), LATMC_OK);    \
        } else {                                                                           \
            assert_int_equal(latmc_sim_init_spins((sim), LATMC_INIT_HOT), LATMC_OK);       \
            assert_int_equal(latmc_sim_spins_size((sim), &(bytes)), LATMC_OK);             \
            (config) = malloc(bytes);                                                      \
            assert_non_null(config);                                                       \
            assert_int_equal(latmc_sim_get_spins((sim), (config), (bytes)), LATMC_OK);    \
        }                                                                                  \
    } while (0)

/*
 * |a - b| <= tol, printing both values when it fails (cmocka 1.1 has no double asserts).
 * Use after including <cmocka.h> and <math.h>.
 */
#define assert_close(a, b, tol)                                                            \
    do {                                                                                   \
        double a_ = (a), b_ = (b), t_ = (tol);                                             \
        if (!(fabs(a_ - b_) <= t_))                                                        \
            print_error("%s = %.17g vs %s = %.17g (tolerance %.3g)\n", #a, a_, #b, b_, t_); \
        assert_true(fabs(a_ - b_) <= t_);                                                  \
    } while (0)

#endif
