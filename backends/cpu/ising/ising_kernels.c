/*
 * The Ising model on the CPU. At the C level: int8 spins in natural site order and the
 * reference kernels (ising_sweep.c, ising_measure.c), which define the chain. At a SIMD
 * level (cpu_features.h): the split-row layout and that level's kernels (ising_split.h),
 * the same chain bit for bit. The level is fixed at sim creation from cpu_state.simd_flags.
 * With +-J couplings (desc.couplings = BIMODAL) the couplings are kept as eps[ndim i + mu]
 * (get_couplings, the C level's kernels) and, at a SIMD level, also as the split layout's
 * bond plane (ising_split.h, one byte per site), rebuilt from eps after every set_couplings.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "coupling_fill.h"
#include "cpu_backend.h"
#include "cpu_omp.h"
#include "ising.h"
#include "ising_decisions.h"
#include "ising_measure_modes.h"
#include "ising_ref.h"
#include "ising_split.h"

struct ising_state {
    struct cpu_ising_dsp dsp;      /* dsp.colour_rows NULL: the C level */
    int8_t *natural;               /* C level: one int8 per site, natural order */
    struct cpu_ising_split split;  /* SIMD levels */
    int8_t *eps;                   /* +-J: ndim per site, eps[ndim i + mu]; NULL: uniform;
                                      at a SIMD level mirrored in split's bond plane */
    struct cpu_ising_decisions dec; /* SIMD levels: the core's tables in the kernels' form */
    struct cpu_ising_dec_dsp dec_dsp; /* the bit-sliced chain at this level */
};

static struct ising_state *ising_state(struct cpu_state *st)
{
    return st->model_state;
}

/* ---- slab-only storage (cpu_backend.h): planes of the local lattice ---- */

/* Sites of one plane along the last axis (a row in 2D, L_x L_y in 3D). */
static int64_t plane_sites(const struct cpu_state *st)
{
    return st->lattice.lx * (st->lattice.ndim == 3 ? st->lattice.ly : 1);
}

/* The couplings of the lattice, or of a slab's local planes: their elements of the global
 * draw (coupling_fill.h). */
static void draw_couplings(latmc_sim *sim, struct cpu_state *st, int8_t *eps)
{
    const int64_t n = plane_sites(st) * sim->desc.ndim; /* of one plane */
    if (st->slab.on)
        cpu_draw_slab_couplings(st, eps, CPU_COUPLINGS_I8_BIMODAL, n, sim->desc.coupling_seed,
                                sim->n_threads);
    else
        cpu_draw_couplings(eps, CPU_COUPLINGS_I8_BIMODAL, 0, st->lattice.nsites * sim->desc.ndim,
                           sim->desc.coupling_seed, sim->n_threads, st->simd_flags);
}

static int ising_create(latmc_sim *sim, struct cpu_state *st)
{
    struct ising_state *is = calloc(1, sizeof *is);
    if (!is)
        return latmc_fail(LATMC_ENOMEM, "CPU backend: cannot allocate the Ising state");
    const bool coupled = sim->desc.couplings == LATMC_COUPLINGS_BIMODAL;
    cpu_ising_dsp_init(&is->dsp, st->simd_flags);
    cpu_ising_dec_dsp_init(&is->dec_dsp, st->simd_flags);
    int status = LATMC_OK;
    if (is->dsp.colour_rows) {
        status = cpu_ising_split_alloc(&is->split, &st->lattice);
        if (status == LATMC_OK && st->slab.on) {
            /* local row r is global row r + row_origin (ising_split.h) */
            const int64_t rpp = sim->desc.ndim == 3 ? st->lattice.ly : 1;
            is->split.row_origin = st->slab.origin * rpp;
            is->split.plane_parity = (int)(st->slab.origin & 1);
            is->split.global_rows = st->slab.global_planes * rpp;
        }
    } else {
        size_t bytes = (size_t)st->lattice.nsites;
        is->natural = malloc(bytes);
        if (!is->natural)
            status = latmc_fail(LATMC_ENOMEM, "CPU backend: cannot allocate %zu bytes of spins",
                                bytes);
    }
    if (status == LATMC_OK && coupled) {
        const size_t bytes = (size_t)st->lattice.nsites * (size_t)sim->desc.ndim;
        is->eps = malloc(bytes);
        if (!is->eps)
            status = latmc_fail(LATMC_ENOMEM, "CPU backend: cannot allocate %zu bytes of "
                                "couplings", bytes);
        else
            draw_couplings(sim, st, is->eps);
        if (status == LATMC_OK && is->dsp.colour_rows) {
            status = cpu_ising_split_alloc_bonds(&is->split);
            if (status == LATMC_OK)
                cpu_ising_split_bonds_from_eps(&is->split, is->eps, sim->n_threads);
        }
    }
    if (status < 0) {
        free(is->eps);
        free(is->natural);
        cpu_ising_split_free(&is->split);
        free(is);
        return status;
    }
    st->model_state = is;
    return LATMC_OK;
}

