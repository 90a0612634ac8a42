/*
 * Internal to the CUDA module: the storage/launch layer between the executor
 * (cuda_exec.h) and the model leaves (potts/, ...): a box on a device, a range of its
 * planes, and the table by which a model plugs into the executor (doc/architecture.md,
 * "One CUDA executor").
 *
 * Both sides include this header and nothing of each other: the executor calls a model
 * only through struct cuda_leaf, a leaf calls only its kernels' launchers and reads the
 * boxes and ranges it is handed. No leaf calls the executor or the module's top.
 */
#ifndef LATMC_CUDA_LEAF_H
#define LATMC_CUDA_LEAF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "cuda_box_exec.h" /* struct cuda_box_exec: a box's device, streams, events, counter */
#include "internal.h"
#include "lattice_numbering.h"
#include "step.h"

struct latmc_cluster_stats; /* lib/cluster_sweep.h */
struct latmc_embed_job;     /* lib/backend.h */
struct latmc_step_call;     /* lib/box.h */
struct cuda_sw_box;         /* clusters/cuda_sw.h */
struct cuda_embed_draws;    /* clusters/cuda_embed.h, and */
struct cuda_embed_flips;
struct cuda_embed_leaf;     /* below */

/*
 * One box of the plan (lib/box.h) on one device: its own planes of the lattice's last
 * axis (ex.origin, ex.planes) and `halo` planes stored on each side, which the executor
 * keeps current through its halo transports (cuda_halo.h). halo = 0: the box is the
 * whole lattice and its halo is its own wrap (one box on one GPU): the leaf's kernels
 * wrap periodically and nothing is exchanged.
 */
struct cuda_box {
    struct cuda_box_exec ex;      /* first member: the executor's per-box state */
    int64_t halo;
    struct latmc_lattice local;    /* the stored lattice: ex.planes + 2 halo planes along
                                      the last axis, the lattice's extents along the others */
    void *data;                    /* the configuration: the leaf's `arrays` arrays of
                                      the local planes (plane_bytes a plane), array a at
                                      data + a * array_bytes */
    size_t array_bytes;
    void *tables;                  /* a device copy of sim->model_data */
    void *sums;                    /* the model's sums struct (device) */
    void *own;                     /* the leaf's own state of the box (box_create), or NULL */
    int64_t *projections;          /* the Fourier modes' projections (device, made on
                                      first use by any path but cuda_exec_measure_kmin's),
                                      or NULL */
    int64_t *weights;              /* the weights of the modes' phase tables (device,
                                      latmc_modes_weight of phases_of's entries), then room
                                      for the projections, the sums and the modes' limbs
                                      (cuda_exec_measure_kmin) */
    const double *phases_of;
    bool modes_weighed;            /* the last measure_kmin's limbs made by the leaf's
                                      measure_modes (no projections to sum) */
};

/*
 * Planes [p0, p0 + planes) of a box's stored lattice (local plane 0 is the lower halo),
 * which are the lattice's planes global_p0 .. of L along the last axis. whole: the range
 * is the whole lattice of a box whose halo is its own wrap (the kernels wrap).
 */
struct cuda_box_range {
    const struct cuda_box *box;
    int64_t p0, planes;
    int64_t global_p0, L;
    bool whole;
};

/*
 * What a model provides to the executor. Every function enqueues on the stream it is
 * given (the device of the box made current by the executor) and returns the launch
 * status; the executor orders, waits and reports. Members marked optional may be NULL.
 */
