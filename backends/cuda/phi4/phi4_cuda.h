/*
 * phi^4 on the GPU: what the C side of the module (phi4/: the plan, the executor's leaf)
 * and the kernels (phi4_kernels.cu) share. The chain the kernels run is defined in
 * doc/models/phi4.md, "The CUDA chain":
 *
 * - chunk schedule (the default wherever the extents allow): the lattice is cut into
 *   chunks of b[0] x b[1] (x b[2]) sites; the chunks fall into 2^ndim sub-grids by the
 *   parity of their chunk coordinates, and a sub-grid's chunks, whose two-site halos never
 *   reach into one another, are updated concurrently: one launch per sub-grid, in the order
 *   p = (cx mod 2) + 2 (cy mod 2) + 4 (cz mod 2) = 0 .. 2^ndim - 1, a schedule of its
 *   own declared to the core (phi4/cuda_phi4_leaf.c: a step per cut parity, the
 *   sub-grids of that parity, consecutive in this order). A block loads
 *   its chunk plus halo into shared memory once and runs all nloc passes there, colour by
 *   colour, nhit hits per site with the site's corona computed once per pass and colour.
 * - site-order schedule (extents that take no chunks, or LATMC_CUDA_PHI4_CHUNK=none): the
 *   CPU reference's order, one launch per pass and colour: the model's schedule.
 *
 * In both, a draw is named as on the CPU (the site's within-colour number j,
 * sweep * nloc + pass, phase = colour + 8 floor(hit / 32768), sub = 2 (hit mod 32768) +
 * draw), never by thread or block, so the result does not depend on the launch geometry.
 */
#ifndef LATMC_CUDA_PHI4_H
#define LATMC_CUDA_PHI4_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "lattice_numbering.h"
#include "phi4.h"
#include "step.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Width of a segment: the 4 Philox lanes of ncolours-site runs, 4 ncolours sites of a
 * row (32 with 8 colours, 20 with 5); a chunk's x extent is a multiple of it. */
#define CUDA_PHI4_LANES 4
/* The halo: the interaction reaches two sites along each axis. */
#define CUDA_PHI4_HALO 2
/* Threads per block at most (the kernel's launch bounds). */
#define CUDA_PHI4_MAX_THREADS 256

enum cuda_phi4_schedule { CUDA_PHI4_SITE_ORDER = 0, CUDA_PHI4_CHUNKS = 1 };

/* How a sim's sweeps run (fixed at latmc_sim_create). */
struct cuda_phi4_plan {
    int schedule;          /* enum cuda_phi4_schedule */
    int ndim, ncolours, ay, az;  /* colour = (x + ay y + az z) mod ncolours */
    int precision;         /* LATMC_PRECISION_FLOAT or _DOUBLE */
    int threads;           /* threads per block, a multiple of 32 */
    /* chunk schedule only: */
    int b[3];              /* chunk extents (b[2] = 1 in 2D) */
    int nchunks[3];        /* chunks per axis, even (nchunks[2] = 1 in 2D) */
    int box[3];            /* the chunk plus halo: b + 4 (box[2] = 1 in 2D) */
    int pitch_y, pitch_z;  /* shared-memory strides of y and z, in field values (padded
                              against bank conflicts) */
    int segments;          /* segments per chunk: (b[0] / width) b[1] b[2] */
    size_t smem_bytes;     /* dynamic shared memory per block */
};

/* Philox4x32-10's round keys for one seed: key + r (W0, W1), r = 0 .. 9 (the keys
 * latmc_philox4x32_10 bumps between rounds), computed once on the host. */
struct cuda_phi4_keys {
    uint32_t k[10][2];
};

/* Lets the plan's chunk kernel use the current device's largest shared memory per block
 * (kernel attributes; call once per sim, on its device, before the first sweep). */
cudaError_t cuda_phi4_prepare(const struct cuda_phi4_plan *plan);

/* Hot start of n sites (INIT stream: the CPU's values, bit for bit). */
cudaError_t cuda_phi4_hot_start(cudaStream_t stream, const struct cuda_phi4_plan *plan,
                                void *phi, int64_t n, uint64_t seed);

/* One launch of sweep `sweep` on the whole lattice (phi4/cuda_phi4_leaf.c): chunk
 * schedule, sub-grid step->index (0 .. 2^ndim - 1) of its own chain, every chunk of it
 * through all nloc passes; site order, the model's step (its colour and sweep word).
 * Adds the accepted hits to *accepted (device). `tables` is the host copy of the sim's
 * coefficients. */
cudaError_t cuda_phi4_step(cudaStream_t stream, const struct cuda_phi4_plan *plan,
                           const struct latmc_lattice *g, void *phi,
                           const struct latmc_phi4_tables *tables,
                           const struct cuda_phi4_keys *keys, uint64_t sweep,
                           const struct latmc_step *step, unsigned long long *accepted);

