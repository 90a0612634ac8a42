/*
 * A checkpoint's path changing while it is saved (doc/checkpoints.md, "Safety"). The
 * save checks the path before it writes; this test changes it in the window between that
 * check and the rename that puts the new file in place, deterministically: it interposes
 * fsync(), which the save calls on its temporary file just before the rename, and there
 * replaces the target with a FIFO, a directory or another regular file. Anything that is
 * not a regular file must survive (the save fails with LATMC_EIO and says so); a regular
 * file is replaced as usual; no temporary file is left.
 *
 * And the temporary files of writers killed mid-save (in the same window, by SIGKILL):
 * the next save to that path removes them, never one of a live writer, of another host
 * or pid namespace, of an older release's name or of another target.
 *
 *   test_save_races                          (the tests)
 *   test_save_races --die-in-save PATH       (a writer killed in the window)
 *   test_save_races --hang-in-save PATH FD   (a writer that writes a byte to FD there and
 *                                             waits to be killed)
 */
#define _GNU_SOURCE /* RTLD_NEXT */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <signal.h>
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
static char self[4096]; /* this executable, for the writer processes */
static int hang_fd = -1;

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

/* ---- temporaries of dead writers ---- */

static void die_here(const char *target)
{
    (void)target;
    raise(SIGKILL);
}

static void hang_here(const char *target)
{
    (void)target;
    (void)!write(hang_fd, "x", 1);
    for (;;)
        pause();
}

/* A writer process (exec'ed: no OpenMP state across a fork) that stops in the window. */
static int writer_main(const char *path, void (*hook)(const char *))
{
    latmc_ctx *ctx = NULL;
    latmc_sim *sim = NULL;
    latmc_sim_desc d = ising_desc(2, 64, 64, 0, LATMC_ALGO_METROPOLIS, 1, 11);
    if (latmc_ctx_create(&ctx) != LATMC_OK || latmc_sim_create(ctx, &d, &sim) != LATMC_OK ||
        latmc_sim_init_spins(sim, LATMC_INIT_HOT) != LATMC_OK)
        return 2;
    during_target = path;
    during_save = hook;
    latmc_sim_save(sim, path);
    return 3; /* the hook never returns */
}

static pid_t spawn(const char *how, const char *path, int fd)
{
    char fd_arg[16];
    snprintf(fd_arg, sizeof fd_arg, "%d", fd);
    const pid_t pid = fork();
    if (pid == 0) {
        execl(self, self, how, path, fd_arg, (char *)NULL);
        _exit(127);
    }
    assert_true(pid > 0);
    return pid;
}

/* A writer killed in the window: its temporary file is there, and its pid is gone. */
static pid_t killed_writer(const char *path)
{
    const pid_t pid = spawn("--die-in-save", path, -1);
    int status = 0;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_true(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    return pid;
}

/* The names in the test directory that start with `prefix`: their count, the first's. */
static int names_with(const char *prefix, char *first, size_t cap)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0) {
            if (n++ == 0 && first)
                snprintf(first, cap, "%s", e->d_name);
        }
    closedir(d);
    return n;
}

static void touch(const char *name)
{
    char *p = in_dir(name);
    FILE *f = fopen(p, "wb");
    assert_non_null(f);
    fputs("not a checkpoint", f);
    fclose(f);
    free(p);
}

/*
 * On 995e5fe nothing removed a dead writer's temporary file (the campaign: 26 left by 60
 * kills, each as large as the checkpoint): the first check below fails there.
 */
