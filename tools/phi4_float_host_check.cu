// Host check (no GPU needed): the float count of phi^4's fixed point that the tile walk's
// helpers run (backends/cuda/modes_fixed.cuh: cuda_modes_float_bits, _odd, _ok; fmaf on the
// host is correctly rounded, as the device's fma.rn.f32) against the definition,
// q = round(phi 2^20) with ties to even (lib/modes_exact.h, latmc_modes_field_fixed; here
// nearbyint of the exact double phi 2^20): every value the count takes gets that q, and no
// value with |phi 2^20| < 2^22 - 1 is refused. The values: every float exponent from 2^-149
// to 2^127 at random mantissas and both signs, a stride through all 2^32 bit patterns
// (NaNs and infinities among them), the ties and quarter points around +-2^22, and the walk
// test's edge values (-4, 4, -4.0000005, 3.9999998, -24).
// Run: tools/phi4-float-host-check.sh BUILD_DIR.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>

#include "host_check_rng.h"
#include "modes_fixed.cuh"

static long values, taken, wrong, refused;

static void check(float phi)
{
    values++;
    const unsigned b = cuda_modes_float_bits(phi);
    const bool ok = cuda_modes_float_ok(cuda_modes_float_odd(0, b));
    if (!std::isfinite(phi)) {
        if (ok && wrong++ < 10)
            printf("taken: %a\n", (double)phi);
        return;
    }
    const double t = (double)phi * 0x1p20; /* exact: 24 bits of mantissa */
    const double want = std::nearbyint(t); /* ties to even (the default rounding) */
    if (ok) {
        taken++;
        const long long q = (long long)b - (long long)CUDA_MODES_FLOAT_BITS;
        if ((double)q != want && wrong++ < 10)
            printf("phi %a: q %lld, want %.1f\n", (double)phi, q, want);
    } else if (std::fabs(t) < 0x1p22 - 1 && refused++ < 10) {
        printf("refused: %a\n", (double)phi);
    }
}

int main(void)
{
    for (int e = -149; e <= 127; e++)
        for (int i = 0; i < 2000; i++) {
            const double u = (double)(next_u64() >> 11) * 0x1p-53; /* [0, 1) */
            const float x = (float)std::ldexp(1.0 + u, e);
            check(x);
            check(-x);
        }
    for (uint64_t bits = 0; bits <= 0xFFFFFFFFu; bits += 4099) {
        const uint32_t w = (uint32_t)bits;
        float phi;
        std::memcpy(&phi, &w, sizeof phi);
        check(phi);
    }
    for (int s = -1; s <= 1; s += 2)
        for (long long k = (1LL << 22) - 64; k < (1LL << 22) + 64; k++)
            for (int f = 0; f < 4; f++)
                check((float)(s * ((double)k + 0.25 * f) * 0x1p-20));
    static const float edges[] = { -4.0f, 4.0f, -0x1.000002p2f, 3.9999998f, -24.0f, 0.0f, -0.0f,
                                   0x1p-149f, -0x1p-149f, 0x1.fffffep127f, INFINITY, -INFINITY,
                                   NAN };
    for (float phi : edges)
        check(phi);
    printf("phi4 float host check: %ld values, %ld taken by the float count, %ld with a wrong "
           "q, %ld below 2^22 - 1 refused\n", values, taken, wrong, refused);
    return wrong == 0 && refused == 0 && taken > 0 ? 0 : 1;
}
