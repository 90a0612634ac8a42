/*
 * Checkpoint files on a real file system (doc/checkpoints.md, "Safety"):
 *  - a symlink is followed: the file it names is replaced, the link stays a link
 *    (absolute, relative, chained and dangling links);
 *  - a FIFO (or a link to one) or a directory is refused by latmc_sim_save with LATMC_EIO,
 *    at once (never opened: a FIFO would block) and left as it was; latmc_sim_load refuses
 *    FIFOs, directories and /dev/zero the same way, without blocking or reading;
 *  - replacing a file keeps its permissions, and no temporary file is left behind;
 *  - concurrent writers (threads of this process and other processes) saving one path in
 *    a loop while this thread loads it: every load succeeds (a reader always sees a
 *    complete file), every save succeeds, the final file loads;
 *  - a large sparse file whose header declares its size is refused from its desc, unread;
 *  - messages name the function, the path, the system's reason and what to do.
 * Everything happens in a mkdtemp directory; device nodes are never created or written.
 *
 *   test_checkpoint_files                  (the tests)
 *   test_checkpoint_files --writer PATH N  (one writer process of the concurrency test)
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "sim_helpers.h"

static char self[4096]; /* this executable, for the writer processes */
static char dir[64];

static char *in_dir(const char *name)
{
    char *p = malloc(strlen(dir) + strlen(name) + 2);
    sprintf(p, "%s/%s", dir, name);
    return p;
}

static latmc_sim *new_ising(latmc_ctx *ctx, uint64_t seed, uint64_t sweeps)
{
    latmc_sim_desc d = ising_desc(2, 8, 8, 0, LATMC_ALGO_METROPOLIS, 1, seed);
    latmc_sim *sim = NULL;
    assert_int_equal(latmc_sim_create(ctx, &d, &sim), LATMC_OK);
    assert_int_equal(latmc_sim_set_param(sim, LATMC_PARAM_BETA, 0.4), LATMC_OK);
    assert_int_equal(latmc_sim_init_spins(sim, LATMC_INIT_HOT), LATMC_OK);
    assert_int_equal(latmc_sim_sweep(sim, sweeps), LATMC_OK);
    return sim;
}

static uint64_t sweeps_in(latmc_ctx *ctx, const char *path)
{
    latmc_sim *sim = NULL;
    int st = latmc_sim_load(ctx, path, &sim);
    if (st != LATMC_OK)
        print_error("load %s: %s\n", path, latmc_last_error());
    assert_int_equal(st, LATMC_OK);
    uint64_t n = 0;
    assert_int_equal(latmc_sim_sweep_count(sim, &n), LATMC_OK);
    latmc_sim_destroy(&sim);
    return n;
}

/* Entries of the test directory other than those named (temporary files left behind). */
static int others_in_dir(const char *const *names, int count)
{
    DIR *d = opendir(dir);
    assert_non_null(d);
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        int known = 0;
        for (int i = 0; i < count; i++)
            known |= strcmp(e->d_name, names[i]) == 0;
        if (!known) {
            print_error("left in the directory: %s\n", e->d_name);
            n++;
        }
    }
    closedir(d);
    return n;
}

