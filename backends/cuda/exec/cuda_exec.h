/*
 * Internal to the CUDA module: the one executor over boxes on devices
 * (doc/architecture.md, "One CUDA executor"). A sim with a leaf (cuda_leaf.h, cuda_leaf_of)
 * runs here as the boxes of the core's plan: one box on one GPU (its halo its own wrap),
 * k boxes on one or several GPUs (halos kept by the transports of cuda_halo.h), or the
 * one box of a part of a lattice shared by processes (its halos moved by lib/part.c's
 * exchange through the per-plane forms below). The
 * executor owns, once, for every model: the storage with halos, the border and interior
 * streams and their events, the update counters, the measurement, and the halo
 * transports; the model is reached only through its leaf.
 *
 * The functions mirror the backend's ops (lib/backend.h) and are called by cuda_backend.c
 * only; each waits for its work before returning but run_steps, which waits at the last
 * call of a latmc_sim_sweep (latmc_step_call.last).
 */
#ifndef LATMC_CUDA_EXEC_H
#define LATMC_CUDA_EXEC_H

#include <stdbool.h>
#include <stdint.h>

#include "backend.h"
#include "cuda_leaf.h"

struct cuda_exec;

/* Allocate the boxes of sim->plan with the leaf's storage on their devices (the first
 * box's device current); on failure nothing is left allocated. */
int cuda_exec_create(const latmc_sim *sim, const struct cuda_leaf *leaf, struct cuda_exec **out);
/* The leaf it was made with (cuda_leaf_of's choice at creation: the Ising leaf depends on
 * the device's free memory then, so it is not asked again). */
const struct cuda_leaf *cuda_exec_leaf(const struct cuda_exec *x);
void cuda_exec_destroy(struct cuda_exec *x);
int cuda_exec_params_changed(const latmc_sim *sim, struct cuda_exec *x);
int cuda_exec_init_spins(const latmc_sim *sim, struct cuda_exec *x, int how);
int cuda_exec_run_steps(const latmc_sim *sim, struct cuda_exec *x,
                        const struct latmc_step_call *calls, int n_calls, uint64_t *accepted,
                        uint64_t *attempted);
int cuda_exec_measure(const latmc_sim *sim, struct cuda_exec *x, void *sums);
int cuda_exec_get_spins(const latmc_sim *sim, struct cuda_exec *x, void *buf);
int cuda_exec_set_spins(const latmc_sim *sim, struct cuda_exec *x, const void *buf);
/* The couplings (a leaf with draw_couplings; else LATMC_EUNSUPPORTED with the reason):
 * the host's copy, and every box's from it. */
int cuda_exec_get_couplings(const latmc_sim *sim, struct cuda_exec *x, float *buf);
int cuda_exec_set_couplings(const latmc_sim *sim, struct cuda_exec *x, const float *buf);
/* A part's couplings of planes [p0, p1) (ops.get_coupling_planes); LATMC_EUNSUPPORTED
 * without a message for a sim of the whole lattice (the core reads them whole). */
int cuda_exec_get_coupling_planes(const latmc_sim *sim, struct cuda_exec *x, int64_t p0,
                                  int64_t p1, float *buf);

/* The per-plane forms (lib/backend.h) of a sim of one box: a part of a lattice shared by
 * processes (the halo exchange, the measure and the gathers of lib/part.c), or one box
 * alone; LATMC_EUNSUPPORTED for k boxes. Planes [p0, p1) of the lattice: own planes or a
 * halo range (get/set), own planes (measure). */
int cuda_exec_measure_planes(const latmc_sim *sim, struct cuda_exec *x, int64_t p0,
                             int64_t p1, void *sums);
/* The same and the planes' projections (as cuda_exec_projections) in one pass where the
 * leaf has measure_projections; LATMC_EUNSUPPORTED as cuda_exec_projections. */
int cuda_exec_measure_planes_modes(const latmc_sim *sim, struct cuda_exec *x, int64_t p0,
                                   int64_t p1, void *sums, int64_t *proj);
int cuda_exec_get_planes(const latmc_sim *sim, struct cuda_exec *x, int64_t p0, int64_t p1,
                         void *buf);
int cuda_exec_set_planes(const latmc_sim *sim, struct cuda_exec *x, int64_t p0, int64_t p1,
                         const void *buf);

/* A part's clusters joined across the parts (ops.cluster_faces: lib/backend.h), through
 * the leaf's part_faces; LATMC_EUNSUPPORTED where the sim is no part or its leaf has none. */
int cuda_exec_cluster_faces(const latmc_sim *sim, struct cuda_exec *x, int what, void *buf,
                            size_t *bytes);

/*
 * What the sim's last cluster sweep built (ops.cluster_stats: lib/backend.h), from the
 * labels of its boxes (the leaf's cluster_stats), after the steps in flight: one box,
 * several boxes of one process, or a part's box (counted at its joins). LATMC_EUNSUPPORTED
 * for a leaf without it.
 */
