/*
 * Geometry of the periodic lattice for the CPU reference kernels: natural site order
 * i = x + L_x (y + L_y z) (2D: L_z = 1), and the checkerboard numbering used by the RNG.
 *
 * Checkerboard numbering: the sites of colour c = (x + y + z) mod 2 are numbered by
 * j = i >> 1 = floor(x / 2) + (L_x / 2) (y + L_y z), a bijection onto [0, N/2) for each
 * colour because L_x is even. The draw for site j of colour c in sweep t is lane j mod 4
 * of Philox block j / 4 with phase c. Every backend uses this numbering, whatever its
 * memory layout, which is what makes the chains bit-identical.
 */
#ifndef LATMC_CPU_LATTICE_H
#define LATMC_CPU_LATTICE_H

#include <stdint.h>

struct cpu_lattice {
    int ndim;
    int64_t lx, ly, lz;   /* lz = 1 in 2D */
    int64_t nsites;
};

struct cpu_site {
    int64_t x, y, z;
    int64_t row;          /* y + L_y z */
    int64_t index;        /* x + L_x row */
};

static inline void cpu_site_set_x(const struct cpu_lattice *g, int colour, int64_t half_x_index,
                                  struct cpu_site *s)
{
    s->x = 2 * half_x_index + ((colour + s->y + s->z) & 1);
    s->index = s->x + g->lx * s->row;
}

/* Site number j of colour `colour` in the checkerboard numbering. */
static inline struct cpu_site cpu_checkerboard_site(const struct cpu_lattice *g, int colour,
                                                    int64_t j)
{
    const int64_t half_x = g->lx / 2;
    struct cpu_site s;
    s.row = j / half_x;
    s.y = s.row % g->ly;
    s.z = s.row / g->ly;
    cpu_site_set_x(g, colour, j - s.row * half_x, &s);
    return s;
}

/* The site numbered j + 1 of the same colour, without divisions. */
static inline void cpu_checkerboard_next(const struct cpu_lattice *g, int colour,
                                         struct cpu_site *s)
{
    int64_t half_x_index = s->x / 2 + 1;
    if (half_x_index == g->lx / 2) {
        half_x_index = 0;
        s->row++;
        if (++s->y == g->ly) {
            s->y = 0;
            s->z++;
        }
    }
    cpu_site_set_x(g, colour, half_x_index, s);
}

static inline int64_t cpu_wrap_up(int64_t a, int64_t l) { return a + 1 == l ? 0 : a + 1; }
static inline int64_t cpu_wrap_down(int64_t a, int64_t l) { return a == 0 ? l - 1 : a - 1; }

/* Sum of the 2 ndim nearest-neighbour values of a site (Ising spins: -2 ndim .. 2 ndim). */
static inline int cpu_ising_neighbour_sum(const struct cpu_lattice *g, const int8_t *spin,
                                          struct cpu_site s)
{
    const int64_t lx = g->lx, ly = g->ly;
    const int64_t row = s.index - s.x;         /* index of (0, y, z) */
    int sum = spin[row + cpu_wrap_up(s.x, lx)] + spin[row + cpu_wrap_down(s.x, lx)]
            + spin[s.x + lx * (cpu_wrap_up(s.y, ly) + ly * s.z)]
            + spin[s.x + lx * (cpu_wrap_down(s.y, ly) + ly * s.z)];
    if (g->ndim == 3)
        sum += spin[s.x + lx * (s.y + ly * cpu_wrap_up(s.z, g->lz))]
             + spin[s.x + lx * (s.y + ly * cpu_wrap_down(s.z, g->lz))];
    return sum;
}

#endif
