/*
 * The joins of Swendsen-Wang's clusters across the faces of boxes (cuda_sw_faces.h). One
 * thread per face slot (2 ps a box) in grid-stride loops.
 */
#include <stdint.h>

#include "cuda_launch.cuh"
#include "cluster_bonds.h"
#include "cluster_embed_sum.h"
#include "cuda_sw_device.cuh"
#include "cuda_sw_faces.h"

/* A slot's sum in a face buffer (cuda_sw_faces.h): two words, low then high. */
__device__ __forceinline__ long long face_sum(const uint32_t *face, uint32_t ps, uint64_t f)
{
    const uint32_t *w = face + 5 * (uint64_t)ps + 2 * f;
    return (long long)((unsigned long long)w[1] << 32 | w[0]);
}

__device__ __forceinline__ void set_face_sum(uint32_t *face, uint32_t ps, uint64_t f,
                                             long long v)
{
    uint32_t *w = face + 5 * (uint64_t)ps + 2 * f;
    w[0] = (uint32_t)(unsigned long long)v;
    w[1] = (uint32_t)((unsigned long long)v >> 32);
}

/* out, pass 1: each face piece's scratch word cleared (to the largest slot). */
__global__ void faces_clear_kernel(struct cuda_sw_box b, uint32_t *scratch)
{
    const uint32_t ps = sw_plane_sites(b);
    for (uint64_t f = (uint64_t)cuda_first_item(); f < 2 * (uint64_t)ps;
         f += (uint64_t)cuda_item_stride())
        scratch[sw_root(b, sw_face_site(b, (uint32_t)f, ps))] = UINT32_MAX;
}

/* out, pass 2: each face piece's first slot. */
__global__ void faces_first_kernel(struct cuda_sw_box b, uint32_t *scratch)
{
    const uint32_t ps = sw_plane_sites(b);
    for (uint64_t f = (uint64_t)cuda_first_item(); f < 2 * (uint64_t)ps;
         f += (uint64_t)cuda_item_stride())
        atomicMin(scratch + sw_root(b, sw_face_site(b, (uint32_t)f, ps)), (uint32_t)f);
}

/* out, pass 3: the face buffer (cuda_sw_faces.h); sums: in a field, else NULL. */
__global__ void faces_out_kernel(struct cuda_sw_box b, const uint32_t *scratch,
                                 const long long *sums, uint32_t *face)
{
    const uint32_t ps = sw_plane_sites(b);
    const unsigned last = (unsigned)b.g.ndim - 1;
    for (uint64_t k = (uint64_t)cuda_first_item(); k < 2 * (uint64_t)ps;
         k += (uint64_t)cuda_item_stride()) {
        const uint32_t f = (uint32_t)k, s = sw_face_site(b, f, ps), r = sw_root(b, s);
        face[f] = scratch[r];
        face[2 * (uint64_t)ps + f] = sw_global(b, r);
        if (sums)
            set_face_sum(face, ps, f, sums[r]);
        if (f >= ps) /* the bond byte's direction bits (the root mark is bit 7) */
            face[4 * (uint64_t)ps + (f - ps)] = b.bonds[s] >> last & 1u;
    }
}

/* join, pass 1: every node its own tree; no name yet (in a field no sum: jsum). */
__global__ void join_init_kernel(uint32_t *parent, uint32_t *least, long long *jsum,
                                 uint64_t nodes)
{
    for (uint64_t g = (uint64_t)cuda_first_item(); g < nodes; g += (uint64_t)cuda_item_stride()) {
        parent[g] = (uint32_t)g;
        least[g] = UINT32_MAX;
        if (jsum)
            jsum[g] = 0;
    }
}

/* join, pass 2: each slot to its box's first slot of its piece; each active face bond
 * from box i's last plane to box i + 1's first. */
__global__ void join_union_kernel(const uint32_t *gathered, uint32_t *parent, int n, uint32_t ps)
{
    const uint64_t per = 2 * (uint64_t)ps, nodes = per * (uint64_t)n;
    for (uint64_t g = (uint64_t)cuda_first_item(); g < nodes; g += (uint64_t)cuda_item_stride()) {
        const uint32_t i = (uint32_t)(g / per), f = (uint32_t)(g % per);
        const uint32_t *face = gathered + (uint64_t)i * cuda_sw_face_words(ps);
        if (face[f] != f)
            unite(parent, (uint32_t)g, (uint32_t)(i * per + face[f]));
        if (f >= ps && face[4 * (uint64_t)ps + (f - ps)])
            unite(parent, (uint32_t)g, (uint32_t)((i + 1) % (uint32_t)n * per + (f - ps)));
    }
}