int cuda_exec_cluster_stats(const latmc_sim *sim, struct cuda_exec *x,
                            struct latmc_cluster_stats *out);

/*
 * The integer projections of the Fourier modes at k_min (lib/modes.h) of the lattice's
 * planes [p0, p1), into proj (the model's latmc_modes_projection_entries int64, which this
 * sets): each box counts its own planes in the range on its device (the leaf's
 * projections), and the boxes' integers are added on the host. The range is the boxes'
 * own planes: [0, L) for a sim of the whole lattice, a part's own planes for a part.
 * LATMC_EUNSUPPORTED with the reason for a leaf without projections.
 */
int cuda_exec_projections(const latmc_sim *sim, struct cuda_exec *x, int64_t p0, int64_t p1,
                          int64_t *proj);

/* cuda_exec_measure's sums and the whole lattice's projections (as cuda_exec_projections
 * of [0, L)) in one pass over each box where its leaf has measure_projections (else the
 * two, one after the other), one wait. LATMC_EUNSUPPORTED as cuda_exec_projections. */
int cuda_exec_measure_modes(const latmc_sim *sim, struct cuda_exec *x, void *sums,
                            int64_t *proj);
/* Whether the sim's leaf counts the projections beside its sums (cuda_exec_measure_modes:
 * integer sums by measure or measure_projections, floating-point sums per plane by
 * measure_planes, in one read where the leaf has measure_planes_projections). */
bool cuda_exec_has_projections(const struct cuda_exec *x);
/* The sums and the lattice's modes (ops.measure_kmin; phases: the core's tables, copied
 * to the device once) where cuda_exec_has_kmin says so: a leaf with measure_projections
 * whose boxes measure whole (Ising and Potts, one box or k boxes of one process; phi^4, a
 * box alone): one pass over each box and the exact sums of its projections' modes
 * (lib/modes_exact.h) on its device; only each box's sums and limbs come to the host, one
 * wait, where they are added (integers) and made doubles (latmc_i128_value, unscaled: the
 * core applies a fixed-point model's scale). */
bool cuda_exec_has_kmin(const struct cuda_exec *x);
int cuda_exec_measure_kmin(const latmc_sim *sim, struct cuda_exec *x, void *sums,
                           const double *phases, double *modes);

/* The configuration of a one-box sim as one device array (its data, the leaf's view
 * dtype), waited for; LATMC_EUNSUPPORTED with the reason for several boxes or a leaf
 * without a view. */
int cuda_exec_view(const latmc_sim *sim, struct cuda_exec *x, const void **data, int *dtype);
/* Values per site in that view (the leaf's view_components, at least 1). */
int cuda_exec_view_components(const struct cuda_exec *x);

/* Tempering: members a and b exchanged their parameters and tables (a tempering swap,
 * LATMC_STEP_SWAP_PARAMS): their device tables change places, and the leaf's host-side
 * forms of them are rebuilt (params_changed). LATMC_EUNSUPPORTED (nothing done, no
 * message) unless both are one box on one device (cuda_exec_can_swap_tables). */
bool cuda_exec_can_swap_tables(const struct cuda_exec *a, const struct cuda_exec *b);
int cuda_exec_swap_tables(const latmc_sim *sa, struct cuda_exec *a, const latmc_sim *sb,
                          struct cuda_exec *b);

/* The length of the leaf's own chain of steps per sweep (ops.own_schedule; cuda_leaf.h,
 * own_steps), 0 for the model's schedule. */
int cuda_exec_own_steps(const latmc_sim *sim, const struct cuda_exec *x);

/* The box of a sim of one box alone (halo 0: the whole lattice, its own wrap) and its
 * leaf, for the module's ensembles, which hand it to the model's member accessors
 * (ising/cuda_ising_leaf.h); NULL for k boxes or a part. */
struct cuda_box *cuda_exec_lone_box(struct cuda_exec *x, const struct cuda_leaf **leaf);

/* The boxes of a sim of k > 1 boxes of one process (their halos kept by the executor),
 * their count and leaf, for the module's embedded cluster step on boxes
 * (cuda_embed_boxes.c); NULL for one box alone or a part. */
struct cuda_box *cuda_exec_boxes(struct cuda_exec *x, int *n, const struct cuda_leaf **leaf);

/* After work enqueued on every box's border stream that changed its own planes outside the
 * plan's steps (the embedded cluster step on k boxes): the configuration's halos sent as
 * after a step (the leaf's wire_arrays, the arrays that hold it now, else every array),
 * each box's events recorded there as a step's, and its main stream made to wait for
 * them, so the next step, measurement or copy follows. A library status. */
int cuda_exec_resend_halos(const latmc_sim *sim, struct cuda_exec *x);

/* ops.part_halo_depth: the halo planes a part's box reads beyond its own (the leaf's sent
 * planes: Heisenberg 2, which the core fills after a set beyond its halo of 1); 0 for a
 * sim of the whole lattice. */
int cuda_exec_part_halo_depth(const struct cuda_exec *x);

#endif
