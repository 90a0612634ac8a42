/*
 * The joins of Swendsen-Wang's clusters across the faces of boxes (cuda_sw_faces.h). One
 * thread per face slot (2 ps a box) in grid-stride loops.
 */
#include <stdint.h>

#include "cuda_launch.cuh"
#include "cuda_sw_device.cuh"
#include "cuda_sw_faces.h"

/* The local site of face slot f: plane site f of the first own plane (f < ps), or
 * f - ps of the last. */
__device__ __forceinline__ uint32_t face_site(const struct cuda_sw_box &b, uint32_t f,
                                              uint32_t ps)
{
    return f < ps ? sw_own_site(b, f) : sw_own_site(b, (b.np - 1) * ps + (f - ps));
}

/* out, pass 1: each face piece's scratch word cleared (to the largest slot). */
__global__ void faces_clear_kernel(struct cuda_sw_box b, uint32_t *scratch)
{
    const uint32_t ps = sw_plane_sites(b);
    for (uint64_t f = (uint64_t)cuda_first_item(); f < 2 * (uint64_t)ps;
         f += (uint64_t)cuda_item_stride())
        scratch[sw_root(b, face_site(b, (uint32_t)f, ps))] = UINT32_MAX;
}

/* out, pass 2: each face piece's first slot. */
__global__ void faces_first_kernel(struct cuda_sw_box b, uint32_t *scratch)
{
    const uint32_t ps = sw_plane_sites(b);
    for (uint64_t f = (uint64_t)cuda_first_item(); f < 2 * (uint64_t)ps;
         f += (uint64_t)cuda_item_stride())
        atomicMin(scratch + sw_root(b, face_site(b, (uint32_t)f, ps)), (uint32_t)f);
}

/* out, pass 3: the face buffer (cuda_sw_faces.h). */
__global__ void faces_out_kernel(struct cuda_sw_box b, const uint32_t *scratch, uint32_t *face)
{
    const uint32_t ps = sw_plane_sites(b);
    const unsigned last = (unsigned)b.g.ndim - 1;
    for (uint64_t k = (uint64_t)cuda_first_item(); k < 2 * (uint64_t)ps;
         k += (uint64_t)cuda_item_stride()) {
        const uint32_t f = (uint32_t)k, s = face_site(b, f, ps), r = sw_root(b, s);
        face[f] = scratch[r];
        face[2 * ps + f] = sw_global(b, r);
        if (f >= ps) /* the bond byte's direction bits (the root mark is bit 7) */
            face[4 * ps + (f - ps)] = b.bonds[s] >> last & 1u;
    }
}

/* join, pass 1: every node its own tree; no name yet. */
__global__ void join_init_kernel(uint32_t *parent, uint32_t *least, uint64_t nodes)
{
    for (uint64_t g = (uint64_t)cuda_first_item(); g < nodes; g += (uint64_t)cuda_item_stride()) {
        parent[g] = (uint32_t)g;
        least[g] = UINT32_MAX;
    }
}

/* join, pass 2: each slot to its box's first slot of its piece; each active face bond
 * from box i's last plane to box i + 1's first. */
__global__ void join_union_kernel(const uint32_t *gathered, uint32_t *parent, int n, uint32_t ps)
{
    const uint64_t per = 2 * (uint64_t)ps, nodes = per * (uint64_t)n;
    for (uint64_t g = (uint64_t)cuda_first_item(); g < nodes; g += (uint64_t)cuda_item_stride()) {
        const uint32_t i = (uint32_t)(g / per), f = (uint32_t)(g % per);
        const uint32_t *face = gathered + (uint64_t)i * 5 * ps;
        if (face[f] != f)
            unite(parent, (uint32_t)g, (uint32_t)(i * per + face[f]));
        if (f >= ps && face[4 * ps + (f - ps)])
            unite(parent, (uint32_t)g, (uint32_t)((i + 1) % (uint32_t)n * per + (f - ps)));
    }
}

/* join, pass 3: each component's smallest name at its root. */
__global__ void join_least_kernel(const uint32_t *gathered, const uint32_t *parent,
                                  uint32_t *least, int n, uint32_t ps)
{
    const uint64_t per = 2 * (uint64_t)ps, nodes = per * (uint64_t)n;
    for (uint64_t g = (uint64_t)cuda_first_item(); g < nodes; g += (uint64_t)cuda_item_stride()) {
        const uint64_t i = g / per, f = g % per;
        atomicMin(least + find_root(parent, (uint32_t)g), gathered[i * 5 * ps + 2 * ps + f]);
    }
}

/* join, pass 4: every slot's name its component's smallest. */
__global__ void join_names_kernel(uint32_t *gathered, const uint32_t *parent,
                                  const uint32_t *least, int n, uint32_t ps)
{
    const uint64_t per = 2 * (uint64_t)ps, nodes = per * (uint64_t)n;
    for (uint64_t g = (uint64_t)cuda_first_item(); g < nodes; g += (uint64_t)cuda_item_stride()) {
        const uint64_t i = g / per, f = g % per;
        gathered[i * 5 * ps + 2 * ps + f] = least[find_root(parent, (uint32_t)g)];
    }
}

