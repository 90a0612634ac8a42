/*
 * The one-lattice reduction's order of a Heisenberg member's sums (chunk by chunk from 0.0,
 * the sites of a chunk in order and each site's bonds in mu order, then the chunks of a
 * plane, then the planes): the reference of tools/heisenberg-sums-host-check.sh and
 * tools/heisenberg-window-host-check.sh. Included after the kernels' text (ens_heisenberg_shape,
 * ens_heisenberg_chunks); host C++ only.
 */
#ifndef HEISENBERG_SUMS_REFERENCE_H
#define HEISENBERG_SUMS_REFERENCE_H
#include <vector>

static void heisenberg_sums_reference(const ens_heisenberg_shape &g,
                                      const ens_heisenberg_chunks &ch, const float *s0,
                                      const float *J, double out[4])
{
    const int n = g.n, rows = g.ly * g.lz;
    std::vector<double> p(4 * (size_t)ch.nchunks);
    for (int chunk = 0; chunk < ch.nchunks; chunk++) {
        const int first = chunk * ch.rows_per_chunk;
        const int last = first + ch.rows_per_chunk < rows ? first + ch.rows_per_chunk : rows;
        double acc[4] = { 0, 0, 0, 0 };
        for (int row = first; row < last; row++) {
            const int y = row % g.ly, z = row / g.ly, rbase = row * g.lx;
            for (int x = 0; x < g.lx; x++) {
                const int i = rbase + x;
                const int fwd[3] = { rbase + (x + 1 == g.lx ? 0 : x + 1),
                                     x + g.lx * ((y + 1 == g.ly ? 0 : y + 1) + g.ly * z),
                                     x + g.lx * (y + g.ly * (z + 1 == g.lz ? 0 : z + 1)) };
                for (int mu = 0; mu < g.ndim; mu++) {
                    const int f = fwd[mu];
                    const double dot = (double)s0[i] * s0[f] + (double)s0[n + i] * s0[n + f] +
                                       (double)s0[2 * n + i] * s0[2 * n + f];
                    acc[0] += (double)J[mu * n + i] * dot;
                }
                for (int c = 0; c < 3; c++)
                    acc[1 + c] += s0[c * n + i];
            }
        }
        for (int k = 0; k < 4; k++)
            p[(size_t)k * ch.nchunks + chunk] = acc[k];
    }
    for (int k = 0; k < 4; k++) {
        double t = 0.0;
        for (int c0 = 0; c0 < ch.nchunks; c0 += ch.chunks_per_plane) {
            double plane = 0.0;
            for (int c = c0; c < c0 + ch.chunks_per_plane; c++)
                plane += p[(size_t)k * ch.nchunks + c];
            t += plane;
        }
        out[k] = t;
    }
}

/* A member's shape and the batch's chunks (backends/cuda/heisenberg/cuda_heisenberg_batch.c,
 * heisenberg_chunks_of). */
static void heisenberg_shape_and_chunks(int ndim, int lx, int ly, int lz, ens_heisenberg_shape *g,
                                  ens_heisenberg_chunks *ch)
{
    *g = { ndim, lx, ly, ndim == 3 ? lz : 1, 0 };
    g->n = g->lx * g->ly * g->lz;
    const int rows_per_plane = ndim == 3 ? g->ly : 1;
    ch->rows_per_chunk = (int)latmc_heisenberg_rows_per_chunk(g->lx, rows_per_plane);
    ch->nchunks = (g->ly * g->lz + ch->rows_per_chunk - 1) / ch->rows_per_chunk;
    ch->chunks_per_plane = rows_per_plane / ch->rows_per_chunk;
}

#endif
