/*
 * Swendsen-Wang on k > 1 boxes (cuda_sw_boxes.h): the face state and the join's order of
 * work. Every box's steps run on its border stream (the executor's joined layout,
 * cuda_leaf.h: join), so the join orders those streams alone:
 *
 *   box i:  labels, faces out, its face buffer copied into the first box's gathered
 *           array (a device copy, or a peer copy between GPUs); Wolff, the box that
 *           holds the seed: its piece and face slot found and copied to the first box's
 *           seed record; event `sent`;
 *   box 0:  waits for every `sent`, joins, copies each box's joined names back into its
 *           face buffer (Wolff: the seed's cluster into every box's target), event
 *           `joined`;
 *   box i:  waits for `joined` before its flip step (which reads its face buffer).
 *
 * The host waits for none of it.
 *
 * The next join's copies into the gathered array come after `joined` on each box's
 * stream (the flip and the next sweep's bonds and labels follow it), so they never
 * overwrite names the first box still reads.
 */
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "cuda_check.h"
#include "cuda_sw_boxes.h"
#include "cuda_sw_faces.h"
#include "cuda_wolff.h"
#include "part.h"
#include "plan.h"

void cuda_sw_boxes_destroy(struct cuda_sw_faces *f)
{
    if (!f)
        return;
    cudaFree(f->face);
    cudaFree(f->scratch);
    cudaFree(f->gathered);
    cudaFree(f->parent);
    cudaFree(f->least);
    cudaFree(f->jsum);
    cudaFree(f->target);
    cudaFree(f->seed);
    cudaFree(f->stats);
    if (f->sent)
        cudaEventDestroy(f->sent);
    if (f->joined)
        cudaEventDestroy(f->joined);
    free(f);
}

/* One array of the face state: with a message (cuda_box_alloc_on), or quietly (the
 * runtime's failure of an allocation is not sticky: cleared). */
static int faces_alloc(void **ptr, size_t bytes, int device, const char *what, bool quiet)
{
    if (!quiet)
        return cuda_box_alloc_on(ptr, bytes, device, what);
    if (cudaMalloc(ptr, bytes) == cudaSuccess)
        return LATMC_OK;
    (void)cudaGetLastError();
    *ptr = NULL;
    return LATMC_ENOMEM;
}

static int faces_event(cudaEvent_t *ev, bool quiet)
{
    const cudaError_t err = cudaEventCreateWithFlags(ev, cudaEventDisableTiming);
    if (err == cudaSuccess)
        return LATMC_OK;
    *ev = NULL;
    if (!quiet)
        return cuda_check(err, "creating a cluster event");
    (void)cudaGetLastError();
    return LATMC_EDEVICE;
}

