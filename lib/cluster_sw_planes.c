/*
 * Pass A of the Swendsen-Wang row passes (lib/cluster_sw_rows.c, which runs the faces
 * and pass B) on a 3D lattice: a unit's planes one after the other, each plane's rows as
 * the 2D pass joins a lattice's rows, and the bonds from the plane below searched in the
 * same sweep over a row as those from the row below.
 *
 * Row y of plane z (sites base = z P + y Lx ..): its draws (bonds (i, 0..2) and decisions),
 * its bonds -- x (to x + 1), y (to the row above in the plane, the plane's last row to
 * its first) and z (to the plane above) -- kept in plane buffers, never in memory, every
 * site's decision as if it named its cluster (the table byte), then its unions: every
 * site points to its run's start along x, and the bonds from the row below (y) and from
 * the plane below (z) that the bond beside them does not imply (latmc_rows_need) join
 * the runs to the clusters below, in x order, a run's root kept in a register. After the
 * plane's last row, the y bonds of that row (the wrap along y) are joined. The z bonds of
 * the unit's last plane are its face, which the face step joins (the wrap along z
 * included).
 *
 * Every union links a larger root to a smaller one inside the unit, as in 2D, so pass B's
 * reasoning holds unchanged: a site's parent is at or before it in the unit, or before
 * the unit only where the face step joined a local root.
 */
#include <string.h>

#include "cluster_bonds.h"
#include "cluster_job.h"
#include "cluster_sw_rows.h"

/* The buffers of one unit, carved from its words of job->rows_work. A plane buffer holds
 * Ly rows of `stride` bytes, row y at its 32 + y stride (32 bytes of room before each
 * row; byte -1 of a row reads 0). */
struct planes_unit {
    uint32_t *bond_draws, *decide_draws;
    uint32_t *need_y, *need_z;      /* bit x: the bond from the row / plane below searched */
    uint8_t *hx[2], *vz[2];         /* x and z bonds of a plane: this one, the last one */
    uint8_t *vy;                    /* the y bonds of the plane being joined */
    uint8_t *face;                  /* the z bonds of the unit's last plane, P bytes */
    int64_t stride;
};

static int64_t stride_of(int64_t L)
{
    return (L + 32 + 31) / 32 * 32;
}

/* The bytes of a plane buffer (with 32 bytes of room after its last row). */
static size_t plane_bytes(const struct latmc_cluster_lattice *g)
{
    return (size_t)(g->l[1] * stride_of(g->l[0]) + 64);
}

size_t latmc_cluster_sw_planes_words(const struct latmc_cluster_lattice *g)
{
    const int64_t L = g->l[0];
    const size_t bytes = 5 * plane_bytes(g) + (size_t)(g->plane + 31) / 32 * 32;
    return latmc_rows_draw_words(3 * L) + latmc_rows_draw_words(L) +
           2 * (size_t)((L + 31) / 32) + bytes / 4;
}

static struct planes_unit unit_of(const struct latmc_cluster_job *job, int u)
{
    const int64_t L = job->g.l[0];
    uint32_t *p = job->rows_work + (size_t)u * job->rows_words;
    struct planes_unit r;
    r.stride = stride_of(L);
    r.bond_draws = p;
    p += latmc_rows_draw_words(3 * L);
    r.decide_draws = p;
    p += latmc_rows_draw_words(L);
    r.need_y = p;
    p += (L + 31) / 32;
    r.need_z = p;
    p += (L + 31) / 32;
    uint8_t *b = (uint8_t *)p + 32;
    const size_t B = plane_bytes(&job->g);
    r.hx[0] = b, r.hx[1] = b + B, r.vz[0] = b + 2 * B, r.vz[1] = b + 3 * B, r.vy = b + 4 * B;
    r.face = (uint8_t *)p + 5 * B;
    return r;
}

const uint8_t *latmc_cluster_sw_planes_face(const struct latmc_cluster_job *job, int u)
{
    return unit_of(job, u).face;
}

/* Sites [x0, n) of a 3D row, as lib/cluster_sw_rows.c's bonds_scalar: x bonds to si[x + 1],
 * y bonds to su, z bonds to sv, draws u[3 x + mu], couplings e[3 x + mu] or NULL. */
