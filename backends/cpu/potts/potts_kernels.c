/*
 * The Potts model on the CPU. The C level: uint8 states in natural site order and the
 * reference kernels (potts_sweep.c). The SIMD levels (cpu_potts_dsp, potts_fast.h): the
 * split layout (potts_split.h) and the vector passes; get/set_spins convert, so the layout
 * never shows outside.
 */
#include <stdlib.h>
#include <string.h>

#include "cpu_backend.h"
#include "cpu_features.h"
#include "cpu_omp.h"
#include "model.h"
#include "potts.h"
#include "potts_fast.h"
#include "potts_kernels.h"
#include "potts_measure_modes.h"
#include "potts_ref.h"
#include "potts_split.h"

struct potts_state {
    int colours;
    struct cpu_potts_dsp dsp;
    uint8_t *spins;                       /* C level: natural order */
    struct cpu_potts_split split;         /* SIMD levels */
    struct cpu_potts_fast_tables fast;    /* from the core's tables: potts_params_changed */
    struct cpu_potts_hb_table hb;         /* heat bath 4 <= q <= 9 on large lattices */
    int scalar_every_site;                /* cpu_potts_set_scalar_every_site() */
};

static struct potts_state *potts_of(struct cpu_state *st)
{
    return st->model_state;
}

void cpu_potts_dsp_init(struct cpu_potts_dsp *dsp, unsigned flags)
{
    memset(dsp, 0, sizeof *dsp);
    dsp->level = "c";                     /* width 0: the reference kernels */
    dsp->count_state = cpu_potts_count_state;
    CPU_DSP_LEVELS(cpu_potts_dsp_init, dsp, flags);
}

/* The storage the dsp's level needs: the split layout for SIMD, else natural order. */
static int alloc_states(struct potts_state *ps, const struct latmc_lattice *g)
{
    if (ps->dsp.width > 0)
        return cpu_potts_split_alloc(&ps->split, g, ps->colours);
    const size_t bytes = (size_t)g->nsites;
    ps->spins = malloc(bytes);
    if (!ps->spins)
        return latmc_fail(LATMC_ENOMEM, "CPU backend: cannot allocate %zu bytes of Potts "
                          "states", bytes);
    return LATMC_OK;
}

static void free_states(struct potts_state *ps)
{
    free(ps->spins);
    ps->spins = NULL;
    cpu_potts_split_free(&ps->split);
    cpu_potts_hb_table_free(&ps->hb);
}

static int potts_create(latmc_sim *sim, struct cpu_state *st)
{
    struct potts_state *ps = calloc(1, sizeof *ps);
    if (!ps)
        return latmc_fail(LATMC_ENOMEM, "CPU backend: cannot allocate the Potts state");
    /* check_desc has accepted the extents, so this is 2 or 3 */
    ps->colours = latmc_potts_colours(sim->desc.ndim, sim->desc.extent);
    cpu_potts_dsp_init(&ps->dsp, st->simd_flags);
    const int status = alloc_states(ps, &st->lattice);
    if (status < 0) {
        free(ps);
        return status;
    }
    st->model_state = ps;
    return LATMC_OK;
}

static void potts_destroy(struct cpu_state *st)
{
    struct potts_state *ps = potts_of(st);
    if (ps)
        free_states(ps);
    free(ps);
    st->model_state = NULL;
}

static void potts_set_planes(latmc_sim *sim, struct cpu_state *st, int64_t p0, int64_t p1,
                             const void *buf);

/* A slab's hot start: each local plane as the global hot start has it. */
static int slab_hot_start(latmc_sim *sim, struct cpu_state *st)
{
    const int64_t n = st->lattice.lx * (st->lattice.ndim == 3 ? st->lattice.ly : 1);
    uint8_t *plane = malloc((size_t)n);
    if (!plane)
        return latmc_fail(LATMC_ENOMEM, "CPU backend: cannot allocate a plane of %lld Potts "
                          "states", (long long)n);
    for (int64_t l = 0; l < st->slab.planes; l++) {
        const int64_t g = cpu_slab_global(st, l);
        cpu_potts_hot_range(plane, g * n, (g + 1) * n, sim->desc.q, sim->desc.seed);
        potts_set_planes(sim, st, l, l + 1, plane);
    }
    free(plane);
    return LATMC_OK;
}

