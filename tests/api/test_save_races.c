/*
 * A checkpoint's path changing while it is saved (doc/checkpoints.md, "Safety"). The
 * save checks the path before it writes; this test changes it in the window between that
 * check and the rename that puts the new file in place, deterministically: it interposes
 * fsync(), which the save calls on its temporary file just before the rename, and there
 * replaces the target with a FIFO, a directory or another regular file. Anything that is
 * not a regular file must survive (the save fails with LATMC_EIO and says so); a regular
 * file is replaced as usual; no temporary file is left.
 */
#define _GNU_SOURCE /* RTLD_NEXT */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim_helpers.h"

static char dir[64];

/* ---- the window: fsync of a regular file, once, runs `during_save` first ---- */

static void (*during_save)(const char *target);
static const char *during_target;

int fsync(int fd)
{
    static int (*real_fsync)(int);
    if (!real_fsync)
        real_fsync = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    struct stat st;
    if (during_save && fstat(fd, &st) == 0 && S_ISREG(st.st_mode)) {
        void (*hook)(const char *) = during_save;
        during_save = NULL;
        hook(during_target);
    }
    return real_fsync(fd);
}

static void becomes_fifo(const char *target)
{
    unlink(target);
    assert_int_equal(mkfifo(target, 0600), 0);
}

static void becomes_directory(const char *target)
{
    unlink(target);
    assert_int_equal(mkdir(target, 0700), 0);
}

/* another writer's complete file (a copy of the target as it was) renamed over it */
static void becomes_other_file(const char *target)
{
    char other[256];
    snprintf(other, sizeof other, "%s.other", target);
    FILE *f = fopen(other, "wb");
    assert_non_null(f);
    fputs("another writer's bytes", f);
    fclose(f);
    assert_int_equal(rename(other, target), 0);
}

static char *in_dir(const char *name)
{
    char *p = malloc(strlen(dir) + strlen(name) + 2);
    sprintf(p, "%s/%s", dir, name);
    return p;
}

static latmc_sim *new_ising(latmc_ctx *ctx, uint64_t sweeps)
{
    latmc_sim_desc d = ising_desc(2, 8, 8, 0, LATMC_ALGO_METROPOLIS, 1, 5);
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
    assert_int_equal(latmc_sim_sweep(sim, sweeps), LATMC_OK);
    return sim;
}

/* The entries of the test directory other than `keep` (temporary files left behind). */
static int others_in_dir(const char *keep)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
            (!keep || strcmp(e->d_name, keep))) {
            print_error("left in the directory: %s\n", e->d_name);
            n++;
        }
    closedir(d);
    return n;
}

static void remove_any(const char *path)
{
    if (unlink(path) != 0)
        rmdir(path);
}

/*
 * The target (existing or not at the start) turns into a FIFO or a directory in the
 * window: the save fails, the FIFO or directory is still there, nothing else is left.
 * On 995e5fe the rename destroyed the FIFO (and saved with LATMC_OK).
 */
static void non_regular_file_appears_during_save(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim *sim = new_ising(ctx, 3);
    char *target = in_dir("run.ckpt");
    const struct {
        void (*change)(const char *);
        const char *kind;
        mode_t type;
    } cases[] = {
        { becomes_fifo, "FIFO", S_IFIFO },
        { becomes_directory, "directory", S_IFDIR },
    };
    for (int exists = 0; exists < 2; exists++)
        for (size_t c = 0; c < sizeof cases / sizeof *cases; c++) {
            if (exists)
                assert_int_equal(latmc_sim_save(sim, target), LATMC_OK);
            during_target = target;
            during_save = cases[c].change;
            const int st = latmc_sim_save(sim, target);
            assert_null(during_save); /* the window was reached */
            if (st != LATMC_EIO)
                fail_msg("%s target, becomes a %s: save gave %d (%s)",
                         exists ? "existing" : "missing", cases[c].kind, st,
                         latmc_last_error());
            const char *msg = latmc_sim_last_error(sim);
            print_message("refused: %s\n", msg);
            assert_non_null(strstr(msg, cases[c].kind));
            assert_non_null(strstr(msg, "during the save"));
            struct stat stt;
            assert_int_equal(lstat(target, &stt), 0);
            assert_true((stt.st_mode & S_IFMT) == cases[c].type);
            assert_int_equal(others_in_dir("run.ckpt"), 0);
            remove_any(target);
        }
    free(target);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
}

/* Another regular file renamed over the target in the window (a concurrent writer): the
 * save replaces it as it replaces any regular file; a link to the target stays a link. */
static void regular_file_replaced_during_save(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim *sim = new_ising(ctx, 4);
    char *target = in_dir("run.ckpt"), *link = in_dir("link.ckpt");
    assert_int_equal(latmc_sim_save(sim, target), LATMC_OK);
    assert_int_equal(symlink("run.ckpt", link), 0);
    for (int via_link = 0; via_link < 2; via_link++) {
        during_target = target;
        during_save = becomes_other_file;
        assert_int_equal(latmc_sim_save(sim, via_link ? link : target), LATMC_OK);
        assert_null(during_save);
        latmc_sim *back = NULL;
        assert_int_equal(latmc_sim_load(ctx, target, &back), LATMC_OK);
        uint64_t n = 0;
        assert_int_equal(latmc_sim_sweep_count(back, &n), LATMC_OK);
        assert_int_equal(n, 4);
        latmc_sim_destroy(&back);
        struct stat st;
        assert_int_equal(lstat(link, &st), 0);
        assert_true(S_ISLNK(st.st_mode));
    }
    unlink(link);
    assert_int_equal(others_in_dir("run.ckpt"), 0);
    unlink(target);
    free(target);
    free(link);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
}

int main(void)
{
    strcpy(dir, "/tmp/latmc-save-races-XXXXXX");
    if (mkdtemp(dir) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(non_regular_file_appears_during_save),
        cmocka_unit_test(regular_file_replaced_during_save),
    };
    int failed = cmocka_run_group_tests_name("save races", tests, NULL, NULL);
    if (rmdir(dir) != 0) /* leaves the evidence when a test left files behind */
        fprintf(stderr, "left %s behind\n", dir);
    return failed;
}
