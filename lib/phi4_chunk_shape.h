/*
 * Internal: the shapes of the phi^4 chunk schedule (doc/models/phi4.md, "Chunk schedule"),
 * one rule for every backend, so that a shape one backend takes the others take too and
 * run the same chain (backends/cpu/phi4/phi4_chunks.c, backends/cuda/phi4/cuda_phi4_plan.c).
 *
 * W = 4 ncolours: a row segment of W sites holds, for every colour, the four lanes of one
 * Philox block. A chunk of b_x x b_y [x b_z] sites needs b_x a multiple of W, every b_mu at
 * least 2, and L_mu divisible by 2 b_mu (the sub-grids alternate chunks, so every axis
 * holds an even number of them). The default: b_x = W and b_y (and b_z) the largest d >= 2
 * with 2 d dividing L_mu, up to a cap (256 in 2D, 16 in 3D); none where L_x is not a
 * multiple of 2 W or no such d exists (the site order runs instead).
 */
#ifndef LATMC_LIB_PHI4_CHUNK_SHAPE_H
#define LATMC_LIB_PHI4_CHUNK_SHAPE_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

enum { LATMC_PHI4_CHUNK_CAP_2D = 256, LATMC_PHI4_CHUNK_CAP_3D = 16 };

/* The largest d in [2, cap] with 2 d dividing the extent; 0 if none (an odd extent too). */
static inline int latmc_phi4_chunk_divisor(int64_t extent, int cap)
{
    if (extent % 2 != 0)
        return 0;
    for (int d = cap; d >= 2; d--)
        if ((extent / 2) % d == 0)
            return d;
    return 0;
}

/* The default shape for extents ext[0..ndim-1] and segment width w into b (b[2] = 1 in 2D);
 * false, b untouched, where none fits. */
static inline bool latmc_phi4_chunk_default(int ndim, const int64_t ext[3], int w, int b[3])
{
    if (ext[0] % (2 * w) != 0)
        return false;
    const int cap = ndim == 3 ? LATMC_PHI4_CHUNK_CAP_3D : LATMC_PHI4_CHUNK_CAP_2D;
    const int by = latmc_phi4_chunk_divisor(ext[1], cap);
    const int bz = ndim == 3 ? latmc_phi4_chunk_divisor(ext[2], LATMC_PHI4_CHUNK_CAP_3D) : 1;
    if (by == 0 || bz == 0)
        return false;
    b[0] = w;
    b[1] = by;
    b[2] = bz;
    return true;
}

/*
 * A shape written as ndim extents joined by 'x' ("64x16x16"), checked against the rules
 * for extents ext and width w: true with b filled (b[2] = 1 in 2D), or false with the rule
 * it breaks as a sentence in why (the caller prefixes the variable that named it).
 */
static inline bool latmc_phi4_chunk_parse(const char *text, int ndim, const int64_t ext[3],
                                          int w, int b[3], char *why, size_t why_size)
{
    long v[3] = { 0, 0, 1 };
    int n = 0;
    const char *s = text;
    while (n < 3) {
        char *end;
        if (*s < '0' || *s > '9')
            break;
        errno = 0;
        v[n] = strtol(s, &end, 10);
        if (errno != 0 || v[n] > (1L << 20))
            break;
        n++;
        s = end;
        if (*s != 'x')
            break;
        s++;
    }
    if (n != ndim || *s != '\0') {
        snprintf(why, why_size, "expected %d chunk extents joined by 'x' (e.g. %s)", ndim,
                 ndim == 3 ? "32x16x8" : "32x256");
        return false;
    }
    if (v[0] % w != 0) {
        snprintf(why, why_size, "the x extent %ld of a chunk must be a multiple of %d (4 "
                 "Philox lanes x %d colours)", v[0], w, w / 4);
        return false;
    }
    static const char axis[] = "xyz";
    for (int mu = 0; mu < ndim; mu++)
        if (v[mu] < 2 || ext[mu] % (2 * v[mu]) != 0) {
            snprintf(why, why_size, "the %c extent %ld of a chunk must be at least 2 and "
                     "divide L_%c = %lld an even number of times (the sub-grids alternate "
                     "chunks)", axis[mu], v[mu], axis[mu], (long long)ext[mu]);
            return false;
        }
    for (int mu = 0; mu < 3; mu++)
        b[mu] = (int)v[mu];
    return true;
}

#endif
