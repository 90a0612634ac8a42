/*
 * The multi-spin coded Ising update of one colour over a range of rows, as a thread walks
 * it: the geometry, the walk over groups of NW words, the neighbour words and the group's
 * update (the layout and decisions: ising_packed.h and ising_packed.cuh). Shared by the
 * single-lattice kernels (ising_packed.cu) and the ensembles' batched kernel
 * (ising/ising_batch_packed_kernels.cu), which runs this walk over each member's arrays,
 * so that a member is its standalone sim bit for bit by construction.
 */
#ifndef LATMC_CUDA_ISING_PACKED_GROUPS_CUH
#define LATMC_CUDA_ISING_PACKED_GROUPS_CUH

#include "cuda_launch.cuh"
#include "cuda_philox.cuh"
#include "ising_packed.cuh"
#include "lattice_numbering.h" /* latmc_div */

/* Where a thread's group of words sits, and its rows' neighbours (in words). */
struct packed_geom {
    int64_t rows;         /* L_y L_z */
    int64_t ly, lz;
    int64_t wpr;          /* words per row: L_x / 16 */
    int64_t groups;       /* groups per row: wpr / NW */
    /* The rows a kernel walks, [row0, row0 + nrows) (all rows but on a box of several
     * devices: doc/cuda.md, "Several GPUs"), and the global index of word 0, which names
     * the Philox blocks: a box's words are numbered as in the whole lattice. */
    int64_t row0, nrows;
    int64_t word_offset;
};

struct packed_site {
    int64_t base;         /* index of the group's first word (same in both colours) */
    int64_t row_start;    /* index of its row's first word */
    int64_t y_up, y_down; /* word offsets to the rows y + 1, y - 1 */
    int64_t z_up, z_down; /* and z + 1, z - 1 (3D) */
    int par;              /* x parity of the updated colour in this row */
};

/*
 * A thread's walk over the groups, item s = first + t stride, kept as (group g, y, z)
 * and advanced by the stride's own decomposition (computed once on the host): no
 * division per group.
 */
struct packed_stride {
    int64_t items;        /* groups in all: rows x groups per row */
    int64_t stride;       /* threads of the grid */
    int64_t g, y, z;      /* stride = g + groups (y + L_y z) */
};

struct packed_walk {
    int64_t s, g, y, z;
};

__device__ __forceinline__ struct packed_walk packed_walk_start(const struct packed_geom &p)
{
    struct packed_walk w;
    w.s = cuda_first_item();
    const int64_t r0 = latmc_div(w.s, p.groups);
    const int64_t r = r0 + p.row0;
    w.g = w.s - r0 * p.groups;
    w.z = latmc_div(r, p.ly);
    w.y = r - w.z * p.ly;
    return w;
}

__device__ __forceinline__ void packed_walk_next(const struct packed_geom &p,
                                                 const struct packed_stride &st,
                                                 struct packed_walk &w)
{
    w.s += st.stride;
    w.g += st.g;
    w.y += st.y;
    w.z += st.z;
    if (w.g >= p.groups) {
        w.g -= p.groups;
        w.y++;
    }
    if (w.y >= p.ly) {
        w.y -= p.ly;
        w.z++;
    }
}

template <int NW>
__device__ __forceinline__ struct packed_site packed_locate(const struct packed_geom &p,
                                                            const struct packed_walk &w,
                                                            int colour)
{
    struct packed_site at;
    at.row_start = (w.y + p.ly * w.z) * p.wpr;
    at.base = at.row_start + w.g * NW;
    at.y_up = (w.y + 1 == p.ly ? -(p.ly - 1) : 1) * p.wpr;
    at.y_down = (w.y == 0 ? p.ly - 1 : -1) * p.wpr;
    const int64_t plane = p.ly * p.wpr;
    at.z_up = (w.z + 1 == p.lz ? -(p.lz - 1) : 1) * plane;
    at.z_down = (w.z == 0 ? p.lz - 1 : -1) * plane;
    at.par = (int)((colour + w.y + w.z) & 1);
    return at;
}

