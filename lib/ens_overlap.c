/*
 * Spin-glass observables of an ensemble: the two-replica overlaps per (sample,
 * temperature), and the Binder ratio of the overlap averaged over samples with its
 * jackknife over samples.
 *
 * Ising members on a backend that reads pairs' overlaps as a batch (CUDA: a run_steps call
 * of kind LATMC_STEP_OVERLAPS, lib/box.h) get the overlaps' integer sums of every (sample,
 * temperature) from one device call, without copying any configuration
 * to the host; everything else (and every member when LATMC_ENS_OVERLAPS_HOST=1 is in the
 * environment: the tests' reference) reads the members' spins and sums on the host. The
 * sums are exact integers and both paths make the values from them by the same
 * arithmetic (ising_values), so the two give the same doubles bit for bit.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>

#include "backend.h"
#include "ens_internal.h"
#include "model.h"
#include "modes.h"
#include "part.h"
#include "plan.h"

struct overlap_values {
    double q, q2, ql, qk2;
};

/* The cosines and sines of k_min x (x = 0 .. L - 1) along each axis, and where each site
 * lies, for the overlap at k_min (equal extents: one table serves every axis). */
struct kmin_phases {
    int64_t L;
    double *c, *s;
};

#define KMIN_MAX_COMPONENTS 9 /* Heisenberg's tensor overlap; Ising's 1 */

/* The sites in their order i = x_0 + L_0 (x_1 + L_1 x_2) with their coordinates, kept by
 * counting instead of dividing i (divisions a site and direction would take most of a
 * call's time). */
struct site_walk {
    int64_t x[3], stride[3];
};

static struct site_walk walk_start(const latmc_sim_desc *d)
{
    struct site_walk w = { { 0, 0, 0 }, { 1, 1, 1 } };
    for (int k = 1; k < d->ndim; k++)
        w.stride[k] = w.stride[k - 1] * d->extent[k - 1];
    return w;
}

/* To the next site. */
static void walk_next(const latmc_sim_desc *d, struct site_walk *w)
{
    for (int k = 0; k < d->ndim; k++) {
        if (++w->x[k] < d->extent[k])
            return;
        w->x[k] = 0;
    }
}

/* Neighbour of the walk's site i in direction +mu on the periodic lattice. */
static int64_t walk_neighbour(const latmc_sim_desc *d, const struct site_walk *w, int64_t i,
                              int mu)
{
    return w->x[mu] + 1 == d->extent[mu] ? i - w->x[mu] * w->stride[mu] : i + w->stride[mu];
}

/* The Ising values from the integer sums q = sum_i a_i b_i and
 * ql = sum_{i,mu} a_i b_i a_{i+mu} b_{i+mu} (both paths). */
static struct overlap_values ising_values(const latmc_sim_desc *d, int64_t n, int64_t q,
                                          int64_t ql)
{
    struct overlap_values v;
    v.q = (double)q / (double)n;
    v.q2 = v.q * v.q;
    v.ql = (double)ql / ((double)n * d->ndim);
    v.qk2 = 0;
    return v;
}

/*
 * sum over directions of |sum_i w_i e^{i k_min x_mu(i)}|^2 / (ndim N^2) for the ncomp
 * components of w (w[ncomp i + c]), summed over components: the average over directions
 * of |q(k_min)|^2, in site order.
 */
static double kmin_power(const latmc_sim_desc *d, int64_t n, const struct kmin_phases *ph,
                         const double *w, int ncomp)
{
    /* every (direction, component)'s sums in one pass, each in site order */
    double re[3][KMIN_MAX_COMPONENTS] = { { 0 } }, im[3][KMIN_MAX_COMPONENTS] = { { 0 } };
    struct site_walk sw = walk_start(d);
    for (int64_t i = 0; i < n; i++, walk_next(d, &sw)) {
        const double *wi = w + (size_t)ncomp * (size_t)i;
        for (int mu = 0; mu < d->ndim; mu++) {
            const double cx = ph->c[sw.x[mu]], sx = ph->s[sw.x[mu]];
            for (int c = 0; c < ncomp; c++) {
                re[mu][c] += wi[c] * cx;
                im[mu][c] += wi[c] * sx;
            }
        }
    }
    double total = 0;
    for (int mu = 0; mu < d->ndim; mu++)
        for (int c = 0; c < ncomp; c++)
            total += (re[mu][c] / (double)n) * (re[mu][c] / (double)n) +
                     (im[mu][c] / (double)n) * (im[mu][c] / (double)n);
    return total / d->ndim;
}

