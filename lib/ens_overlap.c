/*
 * Spin-glass observables of an ensemble: the two-replica overlaps per (sample,
 * temperature), computed on the host from the members' configurations, and the Binder
 * ratio of the overlap averaged over samples with its jackknife over samples.
 */
#include <math.h>
#include <stdlib.h>

#include "ens_internal.h"
#include "model.h"

struct overlap_values {
    double q, q2, ql;
};

/* Neighbour of site i in direction +mu on the periodic lattice. */
static int64_t neighbour(const latmc_sim_desc *d, int64_t i, int mu)
{
    int64_t stride = 1;
    for (int k = 0; k < mu; k++)
        stride *= d->extent[k];
    const int64_t x = (i / stride) % d->extent[mu];
    return x + 1 == d->extent[mu] ? i - x * stride : i + stride;
}

static struct overlap_values ising_overlap(const latmc_sim_desc *d, int64_t n,
                                           const int8_t *a, const int8_t *b)
{
    int64_t q = 0, ql = 0;
    for (int64_t i = 0; i < n; i++) {
        const int qi = a[i] * b[i];
        q += qi;
        for (int mu = 0; mu < d->ndim; mu++) {
            const int64_t j = neighbour(d, i, mu);
            ql += qi * a[j] * b[j];
        }
    }
    struct overlap_values v;
    v.q = (double)q / (double)n;
    v.q2 = v.q * v.q;
    v.ql = (double)ql / ((double)n * d->ndim);
    return v;
}

static struct overlap_values heisenberg_overlap(const latmc_sim_desc *d, int64_t n,
                                                const float *a, const float *b)
{
    double qmn[3][3] = { { 0 } }, ql = 0;
    for (int64_t i = 0; i < n; i++) {
        const float *ai = a + 3 * i, *bi = b + 3 * i;
        for (int mu = 0; mu < 3; mu++)
            for (int nu = 0; nu < 3; nu++)
                qmn[mu][nu] += (double)ai[mu] * bi[nu];
        const double dot_i = (double)ai[0] * bi[0] + (double)ai[1] * bi[1] + (double)ai[2] * bi[2];
        for (int k = 0; k < d->ndim; k++) {
            const int64_t j = neighbour(d, i, k);
            const float *aj = a + 3 * j, *bj = b + 3 * j;
            ql += dot_i * ((double)aj[0] * bj[0] + (double)aj[1] * bj[1] + (double)aj[2] * bj[2]);
        }
    }
    struct overlap_values v;
    v.q = 0;
    v.q2 = 0;
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
    if (key < LATMC_ENS_Q || key > LATMC_ENS_QL)
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
    for (int m = 0; m < e->n_members; m++)
        if (!e->members[m]->have_config)
            return ENS_FAIL(e, LATMC_ESTATE, "latmc_ens_overlaps: member %d has no "
                            "configuration yet", m);
    size_t bytes = 0;
    latmc_sim_spins_size(e->members[0], &bytes);
    void *a = malloc(bytes), *b = malloc(bytes);
    if (!a || !b) {
        free(a);
        free(b);
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
                st = ENS_FAIL(e, st, "latmc_ens_overlaps: %s", latmc_thread_error());
                break;
            }
            const struct overlap_values v = model == LATMC_MODEL_ISING
                ? ising_overlap(&e->desc, e->nsites, a, b)
                : heisenberg_overlap(&e->desc, e->nsites, a, b);
            double out = 0;
            switch (key) {
            case LATMC_ENS_Q:  out = v.q; break;
            case LATMC_ENS_Q2: out = v.q2; break;
            case LATMC_ENS_Q4: out = v.q2 * v.q2; break;
            default:           out = v.ql; break;
            }
            values[s * nT + t] = out;
        }
    free(a);
    free(b);
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
