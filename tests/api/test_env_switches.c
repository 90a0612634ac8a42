/*
 * The environment's switches (doc/environment.md, lib/env_switch.h): a variable set to a
 * value its reader does not take fails latmc_sim_create with LATMC_EINVAL, naming the
 * variable and its value, instead of being taken as unset; the values it takes, and the
 * empty value, are accepted. The core's switches on the CPU (every run), the CUDA module's
 * on a GPU (LATMC_TEST_DEVICE=cuda; skipped, 77, without one).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include <latmc/latmc.h>

#include "sim_helpers.h"
#include "thread_parts.h"

struct switch_case {
    const char *name;
    const char *good[3]; /* taken (NULL-terminated) */
    const char *bad[4];  /* refused (NULL-terminated) */
};

static const struct switch_case core_cases[] = {
    { "LATMC_ENS_OVERLAPS_HOST", { "1", "0", "" }, { "yes", "2", "1 ", NULL } },
    { "LATMC_ENS_LANES", { "reference", "nozeros", NULL }, { "Reference", "ref", NULL } },
    { "LATMC_CHECKPOINT_CHUNK_BYTES", { "1", "4096", NULL }, { "0", "12k", "-5", " 5" } },
    { "LATMC_MPI_SHARED_HALOS", { "0", "1", NULL }, { "no", NULL } },
    { "LATMC_ENS_HOST_ROUNDS", { "1", "0", NULL }, { "yes", "host", NULL } },
};

static const struct switch_case cuda_cases[] = {
    { "LATMC_CUDA_ISING_FORM", { "bits", "packed", NULL }, { "bit", "auto", NULL } },
    { "LATMC_CUDA_TEMPER", { "resident", "launches", NULL }, { "Resident", NULL } },
    { "LATMC_CUDA_ISING_PIECE_BYTES", { "65536", NULL }, { "1M", "0", NULL } },
    { "LATMC_ENS_POTTS_BATCH", { "0", "1", NULL }, { "off", NULL } },
    { "LATMC_ENS_PHI4_ROUND_SUMS", { "measure", "check", NULL }, { "fast", "Check", NULL } },
    { "LATMC_CUDA_EMBED", { "device", "host", NULL }, { "Device", "gpu", NULL } },
    { "LATMC_CUDA_BOX_SPLIT", { "1", "0", NULL }, { "yes", "2", NULL } },
    { "LATMC_ENS_SW_BATCH", { "0", "1", NULL }, { "no", NULL } },
    { "LATMC_CUDA_CHAIN", { "0", "1", NULL }, { "yes", "2", NULL } },
    { "LATMC_ENS_ISING_WORDS", { "2", "8", NULL }, { "3", "16", NULL } },
};

/* The 64^2 Ising sim every case makes (sim_helpers.h's desc, on `device`). */
static latmc_sim_desc case_desc(int device)
{
    latmc_sim_desc d = ising_desc(2, 64, 64, 0, LATMC_ALGO_DEFAULT, 0, 0);
    d.device = device;
    return d;
}

static int create_with(const char *name, const char *value, int device)
{
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim_desc d = case_desc(device);
    assert_int_equal(setenv(name, value, 1), 0);
    latmc_sim *sim = NULL;
    const int st = latmc_sim_create(ctx, &d, &sim);
    assert_int_equal(unsetenv(name), 0);
    if (st == LATMC_OK) {
        assert_non_null(sim);
        assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
        assert_int_equal(latmc_sim_sweep(sim, 1), LATMC_OK);
    } else {
        assert_null(sim);
    }
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
    return st;
}

static void check_cases(const struct switch_case *cases, size_t n, int device)
{
    for (size_t i = 0; i < n; i++) {
        const struct switch_case *c = &cases[i];
        for (int k = 0; k < 3 && c->good[k]; k++) {
            const int st = create_with(c->name, c->good[k], device);
            if (st != LATMC_OK)
                fail_msg("%s=\"%s\": %s (%s)", c->name, c->good[k], latmc_strerror(st),
                         latmc_last_error());
        }
        for (int k = 0; k < 4 && c->bad[k]; k++) {
            const int st = create_with(c->name, c->bad[k], device);
            if (st != LATMC_EINVAL)
                fail_msg("%s=\"%s\": status %d, not LATMC_EINVAL", c->name, c->bad[k], st);
            const char *msg = latmc_last_error();
            char quoted[64];
            snprintf(quoted, sizeof quoted, "\"%s\"", c->bad[k]);
            if (!strstr(msg, c->name) || !strstr(msg, quoted))
                fail_msg("%s=\"%s\": the message does not name both: %s", c->name, c->bad[k],
                         msg);
        }
    }
}

