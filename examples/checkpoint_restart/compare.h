/* checkpoint_restart — run one case interrupted and uninterrupted, and compare. */
#ifndef CKPT_COMPARE_H
#define CKPT_COMPARE_H

#include <latmc/latmc.h>

#include "models.h"

/* 0: bit-identical; 1: a difference (printed); -1: a library call failed (printed).
 * The checkpoint goes to dir/<name>.ckpt. */
int restart_check(latmc_ctx *ctx, const struct model_case *c, int threads, const char *dir);

#endif