/* cuda_sw_boxes_create and cuda_sw_boxes_try_create: quiet records no message. */
static int faces_make(const latmc_sim *sim, const struct cuda_box *b, struct cuda_sw_faces **out,
                      bool quiet)
{
    *out = NULL;
    const latmc_sim_desc *d = &sim->desc;
    const uint64_t plane = (uint64_t)(d->ndim == 3 ? d->extent[0] * d->extent[1] : d->extent[0]);
    if (!cuda_sw_faces_fit(plane, sim->plan->n_boxes))
        return quiet ? LATMC_EUNSUPPORTED
                     : cuda_core->fail(LATMC_EUNSUPPORTED,
                                       "CUDA Swendsen-Wang: %d boxes of %llu sites a plane "
                                       "join 2^32 - 1 face slots or more",
                                       sim->plan->n_boxes, (unsigned long long)plane);
    struct cuda_sw_faces *f = calloc(1, sizeof *f);
    if (!f)
        return quiet ? LATMC_ENOMEM
                     : cuda_core->fail(LATMC_ENOMEM, "CUDA Swendsen-Wang: cannot allocate a "
                                       "box's face state");
    f->ps = (uint32_t)plane;
    f->n = sim->plan->n_boxes;
    const size_t words = (size_t)cuda_sw_face_words(f->ps);
    const size_t nodes = 2 * (size_t)f->ps * (size_t)f->n;
    const int dev = b->ex.device;
    /* the plan's box 0 joins the boxes of one process; every part joins all parts */
    const bool first = b->ex.origin == 0 || latmc_part_many(sim);
    const bool wolff = d->algorithm == LATMC_ALGO_WOLFF;
    int st = faces_alloc((void **)&f->face, words * 4, dev, "cluster faces", quiet);
    if (st == LATMC_OK)
        st = faces_alloc((void **)&f->scratch, (size_t)b->local.nsites * 4, dev,
                         "cluster scratch", quiet);
    if (st == LATMC_OK)
        st = faces_event(&f->sent, quiet);
    if (st == LATMC_OK && first)
        st = faces_alloc((void **)&f->gathered, words * (size_t)f->n * 4, dev,
                         "joined cluster faces", quiet);
    if (st == LATMC_OK && first)
        st = faces_alloc((void **)&f->parent, nodes * 4, dev, "joined cluster faces", quiet);
    if (st == LATMC_OK && first)
        st = faces_alloc((void **)&f->least, nodes * 4, dev, "joined cluster faces", quiet);
    if (st == LATMC_OK && first) /* the components' sums in a field */
        st = faces_alloc((void **)&f->jsum, nodes * 8, dev, "joined cluster faces", quiet);
    if (st == LATMC_OK && first)
        st = faces_event(&f->joined, quiet);
    if (st == LATMC_OK && (latmc_part_many(sim) || wolff))
        st = faces_alloc((void **)&f->target, 16, dev, "the Wolff cluster's name", quiet);
    if (st == LATMC_OK && wolff && !latmc_part_many(sim))
        st = faces_alloc((void **)&f->seed, 16, dev, "the Wolff seed's piece", quiet);
    if (st == LATMC_OK && latmc_part_many(sim))
        st = faces_alloc((void **)&f->stats, 3 * sizeof *f->stats, dev,
                         "the parts' cluster statistics", quiet);
    if (st < 0) {
        cuda_sw_boxes_destroy(f);
        return st;
    }
    *out = f;
    return LATMC_OK;
}

int cuda_sw_boxes_create(const latmc_sim *sim, const struct cuda_box *b,
                         struct cuda_sw_faces **out)
{
    return faces_make(sim, b, out, false);
}

int cuda_sw_boxes_try_create(const latmc_sim *sim, const struct cuda_box *b,
                             struct cuda_sw_faces **out)
{
    return faces_make(sim, b, out, true);
}

/* The first slot of a face buffer's 2 ps names (before the join: each slot's piece's
 * name) that holds `name`, or -1. */
static int64_t face_slot(const uint32_t *names, uint32_t ps, uint32_t name)
{
    for (uint32_t s = 0; s < 2 * ps; s++)
        if (names[s] == name)
            return s;
    return -1;
}

/* The name of the Wolff seed's piece (its root's global site) where this part holds
 * seed_site, else UINT32_MAX: two reads of the labels; in a field (sums) also its sum
 * (else 0); *root: the root's stored site (UINT32_MAX where the part holds no seed). */
static int seed_piece(const struct cuda_sw_box *kb, uint32_t ps, int64_t seed_site,
                      const long long *sums, cudaStream_t stream, uint32_t *name,
                      long long *sum, uint32_t *root)
{
    *name = UINT32_MAX;
    *sum = 0;
    *root = UINT32_MAX;
    const int64_t own = seed_site - (int64_t)kb->g0;
    if (seed_site < 0 || own < 0 || own >= (int64_t)kb->np * ps)
        return LATMC_OK;
    uint32_t at = kb->p0 * ps + (uint32_t)own;
    cudaError_t err = cudaSuccess;
    for (int k = 0; k < 2 && err == cudaSuccess; k++) { /* labels[labels[i]] */
        err = cudaMemcpyAsync(&at, kb->labels + at, 4, cudaMemcpyDeviceToHost, stream);
        if (err == cudaSuccess)
            err = cudaStreamSynchronize(stream);
    }
    if (err == cudaSuccess && sums)
        err = cudaMemcpyAsync(sum, sums + at, sizeof *sum, cudaMemcpyDeviceToHost, stream);
    if (err == cudaSuccess && sums)
        err = cudaStreamSynchronize(stream);
    if (err == cudaSuccess) {
        *name = kb->g0 + (at - kb->p0 * ps);
        *root = at;
    }
    return cuda_check(err, "reading the Wolff seed's cluster");
}

/* Wolff on k boxes: the box that holds seed_site (-1: none) and the seed's local site
 * there, from the boxes' own planes (no device read). */
