/*
 * Internal to the CUDA module: the halo transports of the executor (cuda_exec.c), one
 * table, chosen per box at creation from where its two neighbours live. A box sends its
 * two outermost own runs of planes (the lower one into the lower neighbour's upper halo,
 * the upper one into the upper neighbour's lower halo) of every array the step wrote (one
 * row per array: the same planes of each, the arrays a pitch apart) on its border stream:
 *
 *   same device, one launch   both neighbours on the box's device: both runs of every
 *                             array by one copy kernel (cuda_box_copy_runs), the default
 *   same device, copies       both neighbours on the box's device, LATMC_CUDA_BOX_COPY=
 *                             memcpy: one 2D cudaMemcpy2DAsync per run
 *   peer copy                 a neighbour on another device with peer access: per run a
 *                             3D cudaMemcpy3DPeerAsync of the arrays' rows (a 2D device
 *                             copy for a run that stays)
 *   host-staged               a neighbour on another device without peer access: the same
 *                             calls, which the driver stages through host memory
 *
 *   the part's transport      the box of a part of a lattice shared by processes: nothing
 *                             is sent within the step; the core's exchange after it
 *                             (lib/part.c) moves the planes through the per-plane forms
 *                             (cuda_exec_get_planes / set_planes) and the caller's transport
 */
#ifndef LATMC_CUDA_HALO_H
#define LATMC_CUDA_HALO_H

#include <stdbool.h>
#include <stddef.h>

#include <cuda_runtime_api.h>

#include "cuda_box_exec.h"

/* The two runs a box sends at a step: from its own memory to each neighbour's halo, each
 * `rows` rows (one per array written) of `bytes`, row j at src[k] + j src_pitch and
 * dst[k] + j dst_pitch[k] (the boxes' arrays differ in length where their planes do). */
struct cuda_halo_runs {
    const struct cuda_box_exec *from, *to[2];
    const void *src[2];
    void *dst[2];
    size_t bytes;
    int rows;
    size_t src_pitch, dst_pitch[2];
};

struct cuda_halo_transport {
    const char *name;
    cudaError_t (*send)(const struct cuda_halo_runs *r, cudaStream_t stream);
};

/* The transport of a box on `device` whose neighbours are on devices lower and upper
 * (LATMC_CUDA_BOX_COPY read by the caller: memcpy_only). */
const struct cuda_halo_transport *cuda_halo_pick(int device, int lower, int upper,
                                                 bool memcpy_only);
/* The transport of a part's box. */
const struct cuda_halo_transport *cuda_halo_part(void);

#endif
