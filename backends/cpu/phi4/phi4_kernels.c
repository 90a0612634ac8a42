/*
 * The phi^4 model on the CPU: a float or double field (desc.precision), swept by the
 * kernels of the sim's SIMD level (phi4_dsp.h: the reference of phi4_sweep.c, or AVX2).
 * The reference keeps the field in natural site order; the SIMD levels keep it
 * colour-transposed and convert on the way in and out, and for the measurement, which is
 * always the reference reduction of phi4_measure.c on natural order: one sum per plane
 * along the last axis, the planes added in order (model->add_sums), so that the
 * observables are the same for any cut into boxes (lib/box.h), which run_step updates
 * one step (a colour of a pass) at a time.
 */
#include <stdlib.h>
#include <string.h>

#include "cpu_backend.h"
#include "cpu_features.h"
#include "model.h"
#include "modes.h"
#include "phi4_chunks.h"
#include "phi4_dsp.h"
#include "phi4_ref.h"

struct phi4_state {
    struct phi4_geom geom;
    struct cpu_phi4_dsp dsp;
    struct cpu_phi4_chunks chunks; /* the chunk schedule (phi4_chunks.h), or off */
    bool single;          /* float field (LATMC_PRECISION_FLOAT), else double */
    void *alloc;          /* the field with PHI4_PAD values of slack on either side */
    void *field;          /* N values of the field type, in the dsp's layout */
    void *natural;        /* transposed layouts: N values in natural order, else NULL */
    double *partials;     /* PHI4_NPARTIALS per row, for the deterministic reduction */
    struct latmc_phi4_sums *planes; /* one per plane along the last axis, for measure */
};

static struct phi4_state *phi4_state(struct cpu_state *st)
{
    return st->model_state;
}

static size_t value_bytes(const latmc_sim *sim)
{
    return sim->model->site_bytes(&sim->desc);
}

/* The field held: a slab's local lattice (cpu_backend.h), else the whole. */
static size_t field_bytes(const latmc_sim *sim, const struct cpu_state *st)
{
    return (size_t)st->lattice.nsites * value_bytes(sim);
}

/* Planes held along the last axis (the cut axis of boxes, the tile of the reduction). */
static int64_t n_planes(const struct cpu_state *st)
{
    return st->lattice.ndim == 3 ? st->lattice.lz : st->lattice.ly;
}

/* Rows (fixed y, z) per plane: 1 in 2D, L_y in 3D. */
static int64_t rows_per_plane(const struct phi4_state *p)
{
    return p->geom.lat.ndim == 3 ? p->geom.lat.ly : 1;
}

static void phi4_destroy(struct cpu_state *st)
{
    struct phi4_state *p = phi4_state(st);
    if (p) {
        free(p->alloc);
        free(p->natural);
        free(p->partials);
        free(p->planes);
        cpu_phi4_chunks_free(&p->chunks);
        free(p);
    }
    st->model_state = NULL;
}

