/*
 * Tempering on the device with the chains resident (ising_batch.h; cuda_ising_temper.c
 * picks it): one block per (sample, replica) chain holds every member of the chain -- its nT
 * temperatures' spins, couplings and thresholds -- in shared memory for all sweeps and
 * exchange rounds of a list. A round then needs no launch, no sums in global memory and no
 * relaunch of the sweep kernel (the member's reload and store): the block's warps measure
 * their members' energies from shared memory, one warp decides the chain's pairs, and the
 * next pass reads the new thresholds. Exchanges never leave a chain, so no block waits for
 * another.
 *
 * The chain is the one the per-round launches give, bit for bit: each pass of a member is the
 * fused kernel's (ising_batch_packed_kernels.cu: the same Philox names, blocks 2 w and 2 w + 1
 * of word w, the same class sums and packed_update_word's decisions, here written for the
 * ALU pipe's sake with fewer logic operations: chain_neighbours, chain_decide, chain_pass),
 * the sums the same exact integers, the decisions
 * and round trips exec/cuda_temper_round.cuh's (lib/ens_exchange_rule.h, the same draws).
 * Only the order of work differs: warp k updates members k, k + warps, ..., its lanes the
 * member's words lane, lane + 32, ... A member being one warp's, only the rounds wait for
 * the whole block (before: every energy; after: the new temperatures); between rounds the
 * warps go at their own pace.
 */
#include "cuda_launch.cuh"
#include "cuda_philox.cuh"
#include "ising_batch.h"
#include "cuda_temper_round.cuh"
#include "ens_exchange_rule.h"
#include "ising_batch_word.cuh"
#include "ising_rules.h" /* latmc_ising_rng_name */

#include <cuda_pipeline.h>

#include <latmc/sim.h> /* LATMC_ALGO_* */

/* The state's part of each temperature (cuda_temper.h): the packed members' thresholds. */
static __host__ __device__ __forceinline__ const struct cuda_ising_packed_thresholds *
packed_thr_of_t(const struct cuda_ens_temper_dev &d)
{
    return (const struct cuda_ising_packed_thresholds *)d.param_of_t;
}

#define CHAIN_MAX_WARPS 32
constexpr int CHAIN_WORDS_IN_FLIGHT = 4; /* a lane's words unrolled (chain_pass) */

/* The shared memory of a block, in this order (16-byte aligned pieces). */
struct chain_layout {
    uint32_t spins, eps, geo, thr, gid, temp, at, dir, start, flips, energy, seed, ladder, total;
};

static __host__ __device__ uint32_t up16(uint32_t x)
{
    return (x + 15u) & ~15u;
}

static __host__ __device__ struct chain_layout chain_layout_of(uint32_t words, int nT, int cw)
{
    struct chain_layout l;
    const uint32_t n = (uint32_t)nT;
    l.spins = 0;
    l.eps = up16(l.spins + n * 2 * words * 4);
    l.geo = up16(l.eps + n * 2 * words * (uint32_t)cw * 4);
    l.thr = up16(l.geo + words * 48);
    l.gid = up16(l.thr + n * 16 * 8 + 256); /* room to start the tables at a multiple of 256 */
    l.temp = up16(l.gid + n * 4);
    l.at = up16(l.temp + n * 4);
    l.dir = up16(l.at + n * 4);
    l.start = up16(l.dir + n * 4);
    l.flips = up16(l.start + n * 8);
    l.energy = up16(l.flips + n * 32 * 8);
    l.seed = up16(l.energy + n * 8);
    l.ladder = up16(l.seed + n * 8);
    l.total = up16(l.ladder + n * 8);
    return l;
}

/*
 * Multipliers the kernel takes as a parameter: not knowing their values, the compiler keeps
 * the products that use them as multiplies (IMAD, on the FMA-heavy pipe) instead of turning
 * them into shifts and adds (ALU pipe). The two pipes are balanced by hand: Philox's wide
 * multiplies (34 a word, each twice an IMAD's time on that pipe) keep the FMA-heavy pipe the busier one, so
 * only these products are multiplies and the other shifts stay shifts (doc/PERFORMANCE.md).
 */
