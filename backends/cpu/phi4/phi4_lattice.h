/*
 * phi^4 geometry for the CPU reference kernels: the colour classes, the numbering of the
 * sites within a colour (which names their random numbers), and the stencil of sites
 * that enter a site's energy change, summed in the documented order.
 * Field values live in natural site order i = x + L_x (y + L_y z) (2D: L_z = 1).
 */
#ifndef LATMC_CPU_PHI4_LATTICE_H
#define LATMC_CPU_PHI4_LATTICE_H

#include "cpu_lattice.h"
#include "phi4.h"

struct phi4_geom {
    struct latmc_lattice lat;
    struct latmc_phi4_colouring colouring;
    int64_t per_colour;   /* sites of each colour: N / ncolours */
    /* Appended: slab-only storage (cpu_backend.h): the global within-colour number of
     * local j = 0, a multiple of 64 (the draws of local number j are those of j +
     * j_origin: local Philox blocks and SIMD blocks are global ones); 0 for the whole
     * lattice. lat is then the slab's local lattice and colouring the global one. */
    int64_t j_origin;
};

struct phi4_site {
    int64_t x[3];         /* coordinates (x[2] = 0 in 2D) */
    int64_t index;        /* x + L_x (y + L_y z) */
};

static inline struct phi4_geom phi4_geom_of(const struct latmc_lattice *lat)
{
    struct phi4_geom g;
    const int64_t extent[3] = { lat->lx, lat->ly, lat->lz };
    g.lat = *lat;
    g.colouring = latmc_phi4_colouring_of(lat->ndim, extent);
    g.per_colour = lat->nsites / g.colouring.ncolours;
    g.j_origin = 0;
    return g;
}

/*
 * Site number j (0 <= j < N / ncolours) of colour `colour`: the site of that colour with
 * i / ncolours == j. L_x is divisible by ncolours, so each row (fixed y, z) splits into
 * L_x / ncolours runs of ncolours consecutive x that hold one site of every colour;
 * j = floor(i / ncolours) = run + (L_x / ncolours) row numbers those runs, a bijection
 * from each colour onto [0, N / ncolours).
 */
static inline struct phi4_site phi4_colour_site(const struct phi4_geom *g, int colour, int64_t j)
{
    const struct latmc_phi4_colouring *c = &g->colouring;
    const int64_t runs_per_row = g->lat.lx / c->ncolours;
    const int64_t row = j / runs_per_row, run = j % runs_per_row;
    struct phi4_site s;
    s.x[1] = row % g->lat.ly;
    s.x[2] = row / g->lat.ly;
    /* the x in this run whose colour (x + ay y + az z) mod ncolours is `colour` */
    const int64_t shift = (c->ay * s.x[1] + c->az * s.x[2]) % c->ncolours;
    s.x[0] = c->ncolours * run + (colour - shift + c->ncolours) % c->ncolours;
    s.index = s.x[0] + g->lat.lx * row;
    return s;
}

/*
 * The site numbered j + 1 of the same colour, without divisions: the next run of the
 * row, or the first run of the next row.
 */
static inline void phi4_colour_next(const struct phi4_geom *g, int colour, struct phi4_site *s)
{
    const struct latmc_phi4_colouring *c = &g->colouring;
    s->x[0] += c->ncolours;
    if (s->x[0] >= g->lat.lx) {
        if (++s->x[1] == g->lat.ly) {
            s->x[1] = 0;
            s->x[2]++;
        }
        const int64_t shift = (c->ay * s->x[1] + c->az * s->x[2]) % c->ncolours;
        s->x[0] = (colour - shift + c->ncolours) % c->ncolours;
    }
    s->index = s->x[0] + g->lat.lx * (s->x[1] + g->lat.ly * s->x[2]);
}

/*
 * The part of one colour that a step on one box updates (lib/box.h): the within-colour
 * numbers [j0, j1). A box of planes [p0, p1) along the last axis holds the rows
 * [p0 r, p1 r) (r = L_y in 3D, 1 in 2D), and row w holds the numbers [w n, (w + 1) n),
 * n = L_x / ncolours (phi4_colour_site), so j0 = p0 r n, j1 = p1 r n.
 */
struct phi4_range {
    int64_t j0, j1;
};

