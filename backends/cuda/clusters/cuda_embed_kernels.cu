/*
 * The embedded Swendsen-Wang and Wolff step's kernels (cuda_embed.h): a_i, the bonds, then
 * the Ising labelling of cuda_sw.h and its decisions (Swendsen-Wang: cuda_sw.h's; Wolff:
 * the seed's cluster, cuda_wolff.h's), then the reflections (Heisenberg) or the sign
 * flips (phi^4). Every
 * floating-point operation of the CPU's step is written as its correctly rounded
 * intrinsic (__dmul_rn, __dadd_rn, __dsub_rn, __ddiv_rn, __dsqrt_rn, __double2float_rn),
 * so no contraction into fused multiply-adds can change a bit, whatever -fmad says; the
 * exp is liblatmc's own (lib/latmc_math.h, LATMC_HOSTDEV). One site a thread, grid-stride
 * loops; a site is a 32-bit index (the core refuses cluster updates on 2^32 sites or more).
 * Every kernel runs over a box's own sites (struct cuda_sw_box: the whole lattice of a box
 * alone, or a box's own planes between its halos), a site's draws named by its global
 * site, so a box's piece of the step is the one-box step's restricted to it.
 */
#include <stdint.h>

#include "cluster_bonds.h"
#include "cuda_embed.h"
#include "cuda_launch.cuh"
#include "cuda_sw_device.cuh"
#include "cuda_wolff.h"
#include "latmc_math.h"

/* a_i = r . s_i as lib/cluster_heisenberg.c: ((r_x s_x + r_y s_y) + r_z s_z) in double
 * (n: the sites of the box's stored lattice, the SoA's stride; the components' offsets in
 * size_t: n + i passes 2^32 on a lattice of more than 2^31 sites). */
__device__ __forceinline__ double embed_a(const float *s, uint32_t n, uint32_t i, double r0,
                                          double r1, double r2)
{
    const size_t at = (size_t)n + i;
    return __dadd_rn(__dadd_rn(__dmul_rn(r0, (double)s[i]), __dmul_rn(r1, (double)s[at])),
                     __dmul_rn(r2, (double)s[(size_t)n + at]));
}

/* The stored sites [first, first + count) whose a the bonds read: the own planes, and
 * on a box joined to others the first plane of its upper halo (the next box's first
 * plane, whose a that box computes alike: the same float spins, the same operations). */
static void a_range(const struct cuda_sw_box *b, uint32_t *first, uint32_t *count)
{
    const uint32_t ps = (uint32_t)(b->g.ndim == 3 ? b->g.lx * b->g.ly : b->g.lx);
    *first = b->p0 * ps;
    *count = (b->np + (b->wrap ? 0u : 1u)) * ps;
}

__global__ void embed_a_kernel(const float *s, uint32_t n, uint32_t first, uint32_t count,
                               double r0, double r1, double r2, double *a)
{
    for (int64_t k = cuda_first_item(); k < (int64_t)count; k += cuda_item_stride())
        a[first + k] = embed_a(s, n, first + (uint32_t)k, r0, r1, r2);
}

/* phi^4: a_i = phi_i (lib/cluster_phi4.c). */
template <typename T>
__global__ void embed_phi4_a_kernel(const T *phi, uint32_t first, uint32_t count, double *a)
{
    for (int64_t k = cuda_first_item(); k < (int64_t)count; k += cuda_item_stride())
        a[first + k] = (double)phi[first + k];
}

/* Bond (i, mu) of every own site as lib/cluster_embed.c's bond_on: x = (K a_i) a_j,
 * K = beta J (double; J NULL: K = beta, phi^4's nearest neighbours; J_{i,mu} at
 * mu n + i over the stored sites), the draw ndirs (global i) + mu (ndirs: the model's
 * directions, ND but for phi^4 with a finite Lambda, whose further pairs
 * embed_far_kernel unites). Along the last axis
 * a box alone wraps, a box joined to others reads its upper halo (the bond drawn here,
 * joined across the face: cuda_sw_faces.h). */