static int seed_box(int n, const struct cuda_sw_box *kb, uint32_t ps, int64_t seed_site,
                    uint32_t *local)
{
    for (int i = 0; i < n; i++) {
        const int64_t own = seed_site - (int64_t)kb[i].g0;
        if (own >= 0 && own < (int64_t)kb[i].np * ps) {
            *local = kb[i].p0 * ps + (uint32_t)own;
            return i;
        }
    }
    return -1;
}

int cuda_sw_boxes_join(struct cuda_box *box, int n, const struct cuda_sw_box *kb,
                       struct cuda_sw_faces *const *faces, int64_t seed_site)
{
    const char *what = "joining the clusters across the boxes' faces";
    struct cuda_sw_faces *j = faces[0];
    const uint32_t ps = j->ps;
    const size_t words = (size_t)cuda_sw_face_words(ps);
    const int field = j->sums != NULL; /* every box's alike: the sim's beta h */
    const size_t used = (size_t)cuda_sw_face_words_used(ps, field);
    if (!j->gathered || j->n != n)
        return cuda_core->fail(LATMC_EBACKEND, "CUDA Swendsen-Wang: the first of %d boxes "
                               "holds no join (a bug in the module)", n);
    /* Wolff: the box that holds the seed finds its piece and face slot on the device
     * (cuda_sw_seed_find) and sends them to the first box with its faces */
    uint32_t seed_local = 0;
    const int owner = seed_site >= 0 ? seed_box(n, kb, ps, seed_site, &seed_local) : -1;
    if (seed_site >= 0 && (owner < 0 || !j->seed || !j->target))
        return cuda_core->fail(LATMC_EBACKEND, "CUDA Wolff: no box holds the seed site %lld, "
                               "or the first box no seed record (a bug)", (long long)seed_site);
    int st = LATMC_OK;
    for (int i = 0; i < n && st == LATMC_OK; i++) {
        struct cuda_box_exec *e = &box[i].ex;
        if ((st = cuda_box_set_device(e->device)) < 0)
            break;
        cudaError_t err = cuda_sw_faces_out(e->border_stream, &kb[i], faces[i]->scratch,
                                            faces[i]->sums, faces[i]->face);
        if (err == cudaSuccess)
            err = cuda_box_copy_to(e, faces[i]->face, &box[0].ex, j->gathered + i * words,
                                   used * 4, e->border_stream);
        if (err == cudaSuccess && i == owner)
            err = cuda_sw_seed_find(e->border_stream, &kb[i], seed_local, faces[i]->face,
                                    faces[i]->sums, faces[i]->seed);
        if (err == cudaSuccess && i == owner && i > 0)
            err = cuda_box_copy_to(e, faces[i]->seed, &box[0].ex, j->seed, 16,
                                   e->border_stream);
        if (err == cudaSuccess)
            err = cudaEventRecord(faces[i]->sent, e->border_stream);
        st = cuda_check(err, what);
    }
    struct cuda_box_exec *e0 = &box[0].ex;
    if (st == LATMC_OK)
        st = cuda_box_set_device(e0->device);
    cudaError_t err = cudaSuccess;
    for (int i = 1; i < n && st == LATMC_OK && err == cudaSuccess; i++)
        err = cudaStreamWaitEvent(e0->border_stream, faces[i]->sent, 0);
    if (st == LATMC_OK && err == cudaSuccess)
        err = cuda_sw_faces_join(e0->border_stream, j->gathered, j->parent, j->least, j->jsum,
                                 n, ps, field);
    /* each box's joined names (in a field and its sums) into its face buffer's: the
     * names, the bonds between them unchanged */
    for (int i = 0; i < n && st == LATMC_OK && err == cudaSuccess; i++)
        err = cuda_box_copy_to(e0, j->gathered + i * words + 2 * (size_t)ps, &box[i].ex,
                               faces[i]->face + 2 * (size_t)ps, (used - 2 * (size_t)ps) * 4,
                               e0->border_stream);
    /* Wolff: the seed's cluster's name (and sum) to every box: the joined name of its
     * piece's face slot, or the piece's own (it reaches no face) */
    if (st == LATMC_OK && err == cudaSuccess && seed_site >= 0)
        err = cuda_sw_seed_target(e0->border_stream, j->gathered + (size_t)owner * words, ps,
                                  j->seed, field, j->target);
    for (int i = 1; i < n && seed_site >= 0 && st == LATMC_OK && err == cudaSuccess; i++) {
        if (!faces[i]->target)
            return cuda_core->fail(LATMC_EBACKEND, "CUDA Wolff: box %d holds no cluster name "
                                   "(a bug in the module)", i);
        err = cuda_box_copy_to(e0, j->target, &box[i].ex, faces[i]->target, 16,
                               e0->border_stream);
    }
    if (st == LATMC_OK && err == cudaSuccess)
        err = cudaEventRecord(j->joined, e0->border_stream);
    if (st == LATMC_OK)
        st = cuda_check(err, what);
    for (int i = 1; i < n && st == LATMC_OK; i++) {
        if ((st = cuda_box_set_device(box[i].ex.device)) == LATMC_OK)
            st = cuda_check(cudaStreamWaitEvent(box[i].ex.border_stream, j->joined, 0), what);
    }
    return st;
}

