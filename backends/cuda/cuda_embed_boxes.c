/*
 * ops.embed_step of the CUDA module on the k > 1 boxes of a sim of one process, on one GPU
 * (desc.n_parts) or several (desc.n_devices): the embedded Swendsen-Wang or Wolff step of
 * a Heisenberg sim (any field) or a phi^4 sim with Lambda = inf (cuda_embed.c runs a box
 * alone; doc/clusters.md, "Embedded clusters on CUDA"), in the boxes' own configuration,
 * bit for bit the core's step and the one-box device step. Per replica:
 *
 *   each box, on its border stream: a_i of its own planes and of its upper halo's first
 *     plane, its own sites' bonds (cuda_embed.h: drawn at their global sites, so a box's
 *     bonds are the one-box step's of its sites, those of its last plane along the last
 *     axis into its upper halo), its pieces' labels (cuda_sw_label, wrap 0: a piece's
 *     root its smallest site), and in a field its pieces' sums of the q_i at their roots;
 *   the join of the Ising clusters' boxes (cuda_sw_boxes_join: the faces out, joined on
 *     the first box, the names -- and the sums -- back; Wolff: the seed's cluster's name
 *     and sum to every box), ordered by its events;
 *   each box: the decisions -- Swendsen-Wang every piece's at its root's global site, then
 *     the face pieces' again at their joined names (in a field from their joined sums);
 *     Wolff the seed's cluster's, from its joined name and sum -- and the reflections
 *     (phi^4: sign flips) of its own sites.
 *
 * The replicas run last to first, so replica 0's a, bonds, labels and faces stay for the
 * statistics; then the halos of the configuration are sent and the boxes' events recorded
 * as after a plan step (cuda_exec_resend_halos; after a step that failed part of the way
 * too, so that no halo keeps older planes than its neighbour's). The host waits for none
 * of it.
 *
 * State per box (made at the first ask; where a GPU has no room the ask declines and the
 * core steps on its host copy): a_i in double, the bonds and the labels of its stored
 * sites (13 bytes a site), the faces' state (cuda_sw_boxes.h), Wolff a word for its
 * decision, and in a field the pieces' sums (8 bytes a site, at the first ask in a field).
 *
 * What differs by model (the replica count, the a_i and bonds, the reflections) is the
 * leaf's `embed` member (exec/cuda_leaf.h, struct cuda_embed_leaf); a leaf without one has
 * no embedded clusters here, and this file names no model.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "cluster_bonds.h"
#include "cluster_embed.h"
#include "cuda_backend.h"
#include "cuda_check.h"
#include "cuda_embed.h"
#include "cuda_embed_boxes.h"
#include "cuda_exec.h"
#include "cuda_leaf.h"
#include "cuda_sw_boxes.h"
#include "cuda_sw_faces.h"
#include "rng_streams.h"

struct embed_box {
    int device;
    double *a;
    uint8_t *bonds;
    uint32_t *labels;
    uint32_t *keep;            /* Wolff: its cluster's decision (device word) */
    void *sums;                /* in a field: the pieces' sums at their roots (device) */
    size_t sums_bytes;
    struct cuda_sw_faces *faces;
};

struct cuda_embed_boxes {
    int n;
    struct embed_box *box;
};

void cuda_embed_boxes_free(struct cuda_embed_boxes *e)
{
    if (!e)
        return;
    for (int i = 0; e->box && i < e->n; i++) {
        struct embed_box *eb = &e->box[i];
        (void)cudaSetDevice(eb->device);
        cudaFree(eb->a);
        cudaFree(eb->bonds);
        cudaFree(eb->labels);
        cudaFree(eb->keep);
        cudaFree(eb->sums);
        cuda_sw_boxes_destroy(eb->faces);
    }
    (void)cudaGetLastError(); /* after a sticky error the frees fail: released all the same */
    free(e->box);
    free(e);
}

