/*
 * Internal to the CUDA module: the per-box state used by the boxes of the one executor
 * (exec/cuda_exec.c: Potts, Ising, phi^4, Heisenberg): a box's device, own planes,
 * streams, events and update counter, and the plumbing around them that every model's
 * boxes share (creating and releasing them, the waits of a step on the previous one and
 * on every box, reading the counters, copies between boxes and with the host, the
 * measure from sums per plane, peer access between neighbouring devices). What each
 * leaf updates on which stream, and why its waits are enough, is the executor's
 * (exec/cuda_exec.c).
 *
 * Functions over all n boxes take the first executor and the stride between them (each
 * embedded in a model's box as its first member: &box[0].ex, sizeof box[0]).
 */
#ifndef LATMC_CUDA_BOX_EXEC_H
#define LATMC_CUDA_BOX_EXEC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "backend.h"

struct cuda_box_exec {
    int device;
    int64_t origin, planes;         /* own planes of the lattice's last axis */
    /* stream: the interior and everything else; border_stream (high priority): the
     * border planes, concurrent with the interior, then their copies to the neighbours'
     * halos (a separate copy stream formerly: 2 more event waits a step and a stream
     * hop between a border and its copies); a box not split (below): its whole step,
     * then its copies */
    cudaStream_t stream, border_stream;
    /* recorded at each step: borders updated (before the copies: the next interior waits
     * for no copy), interior updated, copies out done (after the borders, on the border
     * stream: the neighbours' next borders wait for it) */
    cudaEvent_t border_done, interior_done, copies_done;
    bool recorded;                  /* the events name this box's previous step */
    bool split;                     /* an interior on the main stream beside the borders
                                       (interior_done and border_done recorded at each
                                       step); else all on the border stream (copies_done
                                       alone recorded). Set by the executor. */
    /* steps in halves (exec/cuda_exec.c: a box alone's, launch_halves; split boxes' and a
     * part's interiors, launch_boxes): the second half's stream (the main stream's
     * priority) and its event, where the executor asked for them (cuda_box_exec_add_half),
     * else NULL */
    cudaStream_t half_stream;
    cudaEvent_t half_done;
    /* the update counter: changed (device, added to by the box's kernels, never reset),
     * count_host (pinned: its value read at the end of a call), count_seen (its value at
     * the previous read) */
    unsigned long long *changed, *count_host, count_seen;
    /* pinned host memory the box's reduction is read into (cuda_box_exec_measure_*;
     * grown on demand, freed with the box). A pageable destination, as before, made each
     * box's read a host wait, so the boxes' reductions ran one after another: on N GPUs
     * a measurement cost N reductions' time where it costs one now. */
    void *sums_host;
    size_t sums_host_bytes;
    void *reduced; /* the device result of the reduction in flight (reduce_all) */
};

/* cudaSetDevice as a library status. */
int cuda_box_set_device(int device);

/* Box i's device: from n_devices (the list, or device_index + i); boxes of n_parts
 * alone all on device_index. */
int cuda_box_device_of(const latmc_sim_desc *d, int i);

/* cudaMalloc with the message "cannot allocate N bytes of device memory on device D for
 * the <what> of a box". */
int cuda_box_alloc_on(void **ptr, size_t bytes, int device, const char *what);


/*
 * On e->device (set by the caller; made current here): the main stream, the border
 * stream at the device's highest priority, and the events interior_done, border_done and
 * copies_done, all non-blocking / without timing; the update counter, cleared on the
 * main stream. On failure what was created stays in *e for cuda_box_exec_release_all.
 */
int cuda_box_exec_create(struct cuda_box_exec *e);

/* The same box's half stream and half_done (its device made current here); released with
 * the box, waited for with its other streams. */
int cuda_box_exec_add_half(struct cuda_box_exec *e);

/*
 * Release n boxes, each on its own device (errors ignored: a sticky error must not keep
 * the host side or the other devices' memory alive): wait for its streams, free_arrays
 * (the model's device memory of the box whose first member is ex; may be NULL), then the
 * counter, events and streams that exist. Boxes whose device cannot be made current are
 * skipped.
 */
void cuda_box_exec_release_all(struct cuda_box_exec *first, size_t stride, int n,
                                void (*free_arrays)(struct cuda_box_exec *ex));

/* Wait for the border and main streams of n boxes, the first failure
 * (cuda_check(.., what)) reported; every box's `recorded` is cleared. */
int cuda_box_exec_finish_all(struct cuda_box_exec *first, size_t stride, int n,
                              const char *what);

/*
 * The last step of a latmc_sim_sweep call: each box's main stream waits for its
 * recorded borders and copies (a box not split: its copies, recorded after its whole
 * step) and reads the counter (added to by every update stream)
 * into pinned memory (cuda_check(.., what) on failure); then every box's streams are
 * waited for ("sweeping"). On success the updates since the previous read are added to
 * *accepted.
 */
int cuda_box_exec_read_counts(struct cuda_box_exec *first, size_t stride, int n,
                               const char *what, uint64_t *accepted);

/* Enqueue on `stream` (of src's device, current) the copy of `bytes` from src's device
 * memory into dst's: a device copy where both are on one device, else a peer copy (the
 * driver stages it through host memory where peer access is missing). */
