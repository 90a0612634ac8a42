/* latmc front end — the streamed --csv series (see series_out.h). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <unistd.h>

#include "series_out.h"

static int write_row(struct series_out *s, const latmc_acc *acc, uint64_t i)
{
    double row[OBS_MAX_COLS];
    if (latmc_acc_row(acc, i, row, s->n_cols) != LATMC_OK)
        return -1;
    if (fprintf(s->f, "%" PRIu64 ",%" PRIu64, i, s->therm + (i + 1) * s->every) < 0)
        return -1;
    for (int c = 0; c < s->n_cols; c++)
        if (fprintf(s->f, ",%.17g", row[c]) < 0)
            return -1;
    return fputc('\n', s->f) == EOF ? -1 : 0;
}

static int write_head(struct series_out *s, const struct run_meta *m,
                      const struct observables *obs)
{
    /* The column line first, the inputs as comments after it: numpy's
     * genfromtxt(names=True, comments="#") takes its names from the first line, commented
     * or not, and skips comment lines anywhere; pandas' read_csv(comment="#") likewise. */
    char v[1100];
    fputs("index,sweep", s->f);
    for (int c = 0; c < obs->n_cols; c++)
        fprintf(s->f, ",%s", obs->csv_name[c]);
    fputc('\n', s->f);
    fprintf(s->f, "# latmc time series: one line per measurement; sweep = the sim's sweep "
            "count at the measurement\n");
    for (int i = 0; i < m->n; i++) {
        meta_value_text(&m->item[i], v, sizeof v);
        fprintf(s->f, "# %s%s = %s\n", m->item[i].param ? "param." : "", m->item[i].key, v);
    }
    uint64_t n = latmc_acc_count(obs->acc);
    for (uint64_t i = 0; i < n; i++)
        if (write_row(s, obs->acc, i) != 0)
            return -1;
    return ferror(s->f) ? -1 : 0;
}

int series_open(struct series_out *s, const struct outfile *target, const struct run_meta *m,
                const struct observables *obs, struct failure *f)
{
    memset(s, 0, sizeof *s);
    if (target == NULL)
        return LATMC_OK;
    s->target = target;
    s->n_cols = obs->n_cols;
    for (int i = 0; i < m->n; i++) {
        if (strcmp(m->item[i].key, "therm") == 0)
            s->therm = m->item[i].u;
        if (strcmp(m->item[i].key, "every") == 0)
            s->every = m->item[i].u;
    }
    char tmp[OUTFILE_MAX_PATH + 16];
    FILE *out = outfile_begin(target, tmp, sizeof tmp, f);
    if (out == NULL)
        return f->code;
    s->f = out;
    if (write_head(s, m, obs) != 0) {
        int e = errno;
        outfile_abort(target, out, tmp);
        s->f = NULL;
        return failure_set(f, LATMC_EIO, strerror(e), "--csv: cannot write '%s'", target->arg);
    }
    if (target->is_stdout)
        return series_flush(s, 0, f);
    /* the header (and a resumed run's rows) in place, then append to the very file */
    int rc = outfile_commit(target, out, tmp, f);
    s->f = NULL;
    if (rc != LATMC_OK)
        return rc;
    int fd = open(target->real, O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0)
        s->f = fdopen(fd, "a");
    if (s->f == NULL) {
        int e = errno;
        if (fd >= 0)
            close(fd);
        return failure_set(f, LATMC_EIO, strerror(e), "--csv: cannot append to '%s'",
                           target->real);
    }
    return LATMC_OK;
}

int series_append(struct series_out *s, const struct observables *obs, struct failure *f)
{
    if (s->f == NULL)
        return LATMC_OK;
    uint64_t n = latmc_acc_count(obs->acc);
    if (n == 0 || write_row(s, obs->acc, n - 1) != 0)
        return failure_set(f, LATMC_EIO, strerror(errno), "--csv: cannot write '%s'",
                           s->target->arg);
    return LATMC_OK;
}

int series_flush(struct series_out *s, int sync, struct failure *f)
{
    if (s->f == NULL)
        return LATMC_OK;
    if (fflush(s->f) != 0 || ferror(s->f))
        return failure_set(f, LATMC_EIO, strerror(errno), "--csv: cannot write '%s'",
                           s->target->arg);
    if (sync && !s->target->is_stdout && fsync(fileno(s->f)) != 0 && errno != EINVAL)
        return failure_set(f, LATMC_EIO, strerror(errno), "--csv: cannot sync '%s'",
                           s->target->arg);
    return LATMC_OK;
}

int series_close(struct series_out *s, struct failure *f)
{
    if (s->f == NULL)
        return LATMC_OK;
    int rc = series_flush(s, 1, f);
    if (!s->target->is_stdout && fclose(s->f) != 0 && rc == LATMC_OK)
        rc = failure_set(f, LATMC_EIO, strerror(errno), "--csv: cannot close '%s'",
                         s->target->arg);
    s->f = NULL;
    return rc;
}