/* The boxes' arrays, or NULL where a host or a GPU has no room for them: nothing kept and
 * nothing recorded (an allocation's error is not sticky and is cleared; the ask then
 * declines without a message, lib/backend.h). */
static struct cuda_embed_boxes *boxes_make(const latmc_sim *sim, struct cuda_box *box, int n)
{
    struct cuda_embed_boxes *e = calloc(1, sizeof *e);
    if (!e)
        return NULL;
    e->n = n;
    e->box = calloc((size_t)n, sizeof *e->box);
    bool ok = e->box != NULL;
    const bool wolff = sim->desc.algorithm == LATMC_ALGO_WOLFF;
    for (int i = 0; ok && i < n; i++) {
        struct embed_box *eb = &e->box[i];
        eb->device = box[i].ex.device;
        const size_t m = (size_t)box[i].local.nsites;
        ok = cudaSetDevice(eb->device) == cudaSuccess &&
             cudaMalloc((void **)&eb->a, m * sizeof *eb->a) == cudaSuccess &&
             cudaMalloc((void **)&eb->bonds, m) == cudaSuccess &&
             cudaMalloc((void **)&eb->labels, m * sizeof *eb->labels) == cudaSuccess &&
             (!wolff || cudaMalloc((void **)&eb->keep, sizeof *eb->keep) == cudaSuccess) &&
             cuda_sw_boxes_try_create(sim, &box[i], &eb->faces) == LATMC_OK;
    }
    if (!ok) {
        (void)cudaGetLastError();
        cuda_embed_boxes_free(e);
        return NULL;
    }
    return e;
}

/* Every box's sums of the pieces in a field (made at the first ask in one); false where a
 * GPU has no room (the ask declines; nothing recorded). */
static bool boxes_sums(struct cuda_embed_boxes *e, const struct cuda_box *box)
{
    for (int i = 0; i < e->n; i++) {
        struct embed_box *eb = &e->box[i];
        if (eb->sums)
            continue;
        const size_t bytes = cuda_embed_field_bytes((uint32_t)box[i].local.nsites);
        if (cudaSetDevice(eb->device) != cudaSuccess ||
            cudaMalloc(&eb->sums, bytes) != cudaSuccess) {
            (void)cudaGetLastError();
            eb->sums = NULL;
            return false;
        }
        eb->sums_bytes = bytes;
    }
    return true;
}

static int64_t plane_sites(const latmc_sim *sim)
{
    const latmc_sim_desc *d = &sim->desc;
    return d->ndim == 3 ? d->extent[0] * d->extent[1] : d->extent[0];
}

/* The labelling's view of box b: its own planes between its halos, joined to the others. */
static struct cuda_sw_box box_view(const latmc_sim *sim, const struct cuda_box *b,
                                   const struct embed_box *eb)
{
    struct cuda_sw_box v = { 0 };
    v.g = b->local;
    v.bonds = eb->bonds;
    v.labels = eb->labels;
    v.p0 = (uint32_t)b->halo;
    v.np = (uint32_t)b->ex.planes;
    v.g0 = (uint32_t)(b->ex.origin * plane_sites(sim));
    v.wrap = 0;
    return v;
}

/* Box b's bonds of replica rep (its a first): the leaf's launch. */
static cudaError_t box_bonds(const latmc_sim *sim, const struct cuda_embed_leaf *el,
                             struct cuda_box *b, const struct cuda_sw_box *v,
                             const struct embed_box *eb, int rep,
                             const struct latmc_embed_job *job, const struct cuda_embed_draws *d)
{
    return el->bonds(sim, b->ex.border_stream, v, b, rep, job, eb->a, d);
}

