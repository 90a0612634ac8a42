/*
 * The grid of the packed layout's update kernels (ising_packed.cu, ising_packed_chain.cu):
 * a resident wave (the conversions' grids: cuda_grid_capped, cuda_launch.cuh).
 */
#ifndef LATMC_CUDA_ISING_PACKED_WAVES_CUH
#define LATMC_CUDA_ISING_PACKED_WAVES_CUH

#include "cuda_device.h"
#include "cuda_launch.cuh"

/* Blocks of one wave of an update kernel, as many as the device keeps resident at once
 * (sweep_grid takes a few waves), fewer on small lattices. */
template <auto Kernel> static unsigned resident_grid(int64_t items)
{
    const unsigned wave = cuda_resident_wave<Kernel>();
    if (wave == 0)
        return cuda_grid_capped(items);
    const unsigned grid = cuda_grid(items);
    return grid < wave ? grid : wave;
}

#endif
