/*
 * The cluster leaves of the one executor (exec/cuda_leaf.h): an Ising or a q-state Potts
 * sim whose desc.algorithm is LATMC_ALGO_SWENDSEN_WANG or LATMC_ALGO_WOLFF, its
 * configuration in the API's layout (one byte per site: Ising int8 +-1, Potts the uint8
 * colour), its sweeps the plan's three cluster steps (lib/cluster_steps.c), each one step
 * of cuda_sw.h's kernels (Wolff's flip and the decisions in a field: cuda_wolff.h's).
 * Measurement, the hot start and the Fourier projections are the byte kernels of each
 * model's byte layout; Ising's +-J couplings are drawn as the Ising leaves draw them
 * (ising/cuda_ising_leaf.h: the CPU's couplings), one int8 per bond on the device.
 *
 * What it runs: Swendsen-Wang or Wolff, any field, on one box alone on one GPU (its halo
 * its own wrap); or on k boxes of the lattice on one GPU or several (desc.n_parts,
 * desc.n_devices; a halo plane each side), whose labels are joined across the faces
 * after each box's own (cuda_sw_boxes.h: the leaf's join, the executor's joined layout;
 * Wolff's seed's cluster named there; in a field the pieces' sums, summed at the label
 * step, joined with them); or on the box of a part of a lattice shared by processes (MPI
 * ranks), whose faces the core gathers and every part joins (part_faces; the same).
 * Ising with uniform or +-J couplings and J of either sign, Potts with J >= 0 (the core
 * refuses J < 0). The embedded clusters of phi^4 and Heisenberg are not this leaf's: their
 * local passes run on the model's leaf and the core runs their cluster step
 * (lib/cluster_embed_sweep.c). Wolff's attempted
 * updates are its clusters' sites, counted on the device and read once per call
 * (read_attempted).
 */
#include <stdlib.h>

#include "cluster_bonds.h"
#include "cluster_sweep.h"
#include "cuda_check.h"
#include "cuda_ising_leaf.h"
#include "cuda_kernels.h"
#include "cuda_leaf.h"
#include "cuda_sw.h"
#include "cuda_sw_boxes.h"
#include "cuda_sw_faces.h"
#include "cuda_sw_member.h"
#include "cuda_wolff.h"
#include "mode_projections.h"
#include "model.h"
#include "part.h"
#include "plan.h"
#include "ising_range_kernels.h"
#include "potts_range_kernels.h"

/* A box's own state: its labels and bonds, and Ising's +-J couplings (device). */
struct sw_box {
    uint32_t *labels;
    uint8_t *bonds;
    int8_t *eps; /* NULL: uniform couplings */
    struct cuda_sw_faces *faces; /* k boxes: the faces' join (cuda_sw_boxes.h); else NULL */
    /* Wolff: its counters (device), and their `sites` at the previous read */
    struct cuda_wolff_counts *wolff;
    unsigned long long wolff_seen;
    uint64_t label_sweep; /* the sweep of the last label step (a part's Wolff seed) */
    long long *sums; /* in a field: the clusters' (k boxes: the pieces') sums (device; made
                        on the first sweep in a field, sw_check_steps or box_sums, or by
                        sw_cluster_stats) */
    unsigned long long *stats; /* sw_cluster_stats' three words (device) */
    bool swept; /* a cluster sweep left its labels (the statistics describe them) */
    bool linked; /* the label step left them unflattened (cuda_sw_link): the flip's pass
                    flattens them with the decisions (cuda_sw_settle_flip), any other
                    reader first (sw_settled) */
};

void cuda_sw_member_arrays(const struct cuda_box *b, uint8_t **bonds, uint32_t **labels,
                           int8_t **eps, struct cuda_wolff_counts **wolff)
{
    const struct sw_box *sb = b->own;
    *bonds = sb->bonds;
    *labels = sb->labels;
    *eps = sb->eps;
    *wolff = sb->wolff;
}

void cuda_sw_member_swept(struct cuda_box *b, uint64_t sweep)
{
    struct sw_box *sb = b->own;
    sb->swept = true;
    sb->linked = false;
    sb->label_sweep = sweep;
}

/* Labels flattened for a reader other than cuda_sw_settle_flip. */
static cudaError_t sw_settled(struct sw_box *sb, cudaStream_t stream,
                              const struct cuda_sw_box *k)
{
    if (!sb->linked)
        return cudaSuccess;
    /* cleared only once the flattening is launched: after a failed launch the next reader
     * flattens again (flattening flat labels changes nothing) */
    const cudaError_t err = cuda_sw_flatten(stream, k);
    if (err == cudaSuccess)
        sb->linked = false;
    return err;
}

