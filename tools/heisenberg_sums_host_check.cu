// Host check (no GPU needed): the chunk sums the batched Heisenberg sweep kernel leaves before
// a tempering round (backends/cuda/heisenberg/heisenberg_batch_kernels.cu:
// ens_heisenberg_chunk_sum, every lane's skew, and ens_heisenberg_chunks_total) against the
// sequential order of the one-lattice reduction (heisenberg_chunk_sums_kernel,
// heisenberg_planes_total_kernel), restated here, bit for bit, on shapes with one chunk a
// plane, several, and 2D rows. Run: tools/heisenberg-sums-host-check.sh BUILD_DIR (a
// configured build tree, for generated headers).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include "heisenberg_batch_kernels.cu"

/* The module's per-device cache (cuda_device.c, C11 atomics) stands outside this host
 * program: its calls here ask the runtime directly, or answer what this build is. */
extern "C" cudaError_t cuda_device_smem_optin(int device, int *bytes)
{
    return cudaDeviceGetAttribute(bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
}
/* ... and the kernels' PTX version (cuda_image.cu's probe): this program is compiled for
 * sm_90 alone, so its code is compute_90's. */
extern "C" cudaError_t cuda_device_code_ptx(int device, int *version)
{
    (void)device;
    *version = 90;
    return cudaSuccess;
}

static uint64_t rs = 88172645463325252ull;
static float rf() { rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17; return (float)((double)(rs >> 11) * 0x1p-53 * 2.0 - 1.0); }

#include "heisenberg_sums_reference.h"

static int check(int ndim, int lx, int ly, int lz)
{
    ens_heisenberg_shape g;
    ens_heisenberg_chunks ch;
    heisenberg_shape_and_chunks(ndim, lx, ly, lz, &g, &ch);
    std::vector<float> s(3 * (size_t)g.n), J((size_t)ndim * g.n);
    for (auto &v : s) v = rf();
    for (auto &v : J) v = rf();
    double want[4];
    heisenberg_sums_reference(g, ch, s.data(), J.data(), want);
    int bad = 0;
    for (int lane = 0; lane < 32; lane++) {
        std::vector<double> p(4 * (size_t)ch.nchunks);
        for (int k = 0; k < 4; k++)
            for (int c = 0; c < ch.nchunks; c++)
                p[(size_t)k * ch.nchunks + c] =
                    ndim == 3 ? ens_heisenberg_chunk_sum<3>(g, s.data(), J.data(), ch, k, c, lane)
                              : ens_heisenberg_chunk_sum<2>(g, s.data(), J.data(), ch, k, c, lane);
        for (int k = 0; k < 4; k++) {
            const double got = ens_heisenberg_chunks_total(p.data() + (size_t)k * ch.nchunks, ch);
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
    printf(fail ? "heisenberg sums host check: FAILED\n" : "heisenberg sums host check: passed\n");
    return fail;
}