struct chain_muls {
    uint32_t sixteen, seven;
    uint32_t fix[2]; /* -(7 - ND) for ND = 4, 6 (the measuring pass) */
};

/*
 * A word's neighbours in shared memory, as byte offsets from its colour's first word (< 2^16:
 * at most 1024 words), each in a word of its own so that a neighbour's address is one add
 * and nothing is unpacked: three 16-byte entries a word, y up, y down, z up, z down; then for
 * colour 0's pass and colour 1's the x neighbour as a funnel shift of two words (lo, hi, the
 * shift: the other x neighbour's word next, hi = next and 4 bits; prev, lo = prev and 28).
 */
static __device__ void word_geometry(const struct cuda_ens_chain_geom &g, uint32_t w,
                                     uint4 *geo)
{
    const uint32_t r = w / g.wpr, wi = w - r * g.wpr, z = r / g.ly, y = r - z * g.ly;
    const uint32_t row = r * g.wpr, plane = g.ly * g.wpr, vol = g.words;
    const uint32_t y_up = y + 1 == g.ly ? w - (g.ly - 1) * g.wpr : w + g.wpr;
    const uint32_t y_down = y == 0 ? w + (g.ly - 1) * g.wpr : w - g.wpr;
    const uint32_t z_up = g.lz > 1 ? (z + 1 == g.lz ? w + plane - vol : w + plane) : 0;
    const uint32_t z_down = g.lz > 1 ? (z == 0 ? w + vol - plane : w - plane) : 0;
    const uint32_t next = row + (wi + 1 == g.wpr ? 0 : wi + 1);
    const uint32_t prev = row + (wi == 0 ? g.wpr - 1 : wi - 1);
    const uint32_t par0 = (y + z) & 1u; /* colour 0 takes the next word where 1 */
    geo[0] = make_uint4(4 * y_up, 4 * y_down, 4 * z_up, 4 * z_down);
    for (uint32_t c = 0; c < 2; c++) {
        const bool right = (par0 ^ c) != 0; /* the missing nibble from the next word */
        geo[1 + c] = right ? make_uint4(4 * w, 4 * next, 4, 0)
                           : make_uint4(4 * prev, 4 * w, 28, 0);
    }
}

/* The 2 ndim neighbour words of word w of the colour `other` (couplings xor-ed in), in the
 * pass of colour `colour`; raw0: the first x neighbour's word as stored (the measuring
 * pass's count of spins). */
template <int ND, int CW>
__device__ __forceinline__ void chain_neighbours(const uint32_t *other, const uint4 *geo,
                                                 const uint32_t *eps, uint32_t w, int colour,
                                                 uint32_t nb[ND], uint32_t &raw0)
{
    const uint4 a = geo[3 * w], x = geo[3 * w + 1 + colour];
    const unsigned char *bytes = (const unsigned char *)other;
    const auto word = [bytes](uint32_t off) { return *(const uint32_t *)(bytes + off); };
    nb[0] = raw0 = word(4 * w);
    nb[1] = __funnelshift_r(word(x.x), word(x.y), x.z);
    nb[2] = word(a.x);
    nb[3] = word(a.y);
    if constexpr (ND == 6) {
        nb[4] = word(a.z);
        nb[5] = word(a.w);
    }
    if constexpr (CW > 0) {
        uint32_t e[CW];
#pragma unroll
        for (int q = 0; q < CW; q++)
            e[q] = eps[CW * w + q];
#pragma unroll
        for (int d = 0; d < ND; d++)
            nb[d] ^= (e[d / 4] >> (d % 4)) & 0x11111111u;
    }
}

