/*
 * The phi^4 colourings are conflict-free: no two sites that interact share a colour.
 *
 * The interaction range is not taken from the documentation: it is read off the
 * Hamiltonian (tests/support/exact_phi4.c) as the set of offsets d with a non-zero mixed
 * second derivative d^2 H / dphi(0) dphi(d), on a lattice large enough that nothing wraps.
 * Then:
 *   - every offset of that range has a colour difference != 0 for both colourings;
 *   - on real lattices (8x8, 8x8x8, 5x10, 16x8x24, and others), with the colouring the
 *     library picks, no site shares its colour with a site in its range, including
 *     through the periodic wrap (brute force over all sites);
 *   - the within-colour numbering j = floor(i / ncolours) of the backend is a bijection
 *     from each colour onto [0, N / ncolours), its division-free stepping agrees with
 *     it, and its index steps along the axes agree with the coordinates;
 *   - extents that fit no colouring are refused.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exact_phi4.h"
#include "phi4.h"
#include "phi4_lattice.h"
#include "sim_helpers.h"

#define MAX_RANGE 64

struct range {
    int n;
    int d[MAX_RANGE][3];
};

/* The offsets coupled to the origin by H, from mixed second differences of H on a
 * 7x7[x7] lattice at g = 0, finite Lambda (so every term of H is present). */
static struct range interaction_range(int ndim)
{
    const int l = 7, c = 3; /* origin in the middle: offsets up to +-3 do not wrap */
    const struct exact_phi4_lattice lat = { ndim, { l, l, ndim == 3 ? l : 1 } };
    const int64_t n = exact_phi4_nsites(&lat);
    double *phi = calloc((size_t)n, sizeof *phi);
    assert_non_null(phi);
    const int64_t centre[3] = { c, c, ndim == 3 ? c : 0 };
    const int64_t o = exact_phi4_index(&lat, centre);
    struct range r = { 0, { { 0 } } };
    const int zmax = ndim == 3 ? 3 : 0;
    for (int dz = -zmax; dz <= zmax; dz++)
        for (int dy = -3; dy <= 3; dy++)
            for (int dx = -3; dx <= 3; dx++) {
                if (dx == 0 && dy == 0 && dz == 0)
                    continue;
                const int64_t x[3] = { c + dx, c + dy, centre[2] + dz };
                const int64_t i = exact_phi4_index(&lat, x);
                /* H(e_o + e_i) - H(e_o) - H(e_i) = A_oi, exactly 0 for sites not coupled */
                phi[o] = phi[i] = 1;
                const long double both = exact_phi4_hamiltonian(&lat, phi, 0.5, 0.0, 1.7);
                phi[i] = 0;
                const long double one = exact_phi4_hamiltonian(&lat, phi, 0.5, 0.0, 1.7);
                phi[o] = 0;
                phi[i] = 1;
                const long double other = exact_phi4_hamiltonian(&lat, phi, 0.5, 0.0, 1.7);
                phi[i] = 0;
                if (fabsl(both - one - other) > 1e-12L) {
                    assert_true(r.n < MAX_RANGE);
                    r.d[r.n][0] = dx;
                    r.d[r.n][1] = dy;
                    r.d[r.n][2] = dz;
                    r.n++;
                }
            }
    free(phi);
    return r;
}

static int range_has(const struct range *r, int dx, int dy, int dz)
{
    for (int k = 0; k < r->n; k++)
        if (r->d[k][0] == dx && r->d[k][1] == dy && r->d[k][2] == dz)
            return 1;
    return 0;
}

