/*
 * Internal to the CUDA module: Swendsen-Wang's clusters joined across the faces of k > 1
 * boxes of one lattice (on one GPU or several; doc/clusters.md, "On CUDA"). Each box
 * labels its own planes alone (cuda_sw_label with wrap = 0: a piece's root is its
 * smallest site), then:
 *
 *   out:    each box writes its two face planes (the first and the last own plane, the
 *           slots f = x and ps + x of plane site x; ps sites a plane) as the arrays of a
 *           face buffer: rep[f], the box's first slot of the same piece; name[f], the
 *           global site of its piece's root; bond[x], its bond along the last axis from
 *           the last own plane into the next box's first plane (drawn by this box: the
 *           next box's spins are its upper halo); in a field also sum[f], its piece's
 *           magnetisation (Ising) or size (Potts) over the box's own sites, an int64 as
 *           two words (low, high) at 5 ps + 2 f;
 *   join:   the boxes' face buffers, gathered on the first box's device, are one graph
 *           of k 2 ps nodes: each slot joined to its rep, each active face bond joins
 *           box i's slot ps + x to box i + 1's slot x (the last box's to the first's:
 *           the lattice wraps); union-find with atomicMin, then each component's
 *           smallest name, written back over the names; in a field each component's
 *           sum (its pieces' sums, each piece once: at its rep slot), written back over
 *           the sums;
 *   decide: each box, after its own decisions (cuda_sw_decide, from its pieces'
 *           roots; in a field from their sums), draws its face pieces' decisions again
 *           at their joined names (in a field from their joined sums).
 *
 * A cluster is then named by its smallest global site whatever the cut, and its decision
 * drawn at that name, so the configuration is the one box's (and the CPU's) bit for bit.
 * The joins read no label of another box, only k 5 ps words a step (9 ps in a field):
 * one join, no iteration (the graph of the faces is joined at once, where label propagation would
 * repeat an exchange until no label changed).
 */
#ifndef LATMC_CUDA_SW_FACES_H
#define LATMC_CUDA_SW_FACES_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#include "cuda_sw.h"
#include "philox.h" /* LATMC_HOSTDEV: the face buffer's size in kernels too */

