/*
 * Internal to the CUDA module: Heisenberg's integer projections of the Fourier modes at
 * k_min (lib/modes.h) in fixed point (mode_fixed.cu), outside the leaf's own kernels.
 * Integers, so their sum does not depend on the order of the additions.
 */
#ifndef LATMC_CUDA_MODE_FIXED_H
#define LATMC_CUDA_MODE_FIXED_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * The sites of a range of planes as component arrays on the device: component k of
 * replica r of the range's site i (x fastest, then y, then the plane) at
 * data[(r components + k) stride + i], floats or doubles. The values are the replicas'
 * components of replica 0, and with two replicas the products of replica 0's and replica
 * 1's, s^0_m s^1_n at components + m components + n (lib/modes.h: Heisenberg 3, or 3 + 9).
 */
struct cuda_fixed_source {
    const void *data;
    int64_t stride;        /* elements from one component array to the next */
    int is_double;         /* 0: floats (Heisenberg), 1: doubles */
    int components;        /* per replica */
    int replicas;          /* 1, or 2 (the products follow) */
};

/* The range: `planes` planes of lx x rows sites (2D: one row), the first the lattice's
 * plane global_p0 of its last axis; the lattice's extents and ndim. */
struct cuda_fixed_range {
    int ndim;
    int64_t extent[3];
    int64_t planes, global_p0;
};

/* A component's projection entries, L_x + L_y (+ L_z) (lib/modes.h's layout), and where
 * its P_last starts among them. */
static inline int64_t cuda_fixed_range_entries(const struct cuda_fixed_range *r,
                                               int64_t *last_at)
{
    int64_t n = 0;
    for (int mu = 0; mu < r->ndim; mu++)
        n += r->extent[mu];
    *last_at = n - r->extent[r->ndim - 1];
    return n;
}

/*
 * Heisenberg's integer projections of the modes in fixed point (lib/modes_exact.h's
 * latmc_modes_fixed: round(v 2^25), ties to even; with two replicas also of the products
 * s^0_m s^1_n, exact in double; modes_fixed.cuh) of the source's range, added into the
 * device array proj in lib/modes.h's layout (component c's P_x, P_y (3D), P_last at
 * c (L_x + L_y (+ L_z))) in one read by one resident wave of blocks, each a group of
 * column strips and a range of rows: one atomic per column, component and block, and per
 * row, component and group of strips (P_last's rows of one plane summed first). Float
 * sources with L_x below 2^20 only (cudaErrorNotSupported otherwise). Enqueued on
 * `stream` (mode_fixed.cu).
 */
cudaError_t cuda_fixed_projections(cudaStream_t stream, const struct cuda_fixed_source *src,
                                   const struct cuda_fixed_range *r, int64_t *proj);

#ifdef __cplusplus
}
#endif

#endif