static void ising_destroy(struct cpu_state *st)
{
    struct ising_state *is = ising_state(st);
    if (!is)
        return;
    free(is->natural);
    free(is->eps);
    cpu_ising_split_free(&is->split);
    free(is);
    st->model_state = NULL;
}

static int ising_init_spins(latmc_sim *sim, struct cpu_state *st, int how)
{
    struct ising_state *is = ising_state(st);
    if (is->natural) {
        if (how == LATMC_INIT_COLD) {
            memset(is->natural, 1, (size_t)st->lattice.nsites);
        } else if (st->slab.on) {
            /* every local plane, halos included, as the global hot start has it */
            const int64_t n = plane_sites(st);
            for (int64_t l = 0; l < st->slab.planes; l++) {
                const int64_t g = cpu_slab_global(st, l);
                cpu_ising_hot_range(is->natural + l * n, g * n, (g + 1) * n, sim->desc.seed);
            }
        } else {
            cpu_ising_hot_start(&st->lattice, is->natural, sim->desc.seed, sim->n_threads);
        }
    } else if (how == LATMC_INIT_COLD) {
        cpu_ising_split_cold(&is->split);
    } else {
        cpu_ising_split_hot(&is->split, sim->desc.seed, sim->n_threads);
    }
    return LATMC_OK;
}

/* Whether the sim runs the bit-sliced decisions (doc/models/ising-decisions.md). */
static bool bitsliced(const latmc_sim *sim)
{
    return sim->param[LATMC_PARAM_DECISIONS] != 0.0;
}

/*
 * A WHOLE step of the bit-sliced chain: each box's planes, on either layout (the plane
 * range in global checkerboard numbers, as the C level's reference path names them). The
 * SIMD levels take the fused pair instead (ising_step_caps), as chain 0 does.
 */
static void run_step_bitsliced(latmc_sim *sim, struct cpu_state *st,
                               const struct latmc_step_call *call, const struct cpu_team *team,
                               uint64_t *accepted, uint64_t *attempted)
{
    struct ising_state *is = ising_state(st);
    const int64_t half_plane = st->lattice.lx * (sim->desc.ndim == 3 ? st->lattice.ly : 1) / 2;
    const int64_t origin = st->slab.on ? st->slab.origin : 0;
    const struct cpu_ising_dec_view view = {
        .global = &st->global, .local = &st->lattice, .origin = origin,
        .natural = is->natural, .split = is->natural ? NULL : &is->split,
        .eps = is->natural ? is->eps : NULL,
    };
    int64_t planes = 0;
    for (int i = 0; i < call->n_boxes; i++) {
        const struct latmc_box *box = &call->boxes[i];
        const int64_t p0 = box->origin[box->axis], p1 = p0 + box->extent[box->axis];
        planes += p1 - p0;
        *accepted += (is->natural ? cpu_ising_decisions_range : is->dec_dsp.range)(&view, sim->model_data, sim->desc.algorithm,
                                               sim->desc.seed, &call->step,
                                               (p0 + origin) * half_plane,
                                               (p1 + origin) * half_plane, team);
    }
    if (team->id == 0)
        *attempted += (uint64_t)(planes * half_plane);
}

/* The fused pair's runner of either chain (ising_split.h): one per team member. */
struct ising_pair {
    union {
        struct cpu_ising_pair_runner runner; /* the first member of each */
        struct cpu_ising_pair_simd simd;
        struct cpu_ising_dec_pair bitsliced;
    } u;
};