/* Box b's decisions and flips of replica rep, after the join (the flips the leaf's). */
static cudaError_t box_flips(const latmc_sim *sim, const struct cuda_embed_leaf *el,
                             struct cuda_box *b, const struct cuda_sw_box *v,
                             const struct embed_box *eb, int rep,
                             const struct latmc_embed_job *job, const struct cuda_embed_draws *d,
                             bool wolff)
{
    cudaStream_t stream = b->ex.border_stream;
    const struct cuda_sw_faces *f = eb->faces;
    struct cuda_embed_flips flips = { 0 };
    cudaError_t err;
    if (wolff) {
        err = cuda_embed_target_decide(stream, f->target, d->field, d->seed, d->decide, eb->keep);
        flips.scratch = f->scratch;
        flips.face = f->face;
        flips.target = f->target;
        flips.keep = eb->keep;
    } else if (d->field != 0.0) {
        err = cuda_embed_field_roots(stream, v, eb->sums, d->field, d->seed, d->decide);
        if (err == cudaSuccess)
            err = cuda_sw_faces_embed_decide(stream, v, f->face, d->seed, d->decide, d->field);
    } else {
        err = cuda_sw_decide(stream, v, d->seed, d->decide, UINT64_C(1) << 31, 0);
        if (err == cudaSuccess)
            err = cuda_sw_faces_decide(stream, v, f->face, d->seed, d->decide,
                                       UINT64_C(1) << 31, 0);
    }
    if (err != cudaSuccess)
        return err;
    return el->flip(sim, stream, v, b, rep, job, eb->a, &flips);
}

/* One replica's step on every box. */
static int replica_step(const latmc_sim *sim, const struct cuda_embed_leaf *el,
                        struct cuda_box *box, int n, struct cuda_embed_boxes *e,
                        struct cuda_sw_box *kb,
                        struct cuda_sw_faces **faces, int rep, const struct latmc_embed_job *job)
{
    const bool wolff = sim->desc.algorithm == LATMC_ALGO_WOLFF;
    struct cuda_embed_draws d = { 0 };
    d.seed = sim->desc.seed;
    d.bonds = latmc_rng_cluster_name(job->sweep, (uint32_t)rep, LATMC_CLUSTER_PHASE_BONDS,
                                     LATMC_EMBED_SUB);
    d.decide = latmc_rng_cluster_name(job->sweep, (uint32_t)rep, LATMC_CLUSTER_PHASE_DECIDE,
                                      LATMC_EMBED_SUB);
    d.field = job->field[rep];
    const bool field = d.field != 0.0;
    const int64_t seed_site =
        wolff ? latmc_cluster_seed_of(d.seed,
                                      latmc_rng_cluster_name(job->sweep, (uint32_t)rep,
                                                             LATMC_CLUSTER_PHASE_SEED,
                                                             LATMC_EMBED_SUB),
                                      sim->nsites)
              : -1;
    const char *what = "launching the embedded cluster step on the boxes";
    int st = LATMC_OK;
    for (int i = 0; i < n && st == LATMC_OK; i++) {
        struct embed_box *eb = &e->box[i];
        if ((st = cuda_box_set_device(eb->device)) < 0)
            break;
        kb[i] = box_view(sim, &box[i], eb);
        faces[i] = eb->faces;
        /* the join reads the pieces' sums from the faces' state in a field, and only then */
        eb->faces->sums = field ? (const long long *)eb->sums : NULL;
        cudaError_t err = box_bonds(sim, el, &box[i], &kb[i], eb, rep, job, &d);
        if (err == cudaSuccess)
            err = cuda_sw_label(box[i].ex.border_stream, &kb[i]);
        if (err == cudaSuccess && field)
            err = cuda_embed_field_sums(box[i].ex.border_stream, &kb[i], eb->a, eb->sums,
                                        eb->sums_bytes);
        st = cuda_check(err, what);
    }
    if (st == LATMC_OK)
        st = cuda_sw_boxes_join(box, n, kb, faces, seed_site);
    for (int i = 0; i < n && st == LATMC_OK; i++) {
        if ((st = cuda_box_set_device(e->box[i].device)) == LATMC_OK)
            st = cuda_check(box_flips(sim, el, &box[i], &kb[i], &e->box[i], rep, job, &d,
                                      wolff),
                            what);
    }
    return st;
}

