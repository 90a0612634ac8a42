/* latmc front end — the --hdf5 file (see hdf5_out.h). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <hdf5.h>

#include "hdf5_out.h"

/* Every call is checked through `ok`: the first failure sticks. */
struct h5 {
    bool ok;
};

static void check(struct h5 *h, herr_t r)
{
    if (r < 0)
        h->ok = false;
}

/* A variable-length UTF-8 string: what h5py (3.x) returns as str, where a fixed-length
 * ASCII one comes back as bytes. */
static void attr_str(struct h5 *h, hid_t obj, const char *name, const char *value)
{
    hid_t t = H5Tcopy(H5T_C_S1);
    check(h, H5Tset_size(t, H5T_VARIABLE));
    check(h, H5Tset_cset(t, H5T_CSET_UTF8));
    hid_t sp = H5Screate(H5S_SCALAR);
    hid_t a = H5Acreate2(obj, name, t, sp, H5P_DEFAULT, H5P_DEFAULT);
    check(h, a < 0 ? -1 : H5Awrite(a, t, &value));
    if (a >= 0)
        H5Aclose(a);
    H5Sclose(sp);
    H5Tclose(t);
}

static void attr_num(struct h5 *h, hid_t obj, const char *name, hid_t type, const void *v,
                     hsize_t n)
{
    hid_t sp = n == 0 ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, NULL);
    hid_t a = H5Acreate2(obj, name, type, sp, H5P_DEFAULT, H5P_DEFAULT);
    check(h, a < 0 ? -1 : H5Awrite(a, type, v));
    if (a >= 0)
        H5Aclose(a);
    H5Sclose(sp);
}

static void attr_f64(struct h5 *h, hid_t obj, const char *name, double v)
{
    attr_num(h, obj, name, H5T_NATIVE_DOUBLE, &v, 0);
}

static void attr_u64(struct h5 *h, hid_t obj, const char *name, unsigned long long v)
{
    attr_num(h, obj, name, H5T_NATIVE_ULLONG, &v, 0);
}

