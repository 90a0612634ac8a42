/*
 * Geometry of the periodic lattice for the CPU kernels: natural site order
 * i = x + L_x (y + L_y z) (2D: L_z = 1), periodic neighbours and the numberings of the
 * sites of one colour that name the random numbers. All of it is shared with the other
 * backends (lib/lattice_numbering.h: struct latmc_lattice, struct latmc_site,
 * latmc_wrap_up/down, latmc_checkerboard_site/next, latmc_colour_site/next), so that every
 * backend names the same random number for the same site.
 */
#ifndef LATMC_CPU_LATTICE_H
#define LATMC_CPU_LATTICE_H

#include "lattice_numbering.h"

#endif