/* LATMC_EMBED_NAMES: replica 0's a and (Wolff) bonds of every box's own planes at their
 * global sites; Swendsen-Wang each own site's cluster name, its piece's joined name where
 * the piece reaches a face, else its root's global site (as sw_joined_name), from the
 * box's labels, scratch and face buffer read back. */
static int boxes_names(const latmc_sim *sim, struct cuda_box *box, int n,
                       struct cuda_embed_boxes *e, struct latmc_embed_job *job)
{
    const bool wolff = sim->desc.algorithm == LATMC_ALGO_WOLFF;
    const size_t ps = (size_t)plane_sites(sim);
    size_t most = 0;
    for (int i = 0; i < n; i++)
        most = (size_t)box[i].local.nsites > most ? (size_t)box[i].local.nsites : most;
    uint32_t *lab = wolff ? NULL : malloc(most * sizeof *lab);
    uint32_t *scr = wolff ? NULL : malloc(most * sizeof *scr);
    uint32_t *face = wolff ? NULL : malloc(4 * ps * sizeof *face);
    if (!wolff && (!lab || !scr || !face)) {
        free(lab);
        free(scr);
        free(face);
        return cuda_core->fail(LATMC_ENOMEM, "CUDA embedded clusters: cannot allocate the "
                               "host's copy of a box's labels");
    }
    const char *what = "reading the embedded clusters of the boxes";
    int st = LATMC_OK;
    for (int i = 0; i < n && st == LATMC_OK; i++) {
        const struct embed_box *eb = &e->box[i];
        if ((st = cuda_box_set_device(eb->device)) < 0)
            break;
        cudaStream_t stream = box[i].ex.border_stream;
        const size_t off = (size_t)box[i].halo * ps, own = (size_t)box[i].ex.planes * ps;
        const size_t g0 = (size_t)box[i].ex.origin * ps, m = (size_t)box[i].local.nsites;
        cudaError_t err = cudaMemcpyAsync(job->a + g0, eb->a + off, own * sizeof *eb->a,
                                          cudaMemcpyDeviceToHost, stream);
        if (err == cudaSuccess && wolff)
            err = cudaMemcpyAsync(job->bonds + g0, eb->bonds + off, own,
                                  cudaMemcpyDeviceToHost, stream);
        if (err == cudaSuccess && !wolff)
            err = cudaMemcpyAsync(lab, eb->labels, m * sizeof *lab, cudaMemcpyDeviceToHost,
                                  stream);
        if (err == cudaSuccess && !wolff)
            err = cudaMemcpyAsync(scr, eb->faces->scratch, m * sizeof *scr,
                                  cudaMemcpyDeviceToHost, stream);
        if (err == cudaSuccess && !wolff)
            err = cudaMemcpyAsync(face, eb->faces->face, 4 * ps * sizeof *face,
                                  cudaMemcpyDeviceToHost, stream);
        if (err == cudaSuccess)
            err = cudaStreamSynchronize(stream);
        st = cuda_check(err, what);
        for (size_t k = 0; st == LATMC_OK && !wolff && k < own; k++) {
            const size_t r = lab[lab[off + k]];
            const size_t f = scr[r];
            const size_t at = f < ps ? off + f : off + own - ps + (f - ps);
            const bool faced = f < 2 * ps && lab[lab[at]] == r;
            job->name[g0 + k] = faced ? face[2 * ps + f] : (uint32_t)(g0 + (r - off));
        }
    }
    free(lab);
    free(scr);
    free(face);
    return st;
}

/* Whether every box's stored sites (its own planes and its halos) have 32-bit indices, as
 * the kernels name them: the lattice's 2^32 - 1 sites are the core's limit, a box's halos
 * may take a thin slab's beyond it; and the face join's n 2 ps slots too
 * (cuda_sw_faces.cu). */