/*
 * The decisions of a word's 8 sites (packed_update_word's) with the member's 16 table entries
 * at shared address window + 128 sub + 8 class (window a multiple of 256, sub 0..1: two
 * temperatures' tables a window; a byte permute puts 8 x class | 128 sub under the window's
 * upper bytes). Each entry is the 64-bit c with u + c >= 2^32 exactly where the site's draw
 * u crosses its threshold t: Metropolis c = ~t (u > t: the site keeps its spin), heat bath
 * c = 2^32 - t (u >= t: the site's new spin is -1). The add's carry (an add with carry out)
 * goes into the result by a multiply-add with carry in, carries = 16 carries + hi(c) +
 * carry, sites 7 down to 0: one integer add on the ALU pipe and one IMAD.X on the FMA pipe
 * a site, instead of a compare and a predicated logic operation both on the ALU pipe.
 * Returns the carries, bit 4 n for site n.
 */
template <bool HEATBATH>
struct chain_decide {
    uint32_t window, sub; /* sub: 128 sub in every byte */
    __device__ __forceinline__ uint32_t operator()(uint32_t cls, const latmc_philox_ctr &u0,
                                                   const latmc_philox_ctr &u1,
                                                   const struct chain_muls &m) const
    {
        /* byte q of even8 = 8 x class of nibble 2q, of odd8 = 8 x class of nibble 2q+1 */
        const uint32_t even8 = ((cls << 3) & 0x78787878u) | sub;
        const uint32_t odd8 = ((cls >> 1) & 0x78787878u) | sub;
        uint32_t carries = 0;
#pragma unroll
        for (int n = 7; n >= 0; n--) {
            const uint32_t at = __byte_perm(n & 1 ? odd8 : even8, window, 0x7650 | (n >> 1));
            const uint32_t u = n < 4 ? u0.v[n] : u1.v[n - 4];
            uint2 c;
            asm("ld.shared.v2.u32 {%0, %1}, [%2];" : "=r"(c.x), "=r"(c.y) : "r"(at));
            asm("{\n\t.reg .u32 lo;\n\t"
                "add.cc.u32 lo, %1, %2;\n\t"
                "madc.lo.u32 %0, %0, %3, %4;\n\t}"
                : "+r"(carries) : "r"(u), "r"(c.x), "r"(m.sixteen), "r"(c.y));
        }
        return carries;
    }
};

/* A table entry of chain_decide from the threshold t. */
template <bool HEATBATH>
__device__ __forceinline__ uint64_t chain_entry(uint32_t t)
{
    return HEATBATH ? (1ull << 32) - t : (uint64_t)~t;
}

/*
 * One member's pass of colour `colour`, by one warp (lane: the words lane, lane + 32, ...):
 * this lane's flips; with MEASURE (colour 1 before a round) also its words' anti-aligned
 * bonds and spins at -1 after the update, added to anti and neg (a loop of its own: the
 * sweeps between rounds carry no measuring code). Four words in flight.
 */