static int64_t sw_halo(const latmc_sim *sim)
{
    (void)sim;
    return 1; /* k boxes: the next plane along the last axis (bonds, measurement) */
}

static int64_t sw_border_planes(const latmc_sim *sim)
{
    (void)sim;
    return 1;
}

static size_t sw_plane_bytes(const latmc_sim *sim)
{
    const latmc_sim_desc *d = &sim->desc;
    return (size_t)(d->ndim == 3 ? d->extent[0] * d->extent[1] : d->extent[0]);
}

/* The hot starts of the models' byte layouts: the draws named by the lattice's sites. */
static cudaError_t sw_hot_planes(const latmc_sim *sim, const struct cuda_box *b,
                                 cudaStream_t stream, int64_t local_p0, int64_t global_p0,
                                 int64_t planes)
{
    const int64_t pb = (int64_t)sw_plane_bytes(sim);
    if (sim->desc.model == LATMC_MODEL_POTTS)
        return cuda_potts_hot_start_range(stream, (uint8_t *)b->data + local_p0 * pb,
                                          global_p0 * pb, planes * pb, sim->desc.q,
                                          sim->desc.seed);
    return cuda_ising_bytes_hot_start_range(stream, (int8_t *)b->data + local_p0 * pb,
                                            global_p0 * pb, planes * pb, sim->desc.seed);
}

/* The kernels' view of box b: its own planes after its lower halo (none alone). */
static struct cuda_sw_box kernel_box(const latmc_sim *sim, const struct cuda_box *b)
{
    const struct sw_box *sb = b->own;
    const latmc_sim_desc *d = &sim->desc;
    const int64_t plane = d->ndim == 3 ? d->extent[0] * d->extent[1] : d->extent[0];
    const struct cuda_sw_box k = { b->local, b->data, sb->eps, sb->bonds, sb->labels,
                                   (uint32_t)b->halo, (uint32_t)b->ex.planes,
                                   (uint32_t)(b->ex.origin * plane), b->halo == 0 };
    return k;
}

/* The box's sums array, made the first time a sweep in a field or the statistics of k
 * boxes need it (on the box's device, current). */
static cudaError_t box_sums(struct sw_box *sb, const struct cuda_box *b)
{
    if (sb->sums)
        return cudaSuccess;
    return cudaMalloc((void **)&sb->sums, (size_t)b->local.nsites * sizeof *sb->sums);
}

/* k boxes or a part, after the labels: in a field every piece's sum at its root, which
 * the faces carry into the join (cuda_sw_faces_out); without, no sums in the faces. */
static cudaError_t sw_label_sums(struct sw_box *sb, const struct cuda_box *b,
                                 cudaStream_t stream, const struct cuda_sw_box *k, double beta_h,
                                 int q)
{
    sb->faces->sums = NULL;
    if (beta_h == 0.0)
        return cudaSuccess;
    cudaError_t err = box_sums(sb, b);
    if (err == cudaSuccess)
        err = cuda_sw_piece_sums(stream, k, q, sb->sums);
    if (err == cudaSuccess)
        sb->faces->sums = sb->sums;
    return err;
}

