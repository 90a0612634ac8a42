/*
 * latmc front end — reading back a measurement series that latmc_acc_write_csv()
 * wrote (header "index,<names>", then "i,v0,v1,..." with 17 significant digits, which
 * strtod turns back into the very same doubles).
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "observables.h"

/* Drop a trailing "\n" or "\r\n". */
static void chomp(char *line)
{
    size_t n = strlen(line);
    while (n > 0 && (line[n - 1] == '\n' || line[n - 1] == '\r'))
        line[--n] = '\0';
}

static int check_header(const struct observables *o, char *line, const char *path,
                        struct failure *f)
{
    char want[512], detail[1024];
    size_t len = (size_t)snprintf(want, sizeof want, "index");
    for (int c = 0; c < o->n_cols && len < sizeof want; c++)
        len += (size_t)snprintf(want + len, sizeof want - len, ",%s", o->csv_name[c]);
    chomp(line);
    if (strcmp(line, want) == 0)
        return LATMC_OK;
    snprintf(detail, sizeof detail, "its columns '%.400s' are not the ones this run records "
             "('%s')", line, want);
    return failure_set(f, LATMC_ECORRUPT, detail, "--resume: reading '%s'", path);
}

/* Row `index`: "index,v0,...,v{n-1}". */
static int parse_row(const struct observables *o, char *line, uint64_t index, double *row)
{
    chomp(line);
    errno = 0;
    char *end = NULL;
    unsigned long long i = strtoull(line, &end, 10);
    if (end == line || errno != 0 || i != index)
        return -1;
    for (int c = 0; c < o->n_cols; c++) {
        if (*end != ',')
            return -1;
        char *p = end + 1;
        row[c] = strtod(p, &end);
        if (end == p || errno != 0)
            return -1;
    }
    return *end == '\0' ? 0 : -1;
}

int observables_read_csv(struct observables *o, const char *path, uint64_t rows,
                         struct failure *f)
{
    FILE *in = fopen(path, "r");
    if (in == NULL)
        return failure_set(f, LATMC_EIO, strerror(errno), "--resume: reading the measurements "
                           "'%s'", path);
    char *line = NULL;
    size_t cap = 0;
    int rc = LATMC_OK;
    char detail[256];
    if (getline(&line, &cap, in) < 0)
        rc = failure_set(f, LATMC_ECORRUPT, "the file is empty", "--resume: reading '%s'", path);
    else
        rc = check_header(o, line, path, f);
    uint64_t n = 0;
    while (rc == LATMC_OK && n < rows) {
        double row[OBS_MAX_COLS];
        if (getline(&line, &cap, in) < 0) {
            snprintf(detail, sizeof detail, "%llu measurements, the checkpoint's sweep count "
                     "implies %llu (was it written with other --therm or --every?)",
                     (unsigned long long)n, (unsigned long long)rows);
            rc = failure_set(f, LATMC_ECORRUPT, detail, "--resume: reading '%s'", path);
            break;
        }
        if (parse_row(o, line, n, row) != 0) {
            snprintf(detail, sizeof detail, "line %llu is not a measurement",
                     (unsigned long long)(n + 2));
            rc = failure_set(f, LATMC_ECORRUPT, detail, "--resume: reading '%s'", path);
            break;
        }
        rc = latmc_acc_push(o->acc, row, o->n_cols);
        if (rc != LATMC_OK)
            rc = failure_set(f, rc, latmc_last_error(), "--resume: reading '%s', line %llu",
                             path, (unsigned long long)(n + 2));
        n++;
    }
    if (rc == LATMC_OK && ferror(in))
        rc = failure_set(f, LATMC_EIO, strerror(errno), "--resume: reading '%s'", path);
    free(line);
    fclose(in);
    if (rc == LATMC_OK)
        o->reloaded = n;
    return rc;
}