template <int ND, bool HEATBATH, int CW, bool MEASURE>
__device__ __forceinline__ uint32_t chain_pass(uint32_t *own_words, const uint32_t *other,
                                               const uint32_t *e, const uint4 *geo, uint32_t W,
                                               uint32_t lane, int colour,
                                               const struct cuda_philox_folded &f,
                                               const struct cuda_philox_group &grp,
                                               const chain_decide<HEATBATH> &decide,
                                               const struct chain_muls &m, uint32_t &anti,
                                               uint32_t &neg)
{
    /* Metropolis: the sites kept (no carry) counted, the flips the rest at the end */
    uint32_t counted = 0;
    /* the measuring pass's nibble sums (its bytes + 15 x its high nibbles; 16 x those) */
    uint32_t sum_bytes = 0, sum_high = 0;
    /* round 1's products of blocks 2 w and 2 w + 1 stepped by 64-bit adds (ALU pipe), not
     * two wide multiplies a word on the FMA-heavy pipe, which binds */
    uint64_t p_next = ens_block_product(2 * lane);
#pragma unroll CHAIN_WORDS_IN_FLIGHT
    for (uint32_t w = lane; w < W; w += 32) {
        const uint64_t p_even = p_next, p_odd = p_even + LATMC_PHILOX_M0;
        p_next += 64ull * LATMC_PHILOX_M0; /* word w + 32 */
        const uint32_t own = own_words[w];
        uint32_t nb[ND], raw0;
        chain_neighbours<ND, CW>(other, geo, e, w, colour, nb, raw0);
        const uint32_t cls = ens_word_class<ND>(own, nb);
        const latmc_philox_ctr u0 = cuda_philox_folded_draws_p0(f, grp, p_even);
        const latmc_philox_ctr u1 = cuda_philox_folded_draws_p0(f, grp, p_odd);
        const uint32_t carries = decide(cls, u0, u1, m);
        uint32_t nw;
        if constexpr (HEATBATH) {
            nw = carries;
            counted += __popc(nw ^ own);
        } else {
            nw = own ^ carries ^ 0x11111111u; /* the sites without a carry flip */
            counted += __popc(carries);
        }
        own_words[w] = nw;
        if constexpr (MEASURE) {
            /* a site's anti-aligned bonds from its class (the neighbours are the class's
             * low 3 bits, the same after the update): n1 where its new spin is 0, ND - n1
             * where 1; (n1 ^ 7 s) - (7 - ND) s is that, a nibble each with no borrow */
            const uint32_t flipped = (cls ^ nw * m.seven) & 0x77777777u;
            const uint32_t bonds = nw * m.fix[ND == 6] + flipped;
            sum_bytes = __dp4a(bonds, 0x01010101u, sum_bytes);
            sum_high = __dp4a(bonds & 0xf0f0f0f0u, 0x01010101u, sum_high);
            neg += __popc(nw) + __popc(raw0);
        }
    }
    if constexpr (MEASURE)
        anti += sum_bytes - 15 * (sum_high >> 4);
    /* Metropolis: every lane took W / 32 words (W a multiple of 32: the chains run only
     * such members, cuda_ising_temper.c's resident_fits), 8 sites each */
    return HEATBATH ? counted : 8 * (W / 32) - counted;
}

/* n words (a multiple of 4, both ends 16-byte aligned) by one warp, 16 bytes a lane at a
 * time, several loads in flight (the write-back). */
static __device__ __forceinline__ void copy16(uint32_t *dst, const uint32_t *src, uint32_t n,
                                              uint32_t lane)
{
    uint4 *d4 = (uint4 *)dst;
    const uint4 *s4 = (const uint4 *)src;
#pragma unroll 4
    for (uint32_t i = lane; i < n / 4; i += 32)
        d4[i] = s4[i];
}

/* The same as asynchronous copies (cp.async: no registers, every piece of the lane in
 * flight at once; completed by this thread's __pipeline_wait_prior). */
static __device__ __forceinline__ void copy16_async(uint32_t *dst, const uint32_t *src, uint32_t n,
                                                    uint32_t lane)
{
    for (uint32_t i = lane; i < n / 4; i += 32)
        __pipeline_memcpy_async((uint4 *)dst + i, (const uint4 *)src + i, 16);
}

/* The members' energies per site from their words (each bond once: the colour-0 words
 * against their colour-1 neighbours, the fused kernel's walk), warp k members k, k + warps. */
template <int ND, int CW>
static __device__ void measure_from_words(const uint32_t *spins, const uint32_t *eps,
                                          const uint4 *geo, uint32_t W, int nT, uint32_t warp,
                                          uint32_t warps, uint32_t lane,
                                          const struct cuda_ens_round &r, double *energy)
{
    for (int j = (int)warp; j < nT; j += (int)warps) {
        const uint32_t *c0 = spins + 2 * j * W, *c1 = c0 + W;
        const uint32_t *e0 = eps + 2 * j * W * CW;
        uint32_t anti = 0, neg = 0;
        for (uint32_t w = lane; w < W; w += 32) {
            const uint32_t own = c0[w];
            uint32_t nb[ND], raw0;
            chain_neighbours<ND, CW>(c1, geo, e0, w, 0, nb, raw0);
            neg += __popc(own) + __popc(raw0);
            anti += ens_anti_bonds<ND>(own, nb);
        }
        for (int offset = 16; offset > 0; offset >>= 1) {
            anti += __shfl_down_sync(0xffffffffu, anti, offset);
            neg += __shfl_down_sync(0xffffffffu, neg, offset);
        }
        if (lane == 0)
            energy[j] = latmc_ising_energy_per_site(r.J, r.h, (int64_t)W * 8 * ND - 2 * (int64_t)anti,
                                                    (int64_t)W * 16 - 2 * (int64_t)neg, r.nsites);
    }
}

