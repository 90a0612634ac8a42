/*
 * The Fourier modes at k_min (lib/modes.h, doc/observables.md): the whole lattice's modes
 * from the parts' partial results (their projections), and the observables made from
 * them. The per-plane work is in modes_planes.c.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "model.h"
#include "modes.h"
#include "modes_exact.h"
#include "phi4.h"
#include "part.h"

bool latmc_modes_cubic(const latmc_sim_desc *d)
{
    for (int mu = 1; mu < d->ndim; mu++)
        if (d->extent[mu] != d->extent[0])
            return false;
    return true;
}

void latmc_modes_phases(int64_t L, double *c, double *s)
{
    const double two_pi = 6.28318530717958647692;
    for (int64_t x = 0; x < L; x++) {
        const double a = two_pi * (double)x / (double)L;
        c[x] = cos(a);
        s[x] = sin(a);
    }
}

int latmc_modes_components(const latmc_sim_desc *d)
{
    switch (d->model) {
    case LATMC_MODEL_POTTS:      return d->q;
    case LATMC_MODEL_HEISENBERG: return d->replicas == 2 ? 12 : 3;
    default:                     return 1;
    }
}

size_t latmc_modes_doubles(const latmc_sim_desc *d)
{
    return (size_t)latmc_modes_components(d) * (size_t)d->ndim * 2;
}

double latmc_modes_scale(const latmc_sim_desc *d)
{
    switch (d->model) {
    case LATMC_MODEL_PHI4:       return 1 / LATMC_MODES_FIELD_SCALE;
    case LATMC_MODEL_HEISENBERG: return 1 / LATMC_MODES_SPIN_SCALE;
    default:                     return 1.0;
    }
}

int latmc_modes_field_range(const latmc_sim *sim, double phi2)
{
    if (sim->desc.model != LATMC_MODEL_PHI4)
        return LATMC_OK;
    /* lib/modes_exact.h: 2^20 sqrt(N phi2) <= 2^61 and 2^20 sqrt(phi2) <= 2^50 (written so
     * that NaN fails) */
    const double n = (double)sim->nsites, s = LATMC_MODES_FIELD_SCALE;
    if (phi2 * n * s * s <= 0x1p122 && phi2 * s * s <= 0x1p100)
        return LATMC_OK;
    return latmc_fail(LATMC_EUNSUPPORTED, "Fourier modes: the phi^4 field is too large for "
                      "their exact fixed point (sum of phi^2 %g over %lld sites; they hold "
                      "while 2^20 sqrt(N sum phi^2) <= 2^61 and 2^20 sqrt(sum phi^2) <= 2^50)",
                      phi2, (long long)sim->nsites);
}

double latmc_potts_simplex_m2(const int64_t *count, int q, int64_t n)
{
    double sum = 0;
    for (int a = 0; a < q; a++) {
        const double f = (double)count[a] / (double)n;
        sum += f * f;
    }
    return ((double)q * sum - 1.0) / ((double)q - 1.0);
}

/* The backend's own count of the projections (ops.mode_projections), or NULL. */
static int (*backend_projections(const latmc_sim *sim))(latmc_sim *, int64_t, int64_t, int64_t *)
{
    const struct latmc_backend_ops *ops = sim->ops;
    if (ops->size < offsetof(struct latmc_backend_ops, mode_projections) +
                        sizeof ops->mode_projections)
        return NULL;
    return ops->mode_projections;
}

/* ---- the whole lattice ---- */

size_t latmc_modes_partial_bytes(const latmc_sim_desc *d)
{
    return (size_t)latmc_modes_projection_entries(d) * sizeof(int64_t);
}

int latmc_modes_partial(latmc_sim *sim, int64_t p0, int64_t p1, void *out)
{
    int (*on_backend)(latmc_sim *, int64_t, int64_t, int64_t *) = backend_projections(sim);
    if (on_backend)
        return on_backend(sim, p0, p1, out);
    memset(out, 0, latmc_modes_partial_bytes(&sim->desc));
    return latmc_modes_projections(sim, p0, p1, out);
}

int latmc_modes_combine(const latmc_sim_desc *d, const void *all, int n_parts, double *modes)
{
    return latmc_modes_combine_phases(d, NULL, all, n_parts, modes);
}

int latmc_modes_combine_phases(const latmc_sim_desc *d, const double *phases, const void *all,
                               int n_parts, double *modes)
{
    if (n_parts == 1) /* one part's projections are the whole lattice's */
        return latmc_modes_of_projections(d, phases, all, modes);
    const int64_t n = latmc_modes_projection_entries(d);
    int64_t *sum = calloc((size_t)n, sizeof *sum);
    if (!sum)
        return latmc_fail(LATMC_ENOMEM, "Fourier modes: cannot allocate the projections");
    /* wrapping additions: a refused phi^4 field's (latmc_modes_field_range) may overflow */
    const int64_t *each = all;
    for (int k = 0; k < n_parts; k++)
        for (int64_t i = 0; i < n; i++)
            sum[i] = (int64_t)((uint64_t)sum[i] + (uint64_t)each[(size_t)k * (size_t)n + i]);
    const int st = latmc_modes_of_projections(d, phases, sum, modes);
    free(sum);
    return st;
}

/* The sim's buffer of the whole lattice's partial result (latmc_modes_partial_bytes), made
 * on first use and kept: every measurement of a large lattice would fault fresh pages in
 * (65536^2 Ising: 1 MiB of projections). NULL after latmc_fail. */
