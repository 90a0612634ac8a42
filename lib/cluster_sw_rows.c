/*
 * Swendsen-Wang on a 2D or 3D lattice held whole, without a field (uniform or +-J
 * couplings): the same chain as lib/cluster_sw.c (the same bonds, clusters, names and
 * decisions), in fewer passes over memory (doc/PERFORMANCE.md, "CPU, cluster updates"):
 *
 *   A. per unit (a run of planes along the last axis, one per thread), row by row: the
 *      row's bond and decision draws, its bonds (in row buffers, never in memory), every
 *      site's decision as if it were a cluster's name (table[i]: a byte), and the row's
 *      unions: each site points to the start of its run along x, and only the bonds from
 *      the row below that a neighbouring bond does not already imply are searched. In 3D
 *      (lib/cluster_sw_planes.c) a plane's rows are joined so, then the plane's wrap along
 *      y, and the bonds from the plane below are searched like those from the row below;
 *   F. the faces above the units (the periodic wrap included): the local roots of each
 *      face bond's ends, found per unit by its own thread in its own trees, then their
 *      unions by one thread, face after face; a local root joined to a smaller one takes
 *      its final root's decision into its table entry;
 *   B. per unit, in increasing site order: every site's decision -- its parent's, which
 *      pass B already made final, or its own table entry where it is a root or a local
 *      root joined across a face -- and its new state; in a sweep that counts sizes, every
 *      site's representative (a site of its cluster inside the unit whose table entry is
 *      the cluster's decision), which counts it. The threads share nothing here.
 *
 * Why this is right: pass A links only inside a unit and always to the smaller site, and
 * the face step changes the parent of local roots only. So in pass B a site whose parent
 * lies before the unit is a local root joined across a face (its table entry was given
 * the final decision), and any other site's parent p lies in the unit at or before it,
 * where pass B already wrote p's decision (and representative).
 */
#include <stdbool.h>
#include <string.h>

#include "cluster_bonds.h"
#include "cluster_job.h"
#include "cluster_sw_rows.h"

/* The row buffers of one unit, carved from its words of job->rows_work. */
struct rows_unit {
    uint32_t *bond_draws, *decide_draws;
    uint32_t *need;                 /* bit x: the bond from below at x is searched */
    uint8_t *hx[2], *vy[2];         /* x bonds of a row, y bonds to the row above: this, last
                                       (each with a zero byte before it, and room after) */
    uint8_t *face;                  /* the y bonds of the unit's last row (to the next unit) */
};

size_t latmc_rows_draw_words(int64_t draws)
{
    return (size_t)((draws + 3) / 4 + 1 + LATMC_CLUSTER_BATCH) * 4;
}

/* lib/cluster_bonds.h's names of a row's draws (cluster_sw_rows.h). */
void latmc_rows_row_draws(const struct latmc_cluster_job *job, uint64_t sweep, int64_t base,
                          int64_t L, int dirs, uint32_t *bond_draws, uint32_t *decide_draws,
                          const uint32_t **u, const uint32_t **ud)
{
    const uint64_t d0 = (uint64_t)dirs * (uint64_t)base, b0 = d0 >> 2,
                   b1 = (d0 + (uint64_t)dirs * (uint64_t)L + 3) >> 2;
    latmc_cluster_blocks(job->seed, sweep, LATMC_CLUSTER_PHASE_BONDS, b0, (int64_t)(b1 - b0),
                         bond_draws);
    const uint64_t e0 = (uint64_t)base >> 2, e1 = ((uint64_t)base + (uint64_t)L + 3) >> 2;
    latmc_cluster_blocks(job->seed, sweep, LATMC_CLUSTER_PHASE_DECIDE, e0, (int64_t)(e1 - e0),
                         decide_draws);
    *u = bond_draws + (d0 - 4 * b0);
    *ud = decide_draws + ((uint64_t)base - 4 * e0);
}

/* A row's byte buffer: 32 bytes of room on either side (whole vectors may be read). */
static size_t row_bytes(int64_t L)
{
    return (size_t)(L + 64 + 31) / 32 * 32;
}