/* The values of a pair (a, b): with phases (ph, w: scratch of ncomp n doubles), the overlap
 * at k_min alone (the only one asked for then). */
static struct overlap_values ising_overlap(const latmc_sim_desc *d, int64_t n,
                                           const int8_t *a, const int8_t *b,
                                           const struct kmin_phases *ph, double *w)
{
    if (ph) {
        struct overlap_values v = { 0, 0, 0, 0 };
        for (int64_t i = 0; i < n; i++)
            w[i] = a[i] * b[i];
        v.qk2 = kmin_power(d, n, ph, w, 1);
        return v;
    }
    int64_t q = 0, ql = 0;
    struct site_walk sw = walk_start(d);
    for (int64_t i = 0; i < n; i++, walk_next(d, &sw)) {
        const int qi = a[i] * b[i];
        q += qi;
        for (int mu = 0; mu < d->ndim; mu++) {
            const int64_t j = walk_neighbour(d, &sw, i, mu);
            ql += qi * a[j] * b[j];
        }
    }
    return ising_values(d, n, q, ql);
}

static double value_of(const struct overlap_values *v, int key)
{
    switch (key) {
    case LATMC_ENS_Q:  return v->q;
    case LATMC_ENS_Q2: return v->q2;
    case LATMC_ENS_Q4: return v->q2 * v->q2;
    case LATMC_ENS_QKMIN2: return v->qk2;
    default:           return v->ql;
    }
}

/*
 * Ising members on a backend that reads overlaps as a batch (LATMC_STEP_OVERLAPS): the
 * values of every (sample, temperature), the replicas 0 and 1 at that temperature (after
 * swaps), from one call. LATMC_EUNSUPPORTED with nothing written: take the host path (no
 * such capability, the backend declines these members, LATMC_ENS_OVERLAPS_HOST=1).
 */
static int device_overlaps(latmc_ens *e, int key, double *values)
{
    if (e->desc.model != LATMC_MODEL_ISING || !ens_batch_ops(e) ||
        key == LATMC_ENS_QKMIN2) /* not among the device's sums: the host's */
        return LATMC_EUNSUPPORTED;
    const char *env = getenv("LATMC_ENS_OVERLAPS_HOST");
    if (env && strcmp(env, "1") == 0)
        return LATMC_EUNSUPPORTED;
    for (int m = 0; m < e->n_members; m++)
        if (latmc_part_many(e->members[m]) || e->members[m]->plan->n_boxes > 1)
            return LATMC_EUNSUPPORTED;
    const int nS = e->layout.n_samples, nT = e->layout.n_temperatures, np = nS * nT;
    int32_t *pairs = malloc(2 * (size_t)np * sizeof *pairs);
    int64_t *sums = malloc(2 * (size_t)np * sizeof *sums);
    if (!pairs || !sums) {
        free(pairs);
        free(sums);
        return ENS_FAIL(e, LATMC_ENOMEM, "latmc_ens_overlaps: cannot allocate the pairs of "
                        "%d (sample, temperature)", np);
    }
    for (int s = 0; s < nS; s++)
        for (int t = 0; t < nT; t++) {
            pairs[2 * (s * nT + t)] = e->member_at[ens_slot_index(e, s, t, 0)];
            pairs[2 * (s * nT + t) + 1] = e->member_at[ens_slot_index(e, s, t, 1)];
        }
    struct latmc_error_mark mark;
    latmc_error_mark(&mark);
    const struct latmc_batch_request request = { .pairs = pairs, .n_pairs = np, .q = sums,
                                            .ql = sums + np };
    int st = latmc_plan_batch_request(e->members, e->n_members, LATMC_STEP_OVERLAPS,
                                      &request);
    if (st == LATMC_EUNSUPPORTED) /* the host computes them: no failure of the caller's */
        latmc_error_restore(&mark);
    if (st == LATMC_OK)
        for (int k = 0; k < np; k++) {
            const struct overlap_values v = ising_values(&e->desc, e->nsites, sums[k],
                                                         sums[np + k]);
            values[k] = value_of(&v, key);
        }
    else if (st != LATMC_EUNSUPPORTED) {
        char why[LATMC_ERRMSG_SIZE]; /* the cause, copied before the new message is recorded */
        snprintf(why, sizeof why, "%s", latmc_thread_error());
        st = ENS_FAIL(e, st, "latmc_ens_overlaps: on the device: %s", why);
    }
    free(pairs);
    free(sums);
    return st;
}

