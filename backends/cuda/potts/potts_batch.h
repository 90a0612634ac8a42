/*
 * Internal to the CUDA module: Potts members of an ensemble in one launch per colour step,
 * or per stretch of whole sweeps for small members (potts_batch_kernels.cu, the kernels, which
 * run the single-lattice kernels' per-segment code of potts/potts_rows.cuh or the
 * reference's per-block code with a member index; potts/cuda_potts_batch.c, the host side;
 * doc/ensembles.md).
 */
#ifndef LATMC_CUDA_POTTS_BATCH_H
#define LATMC_CUDA_POTTS_BATCH_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#include "lattice_numbering.h"
#include "rng_streams.h"

#ifdef __cplusplus
extern "C" {
#endif

struct latmc_potts_tables;

/* One member of the launch: its configuration (the standalone sim's own bytes, updated in
 * place), its decision tables (the sim's device copy) and its seed. */
struct cuda_ens_potts_member {
    uint8_t *spins;
    const struct latmc_potts_tables *tables;
    uint64_t seed;
};

/* What a launch runs: the members' chain (algorithm, q, colours) and either one step
 * (n_sweeps 0: the plan's draws `rng` of colour `colour`) or n_sweeps whole sweeps from
 * sweep0 on, each colour c in turn with the draws of (sweep, UPDATE, phase c, sub). */
struct cuda_ens_potts_run {
    int algorithm, q, colours;
    uint32_t sub;
    struct latmc_rng_name rng;
    int colour;
    uint64_t sweep0, n_sweeps;
};

/* Whether whole sweeps of members of this lattice run in one launch (one block a member:
 * small members, whose colours a block barrier separates). */
int cuda_ens_potts_fused_fits(const struct latmc_lattice *lat);

/* The run's steps on every member of the device table `members` (n of them), each
 * member's changed (heat bath) or accepted (Metropolis) sites added to changed[m]. Whole
 * sweeps only where cuda_ens_potts_fused_fits. *rows: 1 where the row kernels' code ran,
 * 0 where the reference's update did. */
cudaError_t cuda_ens_potts_steps(cudaStream_t stream, const struct latmc_lattice *lat,
                                 const struct cuda_ens_potts_member *members, int n,
                                 const struct cuda_ens_potts_run *run,
                                 unsigned long long *changed, int *rows);

/* The integer sums of every member (one block a member): q + 1 counters each at
 * out + (q + 1) m, the matches then the sites in each state (lib/potts.h). A member's
 * sites fit 32-bit counters (members of at most 2^31 sites). */
cudaError_t cuda_ens_potts_measure(cudaStream_t stream, const struct latmc_lattice *lat,
                                   const struct cuda_ens_potts_member *members, int n, int q,
                                   unsigned long long *out);

/* The measurement's counters (q + 1 a member, matches first) of n members spread into
 * their struct latmc_potts_sums (the counts of states >= q 0, as the single-lattice
 * measurement leaves them). Host code. */
void cuda_ens_potts_sums_of(const unsigned long long *counters, int n, int q, void *sums);

#ifdef __cplusplus
}
#endif

#endif