static void pair_runner(latmc_sim *sim, const struct ising_state *is,
                        const struct latmc_lattice *global, const struct latmc_step_call *call,
                        struct ising_pair *r)
{
    struct latmc_step pair[2];
    cpu_pair_steps(sim, call, pair);
    if (bitsliced(sim))
        cpu_ising_dec_pair_setup(&r->u.bitsliced, is->dec_dsp.prepare,
                                 is->dec_dsp.range_pass, global, sim->model_data,
                                 sim->desc.algorithm, sim->desc.seed, pair);
    else
        cpu_ising_pair_simd_setup(&r->u.simd, &is->dsp, &is->dec, sim->desc.seed, pair);
}

/*
 * One step of the core's plan on the boxes (lib/box.h): slabs of planes along the last
 * axis (rows in 2D, planes z in 3D). The SIMD levels take the PAIR parts, PAIR_WHOLE
 * included (cpu_run_steps fuses an interior with its border; both colours in one
 * wavefront over the box, the border planes' colour 1 after every box's colour 0), of
 * either chain (pair_runner); the C level runs each colour on the box's checkerboard
 * numbers, WHOLE only.
 */
static void ising_run_step(latmc_sim *sim, struct cpu_state *st,
                           const struct latmc_step_call *call, const struct cpu_team *team,
                           uint64_t *accepted, uint64_t *attempted)
{
    if (call->step.kind == LATMC_STEP_COLOUR_BITSLICED && call->part == LATMC_STEP_WHOLE) {
        run_step_bitsliced(sim, st, call, team, accepted, attempted);
        return;
    }
    struct ising_state *is = ising_state(st);
    /* sites of one colour per plane (a plane: a row in 2D, L_x L_y sites in 3D) */
    const int64_t half_plane = st->lattice.lx * (sim->desc.ndim == 3 ? st->lattice.ly : 1) / 2;
    int64_t planes = 0;
    for (int i = 0; i < call->n_boxes; i++)
        planes += call->boxes[i].extent[call->boxes[i].axis];
    if (is->natural) {
        for (int i = 0; i < call->n_boxes; i++) {
            const struct latmc_box *box = &call->boxes[i];
            const int64_t p0 = box->origin[box->axis], p1 = p0 + box->extent[box->axis];
            if (st->slab.on) /* a local box: its global planes name the draws */
                *accepted += cpu_ising_colour_range_slab(
                    &st->global, &st->lattice, st->slab.origin, is->natural, is->eps,
                    sim->model_data, sim->desc.algorithm, sim->desc.seed, call->step.rng,
                    call->step.colour, (p0 + st->slab.origin) * half_plane,
                    (p1 + st->slab.origin) * half_plane, team);
            else
                *accepted += cpu_ising_colour_range(&st->lattice, is->natural, is->eps,
                                                    sim->model_data, sim->desc.algorithm,
                                                    sim->desc.seed, call->step.rng,
                                                    call->step.colour, p0 * half_plane,
                                                    p1 * half_plane, team);
        }
        if (team->id == 0)
            *attempted += (uint64_t)(planes * half_plane);
        return;
    }
    struct ising_pair runner;
    pair_runner(sim, is, &st->global, call, &runner);
    if (call->part != LATMC_STEP_PAIR_BORDER) {
        const bool whole = call->part == LATMC_STEP_PAIR_WHOLE;
        *accepted += cpu_ising_split_boxes_interior(&is->split, &runner.u.runner, call->boxes,
                                                    call->n_boxes, whole, team);
        /* colour 0 on every plane, colour 1 on all (whole) or all but two planes per box */
        if (team->id == 0)
            *attempted += (uint64_t)((2 * planes - (whole ? 0 : 2 * call->n_boxes)) *
                                     half_plane);
    } else {
        *accepted += cpu_ising_split_boxes_border(&is->split, &runner.u.runner, call->boxes,
                                                  call->n_boxes, team);
        if (team->id == 0)
            *attempted += (uint64_t)(2 * call->n_boxes * half_plane);
    }
}

/* ising_copy_step_sites on the split rows: a colour's sites of a row are one half-row,
 * copied with its pads. */
