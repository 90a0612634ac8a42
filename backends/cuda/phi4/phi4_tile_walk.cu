/*
 * phi^4's measurement and its Fourier modes' rows in one read of a 2D field (the tile
 * walk): each row's five partial sums (phi4_row_walk's doubles) and its three mode sums
 * (phi4_mode_rows_kernel's: v cos(k x), v sin(k x) and v into lane x mod 4, the lanes
 * combined as (l0 + l1) + (l2 + l3)), both in the CPU's order of operations, so each row's
 * eight values are the two separate kernels' bit for bit.
 *
 * Why a kernel of its own: a thread a row is the only way to keep the CPU's serial chains
 * of additions with every lane busy, but a warp of 32 rows reading its rows straight from
 * global memory keeps too few bytes in flight (32 rows far apart, a 16-byte load each):
 * both separate kernels ran at ~1 TB/s. Here a block of PHI4_TW_ROWS threads (a row each)
 * copies its rows, chunk after chunk of 128 bytes a row, plus the row below the first and
 * the row above the last, into a ring of PHI4_TW_STAGES stages in shared memory by
 * asynchronous 16-byte copies (coalesced: 8 threads a row chunk), two chunks ahead of the
 * one its threads walk, and each thread walks its own row from there (the rows 16 bytes
 * apart in banks: a row's stride is 144 bytes). Both sums come from one walk, so the
 * modes cost their own additions only; without the modes (mode_rows NULL) it is the
 * measurement's walk of 2D rows (launch_rows, phi4_kernels.cu).
 */
#include <cuda_pipeline.h>

#include "cuda_device.h"
#include "phi4_cuda.h"
#include "phi4_device.cuh"

#define PHI4_TW_ROWS 128   /* rows (threads) a block */
#define PHI4_TW_STAGES 3   /* chunks in the ring: one walked, two in flight */
#define PHI4_TW_CHUNK_BYTES 128
#define PHI4_TW_ROW_BYTES (PHI4_TW_CHUNK_BYTES + 16) /* a stage row's stride */
#define PHI4_TW_STAGE_BYTES ((PHI4_TW_ROWS + 2) * PHI4_TW_ROW_BYTES)
#define PHI4_TW_SMEM (PHI4_TW_STAGES * PHI4_TW_STAGE_BYTES)

/* The fewest rows for the tile walk (fewer leave most SMs idle: the warp-a-row kernel
 * does better there). */
#define PHI4_TW_MIN_ROWS 4096

/* Chunk `chunk` of the block's n rows and their two neighbour rows into stage `slot`:
 * stage row 0 is the row below the first (down0, an offset in values), rows 1 .. n the
 * block's (from base), row n + 1 the row above the last (upn). MODES: the chunk's phases
 * too, cos(k x) then sin(k x), 16 bytes in each of the first rows' padding (phase piece q
 * after stage row q's values: no room beside the ring for them at 4 blocks an SM, and
 * read from global memory they stalled the walk on their latency). */
template <typename R, bool MODES>
__device__ __forceinline__ void phi4_tw_issue(const R *phi, int64_t lx, int64_t base,
                                              int64_t down0, int64_t upn, int n, int chunk,
                                              const double *cx, const double *sx,
                                              unsigned char *stage)
{
    constexpr int C = PHI4_TW_CHUNK_BYTES / sizeof(R), PIECES = PHI4_TW_CHUNK_BYTES / 16,
                  PV = 16 / sizeof(R), PHASE_PIECES = C / 2; /* a table's, 2 doubles each */
    static_assert(2 * PHASE_PIECES <= PHI4_TW_ROWS + 2, "a padding for every phase piece");
    for (int p = threadIdx.x; p < (n + 2) * PIECES; p += PHI4_TW_ROWS) {
        const int r = p / PIECES, q = p % PIECES;
        const int64_t row_at = r == 0 ? down0 : r == n + 1 ? upn : base + (r - 1) * lx;
        __pipeline_memcpy_async(stage + r * PHI4_TW_ROW_BYTES + q * 16,
                                phi + row_at + (int64_t)chunk * C + q * PV, 16);
    }
    if (MODES && threadIdx.x < 2 * PHASE_PIECES) {
        const int q = threadIdx.x;
        const double *from = (q < PHASE_PIECES ? cx + 2 * q : sx + 2 * (q - PHASE_PIECES)) +
                             (int64_t)chunk * C;
        __pipeline_memcpy_async(stage + q * PHI4_TW_ROW_BYTES + PHI4_TW_CHUNK_BYTES, from, 16);
    }
    __pipeline_commit();
}

/* Phase piece q of a stage (phi4_tw_issue). */
__device__ __forceinline__ double2 phi4_tw_phases(const unsigned char *stage, int q)
{
    return *reinterpret_cast<const double2 *>(stage + q * PHI4_TW_ROW_BYTES +
                                              PHI4_TW_CHUNK_BYTES);
}

