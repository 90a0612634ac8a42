/*
 * SIGKILL during saves (doc/checkpoints.md, "Safety"; a small CI form of the kill
 * campaign): writer processes resume the chain from the checkpoint at one path, sweep and
 * save in a loop, and are killed at random moments, one writer at a time or two at once on
 * the same path. After every kill the path must hold a checkpoint that loads (or none yet,
 * before the first save completed), and its sweep count must never go back (no saved
 * progress lost); temporary files left by killed writers are counted: at most one per
 * writer killed in that round may be there (the next save to the path removes them), and
 * after a final save none is left.
 *
 *   test_kill_save                      (the test; LATMC_KILL_ROUNDS rounds, default 24)
 *   test_kill_save --writer PATH SEED   (a writer: runs until killed)
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <latmc/latmc.h>

static char self[4096];
static char dir[64];

/* Heisenberg, 2 replicas, Gaussian couplings, 48^3: a file of a few MB, so that a save
 * takes long enough for kills to land inside it. */
static latmc_sim_desc writer_desc(uint64_t seed)
{
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_HEISENBERG;
    d.ndim = 3;
    d.extent[0] = d.extent[1] = d.extent[2] = 32;
    d.replicas = 2;
    d.couplings = LATMC_COUPLINGS_GAUSSIAN;
    d.seed = seed;
    d.n_threads = 1;
    return d;
}

static int writer_main(const char *path, uint64_t seed)
{
    latmc_ctx *ctx = NULL;
    if (latmc_ctx_create(&ctx) != LATMC_OK)
        return 2;
    latmc_sim *sim = NULL;
    /* resume the chain where the last complete save left it */
    if (latmc_sim_load(ctx, path, &sim) != LATMC_OK) {
        latmc_sim_desc d = writer_desc(seed);
        if (latmc_sim_create(ctx, &d, &sim) != LATMC_OK ||
            latmc_sim_set_param(sim, LATMC_PARAM_BETA, 1.0) != LATMC_OK ||
            latmc_sim_init_spins(sim, LATMC_INIT_HOT) != LATMC_OK)
            return 3;
    }
    for (;;)
        if (latmc_sim_sweep(sim, 1) != LATMC_OK || latmc_sim_save(sim, path) != LATMC_OK) {
            fprintf(stderr, "writer: %s\n", latmc_sim_last_error(sim));
            return 4;
        }
}

static pid_t spawn_writer(const char *path, int seed)
{
    char seed_arg[16];
    snprintf(seed_arg, sizeof seed_arg, "%d", seed);
    const pid_t pid = fork();
    if (pid == 0) {
        execl(self, self, "--writer", path, seed_arg, (char *)NULL);
        _exit(127);
    }
    return pid;
}

static int temporaries(const char *prefix)
{
    DIR *d = opendir(dir);
    if (!d)
        return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        n += strncmp(e->d_name, prefix, strlen(prefix)) == 0;
    closedir(d);
    return n;
}

static void sleep_ms(long ms)
{
    struct timespec t = { ms / 1000, (ms % 1000) * 1000000L };
    while (nanosleep(&t, &t) != 0 && errno == EINTR)
        ;
}

int main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "--writer") == 0)
        return writer_main(argv[2], strtoull(argv[3], NULL, 10));
    const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    if (n <= 0)
        snprintf(self, sizeof self, "%s", argv[0]);
    else
        self[n] = '\0';
    const char *env = getenv("LATMC_KILL_ROUNDS");
    const int rounds = env ? atoi(env) : 24;
    strcpy(dir, "/tmp/latmc-kill-save-XXXXXX");
    if (!mkdtemp(dir)) {
        perror("mkdtemp");
        return 1;
    }
    char path[128];
    snprintf(path, sizeof path, "%s/run.ckpt", dir);
    latmc_ctx *ctx = NULL;
    if (latmc_ctx_create(&ctx) != LATMC_OK)
        return 1;
    srand(12345);
    int kills = 0, unloadable = 0, lost = 0, too_many = 0, max_left = 0, saved_rounds = 0;
    uint64_t last = 0;
    for (int r = 0; r < rounds; r++) {
        const int writers = r % 3 == 2 ? 2 : 1; /* every third round: two on one path */
        pid_t pid[2];
        for (int w = 0; w < writers; w++)
            pid[w] = spawn_writer(path, 100 + r * 2 + w);
        sleep_ms(40 + rand() % 160); /* after start-up, somewhere in a save loop */
        for (int w = 0; w < writers; w++) {
            kill(pid[w], SIGKILL);
            int status = 0;
            waitpid(pid[w], &status, 0);
            if (!WIFSIGNALED(status)) {
                fprintf(stderr, "round %d: a writer ended by itself (status %d)\n", r, status);
                return 1;
            }
            kills++;
        }
        struct stat st;
        if (stat(path, &st) == 0) {
            latmc_sim *sim = NULL;
            uint64_t sweeps = 0;
            if (latmc_sim_load(ctx, path, &sim) != LATMC_OK) {
                fprintf(stderr, "round %d: unloadable: %s\n", r, latmc_last_error());
                unloadable++;
            } else {
                latmc_sim_sweep_count(sim, &sweeps);
                saved_rounds++;
                if (sweeps < last) {
                    fprintf(stderr, "round %d: %llu sweeps, %llu before\n", r,
                            (unsigned long long)sweeps, (unsigned long long)last);
                    lost++;
                }
                last = sweeps;
            }
            latmc_sim_destroy(&sim);
        }
        const int left = temporaries("run.ckpt.tmp-");
        max_left = left > max_left ? left : max_left;
        if (left > writers) { /* the killed writers' own at most: older ones were removed */
            fprintf(stderr, "round %d: %d temporary files after %d writer(s) killed\n", r,
                    left, writers);
            too_many++;
        }
    }
    /* a save by a live process removes every dead writer's file */
    int final_left = -1;
    latmc_sim *sim = NULL;
    if (latmc_sim_load(ctx, path, &sim) == LATMC_OK && latmc_sim_save(sim, path) == LATMC_OK)
        final_left = temporaries("run.ckpt.tmp-");
    latmc_sim_destroy(&sim);
    printf("%d kills in %d rounds: %d unloadable, %d went back, %d rounds with more temporary "
           "files than killed writers (at most %d at once), %d after a final save; the chain "
           "reached %llu sweeps (%d rounds found a checkpoint)\n",
           kills, rounds, unloadable, lost, too_many, max_left, final_left,
           (unsigned long long)last, saved_rounds);
    unlink(path);
    rmdir(dir);
    latmc_ctx_destroy(&ctx);
    return unloadable == 0 && lost == 0 && too_many == 0 && final_left == 0 && saved_rounds > 0
               ? 0 : 1;
}
