/*
 * The Heisenberg spin glass on the CPU: float spins and couplings in the API's own
 * layout (heisenberg_ref.h) for the reference kernels; the SIMD levels sweep the SoA
 * layout of heisenberg_dsp.h and convert on the way in and out (the float arrays then
 * serve the couplings' copy and the measurement, which is always the reference's).
 */
#include <stdlib.h>
#include <string.h>

#include "coupling_fill.h"
#include "cpu_backend.h"
#include "model.h"
#include "heisenberg_dsp.h"
#include "heisenberg_ref.h"
#include "heisenberg_rules.h"

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

/* Sizes of the arrays held (a slab's local lattice: cpu_backend.h; else the whole). */
static size_t spin_bytes(const latmc_sim *sim, const struct cpu_state *st)
{
    return (size_t)st->lattice.nsites * (size_t)sim->desc.replicas *
           LATMC_HEISENBERG_COMPONENTS * sizeof(float);
}

static size_t coupling_bytes(const latmc_sim *sim, const struct cpu_state *st)
{
    return (size_t)st->lattice.nsites * (size_t)sim->desc.ndim * sizeof(float);
}

static int64_t plane_sites(const struct cpu_state *st)
{
    return cpu_heisenberg_rows_per_plane(&st->lattice) * st->lattice.lx;
}

/* The couplings of the lattice, or of a slab's local planes: their elements of the global
 * draw (coupling_fill.h). */
