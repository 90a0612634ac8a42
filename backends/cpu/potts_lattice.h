/*
 * Geometry of the Potts update on the CPU: the c-colouring of the periodic lattice and the
 * within-colour numbering that names the random numbers (doc/models/potts.md).
 *
 * colour(x, y, z) = (x + y + z) mod c, c = 2 or 3 dividing every extent (lib/potts.h).
 * Site i = x + L_x (y + L_y z) of colour `colour` has within-colour index j = floor(i / c)
 * = floor(x / c) + (L_x / c) (y + L_y z). Because c divides L_x, each group of c
 * consecutive x of a row, [c t, c t + c), holds exactly one site of every colour, so j is a
 * bijection from the sites of each colour onto [0, N / c).
 */
#ifndef LATMC_CPU_POTTS_LATTICE_H
#define LATMC_CPU_POTTS_LATTICE_H

#include <stdint.h>

#include "cpu_lattice.h"
#include "potts.h"

/* Place s on group t of its row: the x in [c t, c t + c) whose colour is `colour`. */
static inline void potts_site_set_x(const struct cpu_lattice *g, int c, int colour, int64_t t,
                                    struct cpu_site *s)
{
    const int offset = (int)((colour + c - (s->y + s->z) % c) % c);
    s->x = c * t + offset;
    s->index = s->x + g->lx * s->row;
}

/* The site with within-colour index j of colour `colour`. */
static inline struct cpu_site potts_colour_site(const struct cpu_lattice *g, int c, int colour,
                                                int64_t j)
{
    const int64_t per_row = g->lx / c;
    struct cpu_site s;
    s.row = j / per_row;
    s.y = s.row % g->ly;
    s.z = s.row / g->ly;
    potts_site_set_x(g, c, colour, j - s.row * per_row, &s);
    return s;
}

/* The site with index j + 1 of the same colour. */
static inline void potts_colour_next(const struct cpu_lattice *g, int c, int colour,
                                     struct cpu_site *s)
{
    int64_t t = s->x / c + 1;
    if (t == g->lx / c) {
        t = 0;
        s->row++;
        if (++s->y == g->ly) {
            s->y = 0;
            s->z++;
        }
    }
    potts_site_set_x(g, c, colour, t, s);
}

/* The states of the 2 ndim nearest neighbours of s (x+, x-, y+, y-[, z+, z-]). */
static inline int potts_gather_neighbours(const struct cpu_lattice *g, const uint8_t *spins,
                                          struct cpu_site s, uint8_t nb[LATMC_POTTS_MAX_NB])
{
    const int64_t lx = g->lx, ly = g->ly;
    const int64_t row_start = s.index - s.x;
    nb[0] = spins[row_start + cpu_wrap_up(s.x, lx)];
    nb[1] = spins[row_start + cpu_wrap_down(s.x, lx)];
    nb[2] = spins[s.x + lx * (cpu_wrap_up(s.y, ly) + ly * s.z)];
    nb[3] = spins[s.x + lx * (cpu_wrap_down(s.y, ly) + ly * s.z)];
    if (g->ndim == 2)
        return 4;
    nb[4] = spins[s.x + lx * (s.y + ly * cpu_wrap_up(s.z, g->lz))];
    nb[5] = spins[s.x + lx * (s.y + ly * cpu_wrap_down(s.z, g->lz))];
    return 6;
}

#endif