/* A long value refused: the message still names the variable and the values it takes (the
 * value shortened: printed whole, 600 characters would push them out of the message). */
static void check_long_value(const char *name, const char *values, int device)
{
    char value[601];
    memset(value, 'x', sizeof value - 1);
    value[sizeof value - 1] = '\0';
    const int st = create_with(name, value, device);
    if (st != LATMC_EINVAL)
        fail_msg("%s=<600 x>: status %d, not LATMC_EINVAL", name, st);
    const char *msg = latmc_last_error();
    char taken[64];
    snprintf(taken, sizeof taken, "\"%s\"", values);
    if (!strstr(msg, name) || !strstr(msg, "xxxx...\"") || !strstr(msg, taken))
        fail_msg("%s=<600 x>: the message does not name it, its start and %s: %s", name, taken,
                 msg);
}

/* A part's creation (rank of n over threads) with a bad core switch set for all: every
 * part refused with LATMC_EINVAL, none left waiting (the failure agreed, lib/part.c);
 * arg: the checkpoint to load (NULL: latmc_sim_create_part). */
static int part_status[THREAD_PARTS_MAX];

static void bad_part(int rank, int n, const latmc_transport *t, void *arg)
{
    latmc_ctx *ctx = NULL;
    if (latmc_ctx_create(&ctx) != LATMC_OK) {
        part_status[rank] = 1;
        return;
    }
    latmc_sim_desc d = case_desc(LATMC_DEVICE_CPU);
    latmc_sim *sim = NULL;
    part_status[rank] = arg ? latmc_sim_load_part(ctx, arg, rank, n, t, &sim)
                            : latmc_sim_create_part(ctx, &d, rank, n, t, &sim);
    if (sim)
        part_status[rank] = 2;
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
}

/* Every creation path goes through the check (doc/environment.md): a load, an ensemble's
 * members, an ensemble's load, parts over threads and their load. */
static void core_switch_paths(void **state)
{
    (void)state;
    char dir[] = "/tmp/latmc-env-XXXXXX", sim_path[64], ens_path[64];
    assert_non_null(mkdtemp(dir));
    snprintf(sim_path, sizeof sim_path, "%s/sim.ckpt", dir);
    snprintf(ens_path, sizeof ens_path, "%s/run.ens", dir);
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim_desc d = case_desc(LATMC_DEVICE_CPU);
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
    assert_int_equal(latmc_sim_save(sim, sim_path), LATMC_OK);
    latmc_sim_destroy(&sim);
    latmc_ens_layout l;
    latmc_ens_layout_init(&l);
    l.n_samples = 2;
    l.seed = 7;
    latmc_ens *e = NULL;
    d.extent[0] = d.extent[1] = 8;
    assert_int_equal(latmc_ens_create(ctx, &d, &l, &e), LATMC_OK);
    assert_int_equal(latmc_ens_init_spins(e, LATMC_INIT_HOT), LATMC_OK);
    assert_int_equal(latmc_ens_save(e, ens_path), LATMC_OK);
    latmc_ens_destroy(&e);

    assert_int_equal(setenv("LATMC_ENS_OVERLAPS_HOST", "yes", 1), 0);
    assert_int_equal(latmc_sim_load(ctx, sim_path, &sim), LATMC_EINVAL);
    assert_null(sim);
    assert_non_null(strstr(latmc_last_error(), "LATMC_ENS_OVERLAPS_HOST=\"yes\""));
    assert_int_equal(latmc_ens_create(ctx, &d, &l, &e), LATMC_EINVAL);
    assert_null(e);
    assert_non_null(strstr(latmc_last_error(), "LATMC_ENS_OVERLAPS_HOST=\"yes\""));
    assert_int_equal(latmc_ens_load(ctx, ens_path, &e), LATMC_EINVAL);
    assert_null(e);
    assert_non_null(strstr(latmc_last_error(), "LATMC_ENS_OVERLAPS_HOST=\"yes\""));
    for (int load = 0; load < 2; load++) {
        memset(part_status, 0, sizeof part_status);
        void *args[3] = { load ? sim_path : NULL, load ? sim_path : NULL,
                          load ? sim_path : NULL };
        assert_int_equal(thread_parts_run(3, NULL, bad_part, args, NULL), 0);
        for (int p = 0; p < 3; p++)
            if (part_status[p] != LATMC_EINVAL)
                fail_msg("%s: part %d: status %d, not LATMC_EINVAL",
                         load ? "latmc_sim_load_part" : "latmc_sim_create_part", p,
                         part_status[p]);
    }
    assert_int_equal(unsetenv("LATMC_ENS_OVERLAPS_HOST"), 0);
    latmc_ctx_destroy(&ctx);
    assert_int_equal(remove(sim_path), 0);
    assert_int_equal(remove(ens_path), 0);
    assert_int_equal(rmdir(dir), 0);
}