template <int ND>
__global__ void embed_bonds_kernel(struct cuda_sw_box b, const float *J, const double *a,
                                   double beta, uint32_t ndirs, uint64_t seed,
                                   struct latmc_rng_name name)
{
    const uint32_t lx = (uint32_t)b.g.lx, ly = (uint32_t)b.g.ly, lz = (uint32_t)b.g.lz;
    const uint32_t plane = lx * ly, n = (uint32_t)b.g.nsites, ps = sw_plane_sites(b);
    const bool wrap = b.wrap != 0;
    for (int64_t k = cuda_first_item(); k < (int64_t)b.np * ps; k += cuda_item_stride()) {
        const uint32_t i = b.p0 * ps + (uint32_t)k;
        const uint64_t global = (uint64_t)b.g0 + (uint64_t)k;
        const uint32_t x = i % lx, row = i / lx, y = row % ly, z = row / ly;
        uint32_t j[3];
        j[0] = x + 1 == lx ? i - x : i + 1;
        j[1] = y + 1 == ly && (ND == 3 || wrap) ? i - y * lx : i + lx;
        j[2] = ND == 3 ? (z + 1 == lz && wrap ? i - z * plane : i + plane) : i;
        const double ai = a[i];
        unsigned bits = 0;
#pragma unroll
        for (int mu = 0; mu < ND; mu++) {
            const double K = J ? __dmul_rn(beta, (double)J[(size_t)mu * n + i]) : beta;
            const double xb = __dmul_rn(__dmul_rn(K, ai), a[j[mu]]);
            if (!(xb > 0.0))
                continue;
            const uint64_t thr = xb > 25.0 ? UINT64_C(1) << 32
                                           : latmc_cluster_threshold(
                                                 -latmc_math_expm1(__dmul_rn(-2.0, xb)));
            const uint32_t u = sw_draw(seed, name, (uint64_t)ndirs * global + (uint64_t)mu);
            bits |= (unsigned)((uint64_t)u < thr) << mu;
        }
        b.bonds[i] = (uint8_t)bits;
    }
}

/* phi^4 with a finite Lambda (lib/cluster_phi4.c): the pairs the labelling's bonds bytes
 * do not hold -- i, i + 2 e_mu (d = ND + mu, K = k2) and the planar diagonals i, i + e_mu
 * +- e_nu (planes (0,1), (0,2), (1,2), + before -, K = kd) -- each drawn as bond_on draws
 * it (x = (K a_i) a_j > 0, its draw ndirs i + d below the threshold) and, where active,
 * its two sites' trees united with the labelling's atomicMin union-find (cuda_sw_device.cuh:
 * the larger root hung under the smaller, so a root stays its cluster's smallest site
 * whatever order the threads ran in). Runs on the flattened labels of the nearest
 * neighbours (cuda_sw_label), so that a union's finds take a step or two (before the
 * flattening a tile's root may hang at the end of a long chain), and is followed by a
 * second flattening: only roots move, which are the tiles' marked roots that the
 * flattening resolves, the other sites' parents still their tiles' roots. A box alone
 * (every axis wraps). A site's draws are consecutive, so the last Philox block is kept (a
 * site's far draws span two or three). */
