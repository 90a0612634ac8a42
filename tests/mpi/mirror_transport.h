/*
 * A transport for one part alone that stands in for n_parts identical ones: every gather
 * slot gets this part's bytes, the halos come back from itself, a broadcast leaves the
 * buffer as it is. Enough to create, start, sweep and save a part of a large lattice
 * without its partners (the values are not checked): the memory tests of
 * test_parts.c (CPU) and test_cuda_part_memory.c (GPU).
 */
#ifndef LATMC_TESTS_MIRROR_TRANSPORT_H
#define LATMC_TESTS_MIRROR_TRANSPORT_H

#include <latmc/part.h>

/* The transport of a part of *n_parts, which must outlive it. */
latmc_transport mirror_transport(int *n_parts);

#endif