/* The words a part's record carries more with the statistics: the face slots' sizes
 * (4 ps), its pieces that reach no face counted (3 int64) and the Wolff seed's piece's
 * sites (an int64), each int64 as two words, low first. */
static size_t stats_words(uint32_t ps)
{
    return 4 * (size_t)ps + 8;
}

static void put_u64(uint32_t *w, unsigned long long v)
{
    w[0] = (uint32_t)v;
    w[1] = (uint32_t)(v >> 32);
}

static unsigned long long get_u64(const uint32_t *w)
{
    return (unsigned long long)w[1] << 32 | w[0];
}

/* OUT's statistics into ext (host, stats_words(ps) words), after cuda_sw_faces_out (its
 * scratch names each face piece's first slot): every own piece's sites at its root in
 * sizes (Potts in a field: the label step's sums, already sizes), the pieces that reach
 * no face counted (Swendsen-Wang), the face slots' sizes through the face buffer's sums
 * (the plain record already copied out; the join writes them again), the seed's piece's
 * sites (Wolff, root: its stored site, UINT32_MAX elsewhere); Ising in a field: the
 * magnetisations summed again for the flip. The caller waits. */
static cudaError_t stats_out(cudaStream_t stream, const struct cuda_sw_box *kb,
                             struct cuda_sw_faces *f, long long *sizes, int q, int field,
                             int wolff, uint32_t root, uint32_t *ext)
{
    const size_t ps = f->ps;
    memset(ext, 0, stats_words(f->ps) * 4);
    cudaError_t err = cudaSuccess;
    if (!(field && q != 0))
        err = cuda_sw_piece_sums(stream, kb, 1, sizes);
    if (err == cudaSuccess && !wolff)
        err = cudaMemsetAsync(f->stats, 0, 3 * sizeof *f->stats, stream);
    if (err == cudaSuccess && !wolff)
        err = cuda_sw_interior_stats(stream, kb, f->scratch, sizes, f->stats);
    if (err == cudaSuccess)
        err = cuda_sw_faces_sizes(stream, kb, sizes, f->face);
    if (err == cudaSuccess)
        err = cudaMemcpyAsync(ext, f->face + 5 * ps, 4 * ps * 4, cudaMemcpyDeviceToHost, stream);
    if (err == cudaSuccess && !wolff)
        err = cudaMemcpyAsync(ext + 4 * ps, f->stats, 3 * sizeof *f->stats,
                              cudaMemcpyDeviceToHost, stream);
    if (err == cudaSuccess && wolff && root != UINT32_MAX)
        err = cudaMemcpyAsync(ext + 4 * ps + 6, sizes + root, 8, cudaMemcpyDeviceToHost, stream);
    if (err == cudaSuccess && field && q == 0 && !wolff) /* sizes: the field's sums array */
        err = cuda_sw_piece_sums(stream, kb, 0, sizes);
    return err;
}

/* JOIN's statistics, after the names' join: every part's slot sizes (ext at `used` + 3 of
 * each record) over the gathered sums, joined again on the same graph (the reps and bonds
 * are the last join's), and the components' statistics into f->stats; the parts' pieces
 * that reach no face added into f->inside. Wolff: its cluster's sites, the joined size of
 * the seed's piece's face slot (owner, slot), or the piece's own where it reaches none. */
