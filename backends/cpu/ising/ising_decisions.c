/*
 * The Ising chain with bit-sliced decisions on the CPU (ising_decisions.h): for each group
 * of 32 sites of a colour, the thresholds of its sites from the core's tables, then the
 * group's decisions by the reference rule (lib/ising_decision_rules.h) and the new spins.
 * Plain C, written to be obviously right; the layouts are read through the two small
 * accessors below, so both chains run on whichever layout the sim's SIMD level keeps.
 */
#include "ising_decisions.h"

#include <string.h>

#include "cpu_features.h"
#include "ising_decision_rules.h"
#include "ising_rules.h" /* the neighbour sums of the C level's layout */

static struct latmc_site local_site(const struct cpu_ising_dec_view *v, struct latmc_site s)
{
    return cpu_ising_dec_local_site(v, s);
}

/* Byte x / 2 (floor; -1 and `half` are the pads) of half-row (r, x mod 2) of the spins or,
 * with `bond`, of the +-J bond plane (ising_split.h). */
static uint8_t *split_at(const struct cpu_ising_split *sp, int64_t r, int64_t x, int bond)
{
    const int par = (int)(x & 1);
    uint8_t *row = bond ? cpu_ising_split_bond_row(sp, r, par) : cpu_ising_split_row(sp, r, par);
    return row + (x >= 0 ? x / 2 : -1); /* x = -1: the pad before, x = lx: the pad after */
}

/* The table index k = number of neighbours with eps_ij s_j = +1, split rows. The
 * neighbours along x at x - 1 = -1 and x + 1 = lx are the pads (the periodic wrap). */
static int split_k(const struct cpu_ising_split *sp, const struct latmc_site *s)
{
    const int64_t x = s->x, y = s->y, z = s->z, ly = sp->ly;
    const int64_t r = y + ly * z;
    /* the neighbours (row, x) in the order +x, -x, +y, -y, +z, -z */
    const int64_t nr[6] = { r, r, latmc_wrap_up(y, ly) + ly * z, latmc_wrap_down(y, ly) + ly * z,
                            y + ly * latmc_wrap_up(z, sp->lz),
                            y + ly * latmc_wrap_down(z, sp->lz) };
    const int64_t nx[6] = { x + 1, x - 1, x, x, x, x };
    const int n = 2 * sp->ndim;
    int k = 0;
    for (int i = 0; i < n; i++) {
        int up = *split_at(sp, nr[i], nx[i], 0);
        if (sp->bonds) {
            /* the bond to +e_mu is bit mu of the site's own bond byte, the bond to -e_mu
             * bit mu of the neighbour's */
            const int mu = i / 2;
            const uint8_t bond = i % 2 == 0 ? *split_at(sp, r, x, 1)
                                            : *split_at(sp, nr[i], nx[i], 1);
            up ^= (bond >> mu) & 1;
        }
        k += up;
    }
    return k;
}

/* The site's spin (+1 or -1) and its table index k. */
static int8_t site_state(const struct cpu_ising_dec_view *v, const struct latmc_site *s, int *k)
{
    if (v->natural) {
        const int sum = v->eps ? latmc_ising_coupled_sum(v->local, v->natural, v->eps, *s)
                               : latmc_ising_neighbour_sum(v->local, v->natural, *s);
        *k = (sum + 2 * v->global->ndim) / 2;
        return v->natural[s->index];
    }
    *k = split_k(v->split, s);
    return *split_at(v->split, s->row, s->x, 0) ? (int8_t)1 : (int8_t)-1;
}

static void site_set(const struct cpu_ising_dec_view *v, const struct latmc_site *s, int8_t spin)
{
    if (v->natural) {
        v->natural[s->index] = spin;
        return;
    }
    const struct cpu_ising_split *sp = v->split;
    uint8_t *b = split_at(sp, s->row, s->x, 0);
    const uint8_t byte = spin > 0;
    *b = byte;
    const int64_t j = s->x / 2;
    if (j == 0) /* the pads repeat the half-row's ends */
        b[sp->half] = byte;
    if (j == sp->half - 1)
        b[-sp->half] = byte;
}

#define N_CLASSES CPU_ISING_DEC_CLASSES

static int class_of(int algorithm, int8_t old, int k)
{
    return algorithm == LATMC_ALGO_HEATBATH ? k : k + LATMC_ISING_MAX_K * (old > 0);
}

/* Bytes p[0 .. 7] as a little-endian word (byte i at bits 8i .. 8i + 7), and back. */
static inline uint64_t load8(const uint8_t *p)
{
    uint64_t x;
    memcpy(&x, p, sizeof x);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    x = __builtin_bswap64(x);
#endif
    return x;
}