static int phi4_create(latmc_sim *sim, struct cpu_state *st)
{
    struct phi4_state *p = calloc(1, sizeof *p);
    st->model_state = p;
    if (!p)
        return latmc_fail(LATMC_ENOMEM, "CPU backend: cannot allocate the phi^4 state");
    /* the core's check_desc guarantees a colouring (of the whole lattice: a slab takes its
     * colours, and names its draws by the global numbers, phi4_lattice.h) */
    p->geom = phi4_geom_of(&st->global);
    if (st->slab.on) {
        const int nc = p->geom.colouring.ncolours;
        p->geom.lat = st->lattice;
        p->geom.per_colour = st->lattice.nsites / nc;
        p->geom.j_origin = st->slab.origin * (st->lattice.nsites / n_planes(st)) / nc;
    }
    /* The schedule (phi4_chunks.h). The chunks need the whole lattice in this state: no
     * boxes, no part of a shared one. Only latmc_sim_create may fail on the variable: a
     * new cut (cpu_boxes_recut, between sweeps of a sim with a configuration) runs boxes
     * on the site order and a return to one box takes the variable's shape if it has a
     * valid one, never failing halfway through moving the field. */
    const bool creating = !sim->have_config;
    if (!st->slab.on || creating) {
        const int cst = cpu_phi4_chunks_plan(&p->geom, st->slab.on ? 2 : sim->desc.n_parts,
                                             &p->chunks);
        if (cst < 0 && creating) {
            phi4_destroy(st);
            return cst;
        }
        if (cst < 0)
            memset(&p->chunks, 0, sizeof p->chunks);
    }
    unsigned flags = p->chunks.on
                         ? cpu_phi4_chunk_dsp_flags(cpu_phi4_chunk_segment(&p->geom, &p->chunks),
                                                    st->simd_flags)
                         : cpu_phi4_dsp_flags(&p->geom, st->simd_flags);
    cpu_phi4_dsp_init(&p->dsp, flags);
    p->single = sim->desc.precision == LATMC_PRECISION_FLOAT;
    const size_t rows = (size_t)(st->lattice.ly * st->lattice.lz);
    const size_t pad = PHI4_PAD * value_bytes(sim);
    /* zeroed: the slack is read (and its values discarded) by vector loads at row ends */
    p->alloc = calloc(1, field_bytes(sim, st) + 2 * pad);
    p->field = p->alloc ? (char *)p->alloc + pad : NULL;
    if (p->dsp.transposed)
        p->natural = malloc(field_bytes(sim, st));
    p->partials = malloc(rows * PHI4_NPARTIALS * sizeof(double));
    p->planes = malloc((size_t)n_planes(st) * sizeof *p->planes);
    if (!p->alloc || (p->dsp.transposed && !p->natural) || !p->partials || !p->planes) {
        phi4_destroy(st);
        return latmc_fail(LATMC_ENOMEM, "CPU backend: cannot allocate %zu bytes of phi^4 field",
                          field_bytes(sim, st));
    }
    return LATMC_OK;
}

/* Natural order in, the dsp's layout out. */
static void import_field(latmc_sim *sim, struct cpu_state *st, struct phi4_state *p,
                         const void *natural)
{
    if (p->dsp.transposed)
        cpu_phi4_to_transposed(&p->geom, natural, p->field, (int)value_bytes(sim), sim->n_threads);
    else if (natural != p->field)
        memcpy(p->field, natural, field_bytes(sim, st));
}

/* The field in natural order: `buf`, or p->natural when buf is NULL (the field itself
 * for the reference layout). */
static const void *export_field(latmc_sim *sim, struct cpu_state *st, struct phi4_state *p,
                                void *buf)
{
    if (p->dsp.transposed) {
        void *out = buf ? buf : p->natural;
        cpu_phi4_from_transposed(&p->geom, p->field, out, (int)value_bytes(sim), sim->n_threads);
        return out;
    }
    if (buf)
        memcpy(buf, p->field, field_bytes(sim, st));
    return buf ? buf : p->field;
}

static int phi4_init_spins(latmc_sim *sim, struct cpu_state *st, int how)
{
    struct phi4_state *p = phi4_state(st);
    if (how == LATMC_INIT_COLD) {
        memset(p->field, 0, field_bytes(sim, st)); /* all-zero bits are 0.0 in IEEE 754 */
        return LATMC_OK;
    }
    void *natural = p->dsp.transposed ? p->natural : p->field;
    if (st->slab.on) { /* each local plane from its global one, in natural order */
        const int64_t n = st->lattice.nsites / n_planes(st);
        for (int64_t l = 0; l < st->slab.planes; l++) {
            const int64_t g = cpu_slab_global(st, l);
            if (p->single)
                cpu_phi4_hot_range_f((float *)natural + l * n, g * n, (g + 1) * n,
                                     sim->desc.seed);
            else
                cpu_phi4_hot_range_d((double *)natural + l * n, g * n, (g + 1) * n,
                                     sim->desc.seed);
        }
    } else if (p->single)
        cpu_phi4_hot_start_f(&p->geom, natural, sim->desc.seed, sim->n_threads);
    else
        cpu_phi4_hot_start_d(&p->geom, natural, sim->desc.seed, sim->n_threads);
    import_field(sim, st, p, natural);
    return LATMC_OK;
}

/*
 * One step of the core's plan (lib/box.h): the step's colour, its draws named by the
 * step's (its pass's sweep word, lib/model_phi4.c), on the boxes' within-colour numbers.
 * Steps are WHOLE
 * (no step_caps): sites of one colour never interact, so a box needs nothing from the
 * other boxes' part of the same step.
 */
