// Host check (no GPU needed): the CUDA member-lanes kernel's site functions
// (backends/cuda/ensembles/ens_lanes_kernels.cu: lanes_site_fast, every form, forced classes as
// the kernels build them; the register form's head and tail, lanes_regs_head and
// lanes_regs_tail, each undecided word's tail run at once) against the CPU's
// latmc_ens_lanes_update_site_sliced, word for word.
// Run: tools/lanes-host-check.sh BUILD_DIR (a configured build tree, for lib/ generated headers).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include "ens_lanes_kernels.cu"

static uint64_t rs = 88172645463325252ull;
static uint64_t rnd() { rs ^= rs << 13; rs ^= rs >> 7; rs ^= rs << 17; return rs; }

static uint64_t rthr() {
    switch (rnd() % 4) { case 0: return 0; case 1: return 1ull << 32; default: return rnd() & 0xffffffffull; }
}

/* lanes_classes_build serially, force as the device's */
static void classes_host(latmc_ens_lanes_classes *c, const latmc_ising_tables *t, uint32_t active, int algo, int nd, int force)
{
    int heat = algo == LATMC_ALGO_HEATBATH, nk = 2 * nd + 1;
    int all = 1;
    for (int l = 0; l < 32; l++)
        if (((active >> l) & 1u) && !heat && !latmc_ens_lanes_symmetric(&t[l], nd)) all = 0;
    int by = !heat && (force < 0 ? all : force);
    c->heatbath = heat; c->nk = nk; c->by_unsat = by;
    for (int key = 0; key < LATMC_ENS_LANES_KEYS; key++) {
        int neg = key / LATMC_ISING_MAX_K, k = key % LATMC_ISING_MAX_K;
        bool skip = k >= nk || ((heat || by) && neg);
        c->always[key] = c->open[key] = 0;
        for (int b = 0; b < 32; b++) c->plane[key][b] = 0;
        for (int l = 0; l < 32; l++) {
            uint64_t th = 0;
            if (!skip && ((active >> l) & 1u)) th = latmc_ising_site_threshold(&t[l], algo, (int8_t)(neg || by ? -1 : 1), k);
            if (th >> 32) c->always[key] |= 1u << l;
            else if (th) c->open[key] |= 1u << l;
            for (int b = 0; b < 32; b++) c->plane[key][b] |= (uint32_t)((th >> (31 - b)) & 1u) << l;
        }
    }
}

template <int ND, bool COUPLED, int MODE>
static int check(int lx, int ly, int lz, int algo, bool sym, uint32_t active, int sweeps)
{
    latmc_lattice g; g.ndim = ND; g.lx = lx; g.ly = ly; g.lz = ND == 3 ? lz : 1; g.nsites = g.lx * g.ly * g.lz;
    int N = (int)g.nsites;
    latmc_ising_tables t[32];
    for (int l = 0; l < 32; l++) {
        for (int k = 0; k < 7; k++) { t[l].metropolis[0][k] = rthr(); t[l].heatbath[k] = rthr(); }
        if (MODE == 3) /* the register form's tables: u >= ND accept; u < ND open mostly */
            for (int k = 0; k < 7; k++)
                t[l].metropolis[0][k] = k >= ND ? 1ull << 32 : rnd() % 8 ? (rnd() & 0xffffffffull) >> (rnd() % 8) : rthr();
        for (int k = 0; k < 7; k++) t[l].metropolis[1][k] = sym && k <= 2 * ND ? t[l].metropolis[0][2 * ND - k] : rthr();
    }
    std::vector<uint32_t> a(N), b(N), bond(COUPLED ? N * ND : 0);
    for (int i = 0; i < N; i++) a[i] = b[i] = (uint32_t)rnd() & active;
    for (auto &x : bond) x = (uint32_t)rnd() & active;
    latmc_ens_lanes_classes cref, cfast;
    latmc_ens_lanes_classes_make(&cref, t, active, algo, ND);
    classes_host(&cfast, t, active, algo, ND, MODE == 0 ? -1 : MODE == 2 ? 0 : 1);
    lanes_regs<ND> regs;
    lanes_regs_load<ND>(&regs, &cfast);
    const cuda_philox_keys keys = cuda_philox_round_keys(12345);
    long tails = 0;
    latmc_ens_lanes_group grp = { a.data(), COUPLED ? bond.data() : NULL, t, active };
    const lanes_geom32 g32 = lanes_geom_of((uint32_t)g.lx, (uint32_t)g.ly, (uint32_t)g.lz);
    const uint64_t seed = 12345, group = 7;
    long bad = 0, flips = 0;
    for (int s = 0; s < sweeps; s++)
        for (int c = 0; c < 2; c++) {
            latmc_rng_name name = latmc_ens_lanes_name(100 + s, c);
            const lanes_pass pass = lanes_pass_of(keys, name);
            const uint32_t *bd = COUPLED ? bond.data() : NULL;
            for (int j = 0; j < N / 2; j++) {
                int planes;
                uint32_t ch1 = latmc_ens_lanes_update_site_sliced(&g, &grp, &cref, seed, name, group, latmc_checkerboard_site(&g, c, j), &planes);
                uint32_t ch2;
                if (MODE == 3) {
                    uint32_t und = 0;
                    ch2 = lanes_regs_head<ND, COUPLED>(g32, b.data(), bd, regs, active, keys, pass, (uint32_t)(group * N), c, (uint32_t)j, &und);
                    if (und) {
                        tails++;
                        ch2 ^= lanes_regs_tail<ND, COUPLED>(g32, b.data(), bd, &cfast, regs, active, keys, pass, (uint32_t)(group * N), c, (uint32_t)j, und);
                    }
                } else
                    ch2 = lanes_site_fast<ND, COUPLED, MODE>(g32, b.data(), bd, &cfast, active, keys, pass, (uint32_t)(group * N), c, (uint32_t)j);
                if (ch1 != ch2) bad++;
                flips += __builtin_popcount(ch1);
            }
        }
    if (memcmp(a.data(), b.data(), N * 4)) bad++;
    printf("ND %d coupled %d mode %d %dx%dx%d algo %d sym %d active %08x: %s (%ld flips, %ld tails)\n", ND, (int)COUPLED, MODE, lx, ly, lz, algo, (int)sym, active, bad ? "DIFFER" : "same", flips, tails);
    return bad != 0;
}

