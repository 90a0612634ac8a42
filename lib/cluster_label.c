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
static uint32_t find_halving(uint32_t *parent, uint32_t x)
{
    while (parent[x] != x) {
        parent[x] = parent[parent[x]];
        x = parent[x];
    }
    return x;
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
    for (int64_t i = i0; i < i1; i++) {
        const uint8_t b = bonds[i];
        if (!b)
            continue;
        const int64_t x = i % l0;
        if (b & 1u)
            unite(parent, (uint32_t)i, (uint32_t)(x + 1 == l0 ? i - (l0 - 1) : i + 1));
        if (b & 2u) {
            if (last == 1) {
                if (i < top)
                    unite(parent, (uint32_t)i, (uint32_t)(i + l0));
            } else {
                const int64_t y = (i / l0) % l1;
                unite(parent, (uint32_t)i,
                      (uint32_t)(y + 1 == l1 ? i - (l1 - 1) * l0 : i + l0));
            }
        }
        if ((b & 4u) && i < top) /* 3D: the last axis */
            unite(parent, (uint32_t)i, (uint32_t)(i + l0 * l1));
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
