/*
 * Internal to the CUDA module: Swendsen-Wang on the device (Ising with uniform or +-J
 * couplings of either sign, q-state Potts; a field: cuda_wolff.h), as the three cluster steps of
 * the plan (lib/step.h: LATMC_STEP_CLUSTER_BONDS, _LABEL, _FLIP; doc/clusters.md defines
 * the chain, lib/cluster_bonds.h its draws). The leaf (cuda_sw_leaf.c) holds the
 * configuration in the API's layout (one byte per site) and a box's labels and bonds;
 * the kernels (cuda_sw_kernels.cu) run one step each:
 *
 *   bonds:  every site's bonds (i, mu), bit mu of bonds[i], from the draws named by
 *           (sweep, global site, direction).
 *   labels: union-find over the active bonds with atomicMin on the larger root, so that
 *           a root is always the smallest site of its tree (tiles in shared memory first,
 *           then the bonds between tiles); then the tiles' roots flattened: every site's
 *           label is its tile piece's root, whose label is the cluster's root -- its
 *           name, its smallest global site index -- so labels[labels[i]] names i's cluster.
 *   flip:   every cluster's decision (Ising: keep or flip; Potts: its new colour), drawn
 *           at its name (the roots only), then every site takes its cluster's.
 *
 * The labels are the same whatever order the unions ran in (the smallest site of each
 * component), so the configuration is the CPU chain's bit for bit.
 */
#ifndef LATMC_CUDA_SW_H
#define LATMC_CUDA_SW_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#include "lattice_numbering.h"
#include "rng_streams.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the kernels of one box read: its stored lattice g (the whole lattice held alone,
 * its own wrap; or a box's own planes with a halo plane on each side), every array
 * indexed by g's local sites. */
struct cuda_sw_box {
    struct latmc_lattice g;
    int8_t *spins;      /* one byte per site: Ising +-1, Potts the colour (compared as bytes) */
    const int8_t *eps;  /* Ising +-J: the couplings +-1 at ndim i + mu; NULL: uniform */
    uint8_t *bonds;     /* bit mu: bond (i, mu) active */
    uint32_t *labels;   /* union-find parents (local sites), then the local roots */
    /* The own sites: local planes [p0, p0 + np) of the last axis, whose first site is the
     * lattice's site g0. wrap: the last axis wraps inside the box (a box alone: p0 = 0,
     * np = L, g0 = 0); else the bonds of the last own plane along it reach the next box's
     * first plane (its spins in the upper halo) and are joined across the face
     * (cuda_sw_faces.h), and the kernels never wrap along it. */
    uint32_t p0, np, g0;
    int wrap;
};

/* Bonds of every site of sweep `name` (the step's): active iff the ends are satisfied and
 * the draw < threshold. Satisfied: the states agree, or (Ising) differ where beta J eps < 0
 * (flip = 1: beta J < 0; eps < 0 a +-J coupling's sign). Potts: flip 0, eps NULL. */
cudaError_t cuda_sw_bonds(cudaStream_t stream, const struct cuda_sw_box *b, uint64_t seed,
                          struct latmc_rng_name name, int flip, uint64_t threshold);

/* The clusters of the own sites' active bonds (a box with wrap = 0: without the bonds
 * across its upper face): labels[labels[i]] = the smallest site of i's cluster (of its
 * piece in the box). */
cudaError_t cuda_sw_label(cudaStream_t stream, const struct cuda_sw_box *b);

/* cuda_sw_label in two parts: the unions (a tile root's label then a parent in the forest
 * of its cluster, not yet its root), and the flattening. */
cudaError_t cuda_sw_link(cudaStream_t stream, const struct cuda_sw_box *b);
cudaError_t cuda_sw_flatten(cudaStream_t stream, const struct cuda_sw_box *b);

/* Each cluster's decision drawn at its name: q = 0 (Ising) it keeps its spins iff the draw
 * < keep_threshold, else flips; q >= 2 (Potts) its new colour floor(u q / 2^32). Adds the
 * sites changed to *changed. Overwrites the bonds (the roots' decisions). A box joined to
 * others: cuda_sw_decide, cuda_sw_faces_decide (its pieces at the faces), then
 * cuda_sw_apply; cuda_sw_flip is the first and the last. */
cudaError_t cuda_sw_flip(cudaStream_t stream, const struct cuda_sw_box *b, uint64_t seed,
                         struct latmc_rng_name name, uint64_t keep_threshold, int q,
                         unsigned long long *changed);
/* cuda_sw_flatten and cuda_sw_flip on labels that cuda_sw_link left, the flattening and
 * the decisions in one pass over the bonds (a box alone, without a field: no join reads the
 * labels between). */
cudaError_t cuda_sw_settle_flip(cudaStream_t stream, const struct cuda_sw_box *b,
                                uint64_t seed, struct latmc_rng_name name,
                                uint64_t keep_threshold, int q, unsigned long long *changed);
cudaError_t cuda_sw_decide(cudaStream_t stream, const struct cuda_sw_box *b, uint64_t seed,
                           struct latmc_rng_name name, uint64_t keep_threshold, int q);

/* Every site takes its cluster's decision, kept in its root's bonds byte (cuda_sw_flip,
 * cuda_wolff.h's decisions in a field): q = 0 (Ising) keep or flip, q >= 2 the colour.
 * Adds the sites changed to *changed. */
cudaError_t cuda_sw_apply(cudaStream_t stream, const struct cuda_sw_box *b, int q,
                          unsigned long long *changed);

#ifdef __cplusplus
}
#endif

#endif