static int potts_init_spins(latmc_sim *sim, struct cpu_state *st, int how)
{
    struct potts_state *ps = potts_of(st);
    if (st->slab.on && how != LATMC_INIT_COLD)
        return slab_hot_start(sim, st);
    if (ps->dsp.width > 0) {
        if (how == LATMC_INIT_COLD)
            cpu_potts_split_cold_start(&ps->split);
        else
            cpu_potts_split_hot_start(&st->lattice, &ps->split, sim->desc.q, sim->desc.seed,
                                      sim->n_threads);
    } else if (how == LATMC_INIT_COLD) {
        memset(ps->spins, 0, (size_t)st->lattice.nsites);
    } else {
        cpu_potts_hot_start(&st->lattice, ps->spins, sim->desc.q, sim->desc.seed,
                            sim->n_threads);
    }
    return LATMC_OK;
}

/* The fast tables follow the core's tables: rebuilt after create and whenever a
 * parameter changed them (and after cpu_potts_use_dsp, which frees the heat-bath table). */
static void potts_params_changed(latmc_sim *sim, struct cpu_state *st)
{
    struct potts_state *ps = potts_of(st);
    const struct latmc_potts_tables *t = sim->model_data;
    cpu_potts_fast_tables_build(&ps->fast, t, sim->desc.ndim, sim->desc.q);
    if (sim->desc.algorithm == LATMC_ALGO_HEATBATH &&
        cpu_potts_hb_table_wanted(sim->desc.ndim, sim->desc.q, sim->nsites))
        (void)cpu_potts_hb_table_build(&ps->hb, t, sim->desc.ndim, sim->desc.q);
}

/* What every pass over colour `col` of the split layout needs. */
static void pass_geometry(latmc_sim *sim, struct cpu_state *st, int col,
                          struct cpu_potts_pass *p)
{
    struct potts_state *ps = potts_of(st);
    memset(p, 0, sizeof *p);
    p->g = &st->lattice;
    p->colours = ps->colours;
    p->colour = col;
    p->q = sim->desc.q;
    p->ndim = sim->desc.ndim;
    p->per_row = ps->split.per_row;
    p->per_colour = ps->split.per_colour;
    for (int k = 0; k < ps->colours; k++)
        p->sub[k] = ps->split.sub[k];
    p->j_begin = 0;
    p->j_end = ps->split.per_colour;
    /* slab storage: the draws' global numbers (potts_fast.h) */
    p->j_origin = st->slab.on ? st->slab.origin * ps->split.per_row *
                                    (st->lattice.ndim == 3 ? st->lattice.ly : 1)
                              : 0;
}

/* Everything the pass of a step (its colour) needs (pass_geometry, tables, draws: the
 * step's, and its acceptance sub). */
static void sweep_pass(latmc_sim *sim, struct cpu_state *st, const struct latmc_step *step,
                       struct cpu_potts_pass *p)
{
    struct potts_state *ps = potts_of(st);
    pass_geometry(sim, st, step->colour, p);
    p->tables = sim->model_data;
    p->fast = &ps->fast;
    p->hb_entry = ps->hb.entry;
    p->seed = sim->desc.seed;
    p->name[0] = step->rng;
    p->name[1] = latmc_rng_name_sub(step->rng, LATMC_POTTS_SUB_ACCEPT);
    for (int s = 0; s < 2; s++)
        cpu_potts_philox_init(&p->rng[s], sim->desc.seed, p->name[s], 0);
    p->scalar_every_site = ps->scalar_every_site;
}

static cpu_potts_pass_fn pass_fn(latmc_sim *sim, const struct potts_state *ps)
{
    return sim->desc.algorithm == LATMC_ALGO_METROPOLIS ? ps->dsp.metropolis
                                                        : ps->dsp.heatbath;
}