template <int NW> __device__ __forceinline__ void words_load(const uint32_t *p, uint32_t *w)
{
    if (NW >= 4) {
#pragma unroll
        for (int i = 0; i < NW / 4; i++) {
            const uint4 v = ((const uint4 *)p)[i];
            w[4 * i] = v.x; w[4 * i + 1] = v.y; w[4 * i + 2] = v.z; w[4 * i + 3] = v.w;
        }
    } else if (NW == 2) {
        const uint2 v = *(const uint2 *)p;
        w[0] = v.x; w[1] = v.y;
    } else {
        w[0] = *p;
    }
}

template <int NW> __device__ __forceinline__ void words_store(uint32_t *p, const uint32_t *w)
{
    if (NW >= 4) {
#pragma unroll
        for (int i = 0; i < NW / 4; i++)
            ((uint4 *)p)[i] = make_uint4(w[4 * i], w[4 * i + 1], w[4 * i + 2], w[4 * i + 3]);
    } else if (NW == 2)
        *(uint2 *)p = make_uint2(w[0], w[1]);
    else
        *p = w[0];
}

/* The group's own words of the other colour (direction 0) and those along y and z (o: the
 * other colour's array at the group): every neighbour but the shifted direction 1. */
template <int NW, int ND>
__device__ __forceinline__ void group_words_load(const uint32_t *o, const struct packed_site &at,
                                                 uint32_t (&nb)[ND][NW])
{
    words_load<NW>(o, nb[0]);
    words_load<NW>(o + at.y_up, nb[2]);
    words_load<NW>(o + at.y_down, nb[3]);
    if (ND == 6) {
        words_load<NW>(o + at.z_up, nb[4]);
        words_load<NW>(o + at.z_down, nb[5]);
    }
}

/*
 * The 2 ndim neighbour words of each of the group's words (nb[d][k]: direction d, word k),
 * from the other colour's array. Direction 0 is the same words, 1 the nibble-shifted ones.
 */
template <int NW, int ND>
__device__ __forceinline__ void packed_neighbours(const uint32_t *other, const struct packed_geom &p,
                                                  const struct packed_site &at,
                                                  uint32_t (&nb)[ND][NW])
{
    const uint32_t *o = other + at.base;
    group_words_load<NW, ND>(o, at, nb);
    const int64_t first = at.base - at.row_start, last = first + NW - 1;
    if (at.par) {
        /* x + 1: nibble m + 1, the last nibble from the next word (periodic in x) */
        const uint32_t next = other[at.row_start + (last + 1 == p.wpr ? 0 : last + 1)];
#pragma unroll
        for (int k = 0; k < NW; k++)
            nb[1][k] = __funnelshift_r(nb[0][k], k + 1 < NW ? nb[0][k + 1] : next, 4);
    } else {
        /* x - 1: nibble m - 1, the first nibble from the previous word */
        const uint32_t prev = other[at.row_start + (first == 0 ? p.wpr - 1 : first - 1)];
#pragma unroll
        for (int k = 0; k < NW; k++)
            nb[1][k] = __funnelshift_l(k > 0 ? nb[0][k - 1] : prev, nb[0][k], 4);
    }
}

/*
 * The same words with every load issued before any is used: the word beside the group
 * that the shift needs is chosen by selects, not loaded behind the branch on the parity,
 * so that ptxas issues it, and whatever the caller loaded before, with the others (behind
 * the branch it would wait for them: one more memory latency a group).
 */
