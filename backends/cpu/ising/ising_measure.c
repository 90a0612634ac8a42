/* Ising reduction: the exact integer bond and spin sums behind every observable. */
#include <stdlib.h>
#include <string.h>

#include "ising_ref.h"
#include "ising_measure_modes.h"
#include "cpu_omp.h"
#include <latmc/defs.h>

/*
 * Bonds are counted per site and positive direction, sum_x sum_mu s_x s_{x+mu}, so on an
 * extent of 2 both bonds between the same pair count (doc/conventions.md).
 */
/* Bond and spin sums of one row (fixed y, z) of the lattice. */
static inline void row_sums(const struct latmc_lattice *g, const int8_t *spins, int64_t row,
                            int64_t *bonds, int64_t *total)
{
    const int64_t lx = g->lx, ly = g->ly, lz = g->lz;
    const int64_t y = row % ly, z = row / ly;
    const int8_t *s = spins + lx * row;
    const int8_t *up_y = spins + lx * (latmc_wrap_up(y, ly) + ly * z);
    const int8_t *up_z = spins + lx * (y + ly * latmc_wrap_up(z, lz));
    int64_t b = 0, t = 0;
    for (int64_t x = 0; x < lx; x++) {
        int nb = s[latmc_wrap_up(x, lx)] + up_y[x];
        if (g->ndim == 3)
            nb += up_z[x];
        b += s[x] * nb;
        t += s[x];
    }
    *bonds += b;
    *total += t;
}

/* The same with +-J couplings: bonds = sum_x sum_mu eps[ndim x + mu] s_x s_{x+mu}. */
static inline void row_sums_coupled(const struct latmc_lattice *g, const int8_t *spins,
                                    const int8_t *eps, int64_t row, int64_t *bonds,
                                    int64_t *total)
{
    const int64_t lx = g->lx, ly = g->ly, lz = g->lz;
    const int nd = g->ndim;
    const int64_t y = row % ly, z = row / ly;
    const int8_t *s = spins + lx * row;
    const int8_t *e = eps + nd * lx * row;
    const int8_t *up_y = spins + lx * (latmc_wrap_up(y, ly) + ly * z);
    const int8_t *up_z = spins + lx * (y + ly * latmc_wrap_up(z, lz));
    int64_t b = 0, t = 0;
    for (int64_t x = 0; x < lx; x++) {
        int nb = e[nd * x] * s[latmc_wrap_up(x, lx)] + e[nd * x + 1] * up_y[x];
        if (nd == 3)
            nb += e[nd * x + 2] * up_z[x];
        b += s[x] * nb;
        t += s[x];
    }
    *bonds += b;
    *total += t;
}

struct latmc_ising_sums cpu_ising_measure_coupled(const struct latmc_lattice *g,
                                                  const int8_t *spins, const int8_t *eps,
                                                  int n_threads)
{
    const int64_t rows = g->ly * g->lz;
    int64_t bonds = 0, total = 0;
    if (!cpu_use_threads(n_threads, g->nsites)) {
        for (int64_t row = 0; row < rows; row++)
            row_sums_coupled(g, spins, eps, row, &bonds, &total);
    } else {
        LATMC_OMP(parallel for num_threads(n_threads) schedule(static) reduction(+:bonds, total))
        for (int64_t row = 0; row < rows; row++)
            row_sums_coupled(g, spins, eps, row, &bonds, &total);
    }
    struct latmc_ising_sums sums = { bonds, total };
    return sums;
}

struct latmc_ising_sums cpu_ising_measure(const struct latmc_lattice *g, const int8_t *spins,
                                          int n_threads)
{
    const int64_t rows = g->ly * g->lz;
    int64_t bonds = 0, total = 0;
    if (!cpu_use_threads(n_threads, g->nsites)) {
        for (int64_t row = 0; row < rows; row++)
            row_sums(g, spins, row, &bonds, &total);
    } else {
        LATMC_OMP(parallel for num_threads(n_threads) schedule(static) reduction(+:bonds, total))
        for (int64_t row = 0; row < rows; row++)
            row_sums(g, spins, row, &bonds, &total);
    }
    struct latmc_ising_sums sums = { bonds, total };
    return sums;
}

struct latmc_ising_sums cpu_ising_measure_rows(const struct latmc_lattice *g,
                                               const int8_t *spins, const int8_t *eps,
                                               int64_t r0, int64_t r1)
{
    int64_t bonds = 0, total = 0;
    for (int64_t row = r0; row < r1; row++) {
        if (eps)
            row_sums_coupled(g, spins, eps, row, &bonds, &total);
        else
            row_sums(g, spins, row, &bonds, &total);
    }
    struct latmc_ising_sums sums = { bonds, total };
    return sums;
}