/* As ising_overlap, of vector spins: the tensor overlap. */
static struct overlap_values heisenberg_overlap(const latmc_sim_desc *d, int64_t n,
                                                const float *a, const float *b,
                                                const struct kmin_phases *ph, double *w)
{
    struct overlap_values v = { 0, 0, 0, 0 };
    if (ph) {
        for (int64_t i = 0; i < n; i++)
            for (int mu = 0; mu < 3; mu++)
                for (int nu = 0; nu < 3; nu++)
                    w[9 * i + 3 * mu + nu] = (double)a[3 * i + mu] * b[3 * i + nu];
        v.qk2 = kmin_power(d, n, ph, w, 9);
        return v;
    }
    double qmn[3][3] = { { 0 } }, ql = 0;
    struct site_walk sw = walk_start(d);
    for (int64_t i = 0; i < n; i++, walk_next(d, &sw)) {
        const float *ai = a + 3 * i, *bi = b + 3 * i;
        for (int mu = 0; mu < 3; mu++)
            for (int nu = 0; nu < 3; nu++)
                qmn[mu][nu] += (double)ai[mu] * bi[nu];
        const double dot_i = (double)ai[0] * bi[0] + (double)ai[1] * bi[1] + (double)ai[2] * bi[2];
        for (int k = 0; k < d->ndim; k++) {
            const int64_t j = walk_neighbour(d, &sw, i, k);
            const float *aj = a + 3 * j, *bj = b + 3 * j;
            ql += dot_i * ((double)aj[0] * bj[0] + (double)aj[1] * bj[1] + (double)aj[2] * bj[2]);
        }
    }
    for (int mu = 0; mu < 3; mu++)
        for (int nu = 0; nu < 3; nu++)
            v.q2 += (qmn[mu][nu] / (double)n) * (qmn[mu][nu] / (double)n);
    v.ql = ql / ((double)n * d->ndim);
    return v;
}