static cudaError_t sw_update(const latmc_sim *sim, const struct cuda_box_range *r,
                             uint64_t sweep, const struct latmc_step *step,
                             cudaStream_t stream, unsigned long long *changed)
{
    (void)sweep; /* the draws are named by step->rng */
    if (r->p0 != r->box->halo || r->planes != r->box->ex.planes)
        return cudaErrorInvalidValue; /* the joined layout: the whole box (cuda_leaf.h) */
    const struct cuda_sw_box k = kernel_box(sim, r->box);
    struct sw_box *sb = r->box->own;
    const bool potts = sim->desc.model == LATMC_MODEL_POTTS;
    const int q = potts ? sim->desc.q : 0;
    const double K = sim->param[LATMC_PARAM_BETA] * sim->param[LATMC_PARAM_J];
    const double beta_h = sim->param[LATMC_PARAM_BETA] * sim->param[LATMC_PARAM_H];
    sb->swept |=
        step->kind == LATMC_STEP_CLUSTER_FLIP || step->kind == LATMC_STEP_CLUSTER_FLIP_SEED;
    switch (step->kind) {
    case LATMC_STEP_CLUSTER_BONDS: /* Ising with K < 0: bonds between unequal spins */
        /* a part: no statistics until this call's last join counts them, so that a part
         * whose call fails before its own faces go out (the plan skips its later steps)
         * answers LATMC_ESTATE as the others do, not the last call's values */
        if (sb->faces)
            sb->faces->counted = 0;
        return cuda_sw_bonds(stream, &k, sim->desc.seed, step->rng, !potts && K < 0.0,
                             step->cluster_threshold);
    case LATMC_STEP_CLUSTER_LABEL:
        sb->label_sweep = step->rng_sweep;
        /* a box alone, Swendsen-Wang without a field: nothing reads the labels before the
         * flip, whose pass over the bonds flattens them too */
        sb->linked = !sb->faces && beta_h == 0.0 &&
                     sim->desc.algorithm == LATMC_ALGO_SWENDSEN_WANG;
        if (sb->linked)
            return cuda_sw_link(stream, &k);
        if (!sb->faces)
            return cuda_sw_label(stream, &k);
        {
            const cudaError_t err = cuda_sw_label(stream, &k);
            return err == cudaSuccess ? sw_label_sums(sb, r->box, stream, &k, beta_h, q) : err;
        }
    case LATMC_STEP_CLUSTER_FLIP: {
        if (!sb->faces && beta_h == 0.0 && sb->linked) {
            const cudaError_t err = cuda_sw_settle_flip(stream, &k, sim->desc.seed, step->rng,
                                                        step->cluster_threshold, q, changed);
            if (err == cudaSuccess) /* else a later reader flattens them (sw_settled) */
                sb->linked = false;
            return err;
        }
        const cudaError_t flat = sw_settled(sb, stream, &k);
        if (flat != cudaSuccess)
            return flat;
        if (beta_h != 0.0 && !sb->faces) { /* one box: the decisions from the clusters'
                                              * sums (cuda_wolff.h) */
            const cudaError_t err = cuda_sw_field_decide(stream, &k, sim->desc.seed,
                                                         step->rng_sweep, beta_h, q, sb->sums);
            return err == cudaSuccess ? cuda_sw_apply(stream, &k, q, changed) : err;
        }
        if (beta_h != 0.0) { /* k boxes: the pieces' sums (the label step's), the face
                              * pieces' joined */
            if (!sb->faces->sums)
                return cudaErrorInvalidValue; /* the label step summed them (a bug) */
            cudaError_t err = cuda_sw_field_decide_roots(stream, &k, sim->desc.seed,
                                                         step->rng_sweep, beta_h, q, sb->sums);
            if (err == cudaSuccess)
                err = cuda_sw_faces_field_decide(stream, &k, sb->faces->face, sim->desc.seed,
                                                 step->rng_sweep, beta_h, q);
            return err == cudaSuccess ? cuda_sw_apply(stream, &k, q, changed) : err;
        }
        if (!sb->faces)
            return cuda_sw_flip(stream, &k, sim->desc.seed, step->rng, step->cluster_threshold,
                                q, changed);
        /* k boxes: the pieces at the faces decide at their joined names */
        cudaError_t err = cuda_sw_decide(stream, &k, sim->desc.seed, step->rng,
                                         step->cluster_threshold, q);
        if (err == cudaSuccess)
            err = cuda_sw_faces_decide(stream, &k, sb->faces->face, sim->desc.seed, step->rng,
                                       step->cluster_threshold, q);
        return err == cudaSuccess ? cuda_sw_apply(stream, &k, q, changed) : err;
    }
    case LATMC_STEP_CLUSTER_FLIP_SEED: { /* Wolff: the seed site's cluster only */
        const cudaError_t flat = sw_settled(sb, stream, &k);
        if (flat != cudaSuccess)
            return flat;
        if (sb->faces) /* k boxes or a part: the cluster named (and in a field summed) at
                        * the join (sw_join, sw_part_faces) */
            return cuda_wolff_part_flip(stream, &k, sb->faces->face, sb->faces->target,
                                        sim->desc.seed, step->rng_sweep, beta_h, q, sb->wolff,
                                        changed);
        return cuda_wolff_flip(stream, &k, sim->desc.seed, step->rng_sweep,
                               (uint32_t)latmc_cluster_seed_site(sim->desc.seed, step->rng_sweep,
                                                                 sim->nsites),
                               beta_h, q, sb->wolff, changed);
    }
    default:
        return cudaErrorInvalidValue; /* sw_check_steps refuses a non-cluster schedule */
    }
}

static cudaError_t sw_measure(const latmc_sim *sim, const struct cuda_box_range *own,
                              cudaStream_t stream, void *sums)
{
    const struct sw_box *sb = own->box->own;
    const struct cuda_plane_range pr = { own->p0, own->planes, own->global_p0, own->L };
    if (sim->desc.model == LATMC_MODEL_POTTS)
        return own->whole ? cuda_potts_measure(stream, &own->box->local, own->box->data, sums)
                          : cuda_potts_measure_range(stream, &own->box->local, own->box->data,
                                                     &pr, sums);
    if (own->whole)
        return cuda_ising_measure(stream, &own->box->local, own->box->data, sb->eps, sums);
    return cuda_ising_measure_range(stream, &own->box->local, own->box->data, sb->eps, &pr,
                                    sums);
}