/* The sums of lib/phi4.h into *sums (device), in the CPU reference's order: each row
 * summed in x order into `partials` (5 doubles per row, device), then the rows in order. */
cudaError_t cuda_phi4_measure(cudaStream_t stream, const struct cuda_phi4_plan *plan,
                              const struct latmc_lattice *g, const void *phi, double *partials,
                              struct latmc_phi4_sums *sums);

/* ---- a box with halos: of several in one process, or a GPU rank's (phi4/) ---- */

/*
 * What one box launch covers. The box's memory holds planes [cut0, cut0 + its planes)
 * of the last axis, natural order. Chunk schedule: the chunk layers (chunks along the
 * last axis) [first, first + count) of parity `parity`, their sub-grids in the one-device
 * order; site order: planes [first, first + count) of the step.
 */
struct cuda_phi4_box_range {
    int64_t cut0, first, count;
    int parity;
};

/* cuda_phi4_prepare for the box kernels (on each box's device). */
cudaError_t cuda_phi4_prepare_boxes(const struct cuda_phi4_plan *plan);

/* The one-device hot start's values of sites [first, first + n) into dst[0 .. n). */
cudaError_t cuda_phi4_hot_range(cudaStream_t stream, const struct cuda_phi4_plan *plan,
                                void *dst, int64_t first, int64_t n, uint64_t seed);

/* One box's part of sweep `sweep`: chunk schedule, the sub-grids of r's parity on its
 * layers (step unused); site order, the step on its planes. g: the whole lattice. */
cudaError_t cuda_phi4_box_update(cudaStream_t stream, const struct cuda_phi4_plan *plan,
                                  const struct latmc_lattice *g, void *phi,
                                  const struct latmc_phi4_tables *tables,
                                  const struct cuda_phi4_keys *keys, uint64_t sweep,
                                  const struct latmc_step *step,
                                  const struct cuda_phi4_box_range *r,
                                  unsigned long long *accepted);

/* The sums of each of planes [r->first, + r->count) (5 doubles per plane, the
 * one-device reduction's per-plane values) into plane_sums; partials: 5 doubles per row
 * of those planes. */
cudaError_t cuda_phi4_measure_planes(cudaStream_t stream, const struct cuda_phi4_plan *plan,
                                     const struct latmc_lattice *g, const void *phi,
                                     const struct cuda_phi4_box_range *r, double *partials,
                                     double *plane_sums);

/* The Fourier modes' integer projections (lib/modes.h, one component; q = round(phi 2^20),
 * lib/modes_exact.h) of planes [first, first + count) of the lattice g (the lattice's
 * planes of its last axis), the first of them at phi (device), added into proj (device:
 * P_x at x, 3D P_y at L_x + y, P_last at L_x (+ L_y) + its plane). Integers, the CPU's. */
cudaError_t cuda_phi4_projections(cudaStream_t stream, const struct cuda_phi4_plan *plan,
                                  const struct latmc_lattice *g, const void *phi, int64_t first,
                                  int64_t count, int64_t *proj);

/* The sums and the projections in one read of the field (the tile walk of a 2D lattice,
 * phi4_tile_walk.cu): r NULL, the whole lattice g at phi, sums the device's struct
 * latmc_phi4_sums as cuda_phi4_measure gives it; r: its planes' sums (5 doubles a plane)
 * into sums as cuda_phi4_measure_planes gives them; and the same planes' projections added
 * into proj as cuda_phi4_projections adds them. Exactly those functions' doubles and
 * integers; cudaErrorNotSupported, nothing enqueued, where the tile walk does not take
 * the lattice (cuda_phi4_tile_walk_fits). */
cudaError_t cuda_phi4_measure_projections(cudaStream_t stream, const struct cuda_phi4_plan *plan,
                                          const struct latmc_lattice *g, const void *phi,
                                          const struct cuda_phi4_box_range *r, double *partials,
                                          void *sums, int64_t *proj);

/* Whether the tile walk takes the (own) lattice g: 2D, L_x a multiple of a 128-byte chunk's
 * values and at least 256, at least 4096 rows. */
bool cuda_phi4_tile_walk_fits(const struct latmc_lattice *g, bool single);

/* The tile walk's rows (phi4_tile_walk.cu): each row's 5 measurement partials into
 * partials and, where proj is not NULL, the rows' projections added into proj (the rows
 * the lattice's rows first_row ..: P_x at x, P_y at L_x + the row); box: g is a box's own
 * rows with its neighbours' rows stored beside them. cudaErrorNotSupported, nothing
 * enqueued, where it does not fit. */
cudaError_t cuda_phi4_tile_walk(cudaStream_t stream, const struct latmc_lattice *g, bool single,
                                bool box, const void *phi, double *partials, int64_t *proj,
                                int64_t first_row);

#ifdef __cplusplus
}
#endif

#endif
