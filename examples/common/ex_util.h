/* liblatmc examples — reporting library failures, seeds, the clock. */
#ifndef LATMC_EX_UTIL_H
#define LATMC_EX_UTIL_H

#include <stdint.h>

#include <latmc/latmc.h>

/*
 * If rc is not LATMC_OK, print "what: <status>: <detail>" on stderr (detail from
 * latmc_sim_last_error(sim), or latmc_last_error() when sim is NULL) and return rc;
 * else return LATMC_OK. Lets a task write `if (ex_check(...)) goto out;`.
 */
int ex_check(int rc, const latmc_sim *sim, const char *what);

/*
 * The seed of independent chain `index` of a study with base seed `base`: distinct
 * (base, index) pairs (both below 2^32) give distinct Philox keys, hence independent
 * random streams.
 */
uint64_t ex_chain_seed(uint64_t base, uint64_t index);

/* Seconds on a monotonic clock. */
double ex_now(void);

#endif