template <int ND>
__global__ void embed_far_kernel(struct cuda_sw_box b, const double *a, double k2, double kd,
                                 uint32_t ndirs, uint64_t seed, struct latmc_rng_name name)
{
    const uint32_t lx = (uint32_t)b.g.lx, ly = (uint32_t)b.g.ly, lz = (uint32_t)b.g.lz;
    const uint32_t n = (uint32_t)b.g.nsites;
    for (int64_t k = cuda_first_item(); k < (int64_t)n; k += cuda_item_stride()) {
        const uint32_t i = (uint32_t)k;
        const uint32_t x = i % lx, row = i / lx, y = row % ly, z = ND == 3 ? row / ly : 0;
        const uint32_t c[3] = { x, y, z }, l[3] = { lx, ly, lz };
        const double ai = a[i];
        uint64_t held = UINT64_MAX;
        latmc_philox_ctr blk = { { 0, 0, 0, 0 } };
        uint32_t d = ND;
#pragma unroll
        for (int t = 0; t < ND + ND * (ND - 1); t++, d++) {
            /* the offset of direction d: 2 e_mu (t < ND), else the diagonal of plane
             * (mu, nu) with sign s */
            int off[3] = { 0, 0, 0 };
            double K;
            if (t < ND) {
                off[t] = 2;
                K = k2;
            } else {
                const int q = (t - ND) / 2, mu = q < ND - 1 ? 0 : 1, nu = q < ND - 1 ? q + 1 : 2;
                off[mu] = 1;
                off[nu] = (t - ND) % 2 ? -1 : 1;
                K = kd;
            }
            uint32_t j = 0, stride = 1;
#pragma unroll
            for (int m = 0; m < ND; m++) {
                int64_t cm = (int64_t)c[m] + off[m];
                cm = cm >= (int64_t)l[m] ? cm - l[m] : cm < 0 ? cm + l[m] : cm;
                j += (uint32_t)cm * stride;
                stride *= l[m];
            }
            const double xb = __dmul_rn(__dmul_rn(K, ai), a[j]);
            if (!(xb > 0.0))
                continue;
            const uint64_t thr = xb > 25.0 ? UINT64_C(1) << 32
                                           : latmc_cluster_threshold(
                                                 -latmc_math_expm1(__dmul_rn(-2.0, xb)));
            const uint64_t nd = (uint64_t)ndirs * i + d;
            if (held != nd >> 2) {
                held = nd >> 2;
                blk = latmc_rng_name_block(seed, name, held);
            }
            if ((uint64_t)lane_of(blk, (unsigned)(nd & 3u)) < thr)
                unite(b.labels, i, j);
        }
    }
}

/* Whether own site i's cluster flips (struct cuda_embed_flips): Swendsen-Wang by its
 * decision in its root's bonds byte (cuda_sw_decide: 1 keep); Wolff on a box alone iff it
 * is the seed's cluster and that one's decision (cuda_wolff_decide: 0 without a field) is
 * a flip; Wolff on k boxes iff its joined name is the seed's cluster's and that one
 * flips. */
__device__ __forceinline__ bool embed_flips(const struct cuda_sw_box &b, uint32_t i,
                                            const struct cuda_embed_flips &f)
{
    const uint32_t r = sw_root(b, i);
    if (f.target)
        return !*f.keep && sw_joined_name(b, r, f.scratch, f.face) == f.target[0];
    return f.wolff ? r == f.wolff->root && !f.wolff->decision : !b.bonds[r];
}

/* Every own site that flips: s - 2 a r, normalised in double and rounded to float
 * (latmc_heisenberg_store_unit: inv = 1 / sqrt((v_x^2 + v_y^2) + v_z^2), v inv). */
__global__ void embed_reflect_kernel(struct cuda_sw_box b, struct cuda_embed_flips f,
                                     float *s, const double *a, double r0, double r1,
                                     double r2)
{
    const uint32_t n = (uint32_t)b.g.nsites, ps = sw_plane_sites(b);
    for (int64_t k = cuda_first_item(); k < (int64_t)b.np * ps; k += cuda_item_stride()) {
        const uint32_t i = b.p0 * ps + (uint32_t)k;
        if (!embed_flips(b, i, f))
            continue;
        const double two_a = __dmul_rn(2.0, a[i]);
        const double v0 = __dsub_rn((double)s[i], __dmul_rn(two_a, r0));
        const double v1 = __dsub_rn((double)s[(size_t)n + i], __dmul_rn(two_a, r1));
        const double v2 = __dsub_rn((double)s[2 * (size_t)n + i], __dmul_rn(two_a, r2));
        const double dot =
            __dadd_rn(__dadd_rn(__dmul_rn(v0, v0), __dmul_rn(v1, v1)), __dmul_rn(v2, v2));
        const double inv = __ddiv_rn(1.0, __dsqrt_rn(dot));
        s[i] = __double2float_rn(__dmul_rn(v0, inv));
        s[(size_t)n + i] = __double2float_rn(__dmul_rn(v1, inv));
        s[2 * (size_t)n + i] = __double2float_rn(__dmul_rn(v2, inv));
    }
}

