// Host check (no GPU needed): the CUDA member-lanes kernel's site functions
// (backends/cuda/ising/ising_lanes_kernels.cu: lanes_site_fast, every form, forced classes as
// the kernels build them; the register form's head and tail, lanes_regs_head and
// lanes_regs_tail, each undecided word's tail run at once) against the CPU's
// latmc_ens_lanes_update_site_sliced, word for word; the register form's sites' table
// (cuda_ens_lanes_table_make) on every even shape it takes, and the register form run from
// it as the kernel runs it (the table's order, the tails queued to the colour's end).
// Run: tools/lanes-host-check.sh BUILD_DIR (a configured build tree, for lib/ generated headers).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include "ising_lanes_kernels.cu"

/* The module's per-device cache (cuda_device.c, C11 atomics) stands outside this host
 * program: cuda_allow_shared's one call asks the runtime directly. */
extern "C" cudaError_t cuda_device_smem_optin(int device, int *bytes)
{
    return cudaDeviceGetAttribute(bytes, cudaDevAttrMaxSharedMemoryPerBlockOptin, device);
}

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


/*
 * The register form's sites' table (cuda_ens_lanes_table_make, lanes_table_site): every
 * entry of colour c decodes to the byte offsets lanes_site_bytes gives one site of colour c,
 * and the entries of a colour are its N / 2 sites each once (the kernel's step visits each
 * once); on the shape's 32 lane-site banks nothing is checked (speed only).
 */
template <int ND>
static int check_table_shape(int lx, int ly, int lz)
{
    latmc_lattice g; g.ndim = ND; g.lx = lx; g.ly = ly; g.lz = ND == 3 ? lz : 1; g.nsites = g.lx * g.ly * g.lz;
    const uint32_t N = (uint32_t)g.nsites, half = N / 2;
    std::vector<uint32_t> t(4 * (size_t)N);
    if (cuda_ens_lanes_table_make(&g, t.data()) != 0)
        return 1;
    const lanes_geom32 g32 = lanes_geom_of((uint32_t)g.lx, (uint32_t)g.ly, (uint32_t)g.lz);
    std::vector<int> seen(N, -1);
    std::vector<uint32_t> at(N); /* site -> j of its colour */
    for (int c = 0; c < 2; c++)
        for (uint32_t j = 0; j < half; j++) {
            uint32_t i4, nb4[6];
            lanes_site_bytes<ND>(g32, c, j, &i4, nb4);
            at[i4 / 4] = j;
        }
    long bad = 0;
    for (int c = 0; c < 2; c++)
        for (uint32_t e = 0; e < half; e++) {
            const uint32_t *w = &t[4 * ((size_t)(c ? half : 0u) + e)];
            const uint4 q = make_uint4(w[0], w[1], w[2], w[3]);
            uint32_t i4, nb4[6], ri4, rnb4[6];
            lanes_table_site<ND>(q, &i4, nb4);
            if (i4 % 4 || i4 / 4 >= N || seen[i4 / 4] >= 0) { bad++; continue; }
            seen[i4 / 4] = c;
            lanes_site_bytes<ND>(g32, c, at[i4 / 4], &ri4, rnb4);
            bad += ri4 != i4; /* the site is of colour c */
            for (int d = 0; d < 2 * ND; d++)
                bad += nb4[d] != rnb4[d];
        }
    for (uint32_t i = 0; i < N; i++)
        bad += seen[i] < 0;
    return bad != 0;
}

/* Every even shape the table takes (N <= LANES_TABLE_MAX_SITES): 2D L_x, L_y 2 .. 8192,
 * 3D L_x, L_y, L_z 2 .. 4096. */
static int check_table_shapes()
{
    long shapes = 0, bad = 0;
    for (int lx = 2; lx <= LANES_TABLE_MAX_SITES / 2; lx += 2)
        for (int ly = 2; lx * ly <= LANES_TABLE_MAX_SITES; ly += 2) {
            bad += check_table_shape<2>(lx, ly, 1);
            shapes++;
        }
    for (int lx = 2; lx <= LANES_TABLE_MAX_SITES / 4; lx += 2)
        for (int ly = 2; lx * ly * 2 <= LANES_TABLE_MAX_SITES; ly += 2)
            for (int lz = 2; lx * ly * lz <= LANES_TABLE_MAX_SITES; lz += 2) {
                bad += check_table_shape<3>(lx, ly, lz);
                shapes++;
            }
    printf("sites' table: %ld shapes, %s\n", shapes, bad ? "DIFFER" : "same");
    return bad != 0;
}

/*
 * The register form as the kernel runs it with the sites' table: a colour's sites in the
 * table's order, the head at each (lanes_table_site, lanes_regs_head_at), the undecided
 * ones queued with their lanes of each key and finished after the colour's heads
 * (lanes_regs_tail_at), as lanes_regs_sweeps does (its drains in between only finish
 * entries earlier). Against the CPU's sites in lattice order: the words after each
 * colour, every lane's count of changes. ZY: the head's instance (CUDA_ENS_LANES_ZEROS),
 * every threshold of the keys u < ND open (below 2^32 and not 0) with its top planes zero.
 */
