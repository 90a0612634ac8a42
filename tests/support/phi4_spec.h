/*
 * The phi^4 chain's definition pieces that the tests write out themselves, from
 * doc/models/phi4.md and doc/conventions.md, not from the library: a test case's
 * parameters, the colouring, the Philox draw of the update stream, the hits on a box of
 * sites and a sweep in the site order or the chunk schedule. Used by the CPU chain tests
 * (tests/unit/test_phi4_chain.c, test_phi4_chunks.c) and the CUDA ones
 * (tests/backends/test_cuda_phi4.c, test_cuda_phi4_cpu_chunks.c).
 */
#ifndef LATMC_TEST_PHI4_SPEC_H
#define LATMC_TEST_PHI4_SPEC_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>

#include <latmc/latmc.h>

#include "latmc_math.h" /* the chain's logarithm is part of its definition */
#include "philox.h"

struct spec {
    int ndim;
    int64_t L[3];
    int precision;
    double mu2, g, lambda, epsilon;
    int nhit, nloc;
};

/* A phi^4 desc of the case's lattice and precision (latmc_sim_desc_init's defaults
 * otherwise: the caller sets device, threads, seed). */
static inline void spec_desc(const struct spec *sp, latmc_sim_desc *d)
{
    latmc_sim_desc_init(d);
    d->model = LATMC_MODEL_PHI4;
    d->ndim = sp->ndim;
    d->extent[0] = sp->L[0];
    d->extent[1] = sp->L[1];
    d->extent[2] = sp->ndim == 3 ? sp->L[2] : 0;
    d->precision = sp->precision;
}

/* The case's action and proposal parameters on sim: LATMC_OK, or the first refusal. */
static inline int spec_set_params(latmc_sim *sim, const struct spec *sp)
{
    const struct {
        int key;
        double value;
    } p[] = { { LATMC_PARAM_MU2, sp->mu2 },         { LATMC_PARAM_G, sp->g },
              { LATMC_PARAM_LAMBDA, sp->lambda },   { LATMC_PARAM_EPSILON, sp->epsilon },
              { LATMC_PARAM_NHIT, sp->nhit },       { LATMC_PARAM_NLOC, sp->nloc } };
    for (size_t k = 0; k < sizeof p / sizeof p[0]; k++) {
        const int st = latmc_sim_set_param(sim, p[k].key, p[k].value);
        if (st != LATMC_OK)
            return st;
    }
    return LATMC_OK;
}

/* Sites of the case's lattice. */
static inline size_t spec_sites(const struct spec *sp)
{
    return (size_t)(sp->L[0] * sp->L[1] * (sp->ndim == 3 ? sp->L[2] : 1));
}

/* Colour of (x, y, z): (x + 3y + 2z) mod 8 if every extent is divisible by 8, else
 * (x + 2y) mod 5 (2D, both extents divisible by 5). */
static inline int spec_ncolours(const struct spec *sp)
{
    for (int mu = 0; mu < sp->ndim; mu++)
        if (sp->L[mu] % 8 != 0)
            return 5;
    return 8;
}

static inline int spec_colour(int nc, int64_t x, int64_t y, int64_t z)
{
    return nc == 8 ? (int)((x + 3 * y + 2 * z) % 8) : (int)((x + 2 * y) % 5);
}

/* Draw `lane` of block `block` of pass t, stream 0 (updates), counter layout of
 * doc/conventions.md assembled by hand. */
static inline uint32_t spec_draw(uint64_t seed, uint64_t block, uint64_t t, uint32_t phase,
                                 uint32_t sub, int lane)
{
    latmc_philox_ctr c = { { (uint32_t)block,
                             (uint32_t)(block >> 32 & 0xffff) | (uint32_t)(t >> 32) << 16,
                             (uint32_t)t,
                             phase << 16 | sub } };
    latmc_philox_key k = { { (uint32_t)seed, (uint32_t)(seed >> 32) } };
    return latmc_philox4x32_10(c, k).v[lane];
}

/*
 * nhit hits on every site of `colour` in the box [lo, hi) (natural order; the sites do
 * not interact), pass word t; returns the accepted hits. For field type R, logarithm LOG.
 */
