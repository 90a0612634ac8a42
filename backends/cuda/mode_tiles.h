/*
 * Internal to the CUDA module: the per-plane tiles of the Fourier modes at k_min of the
 * floating-point models (lib/modes.h: phi^4's field, a scalar; the kernels take any
 * float or double component arrays, one or two replicas), computed on the device from a
 * box's component arrays in exactly the CPU's order of floating-point operations
 * (lib/modes_planes.c's dense kernels), so that every tile is
 * the CPU's bit for bit and the core, which adds the tiles in plane order, gets the same
 * modes on every layout (mode_tiles.cu).
 */
#ifndef LATMC_CUDA_MODE_TILES_H
#define LATMC_CUDA_MODE_TILES_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The sites of a range of planes as component arrays on the device: component k of
 * replica r of the range's site i (x fastest, then y, then the plane) at
 * data[(r components + k) stride + i], floats or doubles. The tile's components are the
 * replicas' components of replica 0, and with two replicas the products of replica 0's
 * and replica 1's, s^0_m s^1_n at components + m components + n (lib/modes.h:
 * Heisenberg 3, or 3 + 9; phi^4 1).
 */
struct cuda_tiles_source {
    const void *data;
    int64_t stride;        /* elements from one component array to the next */
    int is_double;         /* 0: floats (Heisenberg, phi^4 in float), 1: doubles */
    int components;        /* per replica */
    int replicas;          /* 1, or 2 (the products follow) */
};

/* The range: `planes` planes of lx x rows sites (2D: one row), the first the lattice's
 * plane global_p0 of its last axis; the lattice's extents and ndim. */
struct cuda_tiles_range {
    int ndim;
    int64_t extent[3];
    int64_t planes, global_p0;
};

/* Device memory for the rows' partial sums, grown on demand on the current device
 * (cuda_mode_tiles); zero-initialised means empty. */
struct cuda_tiles_scratch {
    double *rows;
    size_t doubles;
};
void cuda_tiles_scratch_free(struct cuda_tiles_scratch *s);

/* The tile's components of a source (lib/modes.h's latmc_modes_components). */
int cuda_tiles_components(const struct cuda_tiles_source *src);

/*
 * The tiles of the range's planes into tiles (device; plane q's at q C ndim 2 doubles,
 * C the tile's components, in lib/modes.h's order: component c, direction mu, re and im),
 * from the phase tables `phases` (device; latmc_modes_sim_phases' layout: cos, then sin
 * of 2 pi x / L_mu, of each axis in turn). Enqueued on `stream`; the scratch may be
 * (re)allocated first.
 */
cudaError_t cuda_mode_tiles(cudaStream_t stream, const struct cuda_tiles_source *src,
                            const struct cuda_tiles_range *r, const double *phases,
                            struct cuda_tiles_scratch *scratch, double *tiles);

/*
 * cuda_mode_tiles in two parts, for a kernel that makes the rows itself: the scratch for
 * the rows of C components grown to the range (its rows then at scratch->rows, in
 * cuda_mode_tiles' rows kernel's layout), and the tiles from the rows in it
 * (cuda_mode_tiles' second kernel), enqueued on `stream`.
 */
cudaError_t cuda_tiles_rows_of(struct cuda_tiles_scratch *scratch, int C,
                               const struct cuda_tiles_range *r);
cudaError_t cuda_mode_tiles_of_rows(cudaStream_t stream, int C, const struct cuda_tiles_range *r,
                                    const double *phases, const struct cuda_tiles_scratch *scratch,
                                    double *tiles);

/* The sum of `planes` tiles of `doubles` doubles each (device), in plane order from zero
 * (the core's latmc_modes_combine: its additions, so its bits), into total (device):
 * one warp per double. Enqueued on `stream`. */
cudaError_t cuda_tiles_total(cudaStream_t stream, const double *tiles, int64_t planes,
                             int doubles, double *total);

/*
 * Heisenberg's integer projections of the modes in fixed point (lib/modes_exact.h's
 * latmc_modes_fixed: round(v 2^25), ties to even; with two replicas also of the products
 * s^0_m s^1_n, exact in double) of the source's range, added into the device array proj
 * in lib/modes.h's layout (component c's P_x, P_y (3D), P_last at c (L_x + L_y (+ L_z))):
 * a thread a column over a chunk of rows, one atomic per column, component and chunk, and
 * a block a row, one atomic per row, component and entry. Float sources only
 * (cudaErrorNotSupported otherwise). Enqueued on `stream` (mode_fixed.cu).
 */
cudaError_t cuda_fixed_projections(cudaStream_t stream, const struct cuda_tiles_source *src,
                                   const struct cuda_tiles_range *r, int64_t *proj);

#ifdef __cplusplus
}
#endif

#endif