static inline void store8(uint8_t *p, uint64_t x)
{
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    x = __builtin_bswap64(x);
#endif
    memcpy(p, &x, sizeof x);
}

#define ONES8 UINT64_C(0x0101010101010101)

/* Bit i of the result: bit 0 of byte i of x (bytes 0 or 1; the multiplication gathers
 * byte i's bit at bit 56 + i, with no carry into those bits). */
static inline uint32_t pack8(uint64_t x)
{
    return (uint32_t)((x * UINT64_C(0x0102040810204080)) >> 56);
}

/* Lanes whose 3-bit value (bit planes v0, v1, v2) equals c. */
static inline uint32_t lanes_equal(uint32_t v0, uint32_t v1, uint32_t v2, int c)
{
    return (c & 1 ? v0 : ~v0) & (c & 2 ? v1 : ~v1) & (c & 4 ? v2 : ~v2);
}

/* The inverse of pack8: byte i of the result is bit i of b (0 or 1). Each byte keeps its
 * own bit of the replicated b, then + 0x7f sets its top bit iff that bit was set. */
static inline uint64_t spread8(uint32_t b)
{
    const uint64_t kept = ((uint64_t)(b & 0xffu) * ONES8) & UINT64_C(0x8040201008040201);
    return ((kept + UINT64_C(0x7f7f7f7f7f7f7f7f)) >> 7) & ONES8;
}

/* Set bits of x (no library call). */
static inline int popcount32(uint32_t x)
{
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    x = (x + (x >> 4)) & 0x0f0f0f0fu;
    return (int)((x * 0x01010101u) >> 24);
}

/*
 * The split rows' fast case: lanes [l0, l1) all in one half-row (first: the first lane's
 * site, local). Their neighbours are runs of bytes at fixed offsets (ising_split.h): the
 * same run of the rows above and below, and of the other half-row of the row at offsets
 * par and par - 1 (the pads make the periodic wrap an offset too). The neighbour counts
 * are added eight lanes to a word (each byte at most 6: no carries), their bits gathered
 * into one word per bit, and the class masks formed from those: the same decisions as the
 * site by site path. The neighbours' rows are read a word past the last lane (inside the
 * half-row's padding, ising_split.h; no other thread writes them in this step); lanes
 * outside [l0, l1) are masked off.
 */
