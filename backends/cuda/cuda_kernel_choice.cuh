/*
 * Which kernels the module's launchers use. The fast kernels (Ising and Potts row
 * segments) are the default wherever the lattice suits them; LATMC_CUDA_KERNELS=reference
 * in the environment makes every launcher use its per-block reference kernel instead (the
 * very per-block functions of the CPU backend), for benchmarks and to cross-check the two
 * on a GPU. Both follow the same chain, bit for bit.
 */
#ifndef LATMC_CUDA_KERNEL_CHOICE_CUH
#define LATMC_CUDA_KERNEL_CHOICE_CUH

#include <stdlib.h>
#include <string.h>

static inline bool cuda_reference_kernels_only(void)
{
    /* read once (thread-safe initialisation of a function-local static) */
    static const bool only = [] {
        const char *v = getenv("LATMC_CUDA_KERNELS");
        return v != NULL && strcmp(v, "reference") == 0;
    }();
    return only;
}

#endif