struct cuda_leaf {
    int model;
    /* Halo planes a box stores on each side (the planes its updates read beyond its
     * ends), and the thickness of a border range: the planes at each end of a box that
     * must be updated before the halos are sent (Potts: the colours c, a range of whole
     * multiples of c from a multiple of c keeps the lattice's colouring). */
    int64_t (*halo)(const latmc_sim *sim);
    int64_t (*border_planes)(const latmc_sim *sim);
    /* Optional (NULL: halo): the halo planes next to a box's own ones that its updates and
     * reductions read, the only ones sent after a step (at most halo and border_planes;
     * Ising's packed layout stores 2 for the colouring's parity and reads 1). */
    int64_t (*sent_planes)(const latmc_sim *sim);
    /* Bytes of one plane of one array in the box's storage (a halo plane travels as one
     * run per array). */
    size_t (*plane_bytes)(const latmc_sim *sim);
    /* Arrays the configuration is stored in (0: one; Ising's packed layout: one per
     * colour), each of every local plane. */
    int arrays;
    /* Optional (NULL: every array): the one array a step writes, the only one whose
     * border planes are sent after it (Ising's packed layout: the step's colour). */
    int (*written_array)(const struct latmc_step *step);
    /* The byte every storage byte holds in the cold start. */
    int cold_byte;
    /* Optional: the executor wrote the box's whole storage itself (the cold start), so
     * that a leaf keeping other forms of the configuration knows the storage holds it. */
    void (*stored)(const latmc_sim *sim, struct cuda_box *b);
    /* The hot start's values of the lattice's planes [global_p0, global_p0 + planes) into
     * the box's local planes from local_p0 on. */
    cudaError_t (*hot_planes)(const latmc_sim *sim, const struct cuda_box *b,
                              cudaStream_t stream, int64_t local_p0, int64_t global_p0,
                              int64_t planes);
    /* Optional (NULL: the storage is the API's layout, copied as it is): the API's bytes of
     * `planes` planes of the lattice at `host` (pageable host memory) into the box's local
     * planes from local_p0 on, or those local planes into `host`. Enqueued on `stream`;
     * the caller waits before it touches `host` again. With several replicas `host` holds
     * them one after another, each `planes` planes (get_planes' layout, lib/backend.h). */
    cudaError_t (*put_planes)(const latmc_sim *sim, const struct cuda_box *b,
                              cudaStream_t stream, int64_t local_p0, const void *host,
                              int64_t planes);
    cudaError_t (*get_planes)(const latmc_sim *sim, const struct cuda_box *b,
                              cudaStream_t stream, int64_t local_p0, void *host,
                              int64_t planes);
    /* Optional: the leaf's own state of a box (b->own: couplings, staging, thresholds),
     * allocated on its device (current) after its storage; box_destroy frees it, also
     * after a failed box_create. A library status (cuda_core->fail). */
    int (*box_create)(const latmc_sim *sim, struct cuda_box *b);
    void (*box_destroy)(struct cuda_box *b);
    /* Optional: the core's tables changed (b->tables being refreshed): rebuild the box's
     * host-side forms of them. */
    void (*params_changed)(const latmc_sim *sim, struct cuda_box *b);
    /* Optional: whether the box's kernels can run the sim's steps at its parameters (a
     * library status with the reason), asked before each list of steps. */
    int (*check_steps)(const latmc_sim *sim, const struct cuda_box *b);
    /* Optional (NULL: the model has no couplings on the device): the couplings of
     * `planes` planes of the lattice from plane `first` on (mod L: the whole lattice, or
     * a part's local planes), drawn on the host into *host (malloc'ed by the leaf, freed
     * by the executor, which keeps them for the reads; *host NULL: the sim has none).
     * couplings_to_float: host planes [host_plane, + planes) in the API's floats;
     * couplings_from_float: host planes from host_plane on from the API's floats of the
     * whole lattice (`whole`) at its planes from global_plane on (values checked by the
     * core); couplings_to_box: a box's local planes from the host's planes, which start at
     * the lattice's plane host_first (enqueued on `stream`, waited for by the caller
     * before `host` changes). */
    int (*draw_couplings)(const latmc_sim *sim, int64_t first, int64_t planes, void **host);
    void (*couplings_to_float)(const latmc_sim *sim, const void *host, int64_t host_plane,
                               float *buf, int64_t planes);
    void (*couplings_from_float)(const latmc_sim *sim, void *host, int64_t host_plane,
                                 const float *whole, int64_t global_plane, int64_t planes);
    cudaError_t (*couplings_to_box)(const latmc_sim *sim, const struct cuda_box *b,
                                    cudaStream_t stream, const void *host,
                                    int64_t host_first, int64_t host_planes);
    /* Optional (NULL: the couplings come from the host, draw_couplings): whether the
     * sim's couplings are drawn on the device (draws_couplings), and the box's local
     * planes of them drawn there by the CPU's rule (cuda_coupling_draws.h; enqueued on
     * `stream`). Then the executor draws no host copy at creation: it draws one with
     * draw_couplings (the same values) only when a read or set_couplings needs it, and
     * set_couplings moves them with couplings_to_box from then on. */
    bool (*draws_couplings)(const latmc_sim *sim);
    cudaError_t (*draw_couplings_on_box)(const latmc_sim *sim, const struct cuda_box *b,
                                         cudaStream_t stream);
    /* One step of sweep `sweep` on range r of a box; adds the accepted updates to
     * *changed (a device counter). */
    cudaError_t (*update)(const latmc_sim *sim, const struct cuda_box_range *r,
                          uint64_t sweep, const struct latmc_step *step, cudaStream_t stream,
                          unsigned long long *changed);
    /* The sums of the box's own planes into the device struct `sums` (sums_size bytes,
     * cleared by the executor). Integer sums (Ising, Potts), added over the boxes in any
     * order; a model of floating-point sums adds per plane (measure_planes below) and
     * may leave this NULL (then a box alone measures per plane too). */
    cudaError_t (*measure)(const latmc_sim *sim, const struct cuda_box_range *own,
                           cudaStream_t stream, void *sums);
    /* Optional (NULL: latmc_sim_device_view refused): the dtype of a device view of a
     * one-box configuration stored as one site_bytes value per site. */
    int view_dtype;
    /* Optional (NULL: the storage is that array): a device array of the box alone (halo
     * 0) in the API's layout (view_dtype), made current on `stream` (Ising's packed
     * layout: its bytes, unpacked). */
    cudaError_t (*view)(const latmc_sim *sim, struct cuda_box *b, cudaStream_t stream,
                        void **data);
    /* Optional: updates attempted in a sweep of `sites` sites (NULL: one per site). */
    uint64_t (*attempted)(const latmc_sim *sim, int64_t sites);
    /* Optional (NULL: the executor refuses the Fourier modes at k_min): the integer
     * projections of the modes (lib/modes.h; mode_projections.h) of range r's planes added
     * into the device array proj (latmc_modes_projection_entries int64, cleared by the
     * executor). Integers, added over ranges and boxes in any order. */
    cudaError_t (*projections)(const latmc_sim *sim, const struct cuda_box_range *r,
                               cudaStream_t stream, int64_t *proj);
    /* ---- appended for the Heisenberg leaf (heisenberg/): a configuration of floats in
     * two buffers, floating-point sums ---- */
    /* Optional (NULL: every storage byte cold_byte): the cold start of the box's whole
     * storage, enqueued on `stream`. */
    cudaError_t (*cold)(const latmc_sim *sim, const struct cuda_box *b, cudaStream_t stream);
    /* Optional (NULL: written_array): the arrays [*first, *first + count) that a step wrote
     * on box b, its return value the count (0: nothing to send). Asked after the step's
     * border ranges are enqueued (Heisenberg: the buffer its pass wrote; none after the
     * colour-1 step, which its pass did already). */
    int (*written_arrays)(const struct cuda_box *b, const struct latmc_step *step, int *first);
    /* Optional (0: one): values per site in a device view, each a component array of the
     * view's sites after the other, the replicas one after another (Heisenberg: 3). */
    int view_components;

