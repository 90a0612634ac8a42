/*
 * Internal to the CUDA module: the per-slab executor shared by the slabs of a sim on
 * several devices, Ising (cuda_slabs.c) and Heisenberg (cuda_slabs_heis.c): a slab's
 * device, its streams and events, and the plumbing around them (creating and releasing
 * them, waiting for every slab, peer access between neighbouring devices). What runs on
 * which stream and which event orders what stays with each model's slabs (cuda_slabs.h).
 */
#ifndef LATMC_CUDA_SLAB_EXEC_H
#define LATMC_CUDA_SLAB_EXEC_H

#include <stdbool.h>
#include <stddef.h>

#include <cuda_runtime_api.h>

#include "backend.h"

struct cuda_slab_exec {
    int device;
    /* stream: the interior and everything else; border_stream (high priority): the
     * border planes, concurrent with the interior; copy_stream: the halo copies (NULL
     * where the border stream makes them, as for Heisenberg) */
    cudaStream_t stream, border_stream, copy_stream;
    /* recorded at each step: borders updated, interior updated, copies out done (NULL
     * without a copy stream) */
    cudaEvent_t border_done, interior_done, copies_done;
    bool recorded;                  /* the events name this slab's previous step */
};

/* cudaSetDevice as a library status. */
int cuda_slab_set_device(int device);

/* Slab i's device: from n_devices (the list, or device_index + i); slabs of n_parts
 * alone all on device_index. */
int cuda_slab_device_of(const latmc_sim_desc *d, int i);

/* cudaMalloc with the message "cannot allocate N bytes of device memory on device D for
 * the <what> of a slab". */
int cuda_slab_alloc_on(void **ptr, size_t bytes, int device, const char *what);

/* false only under LATMC_CUDA_SLAB_EXCHANGE=0 (timing: the halo copies left out, the
 * chain then wrong). */
bool cuda_slab_exchange_enabled(void);

/*
 * On e->device (set by the caller; made current here): the main stream, the copy stream
 * when with_copy_stream, the border stream at the device's highest priority, and the
 * events interior_done, border_done and copies_done (the last with the copy stream),
 * all non-blocking / without timing. On failure what was created stays in *e for
 * cuda_slab_exec_destroy.
 */
int cuda_slab_exec_create(struct cuda_slab_exec *e, bool with_copy_stream);

/* Release paths (e->device current, errors ignored): wait for the main, copy and border
 * streams; destroy the events and streams that exist. */
void cuda_slab_exec_sync_quiet(const struct cuda_slab_exec *e);
void cuda_slab_exec_destroy(struct cuda_slab_exec *e);

/*
 * Wait for the copy (if any), border and main streams of n slabs, the first failure
 * (cuda_check(.., what)) reported; every slab's `recorded` is cleared. The executors are
 * `stride` bytes apart (each embedded in a model's slab: &slab[0].ex, sizeof slab[0]).
 */
int cuda_slab_exec_finish_all(struct cuda_slab_exec *first, size_t stride, int n,
                              const char *what);

/* Peer access between neighbouring slabs' devices (slab i on cuda_slab_device_of(d, i),
 * n slabs) where the hardware allows; once per ordered pair of devices and process. */
void cuda_slab_exec_enable_peers(const latmc_sim_desc *d, int n);

#endif
