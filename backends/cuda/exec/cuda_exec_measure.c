/*
 * The one CUDA executor's measurements (cuda_exec.h; doc/architecture.md, "One CUDA
 * executor"): every box's integer sums of its own planes, added in box (= plane) order, a
 * leaf's floating-point sums per plane added in plane order from zero (the same doubles
 * for every cut); the Fourier modes' projections (lib/modes.h) and the exact sums of
 * their modes at k_min; and the per-plane forms of a part of a lattice shared by processes (lib/backend.h:
 * its halo exchange through get/set_planes, its measurement and gather by planes). The
 * boxes, their steps and their configuration are cuda_exec.c's; both share the state of
 * cuda_exec_state.h.
 */
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "cuda_exec_state.h"
#include "mode_projections.h"
#include "model.h"
#include "modes_exact.h"
#include "part.h"

/* Planes in transit between the device and the caller's buffers (get/set_planes) go
 * through a pinned stage in chunks of at most this many bytes (or one plane). */
#define STAGE_BYTES ((size_t)16 << 20)

struct reduce_ctx {
    const latmc_sim *sim;
    const struct cuda_exec *x;
    /* cuda_exec_measure_modes: each box's projections too, box i's read into the stage at
     * stage_proj + i entries (in the same pass where the leaf can: measure_projections) */
    int64_t *stage_proj;
    int64_t entries;
};

/* 8-byte words that hold the model's sums (the room they take beside the projections). */
static size_t sums_words(const latmc_sim *sim)
{
    return (sim->model->sums_size + sizeof(int64_t) - 1) / sizeof(int64_t);
}

/* Box b's projections array (entries, allocated on first use), cleared on `stream`. */
static cudaError_t cleared_projections(struct cuda_box *b, int64_t entries, cudaStream_t stream)
{
    const size_t bytes = (size_t)entries * sizeof(int64_t);
    const cudaError_t err =
        b->projections ? cudaSuccess : cudaMalloc((void **)&b->projections, bytes);
    return err == cudaSuccess ? cudaMemsetAsync(b->projections, 0, bytes, stream) : err;
}

/* Box b's sums (b->sums) and projections of its own planes in one read (the leaf's
 * measure_projections) on `stream`, both cleared first. */
static cudaError_t measure_own_projections(const latmc_sim *sim, const struct cuda_exec *x,
                                           struct cuda_box *b, int64_t entries,
                                           cudaStream_t stream)
{
    const struct cuda_box_range own = cuda_exec_range_of(x, b, x->halo, b->ex.planes);
    cudaError_t err = cudaMemsetAsync(b->sums, 0, sim->model->sums_size, stream);
    if (err == cudaSuccess)
        err = cleared_projections(b, entries, stream);
    return err == cudaSuccess
               ? x->leaf->measure_projections(sim, &own, stream, b->sums, b->projections)
               : err;
}

/* Box ex's reduction of its own planes (cuda_box_exec_measure_boxes). */
static cudaError_t reduce_box(struct cuda_box_exec *ex, const void *ctx, void **box_sums)
{
    const struct reduce_ctx *rc = ctx;
    const struct cuda_exec *x = rc->x;
    const latmc_sim *sim = rc->sim;
    struct cuda_box *b = (struct cuda_box *)ex; /* ex: its first member */
    *box_sums = b->sums;
    const struct cuda_box_range own = cuda_exec_range_of(x, b, x->halo, ex->planes);
    cudaError_t err;
    if (rc->stage_proj && x->leaf->measure_projections) {
        err = measure_own_projections(sim, x, b, rc->entries, ex->stream);
    } else {
        err = cudaMemsetAsync(b->sums, 0, sim->model->sums_size, ex->stream);
        if (!rc->stage_proj)
            return err == cudaSuccess ? x->leaf->measure(sim, &own, ex->stream, b->sums) : err;
        if (err == cudaSuccess)
            err = cleared_projections(b, rc->entries, ex->stream);
        if (err == cudaSuccess)
            err = x->leaf->measure(sim, &own, ex->stream, b->sums);
        if (err == cudaSuccess)
            err = x->leaf->projections(sim, &own, ex->stream, b->projections);
    }
    if (err == cudaSuccess)
        err = cudaMemcpyAsync(rc->stage_proj + (b - x->box) * rc->entries, b->projections,
                              (size_t)rc->entries * sizeof(int64_t), cudaMemcpyDeviceToHost,
                              ex->stream);
    return err;
}

/* Range r's floating-point sums per plane (*plane_sums, the leaf's) and its projections
 * (b->projections, cleared first) on `stream`: in one read where the leaf's
 * measure_planes_projections takes the lattice, else measure_planes then projections. */