/* Four values of a stage row, as doubles. */
template <typename R> struct phi4_tw_quad;
template <> struct phi4_tw_quad<float> {
    static __device__ __forceinline__ void load(const unsigned char *at, double (&v)[4])
    {
        const float4 q = *reinterpret_cast<const float4 *>(at);
        v[0] = q.x; v[1] = q.y; v[2] = q.z; v[3] = q.w;
    }
};
template <> struct phi4_tw_quad<double> {
    static __device__ __forceinline__ void load(const unsigned char *at, double (&v)[4])
    {
        const double2 a = reinterpret_cast<const double2 *>(at)[0];
        const double2 b = reinterpret_cast<const double2 *>(at)[1];
        v[0] = a.x; v[1] = a.y; v[2] = b.x; v[3] = b.y;
    }
};

/* A row's three mode sums, lane x mod 4 each. */
struct phi4_tw_modes {
    double re[4] = { 0, 0, 0, 0 }, im[4] = { 0, 0, 0, 0 }, sum[4] = { 0, 0, 0, 0 };

    __device__ __forceinline__ void add(int lane, double v, double c, double s)
    {
        re[lane] += v * c;
        im[lane] += v * s;
        sum[lane] += v;
    }

    __device__ __forceinline__ void store(double *out) const
    {
        out[0] = (re[0] + re[1]) + (re[2] + re[3]);
        out[1] = (im[0] + im[1]) + (im[2] + im[3]);
        out[2] = (sum[0] + sum[1]) + (sum[2] + sum[3]);
    }
};

/*
 * One thread a row of the 2D lattice g (rows = L_y; BOX: a box's own rows with their
 * neighbours' rows stored beside them, phi4_row_at), L_x a multiple of a chunk's values.
 * A site is added once its right neighbour is known: the chunk's last site waits, with
 * its own values kept, for the next chunk (the row's last for the row's first site), so
 * the sites go in x order, each into mode lane x mod 4.
 */
template <typename R, bool BOX, bool MODES>
__global__ void __launch_bounds__(PHI4_TW_ROWS)
phi4_tile_walk_kernel(struct latmc_lattice g, const R *phi, const double *cx, const double *sx,
                      double *partials, double *mode_rows)
{
    extern __shared__ __align__(16) unsigned char phi4_tw_smem[];
    constexpr int C = PHI4_TW_CHUNK_BYTES / sizeof(R);
    const int64_t rows = g.ly, lx = g.lx;
    const int nchunks = (int)(lx / C), t = threadIdx.x;
    const int64_t tiles = (rows + PHI4_TW_ROWS - 1) / PHI4_TW_ROWS;
    for (int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const int64_t r0 = tile * PHI4_TW_ROWS;
        const int n = (int)(rows - r0 < PHI4_TW_ROWS ? rows - r0 : PHI4_TW_ROWS);
        const struct phi4_row_at<2, BOX> first_at(g, r0), last_at(g, r0 + n - 1);
        const int64_t base = first_at.base, down0 = base + first_at.down_y,
                      upn = last_at.base + last_at.up_y;
        for (int k = 0; k < PHI4_TW_STAGES - 1; k++) {
            if (k < nchunks)
                phi4_tw_issue<R, MODES>(phi, lx, base, down0, upn, n, k, cx, sx,
                                        phi4_tw_smem + k * PHI4_TW_STAGE_BYTES);
            else
                __pipeline_commit();
        }
        const bool mine = t < n;
        struct phi4_row_sums s;
        struct phi4_tw_modes m;
        /* the site waiting for its right neighbour: value, left, up, down, phases */
        double pv = 0, pl = 0, pu = 0, pd = 0, pc = 0, ps = 0, first = 0;
        if (mine)
            pv = (double)phi[base + (int64_t)t * lx + lx - 1]; /* x = -1: the row's last */
        for (int c = 0; c < nchunks; c++) {
            __pipeline_wait_prior(PHI4_TW_STAGES - 2); /* chunk c's copies, this thread's */
            __syncthreads();                          /* ... and every thread's */
            const int ahead = c + PHI4_TW_STAGES - 1; /* into chunk c - 1's slot */
            if (ahead < nchunks)
                phi4_tw_issue<R, MODES>(phi, lx, base, down0, upn, n, ahead, cx, sx,
                                        phi4_tw_smem +
                                            (ahead % PHI4_TW_STAGES) * PHI4_TW_STAGE_BYTES);
            else
                __pipeline_commit();
            if (!mine)
                continue;
            const unsigned char *st = phi4_tw_smem + (c % PHI4_TW_STAGES) * PHI4_TW_STAGE_BYTES;
            const unsigned char *own = st + (t + 1) * PHI4_TW_ROW_BYTES,
                                *up = own + PHI4_TW_ROW_BYTES, *down = own - PHI4_TW_ROW_BYTES;
#pragma unroll
            for (int j = 0; j < C / 4; j++) {
                double o[4], u[4], d[4];
                phi4_tw_quad<R>::load(own + j * 4 * sizeof(R), o);
                phi4_tw_quad<R>::load(up + j * 4 * sizeof(R), u);
                phi4_tw_quad<R>::load(down + j * 4 * sizeof(R), d);
                double2 c01 = {}, c23 = {}, s01 = {}, s23 = {};
                if (MODES) { /* every thread the same: broadcast reads */
                    c01 = phi4_tw_phases(st, 2 * j);
                    c23 = phi4_tw_phases(st, 2 * j + 1);
                    s01 = phi4_tw_phases(st, C / 2 + 2 * j);
                    s23 = phi4_tw_phases(st, C / 2 + 2 * j + 1);
                }
                if (c == 0 && j == 0) {
                    first = o[0];
                } else { /* the quad's site before, waiting since the last quad */
                    s.add<2>(pv, o[0], pl, pu, pd);
                    if (MODES)
                        m.add(3, pv, pc, ps);
                }
                s.add<2>(o[0], o[1], pv, u[0], d[0]);
                s.add<2>(o[1], o[2], o[0], u[1], d[1]);
                s.add<2>(o[2], o[3], o[1], u[2], d[2]);
                if (MODES) {
                    m.add(0, o[0], c01.x, s01.x);
                    m.add(1, o[1], c01.y, s01.y);
                    m.add(2, o[2], c23.x, s23.x);
                }
                pv = o[3], pl = o[2], pu = u[3], pd = d[3], pc = c23.y, ps = s23.y;
            }
        }
        if (mine) { /* x = L_x - 1, its right neighbour the row's first site */
            s.add<2>(pv, first, pl, pu, pd);
            s.store(partials + PHI4_NPARTIALS * (r0 + t));
            if (MODES) {
                m.add(3, pv, pc, ps);
                m.store(mode_rows + 3 * (r0 + t));
            }
        }
        __syncthreads(); /* the ring free for the next tile */
    }
}

