// Host check (no GPU needed): the batched Swendsen-Wang members' per-site rules
// (backends/cuda/clusters/cuda_sw_batch_kernels.cu's ens_sw_bonds_of; cuda_sw_device.cuh's
// neighbours and sw_decision, which the single lattice's kernels use too; the labels as
// every component's smallest site; cuda_sw_batch.h's bonds' threshold of a member) make the
// CPU backend's chain, bit for bit, Swendsen-Wang and Wolff (ens_wolff_seed, its seed's
// cluster; ens_cluster_decision, also in a field): for Ising (ferro- and antiferromagnetic, uniform and
// +-J couplings, 2D and 3D, extents unequal) and Potts (q = 3, 4) members at several temperatures, each sweep of the
// rules on a host copy equals latmc_sim_sweep of the library's CPU sim from the same
// configuration, over several sweeps. The kernels' concurrent union-find (atomicMin in
// shared memory, cuda_sw_device.cuh) is the tiles' and labels components by their smallest
// site whatever the order, which the sequential union-find here does by construction.
// Run: tools/ens-sw-host-check.sh BUILD_DIR (links that build's liblatmc).
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include <latmc/latmc.h>

#include "cuda_sw_batch_kernels.cu"

/* The components' smallest sites: parents always smaller, joined at the smaller root. */
static uint32_t root_of(std::vector<uint32_t> &p, uint32_t x)
{
    while (p[x] != x)
        x = p[x] = p[p[x]];
    return x;
}

/* One sweep of the batch's three steps on the host copy `spins` of member m (Wolff: the
 * third flips the seed site's cluster alone). */
template <int ND>
static void host_sweep(const latmc_lattice &g, cuda_ens_sw_member &m, uint64_t sweep, int q,
                       bool wolff)
{
    const uint32_t n = (uint32_t)g.nsites;
    const latmc_rng_name bonds = latmc_rng_cluster_name(sweep, 0, LATMC_CLUSTER_PHASE_BONDS, 0);
    const latmc_rng_name decide = latmc_rng_cluster_name(sweep, 0, LATMC_CLUSTER_PHASE_DECIDE, 0);
    for (uint32_t i = 0; i < n; i++)
        m.bonds[i] = (uint8_t)ens_sw_bonds_of<ND>(g, m, bonds, i);
    std::vector<uint32_t> p(n);
    for (uint32_t i = 0; i < n; i++)
        p[i] = i;
    for (uint32_t i = 0; i < n; i++)
        for (int mu = 0; mu < ND; mu++)
            if (m.bonds[i] >> mu & 1u) {
                uint32_t j[3];
                neighbours(g, i, j);
                uint32_t a = root_of(p, i), b = root_of(p, j[mu]);
                if (a != b)
                    p[a > b ? a : b] = a < b ? a : b;
            }
    for (uint32_t i = 0; i < n; i++)
        m.labels[i] = root_of(p, i);
    if (wolff) {
        const uint32_t seed_site = ens_wolff_seed(g, m, sweep);
        const uint32_t r = m.labels[seed_site];
        int64_t size = 0, mag = 0;
        for (uint32_t i = 0; i < n; i++)
            if (m.labels[i] == r) {
                size++;
                mag += m.spins[i];
            }
        const uint32_t d = ens_cluster_decision(m, sweep, q, true, r, m.beta_h != 0.0 ? size : 0,
                                                m.beta_h != 0.0 ? mag : 0,
                                                (uint8_t)m.spins[seed_site]);
        for (uint32_t i = 0; i < n; i++)
            if (m.labels[i] == r)
                m.spins[i] = q ? (int8_t)d : d ? m.spins[i] : (int8_t)-m.spins[i];
        return;
    }
    if (m.beta_h != 0.0) { /* a field: each cluster's sum, its decision at its root */
        std::vector<int64_t> sum(n, 0);
        for (uint32_t i = 0; i < n; i++)
            sum[m.labels[i]] += q ? 1 : m.spins[i];
        for (uint32_t i = 0; i < n; i++) {
            const uint32_t r = m.labels[i];
            const uint32_t d = ens_cluster_decision(m, sweep, q, false, r, sum[r], sum[r], 0);
            m.spins[i] = q ? (int8_t)d : d ? m.spins[i] : (int8_t)-m.spins[i];
        }
        return;
    }
    for (uint32_t i = 0; i < n; i++) {
        const unsigned d = sw_decision(m.seed, decide, m.labels[i], UINT64_C(1) << 31, q);
        m.spins[i] = q ? (int8_t)d : d ? m.spins[i] : (int8_t)-m.spins[i];
    }
}