static cudaError_t planes_and_projections(const latmc_sim *sim, const struct cuda_exec *x,
                                          struct cuda_box *b, const struct cuda_box_range *r,
                                          int64_t entries, cudaStream_t stream,
                                          double **plane_sums)
{
    cudaError_t err = cleared_projections(b, entries, stream);
    if (err == cudaSuccess && x->leaf->measure_planes_projections) {
        err = x->leaf->measure_planes_projections(sim, r, stream, plane_sums, b->projections);
        if (err != cudaErrorNotSupported)
            return err;
        err = cudaSuccess;
    }
    if (err == cudaSuccess)
        err = x->leaf->measure_planes(sim, r, stream, plane_sums);
    return err == cudaSuccess ? x->leaf->projections(sim, r, stream, b->projections) : err;
}

/* Box ex's floating-point sums per own plane (cuda_box_exec_measure_planes; the leaf's
 * measure_planes), and for cuda_exec_measure_modes its projections, read into the stage. */
static cudaError_t reduce_box_planes(struct cuda_box_exec *ex, const void *ctx,
                                     double **plane_sums)
{
    const struct reduce_ctx *rc = ctx;
    struct cuda_box *b = (struct cuda_box *)ex; /* ex: its first member */
    const struct cuda_box_range own = cuda_exec_range_of(rc->x, b, rc->x->halo, ex->planes);
    if (!rc->stage_proj)
        return rc->x->leaf->measure_planes(rc->sim, &own, ex->stream, plane_sums);
    cudaError_t err =
        planes_and_projections(rc->sim, rc->x, b, &own, rc->entries, ex->stream, plane_sums);
    if (err == cudaSuccess)
        err = cudaMemcpyAsync(rc->stage_proj + (b - rc->x->box) * rc->entries, b->projections,
                              (size_t)rc->entries * sizeof(int64_t), cudaMemcpyDeviceToHost,
                              ex->stream);
    return err;
}

/* Whether the leaf's sums are floating point, per plane (added in plane order). */
static bool measures_per_plane(const struct cuda_exec *x)
{
    return x->leaf->measure_planes && (x->halo > 0 || !x->leaf->measure);
}

int cuda_exec_measure(const latmc_sim *sim, struct cuda_exec *x, void *sums)
{
    const struct reduce_ctx rc = { sim, x, NULL, 0 };
    const int st = cuda_part_wire_settle(&x->wire, &x->box[0]); /* a part's halo sets */
    if (st < 0)
        return st;
    if (measures_per_plane(x))
        /* floating point: per plane, added in plane order: any cut's total */
        return cuda_box_exec_measure_planes(sim, &x->box[0].ex, sizeof *x->box, x->n, x->L,
                                             (int)(sim->model->sums_size / sizeof(double)),
                                             reduce_box_planes, &rc, sums);
    return cuda_box_exec_measure_boxes(sim, &x->box[0].ex, sizeof *x->box, x->n, reduce_box,
                                        &rc, sums);
}

/* ---- the Fourier modes' projections (lib/modes.h) ---- */

/* The projections' components per site value (the leaf's projection_components; 1). */
static int projection_components(const latmc_sim *sim, const struct cuda_exec *x)
{
    return x->leaf->projection_components ? x->leaf->projection_components(sim) : 1;
}

/* latmc_modes_projection_entries (the module does not link the core's function). */
static int64_t projection_entries(const latmc_sim *sim, const struct cuda_exec *x)
{
    int64_t n = 0;
    for (int mu = 0; mu < sim->desc.ndim; mu++)
        n += sim->desc.extent[mu];
    return n * projection_components(sim, x);
}

static int stage_of(struct cuda_exec *x, size_t bytes);

/* Box i's own planes within [p0, p1): [*lo, *hi), or false where none. */
static bool own_within(const struct cuda_exec *x, int i, int64_t p0, int64_t p1, int64_t *lo,
                       int64_t *hi)
{
    const struct cuda_box *b = &x->box[i];
    const int64_t end = b->ex.origin + b->ex.planes;
    *lo = p0 > b->ex.origin ? p0 : b->ex.origin;
    *hi = p1 < end ? p1 : end;
    return *hi > *lo;
}

/* Whether [p0, p1) is the boxes' own planes (the whole lattice for a sim of the whole
 * lattice); else the failure. */
static int check_own_planes(const struct cuda_exec *x, int64_t p0, int64_t p1)
{
    int64_t covered = 0, lo, hi;
    for (int i = 0; i < x->n; i++)
        if (own_within(x, i, p0, p1, &lo, &hi))
            covered += hi - lo;
    if (covered != p1 - p0 || (x->halo == 0 && (p0 != 0 || p1 != x->L)))
        return cuda_core->fail(LATMC_EINVAL, "CUDA backend: the Fourier modes of planes "
                               "[%lld, %lld), which are not the boxes' own planes (a bug in "
                               "the core)", (long long)p0, (long long)p1);
    return LATMC_OK;
}

