/*
 * The per-plane tiles of the Fourier modes on the device (mode_tiles.h), in the CPU's order
 * of floating-point operations (lib/modes_planes.c, DEFINE_DENSE_PLANE; doc/observables.md,
 * "The reduction"):
 *
 *   in each row, site x adds v_c(x) cos(k x), v_c(x) sin(k x) and v_c(x) into lane x mod 4,
 *   sites in x order; the row's values are the lanes combined as (l0 + l1) + (l2 + l3);
 *   the plane's x-direction sums are the rows' added in row order from zero, its
 *   y-direction sums (3D) the rows' totals times the phase of y added in row order, and its
 *   last-direction sums its total (the rows' totals in row order) times the phase of the
 *   plane's index.
 *
 * Two kernels: the rows (four threads per row, one per lane, each a serial sum over its
 * sites of every component, reading each site's values once, ROW_AHEAD sites' loads in
 * flight together; the lanes combined by two shuffles in exactly that pairing), into the
 * scratch; then the planes (a warp per plane and component, its lanes loading 32 rows at
 * a time, a serial sum over the rows).
 * Every product and sum is rounded on its own (__dmul_rn, __dadd_rn: no fused
 * multiply-adds, as the module's -fmad=false), so each tile equals the CPU's bit for bit.
 */
#include <stdint.h>

#include "mode_tiles.h"

#define LANES 4          /* MODES_LANES of lib/modes_planes.c */
#define ROW_THREADS 256
#define PLANE_THREADS 128
#define ROW_AHEAD 8      /* a row thread's sites loaded together */

/*
 * Thread t: lane t mod LANES of group g = t / LANES = q rows + y, row y of plane q (the
 * group's LANES threads consecutive, so that the shuffles stay in one warp). Each site's
 * values are read once: replica 0's K components (and replica 1's), and the tile's C
 * components made from them (the replicas' products exact in double). Out: the row's
 * x-direction re, im and its total of component c at 3 (y C planes + c planes + q), so
 * that the planes' threads (c planes + q) read consecutive rows of the scratch.
 */
template <typename T, int K, int R>
__global__ void tile_rows_kernel(const T *data, int64_t stride, int64_t lx, int64_t rows,
                                 int64_t planes, const double *cx, const double *sx,
                                 double *out)
{
    constexpr int C = K + (R == 2 ? K * K : 0);
    const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int lane = (int)(t % LANES);
    const int64_t g = t / LANES;
    const bool valid = g < planes * rows;
    double re[C], im[C], sum[C];
#pragma unroll
    for (int c = 0; c < C; c++)
        re[c] = im[c] = sum[c] = 0.0;
    if (valid) {
        const int64_t row0 = g * lx;
        /* ROW_AHEAD sites' loads in flight before they are added (the additions wait for
         * each other; the loads need not) */
        for (int64_t x0 = lane; x0 < lx; x0 += LANES * ROW_AHEAD) {
            T va[ROW_AHEAD][K], vb[ROW_AHEAD][R == 2 ? K : 1];
            double cos_x[ROW_AHEAD], sin_x[ROW_AHEAD];
#pragma unroll
            for (int u = 0; u < ROW_AHEAD; u++) {
                const int64_t x = x0 + LANES * u;
                if (x >= lx)
                    break;
                const int64_t i = row0 + x;
#pragma unroll
                for (int k = 0; k < K; k++) {
                    va[u][k] = data[(int64_t)k * stride + i];
                    if (R == 2)
                        vb[u][R == 2 ? k : 0] = data[(int64_t)(K + k) * stride + i];
                }
                cos_x[u] = cx[x];
                sin_x[u] = sx[x];
            }
#pragma unroll
            for (int u = 0; u < ROW_AHEAD; u++) {
                if (x0 + LANES * u >= lx)
                    break;
#pragma unroll
                for (int c = 0; c < C; c++) {
                    const double v = c < K ? (double)va[u][c < K ? c : 0]
                                           : __dmul_rn((double)va[u][c < K ? 0 : (c - K) / K],
                                                       (double)vb[u][c < K || R != 2 ? 0 : (c - K) % K]);
                    re[c] = __dadd_rn(re[c], __dmul_rn(v, cos_x[u]));
                    im[c] = __dadd_rn(im[c], __dmul_rn(v, sin_x[u]));
                    sum[c] = __dadd_rn(sum[c], v);
                }
            }
        }
    }
    /* every thread of the warp (the block is whole warps) takes part: lane 0 ends with
     * (l0 + l1) + (l2 + l3), lane 2 having made l2 + l3 in the first step */
    const unsigned all = 0xffffffffu;
#pragma unroll
    for (int c = 0; c < C; c++)
        for (int d = 1; d < LANES; d *= 2) {
            re[c] = __dadd_rn(re[c], __shfl_down_sync(all, re[c], d));
            im[c] = __dadd_rn(im[c], __shfl_down_sync(all, im[c], d));
            sum[c] = __dadd_rn(sum[c], __shfl_down_sync(all, sum[c], d));
        }
    if (valid && lane == 0) {
        const int64_t q = g / rows, y = g % rows;
#pragma unroll
        for (int c = 0; c < C; c++) {
            double *o = out + 3 * (y * C * planes + c * planes + q);
            o[0] = re[c];
            o[1] = im[c];
            o[2] = sum[c];
        }
    }
}

