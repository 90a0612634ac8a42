/*
 * Internal: the geometry every backend shares, usable from C and CUDA (LATMC_HOSTDEV).
 * Natural site order i = x + L_x (y + L_y z) (2D: L_z = 1), periodic neighbours, and the
 * numberings of the sites of one colour that name the random numbers:
 *
 * Checkerboard (Ising, Heisenberg): the sites of colour (x + y + z) mod 2 are numbered by
 * j = i >> 1 = floor(x / 2) + (L_x / 2) (y + L_y z), a bijection onto [0, N/2) for each
 * colour because L_x is even.
 *
 * c-colouring (Potts, c = 2 or 3 dividing every extent): the sites of colour
 * (x + y + z) mod c are numbered by j = floor(i / c) = floor(x / c) + (L_x / c)(y + L_y z).
 * Because c divides L_x, each group of c consecutive x of a row, [c t, c t + c), holds
 * exactly one site of every colour, so j is a bijection onto [0, N / c).
 *
 * The draw for site j of a colour is lane j mod 4 of Philox block j / 4 (rng_streams.h).
 * Every backend uses these numberings, whatever its memory layout: that is what makes the
 * chains bit-identical (doc/conventions.md, doc/models/potts.md).
 */
#ifndef LATMC_LIB_LATTICE_NUMBERING_H
#define LATMC_LIB_LATTICE_NUMBERING_H

#include <stdint.h>

#include "philox.h" /* LATMC_HOSTDEV */

struct latmc_lattice {
    int ndim;
    int64_t lx, ly, lz;   /* lz = 1 in 2D */
    int64_t nsites;
};

struct latmc_site {
    int64_t x, y, z;
    int64_t row;          /* y + L_y z */
    int64_t index;        /* x + L_x row */
    int64_t group;        /* which group of ncolours consecutive x of the row holds the site */
};

LATMC_HOSTDEV int64_t latmc_wrap_up(int64_t a, int64_t l) { return a + 1 == l ? 0 : a + 1; }
LATMC_HOSTDEV int64_t latmc_wrap_down(int64_t a, int64_t l) { return a == 0 ? l - 1 : a - 1; }

/*
 * a / b and a % b of non-negative values, in 32 bits whenever both fit: the same numbers,
 * but on a GPU a 64-bit division is a long software sequence and a 32-bit one is short.
 */
LATMC_HOSTDEV int64_t latmc_div(int64_t a, int64_t b)
{
    if ((((uint64_t)a | (uint64_t)b) >> 32) == 0)
        return (int64_t)((uint32_t)a / (uint32_t)b);
    return a / b;
}

LATMC_HOSTDEV int64_t latmc_mod(int64_t a, int64_t b)
{
    return a - b * latmc_div(a, b);
}

/* ---- checkerboard numbering ---- */

LATMC_HOSTDEV void latmc_checkerboard_set_x(const struct latmc_lattice *g, int colour,
                                            int64_t half_x_index, struct latmc_site *s)
{
    s->group = half_x_index;
    s->x = 2 * half_x_index + ((colour + s->y + s->z) & 1);
    s->index = s->x + g->lx * s->row;
}

/* Site number j of colour `colour` in the checkerboard numbering. */
LATMC_HOSTDEV struct latmc_site latmc_checkerboard_site(const struct latmc_lattice *g, int colour,
                                                        int64_t j)
{
    const int64_t half_x = g->lx / 2;
    struct latmc_site s;
    s.row = latmc_div(j, half_x);
    s.z = latmc_div(s.row, g->ly);
    s.y = s.row - s.z * g->ly;
    latmc_checkerboard_set_x(g, colour, j - s.row * half_x, &s);
    return s;
}