/* Sites of one colour per plane of the last axis (a plane: a row in 2D, L_y rows in 3D);
 * plane p holds within-colour numbers [p P, (p + 1) P). */
static int64_t colour_per_plane(const struct cpu_state *st, const struct potts_state *ps)
{
    const struct latmc_lattice *g = &st->lattice;
    return g->lx / ps->colours * (g->ndim == 3 ? g->ly : 1);
}

static int64_t rows_per_plane(const struct cpu_state *st)
{
    return st->lattice.ndim == 3 ? st->lattice.ly : 1;
}

/* Chunks handed to a thread at a time in a step: 256 x 32 sites, ~10 us of work. */
#define CPU_POTTS_GROUP 256

/* Thread k of T takes chunks [n k / T, n (k + 1) / T) (the measurement). */
static void thread_chunks(int64_t chunks, int64_t *begin, int64_t *end)
{
#ifdef _OPENMP
    const int64_t k = omp_get_thread_num(), T = omp_get_num_threads();
#else
    const int64_t k = 0, T = 1;
#endif
    *begin = chunks * k / T;
    *end = chunks * (k + 1) / T;
}

/* A box's sites of one colour: within-colour numbers [j0, j1) = [p0 P, p1 P) of its
 * planes p0 <= p < p1. */
static void box_range(const struct latmc_box *box, int64_t P, int64_t *j0, int64_t *j1)
{
    *j0 = box->origin[box->axis] * P;
    *j1 = (box->origin[box->axis] + box->extent[box->axis]) * P;
}

/*
 * The chunks of one box's sites [j0, j1) of a pass that are only partly inside it (at most
 * two; all of them when no chunk is whole): the pass with its site range set to the box's,
 * so that the other lanes keep their states. Whole chunks [ceil(j0 / W), floor(j1 / W))
 * are left to the caller.
 */
static uint64_t box_edge_chunks(const struct cpu_potts_pass *pass, cpu_potts_pass_fn fn,
                                int64_t W, int64_t j0, int64_t j1)
{
    struct cpu_potts_pass p = *pass;
    p.j_begin = j0;
    p.j_end = j1;
    const int64_t c0 = j0 / W, c1 = (j1 + W - 1) / W, f0 = (j0 + W - 1) / W, f1 = j1 / W;
    if (f0 >= f1)
        return fn(&p, c0, c1);
    return fn(&p, c0, f0) + fn(&p, f1, c1);
}

/*
 * Step `col` of the plan on the boxes, split layout: each box is the within-colour range
 * [p0 P, p1 P) of its planes. Whole chunks of every box go to whichever thread is free in
 * groups, as in split_sweep; the chunks cut by a box's ends (shared with a neighbouring
 * box, or with the colour's padding) are run by one thread, one after the other: their
 * stores write every lane, so no two of them may run at once. A chunk whole in one box is
 * in no other box, so the two kinds never touch the same bytes. Returns team member
 * `team`'s changes (cpu_omp.h).
 */
static uint64_t split_boxes_step(latmc_sim *sim, struct cpu_state *st,
                                 const struct latmc_step_call *call, const struct cpu_team *team)
{
    struct potts_state *ps = potts_of(st);
    struct cpu_potts_pass pass;
    sweep_pass(sim, st, &call->step, &pass);
    const cpu_potts_pass_fn fn = pass_fn(sim, ps);
    const int64_t W = ps->dsp.width, P = colour_per_plane(st, ps);
    const struct latmc_box *boxes = call->boxes;
    const int n = call->n_boxes;
    uint64_t changed = 0;
    if (team->size == 1) {
        for (int i = 0; i < n; i++) {
            struct cpu_potts_pass p = pass;
            box_range(&boxes[i], P, &p.j_begin, &p.j_end);
            changed += fn(&p, p.j_begin / W, (p.j_end + W - 1) / W);
        }
        return changed;
    }
    /* in the team's region (cpu_omp.h): these constructs bind to it */
    const int64_t group = CPU_POTTS_GROUP;
    int64_t j0, j1;
    LATMC_OMP(single nowait)
    for (int i = 0; i < n; i++) {
        box_range(&boxes[i], P, &j0, &j1);
        changed += box_edge_chunks(&pass, fn, W, j0, j1);
    }
    for (int i = 0; i < n; i++) {
        box_range(&boxes[i], P, &j0, &j1);
        const int64_t f0 = (j0 + W - 1) / W, f1 = j1 / W;
        const int64_t groups = f1 > f0 ? (f1 - f0 + group - 1) / group : 0;
        LATMC_OMP(for schedule(dynamic, 1) nowait)
        for (int64_t k = 0; k < groups; k++) {
            const int64_t b = f0 + k * group;
            changed += fn(&pass, b, b + group < f1 ? b + group : f1);
        }
    }
    return changed;
}