static cudaError_t sw_projections(const latmc_sim *sim, const struct cuda_box_range *r,
                                  cudaStream_t stream, int64_t *proj)
{
    const struct cuda_proj_range pr = { r->p0, r->planes, r->global_p0, r->L };
    const int q = sim->desc.model == LATMC_MODEL_POTTS ? sim->desc.q : 0;
    return cuda_byte_projections(stream, &r->box->local, r->box->data, &pr, q, proj);
}

/* sw_measure and sw_projections in one read where the counters fit the kernel's shared
 * memory (measure_projections.cu), else the two passes. */
static cudaError_t sw_measure_projections(const latmc_sim *sim, const struct cuda_box_range *own,
                                          cudaStream_t stream, void *sums, int64_t *proj)
{
    const struct sw_box *sb = own->box->own;
    const int q = sim->desc.model == LATMC_MODEL_POTTS ? sim->desc.q : 0;
    if (!cuda_byte_measure_projections_fits(q)) {
        const cudaError_t err = sw_measure(sim, own, stream, sums);
        return err == cudaSuccess ? sw_projections(sim, own, stream, proj) : err;
    }
    const struct cuda_proj_range pr = { own->p0, own->planes, own->global_p0, own->L };
    return cuda_byte_measure_projections(stream, &own->box->local, own->box->data,
                                         q ? NULL : sb->eps, &pr, q, sums, proj);
}

static void sw_box_destroy(struct cuda_box *b)
{
    struct sw_box *sb = b->own;
    if (!sb)
        return;
    cudaFree(sb->labels);
    cudaFree(sb->bonds);
    cudaFree(sb->eps);
    cuda_sw_boxes_destroy(sb->faces);
    cudaFree(sb->wolff);
    cudaFree(sb->sums);
    cudaFree(sb->stats);
    free(sb);
    b->own = NULL;
}

static int sw_box_create(const latmc_sim *sim, struct cuda_box *b)
{
    const latmc_sim_desc *d = &sim->desc;
    const bool wolff = d->algorithm == LATMC_ALGO_WOLFF;
    /* a guard, not a path: cuda_cluster_leaf_of gives this leaf to Swendsen-Wang and
     * Wolff sims of Ising and Potts only (the embedded clusters of phi^4 and Heisenberg
     * run on their models' own leaves, the step through ops.embed_step: cuda_embed.c) */
    if ((d->model != LATMC_MODEL_ISING && d->model != LATMC_MODEL_POTTS) ||
        (d->algorithm != LATMC_ALGO_SWENDSEN_WANG && !wolff))
        return cuda_core->fail(LATMC_EBACKEND, "CUDA cluster leaf: a box of a %s sim with "
                               "algorithm %d (the leaf labels Ising and Potts Swendsen-Wang "
                               "and Wolff only): a bug in the CUDA module",
                               sim->model->name, d->algorithm);
    const bool pmj = d->model == LATMC_MODEL_ISING && d->couplings == LATMC_COUPLINGS_BIMODAL;
    if (d->couplings != LATMC_COUPLINGS_UNIFORM && !pmj)
        return cuda_core->fail(LATMC_EUNSUPPORTED, "%s on CUDA runs uniform couplings, and "
                               "Ising's +-J ones, only in this version",
                               wolff ? "Wolff" : "Swendsen-Wang");
    struct sw_box *sb = calloc(1, sizeof *sb);
    if (!sb)
        return cuda_core->fail(LATMC_ENOMEM, "CUDA Swendsen-Wang: cannot allocate a box's state");
    b->own = sb; /* freed by sw_box_destroy, also after a failure below */
    const size_t n = (size_t)b->local.nsites;
    int st = cuda_check(cudaMalloc((void **)&sb->labels, n * sizeof *sb->labels),
                        "allocating the cluster labels on the device");
    if (st == LATMC_OK)
        st = cuda_check(cudaMalloc((void **)&sb->bonds, n), "allocating the cluster bonds on "
                        "the device");
    if (st == LATMC_OK && pmj) /* filled by sw_draw_couplings_on_box, sw_couplings_to_box */
        st = cuda_check(cudaMalloc((void **)&sb->eps, n * (size_t)d->ndim),
                        "allocating the +-J couplings on the device");
    if (st == LATMC_OK && b->halo > 0)
        st = cuda_sw_boxes_create(sim, b, &sb->faces);
    if (st == LATMC_OK)
        st = cuda_check(cudaMalloc((void **)&sb->stats, 3 * sizeof *sb->stats),
                        "allocating the cluster statistics on the device");
    if (st == LATMC_OK && wolff)
        st = cuda_check(cudaMalloc((void **)&sb->wolff, sizeof *sb->wolff),
                        "allocating the Wolff counters on the device");
    if (st == LATMC_OK && wolff)
        st = cuda_check(cudaMemset(sb->wolff, 0, sizeof *sb->wolff),
                        "clearing the Wolff counters");
    /* the memset runs on the legacy stream, which the box's non-blocking streams are not
     * ordered after: wait for it here, once, before any kernel adds to the counters */
    if (st == LATMC_OK && wolff)
        st = cuda_check(cudaDeviceSynchronize(), "clearing the Wolff counters");
    return st;
}

