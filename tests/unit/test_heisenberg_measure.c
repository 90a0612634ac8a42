/*
 * The CPU's reduction of a Heisenberg configuration (backends/cpu/heisenberg/
 * heisenberg_measure.c: every measurement of the CPU backend and, through the CUDA kernels
 * that copy its order, of the GPU's) against the definition typed in here from
 * lib/heisenberg.h and doc/models/heisenberg.md: each plane along the last axis cut into
 * chunks of whole rows (the largest divisor of the plane's rows that keeps a chunk within
 * 1024 sites, one row where a row is longer), each chunk summed from zero site by site in
 * x order, bonds += J_{x,mu} (s_x . s_{x+mu}) for mu in axis order (the dot product in
 * double of the float components, in component order), M_c += s_{x,c}, and with two
 * replicas N q_{mu nu} += s^0_{x,mu} s^1_{x,nu}; a plane's chunks added in order from
 * zero. Bit for bit, 2D and 3D, one and two replicas, extents of 2 to 1100, every plane
 * and a range of planes, 1 and 2 threads.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdlib.h>
#include <string.h>

#include "heisenberg_ref.h"
#include "heisenberg_test_helpers.h"
#include "sim_helpers.h"

struct shape {
    int ndim;
    int64_t L[3];
};

/* Site (x, y, z)'s index, the extents periodic. */
static int64_t site(const struct shape *s, int64_t x, int64_t y, int64_t z)
{
    x = (x + s->L[0]) % s->L[0];
    y = (y + s->L[1]) % s->L[1];
    z = (z + s->L[2]) % s->L[2];
    return x + s->L[0] * (y + s->L[1] * z);
}

/* Rows of a chunk: the largest divisor of a plane's rows that keeps it within 1024 sites. */
static int64_t chunk_rows(int64_t lx, int64_t rows)
{
    for (int64_t d = rows; d > 1; d--)
        if (rows % d == 0 && d * lx <= 1024)
            return d;
    return 1;
}

static void add_into(struct latmc_heisenberg_sums *b, const struct latmc_heisenberg_sums *a)
{
    b->bonds += a->bonds;
    for (int mu = 0; mu < 3; mu++) {
        b->mag[mu] += a->mag[mu];
        for (int nu = 0; nu < 3; nu++)
            b->overlap[mu][nu] += a->overlap[mu][nu];
    }
}

/* The definition: plane p's sums. */
static struct latmc_heisenberg_sums plane_sums(const struct shape *s, const float *spins,
                                               const float *J, int replicas, int64_t p)
{
    const int64_t n = s->L[0] * s->L[1] * s->L[2];
    const int64_t rows = s->ndim == 3 ? s->L[1] : 1, per_chunk = chunk_rows(s->L[0], rows);
    const float *s1 = spins + 3 * n;
    struct latmc_heisenberg_sums plane;
    memset(&plane, 0, sizeof plane);
    for (int64_t r0 = 0; r0 < rows; r0 += per_chunk) {
        struct latmc_heisenberg_sums chunk;
        memset(&chunk, 0, sizeof chunk);
        for (int64_t r = r0; r < r0 + per_chunk; r++) {
            const int64_t y = s->ndim == 3 ? r : p, z = s->ndim == 3 ? p : 0;
            for (int64_t x = 0; x < s->L[0]; x++) {
                const int64_t i = site(s, x, y, z);
                const float *a = spins + 3 * i;
                for (int mu = 0; mu < s->ndim; mu++) {
                    const float *b =
                        spins + 3 * site(s, x + (mu == 0), y + (mu == 1), z + (mu == 2));
                    const double dot =
                        (double)a[0] * b[0] + (double)a[1] * b[1] + (double)a[2] * b[2];
                    chunk.bonds += (double)J[s->ndim * i + mu] * dot;
                }
                for (int c = 0; c < 3; c++)
                    chunk.mag[c] += a[c];
                if (replicas == 2)
                    for (int mu = 0; mu < 3; mu++)
                        for (int nu = 0; nu < 3; nu++)
                            chunk.overlap[mu][nu] += (double)a[mu] * s1[3 * i + nu];
            }
        }
        add_into(&plane, &chunk);
    }
    return plane;
}

static void against_definition(void **state)
{
    (void)state;
    static const struct shape shapes[] = {
        { 2, { 5, 10, 1 } }, { 2, { 40, 15, 1 } }, { 2, { 1100, 3, 1 } }, { 2, { 2, 2, 1 } },
        { 3, { 8, 8, 16 } }, { 3, { 16, 6, 5 } },  { 3, { 2, 2, 2 } },    { 3, { 33, 7, 5 } },
    };
    uint64_t rng = 4242;
    for (size_t k = 0; k < sizeof shapes / sizeof shapes[0]; k++)
        for (int replicas = 1; replicas <= 2; replicas++) {
            const struct shape *s = &shapes[k];
            const int64_t n = s->L[0] * s->L[1] * s->L[2];
            struct latmc_lattice lat = { s->ndim, s->L[0], s->L[1], s->L[2], n };
            const int64_t planes = cpu_heisenberg_planes(&lat);
            struct cpu_heisenberg_state hs;
            memset(&hs, 0, sizeof hs);
            hs.replicas = replicas;
            hs.rows_per_chunk = cpu_heisenberg_rows_per_chunk(&lat);
            hs.nchunks = planes * (cpu_heisenberg_rows_per_plane(&lat) / hs.rows_per_chunk);
            hs.spins = malloc((size_t)(3 * n * replicas) * sizeof *hs.spins);
            hs.couplings = malloc((size_t)(s->ndim * n) * sizeof *hs.couplings);
            hs.partials = malloc((size_t)hs.nchunks * sizeof *hs.partials);
            struct latmc_heisenberg_sums *got = malloc((size_t)planes * sizeof *got);
            assert_true(hs.spins && hs.couplings && hs.partials && got);
            /* components and couplings of several sizes and both signs (the sums' bits
             * depend on every rounding) */
            for (int64_t i = 0; i < 3 * n * replicas; i++)
                hs.spins[i] = (float)(2 * test_uniform(&rng) - 1);
            for (int64_t i = 0; i < s->ndim * n; i++)
                hs.couplings[i] = (float)((2 * test_uniform(&rng) - 1) * 1.7);
            for (int threads = 1; threads <= 2; threads++)
                for (int part = 0; part < 2 && part < planes; part++) {
                    /* every plane, then planes [1, planes - 1) */
                    const int64_t p0 = part, p1 = planes - part;
                    cpu_heisenberg_measure_planes(&lat, &hs, p0, p1, got, threads);
                    for (int64_t p = p0; p < p1; p++) {
                        const struct latmc_heisenberg_sums want =
                            plane_sums(s, hs.spins, hs.couplings, replicas, p);
                        if (memcmp(&got[p - p0], &want, sizeof want) != 0)
                            fail_msg("%dD %lldx%lldx%lld, %d replicas, plane %lld (planes "
                                     "%lld..%lld, %d threads): bonds %.17g (want %.17g), "
                                     "M_x %.17g (%.17g), q_xy %.17g (%.17g)",
                                     s->ndim, (long long)s->L[0], (long long)s->L[1],
                                     (long long)s->L[2], replicas, (long long)p,
                                     (long long)p0, (long long)p1, threads, got[p - p0].bonds,
                                     want.bonds, got[p - p0].mag[0], want.mag[0],
                                     got[p - p0].overlap[0][1], want.overlap[0][1]);
                    }
                }
            free(hs.spins);
            free(hs.couplings);
            free(hs.partials);
            free(got);
        }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(against_definition),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