static void bonds3_scalar(const uint8_t *si, const uint8_t *su, const uint8_t *sv,
                          const uint32_t *u, const int8_t *e, uint32_t last_draw, uint8_t flip,
                          int64_t x0, int64_t n, uint8_t *hx, uint8_t *vy, uint8_t *vz)
{
    for (int64_t x = x0; x < n; x++) {
        const uint8_t f0 = (uint8_t)(flip ^ (e && e[3 * x] < 0));
        const uint8_t f1 = (uint8_t)(flip ^ (e && e[3 * x + 1] < 0));
        const uint8_t f2 = (uint8_t)(flip ^ (e && e[3 * x + 2] < 0));
        hx[x] = (uint8_t)(((si[x] == si[x + 1]) ^ f0) & (u[3 * x] <= last_draw));
        vy[x] = (uint8_t)(((si[x] == su[x]) ^ f1) & (u[3 * x + 1] <= last_draw));
        vz[x] = (uint8_t)(((si[x] == sv[x]) ^ f2) & (u[3 * x + 2] <= last_draw));
    }
}

/* Row y of plane z: its bonds into hx, vy, vz and every site's decision into the table. */
static void row_bonds_and_decisions(const struct latmc_cluster_job *job, uint64_t sweep,
                                    const struct planes_unit *r, const uint8_t *s,
                                    uint8_t *table, int64_t z, int64_t y, uint8_t *hx,
                                    uint8_t *vy, uint8_t *vz)
{
    const struct latmc_cluster_lattice *g = &job->g;
    const int64_t L = g->l[0], P = g->plane, base = z * P + y * L;
    const int64_t up_y = z * P + (y + 1 == g->l[1] ? 0 : y + 1) * L;
    const int64_t up_z = (z + 1 == g->planes ? 0 : z + 1) * P + y * L;
    const uint32_t *u, *ud;
    latmc_rows_row_draws(job, sweep, base, L, 3, r->bond_draws, r->decide_draws, &u, &ud);
    const uint32_t last_draw = (uint32_t)(job->bond_threshold - 1); /* active: u <= it */
    const uint8_t flip = (uint8_t)(!job->potts && job->sign_k < 0);
    const uint8_t *si = s + base, *su = s + up_y, *sv = s + up_z;
    const int8_t *e = job->eps ? job->eps + 3 * base : NULL; /* e[3 x + mu], as the draws */
    int64_t done = 0;
#ifdef LATMC_ROWS_X86
    if (latmc_have_avx2())
        done = latmc_rows_bonds3_avx2(si, su, sv, u, e, last_draw, flip, L - 1, hx, vy, vz);
#endif
    bonds3_scalar(si, su, sv, u, e, last_draw, flip, done, L - 1, hx, vy, vz);
    /* the last site apart: its x bond wraps */
    const int64_t x = L - 1;
    const uint8_t f0 = (uint8_t)(flip ^ (e && e[3 * x] < 0));
    const uint8_t f1 = (uint8_t)(flip ^ (e && e[3 * x + 1] < 0));
    const uint8_t f2 = (uint8_t)(flip ^ (e && e[3 * x + 2] < 0));
    hx[x] = (uint8_t)(((si[x] == si[0]) ^ f0) & (u[3 * x] <= last_draw));
    vy[x] = (uint8_t)(((si[x] == su[x]) ^ f1) & (u[3 * x + 1] <= last_draw));
    vz[x] = (uint8_t)(((si[x] == sv[x]) ^ f2) & (u[3 * x + 2] <= last_draw));
    latmc_rows_decisions(job, ud, L, table + base);
}

/* The root of x, as latmc_cluster_find_halving, with the first three steps loaded before
 * the one test: 97 % of the searched sites are at most two steps from their root at the
 * 3D beta_c (18 % two), so the loop's exit, which a CPU mispredicts, is rarely reached.
 * (In 2D, where most are one step away, the extra loads cost more: 2048^2 5 % slower.) */
static inline uint32_t find_near(uint32_t *parent, uint32_t x)
{
    const uint32_t p = parent[x], pp = parent[p], ppp = parent[pp];
    parent[x] = pp;
    if (ppp == pp)
        return pp;
    return latmc_cluster_find_halving(parent, ppp);
}