/*
 * One step of the core's plan (lib/box.h): colour call->step.colour of sweep call->sweep on the
 * boxes' planes (rows in 2D, planes z in 3D). WHOLE steps only: a colour's sites never
 * interact, so the boxes of one step are independent, and the next step starts after the
 * core's halo exchange. The C level runs the reference rule on the boxes' ranges of
 * within-colour numbers, the SIMD levels their chunks (split_boxes_step).
 */
static void potts_run_step(latmc_sim *sim, struct cpu_state *st,
                           const struct latmc_step_call *call, const struct cpu_team *team,
                           uint64_t *accepted, uint64_t *attempted)
{
    struct potts_state *ps = potts_of(st);
    const int64_t P = colour_per_plane(st, ps);
    int64_t planes = 0;
    for (int i = 0; i < call->n_boxes; i++)
        planes += call->boxes[i].extent[call->boxes[i].axis];
    if (ps->dsp.width > 0) {
        *accepted += split_boxes_step(sim, st, call, team);
    } else {
        const struct latmc_potts_chain chain = {
            .tables = sim->model_data,
            .algorithm = sim->desc.algorithm,
            .q = sim->desc.q,
            .colours = ps->colours,
            .seed = sim->desc.seed,
        };
        for (int i = 0; i < call->n_boxes; i++) {
            int64_t j0, j1;
            box_range(&call->boxes[i], P, &j0, &j1);
            if (st->slab.on) /* the global numbers and draws, the local spins */
                *accepted += cpu_potts_colour_range_slab(
                    &st->global, &st->lattice, st->slab.origin, ps->spins, &chain,
                    call->step.rng, call->step.colour, j0 + st->slab.origin * P,
                    j1 + st->slab.origin * P, team);
            else
                *accepted += cpu_potts_colour_range(&st->lattice, ps->spins, &chain,
                                                    call->step.rng, call->step.colour, j0, j1,
                                                    team);
        }
    }
    if (team->id == 0)
        *attempted += (uint64_t)(planes * P);
}

/* The observables' sums on the split layout, chunk by chunk like a sweep; with `measure`
 * the dsp's measure_bonds, the populations (sums->count) are left zero. */
static void split_measure(latmc_sim *sim, struct cpu_state *st, cpu_potts_measure_fn measure,
                          struct latmc_potts_sums *sums)
{
    struct potts_state *ps = potts_of(st);
    const int c = ps->colours;
    struct cpu_potts_pass pass[3];
    for (int col = 0; col < c; col++)
        pass_geometry(sim, st, col, &pass[col]);
    const int64_t W = ps->dsp.width;
    const int64_t chunks = (ps->split.per_colour + W - 1) / W;
    int64_t matches = 0;
    int64_t count[LATMC_POTTS_MAX_Q + 1];
    memset(count, 0, sizeof count);
    if (cpu_use_threads(sim->n_threads, sim->nsites)) {
        /* integer sums: the reduction's order cannot change the result */
        LATMC_OMP(parallel num_threads(sim->n_threads)
                  reduction(+:matches, count[:LATMC_POTTS_MAX_Q + 1]))
        {
            int64_t begin, end;
            thread_chunks(chunks, &begin, &end);
            for (int col = 0; col < c; col++)
                measure(&pass[col], begin, end, &matches, count);
        }
    } else {
        for (int col = 0; col < c; col++)
            measure(&pass[col], 0, chunks, &matches, count);
    }
    sums->matches = matches;
    memcpy(sums->count, count, sizeof count);
}