/* Warp (c, q): plane q's tile entries of component c from its rows, in row order. The
 * lanes load 32 rows at a time (their loads in flight together) and every lane adds them
 * all in row order, taking each from its lane by a shuffle; lane 0 writes. */
__global__ void tile_planes_kernel(const double *rows_in, int C, int ndim, int64_t rows,
                                   int64_t planes, int64_t global_p0, const double *cy,
                                   const double *sy, const double *cp, const double *sp,
                                   double *tiles)
{
    const int64_t t = ((int64_t)blockIdx.x * blockDim.x + threadIdx.x) / 32;
    const int lane = (int)(threadIdx.x & 31u);
    if (t >= (int64_t)C * planes) /* the whole warp */
        return;
    const int c = (int)(t / planes);
    const int64_t q = t % planes;
    const int64_t step = 3 * (int64_t)C * planes; /* from one row to the next */
    const unsigned all = 0xffffffffu;
    double xr = 0.0, xi = 0.0, yr = 0.0, yi = 0.0, total = 0.0;
    for (int64_t y0 = 0; y0 < rows; y0 += 32) {
        const int64_t y = y0 + lane;
        double r0 = 0.0, r1 = 0.0, r2 = 0.0, c_y = 0.0, s_y = 0.0;
        if (y < rows) {
            const double *r = rows_in + y * step + 3 * t;
            r0 = r[0];
            r1 = r[1];
            r2 = r[2];
            if (ndim == 3) {
                c_y = cy[y];
                s_y = sy[y];
            }
        }
        const int n = rows - y0 < 32 ? (int)(rows - y0) : 32;
        for (int k = 0; k < n; k++) {
            const double row = __shfl_sync(all, r2, k);
            xr = __dadd_rn(xr, __shfl_sync(all, r0, k));
            xi = __dadd_rn(xi, __shfl_sync(all, r1, k));
            if (ndim == 3) {
                yr = __dadd_rn(yr, __dmul_rn(row, __shfl_sync(all, c_y, k)));
                yi = __dadd_rn(yi, __dmul_rn(row, __shfl_sync(all, s_y, k)));
            }
            total = __dadd_rn(total, row);
        }
    }
    if (lane != 0)
        return;
    double *tile = tiles + q * (int64_t)C * ndim * 2 + (int64_t)c * ndim * 2;
    tile[0] = xr;
    tile[1] = xi;
    if (ndim == 3) {
        tile[2] = yr;
        tile[3] = yi;
    }
    const int64_t p = global_p0 + q;
    tile[2 * (ndim - 1)] = __dmul_rn(total, cp[p]);
    tile[2 * (ndim - 1) + 1] = __dmul_rn(total, sp[p]);
}

extern "C" void cuda_tiles_scratch_free(struct cuda_tiles_scratch *s)
{
    cudaFree(s->rows);
    s->rows = NULL;
    s->doubles = 0;
}

extern "C" int cuda_tiles_components(const struct cuda_tiles_source *src)
{
    return src->components + (src->replicas == 2 ? src->components * src->components : 0);
}