static void phi4_run_step(latmc_sim *sim, struct cpu_state *st, const struct latmc_step_call *call,
                          const struct cpu_team *team, uint64_t *accepted, uint64_t *attempted)
{
    struct phi4_state *p = phi4_state(st);
    const struct latmc_phi4_tables *t = sim->model_data;
    if (call->step.kind == LATMC_STEP_OWN) { /* the chunk schedule: step = sub-grid */
        *accepted += cpu_phi4_chunks_run(sim, &p->geom, &p->chunks, &p->dsp, p->single,
                                         p->field, t, call->sweep, call->step.index, team);
        if (team->id == 0)
            *attempted += (uint64_t)(p->geom.lat.nsites >> p->geom.lat.ndim) * t->nloc * t->nhit;
        return;
    }
    const int nc = p->geom.colouring.ncolours;
    const struct latmc_rng_name name = call->step.rng;
    const int colour = call->step.colour;
    /* numbers per plane: rows per plane times L_x / ncolours (phi4_lattice.h) */
    const int64_t per_plane = rows_per_plane(p) * (p->geom.lat.lx / nc);
    enum { CHUNK = 16 }; /* boxes per kernel call: no allocation here */
    for (int b0 = 0; b0 < call->n_boxes; b0 += CHUNK) {
        struct phi4_range r[CHUNK];
        const int nb = call->n_boxes - b0 < CHUNK ? call->n_boxes - b0 : CHUNK;
        int64_t sites = 0;
        for (int i = 0; i < nb; i++) {
            const struct latmc_box *box = &call->boxes[b0 + i];
            r[i].j0 = box->origin[box->axis] * per_plane;
            r[i].j1 = (box->origin[box->axis] + box->extent[box->axis]) * per_plane;
            sites += r[i].j1 - r[i].j0;
        }
        if (p->single)
            *accepted += p->dsp.step_f(&p->geom, p->field, t, sim->desc.seed, name, colour,
                                       r, nb, team);
        else
            *accepted += p->dsp.step_d(&p->geom, p->field, t, sim->desc.seed, name, colour,
                                       r, nb, team);
        if (team->id == 0)
            *attempted += (uint64_t)sites * t->nhit;
    }
}

/* n 4-byte words (a sub-row of floats or doubles: 16 to 64 values at the lattices that
 * matter) by an inline loop: a call of memcpy per row cost 1 % of a 128^3 sweep. */
static void copy_words(void *to, const void *from, size_t n)
{
    uint32_t *t = to;
    const uint32_t *f = from;
    for (size_t i = 0; i < n; i++)
        t[i] = f[i];
}

/*
 * In-process boxes with their own memory (cpu_backend.h, copy_step_sites): the sites of
 * the step's colour in local planes [l0, l0 + n) of box src into local planes [d0, d0 +
 * n) of box dst. Both slabs start at a whole period of the colouring (phi4_slab_below),
 * so a row's local coordinates give its global colours in either box. A row's sites of
 * one colour are one sub-row of the colour-transposed layout, every ncolours-th value of
 * the natural one.
 */
static void phi4_copy_step_sites(latmc_sim *sim, struct cpu_state *src, int64_t l0,
                                 struct cpu_state *dst, int64_t d0, int64_t n,
                                 const struct latmc_step *step)
{
    const struct phi4_state *ps = phi4_state(src);
    const struct phi4_state *pd = phi4_state(dst);
    const struct latmc_phi4_colouring *c = &ps->geom.colouring;
    const int nc = c->ncolours, colour = step->colour;
    const int64_t lx = ps->geom.lat.lx, rpp = rows_per_plane(ps), sub = lx / nc;
    const size_t vb = value_bytes(sim);
    for (int64_t pl = 0; pl < n; pl++)
        for (int64_t y = 0; y < rpp; y++) {
            /* the row's local coordinates in src: (y, plane) in 3D, (plane, 0) in 2D */
            const int64_t ly = rpp > 1 ? y : l0 + pl, lz = rpp > 1 ? l0 + pl : 0;
            const int64_t shift = (c->ay * ly + c->az * lz) % nc;
            const int64_t r = ((colour - shift) % nc + nc) % nc; /* x mod nc of the colour */
            const char *from = (const char *)ps->field + (size_t)(((l0 + pl) * rpp + y) * lx) * vb;
            char *to = (char *)pd->field + (size_t)(((d0 + pl) * rpp + y) * lx) * vb;
            if (ps->dsp.transposed)
                copy_words(to + (size_t)(r * sub) * vb, from + (size_t)(r * sub) * vb,
                           (size_t)sub * vb / 4);
            else
                for (int64_t x = r; x < lx; x += nc)
                    memcpy(to + (size_t)x * vb, from + (size_t)x * vb, vb);
        }
}