int cuda_exec_projections(const latmc_sim *sim, struct cuda_exec *x, int64_t p0, int64_t p1,
                          int64_t *proj)
{
    if (!x->leaf->projections)
        return cuda_core->fail(LATMC_EUNSUPPORTED, "CUDA backend: the %s model has no "
                               "device reduction of the Fourier modes' projections",
                               sim->model->name);
    int64_t lo, hi;
    int st = check_own_planes(x, p0, p1);
    if (st < 0)
        return st;
    const int64_t n = projection_entries(sim, x);
    const size_t bytes = (size_t)n * sizeof(int64_t);
    st = stage_of(x, bytes * (size_t)x->n);
    if (st == LATMC_OK) /* the steps and halo copies in flight done */
        st = cuda_exec_finish_all(x, "counting the Fourier modes' projections");
    cudaError_t err = cudaSuccess;
    for (int i = 0; i < x->n && st == LATMC_OK && err == cudaSuccess; i++) {
        struct cuda_box *b = &x->box[i];
        if (!own_within(x, i, p0, p1, &lo, &hi))
            continue;
        if ((st = cuda_box_set_device(b->ex.device)) < 0)
            break;
        err = cleared_projections(b, n, b->ex.stream);
        const struct cuda_box_range r =
            cuda_exec_range_of(x, b, lo - b->ex.origin + x->halo, hi - lo);
        if (err == cudaSuccess)
            err = x->leaf->projections(sim, &r, b->ex.stream, b->projections);
        if (err == cudaSuccess)
            err = cudaMemcpyAsync((int64_t *)x->stage + (size_t)i * (size_t)n, b->projections,
                                  bytes, cudaMemcpyDeviceToHost, b->ex.stream);
    }
    if (st == LATMC_OK)
        st = cuda_check(err, "counting the Fourier modes' projections");
    const int fin = cuda_exec_finish_all(x, "counting the Fourier modes' projections");
    if (st < 0 || fin < 0)
        return st < 0 ? st : fin;
    memset(proj, 0, bytes);
    for (int i = 0; i < x->n; i++)
        if (own_within(x, i, p0, p1, &lo, &hi))
            for (int64_t k = 0; k < n; k++)
                proj[k] += ((const int64_t *)x->stage)[(size_t)i * (size_t)n + (size_t)k];
    return LATMC_OK;
}

/* Doubles of the phase tables (cos and sin of every axis). */
static size_t phase_doubles(const latmc_sim *sim)
{
    int64_t n = 0;
    for (int mu = 0; mu < sim->desc.ndim; mu++)
        n += sim->desc.extent[mu];
    return 2 * (size_t)n;
}

bool cuda_exec_has_projections(const struct cuda_exec *x)
{
    /* reduce_box's sums are the leaf's measure (or measure_projections), reduce_box_planes'
     * its measure_planes */
    return x->leaf->projections != NULL &&
           (x->leaf->measure != NULL || x->leaf->measure_projections != NULL ||
            x->leaf->measure_planes != NULL);
}

int cuda_exec_measure_modes(const latmc_sim *sim, struct cuda_exec *x, void *sums,
                            int64_t *proj)
{
    if (!x->leaf->projections)
        return cuda_core->fail(LATMC_EUNSUPPORTED, "CUDA backend: the %s model has no "
                               "device reduction of the Fourier modes", sim->model->name);
    const int64_t n = projection_entries(sim, x);
    int st = stage_of(x, (size_t)n * sizeof(int64_t) * (size_t)x->n);
    if (st == LATMC_OK)
        st = cuda_part_wire_settle(&x->wire, &x->box[0]); /* a part's halo sets */
    if (st < 0)
        return st;
    const struct reduce_ctx rc = { sim, x, x->stage, n };
    if (measures_per_plane(x))
        st = cuda_box_exec_measure_planes(sim, &x->box[0].ex, sizeof *x->box, x->n, x->L,
                                          (int)(sim->model->sums_size / sizeof(double)),
                                          reduce_box_planes, &rc, sums);
    else
        st = cuda_box_exec_measure_boxes(sim, &x->box[0].ex, sizeof *x->box, x->n, reduce_box,
                                          &rc, sums);
    if (st < 0)
        return st;
    const int64_t *staged = x->stage;
    memcpy(proj, staged, (size_t)n * sizeof(int64_t));
    for (int i = 1; i < x->n; i++)
        for (int64_t k = 0; k < n; k++)
            proj[k] += staged[(size_t)i * (size_t)n + (size_t)k];
    return LATMC_OK;
}

