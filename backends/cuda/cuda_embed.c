/*
 * ops.embed_step of the CUDA module (lib/backend.h; the kernels: clusters/cuda_embed.h):
 * the embedded Swendsen-Wang or Wolff step of a Heisenberg or phi^4 sim held as one box
 * alone on one GPU (Heisenberg's also in a field, phi^4's with any Lambda; k boxes of one
 * process, phi^4 with Lambda = inf: cuda_embed_boxes.c), run in the box's own
 * configuration (Heisenberg: the leaf's SoA buffers and couplings, heisenberg/; phi^4:
 * its field, phi4/) after the sweep's local passes, on the same stream: no copy of the
 * configuration. Its state (a_i in double, the bonds one byte a site, the labels a uint32
 * a site: 13 bytes a site; Wolff a word for its cluster; Swendsen-Wang in a field the
 * clusters' sums, 8 bytes a site more, at the first ask in a field) is made at the first
 * LATMC_EMBED_ASK; where the
 * GPU has no room for it the ask declines (no message: none recorded, the allocation's
 * error cleared) and the core steps on its host copy, so no sweep fails for it. The
 * statistics are the core's, from replica 0's a and names (Wolff: bonds) copied when
 * first asked for.
 *
 * What differs by model is the leaf's `embed` member (exec/cuda_leaf.h, struct
 * cuda_embed_leaf: the replica count and the launch of a replica's step); a leaf without
 * one has no embedded clusters here, and this file names no model.
 */
#include <stdbool.h>
#include <stdlib.h>

#include "backend.h"
#include "cluster_bonds.h"
#include "cluster_embed.h"
#include "cuda_backend.h"
#include "cuda_box_exec.h"
#include "cuda_check.h"
#include "cuda_embed.h"
#include "cuda_embed_boxes.h"
#include "cuda_exec.h"
#include "cuda_leaf.h"
#include "rng_streams.h"

struct cuda_embed {
    int64_t n;
    double *a;
    uint8_t *bonds;
    uint32_t *labels;
    struct cuda_wolff_counts *wolff; /* Wolff: its cluster's root and decision; else NULL */
    void *field_work; /* Swendsen-Wang in a field: the clusters' sums (at the first such ask) */
    size_t field_bytes; /* its size */
};

void cuda_embed_free(struct cuda_embed *e)
{
    if (!e)
        return;
    cudaFree(e->a);
    cudaFree(e->bonds);
    cudaFree(e->labels);
    cudaFree(e->wolff);
    cudaFree(e->field_work);
    free(e);
}

/* The box a step runs on: one box alone (no halo, no part) of a sim whose leaf has
 * embedded clusters (its `embed` member, into *embed: Heisenberg, phi^4). */
static struct cuda_box *embed_box(const latmc_sim *sim, const struct cuda_embed_leaf **embed)
{
    const struct cuda_sim *cs = cuda_sim_of(sim);
    const struct cuda_leaf *leaf = NULL;
    struct cuda_box *b = cs && cs->exec ? cuda_exec_lone_box(cs->exec, &leaf) : NULL;
    *embed = b ? leaf->embed : NULL;
    return b && leaf->embed ? b : NULL;
}

/*
 * The step's arrays, made at the first ask: false where the host or the GPU has no room for
 * them, with nothing kept and nothing recorded (the ask declines without a message, as
 * lib/backend.h has it, and the sweep goes on through the host copy).
 */
static bool embed_make(struct cuda_sim *cs, int64_t nsites, bool wolff)
{
    struct cuda_embed *e = calloc(1, sizeof *e);
    if (!e)
        return false;
    e->n = nsites;
    const size_t n = (size_t)nsites;
    if (cudaMalloc((void **)&e->a, n * sizeof *e->a) != cudaSuccess ||
        cudaMalloc((void **)&e->bonds, n) != cudaSuccess ||
        cudaMalloc((void **)&e->labels, n * sizeof *e->labels) != cudaSuccess ||
        (wolff && cudaMalloc((void **)&e->wolff, sizeof *e->wolff) != cudaSuccess)) {
        (void)cudaGetLastError(); /* an allocation's failure is not sticky: cleared */
        cuda_embed_free(e);
        return false;
    }
    cs->embed = e;
    return true;
}

/* The labelling's view of the whole lattice (cuda_sw.h: a box alone, its own wrap). */
static struct cuda_sw_box sw_view(const latmc_sim *sim, const struct cuda_box *b,
                                  const struct cuda_embed *e)
{
    struct cuda_sw_box v = { 0 };
    v.g = b->local;
    v.spins = NULL;
    v.eps = NULL;
    v.bonds = e->bonds;
    v.labels = e->labels;
    v.p0 = 0;
    v.np = (uint32_t)sim->desc.extent[sim->desc.ndim - 1];
    v.g0 = 0;
    v.wrap = 1;
    return v;
}

