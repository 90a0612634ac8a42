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

/* The root of x, halving the path on the way (every write keeps parent[y] <= y). */
static inline uint32_t find_halving(uint32_t *parent, uint32_t x)
{
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
}

/* Join the cluster of root ra with the cluster of b; returns the joined root. */
static inline uint32_t join_root(uint32_t *parent, uint32_t ra, uint32_t b)
{
    const uint32_t rb = find_halving(parent, b);
    if (rb == ra)
        return ra;
    if (ra < rb) {
        parent[rb] = ra;
        return ra;
    }
    parent[ra] = rb;
    return rb;
}

/* Join the clusters of a and b; returns 1 if they were apart. */
static int unite(uint32_t *parent, uint32_t a, uint32_t b)
{
    a = find_halving(parent, a);
    b = find_halving(parent, b);
    if (a == b)
        return 0;
    if (a < b)
        parent[b] = a;
    else
        parent[a] = b;
    return 1;
}

void latmc_cluster_label_box(const struct latmc_cluster_lattice *g, const uint8_t *bonds,
                             uint32_t *parent, int64_t p0, int64_t p1)
{
    const int64_t i0 = p0 * g->plane, i1 = p1 * g->plane;
    const int last = g->ndim - 1;
    const int64_t top = (p1 - 1) * g->plane; /* the last plane's bonds along `last` leave */
    const int64_t l0 = g->l[0], l1 = g->l[1];
    for (int64_t i = i0; i < i1; i++)
        parent[i] = (uint32_t)i;
    for (int64_t row = i0 / l0; row < i1 / l0; row++) {
        const int64_t base = row * l0;
        /* +y: within the box in 3D (a plane holds whole y rows), or up to `top` in 2D */
        const int64_t y = row % l1;
        const int64_t up_y = y + 1 == l1 ? -(l1 - 1) * l0 : l0;
        const int y_inside = last != 1 || base < top;
        const int z_inside = last == 2 && base < top;
        /* the root of site i when the bond from i - 1 joined them, else UINT32_MAX: the
         * next site needs no search then (nothing has moved that root since) */
        uint32_t carried = UINT32_MAX;
        for (int64_t x = 0; x < l0; x++) {
            const int64_t i = base + x;
            const uint8_t b = bonds[i];
            if (!b) {
                carried = UINT32_MAX;
                continue;
            }
            /* kept current as the bonds join */
            uint32_t r = carried != UINT32_MAX ? carried : find_halving(parent, (uint32_t)i);
            carried = UINT32_MAX;
            if (b & 1u) {
                r = join_root(parent, r, (uint32_t)(x + 1 == l0 ? base : i + 1));
                carried = x + 1 < l0 ? r : UINT32_MAX;
            }
            if ((b & 2u) && y_inside)
                r = join_root(parent, r, (uint32_t)(i + up_y));
            if ((b & 4u) && z_inside)
                r = join_root(parent, r, (uint32_t)(i + l0 * l1));
            if (carried != UINT32_MAX)
                carried = r;
        }
    }
    /* parent[i] < i unless i is a root, and earlier sites are flat already */
    for (int64_t i = i0; i < i1; i++)
        parent[i] = parent[parent[i]];
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
