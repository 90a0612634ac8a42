/*
 * Type-generic body of the AVX2 phi^4 sweep (phi4_avx2.c), included once per field type
 * with PHI4_R (float, double) and PHI4_S (f, d), which selects the eight-lane vector
 * primitives name_S of phi4_avx2.c and the coefficients t->S.
 */
#define PHI4_CAT2_(a, b) a##_##b
#define PHI4_CAT_(a, b) PHI4_CAT2_(a, b)
#define PHI4_FN(name) PHI4_CAT_(name, PHI4_S)
#define V PHI4_FN(vec8)
#define M PHI4_FN(mask8)

/* What every group of one pass needs. */
struct PHI4_FN(phi4_avx2_pass) {
    const struct phi4_geom *g;
    PHI4_R *phi;                                /* colour-transposed */
    const struct PHI4_FN(latmc_phi4_coef) *k;
    uint32_t nhit;
    const struct latmc_philox_x4_keys *keys;
    uint64_t rng_sweep;
    int64_t n;                                  /* L_x / ncolours: values per sub-row */
};

/*
 * The 8 values at offset (dx, dy, dz) from 8 sites of one row (y, z) and sub-row r (their
 * x mod ncolours), lane l at number m = m0 + l of the sub-row (lanes whose m falls outside
 * 0 .. n-1 get values that the caller discards). x + dx lies in sub-row r + dx, or, past
 * either end of 0 .. ncolours-1, in the sub-row wrapped around with m shifted by one; the
 * one lane whose m then leaves the row wraps to the row's other end. The loads may touch
 * up to 8 values outside the field: the PHI4_PAD slack.
 */
static inline V PHI4_FN(phi4_avx2_at)(const struct PHI4_FN(phi4_avx2_pass) *p, int64_t y,
                                        int64_t z, int r, int64_t m0, int dx, int dy, int dz)
{
    const struct phi4_geom *g = p->g;
    const int nc = g->colouring.ncolours;
    const int64_t ly = g->lat.ly, lz = g->lat.lz, n = p->n;
    int64_t yy = y + dy, zz = z + dz;   /* |d| <= 2 < every extent */
    yy += yy < 0 ? ly : yy >= ly ? -ly : 0;
    zz += zz < 0 ? lz : zz >= lz ? -lz : 0;
    int rr = r + dx, carry = 0;
    if (rr < 0) {
        rr += nc;
        carry = -1;
    } else if (rr >= nc) {
        rr -= nc;
        carry = 1;
    }
    const PHI4_R *sub = p->phi + (yy + ly * zz) * g->lat.lx + (int64_t)rr * n;
    V v = PHI4_FN(load8)(sub + m0 + carry);
    if (carry < 0 && m0 <= 0 && m0 > -8)              /* the lane with m = 0 */
        v = PHI4_FN(set_lane)(v, (int)-m0, sub[n - 1]);
    else if (carry > 0 && n - 1 - m0 >= 0 && n - 1 - m0 < 8)   /* the lane with m = n - 1 */
        v = PHI4_FN(set_lane)(v, (int)(n - 1 - m0), sub[0]);
    return v;
}

/* The neighbourhood sums of a group in one row, in the order of phi4_neighbour_sums. */
static inline void PHI4_FN(phi4_avx2_sums)(const struct PHI4_FN(phi4_avx2_pass) *p, int64_t y,
                                           int64_t z, int r, int64_t m0, V *c01, V *c02, V *c11)
{
    const int three = p->g->lat.ndim == 3;
    V near = PHI4_FN(set1)(0), far = PHI4_FN(set1)(0), diag = PHI4_FN(set1)(0);
#define AT(dx, dy, dz) PHI4_FN(phi4_avx2_at)(p, y, z, r, m0, dx, dy, dz)
    near = PHI4_FN(add)(near, AT(1, 0, 0));
    near = PHI4_FN(add)(near, AT(-1, 0, 0));
    far = PHI4_FN(add)(far, AT(2, 0, 0));
    far = PHI4_FN(add)(far, AT(-2, 0, 0));
    near = PHI4_FN(add)(near, AT(0, 1, 0));
    near = PHI4_FN(add)(near, AT(0, -1, 0));
    far = PHI4_FN(add)(far, AT(0, 2, 0));
    far = PHI4_FN(add)(far, AT(0, -2, 0));
    if (three) {
        near = PHI4_FN(add)(near, AT(0, 0, 1));
        near = PHI4_FN(add)(near, AT(0, 0, -1));
        far = PHI4_FN(add)(far, AT(0, 0, 2));
        far = PHI4_FN(add)(far, AT(0, 0, -2));
    }
    diag = PHI4_FN(add)(diag, AT(1, 1, 0));
    diag = PHI4_FN(add)(diag, AT(1, -1, 0));
    diag = PHI4_FN(add)(diag, AT(-1, 1, 0));
    diag = PHI4_FN(add)(diag, AT(-1, -1, 0));
    if (three) {
        diag = PHI4_FN(add)(diag, AT(1, 0, 1));
        diag = PHI4_FN(add)(diag, AT(1, 0, -1));
        diag = PHI4_FN(add)(diag, AT(-1, 0, 1));
        diag = PHI4_FN(add)(diag, AT(-1, 0, -1));
        diag = PHI4_FN(add)(diag, AT(0, 1, 1));
        diag = PHI4_FN(add)(diag, AT(0, 1, -1));
        diag = PHI4_FN(add)(diag, AT(0, -1, 1));
        diag = PHI4_FN(add)(diag, AT(0, -1, -1));
    }
#undef AT
    *c01 = near;
    *c02 = far;
    *c11 = diag;
}

