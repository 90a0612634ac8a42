/*
 * Where CUDA runs the bit-sliced Ising decisions (decisions = 1, doc/models/ising-decisions.md,
 * "Where it runs"): the boxes of one process, 2D or 3D, Metropolis and heat bath, uniform
 * couplings with L_x a multiple of 16 on one box and of 64 on several (one GPU or several),
 * +-J couplings with L_x a multiple of 64. Elsewhere latmc_sim_set_param refuses the value
 * with LATMC_EUNSUPPORTED and the parameter keeps its old value (+-J with L_x not a
 * multiple of 64, L_x not a multiple of 16, several boxes or devices with L_x not a
 * multiple of 64); every sim sweeps afterwards. A checkpoint of the chain loads where CUDA
 * runs it and continues it bit for bit (one device or two); loaded where it does not run
 * it is refused rather than continued as another chain. +-J couplings set between sweeps
 * (the 1-bit form's coupling bits made again) continue the CPU's chain bit for bit, and so
 * does a chain read (observables, spins) after every sweep with writes between. The
 * chains themselves are the identity matrix's CUDA rows (tests/repro/identity). The 1-bit
 * form's measurement with the Fourier modes on large rows equals the packed arrays' walk
 * of the same spins. Exits 77
 * (skipped, saying why) without a usable CUDA module and GPU.
 */
#include "sim_helpers.h"
/* after the helpers: it declares the tests' ctx */
#include "cuda_devices_test.h"

struct decisions_case {
    int ndim;
    int64_t lx, ly, lz;
    int algorithm, couplings, n_devices, n_parts;
    bool runs;
    const char *why;
};

static const struct decisions_case cases[] = {
    { 2, 64, 32, 0, LATMC_ALGO_METROPOLIS, LATMC_COUPLINGS_UNIFORM, 1, 1, true, "2D Metropolis" },
    { 2, 48, 10, 0, LATMC_ALGO_HEATBATH, LATMC_COUPLINGS_UNIFORM, 1, 1, true, "2D heat bath" },
    { 3, 16, 6, 8, LATMC_ALGO_METROPOLIS, LATMC_COUPLINGS_UNIFORM, 1, 1, true, "3D" },
    { 2, 64, 32, 0, LATMC_ALGO_METROPOLIS, LATMC_COUPLINGS_UNIFORM, 2, 1, true,
      "two devices" },
    { 2, 64, 32, 0, LATMC_ALGO_METROPOLIS, LATMC_COUPLINGS_UNIFORM, 1, 2, true,
      "two boxes on one GPU" },
    { 3, 64, 6, 8, LATMC_ALGO_HEATBATH, LATMC_COUPLINGS_UNIFORM, 2, 1, true,
      "3D on two devices" },
    { 2, 48, 32, 0, LATMC_ALGO_METROPOLIS, LATMC_COUPLINGS_UNIFORM, 2, 1, false,
      "two devices, L_x not a multiple of 64" },
    { 2, 48, 32, 0, LATMC_ALGO_METROPOLIS, LATMC_COUPLINGS_UNIFORM, 1, 2, false,
      "two boxes on one GPU, L_x not a multiple of 64" },
    { 2, 64, 32, 0, LATMC_ALGO_METROPOLIS, LATMC_COUPLINGS_BIMODAL, 1, 1, true, "+-J" },
    { 3, 64, 6, 8, LATMC_ALGO_HEATBATH, LATMC_COUPLINGS_BIMODAL, 1, 1, true, "3D +-J" },
    { 2, 128, 32, 0, LATMC_ALGO_METROPOLIS, LATMC_COUPLINGS_BIMODAL, 2, 1, true,
      "+-J on two devices" },
    { 2, 64, 32, 0, LATMC_ALGO_HEATBATH, LATMC_COUPLINGS_BIMODAL, 1, 2, true,
      "+-J, two boxes on one GPU" },
    { 2, 48, 32, 0, LATMC_ALGO_METROPOLIS, LATMC_COUPLINGS_BIMODAL, 1, 1, false,
      "+-J, L_x not a multiple of 64" },
    { 2, 24, 32, 0, LATMC_ALGO_METROPOLIS, LATMC_COUPLINGS_UNIFORM, 1, 1, false,
      "L_x not a multiple of 16" },
};

