// Host check (no GPU needed): the chunk sums the batched Heisenberg sweep kernel leaves before
// a tempering round (backends/cuda/ensembles/ens_heisenberg_kernels.cu: ens_heis_chunk_sum,
// every lane's skew, and ens_heis_chunks_total) against the sequential order of the
// one-lattice reduction (heis_chunk_sums_kernel, heis_planes_total_kernel), restated here,
// bit for bit, on shapes with one chunk a plane, several, and 2D rows.
// Run: tools/heis-sums-host-check.sh BUILD_DIR (a configured build tree, for generated headers).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include "ens_heisenberg_kernels.cu"

static uint64_t rs = 88172645463325252ull;
static float rf() { rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17; return (float)((double)(rs >> 11) * 0x1p-53 * 2.0 - 1.0); }

/* the sequential kernel's order: chunk by chunk, sites in order, then planes */
static void reference(const ens_heis_shape &g, const ens_heis_chunks &ch, const float *s0,
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

static int check(int ndim, int lx, int ly, int lz)
{
    ens_heis_shape g = { ndim, lx, ly, ndim == 3 ? lz : 1, 0 };
    g.n = g.lx * g.ly * g.lz;
    /* the batch's chunks (ens_heisenberg_batch.c, heis_init) */
    const int rows_per_plane = ndim == 3 ? g.ly : 1;
    ens_heis_chunks ch;
    ch.rows_per_chunk = (int)latmc_heisenberg_rows_per_chunk(g.lx, rows_per_plane);
    ch.nchunks = (g.ly * g.lz + ch.rows_per_chunk - 1) / ch.rows_per_chunk;
    ch.chunks_per_plane = rows_per_plane / ch.rows_per_chunk;
    std::vector<float> s(3 * (size_t)g.n), J((size_t)ndim * g.n);
    for (auto &v : s) v = rf();
    for (auto &v : J) v = rf();
    double want[4];
    reference(g, ch, s.data(), J.data(), want);
    int bad = 0;
    for (int lane = 0; lane < 32; lane++) {
        std::vector<double> p(4 * (size_t)ch.nchunks);
        for (int k = 0; k < 4; k++)
            for (int c = 0; c < ch.nchunks; c++)
                p[(size_t)k * ch.nchunks + c] =
                    ndim == 3 ? ens_heis_chunk_sum<3>(g, s.data(), J.data(), ch, k, c, lane)
                              : ens_heis_chunk_sum<2>(g, s.data(), J.data(), ch, k, c, lane);
        for (int k = 0; k < 4; k++) {
            const double got = ens_heis_chunks_total(p.data() + (size_t)k * ch.nchunks, ch);
            if (memcmp(&got, &want[k], sizeof got) != 0) {
                if (bad++ < 4)
                    printf("  %dD %dx%dx%d lane %d sum %d: %.17g, the sequential order %.17g\n",
                           ndim, lx, ly, g.lz, lane, k, got, want[k]);
            }
        }
    }
    printf("%dD %dx%dx%d: %d rows a chunk, %d chunks, %d a plane: %s\n", ndim, lx, ly, g.lz,
           ch.rows_per_chunk, ch.nchunks, ch.chunks_per_plane, bad ? "DIFFER" : "same bits");
    return bad != 0;
}

int main()
{
    int fail = 0;
    fail |= check(3, 16, 16, 16);
    fail |= check(3, 8, 8, 8);
    fail |= check(3, 32, 64, 4);  /* two chunks a plane */
    fail |= check(3, 64, 24, 5);  /* chunks of 16 rows, rows_per_plane 24: 8 rows a chunk */
    fail |= check(3, 6, 10, 14);
    fail |= check(2, 16, 16, 1);
    fail |= check(2, 64, 48, 1);
    printf(fail ? "heis sums host check: FAILED\n" : "heis sums host check: passed\n");
    return fail;
}