static hid_t group(struct h5 *h, hid_t parent, const char *name)
{
    hid_t g = H5Gcreate2(parent, name, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    if (g < 0)
        h->ok = false;
    return g;
}

static hid_t dataset(struct h5 *h, hid_t parent, const char *name, hid_t type, const void *v,
                     hsize_t n, bool scalar)
{
    hid_t sp = scalar ? H5Screate(H5S_SCALAR) : H5Screate_simple(1, &n, NULL);
    hid_t d = H5Dcreate2(parent, name, type, sp, H5P_DEFAULT, H5P_DEFAULT, H5P_DEFAULT);
    check(h, d < 0 ? -1 : (n == 0 && !scalar) ? 0 : H5Dwrite(d, type, H5S_ALL, H5S_ALL, H5P_DEFAULT, v));
    H5Sclose(sp);
    return d;
}

static void write_inputs(struct h5 *h, hid_t file, const struct run_meta *m)
{
    hid_t g = group(h, file, "inputs");
    hid_t p = group(h, g, "parameters");
    for (int i = 0; i < m->n && h->ok; i++) {
        const struct meta_item *it = &m->item[i];
        hid_t where = it->param ? p : g;
        switch (it->type) {
        case META_STR: attr_str(h, where, it->key, it->s); break;
        case META_U64:
        case META_BOOL: attr_u64(h, where, it->key, (unsigned long long)it->u); break;
        case META_F64: attr_f64(h, where, it->key, it->d); break;
        case META_EXTENT: {
            long long e[3];
            for (int k = 0; k < it->n; k++)
                e[k] = (long long)it->e[k];
            attr_num(h, where, it->key, H5T_NATIVE_LLONG, e, (hsize_t)it->n);
            break;
        }
        }
    }
    H5Gclose(p);
    H5Gclose(g);
}

static void write_run(struct h5 *h, hid_t file, const struct json_run *jr)
{
    const struct run_stats *st = jr->stats;
    hid_t g = group(h, file, "run");
    attr_u64(h, g, "first_sweep", st->first_sweep);
    attr_u64(h, g, "last_sweep", st->last_sweep);
    attr_u64(h, g, "measurements", jr->res->n_meas);
    attr_u64(h, g, "measurements_reloaded", jr->obs->reloaded);
    attr_u64(h, g, "interrupted", st->interrupted);
    attr_u64(h, g, "signal", (unsigned long long)jr->signal);
    attr_u64(h, g, "checkpoint_failures", st->checkpoint_failures);
    attr_f64(h, g, "wall_s", st->wall_s);
    attr_f64(h, g, "sweep_s", st->sweep_s);
    attr_u64(h, g, "exit_status", (unsigned long long)jr->exit_status);
    if (jr->checkpoint != NULL)
        attr_str(h, g, "checkpoint", jr->checkpoint);
    H5Gclose(g);
}

static void write_series(struct h5 *h, hid_t file, const struct json_run *jr)
{
    const struct observables *obs = jr->obs;
    uint64_t n = latmc_acc_count(obs->acc);
    hid_t g = group(h, file, "series");
    unsigned long long *u = malloc((n ? n : 1) * sizeof *u);
    double *x = malloc((n ? n : 1) * sizeof *x);
    if (u == NULL || x == NULL) {
        h->ok = false;
    } else {
        for (uint64_t i = 0; i < n; i++)
            u[i] = i;
        H5Dclose(dataset(h, g, "index", H5T_NATIVE_ULLONG, u, n, false));
        for (uint64_t i = 0; i < n; i++)
            u[i] = jr->therm + (i + 1) * jr->every;
        H5Dclose(dataset(h, g, "sweep", H5T_NATIVE_ULLONG, u, n, false));
        for (int c = 0; c < obs->n_cols && h->ok; c++) {
            double row[OBS_MAX_COLS];
            for (uint64_t i = 0; i < n; i++) {
                latmc_acc_row(obs->acc, i, row, obs->n_cols);
                x[i] = row[c];
            }
            hid_t d = dataset(h, g, obs->csv_name[c], H5T_NATIVE_DOUBLE, x, n, false);
            attr_str(h, d, "label", obs->label[c]);
            H5Dclose(d);
        }
    }
    free(u);
    free(x);
    H5Gclose(g);
}

static void write_results(struct h5 *h, hid_t file, const struct results *r)
{
    char w[128];
    hid_t g = group(h, file, "results");
    for (int c = 0; c < r->n_obs && h->ok; c++) {
        const struct obs_result *o = &r->obs[c];
        double mean = o->have_mean ? o->mean : NAN;
        hid_t d = dataset(h, g, o->name, H5T_NATIVE_DOUBLE, &mean, 1, true);
        attr_f64(h, d, "error", o->have_err && !(o->flags & LATMC_ACC_WARN_ZERO_ERROR) ? o->err : NAN);
        attr_f64(h, d, "tau_int", o->have_tau && !(o->flags & LATMC_ACC_WARN_TAU_UNDEFINED) ? o->tau : NAN);
        attr_str(h, d, "label", o->label);
        results_flag_names(o->flags, o->rough, w, sizeof w);
        attr_str(h, d, "warnings", w);
        H5Dclose(d);
    }
    H5Gclose(g);
    g = group(h, file, "derived");
    for (int i = 0; i < r->n_derived && h->ok; i++) {
        const struct derived_result *dr = &r->derived[i];
        double v = dr->ok ? dr->value : NAN;
        hid_t d = dataset(h, g, dr->name, H5T_NATIVE_DOUBLE, &v, 1, true);
        attr_f64(h, d, "error", dr->ok && !(dr->flags & LATMC_ACC_WARN_ZERO_ERROR) ? dr->err : NAN);
        attr_u64(h, d, "jackknife_blocks", dr->ok ? (unsigned long long)r->nblocks : 0);
        attr_str(h, d, "label", dr->label);
        results_flag_names(dr->flags, false, w, sizeof w);
        attr_str(h, d, "warnings", w);
        if (!dr->ok)
            attr_str(h, d, "reason", dr->why);
        H5Dclose(d);
    }
    H5Gclose(g);
}

int hdf5_write(const struct outfile *target, const struct json_run *jr, struct failure *f)
{
    char tmp[OUTFILE_MAX_PATH + 16];
    snprintf(tmp, sizeof tmp, "%s.XXXXXX", target->real);
    int fd = mkstemp(tmp);
    if (fd < 0)
        return failure_set(f, LATMC_EIO, strerror(errno), "--hdf5: cannot create a file next "
                           "to '%s'", target->real);
    mode_t um = umask(0);
    umask(um);
    fchmod(fd, 0666 & ~um);
    close(fd);
    H5Eset_auto2(H5E_DEFAULT, NULL, NULL); /* our own message, not HDF5's stack dump */
    struct h5 h = { true };
    hid_t file = H5Fcreate(tmp, H5F_ACC_TRUNC, H5P_DEFAULT, H5P_DEFAULT);
    if (file < 0) {
        unlink(tmp);
        return failure_set(f, LATMC_EIO, "H5Fcreate failed", "--hdf5: cannot write '%s'", tmp);
    }
    attr_str(&h, file, "format", "latmc-results 1");
    write_inputs(&h, file, jr->meta);
    write_run(&h, file, jr);
    write_series(&h, file, jr);
    write_results(&h, file, jr->res);
    if (H5Fclose(file) < 0)
        h.ok = false;
    if (h.ok) {
        fd = open(tmp, O_RDONLY);
        if (fd < 0 || (fsync(fd) != 0 && errno != EINVAL))
            h.ok = false;
        if (fd >= 0)
            close(fd);
    }
    if (!h.ok || rename(tmp, target->real) != 0) {
        int e = errno;
        unlink(tmp);
        return failure_set(f, LATMC_EIO, h.ok ? strerror(e) : "an HDF5 call failed",
                           "--hdf5: cannot write '%s'", target->arg);
    }
    return LATMC_OK;
}