/* join, pass 3: each component's smallest name at its root; in a field (jsum) its sum,
 * each piece's once (at its rep slot: the slot that is its own rep). Integer sums: the
 * atomics' order does not matter. */
__global__ void join_least_kernel(const uint32_t *gathered, const uint32_t *parent,
                                  uint32_t *least, long long *jsum, int n, uint32_t ps)
{
    const uint64_t per = 2 * (uint64_t)ps, nodes = per * (uint64_t)n;
    for (uint64_t g = (uint64_t)cuda_first_item(); g < nodes; g += (uint64_t)cuda_item_stride()) {
        const uint64_t i = g / per, f = g % per;
        const uint32_t *face = gathered + i * cuda_sw_face_words(ps);
        const uint32_t root = find_root(parent, (uint32_t)g);
        atomicMin(least + root, face[2 * ps + f]);
        if (jsum && face[f] == f)
            atomicAdd((unsigned long long *)(jsum + root),
                      (unsigned long long)face_sum(face, ps, f));
    }
}

/* join, pass 4: every slot's name its component's smallest (in a field its sum the
 * component's). */
__global__ void join_names_kernel(uint32_t *gathered, const uint32_t *parent,
                                  const uint32_t *least, const long long *jsum, int n,
                                  uint32_t ps)
{
    const uint64_t per = 2 * (uint64_t)ps, nodes = per * (uint64_t)n;
    for (uint64_t g = (uint64_t)cuda_first_item(); g < nodes; g += (uint64_t)cuda_item_stride()) {
        const uint64_t i = g / per, f = g % per;
        uint32_t *face = gathered + i * cuda_sw_face_words(ps);
        const uint32_t root = find_root(parent, (uint32_t)g);
        face[2 * ps + f] = least[root];
        if (jsum)
            set_face_sum(face, ps, f, jsum[root]);
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
        b.bonds[sw_root(b, sw_face_site(b, f, ps))] =
            sw_decision(seed, name, face[2 * ps + f], keep, q);
    }
}

/* decide in a field: each face piece's decision at its joined name from its joined sum,
 * as sw_field_decide_kernel (cuda_wolff_kernels.cu) draws a root's. */
__global__ void faces_field_decide_kernel(struct cuda_sw_box b, const uint32_t *face,
                                          uint64_t seed, uint64_t sweep, double beta_h, int q)
{
    const uint32_t ps = sw_plane_sites(b);
    for (uint64_t k = (uint64_t)cuda_first_item(); k < 2 * (uint64_t)ps;
         k += (uint64_t)cuda_item_stride()) {
        const uint32_t f = (uint32_t)k;
        const long long sum = face_sum(face, ps, f);
        const uint32_t u = latmc_cluster_decide_draw(seed, sweep, face[2 * ps + f]);
        b.bonds[sw_root(b, sw_face_site(b, f, ps))] =
            (uint8_t)(q ? latmc_cluster_potts_colour(
                              u, latmc_cluster_zero_threshold(beta_h, q, sum), q)
                        : latmc_cluster_ising_keep(u, latmc_cluster_keep_threshold(beta_h, sum)));
    }
}

/* decide in the embedded model's field F (phi^4, Heisenberg: cuda_embed.h): each face
 * piece keeps iff its draw at its joined name < the heat bath's threshold from its joined
 * sum of the q_i (lib/cluster_embed_sum.h), as cuda_embed_field.cu draws a root's. */
__global__ void faces_embed_decide_kernel(struct cuda_sw_box b, const uint32_t *face,
                                          uint64_t seed, struct latmc_rng_name name, double F)
{
    const uint32_t ps = sw_plane_sites(b);
    for (uint64_t k = (uint64_t)cuda_first_item(); k < 2 * (uint64_t)ps;
         k += (uint64_t)cuda_item_stride()) {
        const uint32_t f = (uint32_t)k;
        b.bonds[sw_root(b, sw_face_site(b, f, ps))] =
            (uint8_t)((uint64_t)sw_draw(seed, name, face[2 * ps + f]) <
                      latmc_embed_keep_threshold(F, face_sum(face, ps, f)));
    }
}

/* The statistics' three words from one size per thread (0: no cluster): the count and
 * the squares added, the largest by a warp's maximum. */
__device__ __forceinline__ void add_stats(unsigned long long s, unsigned long long *out)
{
    cuda_warp_add(&out[0], s != 0);
    cuda_warp_add(&out[2], s * s);
    unsigned long long largest = s;
    for (int offset = 16; offset > 0; offset >>= 1) {
        const unsigned long long other = __shfl_down_sync(0xffffffffu, largest, offset);
        largest = other > largest ? other : largest;
    }
    if ((threadIdx.x & 31u) == 0 && largest != 0)
        atomicMax(&out[1], largest);
}