/* The +-J couplings of the box's local planes (a box alone: the whole lattice), from the
 * host's planes (of the whole lattice, or of a part's local planes from host_first on), in
 * the layout the kernels read (eps[ndim i + mu]). */
static cudaError_t sw_couplings_to_box(const latmc_sim *sim, const struct cuda_box *b,
                                       cudaStream_t stream, const void *host,
                                       int64_t host_first, int64_t host_planes)
{
    (void)host_planes; /* every run lies inside them (cuda_ising_eps_to_box) */
    const struct sw_box *sb = b->own;
    if (!sb->eps)
        return cudaErrorInvalidValue; /* allocated for +-J, the only couplings drawn */
    return cuda_ising_eps_to_box(sim, b, stream, sb->eps, host, host_first);
}

/* The same drawn on the device (cuda_ising_eps_draw_box). */
static cudaError_t sw_draw_couplings_on_box(const latmc_sim *sim, const struct cuda_box *b,
                                            cudaStream_t stream)
{
    const struct sw_box *sb = b->own;
    if (!sb->eps)
        return cudaErrorInvalidValue; /* sw_box_create allocated them for +-J */
    return cuda_ising_eps_draw_box(sim, b, stream, sb->eps);
}

/* Potts: q counts per plane, one per state (latmc_modes_components), which size the
 * projections (the same as the Potts leaf's). */
static int sw_projection_components(const latmc_sim *sim)
{
    return sim->desc.model == LATMC_MODEL_POTTS ? sim->desc.q : 1;
}

/* The configuration is the one array; only the flip writes it (its halos sent after it). */
static int sw_written_arrays(const struct cuda_box *b, const struct latmc_step *step,
                             int *first)
{
    (void)b;
    *first = 0;
    return step->kind == LATMC_STEP_CLUSTER_FLIP || step->kind == LATMC_STEP_CLUSTER_FLIP_SEED;
}

/* k boxes: after the labels, the clusters joined across the faces (cuda_sw_boxes.h). A
 * part's box: the core joins the parts after the step (sw_part_faces). */
static int sw_join(const latmc_sim *sim, struct cuda_box *box, int n,
                   const struct latmc_step *step)
{
    if (step->kind != LATMC_STEP_CLUSTER_LABEL || latmc_part_many(sim))
        return LATMC_OK;
    struct cuda_sw_box *kb = calloc((size_t)n, sizeof *kb);
    struct cuda_sw_faces **faces = calloc((size_t)n, sizeof *faces);
    int st = LATMC_OK;
    if (!kb || !faces)
        st = cuda_core->fail(LATMC_ENOMEM, "CUDA Swendsen-Wang: cannot allocate the join");
    for (int i = 0; i < n && st == LATMC_OK; i++) {
        kb[i] = kernel_box(sim, &box[i]);
        faces[i] = ((const struct sw_box *)box[i].own)->faces;
    }
    /* Wolff: the seed's cluster named at the join for every box */
    const int64_t seed_site = sim->desc.algorithm == LATMC_ALGO_WOLFF
                                  ? latmc_cluster_seed_site(sim->desc.seed, step->rng_sweep,
                                                            sim->nsites)
                                  : -1;
    if (st == LATMC_OK)
        st = cuda_sw_boxes_join(box, n, kb, faces, seed_site);
    free(kb);
    free(faces);
    return st;
}

