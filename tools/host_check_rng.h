// The tools' host checks' random numbers (tools/*_host_check.cu): a 64-bit xorshift, one
// fixed sequence per program, so that a failing check fails the same way every run.
#ifndef LATMC_TOOLS_HOST_CHECK_RNG_H
#define LATMC_TOOLS_HOST_CHECK_RNG_H

#include <cstdint>

static uint64_t host_check_state = 0x9E3779B97F4A7C15u;

static inline uint64_t next_u64(void)
{
    host_check_state ^= host_check_state << 13;
    host_check_state ^= host_check_state >> 7;
    host_check_state ^= host_check_state << 17;
    return host_check_state;
}

#endif