int latmc_ens_overlaps(latmc_ens *e, int key, double *values, size_t count)
{
    if (!e)
        return latmc_fail(LATMC_EINVAL, "latmc_ens_overlaps: ens is NULL");
    const int nS = e->layout.n_samples, nT = e->layout.n_temperatures;
    if (!values || count != (size_t)nS * (size_t)nT)
        return ENS_FAIL(e, LATMC_EINVAL, "latmc_ens_overlaps: %s", !values ? "values is NULL"
                        : "count is not n_samples x n_temperatures");
    if (key < LATMC_ENS_Q || key > LATMC_ENS_QKMIN2)
        return ENS_FAIL(e, LATMC_EINVAL, "latmc_ens_overlaps: unknown key %d", key);
    const int model = e->desc.model;
    if (e->layout.n_replicas < 2)
        return ENS_FAIL(e, LATMC_EUNSUPPORTED, "latmc_ens_overlaps: needs two replicas "
                        "(layout.n_replicas = %d)", e->layout.n_replicas);
    if (model != LATMC_MODEL_ISING && model != LATMC_MODEL_HEISENBERG)
        return ENS_FAIL(e, LATMC_EUNSUPPORTED, "latmc_ens_overlaps: defined for Ising and "
                        "Heisenberg, not the %s model", e->members[0]->model->name);
    if (model == LATMC_MODEL_HEISENBERG && key == LATMC_ENS_Q)
        return ENS_FAIL(e, LATMC_EUNSUPPORTED, "latmc_ens_overlaps: the Heisenberg overlap is "
                        "a tensor: ask for LATMC_ENS_Q2 (sum_{mu,nu} q_{mu nu}^2)");
    if (key == LATMC_ENS_QKMIN2 && !latmc_modes_cubic(&e->desc))
        return ENS_FAIL(e, LATMC_EUNSUPPORTED, "latmc_ens_overlaps: the overlap at k_min "
                        "needs equal extents (k_min = 2 pi / L along every axis)");
    for (int m = 0; m < e->n_members; m++)
        if (!e->members[m]->have_config)
            return ENS_FAIL(e, LATMC_ESTATE, "latmc_ens_overlaps: member %d has no "
                            "configuration yet", m);
    const int sync = latmc_ens_sync(e); /* the map from the device */
    if (sync < 0)
        return sync;
    const int dev = device_overlaps(e, key, values);
    if (dev != LATMC_EUNSUPPORTED)
        return dev;
    size_t bytes = 0;
    latmc_sim_spins_size(e->members[0], &bytes);
    void *a = malloc(bytes), *b = malloc(bytes);
    struct kmin_phases phases = { e->desc.extent[0], NULL, NULL }, *ph = NULL;
    double *w = NULL;
    if (key == LATMC_ENS_QKMIN2) {
        const int ncomp = model == LATMC_MODEL_ISING ? 1 : 9;
        phases.c = malloc((size_t)phases.L * sizeof *phases.c);
        phases.s = malloc((size_t)phases.L * sizeof *phases.s);
        w = malloc((size_t)e->nsites * (size_t)ncomp * sizeof *w);
        if (phases.c && phases.s)
            latmc_modes_phases(phases.L, phases.c, phases.s);
        ph = &phases;
    }
    if (!a || !b || (ph && (!phases.c || !phases.s || !w))) {
        free(a);
        free(b);
        free(phases.c);
        free(phases.s);
        free(w);
        return ENS_FAIL(e, LATMC_ENOMEM, "latmc_ens_overlaps: cannot allocate two "
                        "configurations");
    }
    int st = LATMC_OK;
    for (int s = 0; s < nS && st == LATMC_OK; s++)
        for (int t = 0; t < nT && st == LATMC_OK; t++) {
            const int ma = e->member_at[ens_slot_index(e, s, t, 0)];
            const int mb = e->member_at[ens_slot_index(e, s, t, 1)];
            if ((st = latmc_sim_get_spins(e->members[ma], a, bytes)) < 0 ||
                (st = latmc_sim_get_spins(e->members[mb], b, bytes)) < 0) {
                char why[LATMC_ERRMSG_SIZE];
                snprintf(why, sizeof why, "%s", latmc_thread_error());
                st = ENS_FAIL(e, st, "latmc_ens_overlaps: %s", why);
                break;
            }
            const struct overlap_values v = model == LATMC_MODEL_ISING
                ? ising_overlap(&e->desc, e->nsites, a, b, ph, w)
                : heisenberg_overlap(&e->desc, e->nsites, a, b, ph, w);
            values[s * nT + t] = value_of(&v, key);
        }
    free(a);
    free(b);
    free(phases.c);
    free(phases.s);
    free(w);
    return st;
}

static double binder_of(double q2, double q4, int ncomp)
{
    const double r = q4 / (q2 * q2);
    return ncomp == 1 ? 0.5 * (3.0 - r) : 0.5 * (11.0 - 9.0 * r);
}