/* lanes_divide against the division, every divisor 1 .. 4096 on edge and random n < 2^31 */
static int check_div()
{
    long bad = 0;
    for (uint32_t d = 1; d <= 4096; d++) {
        const lanes_div v = lanes_div_of(d);
        const uint32_t top = 0x7fffffffu;
        const uint32_t ns[] = { 0, 1, d - 1, d, d + 1, top, top - 1, top - top % d, top - top % d - 1 };
        for (uint32_t n : ns)
            bad += lanes_divide(n, v) != n / d;
        for (int k = 0; k < 2000; k++) {
            const uint32_t n = (uint32_t)rnd() & top;
            bad += lanes_divide(n, v) != n / d;
        }
    }
    printf("lanes_divide: %s\n", bad ? "DIFFER" : "same");
    return bad != 0;
}

int main()
{
    int f = check_div();
    const int M = LATMC_ALGO_METROPOLIS, H = LATMC_ALGO_HEATBATH;
    for (uint32_t act : {0xffffffffu, 0x000000ffu}) {
        f |= check<3, true, 1>(16, 16, 16, M, true, act, 3);
        f |= check<3, true, 2>(16, 16, 16, M, true, act, 3);
        f |= check<3, true, 2>(4, 2, 6, M, false, act, 5);
        f |= check<3, true, 0>(4, 2, 6, H, false, act, 5);
        f |= check<3, false, 1>(4, 4, 4, M, true, act, 5);
        f |= check<3, false, 2>(6, 4, 8, M, false, act, 5);
        f |= check<3, false, 0>(6, 4, 8, H, true, act, 5);
        f |= check<2, true, 1>(4, 4, 1, M, true, act, 5);
        f |= check<2, true, 2>(8, 6, 1, M, false, act, 5);
        f |= check<2, false, 1>(8, 6, 1, M, true, act, 5);
        f |= check<2, false, 2>(8, 6, 1, M, false, act, 5);
        f |= check<2, false, 0>(8, 6, 1, H, false, act, 5);
        f |= check<2, true, 0>(10, 4, 1, H, true, act, 5);
        f |= check<3, true, 1>(32, 8, 4, M, true, act, 2);
        f |= check<3, true, 3>(16, 16, 16, M, true, act, 3);
        f |= check<3, false, 3>(4, 4, 4, M, true, act, 5);
        f |= check<2, true, 3>(8, 6, 1, M, true, act, 5);
        f |= check<2, false, 3>(4, 4, 1, M, true, act, 5);
    }
    printf("%s\n", f ? "FAIL" : "ALL SAME");
    return f;
}
