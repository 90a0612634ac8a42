/*
 * Type-generic body of the phi^4 Metropolis step (one colour of one pass: the core's plan
 * runs a sweep as these steps, lib/model_phi4.c) and hot start, included by
 * phi4_sweep.c once per field type with
 *   PHI4_R  the field type (float, double)
 *   PHI4_S  its suffix (f, d): selects latmc_phi4_*_S and the tables' coefficients t->S
 * The chain (doc/models/phi4.md): nloc passes; each pass visits the colours in order;
 * every site of the colour gets nhit hits with its linear coefficient c computed once.
 * Sites of one colour do not interact, so their order, and how threads split them, does
 * not change the result; each draw is named by (pass, colour, hit, site), never by thread.
 */
#define PHI4_CAT2_(a, b) a##_##b
#define PHI4_CAT_(a, b) PHI4_CAT2_(a, b)
#define PHI4_FN(name) PHI4_CAT_(name, PHI4_S)        /* cpu_phi4_step -> cpu_phi4_step_f */

/* The site's linear coefficient c from its neighbourhood sums c01, c02, c11. */
static inline PHI4_R PHI4_FN(phi4_site_corona)(const struct phi4_geom *g, const PHI4_R *phi,
                                               const struct phi4_site *s,
                                               const struct PHI4_FN(latmc_phi4_coef) *k)
{
    PHI4_R c01, c02, c11;
    PHI4_FN(phi4_neighbour_sums)(g, phi, s, &c01, &c02, &c11);
    return PHI4_FN(latmc_phi4_corona)(k, c01, c02, c11);
}

/*
 * The sites j = 4b .. 4b+3 of one colour that lie in [j_lo, j_hi), which share Philox
 * block b: site j uses lane j mod 4 of the block of each (hit, draw). Returns the
 * accepted hits.
 */
static uint64_t PHI4_FN(phi4_update_block)(const struct phi4_geom *g, PHI4_R *phi,
                                           const struct latmc_phi4_tables *t, uint64_t seed,
                                           struct latmc_rng_name name, int colour, int64_t b,
                                           int64_t j_lo, int64_t j_hi)
{
    const struct PHI4_FN(latmc_phi4_coef) *k = &t->PHI4_S;
    int64_t idx[4];
    PHI4_R c[4];
    const int first = j_lo > 4 * b ? (int)(j_lo - 4 * b) : 0;
    int nlanes = first;
    struct phi4_site s = phi4_colour_site(g, colour, 4 * b + first);
    for (; nlanes < 4 && 4 * b + nlanes < j_hi; nlanes++) {
        if (nlanes > first)
            phi4_colour_next(g, colour, &s);
        idx[nlanes] = s.index;
        c[nlanes] = PHI4_FN(phi4_site_corona)(g, phi, &s, k);
    }
    uint64_t accepted = 0;
    for (uint32_t hit = 0; hit < t->nhit; hit++) {
        const uint32_t phase = latmc_phi4_rng_phase(colour, hit);
        /* named by the global number (a slab: j_origin, phi4_lattice.h) */
        const uint64_t draw = (uint64_t)(b + g->j_origin / 4);
        const latmc_philox_ctr eta = latmc_rng_name_block(
            seed, latmc_rng_name_at(name, phase, latmc_phi4_rng_sub(hit, LATMC_PHI4_DRAW_ETA)),
            draw);
        const latmc_philox_ctr u = latmc_rng_name_block(
            seed, latmc_rng_name_at(name, phase, latmc_phi4_rng_sub(hit, LATMC_PHI4_DRAW_ACCEPT)),
            draw);
        for (int lane = first; lane < nlanes; lane++)
            accepted += (uint64_t)PHI4_FN(latmc_phi4_hit)(k, c[lane], phi[idx[lane]],
                                                          eta.v[lane], u.v[lane], &phi[idx[lane]]);
    }
    return accepted;
}

/* Philox blocks [u0, u1) of the concatenation of the boxes' blocks (phi4_range_units),
 * each box's only on its own numbers. */