/* The sub-row of `colour` in row (y, z). */
static inline int PHI4_FN(phi4_avx2_subrow)(const struct phi4_geom *g, int colour, int64_t y,
                                            int64_t z)
{
    const int nc = g->colouring.ncolours;
    const int shift = (int)((g->colouring.ay * y + g->colouring.az * z) % nc);
    return (colour - shift + nc) % nc;
}

/* One group of 8 sites during its hits: what phi4_avx2_load fills in. */
struct PHI4_FN(phi4_avx2_group) {
    V o, c;                          /* the field values and their linear coefficients */
    struct latmc_philox_x4_pre pre;  /* the hit-independent part of their Philox blocks */
    unsigned valid;                  /* lanes that are sites (bit per lane) */
    int npieces;                     /* rows the group's sites lie in (1 .. 8) */
    PHI4_R *piece_at[8];             /* where lane 0 would be in each row's sub-row */
    signed char piece_from[8], piece_to[8];  /* the lanes [from, to) of each row */
};

/* Load group grp (j0 = 8 grp) of `colour`: values, coefficients, Philox invariants. */
static inline void PHI4_FN(phi4_avx2_load)(const struct PHI4_FN(phi4_avx2_pass) *p, int colour,
                                           int64_t grp, struct PHI4_FN(phi4_avx2_group) *q)
{
    const struct phi4_geom *g = p->g;
    const struct PHI4_FN(latmc_phi4_coef) *k = p->k;
    const int64_t j0 = 8 * grp, n = p->n, left = g->per_colour - j0;
    const int nvalid = left <= 0 ? 0 : left < 8 ? (int)left : 8;
    q->valid = (1u << nvalid) - 1u;
    q->npieces = 0;
    /* Row by row (one row unless the group straddles rows): that row's lanes get the
     * sums computed with its addressing, lane for lane the reference's arithmetic. */
    V o = PHI4_FN(set1)(0), c01 = o, c02 = o, c11 = o;
    int64_t row = j0 / n, ms = j0 - row * n, y = row % g->lat.ly, z = row / g->lat.ly;
    for (int lane = 0; lane < nvalid; ) {
        const int len = n - ms < nvalid - lane ? (int)(n - ms) : nvalid - lane;
        const int r = PHI4_FN(phi4_avx2_subrow)(g, colour, y, z);
        const int64_t m0 = ms - lane;       /* lane l sits at number m0 + l */
        PHI4_R *at = p->phi + row * g->lat.lx + (int64_t)r * n + m0;
        V a01, a02, a11;
        PHI4_FN(phi4_avx2_sums)(p, y, z, r, m0, &a01, &a02, &a11);
        const V ov = PHI4_FN(load8)(at);
        if (len == 8) {
            o = ov;
            c01 = a01;
            c02 = a02;
            c11 = a11;
        } else {
            const M m = PHI4_FN(lanes)(lane, lane + len);
            o = PHI4_FN(select)(m, ov, o);
            c01 = PHI4_FN(select)(m, a01, c01);
            c02 = PHI4_FN(select)(m, a02, c02);
            c11 = PHI4_FN(select)(m, a11, c11);
        }
        q->piece_at[q->npieces] = at;
        q->piece_from[q->npieces] = (signed char)lane;
        q->piece_to[q->npieces] = (signed char)(lane + len);
        q->npieces++;
        lane += len;
        ms = 0;
        row++;
        if (++y == g->lat.ly) {
            y = 0;
            z++;
        }
    }
    q->o = o;
    if (k->finite_lambda) {
        /* c01 - (c02 - four_k c01 + 2 c11) inv_lambda */
        const V t = PHI4_FN(sub)(c02, PHI4_FN(mul)(PHI4_FN(set1)(k->four_k), c01));
        const V u = PHI4_FN(add)(t, PHI4_FN(mul)(PHI4_FN(set1)(2), c11));
        q->c = PHI4_FN(sub)(c01, PHI4_FN(mul)(u, PHI4_FN(set1)(k->inv_lambda)));
    } else {
        q->c = c01;
    }
    /* Philox blocks b0 = 2 grp, b1 = 2 grp + 1: lanes (b0, eta), (b0, u), (b1, eta), (b1, u) */
    const uint64_t b0 = 2 * (uint64_t)grp, b1 = b0 + 1;
    const uint32_t sw_hi = (uint32_t)(p->rng_sweep >> 32) << 16;
    const __m256i w0 = _mm256_setr_epi64x((long long)(uint32_t)b0, (long long)(uint32_t)b0,
                                          (long long)(uint32_t)b1, (long long)(uint32_t)b1);
    const long long h0 = (long long)((uint32_t)(b0 >> 32 & 0xffff) | sw_hi);
    const long long h1 = (long long)((uint32_t)(b1 >> 32 & 0xffff) | sw_hi);
    const __m256i w1 = _mm256_setr_epi64x(h0, h0, h1, h1);
    const __m256i w2 = _mm256_set1_epi64x((long long)(uint32_t)p->rng_sweep);
    latmc_philox_x4_pre(p->keys, w0, w1, w2, &q->pre);
}