static void potts_measure_planes(latmc_sim *sim, struct cpu_state *st, int64_t p0, int64_t p1,
                                 void *out);

/* The sums and the Fourier modes' projections (potts_measure_modes.h): in one pass on the
 * C level's natural order; on the split layout the SIMD levels' own reduction of the bond
 * terms, then the projections counted in the colour arrays in place (no copy into site
 * order), which count the populations too (integers: measure's counts, every site
 * counted once). */
static int potts_measure_modes(latmc_sim *sim, struct cpu_state *st, void *sums, void *proj)
{
    struct potts_state *ps = potts_of(st);
    int rc;
    if (ps->dsp.width > 0) {
        split_measure(sim, st, ps->dsp.measure_bonds, sums);
        rc = cpu_potts_split_projections(&st->lattice, &ps->split, sim->desc.q, sim->n_threads,
                                         ps->dsp.count_state, proj, sums);
    } else {
        rc = cpu_potts_measure_modes(&st->lattice, ps->spins, sim->desc.q, sim->n_threads,
                                     sums, proj);
    }
    return rc == LATMC_OK ? LATMC_OK
                          : latmc_fail(rc, "Potts measurement: cannot allocate the threads' "
                                       "counts for the Fourier modes");
}

static void potts_measure(latmc_sim *sim, struct cpu_state *st, void *sums)
{
    struct potts_state *ps = potts_of(st);
    if (st->slab.on) { /* the slab's own planes, added in order */
        const int64_t n = st->slab.p1 - st->slab.p0;
        struct latmc_potts_sums *tiles = malloc((size_t)n * sizeof *tiles);
        memset(sums, 0, sizeof(struct latmc_potts_sums));
        if (!tiles) /* never called on a part (lib/part.c measures by planes) */
            return;
        potts_measure_planes(sim, st, st->slab.below, st->slab.below + n, tiles);
        latmc_model_add_planes(sim->model, sums, tiles, n);
        free(tiles);
    } else if (ps->dsp.width > 0)
        split_measure(sim, st, ps->dsp.measure, sums);
    else
        cpu_potts_measure(&st->lattice, ps->spins, sim->n_threads, sums);
}

/* The sums of plane p (its sites' +x, +y, +z bonds and states) on the split layout. */
static void split_plane_sums(const struct potts_state *ps, const struct cpu_potts_pass *pass,
                             int64_t P, int64_t p, struct latmc_potts_sums *sums)
{
    const int64_t W = ps->dsp.width;
    memset(sums, 0, sizeof *sums);
    for (int col = 0; col < ps->colours; col++) {
        struct cpu_potts_pass q = pass[col];
        q.j_begin = p * P;
        q.j_end = (p + 1) * P;
        ps->dsp.measure(&q, q.j_begin / W, (q.j_end + W - 1) / W, &sums->matches, sums->count);
    }
}

/* backend.h: the sums of each plane p0 <= p < p1 into sums[p - p0]. Integer counts: their
 * in-order combination (latmc_model_potts.add_sums) is potts_measure exactly. */
static void potts_measure_planes(latmc_sim *sim, struct cpu_state *st, int64_t p0, int64_t p1,
                                 void *out)
{
    struct potts_state *ps = potts_of(st);
    struct latmc_potts_sums *sums = out;
    if (ps->dsp.width == 0) {
        cpu_potts_measure_planes(&st->lattice, ps->spins, p0, p1, sim->n_threads, sums);
        return;
    }
    struct cpu_potts_pass pass[3];
    for (int col = 0; col < ps->colours; col++)
        pass_geometry(sim, st, col, &pass[col]);
    const int64_t P = colour_per_plane(st, ps);
    if (!cpu_use_threads(sim->n_threads, (p1 - p0) * P * ps->colours)) {
        for (int64_t p = p0; p < p1; p++)
            split_plane_sums(ps, pass, P, p, &sums[p - p0]);
        return;
    }
    LATMC_OMP(parallel for num_threads(sim->n_threads) schedule(static))
    for (int64_t p = p0; p < p1; p++)
        split_plane_sums(ps, pass, P, p, &sums[p - p0]);
}

