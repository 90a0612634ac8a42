/*
 * Heisenberg lattices of independent rings, for the physics tests that compare the chain
 * with the exact ring energy (exact_heisenberg.c): the x couplings Gaussian (drawn here
 * from `seed`, not by the library) or 1, the y and z couplings 0, so each row (y, z) is a
 * ring whose bond k joins x = k and x = k + 1. Needs cmocka.h before it.
 */
#ifndef LATMC_TESTS_HEISENBERG_RINGS_H
#define LATMC_TESTS_HEISENBERG_RINGS_H

#include <stdbool.h>
#include <stdlib.h>

#include "exact_heisenberg.h"
#include "heisenberg_test_helpers.h"

/* Sets the ring couplings on `sim` (made from `d`) and returns the exact mean energy per
 * site at `beta`. */
static inline double heisenberg_set_rings(latmc_sim *sim, const latmc_sim_desc *d,
                                          bool gaussian, double beta, uint64_t seed)
{
    const struct test_lattice g = test_lattice_of(d);
    const int ndim = d->ndim;
    const int64_t lx = g.L[0];
    size_t nc = 0;
    assert_int_equal(latmc_sim_couplings_size(sim, &nc), LATMC_OK);
    assert_int_equal(nc, (size_t)(g.n * ndim));
    float *J = calloc(nc, sizeof *J);
    assert_non_null(J);
    uint64_t rng = seed * 7919u + 1;
    for (int64_t i = 0; i < g.n; i++)
        J[ndim * i + 0] = gaussian ? (float)test_gaussian(&rng) : 1.0f;
    assert_int_equal(latmc_sim_set_couplings(sim, J, nc), LATMC_OK);
    double exact_total = 0.0;
    for (int64_t row = 0; row < g.L[1] * g.L[2]; row++) {
        double ring[EXACT_HEISENBERG_MAX_RING], e_ring = 0.0;
        assert_true(lx <= EXACT_HEISENBERG_MAX_RING);
        for (int64_t x = 0; x < lx; x++)
            ring[x] = J[ndim * (x + lx * row) + 0];
        assert_int_equal(exact_heisenberg_ring_energy((int)lx, ring, beta, &e_ring), 0);
        exact_total += e_ring;
    }
    free(J);
    return exact_total / (double)g.n;
}

#endif
