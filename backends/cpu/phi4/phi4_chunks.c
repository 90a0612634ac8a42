/*
 * The phi^4 chunk schedule on the CPU (phi4_chunks.h; doc/models/phi4.md, "The chunk
 * schedule on the CPU"): its shape from LATMC_CPU_PHI4_CHUNK, and one sub-grid of a sweep.
 *
 * The shape rules are lib/phi4_chunk_shape.h's, the CUDA backend's too, so that a shape
 * the one takes the other takes and runs the same chain; "cuda" is that rule's default
 * shape (CUDA's), the site order where none fits.
 *
 * Why pieces (measured on the 16-core KVM guest of doc/PERFORMANCE.md, "Xeon 16"): with
 * each member's share of whole chunks and a barrier after each sub-grid, every sub-grid
 * waited for its slowest member, and in that guest some cores run far slower than others
 * for a while (other work on the host's cores: at 16 threads the members' busy times
 * differed by up to 1.75x, the slowest set the time, 1.36x the mean). A member done with
 * its share first takes whole chunks no one has started, then open pieces of rows of the
 * others' colour steps, so a sub-grid ends about when its work is done, not when its
 * slowest member's share is. While no member is done, an owner runs each colour step in
 * one kernel call (no piece to share yet); from then on piece by piece. Which member
 * runs a piece changes no draw and no value.
 */
#include <sched.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "cpu_omp.h"
#include "error.h"
#include "internal.h"
#include "model.h"
#include "phi4_chunk_shape.h"
#include "phi4_chunks.h"
#include "phi4_claims.h"
#include "phi4_dsp.h"
#include "step.h"

/*
 * Rows of a chunk per piece of a colour step, at least: a colour step of R rows is cut
 * into max(1, R / CPU_PHI4_PIECE_ROWS) pieces of consecutive rows. At 64 x 16 x 16 float
 * (8 colours: 8 numbers a row) a piece is 4 blocks of 8 AVX-512 groups (~7-12 us of hits
 * at nhit 8), 4 per colour step. Xeon 16, 16 threads (doc/PERFORMANCE.md): with pieces
 * only, pieces of 64 and 128 rows alike, 32 rows slower (a piece's setup and claim, and
 * more pieces run away from their chunk's cache), 256 (whole colour steps: no two members
 * on one step) no faster than each member's share alone; with the owners' whole colour
 * steps, pieces of 32 rows no faster than 64, at 64 x 8 x 8 16 and 32 rows alike.
 */
#ifndef CPU_PHI4_PIECE_ROWS
#define CPU_PHI4_PIECE_ROWS 64
#endif

static int64_t sub_grid_chunks(const struct phi4_geom *g, const struct cpu_phi4_chunks *c)
{
    return (c->n[0] / 2) * (c->n[1] / 2) * (g->lat.ndim == 3 ? c->n[2] / 2 : 1);
}

static void finish(const struct phi4_geom *g, struct cpu_phi4_chunks *c)
{
    const int64_t ext[3] = { g->lat.lx, g->lat.ly, g->lat.ndim == 3 ? g->lat.lz : 1 };
    if (g->lat.ndim == 2)
        c->b[2] = 1;
    for (int mu = 0; mu < 3; mu++)
        c->n[mu] = ext[mu] / c->b[mu];
    c->on = true;
    const int64_t rows = (int64_t)c->b[1] * c->b[2];
    c->pieces = rows >= 2 * CPU_PHI4_PIECE_ROWS ? (int)(rows / CPU_PHI4_PIECE_ROWS) : 1;
    /* no counts (no memory): each member runs its share of whole chunks */
    const size_t bytes = (size_t)(sub_grid_chunks(g, c) + 1) * sizeof *c->counts;
    c->counts = aligned_alloc(_Alignof(struct cpu_phi4_piece_counts), bytes);
}