cudaError_t cuda_box_copy_to(const struct cuda_box_exec *src, const void *from,
                              const struct cuda_box_exec *dst, void *to, size_t bytes,
                              cudaStream_t stream);
/* A box's local planes (its own planes and `halo` on each side) as three runs of
 * consecutive planes of the lattice's L: the lower halo, the own planes, the upper halo
 * (each contiguous: a box has at least `halo` planes, so a halo wraps only as a whole). */
struct cuda_box_run {
    int64_t global, local, planes;
};
void cuda_box_runs(const struct cuda_box_exec *e, int64_t halo, int64_t L,
                    struct cuda_box_run r[3]);
/* The same of own planes [origin, origin + planes) (a GPU rank's box too). */
void cuda_box_runs_of(int64_t origin, int64_t planes, int64_t halo, int64_t L,
                       struct cuda_box_run r[3]);

/*
 * Copies between whole-lattice host data (plane_bytes a plane, in plane order) and every
 * box's device array local_of(ex) (the same layout over its local planes, `halo` planes
 * before its own), on the main streams, every box waited for before and after
 * (cuda_check(.., what) on failure). put: the local planes, halos included (no exchange
 * needed after it); get: the own planes.
 */
int cuda_box_exec_put_planes(struct cuda_box_exec *first, size_t stride, int n,
                              void *(*local_of)(struct cuda_box_exec *ex), int64_t halo,
                              int64_t L, size_t plane_bytes, const void *whole,
                              const char *what);
int cuda_box_exec_get_planes(struct cuda_box_exec *first, size_t stride, int n,
                              void *(*local_of)(struct cuda_box_exec *ex), int64_t halo,
                              size_t plane_bytes, void *whole, const char *what);

/*
 * The observables of boxes whose reduction gives sums per own plane (phi^4 and
 * Heisenberg, exec/cuda_exec.c):
 * on every box (its device current) reduce(ex, ctx, &plane_sums) launches its reduction
 * on the main stream into the device array *plane_sums (nsums doubles per own plane),
 * read into the box's pinned sums_host; every box's reduction and read are enqueued
 * before the one wait, so the boxes' devices reduce side by side. Then the planes' sums
 * are added in plane order (box order: box i's planes follow box i-1's) from zero with
 * the model's add_sums into sums: the one-device total bit for bit.
 */
int cuda_box_exec_measure_planes(const latmc_sim *sim, struct cuda_box_exec *first,
                                  size_t stride, int n, int64_t L, int nsums,
                                  cudaError_t (*reduce)(struct cuda_box_exec *ex,
                                                        const void *ctx, double **plane_sums),
                                  const void *ctx, void *sums);

/*
 * The observables of boxes whose reduction gives integer sums (Ising, Potts: counts,
 * which add up to the same total in any order): on every box reduce(ex, ctx, &box_sums)
 * clears and launches its reduction on the main stream into the device struct *box_sums
 * (the model's sums_size bytes), read into the box's pinned sums_host, all enqueued
 * before the one wait; then the boxes' structs are added in box order with add_sums.
 */
int cuda_box_exec_measure_boxes(const latmc_sim *sim, struct cuda_box_exec *first,
                                 size_t stride, int n,
                                 cudaError_t (*reduce)(struct cuda_box_exec *ex, const void *ctx,
                                                       void **box_sums),
                                 const void *ctx, void *sums);
/* The same reductions of `bytes` a box, read into each box's sums_host (at least that
 * large) and left there for the caller, after the one wait; every box's reduce is
 * launched before any box's tail(ex, ctx) (NULL: none), which the box's copy follows. */
int cuda_box_exec_reduce_boxes(struct cuda_box_exec *first, size_t stride, int n, size_t bytes,
                               cudaError_t (*reduce)(struct cuda_box_exec *ex, const void *ctx,
                                                     void **box_out),
                               cudaError_t (*tail)(struct cuda_box_exec *ex, const void *ctx),
                               const void *ctx);

/*
 * Before a step, on every box whose events name its previous step: its streams wait for
 * what they read or overwrite of that step (each model's run_step says why), all waits
 * enqueued before any event is recorded again, each event once:
 *   border stream: this box's previous interior (when split), and both neighbours'
 *     previous copies (recorded after their borders; this box's own are in order on
 *     this stream);
 *   main stream (when split): this box's previous borders.
 * A step's work then: the borders on the border stream, border_done, the copies out on
 * the border stream, copies_done (recorded even without copies), the interior on the
 * main stream, interior_done; a box not split: its step and copies on the border stream,
 * copies_done alone. cuda_check(.., what) on failure.
 */
int cuda_box_exec_order_step(struct cuda_box_exec *first, size_t stride, int n,
                              const char *what);

/* After a failed step: nothing left running (errors ignored), and the counters taken as
 * they stand (the failed call's updates are not reported; best effort after a sticky
 * error). */
void cuda_box_exec_drain(struct cuda_box_exec *first, size_t stride, int n);

/* Peer access between neighbouring boxes' devices (box i on cuda_box_device_of(d, i),
 * n boxes) where the hardware allows; once per ordered pair of devices and process. */
void cuda_box_exec_enable_peers(const latmc_sim_desc *d, int n);

#endif