static void core_switches(void **state)
{
    (void)state;
    check_cases(core_cases, sizeof core_cases / sizeof *core_cases, LATMC_DEVICE_CPU);
    check_long_value("LATMC_ENS_LANES", "reference|plain|keys|nozeros", LATMC_DEVICE_CPU);
}

/* The executor's debug line naming box 0's halo transport (cuda_exec.c), and whether it
 * said the boxes are not split. */
static char transport[160];
static bool not_split;

static void on_log(void *user, int level, const char *msg)
{
    (void)user;
    (void)level;
    const char *at = strstr(msg, "halo transport of box 0: ");
    if (at) {
        snprintf(transport, sizeof transport, "%s", at + strlen("halo transport of box 0: "));
        not_split = strstr(msg, "(boxes not split)") != NULL;
    }
}

/* Box 0's halo transport of a 2-box Ising sim on one GPU made with LATMC_CUDA_BOX_COPY =
 * box and LATMC_CUDA_SLAB_COPY = slab (NULL: unset). */
static const char *box_transport(const char *box, const char *slab)
{
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_ctx_set_log(ctx, on_log, NULL, LATMC_LOG_DEBUG);
    latmc_sim_desc d = case_desc(LATMC_DEVICE_CUDA);
    d.n_parts = 2;
    if (box)
        assert_int_equal(setenv("LATMC_CUDA_BOX_COPY", box, 1), 0);
    if (slab)
        assert_int_equal(setenv("LATMC_CUDA_SLAB_COPY", slab, 1), 0);
    transport[0] = '\0';
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    unsetenv("LATMC_CUDA_BOX_COPY");
    unsetenv("LATMC_CUDA_SLAB_COPY");
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
    return transport;
}

/* The older name LATMC_CUDA_SLAB_COPY is read where LATMC_CUDA_BOX_COPY is unset, the empty
 * value counting as unset (as the check at creation takes it, lib/env_switch.h). */
static void cuda_box_copy_names(void)
{
    assert_string_equal(box_transport(NULL, NULL), "same device, one launch");
    assert_string_equal(box_transport("memcpy", NULL), "same device, copies");
    assert_string_equal(box_transport(NULL, "memcpy"), "same device, copies");
    assert_string_equal(box_transport("", "memcpy"), "same device, copies");
}

/* Boxes of one GPU are not split unless LATMC_CUDA_BOX_SPLIT=1 (cuda_exec.c); 0 splits no
 * box (the boxes of several GPUs neither), so for one GPU's boxes it is the default. */
static void cuda_box_split(void)
{
    assert_string_equal(box_transport(NULL, NULL), "same device, one launch");
    assert_true(not_split);
    assert_int_equal(setenv("LATMC_CUDA_BOX_SPLIT", "1", 1), 0);
    assert_string_equal(box_transport(NULL, NULL), "same device, one launch");
    unsetenv("LATMC_CUDA_BOX_SPLIT");
    assert_false(not_split);
    assert_int_equal(setenv("LATMC_CUDA_BOX_SPLIT", "0", 1), 0);
    assert_string_equal(box_transport(NULL, NULL), "same device, one launch");
    unsetenv("LATMC_CUDA_BOX_SPLIT");
    assert_true(not_split);
}

static void cuda_switches(void **state)
{
    (void)state;
    check_cases(cuda_cases, sizeof cuda_cases / sizeof *cuda_cases, LATMC_DEVICE_CUDA);
    /* the core's switches hold for every device */
    check_cases(core_cases, 1, LATMC_DEVICE_CUDA);
    check_long_value("LATMC_CUDA_TEMPER", "resident|launches", LATMC_DEVICE_CUDA);
    cuda_box_copy_names();
    cuda_box_split();
}

int main(int argc, char **argv)
{
    if (test_no_arguments(argc, argv))
        return 2;
    const int pre = test_device_check();
    if (pre != 0)
        return pre;
    if (test_device() == LATMC_DEVICE_CUDA) {
        const struct CMUnitTest tests[] = { cmocka_unit_test(cuda_switches) };
        return cmocka_run_group_tests_name("env_switches_cuda", tests, NULL, NULL);
    }
    const struct CMUnitTest tests[] = { cmocka_unit_test(core_switches),
                                        cmocka_unit_test(core_switch_paths) };
    return cmocka_run_group_tests_name("env_switches_cpu", tests, NULL, NULL);
}
