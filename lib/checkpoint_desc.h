/*
 * Internal: the desc as the checkpoint formats store it (sim checkpoints, ensemble files):
 * a field count (16) and the fields as 64-bit little-endian words, in the order of
 * latmc_sim_desc's version-1 fields. Fields added to the desc later (n_parts) are not
 * stored: they describe how a sim runs, not its chain.
 */
#ifndef LATMC_LIB_CHECKPOINT_DESC_H
#define LATMC_LIB_CHECKPOINT_DESC_H

#include <latmc/sim.h>

#include "checkpoint_io.h"

void ckpt_put_desc(struct ckpt_writer *w, const latmc_sim_desc *d);

/* Read a desc into *d (initialised with latmc_sim_desc_init first). Returns NULL, or what
 * is wrong with the stored fields (the reader's truncation is the caller's to check). */
const char *ckpt_get_desc(struct ckpt_reader *r, latmc_sim_desc *d);

#endif