/* phi^4's flip: phi -> -phi on every own site that flips (exact). */
template <typename T>
__global__ void embed_negate_kernel(struct cuda_sw_box b, struct cuda_embed_flips f, T *phi)
{
    const uint32_t ps = sw_plane_sites(b);
    for (int64_t k = cuda_first_item(); k < (int64_t)b.np * ps; k += cuda_item_stride()) {
        const uint32_t i = b.p0 * ps + (uint32_t)k;
        if (embed_flips(b, i, f))
            phi[i] = -phi[i];
    }
}

static uint32_t own_sites(const struct cuda_sw_box *b)
{
    return b->np * (uint32_t)(b->g.ndim == 3 ? b->g.lx * b->g.ly : b->g.lx);
}

/* The bonds of a box whose a is in place. */
static cudaError_t embed_bonds(cudaStream_t stream, const struct cuda_sw_box *box,
                               const float *J, const double *a, double beta,
                               const struct cuda_embed_draws *d)
{
    const unsigned grid = cuda_grid(own_sites(box));
    const uint32_t ndirs = d->far.n_dirs > box->g.ndim ? (uint32_t)d->far.n_dirs
                                                       : (uint32_t)box->g.ndim;
    if (box->g.ndim == 3)
        embed_bonds_kernel<3><<<grid, CUDA_THREADS, 0, stream>>>(*box, J, a, beta, ndirs,
                                                                d->seed, d->bonds);
    else
        embed_bonds_kernel<2><<<grid, CUDA_THREADS, 0, stream>>>(*box, J, a, beta, ndirs,
                                                                d->seed, d->bonds);
    return cudaGetLastError();
}

/* The labels of a box alone whose bonds are in place: the labelling of cuda_sw.h, and
 * phi^4's further pairs (d->far) united after it, then flattened again. */
static cudaError_t embed_label(cudaStream_t stream, const struct cuda_sw_box *box,
                               const double *a, const struct cuda_embed_draws *d)
{
    cudaError_t err = cuda_sw_label(stream, box);
    if (d->far.n_dirs <= box->g.ndim || err != cudaSuccess)
        return err;
    const unsigned grid = cuda_grid((int64_t)box->g.nsites);
    if (box->g.ndim == 3)
        embed_far_kernel<3><<<grid, CUDA_THREADS, 0, stream>>>(
            *box, a, d->far.k_axis2, d->far.k_diag, (uint32_t)d->far.n_dirs, d->seed, d->bonds);
    else
        embed_far_kernel<2><<<grid, CUDA_THREADS, 0, stream>>>(
            *box, a, d->far.k_axis2, d->far.k_diag, (uint32_t)d->far.n_dirs, d->seed, d->bonds);
    err = cudaGetLastError();
    return err == cudaSuccess ? cuda_sw_flatten(stream, box) : err;
}

/* The labels and the decisions of a box alone whose bonds are in place. */
static cudaError_t labels_decisions(cudaStream_t stream, const struct cuda_sw_box *box,
                                    uint32_t n, const double *a,
                                    const struct cuda_embed_draws *d)
{
    cudaError_t err = embed_label(stream, box, a, d);
    /* F = 0: Swendsen-Wang keeps at 2^31, Wolff flips; in a field both weigh each
     * cluster's sum of a */
    if (err == cudaSuccess && d->wolff && d->field != 0.0)
        err = cuda_embed_field_wolff_decide(stream, box, n, a, d->seed_site, d->field, d->seed,
                                            d->decide, d->wolff);
    else if (err == cudaSuccess && d->wolff)
        err = cuda_wolff_decide(stream, box, d->seed_site, d->seed, d->decide, 0.0, 0, d->wolff);
    else if (err == cudaSuccess && d->field != 0.0)
        err = cuda_embed_field_decide(stream, box, n, a, d->field, d->seed, d->decide,
                                      d->field_work, d->field_work_bytes);
    else if (err == cudaSuccess)
        err = cuda_sw_decide(stream, box, d->seed, d->decide, UINT64_C(1) << 31, 0);
    return err;
}

