/* liblatmc examples — reporting library failures, seeds, the clock. */
#include <stdio.h>
#include <time.h>

#include "ex_util.h"

int ex_check(int rc, const latmc_sim *sim, const char *what)
{
    if (rc == LATMC_OK)
        return LATMC_OK;
    const char *detail = sim != NULL ? latmc_sim_last_error(sim) : latmc_last_error();
    fprintf(stderr, "%s: %s%s%s\n", what, latmc_strerror(rc), detail[0] ? ": " : "", detail);
    return rc;
}

uint64_t ex_chain_seed(uint64_t base, uint64_t index)
{
    /* The key of a chain is its whole 64-bit seed: keep base and index in separate halves
     * so that no two (base, index) pairs with index < 2^32 collide. */
    return (base << 32) ^ (index & 0xffffffffu);
}

double ex_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}