/* A box's sums whole (measure or measure_projections: a box alone, or integer sums) and the
 * leaf's projections counted beside them (measure_projections); a leaf that measures per
 * plane (phi^4's boxes with halos: floating-point sums added in plane order across the
 * boxes) has its projections transformed on the host (cuda_exec_measure_modes). */
bool cuda_exec_has_kmin(const struct cuda_exec *x)
{
    return !x->part && x->leaf->measure_projections && !measures_per_plane(x);
}

/* What reduce_box_kmin needs of the measurement. */
struct kmin_ctx {
    const latmc_sim *sim;
    const struct cuda_exec *x;
    const double *phases;
    struct cuda_proj_transform t;
    int64_t entries;
    size_t phase_doubles, sums_bytes, out_bytes;
    size_t slots; /* of limbs (mode_projections.h) */
};

/* Box b's device buffer of the exact modes (reduce_box_kmin), the weights made from the
 * phase tables and copied in, on its stream (waited for: the host's weights are freed). */
static cudaError_t kmin_buffer(struct cuda_box *b, const struct kmin_ctx *kc,
                               cudaStream_t stream)
{
    cudaError_t err = cudaSuccess;
    if (!b->weights)
        err = cudaMalloc((void **)&b->weights, kc->phase_doubles * sizeof(int64_t) +
                                                   (size_t)kc->entries * sizeof(int64_t) +
                                                   kc->out_bytes);
    int64_t *w = err == cudaSuccess ? malloc(kc->phase_doubles * sizeof *w) : NULL;
    if (err == cudaSuccess && !w)
        err = cudaErrorMemoryAllocation;
    for (size_t i = 0; w && i < kc->phase_doubles; i++)
        w[i] = latmc_modes_weight(kc->phases[i]);
    if (err == cudaSuccess)
        err = cudaMemcpyAsync(b->weights, w, kc->phase_doubles * sizeof *w,
                              cudaMemcpyHostToDevice, stream);
    if (err == cudaSuccess)
        err = cudaStreamSynchronize(stream);
    free(w);
    return err;
}

/* Box b's projections and its out (the sums, then the limbs) in its kmin_buffer. */
static int64_t *kmin_projections(const struct cuda_box *b, const struct kmin_ctx *kc)
{
    return b->weights + kc->phase_doubles;
}

static char *kmin_out(const struct cuda_box *b, const struct kmin_ctx *kc)
{
    return (char *)(kmin_projections(b, kc) + kc->entries);
}

/*
 * Box ex's sums and either the exact sums of its modes (the leaf's measure_modes) or its
 * projections (exact_box_kmin then sums their modes; cuda_box_exec_reduce_boxes): one
 * device buffer a box (made once a sim): the weights, the projections, then what comes to
 * the host, the sums and the limbs (ctx->out_bytes, one clear and one copy: a
 * measurement's own, no more). The projections are cleared once, when made: the exact
 * sums leave them zero. The boxes' sums are added on the host in box order, their limbs
 * in any (integers).
 */
static cudaError_t reduce_box_kmin(struct cuda_box_exec *ex, const void *ctx, void **out)
{
    const struct kmin_ctx *kc = ctx;
    const struct cuda_exec *x = kc->x;
    struct cuda_box *b = (struct cuda_box *)ex; /* ex: its first member */
    cudaError_t err = cudaSuccess;
    const bool fresh = b->phases_of != kc->phases;
    if (fresh) { /* once a sim: its tables never change */
        b->phases_of = NULL;
        err = kmin_buffer(b, kc, ex->stream);
    }
    int64_t *dev_proj = kmin_projections(b, kc);
    char *dev_out = kmin_out(b, kc);
    if (err == cudaSuccess)
        err = cudaMemsetAsync(fresh ? (void *)dev_proj : (void *)dev_out, 0,
                              (fresh ? (size_t)kc->entries * sizeof(int64_t) : 0) +
                                  kc->out_bytes,
                              ex->stream);
    if (err == cudaSuccess && fresh)
        b->phases_of = kc->phases;
    const struct cuda_box_range own = cuda_exec_range_of(x, b, x->halo, ex->planes);
    b->modes_weighed = false;
    if (err == cudaSuccess && x->leaf->measure_modes) {
        err = x->leaf->measure_modes(kc->sim, &own, ex->stream, dev_out, b->weights,
                                     (int64_t *)(dev_out + kc->sums_bytes));
        b->modes_weighed = err == cudaSuccess;
        if (err == cudaErrorNotSupported) /* this form counts projections */
            err = cudaSuccess;
    }
    if (err == cudaSuccess && !b->modes_weighed)
        err = x->leaf->measure_projections(kc->sim, &own, ex->stream, dev_out, dev_proj);
    *out = dev_out;
    return err;
}

