/*
 * Internal to the CUDA module: what the Ising model's file (cuda_ising.c) offers the rest
 * of the module beyond its kernel table.
 */
#ifndef LATMC_CUDA_ISING_H
#define LATMC_CUDA_ISING_H

#include <stdbool.h>
#include <stdint.h>

#include "cuda_backend.h"

/*
 * Planes [p0, p1) of the last axis (3D: z planes of L_x L_y sites; 2D: rows of L_x sites)
 * in the API's byte layout (int8 +-1, natural order), to or from host memory `buf` of
 * (p1 - p0) plane sites, on a one-device Ising sim. A packed-only sim converts through its
 * staging piece, so no memory is allocated. Enqueued on cs->stream: the caller
 * synchronises (cudaStreamSynchronize) before reading or reusing `buf`, and selects the
 * device first. cudaErrorInvalidValue for a plane range outside the lattice. set_planes
 * leaves the other planes as they were.
 */
cudaError_t cuda_ising_get_planes(const latmc_sim *sim, struct cuda_sim *cs, int64_t p0,
                                  int64_t p1, int8_t *buf);
cudaError_t cuda_ising_set_planes(const latmc_sim *sim, struct cuda_sim *cs, int64_t p0,
                                  int64_t p1, const int8_t *buf);

/*
 * Pack the +-J couplings of lattice g (one device's lattice, or a slab's local lattice)
 * from the host's bytes eps_host (eps[ndim i + mu] of the whole lattice, total_planes
 * planes of the last axis), a piece of planes at a time through a window of at most about
 * LATMC_CUDA_ISING_PIECE_BYTES (at least 2 planes), allocated and freed here: local plane
 * lp of g is plane (first_plane + lp) mod total_planes of the whole lattice. Synchronises
 * `stream` (the device current), also after a failure; the first CUDA error.
 */
cudaError_t cuda_ising_pack_couplings_host(cudaStream_t stream, const struct latmc_lattice *g,
                                   const int8_t *eps_host, int64_t total_planes,
                                   int64_t first_plane, uint32_t *colour0, uint32_t *colour1);

/* Rows of L_x sites per staging piece (LATMC_CUDA_ISING_PIECE_BYTES, 256 MiB by default;
 * at least one row, at most `rows`). */
int64_t cuda_ising_piece_rows(int64_t lx, int64_t rows);

/* Whether the sim keeps only its packed layout resident (doc/cuda.md, "Memory"). */
bool cuda_ising_is_packed_only(const struct cuda_sim *cs);

#endif