size_t latmc_cluster_sw_rows_words(const struct latmc_cluster_lattice *g)
{
    if (g->ndim == 3)
        return latmc_cluster_sw_planes_words(g);
    const int64_t L = g->l[0];
    return latmc_rows_draw_words(2 * L) + latmc_rows_draw_words(L) + (size_t)(L + 31) / 32 +
           5 * row_bytes(L) / 4;
}

size_t latmc_cluster_sw_rows_pair_words(const struct latmc_cluster_lattice *g, int n_units)
{
    /* the pairs (3 words each, at most one a face site), then each face's two ends' local
     * roots (merge_faces) */
    return 5 * (size_t)g->plane * (size_t)n_units;
}

bool latmc_cluster_sw_rows_fits(const struct latmc_cluster_job *job)
{
    return (job->g.ndim == 2 || job->g.ndim == 3) && !job->halo_up && !job->wolff &&
           job->beta_h == 0.0 && job->bond_threshold > 0;
}

static struct rows_unit unit_of(const struct latmc_cluster_job *job, int u)
{
    const int64_t L = job->g.l[0];
    uint32_t *p = job->rows_work + (size_t)u * job->rows_words;
    struct rows_unit r;
    r.bond_draws = p;
    p += latmc_rows_draw_words(2 * L);
    r.decide_draws = p;
    p += latmc_rows_draw_words(L);
    r.need = p;
    p += (L + 31) / 32;
    uint8_t *b = (uint8_t *)p + 32;
    const size_t B = row_bytes(L);
    r.hx[0] = b, r.hx[1] = b + B, r.vy[0] = b + 2 * B, r.vy[1] = b + 3 * B;
    r.face = b + 4 * B;
    return r;
}

void latmc_rows_unite(uint32_t *parent, uint32_t a, uint32_t b)
{
    a = latmc_cluster_find_halving(parent, a);
    b = latmc_cluster_find_halving(parent, b);
    const uint32_t lo = a < b ? a : b, hi = a ^ b ^ lo;
    parent[hi] = lo;
}

/*
 * Sites [x0, n) of a row: bonds to x + 1 (hx, 0 or 1) and to the row above (vy) from the
 * spins si (with si[x + 1] in the row: n <= L - 1), su (the row above) and the draws u
 * (u[2 x + mu]), active where u <= last_draw and the spins are the same, xor flip (an
 * antiferromagnetic Ising coupling), xor e[2 x + mu] < 0 where the +-J couplings e of the
 * row are given (NULL: uniform). No branch on the data.
 */
static void bonds_scalar(const uint8_t *si, const uint8_t *su, const uint32_t *u,
                         const int8_t *e, uint32_t last_draw, uint8_t flip, int64_t x0,
                         int64_t n, uint8_t *hx, uint8_t *vy)
{
    if (e) {
        for (int64_t x = x0; x < n; x++) {
            hx[x] = (uint8_t)(((si[x] == si[x + 1]) ^ flip ^ (e[2 * x] < 0)) &
                              (u[2 * x] <= last_draw));
            vy[x] = (uint8_t)(((si[x] == su[x]) ^ flip ^ (e[2 * x + 1] < 0)) &
                              (u[2 * x + 1] <= last_draw));
        }
        return;
    }
    for (int64_t x = x0; x < n; x++) {
        hx[x] = (uint8_t)(((si[x] == si[x + 1]) ^ flip) & (u[2 * x] <= last_draw));
        vy[x] = (uint8_t)(((si[x] == su[x]) ^ flip) & (u[2 * x + 1] <= last_draw));
    }
}

/* Ising decisions of sites [x0, n) from their draws: 1 keep (u < 2^31), 0 flip. */
static void keep_scalar(const uint32_t *ud, int64_t x0, int64_t n, uint8_t *t)
{
    for (int64_t x = x0; x < n; x++)
        t[x] = (uint8_t)(1u - (ud[x] >> 31));
}


/*
 * Row y's bonds into hx (to x + 1, periodic) and vy (to the row above, periodic), and
 * every site's decision into table[base + x], from the row's draws.
 */