static uint64_t PHI4_FN(phi4_boxes_blocks)(const struct phi4_geom *g, PHI4_R *phi,
                                           const struct latmc_phi4_tables *t, uint64_t seed,
                                           struct latmc_rng_name name, int colour,
                                           const struct phi4_range *boxes, int n_boxes,
                                           int64_t u0, int64_t u1)
{
    uint64_t accepted = 0;
    int64_t off = 0;
    for (int i = 0; i < n_boxes; i++) {
        const int64_t first = phi4_range_first_unit(&boxes[i], 4);
        const int64_t count = phi4_range_units(&boxes[i], 4);
        const int64_t a = u0 > off ? u0 : off, e = u1 < off + count ? u1 : off + count;
        for (int64_t u = a; u < e; u++)
            accepted += PHI4_FN(phi4_update_block)(g, phi, t, seed, name, colour,
                                                   first + u - off, boxes[i].j0, boxes[i].j1);
        off += count;
    }
    return accepted;
}

/*
 * One step of the core's plan (lib/box.h): colour `colour` of the step named `name` (its
 * hit 0, draw 0) on the boxes' numbers. The boxes' blocks are shared out among the members
 * of the team.
 */
uint64_t PHI4_FN(cpu_phi4_step)(const struct phi4_geom *g, PHI4_R *phi,
                                const struct latmc_phi4_tables *t, uint64_t seed,
                                struct latmc_rng_name name, int colour,
                                const struct phi4_range *boxes, int n_boxes,
                                const struct cpu_team *team)
{
    int64_t units = 0, u0, u1;
    for (int i = 0; i < n_boxes; i++)
        units += phi4_range_units(&boxes[i], 4);
    cpu_team_share(team, units, &u0, &u1);
    return PHI4_FN(phi4_boxes_blocks)(g, phi, t, seed, name, colour, boxes, n_boxes, u0, u1);
}

/* The chunk schedule's colour step (phi4_dsp.h): every Philox block the segments touch,
 * each segment's only on its own numbers, by the caller alone. */
uint64_t PHI4_FN(cpu_phi4_segments)(const struct phi4_geom *g, PHI4_R *phi,
                                    const struct latmc_phi4_tables *t, uint64_t seed,
                                    struct latmc_rng_name name, int colour,
                                    const struct phi4_range *segs, int n_segs)
{
    int64_t units = 0;
    for (int i = 0; i < n_segs; i++)
        units += phi4_range_units(&segs[i], 4);
    return PHI4_FN(phi4_boxes_blocks)(g, phi, t, seed, name, colour, segs, n_segs, 0, units);
}

/* Hot start: site i takes lane i mod 4 of INIT block i / 4 (sweep 0, phase 0, sub 0),
 * mapped to (-1, 1) by latmc_phi4_signed. */
static inline void PHI4_FN(phi4_hot_block)(PHI4_R *phi, int64_t n, uint64_t seed, int64_t b)
{
    const latmc_philox_ctr r = latmc_rng_init_block(seed, 0, 0, (uint64_t)b);
    for (int lane = 0; lane < 4 && 4 * b + lane < n; lane++)
        phi[4 * b + lane] = PHI4_FN(latmc_phi4_signed)(r.v[lane]);
}

void PHI4_FN(cpu_phi4_hot_start)(const struct phi4_geom *g, PHI4_R *phi, uint64_t seed,
                                 int n_threads)
{
    const int64_t n = g->lat.nsites;
    const int64_t nblocks = (n + 3) / 4;
    if (!cpu_use_threads(n_threads, n)) {
        for (int64_t b = 0; b < nblocks; b++)
            PHI4_FN(phi4_hot_block)(phi, n, seed, b);
        return;
    }
    LATMC_OMP(parallel for num_threads(n_threads) schedule(static))
    for (int64_t b = 0; b < nblocks; b++)
        PHI4_FN(phi4_hot_block)(phi, n, seed, b);
}

/* Sites [i0, i1) of the global hot start into out[0 ..) (a slab's planes). */
void PHI4_FN(cpu_phi4_hot_range)(PHI4_R *out, int64_t i0, int64_t i1, uint64_t seed)
{
    for (int64_t b = i0 / 4; 4 * b < i1; b++) {
        const latmc_philox_ctr r = latmc_rng_init_block(seed, 0, 0, (uint64_t)b);
        for (int lane = 0; lane < 4; lane++) {
            const int64_t i = 4 * b + lane;
            if (i >= i0 && i < i1)
                out[i - i0] = PHI4_FN(latmc_phi4_signed)(r.v[lane]);
        }
    }
}

#undef PHI4_FN
#undef PHI4_CAT_
#undef PHI4_CAT2_