static void draw_couplings(latmc_sim *sim, struct cpu_state *st, float *couplings)
{
    const int layout = cpu_couplings_float_layout(sim->desc.couplings);
    const int64_t n = plane_sites(st) * sim->desc.ndim; /* of one plane */
    if (st->slab.on)
        cpu_draw_slab_couplings(st, couplings, layout, n, sim->desc.coupling_seed,
                                sim->n_threads);
    else
        cpu_draw_couplings(couplings, layout, 0, st->lattice.nsites * sim->desc.ndim,
                           sim->desc.coupling_seed, sim->n_threads, st->simd_flags);
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

/* A slab's global checkerboard number of local j = 0 (0 for the whole lattice). */
static int64_t slab_j_origin(const struct cpu_state *st)
{
    return st->slab.on ? st->slab.origin * plane_sites(st) / 2 : 0;
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
    cpu_heisenberg_dsp_init(&w->dsp, cpu_heisenberg_dsp_flags(g, st->simd_flags));
    hs->replicas = sim->desc.replicas;
    hs->rows_per_chunk = cpu_heisenberg_rows_per_chunk(g);
    hs->nchunks = g->ly * g->lz / hs->rows_per_chunk; /* a divisor of a plane's rows */
    hs->spins = malloc(spin_bytes(sim, st));
    hs->couplings = malloc(coupling_bytes(sim, st));
    hs->partials = malloc((size_t)hs->nchunks * sizeof *hs->partials);
    hs->planes = malloc((size_t)cpu_heisenberg_planes(g) * sizeof *hs->planes);
    if (!hs->spins || !hs->couplings || !hs->partials || !hs->planes) {
        heisenberg_destroy(st);
        return latmc_fail(LATMC_ENOMEM, "CPU backend: cannot allocate %zu bytes of Heisenberg "
                          "spins and %zu of couplings", spin_bytes(sim, st),
                          coupling_bytes(sim, st));
    }
    draw_couplings(sim, st, hs->couplings);
    if (w->dsp.soa) {
        const int status = cpu_heisenberg_soa_alloc(g, hs->replicas, &w->soa);
        if (status < 0) {
            heisenberg_destroy(st);
            return status;
        }
        w->soa.j_origin = slab_j_origin(st);
        cpu_heisenberg_soa_import_couplings(g, hs->couplings, &w->soa, sim->n_threads);
    }
    return LATMC_OK;
}

static float *replica_spins(const struct cpu_state *st, struct cpu_heisenberg_state *hs,
                            int replica)
{
    return hs->spins + (size_t)LATMC_HEISENBERG_COMPONENTS * (size_t)st->lattice.nsites *
                           (size_t)replica;
}

/* SIMD levels: the float spins (all replicas) into the SoA arrays, or back. */
static void import_spins(latmc_sim *sim, struct cpu_state *st, const float *spins)
{
    struct heisenberg_state *w = hwhole(st);
    for (int r = 0; r < w->ref.replicas; r++)
        cpu_heisenberg_soa_import_spins(&st->lattice, spins + (size_t)LATMC_HEISENBERG_COMPONENTS *
                                        (size_t)st->lattice.nsites * (size_t)r, &w->soa, r,
                                        sim->n_threads);
}

static void export_spins(latmc_sim *sim, struct cpu_state *st, float *spins)
{
    struct heisenberg_state *w = hwhole(st);
    for (int r = 0; r < w->ref.replicas; r++)
        cpu_heisenberg_soa_export_spins(&st->lattice, &w->soa, r, spins +
                                        (size_t)LATMC_HEISENBERG_COMPONENTS *
                                        (size_t)st->lattice.nsites * (size_t)r, sim->n_threads);
}

static int heisenberg_init_spins(latmc_sim *sim, struct cpu_state *st, int how)
{
    struct cpu_heisenberg_state *hs = hstate(st);
    const int64_t ps = plane_sites(st);
    for (int r = 0; r < hs->replicas; r++) {
        if (st->slab.on && how != LATMC_INIT_COLD) /* each local plane from its global one */
            for (int64_t l = 0; l < st->slab.planes; l++) {
                const int64_t g = cpu_slab_global(st, l);
                latmc_heisenberg_hot_range(replica_spins(st, hs, r) +
                                               LATMC_HEISENBERG_COMPONENTS * l * ps,
                                           g * ps, (g + 1) * ps, sim->desc.seed, r);
            }
        else if (how == LATMC_INIT_COLD)
            cpu_heisenberg_cold_start(&st->lattice, replica_spins(st, hs, r));
        else
            cpu_heisenberg_hot_start(&st->lattice, replica_spins(st, hs, r), sim->desc.seed, r,
                                     sim->n_threads);
    }
    if (hwhole(st)->dsp.soa)
        import_spins(sim, st, hs->spins);
    return LATMC_OK;
}

/*
 * One step of the core's plan on the boxes (lib/box.h; the schedule is lib/heisenberg.h's,
 * the step says its colour and its kind: heat bath or overrelaxation), or a PAIR part
 * (both colours of a pass, one wavefront: heisenberg_avx2.c says why it is the same
 * chain), for every replica. The replicas share the couplings and have independent
 * streams, so updating them step by step is the 1-box sweep's chain.
 */
static void heisenberg_run_step(latmc_sim *sim, struct cpu_state *st,
                                const struct latmc_step_call *call, const struct cpu_team *team,
                                uint64_t *accepted, uint64_t *attempted)
{
    struct heisenberg_state *w = hwhole(st);
    struct cpu_heisenberg_state *hs = &w->ref;
    const bool heatbath = call->step.kind == LATMC_STEP_COLOUR;
    const int colour = call->step.colour;
    uint64_t updates;
    if (call->part != LATMC_STEP_WHOLE) { /* a pair's part: heisenberg_step_caps */
        struct latmc_step pair[2];
        cpu_pair_steps(sim, call, pair);
        const struct latmc_rng_name names[2] = { pair[0].rng, pair[1].rng };
        updates = w->dsp.pair_soa(&st->lattice, &w->soa, hs->replicas, sim->model_data, heatbath,
                                  colour, call->part, sim->desc.seed, names, call->boxes,
                                  call->n_boxes, team);
    } else {
        const struct cpu_heisenberg_fields f = { hs->spins, hs->couplings, slab_j_origin(st),
                                                 &w->soa };
        updates = w->dsp.step(&st->lattice, &f, hs->replicas, sim->model_data, heatbath, colour,
                              sim->desc.seed, call->step.rng, call->boxes, call->n_boxes, team);
    }
    if (team->id == 0) { /* the step's count, not a member's share */
        *accepted += updates;
        *attempted += updates;
    }
}

/* The pair of a pass (both colours, lib/box.h) where the level has it, rows hold whole
 * vectors (L_x / 2 a multiple of dsp.row_lanes) and the state is the whole lattice; else WHOLE steps.
 * Slab storage (boxes with their own memory, parts of a lattice) keeps WHOLE steps: their
 * halos are then written through as each step goes (copy_step_sites), where a pair's two
 * parts would need the generic halo copies between them. */
static unsigned heisenberg_step_caps(latmc_sim *sim, struct cpu_state *st)
{
    (void)sim;
    const struct heisenberg_state *w = hwhole(st);
    return w->dsp.pair_soa && (st->lattice.lx / 2) % w->dsp.row_lanes == 0 && !st->slab.on
               ? LATMC_STEP_CAP_PAIR
               : 0u;
}

/* Whether a call's boxes are consecutive slabs that cover the lattice's planes. */
static bool boxes_cover(const struct cpu_state *st, const struct latmc_step_call *call)
{
    int64_t next = 0;
    for (int i = 0; i < call->n_boxes; i++) {
        const struct latmc_box *b = &call->boxes[i];
        if (b->origin[b->axis] != next)
            return false;
        next += b->extent[b->axis];
    }
    return next == cpu_heisenberg_planes(&st->lattice);
}

/*
 * Consecutive pairs of overrelaxation steps (passes), each colour c then 1 - c, on the
 * whole lattice, where the level has the fused passes: as many as it takes at once
 * (cpu_heisenberg_fused_passes), or 0. Overrelaxation draws nothing, so passes of
 * consecutive sweeps fuse as well; a heat-bath pass ends the run (it stays a pair).
 */
static int heisenberg_fuse_pairs(latmc_sim *sim, struct cpu_state *st,
                                 const struct latmc_step_call *calls, int n_pairs,
                                 int team_size)
{
    const struct heisenberg_state *w = hwhole(st);
    if (!w->dsp.or_passes_soa || !(heisenberg_step_caps(sim, st) & LATMC_STEP_CAP_PAIR))
        return 0;
    /* the size rule first: most lattices stop here, before any step is looked at */
    const int most = cpu_heisenberg_fused_passes(&st->lattice, team_size, n_pairs);
    if (!most)
        return 0;
    const int colour = calls[0].step.colour;
    int k = 0;
    for (; k < most; k++) {
        struct latmc_step pair[2];
        cpu_pair_steps(sim, &calls[2 * k], pair);
        if (pair[0].kind != LATMC_STEP_OVERRELAX || pair[1].kind != LATMC_STEP_OVERRELAX ||
            pair[0].colour != colour || pair[1].colour != 1 - colour ||
            !boxes_cover(st, &calls[2 * k]))
            break;
    }
    return k >= 2 ? k : 0;
}

/* k passes that heisenberg_fuse_pairs took, as one wavefront (heisenberg_simd_tmpl.h says
 * why it is the chain of the k pairs); overrelaxation counts no updates. */
static void heisenberg_run_pairs(latmc_sim *sim, struct cpu_state *st,
                                 const struct latmc_step_call *calls, int k,
                                 const struct cpu_team *team, uint64_t *accepted,
                                 uint64_t *attempted)
{
    (void)accepted;
    (void)attempted;
    struct heisenberg_state *w = hwhole(st);
    w->dsp.or_passes_soa(&st->lattice, &w->soa, w->ref.replicas, sim->model_data,
                         calls[0].step.colour, k, team);
}

/* SIMD levels: the float copy of planes [p0, p1) of every replica from the SoA arrays. */
static void export_planes(latmc_sim *sim, struct cpu_state *st, int64_t p0, int64_t p1)
{
    struct heisenberg_state *w = hwhole(st);
    const int64_t rpp = cpu_heisenberg_rows_per_plane(&st->lattice), ps = plane_sites(st);
    for (int r = 0; r < w->ref.replicas; r++) {
        float *at = replica_spins(st, &w->ref, r) + LATMC_HEISENBERG_COMPONENTS * ps * p0;
        cpu_heisenberg_soa_export_rows(&st->lattice, &w->soa, r, at, p0 * rpp, p1 * rpp,
                                       sim->n_threads);
    }
}

static void heisenberg_measure_planes(latmc_sim *sim, struct cpu_state *st, int64_t p0,
                                      int64_t p1, void *sums)
{
    /* (a slab: its own planes; the plane above them is its upper halo) */
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
    if (st->slab.on) { /* the slab's own planes, added in order */
        heisenberg_measure_planes(sim, st, st->slab.below,
                                  st->slab.below + st->slab.p1 - st->slab.p0, hs->planes);
        latmc_model_add_planes(sim->model, sums, hs->planes, st->slab.p1 - st->slab.p0);
        return;
    }
    const int64_t planes = cpu_heisenberg_planes(&st->lattice);
    if (hwhole(st)->dsp.soa)
        export_spins(sim, st, hs->spins);
    cpu_heisenberg_measure_planes(&st->lattice, hs, 0, planes, hs->planes, sim->n_threads);
    latmc_model_add_planes(sim->model, sums, hs->planes, planes);
}

/* The sums and the Fourier modes' projections in one pass (cpu_backend.h's measure_modes:
 * a state of the whole lattice): each plane's chunks, then its projections while the
 * plane is in the cache, on the site-order spins the measurement reads anyway. */
static int heisenberg_measure_modes(latmc_sim *sim, struct cpu_state *st, void *sums,
                                    void *proj)
{
    struct cpu_heisenberg_state *hs = hstate(st);
    const int64_t planes = cpu_heisenberg_planes(&st->lattice);
    if (hwhole(st)->dsp.soa)
        export_spins(sim, st, hs->spins);
    if (cpu_heisenberg_measure_projections(&sim->desc, &st->lattice, hs, hs->planes, proj,
                                           sim->n_threads) < 0)
        return latmc_fail(LATMC_ENOMEM, "Heisenberg: cannot allocate the threads' Fourier "
                          "projections");
    latmc_model_add_planes(sim->model, sums, hs->planes, planes);
    return LATMC_OK;
}

/* Planes [p0, p1) of every replica, replica by replica, in site order (local planes of a
 * slab: cpu_backend.h). */
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
            memcpy(out, replica_spins(st, &w->ref, r) + (size_t)(p0 * plane_sites(st)) *
                   LATMC_HEISENBERG_COMPONENTS, per_replica * sizeof(float));
    }
}

