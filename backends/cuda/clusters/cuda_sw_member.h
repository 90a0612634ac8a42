/*
 * Internal to the CUDA module: the cluster leaf's arrays of a member of an ensemble whose
 * Swendsen-Wang or Wolff steps run as a batch (clusters/cuda_sw_batch.c), and the leaf's state
 * after such a batch's steps. A member is a box alone (its own wrap).
 */
#ifndef LATMC_CUDA_SW_MEMBER_H
#define LATMC_CUDA_SW_MEMBER_H

#include <stdint.h>

struct cuda_box;
struct cuda_wolff_counts;

/* The box's bonds and labels (device; one a site), its +-J couplings (eps[ndim i + mu];
 * NULL: uniform) and its Wolff counters (NULL: Swendsen-Wang). */
void cuda_sw_member_arrays(const struct cuda_box *b, uint8_t **bonds, uint32_t **labels,
                           int8_t **eps, struct cuda_wolff_counts **wolff);

/* After a batch's flip step of sweep `sweep` on the box: its labels are every site's root
 * (flat, as after the leaf's own flip; Wolff: its counters name the cluster), and its
 * statistics describe them. */
void cuda_sw_member_swept(struct cuda_box *b, uint64_t sweep);

#endif