template <int ND, bool HEATBATH, int CW>
__global__ void __launch_bounds__(32 * CHAIN_MAX_WARPS)
ens_chain_kernel(struct cuda_ens_chain_geom g, struct cuda_ens_temper_dev d,
                 struct cuda_ens_round r, struct cuda_ens_chain_list list,
                 struct cuda_ens_packed_member *members, unsigned long long *changed,
                 struct chain_muls mul)
{
    extern __shared__ __align__(16) unsigned char sh[];
    const struct chain_layout l = chain_layout_of(g.words, r.n_temperatures, CW);
    uint32_t *spins = (uint32_t *)(sh + l.spins), *eps = (uint32_t *)(sh + l.eps);
    uint4 *geo = (uint4 *)(sh + l.geo);
    /* the thresholds from a multiple of 256 in the shared window (chain_decide) */
    const uint32_t thr_pad = (0u - (uint32_t)__cvta_generic_to_shared(sh + l.thr)) & 255u;
    uint64_t *thr = (uint64_t *)(sh + l.thr + thr_pad); /* chain_decide's entries */
    const uint32_t thr_at = (uint32_t)__cvta_generic_to_shared(thr);
    int32_t *gid = (int32_t *)(sh + l.gid), *temp = (int32_t *)(sh + l.temp);
    int32_t *at = (int32_t *)(sh + l.at), *dir = (int32_t *)(sh + l.dir);
    unsigned long long *start = (unsigned long long *)(sh + l.start);
    unsigned long long *flips = (unsigned long long *)(sh + l.flips);
    double *energy = (double *)(sh + l.energy);
    uint64_t *seed = (uint64_t *)(sh + l.seed);
    double *ladder = (double *)(sh + l.ladder);
    const int nT = r.n_temperatures, nR = r.n_replicas;
    const uint32_t W = g.words, T = blockDim.x, tid = threadIdx.x;
    const uint32_t lane = tid & 31u, warp = tid >> 5, warps = T >> 5;
    const int64_t chain = blockIdx.x, s = chain / nR, rep = chain - s * nR;
    const int64_t base = s * nT * nR + rep; /* slot (s, t, rep) = base + t nR */

    /* each warp's members' arrays first, as asynchronous copies (cp.async: every lane's
     * 16-byte pieces in flight at once, no registers), done while the block sets up the
     * rest; the host checked the alignment */
    for (int j = (int)warp; j < nT; j += (int)warps) {
        const struct cuda_ens_packed_member *mem = &members[d.member_at[base + (int64_t)j * nR]];
        for (int c = 0; c < 2; c++) {
            copy16_async(spins + (2 * j + c) * W, mem->colour[c], W, lane);
            if constexpr (CW > 0)
                copy16_async(eps + (2 * j + c) * W * CW, mem->eps[c], W * CW, lane);
        }
    }
    __pipeline_commit();
    /* the chain's members, local index j = their temperature at the list's start */
    for (int j = (int)tid; j < nT; j += (int)T) {
        const int m = d.member_at[base + (int64_t)j * nR];
        gid[j] = m;
        temp[j] = j;
        at[j] = j;
        dir[j] = d.rt_dir[m];
        start[j] = d.rt_start[m];
        seed[j] = members[m].seed;
        ladder[j] = d.ladder[j];
    }
    for (uint32_t i = tid; i < (uint32_t)nT * 16; i += T)
        thr[i] = chain_entry<HEATBATH>(packed_thr_of_t(d)[i / 16].t[i % 16]);
    for (uint32_t i = tid; i < (uint32_t)nT * 32; i += T)
        flips[i] = 0;
    for (uint32_t w = tid; w < W; w += T)
        word_geometry(g, w, geo + 3 * w);
    __pipeline_wait_prior(0); /* this thread's copies */
    __syncthreads();

