/*
 * The Fourier modes' projections of a whole lattice (lib/modes.h) counted plane by plane on
 * a sim's threads, each thread into projections of its own, added up after: integers, so
 * the order does not matter. A model's measurement pass supplies only a plane's work (its
 * sums, then its projections while the plane is in the cache).
 */
#ifndef LATMC_CPU_PROJECTIONS_H
#define LATMC_CPU_PROJECTIONS_H

#include <stdint.h>

/* Plane p's work, its projections added into proj. */
typedef void (*cpu_plane_counter)(void *ctx, int64_t p, int64_t *proj);

/*
 * Planes [0, planes) by plane(ctx, p, proj) into proj (entries int64, set here), on
 * `threads` threads (1: the calling thread alone; the planes spread statically), the
 * threads' projections added by wrapping 64-bit additions (a phi^4 field beyond the
 * modes' bound, refused after, may overflow; every other sum is exact). LATMC_OK or
 * LATMC_ENOMEM (nothing counted).
 */
int cpu_count_planes(int64_t planes, int64_t entries, int threads, cpu_plane_counter plane,
                     void *ctx, int64_t *proj);

#endif