/* Box ex's exact sums of its projections' modes into its limbs (reduce_box_kmin's
 * buffer), the tail of its reduction where the leaf counted projections. */
static cudaError_t exact_box_kmin(struct cuda_box_exec *ex, const void *ctx)
{
    const struct kmin_ctx *kc = ctx;
    struct cuda_box *b = (struct cuda_box *)ex; /* ex: its first member */
    if (b->modes_weighed)
        return cudaSuccess;
    int64_t *limbs = (int64_t *)(kmin_out(b, kc) + kc->sums_bytes);
    return cuda_projections_exact(ex->stream, &kc->t, kmin_projections(b, kc), b->weights,
                                  limbs);
}

/* A box's limbs as read (`slots` slots of n) added into the first slot's: the sums a limb
 * takes in all slots together are those one set of limbs would take (fold_limbs_hold
 * bounds their count, not a slot's), so their 64-bit sum is that limb's value, as the
 * atomics form it (modulo 2^64). */
static void fold_limb_slots(int64_t *limbs, size_t n, size_t slots)
{
    for (size_t s = 1; s < slots; s++)
        for (size_t j = 0; j < n; j++)
            limbs[j] = (int64_t)((uint64_t)limbs[j] + (uint64_t)limbs[s * n + j]);
}

int cuda_exec_measure_kmin(const latmc_sim *sim, struct cuda_exec *x, void *sums,
                           const double *phases, double *modes)
{
    if (!cuda_exec_has_kmin(x))
        return cuda_core->fail(LATMC_EUNSUPPORTED, "CUDA backend: the Fourier modes of "
                               "this layout (%d boxes, or a part's) are added on the host",
                               x->n);
    const latmc_sim_desc *d = &sim->desc;
    struct kmin_ctx kc;
    memset(&kc, 0, sizeof kc);
    kc.sim = sim;
    kc.x = x;
    kc.phases = phases;
    kc.t.ndim = d->ndim;
    kc.t.components = projection_components(sim, x);
    int64_t proj_at = 0;
    for (int mu = 0; mu < d->ndim; mu++) {
        kc.t.extent[mu] = d->extent[mu];
        kc.t.proj_at[mu] = proj_at;
        kc.t.phase_at[mu] = 2 * proj_at;
        proj_at += d->extent[mu];
    }
    kc.t.per_state = proj_at;
    kc.phase_doubles = phase_doubles(sim);
    kc.entries = projection_entries(sim, x);
    kc.sums_bytes = sums_words(sim) * sizeof(int64_t);
    /* a slot's limbs; the counts that weigh fill CUDA_MODES_LIMB_SLOTS, the exact kernel one */
    const size_t nlimbs = cuda_projections_exact_limbs(&kc.t);
    kc.slots = x->leaf->measure_modes ? CUDA_MODES_LIMB_SLOTS : 1;
    kc.out_bytes = kc.sums_bytes + kc.slots * nlimbs * sizeof(int64_t);
    const int st = cuda_box_exec_reduce_boxes(&x->box[0].ex, sizeof *x->box, x->n,
                                              kc.out_bytes, reduce_box_kmin, exact_box_kmin,
                                              &kc);
    x->wire.sets_pending = false; /* every stream waited for */
    if (st < 0) {
        for (int i = 0; i < x->n; i++) /* the projections left unknown: cleared next time */
            x->box[i].phases_of = NULL;
        return st;
    }
    /* the boxes' integer sums in box order (cuda_exec_measure), their limbs summed */
    memset(sums, 0, sim->model->sums_size);
    for (int i = 0; i < x->n; i++) {
        sim->model->add_sums(sums, x->box[i].ex.sums_host);
        fold_limb_slots((int64_t *)((char *)x->box[i].ex.sums_host + kc.sums_bytes), nlimbs,
                        kc.slots);
    }
    for (size_t k = 0; k < nlimbs / 3; k++) {
        latmc_i128 total = latmc_i128_of(0);
        for (int i = 0; i < x->n; i++) {
            const char *out = x->box[i].ex.sums_host;
            const int64_t *limbs = (const int64_t *)(out + kc.sums_bytes);
            total = latmc_i128_add(total, latmc_i128_of_limbs(limbs + 3 * k));
        }
        modes[k] = latmc_i128_value(total);
    }
    return LATMC_OK;
}

/* ---- the per-plane forms (lib/backend.h): a part's halo exchange, measure and gather ---- */

