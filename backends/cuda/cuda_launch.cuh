/*
 * Launch geometry and exact integer accumulation shared by the module's kernels.
 *
 * Every kernel walks its items with a grid-stride loop and reaches its accumulation with
 * all threads of the block (no early return), so full-warp shuffles are valid. Integer
 * sums are exact and atomicAdd of 64-bit integers is order-independent: the results do
 * not depend on the launch geometry or the scheduling.
 */
#ifndef LATMC_CUDA_LAUNCH_CUH
#define LATMC_CUDA_LAUNCH_CUH

#include <pthread.h>
#include <stdint.h>

#include <cuda_runtime.h>

#include "cuda_device.h"

/* A launch of fn that may start before the stream's previous kernel ends (programmatic
 * stream serialization, sm_90: the kernel waits for that kernel's end and memory with
 * griddepcontrol.wait, as cudaGridDependencySynchronize, before reading what it wrote);
 * programmatic false: an ordinary launch of the same configuration. Every kernel launched
 * so waits before it lets its own dependents start (griddepcontrol.launch_dependents): a
 * launch's blocks then begin only after every kernel two or more places before it in the
 * stream has ended, which is what the Heisenberg sweeps after a round rely on when they
 * copy their spins in before their wait (heisenberg_batch_kernels.cu). The kernels' waits
 * are compiled for sm_90 on (__CUDA_ARCH__ >= 900): where the module's code for the
 * current device comes from older PTX (a gpu_arch below sm_90 compiled at load time), or
 * that cannot be asked, the launch is an ordinary one, as kernels that never wait need. */
template <typename... P, typename... A>
static inline cudaError_t cuda_launch_programmatic(void (*fn)(P...), dim3 grid, dim3 block,
                                                   size_t smem, cudaStream_t stream,
                                                   bool programmatic, A... args)
{
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = grid;
    cfg.blockDim = block;
    cfg.dynamicSmemBytes = smem;
    cfg.stream = stream;
    cudaLaunchAttribute attr[1] = {};
    attr[0].id = cudaLaunchAttributeProgrammaticStreamSerialization;
    attr[0].val.programmaticStreamSerializationAllowed = 1;
    cfg.attrs = attr;
    if (programmatic) {
        /* the current device, the one cuda_device_code_ptx asks its kernel on */
        int device = 0, ptx = 0;
        if (cudaGetDevice(&device) != cudaSuccess ||
            cuda_device_code_ptx(device, &ptx) != cudaSuccess) {
            /* not sticky: cleared, so that a caller's later cudaGetLastError() reports
             * this launch's own result (below), not the failed query */
            (void)cudaGetLastError();
            ptx = 0;
        }
        programmatic = ptx >= 90;
    }
    cfg.numAttrs = programmatic ? 1 : 0;
    return cudaLaunchKernelEx(&cfg, fn, args...);
}

/* Threads per block: a multiple of the warp size (cuda_warp_add needs whole warps). */
#define CUDA_THREADS 256
/* Enough blocks to fill any current GPU many times over; more items are strided. */
#define CUDA_MAX_BLOCKS (1 << 20)

static inline unsigned cuda_grid(int64_t items)
{
    int64_t blocks = (items + CUDA_THREADS - 1) / CUDA_THREADS;
    if (blocks < 1)
        blocks = 1;
    if (blocks > CUDA_MAX_BLOCKS)
        blocks = CUDA_MAX_BLOCKS;
    return (unsigned)blocks;
}

/* Blocks of a grid-stride launch over `items`, at most CUDA_CAPPED_BLOCKS: on large
 * lattices each thread then strides over many items, so that what a thread or block does
 * once (a walk's set-up, a table's copy and barrier, a counter's clear and flush) is paid
 * once per many items. */
#define CUDA_CAPPED_BLOCKS 8192
static inline unsigned cuda_grid_capped(int64_t items)
{
    const unsigned grid = cuda_grid(items);
    return grid > CUDA_CAPPED_BLOCKS ? CUDA_CAPPED_BLOCKS : grid;
}

/*
 * Waves of a sweep launch whose threads stride over many items: up to CUDA_WAVES_MAX
 * resident waves of blocks, as many as leave a thread of the grid CUDA_WAVE_ITEMS items a
 * wave (a thread's walk has a set-up, a block its table copy), given the items a thread of
 * one wave would take. The hardware hands an SM the next block as one of its blocks ends.
 * The Ising sweep kernels on one H200, 4 waves against 1 (sweeps alone): 2D 65536^2 packed
 * +3.4 %, bit-sliced +5.0 to +6.8 %; 3D 1024^3 +2.5 % and +6.2 to +7.0 %; why is not
 * measured (an SM was busy 99 % of a one-wave launch); 8192^2 with 4 waves 2.7 % and 18 %
 * slower (a march band kept 2 rows), hence the items a wave.
 */
#define CUDA_WAVES_MAX 4
#define CUDA_WAVE_ITEMS 16
static inline int64_t cuda_waves(int64_t items_a_thread_of_one_wave)
{
    const int64_t w = items_a_thread_of_one_wave / CUDA_WAVE_ITEMS;
    return w < 1 ? 1 : w > CUDA_WAVES_MAX ? CUDA_WAVES_MAX : w;
}

