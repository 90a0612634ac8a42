/*
 * The 1-bit layout's rows of bytes <-> words on the host (cuda_ising_bits.c's host path:
 * a box with halos' planes of up to HOST_SITES sites, a part's halo exchange), the same
 * words as the device's cuda_ising_bits_pack_rows / unpack_rows: colour c's lane i of
 * group gi of local row r is the site x = 64 gi + 2 i + (((y + z) & 1) ^ c) of that row
 * (y, z its local coordinates), bit set for -1. A box with halos starts on an even plane,
 * so a local row has its lattice row's parity and these are the lattice's words of the
 * row. Header-only, so that tools/bits_host_check.cu checks them against the layout's
 * definition without a GPU.
 */
#ifndef LATMC_CUDA_ISING_BITS_HOST_H
#define LATMC_CUDA_ISING_BITS_HOST_H

#include <stdint.h>

#include "lattice_numbering.h" /* struct latmc_lattice */

/* Local row r's parity: (y + z) & 1 of its coordinates in the box's local lattice g. */
static inline int cuda_ising_bits_row_parity(const struct latmc_lattice *g, int64_t r)
{
    const int64_t y = g->ndim == 3 ? r % g->ly : r, z = g->ndim == 3 ? r / g->ly : 0;
    return (int)((y + z) & 1);
}

/* Both colours' words (w[0], w[1], L_x / 64 a row) of `rows` rows from local row row0 on
 * -> the bytes of those rows (buf, L_x a row). */
static inline void cuda_ising_bits_host_unpack(const struct latmc_lattice *g, int64_t row0,
                                               int64_t rows, uint32_t *const w[2],
                                               int8_t *buf)
{
    const int64_t lx = g->lx, gpr = lx / 64;
    for (int64_t k = 0; k < rows; k++) {
        const int par0 = cuda_ising_bits_row_parity(g, row0 + k);
        int8_t *row = buf + k * lx;
        for (int c = 0; c < 2; c++) {
            const uint32_t *words = w[c] + k * gpr;
            const int par = par0 ^ c;
            for (int64_t gi = 0; gi < gpr; gi++)
                for (int i = 0; i < 32; i++)
                    row[64 * gi + 2 * i + par] = (words[gi] >> i) & 1u ? (int8_t)-1
                                                                       : (int8_t)1;
        }
    }
}

/* The bytes of `rows` rows from local row row0 on (buf) -> both colours' words (w[0],
 * w[1]). */
static inline void cuda_ising_bits_host_pack(const struct latmc_lattice *g, int64_t row0,
                                             int64_t rows, const int8_t *buf,
                                             uint32_t *const w[2])
{
    const int64_t lx = g->lx, gpr = lx / 64;
    for (int64_t k = 0; k < rows; k++) {
        const int par0 = cuda_ising_bits_row_parity(g, row0 + k);
        const int8_t *row = buf + k * lx;
        for (int c = 0; c < 2; c++) {
            uint32_t *words = w[c] + k * gpr;
            const int par = par0 ^ c;
            for (int64_t gi = 0; gi < gpr; gi++) {
                uint32_t v = 0;
                for (int i = 0; i < 32; i++)
                    v |= (uint32_t)(row[64 * gi + 2 * i + par] < 0) << i;
                words[gi] = v;
            }
        }
    }
}

#endif
