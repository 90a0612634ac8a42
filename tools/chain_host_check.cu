// Host check (no GPU needed) of the chains' dependency window
// (backends/cuda/ising/ising_packed_chain.cu, chain_window): for lattices of many shapes
// (2D and 3D, 8, 2 and 1 words a lane, rows of one to several groups, partial last tasks,
// windows that wrap and windows of every task), each task's window of the step before
// must hold every task whose groups hold a row that the task's groups read or write: the
// rows themselves, y +- 1 and (3D) z +- 1 with the periodic wrap (packed_locate's
// neighbour rows; the word beside a group lies in its own row). Since "holds a row the
// other reads" is symmetric, the same window then also holds every task of the step
// before that reads the task's rows (what the task must not overwrite too early).
// Run: tools/chain-host-check.sh BUILD_DIR (a configured build tree, for generated headers).
#include <cstdio>
#include <cstdlib>
#include <vector>
#include "ising_packed_chain.cu"

/* The module's per-device cache (cuda_device.c) stands outside this host program. */
extern "C" cudaError_t cuda_device_sm_count(int device, int *count)
{
    return cudaDeviceGetAttribute(count, cudaDevAttrMultiProcessorCount, device);
}

static int check_shape(int nd, long long lx, long long ly, long long lz, int nw)
{
    latmc_lattice g;
    g.ndim = nd;
    g.lx = lx;
    g.ly = ly;
    g.lz = nd == 3 ? lz : 1;
    g.nsites = g.lx * g.ly * g.lz;
    const struct packed_geom p = packed_geom_of(&g, nw);
    struct chain_args a;
    a.groups = p.nrows * p.groups;
    a.tasks = (unsigned)((a.groups + CHAIN_WARP - 1) / CHAIN_WARP);
    a.radius = nd == 3 ? p.ly : 1;
    int bad = 0;
    std::vector<char> in(a.tasks);
    for (unsigned j = 0; j < a.tasks && bad < 5; j++) {
        long long first = 0, count = 0;
        chain_window(p, a, j, &first, &count);
        if (first < 0 || first >= (long long)a.tasks || count < 1 || count > (long long)a.tasks) {
            fprintf(stderr, "shape %dD %lldx%lldx%lld nw %d task %u: window (%lld, %lld) out of "
                    "range\n", nd, lx, ly, lz, nw, j, first, count);
            bad++;
            continue;
        }
        for (unsigned k = 0; k < a.tasks; k++)
            in[k] = 0;
        for (long long i = 0; i < count; i++)
            in[(first + i) % a.tasks] = 1;
        for (long long gi = (long long)j * CHAIN_WARP;
             gi < (long long)(j + 1) * CHAIN_WARP && gi < a.groups; gi++) {
            const long long r = gi / p.groups, y = r % p.ly, z = r / p.ly;
            long long rows[5] = { r, ((y + 1) % p.ly) + p.ly * z,
                                  ((y + p.ly - 1) % p.ly) + p.ly * z, r, r };
            if (nd == 3) {
                rows[3] = y + p.ly * ((z + 1) % p.lz);
                rows[4] = y + p.ly * ((z + p.lz - 1) % p.lz);
            }
            for (long long row : rows)
                for (long long h = row * p.groups; h < (row + 1) * p.groups; h++)
                    if (!in[h / CHAIN_WARP] && bad < 5) {
                        fprintf(stderr, "shape %dD %lldx%lldx%lld nw %d: task %u (group %lld) "
                                "reads row %lld of task %lld, outside its window (%lld, %lld)\n",
                                nd, lx, ly, lz, nw, j, gi, row, h / CHAIN_WARP, first, count);
                        bad++;
                    }
        }
    }
    return bad;
}

int main(void)
{
    int bad = 0, shapes = 0;
    for (int nw : { 8, 2, 1 })
        for (long long lx : { 16LL, 32LL, 48LL, 64LL, 80LL, 96LL, 128LL, 144LL, 192LL, 256LL,
                              384LL, 768LL, 4096LL }) {
            if ((lx / 16) % nw != 0)
                continue;
            for (long long ly = 2; ly <= 70; ly += (ly < 12 ? 2 : 14)) {
                bad += check_shape(2, lx, ly, 1, nw);
                shapes++;
            }
            for (long long ly : { 2LL, 4LL, 6LL, 10LL, 16LL, 34LL })
                for (long long lz : { 2LL, 4LL, 6LL, 8LL, 12LL, 30LL }) {
                    bad += check_shape(3, lx, ly, lz, nw);
                    shapes++;
                }
        }
    if (bad) {
        fprintf(stderr, "chain host check: %d failure(s)\n", bad);
        return 1;
    }
    printf("chain host check: the window of every task holds every row it reads (%d shapes)\n",
           shapes);
    return 0;
}