/* Blocks of such a launch over `items`, one a thread, with `wave` blocks resident at once:
 * cuda_waves' waves, never more blocks than the items fill (cuda_grid). */
static inline unsigned cuda_wave_grid(int64_t items, int64_t wave)
{
    const int64_t cap = wave * cuda_waves(items / (wave * CUDA_THREADS));
    const int64_t all = (int64_t)cuda_grid(items);
    return (unsigned)(all < cap ? all : cap);
}

/* Blocks of one resident wave of Kernel (CUDA_THREADS threads a block, no dynamic shared
 * memory) on the current device, asked of the runtime once per host thread, kernel and
 * device, not at every launch (on a small lattice the queries would be a visible part of a
 * step); 0 where it cannot be asked (the caller's launch then reports a real problem). */
#if __cplusplus >= 201703L /* a kernel as a template argument (the module's C++17) */
#define CUDA_KNOWN_DEVICES 64
template <auto Kernel> static unsigned cuda_resident_wave(void)
{
    static thread_local unsigned known[CUDA_KNOWN_DEVICES]; /* 0: not asked yet */
    int device = 0, sms = 0, per_sm = 0;
    if (cudaGetDevice(&device) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    const bool cached = device >= 0 && device < CUDA_KNOWN_DEVICES;
    if (cached && known[device] != 0)
        return known[device];
    if (cuda_device_sm_count(device, &sms) != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, Kernel, CUDA_THREADS, 0) !=
            cudaSuccess || sms * per_sm <= 0) {
        (void)cudaGetLastError();
        return 0;
    }
    if (cached)
        known[device] = (unsigned)(sms * per_sm);
    return (unsigned)(sms * per_sm);
}
#endif

/* First item and stride of the calling thread in a grid-stride loop. */
__device__ __forceinline__ int64_t cuda_first_item(void)
{
    return (int64_t)blockIdx.x * blockDim.x + threadIdx.x;
}

__device__ __forceinline__ int64_t cuda_item_stride(void)
{
    return (int64_t)gridDim.x * blockDim.x;
}

/*
 * Add each thread's v to *dst: a warp sum by shuffles, then one atomicAdd per warp. Call
 * with every thread of the block. Signed sums travel as their two's complement: the
 * 64-bit additions wrap exactly like int64_t arithmetic.
 */
__device__ __forceinline__ void cuda_warp_add(unsigned long long *dst, unsigned long long v)
{
    for (int offset = 16; offset > 0; offset >>= 1)
        v += __shfl_down_sync(0xffffffffu, v, offset);
    if ((threadIdx.x & 31u) == 0 && v != 0)
        atomicAdd(dst, v);
}

/*
 * Dynamic shared memory past 48 KiB for kernel fn, `bytes` of it a launch: its attribute set
 * to the device's whole opt-in room (less its static shared memory), never to this call's
 * bytes. The attribute belongs to the kernel, for the whole process: were each call to set
 * its own size, two threads launching it with different sizes (sims of different shapes,
 * doc/cuda.md "Using it": different sims run concurrently) could each lower it under the
 * other's launch. Every caller sets the same value, so the order does not matter.
 * The room is asked and set once per (kernel, device) and kept (up to CUDA_SHARED_ROOMS
 * pairs of each file's kernels; past them asked every time): later launches pay one
 * cudaGetDevice, not four runtime calls. A lock keeps the table whole where threads
 * launch at once; a pair enters it only once its attribute is set, so a launch that
 * finds it never runs before the attribute does.
 * cudaErrorInvalidValue where bytes do not fit.
 */
struct cuda_shared_room {
    const void *fn;
    int device;
    size_t room;
};
enum { CUDA_SHARED_ROOMS = 32 };

static inline cudaError_t cuda_allow_shared(const void *fn, size_t bytes)
{
    static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
    static struct cuda_shared_room rooms[CUDA_SHARED_ROOMS];
    static int n_rooms;
    int device = 0, optin = 0;
    cudaError_t err = cudaGetDevice(&device);
    if (err != cudaSuccess)
        return err;
    pthread_mutex_lock(&lock);
    for (int i = 0; i < n_rooms; i++)
        if (rooms[i].fn == fn && rooms[i].device == device) {
            const size_t room = rooms[i].room;
            pthread_mutex_unlock(&lock);
            return bytes > room ? cudaErrorInvalidValue : cudaSuccess;
        }
    cudaFuncAttributes attr;
    err = cuda_device_smem_optin(device, &optin);
    if (err == cudaSuccess)
        err = cudaFuncGetAttributes(&attr, fn);
    size_t room = 0;
    if (err == cudaSuccess) {
        room = (size_t)optin > attr.sharedSizeBytes ? (size_t)optin - attr.sharedSizeBytes : 0;
        err = cudaFuncSetAttribute(fn, cudaFuncAttributeMaxDynamicSharedMemorySize, (int)room);
    }
    if (err == cudaSuccess && n_rooms < CUDA_SHARED_ROOMS) {
        rooms[n_rooms].fn = fn;
        rooms[n_rooms].device = device;
        rooms[n_rooms].room = room;
        n_rooms++;
    }
    pthread_mutex_unlock(&lock);
    if (err != cudaSuccess)
        return err;
    return bytes > room ? cudaErrorInvalidValue : cudaSuccess;
}

#endif
