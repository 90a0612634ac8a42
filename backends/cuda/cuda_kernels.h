/*
 * The CUDA kernels of the module, behind plain C launchers (one job each): the C side
 * (the executor and its leaves) owns the sim and the memory, the .cu files own the kernels. Each
 * launcher enqueues its kernel on `stream` and returns the launch status
 * (cudaGetLastError()); errors during the run surface at the next synchronisation.
 *
 * The launchers of this header take the byte layout: one int8 (Ising) or uint8 (Potts)
 * per site in natural site order i = x + L_x (y + L_y z), the API's. Update kernels: one
 * thread per Philox block of 4 same-colour sites (grid-stride), running the very
 * per-block function of the CPU reference (lib/ising_rules.h, lib/potts_rules.h); for
 * Ising with L_x a multiple of 8, one thread per 8- or 16-byte row segment with vector
 * loads and stores (ising_kernels.cu), the same draws and decisions. The faster layouts
 * have their own headers: the multi-spin coded Ising kernels (ising_packed.h, the default
 * where they fit; the packed Ising leaf converts) and the Potts row kernels (potts_rows.cuh).
 */
#ifndef LATMC_CUDA_KERNELS_H
#define LATMC_CUDA_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "ising.h"
#include "lattice_numbering.h"
#include "potts_rules.h" /* struct latmc_potts_chain */

#ifdef __cplusplus
extern "C" {
#endif

/* Up to CUDA_BOX_COPY_RUNS runs of bytes between device memory that the stream's device
 * reaches (its own), copied by one kernel launch (cuda_box_kernels.cu): the halo copies of a
 * box whose neighbours are on its device (exec/cuda_halo.c), as one launch where
 * cudaMemcpyAsync takes one per run. Run k is `rows` rows of bytes[k] bytes, row j at
 * src[k] + j src_pitch[k] and dst[k] + j dst_pitch[k] (the same planes of each array a
 * step wrote: Heisenberg's 3 x replicas, one launch for them all). */
#define CUDA_BOX_COPY_RUNS 2
struct cuda_box_copies {
    const void *src[CUDA_BOX_COPY_RUNS];
    void *dst[CUDA_BOX_COPY_RUNS];
    size_t bytes[CUDA_BOX_COPY_RUNS];
    size_t src_pitch[CUDA_BOX_COPY_RUNS], dst_pitch[CUDA_BOX_COPY_RUNS];
    int n, rows;
};
cudaError_t cuda_box_copy_runs(cudaStream_t stream, const struct cuda_box_copies *c);

/* The kernels' image exists for this device (the gpu_arch the module was built for runs
 * on it): cudaSuccess, or the runtime's reason (cudaErrorNoKernelImageForDevice, ...). */
cudaError_t cuda_kernels_check_device(void);
/* The virtual architecture (PTX version, 10 x major + minor: 90 for compute_90) of the
 * kernels' code on the current device into *version (0 on failure). Code compiled from PTX
 * below 90 has no griddepcontrol instructions (their waits are under __CUDA_ARCH__ >= 900). */
cudaError_t cuda_kernels_ptx_version(int *version);
/* Ising: one colour's step, its draws named `name` (the step's, lib/step.h); adds the
 * number of spins that changed to *changed (a device counter). `tables` is a device copy of the sim's struct latmc_ising_tables.
 * eps: NULL (uniform couplings), or the device's +-J couplings, int8 +-1 at ndim i + mu
 * (lib/ising_rules.h, latmc_ising_update_block_coupled). */
cudaError_t cuda_ising_sweep_colour(cudaStream_t stream, const struct latmc_lattice *g,
                                    int8_t *spins, const int8_t *eps,
                                    const struct latmc_ising_tables *tables,
                                    int algorithm, uint64_t seed, struct latmc_rng_name name,
                                    int colour, unsigned long long *changed);

/* Ising: adds the exact sums of the configuration to *sums (device memory, zeroed by the
 * caller); eps as for the sweep (bonds weighted by their couplings). */
cudaError_t cuda_ising_measure(cudaStream_t stream, const struct latmc_lattice *g,
                               const int8_t *spins, const int8_t *eps,
                               struct latmc_ising_sums *sums);

/* Potts: one colour of sweep `sweep`; chain->tables points to a device copy of the
 * sim's struct latmc_potts_tables. Adds the sites that changed to *changed. */
cudaError_t cuda_potts_sweep_colour(cudaStream_t stream, const struct latmc_lattice *g,
                                    uint8_t *spins, const struct latmc_potts_chain *chain,
                                    struct latmc_rng_name rng, int colour,
                                    unsigned long long *changed);

/* Potts: adds the exact sums of the configuration to *sums (device, zeroed by the caller). */
cudaError_t cuda_potts_measure(cudaStream_t stream, const struct latmc_lattice *g,
                               const uint8_t *spins, struct latmc_potts_sums *sums);

#ifdef __cplusplus
}
#endif

#endif