static void symlinks_are_followed_and_kept(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    char *target = in_dir("target.ckpt"), *abs_link = in_dir("abs.ckpt");
    char *rel_link = in_dir("rel.ckpt"), *chain = in_dir("chain.ckpt");
    char *dangling = in_dir("dangling.ckpt"), *fresh = in_dir("fresh.ckpt");
    latmc_sim *a = new_ising(ctx, 1, 3);
    assert_int_equal(latmc_sim_save(a, target), LATMC_OK);
    assert_int_equal(chmod(target, 0640), 0);
    assert_int_equal(symlink(target, abs_link), 0);
    assert_int_equal(symlink("target.ckpt", rel_link), 0);
    assert_int_equal(symlink("rel.ckpt", chain), 0);
    assert_int_equal(symlink("fresh.ckpt", dangling), 0);

    const char *links[] = { abs_link, rel_link, chain };
    for (int i = 0; i < 3; i++) {
        assert_int_equal(latmc_sim_sweep(a, 1), LATMC_OK);
        assert_int_equal(latmc_sim_save(a, links[i]), LATMC_OK);
        struct stat st;
        assert_int_equal(lstat(links[i], &st), 0);
        assert_true(S_ISLNK(st.st_mode));
        assert_int_equal(lstat(target, &st), 0);
        assert_true(S_ISREG(st.st_mode));
        assert_int_equal(st.st_mode & 0777, 0640); /* permissions kept */
        assert_int_equal(sweeps_in(ctx, target), 4 + (uint64_t)i);
    }
    /* A dangling link: the file it names is created, the link stays. */
    assert_int_equal(latmc_sim_save(a, dangling), LATMC_OK);
    struct stat st;
    assert_int_equal(lstat(dangling, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_int_equal(sweeps_in(ctx, fresh), 6);
    const char *names[] = { "target.ckpt", "abs.ckpt", "rel.ckpt", "chain.ckpt",
                            "dangling.ckpt", "fresh.ckpt" };
    assert_int_equal(others_in_dir(names, 6), 0);

    /* A loop of links is refused with a message. */
    char *loop = in_dir("loop.ckpt");
    assert_int_equal(symlink("loop.ckpt", loop), 0);
    assert_int_equal(latmc_sim_save(a, loop), LATMC_EIO);
    assert_non_null(strstr(latmc_sim_last_error(a), "symbolic link"));
    unlink(loop);
    free(loop);

    latmc_sim_destroy(&a);
    const char *all[] = { target, abs_link, rel_link, chain, dangling, fresh };
    for (int i = 0; i < 6; i++) {
        unlink(all[i]);
        free((void *)all[i]);
    }
    latmc_ctx_destroy(&ctx);
}

static void on_alarm(int sig)
{
    (void)sig;
    static const char msg[] = "test_checkpoint_files: blocked on a FIFO\n";
    (void)!write(2, msg, sizeof msg - 1);
    _exit(1);
}

static void expect_refused_save(latmc_sim *sim, const char *path, const char *kind)
{
    assert_int_equal(latmc_sim_save(sim, path), LATMC_EIO);
    const char *msg = latmc_sim_last_error(sim);
    print_message("save refused: %s\n", msg);
    assert_non_null(strstr(msg, kind));
    assert_non_null(strstr(msg, "regular file"));
    assert_non_null(strstr(msg, "latmc_sim_save"));
}

static void expect_refused_load(latmc_ctx *ctx, const char *path, const char *kind)
{
    latmc_sim *sim = (latmc_sim *)(uintptr_t)1;
    assert_int_equal(latmc_sim_load(ctx, path, &sim), LATMC_EIO);
    assert_null(sim);
    const char *msg = latmc_last_error();
    if (strstr(msg, kind) == NULL || strstr(msg, path) == NULL)
        print_error("message: %s\n", msg ? msg : "(none)");
    assert_non_null(strstr(msg, kind));
    assert_non_null(strstr(msg, path));
    assert_non_null(strstr(msg, "latmc_sim_save"));
    size_t size = 7;
    assert_int_equal(latmc_checkpoint_app_data(path, NULL, 0, &size), LATMC_EIO);
    assert_int_equal(size, 0);
    /* an ensemble file the same, its message naming the ensemble's writer */
    latmc_ens *ens = (latmc_ens *)&ens;
    assert_int_equal(latmc_ens_load(ctx, path, &ens), LATMC_EIO);
    assert_null(ens);
    msg = latmc_last_error();
    if (strstr(msg, kind) == NULL || strstr(msg, "latmc_ens_save") == NULL)
        print_error("message: %s\n", msg ? msg : "(none)");
    assert_non_null(strstr(msg, kind));
    assert_non_null(strstr(msg, "latmc_ens_save"));
}

/* FIFOs, links to FIFOs and directories: refused at once (sims and ensembles), left as
 * they were. */
static void non_regular_files_are_refused(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    char *fifo = in_dir("fifo"), *to_fifo = in_dir("to-fifo"), *sub = in_dir("sub");
    assert_int_equal(mkfifo(fifo, 0600), 0);
    assert_int_equal(symlink("fifo", to_fifo), 0);
    assert_int_equal(mkdir(sub, 0700), 0);
    latmc_sim *a = new_ising(ctx, 2, 1);
    signal(SIGALRM, on_alarm);
    alarm(20); /* opening the FIFO for reading or writing would block: fail instead */
    expect_refused_save(a, fifo, "FIFO");
    expect_refused_save(a, to_fifo, "FIFO");
    expect_refused_save(a, sub, "directory");
    expect_refused_load(ctx, fifo, "FIFO");
    expect_refused_load(ctx, to_fifo, "FIFO");
    expect_refused_load(ctx, sub, "directory");
    struct stat st;
    if (stat("/dev/zero", &st) == 0 && S_ISCHR(st.st_mode))
        expect_refused_load(ctx, "/dev/zero", "character device"); /* read-only use */
    alarm(0);
    assert_int_equal(lstat(fifo, &st), 0);
    assert_true(S_ISFIFO(st.st_mode));
    assert_int_equal(lstat(to_fifo, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_int_equal(lstat(sub, &st), 0);
    assert_true(S_ISDIR(st.st_mode));
    const char *names[] = { "fifo", "to-fifo", "sub" };
    assert_int_equal(others_in_dir(names, 3), 0);
    latmc_sim_destroy(&a);
    unlink(to_fifo);
    unlink(fifo);
    rmdir(sub);
    free(fifo);
    free(to_fifo);
    free(sub);
    latmc_ctx_destroy(&ctx);
}

/* Item 11: what failed, on which file, why, and what to do. */
static void messages_name_path_step_reason_and_remedy(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    latmc_sim *sim = NULL;
    char *missing = in_dir("no-such-dir/x.ckpt");
    assert_int_equal(latmc_sim_load(ctx, missing, &sim), LATMC_EIO);
    const char *msg = latmc_last_error();
    assert_non_null(strstr(msg, "latmc_sim_load"));
    assert_non_null(strstr(msg, missing));
    assert_non_null(strstr(msg, strerror(ENOENT)));
    assert_non_null(strstr(msg, "check that the directory exists"));

    latmc_sim *a = new_ising(ctx, 3, 1);
    assert_int_equal(latmc_sim_save(a, missing), LATMC_EIO);
    msg = latmc_sim_last_error(a);
    assert_non_null(strstr(msg, "latmc_sim_save"));
    assert_non_null(strstr(msg, "temporary file"));
    assert_non_null(strstr(msg, missing));
    assert_non_null(strstr(msg, strerror(ENOENT)));
    assert_non_null(strstr(msg, "check that the directory exists"));

    /* A damaged file: the path and the reason. */
    char *bad = in_dir("bad.ckpt");
    FILE *f = fopen(bad, "wb");
    assert_non_null(f);
    fputs("LATMCCKP and then nothing that makes sense", f);
    fclose(f);
    assert_int_equal(latmc_sim_load(ctx, bad, &sim), LATMC_ECORRUPT);
    msg = latmc_last_error();
    assert_non_null(strstr(msg, "latmc_sim_load"));
    assert_non_null(strstr(msg, bad));
    assert_non_null(strstr(msg, "declares"));
    unlink(bad);
    free(bad);
    free(missing);
    latmc_sim_destroy(&a);
    latmc_ctx_destroy(&ctx);
}

/* A large sparse file whose header declares its (apparent) size: the desc vouches for a
 * few hundred bytes, so the loader refuses it from its first bytes, without allocating or
 * reading 4 GiB. */
static void large_sparse_file_is_not_read(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    char *path = in_dir("sparse.ckpt");
    latmc_sim *a = new_ising(ctx, 4, 2);
    assert_int_equal(latmc_sim_save(a, path), LATMC_OK);
    latmc_sim_destroy(&a);
    const uint64_t big = (uint64_t)4 << 30;
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    unsigned char size_field[8];
    for (int i = 0; i < 8; i++)
        size_field[i] = (unsigned char)(big >> (8 * i));
    assert_int_equal(fseek(f, 16, SEEK_SET), 0); /* the total size (doc/checkpoints.md) */
    assert_int_equal(fwrite(size_field, 1, 8, f), 8);
    fclose(f);
    if (truncate(path, (off_t)big) != 0) {
        print_message("skipped: cannot make a sparse file here: %s\n", strerror(errno));
    } else {
        latmc_sim *sim = (latmc_sim *)(uintptr_t)1;
        assert_int_equal(latmc_sim_load(ctx, path, &sim), LATMC_ECORRUPT);
        assert_null(sim);
        const char *msg = latmc_last_error();
        print_message("load refused: %s\n", msg);
        assert_non_null(strstr(msg, "desc implies"));
        assert_non_null(strstr(msg, path));
    }
    unlink(path);
    free(path);
    latmc_ctx_destroy(&ctx);
}

/* ---- concurrent writers ---- */

#define WRITER_SAVES 25

struct writer {
    const char *path;
    uint64_t seed;
    int failures;
};

static void *writer_thread(void *arg)
{
    struct writer *w = arg;
    latmc_ctx *ctx = NULL;
    latmc_sim *sim = NULL;
    latmc_sim_desc d = ising_desc(2, 16, 16, 0, LATMC_ALGO_METROPOLIS, 1, w->seed);
    if (latmc_ctx_create(&ctx) != LATMC_OK || latmc_sim_create(ctx, &d, &sim) != LATMC_OK ||
        latmc_sim_init_spins(sim, LATMC_INIT_HOT) != LATMC_OK) {
        w->failures++;
    } else {
        for (int i = 0; i < WRITER_SAVES; i++)
            if (latmc_sim_sweep(sim, 1) != LATMC_OK || latmc_sim_save(sim, w->path) != LATMC_OK) {
                fprintf(stderr, "writer %llu: %s\n", (unsigned long long)w->seed,
                        latmc_sim_last_error(sim));
                w->failures++;
            }
    }
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
    return NULL;
}

static pid_t spawn_writer(const char *path, int seed)
{
    char seed_arg[16];
    snprintf(seed_arg, sizeof seed_arg, "%d", seed);
    pid_t pid = fork();
    if (pid == 0) {
        execl(self, self, "--writer", path, seed_arg, (char *)NULL);
        _exit(127);
    }
    return pid;
}

static void concurrent_writers_and_a_reader(void **state)
{
    (void)state;
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    char *path = in_dir("shared.ckpt");
    latmc_sim *first = new_ising(ctx, 9, 1);
    assert_int_equal(latmc_sim_save(first, path), LATMC_OK);
    latmc_sim_destroy(&first);

    pid_t procs[2];
    for (int i = 0; i < 2; i++)
        procs[i] = spawn_writer(path, 100 + i);
    struct writer w[2] = { { path, 200, 0 }, { path, 201, 0 } };
    pthread_t threads[2];
    for (int i = 0; i < 2; i++)
        assert_int_equal(pthread_create(&threads[i], NULL, writer_thread, &w[i]), 0);

    /* Load while they write: each load sees some writer's complete file. */
    int loads = 0, bad_loads = 0, running = 2;
    while (running > 0 || loads < 20) {
        latmc_sim *sim = NULL;
        int st = latmc_sim_load(ctx, path, &sim);
        if (st != LATMC_OK) {
            print_error("load %d: %s\n", loads, latmc_last_error());
            bad_loads++;
        }
        latmc_sim_destroy(&sim);
        loads++;
        running = 0;
        for (int i = 0; i < 2; i++)
            if (procs[i] > 0) {
                int status = 0;
                pid_t done = waitpid(procs[i], &status, WNOHANG);
                if (done == procs[i]) {
                    assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
                    procs[i] = 0;
                } else {
                    running++;
                }
            }
    }
    for (int i = 0; i < 2; i++) {
        assert_int_equal(pthread_join(threads[i], NULL), 0);
        assert_int_equal(w[i].failures, 0);
    }
    print_message("%d loads during %d concurrent saves\n", loads, 4 * WRITER_SAVES);
    assert_int_equal(bad_loads, 0);
    assert_int_equal(sweeps_in(ctx, path), WRITER_SAVES); /* the last writer's last save */
    const char *names[] = { "shared.ckpt" };
    assert_int_equal(others_in_dir(names, 1), 0);
    unlink(path);
    free(path);
    latmc_ctx_destroy(&ctx);
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "--writer") == 0) {
        struct writer w = { argv[2], strtoull(argv[3], NULL, 10), 0 };
        writer_thread(&w);
        return w.failures == 0 ? 0 : 1;
    }
    ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0) {
        snprintf(self, sizeof self, "%s", argv[0]);
    } else {
        self[n] = '\0';
    }
    strcpy(dir, "/tmp/latmc-ckpt-files-XXXXXX");
    if (mkdtemp(dir) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(symlinks_are_followed_and_kept),
        cmocka_unit_test(non_regular_files_are_refused),
        cmocka_unit_test(messages_name_path_step_reason_and_remedy),
        cmocka_unit_test(large_sparse_file_is_not_read),
        cmocka_unit_test(concurrent_writers_and_a_reader),
    };
    int failed = cmocka_run_group_tests_name("checkpoint files", tests, NULL, NULL);
    rmdir(dir); /* fails, and leaves the evidence, when a test left files behind */
    return failed;
}