/* The local planes of box b at which the lattice's planes [p0, p0 + n) lie (a range that
 * does not wrap), the own one first where there is one: up to 4 into lp[] (on a small
 * lattice a plane may be stored twice: a halo plane and an own one, or both halos); their
 * count (0: the box does not hold the range). */
static int local_planes(const struct cuda_exec *x, const struct cuda_box *b, int64_t p0,
                        int64_t n, int64_t lp[4])
{
    const int64_t nloc = b->ex.planes + 2 * x->halo;
    const int64_t d = ((p0 - b->ex.origin + x->halo) % x->L + x->L) % x->L;
    int k = 0;
    for (int64_t l = d; l + n <= nloc && k < 4; l += x->L)
        lp[k++] = l;
    for (int i = 1; i < k; i++)
        if (lp[i] >= x->halo && lp[i] + n <= x->halo + b->ex.planes) {
            const int64_t own = lp[i];
            lp[i] = lp[0];
            lp[0] = own;
        }
    return k;
}

/* A part's box after a sweep call that stopped between two steps (the core's exchange
 * failed, lib/part.c: the counters' read, whose wait ends a call, never came): its interior
 * (the main stream, and half B on the half stream) may still be running. A reader of local
 * planes [lp[k], lp[k] + n) (lp NULL: any plane) that reach into the interior waits for
 * every stream first. Inside a sweep call the exchange reads and writes the border and
 * halo planes alone, which no interior touches (the planes sent lie in the borders). */
static int part_settled(struct cuda_exec *x, const int64_t *lp, int copies, int64_t n,
                        const char *what)
{
    const struct cuda_box *b = &x->box[0];
    if (!x->part || !b->ex.recorded)
        return LATMC_OK;
    const int64_t lo = x->halo + x->border, hi = x->halo + b->ex.planes - x->border;
    bool inside = lp == NULL;
    for (int k = 0; k < copies && !inside; k++)
        inside = lp[k] < hi && lp[k] + n > lo;
    return inside ? cuda_exec_finish_all(x, what) : LATMC_OK;
}

/* The per-plane forms hold for a sim of one box (a part's, or one box alone); a part's
 * halo sets not yet waited for are, unless `wire` (a move that may go on the wire:
 * ordered after them on the border stream), and without `wire` a stopped sweep's
 * interior (part_settled). */
static int one_box_only(struct cuda_exec *x, const char *what, bool wire)
{
    if (x->n == 1) {
        int st = cuda_box_set_device(x->box[0].ex.device);
        if (st < 0 || wire)
            return st;
        if ((st = cuda_part_wire_settle(&x->wire, &x->box[0])) < 0)
            return st;
        return part_settled(x, NULL, 0, 0, what);
    }
    return cuda_core->fail(LATMC_EUNSUPPORTED, "CUDA backend: %s of a sim spread over %d "
                           "boxes (desc.n_devices / n_parts): a part (MPI rank) runs on one "
                           "device as one box", what, x->n);
}

/* x->stage of at least `bytes` (pinned; the old contents are not kept). */
static int stage_of(struct cuda_exec *x, size_t bytes)
{
    if (x->stage_bytes >= bytes)
        return LATMC_OK;
    cudaFreeHost(x->stage);
    x->stage = NULL;
    x->stage_bytes = 0;
    const int st = cuda_check(cudaMallocHost(&x->stage, bytes),
                              "cannot allocate pinned host memory for planes in transit");
    if (st == LATMC_OK)
        x->stage_bytes = bytes;
    return st;
}

/*
 * get_planes (get_buf) or set_planes (set_buf) of planes [p0, p1), through the pinned stage
 * in chunks of whole planes: one DMA copy each (and one per further local copy of a set),
 * waited for. A part's moves go on its border stream: inside a sweep call they are the
 * halo exchange after a step (lib/part.c), which reads the border planes that stream
 * wrote and writes halo planes that only the next step's borders, on that stream, read,
 * so they wait for the borders alone while the interior goes on. Outside a sweep call
 * every stream is idle (or, after a call that stopped between two steps, waited for by
 * part_settled where the planes reach into the interior).
 */