/* Planes [p0, p1) of every replica from buf (get_planes' layout). */
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
            memcpy(replica_spins(st, &w->ref, r) + (size_t)(p0 * plane_sites(st)) *
                   LATMC_HEISENBERG_COMPONENTS, in, per_replica * sizeof(float));
    }
}

/*
 * A slab's planes within a whole-lattice buffer of every replica (get_spins' layout):
 * `each` calls copy(sim, st, l, replica, plane of that replica in buf) for every local
 * plane l (set) or for the slab's own planes (get).
 */
static void slab_whole_spins(latmc_sim *sim, struct cpu_state *st, const float *in, float *out)
{
    struct heisenberg_state *w = hwhole(st);
    const int64_t ps = plane_sites(st), rpp = cpu_heisenberg_rows_per_plane(&st->lattice);
    const size_t whole = (size_t)sim->nsites * LATMC_HEISENBERG_COMPONENTS;
    const int64_t l0 = in ? 0 : st->slab.below;
    const int64_t l1 = in ? st->slab.planes : st->slab.below + st->slab.p1 - st->slab.p0;
    for (int r = 0; r < w->ref.replicas; r++)
        for (int64_t l = l0; l < l1; l++) {
            const size_t at = whole * (size_t)r +
                              (size_t)(cpu_slab_global(st, l) * ps) * LATMC_HEISENBERG_COMPONENTS;
            float *mine = replica_spins(st, &w->ref, r) + LATMC_HEISENBERG_COMPONENTS * l * ps;
            const size_t bytes = (size_t)ps * LATMC_HEISENBERG_COMPONENTS * sizeof(float);
            if (in && w->dsp.soa)
                cpu_heisenberg_soa_import_rows(&st->lattice, in + at, &w->soa, r, l * rpp,
                                               (l + 1) * rpp, 1);
            else if (in)
                memcpy(mine, in + at, bytes);
            else if (w->dsp.soa)
                cpu_heisenberg_soa_export_rows(&st->lattice, &w->soa, r, out + at, l * rpp,
                                               (l + 1) * rpp, 1);
            else
                memcpy(out + at, mine, bytes);
        }
}