static uint64_t split_row_group(const struct cpu_ising_dec_view *v, const uint64_t *ct,
                                int algorithm, const struct latmc_ising_plane_names *names,
                                int64_t g, int l0, int l1, const struct latmc_site *first)
{
    const struct cpu_ising_split *sp = v->split;
    const int64_t y = first->y, z = first->z, ly = sp->ly, r = first->row;
    const int par = (int)(first->x & 1);
    const int64_t jx = first->x / 2;
    const int n = l1 - l0;
    const int64_t nr[4] = { latmc_wrap_up(y, ly) + ly * z, latmc_wrap_down(y, ly) + ly * z,
                            y + ly * latmc_wrap_up(z, sp->lz), y + ly * latmc_wrap_down(z, sp->lz) };
    const int nrows = sp->ndim == 3 ? 4 : 2;
    uint8_t *own = cpu_ising_split_row(sp, r, par) + jx;
    const uint8_t *oth = cpu_ising_split_row(sp, r, par ^ 1) + jx + par; /* x + 1; x - 1: [-1] */
    const uint8_t *ownb = sp->bonds ? cpu_ising_split_bond_row(sp, r, par) + jx : NULL;
    const uint8_t *othb = sp->bonds ? cpu_ising_split_bond_row(sp, r, par ^ 1) + jx + par : NULL;
    uint32_t k0 = 0, k1 = 0, k2 = 0, spin = 0; /* bit i: lane l0 + i */
    for (int w = 0; w < (n + 7) / 8; w++) {
        const int o = 8 * w;
        uint64_t xp = load8(oth + o), xm = load8(oth + o - 1);
        if (ownb) { /* +-J: eps s = +1 iff spin byte ^ bond bit = 1 */
            xp ^= load8(ownb + o) & ONES8;
            xm ^= load8(othb + o - 1) & ONES8;
        }
        uint64_t k = xp + xm;
        for (int m = 0; m < nrows; m++) {
            uint64_t nb = load8(cpu_ising_split_row(sp, nr[m], par) + jx + o);
            if (ownb) {
                const int mu = 1 + m / 2;
                const uint8_t *bb = m % 2 == 0 ? ownb : cpu_ising_split_bond_row(sp, nr[m], par) + jx;
                nb ^= (load8(bb + o) >> mu) & ONES8;
            }
            k += nb;
        }
        k0 |= pack8(k & ONES8) << o;
        k1 |= pack8((k >> 1) & ONES8) << o;
        k2 |= pack8((k >> 2) & ONES8) << o;
        /* the own half-row only up to the last lane: the bytes after it may be another
         * thread's lanes, written while this one reads */
        uint64_t mine = 0;
        if (o + 8 <= n)
            mine = load8(own + o);
        else
            for (int i = o; i < n; i++)
                mine |= (uint64_t)own[i] << (8 * (i - o));
        spin |= pack8(mine) << o;
    }
    const uint32_t lanes = n == 32 ? UINT32_MAX : (UINT32_C(1) << n) - 1;
    /* the classes present, each once (empty masks cost the comparison work for nothing),
     * those always accepted (T = 2^32) or never (T = 0) merged into one each: they take
     * no part in the planes, and each class in the list costs every plane an operation */
    uint32_t mask[N_CLASSES + 2];
    uint64_t t[N_CLASSES + 2];
    uint32_t always = 0, never = 0;
    int present = 0;
    const int metropolis = algorithm != LATMC_ALGO_HEATBATH;
    const int kmax = 2 * sp->ndim; /* k = 0 .. 2 ndim */
    for (int s_up = 0; s_up < (metropolis ? 2 : 1); s_up++) {
        const uint32_t with_spin = !metropolis ? lanes : s_up ? spin & lanes : ~spin & lanes;
        for (int kc = 0; kc <= kmax; kc++) {
            const uint32_t m = lanes_equal(k0, k1, k2, kc) & with_spin;
            const uint64_t tc = ct[kc + LATMC_ISING_MAX_K * s_up];
            if (!m)
                continue;
            if (tc >> 32)
                always |= m;
            else if (tc == 0)
                never |= m;
            else {
                mask[present] = m << l0;
                t[present++] = tc;
            }
        }
    }
    if (always) {
        mask[present] = always << l0;
        t[present++] = UINT64_C(1) << 32;
    }
    if (never) {
        mask[present] = never << l0;
        t[present++] = 0;
    }
    int planes;
    const uint32_t accept = latmc_ising_group_decide_classes(t, mask, present, names,
                                                             (uint64_t)g, &planes) >> l0;
    /* the lanes that change: Metropolis the accepted, heat bath those set to the other value */
    const uint32_t flip = (metropolis ? accept : accept ^ spin) & lanes;
    /* whole words of lanes as words; the last lanes of a partial group byte by byte (the
     * bytes after them may belong to another thread's or box's lanes) */
    int w = 0;
    for (; 8 * w + 8 <= n; w++)
        store8(own + 8 * w, load8(own + 8 * w) ^ spread8(flip >> (8 * w)));
    for (int i = 8 * w; i < n; i++)
        own[i] ^= (uint8_t)((flip >> i) & 1u);
    const uint64_t changed = (uint64_t)popcount32(flip);
    uint8_t *row = own - jx; /* the pads repeat the half-row's ends */
    if (jx == 0)
        row[sp->half] = row[0];
    if (jx + n == sp->half)
        row[-1] = row[sp->half - 1];
    return changed;
}

uint64_t cpu_ising_decisions_group(const struct cpu_ising_dec_view *v, const uint64_t *ct,
                                   int algorithm, const struct latmc_ising_plane_names *names,
                                   int colour, int64_t g, int l0, int l1)
{
    struct latmc_site sites[LATMC_BITSLICE_LANES];
    int8_t old[LATMC_BITSLICE_LANES];
    uint32_t mask[N_CLASSES] = { 0 };
    struct latmc_site s = latmc_checkerboard_site(v->global, colour, 32 * g + l0);
    if (!v->natural && s.group + (l1 - l0) <= v->global->lx / 2) { /* one half-row */
        const struct latmc_site first = local_site(v, s);
        return split_row_group(v, ct, algorithm, names, g, l0, l1, &first);
    }
    for (int l = l0; l < l1; l++) {
        if (l > l0)
            latmc_checkerboard_next(v->global, colour, &s);
        sites[l] = local_site(v, s);
        int k;
        old[l] = site_state(v, &sites[l], &k);
        mask[class_of(algorithm, old[l], k)] |= UINT32_C(1) << l;
    }
    int planes;
    const uint32_t accept = latmc_ising_group_decide_classes(ct, mask, N_CLASSES, names,
                                                             (uint64_t)g, &planes);
    uint64_t changed = 0;
    for (int l = l0; l < l1; l++) {
        const int8_t spin = latmc_ising_decided_spin(algorithm, old[l], (int)((accept >> l) & 1u));
        if (spin != old[l]) {
            site_set(v, &sites[l], spin);
            changed++;
        }
    }
    return changed;
}

