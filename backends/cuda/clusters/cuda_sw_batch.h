/*
 * Internal to the CUDA module: Swendsen-Wang and Wolff members of an ensemble (Ising or
 * q-state Potts, uniform couplings or Ising's +-J, in a field or not, members of at most
 * CUDA_ENS_SW_MAX_SITES sites) in one launch per cluster step, and their measurement in
 * one launch (cuda_sw_batch_kernels.cu, the kernels: a block a member, its labels in the block's
 * shared memory where they fit, else in the member's own labels; clusters/cuda_sw_batch.c, the host
 * side; doc/ensembles.md "Execution"). The steps are the plan's three
 * (lib/cluster_steps.c): the bonds, the labels, the flips (Wolff's: its seed's cluster's),
 * their draws named as the single-lattice kernels name them (clusters/cuda_sw_kernels.cu,
 * cuda_wolff_kernels.cu), so every member's chain is the one it runs alone, and the CPU's,
 * bit for bit. Declined by members made with LATMC_ENS_SW_BATCH=0.
 */
#ifndef LATMC_CUDA_SW_BATCH_H
#define LATMC_CUDA_SW_BATCH_H

#include <math.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include <latmc/sim.h>

#include "cluster_bonds.h"
#include "lattice_numbering.h"
#include "rng_streams.h"

#ifdef __cplusplus
extern "C" {
#endif

struct latmc_sim;
struct latmc_step_call;
struct cuda_wolff_counts;

/* One member of a launch: its configuration (the standalone sim's own bytes, updated in
 * place), its bonds and labels (the sim's cluster leaf's own arrays, left as its own flip
 * leaves them: every label its cluster's root), its Ising +-J couplings (the leaf's
 * eps[ndim i + mu], +1 or -1; NULL: uniform), its seed, its bonds' threshold
 * floor(p 2^32) (p = 1 - exp(-2 |K|), Potts 1 - exp(-K), K = beta J: the members'
 * temperatures differ), whether its Ising bonds join unequal spins (K < 0) and its beta h
 * (the field's weight of its clusters' decisions). */
struct cuda_ens_sw_member {
    int8_t *spins;
    uint8_t *bonds;
    uint32_t *labels;
    const int8_t *eps;
    uint64_t seed;
    uint64_t bond_threshold;
    int flip;
    double beta_h; /* beta h: 0 without a field (the decisions then a draw at the name) */
    struct cuda_wolff_counts *wolff; /* Wolff: the leaf's counters (its cluster's name and
                                        decision written by the batch's flip); else NULL */
};

/* A member's bonds' threshold at K = beta J, as the plan's bond step computes it
 * (lib/cluster_steps.c, latmc_cluster_step_of): floor(p 2^32), p = 1 - exp(-2 |K|) (Ising)
 * or 1 - exp(-K) (Potts). Host code (libm's expm1, as the core's). */
static inline uint64_t cuda_ens_sw_bond_threshold(double K, int potts)
{
    return latmc_cluster_threshold(potts ? -expm1(-K) : -expm1(-2.0 * fabs(K)));
}

/* The steps (lib/step.h's LATMC_STEP_CLUSTER_BONDS, _LABEL, _FLIP; Wolff's third
 * LATMC_STEP_CLUSTER_FLIP_SEED). */
enum { CUDA_ENS_SW_BONDS, CUDA_ENS_SW_LABEL, CUDA_ENS_SW_FLIP, CUDA_ENS_SW_FLIP_SEED };

/* The step a launch runs on every member: its kind (CUDA_ENS_SW_*), its draws' name, the
 * keep threshold of the flip (Ising), q (0: Ising), the sweep (Wolff's seed site and
 * decision are drawn from it), whether any member is in a field (Swendsen-Wang's flip then
 * sums its clusters in shared memory). */
struct cuda_ens_sw_run {
    int kind;
    struct latmc_rng_name rng;
    uint64_t keep_threshold;
    int q;
    uint64_t sweep;
    int field;
};

/* Whether sims of this model and algorithm are the cluster steps' batch's kind: Ising or
 * Potts by Swendsen-Wang or Wolff (the embedded clusters of phi^4 and Heisenberg run their
 * steps one member at a time): cuda_cluster_batch_of gives them this batch (caps, steps,
 * measurement, and LATMC_ENS_SW_BATCH). */
static inline int cuda_ens_sw_kind(int model, int algorithm)
{
    return (model == LATMC_MODEL_ISING || model == LATMC_MODEL_POTTS) &&
           (algorithm == LATMC_ALGO_SWENDSEN_WANG || algorithm == LATMC_ALGO_WOLFF);
}

/* Members of at most CUDA_ENS_SW_SHARED_SITES sites keep their labels, and Swendsen-Wang's
 * clusters' sums in a field, in a block's shared memory (48 KiB); larger ones, up to
 * CUDA_ENS_SW_MAX_SITES, their labels in their own arrays (Swendsen-Wang's in a field one
 * by one: cuda_ens_sw_shared_fits). Larger members run one by one, each step a whole GPU's
 * (a block a member would leave most of it idle unless there are hundreds of members). */
#define CUDA_ENS_SW_SHARED_SITES 12288
#define CUDA_ENS_SW_MAX_SITES 65536
int cuda_ens_sw_fits(const struct latmc_lattice *lat);
int cuda_ens_sw_shared_fits(const struct latmc_lattice *lat);

/* The run's step on every member of the device table `members` (n of them); the flips add
 * each member's changed sites to changed[m], Wolff's its cluster's sites (the updates
 * attempted) to changed[n + m] too. */
cudaError_t cuda_ens_sw_step(cudaStream_t stream, const struct latmc_lattice *lat,
                             const struct cuda_ens_sw_member *members, int n,
                             const struct cuda_ens_sw_run *run, unsigned long long *changed);

#ifdef __cplusplus
}
#endif

#endif