/* backend.h: planes [p0, p1) in natural site order (one byte per site, one replica; local
 * planes of a slab: cpu_backend.h). */
static void potts_get_planes(latmc_sim *sim, struct cpu_state *st, int64_t p0, int64_t p1,
                             void *buf)
{
    struct potts_state *ps = potts_of(st);
    const int64_t rows = rows_per_plane(st), lx = st->lattice.lx;
    if (ps->dsp.width > 0)
        cpu_potts_split_rows_to_natural(&st->lattice, &ps->split, p0 * rows, p1 * rows, buf,
                                        sim->n_threads);
    else
        memcpy(buf, ps->spins + p0 * rows * lx, (size_t)((p1 - p0) * rows * lx));
}

static void potts_set_planes(latmc_sim *sim, struct cpu_state *st, int64_t p0, int64_t p1,
                             const void *buf)
{
    struct potts_state *ps = potts_of(st);
    const int64_t rows = rows_per_plane(st), lx = st->lattice.lx;
    if (ps->dsp.width > 0)
        cpu_potts_split_rows_from_natural(&st->lattice, &ps->split, p0 * rows, p1 * rows, buf,
                                          sim->n_threads);
    else
        memcpy(ps->spins + p0 * rows * lx, buf, (size_t)((p1 - p0) * rows * lx));
}

static int64_t plane_bytes(const struct cpu_state *st)
{
    return st->lattice.lx * rows_per_plane(st);
}

static void potts_get_spins(latmc_sim *sim, struct cpu_state *st, void *buf)
{
    struct potts_state *ps = potts_of(st);
    if (st->slab.on) /* its own planes, at their places in the whole lattice */
        potts_get_planes(sim, st, st->slab.below, st->slab.below + st->slab.p1 - st->slab.p0,
                         (uint8_t *)buf + st->slab.p0 * plane_bytes(st));
    else if (ps->dsp.width > 0)
        cpu_potts_split_to_natural(&st->lattice, &ps->split, buf, sim->n_threads);
    else
        memcpy(buf, ps->spins, (size_t)sim->nsites);
}

static void potts_set_spins(latmc_sim *sim, struct cpu_state *st, const void *buf)
{
    struct potts_state *ps = potts_of(st);
    if (st->slab.on) /* every plane it holds */
        for (int64_t l = 0; l < st->slab.planes; l++)
            potts_set_planes(sim, st, l, l + 1,
                             (const uint8_t *)buf + cpu_slab_global(st, l) * plane_bytes(st));
    else if (ps->dsp.width > 0)
        cpu_potts_split_from_natural(&st->lattice, &ps->split, buf, sim->n_threads);
    else
        memcpy(ps->spins, buf, (size_t)sim->nsites);
}

/* The tests' hooks act on every state of the sim (its boxes' with own memory). */
const char *cpu_potts_level(latmc_sim *sim)
{
    return potts_of(cpu_state_at(cpu_state_of(sim), 0))->dsp.level;
}

int cpu_potts_use_dsp(latmc_sim *sim, const struct cpu_potts_dsp *dsp)
{
    struct cpu_state *whole = cpu_state_of(sim);
    if (sim->have_config || dsp->width > CPU_POTTS_PAD)
        return latmc_fail(LATMC_ESTATE, "cpu_potts_use_dsp: only before the first "
                          "configuration, and for widths up to %d", CPU_POTTS_PAD);
    for (int i = 0; i < cpu_state_count(whole); i++) {
        struct cpu_state *st = cpu_state_at(whole, i);
        struct potts_state *ps = potts_of(st);
        free_states(ps);
        ps->dsp = *dsp;
        int status = alloc_states(ps, &st->lattice);
        if (status < 0)
            return status;
        potts_params_changed(sim, st);
    }
    return LATMC_OK;
}

