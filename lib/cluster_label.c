/*
 * Cluster labelling by union-find over global site indices (lib/cluster_label.h). Union
 * by the smaller root and path halving: both keep parent[x] <= x, which is what makes the
 * root the cluster's smallest site and lets a pass in increasing order flatten a box.
 */
#include "cluster_label.h"

struct latmc_cluster_lattice latmc_cluster_lattice_of(int ndim, const int64_t *extent)
{
    struct latmc_cluster_lattice g = { ndim, { 1, 1, 1 }, 1, 1, 1 };
    for (int mu = 0; mu < ndim; mu++) {
        g.l[mu] = extent[mu];
        g.nsites *= extent[mu];
    }
    g.planes = g.l[ndim - 1];
    g.plane = g.nsites / g.planes;
    return g;
}

/* Join the clusters of a and b; returns 1 if they were apart. */
static int unite(uint32_t *parent, uint32_t a, uint32_t b)
{
    a = latmc_cluster_find_halving(parent, a);
    b = latmc_cluster_find_halving(parent, b);
    if (a == b)
        return 0;
    if (a < b)
        parent[b] = a;
    else
        parent[a] = b;
    return 1;
}

/* Join the cluster of root r (the current run's) with the cluster of site b; returns the
 * joined root. The smaller root wins. */
static inline uint32_t pull(uint32_t *parent, uint32_t r, uint32_t b)
{
    const uint32_t rb = latmc_cluster_find_halving(parent, b);
    if (rb < r) {
        parent[r] = rb;
        return rb;
    }
    if (rb > r)
        parent[rb] = r;
    return r;
}

/*
 * The unions of step 1, row by row in increasing site order; afterwards parent[i] < i
 * unless i is a root (not yet flat). A row's runs along x (sites joined by their +x bonds)
 * cost no search: each site points to its run's current root r, chosen without a branch.
 * Only the bonds that reach the row from earlier rows -- +y from the row below, +z from
 * the plane below, both inside the box -- search, from the row's side ("pull"); the
 * periodic wraps along x (and along y in 3D, where a plane holds whole y rows) are joined
 * after their row or plane. Bonds leaving the box's last plane are the faces' (step 2).
 */
static void label_unions(const struct latmc_cluster_lattice *g, const uint8_t *bonds,
                         uint32_t *parent, int64_t p0, int64_t p1)
{
    const int64_t i0 = p0 * g->plane, i1 = p1 * g->plane;
    const int64_t l0 = g->l[0], l1 = g->l[1], l01 = l0 * l1;
    const int three = g->ndim == 3;
    for (int64_t row = i0 / l0; row < i1 / l0; row++) {
        const int64_t base = row * l0;
        const int64_t y = row % l1;
        /* the bond from the row below is inside the box: 2D all rows but the box's
         * first (rows are planes), 3D all rows but y = 0 (y wraps inside the plane) */
        const int pull_y = three ? y > 0 : base > i0;
        const int pull_z = three && base - l01 >= i0;
        const uint8_t *below_y = bonds + base - l0, *below_z = bonds + base - l01;
        uint32_t r = (uint32_t)base;
        for (int64_t x = 0; x < l0; x++) {
            const uint32_t i = (uint32_t)(base + x);
            /* a new run is its own root so far; a mask, since a conditional here is
             * compiled as a branch, which the random bonds mispredict half the time */
            const uint32_t keep = 0u - (uint32_t)(x > 0 && (bonds[i - 1] & 1u));
            r = (r & keep) | (i & ~keep);
            parent[i] = r;
            if (pull_y && (below_y[x] & 2u))
                r = pull(parent, r, i - (uint32_t)l0);
            if (pull_z && (below_z[x] & 4u))
                r = pull(parent, r, i - (uint32_t)l01);
        }
        if (bonds[base + l0 - 1] & 1u) /* the x wrap */
            unite(parent, (uint32_t)(base + l0 - 1), (uint32_t)base);
        if (three && y + 1 == l1) /* the y wrap inside the plane */
            for (int64_t x = 0; x < l0; x++)
                if (bonds[base + x] & 2u)
                    unite(parent, (uint32_t)(base + x), (uint32_t)(base + x - (l1 - 1) * l0));
    }
}

void latmc_cluster_label_box(const struct latmc_cluster_lattice *g, const uint8_t *bonds,
                             uint32_t *parent, int64_t p0, int64_t p1)
{
    label_unions(g, bonds, parent, p0, p1);
    /* parent[i] < i unless i is a root, and earlier sites are flat already */
    for (int64_t i = p0 * g->plane; i < p1 * g->plane; i++)
        parent[i] = parent[parent[i]];
}

void latmc_cluster_label_box_sizes(const struct latmc_cluster_lattice *g, const uint8_t *bonds,
                                   uint32_t *parent, const uint8_t *spins, uint32_t *size,
                                   int64_t *msum, int64_t p0, int64_t p1)
{
    label_unions(g, bonds, parent, p0, p1);
    /* flat as above; a root comes before its sites, so its counts start there */
    const int64_t i0 = p0 * g->plane, i1 = p1 * g->plane;
    if (msum) {
        for (int64_t i = i0; i < i1; i++) {
            const uint32_t r = parent[parent[i]];
            parent[i] = r;
            const int is_root = r == (uint32_t)i; /* without a branch: unpredictable */
            size[i] &= (uint32_t)is_root - 1u;
            msum[i] &= (int64_t)is_root - 1;
            size[r]++;
            msum[r] += (int8_t)spins[i];
        }
        return;
    }
    for (int64_t i = i0; i < i1; i++) {
        const uint32_t r = parent[parent[i]];
        parent[i] = r;
        size[i] &= (uint32_t)(r == (uint32_t)i) - 1u; /* 0 at a root, without a branch */
        size[r]++;
    }
}

int64_t latmc_cluster_merge_face(const struct latmc_cluster_lattice *g, const uint8_t *bonds,
                                 uint32_t *parent, int64_t p)
{
    const int last = g->ndim - 1;
    const uint8_t bit = (uint8_t)(1u << last);
    const int64_t i0 = p * g->plane, up = (p + 1 == g->planes ? -p : 1) * g->plane;
    int64_t joined = 0;
    for (int64_t i = i0; i < i0 + g->plane; i++)
        if (bonds[i] & bit)
            joined += unite(parent, (uint32_t)i, (uint32_t)(i + up));
    return joined;
}

void latmc_cluster_resolve(const uint32_t *parent, uint32_t *name, int64_t i0, int64_t i1)
{
    for (int64_t i = i0; i < i1; i++) {
        uint32_t x = parent[i];
        while (parent[x] != x)
            x = parent[x];
        name[i] = x;
    }
}
