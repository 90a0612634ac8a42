/*
 * Internal to the CUDA module: the state and the steps of Swendsen-Wang's leaves
 * (cuda_sw_leaf.c) on k > 1 boxes of one lattice, on one GPU or several: each box's face
 * buffer and scratch, the first box's join of them all (cuda_sw_faces.h says what they
 * hold), and the events that order the boxes' streams around the join.
 */
#ifndef LATMC_CUDA_SW_BOXES_H
#define LATMC_CUDA_SW_BOXES_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#include "cuda_leaf.h"
#include "cuda_sw.h"

struct cuda_sw_faces {
    uint32_t ps;          /* sites a plane */
    uint32_t *face;       /* the box's face buffer (cuda_sw_face_words(ps) words) */
    uint32_t *scratch;    /* one word per stored site */
    cudaEvent_t sent;     /* the face buffer is in the first box's gathered array */
    /* in a field: the box's pieces' sums at their roots (cuda_sw_piece_sums, the leaf's
     * array, set at each label step), written into the faces; NULL without a field */
    const long long *sums;
    /* the first box's (origin 0), or every part's: every box's face buffer, the join's
     * arrays (jsum: the components' sums in a field), and the event after the joined
     * names went back to every box */
    int n;
    uint32_t *gathered, *parent, *least;
    long long *jsum;
    cudaEvent_t joined;
    /* Wolff (a part's, or each of k boxes'): the seed's cluster after the join (device
     * words): [0] its name, [2] and [3] its sum in a field (an int64, low word first) */
    uint32_t *target;
    /* Wolff on k boxes (each box's): the seed's piece where the box holds the seed, and on
     * the first box the record the join reads (cuda_sw_seed_find: 4 device words) */
    uint32_t *seed;
    /* A part's cluster statistics, from the last join with LATMC_CLUSTER_FACES_STATS:
     * those of the clusters that reach a face (device, 3 words as cuda_sw_join_stats adds
     * them; Wolff: [1] its cluster's sites where that reaches a face), and on the host
     * every part's clusters that reach none added (Wolff: [1] its cluster's sites where
     * that lies inside one part); counted: they describe the last join (cleared at each
     * sweep's bonds step and faces out, set by the join with the statistics). */
    unsigned long long *stats;
    unsigned long long inside[3];
    int counted;
};

/* The face state of box b of a sim of sim->plan->n_boxes boxes (on its device, current),
 * or of a part's box (every part joins: each holds the join's arrays for all parts); a
 * library status. *out NULL on failure; free with cuda_sw_boxes_destroy. */
int cuda_sw_boxes_create(const latmc_sim *sim, const struct cuda_box *b,
                         struct cuda_sw_faces **out);
/* The same without a message where it fails (LATMC_ENOMEM: a host or device allocation;
 * LATMC_EDEVICE: an event), for a caller that declines quietly instead (ops.embed_step's
 * ask, lib/backend.h: cuda_embed_boxes.c); nothing kept. */
int cuda_sw_boxes_try_create(const latmc_sim *sim, const struct cuda_box *b,
                             struct cuda_sw_faces **out);
void cuda_sw_boxes_destroy(struct cuda_sw_faces *f);

/* After every box's labels were enqueued on its border stream: the faces out, the join on
 * the first box, the joined names back; every box's border stream then waits for them.
 * kb[i], faces[i]: box i's kernel view and face state. Wolff (seed_site >= 0; -1:
 * Swendsen-Wang): also the seed's cluster's name into every box's faces[i]->target (the
 * box holding the seed finds its piece and face slot on the device and sends them with
 * its faces: no host wait), and in a field its joined sum. In a field (faces[i]->sums set) the faces carry the pieces' sums
 * and the join adds them. A library status. */
int cuda_sw_boxes_join(struct cuda_box *box, int n, const struct cuda_sw_box *kb,
                       struct cuda_sw_faces *const *faces, int64_t seed_site);

/* A part of a lattice shared by processes (f made for its box, on its device, current):
 * ops.cluster_faces' steps (lib/backend.h; what: LATMC_CLUSTER_FACES_*). field: the sim's
 * beta h != 0 (its parameters, the same on every part and at every step of a call). The
 * record: the face buffer's words that a join reads (cuda_sw_face_words_used: the sums'
 * only in a field), then one word, the name of the Wolff seed's piece (its root's global
 * site) on the part that holds the seed site, else UINT32_MAX (seed_site < 0:
 * Swendsen-Wang), then that piece's sum (two words, low first; 0 without a field or
 * elsewhere).
 * SIZE: the record's bytes; OUT: the box's record into host after its labels (kb: its
 * kernel view), waited for, its pieces' sums in the faces in a field (f->sums) and
 * two words more, the seed's piece's sum; JOIN: every part's records at host, *bytes apart, in part
 * order, joined on the device as the first box joins k boxes, this part's (rank's) joined
 * names into its face buffer, and (Wolff) the seed's cluster's name into f->target: the
 * joined name of a face slot of the seed's piece, or the piece's own (it reaches no
 * face), and in a field its sum (joined across the faces, or the piece's), all on its
 * border stream. With LATMC_CLUSTER_FACES_STATS or'ed into `what` (sizes: one int64 per
 * stored site, device, overwritten; q as cuda_sw_piece_sums'), the record carries 4 ps + 8
 * words more: the face slots' sizes (int64 word pairs, as the sums), the part's pieces
 * that reach no face counted (3 int64: clusters, largest, squared sizes; Swendsen-Wang),
 * and the Wolff seed's piece's sites (an int64); OUT counts them (in a field for Ising the
 * pieces' magnetisations summed again after, for the flip), JOIN joins the sizes on the
 * same graph for cuda_sw_part_stats. A library status. */
int cuda_sw_part_faces(struct cuda_box *box, const struct cuda_sw_box *kb,
                       struct cuda_sw_faces *f, int what, void *host, size_t *bytes,
                       int rank, int64_t seed_site, int field, long long *sizes, int q);

/* A part's cluster statistics (the clusters, the largest one's sites, the sum of the
 * squared sizes; Wolff: 1, its cluster's sites twice) of the whole lattice, the same on
 * every part, from the last join with the statistics (the box's border stream idle); a
 * library status, LATMC_ESTATE where no join counted them. */
int cuda_sw_part_stats(struct cuda_box *box, struct cuda_sw_faces *f, int wolff,
                       unsigned long long out[3]);

#endif
