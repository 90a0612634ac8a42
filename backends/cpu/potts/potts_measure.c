/* Potts reduction: the exact integer sums behind every observable. */
#include <stdlib.h>
#include <string.h>

#include <latmc/defs.h>

#include "cpu_omp.h"
#include "potts_measure_modes.h"
#include "potts_ref.h"

/*
 * Bonds are counted per site and positive direction, sum_x sum_mu delta(s_x, s_{x+mu}), so
 * on an extent of 2 both bonds between the same pair count (doc/conventions.md).
 */
/* Satisfied bond terms and state populations of one row (fixed y, z) of the lattice. */
static void row_sums(const struct latmc_lattice *g, const uint8_t *spins, int64_t row,
                     int64_t *matches, int64_t *count)
{
    const int64_t lx = g->lx, ly = g->ly, lz = g->lz;
    const int64_t y = row % ly, z = row / ly;
    const uint8_t *s = spins + lx * row;
    const uint8_t *up_y = spins + lx * (latmc_wrap_up(y, ly) + ly * z);
    const uint8_t *up_z = spins + lx * (y + ly * latmc_wrap_up(z, lz));
    int64_t m = 0;
    for (int64_t x = 0; x < lx; x++) {
        m += (s[x] == s[latmc_wrap_up(x, lx)]) + (s[x] == up_y[x]);
        if (g->ndim == 3)
            m += s[x] == up_z[x];
        count[s[x]]++;
    }
    *matches += m;
}

void cpu_potts_measure(const struct latmc_lattice *g, const uint8_t *spins, int n_threads,
                       struct latmc_potts_sums *sums)
{
    const int64_t rows = g->ly * g->lz;
    int64_t matches = 0;
    int64_t count[LATMC_POTTS_MAX_Q + 1];
    memset(count, 0, sizeof count);
    if (!cpu_use_threads(n_threads, g->nsites)) {
        for (int64_t row = 0; row < rows; row++)
            row_sums(g, spins, row, &matches, count);
    } else {
        /* integer sums: the reduction's order cannot change the result */
        LATMC_OMP(parallel for num_threads(n_threads) schedule(static)
                  reduction(+:matches, count[:LATMC_POTTS_MAX_Q + 1]))
        for (int64_t row = 0; row < rows; row++)
            row_sums(g, spins, row, &matches, count);
    }
    sums->matches = matches;
    memcpy(sums->count, count, sizeof count);
}

/* Rows of one plane: L_y in 3D (the plane is z), 1 in 2D (the plane is y). */
static int64_t rows_per_plane(const struct latmc_lattice *g)
{
    return g->ndim == 3 ? g->ly : 1;
}

static void plane_sums(const struct latmc_lattice *g, const uint8_t *spins, int64_t plane,
                       struct latmc_potts_sums *sums)
{
    const int64_t rows = rows_per_plane(g);
    memset(sums, 0, sizeof *sums);
    for (int64_t row = plane * rows; row < (plane + 1) * rows; row++)
        row_sums(g, spins, row, &sums->matches, sums->count);
}

void cpu_potts_measure_planes(const struct latmc_lattice *g, const uint8_t *spins, int64_t p0,
                              int64_t p1, int n_threads, struct latmc_potts_sums *sums)
{
    if (!cpu_use_threads(n_threads, (p1 - p0) * g->lx * rows_per_plane(g))) {
        for (int64_t p = p0; p < p1; p++)
            plane_sums(g, spins, p, &sums[p - p0]);
        return;
    }
    LATMC_OMP(parallel for num_threads(n_threads) schedule(static))
    for (int64_t p = p0; p < p1; p++)
        plane_sums(g, spins, p, &sums[p - p0]);
}

/* ---- the Fourier modes' projections (potts_measure_modes.h) ---- */

/*
 * A row arrives as segments of P states, segment state t at x = c t + off (the natural
 * layout: one segment, c = 1; the split layout: one per colour). A thread counts each
 * state's sites per (off, t) in byte counters, one vector compare and addition per state
 * and 16 or more sites (each counter below 256: emptied every 255 rows into 64-bit counts),
 * or for many states (q > POTTS_BYTE_STATES) one 64-bit increment per site; and each row's
 * sites per state, for the axes beyond x.
 */
#define POTTS_BYTE_STATES 16
#define POTTS_FLUSH_ROWS 255