extern "C" cudaError_t cuda_embed_phi4_bonds(cudaStream_t stream, const struct cuda_sw_box *box,
                                             const void *phi, int single, double *a,
                                             double k_near, const struct cuda_embed_draws *draws)
{
    uint32_t first = 0, count = 0;
    a_range(box, &first, &count);
    const unsigned grid = cuda_grid(count);
    if (single)
        embed_phi4_a_kernel<float><<<grid, CUDA_THREADS, 0, stream>>>((const float *)phi, first,
                                                                     count, a);
    else
        embed_phi4_a_kernel<double><<<grid, CUDA_THREADS, 0, stream>>>((const double *)phi,
                                                                      first, count, a);
    cudaError_t err = cudaGetLastError();
    if (err == cudaSuccess)
        err = embed_bonds(stream, box, NULL, a, k_near, draws);
    return err;
}

extern "C" cudaError_t cuda_embed_phi4_negate(cudaStream_t stream, const struct cuda_sw_box *box,
                                              void *phi, int single,
                                              const struct cuda_embed_flips *flips)
{
    const unsigned grid = cuda_grid(own_sites(box));
    if (single)
        embed_negate_kernel<float><<<grid, CUDA_THREADS, 0, stream>>>(*box, *flips,
                                                                     (float *)phi);
    else
        embed_negate_kernel<double><<<grid, CUDA_THREADS, 0, stream>>>(*box, *flips,
                                                                      (double *)phi);
    return cudaGetLastError();
}

extern "C" cudaError_t cuda_embed_heisenberg_bonds(cudaStream_t stream,
                                                   const struct cuda_sw_box *box,
                                                   const float *spins, const float *J, double *a,
                                                   const double r[3], double beta,
                                                   const struct cuda_embed_draws *draws)
{
    uint32_t first = 0, count = 0;
    a_range(box, &first, &count);
    embed_a_kernel<<<cuda_grid(count), CUDA_THREADS, 0, stream>>>(
        spins, (uint32_t)box->g.nsites, first, count, r[0], r[1], r[2], a);
    cudaError_t err = cudaGetLastError();
    if (err == cudaSuccess)
        err = embed_bonds(stream, box, J, a, beta, draws);
    return err;
}

extern "C" cudaError_t cuda_embed_heisenberg_reflect(cudaStream_t stream,
                                                     const struct cuda_sw_box *box, float *spins,
                                                     const double *a, const double r[3],
                                                     const struct cuda_embed_flips *flips)
{
    embed_reflect_kernel<<<cuda_grid(own_sites(box)), CUDA_THREADS, 0, stream>>>(
        *box, *flips, spins, a, r[0], r[1], r[2]);
    return cudaGetLastError();
}

extern "C" cudaError_t cuda_embed_phi4_step(cudaStream_t stream, const struct cuda_sw_box *box,
                                            void *phi, int single, double *a, double k_near,
                                            const struct cuda_embed_draws *draws)
{
    const uint32_t n = (uint32_t)box->g.nsites;
    const struct cuda_embed_flips flips = { draws->wolff, NULL, NULL, NULL, NULL };
    cudaError_t err = cuda_embed_phi4_bonds(stream, box, phi, single, a, k_near, draws);
    if (err == cudaSuccess)
        err = labels_decisions(stream, box, n, a, draws);
    if (err == cudaSuccess)
        err = cuda_embed_phi4_negate(stream, box, phi, single, &flips);
    return err;
}

extern "C" cudaError_t cuda_embed_heisenberg_step(cudaStream_t stream,
                                                  const struct cuda_sw_box *box, float *spins,
                                                  const float *J, double *a, const double r[3],
                                                  double beta, const struct cuda_embed_draws *draws)
{
    const uint32_t n = (uint32_t)box->g.nsites;
    const struct cuda_embed_flips flips = { draws->wolff, NULL, NULL, NULL, NULL };
    cudaError_t err = cuda_embed_heisenberg_bonds(stream, box, spins, J, a, r, beta, draws);
    if (err == cudaSuccess)
        err = labels_decisions(stream, box, n, a, draws);
    if (err == cudaSuccess)
        err = cuda_embed_heisenberg_reflect(stream, box, spins, a, r, &flips);
    return err;
}