static int check(latmc_ctx *ctx, int model, int ndim, const int *ext, int q, double beta,
                 double J, uint64_t seed, int sweeps, bool pmj = false, bool wolff = false,
                 double h = 0.0)
{
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = model;
    d.ndim = ndim;
    for (int mu = 0; mu < ndim; mu++)
        d.extent[mu] = ext[mu];
    if (model == LATMC_MODEL_POTTS)
        d.q = q;
    d.algorithm = wolff ? LATMC_ALGO_WOLFF : LATMC_ALGO_SWENDSEN_WANG;
    if (pmj)
        d.couplings = LATMC_COUPLINGS_BIMODAL;
    d.device = LATMC_DEVICE_CPU;
    d.seed = seed;
    latmc_sim *sim = NULL;
    if (latmc_sim_create(ctx, &d, &sim) != LATMC_OK ||
        latmc_sim_set_param(sim, LATMC_PARAM_BETA, beta) != LATMC_OK ||
        latmc_sim_set_param(sim, LATMC_PARAM_J, J) != LATMC_OK ||
        latmc_sim_set_param(sim, LATMC_PARAM_H, h) != LATMC_OK ||
        latmc_sim_init_spins(sim, LATMC_INIT_HOT) != LATMC_OK) {
        printf("  setup: %s\n", latmc_last_error());
        latmc_sim_destroy(&sim);
        return 1;
    }
    latmc_lattice g = { ndim, ext[0], ext[1], ndim == 3 ? ext[2] : 1, 0 };
    g.nsites = g.lx * g.ly * g.lz;
    const size_t n = (size_t)g.nsites;
    std::vector<int8_t> spins(n), want(n);
    std::vector<uint8_t> bondv(n);
    std::vector<uint32_t> labels(n);
    if (latmc_sim_get_spins(sim, spins.data(), n) != LATMC_OK) {
        printf("  spins: %s\n", latmc_last_error());
        latmc_sim_destroy(&sim);
        return 1;
    }
    std::vector<int8_t> eps; /* the sample's couplings as the leaf keeps them, +-1 */
    if (pmj) {
        std::vector<float> f(n * (size_t)ndim);
        if (latmc_sim_get_couplings(sim, f.data(), f.size()) != LATMC_OK) {
            printf("  couplings: %s\n", latmc_last_error());
            latmc_sim_destroy(&sim);
            return 1;
        }
        for (float v : f)
            eps.push_back(v < 0.0f ? (int8_t)-1 : (int8_t)1);
    }
    const double K = beta * J;
    const bool potts = model == LATMC_MODEL_POTTS;
    cuda_ens_sw_member m = { spins.data(), bondv.data(), labels.data(),
                             pmj ? eps.data() : NULL, seed,
                             cuda_ens_sw_bond_threshold(K, potts), !potts && K < 0.0,
                             beta * h, NULL };
    int bad = 0;
    for (int s = 0; s < sweeps && !bad; s++) {
        if (ndim == 3)
            host_sweep<3>(g, m, (uint64_t)s, potts ? q : 0, wolff);
        else
            host_sweep<2>(g, m, (uint64_t)s, potts ? q : 0, wolff);
        if (latmc_sim_sweep(sim, 1) != LATMC_OK) {
            printf("  sweep: %s\n", latmc_last_error());
            bad = 1;
            break;
        }
        if (latmc_sim_get_spins(sim, want.data(), n) != LATMC_OK) {
            printf("  spins: %s\n", latmc_last_error());
            bad = 1;
            break;
        }
        if (memcmp(spins.data(), want.data(), n) != 0) {
            size_t k = 0;
            while (spins[k] == want[k])
                k++;
            printf("  sweep %d: site %zu is %d, the CPU's %d\n", s, k, spins[k], want[k]);
            bad = 1;
        }
    }
    printf("%s %s%s %dD %dx%dx%d q %d beta %g J %g h %g: %d sweeps %s\n",
           wolff ? "Wolff" : "Swendsen-Wang", potts ? "Potts" : "Ising", pmj ? " +-J" : "", ndim,
           ext[0], ext[1], ndim == 3 ? ext[2] : 1, q, beta, J, h, sweeps, bad ? "DIFFER" : "SAME");
    latmc_sim_destroy(&sim);
    return bad;
}