/* A part's box: its faces to the core, and every part's joined (cuda_sw_boxes.h). */
static int sw_part_faces(const latmc_sim *sim, struct cuda_box *b, int what, void *host,
                         size_t *bytes)
{
    struct sw_box *sb = b->own;
    if (!sb->faces)
        return cuda_core->fail(LATMC_EBACKEND, "CUDA Swendsen-Wang: a part's box without "
                               "faces (a bug in the module)");
    const struct cuda_sw_box k = kernel_box(sim, b);
    const int64_t seed_site = sim->desc.algorithm == LATMC_ALGO_WOLFF
                                  ? latmc_cluster_seed_site(sim->desc.seed, sb->label_sweep,
                                                            sim->nsites)
                                  : -1;
    const double beta_h = sim->param[LATMC_PARAM_BETA] * sim->param[LATMC_PARAM_H];
    /* the cluster statistics (the call's last sweep): the pieces' sizes in the sums array */
    const bool stats = (what & LATMC_CLUSTER_FACES_STATS) &&
                       (what & ~LATMC_CLUSTER_FACES_STATS) == LATMC_CLUSTER_FACES_OUT;
    const int st = stats ? cuda_check(box_sums(sb, b), "allocating the clusters' sizes on the "
                                      "device")
                         : LATMC_OK;
    return st < 0 ? st
                  : cuda_sw_part_faces(b, &k, sb->faces, what, host, bytes, sim->part->rank,
                                       seed_site, beta_h != 0.0, sb->sums,
                                       sim->desc.model == LATMC_MODEL_POTTS ? sim->desc.q : 0);
}

/* A box alone: Swendsen-Wang's clusters' sums allocated for the first sweep in a field
 * (k boxes and parts: box_sums at their label steps; only box 0 is asked here). */
static int sw_check_steps(const latmc_sim *sim, const struct cuda_box *b)
{
    struct sw_box *sb = b->own;
    const double beta_h = sim->param[LATMC_PARAM_BETA] * sim->param[LATMC_PARAM_H];
    if (beta_h == 0.0 || sb->sums || sb->faces ||
        sim->desc.algorithm != LATMC_ALGO_SWENDSEN_WANG)
        return LATMC_OK;
    return cuda_check(box_sums(sb, b), "allocating the clusters' sums of Swendsen-Wang in a "
                      "field on the device");
}

/* Wolff: the sites of its clusters are the updates attempted, counted on the device. */
static uint64_t sw_attempted(const latmc_sim *sim, int64_t sites)
{
    return sim->desc.algorithm == LATMC_ALGO_WOLFF ? 0 : (uint64_t)sites;
}

static int sw_read_attempted(const latmc_sim *sim, struct cuda_box *b, uint64_t *attempted)
{
    struct sw_box *sb = b->own;
    if (sim->desc.algorithm != LATMC_ALGO_WOLFF)
        return LATMC_OK;
    unsigned long long sites = 0;
    const int st = cuda_check(cudaMemcpy(&sites, &sb->wolff->sites, sizeof sites,
                                         cudaMemcpyDeviceToHost),
                              "reading the Wolff clusters' sites");
    if (st == LATMC_OK) {
        *attempted += sites - sb->wolff_seen;
        sb->wolff_seen = sites;
    }
    return st;
}

/* The cluster observables of one box alone: what the last sweep built, counted from the
 * labels it left. */
static int box_cluster_stats(const latmc_sim *sim, struct cuda_box *b,
                             struct latmc_cluster_stats *out)
{
    struct sw_box *sb = b->own;
    const bool wolff = sim->desc.algorithm == LATMC_ALGO_WOLFF;
    int st = LATMC_OK;
    if (!wolff)
        st = cuda_check(box_sums(sb, b), "allocating the clusters' sizes on the device");
    const struct cuda_sw_box k = kernel_box(sim, b);
    unsigned long long host[3] = { 0, 0, 0 };
    if (st == LATMC_OK)
        st = cuda_check(sw_settled(sb, b->ex.stream, &k), "flattening the clusters' labels");
    if (st == LATMC_OK)
        st = cuda_check(cuda_cluster_stats(b->ex.stream, &k, wolff ? sb->wolff : NULL,
                                           sb->sums, sb->stats),
                        "counting the clusters");
    if (st == LATMC_OK)
        st = cuda_check(cudaMemcpyAsync(host, sb->stats, sizeof host, cudaMemcpyDeviceToHost,
                                        b->ex.stream),
                        "reading the cluster statistics");
    if (st == LATMC_OK)
        st = cuda_check(cudaStreamSynchronize(b->ex.stream), "counting the clusters");
    if (st == LATMC_OK) { /* as lib/cluster_sw.c and cluster_wolff.c fill them */
        out->clusters = wolff ? 1 : (int64_t)host[0];
        out->largest = (int64_t)host[1];
        out->size2_sum = wolff ? (double)host[1] : (double)host[2];
    }
    return st;
}

/* Swendsen-Wang on k boxes, box i's part: its pieces' sizes, the interior ones' counted
 * into its three words, the face slots' sizes into its face buffer, which goes to the
 * first box's gathered array (as at the join), event `sent`. */