    /* ---- appended for phi^4 (issue 29) ---- */
    /* Optional (NULL: the model's schedule): the length of the leaf's own chain of steps
     * per sweep (0: the model's schedule) for the sim whose first box is `first`
     * (ops.own_schedule); its steps come as latmc_step_own(index). phi^4's chunk
     * schedule: one step per parity of the chunk layers along the last axis. */
    int (*own_steps)(const latmc_sim *sim, const struct cuda_box *first);
    /* Optional (NULL: the plan's cut): the leaf's own cut of the last axis into n > 1
     * boxes of one process: box i's first plane origin[i] and planes[i], in plane order
     * (phi^4's chunk schedule: whole chunk layers); a library status with the reason
     * where no cut fits. */
    int (*cut)(const latmc_sim *sim, int n, int64_t *origin, int64_t *planes);
    /* Optional (NULL: measure, whose integer sums add up in any order): floating-point
     * sums, whose total depends on the order of the additions. The sums of each of
     * range r's planes (one model sums struct of doubles each) into a device array of the
     * leaf's own (*plane_sums); the executor adds them in plane order with the model's
     * add_sums from zero, the same additions for any cut (phi^4, Heisenberg). A box alone
     * (halo 0) measures through measure where the leaf has it (phi^4: adding its planes in
     * that order itself), else through this member too (Heisenberg). */
    cudaError_t (*measure_planes)(const latmc_sim *sim, const struct cuda_box_range *r,
                                  cudaStream_t stream, double **plane_sums);