template <int NW, int ND>
__device__ __forceinline__ void packed_neighbours_early(const uint32_t *other,
                                                        const struct packed_geom &p,
                                                        const struct packed_site &at,
                                                        uint32_t (&nb)[ND][NW])
{
    const uint32_t *o = other + at.base;
    const int64_t first = at.base - at.row_start, last = first + NW - 1;
    /* par = 1: the next word's first nibble, par = 0: the previous word's last one */
    const int64_t beside = at.par ? (last + 1 == p.wpr ? 0 : last + 1)
                                  : (first == 0 ? p.wpr - 1 : first - 1);
    const uint32_t edge = other[at.row_start + beside];
    group_words_load<NW, ND>(o, at, nb);
    if (at.par) {
#pragma unroll
        for (int k = 0; k < NW; k++)
            nb[1][k] = __funnelshift_r(nb[0][k], k + 1 < NW ? nb[0][k + 1] : edge, 4);
    } else {
#pragma unroll
        for (int k = 0; k < NW; k++)
            nb[1][k] = __funnelshift_l(k > 0 ? nb[0][k - 1] : edge, nb[0][k], 4);
    }
}

/*
 * +-J: a site's coupling bits, nibble-packed like its spin (ising_packed.h): bit b of the
 * nibble in coupling word q is set when the bond to neighbour direction 4 q + b (the
 * directions of packed_neighbours) is -1. CW coupling words per spin word. XOR-ing a
 * neighbour word with its direction's bits turns "neighbour at -1" into "eps s_j = -1",
 * the count the class needs. Uniform sims: no coupling words (CW = 0).
 */
template <int NW, int ND, int CW>
__device__ __forceinline__ void packed_apply_couplings(const uint32_t *eps_words, int64_t base,
                                                       uint32_t (&nb)[ND][NW])
{
    if constexpr (CW > 0) {
        uint32_t e[CW * NW];
        words_load<CW * NW>(eps_words + CW * base, e);
#pragma unroll
        for (int k = 0; k < NW; k++)
#pragma unroll
            for (int d = 0; d < ND; d++)
                nb[d][k] ^= (e[CW * k + d / 4] >> (d % 4)) & 0x11111111u;
    }
}


/* packed_apply_couplings in two steps: the coupling words loaded (first, in the early
 * walk), then xor-ed into the neighbour words. */
template <int NW, int CW>
__device__ __forceinline__ void packed_load_couplings(const uint32_t *eps_words, int64_t base,
                                                      uint32_t (&e)[CW * NW])
{
    words_load<CW * NW>(eps_words + CW * base, e);
}

template <int NW, int ND, int CW>
__device__ __forceinline__ void packed_xor_couplings(const uint32_t (&e)[CW * NW],
                                                     uint32_t (&nb)[ND][NW])
{
#pragma unroll
    for (int k = 0; k < NW; k++)
#pragma unroll
        for (int d = 0; d < ND; d++)
            nb[d][k] ^= (e[CW * k + d / 4] >> (d % 4)) & 0x11111111u;
}

/*
 * One group at `at`, colour `colour` updated in own_words from the other colour's words
 * (own_eps: the +-J coupling words, CW per spin word; NULL with CW = 0), the thresholds in
 * the 16-entry shared table table_bytes, the draws from the pass's fold: the flips added
 * to n_changed. EARLY (+-J only): the group's coupling words are loaded first and the
 * neighbours by packed_neighbours_early, so that all its loads are in flight at once (the
 * 3D +-J kernels of ising_packed.cu and ising_packed_chain.cu; the other callers keep the
 * order below, their code as it was).
 */
