/*
 * Heisenberg initial state: the couplings drawn at creation, and cold and hot starts.
 * Draw k of a (stream, phase, sub) is lane k mod 4 of Philox block k / 4, with k the
 * coupling index (ndim i + mu) or the site index i; the layout is in
 * doc/models/heisenberg.md. The per-block draws are in heisenberg_rules.h (the CUDA module
 * runs the same functions on its host side).
 */
#include "heisenberg_ref.h"
#include "heisenberg_rules.h"
#include "cpu_omp.h"
#include "rng_streams.h"

void cpu_heisenberg_draw_couplings(const struct latmc_lattice *g, float *couplings, int kind,
                                   uint64_t coupling_seed, int n_threads)
{
    const int64_t n = g->nsites * g->ndim;
    const int64_t nblocks = (n + 3) / 4;
    if (!cpu_use_threads(n_threads, n)) {
        for (int64_t b = 0; b < nblocks; b++)
            latmc_heisenberg_couplings_block(couplings, n, kind, coupling_seed, b);
        return;
    }
    LATMC_OMP(parallel for num_threads(n_threads) schedule(static))
    for (int64_t b = 0; b < nblocks; b++)
        latmc_heisenberg_couplings_block(couplings, n, kind, coupling_seed, b);
}

void cpu_heisenberg_hot_start(const struct latmc_lattice *g, float *spins, uint64_t seed,
                              int replica, int n_threads)
{
    const int64_t n = g->nsites;
    const int64_t nblocks = (n + 3) / 4;
    const uint32_t stream = latmc_rng_stream(LATMC_STREAM_INIT, (uint32_t)replica);
    if (!cpu_use_threads(n_threads, n)) {
        for (int64_t b = 0; b < nblocks; b++)
            latmc_heisenberg_hot_block(spins, n, seed, stream, b);
        return;
    }
    LATMC_OMP(parallel for num_threads(n_threads) schedule(static))
    for (int64_t b = 0; b < nblocks; b++)
        latmc_heisenberg_hot_block(spins, n, seed, stream, b);
}

void cpu_heisenberg_cold_start(const struct latmc_lattice *g, float *spins)
{
    for (int64_t i = 0; i < g->nsites; i++) {
        float *s = spins + LATMC_HEISENBERG_COMPONENTS * i;
        s[0] = 0.0f;
        s[1] = 0.0f;
        s[2] = 1.0f;
    }
}

/* ---- slab-only storage (cpu_backend.h): ranges of the global draws ---- */

/* latmc_heisenberg_couplings_block's values for elements [e0, e1), out[e - e0]. */
void cpu_heisenberg_couplings_range(float *out, int64_t e0, int64_t e1, int kind,
                                    uint64_t coupling_seed)
{
    for (int64_t b = e0 / 4; 4 * b < e1; b++) {
        latmc_philox_ctr r0 = { { 0, 0, 0, 0 } }, r1 = { { 0, 0, 0, 0 } };
        if (kind != LATMC_COUPLINGS_UNIFORM)
            r0 = latmc_coupling_draws(coupling_seed, b, 0);
        if (kind == LATMC_COUPLINGS_GAUSSIAN)
            r1 = latmc_coupling_draws(coupling_seed, b, 1);
        for (int lane = 0; lane < 4; lane++) {
            const int64_t e = 4 * b + lane;
            if (e < e0 || e >= e1)
                continue;
            float j = 1.0f;
            if (kind == LATMC_COUPLINGS_GAUSSIAN)
                j = latmc_heisenberg_gaussian_coupling(latmc_heisenberg_uniform(r0.v[lane]),
                                                       latmc_heisenberg_uniform(r1.v[lane]));
            else if (kind == LATMC_COUPLINGS_BIMODAL)
                j = latmc_heisenberg_bimodal_coupling(r0.v[lane]);
            out[e - e0] = j;
        }
    }
}

/* latmc_heisenberg_hot_block's spins for sites [i0, i1) of one replica, out[3 (i - i0)]. */
void cpu_heisenberg_hot_range(float *out, int64_t i0, int64_t i1, uint64_t seed, int replica)
{
    const uint32_t stream = latmc_rng_stream(LATMC_STREAM_INIT, (uint32_t)replica);
    for (int64_t b = i0 / 4; 4 * b < i1; b++) {
        const latmc_philox_ctr rz = latmc_rng_block(seed, (uint64_t)b, 0, stream, 0, 0);
        const latmc_philox_ctr rphi = latmc_rng_block(seed, (uint64_t)b, 0, stream, 0, 1);
        for (int lane = 0; lane < 4; lane++) {
            const int64_t i = 4 * b + lane;
            if (i >= i0 && i < i1)
                latmc_heisenberg_uniform_spin(latmc_heisenberg_uniform(rz.v[lane]),
                                              latmc_heisenberg_uniform(rphi.v[lane]),
                                              out + LATMC_HEISENBERG_COMPONENTS * (i - i0));
        }
    }
}
