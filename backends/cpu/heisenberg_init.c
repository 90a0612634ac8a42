/*
 * Heisenberg initial state: the couplings drawn at creation, and cold and hot starts.
 * Draw k of a (stream, phase, sub) is lane k mod 4 of Philox block k / 4, with k the
 * coupling index (ndim i + mu) or the site index i; the layout is in
 * doc/models/heisenberg.md.
 */
#include "heisenberg_ref.h"
#include "heisenberg_rules.h"
#include "cpu_omp.h"
#include "rng_streams.h"

/* Couplings 4b .. 4b + 3 of n: key coupling_seed, COUPLINGS stream (replica 0: both
 * replicas share them), sweep 0, phase 0; sub 0 the first draw, sub 1 the second. */
static inline void couplings_block(float *couplings, int64_t n, int kind, uint64_t coupling_seed,
                                   int64_t b)
{
    const uint32_t stream = latmc_rng_stream(LATMC_STREAM_COUPLINGS, 0);
    latmc_philox_ctr r0 = { { 0, 0, 0, 0 } }, r1 = { { 0, 0, 0, 0 } };
    if (kind != LATMC_COUPLINGS_UNIFORM)
        r0 = latmc_rng_block(coupling_seed, (uint64_t)b, 0, stream, 0, 0);
    if (kind == LATMC_COUPLINGS_GAUSSIAN)
        r1 = latmc_rng_block(coupling_seed, (uint64_t)b, 0, stream, 0, 1);
    for (int lane = 0; lane < 4 && 4 * b + lane < n; lane++) {
        float j = 1.0f;
        if (kind == LATMC_COUPLINGS_GAUSSIAN)
            j = cpu_heisenberg_gaussian_coupling(cpu_heisenberg_uniform(r0.v[lane]),
                                                 cpu_heisenberg_uniform(r1.v[lane]));
        else if (kind == LATMC_COUPLINGS_BIMODAL)
            j = cpu_heisenberg_bimodal_coupling(r0.v[lane]);
        couplings[4 * b + lane] = j;
    }
}

void cpu_heisenberg_draw_couplings(const struct latmc_lattice *g, float *couplings, int kind,
                                   uint64_t coupling_seed, int n_threads)
{
    const int64_t n = g->nsites * g->ndim;
    const int64_t nblocks = (n + 3) / 4;
    if (!cpu_use_threads(n_threads, n)) {
        for (int64_t b = 0; b < nblocks; b++)
            couplings_block(couplings, n, kind, coupling_seed, b);
        return;
    }
    LATMC_OMP(parallel for num_threads(n_threads) schedule(static))
    for (int64_t b = 0; b < nblocks; b++)
        couplings_block(couplings, n, kind, coupling_seed, b);
}

/* Sites 4b .. 4b + 3: INIT stream of the replica, sweep 0, phase 0; sub 0 gives
 * cos(theta) = 2u - 1 to e_z, sub 1 the azimuth. */
static inline void hot_block(float *spins, int64_t n, uint64_t seed, uint32_t stream, int64_t b)
{
    const latmc_philox_ctr rz = latmc_rng_block(seed, (uint64_t)b, 0, stream, 0, 0);
    const latmc_philox_ctr rphi = latmc_rng_block(seed, (uint64_t)b, 0, stream, 0, 1);
    for (int lane = 0; lane < 4 && 4 * b + lane < n; lane++)
        cpu_heisenberg_uniform_spin(cpu_heisenberg_uniform(rz.v[lane]),
                                    cpu_heisenberg_uniform(rphi.v[lane]),
                                    spins + LATMC_HEISENBERG_COMPONENTS * (4 * b + lane));
}

void cpu_heisenberg_hot_start(const struct latmc_lattice *g, float *spins, uint64_t seed,
                              int replica, int n_threads)
{
    const int64_t n = g->nsites;
    const int64_t nblocks = (n + 3) / 4;
    const uint32_t stream = latmc_rng_stream(LATMC_STREAM_INIT, (uint32_t)replica);
    if (!cpu_use_threads(n_threads, n)) {
        for (int64_t b = 0; b < nblocks; b++)
            hot_block(spins, n, seed, stream, b);
        return;
    }
    LATMC_OMP(parallel for num_threads(n_threads) schedule(static))
    for (int64_t b = 0; b < nblocks; b++)
        hot_block(spins, n, seed, stream, b);
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