/* Units of `unit` consecutive numbers (a Philox block of 4, a SIMD block of 64) that range
 * r touches: [r.j0 / unit, ceil(r.j1 / unit)). A unit cut by a box boundary is touched by
 * both boxes, each updating only its own numbers. */
static inline int64_t phi4_range_first_unit(const struct phi4_range *r, int64_t unit)
{
    return r->j0 / unit;
}

static inline int64_t phi4_range_units(const struct phi4_range *r, int64_t unit)
{
    return r->j1 > r->j0 ? (r->j1 + unit - 1) / unit - r->j0 / unit : 0;
}

/*
 * Index differences to the sites a few steps along each axis, through the periodic wrap:
 * the site x + d e_mu (|d| <= 2) has index s.index + step[mu][d + 2].
 */
struct phi4_steps {
    int64_t step[3][5];
};

static inline void phi4_steps_of(const struct phi4_geom *g, const struct phi4_site *s,
                                 struct phi4_steps *w)
{
    const int64_t extent[3] = { g->lat.lx, g->lat.ly, g->lat.lz };
    const int64_t stride[3] = { 1, g->lat.lx, g->lat.lx * g->lat.ly };
    for (int mu = 0; mu < g->lat.ndim; mu++) {
        /* a step of d that leaves [0, l) wraps to d - l or d + l (l >= 5 > 2) */
        const int64_t a = s->x[mu], l = extent[mu], st = stride[mu];
        w->step[mu][0] = (a >= 2 ? -2 : l - 2) * st;
        w->step[mu][1] = (a >= 1 ? -1 : l - 1) * st;
        w->step[mu][2] = 0;
        w->step[mu][3] = (a + 1 < l ? 1 : 1 - l) * st;
        w->step[mu][4] = (a + 2 < l ? 2 : 2 - l) * st;
    }
}

/*
 * The neighbourhood sums of a site's energy change, in the summation order of
 * doc/models/phi4.md (left to right, starting from 0):
 *   c01 = phi(x + e_0) + phi(x - e_0) + phi(x + e_1) + phi(x - e_1) [+ phi(x + e_2) + phi(x - e_2)]
 *   c02 = the same with 2 e_mu
 *   c11 = over the planes (0,1) [, (0,2), (1,2)]:
 *         phi(x + e_mu + e_nu) + phi(x + e_mu - e_nu) + phi(x - e_mu + e_nu) + phi(x - e_mu - e_nu)
 * Generated for float (phi4_neighbour_sums_f) and double (phi4_neighbour_sums_d).
 */
#define PHI4_DEFINE_NEIGHBOUR_SUMS(R, S)                                                    \
    static inline void phi4_neighbour_sums_##S(const struct phi4_geom *g, const R *phi,     \
                                               const struct phi4_site *s, R *c01, R *c02,   \
                                               R *c11)                                      \
    {                                                                                       \
        const int ndim = g->lat.ndim;                                                       \
        const R *p = phi + s->index;                                                        \
        struct phi4_steps w;                                                                \
        phi4_steps_of(g, s, &w);                                                            \
        R near = 0, far = 0, diag = 0;                                                      \
        for (int mu = 0; mu < ndim; mu++) {                                                 \
            near += p[w.step[mu][2 + 1]];                                                   \
            near += p[w.step[mu][2 - 1]];                                                   \
            far += p[w.step[mu][2 + 2]];                                                    \
            far += p[w.step[mu][2 - 2]];                                                    \
        }                                                                                   \
        for (int mu = 0; mu < ndim; mu++)                                                   \
            for (int nu = mu + 1; nu < ndim; nu++)                                          \
                for (int a = 1; a >= -1; a -= 2)                                            \
                    for (int b = 1; b >= -1; b -= 2)                                        \
                        diag += p[w.step[mu][2 + a] + w.step[nu][2 + b]];                   \
        *c01 = near;                                                                        \
        *c02 = far;                                                                         \
        *c11 = diag;                                                                        \
    }

PHI4_DEFINE_NEIGHBOUR_SUMS(float, f)
PHI4_DEFINE_NEIGHBOUR_SUMS(double, d)
#undef PHI4_DEFINE_NEIGHBOUR_SUMS

#endif