static void where_it_runs(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const struct decisions_case *c = &cases[i];
        latmc_sim_desc d = ising_desc(c->ndim, c->lx, c->ly, c->lz, c->algorithm, 1, 9);
        d.device = LATMC_DEVICE_CUDA;
        d.couplings = c->couplings;
        d.coupling_seed = 3;
        if (c->n_parts > 1) /* 0 otherwise: with several devices it must be 0 or their count */
            d.n_parts = c->n_parts;
        latmc_sim *sim = create_on(d, c->n_devices);
        assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
        const int st = latmc_sim_set_param(sim, LATMC_PARAM_DECISIONS, 1);
        char msg[512];
        snprintf(msg, sizeof msg, "%s", latmc_last_error()); /* before the next call */
        double v = -1;
        assert_int_equal(latmc_sim_get_param(sim, LATMC_PARAM_DECISIONS, &v), LATMC_OK);
        if (st != (c->runs ? LATMC_OK : LATMC_EUNSUPPORTED) || v != (c->runs ? 1.0 : 0.0))
            print_error("%s: set_param %d (%s), value %g\n", c->why, st, msg, v);
        assert_int_equal(st, c->runs ? LATMC_OK : LATMC_EUNSUPPORTED);
        assert_true(v == (c->runs ? 1.0 : 0.0));
        if (!c->runs) /* the message says where the chain runs */
            assert_non_null(strstr(msg, "decisions"));
        assert_int_equal(latmc_sim_sweep(sim, 2), LATMC_OK);
        latmc_sim_destroy(&sim);
    }
}

/* A checkpoint of the chain (a CPU sim with decisions = 1, L_x = lx) placed on 1 and 2
 * devices: continued bit for bit where CUDA runs the chain, else refused
 * (LATMC_EUNSUPPORTED), not continued as chain 0. */
static void place_checkpoint(int64_t lx, bool runs_on_two)
{
    latmc_sim_desc d = ising_desc(2, lx, 32, 0, LATMC_ALGO_METROPOLIS, 1, 11);
    latmc_sim *cpu = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &cpu), LATMC_OK);
    assert_int_equal(latmc_sim_init_spins(cpu, LATMC_INIT_HOT), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(cpu, LATMC_PARAM_DECISIONS, 1), LATMC_OK);
    assert_int_equal(latmc_sim_sweep(cpu, 2), LATMC_OK);
    size_t size = 0;
    assert_int_equal(latmc_sim_serialize(cpu, NULL, 0, &size), LATMC_OK);
    void *buf = malloc(size);
    assert_non_null(buf);
    assert_int_equal(latmc_sim_serialize(cpu, buf, size, &size), LATMC_OK);
    for (int n_devices = 1; n_devices <= 2; n_devices++) {
        latmc_sim_desc where;
        latmc_sim_desc_init(&where);
        where.device = LATMC_DEVICE_CUDA;
        where.n_devices = n_devices;
        where.device_list = n_devices > 1 ? devices_for(n_devices) : NULL;
        latmc_sim *gpu = NULL;
        const int st = latmc_sim_deserialize_on(ctx, buf, size, &where, &gpu);
        if (n_devices == 1 || runs_on_two) { /* continues: the same spins after sweeps */
            assert_int_equal(st, LATMC_OK);
            latmc_sim *ref = NULL; /* the CPU's chain from the same checkpoint */
            assert_int_equal(latmc_sim_deserialize(ctx, buf, size, &ref), LATMC_OK);
            assert_int_equal(latmc_sim_sweep(gpu, 3), LATMC_OK);
            assert_int_equal(latmc_sim_sweep(ref, 3), LATMC_OK);
            size_t n = 0, first = 0;
            assert_int_equal(spin_bytes_differing(gpu, ref, &n, &first), 0);
            latmc_sim_destroy(&ref);
            latmc_sim_destroy(&gpu);
        } else {
            assert_int_equal(st, LATMC_EUNSUPPORTED);
            assert_null(gpu);
            assert_non_null(strstr(latmc_last_error(), "decisions"));
        }
    }
    free(buf);
    latmc_sim_destroy(&cpu);
}