/* ---- the same with the Fourier modes' projections (ising_measure_modes.h) ---- */

/*
 * Each thread takes a contiguous run of rows and its own projections (integers: the sum of
 * the threads' rows is exact in any order), so the only extra work per site is the column
 * sum along x, on the row the bond count has just brought into the cache.
 */
struct modes_job {
    int ndim;
    int64_t lx, ly, lz, rows;
    int64_t n;  /* projection entries: lx + ly (+ lz) */
};

static struct modes_job modes_job_of(int ndim, int64_t lx, int64_t ly, int64_t lz)
{
    struct modes_job j = { ndim, lx, ly, lz, ly * lz, lx + ly + (ndim == 3 ? lz : 0) };
    return j;
}

/* A row's place (y, z), stepped from row to row rather than divided out of its index
 * (two 64-bit divisions a row were most of the 3D rows' cost). */
struct row_place {
    int64_t y, z;
};

static inline struct row_place row_place_of(const struct modes_job *j, int64_t r)
{
    const struct row_place p = { r % j->ly, r / j->ly };
    return p;
}

/* The row total of the row at *p into P_y and P_z (3D) or P_y (2D: a row is a plane);
 * *p steps to the next row. */
static inline void add_row_total(const struct modes_job *j, struct row_place *p,
                                 int64_t total, int64_t *proj)
{
    proj[j->lx + p->y] += total;
    if (j->ndim == 3)
        proj[j->lx + j->ly + p->z] += total;
    if (++p->y == j->ly) {
        p->y = 0;
        p->z++;
    }
}

/* Threads for `rows` rows of lx sites, and the per-thread rows of projections (NULL with
 * one thread: the caller's proj itself). */
static int modes_threads(int n_threads, const struct modes_job *j)
{
    int t = cpu_use_threads(n_threads, j->rows * j->lx) ? n_threads : 1;
    return t > j->rows ? (int)(j->rows > 0 ? j->rows : 1) : t;
}

/* Run BODY(r0, r1, proj_t, &bonds_t, &total_t) (0, or 1 where it could not allocate) over
 * the threads' runs of rows and add up; LATMC_ENOMEM where a thread or the rows could not
 * allocate. */
#define MODES_OVER_THREADS(J, N_THREADS, SUMS, PROJ, BODY)                                  \
    do {                                                                                    \
        const int threads_ = modes_threads((N_THREADS), (J));                               \
        memset((PROJ), 0, (size_t)(J)->n * sizeof *(PROJ));                                 \
        if (threads_ <= 1) {                                                                \
            int64_t b_ = 0, t_ = 0;                                                         \
            if (BODY(0, (J)->rows, (PROJ), &b_, &t_))                                       \
                return LATMC_ENOMEM;                                                        \
            (SUMS)->bonds = b_;                                                             \
            (SUMS)->spins = t_;                                                             \
            break;                                                                          \
        }                                                                                   \
        int64_t *rows_ = calloc((size_t)threads_ * (size_t)(J)->n, sizeof *rows_);          \
        if (!rows_)                                                                         \
            return LATMC_ENOMEM;                                                            \
        int64_t bonds_ = 0, total_ = 0;                                                     \
        int failed_ = 0;                                                                    \
        LATMC_OMP(parallel for num_threads(threads_) schedule(static, 1)                    \
                  reduction(+ : bonds_, total_) reduction(| : failed_))                     \
        for (int t = 0; t < threads_; t++) {                                                \
            const int64_t r0 = (J)->rows * t / threads_, r1 = (J)->rows * (t + 1) / threads_; \
            failed_ |= BODY(r0, r1, rows_ + (size_t)t * (size_t)(J)->n, &bonds_, &total_);  \
        }                                                                                   \
        for (int t = 0; t < threads_; t++)                                                  \
            for (int64_t i = 0; i < (J)->n; i++)                                            \
                (PROJ)[i] += rows_[(size_t)t * (size_t)(J)->n + (size_t)i];                 \
        free(rows_);                                                                        \
        if (failed_)                                                                        \
            return LATMC_ENOMEM;                                                            \
        (SUMS)->bonds = bonds_;                                                             \
        (SUMS)->spins = total_;                                                             \
    } while (0)

/* The natural layout: the rows' bond sums and totals as cpu_ising_measure(_coupled) give
 * them, and the spins of each row added into P_x. */
struct natural_args {
    const struct latmc_lattice *g;
    const int8_t *spins, *eps;
    const struct modes_job *j;
};