/* The sums of each plane p0 <= p < p1 into planes[p - p0] (reads the planes around them). */
static void measure_planes_of(latmc_sim *sim, struct cpu_state *st, struct phi4_state *p,
                              int64_t p0, int64_t p1, struct latmc_phi4_sums *planes)
{
    if (p->dsp.transposed) { /* read in place, with no copy into natural order */
        if (p->single)
            cpu_phi4_measure_planes_transposed_f(&p->geom, p->field, p->partials, p0, p1,
                                                 planes, sim->n_threads);
        else
            cpu_phi4_measure_planes_transposed_d(&p->geom, p->field, p->partials, p0, p1,
                                                 planes, sim->n_threads);
        return;
    }
    const void *natural = export_field(sim, st, p, NULL);
    if (p->single)
        cpu_phi4_measure_planes_f(&p->geom, natural, p->partials, p0, p1, planes,
                                  sim->n_threads);
    else
        cpu_phi4_measure_planes_d(&p->geom, natural, p->partials, p0, p1, planes,
                                  sim->n_threads);
}

static void phi4_measure_planes(latmc_sim *sim, struct cpu_state *st, int64_t p0, int64_t p1,
                                void *sums)
{
    /* (a slab: its own planes; the planes around them are its halos) */
    measure_planes_of(sim, st, phi4_state(st), p0, p1, sums);
}

/* The whole lattice: its planes' sums added in plane order, from zeros (model.h). */
static void phi4_measure(latmc_sim *sim, struct cpu_state *st, void *sums)
{
    struct phi4_state *p = phi4_state(st);
    /* a slab: its own planes */
    const int64_t first = st->slab.on ? st->slab.below : 0;
    const int64_t np = st->slab.on ? st->slab.p1 - st->slab.p0 : n_planes(st);
    measure_planes_of(sim, st, p, first, first + np, p->planes);
    latmc_model_add_planes(sim->model, sums, p->planes, np);
}

/* The sums and the fixed-point projections of the Fourier modes in one pass (cpu_backend.h's
 * measure_modes: a state of the whole lattice): each plane's rows, then its projections
 * while the plane is in the cache, on the field as stored (the SIMD levels' transposed
 * field in place, as phi4_measure reads it: no copy). */
static int phi4_measure_modes(latmc_sim *sim, struct cpu_state *st, void *sums, void *proj)
{
    struct phi4_state *p = phi4_state(st);
    const int nc = p->dsp.transposed ? p->geom.colouring.ncolours : 0;
    const int r = p->single
                      ? cpu_phi4_measure_projections_f(&sim->desc, &p->geom, p->field, nc,
                                                       p->partials, p->planes, proj,
                                                       sim->n_threads)
                      : cpu_phi4_measure_projections_d(&sim->desc, &p->geom, p->field, nc,
                                                       p->partials, p->planes, proj,
                                                       sim->n_threads);
    if (r < 0)
        return latmc_fail(r, "phi^4 measurement: cannot allocate the threads' projections");
    latmc_model_add_planes(sim->model, sums, p->planes, n_planes(st));
    return LATMC_OK;
}

/* backend.h: planes [p0, p1) in natural site order (get_spins' layout restricted to them;
 * local planes of a slab: cpu_backend.h). */
static void phi4_get_planes(latmc_sim *sim, struct cpu_state *st, int64_t p0, int64_t p1,
                             void *buf)
{
    struct phi4_state *p = phi4_state(st);
    const int64_t rpp = rows_per_plane(p), vb = (int64_t)value_bytes(sim);
    if (p->dsp.transposed)
        cpu_phi4_rows_from_transposed(&p->geom, p->field, buf, (int)vb, p0 * rpp, p1 * rpp,
                                      sim->n_threads);
    else
        memcpy(buf, (const char *)p->field + p0 * rpp * p->geom.lat.lx * vb,
               (size_t)((p1 - p0) * rpp * p->geom.lat.lx * vb));
}