/* The range read off H is the documented one: +-e_mu, +-2 e_mu, +-e_mu +- e_nu. */
static void range_is_the_documented_one(void **state)
{
    (void)state;
    for (int ndim = 2; ndim <= 3; ndim++) {
        const struct range r = interaction_range(ndim);
        assert_int_equal(r.n, 2 * ndim + 2 * ndim + 4 * ndim * (ndim - 1) / 2);
        for (int mu = 0; mu < ndim; mu++)
            for (int s = -2; s <= 2; s++) {
                if (s == 0)
                    continue;
                int d[3] = { 0, 0, 0 };
                d[mu] = s;
                assert_true(range_has(&r, d[0], d[1], d[2]));
                for (int nu = mu + 1; nu < ndim; nu++)
                    for (int t = -1; t <= 1; t += 2)
                        if (s == 1 || s == -1) {
                            int e[3] = { d[0], d[1], d[2] };
                            e[nu] = t;
                            assert_true(range_has(&r, e[0], e[1], e[2]));
                        }
            }
    }
}

/* Colour difference of an offset, as the colouring's linear form mod ncolours. */
static int offset_colour(const struct latmc_phi4_colouring *c, const int d[3])
{
    const int v = (d[0] + c->ay * d[1] + c->az * d[2]) % c->ncolours;
    return v < 0 ? v + c->ncolours : v;
}

static void offsets_change_the_colour(void **state)
{
    (void)state;
    const int64_t by8[3] = { 8, 8, 8 }, by5[3] = { 5, 5, 1 };
    const struct latmc_phi4_colouring c8 = latmc_phi4_colouring_of(3, by8);
    const struct latmc_phi4_colouring c8_2d = latmc_phi4_colouring_of(2, by8);
    const struct latmc_phi4_colouring c5 = latmc_phi4_colouring_of(2, by5);
    assert_int_equal(c8.ncolours, 8);
    assert_int_equal(c8_2d.ncolours, 8);
    assert_int_equal(c5.ncolours, 5);
    const struct range r3 = interaction_range(3), r2 = interaction_range(2);
    for (int k = 0; k < r3.n; k++)
        assert_int_not_equal(offset_colour(&c8, r3.d[k]), 0);
    for (int k = 0; k < r2.n; k++) {
        assert_int_not_equal(offset_colour(&c8_2d, r2.d[k]), 0);
        assert_int_not_equal(offset_colour(&c5, r2.d[k]), 0);
    }
    /* and the check can fail: the checkerboard (x + y + z) mod 2 is not conflict-free */
    const struct latmc_phi4_colouring checkerboard = { 2, 1, 1 };
    int conflicts = 0;
    for (int k = 0; k < r3.n; k++)
        conflicts += offset_colour(&checkerboard, r3.d[k]) == 0;
    assert_true(conflicts > 0);
}

