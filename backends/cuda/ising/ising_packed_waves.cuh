/*
 * The grids of the packed layout's kernels (ising_packed.cu, ising_packed_chain.cu): the
 * conversions' and a resident wave of an update kernel.
 */
#ifndef LATMC_CUDA_ISING_PACKED_WAVES_CUH
#define LATMC_CUDA_ISING_PACKED_WAVES_CUH

#include "cuda_device.h"
#include "cuda_launch.cuh"

/* Blocks of the conversion kernels: at most 8192, so that on large lattices each thread
 * strides over many words. */
static unsigned packed_grid(int64_t items)
{
    const unsigned grid = cuda_grid(items);
    return grid > 8192 ? 8192 : grid;
}

/* Blocks of one wave of an update kernel, as many as the device keeps resident at once
 * (sweep_grid takes a few waves), fewer on small lattices. The wave of each kernel is
 * asked of the runtime once per host thread and device, not at every launch: on a small
 * lattice the queries would be a visible part of a sweep. */
#define PACKED_KNOWN_DEVICES 64 /* waves remembered per device (a sim on several devices
                                   alternates between them at every step) */
template <auto Kernel> static unsigned resident_grid(int64_t items)
{
    static thread_local int known_sms[PACKED_KNOWN_DEVICES]; /* 0: not asked yet */
    static thread_local int known_per_sm[PACKED_KNOWN_DEVICES];
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess) {
        (void)cudaGetLastError(); /* the launch reports a real problem */
        return packed_grid(items);
    }
    const bool cached = device >= 0 && device < PACKED_KNOWN_DEVICES;
    int sms = cached ? known_sms[device] : 0, per_sm = cached ? known_per_sm[device] : 0;
    if (sms == 0) {
        if (cuda_device_sm_count(device, &sms) != cudaSuccess ||
            cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, Kernel, CUDA_THREADS, 0) !=
                cudaSuccess || sms * per_sm <= 0) {
            (void)cudaGetLastError();
            return packed_grid(items);
        }
        if (cached) {
            known_sms[device] = sms;
            known_per_sm[device] = per_sm;
        }
    }
    const unsigned wave = (unsigned)(sms * per_sm);
    const unsigned grid = cuda_grid(items);
    return grid < wave ? grid : wave;
}

#endif