static void row_bonds_and_decisions(const struct latmc_cluster_job *job, uint64_t sweep,
                                    const struct rows_unit *r, const uint8_t *s, uint8_t *table,
                                    int64_t y, uint8_t *hx, uint8_t *vy)
{
    const int64_t L = job->g.l[0], base = y * L;
    const int64_t above = (y + 1 == job->g.l[1] ? 0 : y + 1) * L;
    const uint32_t *u, *ud;
    latmc_rows_row_draws(job, sweep, base, L, 2, r->bond_draws, r->decide_draws, &u, &ud);
    const uint32_t last_draw = (uint32_t)(job->bond_threshold - 1); /* active: u <= it */
    const uint8_t flip = (uint8_t)(!job->potts && job->sign_k < 0);
    const uint8_t *si = s + base, *su = s + above;
    const int8_t *e = job->eps ? job->eps + 2 * base : NULL; /* e[2 x + mu], as the draws */
    uint8_t *t = table + base;
#ifdef LATMC_ROWS_X86
    const bool avx2 = latmc_have_avx2();
#else
    const bool avx2 = false;
#endif
    /* the last site's x bond wraps: apart */
    int64_t done = 0;
#ifdef LATMC_ROWS_X86
    if (avx2)
        done = latmc_rows_bonds_avx2(si, su, u, e, last_draw, flip, L - 1, hx, vy);
#endif
    bonds_scalar(si, su, u, e, last_draw, flip, done, L - 1, hx, vy);
    const uint8_t fx = (uint8_t)(flip ^ (e && e[2 * L - 2] < 0));
    const uint8_t fy = (uint8_t)(flip ^ (e && e[2 * L - 1] < 0));
    hx[L - 1] = (uint8_t)(((si[L - 1] == si[0]) ^ fx) & (u[2 * L - 2] <= last_draw));
    vy[L - 1] = (uint8_t)(((si[L - 1] == su[L - 1]) ^ fy) & (u[2 * L - 1] <= last_draw));
    latmc_rows_decisions(job, ud, L, t);
}

void latmc_rows_decisions(const struct latmc_cluster_job *job, const uint32_t *ud, int64_t L,
                          uint8_t *t)
{
    /* lib/cluster_bonds.h without a field */
    if (job->potts) {
        const uint64_t q = (uint64_t)job->q;
        for (int64_t x = 0; x < L; x++)
            t[x] = (uint8_t)(((uint64_t)ud[x] * q) >> 32);
    } else {
        int64_t kept = 0;
#ifdef LATMC_ROWS_X86
        if (latmc_have_avx2())
            kept = latmc_rows_keep_avx2(ud, L, t);
#endif
        keep_scalar(ud, kept, L, t);
    }
}

/*
 * A row's runs, sites [x0, n): parent[base + x] = the start of x's run along x (the
 * largest x' <= x without an x bond from x' - 1), where run = the start at x0 - 1.
 * hx[-1] reads 0.
 */
static void runs_scalar(uint32_t *parent, int64_t base, const uint8_t *hx, int64_t x0,
                        int64_t n, uint32_t run)
{
    for (int64_t x = x0; x < n; x++) {
        const uint32_t i = (uint32_t)(base + x);
        const uint32_t keep = 0u - (uint32_t)hx[x - 1];
        run = (run & keep) | (i & ~keep);
        parent[i] = run;
    }
}

/* latmc_rows_need's bits of sites [x0, n) (x0 a multiple of 32). */
static void need_scalar(const uint8_t *hx, const uint8_t *hx_below, const uint8_t *v_below,
                        int64_t x0, int64_t n, uint32_t *need)
{
    for (int64_t x = x0; x < n; x++) {
        const unsigned implied = v_below[x - 1] & hx[x - 1] & hx_below[x - 1];
        const uint32_t bit = (uint32_t)(v_below[x] & (implied ^ 1u));
        if (x % 32 == 0)
            need[x / 32] = 0;
        need[x / 32] |= bit << (x % 32);
    }
}