template <int NW, int ND, bool HEATBATH, int CW, bool EARLY = false>
__device__ __forceinline__ void packed_update_group(
    const struct packed_geom &p, const struct packed_site &at, uint32_t *own_words,
    const uint32_t *other, const uint32_t *own_eps, const unsigned char *table_bytes,
    const struct cuda_philox_folded &draws, unsigned long long &n_changed)
{
    uint32_t own[NW], nb[ND][NW];
    if constexpr (EARLY && CW > 0) {
        uint32_t e[CW * NW];
        packed_load_couplings<NW, CW>(own_eps, at.base, e);
        words_load<NW>(own_words + at.base, own);
        packed_neighbours_early<NW, ND>(other, p, at, nb);
        packed_xor_couplings<NW, ND, CW>(e, nb);
    } else {
        words_load<NW>(own_words + at.base, own);
        packed_neighbours<NW, ND>(other, p, at, nb);
        packed_apply_couplings<NW, ND, CW>(own_eps, at.base, nb);
    }
    /* the group's 2 NW blocks 2 base .. 2 base + 2 NW - 1 share bits 32..47
     * (base is a multiple of NW) */
    const uint64_t block0 = 2 * (uint64_t)(at.base + p.word_offset);
    const struct cuda_philox_group grp = cuda_philox_group_of(draws, block0);
#pragma unroll
    for (int k = 0; k < NW; k++) {
        uint32_t cls = own[k] << 3;
#pragma unroll
        for (int d = 0; d < ND; d++)
            cls += nb[d][k];
        const latmc_philox_ctr u0 = cuda_philox_folded_draws(draws, grp,
                                                             (uint32_t)block0 + 2 * k);
        const latmc_philox_ctr u1 = cuda_philox_folded_draws(draws, grp,
                                                             (uint32_t)block0 + 2 * k + 1);
        const uint32_t w = packed_update_word<HEATBATH>(own[k], cls, u0, u1, table_bytes);
        n_changed += __popc(w ^ own[k]);
        own[k] = w;
    }
    words_store<NW>(own_words + at.base, own);
}

/* The groups of this thread's walk (packed_update_group each): returns the flips. */
template <int NW, int ND, bool HEATBATH, int CW, bool EARLY = false>
__device__ __forceinline__ unsigned long long packed_sweep_groups(
    const struct packed_geom &p, const struct packed_stride &st, uint32_t *own_words,
    const uint32_t *other, const uint32_t *own_eps, const unsigned char *table_bytes,
    const struct cuda_philox_folded &draws, int colour)
{
    unsigned long long n_changed = 0;
    for (struct packed_walk wk = packed_walk_start(p); wk.s < st.items;
         packed_walk_next(p, st, wk))
        packed_update_group<NW, ND, HEATBATH, CW, EARLY>(p, packed_locate<NW>(p, wk, colour),
                                                         own_words, other, own_eps,
                                                         table_bytes, draws, n_changed);
    return n_changed;
}

/* ---- host: the geometry of a launch ---- */

static inline struct packed_stride packed_stride_of(const struct packed_geom &p, unsigned grid)
{
    struct packed_stride st;
    st.items = p.nrows * p.groups;
    st.stride = (int64_t)grid * CUDA_THREADS;
    const int64_t rows = st.stride / p.groups;
    st.g = st.stride - rows * p.groups;
    st.z = rows / p.ly; /* past the lattice: the walk ends there anyway */
    st.y = rows - st.z * p.ly;
    return st;
}

static inline struct packed_geom packed_geom_of(const struct latmc_lattice *g, int nw)
{
    struct packed_geom p;
    p.ly = g->ly;
    p.lz = g->ndim == 3 ? g->lz : 1;
    p.rows = p.ly * p.lz;
    p.wpr = g->lx / 16;
    p.groups = p.wpr / nw;
    p.row0 = 0;
    p.nrows = p.rows;
    p.word_offset = 0;
    return p;
}


/* Words per thread of the update kernels: 8 (two 16-byte accesses; the per-group address
 * work shared by 64 sites: 12 % faster than 4 words in 2D, 9 % in 3D on an H200) where the
 * row allows it, else 4, 2 or 1. */
static inline int packed_words_per_thread(const struct latmc_lattice *g)
{
    const int64_t wpr = g->lx / 16;
    return wpr % 8 == 0 ? 8 : wpr % 4 == 0 ? 4 : wpr % 2 == 0 ? 2 : 1;
}

#endif