void cpu_phi4_chunks_free(struct cpu_phi4_chunks *c)
{
    free(c->counts);
    c->counts = NULL;
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
 * Rows [r_begin, r_end) of chunk `at` in colour step (pass, colour), in batches of
 * SEGMENT_BATCH segments. Row (y, z) holds the numbers [row n + cx s, row n + (cx + 1) s)
 * of every colour (n = L_x / ncolours, s = b_x / ncolours: phi4_colour_site), so the
 * segments are the same for all colours.
 */
static uint64_t run_rows(const struct latmc_sim *sim, const struct phi4_geom *g,
                         const struct cpu_phi4_chunks *c, const struct cpu_phi4_dsp *dsp,
                         bool single, void *phi, const struct latmc_phi4_tables *t,
                         uint64_t sweep, const int64_t at[3], uint32_t pass, int colour,
                         int64_t r_begin, int64_t r_end)
{
    const int nc = g->colouring.ncolours;
    const int64_t n = g->lat.lx / nc, s = cpu_phi4_chunk_segment(g, c);
    const struct latmc_rng_name name = sim->model->step_of(sim, sweep, (int)pass * nc + colour).rng;
    uint64_t accepted = 0;
    /* row r of the chunk is (y0 + r mod b_y, z0 + r / b_y): one division, then steps */
    int64_t ry = r_begin % c->b[1], rz = r_begin / c->b[1];
    const int64_t y0 = at[1] * c->b[1], z0 = at[2] * c->b[2], col = at[0] * s;
    for (int64_t r0 = r_begin; r0 < r_end; r0 += SEGMENT_BATCH) {
        struct phi4_range segs[SEGMENT_BATCH];
        const int nr = r_end - r0 < SEGMENT_BATCH ? (int)(r_end - r0) : SEGMENT_BATCH;
        for (int i = 0; i < nr; i++) {
            segs[i].j0 = (y0 + ry + g->lat.ly * (z0 + rz)) * n + col;
            segs[i].j1 = segs[i].j0 + s;
            if (++ry == c->b[1]) {
                ry = 0;
                rz++;
            }
        }
        accepted += single ? dsp->segments_f(g, phi, t, sim->desc.seed, name, colour, segs, nr)
                           : dsp->segments_d(g, phi, t, sim->desc.seed, name, colour, segs, nr);
    }
    return accepted;
}

/* Chunk `at` whole: nloc passes of the colours, passes outermost (every pass of the chunk
 * sees its previous pass complete). */
static uint64_t run_chunk(const struct latmc_sim *sim, const struct phi4_geom *g,
                          const struct cpu_phi4_chunks *c, const struct cpu_phi4_dsp *dsp,
                          bool single, void *phi, const struct latmc_phi4_tables *t,
                          uint64_t sweep, const int64_t at[3])
{
    const int64_t rows = (int64_t)c->b[1] * c->b[2];
    uint64_t accepted = 0;
    for (uint32_t pass = 0; pass < t->nloc; pass++)
        for (int colour = 0; colour < g->colouring.ncolours; colour++)
            accepted += run_rows(sim, g, c, dsp, single, phi, t, sweep, at, pass, colour, 0,
                                 rows);
    return accepted;
}

/* Chunk k of sub-grid `sub`: its chunk coordinates. */
static void chunk_at(const struct phi4_geom *g, const struct cpu_phi4_chunks *c, int sub,
                     int64_t k, int64_t at[3])
{
    /* (c_mu mod 2) = bit mu of sub, half of the chunks per axis */
    const int64_t h0 = c->n[0] / 2, h1 = c->n[1] / 2;
    at[0] = 2 * (k % h0) + (sub & 1);
    at[1] = 2 * (k / h0 % h1) + (sub >> 1 & 1);
    at[2] = g->lat.ndim == 3 ? 2 * (k / (h0 * h1)) + (sub >> 2 & 1) : 0;
}

/* The pieces [ticket, ticket + n) of chunk k (one colour step: one kernel call on their
 * rows), then their count. */
static void run_tickets(const struct latmc_sim *sim, const struct phi4_geom *g,
                        const struct cpu_phi4_chunks *c, const struct cpu_phi4_dsp *dsp,
                        bool single, void *phi, const struct latmc_phi4_tables *t,
                        uint64_t sweep, int sub, int64_t k, long long ticket, int n,
                        uint64_t *accepted)
{
    const int nc = g->colouring.ncolours, pieces = c->pieces;
    const int64_t rows = (int64_t)c->b[1] * c->b[2];
    const long long step = ticket / pieces;
    const int piece = (int)(ticket % pieces);
    int64_t at[3];
    chunk_at(g, c, sub, k, at);
    *accepted += run_rows(sim, g, c, dsp, single, phi, t, sweep, at, (uint32_t)(step / nc),
                          (int)(step % nc), rows * piece / pieces, rows * (piece + n) / pieces);
    cpu_phi4_claims_done(&c->counts[k], n);
}

/*
 * The first open piece of the sub-grid's chunks [first, first + count) (mod nk), in that
 * order, run (with `whole`, the rest of its colour step). Returns 1 if one ran, 0 if none
 * was open but some chunk is unfinished, -1 if all of them are finished.
 */
static int run_a_piece(const struct latmc_sim *sim, const struct phi4_geom *g,
                       const struct cpu_phi4_chunks *c, const struct cpu_phi4_dsp *dsp,
                       bool single, void *phi, const struct latmc_phi4_tables *t,
                       uint64_t sweep, int sub, int64_t nk, int64_t first, int64_t count,
                       bool whole, uint64_t *accepted)
{
    const int pieces = c->pieces;
    const long long total = (long long)t->nloc * g->colouring.ncolours * pieces;
    int unfinished = 0;
    for (int64_t i = 0; i < count; i++) {
        const int64_t k = (first + i) % nk;
        struct cpu_phi4_piece_counts *kc = &c->counts[k];
        if (atomic_load_explicit(&kc->done, memory_order_acquire) == total)
            continue;
        unfinished = 1;
        int n;
        const long long ticket = cpu_phi4_claim(kc, total, pieces, whole, &n);
        if (ticket >= 0) {
            run_tickets(sim, g, c, dsp, single, phi, t, sweep, sub, k, ticket, n, accepted);
            return 1;
        }
    }
    return unfinished ? 0 : -1;
}

/* A member with nothing open waits: a short pause (the piece it waits for is microseconds
 * long), and the core to another thread after 64 such rounds in a row (more members than
 * free cores: the piece's holder may be the one waiting for the core). */
static void wait_a_little(int *spins)
{
#if defined(__x86_64__) || defined(__i386__)
    for (int i = 0; i < 16; i++)
        __builtin_ia32_pause();
#endif
    if (++*spins >= 64) {
        *spins = 0;
        sched_yield();
    }
}

/* Chunk k for this member, if no one has it yet. */
static bool take_chunk(struct cpu_phi4_piece_counts *kc)
{
    return atomic_load_explicit(&kc->owned, memory_order_relaxed) == 0 &&
           atomic_exchange_explicit(&kc->owned, 1, memory_order_relaxed) == 0;
}

uint64_t cpu_phi4_chunks_run(const struct latmc_sim *sim, const struct phi4_geom *g,
                             const struct cpu_phi4_chunks *c, const struct cpu_phi4_dsp *dsp,
                             bool single, void *phi, const struct latmc_phi4_tables *t,
                             uint64_t sweep, int sub, const struct cpu_team *team)
{
    const int64_t nk = sub_grid_chunks(g, c);
    int64_t k0, k1;
    cpu_team_share(team, nk, &k0, &k1);
    uint64_t accepted = 0;
    if (team->size == 1 || !c->counts) {
        for (int64_t k = k0; k < k1; k++) {
            int64_t at[3];
            chunk_at(g, c, sub, k, at);
            accepted += run_chunk(sim, g, c, dsp, single, phi, t, sweep, at);
        }
        return accepted;
    }
    /* the counts are the team's for this sub-grid: zero before anyone claims. No member
     * still scans them for the previous sub-grid: a member returns only once every chunk
     * is done, and the executor's barrier between two steps (cpu_run_steps; one step a
     * call here) holds the team until all have returned. counts[nk].owned: how many
     * members help. */
    struct cpu_phi4_piece_counts *const helping = &c->counts[nk];
    for (int64_t k = k0; k < k1; k++) {
        atomic_store_explicit(&c->counts[k].next, 0, memory_order_relaxed);
        atomic_store_explicit(&c->counts[k].done, 0, memory_order_relaxed);
        atomic_store_explicit(&c->counts[k].owned, 0, memory_order_relaxed);
    }
    if (team->id == 0)
        atomic_store_explicit(&helping->owned, 0, memory_order_relaxed);
    cpu_team_barrier(team);
    int spins = 0, r;
    /* Own chunks: the member's share in order, then whole chunks no one has started, from
     * the end of the others' shares (their owners work forward); each run colour step by
     * colour step while no member helps (one kernel call a step), piece by piece once one
     * does (waiting where a helper holds a piece of its open step rather than taking
     * others' pieces: its own chunk is in its caches). */
    for (int64_t i = 0; i < nk; i++) {
        const int64_t k = i < k1 - k0 ? k0 + i : (k0 + nk - 1 - (i - (k1 - k0))) % nk;
        if (!take_chunk(&c->counts[k]))
            continue;
        while ((r = run_a_piece(sim, g, c, dsp, single, phi, t, sweep, sub, nk, k, 1,
                                atomic_load_explicit(&helping->owned, memory_order_relaxed) == 0,
                                &accepted)) >= 0) {
            if (r)
                spins = 0;
            else
                wait_a_little(&spins);
        }
    }
    /* then anyone's open pieces, one at a time, from the next member's share on */
    atomic_fetch_add_explicit(&helping->owned, 1, memory_order_relaxed);
    while ((r = run_a_piece(sim, g, c, dsp, single, phi, t, sweep, sub, nk, k1, nk, false,
                            &accepted)) >= 0) {
        if (r)
            spins = 0;
        else
            wait_a_little(&spins);
    }
    return accepted;
}