/* The interior pieces' statistics: a root is a face piece's iff the slot its scratch word
 * names (cuda_sw_faces_out: the piece's first slot) lies in a face and holds a site of
 * it; an interior root's scratch word is stale, but then never names such a slot. */
__global__ void interior_stats_kernel(struct cuda_sw_box b, const uint32_t *scratch,
                                      const long long *sizes, unsigned long long *out)
{
    const uint32_t ps = sw_plane_sites(b);
    const uint64_t n = (uint64_t)b.np * ps;
    for (uint64_t k0 = (uint64_t)cuda_first_item() - (threadIdx.x & 31u); k0 < n;
         k0 += (uint64_t)cuda_item_stride()) { /* whole warps: add_stats shuffles */
        const uint64_t k = k0 + (threadIdx.x & 31u);
        unsigned long long s = 0;
        if (k < n) {
            const uint32_t r = sw_own_site(b, (uint32_t)k);
            if (b.labels[r] == r) { /* a root */
                const uint32_t f = scratch[r];
                const bool face = f < 2 * ps && sw_root(b, sw_face_site(b, f, ps)) == r;
                s = face ? 0 : (unsigned long long)sizes[r];
            }
        }
        add_stats(s, out);
    }
}

/* The slots' sizes (their pieces' at the roots) into the face buffer's sums. */
__global__ void faces_sizes_kernel(struct cuda_sw_box b, const long long *sizes, uint32_t *face)
{
    const uint32_t ps = sw_plane_sites(b);
    for (uint64_t f = (uint64_t)cuda_first_item(); f < 2 * (uint64_t)ps;
         f += (uint64_t)cuda_item_stride())
        set_face_sum(face, ps, f, sizes[sw_root(b, sw_face_site(b, (uint32_t)f, ps))]);
}

/* The joined components' statistics: one per root of the join's forest, its size the
 * joined sum there. */
__global__ void join_stats_kernel(const uint32_t *parent, const long long *jsum, uint64_t nodes,
                                  unsigned long long *out)
{
    for (uint64_t g0 = (uint64_t)cuda_first_item() - (threadIdx.x & 31u); g0 < nodes;
         g0 += (uint64_t)cuda_item_stride()) {
        const uint64_t g = g0 + (threadIdx.x & 31u);
        const bool root = g < nodes && parent[g] == (uint32_t)g;
        add_stats(root ? (unsigned long long)jsum[g] : 0ull, out);
    }
}

/* Wolff on k boxes: the seed's piece and its first face slot (cuda_sw_seed_find), one
 * block: the smallest matching slot by a shared atomicMin. */
__global__ void seed_find_kernel(struct cuda_sw_box b, uint32_t seed_local, const uint32_t *face,
                                 const long long *sums, uint32_t *rec)
{
    __shared__ uint32_t first;
    const uint32_t ps = sw_plane_sites(b), r = sw_root(b, seed_local), name = sw_global(b, r);
    if (threadIdx.x == 0)
        first = UINT32_MAX;
    __syncthreads();
    for (uint32_t f = threadIdx.x; f < 2 * ps; f += blockDim.x)
        if (face[2 * ps + f] == name)
            atomicMin(&first, f);
    __syncthreads();
    if (threadIdx.x == 0) {
        const unsigned long long sum = sums ? (unsigned long long)sums[r] : 0ull;
        rec[0] = name;
        rec[1] = first;
        rec[2] = (uint32_t)sum;
        rec[3] = (uint32_t)(sum >> 32);
    }
}

/* After the join: the seed's cluster (cuda_sw_seed_target). */
__global__ void seed_target_kernel(const uint32_t *face, uint32_t ps, const uint32_t *rec,
                                   int field, uint32_t *target)
{
    const uint32_t slot = rec[1];
    uint32_t name = rec[0], lo = rec[2], hi = rec[3];
    if (slot != UINT32_MAX) {
        name = face[2 * ps + slot];
        if (field) {
            const unsigned long long sum = (unsigned long long)face_sum(face, ps, slot);
            lo = (uint32_t)sum;
            hi = (uint32_t)(sum >> 32);
        }
    }
    target[0] = name;
    target[1] = 0;
    target[2] = lo;
    target[3] = hi;
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
        b.bonds[sw_root(b, sw_face_site(b, f, ps))] = face[2 * ps + f] == t;
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
                                         uint32_t *scratch, const long long *sums,
                                         uint32_t *face)
{
    const unsigned grid = cuda_grid(2 * (int64_t)sw_plane_sites(*b));
    faces_clear_kernel<<<grid, CUDA_THREADS, 0, stream>>>(*b, scratch);
    faces_first_kernel<<<grid, CUDA_THREADS, 0, stream>>>(*b, scratch);
    faces_out_kernel<<<grid, CUDA_THREADS, 0, stream>>>(*b, scratch, sums, face);
    return cudaGetLastError();
}