static void phi4_set_planes(latmc_sim *sim, struct cpu_state *st, int64_t p0, int64_t p1,
                             const void *buf)
{
    struct phi4_state *p = phi4_state(st);
    const int64_t rpp = rows_per_plane(p), vb = (int64_t)value_bytes(sim);
    if (p->dsp.transposed)
        cpu_phi4_rows_to_transposed(&p->geom, buf, p->field, (int)vb, p0 * rpp, p1 * rpp,
                                    sim->n_threads);
    else
        memcpy((char *)p->field + p0 * rpp * p->geom.lat.lx * vb, buf,
               (size_t)((p1 - p0) * rpp * p->geom.lat.lx * vb));
}

/* Bytes of one plane in natural order. */
static size_t plane_bytes(const latmc_sim *sim, const struct cpu_state *st)
{
    return (size_t)(st->lattice.nsites / n_planes(st)) * value_bytes(sim);
}

static void phi4_get_spins(latmc_sim *sim, struct cpu_state *st, void *buf)
{
    if (st->slab.on) /* its own planes, at their places in the whole lattice */
        phi4_get_planes(sim, st, st->slab.below, st->slab.below + st->slab.p1 - st->slab.p0,
                        (char *)buf + (size_t)st->slab.p0 * plane_bytes(sim, st));
    else
        export_field(sim, st, phi4_state(st), buf);
}

static void phi4_set_spins(latmc_sim *sim, struct cpu_state *st, const void *buf)
{
    if (st->slab.on) /* every plane it holds */
        for (int64_t l = 0; l < st->slab.planes; l++)
            phi4_set_planes(sim, st, l, l + 1,
                             (const char *)buf +
                                 (size_t)cpu_slab_global(st, l) * plane_bytes(sim, st));
    else
        import_field(sim, st, phi4_state(st), buf);
}

/*
 * Slab storage (cpu_backend.h): the planes under a slab starting at p0, at least the halo,
 * so that the local origin is a whole number of the colouring's periods along the cut
 * axis (the local colours are the global ones) and of 64 numbers of a colour (local
 * Philox and SIMD blocks are global ones: phi4_lattice.h, j_origin).
 */
static int64_t phi4_slab_below(latmc_sim *sim, int64_t p0, int halo)
{
    const latmc_sim_desc *d = &sim->desc;
    const int64_t mult = sim->model->box_plane_multiple_of ? sim->model->box_plane_multiple_of(d)
                                                           : sim->model->box_plane_multiple;
    const int nc = latmc_phi4_colouring_of(d->ndim, d->extent).ncolours;
    const int64_t per_plane = d->extent[0] / nc * (d->ndim == 3 ? d->extent[1] : 1);
    const int64_t m = mult > 1 ? mult : 1;
    for (int64_t below = halo;; below++) {
        const int64_t o = p0 - below;
        if (((o % m) + m) % m == 0 && (((o * per_plane) % 64) + 64) % 64 == 0)
            return below;
    }
}

/* The chunk schedule's steps per sweep (its sub-grids), 0 for the site order. */
static int phi4_own_steps(latmc_sim *sim, struct cpu_state *st)
{
    return phi4_state(st)->chunks.on ? 1 << sim->desc.ndim : 0;
}

const struct cpu_model_kernels cpu_phi4_kernels = {
    .model = LATMC_MODEL_PHI4,
    .create = phi4_create,
    .destroy = phi4_destroy,
    .init_spins = phi4_init_spins,
    .measure = phi4_measure,
    .measure_modes = phi4_measure_modes,
    .get_spins = phi4_get_spins,
    .set_spins = phi4_set_spins,
    .run_step = phi4_run_step,
    .measure_planes = phi4_measure_planes,
    .get_planes = phi4_get_planes,
    .set_planes = phi4_set_planes,
    .slab_storage = true,
    .slab_below = phi4_slab_below,
    .copy_step_sites = phi4_copy_step_sites,
    .own_steps = phi4_own_steps,
};