/* Brute force on a real lattice with the colouring the library picks for it. */
static void check_lattice(int ndim, int64_t lx, int64_t ly, int64_t lz, int want_colours)
{
    const int64_t extent[3] = { lx, ly, ndim == 3 ? lz : 0 };
    const struct latmc_phi4_colouring c = latmc_phi4_colouring_of(ndim, extent);
    assert_int_equal(c.ncolours, want_colours);
    const struct exact_phi4_lattice lat = { ndim, { lx, ly, ndim == 3 ? lz : 1 } };
    const int64_t n = exact_phi4_nsites(&lat);
    const struct range r = interaction_range(ndim);
    for (int64_t z = 0; z < lat.L[2]; z++)
        for (int64_t y = 0; y < ly; y++)
            for (int64_t x = 0; x < lx; x++) {
                const int colour = latmc_phi4_colour(&c, x, y, z);
                for (int k = 0; k < r.n; k++) {
                    int64_t p[3] = { x + r.d[k][0], y + r.d[k][1], z + r.d[k][2] };
                    for (int mu = 0; mu < 3; mu++) /* periodic wrap */
                        p[mu] = ((p[mu] % lat.L[mu]) + lat.L[mu]) % lat.L[mu];
                    if (latmc_phi4_colour(&c, p[0], p[1], p[2]) == colour)
                        fail_msg("(%lld,%lld,%lld) and (%lld,%lld,%lld) interact and share colour %d",
                                 (long long)x, (long long)y, (long long)z, (long long)p[0],
                                 (long long)p[1], (long long)p[2], colour);
                }
            }

    /* The backend's numbering within a colour and its index steps. */
    struct latmc_lattice cl = { ndim, lx, ly, ndim == 3 ? lz : 1, n };
    const struct phi4_geom g = phi4_geom_of(&cl);
    assert_int_equal(g.colouring.ncolours, want_colours);
    assert_int_equal(g.per_colour * want_colours, n);
    char *seen = calloc((size_t)n, 1);
    assert_non_null(seen);
    for (int colour = 0; colour < want_colours; colour++)
        for (int64_t j = 0; j < g.per_colour; j++) {
            const struct phi4_site s = phi4_colour_site(&g, colour, j);
            const int64_t want[3] = { s.x[0], s.x[1], s.x[2] };
            assert_int_equal(s.index, exact_phi4_index(&lat, want));
            assert_int_equal(latmc_phi4_colour(&c, s.x[0], s.x[1], s.x[2]), colour);
            assert_int_equal(s.index / want_colours, j);
            assert_int_equal(seen[s.index], 0);
            seen[s.index] = 1;
            /* the next site of the colour, stepped to without divisions */
            if (j + 1 < g.per_colour) {
                struct phi4_site next = s;
                phi4_colour_next(&g, colour, &next);
                const struct phi4_site direct = phi4_colour_site(&g, colour, j + 1);
                assert_int_equal(next.index, direct.index);
                assert_memory_equal(next.x, direct.x, sizeof next.x);
            }
            /* index steps to x + d e_mu, |d| <= 2, through the wrap */
            struct phi4_steps w;
            phi4_steps_of(&g, &s, &w);
            for (int mu = 0; mu < ndim; mu++)
                for (int dd = -2; dd <= 2; dd++) {
                    int64_t p[3] = { s.x[0], s.x[1], s.x[2] };
                    p[mu] += dd;
                    assert_int_equal(s.index + w.step[mu][dd + 2], exact_phi4_index(&lat, p));
                }
        }
    for (int64_t i = 0; i < n; i++)
        assert_int_equal(seen[i], 1);
    free(seen);
}

static void real_lattices_are_conflict_free(void **state)
{
    (void)state;
    check_lattice(2, 8, 8, 1, 8);
    check_lattice(3, 8, 8, 8, 8);
    check_lattice(2, 5, 10, 1, 5);
    check_lattice(3, 16, 8, 24, 8);
    check_lattice(2, 40, 40, 1, 8);   /* both colourings fit: 8 colours are used */
    check_lattice(2, 15, 5, 1, 5);
    check_lattice(2, 24, 16, 1, 8);
}

static void unfit_extents_are_refused(void **state)
{
    (void)state;
    const int64_t bad2[][3] = { { 12, 12, 0 }, { 8, 10, 0 }, { 10, 16, 0 }, { 6, 6, 0 },
                                { 5, 8, 0 } };
    for (size_t k = 0; k < sizeof bad2 / sizeof bad2[0]; k++)
        assert_int_equal(latmc_phi4_colouring_of(2, bad2[k]).ncolours, 0);
    const int64_t bad3[][3] = { { 10, 10, 10 }, { 8, 8, 12 }, { 5, 5, 5 }, { 16, 4, 8 } };
    for (size_t k = 0; k < sizeof bad3 / sizeof bad3[0]; k++)
        assert_int_equal(latmc_phi4_colouring_of(3, bad3[k]).ncolours, 0);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(range_is_the_documented_one),
        cmocka_unit_test(offsets_change_the_colour),
        cmocka_unit_test(real_lattices_are_conflict_free),
        cmocka_unit_test(unfit_extents_are_refused),
    };
    return cmocka_run_group_tests_name("phi4_colouring", tests, NULL, NULL);
}