void latmc_rows_runs(uint32_t *parent, int64_t base, const uint8_t *hx,
                     const uint8_t *hx_below, const uint8_t *v_below, int64_t L,
                     uint32_t *need)
{
    int64_t done = 0;
    uint32_t run = (uint32_t)base;
#ifdef LATMC_ROWS_X86
    if (latmc_have_avx2())
        done = latmc_rows_runs_avx2(parent, base, hx, hx_below, v_below, L, need, &run);
#endif
    runs_scalar(parent, base, hx, done, L, run);
    if (v_below)
        need_scalar(hx, hx_below, v_below, done, L, need);
}

void latmc_rows_need(const uint8_t *hx, const uint8_t *hx_below, const uint8_t *v_below,
                     int64_t L, uint32_t *need)
{
    int64_t done = 0;
#ifdef LATMC_ROWS_X86
    if (latmc_have_avx2())
        done = latmc_rows_need_avx2(hx, hx_below, v_below, L, need);
#endif
    need_scalar(hx, hx_below, v_below, done, L, need);
}


/*
 * The unions of row y (base = y L): every site points to its run's start along x, then
 * the bonds from the row below that runs_* chose join the runs to the clusters below,
 * in x order, so that a run's bonds come together and its root stays in a register. A
 * site's parent is its run's start until its run's own bonds are joined (the unions move
 * roots only, and the finds the rows below), so the start is read from there.
 */
static void row_unions(const struct rows_unit *r, uint32_t *parent, int64_t L, int64_t base,
                       const uint8_t *hx, const uint8_t *hx_below, const uint8_t *vy_below)
{
    latmc_rows_runs(parent, base, hx, hx_below, vy_below, L, r->need);
    if (vy_below) {
        uint32_t cur = UINT32_MAX, root = 0;
        for (int64_t w = 0; w < (L + 31) / 32; w++)
            for (uint32_t m = r->need[w]; m; m &= m - 1) {
                const uint32_t i = (uint32_t)(base + 32 * w + __builtin_ctz(m));
                const uint32_t rs = parent[i];
                root = rs == cur ? root : rs; /* a new run: its start is its root so far */
                cur = rs;
                const uint32_t b = latmc_cluster_find_halving(parent, i - (uint32_t)L);
                const uint32_t lo = b < root ? b : root;
                parent[b ^ root ^ lo] = lo;
                root = lo;
            }
    }
    if (hx[L - 1]) /* the x wrap */
        latmc_rows_unite(parent, (uint32_t)(base + L - 1), (uint32_t)base);
}

/* Pass A on unit u. */
static void label_unit(const struct latmc_cluster_job *job, struct latmc_cluster_work *w,
                       uint64_t sweep, int u)
{
    if (job->g.ndim == 3) {
        latmc_cluster_sw_planes_label(job, w, sweep, u);
        return;
    }
    const struct rows_unit r = unit_of(job, u);
    const int64_t L = job->g.l[0];
    for (int k = 0; k < 2; k++) /* the bytes before the rows read 0 */
        r.hx[k][-1] = r.vy[k][-1] = 0;
    int cur = 0;
    for (int64_t y = job->unit_p[u]; y < job->unit_p[u + 1]; y++, cur ^= 1) {
        row_bonds_and_decisions(job, sweep, &r, w->spins, w->bonds, y, r.hx[cur], r.vy[cur]);
        const int first = y == job->unit_p[u];
        row_unions(&r, w->parent, L, y * L, r.hx[cur], r.hx[cur ^ 1],
                   first ? NULL : r.vy[cur ^ 1]);
    }
    memcpy(r.face, r.vy[cur ^ 1], (size_t)L);
}

/* The face above unit u: its sites' vertical bonds from the unit's last plane. */
static const uint8_t *face_of(const struct latmc_cluster_job *job, int u)
{
    return job->g.ndim == 3 ? latmc_cluster_sw_planes_face(job, u) : unit_of(job, u).face;
}