static cudaError_t stats_join(cudaStream_t stream, struct cuda_sw_faces *f, const void *host,
                              size_t bytes, size_t used, int wolff, int owner, int64_t slot)
{
    const size_t ps = f->ps, words = (size_t)cuda_sw_face_words(f->ps);
    memset(f->inside, 0, sizeof f->inside);
    cudaError_t err = cudaSuccess;
    for (int p = 0; p < f->n && err == cudaSuccess; p++) {
        const uint32_t *ext = (const uint32_t *)(const void *)((const unsigned char *)host +
                                                               (size_t)p * bytes) + used + 3;
        err = cudaMemcpyAsync(f->gathered + (size_t)p * words + 5 * ps, ext, 4 * ps * 4,
                              cudaMemcpyHostToDevice, stream);
        const unsigned long long largest = get_u64(ext + 4 * ps + 2);
        f->inside[0] += get_u64(ext + 4 * ps);
        f->inside[1] = largest > f->inside[1] ? largest : f->inside[1];
        f->inside[2] += get_u64(ext + 4 * ps + 4);
        if (wolff && p == owner && slot < 0)
            f->inside[1] = get_u64(ext + 4 * ps + 6);
    }
    if (err == cudaSuccess)
        err = cuda_sw_faces_join(stream, f->gathered, f->parent, f->least, f->jsum, f->n,
                                 f->ps, 1);
    if (err == cudaSuccess)
        err = cudaMemsetAsync(f->stats, 0, 3 * sizeof *f->stats, stream);
    if (err == cudaSuccess && !wolff)
        err = cuda_sw_join_stats(stream, f->parent, f->jsum, f->n, f->ps, f->stats);
    if (err == cudaSuccess && wolff && slot >= 0)
        err = cudaMemcpyAsync(f->stats + 1,
                              f->gathered + (size_t)owner * words + 5 * ps + 2 * (size_t)slot,
                              8, cudaMemcpyDeviceToDevice, stream);
    return err;
}