struct potts_counts {
    int q, c;
    int64_t P, lx, ly, lz, ndim;
    int64_t n;         /* one state's projection entries */
    uint8_t *bytes;    /* [off][a][t], q <= POTTS_BYTE_STATES (the last state's unused) */
    int64_t *wide;     /* [off][a][t] */
    int pending;
    int64_t segments[3]; /* segments counted per off (the colours: at most 3) */
    cpu_potts_count_fn count; /* the byte counting of the sim's SIMD level */
};

static int potts_counts_init(struct potts_counts *k, const struct latmc_lattice *g, int q,
                             int c, cpu_potts_count_fn count)
{
    k->count = count;
    k->q = q;
    k->c = c;
    k->P = g->lx / c;
    k->lx = g->lx;
    k->ly = g->ly;
    k->lz = g->lz;
    k->ndim = g->ndim;
    k->n = g->lx + g->ly + (g->ndim == 3 ? g->lz : 0);
    k->pending = 0;
    memset(k->segments, 0, sizeof k->segments);
    const size_t cells = (size_t)q * (size_t)g->lx;
    k->bytes = q <= POTTS_BYTE_STATES ? calloc(cells, 1) : NULL;
    k->wide = calloc(cells, sizeof *k->wide);
    if (!k->wide || (q <= POTTS_BYTE_STATES && !k->bytes)) {
        free(k->bytes);
        free(k->wide);
        return 1;
    }
    return 0;
}

static void potts_counts_flush(struct potts_counts *k)
{
    if (!k->bytes)
        return;
    const size_t cells = (size_t)k->q * (size_t)k->lx;
    for (size_t i = 0; i < cells; i++)
        k->wide[i] += k->bytes[i];
    memset(k->bytes, 0, cells);
    k->pending = 0;
}

#define POTTS_COUNT_FN count_state_c
#include "potts_count_tmpl.h"

/* (potts_measure_modes.h) The C level's. */
int64_t cpu_potts_count_state(uint8_t *restrict ca, const uint8_t *restrict v, uint8_t a,
                              int64_t P)
{
    return count_state_c(ca, v, a, P);
}

/* One segment of a row: its states' counts per (off, t), and per state into row[]. */
static void potts_count_segment(struct potts_counts *k, const uint8_t *restrict v, int off,
                                int64_t *row)
{
    const int64_t P = k->P;
    if (k->bytes) { /* the last state's counts follow from the others' (finish) */
        k->segments[off]++;
        int64_t others = 0;
        for (int a = 0; a + 1 < k->q; a++) {
            uint8_t *restrict ca = k->bytes + ((size_t)off * (size_t)k->q + (size_t)a) * (size_t)P;
            const int64_t rc = k->count(ca, v, (uint8_t)a, P);
            row[a] += rc;
            others += rc;
        }
        row[k->q - 1] += P - others;
        return;
    }
    int64_t *w = k->wide + (size_t)off * (size_t)k->q * (size_t)P;
    for (int64_t t = 0; t < P; t++) {
        w[(size_t)v[t] * (size_t)P + (size_t)t]++;
        row[v[t]]++;
    }
}

/* The end of row r: its counts per state into P_y and (3D) P_z; empty the bytes in time. */
static void potts_close_row(struct potts_counts *k, int64_t r, const int64_t *row,
                            int64_t *proj)
{
    const int64_t y = r % k->ly, z = r / k->ly;
    for (int a = 0; a < k->q; a++) {
        int64_t *pa = proj + (size_t)a * (size_t)k->n;
        pa[k->lx + y] += row[a];
        if (k->ndim == 3)
            pa[k->lx + k->ly + z] += row[a];
    }
    if (k->bytes && ++k->pending == POTTS_FLUSH_ROWS)
        potts_counts_flush(k);
}

/* The counts per (off, t) into P_x: x = c t + off. */
static void potts_counts_finish(struct potts_counts *k, int64_t *proj)
{
    potts_counts_flush(k);
    if (k->bytes) /* the last state: every segment's site not in another state */
        for (int off = 0; off < k->c; off++) {
            int64_t *w = k->wide + (size_t)off * (size_t)k->q * (size_t)k->P;
            for (int64_t t = 0; t < k->P; t++) {
                int64_t rest = k->segments[off];
                for (int a = 0; a + 1 < k->q; a++)
                    rest -= w[(size_t)a * (size_t)k->P + (size_t)t];
                w[(size_t)(k->q - 1) * (size_t)k->P + (size_t)t] = rest;
            }
        }
    for (int off = 0; off < k->c; off++)
        for (int a = 0; a < k->q; a++) {
            const int64_t *w = k->wide + ((size_t)off * (size_t)k->q + (size_t)a) * (size_t)k->P;
            int64_t *pa = proj + (size_t)a * (size_t)k->n;
            for (int64_t t = 0; t < k->P; t++)
                pa[k->c * t + off] += w[t];
        }
    free(k->bytes);
    free(k->wide);
}

