/*
 * phi^4's measurement of a 2D field in one read of its rows (the tile walk: a tile is a
 * block's 128 rows), and with it, where asked, the Fourier modes' integer projections
 * (lib/modes.h, lib/modes_exact.h: q = round(phi 2^20) of each site, summed into P_x of
 * its column and P_y of its row): each row's five partial sums are phi4_row_walk's doubles
 * (the CPU's order of operations, so the same bits) either way.
 *
 * Why a kernel of its own: a thread a row is the only way to keep the CPU's serial chains
 * of additions with every lane busy, but a warp of 32 rows reading its rows straight from
 * global memory keeps too few bytes in flight (32 rows far apart, a 16-byte load each).
 * Here a block of PHI4_TW_ROWS threads (a row each) copies its rows, chunk after chunk of
 * 128 bytes a row, plus the row below the first and the row above the last, into a ring of
 * PHI4_TW_STAGES stages in shared memory by asynchronous 16-byte copies (coalesced: 8
 * threads a row chunk), two chunks ahead of the one its threads walk, and each thread walks
 * its own row from there (the rows 16 bytes apart in banks: a row's stride is 144 bytes).
 * Without the projections it is the measurement's walk of 2D rows (launch_rows,
 * phi4_kernels.cu).
 *
 * The projections (PROJ) need no second read. Doubles: a site's q is one FMA on the value
 * the measurement loaded (cuda_modes_field_bits), a row's raw bits summed in a 64-bit
 * register, a column's sum over the warp's 32 rows two warp sums (__reduce_add_sync) of
 * 32-bit pieces (cuda_modes_field_pieces), kept by the lane of the column's place in the
 * chunk; a row's P_y entry is its thread's alone, one atomic a row. Floats: the block has a
 * helper warp for each warp of walkers, counting the same 32 rows from the same stage while
 * the walkers measure (phi4_tw_help_chunk: q by one FMA in float where |phi 2^20| < 2^22,
 * 5 instructions a site, none on the FP64 pipe that binds the walk, nothing added to the
 * walkers' own chains of dependent operations; a chunk holding a larger value, or one not
 * finite, counted again exactly, phi4_tw_exact_sum). The warps' column sums are added
 * through the stage rows' padding (16 bytes a row that the copies leave alone), then one
 * 64-bit atomic per column, block and chunk. Integers: the order of the additions does not
 * matter.
 */
#include <cuda_pipeline.h>

#include "cuda_device.h"
#include "modes_fixed.cuh"
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
 * block's (from base), row n + 1 the row above the last (upn). The copies fill the first
 * 128 bytes of a stage row; its padding holds the columns' sums (phi4_tw_column). */