static int move_planes(const latmc_sim *sim, struct cuda_exec *x, int64_t p0, int64_t p1,
                       void *get_buf, const void *set_buf)
{
    const char *what = set_buf ? "copying planes to the device" : "copying planes to the host";
    int st = one_box_only(x, "configuration copy", x->part);
    if (st < 0)
        return st;
    struct cuda_box *b = &x->box[0];
    int64_t lp[4];
    const int copies = local_planes(x, b, p0, p1 - p0, lp);
    if (copies == 0)
        return cuda_core->fail(LATMC_EINVAL, "CUDA backend: planes [%lld, %lld) are neither "
                               "the box's planes [%lld, %lld) nor a halo range next to them",
                               (long long)p0, (long long)p1, (long long)b->ex.origin,
                               (long long)(b->ex.origin + b->ex.planes));
    /* a part's halo exchange: the storage's bytes between the device and the halo buffers */
    if (x->part && cuda_part_wire_move(sim, x->leaf, b, &x->wire, lp, copies, p1 - p0,
                                       x->plane_bytes, get_buf, set_buf, &st))
        return st;
    /* the ordinary forms wait for their copies: after the sets before them */
    if ((st = cuda_part_wire_settle(&x->wire, b)) < 0 ||
        (st = part_settled(x, lp, copies, p1 - p0, what)) < 0)
        return st;
    cudaStream_t stream = x->part ? b->ex.border_stream : b->ex.stream;
    if (x->leaf->put_planes) { /* a layout of the leaf's own: its conversions */
        cudaError_t err = cudaSuccess;
        for (int k = 0; k < copies && set_buf && err == cudaSuccess; k++)
            err = x->leaf->put_planes(sim, b, stream, lp[k], set_buf, p1 - p0);
        if (get_buf)
            err = x->leaf->get_planes(sim, b, stream, lp[0], get_buf, p1 - p0);
        st = cuda_check(err, what);
        const int fin = cuda_check(cudaStreamSynchronize(stream), what);
        return st < 0 ? st : fin;
    }
    const size_t pb = x->plane_bytes;
    int64_t per = (int64_t)(STAGE_BYTES / pb);
    per = per < 1 ? 1 : per > p1 - p0 ? p1 - p0 : per;
    st = stage_of(x, (size_t)per * pb);
    for (int64_t q = p0; q < p1 && st == LATMC_OK; q += per) {
        const int64_t q1 = q + per < p1 ? q + per : p1;
        const size_t at = (size_t)(q - p0) * pb, bytes = (size_t)(q1 - q) * pb;
        cudaError_t err = cudaSuccess;
        if (set_buf) {
            memcpy(x->stage, (const char *)set_buf + at, bytes);
            for (int k = 0; k < copies && err == cudaSuccess; k++)
                err = cudaMemcpyAsync((char *)b->data + (size_t)lp[k] * pb + at, x->stage,
                                      bytes, cudaMemcpyHostToDevice, stream);
        } else {
            err = cudaMemcpyAsync(x->stage, (const char *)b->data + (size_t)lp[0] * pb + at,
                                  bytes, cudaMemcpyDeviceToHost, stream);
        }
        st = cuda_check(err, what);
        const int fin = cuda_check(cudaStreamSynchronize(stream), what);
        if (st == LATMC_OK)
            st = fin;
        if (st == LATMC_OK && get_buf)
            memcpy((char *)get_buf + at, x->stage, bytes);
    }
    return st;
}

int cuda_exec_get_planes(const latmc_sim *sim, struct cuda_exec *x, int64_t p0, int64_t p1,
                         void *buf)
{
    return move_planes(sim, x, p0, p1, buf, NULL);
}

int cuda_exec_set_planes(const latmc_sim *sim, struct cuda_exec *x, int64_t p0, int64_t p1,
                         const void *buf)
{
    return move_planes(sim, x, p0, p1, NULL, buf);
}

/*
 * The sums of planes [p0, p1) of the box's own planes, each plane's into its tile: the
 * leaf's per-plane sums where it has them (floating point), else the integer sums
 * (cuda_leaf.h), whose total does not depend on the grouping, so all of them go into the
 * first plane's tile and zeros into the others, which add up (in plane order,
 * model->add_sums) to exactly what one tile per plane gives, in one launch.
 * A box whose halo is its own wrap reads across the wrap at the lattice's last plane: it
 * measures the whole lattice only, at once (its leaf adds the planes in order itself, so
 * the total followed by zeros is the per-plane tiles' sum bit for bit).
 */
/* cuda_exec_measure_planes, with proj also the planes' projections (the leaf's
 * measure_projections, else measure then projections). */
