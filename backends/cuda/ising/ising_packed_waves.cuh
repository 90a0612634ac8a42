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
 * (sweep_grid takes a few waves), fewer on small lattices. */
template <auto Kernel> static unsigned resident_grid(int64_t items)
{
    const unsigned wave = cuda_resident_wave<Kernel>();
    if (wave == 0)
        return packed_grid(items);
    const unsigned grid = cuda_grid(items);
    return grid < wave ? grid : wave;
}

#endif