void cpu_potts_set_scalar_every_site(latmc_sim *sim, int on)
{
    struct cpu_state *whole = cpu_state_of(sim);
    for (int i = 0; i < cpu_state_count(whole); i++)
        potts_of(cpu_state_at(whole, i))->scalar_every_site = on;
}

/*
 * Slab storage (cpu_backend.h): the planes under a slab starting at p0, at least the halo,
 * so that the local origin is a whole number of colourings (c planes: the local colours
 * are the global ones) and of 64 sites of a colour (chunks of every width and Philox
 * blocks line up with the global ones: potts_fast.h, j_origin).
 */
/*
 * In-process boxes with their own memory (cpu_backend.h, copy_step_sites): the sites of
 * the step's colour in local planes [l0, l0 + n) of box src into local planes [d0, d0 + n) of
 * box dst. Slabs start at a whole period of the colouring (potts_slab_below), so local
 * colours are the global ones in either box. A plane's sites of one colour are one run of
 * the colour's array in the split layout.
 */
static void potts_copy_step_sites(latmc_sim *sim, struct cpu_state *src, int64_t l0,
                                  struct cpu_state *dst, int64_t d0, int64_t n,
                                  const struct latmc_step *step)
{
    (void)sim;
    const struct potts_state *ps = potts_of(src), *pd = potts_of(dst);
    const int c = ps->colours, col = step->colour;
    if (ps->dsp.width > 0) {
        const int64_t P = colour_per_plane(src, ps);
        memcpy(pd->split.sub[col] + d0 * P, ps->split.sub[col] + l0 * P, (size_t)(n * P));
        return;
    }
    const int64_t lx = src->lattice.lx, rpp = rows_per_plane(src);
    for (int64_t pl = 0; pl < n; pl++)
        for (int64_t y = 0; y < rpp; y++) {
            /* the row's local coordinates: (y, plane) in 3D, (plane, 0) in 2D */
            const int64_t shift = (rpp > 1 ? y + l0 + pl : l0 + pl) % c;
            const uint8_t *from = ps->spins + ((l0 + pl) * rpp + y) * lx;
            uint8_t *to = pd->spins + ((d0 + pl) * rpp + y) * lx;
            for (int64_t x = ((col - shift) % c + c) % c; x < lx; x += c)
                to[x] = from[x];
        }
}

/* The split layout's chunks of W <= 64 sites of a colour are written whole, the lanes
 * outside the box as they were read (split_boxes_step): the halos may be written through
 * only where every plane starts a chunk. The natural layout writes site by site. */
static bool potts_through_safe(latmc_sim *sim, struct cpu_state *st)
{
    (void)sim;
    const struct potts_state *ps = potts_of(st);
    return ps->dsp.width == 0 || colour_per_plane(st, ps) % 64 == 0;
}

static int64_t potts_slab_below(latmc_sim *sim, int64_t p0, int halo)
{
    const int c = latmc_potts_colours(sim->desc.ndim, sim->desc.extent);
    const int64_t P = sim->desc.extent[0] / c * (sim->desc.ndim == 3 ? sim->desc.extent[1] : 1);
    int64_t below = halo;
    for (;; below++) {
        const int64_t o = p0 - below;
        if (((o % c) + c) % c == 0 && (((o * P) % 64) + 64) % 64 == 0)
            return below;
    }
}

const struct cpu_model_kernels cpu_potts_kernels = {
    .model = LATMC_MODEL_POTTS,
    .create = potts_create,
    .destroy = potts_destroy,
    .init_spins = potts_init_spins,
    .measure = potts_measure,
    .get_spins = potts_get_spins,
    .set_spins = potts_set_spins,
    .params_changed = potts_params_changed,
    .run_step = potts_run_step,
    .measure_planes = potts_measure_planes,
    .get_planes = potts_get_planes,
    .set_planes = potts_set_planes,
    .slab_storage = true,
    .slab_below = potts_slab_below,
    .copy_step_sites = potts_copy_step_sites,
    .through_safe = potts_through_safe,
    .measure_modes = potts_measure_modes,
};