static int natural_rows(const struct natural_args *a, int64_t r0, int64_t r1, int64_t *proj,
                        int64_t *bonds, int64_t *total)
{
    const int64_t lx = a->g->lx;
    int64_t *restrict px = proj;
    struct row_place place = row_place_of(a->j, r0);
    for (int64_t r = r0; r < r1; r++) {
        int64_t row_total = 0;
        if (a->eps)
            row_sums_coupled(a->g, a->spins, a->eps, r, bonds, &row_total);
        else
            row_sums(a->g, a->spins, r, bonds, &row_total);
        const int8_t *restrict s = a->spins + lx * r;
        for (int64_t x = 0; x < lx; x++)
            px[x] += s[x];
        add_row_total(a->j, &place, row_total, proj);
        *total += row_total;
    }
    return 0;
}

int cpu_ising_measure_modes(const struct latmc_lattice *g, const int8_t *spins,
                            const int8_t *eps, int n_threads, struct latmc_ising_sums *sums,
                            int64_t *proj)
{
    const struct modes_job j = modes_job_of(g->ndim, g->lx, g->ly, g->lz);
    const struct natural_args a = { g, spins, eps, &j };
#define NATURAL_BODY(R0, R1, P, B, T) natural_rows(&a, (R0), (R1), (P), (B), (T))
    MODES_OVER_THREADS(&j, n_threads, sums, proj, NATURAL_BODY);
#undef NATURAL_BODY
    return LATMC_OK;
}

/*
 * The split rows: bytes 1 (up) and 0 (down), even x in one half-row, odd x in the other.
 * Up counts per column in byte counters, added by the level's measure_rows in the same
 * loop as the rows' bonds, runs of at most 255 rows a call (each counter below 256, then
 * emptied); P_x[x] = 2 (ups of column x) - rows.
 */
#define SPLIT_FLUSH_ROWS 255

/* Empty the byte counters of both halves (even columns, then odd) into the columns' up
 * counts. */
static void flush_bytes(uint8_t *bytes, int64_t half, int64_t *up_even, int64_t *up_odd)
{
    for (int64_t x = 0; x < half; x++) {
        up_even[x] += bytes[x];
        up_odd[x] += bytes[half + x];
    }
    memset(bytes, 0, 2 * (size_t)half);
}

struct split_args {
    const struct cpu_ising_split *s;
    cpu_ising_measure_rows_fn rows;
    const struct modes_job *j;
};

static int split_rows(const struct split_args *a, int64_t r0, int64_t r1, int64_t *proj,
                      int64_t *bonds, int64_t *total)
{
    const struct cpu_ising_split *s = a->s;
    const int64_t half = s->half;
    /* this thread's byte counters and the columns' up counts */
    uint8_t *bytes = calloc(2 * (size_t)half, 1);
    int64_t *up = calloc(2 * (size_t)half, sizeof *up);
    if (!bytes || !up) {
        free(bytes);
        free(up);
        return 1;
    }
    int64_t *up_even = up, *up_odd = up + half;
    uint64_t row_up[SPLIT_FLUSH_ROWS];
    struct row_place place = row_place_of(a->j, r0);
    for (int64_t b = r0; b < r1; b += SPLIT_FLUSH_ROWS) {
        const int64_t e = r1 - b < SPLIT_FLUSH_ROWS ? r1 : b + SPLIT_FLUSH_ROWS;
        uint64_t unequal = 0, n_up = 0;
        a->rows(s, b, e, bytes, row_up, &unequal, &n_up);
        *bonds += (e - b) * s->lx * s->ndim - 2 * (int64_t)unequal;
        *total += 2 * (int64_t)n_up - (e - b) * s->lx;
        for (int64_t r = b; r < e; r++) /* the row's spin sum, as measure_rows makes it */
            add_row_total(a->j, &place, 2 * (int64_t)row_up[r - b] - s->lx, proj);
        flush_bytes(bytes, half, up_even, up_odd);
    }
    const int64_t n_rows = r1 - r0;
    for (int64_t x = 0; x < half; x++) {
        proj[2 * x] += 2 * up_even[x] - n_rows;
        proj[2 * x + 1] += 2 * up_odd[x] - n_rows;
    }
    free(bytes);
    free(up);
    return 0;
}

int cpu_ising_split_measure_modes(const struct cpu_ising_split *s,
                                  cpu_ising_measure_rows_fn rows, int n_threads,
                                  struct latmc_ising_sums *sums, int64_t *proj)
{
    const struct modes_job j = modes_job_of(s->ndim, s->lx, s->ly, s->lz);
    const struct split_args a = { s, rows, &j };
#define SPLIT_BODY(R0, R1, P, B, T) split_rows(&a, (R0), (R1), (P), (B), (T))
    MODES_OVER_THREADS(&j, n_threads, sums, proj, SPLIT_BODY);
#undef SPLIT_BODY
    return LATMC_OK;
}
