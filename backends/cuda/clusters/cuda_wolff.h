/*
 * Internal to the CUDA module: the cluster decisions that need more than a draw, on the
 * labels of cuda_sw.h (doc/clusters.md, "On CUDA"):
 *
 *   Wolff (LATMC_STEP_CLUSTER_FLIP_SEED): after the Swendsen-Wang bonds and labels of the
 *     sweep, only the cluster of the seed site is updated. The CPU grows that cluster
 *     from the seed over the same bonds (lib/cluster_wolff.c), drawing a bond where the
 *     growth reaches it; every bond's draw and its ends' states are named globally, so
 *     the grown cluster is the seed's component of the labelled bonds, and its name (its
 *     smallest site) the root labels[labels[seed]]. The kernels count its sites (and, in
 *     a field, its magnetisation), draw its decision at its name in one thread, then
 *     update its sites.
 *   A field (Swendsen-Wang): every cluster's size (Potts) or magnetisation (Ising)
 *     summed at its root by label, then every root's decision drawn from it.
 *   The cluster observables: the sizes summed the same way, on demand, from the labels
 *     the last sweep left (they stay until the next sweep).
 *
 * The thresholds are lib/cluster_bonds.h's (liblatmc's own exp), so the decisions are the
 * CPU's bit for bit.
 */
#ifndef LATMC_CUDA_WOLFF_H
#define LATMC_CUDA_WOLFF_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#include "cuda_sw.h"

#ifdef __cplusplus
extern "C" {
#endif

/* A box's Wolff counters (device memory, cleared at the box's creation). An ensemble's
 * batched Wolff flip (clusters/cuda_sw_batch_kernels.cu) sets root and decision alone: the
 * ensemble counts its updates, and n and m are read only on k boxes and parts. */
struct cuda_wolff_counts {
    unsigned long long sites; /* the sites of every sweep's cluster: the updates attempted
                                 (never reset; the leaf reads its growth per call) */
    unsigned long long n;     /* this sweep's cluster: its sites and magnetisation (one */
    unsigned long long m;     /* box in a field; m two's complement), cleared per sweep;
                                 on k boxes and parts n its sites on the box, every sweep */
    uint32_t root;            /* its name */
    uint32_t decision;        /* Ising 1 keep, 0 flip; Potts the new colour */
};

/* The update of the cluster of site `seed_site` in sweep `sweep` of chain `seed`, on a
 * labelled box (cuda_sw_label): q = 0 Ising, else Potts with q states; beta_h = beta h.
 * Adds the sites changed to *changed and the cluster's sites to c->sites. */
cudaError_t cuda_wolff_flip(cudaStream_t stream, const struct cuda_sw_box *b, uint64_t seed,
                            uint64_t sweep, uint32_t seed_site, double beta_h, int q,
                            struct cuda_wolff_counts *c, unsigned long long *changed);

/* The first half of cuda_wolff_flip, which the embedded clusters share (cuda_embed.h: a
 * box without spins, q = 0, beta_h = 0): the root of site seed_site's cluster into
 * c->root, and its decision, drawn at that name of `name` (the draws of the sweep's
 * phase LATMC_CLUSTER_PHASE_DECIDE), into c->decision -- without a field Ising 0 (it
 * flips); in a field from c->n, c->m summed before. */
cudaError_t cuda_wolff_decide(cudaStream_t stream, const struct cuda_sw_box *b,
                              uint32_t seed_site, uint64_t seed, struct latmc_rng_name name,
                              double beta_h, int q, struct cuda_wolff_counts *c);

/* Wolff on a part of a lattice shared by processes, or on one of k boxes, its faces
 * joined with every part's (cuda_sw_part_faces, cuda_sw_boxes_join): the own sites of
 * the cluster named target[0] (a device word) -- its interior piece by its root's name,
 * its face pieces by their joined names (face: the box's face buffer) -- take the
 * cluster's update drawn at that name; in a field beta_h != 0 from the cluster's whole
 * magnetisation (Ising) or size (Potts), target[2], target[3] (an int64, low word
 * first). Overwrites the roots' bonds bytes; adds the sites changed to *changed and the
 * cluster's sites here to c->sites, and sets c->n to them (the core adds the parts'
 * counts; the boxes' cluster observables add the boxes'). */
cudaError_t cuda_wolff_part_flip(cudaStream_t stream, const struct cuda_sw_box *b,
                                 const uint32_t *face, const uint32_t *target, uint64_t seed,
                                 uint64_t sweep, double beta_h, int q,
                                 struct cuda_wolff_counts *c, unsigned long long *changed);

/* Every cluster's decision in a field beta_h != 0, drawn at its name from its
 * magnetisation (q = 0) or size (Potts), into its root's bonds byte as cuda_sw_apply reads
 * it; sums: one int64 per site (device), overwritten. A box alone: cuda_sw_piece_sums
 * then cuda_sw_field_decide_roots. */
cudaError_t cuda_sw_field_decide(cudaStream_t stream, const struct cuda_sw_box *b,
                                 uint64_t seed, uint64_t sweep, double beta_h, int q,
                                 long long *sums);

/* Every piece's magnetisation (q = 0) or size (q != 0) over box b's own sites, at its
 * root in sums (one int64 per stored site; the own planes' overwritten): on k boxes after
 * the labels, for the faces' join (cuda_sw_faces_out). */
cudaError_t cuda_sw_piece_sums(cudaStream_t stream, const struct cuda_sw_box *b, int q,
                               long long *sums);

/* Every own root's decision in a field from its piece's sum, drawn at its global site
 * (on k boxes the face pieces' are drawn again at their joined names). */
cudaError_t cuda_sw_field_decide_roots(cudaStream_t stream, const struct cuda_sw_box *b,
                                       uint64_t seed, uint64_t sweep, double beta_h, int q,
                                       const long long *sums);

/* What the last cluster sweep built, from the labels it left, into the device words
 * out[0 .. 2] (cleared here): the clusters, the largest one's sites, the sum of the
 * clusters' squared sizes (as lib/cluster_sweep.h's struct latmc_cluster_stats). Wolff
 * (c non-NULL): the one cluster named c->root, out[1] = out[2] its sites, out[0] 1;
 * Swendsen-Wang (c NULL): every cluster's size counted at its root into sums (one int64
 * per site, overwritten). */
cudaError_t cuda_cluster_stats(cudaStream_t stream, const struct cuda_sw_box *b,
                               const struct cuda_wolff_counts *c, long long *sums,
                               unsigned long long *out);

#ifdef __cplusplus
}
#endif

#endif