static void split_copy_step_sites(struct cpu_state *src, int64_t l0, struct cpu_state *dst,
                                  int64_t d0, int64_t n, int colour)
{
    const struct cpu_ising_split *from = &ising_state(src)->split;
    const struct cpu_ising_split *to = &ising_state(dst)->split;
    const int64_t rpp = src->lattice.ndim == 3 ? src->lattice.ly : 1;
    for (int64_t pl = 0; pl < n; pl++)
        for (int64_t y = 0; y < rpp; y++) {
            const int64_t g = l0 + pl + src->slab.origin; /* the global plane (mod 2) */
            const int par = (int)((colour - (rpp > 1 ? y + g : g)) & 1);
            memcpy(cpu_ising_split_row(to, (d0 + pl) * rpp + y, par) - 1,
                   cpu_ising_split_row(from, (l0 + pl) * rpp + y, par) - 1,
                   (size_t)from->half + 2);
        }
}

/*
 * In-process boxes with their own memory (cpu_backend.h, copy_step_sites), the C level
 * (WHOLE steps; the SIMD levels run pairs, run_pair_own_boxes): the sites of the step's colour
 * in local planes [l0, l0 + n) of box src into local planes [d0, d0 + n) of box dst. The
 * colour is that of the global plane (a slab's origin may be odd).
 */
static void ising_copy_step_sites(latmc_sim *sim, struct cpu_state *src, int64_t l0,
                                  struct cpu_state *dst, int64_t d0, int64_t n,
                                  const struct latmc_step *step)
{
    (void)sim;
    if (!ising_state(src)->natural) { /* the split rows: WHOLE steps (the core's default) */
        split_copy_step_sites(src, l0, dst, d0, n, step->colour);
        return;
    }
    const int8_t *from = ising_state(src)->natural;
    int8_t *to = ising_state(dst)->natural;
    const int64_t lx = src->lattice.lx, rpp = src->lattice.ndim == 3 ? src->lattice.ly : 1;
    for (int64_t pl = 0; pl < n; pl++)
        for (int64_t y = 0; y < rpp; y++) {
            const int64_t g = l0 + pl + src->slab.origin; /* the global plane (mod 2) */
            const int64_t shift = (rpp > 1 ? y + g : g) & 1;
            const int64_t fs = ((l0 + pl) * rpp + y) * lx, ts = ((d0 + pl) * rpp + y) * lx;
            for (int64_t x = (step->colour - shift) & 1; x < lx; x += 2)
                to[ts + x] = from[fs + x];
        }
}

/* Box i's split (cpu_ising_split_own_boxes): states is the boxes' array of states. */
static const struct cpu_ising_split *box_split(void *states, int i)
{
    return &ising_state(&((struct cpu_state *)states)[i])->split;
}

/* The fused pair on in-process boxes with their own memory (cpu_backend.h): the SIMD
 * levels only (the C level takes no pair), the counts of ising_run_step's PAIR_WHOLE. */
static void ising_run_pair_own_boxes(latmc_sim *sim, struct cpu_state *states,
                                     const struct latmc_step_call *call,
                                     const struct cpu_team *team, uint64_t *accepted,
                                     uint64_t *attempted)
{
    const struct ising_state *is = ising_state(&states[0]);
    const int64_t half_plane =
        states[0].lattice.lx * (sim->desc.ndim == 3 ? states[0].lattice.ly : 1) / 2;
    int64_t planes = 0;
    for (int i = 0; i < call->n_boxes; i++)
        planes += call->boxes[i].extent[call->boxes[i].axis];
    struct ising_pair runner;
    pair_runner(sim, is, &states[0].global, call, &runner);
    *accepted += cpu_ising_split_own_boxes(box_split, states, &runner.u.runner, call->boxes,
                                           call->n_boxes, team);
    if (team->id == 0)
        *attempted += (uint64_t)(2 * planes * half_plane);
}

static unsigned ising_step_caps(latmc_sim *sim, struct cpu_state *st)
{
    /* the C level runs WHOLE steps (either chain); the SIMD levels the fused pair */
    (void)sim;
    return ising_state(st)->natural ? 0u : LATMC_STEP_CAP_PAIR;
}

/* The core rebuilt its tables (a parameter changed): the kernels' form follows. */
static void ising_params_changed(latmc_sim *sim, struct cpu_state *st)
{
    struct ising_state *is = ising_state(st);
    cpu_ising_decisions_build(&is->dec, sim->model_data, sim->desc.ndim, sim->desc.algorithm);
}