template <typename R, int NT>
__device__ __forceinline__ void phi4_tw_issue(const R *phi, int64_t lx, int64_t base,
                                              int64_t down0, int64_t upn, int n, int chunk,
                                              unsigned char *stage)
{
    constexpr int C = PHI4_TW_CHUNK_BYTES / sizeof(R), PIECES = PHI4_TW_CHUNK_BYTES / 16,
                  PV = 16 / sizeof(R);
    for (int p = threadIdx.x; p < (n + 2) * PIECES; p += NT) {
        const int r = p / PIECES, q = p % PIECES;
        const int64_t row_at = r == 0 ? down0 : r == n + 1 ? upn : base + (r - 1) * lx;
        __pipeline_memcpy_async(stage + r * PHI4_TW_ROW_BYTES + q * 16,
                                phi + row_at + (int64_t)chunk * C + q * PV, 16);
    }
    __pipeline_commit();
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

/* Warp w's sum of column `col` of a chunk in buffer `buf` (of two: a chunk's columns are
 * written while the chunk before's are read), in the padding of stage 0's rows, two 64-bit
 * values a row. */
#define PHI4_TW_WARPS (PHI4_TW_ROWS / 32)
static_assert(PHI4_TW_WARPS * 32 <= PHI4_TW_ROWS + 2, "the columns' buffers in the padding");
__device__ __forceinline__ unsigned long long *phi4_tw_column(unsigned char *smem, int buf,
                                                              int w, int col)
{
    const int i = (buf * PHI4_TW_WARPS + w) * 32 + col;
    return reinterpret_cast<unsigned long long *>(smem + (i / 2) * PHI4_TW_ROW_BYTES +
                                                  PHI4_TW_CHUNK_BYTES + (i % 2) * 8);
}

/* The block's sums of chunk `chunk`'s C columns (buffer buf, written by the warps that
 * counted: those with any of the n rows) added into P_x, column c's by the thread that
 * passes c (< C). Called after a barrier that follows the writes. */
template <int C>
__device__ __forceinline__ void phi4_tw_columns_out(unsigned char *smem, int buf, int n,
                                                    int chunk, int c, unsigned long long *proj)
{
    if (c < 0 || c >= C)
        return;
    unsigned long long total = 0;
    for (int w = 0; w < PHI4_TW_WARPS && 32 * w < n; w++)
        total += *phi4_tw_column(smem, buf, w, c);
    atomicAdd(proj + (int64_t)chunk * C + c, total);
}

/* Site value v's q counted into its row's raw bits and, through the warp (every lane
 * calls it, keep 0 for a lane without a row), its column's pieces, which lane `col` keeps. */
__device__ __forceinline__ void phi4_tw_count(double v, unsigned keep, int lane, int col,
                                              unsigned long long &row, unsigned &col_lo,
                                              unsigned &col_hi)
{
    const unsigned long long b = cuda_modes_field_bits(v);
    row += b;
    unsigned lo, hi;
    cuda_modes_field_pieces(b, keep, &lo, &hi);
    lo = cuda_modes_warp_sum(lo);
    hi = cuda_modes_warp_sum(hi);
    if (lane == col) {
        col_lo = lo;
        col_hi = hi;
    }
}

/* The exact sum of the q of n floats at `at`, `stride` bytes apart (the FMA's count,
 * cuda_modes_field_bits), modulo 2^64: where the float count's check fails
 * (cuda_modes_float_ok). */
__device__ __noinline__ unsigned long long phi4_tw_exact_sum(const unsigned char *at, int n,
                                                             int stride)
{
    unsigned long long bits = 0;
    for (int k = 0; k < n; k++)
        bits += cuda_modes_field_bits((double)*reinterpret_cast<const float *>(at + k * stride)) -
                CUDA_MODES_FIELD_BITS;
    return bits;
}

/*
 * HELP's count by a helper warp (every lane calling), for the block's rows w0 = 32 hw ..
 * w0 + m - 1 (m <= 32): lane l reads column l of a chunk down those rows (one row's 32
 * consecutive floats a load, as the strips), and adds each site's q into its column's sum
 * and into acc[r], the lane's share of row r (a register each: the loop over r unrolled).
 * So a site costs a load, the FMA, the check and two additions (modes_fixed.cuh's float
 * count), and the rows' sums over the lanes wait for phi4_tw_help_flush, at most
 * PHI4_TW_HELP_FLUSH chunks later. A chunk holding a value the count does not take
 * (cuda_modes_float_ok: in any lane) takes its q out of acc again and is counted exactly
 * (phi4_tw_exact_sum: each lane's column, and the row of lane l into row_bits).
 */
#define PHI4_TW_HELP_FLUSH 16 /* 32 lanes x 16 chunks x |q| <= 2^22: within 32 bits */

template <bool FULL>
__device__ __forceinline__ void phi4_tw_help_count(const unsigned char *top, int m,
                                                   unsigned (&acc)[32], unsigned &col,
                                                   unsigned &odd, int sign)
{
    /* sign -1: the chunk's q taken out of acc again, in unsigned arithmetic (a value the
     * count does not take, such as -24 whose difference is 2^31, may make any bits) */
#pragma unroll
    for (int r = 0; r < 32; r++)
        if (FULL || r < m) {
            const unsigned b = cuda_modes_float_bits(
                *reinterpret_cast<const float *>(top + r * PHI4_TW_ROW_BYTES));
            odd = cuda_modes_float_odd(odd, b);
            col += b - CUDA_MODES_FLOAT_BITS;
            acc[r] += (unsigned)sign * (b - CUDA_MODES_FLOAT_BITS); /* modulo 2^32 */
        }
}

__device__ __forceinline__ void phi4_tw_help_chunk(unsigned char *smem, const unsigned char *st,
                                                   int buf, int hw, int m, int lane,
                                                   unsigned (&acc)[32],
                                                   unsigned long long &row_bits)
{
    const unsigned char *top = st + (32 * hw + 1) * PHI4_TW_ROW_BYTES + lane * 4;
    unsigned col = 0, odd = 0;
    if (m == 32)
        phi4_tw_help_count<true>(top, m, acc, col, odd, 1);
    else
        phi4_tw_help_count<false>(top, m, acc, col, odd, 1);
    unsigned long long col_value = (unsigned long long)(long long)(int)col;
    if (__any_sync(0xffffffffu, !cuda_modes_float_ok(odd))) {
        unsigned none = 0;
        phi4_tw_help_count<false>(top, m, acc, none, none, -1); /* out of acc again */
        col_value = phi4_tw_exact_sum(top, m, PHI4_TW_ROW_BYTES);
        if (lane < m)
            row_bits += phi4_tw_exact_sum(st + (32 * hw + lane + 1) * PHI4_TW_ROW_BYTES, 32,
                                          (int)sizeof(float));
    }
    *phi4_tw_column(smem, buf, hw, lane) = col_value;
}

/* Row r's sum over the lanes' acc[r] into lane r's row_bits, acc cleared. */
__device__ __forceinline__ void phi4_tw_help_flush(unsigned (&acc)[32], int lane,
                                                   unsigned long long &row_bits)
{
#pragma unroll
    for (int r = 0; r < 32; r++) {
        const int sum = (int)__reduce_add_sync(0xffffffffu, acc[r]);
        if (lane == r)
            row_bits += (unsigned long long)(long long)sum;
        acc[r] = 0;
    }
}

/*
 * One thread a row of the 2D lattice g (rows = L_y; BOX: a box's own rows with their
 * neighbours' rows stored beside them, phi4_row_at), L_x a multiple of a chunk's values.
 * A site is added to the sums once its right neighbour is known: the chunk's last site
 * waits, with its own values kept, for the next chunk (the row's last for the row's first
 * site), so the sites go in x order. PROJ: the projections into proj (lib/modes.h's layout
 * of one component: P_x at x, the row's P_y at L_x + first_row + its row). Floats with
 * PROJ (HELP): threads from PHI4_TW_ROWS on are the helper warps, helper warp hw counting
 * the rows of walker warp hw; doubles: the walkers count between their sites (INLINE).
 */
template <typename R, bool PROJ>
constexpr bool phi4_tw_helped = PROJ && sizeof(R) == sizeof(float);

/* The blocks an SM that the kernels' registers are chosen for (__launch_bounds__): the
 * helped kernels 2 (128 registers: asked for 3, they spill and run slower); the floats'
 * walk alone 1, which lets it take 104 registers instead of 80 and run some 2-6 % faster
 * (its 56 KiB of shared memory hold it at 4 blocks an SM either way); doubles 0, the
 * compiler's own choice. */
template <typename R, bool PROJ>
constexpr int phi4_tw_min_blocks = phi4_tw_helped<R, PROJ> ? 2 : sizeof(R) == sizeof(float);

template <typename R, bool BOX, bool PROJ>
__global__ void __launch_bounds__(phi4_tw_helped<R, PROJ> ? 2 * PHI4_TW_ROWS : PHI4_TW_ROWS,
                                  phi4_tw_min_blocks<R, PROJ>)
phi4_tile_walk_kernel(struct latmc_lattice g, const R *phi, double *partials,
                      unsigned long long *proj, int64_t first_row)
{
    extern __shared__ __align__(16) unsigned char phi4_tw_smem[];
    constexpr bool HELP = phi4_tw_helped<R, PROJ>;
    constexpr int C = PHI4_TW_CHUNK_BYTES / sizeof(R),
                  NT = HELP ? 2 * PHI4_TW_ROWS : PHI4_TW_ROWS;
    static_assert(C <= 32, "a lane a column of a chunk");
    const int64_t rows = g.ly, lx = g.lx;
    const int nchunks = (int)(lx / C), t = threadIdx.x, lane = t % 32;
    /* HELP: threads from PHI4_TW_ROWS on help, warp hw of them counting rows 32 hw .. */
    const bool helper = HELP && t >= PHI4_TW_ROWS;
    const int hw = (t - PHI4_TW_ROWS) / 32;
    /* the thread that adds a chunk's column `lane` into P_x: the first helper warp, or
     * (without helpers) the first warp */
    const int col_out = HELP ? t - PHI4_TW_ROWS : t;
    const int64_t tiles = (rows + PHI4_TW_ROWS - 1) / PHI4_TW_ROWS;
    for (int64_t tile = blockIdx.x; tile < tiles; tile += gridDim.x) {
        const int64_t r0 = tile * PHI4_TW_ROWS;
        const int n = (int)(rows - r0 < PHI4_TW_ROWS ? rows - r0 : PHI4_TW_ROWS);
        const struct phi4_row_at<2, BOX> first_at(g, r0), last_at(g, r0 + n - 1);
        const int64_t base = first_at.base, down0 = base + first_at.down_y,
                      upn = last_at.base + last_at.up_y;
        for (int k = 0; k < PHI4_TW_STAGES - 1; k++) {
            if (k < nchunks)
                phi4_tw_issue<R, NT>(phi, lx, base, down0, upn, n, k,
                                     phi4_tw_smem + k * PHI4_TW_STAGE_BYTES);
            else
                __pipeline_commit();
        }
        const bool mine = !helper && t < n;
        /* the walkers' own count (PROJ without HELP): every lane of a warp with rows walks
         * (the columns' warp sums need all 32), a lane past the last row counting nothing */
        constexpr bool INLINE = PROJ && !HELP;
        const bool walks = helper ? false : INLINE ? 32 * (t / 32) < n : mine;
        const bool helps = helper && 32 * hw < n;
        const int hm = n - 32 * hw < 32 ? n - 32 * hw : 32; /* a helper warp's rows */
        const unsigned keep = mine ? ~0u : 0u;
        unsigned acc[HELP ? 32 : 1] = {}; /* HELP: the lane's shares of its warp's rows */
        struct phi4_row_sums s;
        /* PROJ: the row's q, as raw bits (doubles: less L_x magics at the row's end) or
         * (HELP) the helper lane's row's sum */
        unsigned long long row_bits = 0;
        /* the site waiting for its right neighbour: value, left, up, down */
        double pv = 0, pl = 0, pu = 0, pd = 0, first = 0;
        if (mine)
            pv = (double)phi[base + (int64_t)t * lx + lx - 1]; /* x = -1: the row's last */
        for (int c = 0; c < nchunks; c++) {
            __pipeline_wait_prior(PHI4_TW_STAGES - 2); /* chunk c's copies, this thread's */
            __syncthreads();                          /* ... and every thread's */
            const int ahead = c + PHI4_TW_STAGES - 1; /* into chunk c - 1's slot */
            if (ahead < nchunks)
                phi4_tw_issue<R, NT>(phi, lx, base, down0, upn, n, ahead,
                                     phi4_tw_smem + (ahead % PHI4_TW_STAGES) * PHI4_TW_STAGE_BYTES);
            else
                __pipeline_commit();
            if (PROJ && c > 0) /* the chunk before's columns, written before the barrier */
                phi4_tw_columns_out<C>(phi4_tw_smem, (c - 1) & 1, n, c - 1, col_out, proj);
            const unsigned char *st = phi4_tw_smem + (c % PHI4_TW_STAGES) * PHI4_TW_STAGE_BYTES;
            if constexpr (HELP) {
                if (helps) {
                    phi4_tw_help_chunk(phi4_tw_smem, st, c & 1, hw, hm, lane, acc, row_bits);
                    if (c % PHI4_TW_HELP_FLUSH == PHI4_TW_HELP_FLUSH - 1 || c == nchunks - 1)
                        phi4_tw_help_flush(acc, lane, row_bits);
                }
            }
            if (!walks)
                continue;
            const unsigned char *own = st + (t + 1) * PHI4_TW_ROW_BYTES,
                                *up = own + PHI4_TW_ROW_BYTES, *down = own - PHI4_TW_ROW_BYTES;
            unsigned col_lo = 0, col_hi = 0; /* lane < C: the warp's sums of column `lane` */
            /* INLINE: half a chunk's quads unrolled (all of them spill registers) */
#pragma unroll(INLINE ? C / 8 : C / 4)
            for (int j = 0; j < C / 4; j++) {
                double o[4], u[4], d[4];
                phi4_tw_quad<R>::load(own + j * 4 * sizeof(R), o);
                phi4_tw_quad<R>::load(up + j * 4 * sizeof(R), u);
                phi4_tw_quad<R>::load(down + j * 4 * sizeof(R), d);
                if (c == 0 && j == 0)
                    first = o[0];
                else /* the quad's site before, waiting since the last quad */
                    s.add<2>(pv, o[0], pl, pu, pd);
                s.add<2>(o[0], o[1], pv, u[0], d[0]);
                s.add<2>(o[1], o[2], o[0], u[1], d[1]);
                s.add<2>(o[2], o[3], o[1], u[2], d[2]);
                if (INLINE) {
#pragma unroll
                    for (int k = 0; k < 4; k++)
                        phi4_tw_count(o[k], keep, lane, 4 * j + k, row_bits, col_lo, col_hi);
                }
                pv = o[3], pl = o[2], pu = u[3], pd = d[3];
            }
            if (INLINE && lane < C)
                *phi4_tw_column(phi4_tw_smem, c & 1, t / 32, lane) =
                    cuda_modes_field_value(col_lo, col_hi);
        }
        if (mine) { /* x = L_x - 1, its right neighbour the row's first site */
            s.add<2>(pv, first, pl, pu, pd);
            s.store(partials + PHI4_NPARTIALS * (r0 + t));
            if (INLINE) /* the row's q: its raw bits less L_x magics */
                atomicAdd(proj + lx + first_row + r0 + t,
                          row_bits - (unsigned long long)lx * CUDA_MODES_FIELD_BITS);
        }
        if (HELP && helps && lane < hm) /* the helper lane's row */
            atomicAdd(proj + lx + first_row + r0 + 32 * hw + lane, row_bits);
        __syncthreads(); /* the ring free for the next tile; the last chunk's columns written */
        if (PROJ && nchunks > 0)
            phi4_tw_columns_out<C>(phi4_tw_smem, (nchunks - 1) & 1, n, nchunks - 1, col_out,
                                   proj);
    }
}

template <typename R, bool BOX, bool PROJ>
static cudaError_t launch_tile_walk(cudaStream_t stream, const struct latmc_lattice &g,
                                    const void *phi, double *partials, int64_t *proj,
                                    int64_t first_row)
{
    const void *kernel = (const void *)phi4_tile_walk_kernel<R, BOX, PROJ>;
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
    const unsigned threads = phi4_tw_helped<R, PROJ> ? 2 * PHI4_TW_ROWS : PHI4_TW_ROWS;
    phi4_tile_walk_kernel<R, BOX, PROJ><<<(unsigned)blocks, threads, PHI4_TW_SMEM, stream>>>(
        g, (const R *)phi, partials, (unsigned long long *)proj, first_row);
    return cudaGetLastError();
}

template <typename R>
static cudaError_t launch_tile_walk_of(cudaStream_t stream, const struct latmc_lattice &g,
                                       bool box, const void *phi, double *partials,
                                       int64_t *proj, int64_t first_row)
{
    if (proj)
        return box ? launch_tile_walk<R, true, true>(stream, g, phi, partials, proj, first_row)
                   : launch_tile_walk<R, false, true>(stream, g, phi, partials, proj, first_row);
    return box ? launch_tile_walk<R, true, false>(stream, g, phi, partials, proj, first_row)
               : launch_tile_walk<R, false, false>(stream, g, phi, partials, proj, first_row);
}

extern "C" bool cuda_phi4_tile_walk_fits(const struct latmc_lattice *g, bool single)
{
    const int64_t chunk = PHI4_TW_CHUNK_BYTES / (single ? sizeof(float) : sizeof(double));
    return g->ndim == 2 && g->lx % chunk == 0 && g->lx >= 256 && g->ly >= PHI4_TW_MIN_ROWS;
}

extern "C" cudaError_t cuda_phi4_tile_walk(cudaStream_t stream, const struct latmc_lattice *g,
                                           bool single, bool box, const void *phi,
                                           double *partials, int64_t *proj, int64_t first_row)
{
    if (!cuda_phi4_tile_walk_fits(g, single))
        return cudaErrorNotSupported;
    return single ? launch_tile_walk_of<float>(stream, *g, box, phi, partials, proj, first_row)
                  : launch_tile_walk_of<double>(stream, *g, box, phi, partials, proj,
                                                first_row);
}