struct potts_job {
    const struct latmc_lattice *g;
    const uint8_t *spins;               /* natural layout, or NULL */
    const struct cpu_potts_split *s;    /* split layout, or NULL */
    int q;
    cpu_potts_count_fn count;
};

/* Rows [r0, r1) of one thread: the projections into proj, and the populations into count
 * (with the natural layout also the bonds into *matches: the model's sums). 0, or 1 where
 * it could not allocate. */
static int potts_job_rows(const struct potts_job *j, int64_t r0, int64_t r1, int64_t *proj,
                          int64_t *matches, int64_t *count)
{
    const int c = j->s ? j->s->colours : 1;
    struct potts_counts k;
    if (potts_counts_init(&k, j->g, j->q, c, j->count))
        return 1;
    for (int64_t r = r0; r < r1; r++) {
        int64_t row[LATMC_POTTS_MAX_Q + 1];
        memset(row, 0, (size_t)j->q * sizeof row[0]);
        if (!j->s) {
            row_sums(j->g, j->spins, r, matches, count);
            potts_count_segment(&k, j->spins + j->g->lx * r, 0, row);
        } else {
            const int64_t y = r % j->g->ly, z = r / j->g->ly;
            for (int col = 0; col < c; col++) /* x = c t + off, potts_split.c */
                potts_count_segment(&k, j->s->sub[col] + j->s->per_row * r,
                                    (int)((col + c - (y + z) % c) % c), row);
            for (int a = 0; a < j->q; a++) /* the row's states, counted once */
                count[a] += row[a];
        }
        potts_close_row(&k, r, row, proj);
    }
    potts_counts_finish(&k, proj);
    return 0;
}

/* The job over threads (each a run of rows and projections of its own; integers). */
static int potts_job_run(const struct potts_job *j, int n_threads, int64_t *proj,
                         struct latmc_potts_sums *sums)
{
    const struct latmc_lattice *g = j->g;
    const int64_t rows = g->ly * g->lz;
    const int64_t n = (int64_t)j->q * (g->lx + g->ly + (g->ndim == 3 ? g->lz : 0));
    int threads = cpu_use_threads(n_threads, g->nsites) ? n_threads : 1;
    if (threads > rows)
        threads = (int)rows;
    memset(proj, 0, (size_t)n * sizeof *proj);
    int64_t matches = 0;
    int64_t count[LATMC_POTTS_MAX_Q + 1];
    memset(count, 0, sizeof count);
    if (threads <= 1) {
        if (potts_job_rows(j, 0, rows, proj, &matches, count))
            return LATMC_ENOMEM;
    } else {
        int64_t *each = calloc((size_t)threads * (size_t)n, sizeof *each);
        if (!each)
            return LATMC_ENOMEM;
        int failed = 0;
        LATMC_OMP(parallel for num_threads(threads) schedule(static, 1)
                  reduction(+ : matches, count[:LATMC_POTTS_MAX_Q + 1]) reduction(| : failed))
        for (int t = 0; t < threads; t++)
            failed |= potts_job_rows(j, rows * t / threads, rows * (t + 1) / threads,
                                     each + (size_t)t * (size_t)n, &matches, count);
        for (int t = 0; t < threads; t++)
            for (int64_t i = 0; i < n; i++)
                proj[i] += each[(size_t)t * (size_t)n + (size_t)i];
        free(each);
        if (failed)
            return LATMC_ENOMEM;
    }
    if (j->spins) /* the split layout's bonds come from its level's reduction */
        sums->matches = matches;
    memcpy(sums->count, count, sizeof count);
    return LATMC_OK;
}

int cpu_potts_measure_modes(const struct latmc_lattice *g, const uint8_t *spins, int q,
                            int n_threads, struct latmc_potts_sums *sums, int64_t *proj)
{
    const struct potts_job j = { g, spins, NULL, q, cpu_potts_count_state };
    return potts_job_run(&j, n_threads, proj, sums);
}

int cpu_potts_split_projections(const struct latmc_lattice *g, const struct cpu_potts_split *s,
                                int q, int n_threads, cpu_potts_count_fn count, int64_t *proj,
                                struct latmc_potts_sums *sums)
{
    const struct potts_job j = { g, NULL, s, q, count };
    return potts_job_run(&j, n_threads, proj, sums);
}