#ifdef __cplusplus
extern "C" {
#endif

/* Words of a box's face buffer (ps sites a plane): rep 2 ps, name 2 ps, bond ps, then
 * the sums 4 ps (2 ps int64 as word pairs: read and copied only in a field). */
LATMC_HOSTDEV uint64_t cuda_sw_face_words(uint64_t ps)
{
    return 9 * ps;
}

/* Whether n boxes of ps sites a plane can be joined: the join names its n 2 ps slots and
 * their reps in 32 bits, so there must be fewer than 2^32 - 1 of them. */
static inline int cuda_sw_faces_fit(uint64_t ps, int n)
{
    return 2 * ps * (uint64_t)n < UINT32_MAX;
}

/* The words of it that a join reads: without a field the first 5 ps. */
LATMC_HOSTDEV uint64_t cuda_sw_face_words_used(uint64_t ps, int field)
{
    return field ? 9 * ps : 5 * ps;
}

/* The face buffer of box b (wrap = 0); scratch: one word per stored site of b; sums: its
 * pieces' sums at their roots (cuda_sw_piece_sums) in a field, else NULL (no sums
 * written). */
cudaError_t cuda_sw_faces_out(cudaStream_t stream, const struct cuda_sw_box *b,
                              uint32_t *scratch, const long long *sums, uint32_t *face);

/* The join of n boxes' face buffers, box i's at gathered + i cuda_sw_face_words(ps);
 * parent and least: n 2 ps words each; jsum: n 2 ps int64, read only where field.
 * Overwrites each box's names with its component's smallest name and, in a field, each
 * slot's sum with its component's. */
cudaError_t cuda_sw_faces_join(cudaStream_t stream, uint32_t *gathered, uint32_t *parent,
                               uint32_t *least, long long *jsum, int n, uint32_t ps,
                               int field);

/* The decisions of box b's face pieces, drawn at their joined names (face: the box's
 * face buffer with the joined names), over those cuda_sw_decide wrote. */
cudaError_t cuda_sw_faces_decide(cudaStream_t stream, const struct cuda_sw_box *b,
                                 const uint32_t *face, uint64_t seed,
                                 struct latmc_rng_name name, uint64_t keep_threshold, int q);

/* The same in a field beta_h != 0: from their joined sums (the heat bath of
 * cuda_sw_field_decide), over those cuda_sw_field_decide_roots wrote. */
cudaError_t cuda_sw_faces_field_decide(cudaStream_t stream, const struct cuda_sw_box *b,
                                       const uint32_t *face, uint64_t seed, uint64_t sweep,
                                       double beta_h, int q);

/* The same for the embedded clusters in a field F != 0 (phi^4, Heisenberg: cuda_embed.h):
 * each face piece keeps (1) iff its draw at its joined name (the decisions' `name`) <
 * latmc_embed_keep_threshold(F, its joined sum of the q_i), over those the box's roots
 * drew. */
cudaError_t cuda_sw_faces_embed_decide(cudaStream_t stream, const struct cuda_sw_box *b,
                                       const uint32_t *face, uint64_t seed,
                                       struct latmc_rng_name name, double field);

/* Wolff on a part (face: its face buffer with the joined names): every own piece's root
 * byte set to 1 iff the piece belongs to the cluster named *target (device word), else 0
 * -- an interior piece by its root's name, a face piece by its joined name. */
cudaError_t cuda_sw_faces_mark(cudaStream_t stream, const struct cuda_sw_box *b,
                               const uint32_t *face, const uint32_t *target);

/* Wolff on k boxes, on the box that holds the seed site (its local site seed_local) after
 * cuda_sw_faces_out: rec[0] the name of the seed's piece, rec[1] the first slot of face
 * whose name (before the join: its piece's) is that name, or UINT32_MAX where the piece
 * reaches no face, rec[2] and rec[3] the piece's sum (sums at its root; 0 where sums is
 * NULL) as an int64, low word first. One block: the host does not wait for it. */
cudaError_t cuda_sw_seed_find(cudaStream_t stream, const struct cuda_sw_box *b,
                              uint32_t seed_local, const uint32_t *face,
                              const long long *sums, uint32_t *rec);

/* After the join, on the first box: the seed's cluster into target[0 .. 3] as
 * cuda_wolff_part_flip reads it -- rec's slot's joined name (and in a field its joined
 * sum) in face, the joined face buffer of the seed's box, or rec's own where the piece
 * reaches no face. One thread. */
cudaError_t cuda_sw_seed_target(cudaStream_t stream, const uint32_t *face, uint32_t ps,
                                const uint32_t *rec, int field, uint32_t *target);

/* The cluster observables on k boxes: into out[0 .. 2] (added to) the clusters, the
 * largest one's sites (atomicMax) and the sum of the clusters' squared sizes of box b's
 * interior pieces (those that reach no face: scratch as cuda_sw_faces_out left it),
 * from their sizes at their roots (sizes: cuda_sw_piece_sums of Potts). */
cudaError_t cuda_sw_interior_stats(cudaStream_t stream, const struct cuda_sw_box *b,
                                   const uint32_t *scratch, const long long *sizes,
                                   unsigned long long *out);

/* The slots' sizes into box b's face buffer's sums (sizes at the pieces' roots). */
cudaError_t cuda_sw_faces_sizes(cudaStream_t stream, const struct cuda_sw_box *b,
                                const long long *sizes, uint32_t *face);

/* After cuda_sw_faces_join with field on the sizes: the same three statistics of the
 * joined components (the clusters that reach a face) added into out[0 .. 2]. */
cudaError_t cuda_sw_join_stats(cudaStream_t stream, const uint32_t *parent,
                               const long long *jsum, int n, uint32_t ps,
                               unsigned long long *out);

#ifdef __cplusplus
}
#endif

#endif
