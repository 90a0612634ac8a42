/*
 * The phi^4 chunk schedule on the CPU (doc/models/phi4.md, "The chunk schedule on the CPU";
 * the chain itself: "The CUDA chain"): the chain the CUDA backend runs by default, bit for
 * bit for the same chunk shape, chosen per sim by LATMC_CPU_PHI4_CHUNK when the sim is
 * created (unset or "none": the site order, the CPU's default chain, unchanged).
 *
 * A sweep is 2^ndim steps of the backend's own chain (ops.own_schedule), step p the
 * sub-grid p; inside a chunk nloc passes of the colours, each colour step calls of the
 * dsp's segments_f/_d on the chunk's rows (one call a step alone, and in a team while no
 * member helps; one per piece once one does), so that the chunk stays in L1/L2 across its
 * passes. The chunks of one sub-grid do not interact, and the sites of one colour step of
 * a chunk do not interact either: the members of the thread team take consecutive shares
 * of the chunks, a member done with its share takes whole chunks no one has started, then
 * pieces of rows of the others' open colour steps (phi4_chunks.c, phi4_claims.h), so the
 * field does not depend on the thread count or on who ran which piece.
 */
#ifndef LATMC_CPU_PHI4_CHUNKS_H
#define LATMC_CPU_PHI4_CHUNKS_H

#include <stdbool.h>
#include <stdint.h>

#include "phi4_lattice.h"
#include "rng_streams.h"

struct cpu_phi4_dsp;
struct cpu_team;
struct latmc_sim;

#define CPU_PHI4_CHUNK_ENV "LATMC_CPU_PHI4_CHUNK"

struct cpu_phi4_piece_counts;

struct cpu_phi4_chunks {
    bool on;            /* the chunk schedule, else the site order */
    int b[3];           /* chunk extents (b[2] = 1 in 2D) */
    int64_t n[3];       /* chunks per axis (n[2] = 1 in 2D) */
    int pieces;         /* pieces of rows per colour step of a chunk */
    /* one per chunk of a sub-grid, for a team of several members (phi4_chunks.c); NULL
     * (allocation failed): each member runs its share of whole chunks alone */
    struct cpu_phi4_piece_counts *counts;
};

/*
 * The schedule a sim on geometry g (the whole lattice) runs, from LATMC_CPU_PHI4_CHUNK:
 * unset, "" or "none": the site order; "cuda": the CUDA backend's default shape for these
 * extents (or the site order where CUDA runs it); ndim extents joined by 'x' ("64x16x16"):
 * that shape. LATMC_EINVAL naming the variable and the rule for anything else, or where
 * the sim is cut into boxes or parts (n_parts > 1: the chunks need the whole lattice).
 * cpu_phi4_chunks_free releases what a plan holds.
 */
int cpu_phi4_chunks_plan(const struct phi4_geom *g, int n_parts, struct cpu_phi4_chunks *c);
void cpu_phi4_chunks_free(struct cpu_phi4_chunks *c);

/* Numbers per row of one colour in one chunk: b_x / ncolours. */
static inline int64_t cpu_phi4_chunk_segment(const struct phi4_geom *g,
                                             const struct cpu_phi4_chunks *c)
{
    return c->b[0] / g->colouring.ncolours;
}

/*
 * Sub-grid `sub` of sweep `sweep` (nloc passes of the colours in each chunk), field type
 * by `single`, run by every member of `team`; returns when the sub-grid is done (without
 * counts: when the member's share is), with the accepted hits of the pieces it ran.
 */
uint64_t cpu_phi4_chunks_run(const struct latmc_sim *sim, const struct phi4_geom *g,
                             const struct cpu_phi4_chunks *c, const struct cpu_phi4_dsp *dsp,
                             bool single, void *phi, const struct latmc_phi4_tables *t,
                             uint64_t sweep, int sub, const struct cpu_team *team);

#endif
