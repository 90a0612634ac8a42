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
 * scratch; then the planes (a thread per plane and component, a serial sum over the rows,
 * the block's threads loading the rows into shared memory for its few adding threads).
 * Every product and sum is rounded on its own (__dmul_rn, __dadd_rn: no fused
 * multiply-adds, as the module's -fmad=false), so each tile equals the CPU's bit for bit.
 */
#include <stdint.h>

#include "mode_tiles.h"

#define LANES 4          /* MODES_LANES of lib/modes_planes.c */
#define ROW_THREADS 128 /* blocks of 256: two replicas' FSS 0.285 against 0.245 (H200) */
/* a row thread's sites loaded together: 8, 4 with two replicas (their 12 components'
 * accumulators take 72 registers; fewer loads in flight a thread, twice the threads) */
#define ROW_AHEAD(R) ((R) == 2 ? 4 : 8)
/* the x phases in shared memory up to this L_x (32 KiB), else read from global memory */
#define ROW_PHASES_MAX 2048

/*
 * Thread t: lane t mod LANES of group g = t / LANES = q rows + y, row y of plane q (the
 * group's LANES threads consecutive, so that the shuffles stay in one warp). Each site's
 * values are read once: replica 0's K components (and replica 1's), and the tile's C
 * components made from them (the replicas' products exact in double). Out: the row's
 * x-direction re, im and its total of component c at 3 (y C planes + c planes + q), so
 * that the planes' threads (c planes + q) read consecutive rows of the scratch. The x
 * phases come from the block's copy in shared memory where L_x <= ROW_PHASES_MAX, read
 * at their use (not held in registers ahead with the sites' values): 76 and 125 registers
 * a thread (one and two replicas; 95 and 190 before), 24 and 16 warps a SM (16 and 8).
 * ncu at 256^3 on an H200: two replicas 171 us (216 before), one replica 77.6 (74).
 */
template <typename T, int K, int R>
__global__ void __launch_bounds__(ROW_THREADS, R == 2 ? 4 : 6)
tile_rows_kernel(const T *data, int64_t stride, int64_t lx, int64_t rows, int64_t planes,
                 const double *cx, const double *sx, double *out)
{
    constexpr int C = K + (R == 2 ? K * K : 0);
    constexpr int AHEAD = ROW_AHEAD(R);
    extern __shared__ double row_phases[]; /* cos then sin of x, L_x each */
    const bool in_shared = lx <= ROW_PHASES_MAX;
    if (in_shared) {
        for (int64_t x = threadIdx.x; x < lx; x += blockDim.x) {
            row_phases[x] = cx[x];
            row_phases[lx + x] = sx[x];
        }
        __syncthreads();
    }
    const double *cos_of = in_shared ? row_phases : cx;
    const double *sin_of = in_shared ? row_phases + lx : sx;
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
        /* AHEAD sites' loads in flight before they are added (the additions wait for
         * each other; the loads need not) */
        for (int64_t x0 = lane; x0 < lx; x0 += LANES * AHEAD) {
            T va[AHEAD][K], vb[AHEAD][R == 2 ? K : 1];
#pragma unroll
            for (int u = 0; u < AHEAD; u++) {
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
            }
#pragma unroll
            for (int u = 0; u < AHEAD; u++) {
                const int64_t x = x0 + LANES * u;
                if (x >= lx)
                    break;
                const double cos_x = cos_of[x], sin_x = sin_of[x];
#pragma unroll
                for (int c = 0; c < C; c++) {
                    const double v = c < K ? (double)va[u][c < K ? c : 0]
                                           : __dmul_rn((double)va[u][c < K ? 0 : (c - K) / K],
                                                       (double)vb[u][c < K || R != 2 ? 0 : (c - K) % K]);
                    re[c] = __dadd_rn(re[c], __dmul_rn(v, cos_x));
                    im[c] = __dadd_rn(im[c], __dmul_rn(v, sin_x));
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

/* Item t = c planes + q: plane q's tile entries of component c from its rows, in row
 * order. A block takes PLANE_ITEMS consecutive items: all its threads load PLANE_ROWS rows
 * of them at a time (PLANE_ROWS x 3 x PLANE_ITEMS doubles, a thread PLANE_LOADS, each row's
 * items consecutive in memory) into shared memory, the next rows' loads in flight while
 * lane i of warp 0 adds item i's rows of the last, in row order. (Before, a thread per
 * item loaded its own rows 16 at a time: 24 / 25 us at 256^3 for one / two replicas, ncu
 * on an H200, the few warps' loads in flight one round trip after another; now 10 / 12.) */
#define PLANE_THREADS 256
#define PLANE_ITEMS 8
#define PLANE_ROWS 64
#define PLANE_LOADS (PLANE_ROWS * 3 * PLANE_ITEMS / PLANE_THREADS) /* 6 */
static_assert(PLANE_LOADS * PLANE_THREADS == PLANE_ROWS * 3 * PLANE_ITEMS, "whole loads");

__global__ void __launch_bounds__(PLANE_THREADS)
tile_planes_kernel(const double *rows_in, int C, int ndim, int64_t rows, int64_t planes,
                   int64_t global_p0, const double *cy, const double *sy, const double *cp,
                   const double *sp, double *tiles)
{
    __shared__ double buf[2][PLANE_ROWS * 3 * PLANE_ITEMS];
    __shared__ double phase[2][2][PLANE_ROWS];
    const int64_t items = (int64_t)C * planes;
    const int64_t i0 = (int64_t)blockIdx.x * PLANE_ITEMS;
    const int64_t step = 3 * items; /* from one row to the next */
    const int n_here = (int)min((int64_t)PLANE_ITEMS, items - i0) * 3; /* doubles a row */
    const bool three = ndim == 3;
    const double *in = rows_in + 3 * i0;
    double v[PLANE_LOADS];
    /* this thread's doubles of the rows y0 ..: element e = threadIdx.x + u PLANE_THREADS
     * is row e / (3 PLANE_ITEMS), double e % (3 PLANE_ITEMS) of the block's items */
#define PLANE_LOAD(Y0)                                                                      \
    _Pragma("unroll") for (int u = 0; u < PLANE_LOADS; u++)                                 \
    {                                                                                       \
        const int e = (int)threadIdx.x + u * PLANE_THREADS;                                 \
        const int r = e / (3 * PLANE_ITEMS), o = e % (3 * PLANE_ITEMS);                     \
        v[u] = (Y0) + r < rows && o < n_here ? in[((Y0) + r) * step + o] : 0.0;             \
    }
#define PLANE_STORE(Y0, B)                                                                  \
    _Pragma("unroll") for (int u = 0; u < PLANE_LOADS; u++)                                 \
        buf[B][threadIdx.x + u * PLANE_THREADS] = v[u];                                     \
    if (three && threadIdx.x < 2 * PLANE_ROWS) {                                            \
        const int r = (int)threadIdx.x % PLANE_ROWS, k = (int)threadIdx.x / PLANE_ROWS;     \
        if ((Y0) + r < rows)                                                                \
            phase[B][k][r] = (k ? sy : cy)[(Y0) + r];                                       \
    }
    PLANE_LOAD(0);
    PLANE_STORE(0, 0);
    __syncthreads();
    const int item = (int)threadIdx.x; /* warp 0's lanes < PLANE_ITEMS add */
    const bool adds = item < PLANE_ITEMS && i0 + item < items;
    double xr = 0.0, xi = 0.0, yr = 0.0, yi = 0.0, total = 0.0;
    for (int64_t y0 = 0, b = 0; y0 < rows; y0 += PLANE_ROWS, b ^= 1) {
        const bool more = y0 + PLANE_ROWS < rows;
        if (more) { /* the next rows' loads in flight during the additions */
            PLANE_LOAD(y0 + PLANE_ROWS);
        }
        if (adds) {
            const int m = (int)min((int64_t)PLANE_ROWS, rows - y0);
            const double *at = buf[b] + 3 * item;
            for (int r = 0; r < m; r++) {
                const double row = at[3 * r * PLANE_ITEMS + 2];
                xr = __dadd_rn(xr, at[3 * r * PLANE_ITEMS]);
                xi = __dadd_rn(xi, at[3 * r * PLANE_ITEMS + 1]);
                if (three) {
                    yr = __dadd_rn(yr, __dmul_rn(row, phase[b][0][r]));
                    yi = __dadd_rn(yi, __dmul_rn(row, phase[b][1][r]));
                }
                total = __dadd_rn(total, row);
            }
        }
        if (more) {
            PLANE_STORE(y0 + PLANE_ROWS, b ^ 1);
        }
        __syncthreads();
    }
#undef PLANE_LOAD
#undef PLANE_STORE
    if (!adds)
        return;
    const int64_t t = i0 + item;
    const int c = (int)(t / planes);
    const int64_t q = t % planes;
    double *tile = tiles + q * (int64_t)C * ndim * 2 + (int64_t)c * ndim * 2;
    tile[0] = xr;
    tile[1] = xi;
    if (three) {
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
    const cudaError_t grown = cuda_tiles_rows_of(scratch, C, r);
    if (grown != cudaSuccess)
        return grown;
    const unsigned row_blocks = (unsigned)((r->planes * rows * LANES + ROW_THREADS - 1) /
                                           ROW_THREADS);
    const size_t phase_bytes = lx <= ROW_PHASES_MAX ? 2 * (size_t)lx * sizeof(double) : 0;
#define LAUNCH_ROWS(T, K, R)                                                                \
    tile_rows_kernel<T, K, R><<<row_blocks, ROW_THREADS, phase_bytes, stream>>>(            \
        (const T *)src->data, src->stride, lx, rows, r->planes, phases, phases + lx,        \
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
    const cudaError_t err = cudaGetLastError();
    return err != cudaSuccess ? err : cuda_mode_tiles_of_rows(stream, C, r, phases, scratch, tiles);
}

extern "C" cudaError_t cuda_tiles_rows_of(struct cuda_tiles_scratch *scratch, int C,
                                          const struct cuda_tiles_range *r)
{
    const int64_t rows = r->ndim == 3 ? r->extent[1] : 1;
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
    return cudaSuccess;
}

extern "C" cudaError_t cuda_mode_tiles_of_rows(cudaStream_t stream, int C,
                                               const struct cuda_tiles_range *r,
                                               const double *phases,
                                               const struct cuda_tiles_scratch *scratch,
                                               double *tiles)
{
    if (r->planes <= 0)
        return cudaSuccess;
    const int64_t rows = r->ndim == 3 ? r->extent[1] : 1;
    /* the tables: cos then sin of each axis in turn */
    const double *cos_of[3], *sin_of[3], *at = phases;
    for (int mu = 0; mu < r->ndim; mu++) {
        cos_of[mu] = at;
        sin_of[mu] = at + r->extent[mu];
        at += 2 * r->extent[mu];
    }
    const int last = r->ndim - 1;
    const int64_t items = (int64_t)C * r->planes;
    tile_planes_kernel<<<(unsigned)((items + PLANE_ITEMS - 1) / PLANE_ITEMS), PLANE_THREADS,
                         0, stream>>>(scratch->rows, C, r->ndim, rows, r->planes, r->global_p0,
                                      r->ndim == 3 ? cos_of[1] : NULL,
                                      r->ndim == 3 ? sin_of[1] : NULL, cos_of[last],
                                      sin_of[last], tiles);
    return cudaGetLastError();
}

/* Warp i: double i of the tiles, added over the planes in plane order from zero; the lanes
 * load TOTAL_AHEAD x 32 planes' values at a time (their loads in flight together: one
 * round trip for up to 256 planes, where 32 a time took 8.6 us at 256^3, ncu on an H200;
 * 6.4 then) and lane 0 adds them in plane order, taking each from its lane by a shuffle
 * (a whole 32 unrolled: 4.7 us). */
#define TOTAL_AHEAD 8
__global__ void tiles_total_kernel(const double *tiles, int64_t planes, int doubles,
                                   double *total)
{
    const int i = (int)((blockIdx.x * blockDim.x + threadIdx.x) / 32);
    const int lane = (int)(threadIdx.x & 31u);
    if (i >= doubles) /* the whole warp */
        return;
    double sum = 0.0;
    for (int64_t q0 = 0; q0 < planes; q0 += 32 * TOTAL_AHEAD) {
        double v[TOTAL_AHEAD];
#pragma unroll
        for (int u = 0; u < TOTAL_AHEAD; u++) {
            const int64_t q = q0 + 32 * u + lane;
            v[u] = q < planes ? tiles[q * doubles + i] : 0.0;
        }
#pragma unroll
        for (int u = 0; u < TOTAL_AHEAD; u++) {
            const int64_t base = q0 + 32 * u;
            if (base >= planes)
                break;
            if (planes - base >= 32) { /* unrolled: the shuffles issued ahead of the chain */
#pragma unroll
                for (int k = 0; k < 32; k++)
                    sum = __dadd_rn(sum, __shfl_sync(0xffffffffu, v[u], k));
            } else {
                for (int k = 0; k < (int)(planes - base); k++)
                    sum = __dadd_rn(sum, __shfl_sync(0xffffffffu, v[u], k));
            }
        }
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