/* The +-J couplings of a sim with decisions = 1 replaced between sweeps (every 3rd sign
 * flipped), on CUDA (n_devices, n_parts boxes) and on the CPU: the same chain, bit for bit.
 * The CUDA sim has run bit-sliced steps before, so its 1-bit form's coupling bits exist and
 * must be made again from the new couplings. */
static void couplings_between_sweeps(int ndim, int64_t lx, int64_t ly, int64_t lz,
                                     int n_devices, int n_parts)
{
    latmc_sim_desc d = ising_desc(ndim, lx, ly, lz, LATMC_ALGO_METROPOLIS, 1, 13);
    d.couplings = LATMC_COUPLINGS_BIMODAL;
    d.coupling_seed = 5;
    latmc_sim *cpu = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &cpu), LATMC_OK);
    d.device = LATMC_DEVICE_CUDA;
    if (n_parts > 1)
        d.n_parts = n_parts;
    latmc_sim *gpu = create_on(d, n_devices);
    latmc_sim *both[2] = { cpu, gpu };
    for (int k = 0; k < 2; k++) {
        assert_int_equal(latmc_sim_set_param(both[k], LATMC_PARAM_BETA, 0.6), LATMC_OK);
        assert_int_equal(latmc_sim_init_spins(both[k], LATMC_INIT_HOT), LATMC_OK);
        assert_int_equal(latmc_sim_set_param(both[k], LATMC_PARAM_DECISIONS, 1), LATMC_OK);
        assert_int_equal(latmc_sim_sweep(both[k], 3), LATMC_OK);
    }
    size_t n = 0, first = 0;
    assert_int_equal(spin_bytes_differing(gpu, cpu, &n, &first), 0);
    size_t count = 0;
    assert_int_equal(latmc_sim_couplings_size(cpu, &count), LATMC_OK);
    float *j = malloc(count * sizeof *j);
    assert_non_null(j);
    assert_int_equal(latmc_sim_get_couplings(gpu, j, count), LATMC_OK);
    for (size_t i = 0; i < count; i += 3)
        j[i] = -j[i];
    for (int k = 0; k < 2; k++) {
        assert_int_equal(latmc_sim_set_couplings(both[k], j, count), LATMC_OK);
        assert_int_equal(latmc_sim_sweep(both[k], 4), LATMC_OK);
    }
    const size_t diff = spin_bytes_differing(gpu, cpu, &n, &first);
    if (diff)
        print_error("+-J set between sweeps (%dD, %d devices, %d boxes): %zu of %zu spins "
                    "differ, the first at %zu\n", ndim, n_devices, n_parts, diff, n, first);
    assert_int_equal(diff, 0);
    free(j);
    latmc_sim_destroy(&gpu);
    latmc_sim_destroy(&cpu);
}

/* CUDA and the CPU at one point of the chain: the observables (read first, as a program
 * reads them after a sweep), then the spins, bit for bit. */