/*
 * Step F: the faces above every unit. The ends' local roots are found first for all
 * faces, each unit by one thread finding those in its own planes -- its last plane's,
 * below its face, and its first plane's, above the face of the unit before it -- in its
 * own trees (no unit is joined to another yet, so a find and its path halving stay in
 * the unit); then the pairs in face order and site order, joined in that order; a local
 * root that now has a smaller root takes that root's decision. The roots found are the
 * same in any order, so the pairs, the unions and the clusters are those of one thread.
 * Returns the pairs (local root, local root, final root) in job->face_pairs.
 */
static int64_t merge_faces(const struct latmc_cluster_job *job, struct latmc_cluster_work *w,
                           int nt)
{
    const int64_t P = job->g.plane, U = job->n_units;
    uint32_t *parent = w->parent, *pair = job->face_pairs;
    uint32_t *lo = pair + 3 * (size_t)P * (size_t)U, *up = lo + (size_t)P * (size_t)U;
    CLUSTER_FOR_UNITS(nt, , u, job->n_units, {
        const uint8_t *below = face_of(job, u);
        const int64_t yl = job->unit_p[u + 1] - 1;
        for (int64_t x = 0; x < P; x++)
            if (below[x])
                lo[u * P + x] = latmc_cluster_find_halving(parent, (uint32_t)(yl * P + x));
        /* the face of the unit before (the last unit's, for the first: the wrap) ends in
         * this unit's first plane */
        const int v = (u + job->n_units - 1) % job->n_units;
        const uint8_t *above = face_of(job, v);
        const int64_t yu = job->unit_p[u];
        for (int64_t x = 0; x < P; x++)
            if (above[x])
                up[v * P + x] = latmc_cluster_find_halving(parent, (uint32_t)(yu * P + x));
    });
    int64_t n = 0;
    for (int64_t u = 0; u < U; u++) {
        const uint8_t *face = face_of(job, (int)u);
        for (int64_t x = 0; x < P; x++)
            if (face[x]) {
                pair[3 * n] = lo[u * P + x];
                pair[3 * n + 1] = up[u * P + x];
                n++;
            }
    }
    for (int64_t k = 0; k < n; k++)
        latmc_rows_unite(parent, pair[3 * k], pair[3 * k + 1]);
    for (int64_t k = 0; k < n; k++) {
        const uint32_t root = latmc_cluster_find_halving(parent, pair[3 * k]);
        pair[3 * k + 2] = root;
        w->bonds[pair[3 * k]] = w->bonds[root];
        w->bonds[pair[3 * k + 1]] = w->bonds[root];
    }
    return n;
}



/*
 * Pass B on unit u: returns the sites changed. Without sizes, a site's decision is its
 * parent's (which pass B already gave its cluster's decision, in the table byte), or its
 * own table entry where it is a final root or a face-joined local root (parent before
 * the unit): parent is only read. With sizes (size not NULL), every site's parent
 * becomes its representative, which counts the cluster's sites of the unit.
 */