static int boxes_sizes_out(const latmc_sim *sim, struct cuda_box *box, int i)
{
    struct cuda_box *b = &box[i];
    struct sw_box *sb = b->own, *first = box[0].own;
    struct cuda_sw_faces *f = sb->faces;
    const struct cuda_sw_box k = kernel_box(sim, b);
    cudaStream_t stream = b->ex.border_stream;
    const size_t words = (size_t)cuda_sw_face_words(f->ps);
    int st = cuda_box_set_device(b->ex.device);
    if (st < 0)
        return st;
    cudaError_t err = box_sums(sb, b);
    if (err == cudaSuccess)
        err = cuda_sw_piece_sums(stream, &k, 1, sb->sums); /* sizes */
    if (err == cudaSuccess)
        err = cudaMemsetAsync(sb->stats, 0, 3 * sizeof *sb->stats, stream);
    if (err == cudaSuccess)
        err = cuda_sw_interior_stats(stream, &k, f->scratch, sb->sums, sb->stats);
    if (err == cudaSuccess)
        err = cuda_sw_faces_sizes(stream, &k, sb->sums, f->face);
    if (err == cudaSuccess)
        err = cuda_box_copy_to(&b->ex, f->face, &box[0].ex, first->faces->gathered + i * words,
                               words * 4, stream);
    if (err == cudaSuccess)
        err = cudaEventRecord(f->sent, stream);
    return cuda_check(err, "counting the clusters of the boxes");
}

/* The cluster observables of k boxes (their streams idle, the last sweep's labels, faces
 * and join in place): Wolff's cluster is its sites on every box (c->n, counted by its
 * flip); Swendsen-Wang's interior pieces are clusters of their own, counted on each box,
 * and the clusters that reach a face the components of the faces' join run again on the
 * sizes (the same graph: the face buffers' reps and bonds are the last join's). Integers
 * throughout: the CPU's values. */
static int boxes_cluster_stats(const latmc_sim *sim, struct cuda_box *box, int n,
                               struct latmc_cluster_stats *out)
{
    const bool wolff = sim->desc.algorithm == LATMC_ALGO_WOLFF;
    const struct sw_box *first = box[0].own;
    struct cuda_sw_faces *j = first->faces;
    if (!j || !j->gathered || j->n != n)
        return cuda_core->fail(LATMC_EBACKEND, "CUDA Swendsen-Wang: the first of %d boxes "
                               "holds no join (a bug in the module)", n);
    int st = LATMC_OK;
    for (int i = 0; i < n && st == LATMC_OK && !wolff; i++)
        st = boxes_sizes_out(sim, box, i);
    cudaStream_t s0 = box[0].ex.border_stream;
    if (st == LATMC_OK)
        st = cuda_box_set_device(box[0].ex.device);
    cudaError_t err = cudaSuccess;
    for (int i = 1; i < n && st == LATMC_OK && !wolff && err == cudaSuccess; i++)
        err = cudaStreamWaitEvent(s0, ((const struct sw_box *)box[i].own)->faces->sent, 0);
    if (st == LATMC_OK && !wolff && err == cudaSuccess)
        err = cuda_sw_faces_join(s0, j->gathered, j->parent, j->least, j->jsum, n, j->ps, 1);
    if (st == LATMC_OK && !wolff && err == cudaSuccess)
        err = cuda_sw_join_stats(s0, j->parent, j->jsum, n, j->ps, first->stats);
    if (st == LATMC_OK)
        st = cuda_check(err, "counting the clusters of the boxes");
    unsigned long long clusters = 0, largest = 0, size2 = 0;
    for (int i = 0; i < n && st == LATMC_OK; i++) {
        const struct sw_box *sb = box[i].own;
        unsigned long long host[3] = { 0, 0, 0 };
        if ((st = cuda_box_set_device(box[i].ex.device)) < 0)
            break;
        err = wolff ? cudaMemcpyAsync(&host[1], &sb->wolff->n, sizeof host[1],
                                      cudaMemcpyDeviceToHost, box[i].ex.border_stream)
                    : cudaMemcpyAsync(host, sb->stats, sizeof host, cudaMemcpyDeviceToHost,
                                      box[i].ex.border_stream);
        if (err == cudaSuccess)
            err = cudaStreamSynchronize(box[i].ex.border_stream);
        if ((st = cuda_check(err, "reading the cluster statistics")) < 0)
            break;
        clusters += host[0];
        largest = wolff ? largest + host[1] : host[1] > largest ? host[1] : largest;
        size2 += host[2];
    }
    if (st == LATMC_OK) { /* as lib/cluster_sw.c and cluster_wolff.c fill them */
        out->clusters = wolff ? 1 : (int64_t)clusters;
        out->largest = (int64_t)largest;
        out->size2_sum = wolff ? (double)largest : (double)size2;
    }
    return st;
}