template <int ND, bool COUPLED, int ZY = 0>
static int check_table_chain(int lx, int ly, int lz, uint32_t active, int sweeps)
{
    const int algo = LATMC_ALGO_METROPOLIS;
    latmc_lattice g; g.ndim = ND; g.lx = lx; g.ly = ly; g.lz = ND == 3 ? lz : 1; g.nsites = g.lx * g.ly * g.lz;
    const int N = (int)g.nsites;
    const uint32_t half = (uint32_t)N / 2;
    latmc_ising_tables t[32];
    for (int l = 0; l < 32; l++) {
        for (int k = 0; k < 7; k++) {
            const int zeros = k < ND - 1 ? CUDA_ENS_LANES_ZEROS_MOST(ZY) : CUDA_ENS_LANES_ZEROS_ALL(ZY);
            t[l].heatbath[k] = rthr();
            t[l].metropolis[0][k] = k >= ND ? 1ull << 32
                : ZY ? ((rnd() & 0xffffffffull) >> (zeros + rnd() % 3)) | 1u
                : rnd() % 8 ? (rnd() & 0xffffffffull) >> (rnd() % 8) : rthr();
        }
        for (int k = 0; k < 7; k++) t[l].metropolis[1][k] = k <= 2 * ND ? t[l].metropolis[0][2 * ND - k] : rthr();
    }
    std::vector<uint32_t> a(N), b(N), bond(COUPLED ? N * ND : 0), tab(4 * (size_t)N);
    for (int i = 0; i < N; i++) a[i] = b[i] = (uint32_t)rnd() & active;
    for (auto &x : bond) x = (uint32_t)rnd() & active;
    if (cuda_ens_lanes_table_make(&g, tab.data()) != 0) {
        printf("table %dx%dx%d: not made\n", lx, ly, lz);
        return 1;
    }
    latmc_ens_lanes_classes cref, cfast;
    latmc_ens_lanes_classes_make(&cref, t, active, algo, ND);
    classes_host(&cfast, t, active, algo, ND, 1);
    lanes_regs<ND> regs;
    lanes_regs_load<ND>(&regs, &cfast);
    const cuda_philox_keys keys = cuda_philox_round_keys(12345);
    latmc_ens_lanes_group grp = { a.data(), COUPLED ? bond.data() : NULL, t, active };
    const uint64_t seed = 12345, group = 3;
    const uint32_t block0 = (uint32_t)(group * N);
    long bad = 0, tails = 0, cref_n[32] = { 0 }, cfast_n[32] = { 0 };
    std::vector<uint4> queue;
    for (int s = 0; s < sweeps; s++)
        for (int c = 0; c < 2; c++) {
            latmc_rng_name name = latmc_ens_lanes_name(100 + s, c);
            const lanes_pass pass = lanes_pass_of(keys, name);
            for (int j = 0; j < N / 2; j++) {
                int planes;
                const uint32_t ch = latmc_ens_lanes_update_site_sliced(&g, &grp, &cref, seed, name, group, latmc_checkerboard_site(&g, c, j), &planes);
                for (int l = 0; l < 32; l++) cref_n[l] += (ch >> l) & 1u;
            }
            queue.clear();
            for (uint32_t e = 0; e < half; e++) {
                const uint32_t *w = &tab[4 * ((size_t)(c ? half : 0u) + e)];
                uint32_t i4, nb4[6], und[ND];
                lanes_table_site<ND>(make_uint4(w[0], w[1], w[2], w[3]), &i4, nb4);
                const uint32_t ch = lanes_regs_head_at<ND, COUPLED, ZY>(b.data(), COUPLED ? bond.data() : NULL, i4, nb4, regs, active, keys, pass, block0, und);
                if (und[0] | und[1] | (ND == 3 ? und[ND - 1] : 0u))
                    queue.push_back(make_uint4(i4, und[0], und[1], ND == 3 ? und[ND - 1] : 0u));
                for (int l = 0; l < 32; l++) cfast_n[l] += (ch >> l) & 1u;
            }
            for (const uint4 &q : queue) {
                const uint32_t und[3] = { q.y, q.z, q.w };
                const uint32_t ch = lanes_regs_tail_at<ND, ZY ? 2 : 1>(b.data(), &cfast, keys, pass, block0, q.x, und);
                for (int l = 0; l < 32; l++) cfast_n[l] += (ch >> l) & 1u;
            }
            tails += (long)queue.size();
            if (memcmp(a.data(), b.data(), N * 4)) bad++;
        }
    for (int l = 0; l < 32; l++) bad += cref_n[l] != cfast_n[l];
    printf("table chain ND %d coupled %d zeros %d %dx%dx%d active %08x: %s (%ld tails)\n", ND, (int)COUPLED, ZY, lx, ly, lz, active, bad ? "DIFFER" : "same", tails);
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
    f |= check_table_shapes();
    for (uint32_t act : {0xffffffffu, 0x0000ffffu}) {
        f |= check_table_chain<3, true>(16, 16, 16, act, 2);
        f |= check_table_chain<3, false>(16, 16, 16, act, 2);
        f |= check_table_chain<3, true>(8, 6, 4, act, 4);
        f |= check_table_chain<3, false>(32, 2, 2, act, 4);
        f |= check_table_chain<2, true>(128, 128, 1, act, 2);
        f |= check_table_chain<2, false>(64, 2, 1, act, 4);
        f |= check_table_chain<2, true>(6, 10, 1, act, 4);
        f |= check_table_chain<3, true, 1>(16, 16, 16, act, 2);
        f |= check_table_chain<3, true, 2>(16, 16, 16, act, 2);
        f |= check_table_chain<3, true, 3>(16, 16, 16, act, 2);
        f |= check_table_chain<3, false, 3>(8, 6, 4, act, 4);
        f |= check_table_chain<2, true, 1>(64, 2, 1, act, 4);
        f |= check_table_chain<2, false, 2>(6, 10, 1, act, 4);
        f |= check_table_chain<2, true, 3>(16, 8, 1, act, 4);
    }
    printf("%s\n", f ? "FAIL" : "ALL SAME");
    return f;
}