static void ising_measure(latmc_sim *sim, struct cpu_state *st, void *sums)
{
    struct ising_state *is = ising_state(st);
    if (st->slab.on) { /* the slab's own planes (the core adds the parts' tiles) */
        const int64_t rpp = sim->desc.ndim == 3 ? st->lattice.ly : 1;
        const int64_t r0 = st->slab.below * rpp, r1 = (st->slab.planes - st->slab.halo) * rpp;
        *(struct latmc_ising_sums *)sums =
            is->natural ? cpu_ising_measure_rows(&st->lattice, is->natural, is->eps, r0, r1)
                        : cpu_ising_split_measure_rows(&is->split, is->dsp.measure_rows, r0, r1);
        return;
    }
    *(struct latmc_ising_sums *)sums =
        !is->natural ? cpu_ising_split_measure(&is->split, is->dsp.measure_rows, /* +-J too */
                                               sim->n_threads)
        : is->eps    ? cpu_ising_measure_coupled(&st->lattice, is->natural, is->eps,
                                                 sim->n_threads)
                     : cpu_ising_measure(&st->lattice, is->natural, sim->n_threads);
}

/* The sums and the Fourier modes' projections in one pass (ising_measure_modes.h). */
static int ising_measure_modes(latmc_sim *sim, struct cpu_state *st, void *sums, void *proj)
{
    struct ising_state *is = ising_state(st);
    const int rc = is->natural
                       ? cpu_ising_measure_modes(&st->lattice, is->natural, is->eps,
                                                 sim->n_threads, sums, proj)
                       : cpu_ising_split_measure_modes(&is->split, is->dsp.measure_rows,
                                                       sim->n_threads, sums, proj);
    return rc == LATMC_OK ? LATMC_OK
                          : latmc_fail(rc, "Ising measurement: cannot allocate the threads' "
                                       "projections for the Fourier modes");
}

static void ising_get_planes(latmc_sim *sim, struct cpu_state *st, int64_t p0, int64_t p1,
                             void *buf);
static void ising_set_planes(latmc_sim *sim, struct cpu_state *st, int64_t p0, int64_t p1,
                             const void *buf);

static void ising_get_spins(latmc_sim *sim, struct cpu_state *st, void *buf)
{
    struct ising_state *is = ising_state(st);
    if (st->slab.on) /* its own planes, at their places in the whole lattice */
        ising_get_planes(sim, st, st->slab.below, st->slab.below + st->slab.p1 - st->slab.p0,
                         (int8_t *)buf + st->slab.p0 * plane_sites(st));
    else if (is->natural)
        memcpy(buf, is->natural, (size_t)sim->nsites);
    else
        cpu_ising_split_to_natural(&is->split, buf, sim->n_threads);
}

static void ising_set_spins(latmc_sim *sim, struct cpu_state *st, const void *buf)
{
    struct ising_state *is = ising_state(st);
    if (st->slab.on) { /* every plane it holds, halos included */
        for (int64_t l = 0; l < st->slab.planes; l++)
            ising_set_planes(sim, st, l, l + 1,
                             (const int8_t *)buf + cpu_slab_global(st, l) * plane_sites(st));
    } else if (is->natural)
        memcpy(is->natural, buf, (size_t)sim->nsites);
    else
        cpu_ising_split_from_natural(&is->split, buf, sim->n_threads);
}

/*
 * The per-plane forms (lib/backend.h): planes along the last axis, L_x sites (a row) in
 * 2D, L_x L_y (L_y rows) in 3D. Ising has one replica of one byte per site.
 */
static int64_t rows_per_plane(const latmc_sim *sim, const struct cpu_state *st)
{
    return sim->desc.ndim == 3 ? st->lattice.ly : 1;
}

static void ising_plane_sums(latmc_sim *sim, struct cpu_state *st, int64_t p,
                             struct latmc_ising_sums *out)
{
    struct ising_state *is = ising_state(st);
    const int64_t rpp = rows_per_plane(sim, st);
    *out = is->natural ? cpu_ising_measure_rows(&st->lattice, is->natural, is->eps, p * rpp,
                                                (p + 1) * rpp)
                       : cpu_ising_split_measure_rows(&is->split, is->dsp.measure_rows, p * rpp,
                                                      (p + 1) * rpp);
}

/* One tile per plane, each exact (integers), so threads over planes change nothing. */
static void ising_measure_planes(latmc_sim *sim, struct cpu_state *st, int64_t p0, int64_t p1,
                                 void *sums)
{
    struct latmc_ising_sums *out = sums;
    if (!cpu_use_threads(sim->n_threads, (p1 - p0) * st->lattice.lx * rows_per_plane(sim, st))) {
        for (int64_t p = p0; p < p1; p++)
            ising_plane_sums(sim, st, p, &out[p - p0]);
        return;
    }
    LATMC_OMP(parallel for num_threads(sim->n_threads) schedule(static))
    for (int64_t p = p0; p < p1; p++)
        ising_plane_sums(sim, st, p, &out[p - p0]);
}