/* A part's box: the whole lattice's statistics, counted at the join of the call's last
 * sweep (cuda_sw_part_stats), the same on every part. */
static int part_cluster_stats(const latmc_sim *sim, struct cuda_box *b,
                              struct latmc_cluster_stats *out)
{
    unsigned long long v[3] = { 0, 0, 0 };
    const int st = cuda_sw_part_stats(b, ((struct sw_box *)b->own)->faces,
                                      sim->desc.algorithm == LATMC_ALGO_WOLFF, v);
    if (st == LATMC_OK) {
        out->clusters = (int64_t)v[0];
        out->largest = (int64_t)v[1];
        out->size2_sum = (double)v[2];
    }
    return st;
}

/* The cluster observables: what the last sweep built, counted from the labels it left
 * (box: the sim's n boxes, their streams idle; a part's one box: at its joins). */
static int sw_cluster_stats(const latmc_sim *sim, struct cuda_box *box, int n,
                            struct latmc_cluster_stats *out)
{
    for (int i = 0; i < n; i++)
        if (!((const struct sw_box *)box[i].own)->swept)
            return cuda_core->fail(LATMC_ESTATE, "no cluster sweep yet (the cluster "
                                   "observables describe the clusters of the last sweep)");
    if (latmc_part_many(sim))
        return part_cluster_stats(sim, box, out);
    return n == 1 ? box_cluster_stats(sim, box, out) : boxes_cluster_stats(sim, box, n, out);
}

static const struct cuda_leaf cuda_sw_ising_leaf = {
    .model = LATMC_MODEL_ISING,
    .halo = sw_halo,
    .border_planes = sw_border_planes,
    .plane_bytes = sw_plane_bytes,
    .cold_byte = 1, /* +1 */
    .hot_planes = sw_hot_planes,
    .box_create = sw_box_create,
    .box_destroy = sw_box_destroy,
    .check_steps = sw_check_steps,
    .draw_couplings = cuda_ising_draw_couplings, /* +-J: the CPU's couplings */
    .couplings_to_float = cuda_ising_couplings_to_float,
    .couplings_from_float = cuda_ising_couplings_from_float,
    .couplings_to_box = sw_couplings_to_box,
    .draws_couplings = cuda_ising_draws_couplings,
    .draw_couplings_on_box = sw_draw_couplings_on_box,
    .update = sw_update,
    .measure = sw_measure,
    .projections = sw_projections,
    .written_arrays = sw_written_arrays,
    .join = sw_join,
    .measure_projections = sw_measure_projections,
    .projection_components = sw_projection_components,
    .view_dtype = LATMC_DTYPE_INT8, /* the API's layout: one int8 per site */
    .attempted = sw_attempted,
    .read_attempted = sw_read_attempted,
    .cluster_stats = sw_cluster_stats,
    .part_faces = sw_part_faces,
};

static const struct cuda_leaf cuda_sw_potts_leaf = {
    .model = LATMC_MODEL_POTTS,
    .halo = sw_halo,
    .border_planes = sw_border_planes,
    .plane_bytes = sw_plane_bytes,
    .cold_byte = 0, /* colour 0 */
    .hot_planes = sw_hot_planes,
    .box_create = sw_box_create,
    .box_destroy = sw_box_destroy,
    .check_steps = sw_check_steps,
    .update = sw_update,
    .measure = sw_measure,
    .projections = sw_projections,
    .written_arrays = sw_written_arrays,
    .join = sw_join,
    .measure_projections = sw_measure_projections,
    .projection_components = sw_projection_components,
    .view_dtype = LATMC_DTYPE_UINT8, /* the API's layout: one uint8 per site */
    .attempted = sw_attempted,
    .read_attempted = sw_read_attempted,
    .cluster_stats = sw_cluster_stats,
    .part_faces = sw_part_faces,
};

const struct cuda_leaf *cuda_cluster_leaf_of(const latmc_sim *sim)
{
    if (sim->desc.algorithm != LATMC_ALGO_SWENDSEN_WANG && sim->desc.algorithm != LATMC_ALGO_WOLFF)
        return NULL;
    switch (sim->desc.model) { /* the leaves refuse what they lack (check_steps) */
    case LATMC_MODEL_ISING:
        return &cuda_sw_ising_leaf;
    case LATMC_MODEL_POTTS:
        return &cuda_sw_potts_leaf;
    default:
        return NULL;
    }
}