static void heisenberg_get_spins(latmc_sim *sim, struct cpu_state *st, void *buf)
{
    if (st->slab.on) /* its own planes, at their places in the whole lattice */
        slab_whole_spins(sim, st, NULL, buf);
    else if (hwhole(st)->dsp.soa)
        export_spins(sim, st, buf);
    else
        memcpy(buf, hstate(st)->spins, spin_bytes(sim, st));
}

static void heisenberg_set_spins(latmc_sim *sim, struct cpu_state *st, const void *buf)
{
    if (st->slab.on) /* every plane it holds */
        slab_whole_spins(sim, st, buf, NULL);
    else if (hwhole(st)->dsp.soa)
        import_spins(sim, st, buf);
    else
        memcpy(hstate(st)->spins, buf, spin_bytes(sim, st));
}

static void heisenberg_get_coupling_planes(latmc_sim *sim, struct cpu_state *st, int64_t p0,
                                           int64_t p1, float *buf)
{
    const int64_t n = plane_sites(st) * sim->desc.ndim;
    memcpy(buf, hstate(st)->couplings + p0 * n, (size_t)((p1 - p0) * n) * sizeof(float));
}

static void heisenberg_get_couplings(latmc_sim *sim, struct cpu_state *st, float *buf)
{
    const int64_t n = plane_sites(st) * sim->desc.ndim;
    if (st->slab.on) /* its own planes, at their places in the whole lattice */
        heisenberg_get_coupling_planes(sim, st, st->slab.below,
                                       st->slab.below + st->slab.p1 - st->slab.p0,
                                       buf + st->slab.p0 * n);
    else
        memcpy(buf, hstate(st)->couplings, coupling_bytes(sim, st));
}