static void same_now(latmc_sim *gpu, latmc_sim *cpu, const char *when, int step)
{
    const int keys[] = { LATMC_OBS_ENERGY, LATMC_OBS_MAGNETIZATION, LATMC_OBS_M2_KMIN };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        double g = 0, c = 0;
        const int sg = latmc_sim_observable(gpu, keys[i], &g);
        const int sc = latmc_sim_observable(cpu, keys[i], &c);
        if (sg != LATMC_OK || sc != LATMC_OK || memcmp(&g, &c, sizeof g) != 0)
            print_error("%s (step %d): %s %.17g (%d) on CUDA, %.17g (%d) on the CPU\n", when,
                        step, latmc_observable_name(keys[i]), g, sg, c, sc);
        assert_int_equal(sg, LATMC_OK);
        assert_int_equal(sc, LATMC_OK);
        assert_memory_equal(&g, &c, sizeof g);
    }
    size_t n = 0, first = 0;
    const size_t diff = spin_bytes_differing(gpu, cpu, &n, &first);
    if (diff)
        print_error("%s (step %d): %zu of %zu spins differ, the first at %zu\n", when, step,
                    diff, n, first);
    assert_int_equal(diff, 0);
}

/* Reads between the sweeps of a sim with decisions = 1 (CUDA's box alone keeps its 1-bit
 * form across them: cuda_ising_packed.c, bits_read), and between them each kind of write
 * (set_spins of other spins, a chain 0 sweep, a hot and a cold start, +-J couplings or the
 * field set): the CPU's chain bit for bit after every sweep and every write, so that a
 * 1-bit form kept across a write, or a read of packed arrays it left stale, fails. Cubic:
 * M2_KMIN read too (after the first, measured with the sums: measure_projections). */
static void reads_and_writes(int ndim, int64_t l, int couplings, double beta)
{
    latmc_sim_desc d = ising_desc(ndim, l, l, ndim == 3 ? l : 0, LATMC_ALGO_METROPOLIS, 1, 17);
    d.couplings = couplings;
    d.coupling_seed = 7;
    latmc_sim *cpu = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &cpu), LATMC_OK);
    d.device = LATMC_DEVICE_CUDA;
    latmc_sim *gpu = create_on(d, 1);
    latmc_sim *both[2] = { gpu, cpu };
    for (int k = 0; k < 2; k++) {
        assert_int_equal(latmc_sim_set_param(both[k], LATMC_PARAM_BETA, beta), LATMC_OK);
        assert_int_equal(latmc_sim_init_spins(both[k], LATMC_INIT_HOT), LATMC_OK);
        assert_int_equal(latmc_sim_set_param(both[k], LATMC_PARAM_DECISIONS, 1), LATMC_OK);
    }
    size_t bytes = 0, count = 0;
    assert_int_equal(latmc_sim_spins_size(cpu, &bytes), LATMC_OK);
    int8_t *spins = malloc(bytes);
    assert_non_null(spins);
    for (int step = 0; step < 12; step++) {
        for (int k = 0; k < 2; k++)
            assert_int_equal(latmc_sim_sweep(both[k], 1), LATMC_OK);
        same_now(gpu, cpu, "after a sweep", step);
        switch (step) {
        case 2: /* other spins set: every 7th flipped */
            assert_int_equal(latmc_sim_get_spins(cpu, spins, bytes), LATMC_OK);
            for (size_t i = 0; i < bytes; i += 7)
                spins[i] = (int8_t)-spins[i];
            for (int k = 0; k < 2; k++)
                assert_int_equal(latmc_sim_set_spins(both[k], spins, bytes), LATMC_OK);
            break;
        case 4: /* a sweep of chain 0 */
            for (int k = 0; k < 2; k++) {
                assert_int_equal(latmc_sim_set_param(both[k], LATMC_PARAM_DECISIONS, 0),
                                 LATMC_OK);
                assert_int_equal(latmc_sim_sweep(both[k], 1), LATMC_OK);
                assert_int_equal(latmc_sim_set_param(both[k], LATMC_PARAM_DECISIONS, 1),
                                 LATMC_OK);
            }
            break;
        case 6:
        case 9:
            for (int k = 0; k < 2; k++)
                assert_int_equal(latmc_sim_init_spins(both[k], step == 6 ? LATMC_INIT_HOT
                                                                         : LATMC_INIT_COLD),
                                 LATMC_OK);
            break;
        case 8: /* +-J: every 5th bond's sign flipped; uniform: the field */
            if (couplings == LATMC_COUPLINGS_BIMODAL) {
                assert_int_equal(latmc_sim_couplings_size(cpu, &count), LATMC_OK);
                float *j = malloc(count * sizeof *j);
                assert_non_null(j);
                assert_int_equal(latmc_sim_get_couplings(gpu, j, count), LATMC_OK);
                for (size_t i = 0; i < count; i += 5)
                    j[i] = -j[i];
                for (int k = 0; k < 2; k++)
                    assert_int_equal(latmc_sim_set_couplings(both[k], j, count), LATMC_OK);
                free(j);
            } else {
                for (int k = 0; k < 2; k++)
                    assert_int_equal(latmc_sim_set_param(both[k], LATMC_PARAM_H, 0.1),
                                     LATMC_OK);
            }
            break;
        default:
            continue;
        }
        same_now(gpu, cpu, "after a write", step);
    }
    free(spins);
    latmc_sim_destroy(&gpu);
    latmc_sim_destroy(&cpu);
}