int cuda_sw_part_faces(struct cuda_box *box, const struct cuda_sw_box *kb,
                       struct cuda_sw_faces *f, int what, void *host, size_t *bytes,
                       int rank, int64_t seed_site, int field, long long *sizes, int q)
{
    const char *what_s = "joining the clusters across the parts' faces";
    const int stats = (what & LATMC_CLUSTER_FACES_STATS) != 0;
    const int op = what & ~LATMC_CLUSTER_FACES_STATS, wolff = seed_site >= 0;
    /* the sums' words only in a field: 20 ps bytes a record without, 36 ps with; the
     * statistics 16 ps + 32 more */
    const size_t words = (size_t)cuda_sw_face_words(f->ps);
    const size_t used = (size_t)cuda_sw_face_words_used(f->ps, field);
    const size_t record = (used + 3 + (stats ? stats_words(f->ps) : 0)) * 4;
    cudaStream_t stream = box->ex.border_stream; /* the steps' (launch_joined) */
    if (op == LATMC_CLUSTER_FACES_SIZE) {
        *bytes = record;
        return LATMC_OK;
    }
    /* the label step's sums (sw_label_sums) follow the same beta h */
    if (*bytes < record || !f->gathered || !f->target || !f->stats || rank < 0 ||
        rank >= f->n || (stats && op == LATMC_CLUSTER_FACES_OUT && !sizes) ||
        (op == LATMC_CLUSTER_FACES_OUT && field != (f->sums != NULL)))
        return cuda_core->fail(LATMC_EBACKEND, "CUDA Swendsen-Wang: a part's faces of %zu "
                               "bytes (at least %zu), part %d of %d, field %d, sums %s (a bug)",
                               *bytes, record, rank, f->n, field, f->sums ? "made" : "none");
    if (op == LATMC_CLUSTER_FACES_OUT) {
        uint32_t *rec = host;
        long long sum = 0;
        uint32_t root = UINT32_MAX;
        f->counted = 0; /* until this sweep's join with the statistics */
        int st = seed_piece(kb, f->ps, seed_site, f->sums, stream, &rec[used], &sum, &root);
        if (st < 0)
            return st;
        put_u64(rec + used + 1, (unsigned long long)sum);
        cudaError_t err = cuda_sw_faces_out(stream, kb, f->scratch, f->sums, f->face);
        if (err == cudaSuccess)
            err = cudaMemcpyAsync(rec, f->face, used * 4, cudaMemcpyDeviceToHost, stream);
        if (err == cudaSuccess && stats)
            err = stats_out(stream, kb, f, sizes, q, field, wolff, root, rec + used + 3);
        if (err == cudaSuccess)
            err = cudaStreamSynchronize(stream);
        return cuda_check(err, what_s);
    }
    /* Wolff: the part that holds the seed, and a face slot of the seed's piece (before the
     * join, a slot's name is its piece's root's) */
    int owner = -1;
    uint32_t own_target[4] = { UINT32_MAX, 0, 0, 0 }; /* the seed's piece's name, sum */
    int64_t slot = -1;
    for (int p = 0; p < f->n && wolff; p++) {
        const uint32_t *rec = (const uint32_t *)(const void *)((const unsigned char *)host +
                                                               (size_t)p * *bytes);
        if (rec[used] == UINT32_MAX)
            continue;
        owner = p;
        own_target[0] = rec[used];
        own_target[2] = rec[used + 1];
        own_target[3] = rec[used + 2];
        slot = face_slot(rec + 2 * (size_t)f->ps, f->ps, own_target[0]);
        break;
    }
    if (wolff && owner < 0)
        return cuda_core->fail(LATMC_EBACKEND, "CUDA Wolff: no part holds the seed site %lld "
                               "(a bug)", (long long)seed_site);
    /* the records to the device (pageable: copied before the call returns), side by side
     * as cuda_sw_faces_join reads them */
    cudaError_t err = cudaSuccess;
    for (int p = 0; p < f->n && err == cudaSuccess; p++)
        err = cudaMemcpyAsync(f->gathered + (size_t)p * words,
                              (const unsigned char *)host + (size_t)p * *bytes, used * 4,
                              cudaMemcpyHostToDevice, stream);
    if (err == cudaSuccess)
        err = cuda_sw_faces_join(stream, f->gathered, f->parent, f->least, f->jsum, f->n,
                                 f->ps, field);
    if (err == cudaSuccess) /* this part's joined names (and sums) into its face buffer's */
        err = cudaMemcpyAsync(f->face + 2 * (size_t)f->ps,
                              f->gathered + (size_t)rank * words + 2 * (size_t)f->ps,
                              (used - 2 * (size_t)f->ps) * 4, cudaMemcpyDeviceToDevice, stream);
    const uint32_t *at = f->gathered + (size_t)(owner >= 0 ? owner : 0) * words;
    if (err == cudaSuccess && owner >= 0 && slot >= 0) /* the seed's cluster's joined name */
        err = cudaMemcpyAsync(f->target, at + 2 * (size_t)f->ps + (size_t)slot, 4,
                              cudaMemcpyDeviceToDevice, stream);
    if (err == cudaSuccess && owner >= 0 && slot >= 0 && field) /* and its joined sum */
        err = cudaMemcpyAsync(f->target + 2, at + 5 * (size_t)f->ps + 2 * (size_t)slot, 8,
                              cudaMemcpyDeviceToDevice, stream);
    else if (err == cudaSuccess && wolff && slot < 0) /* a piece inside its part */
        err = cudaMemcpyAsync(f->target, own_target, sizeof own_target, cudaMemcpyHostToDevice,
                              stream);
    /* the statistics' join after the names' (the stream orders it after their copies) */
    if (err == cudaSuccess && stats)
        err = stats_join(stream, f, host, *bytes, used, wolff, owner, slot);
    if (err == cudaSuccess && stats)
        f->counted = 1;
    return cuda_check(err, what_s);
}

int cuda_sw_part_stats(struct cuda_box *box, struct cuda_sw_faces *f, int wolff,
                       unsigned long long out[3])
{
    if (!f || !f->stats || !f->counted)
        return cuda_core->fail(LATMC_ESTATE, "no cluster sweep counted the parts' clusters "
                               "(the cluster observables describe the last sweep of a call "
                               "that succeeded)");
    unsigned long long dev[3] = { 0, 0, 0 };
    cudaError_t err = cudaMemcpyAsync(dev, f->stats, sizeof dev, cudaMemcpyDeviceToHost,
                                      box->ex.border_stream);
    if (err == cudaSuccess)
        err = cudaStreamSynchronize(box->ex.border_stream);
    const int st = cuda_check(err, "reading the parts' cluster statistics");
    if (st < 0)
        return st;
    const unsigned long long largest = dev[1] > f->inside[1] ? dev[1] : f->inside[1];
    out[0] = wolff ? 1 : f->inside[0] + dev[0];
    out[1] = largest;
    out[2] = wolff ? largest : f->inside[2] + dev[2];
    return LATMC_OK;
}