static void heisenberg_set_couplings(latmc_sim *sim, struct cpu_state *st, const float *buf)
{
    float *mine = hstate(st)->couplings;
    if (st->slab.on) { /* every plane it holds */
        const int64_t n = plane_sites(st) * sim->desc.ndim;
        for (int64_t l = 0; l < st->slab.planes; l++)
            memcpy(mine + l * n, buf + cpu_slab_global(st, l) * n, (size_t)n * sizeof(float));
    } else {
        memcpy(mine, buf, coupling_bytes(sim, st));
    }
    if (hwhole(st)->dsp.soa)
        cpu_heisenberg_soa_import_couplings(&st->lattice, mine, &hwhole(st)->soa, sim->n_threads);
}

/*
 * Slab storage (cpu_backend.h): the planes under a slab starting at p0, at least the halo,
 * so that the local origin is an even plane (the local checkerboard is the global one) and
 * a multiple of 4 sites of a colour (local Philox blocks are global ones: j_origin).
 */
/*
 * In-process boxes with their own memory (cpu_backend.h, copy_step_sites): the sites of
 * the step's colour in local planes [l0, l0 + n) of box src into local planes [d0, d0 +
 * n) of box dst, every replica. Slabs start at an even plane (heisenberg_slab_below), so
 * local colours are the global ones. A plane's sites of one colour are one run of the
 * colour's SoA array (3 components of rpp rows); in the reference layout every other site.
 */
static void heisenberg_copy_step_sites(latmc_sim *sim, struct cpu_state *src, int64_t l0,
                                       struct cpu_state *dst, int64_t d0, int64_t n,
                                       const struct latmc_step *step)
{
    (void)sim;
    struct heisenberg_state *ws = hwhole(src), *wd = hwhole(dst);
    const int col = step->colour;
    const int64_t rpp = cpu_heisenberg_rows_per_plane(&src->lattice), lx = src->lattice.lx;
    for (int r = 0; r < ws->ref.replicas; r++) {
        if (ws->dsp.soa) {
            const int64_t per_plane = 3 * rpp * ws->soa.n;
            memcpy(wd->soa.spin[r][col] + d0 * per_plane, ws->soa.spin[r][col] + l0 * per_plane,
                   (size_t)(n * per_plane) * sizeof(double));
            continue;
        }
        const float *from = replica_spins(src, &ws->ref, r);
        float *to = replica_spins(dst, &wd->ref, r);
        for (int64_t pl = 0; pl < n; pl++)
            for (int64_t y = 0; y < rpp; y++) {
                const int64_t shift = (rpp > 1 ? y + l0 + pl : l0 + pl) & 1;
                const int64_t fs = ((l0 + pl) * rpp + y) * lx, ts = ((d0 + pl) * rpp + y) * lx;
                for (int64_t x = (col - shift) & 1; x < lx; x += 2)
                    memcpy(to + (ts + x) * LATMC_HEISENBERG_COMPONENTS,
                           from + (fs + x) * LATMC_HEISENBERG_COMPONENTS,
                           LATMC_HEISENBERG_COMPONENTS * sizeof(float));
            }
    }
}

static int64_t heisenberg_slab_below(latmc_sim *sim, int64_t p0, int halo)
{
    const int64_t half = sim->desc.extent[0] / 2 * (sim->desc.ndim == 3 ? sim->desc.extent[1] : 1);
    for (int64_t below = halo;; below++) {
        const int64_t o = p0 - below;
        if (((o % 2) + 2) % 2 == 0 && (((o * half) % 4) + 4) % 4 == 0)
            return below;
    }
}

const struct cpu_model_kernels cpu_heisenberg_kernels = {
    .model = LATMC_MODEL_HEISENBERG,
    .create = heisenberg_create,
    .destroy = heisenberg_destroy,
    .init_spins = heisenberg_init_spins,
    .measure = heisenberg_measure,
    .measure_modes = heisenberg_measure_modes,
    .get_spins = heisenberg_get_spins,
    .set_spins = heisenberg_set_spins,
    .get_couplings = heisenberg_get_couplings,
    .set_couplings = heisenberg_set_couplings,
    .run_step = heisenberg_run_step,
    .step_caps = heisenberg_step_caps,
    .fuse_pairs = heisenberg_fuse_pairs,
    .run_pairs = heisenberg_run_pairs,
    .measure_planes = heisenberg_measure_planes,
    .get_planes = heisenberg_get_planes,
    .set_planes = heisenberg_set_planes,
    .slab_storage = true,
    .slab_below = heisenberg_slab_below,
    .copy_step_sites = heisenberg_copy_step_sites,
    .get_coupling_planes = heisenberg_get_coupling_planes,
};
