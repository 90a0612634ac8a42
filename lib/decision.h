/* Internal: integer acceptance decisions shared by the discrete models. */
#ifndef LATMC_LIB_DECISION_H
#define LATMC_LIB_DECISION_H

#include <stdint.h>

/*
 * floor(p * 2^32) clamped to [0, 2^32]: a uniform 32-bit draw u satisfies u < threshold
 * with probability p (to 2^-32). Computed on the host, once per parameter change, so that
 * every backend takes the same decision from the same draw.
 */
uint64_t latmc_threshold_u32(double p);

#endif