    /* ---- appended for the k_min count in the measurement (issue 33) ---- */
    /* Optional (NULL: measure, then projections): measure's sums and projections' counts
     * of the range in one read of the configuration, each exactly what those give (phi^4:
     * a box alone, the only range its measure takes). A leaf that also has measure_planes
     * is asked for it only where its box measures whole (cuda_exec_has_kmin). */
    cudaError_t (*measure_projections)(const latmc_sim *sim, const struct cuda_box_range *own,
                                       cudaStream_t stream, void *sums, int64_t *proj);

    /* ---- appended for the bit-sliced Ising decisions (issue 35) ---- */
    /* Optional (NULL: none): whether update runs steps of kind LATMC_STEP_COLOUR_BITSLICED
     * (lib/step.h) for this sim; the executor refuses them elsewhere. */
    bool (*bitsliced)(const latmc_sim *sim);

    /* ---- appended so that the executor names no model (issue 29) ---- */
    /* Optional (NULL: one): the components of projections' counts per plane of an axis
     * (latmc_modes_components: Potts q, one per state; Ising one), which size the
     * projection array and the limbs of the modes' exact sums. */
    int (*projection_components)(const latmc_sim *sim);

    /* ---- appended for Wolff on CUDA (issue 30) ---- */
    /* Optional (NULL: `attempted`, the same count every sweep): the updates attempted on
     * box b since the previous call, counted on the device (Wolff: each sweep's cluster's
     * sites), added to *attempted. Asked after the last step of a latmc_sim_sweep call,
     * once the boxes' streams are idle; `attempted` then counts what it does not. */
    int (*read_attempted)(const latmc_sim *sim, struct cuda_box *b, uint64_t *attempted);
    /* Optional (NULL: the cluster observables answer LATMC_EUNSUPPORTED): what the last
     * cluster sweep built on the sim's n boxes of one process, or on a part's box, of
     * the whole lattice (ops.cluster_stats, lib/backend.h), from the labels it left (a
     * part: counted at the join of the call's last sweep, part_faces); a library status
     * (LATMC_ESTATE: no cluster sweep yet). The boxes' streams are idle. */
    int (*cluster_stats)(const latmc_sim *sim, struct cuda_box *box, int n,
                         struct latmc_cluster_stats *out);
    /* ---- appended for Swendsen-Wang on several boxes (issue 30) ---- */
    /* Optional (NULL: the border/interior split of cuda_exec.c): the leaf's steps read and
     * write whole boxes (cluster labels). On k > 1 boxes each step then runs on each box's
     * own planes as one range on its border stream, and join(sim, box, n, step), once
     * every box's update is enqueued, enqueues the work that spans the boxes (the labels
     * joined across the faces), leaving each border stream behind it (a library status);
     * then each box records its events and sends the halos of the arrays the step wrote,
     * as after any step. */
    int (*join)(const latmc_sim *sim, struct cuda_box *box, int n,
                const struct latmc_step *step);
    /* ---- appended for the bit-sliced decisions on several boxes (issue 35) ---- */
    /* Optional (NULL: the storage holds the configuration at every step): a second form
     * of it that steps of some kind run on (Ising's bit-sliced steps: 1 bit per spin), for
     * boxes with halos. form_differs: whether box b must switch forms before steps like
     * `step`; if any box must, the executor waits for everything in flight and calls
     * switch_form for every box (the configuration, halos included, into the form of such
     * steps, enqueued on `stream`) and waits again, so no box's conversion meets another
     * box's halo send. step_arrays: where the arrays a step like `step` writes live on box
     * b (array a at base + a * array_bytes, local plane p at + p * plane_bytes), which the
     * halo sends then read and write; false: the storage. */
    bool (*form_differs)(const latmc_sim *sim, const struct cuda_box *b,
                         const struct latmc_step *step);
    cudaError_t (*switch_form)(const latmc_sim *sim, struct cuda_box *b,
                               const struct latmc_step *step, cudaStream_t stream);
    bool (*step_arrays)(const latmc_sim *sim, const struct cuda_box *b,
                        const struct latmc_step *step, char **base, size_t *array_bytes,
                        size_t *plane_bytes);
    /* ---- appended for the halos of GPU ranks (issue 29) ---- */
    /* Optional (NULL: a part's halo planes travel in the API's layout through put_planes /
     * get_planes or the storage's array 0): the arrays [*first, *first + count) of box b
     * that hold the configuration now, its return value the count, and in *local_p0 the
     * local plane that a move of `planes` planes from local plane *local_p0 of the part's
     * halo exchange reads (get) or writes. The parts all run this leaf, so those planes
     * travel between them as the storage's bytes, a run from each array
     * (exec/cuda_part_wire.h): one 2D copy, no conversion (Heisenberg: the buffer holding
     * the configuration, and the planes its exchange inside a pass moves). */
    int (*wire_arrays)(const struct cuda_box *b, int64_t *local_p0, int64_t planes, bool get,
                       int *first);
    /* Optional (NULL: none): whether the step has nothing left to do on the device, an
     * earlier step of the sweep having done its work (Heisenberg: the colour-1 step, whose
     * pass ran at colour 0). The executor then hands it to update on each box's own
     * planes (which launches nothing) and neither orders nor sends anything, so the next
     * step waits for the earlier one's events alone (the neighbours' copies, not their
     * interiors). */
    bool (*empty_step)(const latmc_sim *sim, const struct latmc_step *step);
    /* ---- appended for Swendsen-Wang on the parts of a lattice shared by processes
     * (issue 30) ---- */
    /* Optional (NULL: ops.cluster_faces refused): a part's box (join is then not asked to
     * span anything: the core joins the parts, lib/cluster_part_steps.c). what and the
     * record as ops.cluster_faces (lib/backend.h): LATMC_CLUSTER_FACES_SIZE, the record's
     * bytes; _OUT, after the label step, the box's faces into host (waited for); _JOIN,
     * every part's record at host (*bytes apart), joined, the box's joined names kept for
     * its flip (enqueued on the border stream, which the flip follows); with
     * LATMC_CLUSTER_FACES_STATS also the cluster statistics (cluster_stats). A library
     * status. */
    int (*part_faces)(const latmc_sim *sim, struct cuda_box *b, int what, void *host,
                      size_t *bytes);
    /* ---- appended so that the embedded clusters name no model (issue 29) ---- */
    /* Optional (NULL: ops.embed_step declines for the leaf's sims, and the core steps the
     * clusters on its host copy): the model's part of the embedded Swendsen-Wang and Wolff
     * step (struct cuda_embed_leaf below; Heisenberg, phi^4). */
    const struct cuda_embed_leaf *embed;
    /* ---- appended for the halves of a box alone (issue 35) ---- */
    /* Optional (NULL: never): whether update takes ranges of a box alone (whole false, its
     * own wrap) for steps like `step`, each exactly what the whole step writes there. The
     * executor then runs a large box alone's step as its two halves' interiors on two
     * streams beside the planes at their ends (cuda_exec.c, launch_halves), so one half's
     * next step overlaps the other's last blocks, after switch_form (where the leaf has
     * one) on the main stream: the box in the form of such steps before the streams part. */
    bool (*halves)(const latmc_sim *sim, const struct cuda_box *b,
                   const struct latmc_step *step);
    /* ---- appended for chains of steps (issue 31: small lattices) ---- */
    /* Optional (NULL: a launch a step): of the n calls `calls` (consecutive steps of one
     * latmc_sim_sweep call, each of the sim's boxes and whole) on box b, a box alone (halo
     * 0) not in halves, how many from the first the leaf runs as one chain (0 or 1: the
     * first step alone, by update), making what the leaf keeps for chains in the box's own
     * state (on the box's main stream) the first time; chain then enqueues those steps on
     * `stream`, adding the accepted updates to *changed, exactly as that many updates of
     * the whole box would (Ising's packed layout: ising_packed.h, cuda_ising_packed_chain). */
    int (*chain_steps)(const latmc_sim *sim, const struct cuda_box *b,
                       const struct latmc_step_call *calls, int n);
    cudaError_t (*chain)(const latmc_sim *sim, struct cuda_box *b,
                         const struct latmc_step_call *calls, int n, cudaStream_t stream,
                         unsigned long long *changed);
    /* ---- appended for the exact modes (issue 33) ---- */
    /* Optional (NULL: measure_projections, then the executor's cuda_projections_exact):
     * measure_projections' sums and, instead of the projections, the exact sums of their
     * modes added into limbs (device) from the weights (device; both in
     * cuda_projections_exact's layouts of one component, the limbs in its
     * CUDA_MODES_LIMB_SLOTS slots, mode_projections.h, which the executor allocates, clears
     * and adds up for a leaf that has this entry), in one read of the range;
     * cudaErrorNotSupported where the box's form or the lattice's shape has no such pass
     * (nothing enqueued but what makes the box's form current: the executor takes the
     * projections then). */
    cudaError_t (*measure_modes)(const latmc_sim *sim, const struct cuda_box_range *own,
                                 cudaStream_t stream, void *sums, const int64_t *weights,
                                 int64_t *limbs);
    /* ---- appended for Heisenberg's fixed-point modes (issue 33) ---- */
    /* Optional (NULL: measure_planes, then projections): measure_planes' sums per plane
     * and projections' counts (added into proj) of range r in one read of the
     * configuration, each exactly what those give; cudaErrorNotSupported where the leaf's
     * kernel does not take the lattice's shape (nothing enqueued: the executor takes the
     * two then). */
    cudaError_t (*measure_planes_projections)(const latmc_sim *sim,
                                              const struct cuda_box_range *r,
                                              cudaStream_t stream, double **plane_sums,
                                              int64_t *proj);
};

