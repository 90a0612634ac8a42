/*
 * The phi^4 chunk schedule on the CPU (phi4_chunks.h; doc/models/phi4.md, "The chunk
 * schedule on the CPU"): its shape from LATMC_CPU_PHI4_CHUNK, and one sub-grid of a sweep.
 *
 * The shape rules are lib/phi4_chunk_shape.h's, the CUDA backend's too, so that a shape
 * the one takes the other takes and runs the same chain; "cuda" is that rule's default
 * shape (CUDA's), the site order where none fits.
 */
#include <stdlib.h>
#include <string.h>

#include "cpu_omp.h"
#include "error.h"
#include "internal.h"
#include "model.h"
#include "phi4_chunk_shape.h"
#include "phi4_chunks.h"
#include "phi4_dsp.h"
#include "step.h"

static void finish(const struct phi4_geom *g, struct cpu_phi4_chunks *c)
{
    const int64_t ext[3] = { g->lat.lx, g->lat.ly, g->lat.ndim == 3 ? g->lat.lz : 1 };
    if (g->lat.ndim == 2)
        c->b[2] = 1;
    for (int mu = 0; mu < 3; mu++)
        c->n[mu] = ext[mu] / c->b[mu];
    c->on = true;
}

static void cuda_default(const struct phi4_geom *g, struct cpu_phi4_chunks *c)
{
    const int64_t ext[3] = { g->lat.lx, g->lat.ly, g->lat.ndim == 3 ? g->lat.lz : 1 };
    if (latmc_phi4_chunk_default(g->lat.ndim, ext, 4 * g->colouring.ncolours, c->b))
        finish(g, c);
}

static int from_extents(const struct phi4_geom *g, const char *text, struct cpu_phi4_chunks *c)
{
    const int64_t ext[3] = { g->lat.lx, g->lat.ly, g->lat.ndim == 3 ? g->lat.lz : 1 };
    char why[200];
    if (!latmc_phi4_chunk_parse(text, g->lat.ndim, ext, 4 * g->colouring.ncolours, c->b, why,
                                sizeof why))
        return latmc_fail(LATMC_EINVAL, "%s=\"%s\": \"none\", \"cuda\" or a chunk shape: %s",
                          CPU_PHI4_CHUNK_ENV, text, why);
    finish(g, c);
    return LATMC_OK;
}

int cpu_phi4_chunks_plan(const struct phi4_geom *g, int n_parts, struct cpu_phi4_chunks *c)
{
    memset(c, 0, sizeof *c);
    const char *text = getenv(CPU_PHI4_CHUNK_ENV);
    if (!text || !*text || strcmp(text, "none") == 0)
        return LATMC_OK;
    if (n_parts > 1)
        return latmc_fail(LATMC_EINVAL, "%s=\"%s\": the chunk schedule runs on the whole "
                          "lattice in one box; unset it (or set \"none\") for a sim cut into "
                          "boxes or parts (n_parts > 1)", CPU_PHI4_CHUNK_ENV, text);
    if (strcmp(text, "cuda") == 0) {
        cuda_default(g, c);
        return LATMC_OK;
    }
    return from_extents(g, text, c);
}

/* Rows of a chunk handed to one segments call: a stack array, no allocation per step. */
enum { SEGMENT_BATCH = 256 };

/*
 * Chunk (cx, cy, cz): nloc passes of the colours, each colour on the chunk's rows in
 * batches of SEGMENT_BATCH segments. Row (y, z) holds the numbers [row n + cx s, row n +
 * (cx + 1) s) of every colour (n = L_x / ncolours, s = b_x / ncolours: phi4_colour_site),
 * so the segments are the same for all colours.
 */
static uint64_t run_chunk(const struct latmc_sim *sim, const struct phi4_geom *g,
                          const struct cpu_phi4_chunks *c, const struct cpu_phi4_dsp *dsp,
                          bool single, void *phi, const struct latmc_phi4_tables *t,
                          uint64_t sweep, const int64_t at[3])
{
    const int nc = g->colouring.ncolours;
    const int64_t n = g->lat.lx / nc, s = cpu_phi4_chunk_segment(g, c);
    const int64_t rows = (int64_t)c->b[1] * c->b[2];
    uint64_t accepted = 0;
    /* passes outermost: every pass of the chunk sees its previous pass complete */
    for (uint32_t pass = 0; pass < t->nloc; pass++)
        for (int colour = 0; colour < nc; colour++) {
            const struct latmc_rng_name name =
                sim->model->step_of(sim, sweep, (int)pass * nc + colour).rng;
            for (int64_t r0 = 0; r0 < rows; r0 += SEGMENT_BATCH) {
                struct phi4_range segs[SEGMENT_BATCH];
                const int nr = rows - r0 < SEGMENT_BATCH ? (int)(rows - r0) : SEGMENT_BATCH;
                for (int i = 0; i < nr; i++) {
                    const int64_t y = at[1] * c->b[1] + (r0 + i) % c->b[1];
                    const int64_t z = at[2] * c->b[2] + (r0 + i) / c->b[1];
                    segs[i].j0 = (y + g->lat.ly * z) * n + at[0] * s;
                    segs[i].j1 = segs[i].j0 + s;
                }
                accepted += single ? dsp->segments_f(g, phi, t, sim->desc.seed, name, colour,
                                                     segs, nr)
                                   : dsp->segments_d(g, phi, t, sim->desc.seed, name, colour,
                                                     segs, nr);
            }
        }
    return accepted;
}

uint64_t cpu_phi4_chunks_run(const struct latmc_sim *sim, const struct phi4_geom *g,
                             const struct cpu_phi4_chunks *c, const struct cpu_phi4_dsp *dsp,
                             bool single, void *phi, const struct latmc_phi4_tables *t,
                             uint64_t sweep, int sub, const struct cpu_team *team)
{
    /* the chunks of sub-grid `sub`: (c_mu mod 2) = bit mu of sub, half of them per axis */
    const int64_t h[3] = { c->n[0] / 2, c->n[1] / 2, g->lat.ndim == 3 ? c->n[2] / 2 : 1 };
    const int par[3] = { sub & 1, sub >> 1 & 1, g->lat.ndim == 3 ? sub >> 2 & 1 : 0 };
    int64_t k0, k1;
    cpu_team_share(team, h[0] * h[1] * h[2], &k0, &k1);
    uint64_t accepted = 0;
    for (int64_t k = k0; k < k1; k++) {
        const int64_t at[3] = { 2 * (k % h[0]) + par[0], 2 * (k / h[0] % h[1]) + par[1],
                                g->lat.ndim == 3 ? 2 * (k / (h[0] * h[1])) + par[2] : 0 };
        accepted += run_chunk(sim, g, c, dsp, single, phi, t, sweep, at);
    }
    return accepted;
}
