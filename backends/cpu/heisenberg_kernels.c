/*
 * The Heisenberg spin glass on the CPU: float spins and couplings in the API's own
 * layout (heisenberg_ref.h) for the reference kernels; the SIMD levels sweep the SoA
 * layout of heisenberg_dsp.h and convert on the way in and out (the float arrays then
 * serve the couplings' copy and the measurement, which is always the reference's).
 */
#include <stdlib.h>
#include <string.h>

#include "cpu_backend.h"
#include "model.h"
#include "heisenberg_dsp.h"
#include "heisenberg_ref.h"

/* The reference state plus, at a SIMD level, its kernel table and SoA arrays. */
struct heisenberg_state {
    struct cpu_heisenberg_state ref;
    struct cpu_heisenberg_dsp dsp;
    struct cpu_heisenberg_soa soa;
};

static struct heisenberg_state *hwhole(struct cpu_state *st)
{
    return st->model_state;
}

static struct cpu_heisenberg_state *hstate(struct cpu_state *st)
{
    return &hwhole(st)->ref;
}

static size_t spin_bytes(const latmc_sim *sim)
{
    return (size_t)sim->nsites * (size_t)sim->desc.replicas * LATMC_HEISENBERG_COMPONENTS *
           sizeof(float);
}

static size_t coupling_bytes(const latmc_sim *sim)
{
    return (size_t)sim->nsites * (size_t)sim->desc.ndim * sizeof(float);
}

static void heisenberg_destroy(struct cpu_state *st)
{
    struct heisenberg_state *w = hwhole(st);
    if (!w)
        return;
    free(w->ref.spins);
    free(w->ref.couplings);
    free(w->ref.partials);
    free(w->ref.planes);
    cpu_heisenberg_soa_free(&w->soa);
    free(w);
    st->model_state = NULL;
}

/* Allocate the state and draw the couplings from desc.coupling_seed. */
static int heisenberg_create(latmc_sim *sim, struct cpu_state *st)
{
    const struct latmc_lattice *g = &st->lattice;
    struct heisenberg_state *w = calloc(1, sizeof *w);
    st->model_state = w;
    if (!w)
        return latmc_fail(LATMC_ENOMEM, "CPU backend: cannot allocate the Heisenberg state");
    struct cpu_heisenberg_state *hs = &w->ref;
    cpu_heisenberg_dsp_init(&w->dsp, st->simd_flags);
    hs->replicas = sim->desc.replicas;
    hs->rows_per_chunk = cpu_heisenberg_rows_per_chunk(g);
    hs->nchunks = g->ly * g->lz / hs->rows_per_chunk; /* a divisor of a plane's rows */
    hs->spins = malloc(spin_bytes(sim));
    hs->couplings = malloc(coupling_bytes(sim));
    hs->partials = malloc((size_t)hs->nchunks * sizeof *hs->partials);
    hs->planes = malloc((size_t)cpu_heisenberg_planes(g) * sizeof *hs->planes);
    if (!hs->spins || !hs->couplings || !hs->partials || !hs->planes) {
        heisenberg_destroy(st);
        return latmc_fail(LATMC_ENOMEM, "CPU backend: cannot allocate %zu bytes of Heisenberg "
                          "spins and %zu of couplings", spin_bytes(sim), coupling_bytes(sim));
    }
    cpu_heisenberg_draw_couplings(g, hs->couplings, sim->desc.couplings, sim->desc.coupling_seed,
                                  sim->n_threads);
    if (w->dsp.soa) {
        const int status = cpu_heisenberg_soa_alloc(g, hs->replicas, &w->soa);
        if (status < 0) {
            heisenberg_destroy(st);
            return status;
        }
        cpu_heisenberg_soa_import_couplings(g, hs->couplings, &w->soa, sim->n_threads);
    }
    return LATMC_OK;
}

static float *replica_spins(const latmc_sim *sim, struct cpu_heisenberg_state *hs, int replica)
{
    return hs->spins + (size_t)LATMC_HEISENBERG_COMPONENTS * (size_t)sim->nsites * (size_t)replica;
}

/* SIMD levels: the float spins (all replicas) into the SoA arrays, or back. */
static void import_spins(latmc_sim *sim, struct cpu_state *st, const float *spins)
{
    struct heisenberg_state *w = hwhole(st);
    for (int r = 0; r < w->ref.replicas; r++)
        cpu_heisenberg_soa_import_spins(&st->lattice, spins + (size_t)LATMC_HEISENBERG_COMPONENTS *
                                        (size_t)sim->nsites * (size_t)r, &w->soa, r, sim->n_threads);
}

