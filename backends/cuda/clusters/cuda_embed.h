/*
 * Internal to the CUDA module: the embedded Swendsen-Wang or Wolff step of a Heisenberg
 * sim (with or without a field), or of a phi^4 sim (any Lambda on a box alone), on its GPU
 * (ops.embed_step, lib/backend.h; doc/clusters.md "Embedded clusters"), bit for bit the
 * core's step
 * (lib/cluster_embed.c, lib/cluster_heisenberg.c, lib/cluster_phi4.c: phi^4's a_i = phi_i,
 * K = k_near uniform for the nearest neighbours, with a finite Lambda the further pairs of
 * struct cuda_embed_far united after the labelling, the flip phi -> -phi;
 * Heisenberg below):
 *
 *   a:      a_i = r . s_i in double, ((r_x s_x + r_y s_y) + r_z s_z), every product and
 *           sum rounded once (__dmul_rn, __dadd_rn: no contraction into fused
 *           multiply-adds, whatever the module's -fmad);
 *   bonds:  bond (i, mu) to j = i + e_mu active iff x = ((beta J_{i,mu}) a_i) a_j > 0 and
 *           its draw (n = ndim i + mu) < floor((1 - exp(-2x)) 2^32) (2^32 for x > 25), with
 *           liblatmc's expm1 (lib/latmc_math.h, the CPU's bits); one byte per site, bit mu,
 *           as the Ising bonds, so that the Ising labelling (cuda_sw.h) names the clusters
 *           by their smallest sites;
 *   flips:  Swendsen-Wang: each cluster keeps its signs iff its draw at its name < 2^31
 *           (cuda_sw_decide), in a field (Heisenberg) below the heat bath's threshold from
 *           its sum of a as lib/cluster_embed_sum.h defines it, an integer
 *           (cuda_embed_field_decide); Wolff: the one cluster of the step's seed site,
 *           found as Ising Wolff finds it (the root of the seed's label) -- the CPU grows
 *           it from the seed over the same bonds, each named globally, so it is the seed's
 *           component of the labelled bonds -- flips (cuda_wolff_decide), in a field by
 *           the same heat bath (cuda_embed_field_wolff_decide); every site that flips is
 *           reflected, s - 2 a r normalised in double and rounded to float as
 *           lib/heisenberg_site.h's latmc_heisenberg_store_unit.
 *
 * The replicas run last to first, so replica 0's a, bonds and labels stay for the
 * statistics (LATMC_EMBED_NAMES: copied to the host, where the core counts them in site
 * order, or regrows Wolff's cluster over the bonds in its growth order).
 */
#ifndef LATMC_CUDA_EMBED_H
#define LATMC_CUDA_EMBED_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#include "cuda_sw.h"
#include "cuda_wolff.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The draws of one replica's step (lib/cluster_embed.h: the replica's, sweep's, sub
 * LATMC_EMBED_SUB): the chain's seed, the names of the bonds and of the decisions; for
 * Wolff the step's seed site and a device word for its cluster (wolff NULL:
 * Swendsen-Wang); the field F = field (Heisenberg: beta h r_z; 0 without one), and for
 * Swendsen-Wang in a field the scratch of cuda_embed_field_decide (field_work_bytes,
 * cuda_embed_field_bytes(n)). */
struct cuda_embed_far {
    int n_dirs;             /* 0 or ndim: none; else lib/cluster_phi4.c's count */
    double k_axis2, k_diag; /* K of the pairs 2 e_mu apart and of the planar diagonals */
};

struct cuda_embed_draws {
    uint64_t seed;
    struct cuda_embed_far far; /* phi^4 with a finite Lambda: its further pairs (a box
                                  alone); zero: the nearest neighbours alone */
    struct latmc_rng_name bonds, decide;
    uint32_t seed_site;
    struct cuda_wolff_counts *wolff;
    double field;
    void *field_work;
    size_t field_work_bytes;
};

/* Which clusters a step's flip reflects (cuda_embed_*_reflect, _negate): Swendsen-Wang
 * (every member NULL) each cluster whose root's bonds byte holds 0 (its decision: 1 keep);
 * Wolff on a box alone (wolff) the cluster whose root is wolff->root, where
 * wolff->decision is 0; Wolff on k boxes (target) the sites whose cluster's joined name
 * (cuda_sw_device.cuh, sw_joined_name: scratch and face as cuda_sw_faces_out and the join
 * left them) is target[0], where *keep is 0 (cuda_embed_target_decide). Device words. */
struct cuda_embed_flips {
    const struct cuda_wolff_counts *wolff;
    const uint32_t *scratch, *face, *target, *keep;
};