static int measure_planes(const latmc_sim *sim, struct cuda_exec *x, int64_t p0, int64_t p1,
                          void *sums, int64_t *proj)
{
    int st = one_box_only(x, "reduction of planes", false);
    if (st < 0)
        return st;
    struct cuda_box *b = &x->box[0];
    const bool whole = x->halo == 0 && p0 == 0 && p1 == x->L;
    if ((x->halo == 0 && !whole) || p0 < b->ex.origin || p1 > b->ex.origin + b->ex.planes ||
        p1 <= p0)
        return cuda_core->fail(LATMC_EINVAL, "CUDA backend: measuring planes [%lld, %lld) "
                               "outside the box's own planes [%lld, %lld)%s", (long long)p0,
                               (long long)p1, (long long)b->ex.origin,
                               (long long)(b->ex.origin + b->ex.planes),
                               x->halo == 0 ? " (a box alone measures them all at once)" : "");
    const size_t size = sim->model->sums_size;
    memset(sums, 0, (size_t)(p1 - p0) * size);
    const struct cuda_box_range r = cuda_exec_range_of(x, b, p0 - b->ex.origin + x->halo, p1 - p0);
    cudaError_t err = cudaSuccess;
    const int64_t n = projection_entries(sim, x);
    if (x->leaf->measure_planes && (!whole || !x->leaf->measure)) {
        /* floating point: each plane's sums into its tile (with proj its projections too:
         * Heisenberg's) */
        double *plane_sums = NULL;
        err = proj ? planes_and_projections(sim, x, b, &r, n, b->ex.stream, &plane_sums)
                   : x->leaf->measure_planes(sim, &r, b->ex.stream, &plane_sums);
        if (err == cudaSuccess)
            err = cudaMemcpyAsync(sums, plane_sums, (size_t)(p1 - p0) * size,
                                  cudaMemcpyDeviceToHost, b->ex.stream);
        if (err == cudaSuccess && proj)
            err = cudaMemcpyAsync(proj, b->projections, (size_t)n * sizeof(int64_t),
                                  cudaMemcpyDeviceToHost, b->ex.stream);
    } else {
        err = cudaMemsetAsync(b->sums, 0, size, b->ex.stream);
        if (err == cudaSuccess && proj)
            err = cleared_projections(b, n, b->ex.stream);
        if (err == cudaSuccess && proj && x->leaf->measure_projections)
            err = x->leaf->measure_projections(sim, &r, b->ex.stream, b->sums, b->projections);
        else if (err == cudaSuccess) {
            err = x->leaf->measure(sim, &r, b->ex.stream, b->sums);
            if (err == cudaSuccess && proj)
                err = x->leaf->projections(sim, &r, b->ex.stream, b->projections);
        }
        if (err == cudaSuccess)
            err = cudaMemcpyAsync(sums, b->sums, size, cudaMemcpyDeviceToHost, b->ex.stream);
        if (err == cudaSuccess && proj)
            err = cudaMemcpyAsync(proj, b->projections, (size_t)n * sizeof(int64_t),
                                  cudaMemcpyDeviceToHost, b->ex.stream);
    }
    st = cuda_check(err, "measuring planes");
    const int fin = cuda_check(cudaStreamSynchronize(b->ex.stream), "measuring planes");
    return st < 0 ? st : fin;
}

int cuda_exec_measure_planes(const latmc_sim *sim, struct cuda_exec *x, int64_t p0,
                             int64_t p1, void *sums)
{
    return measure_planes(sim, x, p0, p1, sums, NULL);
}

int cuda_exec_measure_planes_modes(const latmc_sim *sim, struct cuda_exec *x, int64_t p0,
                                   int64_t p1, void *sums, int64_t *proj)
{
    if (!x->leaf->projections)
        return cuda_core->fail(LATMC_EUNSUPPORTED, "CUDA backend: the %s model has no "
                               "device reduction of the Fourier modes", sim->model->name);
    return measure_planes(sim, x, p0, p1, sums, proj);
}

int cuda_exec_cluster_faces(const latmc_sim *sim, struct cuda_exec *x, int what, void *buf,
                            size_t *bytes)
{
    if (!x->leaf->part_faces || !x->part)
        return cuda_core->fail(LATMC_EUNSUPPORTED, "CUDA backend: the %s sim joins no "
                               "clusters across parts", sim->model->name);
    const int st = cuda_box_set_device(x->box[0].ex.device);
    return st < 0 ? st : x->leaf->part_faces(sim, &x->box[0], what, buf, bytes);
}

int cuda_exec_cluster_stats(const latmc_sim *sim, struct cuda_exec *x,
                            struct latmc_cluster_stats *out)
{
    if (!x->leaf->cluster_stats) /* a part's: counted at its joins (the leaf's) */
        return cuda_core->fail(LATMC_EUNSUPPORTED, "CUDA backend: the %s sim does not count "
                               "its clusters on the device", sim->model->name);
    int st = cuda_box_set_device(x->box[0].ex.device);
    if (st == LATMC_OK) /* the steps in flight done */
        st = cuda_exec_finish_all(x, "counting the clusters");
    return st < 0 ? st : x->leaf->cluster_stats(sim, x->box, x->n, out);
}