static void reads_between_sweeps(void **state)
{
    (void)state;
    reads_and_writes(3, 64, LATMC_COUPLINGS_UNIFORM, 0.3);
    reads_and_writes(2, 128, LATMC_COUPLINGS_BIMODAL, 0.6);
    reads_and_writes(3, 64, LATMC_COUPLINGS_BIMODAL, 0.6);
}

/* One read of the sim's observables keys[0 .. n) into got, and its spins into spins. */
static void read_now(latmc_sim *sim, const int *keys, int n, double *got, int8_t *spins,
                     size_t bytes)
{
    for (int i = 0; i < n; i++)
        assert_int_equal(latmc_sim_observable(sim, keys[i], &got[i]), LATMC_OK);
    assert_int_equal(latmc_sim_get_spins(sim, spins, bytes), LATMC_OK);
}

/* The same observables of those spins set into `plain`, bit for bit. */
static void same_on_plain(latmc_sim *plain, const int8_t *spins, size_t bytes, const int *keys,
                          int n, const double *got, const char *what)
{
    assert_int_equal(latmc_sim_set_spins(plain, spins, bytes), LATMC_OK);
    for (int i = 0; i < n; i++) {
        double want = 0;
        assert_int_equal(latmc_sim_observable(plain, keys[i], &want), LATMC_OK);
        if (memcmp(&got[i], &want, sizeof want) != 0)
            print_error("%s: %s %.17g on the words, %.17g from the packed arrays\n", what,
                        latmc_observable_name(keys[i]), got[i], want);
        assert_memory_equal(&got[i], &want, sizeof want);
    }
}

/* The 1-bit form measured on its words with the Fourier modes (ising_bits_fold.cu) on rows
 * of many groups: the chain's observables after bit-sliced sweeps against those of the
 * same spins set into a sim of chain 0 (the packed arrays' walk: another kernel), exactly:
 * the first read after a sweep (the sums, then the projections alone), and a read after
 * the next sweep (the modes asked for before: the sums and the modes' exact sums in one
 * pass, the columns and rows weighed into the limbs).
 * Rows of 64 and 128 groups (64 and 128 threads across a block of 128: 2 parts of a
 * chunk, or 1), 256 (one full block), 257 and 320 (two blocks, the second part idle), 3D
 * rows of 4 and 5 (32 threads across, 4 parts of a chunk), many chunks of rows; boxes
 * with halos; both leaves (form: LATMC_CUDA_ISING_FORM for the bit-sliced
 * sim, NULL its default). */