/* Swendsen-Wang's decisions in a field F != 0 on a labelled box of n sites
 * (cuda_embed_field.cu): each cluster keeps iff its draw at its name < floor(2^32 /
 * (1 + exp(-2 F A))), A its sum of a as lib/cluster_embed_sum.h defines it (integers added
 * by atomics: the core's totals in any order), into its root's bonds byte (1 keep), as
 * cuda_sw_decide leaves them. work: cuda_embed_field_bytes(n) bytes of device memory (an
 * int64 a site: the sums at the roots), work_bytes its size (cudaErrorInvalidValue,
 * nothing launched, where it is smaller). */
size_t cuda_embed_field_bytes(uint32_t n);
cudaError_t cuda_embed_field_decide(cudaStream_t stream, const struct cuda_sw_box *b,
                                    uint32_t n, const double *a, double field, uint64_t seed,
                                    struct latmc_rng_name name, void *work, size_t work_bytes);

/* The two halves of cuda_embed_field_decide, for k boxes, whose pieces' sums are joined
 * across the faces between them: every own piece's sum of the q_i at its root in work
 * (an int64 per stored site of the box: cuda_embed_field_bytes(g.nsites)), then each
 * piece's decision at its root's global site from it (a face piece's drawn again at its
 * joined name: cuda_sw_faces_embed_decide). */
cudaError_t cuda_embed_field_sums(cudaStream_t stream, const struct cuda_sw_box *b,
                                  const double *a, void *work, size_t work_bytes);
cudaError_t cuda_embed_field_roots(cudaStream_t stream, const struct cuda_sw_box *b,
                                   const void *work, double field, uint64_t seed,
                                   struct latmc_rng_name name);

/* Wolff on k boxes: the seed's cluster's decision into *keep (1 keep, 0 flip) from
 * target (cuda_sw_seed_target's: [0] its name, [2], [3] its sum of the q_i, low word
 * first): without a field (field 0) it flips, else it keeps iff its draw at its name <
 * latmc_embed_keep_threshold(field, sum). One thread. */
cudaError_t cuda_embed_target_decide(cudaStream_t stream, const uint32_t *target, double field,
                                     uint64_t seed, struct latmc_rng_name name, uint32_t *keep);

/* Wolff's decision in a field F != 0 on a labelled box of n sites: the root of site
 * seed_site's cluster into c->root and its decision (1 keep, 0 flip) into c->decision,
 * keep iff its draw at the root < the threshold above from the cluster's sum of a (added
 * into c->m, overwritten). */
cudaError_t cuda_embed_field_wolff_decide(cudaStream_t stream, const struct cuda_sw_box *b,
                                          uint32_t n, const double *a, uint32_t seed_site,
                                          double field, uint64_t seed,
                                          struct latmc_rng_name name,
                                          struct cuda_wolff_counts *c);

/* The step in its parts, for a box joined to others (box: its own planes, wrap 0): a_i of
 * the own planes and of the first plane of the upper halo, then the bonds of the own
 * sites (those of the last own plane along the last axis into the upper halo); and the
 * reflections (phi^4: sign flips) of the own sites that `flips` names, after the labels,
 * the join and the decisions. Arguments as the one-box steps' below. */
cudaError_t cuda_embed_heisenberg_bonds(cudaStream_t stream, const struct cuda_sw_box *box,
                                  const float *spins, const float *J, double *a,
                                  const double r[3], double beta,
                                  const struct cuda_embed_draws *draws);
cudaError_t cuda_embed_heisenberg_reflect(cudaStream_t stream, const struct cuda_sw_box *box,
                                    float *spins, const double *a, const double r[3],
                                    const struct cuda_embed_flips *flips);
cudaError_t cuda_embed_phi4_bonds(cudaStream_t stream, const struct cuda_sw_box *box,
                                  const void *phi, int single, double *a, double k_near,
                                  const struct cuda_embed_draws *draws);
cudaError_t cuda_embed_phi4_negate(cudaStream_t stream, const struct cuda_sw_box *box,
                                   void *phi, int single, const struct cuda_embed_flips *flips);

/* One replica's step on a box alone: spins its SoA (component c at c n + i), J the
 * couplings (SoA, mu n + i), a the replica's a_i (written), box the labelling's arrays
 * over the same lattice (its spins unused). */
cudaError_t cuda_embed_heisenberg_step(cudaStream_t stream, const struct cuda_sw_box *box,
                                 float *spins, const float *J, double *a, const double r[3],
                                 double beta, const struct cuda_embed_draws *draws);

/* phi^4 (the nearest-neighbour pairs with K = k_near; with draws->far the further pairs
 * of a finite Lambda too, a box alone only): a_i = phi_i (float, single, or double), the
 * flip phi -> -phi. */
cudaError_t cuda_embed_phi4_step(cudaStream_t stream, const struct cuda_sw_box *box, void *phi,
                                 int single, double *a, double k_near,
                                 const struct cuda_embed_draws *draws);

#ifdef __cplusplus
}
#endif

#endif