static void *sim_partial(latmc_sim *sim)
{
    const latmc_sim_desc *d = &sim->desc;
    if (!sim->mode_partial &&
        !(sim->mode_partial = malloc(latmc_modes_partial_bytes(d))))
        latmc_fail(LATMC_ENOMEM, "Fourier modes: cannot allocate the partial sums");
    return sim->mode_partial;
}

int latmc_modes_measure(latmc_sim *sim, double *modes)
{
    const latmc_sim_desc *d = &sim->desc;
    const bool on_cpu = sim->ops == &latmc_cpu_backend_ops && sim->ops->get_planes;
    if (!on_cpu && !backend_projections(sim))
        return latmc_fail(LATMC_EUNSUPPORTED, "the Fourier observables of the %s model are "
                          "reduced by the CPU backend only in this version (this sim runs "
                          "on %s)", sim->model->name, sim->ops->name);
    if (latmc_part_many(sim))
        return latmc_part_modes(sim, modes);
    void *partial = sim_partial(sim);
    const double *phases = partial ? latmc_modes_sim_phases(sim) : NULL;
    int st = phases ? latmc_modes_partial(sim, 0, d->extent[d->ndim - 1], partial)
                    : LATMC_ENOMEM;
    if (st == LATMC_OK)
        st = latmc_modes_combine_phases(d, phases, partial, 1, modes);
    return st;
}

/* The backend's own modes with the sums (ops.measure_kmin) where it offers them for this
 * sim: the projections' exact sums made on the device. */
static bool kmin_on_backend(latmc_sim *sim)
{
    const struct latmc_backend_ops *ops = sim->ops;
    return LATMC_BACKEND_OP(ops, measure_kmin) && !latmc_part_many(sim) &&
           ops->measure_kmin(sim, NULL, NULL, NULL) == LATMC_OK;
}

bool latmc_modes_with_sums_possible(latmc_sim *sim)
{
    const struct latmc_backend_ops *ops = sim->ops;
    /* parts: the same answer on every part (the calls after it are collective); each part
     * counts its projections in one pass where its backend can (latmc_part_measure_modes) */
    if (latmc_part_many(sim))
        return true;
    if (kmin_on_backend(sim))
        return true;
    return LATMC_BACKEND_OP(ops, measure_modes) && !latmc_part_many(sim) &&
           sim->ops->measure_modes(sim, NULL, NULL) == LATMC_OK;
}

int latmc_modes_measure_with_sums(latmc_sim *sim, void *sums, double *modes)
{
    const latmc_sim_desc *d = &sim->desc;
    if (latmc_part_many(sim))
        return latmc_part_measure_modes(sim, sums, modes);
    if (kmin_on_backend(sim)) {
        const double *phases = latmc_modes_sim_phases(sim);
        const int st =
            phases ? sim->ops->measure_kmin(sim, sums, phases, modes) : LATMC_ENOMEM;
        /* the backend's exact sums, the model's fixed point scaled back (exact: a power
         * of two) */
        const double scale = latmc_modes_scale(d);
        for (size_t i = 0; st == LATMC_OK && i < latmc_modes_doubles(d); i++)
            modes[i] *= scale;
        return st;
    }
    void *partial = sim_partial(sim);
    const double *phases = partial ? latmc_modes_sim_phases(sim) : NULL;
    int st = phases ? sim->ops->measure_modes(sim, sums, partial) : LATMC_ENOMEM;
    if (st == LATMC_OK)
        st = latmc_modes_combine_phases(d, phases, partial, 1, modes);
    return st;
}

/* |m(k_mu)|^2 N^2 summed over the ndim directions, for the components [c0, c0 + nc)
 * taken as one vector. */
static double power(const latmc_sim_desc *d, const double *modes, int c0, int nc)
{
    double sum = 0;
    for (int mu = 0; mu < d->ndim; mu++)
        for (int c = c0; c < c0 + nc; c++) {
            const double *t = modes + ((size_t)c * (size_t)d->ndim + (size_t)mu) * 2;
            sum += t[0] * t[0] + t[1] * t[1];
        }
    return sum;
}

/* The Potts simplex vector's |m(k_mu)|^2 N^2 summed over directions:
 * (q sum_a |c_a|^2 - |sum_a c_a|^2) / (q - 1) with c_a the state indicators' modes. */
static double potts_power(const latmc_sim_desc *d, const double *modes)
{
    const int q = d->q;
    double sum = 0;
    for (int mu = 0; mu < d->ndim; mu++) {
        double each = 0, re = 0, im = 0;
        for (int a = 0; a < q; a++) {
            const double *t = modes + ((size_t)a * (size_t)d->ndim + (size_t)mu) * 2;
            each += t[0] * t[0] + t[1] * t[1];
            re += t[0];
            im += t[1];
        }
        sum += ((double)q * each - (re * re + im * im)) / ((double)q - 1.0);
    }
    return sum;
}

int latmc_modes_observable(const latmc_sim *sim, const double *modes, int key, double *value)
{
    const latmc_sim_desc *d = &sim->desc;
    const double n = (double)sim->nsites;
    if (d->model == LATMC_MODEL_PHI4) { /* the sums are the modes' configuration's */
        const int st =
            latmc_modes_field_range(sim, ((const struct latmc_phi4_sums *)sim->sums)->phi2);
        if (st < 0)
            return st;
    }
    double p;
    if (key == LATMC_OBS_OVERLAP2_KMIN)
        p = power(d, modes, 3, 9); /* Heisenberg, two replicas */
    else if (d->model == LATMC_MODEL_POTTS)
        p = potts_power(d, modes);
    else
        p = power(d, modes, 0, d->model == LATMC_MODEL_HEISENBERG ? 3 : 1);
    *value = p / (n * n) / (double)d->ndim;
    return LATMC_OK;
}
