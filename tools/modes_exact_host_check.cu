// Host check (no GPU needed): the CUDA counts' weighing of a thread's small integers v by
// the modes' 64-bit weights w in two 64-bit sums of 32-bit products (modes_exact.cuh's
// exact_acc: the packed and 1-bit Ising counts' columns and weigh_row_window's rows)
// equals the exact sum of lib/modes_exact.h's 128-bit products (latmc_i128_mul,
// latmc_i128_add, the portable form too) bit for bit: the phase tables' own weights
// (latmc_modes_weight of cos and sin of 2 pi x / L) and random weights of the whole range
// |w| <= 2^62 with the words' edges (a low word of 2^31 or 2^32 - 1, whose signed half
// borrows from the high one), v of either sign up to the bound exact_acc states (the sum
// of |v| below 2^32), long sums at that bound included.
// Run: tools/modes-exact-host-check.sh BUILD_DIR.
#include <cmath>
#include <cstdint>
#include <cstdio>

#include "host_check_rng.h"
#include "modes_exact.cuh"

static const int64_t edges[] = {
    (int64_t)1 << 62, -((int64_t)1 << 62), ((int64_t)1 << 62) - 1, -((int64_t)1 << 62) + 1, 0, 1,
    -1, 0x7FFFFFFF, 0x80000000, -(int64_t)0x80000000, 0xFFFFFFFF, 0x180000000, -0x17FFFFFFF,
};

static int64_t weight_of(int kind, int64_t x, int64_t L)
{
    const double phase = 2.0 * M_PI * (double)x / (double)L;
    if (kind == 0)
        return latmc_modes_weight(std::cos(phase));
    if (kind == 1)
        return latmc_modes_weight(std::sin(phase));
    if (kind == 2)
        return edges[next_u64() % (sizeof edges / sizeof edges[0])];
    const int64_t w = (int64_t)(next_u64() >> 1) - ((int64_t)1 << 62); /* [-2^62, 2^62) */
    return w;
}

static bool same(latmc_i128 a, __int128 b)
{
    return a.lo == (uint64_t)b && a.hi == (int64_t)(b >> 64);
}

/* One sum of n terms, each |v| at most vmax, the weights of `kind`: exact_acc against
 * latmc_i128_mul / latmc_i128_mul_portable summed by latmc_i128_add. */
static bool one_sum(int kind, int n, int vmax, int64_t L)
{
    struct exact_acc acc = {};
    latmc_i128 want = latmc_i128_of(0), portable = latmc_i128_of(0);
    for (int k = 0; k < n; k++) {
        const int64_t w = weight_of(kind, (int64_t)(next_u64() % (uint64_t)L), L);
        int v = (int)(next_u64() % (uint64_t)(2 * vmax + 1)) - vmax;
        if (next_u64() % 8 == 0)
            v = next_u64() % 2 ? vmax : -vmax; /* the bound itself */
        exact_acc_add(acc, v, w);
        want = latmc_i128_add(want, latmc_i128_mul(v, w));
        portable = latmc_i128_add(portable, latmc_i128_mul_portable(v, w));
    }
    const __int128 got = exact_acc_value(acc);
    return same(want, got) && same(portable, got);
}

int main(void)
{
    int fails = 0, sums = 0;
    for (int t = 0; t < 40000; t++) {
        const int kind = t % 4;
        const int n = 1 + (int)(next_u64() % 64);
        const int vmax = (t / 4) % 2 ? 1024 : 65535; /* a chunk's column or a row's sum */
        fails += !one_sum(kind, n, vmax, (int64_t)64 << (t % 11));
        sums++;
    }
    /* at the stated bound: 65535 terms of |v| = 65535 (the sum of |v| just under 2^32),
     * weights whose signed low word is -2^31 or 2^31 - 1 (the largest halves) */
    for (int sign = -1; sign <= 1; sign += 2) {
        const int64_t ws[] = { 0x80000000, 0x7FFFFFFF, -(int64_t)0x80000000,
                               ((int64_t)1 << 62) - 0x80000000, -((int64_t)1 << 62) };
        for (int64_t w : ws) {
            struct exact_acc acc = {};
            __int128 want = 0;
            for (int k = 0; k < 65535; k++) {
                exact_acc_add(acc, sign * 65535, w);
                want += (__int128)(sign * 65535) * w;
            }
            fails += exact_acc_value(acc) != want;
            sums++;
        }
    }
    printf("modes exact host check: %d sums, %d differ from the 128-bit reference\n", sums,
           fails);
    return fails != 0;
}