static bool boxes_indexable(const latmc_sim *sim, const struct cuda_box *box, int n)
{
    for (int i = 0; i < n; i++)
        if (box[i].local.nsites > (int64_t)UINT32_MAX)
            return false;
    return cuda_sw_faces_fit((uint64_t)plane_sites(sim), n);
}

void cuda_embed_note_no_room(latmc_sim *sim, const char *what)
{
    struct cuda_sim *cs = cuda_sim_of(sim);
    if (!cs || cs->embed_no_room_noted)
        return;
    cs->embed_no_room_noted = true;
    cuda_core->log(sim->ctx, LATMC_LOG_INFO, "CUDA embedded clusters: %s do not fit the "
                   "GPU's free memory; the host copy steps the clusters (asked again at "
                   "every step)", what);
}

int cuda_embed_boxes_step(latmc_sim *sim, int what, struct latmc_embed_job *job)
{
    struct cuda_sim *cs = cuda_sim_of(sim);
    int n = 0;
    const struct cuda_leaf *leaf = NULL;
    struct cuda_box *box = cs && cs->exec ? cuda_exec_boxes(cs->exec, &n, &leaf) : NULL;
    const int algo = sim->desc.algorithm;
    if (!box || cs->embed_on_host ||
        !leaf->embed || /* the leaf has no embedded clusters */
        (algo != LATMC_ALGO_SWENDSEN_WANG && algo != LATMC_ALGO_WOLFF) ||
        sim->nsites > (int64_t)UINT32_MAX || !boxes_indexable(sim, box, n) ||
        sim->desc.replicas > 2 ||
        /* phi^4 with a finite Lambda: its pairs two planes apart cross the faces, which
         * join nearest neighbours only (the host copy steps) */
        job->n_dirs > sim->desc.ndim)
        return LATMC_EUNSUPPORTED;
    const bool field = job->field[0] != 0.0 || job->field[1] != 0.0;
    if (what == LATMC_EMBED_ASK) {
        if (!cs->embed_boxes)
            cs->embed_boxes = boxes_make(sim, box, n);
        if (!cs->embed_boxes || (field && !boxes_sums(cs->embed_boxes, box))) {
            cuda_embed_note_no_room(sim, cs->embed_boxes ? "the boxes' sums of the pieces"
                                                         : "the boxes' arrays");
            return LATMC_EUNSUPPORTED;
        }
        return LATMC_OK;
    }
    struct cuda_embed_boxes *e = cs->embed_boxes;
    if (!e || e->n != n) /* the core asks before every step: a guard, not a path */
        return cuda_core->fail(LATMC_EBACKEND, "CUDA embedded clusters on boxes: a step or a "
                               "read before the first ask (a bug in the core)");
    if (what == LATMC_EMBED_NAMES)
        return boxes_names(sim, box, n, e, job);
    struct cuda_sw_box *kb = calloc((size_t)n, sizeof *kb);
    struct cuda_sw_faces **faces = calloc((size_t)n, sizeof *faces);
    int st = kb && faces ? LATMC_OK
                         : cuda_core->fail(LATMC_ENOMEM, "CUDA embedded clusters: cannot "
                                           "allocate the boxes' join");
    /* the last replica first: replica 0's a, bonds, labels and faces stay for the
     * statistics */
    const int reps = leaf->embed->replicas(sim);
    const bool launched = st == LATMC_OK;
    for (int rep = reps - 1; rep >= 0 && st == LATMC_OK; rep--)
        st = replica_step(sim, leaf->embed, box, n, e, kb, faces, rep, job);
    /* after a step that failed part of the way too (where the device still works): a
     * failed sweep may leave the configuration partly stepped (include/latmc/sim.h), but
     * no halo may keep planes older than its neighbour's own, which the next local pass
     * would read; the first failure's status is the call's */
    if (launched) {
        const int sent = cuda_exec_resend_halos(sim, cs->exec);
        st = st < 0 ? st : sent;
    }
    free(kb);
    free(faces);
    return st;
}