#define SPEC_BOX(R, NAME, LOG)                                                                 \
    static inline uint64_t NAME(const struct spec *sp, R *phi, uint64_t seed, uint64_t t, int colour, \
                         const int64_t lo[3], const int64_t hi[3])                             \
    {                                                                                          \
        const int64_t lx = sp->L[0], ly = sp->L[1], lz = sp->ndim == 3 ? sp->L[2] : 1;         \
        const int64_t ext[3] = { lx, ly, lz };                                                 \
        const int nc = spec_ncolours(sp);                                                      \
        const double k = sp->ndim;                                                             \
        const int fin = isfinite(sp->lambda);                                                  \
        const R site = (R)(k + sp->mu2 / 2 + (fin ? k * (1 + 2 * k) / sp->lambda : 0.0));      \
        const R quartic = (R)(sp->g / 24), inv_lambda = (R)(fin ? 1 / sp->lambda : 0.0);       \
        const R four_k = (R)(4 * k), eps = (R)sp->epsilon;                                     \
        uint64_t accepted = 0;                                                                 \
        for (int64_t z = lo[2]; z < hi[2]; z++)                                                \
            for (int64_t y = lo[1]; y < hi[1]; y++)                                            \
                for (int64_t x = lo[0]; x < hi[0]; x++) {                                      \
                    if (spec_colour(nc, x, y, z) != colour)                                    \
                        continue;                                                              \
                    const int64_t i = x + lx * (y + ly * z), j = i / nc;                       \
                    const int64_t p[3] = { x, y, z };                                          \
                    R c01 = 0, c02 = 0, c11 = 0;                                               \
                    for (int mu = 0; mu < sp->ndim; mu++)                                      \
                        for (int s = 1; s >= -1; s -= 2) {                                     \
                            int64_t q[3] = { p[0], p[1], p[2] };                               \
                            q[mu] = (p[mu] + s + ext[mu]) % ext[mu];                           \
                            c01 += phi[q[0] + lx * (q[1] + ly * q[2])];                        \
                            q[mu] = (p[mu] + 2 * s + ext[mu]) % ext[mu];                       \
                            c02 += phi[q[0] + lx * (q[1] + ly * q[2])];                        \
                        }                                                                      \
                    for (int mu = 0; mu < sp->ndim; mu++)                                      \
                        for (int nu = mu + 1; nu < sp->ndim; nu++)                             \
                            for (int a = 1; a >= -1; a -= 2)                                   \
                                for (int b = 1; b >= -1; b -= 2) {                             \
                                    int64_t q[3] = { p[0], p[1], p[2] };                       \
                                    q[mu] = (p[mu] + a + ext[mu]) % ext[mu];                   \
                                    q[nu] = (p[nu] + b + ext[nu]) % ext[nu];                   \
                                    c11 += phi[q[0] + lx * (q[1] + ly * q[2])];                \
                                }                                                              \
                    const R c = fin ? c01 - (c02 - four_k * c01 + 2 * c11) * inv_lambda : c01; \
                    for (int hit = 0; hit < sp->nhit; hit++) {                                 \
                        const uint32_t phase = (uint32_t)(colour + 8 * (hit / 32768));         \
                        const uint32_t sub = (uint32_t)(2 * (hit % 32768));                    \
                        const uint32_t re = spec_draw(seed, (uint64_t)j / 4, t, phase, sub,    \
                                                      (int)(j % 4));                           \
                        const uint32_t ru = spec_draw(seed, (uint64_t)j / 4, t, phase,         \
                                                      sub + 1, (int)(j % 4));                  \
                        const R o = phi[i];                                                    \
                        const R xi = (R)(2 * (int64_t)re + 1 - 4294967296) * (R)0x1p-32;       \
                        const R n = o + eps * xi;                                              \
                        const R dh = (n - o) * ((n + o) * (site + quartic * (n * n + o * o)) - c); \
                        const R u = (R)((uint64_t)ru + 1) * (R)0x1p-32;                        \
                        if (-dh > LOG(u)) {                                                    \
                            phi[i] = n;                                                        \
                            accepted++;                                                        \
                        }                                                                      \
                    }                                                                          \
                }                                                                              \
        return accepted;                                                                       \
    }

SPEC_BOX(double, spec_box_d, latmc_math_log)
SPEC_BOX(float, spec_box_f, latmc_math_logf)

/* One sweep: the chunk schedule with chunks b[0] x b[1] [x b[2]], or the site order where b
 * is NULL (every pass, every colour, the whole lattice); the accepted hits. */
static inline uint64_t spec_sweep(const struct spec *sp, const int *b, void *phi, uint64_t seed,
                                  uint64_t sweep)
{
    const int nc = spec_ncolours(sp), three = sp->ndim == 3;
    const int whole[3] = { (int)sp->L[0], (int)sp->L[1], three ? (int)sp->L[2] : 1 };
    if (!b)
        b = whole; /* one chunk: the site order */
    const int bz = three ? b[2] : 1;
    const int64_t n[3] = { sp->L[0] / b[0], sp->L[1] / b[1], three ? sp->L[2] / bz : 1 };
    uint64_t accepted = 0;
    for (int p = 0; p < (1 << sp->ndim); p++)
        for (int64_t cz = 0; cz < n[2]; cz++)
            for (int64_t cy = 0; cy < n[1]; cy++)
                for (int64_t cx = 0; cx < n[0]; cx++) {
                    const int parity = (int)(cx % 2 + 2 * (cy % 2) + (three ? 4 * (cz % 2) : 0));
                    if (parity != p)
                        continue;
                    const int64_t lo[3] = { cx * b[0], cy * b[1], cz * bz };
                    const int64_t hi[3] = { lo[0] + b[0], lo[1] + b[1], lo[2] + bz };
                    for (int pass = 0; pass < sp->nloc; pass++) {
                        const uint64_t t = sweep * (uint64_t)sp->nloc + (uint64_t)pass;
                        for (int colour = 0; colour < nc; colour++)
                            accepted += sp->precision == LATMC_PRECISION_FLOAT
                                            ? spec_box_f(sp, phi, seed, t, colour, lo, hi)
                                            : spec_box_d(sp, phi, seed, t, colour, lo, hi);
                    }
                }
    return accepted;
}

#endif