    uint64_t sweep = list.sweep0;
    for (int seg = 0; seg < list.n; seg++) {
        for (uint32_t k = 0; k < list.n_sweeps[seg]; k++, sweep++) {
            /* before a round, the colour-1 pass also counts the members' sums: every bond
             * joins the two colours, so a colour-1 word's new value against its colour-0
             * neighbours (final in this sweep) counts each bond once, as the fused kernel's
             * colour-0 walk does -- the same exact integers */
            const bool measure = list.round_after[seg] && k + 1 == list.n_sweeps[seg];
#pragma unroll
            for (int colour = 0; colour < 2; colour++) {
                for (int j = (int)warp; j < nT; j += (int)warps) {
                    struct cuda_philox_folded f;
                    latmc_philox_round_keys(seed[j], f.keys.k);
                    cuda_philox_refold_named(&f, latmc_ising_rng_name(sweep, colour));
                    const struct cuda_philox_group grp = cuda_philox_group_of(f, 0);
                    uint32_t *own_words = spins + (2 * j + colour) * W;
                    const uint32_t *other = spins + (2 * j + (colour ^ 1)) * W;
                    const uint32_t *e = eps + (2 * j + colour) * W * CW;
                    const uint32_t t = (uint32_t)temp[j];
                    const chain_decide<HEATBATH> decide = { thr_at + 256 * (t / 2),
                                                            0x80808080u * (t % 2) };
                    uint32_t anti = 0, neg = 0;
                    const uint32_t n_changed =
                        colour == 1 && measure
                            ? chain_pass<ND, HEATBATH, CW, true>(own_words, other, e, geo, W, lane,
                                                                 colour, f, grp, decide, mul,
                                                                 anti, neg)
                            : chain_pass<ND, HEATBATH, CW, false>(own_words, other, e, geo, W, lane,
                                                                  colour, f, grp, decide, mul,
                                                                  anti, neg);
                    flips[32 * j + lane] += n_changed; /* this lane's slot: no race */
                    if (colour == 1 && measure) { /* the same for the whole warp */
                        for (int offset = 16; offset > 0; offset >>= 1) {
                            anti += __shfl_down_sync(0xffffffffu, anti, offset);
                            neg += __shfl_down_sync(0xffffffffu, neg, offset);
                        }
                        const int64_t bonds = (int64_t)W * 8 * ND - 2 * (int64_t)anti;
                        const int64_t sp = (int64_t)W * 16 - 2 * (int64_t)neg;
                        if (lane == 0)
                            energy[j] = latmc_ising_energy_per_site(r.J, r.h, bonds, sp,
                                                                    r.nsites);
                    }
                }
                /* a member is only ever its warp's: its next pass waits for this warp alone,
                 * and the warps run their members' sweeps each at its own pace */
                __syncwarp();
            }
        }
        if (!list.round_after[seg])
            continue;
        if (list.n_sweeps[seg] == 0) /* a round right after another: sums from the words */
            measure_from_words<ND, CW>(spins, eps, geo, W, nT, warp, warps, lane, r, energy);
        __syncthreads(); /* every member's energy */
        if (warp == 0) { /* the round: ens_exchange_kernel's, on the local map */
            const uint64_t round = list.round[seg];
            for (int t = (int)(round % 2) + 2 * (int)lane; t + 1 < nT; t += 64) {
                const int a = at[t], b = at[t + 1];
                const double delta = latmc_ens_exchange_delta(1.0, ladder[t], ladder[t + 1],
                                                              energy[a], energy[b], r.nsites);
                const uint32_t u = latmc_ens_exchange_draw(r.seed, r.stream, round,
                                                           (uint64_t)chain * (uint64_t)(nT - 1) +
                                                               (uint64_t)t);
                if (latmc_ens_exchange_accept(delta, u)) {
                    atomicAdd(&d.stats[2 + t], 1ull);
                    at[t] = b;
                    at[t + 1] = a;
                    temp[a] = t + 1;
                    temp[b] = t;
                }
            }
            __syncwarp(); /* the chain's moves seen by every lane */
            for (int t = (int)lane; t < nT; t += 32) {
                const int j = at[t];
                signed char dj = (signed char)dir[j];
                uint64_t st = start[j], trip = 0;
                if (latmc_ens_trip_step(&dj, &st, t, nT - 1, list.round_sweeps[seg], &trip)) {
                    atomicAdd(&d.stats[0], 1ull);
                    atomicAdd(&d.stats[1], (unsigned long long)trip);
                }
                dir[j] = dj;
                start[j] = st;
            }
        }
        __syncthreads();
    }

