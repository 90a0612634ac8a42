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
 * Two kernels: the rows (four threads per row and component, one per lane, each a serial
 * sum over its sites; the lanes combined by two shuffles in exactly that pairing), into the
 * scratch; then the planes (a thread per plane and component, a serial sum over the rows).
 * Every product and sum is rounded on its own (__dmul_rn, __dadd_rn: no fused
 * multiply-adds, as the module's -fmad=false), so each tile equals the CPU's bit for bit.
 */
#include <stdint.h>

#include "mode_tiles.h"

#define LANES 4          /* MODES_LANES of lib/modes_planes.c */
#define ROW_THREADS 256
#define PLANE_THREADS 128

/* Component c of the tile at the range's site i: replica 0's component c, or (c past the
 * replica's components) the product of replica 0's m and replica 1's n, exact in double. */
template <typename T>
__device__ __forceinline__ double tile_component(const T *data, int64_t stride, int K, int c,
                                                 int64_t i)
{
    if (c < K)
        return (double)data[(int64_t)c * stride + i];
    const int m = (c - K) / K, n = (c - K) % K;
    return __dmul_rn((double)data[(int64_t)m * stride + i],
                     (double)data[(int64_t)(K + n) * stride + i]);
}

/* Group g = (c planes + q) rows + y: row y of plane q, component c; its LANES threads
 * are consecutive (lane = t mod LANES), so that the shuffles stay in one warp. Out: the
 * row's x-direction re, im and its total at 3 g. */
template <typename T>
__global__ void tile_rows_kernel(const T *data, int64_t stride, int K, int C, int64_t lx,
                                 int64_t rows, int64_t planes, const double *cx,
                                 const double *sx, double *out)
{
    const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    const int lane = (int)(t % LANES);
    const int64_t g = t / LANES;
    const bool valid = g < (int64_t)C * planes * rows;
    double re = 0.0, im = 0.0, sum = 0.0;
    if (valid) {
        const int64_t y = g % rows, cq = g / rows;
        const int64_t q = cq % planes;
        const int c = (int)(cq / planes);
        const int64_t row0 = (q * rows + y) * lx;
        for (int64_t x = lane; x < lx; x += LANES) {
            const double v = tile_component(data, stride, K, c, row0 + x);
            re = __dadd_rn(re, __dmul_rn(v, cx[x]));
            im = __dadd_rn(im, __dmul_rn(v, sx[x]));
            sum = __dadd_rn(sum, v);
        }
    }
    /* every thread of the warp (the block is whole warps) takes part: lane 0 ends with
     * (l0 + l1) + (l2 + l3), lane 2 having made l2 + l3 in the first step */
    const unsigned all = 0xffffffffu;
    re = __dadd_rn(re, __shfl_down_sync(all, re, 1));
    im = __dadd_rn(im, __shfl_down_sync(all, im, 1));
    sum = __dadd_rn(sum, __shfl_down_sync(all, sum, 1));
    re = __dadd_rn(re, __shfl_down_sync(all, re, 2));
    im = __dadd_rn(im, __shfl_down_sync(all, im, 2));
    sum = __dadd_rn(sum, __shfl_down_sync(all, sum, 2));
    if (valid && lane == 0) {
        out[3 * g] = re;
        out[3 * g + 1] = im;
        out[3 * g + 2] = sum;
    }
}

/* Thread (c, q): plane q's tile entries of component c from its rows, in row order. */
__global__ void tile_planes_kernel(const double *rows_in, int C, int ndim, int64_t rows,
                                   int64_t planes, int64_t global_p0, const double *cy,
                                   const double *sy, const double *cp, const double *sp,
                                   double *tiles)
{
    const int64_t t = (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (t >= (int64_t)C * planes)
        return;
    const int c = (int)(t / planes);
    const int64_t q = t % planes;
    const double *r = rows_in + 3 * t * rows; /* t = c planes + q: the groups' order */
    double xr = 0.0, xi = 0.0, yr = 0.0, yi = 0.0, total = 0.0;
    for (int64_t y = 0; y < rows; y++) {
        const double row = r[3 * y + 2];
        xr = __dadd_rn(xr, r[3 * y]);
        xi = __dadd_rn(xi, r[3 * y + 1]);
        if (ndim == 3) {
            yr = __dadd_rn(yr, __dmul_rn(row, cy[y]));
            yi = __dadd_rn(yi, __dmul_rn(row, sy[y]));
        }
        total = __dadd_rn(total, row);
    }
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
    const int K = src->components, C = cuda_tiles_components(src);
    const int64_t lx = r->extent[0], rows = r->ndim == 3 ? r->extent[1] : 1;
    const int64_t groups = (int64_t)C * r->planes * rows;
    const size_t need = 3 * (size_t)groups;
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
    const int64_t row_blocks = (groups * LANES + ROW_THREADS - 1) / ROW_THREADS;
    if (src->is_double)
        tile_rows_kernel<double><<<(unsigned)row_blocks, ROW_THREADS, 0, stream>>>(
            (const double *)src->data, src->stride, K, C, lx, rows, r->planes, cos_of[0],
            sin_of[0], scratch->rows);
    else
        tile_rows_kernel<float><<<(unsigned)row_blocks, ROW_THREADS, 0, stream>>>(
            (const float *)src->data, src->stride, K, C, lx, rows, r->planes, cos_of[0],
            sin_of[0], scratch->rows);
    cudaError_t err = cudaGetLastError();
    if (err != cudaSuccess)
        return err;
    const int64_t items = (int64_t)C * r->planes;
    tile_planes_kernel<<<(unsigned)((items + PLANE_THREADS - 1) / PLANE_THREADS), PLANE_THREADS,
                         0, stream>>>(scratch->rows, C, r->ndim, rows, r->planes, r->global_p0,
                                      r->ndim == 3 ? cos_of[1] : NULL,
                                      r->ndim == 3 ? sin_of[1] : NULL, cos_of[last],
                                      sin_of[last], tiles);
    return cudaGetLastError();
}