static inline void PHI4_FN(phi4_avx2_store)(const struct PHI4_FN(phi4_avx2_group) *q)
{
    if (q->npieces == 1 && q->valid == 0xffu) {
        PHI4_FN(store8)(q->piece_at[0], q->o);
        return;
    }
    for (int i = 0; i < q->npieces; i++)
        PHI4_FN(maskstore8)(q->piece_at[i], PHI4_FN(lanes)(q->piece_from[i], q->piece_to[i]), q->o);
}

/*
 * A block of PHI4_AVX2_GROUPS consecutive groups (64 sites), hits in chunks of
 * PHI4_AVX2_HITS. Per chunk, three phases, each a loop of short independent iterations, so
 * that out-of-order execution overlaps their long dependency chains (one Philox4x32-10:
 * ~55 cycles; the logarithm: ~50; the Metropolis decision: ~30 cycles per hit, serial in
 * the hits of one site):
 *   1. the four Philox blocks of every (hit, group): raw draws to a buffer;
 *   2. their conversions and logarithms: proposals and log(u) to a buffer;
 *   3. the decisions, hit by hit, the block's groups interleaved (8 independent chains).
 * Every lane computes exactly latmc_phi4_hit's operations on exactly its own draws.
 */
static uint64_t PHI4_FN(phi4_avx2_block)(const struct PHI4_FN(phi4_avx2_pass) *p, int colour,
                                         int64_t block)
{
    enum { G = PHI4_AVX2_GROUPS, H = PHI4_AVX2_HITS };
    const struct PHI4_FN(latmc_phi4_coef) *k = p->k;
    struct PHI4_FN(phi4_avx2_group) q[G];
    for (int gi = 0; gi < G; gi++)
        PHI4_FN(phi4_avx2_load)(p, colour, G * block + gi, &q[gi]);
    const __m256i draw = _mm256_setr_epi64x(LATMC_PHI4_DRAW_ETA, LATMC_PHI4_DRAW_ACCEPT,
                                            LATMC_PHI4_DRAW_ETA, LATMC_PHI4_DRAW_ACCEPT);
    const uint32_t stream = latmc_rng_stream(LATMC_STREAM_UPDATE, 0);
    const V eps = PHI4_FN(set1)(k->epsilon), site = PHI4_FN(set1)(k->site);
    const V quartic = PHI4_FN(set1)(k->quartic);
    __m256i r_eta[H][G], r_u[H][G];
    V xi[H][G], lg[H][G];
    uint64_t accepted = 0;
    for (uint32_t h0 = 0; h0 < p->nhit; h0 += H) {
        const int nh = p->nhit - h0 < (uint32_t)H ? (int)(p->nhit - h0) : H;
        for (int hh = 0; hh < nh; hh++) {
            const uint32_t hit = h0 + (uint32_t)hh;
            /* word 3 = stream << 24 | phase << 16 | sub (latmc_rng_counter) */
            const uint32_t w3h = stream << 24 | (latmc_phi4_rng_phase(colour, hit) & 0xffu) << 16 |
                                 latmc_phi4_rng_sub(hit, 0);
            const __m256i w3 = _mm256_add_epi64(_mm256_set1_epi64x((long long)w3h), draw);
            for (int gi = 0; gi < G; gi += LATMC_PHILOX_X4_NSETS) {
                const struct latmc_philox_x4_pre *pre[LATMC_PHILOX_X4_NSETS];
                __m256i o01[LATMC_PHILOX_X4_NSETS], o23[LATMC_PHILOX_X4_NSETS];
                for (int i = 0; i < LATMC_PHILOX_X4_NSETS; i++)
                    pre[i] = &q[gi + i].pre;
                latmc_philox_x4_finish_sets(p->keys, pre, w3, o01, o23);
                for (int i = 0; i < LATMC_PHILOX_X4_NSETS; i++) {
                    /* words 0-3 of b0, of b1 */
                    r_eta[hh][gi + i] = _mm256_unpacklo_epi64(o01[i], o23[i]);
                    r_u[hh][gi + i] = _mm256_unpackhi_epi64(o01[i], o23[i]);
                }
            }
        }
        for (int hh = 0; hh < nh; hh++)
            for (int gi = 0; gi < G; gi += PHI4_LOG_N) {
                V u[PHI4_LOG_N];
                for (int i = 0; i < PHI4_LOG_N; i++) {
                    xi[hh][gi + i] = PHI4_FN(mul)(eps, PHI4_FN(signed8)(r_eta[hh][gi + i]));
                    u[i] = PHI4_FN(unit8)(r_u[hh][gi + i]);
                }
                PHI4_FN(logn)(u, &lg[hh][gi]);
            }
        for (int hh = 0; hh < nh; hh++) {
            for (int gi = 0; gi < G; gi++) {
                M acc;
                q[gi].o = PHI4_FN(hit8)(q[gi].o, xi[hh][gi], lg[hh][gi], q[gi].c, site, quartic, &acc);
                accepted += (uint64_t)__builtin_popcount(PHI4_FN(bits)(acc) & q[gi].valid);
            }
        }
    }
    for (int gi = 0; gi < G; gi++)
        PHI4_FN(phi4_avx2_store)(&q[gi]);
    return accepted;
}