    /* everything back: spins, counters, the map and each member's thresholds */
    for (int j = (int)warp; j < nT; j += (int)warps) {
        const struct cuda_ens_packed_member *mem = &members[gid[j]];
        for (int c = 0; c < 2; c++)
            copy16(mem->colour[c], spins + (2 * j + c) * W, W, lane);
        unsigned long long v = flips[32 * j + lane];
        for (int offset = 16; offset > 0; offset >>= 1)
            v += __shfl_down_sync(0xffffffffu, v, offset);
        const int m = gid[j];
        if (lane == 0) {
            changed[m] = list.clear ? v : changed[m] + v;
            d.temp_of[m] = temp[j];
            d.rt_dir[m] = (signed char)dir[j];
            d.rt_start[m] = start[j];
            d.member_at[base + (int64_t)temp[j] * nR] = m;
        }
        if (lane < 16)
            members[m].thr.t[lane] = packed_thr_of_t(d)[temp[j]].t[lane]; /* not the entries */
    }
}

/* One launch's arguments (blocks_per_sm: only the occupancy asked, nothing launched). */
struct chain_args {
    cudaStream_t stream;
    const struct cuda_ens_chain_geom &g;
    const struct cuda_ens_temper_dev &d;
    const struct cuda_ens_round &r;
    const struct cuda_ens_chain_list &list;
    struct cuda_ens_packed_member *members;
    unsigned long long *changed;
    int *blocks_per_sm;
};

template <int ND, bool HEATBATH, int CW>
static cudaError_t chain_launch(const struct chain_args &a)
{
    const uint32_t shared = chain_layout_of(a.g.words, a.r.n_temperatures, CW).total;
    const int warps = a.r.n_temperatures < CHAIN_MAX_WARPS ? a.r.n_temperatures : CHAIN_MAX_WARPS;
    /* the attribute set once per kernel and device (cuda_allow_shared keeps it) */
    cudaError_t err = cuda_allow_shared((const void *)ens_chain_kernel<ND, HEATBATH, CW>, shared);
    if (err != cudaSuccess)
        return err;
    if (a.blocks_per_sm) /* the question only */
        return cudaOccupancyMaxActiveBlocksPerMultiprocessor(
            a.blocks_per_sm, ens_chain_kernel<ND, HEATBATH, CW>, 32 * warps, shared);
    const unsigned grid = (unsigned)((int64_t)a.r.n_samples * a.r.n_replicas);
    struct chain_muls mul;
    mul.sixteen = 16;
    mul.seven = 7;
    mul.fix[0] = 0u - (7 - 4);
    mul.fix[1] = 0u - (7 - 6);
    ens_chain_kernel<ND, HEATBATH, CW><<<grid, 32 * warps, shared, a.stream>>>(
        a.g, a.d, a.r, a.list, a.members, a.changed, mul);
    return cudaGetLastError();
}

template <int ND>
static cudaError_t chain_launch_nd(const struct chain_args &a)
{
    constexpr int CW = ND == 6 ? 2 : 1;
    if (a.g.coupled)
        return a.g.heatbath ? chain_launch<ND, true, CW>(a) : chain_launch<ND, false, CW>(a);
    return a.g.heatbath ? chain_launch<ND, true, 0>(a) : chain_launch<ND, false, 0>(a);
}

