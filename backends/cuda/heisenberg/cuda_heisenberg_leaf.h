/*
 * Internal to the CUDA module: the Heisenberg spin glass's leaf of the one executor
 * (exec/cuda_leaf.h; cuda_heisenberg_leaf.c), and the accessor the module's ensembles
 * (heisenberg/cuda_heisenberg_batch.c) use on a member's box.
 */
#ifndef LATMC_CUDA_HEISENBERG_LEAF_H
#define LATMC_CUDA_HEISENBERG_LEAF_H

#include <stdint.h>

#include "cuda_leaf.h"

/* The leaf of a Heisenberg sim, cuda_heisenberg_leaf_of (declared in cuda_leaf.h with
 * every model's): one per replica count (its storage counts the replicas' arrays). */

/* The structure-of-arrays buffer that holds the configuration of a box of this leaf
 * (component c of replica r at (3 r + c) N + i): the ensembles' kernels update it in
 * place, which leaves the box as its own sweeps would. */
float *cuda_heisenberg_member_spins(const struct cuda_box *b);

/* Its couplings (J_{i,mu} at mu n + i over the local planes; clusters/cuda_embed.c). */
const float *cuda_heisenberg_member_couplings(const struct cuda_box *b);

/* For passes run on a box alone from outside its sweeps (the ensembles' members too large
 * for one block, cuda_heisenberg_pass_batch): the buffer that holds the configuration and
 * the other one (a pass reads the first and writes the second), the geometry of the box's
 * heat-bath (heatbath != 0) or overrelaxation passes, and, after `passes` such passes, the
 * box told where they left the configuration. */
struct cuda_heisenberg_geom;
void cuda_heisenberg_member_buffers(const struct cuda_box *b, float **cur, float **other);
const struct cuda_heisenberg_geom *cuda_heisenberg_member_geom(const struct cuda_box *b,
                                                               int heatbath);
void cuda_heisenberg_member_passed(struct cuda_box *b, uint64_t passes);

#endif