static void export_spins(latmc_sim *sim, struct cpu_state *st, float *spins)
{
    struct heisenberg_state *w = hwhole(st);
    for (int r = 0; r < w->ref.replicas; r++)
        cpu_heisenberg_soa_export_spins(&st->lattice, &w->soa, r, spins +
                                        (size_t)LATMC_HEISENBERG_COMPONENTS * (size_t)sim->nsites *
                                        (size_t)r, sim->n_threads);
}

static int heisenberg_init_spins(latmc_sim *sim, struct cpu_state *st, int how)
{
    struct cpu_heisenberg_state *hs = hstate(st);
    for (int r = 0; r < hs->replicas; r++) {
        if (how == LATMC_INIT_COLD)
            cpu_heisenberg_cold_start(&st->lattice, replica_spins(sim, hs, r));
        else
            cpu_heisenberg_hot_start(&st->lattice, replica_spins(sim, hs, r), sim->desc.seed, r,
                                     sim->n_threads);
    }
    if (hwhole(st)->dsp.soa)
        import_spins(sim, st, hs->spins);
    return LATMC_OK;
}

/*
 * One step of the core's plan on the boxes (lib/box.h; the schedule is lib/heisenberg.h's:
 * step s is colour s % 2 of pass s / 2, the heat bath in pass 0 of a heat-bath sweep),
 * for every replica; WHOLE steps only. The replicas share the couplings and have
 * independent streams, so updating them step by step is the 1-box sweep's chain.
 */
static void heisenberg_run_step(latmc_sim *sim, struct cpu_state *st,
                                const struct latmc_step_call *call, const struct cpu_team *team,
                                uint64_t *accepted, uint64_t *attempted)
{
    struct heisenberg_state *w = hwhole(st);
    struct cpu_heisenberg_state *hs = &w->ref;
    const bool heatbath = latmc_heisenberg_step_is_heatbath(
        sim->desc.algorithm == LATMC_ALGO_HEATBATH, call->step);
    const int colour = latmc_heisenberg_step_colour(call->step);
    uint64_t updates;
    if (w->dsp.soa)
        updates = w->dsp.step_soa(&st->lattice, &w->soa, hs->replicas, sim->model_data, heatbath,
                                  colour, sim->desc.seed, call->sweep, call->boxes, call->n_boxes,
                                  team);
    else
        updates = cpu_heisenberg_step_boxes(&st->lattice, hs->spins, hs->replicas, hs->couplings,
                                            sim->model_data, heatbath, colour, sim->desc.seed,
                                            call->sweep, call->boxes, call->n_boxes, team);
    if (team->id == 0) { /* the step's count, not a member's share */
        *accepted += updates;
        *attempted += updates;
    }
}

static int64_t plane_sites(const struct cpu_state *st)
{
    return cpu_heisenberg_rows_per_plane(&st->lattice) * st->lattice.lx;
}

/* SIMD levels: the float copy of planes [p0, p1) of every replica from the SoA arrays. */
static void export_planes(latmc_sim *sim, struct cpu_state *st, int64_t p0, int64_t p1)
{
    struct heisenberg_state *w = hwhole(st);
    const int64_t rpp = cpu_heisenberg_rows_per_plane(&st->lattice), ps = plane_sites(st);
    for (int r = 0; r < w->ref.replicas; r++) {
        float *at = replica_spins(sim, &w->ref, r) + LATMC_HEISENBERG_COMPONENTS * ps * p0;
        cpu_heisenberg_soa_export_rows(&st->lattice, &w->soa, r, at, p0 * rpp, p1 * rpp,
                                       sim->n_threads);
    }
}

static void heisenberg_measure_planes(latmc_sim *sim, struct cpu_state *st, int64_t p0,
                                      int64_t p1, void *sums)
{
    if (hwhole(st)->dsp.soa) {
        /* the planes and their forward neighbour plane (the bonds along the last axis) */
        const int64_t planes = cpu_heisenberg_planes(&st->lattice);
        export_planes(sim, st, p0, p1);
        if (p1 < planes)
            export_planes(sim, st, p1, p1 + 1);
        else
            export_planes(sim, st, 0, 1);
    }
    cpu_heisenberg_measure_planes(&st->lattice, hstate(st), p0, p1, sums, sim->n_threads);
}

/* The whole lattice: its planes' sums added in plane order (model add_sums), so that it
 * is exactly the combination of any cut's measure_planes. */
