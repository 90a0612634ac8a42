/* The boundary graph of clusters joined across the parts of a lattice (cluster_boundary.h). */
#include <stdlib.h>
#include <string.h>

#include "cluster_boundary.h"
#include "cluster_label.h"

bool latmc_boundary_alloc(struct latmc_boundary *b, int n, int64_t P, size_t stride)
{
    const size_t N = (size_t)n, M = N * 2 * (size_t)P;
    b->n = n;
    b->P = P;
    b->stride = stride;
    b->first = malloc(N * sizeof *b->first);
    b->last = malloc(N * sizeof *b->last);
    b->face = malloc(N * sizeof *b->face);
    b->roots = malloc(N * sizeof *b->roots);
    b->base = malloc((N + 1) * sizeof *b->base);
    b->uf = malloc(M * sizeof *b->uf);
    return b->first && b->last && b->face && b->roots && b->base && b->uf;
}

void latmc_boundary_free(struct latmc_boundary *b)
{
    free(b->first);
    free(b->last);
    free(b->face);
    free(b->roots);
    free(b->base);
    free(b->uf);
}

size_t latmc_boundary_msg_bytes(int64_t P, size_t stride, uint64_t n_roots)
{
    return (size_t)P * 8 + (size_t)n_roots * stride + (((size_t)P + 7) & ~(size_t)7);
}

int latmc_boundary_by_label(const void *a, const void *b)
{
    uint32_t x, y;
    memcpy(&x, a, sizeof x);
    memcpy(&y, b, sizeof y);
    return (x > y) - (x < y);
}

static uint32_t label_at(const struct latmc_boundary *b, int p, int64_t i)
{
    uint32_t l;
    memcpy(&l, b->roots[p] + (size_t)i * b->stride, sizeof l);
    return l;
}

int64_t latmc_boundary_node(const struct latmc_boundary *b, int p, uint32_t label)
{
    int64_t lo = 0, hi = b->base[p + 1] - b->base[p] - 1;
    while (lo < hi) {
        const int64_t mid = lo + (hi - lo) / 2;
        if (label_at(b, p, mid) < label)
            lo = mid + 1;
        else
            hi = mid;
    }
    return b->base[p] + lo;
}

uint32_t latmc_boundary_label(const struct latmc_boundary *b, int64_t k)
{
    int p = 0;
    while (b->base[p + 1] <= k)
        p++;
    return label_at(b, p, k - b->base[p]);
}

void latmc_boundary_join(struct latmc_boundary *b, const unsigned char *all,
                         const size_t *bytes, const uint64_t *n_roots)
{
    const int64_t P = b->P;
    const unsigned char *at = all;
    b->base[0] = 0;
    for (int p = 0; p < b->n; p++) {
        b->first[p] = (const uint32_t *)(const void *)at;
        b->last[p] = b->first[p] + P;
        b->roots[p] = (const unsigned char *)(b->last[p] + P);
        b->face[p] = b->roots[p] + (size_t)n_roots[p] * b->stride;
        b->base[p + 1] = b->base[p] + (int64_t)n_roots[p];
        at += bytes[p];
    }
    const int64_t M = b->base[b->n];
    for (int64_t k = 0; k < M; k++)
        b->uf[k] = (uint32_t)k;
    for (int p = 0; p < b->n; p++) {
        const int q = (p + 1) % b->n;
        for (int64_t x = 0; x < P; x++) {
            if (!b->face[p][x])
                continue;
            const uint32_t u = latmc_cluster_find_halving(
                b->uf, (uint32_t)latmc_boundary_node(b, p, b->last[p][x]));
            const uint32_t v = latmc_cluster_find_halving(
                b->uf, (uint32_t)latmc_boundary_node(b, q, b->first[q][x]));
            if (u < v)
                b->uf[v] = u;
            else if (v < u)
                b->uf[u] = v;
        }
    }
}