int latmc_ens_binder_g(const double *q2, const double *q4, int n, int ncomp, double *g,
                       double *err)
{
    if (!q2 || !q4 || !g || !err)
        return latmc_fail(LATMC_EINVAL, "latmc_ens_binder_g: a NULL argument");
    if (n < 2)
        return latmc_fail(LATMC_EINVAL, "latmc_ens_binder_g: %d samples; the jackknife over "
                          "samples needs at least 2", n);
    if (ncomp != 1 && ncomp != 3)
        return latmc_fail(LATMC_EINVAL, "latmc_ens_binder_g: n_components = %d; 1 (Ising) or "
                          "3 (Heisenberg)", ncomp);
    double s2 = 0, s4 = 0;
    for (int s = 0; s < n; s++) {
        if (!isfinite(q2[s]) || !isfinite(q4[s]))
            return latmc_fail(LATMC_EINVAL, "latmc_ens_binder_g: sample %d is not finite", s);
        /* Moments of some overlap, whatever its normalisation: <q^2> >= 0 and, by Jensen,
         * <q^4> >= <q^2>^2 (allowing rounding: equal where q^2 never changes). */
        if (q2[s] < 0 || q4[s] < 0 || q4[s] < q2[s] * q2[s] * (1 - 1e-9))
            return latmc_fail(LATMC_EINVAL, "latmc_ens_binder_g: sample %d: <q^2> = %g, "
                              "<q^4> = %g are not moments of an overlap (need <q^2> >= 0 and "
                              "<q^4> >= <q^2>^2)", s, q2[s], q4[s]);
        s2 += q2[s];
        s4 += q4[s];
    }
    if (s2 == 0)
        return latmc_fail(LATMC_EINVAL, "latmc_ens_binder_g: [<q^2>] = 0");
    /* Leave one sample out: g_s from the means of the other n - 1 samples. */
    double mean = 0, var = 0;
    for (int s = 0; s < n; s++)
        mean += binder_of((s2 - q2[s]) / (n - 1), (s4 - q4[s]) / (n - 1), ncomp);
    mean /= n;
    for (int s = 0; s < n; s++) {
        const double d = binder_of((s2 - q2[s]) / (n - 1), (s4 - q4[s]) / (n - 1), ncomp) - mean;
        var += d * d;
    }
    *g = binder_of(s2 / n, s4 / n, ncomp);
    *err = sqrt(var * (n - 1) / n);
    return LATMC_OK;
}

/* sqrt(q2 / qk2 - 1) scaled; NaN where there is no real xi. */
static double xi_of(double q2, double qk2, double scale)
{
    return sqrt(q2 / qk2 - 1.0) * scale;
}

int latmc_ens_corr_length(const double *q2, const double *qk2, int n, int64_t L, double *xi,
                          double *err)
{
    if (!q2 || !qk2 || !xi || !err)
        return latmc_fail(LATMC_EINVAL, "latmc_ens_corr_length: a NULL argument");
    if (n < 2)
        return latmc_fail(LATMC_EINVAL, "latmc_ens_corr_length: %d samples; the jackknife "
                          "over samples needs at least 2", n);
    if (L < 2)
        return latmc_fail(LATMC_EINVAL, "latmc_ens_corr_length: L = %lld, need at least 2",
                          (long long)L);
    double s2 = 0, sk = 0;
    for (int s = 0; s < n; s++) {
        if (!isfinite(q2[s]) || !isfinite(qk2[s]))
            return latmc_fail(LATMC_EINVAL, "latmc_ens_corr_length: sample %d is not finite",
                              s);
        s2 += q2[s];
        sk += qk2[s];
    }
    const double scale = 0.5 / sin(3.14159265358979323846 / (double)L);
    const double all = xi_of(s2 / n, sk / n, scale);
    if (!isfinite(all))
        return latmc_fail(LATMC_EINVAL, "latmc_ens_corr_length: [<q^2>] = %g, "
                          "[<|q(k_min)|^2>] = %g: no real correlation length", s2 / n, sk / n);
    /* Leave one sample out, as latmc_ens_binder_g. */
    double mean = 0, var = 0;
    for (int s = 0; s < n; s++) {
        const double x = xi_of((s2 - q2[s]) / (n - 1), (sk - qk2[s]) / (n - 1), scale);
        if (!isfinite(x))
            return latmc_fail(LATMC_EINVAL, "latmc_ens_corr_length: no real correlation "
                              "length without sample %d", s);
        mean += x;
    }
    mean /= n;
    for (int s = 0; s < n; s++) {
        const double d = xi_of((s2 - q2[s]) / (n - 1), (sk - qk2[s]) / (n - 1), scale) - mean;
        var += d * d;
    }
    *xi = all;
    *err = sqrt(var * (n - 1) / n);
    return LATMC_OK;
}
