/*
 * Internal to the CUDA module: ops.embed_step on the k > 1 boxes of a sim of one process
 * (cuda_embed_boxes.c; cuda_embed.c runs a box alone and hands such sims here).
 */
#ifndef LATMC_CUDA_EMBED_BOXES_H
#define LATMC_CUDA_EMBED_BOXES_H

#include "internal.h"

struct latmc_embed_job;
struct cuda_embed_boxes; /* the boxes' arrays (struct cuda_sim's embed_boxes) */

/* ops.embed_step (lib/backend.h) of a Heisenberg or phi^4 sim held as k > 1 boxes of one
 * process (LATMC_EUNSUPPORTED without a message for any other sim, and where a GPU has no
 * room for the step's arrays at an ask). A library status. */
int cuda_embed_boxes_step(latmc_sim *sim, int what, struct latmc_embed_job *job);
void cuda_embed_boxes_free(struct cuda_embed_boxes *e);

/* An ask declined for want of a GPU's memory records no error (lib/backend.h), but the
 * host copy it leads to is thousands of times slower: logged at LATMC_LOG_INFO, once a
 * sim (the one box's asks, cuda_embed.c, and the boxes'). */
void cuda_embed_note_no_room(latmc_sim *sim, const char *what);

#endif