static void ising_get_planes(latmc_sim *sim, struct cpu_state *st, int64_t p0, int64_t p1,
                             void *buf)
{
    struct ising_state *is = ising_state(st);
    const int64_t rpp = rows_per_plane(sim, st), row = st->lattice.lx;
    if (is->natural)
        memcpy(buf, is->natural + p0 * rpp * row, (size_t)((p1 - p0) * rpp * row));
    else
        cpu_ising_split_rows_to_natural(&is->split, buf, p0 * rpp, p1 * rpp);
}

static void ising_set_planes(latmc_sim *sim, struct cpu_state *st, int64_t p0, int64_t p1,
                             const void *buf)
{
    struct ising_state *is = ising_state(st);
    const int64_t rpp = rows_per_plane(sim, st), row = st->lattice.lx;
    if (is->natural)
        memcpy(is->natural + p0 * rpp * row, buf, (size_t)((p1 - p0) * rpp * row));
    else
        cpu_ising_split_rows_from_natural(&is->split, buf, p0 * rpp, p1 * rpp);
}

/* The core calls these only for a sim with couplings (is->eps set). */
static void ising_get_coupling_planes(latmc_sim *sim, struct cpu_state *st, int64_t p0,
                                      int64_t p1, float *buf)
{
    const int8_t *eps = ising_state(st)->eps;
    const int64_t n = plane_sites(st) * sim->desc.ndim;
    for (int64_t i = 0; i < (p1 - p0) * n; i++)
        buf[i] = (float)eps[p0 * n + i];
}

static void ising_get_couplings(latmc_sim *sim, struct cpu_state *st, float *buf)
{
    if (st->slab.on) { /* its own planes, at their places in the whole lattice */
        const int64_t n = plane_sites(st) * sim->desc.ndim;
        ising_get_coupling_planes(sim, st, st->slab.below,
                                  st->slab.below + st->slab.p1 - st->slab.p0,
                                  buf + st->slab.p0 * n);
        return;
    }
    const int8_t *eps = ising_state(st)->eps;
    const size_t n = (size_t)sim->nsites * (size_t)sim->desc.ndim;
    for (size_t i = 0; i < n; i++)
        buf[i] = (float)eps[i];
}

/* Values checked by the core: exactly +1.0f or -1.0f. A slab takes the planes it holds. */
static void ising_set_couplings(latmc_sim *sim, struct cpu_state *st, const float *buf)
{
    struct ising_state *is = ising_state(st);
    int8_t *eps = is->eps;
    const int64_t n = plane_sites(st) * sim->desc.ndim;
    for (int64_t l = 0; l < st->lattice.nsites / plane_sites(st); l++) {
        const float *in = buf + cpu_slab_global(st, l) * n;
        for (int64_t i = 0; i < n; i++)
            eps[l * n + i] = in[i] > 0.0f ? (int8_t)1 : (int8_t)-1;
    }
    if (is->split.bonds) /* the SIMD level's copy (ising_split.h) */
        cpu_ising_split_bonds_from_eps(&is->split, eps, sim->n_threads);
}

const struct cpu_model_kernels cpu_ising_kernels = {
    .model = LATMC_MODEL_ISING,
    .create = ising_create,
    .destroy = ising_destroy,
    .init_spins = ising_init_spins,
    .measure = ising_measure,
    .get_spins = ising_get_spins,
    .set_spins = ising_set_spins,
    .get_couplings = ising_get_couplings,
    .set_couplings = ising_set_couplings,
    .params_changed = ising_params_changed,
    .run_step = ising_run_step,
    .step_caps = ising_step_caps,
    .measure_planes = ising_measure_planes,
    .get_planes = ising_get_planes,
    .set_planes = ising_set_planes,
    .slab_storage = true,
    .get_coupling_planes = ising_get_coupling_planes,
    .run_pair_own_boxes = ising_run_pair_own_boxes,
    .copy_step_sites = ising_copy_step_sites,
    .measure_modes = ising_measure_modes,
};