static void dead_writers_temporaries_removed(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim *sim = new_ising(ctx, 2);
    char *target = in_dir("run.ckpt");
    assert_int_equal(latmc_sim_save(sim, target), LATMC_OK);

    /* three writers killed mid-save, one after the other: each one's save removed the
     * file of the one before, the last one's file is there; the next save removes it */
    for (int k = 0; k < 3; k++)
        killed_writer(target);
    char name[256];
    const int left = names_with("run.ckpt.tmp-", name, sizeof name);
    if (left != 1)
        fail_msg("%d temporary files after 3 writers were killed (1 expected)", left);
    assert_int_equal(latmc_sim_save(sim, target), LATMC_OK);
    if (names_with("run.ckpt.tmp-", name, sizeof name) != 0)
        fail_msg("a dead writer's temporary file is left: %s", name);

    /* what is not a dead writer's of this host, pid namespace and target is kept: a
     * temporary of another host (its tag changed), an older release's name (no tag), a
     * name that only looks like one, and another target's dead writer's */
    killed_writer(target);
    assert_int_equal(names_with("run.ckpt.tmp-", name, sizeof name), 1);
    char *dash = strchr(name + strlen("run.ckpt.tmp-"), '-'); /* <pid>-<tag>-... */
    assert_non_null(dash);
    const char tag0 = dash[1];
    char *from = in_dir(name);
    dash[1] = tag0 == '0' ? '1' : '0';
    char *to = in_dir(name);
    dash[1] = tag0;
    assert_int_equal(rename(from, to), 0); /* now "another host's" */
    long dead = 0;
    assert_int_equal(sscanf(name + strlen("run.ckpt.tmp-"), "%ld", &dead), 1);
    char old_style[128], lookalike[128];
    snprintf(old_style, sizeof old_style, "run.ckpt.tmp-%ld-0-12345", dead);
    snprintf(lookalike, sizeof lookalike, "run.ckpt.tmp-%ld-notes", dead);
    touch(old_style);
    touch(lookalike);
    char *other = in_dir("other.ckpt");
    killed_writer(other);
    assert_int_equal(names_with("other.ckpt.tmp-", NULL, 0), 1);
    assert_int_equal(latmc_sim_save(sim, target), LATMC_OK);
    assert_int_equal(names_with("run.ckpt.tmp-", NULL, 0), 3);
    assert_int_equal(names_with("other.ckpt.tmp-", NULL, 0), 1);
    assert_int_equal(latmc_sim_save(sim, other), LATMC_OK); /* its own: removed */
    assert_int_equal(names_with("other.ckpt.tmp-", NULL, 0), 0);
    unlink(to);
    char *p = in_dir(old_style);
    unlink(p);
    free(p);
    p = in_dir(lookalike);
    unlink(p);
    free(p);
    unlink(other);

    /* a live writer stopped in the window: its temporary file stays until it is gone */
    int fds[2];
    assert_int_equal(pipe(fds), 0);
    const pid_t live = spawn("--hang-in-save", target, fds[1]);
    close(fds[1]);
    char byte = 0;
    assert_int_equal(read(fds[0], &byte, 1), 1); /* it is in the window */
    close(fds[0]);
    assert_int_equal(names_with("run.ckpt.tmp-", NULL, 0), 1);
    assert_int_equal(latmc_sim_save(sim, target), LATMC_OK);
    assert_int_equal(names_with("run.ckpt.tmp-", NULL, 0), 1);
    kill(live, SIGKILL);
    int status = 0;
    assert_int_equal(waitpid(live, &status, 0), live);
    assert_int_equal(latmc_sim_save(sim, target), LATMC_OK);
    assert_int_equal(names_with("run.ckpt.tmp-", NULL, 0), 0);

    assert_int_equal(others_in_dir("run.ckpt"), 0);
    unlink(target);
    free(target);
    free(other);
    free(from);
    free(to);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "--die-in-save") == 0)
        return writer_main(argv[2], die_here);
    if (argc == 4 && strcmp(argv[1], "--hang-in-save") == 0) {
        hang_fd = atoi(argv[3]);
        return writer_main(argv[2], hang_here);
    }
    const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        snprintf(self, sizeof self, "%s", argv[0]);
    else
        self[n] = '\0';

    strcpy(dir, "/tmp/latmc-save-races-XXXXXX");
    if (mkdtemp(dir) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(non_regular_file_appears_during_save),
        cmocka_unit_test(regular_file_replaced_during_save),
        cmocka_unit_test(dead_writers_temporaries_removed),
    };
    int failed = cmocka_run_group_tests_name("save races", tests, NULL, NULL);
    if (rmdir(dir) != 0) /* leaves the evidence when a test left files behind */
        fprintf(stderr, "left %s behind\n", dir);
    return failed;
}