/* decide: each face piece's decision at its joined name (every slot of a piece writes
 * the same byte). */
__global__ void faces_decide_kernel(struct cuda_sw_box b, const uint32_t *face, uint64_t seed,
                                    struct latmc_rng_name name, uint64_t keep, int q)
{
    const uint32_t ps = sw_plane_sites(b);
    for (uint64_t k = (uint64_t)cuda_first_item(); k < 2 * (uint64_t)ps;
         k += (uint64_t)cuda_item_stride()) {
        const uint32_t f = (uint32_t)k;
        b.bonds[sw_root(b, face_site(b, f, ps))] =
            sw_decision(seed, name, face[2 * ps + f], keep, q);
    }
}

/* Wolff on a part, pass 1: every own root marked (its bonds byte) iff its own name is the
 * seed's cluster's, *target: an interior piece is a whole cluster. */
__global__ void mark_roots_kernel(struct cuda_sw_box b, const uint32_t *target)
{
    const uint32_t t = *target;
    const uint64_t n = (uint64_t)b.np * sw_plane_sites(b);
    for (uint64_t k = (uint64_t)cuda_first_item(); k < n; k += (uint64_t)cuda_item_stride()) {
        const uint32_t r = sw_own_site(b, (uint32_t)k);
        if (b.labels[r] == r) /* a root's label is itself */
            b.bonds[r] = sw_global(b, r) == t;
    }
}

/* Pass 2: every face piece marked iff its joined name is *target (every slot of a piece
 * writes the same byte). */
__global__ void mark_faces_kernel(struct cuda_sw_box b, const uint32_t *face,
                                  const uint32_t *target)
{
    const uint32_t t = *target, ps = sw_plane_sites(b);
    for (uint64_t k = (uint64_t)cuda_first_item(); k < 2 * (uint64_t)ps;
         k += (uint64_t)cuda_item_stride()) {
        const uint32_t f = (uint32_t)k;
        b.bonds[sw_root(b, face_site(b, f, ps))] = face[2 * ps + f] == t;
    }
}

extern "C" cudaError_t cuda_sw_faces_mark(cudaStream_t stream, const struct cuda_sw_box *b,
                                          const uint32_t *face, const uint32_t *target)
{
    mark_roots_kernel<<<cuda_grid((int64_t)b->np * sw_plane_sites(*b)), CUDA_THREADS, 0,
                        stream>>>(*b, target);
    mark_faces_kernel<<<cuda_grid(2 * (int64_t)sw_plane_sites(*b)), CUDA_THREADS, 0,
                        stream>>>(*b, face, target);
    return cudaGetLastError();
}

extern "C" cudaError_t cuda_sw_faces_out(cudaStream_t stream, const struct cuda_sw_box *b,
                                         uint32_t *scratch, uint32_t *face)
{
    const unsigned grid = cuda_grid(2 * (int64_t)sw_plane_sites(*b));
    faces_clear_kernel<<<grid, CUDA_THREADS, 0, stream>>>(*b, scratch);
    faces_first_kernel<<<grid, CUDA_THREADS, 0, stream>>>(*b, scratch);
    faces_out_kernel<<<grid, CUDA_THREADS, 0, stream>>>(*b, scratch, face);
    return cudaGetLastError();
}

extern "C" cudaError_t cuda_sw_faces_join(cudaStream_t stream, uint32_t *gathered,
                                          uint32_t *parent, uint32_t *least, int n, uint32_t ps)
{
    const int64_t nodes = 2 * (int64_t)ps * n;
    const unsigned grid = cuda_grid(nodes);
    join_init_kernel<<<grid, CUDA_THREADS, 0, stream>>>(parent, least, (uint64_t)nodes);
    join_union_kernel<<<grid, CUDA_THREADS, 0, stream>>>(gathered, parent, n, ps);
    join_least_kernel<<<grid, CUDA_THREADS, 0, stream>>>(gathered, parent, least, n, ps);
    join_names_kernel<<<grid, CUDA_THREADS, 0, stream>>>(gathered, parent, least, n, ps);
    return cudaGetLastError();
}

extern "C" cudaError_t cuda_sw_faces_decide(cudaStream_t stream, const struct cuda_sw_box *b,
                                            const uint32_t *face, uint64_t seed,
                                            struct latmc_rng_name name,
                                            uint64_t keep_threshold, int q)
{
    faces_decide_kernel<<<cuda_grid(2 * (int64_t)sw_plane_sites(*b)), CUDA_THREADS, 0,
                          stream>>>(*b, face, seed, name, keep_threshold, q);
    return cudaGetLastError();
}