int cuda_embed_step(latmc_sim *sim, int what, struct latmc_embed_job *job)
{
    struct cuda_sim *cs = cuda_sim_of(sim);
    const struct cuda_embed_leaf *el = NULL;
    struct cuda_box *b = embed_box(sim, &el);
    const bool wolff = sim->desc.algorithm == LATMC_ALGO_WOLFF;
    if (!b) /* k boxes of one process: cuda_embed_boxes.c */
        return cuda_embed_boxes_step(sim, what, job);
    if (cs->embed_on_host || (sim->desc.algorithm != LATMC_ALGO_SWENDSEN_WANG && !wolff) ||
        sim->nsites > (int64_t)UINT32_MAX || sim->desc.replicas > 2)
        return LATMC_EUNSUPPORTED;
    /* Swendsen-Wang in a field needs the clusters' sums (Wolff's is a word of its own) */
    const bool field_sums = !wolff && (job->field[0] != 0.0 || job->field[1] != 0.0);
    if (what == LATMC_EMBED_ASK) {
        /* the arrays made at the first ask (a field's sums at the first in a field): a
         * GPU without the room for them leaves the step to the host copy rather than fail
         * a sweep (asked again at the next: a failed allocation costs little beside a host
         * copy's step, and memory freed meanwhile brings the device's step back); a
         * decline records no message (lib/backend.h), so the device is set quietly */
        if (cudaSetDevice(b->ex.device) != cudaSuccess) {
            (void)cudaGetLastError();
            return LATMC_EUNSUPPORTED;
        }
        if (!cs->embed)
            (void)embed_make(cs, sim->nsites, wolff);
        if (cs->embed && field_sums && !cs->embed->field_work) {
            const size_t bytes = cuda_embed_field_bytes((uint32_t)sim->nsites);
            if (cudaMalloc(&cs->embed->field_work, bytes) != cudaSuccess) {
                (void)cudaGetLastError(); /* not sticky: cleared */
                cs->embed->field_work = NULL;
                cuda_embed_note_no_room(sim, "the clusters' sums in a field");
                return LATMC_EUNSUPPORTED;
            }
            cs->embed->field_bytes = bytes;
        }
        if (!cs->embed)
            cuda_embed_note_no_room(sim, "the step's arrays");
        return cs->embed ? LATMC_OK : LATMC_EUNSUPPORTED;
    }
    int st = cuda_box_set_device(b->ex.device);
    if (st < 0)
        return st;
    const struct cuda_embed *e = cs->embed;
    if (!e) /* the core asks before every step: a guard, not a path */
        return cuda_core->fail(LATMC_EBACKEND, "CUDA embedded clusters: a step or a read "
                               "before the first ask (a bug in the core)");
    const struct cuda_sw_box v = sw_view(sim, b, e);
    const size_t n = (size_t)sim->nsites;
    cudaStream_t stream = b->ex.stream;
    if (what == LATMC_EMBED_NAMES) {
        st = cuda_check(cudaMemcpyAsync(job->a, e->a, n * sizeof *e->a, cudaMemcpyDeviceToHost,
                                        stream), "reading the embedded clusters' a_i");
        /* Swendsen-Wang: the labels; Wolff: the bonds, over which the core regrows the
         * cluster (the labelling's tile marks in bit 7 ignored there; none asked for
         * phi^4 with a finite Lambda, whose further pairs the bytes do not hold: the core
         * draws them again) */
        if (st == LATMC_OK && (!wolff || job->bonds))
            st = wolff ? cuda_check(cudaMemcpyAsync(job->bonds, e->bonds, n,
                                                    cudaMemcpyDeviceToHost, stream),
                                    "reading the embedded clusters' bonds")
                       : cuda_check(cudaMemcpyAsync(job->name, e->labels,
                                                    n * sizeof *e->labels,
                                                    cudaMemcpyDeviceToHost, stream),
                                    "reading the embedded clusters' labels");
        if (st == LATMC_OK)
            st = cuda_check(cudaStreamSynchronize(stream), "reading the embedded clusters");
        /* labels[labels[i]] names i's cluster; a name is its own label, so in place */
        for (size_t i = 0; st == LATMC_OK && !wolff && i < n; i++)
            job->name[i] = job->name[job->name[i]];
        return st;
    }
    /* the last replica first: replica 0's a, bonds and labels stay for the statistics */
    const int reps = el->replicas(sim);
    for (int rep = reps - 1; rep >= 0 && st == LATMC_OK; rep--) {
        struct cuda_embed_draws d = { 0 };
        d.seed = sim->desc.seed;
        d.bonds = latmc_rng_cluster_name(job->sweep, (uint32_t)rep, LATMC_CLUSTER_PHASE_BONDS,
                                         LATMC_EMBED_SUB);
        d.decide = latmc_rng_cluster_name(job->sweep, (uint32_t)rep,
                                          LATMC_CLUSTER_PHASE_DECIDE, LATMC_EMBED_SUB);
        d.field = job->field[rep];
        d.field_work = e->field_work;
        d.field_work_bytes = e->field_bytes;
        if (wolff) {
            d.wolff = e->wolff;
            d.seed_site = (uint32_t)latmc_cluster_seed_of(
                d.seed,
                latmc_rng_cluster_name(job->sweep, (uint32_t)rep, LATMC_CLUSTER_PHASE_SEED,
                                       LATMC_EMBED_SUB),
                sim->nsites);
        }
        /* the model's launch (phi^4 with a finite Lambda adds job's further pairs) */
        st = cuda_check(el->step(sim, stream, &v, b, rep, job, e->a, &d),
                        "launching the embedded cluster step");
    }
    return st;
}
