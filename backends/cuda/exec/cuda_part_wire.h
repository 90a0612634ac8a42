/*
 * Internal to the CUDA module: the halo planes of a GPU rank (the one box of a part of a
 * lattice shared by processes) on the wire, for the executor (cuda_exec.c, and its per-plane
 * forms in cuda_exec_measure.c).
 *
 * The core's exchange (lib/part.c) moves a part's border and halo planes through
 * get_planes / set_planes and the part's halo buffers, which only the exchange uses and
 * only parts running the same leaf read. Where the leaf names the arrays that hold the
 * configuration (cuda_leaf.h, wire_arrays), such planes travel as the storage's own bytes
 * (a run of the planes from each of those arrays, one after the other): one 2D copy
 * between the device and the halo buffer on the box's border stream, no conversion, no
 * allocation. Each halo buffer is page-locked at its first use (a buffer shared with the
 * neighbours through the transport's window is mapped in this process too), so the DMA
 * goes straight into the memory the transport (or the neighbour) reads; a get waits for
 * its copy (the transport sends it next), a set into the device is not waited for: the
 * next thing that writes its buffer is the transport of the next exchange, after that
 * exchange's gets have waited for the border stream (with shared buffers: the neighbour,
 * after this part's next handshake, which follows those gets). Everything else that reads
 * the box waits for the border stream first (cuda_part_wire_settle, or the executor's
 * wait for every stream).
 */
#ifndef LATMC_CUDA_PART_WIRE_H
#define LATMC_CUDA_PART_WIRE_H

#include <stdbool.h>
#include <stdint.h>

#include "cuda_leaf.h"

/* lib/part.c's halo buffers: halo_buf and 4 + 4 shared ones */
#define CUDA_PART_WIRE_REGIONS 9

struct cuda_part_wire {
    void *region[CUDA_PART_WIRE_REGIONS]; /* the halo buffers met so far */
    bool locked[CUDA_PART_WIRE_REGIONS];  /* page-locked here (else pageable copies) */
    int regions;
    bool sets_pending;                    /* a set on the border stream not waited for */
};

/*
 * Planes [p0, p0 + planes) of the lattice, at local planes lp[0 .. copies) of the part's box
 * b (the own one first), from (get_buf) or into (set_buf) the caller's buffer: moved on the
 * wire when the buffer is one of the part's halo buffers and the leaf has wire_arrays
 * (true, the status in *st), else nothing done (false: the ordinary per-plane forms).
 * plane_bytes: of one array.
 */
bool cuda_part_wire_move(const latmc_sim *sim, const struct cuda_leaf *leaf, struct cuda_box *b,
                         struct cuda_part_wire *w, const int64_t *lp, int copies, int64_t planes,
                         size_t plane_bytes, void *get_buf, const void *set_buf, int *st);

/* Wait for a set not waited for (b's border stream), where there is one. */
int cuda_part_wire_settle(struct cuda_part_wire *w, const struct cuda_box *b);

/* The halo buffers' pages unlocked (the box's streams idle: the caller waited for them). */
void cuda_part_wire_release(struct cuda_part_wire *w);

#endif