uint64_t PHI4_FN(cpu_phi4_sweep_avx2)(const struct phi4_geom *g, PHI4_R *phi,
                                      const struct latmc_phi4_tables *t, uint64_t seed,
                                      uint64_t sweep, int n_threads);

uint64_t PHI4_FN(cpu_phi4_sweep_avx2)(const struct phi4_geom *g, PHI4_R *phi,
                                      const struct latmc_phi4_tables *t, uint64_t seed,
                                      uint64_t sweep, int n_threads)
{
    struct latmc_philox_x4_keys keys;
    latmc_philox_x4_keys_init(&keys, seed);
    const int64_t nblocks = (g->per_colour + 8 * PHI4_AVX2_GROUPS - 1) / (8 * PHI4_AVX2_GROUPS);
    const int ncolours = g->colouring.ncolours;
    struct PHI4_FN(phi4_avx2_pass) p = {
        .g = g, .phi = phi, .k = &t->PHI4_S, .nhit = t->nhit, .keys = &keys,
        .n = g->lat.lx / ncolours,
    };
    uint64_t accepted = 0;
    if (!cpu_use_threads(n_threads, g->per_colour)) {
        for (uint32_t pass = 0; pass < t->nloc; pass++) {
            p.rng_sweep = latmc_phi4_rng_sweep(sweep, t->nloc, pass);
            for (int colour = 0; colour < ncolours; colour++)
                for (int64_t block = 0; block < nblocks; block++)
                    accepted += PHI4_FN(phi4_avx2_block)(&p, colour, block);
        }
        return accepted;
    }
    LATMC_OMP(parallel num_threads(n_threads) firstprivate(p) reduction(+:accepted))
    {
        for (uint32_t pass = 0; pass < t->nloc; pass++) {
            p.rng_sweep = latmc_phi4_rng_sweep(sweep, t->nloc, pass);
            for (int colour = 0; colour < ncolours; colour++) {
                /* the loop's closing barrier keeps the colours apart */
                LATMC_OMP(for schedule(static))
                for (int64_t block = 0; block < nblocks; block++)
                    accepted += PHI4_FN(phi4_avx2_block)(&p, colour, block);
            }
        }
    }
    return accepted;
}

#undef V
#undef M
#undef PHI4_FN
#undef PHI4_CAT_
#undef PHI4_CAT2_