extern "C" cudaError_t cuda_mode_tiles(cudaStream_t stream, const struct cuda_tiles_source *src,
                                       const struct cuda_tiles_range *r, const double *phases,
                                       struct cuda_tiles_scratch *scratch, double *tiles)
{
    if (r->planes <= 0)
        return cudaSuccess;
    const int C = cuda_tiles_components(src);
    const int64_t lx = r->extent[0], rows = r->ndim == 3 ? r->extent[1] : 1;
    const size_t need = 3 * (size_t)C * (size_t)r->planes * (size_t)rows;
    if (scratch->doubles < need) {
        cuda_tiles_scratch_free(scratch);
        const cudaError_t err = cudaMalloc((void **)&scratch->rows, need * sizeof(double));
        if (err != cudaSuccess) {
            scratch->rows = NULL;
            return err;
        }
        scratch->doubles = need;
    }
    /* the tables: cos then sin of each axis in turn */
    const double *cos_of[3], *sin_of[3], *at = phases;
    for (int mu = 0; mu < r->ndim; mu++) {
        cos_of[mu] = at;
        sin_of[mu] = at + r->extent[mu];
        at += 2 * r->extent[mu];
    }
    const int last = r->ndim - 1;
    const unsigned row_blocks = (unsigned)((r->planes * rows * LANES + ROW_THREADS - 1) /
                                           ROW_THREADS);
#define LAUNCH_ROWS(T, K, R)                                                                \
    tile_rows_kernel<T, K, R><<<row_blocks, ROW_THREADS, 0, stream>>>(                      \
        (const T *)src->data, src->stride, lx, rows, r->planes, cos_of[0], sin_of[0],       \
        scratch->rows)
    /* the sources there are: Heisenberg's spins (3 floats, one or two replicas), phi^4's
     * field (a float or a double) */
    if (!src->is_double && src->components == 3 && src->replicas == 1)
        LAUNCH_ROWS(float, 3, 1);
    else if (!src->is_double && src->components == 3 && src->replicas == 2)
        LAUNCH_ROWS(float, 3, 2);
    else if (!src->is_double && src->components == 1 && src->replicas == 1)
        LAUNCH_ROWS(float, 1, 1);
    else if (src->is_double && src->components == 1 && src->replicas == 1)
        LAUNCH_ROWS(double, 1, 1);
    else
        return cudaErrorInvalidValue; /* a source no leaf has (a bug in the leaf) */
#undef LAUNCH_ROWS
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess)
        return err;
    const int64_t items = (int64_t)C * r->planes, warps = PLANE_THREADS / 32;
    tile_planes_kernel<<<(unsigned)((items + warps - 1) / warps), PLANE_THREADS,
                         0, stream>>>(scratch->rows, C, r->ndim, rows, r->planes, r->global_p0,
                                      r->ndim == 3 ? cos_of[1] : NULL,
                                      r->ndim == 3 ? sin_of[1] : NULL, cos_of[last],
                                      sin_of[last], tiles);
    return cudaGetLastError();
}

/* Warp i: double i of the tiles, added over the planes in plane order from zero; the lanes
 * load 32 planes' values at a time (their loads in flight together) and lane 0 adds them
 * in plane order, taking each from its lane by a shuffle. */
__global__ void tiles_total_kernel(const double *tiles, int64_t planes, int doubles,
                                   double *total)
{
    const int i = (int)((blockIdx.x * blockDim.x + threadIdx.x) / 32);
    const int lane = (int)(threadIdx.x & 31u);
    if (i >= doubles) /* the whole warp */
        return;
    double sum = 0.0;
    for (int64_t q0 = 0; q0 < planes; q0 += 32) {
        const double v = q0 + lane < planes ? tiles[(q0 + lane) * doubles + i] : 0.0;
        const int n = planes - q0 < 32 ? (int)(planes - q0) : 32;
        for (int k = 0; k < n; k++)
            sum = __dadd_rn(sum, __shfl_sync(0xffffffffu, v, k));
    }
    if (lane == 0)
        total[i] = sum;
}

extern "C" cudaError_t cuda_tiles_total(cudaStream_t stream, const double *tiles,
                                        int64_t planes, int doubles, double *total)
{
    const int threads = 128, warps = threads / 32;
    tiles_total_kernel<<<(unsigned)((doubles + warps - 1) / warps), threads, 0, stream>>>(
        tiles, planes, doubles, total);
    return cudaGetLastError();
}