/*
 * A model's part of the embedded cluster step (ops.embed_step: cuda_embed.c on a box
 * alone, cuda_embed_boxes.c on k boxes of one process; the kernels: clusters/cuda_embed.h),
 * so that those files name no model. Each launch enqueues on `stream` (box b's device
 * current) and returns the launch status: v is the labelling's view of box b, a replica
 * rep's a_i on b's device, d the replica's draws as the caller made them (seed, names,
 * field, Wolff's seed site and word).
 */
struct cuda_embed_leaf {
    /* The replicas a step runs, last to first (Heisenberg: desc.replicas; phi^4: 1). */
    int (*replicas)(const latmc_sim *sim);
    /* Replica rep's whole step on a box alone (halo 0, its own wrap): a_i, the bonds (with
     * job's further pairs where the model has them: phi^4 with a finite Lambda), labels,
     * decisions and flips. */
    cudaError_t (*step)(const latmc_sim *sim, cudaStream_t stream, const struct cuda_sw_box *v,
                        const struct cuda_box *b, int rep, const struct latmc_embed_job *job,
                        double *a, const struct cuda_embed_draws *d);
    /* On one of k boxes (v: its own planes, wrap 0; nearest neighbours only): replica
     * rep's a_i and its own sites' bonds (before the labels); and, after the labels, the
     * join and the decisions, the reflections (phi^4: sign flips) of its own sites that
     * `flips` names. */
    cudaError_t (*bonds)(const latmc_sim *sim, cudaStream_t stream, const struct cuda_sw_box *v,
                         const struct cuda_box *b, int rep, const struct latmc_embed_job *job,
                         double *a, const struct cuda_embed_draws *d);
    cudaError_t (*flip)(const latmc_sim *sim, cudaStream_t stream, const struct cuda_sw_box *v,
                        const struct cuda_box *b, int rep, const struct latmc_embed_job *job,
                        const double *a, const struct cuda_embed_flips *flips);
};

/* The leaf of a sim (cuda_models.c), or NULL: the module has no kernels for its model. */
const struct cuda_leaf *cuda_leaf_of(const latmc_sim *sim);

/* Each model's leaf for a sim of that model, one function per line of lib/model_list.h,
 * defined in the model's folder (backends/cuda/<m>/): the leaf that runs the sim, chosen
 * by its layout, precision or replicas, or NULL where the module has none for it.
 * cuda_models.c calls the one of the sim's model (what runs a cluster algorithm is chosen
 * before, cuda_cluster_leaf_of), so adding a model edits neither file. */
#define LATMC_MODEL(m) const struct cuda_leaf *cuda_##m##_leaf_of(const latmc_sim *sim);
#include "model_list.h"
#undef LATMC_MODEL

/* The cluster steps' leaf (clusters/cuda_sw_leaf.c) where the sim's algorithm is
 * Swendsen-Wang or Wolff on a model they run (Ising, Potts), else NULL. */
const struct cuda_leaf *cuda_cluster_leaf_of(const latmc_sim *sim);

#endif