static void heisenberg_measure(latmc_sim *sim, struct cpu_state *st, void *sums)
{
    struct cpu_heisenberg_state *hs = hstate(st);
    const int64_t planes = cpu_heisenberg_planes(&st->lattice);
    if (hwhole(st)->dsp.soa)
        export_spins(sim, st, hs->spins);
    cpu_heisenberg_measure_planes(&st->lattice, hs, 0, planes, hs->planes, sim->n_threads);
    memset(sums, 0, sizeof(struct latmc_heisenberg_sums));
    for (int64_t p = 0; p < planes; p++)
        sim->model->add_sums(sums, &hs->planes[p]);
}

/* Planes [p0, p1) of every replica, replica by replica, in site order. */
static void heisenberg_get_planes(latmc_sim *sim, struct cpu_state *st, int64_t p0, int64_t p1,
                                  void *buf)
{
    struct heisenberg_state *w = hwhole(st);
    const int64_t rpp = cpu_heisenberg_rows_per_plane(&st->lattice);
    const size_t per_replica = (size_t)((p1 - p0) * plane_sites(st)) * LATMC_HEISENBERG_COMPONENTS;
    for (int r = 0; r < w->ref.replicas; r++) {
        float *out = (float *)buf + per_replica * (size_t)r;
        if (w->dsp.soa)
            cpu_heisenberg_soa_export_rows(&st->lattice, &w->soa, r, out, p0 * rpp, p1 * rpp,
                                           sim->n_threads);
        else
            memcpy(out, replica_spins(sim, &w->ref, r) + (size_t)(p0 * plane_sites(st)) *
                   LATMC_HEISENBERG_COMPONENTS, per_replica * sizeof(float));
    }
}

static void heisenberg_set_planes(latmc_sim *sim, struct cpu_state *st, int64_t p0, int64_t p1,
                                  const void *buf)
{
    struct heisenberg_state *w = hwhole(st);
    const int64_t rpp = cpu_heisenberg_rows_per_plane(&st->lattice);
    const size_t per_replica = (size_t)((p1 - p0) * plane_sites(st)) * LATMC_HEISENBERG_COMPONENTS;
    for (int r = 0; r < w->ref.replicas; r++) {
        const float *in = (const float *)buf + per_replica * (size_t)r;
        if (w->dsp.soa)
            cpu_heisenberg_soa_import_rows(&st->lattice, in, &w->soa, r, p0 * rpp, p1 * rpp,
                                           sim->n_threads);
        else
            memcpy(replica_spins(sim, &w->ref, r) + (size_t)(p0 * plane_sites(st)) *
                   LATMC_HEISENBERG_COMPONENTS, in, per_replica * sizeof(float));
    }
}

static void heisenberg_get_spins(latmc_sim *sim, struct cpu_state *st, void *buf)
{
    if (hwhole(st)->dsp.soa)
        export_spins(sim, st, buf);
    else
        memcpy(buf, hstate(st)->spins, spin_bytes(sim));
}

static void heisenberg_set_spins(latmc_sim *sim, struct cpu_state *st, const void *buf)
{
    if (hwhole(st)->dsp.soa)
        import_spins(sim, st, buf);
    else
        memcpy(hstate(st)->spins, buf, spin_bytes(sim));
}

static void heisenberg_get_couplings(latmc_sim *sim, struct cpu_state *st, float *buf)
{
    memcpy(buf, hstate(st)->couplings, coupling_bytes(sim));
}

static void heisenberg_set_couplings(latmc_sim *sim, struct cpu_state *st, const float *buf)
{
    memcpy(hstate(st)->couplings, buf, coupling_bytes(sim));
    if (hwhole(st)->dsp.soa)
        cpu_heisenberg_soa_import_couplings(&st->lattice, buf, &hwhole(st)->soa, sim->n_threads);
}

const struct cpu_model_kernels cpu_heisenberg_kernels = {
    .model = LATMC_MODEL_HEISENBERG,
    .create = heisenberg_create,
    .destroy = heisenberg_destroy,
    .init_spins = heisenberg_init_spins,
    .measure = heisenberg_measure,
    .get_spins = heisenberg_get_spins,
    .set_spins = heisenberg_set_spins,
    .get_couplings = heisenberg_get_couplings,
    .set_couplings = heisenberg_set_couplings,
    .run_step = heisenberg_run_step,
    .measure_planes = heisenberg_measure_planes,
    .get_planes = heisenberg_get_planes,
    .set_planes = heisenberg_set_planes,
};