void cpu_ising_decisions_class_thresholds(const struct latmc_ising_tables *t, int algorithm,
                                          uint64_t ct[CPU_ISING_DEC_CLASSES])
{
    for (int c = 0; c < N_CLASSES; c++) /* latmc_ising_site_threshold of class_of's classes */
        ct[c] = latmc_ising_site_threshold(t, algorithm, c >= LATMC_ISING_MAX_K ? 1 : -1,
                                           c % LATMC_ISING_MAX_K);
}

uint64_t cpu_ising_decisions_range(const struct cpu_ising_dec_view *v,
                                   const struct latmc_ising_tables *t, int algorithm,
                                   uint64_t seed, const struct latmc_step *step, int64_t j0,
                                   int64_t j1, const struct cpu_team *team)
{
    if (j1 <= j0)
        return 0;
    const int colour = step->colour;
    const struct latmc_ising_plane_names names = latmc_ising_plane_names_step(seed, step);
    uint64_t ct[N_CLASSES];
    cpu_ising_decisions_class_thresholds(t, algorithm, ct);
    const int64_t g0 = j0 / LATMC_BITSLICE_LANES;
    const int64_t g1 = (j1 + LATMC_BITSLICE_LANES - 1) / LATMC_BITSLICE_LANES;
    int64_t s0, s1;
    cpu_team_share(team, g1 - g0, &s0, &s1);
    uint64_t changed = 0;
    for (int64_t g = g0 + s0; g < g0 + s1; g++) {
        const int64_t first = 32 * g, lo = j0 > first ? j0 : first;
        const int64_t hi = j1 < first + 32 ? j1 : first + 32;
        changed += cpu_ising_decisions_group(v, ct, algorithm, &names, colour, g, (int)(lo - first),
                                (int)(hi - first));
    }
    return changed;
}

/* ---- the kernel table (ising_decisions.h) ---- */

void cpu_ising_dec_dsp_init(struct cpu_ising_dec_dsp *dsp, unsigned flags)
{
    memset(dsp, 0, sizeof *dsp);
    dsp->range = cpu_ising_decisions_range;
    dsp->level = "c";
    CPU_DSP_LEVELS(cpu_ising_dec_dsp_init, dsp, flags);
}

/* ---- the fused pair (ising_decisions.h) ---- */

static uint64_t dec_pair_rows(struct cpu_ising_pair_runner *run, const struct cpu_ising_split *s,
                              int c, int64_t r0, int64_t r1)
{
    struct cpu_ising_dec_pair *p = (struct cpu_ising_dec_pair *)run;
    /* the storage's lattice as the split holds it (a slab's planes, halos included) */
    const struct latmc_lattice local = { s->ndim, s->lx, s->ly, s->lz, s->rows * s->lx };
    const int64_t rows_per_plane = s->ndim == 3 ? s->ly : 1;
    const struct cpu_ising_dec_view v = {
        .global = p->global, .local = &local, .origin = s->row_origin / rows_per_plane,
        .natural = NULL, .split = (struct cpu_ising_split *)s, .eps = NULL,
    };
    /* checkerboard number j = x / 2 + (L_x / 2) (global row) */
    const struct cpu_team alone = cpu_team_alone();
    return p->range_pass(&p->pass[c], &v, (r0 + s->row_origin) * s->half,
                         (r1 + s->row_origin) * s->half, &alone);
}

void cpu_ising_dec_pair_setup(struct cpu_ising_dec_pair *p, cpu_ising_dec_prepare_fn prepare,
                              cpu_ising_dec_range_pass_fn range_pass,
                              const struct latmc_lattice *global,
                              const struct latmc_ising_tables *t, int algorithm, uint64_t seed,
                              const struct latmc_step pair[2])
{
    p->runner.rows = dec_pair_rows;
    /* 128 groups a call: whole batches, the tail queue (a batch per 8 to 16 groups
     * queued, 12 % of them) run full */
    p->runner.min_sites = 128 * LATMC_BITSLICE_LANES;
    p->global = global;
    p->range_pass = range_pass;
    for (int c = 0; c < 2; c++)
        prepare(&p->pass[c], t, algorithm, global->ndim, seed, &pair[c]);
}