template <typename R, bool BOX, bool MODES>
static cudaError_t launch_tile_walk(cudaStream_t stream, const struct latmc_lattice &g,
                                    const void *phi, const double *cx, const double *sx,
                                    double *partials, double *mode_rows)
{
    const void *kernel = (const void *)phi4_tile_walk_kernel<R, BOX, MODES>;
    cudaError_t err = cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                           PHI4_TW_SMEM);
    if (err == cudaSuccess)
        err = cudaFuncSetAttribute(kernel, cudaFuncAttributePreferredSharedMemoryCarveout,
                                   cudaSharedmemCarveoutMaxShared);
    if (err != cudaSuccess)
        return err;
    int64_t blocks = (g.ly + PHI4_TW_ROWS - 1) / PHI4_TW_ROWS;
    if (blocks > CUDA_MAX_BLOCKS)
        blocks = CUDA_MAX_BLOCKS;
    phi4_tile_walk_kernel<R, BOX, MODES><<<(unsigned)blocks, PHI4_TW_ROWS, PHI4_TW_SMEM,
                                           stream>>>(g, (const R *)phi, cx, sx, partials,
                                                     mode_rows);
    return cudaGetLastError();
}

template <typename R>
static cudaError_t launch_tile_walk_of(cudaStream_t stream, const struct latmc_lattice &g,
                                       bool box, const void *phi, const double *cx,
                                       const double *sx, double *partials, double *mode_rows)
{
    if (mode_rows)
        return box ? launch_tile_walk<R, true, true>(stream, g, phi, cx, sx, partials, mode_rows)
                   : launch_tile_walk<R, false, true>(stream, g, phi, cx, sx, partials,
                                                      mode_rows);
    return box ? launch_tile_walk<R, true, false>(stream, g, phi, cx, sx, partials, mode_rows)
               : launch_tile_walk<R, false, false>(stream, g, phi, cx, sx, partials, mode_rows);
}

extern "C" bool cuda_phi4_tile_walk_fits(const struct latmc_lattice *g, bool single)
{
    const int64_t chunk = PHI4_TW_CHUNK_BYTES / (single ? sizeof(float) : sizeof(double));
    return g->ndim == 2 && g->lx % chunk == 0 && g->lx >= 256 && g->ly >= PHI4_TW_MIN_ROWS;
}

extern "C" cudaError_t cuda_phi4_tile_walk(cudaStream_t stream, const struct latmc_lattice *g,
                                           bool single, bool box, const void *phi,
                                           const double *cx, const double *sx,
                                           double *partials, double *mode_rows)
{
    if (!cuda_phi4_tile_walk_fits(g, single))
        return cudaErrorNotSupported;
    return single ? launch_tile_walk_of<float>(stream, *g, box, phi, cx, sx, partials, mode_rows)
                  : launch_tile_walk_of<double>(stream, *g, box, phi, cx, sx, partials,
                                                mode_rows);
}