extern "C" cudaError_t cuda_sw_faces_join(cudaStream_t stream, uint32_t *gathered,
                                          uint32_t *parent, uint32_t *least, long long *jsum,
                                          int n, uint32_t ps, int field)
{
    const int64_t nodes = 2 * (int64_t)ps * n;
    const unsigned grid = cuda_grid(nodes);
    long long *sum = field ? jsum : NULL;
    join_init_kernel<<<grid, CUDA_THREADS, 0, stream>>>(parent, least, sum, (uint64_t)nodes);
    join_union_kernel<<<grid, CUDA_THREADS, 0, stream>>>(gathered, parent, n, ps);
    join_least_kernel<<<grid, CUDA_THREADS, 0, stream>>>(gathered, parent, least, sum, n, ps);
    join_names_kernel<<<grid, CUDA_THREADS, 0, stream>>>(gathered, parent, least, sum, n, ps);
    return cudaGetLastError();
}

extern "C" cudaError_t cuda_sw_faces_field_decide(cudaStream_t stream,
                                                  const struct cuda_sw_box *b,
                                                  const uint32_t *face, uint64_t seed,
                                                  uint64_t sweep, double beta_h, int q)
{
    faces_field_decide_kernel<<<cuda_grid(2 * (int64_t)sw_plane_sites(*b)), CUDA_THREADS, 0,
                                stream>>>(*b, face, seed, sweep, beta_h, q);
    return cudaGetLastError();
}

extern "C" cudaError_t cuda_sw_seed_find(cudaStream_t stream, const struct cuda_sw_box *b,
                                         uint32_t seed_local, const uint32_t *face,
                                         const long long *sums, uint32_t *rec)
{
    seed_find_kernel<<<1, 1024, 0, stream>>>(*b, seed_local, face, sums, rec);
    return cudaGetLastError();
}

extern "C" cudaError_t cuda_sw_seed_target(cudaStream_t stream, const uint32_t *face, uint32_t ps,
                                           const uint32_t *rec, int field, uint32_t *target)
{
    seed_target_kernel<<<1, 1, 0, stream>>>(face, ps, rec, field, target);
    return cudaGetLastError();
}

extern "C" cudaError_t cuda_sw_interior_stats(cudaStream_t stream, const struct cuda_sw_box *b,
                                              const uint32_t *scratch, const long long *sizes,
                                              unsigned long long *out)
{
    const unsigned grid = cuda_grid((int64_t)b->np * sw_plane_sites(*b));
    interior_stats_kernel<<<grid < 2048u ? grid : 2048u, CUDA_THREADS, 0, stream>>>(
        *b, scratch, sizes, out);
    return cudaGetLastError();
}

extern "C" cudaError_t cuda_sw_faces_sizes(cudaStream_t stream, const struct cuda_sw_box *b,
                                           const long long *sizes, uint32_t *face)
{
    faces_sizes_kernel<<<cuda_grid(2 * (int64_t)sw_plane_sites(*b)), CUDA_THREADS, 0,
                         stream>>>(*b, sizes, face);
    return cudaGetLastError();
}

extern "C" cudaError_t cuda_sw_join_stats(cudaStream_t stream, const uint32_t *parent,
                                          const long long *jsum, int n, uint32_t ps,
                                          unsigned long long *out)
{
    const int64_t nodes = 2 * (int64_t)ps * n;
    join_stats_kernel<<<cuda_grid(nodes), CUDA_THREADS, 0, stream>>>(parent, jsum,
                                                                     (uint64_t)nodes, out);
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

extern "C" cudaError_t cuda_sw_faces_embed_decide(cudaStream_t stream,
                                                  const struct cuda_sw_box *b,
                                                  const uint32_t *face, uint64_t seed,
                                                  struct latmc_rng_name name, double field)
{
    faces_embed_decide_kernel<<<cuda_grid(2 * (int64_t)sw_plane_sites(*b)), CUDA_THREADS, 0,
                                stream>>>(*b, face, seed, name, field);
    return cudaGetLastError();
}