/* The site numbered j + 1 of the same colour, without divisions. */
LATMC_HOSTDEV void latmc_checkerboard_next(const struct latmc_lattice *g, int colour,
                                           struct latmc_site *s)
{
    int64_t half_x_index = s->group + 1;
    if (2 * half_x_index == g->lx) {
        half_x_index = 0;
        s->row++;
        if (++s->y == g->ly) {
            s->y = 0;
            s->z++;
        }
    }
    latmc_checkerboard_set_x(g, colour, half_x_index, s);
}

/* ---- a box's geometry (DESIGN.md section 12: rules take the box) ---- */

/*
 * Where a box's sites lie in the memory that holds it: `global` is the whole lattice
 * (extents; it names sites, colours and draws), `local` the box's memory, the same
 * extents but along the last axis, where it holds its planes with their halos, local
 * plane p being global plane plane0 + p. One box on one device is local = global,
 * plane0 = 0. A rule that updates a site of the box's own planes reads its neighbours
 * along the last axis in the halos, never across the local lattice's wrap.
 */
struct latmc_box_geom {
    struct latmc_lattice global;
    struct latmc_lattice local;
    int64_t plane0;
};

/* Site j of colour `colour` in the global checkerboard numbering, as a site of the box's
 * memory (its x, group and in-plane y as in the whole lattice, its plane local). */
LATMC_HOSTDEV struct latmc_site latmc_box_checkerboard_site(const struct latmc_box_geom *g,
                                                            int colour, int64_t j)
{
    struct latmc_site s = latmc_checkerboard_site(&g->global, colour, j);
    if (g->global.ndim == 3)
        s.z -= g->plane0;
    else
        s.y -= g->plane0;
    s.row = s.y + g->local.ly * s.z;
    s.index = s.x + g->local.lx * s.row;
    return s;
}

/* ---- c-colouring numbering (c = 2 or 3) ---- */

/* Place s on group t of its row: the x in [c t, c t + c) whose colour is `colour`. */
LATMC_HOSTDEV void latmc_colour_set_x(const struct latmc_lattice *g, int c, int colour, int64_t t,
                                      struct latmc_site *s)
{
    const int offset = (int)latmc_mod(colour + c - latmc_mod(s->y + s->z, c), c);
    s->group = t;
    s->x = c * t + offset;
    s->index = s->x + g->lx * s->row;
}

/* The site with within-colour index j of colour `colour`. */
LATMC_HOSTDEV struct latmc_site latmc_colour_site(const struct latmc_lattice *g, int c, int colour,
                                                  int64_t j)
{
    const int64_t per_row = latmc_div(g->lx, c);
    struct latmc_site s;
    s.row = latmc_div(j, per_row);
    s.z = latmc_div(s.row, g->ly);
    s.y = s.row - s.z * g->ly;
    latmc_colour_set_x(g, c, colour, j - s.row * per_row, &s);
    return s;
}

/* The site with index j + 1 of the same colour. */
LATMC_HOSTDEV void latmc_colour_next(const struct latmc_lattice *g, int c, int colour,
                                     struct latmc_site *s)
{
    if (c * (s->group + 1) < g->lx) {
        /* Same row: the next group of c, at the same offset (no division). */
        s->group++;
        s->x += c;
        s->index += c;
        return;
    }
    s->row++;
    if (++s->y == g->ly) {
        s->y = 0;
        s->z++;
    }
    latmc_colour_set_x(g, c, colour, 0, s);
}

/* Site j of colour `colour` of the c-colouring in the global numbering, as a site of the
 * box's memory (latmc_box_checkerboard_site's counterpart). */
LATMC_HOSTDEV struct latmc_site latmc_box_colour_site(const struct latmc_box_geom *g, int c,
                                                      int colour, int64_t j)
{
    struct latmc_site s = latmc_colour_site(&g->global, c, colour, j);
    if (g->global.ndim == 3)
        s.z -= g->plane0;
    else
        s.y -= g->plane0;
    s.row = s.y + g->local.ly * s.z;
    s.index = s.x + g->local.lx * s.row;
    return s;
}

#endif /* LATMC_LIB_LATTICE_NUMBERING_H */