extern "C" struct cuda_ens_chain_geom cuda_ens_chain_geom_of(const struct latmc_lattice *g,
                                                             int coupled, int algorithm)
{
    struct cuda_ens_chain_geom c;
    c.wpr = (uint32_t)(g->lx / 16);
    c.ly = (uint32_t)g->ly;
    c.lz = g->ndim == 3 ? (uint32_t)g->lz : 1u;
    c.words = (uint32_t)(g->nsites / 16);
    c.ndim = g->ndim;
    c.coupled = coupled != 0;
    c.heatbath = algorithm == LATMC_ALGO_HEATBATH;
    return c;
}

extern "C" uint32_t cuda_ens_chain_shared(const struct cuda_ens_chain_geom *g, int n_temperatures)
{
    const int cw = !g->coupled ? 0 : g->ndim == 3 ? 2 : 1;
    return chain_layout_of(g->words, n_temperatures, cw).total;
}

extern "C" cudaError_t cuda_ens_chain_run(cudaStream_t stream, const struct cuda_ens_chain_geom *g,
                                          const struct cuda_ens_temper_dev *d,
                                          const struct cuda_ens_round *r,
                                          const struct cuda_ens_chain_list *list,
                                          struct cuda_ens_packed_member *members,
                                          unsigned long long *changed, int *blocks_per_sm)
{
    static const struct cuda_ens_chain_list no_list {}; /* the question has none */
    const struct chain_args a = { stream, *g, *d, *r, list ? *list : no_list, members, changed,
                                  blocks_per_sm };
    return g->ndim == 3 ? chain_launch_nd<6>(a) : chain_launch_nd<4>(a);
}

/* ---- the rounds launched on their own (cuda_temper_round.cuh's template) ---- */

/* Ising members: their energy per site from the sums of lib/ising.h in the state. */
struct ens_ising_energy {
    __device__ double value(const struct cuda_ens_temper_dev &d, const struct cuda_ens_round &r,
                            int m) const
    {
        const struct latmc_ising_sums &s = ((const struct latmc_ising_sums *)d.sums)[m];
        return latmc_ising_energy_per_site(r.J, r.h, s.bonds, s.spins, r.nsites);
    }
};

/* Ising members of the packed layout: the thresholds of each temperature in the state. */
struct ens_ising_round_model : ens_ising_energy {
    struct cuda_ens_packed_member *members;
    __device__ void move(const struct cuda_ens_temper_dev &d, int m, int t) const
    {
        members[m].thr = packed_thr_of_t(d)[t];
    }
};

/* Ising members of the byte layout: each temperature's decision tables a copy in the state,
 * a move pointing the member's entry at it. */
struct ens_ising_bytes_round_model : ens_ising_energy {
    struct cuda_ens_ising_member *members;
    __device__ void move(const struct cuda_ens_temper_dev &d, int m, int t) const
    {
        members[m].tables = (const struct latmc_ising_tables *)d.param_of_t + t;
    }
};

extern "C" cudaError_t cuda_ens_exchange_round(cudaStream_t stream,
                                               const struct cuda_ens_temper_dev *d,
                                               const struct cuda_ens_round *r,
                                               struct cuda_ens_packed_member *members)
{
    return cuda_temper_exchange_round(stream, d, r, ens_ising_round_model{ {}, members }, false);
}

extern "C" cudaError_t cuda_ens_bytes_exchange_round(cudaStream_t stream,
                                                     const struct cuda_ens_temper_dev *d,
                                                     const struct cuda_ens_round *r,
                                                     struct cuda_ens_ising_member *members)
{
    return cuda_temper_exchange_round(stream, d, r, ens_ising_bytes_round_model{ {}, members },
                                      false);
}

extern "C" cudaError_t cuda_ens_bytes_temper_tables(cudaStream_t stream,
                                                    const struct cuda_ens_temper_dev *d,
                                                    struct cuda_ens_ising_member *members,
                                                    int64_t n)
{
    return cuda_temper_place(stream, d, ens_ising_bytes_round_model{ {}, members }, n);
}

extern "C" cudaError_t cuda_ens_temper_thresholds(cudaStream_t stream,
                                                  const struct cuda_ens_temper_dev *d,
                                                  struct cuda_ens_packed_member *members,
                                                  int64_t n)
{
    return cuda_temper_place(stream, d, ens_ising_round_model{ {}, members }, n);
}
