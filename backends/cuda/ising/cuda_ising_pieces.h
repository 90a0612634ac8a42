/*
 * Internal to the CUDA module: the Ising packed and 1-bit layouts' work in pieces of planes
 * or rows (cuda_ising_pieces.c), for the packed leaf of the one executor
 * (cuda_ising_packed.c) and the 1-bit leaf (cuda_ising_bits.c).
 */
#ifndef LATMC_CUDA_ISING_PIECES_H
#define LATMC_CUDA_ISING_PIECES_H

#include <stdbool.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "lattice_numbering.h"

/* What the couplings are packed into: the packed coupling words (ising_packed.h,
 * cuda_ising_pack_couplings_planes; colour0, colour1 each colour's), or the 1-bit layout's
 * coupling bits (ising_bits.h, cuda_ising_bits_couplings_planes; L_x a multiple of 64). */
enum cuda_ising_eps_form { CUDA_ISING_EPS_PACKED, CUDA_ISING_EPS_BITS };

/*
 * Pack the +-J couplings of lattice g (one device's lattice, or a box's local lattice)
 * into `form` from the host's bytes eps_host (eps[ndim i + mu] of the whole lattice,
 * total_planes planes of the last axis), a piece of planes at a time through a window of
 * at most about LATMC_CUDA_ISING_PIECE_BYTES (at least 2 planes), allocated and freed
 * here: local plane lp of g is plane (first_plane + lp) mod total_planes of the whole
 * lattice. Synchronises `stream` (the device current), also after a failure; the first
 * CUDA error.
 */
cudaError_t cuda_ising_pack_couplings_host(cudaStream_t stream, const struct latmc_lattice *g,
                                           enum cuda_ising_eps_form form,
                                           const int8_t *eps_host, int64_t total_planes,
                                           int64_t first_plane, uint32_t *colour0,
                                           uint32_t *colour1);

/* The same with the couplings drawn on the device (cuda_coupling_draws.h) instead of
 * copied: local plane lp of g is the lattice's plane (first_plane + lp) mod L. */
cudaError_t cuda_ising_pack_couplings_drawn(cudaStream_t stream, const struct latmc_lattice *g,
                                            enum cuda_ising_eps_form form, int64_t L,
                                            int64_t first_plane, uint64_t coupling_seed,
                                            uint32_t *colour0, uint32_t *colour1);

/*
 * A leaf's host conversions of rows: the bytes of `rows` rows from local row row0 of g
 * (buf, L_x a row) <-> both colours' words of them (w[0], w[1]), L_x / sites_per_word
 * words of each colour a row (the packed layout: 16; the 1-bit layout: 64).
 */
struct cuda_ising_host_form {
    int64_t sites_per_word;
    void (*pack)(const struct latmc_lattice *g, int64_t row0, int64_t rows, const int8_t *buf,
                 uint32_t *const w[2]);
    void (*unpack)(const struct latmc_lattice *g, int64_t row0, int64_t rows,
                   uint32_t *const w[2], int8_t *buf);
};

/*
 * The host path of a leaf's put_planes (host: the bytes) or get_planes (out: the bytes) of
 * local rows [row0, row0 + rows) of a box with halos (local lattice g; each colour's words
 * colour0, colour1, a row's words after the previous row's): the words by two copies each
 * way (a run of each colour) through host_words (pinned, room for both colours' words of
 * the rows), converted on the host by `form`, waited for (the pinned words are reused at
 * the next call). The first CUDA error.
 */
cudaError_t cuda_ising_host_rows(cudaStream_t stream, const struct latmc_lattice *g,
                                 const struct cuda_ising_host_form *form, uint32_t *colour0,
                                 uint32_t *colour1, uint32_t *host_words, int64_t row0,
                                 int64_t rows, const int8_t *host, int8_t *out);

/* Rows of L_x sites per staging piece (LATMC_CUDA_ISING_PIECE_BYTES, 256 MiB by default;
 * at least one row, at most `rows`). */
int64_t cuda_ising_piece_rows(int64_t lx, int64_t rows);

#endif