int main(void)
{
    latmc_ctx *ctx = NULL;
    if (latmc_ctx_create(&ctx) != LATMC_OK)
        return 1;
    const int e2[2] = { 16, 12 }, e3[3] = { 8, 6, 4 }, p2[2] = { 24, 20 }, p3[3] = { 16, 16, 16 };
    int bad = 0;
    bad += check(ctx, LATMC_MODEL_ISING, 2, e2, 2, 0.3, 1.0, 7, 12);
    bad += check(ctx, LATMC_MODEL_ISING, 2, e2, 2, 0.4406868, 1.0, 8, 12);
    bad += check(ctx, LATMC_MODEL_ISING, 3, e3, 2, 0.25, -1.0, 9, 12);
    bad += check(ctx, LATMC_MODEL_ISING, 3, e3, 2, 0.0, 1.0, 10, 3);
    bad += check(ctx, LATMC_MODEL_ISING, 2, e2, 2, 0.9, 1.0, 13, 12, true);
    bad += check(ctx, LATMC_MODEL_ISING, 3, e3, 2, 0.6, -1.0, 14, 12, true);
    bad += check(ctx, LATMC_MODEL_POTTS, 2, p2, 3, 1.005, 1.0, 11, 12);
    bad += check(ctx, LATMC_MODEL_POTTS, 3, p3, 4, 0.9, 1.0, 12, 6);
    bad += check(ctx, LATMC_MODEL_ISING, 2, e2, 2, 0.4406868, 1.0, 15, 40, false, true);
    bad += check(ctx, LATMC_MODEL_ISING, 3, e3, 2, 0.6, -1.0, 16, 40, true, true);
    bad += check(ctx, LATMC_MODEL_POTTS, 2, p2, 3, 1.005, 1.0, 17, 40, false, true);
    bad += check(ctx, LATMC_MODEL_POTTS, 3, p3, 4, 0.9, 1.0, 18, 20, false, true);
    /* in a field: the clusters' sums weigh their decisions */
    bad += check(ctx, LATMC_MODEL_ISING, 2, e2, 2, 0.4406868, 1.0, 19, 12, false, false, 0.05);
    bad += check(ctx, LATMC_MODEL_ISING, 3, e3, 2, 0.6, -1.0, 20, 12, true, false, -0.1);
    bad += check(ctx, LATMC_MODEL_POTTS, 2, p2, 3, 1.005, 1.0, 21, 12, false, false, 0.02);
    bad += check(ctx, LATMC_MODEL_ISING, 2, e2, 2, 0.4406868, 1.0, 22, 40, false, true, 0.05);
    bad += check(ctx, LATMC_MODEL_POTTS, 3, p3, 4, 0.9, 1.0, 23, 20, false, true, 0.01);
    latmc_ctx_destroy(&ctx);
    printf("%s\n", bad ? "DIFFER" : "ALL SAME");
    return bad ? 1 : 0;
}
