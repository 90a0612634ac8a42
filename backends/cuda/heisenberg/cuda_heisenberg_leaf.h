/*
 * Internal to the CUDA module: the Heisenberg spin glass's leaf of the one executor
 * (exec/cuda_leaf.h; cuda_heisenberg_leaf.c), and the accessor the module's ensembles
 * (ensembles/ens_heisenberg_batch.c) use on a member's box.
 */
#ifndef LATMC_CUDA_HEISENBERG_LEAF_H
#define LATMC_CUDA_HEISENBERG_LEAF_H

#include "cuda_leaf.h"

/* The leaf of a Heisenberg sim, cuda_heisenberg_leaf_of (declared in cuda_leaf.h with
 * every model's): one per replica count (its storage counts the replicas' arrays). */

/* The structure-of-arrays buffer that holds the configuration of a box of this leaf
 * (component c of replica r at (3 r + c) N + i): the ensembles' kernels update it in
 * place, which leaves the box as its own sweeps would. */
float *cuda_heisenberg_member_spins(const struct cuda_box *b);

/* Its couplings (J_{i,mu} at mu n + i over the local planes; clusters/cuda_embed.c). */
const float *cuda_heisenberg_member_couplings(const struct cuda_box *b);

#endif