static uint64_t flip_unit(const struct latmc_cluster_job *job, struct latmc_cluster_work *w,
                          int u, uint32_t *size)
{
    const int64_t P = job->g.plane;
    const uint32_t start = (uint32_t)(job->unit_p[u] * P);
    const uint32_t end = (uint32_t)(job->unit_p[u + 1] * P);
    uint32_t *parent = w->parent;
    uint8_t *table = w->bonds, *s = w->spins;
    const int potts = job->potts;
    uint64_t diff = 0;
    /* the new state from decision d: Potts the colour; Ising keep (1) or flip (0) an
     * int8 +-1, without a branch */
#define APPLY(i, d)                                                                        \
    do {                                                                                   \
        const uint8_t old_ = s[i];                                                         \
        const uint8_t v_ = potts ? (d) : (uint8_t)((old_ ^ (uint8_t)((d) - 1u)) +          \
                                                   (uint8_t)(1u - (d)));                   \
        diff += v_ != old_;                                                                \
        s[i] = v_;                                                                         \
    } while (0)
    if (!size) {
#define FROM_PARENT(i)                                                                     \
        const uint32_t p = parent[i];                                                      \
        const uint8_t d = table[p >= start ? p : (i)]; /* p == i: its own */              \
        table[i] = d
        uint32_t i0 = start;
#ifdef LATMC_ROWS_X86
        if (latmc_have_avx2())
            diff += latmc_rows_flip_avx2(parent, table, s, potts, start, end, &i0);
#endif
        if (potts) {
            for (uint32_t i = i0; i < end; i++) {
                FROM_PARENT(i);
                diff += d != s[i];
                s[i] = d;
            }
        } else {
            for (uint32_t i = i0; i < end; i++) {
                FROM_PARENT(i);
                s[i] = (uint8_t)((s[i] ^ (uint8_t)(d - 1u)) + (uint8_t)(1u - d));
                diff += 1u - d;
            }
        }
#undef FROM_PARENT
        return diff;
    }
    uint32_t i0 = start;
#ifdef LATMC_ROWS_X86
    if (latmc_have_avx2())
        diff += latmc_rows_count_avx2(parent, table, s, potts, size, start, end, &i0);
#endif
    for (uint32_t i = i0; i < end; i++) {
        const uint32_t p = parent[i];
        const uint32_t inside = p >= start ? p : start; /* read in the unit only */
        const uint32_t q = parent[inside];
        const uint32_t rep = p >= start ? q : i;
        parent[i] = rep;
        const uint8_t d = table[rep];
        APPLY(i, d);
        size[i] = 0; /* before its representative's count (rep <= i): 0 but there */
        size[rep]++;
    }
#undef APPLY
    return diff;
}

/* With sizes: the face-joined representatives give their counts to their final roots,
 * then the clusters' statistics (pass B left a count of 0 at every site but the
 * representatives; a final root is one that kept a count). */
static void count_clusters(const struct latmc_cluster_job *job, struct latmc_cluster_work *w,
                           int64_t n_pairs, int nt)
{
    uint32_t *size = w->name;
    const uint32_t *parent = w->parent, *pair = job->face_pairs;
    for (int64_t k = 0; k < n_pairs; k++)
        for (int e = 0; e < 2; e++) {
            const uint32_t c = pair[3 * k + e], root = pair[3 * k + 2];
            if (c != root && parent[c] == c) {
                size[root] += size[c];
                size[c] = 0;
            }
        }
    const int64_t P = job->g.plane;
    int64_t clusters = 0, largest = 0;
    uint64_t size2 = 0;
    CLUSTER_FOR_UNITS(nt, reduction(+:clusters, size2) reduction(max:largest), u, job->n_units, {
        /* the counts are 0 but at the clusters' final roots: no branch per site */
        int64_t n = 0, big = 0;
        uint64_t sq = 0;
        for (int64_t i = job->unit_p[u] * P; i < job->unit_p[u + 1] * P; i++) {
            const uint32_t sz = size[i];
            n += sz != 0;
            big = (int64_t)sz > big ? (int64_t)sz : big;
            sq += (uint64_t)sz * sz;
        }
        clusters += n;
        largest = big > largest ? big : largest;
        size2 += sq;
    });
    w->last.clusters = clusters;
    w->last.largest = largest;
    w->last.size2_sum = (double)size2;
    w->have_stats = true;
}

void latmc_cluster_sw_rows_sweep(const struct latmc_cluster_job *job,
                                 struct latmc_cluster_work *w, uint64_t sweep,
                                 uint64_t *changed)
{
    const int nt = latmc_cluster_threaded(job) ? job->n_threads : 1;
    const int U = job->n_units;
    CLUSTER_FOR_UNITS(nt, , u, U, { label_unit(job, w, sweep, u); });
    const int64_t n_pairs = merge_faces(job, w, nt);
    uint32_t *size = job->count_sizes ? w->name : NULL;
    uint64_t diff = 0;
    CLUSTER_FOR_UNITS(nt, reduction(+:diff), u, U, { diff += flip_unit(job, w, u, size); });
    *changed += diff;
    if (size)
        count_clusters(job, w, n_pairs, nt);
}
