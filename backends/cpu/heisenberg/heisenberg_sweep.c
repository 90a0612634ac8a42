/*
 * Heisenberg reference sweep: checkerboard heat bath and overrelaxation.
 * Plain C, written to be obviously right: every other backend is checked against it.
 *
 * Within one colour no two sites interact (nearest neighbours only, even extents), so
 * the sites of a colour may be updated in any order or in parallel with the same result.
 * A heat-bath site's two random numbers depend only on (seed, replica, sweep, colour,
 * checkerboard index), never on the thread; overrelaxation uses none.
 */
#include "heisenberg_ref.h"
#include "heisenberg_rules.h"
#include "cpu_omp.h"
#include "rng_streams.h"

/* What one pass over one colour does, and with what. */
struct pass {
    const struct latmc_lattice *g;
    float *spins;                /* this replica's */
    const float *couplings;
    double beta, h;
    bool heatbath;               /* else overrelaxation */
    uint64_t seed;
    struct latmc_rng_name name;  /* the step's draws in this replica's stream (sub 0) */
    int colour;
    int64_t block_offset;        /* a slab's: its local block b draws global b + this */
};

/*
 * The local field H_i = sum_mu (J_{i,mu} s_{i+mu} + J_{i-mu,mu} s_{i-mu}) + h e_z, the one
 * place it is computed. Summed in double in this order (mu = x, y, z; the forward
 * neighbour before the backward one; the field last), as doc/models/heisenberg.md states.
 */
static inline void local_field(const struct latmc_lattice *g, const float *spins,
                               const float *couplings, struct latmc_site s, double h,
                               double field[3])
{
    const int ndim = g->ndim;
    int64_t fwd[3], bwd[3];
    cpu_heisenberg_neighbours(g, s, fwd, bwd);
    field[0] = field[1] = field[2] = 0.0;
    for (int mu = 0; mu < ndim; mu++) {
        const double jf = couplings[ndim * s.index + mu];
        const double jb = couplings[ndim * bwd[mu] + mu];
        const float *sf = spins + LATMC_HEISENBERG_COMPONENTS * fwd[mu];
        const float *sb = spins + LATMC_HEISENBERG_COMPONENTS * bwd[mu];
        for (int c = 0; c < 3; c++) {
            field[c] += jf * sf[c];
            field[c] += jb * sb[c];
        }
    }
    field[2] += h;
}

/* Update the sites of block b of the pass's colour with checkerboard indices in
 * [jlo, jhi) (all four, 4b .. 4b + 3, but at the ends of a colour or a box); the heat-bath
 * draws from lane j mod 4 of block b (sub 0: cos theta, sub 1: azimuth). */
static inline void update_block_lanes(const struct pass *p, int64_t b, int64_t jlo, int64_t jhi)
{
    const struct latmc_lattice *g = p->g;
    latmc_philox_ctr r_cos = { { 0, 0, 0, 0 } }, r_phi = { { 0, 0, 0, 0 } };
    if (p->heatbath) {
        const uint64_t draw = (uint64_t)(b + p->block_offset);
        r_cos = latmc_rng_name_block(p->seed, p->name, draw);
        r_phi = latmc_rng_name_block(p->seed, latmc_rng_name_sub(p->name, 1), draw);
    }
    const int first = jlo > 4 * b ? (int)(jlo - 4 * b) : 0;
    struct latmc_site s = latmc_checkerboard_site(g, p->colour, 4 * b + first);
    for (int lane = first; lane < 4 && 4 * b + lane < jhi; lane++) {
        if (lane > first)
            latmc_checkerboard_next(g, p->colour, &s);
        double field[3];
        local_field(g, p->spins, p->couplings, s, p->h, field);
        float *spin = p->spins + LATMC_HEISENBERG_COMPONENTS * s.index;
        if (p->heatbath)
            latmc_heisenberg_heatbath_spin(field, p->beta, latmc_heisenberg_uniform(r_cos.v[lane]),
                                         latmc_heisenberg_uniform(r_phi.v[lane]), spin);
        else
            latmc_heisenberg_overrelax_spin(field, spin);
    }
}

/*
 * One step of the plan on boxes (slabs of planes along the last axis): the colour's sites
 * of every box and replica, the numbers of box i from j = rows0 n to rows1 n (n = L_x / 2
 * per row). A Philox block that straddles two boxes is drawn by both, each updating its
 * own lanes. The replicas' blocks are updated one after the other (the couplings they
 * share are loaded once). Threads: one team for the step; each box's blocks are split
 * among it with no barrier between boxes (a step writes one colour and reads the other,
 * and the replicas share nothing but the couplings).
 */
uint64_t cpu_heisenberg_step_boxes_at(const struct latmc_lattice *g, float *spins, int replicas,
                                      const float *couplings,
                                      const struct latmc_heisenberg_params *prm, bool heatbath,
                                      int colour, uint64_t seed, struct latmc_rng_name name,
                                      const struct latmc_box *boxes, int n_boxes,
                                      int64_t j_origin, const struct cpu_team *team)
{
    struct pass p[2];
    for (int r = 0; r < replicas; r++)
        p[r] = (struct pass){
            .g = g, .couplings = couplings, .beta = prm->beta, .h = prm->h,
            .spins = spins + (size_t)LATMC_HEISENBERG_COMPONENTS * (size_t)g->nsites * (size_t)r,
            .heatbath = heatbath, .seed = seed, .colour = colour,
            .name = latmc_rng_name_replica(name, (uint32_t)r),
            .block_offset = j_origin / 4,
        };
    const int64_t n = g->lx / 2, rpp = cpu_heisenberg_rows_per_plane(g);
    uint64_t updates = 0;
    for (int i = 0; i < n_boxes; i++)
        updates += (uint64_t)(boxes[i].extent[boxes[i].axis] * rpp * n);
    if (team->size == 1) {
        for (int i = 0; i < n_boxes; i++) {
            const int64_t jlo = boxes[i].origin[boxes[i].axis] * rpp * n;
            const int64_t jhi = jlo + boxes[i].extent[boxes[i].axis] * rpp * n;
            for (int64_t b = jlo / 4; b < (jhi + 3) / 4; b++)
                for (int r = 0; r < replicas; r++)
                    update_block_lanes(&p[r], b, jlo, jhi);
        }
    } else { /* in the team's region (cpu_omp.h): the loops bind to it */
        for (int i = 0; i < n_boxes; i++) {
            const int64_t jlo = boxes[i].origin[boxes[i].axis] * rpp * n;
            const int64_t jhi = jlo + boxes[i].extent[boxes[i].axis] * rpp * n;
            LATMC_OMP(for schedule(static) nowait)
            for (int64_t b = jlo / 4; b < (jhi + 3) / 4; b++)
                for (int r = 0; r < replicas; r++)
                    update_block_lanes(&p[r], b, jlo, jhi);
        }
    }
    return heatbath ? updates * (uint64_t)replicas : 0;
}
