/* latmc front end — saving and reading back the program's state in checkpoints. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checkpoint.h"
#include "cli_options.h"

#define STATE_FORMAT "latmc-cli-state 1"

/* "latmc-cli-state 1 columns=energy,m therm=100 every=2" + " start=hot\n": the part before
 * " start=" must match on resume; the start is carried on, so that a resumed run's outputs
 * state how the chain began. (Checkpoints of latmc before the start was kept end after
 * every=N; they resume too, with the start unknown.) */
#define STATE_START " start="
static int state_line(char *buf, size_t size, const struct observables *obs, uint64_t therm,
                      uint64_t every)
{
    size_t len = (size_t)snprintf(buf, size, STATE_FORMAT " columns=");
    for (int c = 0; c < obs->n_cols && len < size; c++)
        len += (size_t)snprintf(buf + len, size - len, "%s%s", c ? "," : "", obs->csv_name[c]);
    if (len < size)
        len += (size_t)snprintf(buf + len, size - len, " therm=%" PRIu64 " every=%" PRIu64,
                                therm, every);
    return len < size ? (int)len : -1;
}

/* The start recorded after the matched part: letters only, at most size - 1 of them. */
static void read_start(const unsigned char *p, const unsigned char *end, char *out, size_t size)
{
    size_t n = 0;
    out[0] = '\0';
    if ((size_t)(end - p) < sizeof STATE_START - 1 ||
        memcmp(p, STATE_START, sizeof STATE_START - 1) != 0)
        return;
    p += sizeof STATE_START - 1;
    while (p < end && n + 1 < size && *p >= 'a' && *p <= 'z')
        out[n++] = (char)*p++;
    out[p == end ? n : 0] = '\0'; /* anything else after it: not ours, no start */
}

int checkpoint_save(latmc_sim *sim, const struct observables *obs, uint64_t therm,
                    uint64_t every, const char *path, struct failure *f)
{
    char line[256];
    int head = state_line(line, sizeof line, obs, therm, every);
    if (head >= 0) {
        int n = snprintf(line + head, sizeof line - (size_t)head, "%s%s\n",
                         obs->start[0] ? STATE_START : "", obs->start);
        head = n > 0 && (size_t)n < sizeof line - (size_t)head ? head + n : -1;
    }
    size_t accsize = 0;
    int rc = latmc_acc_serialize(obs->acc, NULL, 0, &accsize);
    if (rc != LATMC_OK || head < 0)
        return failure_set(f, rc != LATMC_OK ? rc : LATMC_EINVAL, latmc_last_error(),
                           "saving the measurements");
    unsigned char *blob = malloc((size_t)head + accsize);
    if (blob == NULL)
        return failure_set(f, LATMC_ENOMEM, "", "saving the measurements");
    memcpy(blob, line, (size_t)head);
    rc = latmc_acc_serialize(obs->acc, blob + head, accsize, &accsize);
    if (rc == LATMC_OK) {
        rc = latmc_sim_save_app_data(sim, path, blob, (size_t)head + accsize);
        if (rc != LATMC_OK)
            failure_set(f, rc, latmc_sim_last_error(sim), "saving the checkpoint '%s'", path);
    } else {
        failure_set(f, rc, latmc_last_error(), "saving the measurements");
    }
    free(blob);
    return rc;
}

int checkpoint_load_measurements(const char *path, const latmc_sim *sim, uint64_t therm,
                                 uint64_t every, struct observables *obs, struct failure *f)
{
    size_t size = 0;
    int rc = latmc_checkpoint_app_data(path, NULL, 0, &size);
    if (rc == LATMC_ESTATE) {
        failure_set(f, LATMC_ECORRUPT, "the file has no measurements (it was not written by "
                    "latmc 0.2 or later)", "--resume: reading '%s'", path);
        return EXIT_LIBRARY;
    }
    unsigned char *blob = rc == LATMC_OK ? malloc(size ? size : 1) : NULL;
    if (rc == LATMC_OK && blob == NULL)
        rc = LATMC_ENOMEM;
    if (rc == LATMC_OK)
        rc = latmc_checkpoint_app_data(path, blob, size, &size);
    if (rc != LATMC_OK) {
        failure_set(f, rc, latmc_last_error(), "--resume: reading the measurements in '%s'",
                    path);
        free(blob);
        return EXIT_LIBRARY;
    }
    const unsigned char *nl = memchr(blob, '\n', size < 256 ? size : 256);
    latmc_acc *acc = NULL;
    if (nl == NULL || strncmp((const char *)blob, STATE_FORMAT " ", sizeof STATE_FORMAT) != 0) {
        free(blob);
        failure_set(f, LATMC_ECORRUPT, "its measurements are not in a format this latmc reads",
                    "--resume: reading '%s'", path);
        return EXIT_LIBRARY;
    }
    rc = latmc_acc_deserialize(nl + 1, size - (size_t)(nl + 1 - blob), &acc);
    if (rc != LATMC_OK) {
        free(blob);
        failure_set(f, rc, latmc_last_error(), "--resume: reading the measurements in '%s'",
                    path);
        return EXIT_LIBRARY;
    }
    /* Measurements made are placed by --therm and --every: they must be this run's.
     * Before the first one (e.g. a thermalization stopped early) any will do. */
    char want[256];
    int head = state_line(want, sizeof want, obs, therm, every);
    /* the saved line: the part to match, then " start=..." (absent in older files) */
    size_t saved = (size_t)(nl - blob);
    for (size_t i = 0; i + sizeof STATE_START - 1 <= saved; i++)
        if (memcmp(blob + i, STATE_START, sizeof STATE_START - 1) == 0) {
            read_start(blob + i, nl, obs->start, sizeof obs->start);
            saved = i;
            break;
        }
    if (latmc_acc_count(acc) > 0 &&
        (head < 0 || saved != (size_t)head || memcmp(blob, want, (size_t)head) != 0)) {
        cli_usage_error("--resume %s: the checkpoint's measurements were made with '%.*s', "
                        "this command line asks for '%.*s' (give the --therm and --every of "
                        "the run that wrote it)", path, (int)saved, (const char *)blob,
                        head > 0 ? head : 0, want);
        free(blob);
        latmc_acc_destroy(&acc);
        return EXIT_USAGE;
    }
    free(blob);
    uint64_t sweeps = 0;
    latmc_sim_sweep_count(sim, &sweeps);
    uint64_t rows = sweeps > therm ? (sweeps - therm) / every : 0;
    if (latmc_acc_ncols(acc) != obs->n_cols || latmc_acc_count(acc) != rows) {
        char detail[160];
        snprintf(detail, sizeof detail, "%" PRIu64 " measurements, the sweep count %" PRIu64
                 " implies %" PRIu64, latmc_acc_count(acc), sweeps, rows);
        latmc_acc_destroy(&acc);
        failure_set(f, LATMC_ECORRUPT, detail, "--resume: reading '%s'", path);
        return EXIT_LIBRARY;
    }
    latmc_acc_destroy(&obs->acc);
    obs->acc = acc;
    obs->reloaded = rows;
    return 0;
}