static void words_measured(int ndim, int64_t l, int couplings, int n_parts, const char *form)
{
    latmc_sim_desc d = ising_desc(ndim, l, l, ndim == 3 ? l : 0, LATMC_ALGO_METROPOLIS, 1, 23);
    d.couplings = couplings;
    d.coupling_seed = 5;
    d.device = LATMC_DEVICE_CUDA;
    d.n_parts = n_parts;
    if (form)
        assert_int_equal(setenv("LATMC_CUDA_ISING_FORM", form, 1), 0);
    latmc_sim *fast = create_on(d, 1);
    if (form)
        assert_int_equal(unsetenv("LATMC_CUDA_ISING_FORM"), 0);
    d.n_parts = 1;
    latmc_sim *plain = create_on(d, 1);
    assert_int_equal(latmc_sim_set_param(fast, LATMC_PARAM_BETA, 0.42), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(plain, LATMC_PARAM_BETA, 0.42), LATMC_OK);
    assert_int_equal(latmc_sim_init_spins(fast, LATMC_INIT_HOT), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(fast, LATMC_PARAM_DECISIONS, 1), LATMC_OK);
    const int keys[] = { LATMC_OBS_M2_KMIN, LATMC_OBS_M2_K0, LATMC_OBS_ENERGY,
                         LATMC_OBS_MAGNETIZATION };
    size_t bytes = 0;
    assert_int_equal(latmc_sim_spins_size(fast, &bytes), LATMC_OK);
    int8_t *first = malloc(bytes), *second = malloc(bytes);
    assert_non_null(first);
    assert_non_null(second);
    double got1[4], got2[4];
    assert_int_equal(latmc_sim_sweep(fast, 2), LATMC_OK);
    read_now(fast, keys, 4, got1, first, bytes);
    assert_int_equal(latmc_sim_sweep(fast, 1), LATMC_OK);
    read_now(fast, keys, 4, got2, second, bytes);
    char what[96];
    snprintf(what, sizeof what, "%dD L %lld, %d boxes, form %s", ndim, (long long)l, n_parts,
             form ? form : "-");
    same_on_plain(plain, first, bytes, keys, 4, got1, what);
    same_on_plain(plain, second, bytes, keys, 4, got2, what);
    free(first);
    free(second);
    latmc_sim_destroy(&fast);
    latmc_sim_destroy(&plain);
}

static void measured_on_words(void **state)
{
    (void)state;
    words_measured(2, 20480, LATMC_COUPLINGS_UNIFORM, 1, NULL);
    words_measured(2, 16448, LATMC_COUPLINGS_BIMODAL, 2, NULL);
    words_measured(2, 16384, LATMC_COUPLINGS_UNIFORM, 1, "bits");
    words_measured(2, 16448, LATMC_COUPLINGS_UNIFORM, 3, "bits");
    words_measured(2, 4096, LATMC_COUPLINGS_BIMODAL, 1, "bits");
    words_measured(2, 8192, LATMC_COUPLINGS_BIMODAL, 1, NULL);
    words_measured(3, 320, LATMC_COUPLINGS_UNIFORM, 1, "bits");
    words_measured(3, 256, LATMC_COUPLINGS_BIMODAL, 2, NULL);
    words_measured(3, 256, LATMC_COUPLINGS_BIMODAL, 1, "bits");
}

static void couplings_set(void **state)
{
    (void)state;
    couplings_between_sweeps(2, 128, 32, 0, 1, 1); /* one box: pairs, then the march */
    couplings_between_sweeps(3, 64, 6, 8, 1, 1);   /* one group a thread */
    couplings_between_sweeps(2, 128, 32, 0, 1, 2); /* boxes with halos in the 1-bit form */
    couplings_between_sweeps(2, 128, 32, 0, 2, 1);
}

static void checkpoint_placement(void **state)
{
    (void)state;
    place_checkpoint(64, true);  /* two devices: two boxes of whole groups a row */
    place_checkpoint(48, false); /* two devices: groups across rows, refused */
}

int main(void)
{
    const int open = devices_open();
    if (open != 0)
        return open;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(where_it_runs),
        cmocka_unit_test(checkpoint_placement),
        cmocka_unit_test(couplings_set),
        cmocka_unit_test(reads_between_sweeps),
        cmocka_unit_test(measured_on_words),
    };
    const int ret = cmocka_run_group_tests(tests, NULL, NULL);
    latmc_ctx_destroy(&ctx);
    return ret;
}