/*
 * The unions of row y of plane z (base = z P + y L): the runs along x, then the searched
 * bonds from the row below (need_y, where has_y) and from the plane below (need_z, where
 * has_z) in x order; a run's start is its root until its own bonds are joined (the
 * unions move roots only, and the finds the rows and planes below), so a run's root is
 * kept in a register from its first searched bond on.
 */
static void row_unions(const struct planes_unit *r, uint32_t *parent, int64_t L, int64_t P,
                       int64_t base, const uint8_t *hx, const uint8_t *hx_y,
                       const uint8_t *vy_below, const uint8_t *hx_z, const uint8_t *vz_below)
{
    latmc_rows_runs(parent, base, hx, hx_y, vy_below, L, r->need_y);
    if (vz_below)
        latmc_rows_need(hx, hx_z, vz_below, L, r->need_z);
    if (vy_below || vz_below) {
        const uint32_t my = vy_below ? ~0u : 0u, mz = vz_below ? ~0u : 0u;
        uint32_t cur = UINT32_MAX, root = 0;
        for (int64_t w = 0; w < (L + 31) / 32; w++) {
            const uint32_t ny = r->need_y[w] & my, nz = r->need_z[w] & mz;
            for (uint32_t m = ny | nz; m; m &= m - 1) {
                const int k = __builtin_ctz(m);
                const uint32_t i = (uint32_t)(base + 32 * w + k);
                const uint32_t rs = parent[i];
                root = rs == cur ? root : rs; /* a new run: its start is its root so far */
                cur = rs;
                if (ny >> k & 1u) {
                    const uint32_t b = find_near(parent, i - (uint32_t)L);
                    const uint32_t lo = b < root ? b : root;
                    parent[b ^ root ^ lo] = lo;
                    root = lo;
                }
                if (nz >> k & 1u) {
                    const uint32_t b = find_near(parent, i - (uint32_t)P);
                    const uint32_t lo = b < root ? b : root;
                    parent[b ^ root ^ lo] = lo;
                    root = lo;
                }
            }
        }
    }
    if (hx[L - 1]) /* the x wrap */
        latmc_rows_unite(parent, (uint32_t)(base + L - 1), (uint32_t)base);
}

void latmc_cluster_sw_planes_label(const struct latmc_cluster_job *job,
                                   struct latmc_cluster_work *w, uint64_t sweep, int u)
{
    const struct planes_unit r = unit_of(job, u);
    const int64_t L = job->g.l[0], Ly = job->g.l[1], P = job->g.plane, S = r.stride;
    uint32_t *parent = w->parent;
    for (int64_t y = 0; y < Ly; y++) /* the byte before each row reads 0 */
        for (int k = 0; k < 2; k++)
            r.hx[k][y * S - 1] = r.vz[k][y * S - 1] = r.vy[y * S - 1] = 0;
    int cur = 0;
    const int64_t z0 = job->unit_p[u], z1 = job->unit_p[u + 1];
    for (int64_t z = z0; z < z1; z++, cur ^= 1) {
        uint8_t *hx = r.hx[cur], *vz = r.vz[cur];
        const uint8_t *hx_last = r.hx[cur ^ 1], *vz_last = r.vz[cur ^ 1];
        for (int64_t y = 0; y < Ly; y++) {
            const int64_t base = z * P + y * L;
            row_bonds_and_decisions(job, sweep, &r, w->spins, w->bonds, z, y, hx + y * S,
                                    r.vy + y * S, vz + y * S);
            row_unions(&r, parent, L, P, base, hx + y * S, y ? hx + (y - 1) * S : NULL,
                       y ? r.vy + (y - 1) * S : NULL, hx_last + y * S,
                       z > z0 ? vz_last + y * S : NULL);
        }
        /* the wrap along y: the plane's last row to its first */
        const uint8_t *vy_top = r.vy + (Ly - 1) * S;
        for (int64_t x = 0; x < L; x++)
            if (vy_top[x])
                latmc_rows_unite(parent, (uint32_t)(z * P + (Ly - 1) * L + x),
                                 (uint32_t)(z * P + x));
    }
    const uint8_t *vz_top = r.vz[cur ^ 1];
    for (int64_t y = 0; y < Ly; y++)
        memcpy(r.face + y * L, vz_top + y * S, (size_t)L);
}
