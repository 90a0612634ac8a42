/*
 * Test reader of latmc's --hdf5 files (cli suite, built with HDF5 only): prints what it
 * finds as "key = value" lines, read through the HDF5 library independently of latmc's
 * writer, for check_hdf5.sh to compare with the --json of the same run.
 *   hdf5_read FILE
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <hdf5.h>

static int failed = 0;

/* Every string attribute must be a variable-length UTF-8 string (h5py returns those as
 * str; a fixed-length ASCII one comes back as bytes). */
static void str_attr(hid_t obj, const char *name, const char *key)
{
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    char *s = NULL;
    if (a < 0) {
        failed = 1;
        return;
    }
    hid_t t = H5Aget_type(a);
    if (H5Tget_class(t) != H5T_STRING || H5Tis_variable_str(t) <= 0 ||
        H5Tget_cset(t) != H5T_CSET_UTF8) {
        fprintf(stderr, "hdf5_read: %s is not a variable-length UTF-8 string\n", name);
        failed = 1;
    } else if (H5Aread(a, t, &s) < 0) {
        failed = 1;
    }
    printf("%s = %s\n", key, s ? s : "");
    if (s != NULL)
        H5free_memory(s);
    H5Tclose(t);
    H5Aclose(a);
}

static void f64_attr(hid_t obj, const char *name, const char *key)
{
    double v = 0.0;
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    if (a < 0 || H5Aread(a, H5T_NATIVE_DOUBLE, &v) < 0)
        failed = 1;
    printf("%s = %.17g\n", key, v);
    if (a >= 0)
        H5Aclose(a);
}

static void int_attr(hid_t obj, const char *name, const char *key)
{
    long long v[3] = {0, 0, 0};
    hid_t a = H5Aopen(obj, name, H5P_DEFAULT);
    if (a < 0) {
        failed = 1;
        return;
    }
    hid_t sp = H5Aget_space(a);
    hssize_t n = H5Sget_simple_extent_npoints(sp);
    if (n < 1 || n > 3 || H5Aread(a, H5T_NATIVE_LLONG, v) < 0)
        failed = 1;
    printf("%s =", key);
    for (hssize_t i = 0; i < n && i < 3; i++)
        printf(" %lld", v[i]);
    printf("\n");
    H5Sclose(sp);
    H5Aclose(a);
}

/* A 1D double dataset: its length and mean. */
static void series(hid_t g, const char *name)
{
    hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
    if (d < 0) {
        failed = 1;
        return;
    }
    hid_t sp = H5Dget_space(d);
    hssize_t n = H5Sget_simple_extent_npoints(sp);
    double *x = malloc((size_t)(n > 0 ? n : 1) * sizeof *x);
    double s = 0.0;
    if (x == NULL || H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, x) < 0)
        failed = 1;
    for (hssize_t i = 0; x != NULL && i < n; i++)
        s += x[i];
    printf("series.%s.n = %lld\nseries.%s.mean = %.17g\n", name, (long long)n, name,
           n > 0 ? s / (double)n : 0.0);
    free(x);
    H5Sclose(sp);
    H5Dclose(d);
}

static void scalar(hid_t g, const char *group, const char *name)
{
    char key[128];
    double v = 0.0;
    hid_t d = H5Dopen2(g, name, H5P_DEFAULT);
    if (d < 0 || H5Dread(d, H5T_NATIVE_DOUBLE, H5S_ALL, H5S_ALL, H5P_DEFAULT, &v) < 0) {
        failed = 1;
        if (d >= 0)
            H5Dclose(d);
        return;
    }
    printf("%s.%s = %.17g\n", group, name, v);
    snprintf(key, sizeof key, "%s.%s.error", group, name);
    f64_attr(d, "error", key);
    snprintf(key, sizeof key, "%s.%s.warnings", group, name);
    str_attr(d, "warnings", key);
    H5Dclose(d);
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: hdf5_read FILE\n");
        return 2;
    }
    hid_t f = H5Fopen(argv[1], H5F_ACC_RDONLY, H5P_DEFAULT);
    if (f < 0)
        return 1;
    str_attr(f, "format", "format");
    hid_t in = H5Gopen2(f, "inputs", H5P_DEFAULT);
    str_attr(in, "model", "model");
    str_attr(in, "backend", "backend");
    int_attr(in, "extent", "extent");
    int_attr(in, "seed", "seed");
    hid_t p = H5Gopen2(in, "parameters", H5P_DEFAULT);
    f64_attr(p, "beta", "beta");
    hid_t run = H5Gopen2(f, "run", H5P_DEFAULT);
    int_attr(run, "measurements", "measurements");
    hid_t s = H5Gopen2(f, "series", H5P_DEFAULT);
    series(s, "energy");
    series(s, "m2");
    hid_t r = H5Gopen2(f, "results", H5P_DEFAULT);
    scalar(r, "results", "energy");
    scalar(r, "results", "m");
    hid_t dv = H5Gopen2(f, "derived", H5P_DEFAULT);
    scalar(dv, "derived", "chi");
    H5Gclose(dv);
    H5Gclose(r);
    H5Gclose(s);
    H5Gclose(run);
    H5Gclose(p);
    H5Gclose(in);
    H5Fclose(f);
    return failed;
}
