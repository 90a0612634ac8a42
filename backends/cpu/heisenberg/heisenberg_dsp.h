/*
 * The Heisenberg kernel table of the CPU backend (cpu_features.h: C reference first, then
 * overwritten by each SIMD level the CPU has), and the layout the SIMD levels use.
 *
 * Structure-of-arrays layout, per replica and colour one array of doubles: the sites of
 * one colour in a row (fixed y, z) are numbered m = 0 .. n-1 in x order (n = L_x / 2;
 * checkerboard number j = m + n row), and the row holds its x components, then its y,
 * then its z components: component k of site (row, m) is at (3 row + k) n + m. The
 * couplings J_{i,mu} (to the neighbour in the positive direction mu) of one colour's sites
 * are laid out the same way, mu in place of k, in an array of floats. In a row the sites
 * of one colour, their neighbours of the other colour along y and z (same m in the
 * neighbouring rows) and along x (the row itself, shifted by at most one place), and the
 * couplings are then all contiguous runs, and one pointer per row reaches all three
 * components (at offsets 0, n, 2n): whole vectors load where the reference layout (3
 * floats per site, couplings per site) would need gathers. The values are the
 * reference's float spins held exactly in doubles (every spin the chain writes is
 * rounded to float first) and its float couplings, widened exactly to double as they load
 * (12 bytes a site in place of 24: with them the wavefront's four planes of a 64^3
 * lattice fit a 512 KiB L2), so the chain is the same (doc/models/heisenberg.md);
 * get/set_spins, the couplings and the measurement convert. Each array has HEISENBERG_PAD
 * values of slack on either side, which vector loads at the row ends may touch (their
 * values are replaced). The arrays are HEISENBERG_PAD and 3 N / 2 values apart (the two coupling
 * arrays share the place of one array of doubles), the first on a 64-byte line; where
 * L_x / 2 is a multiple of 8 every array and every run of a row's spin components starts
 * on a line, and no vector of doubles at a multiple of 4 values into a run straddles two
 * lines (a load split over two lines costs two).
 */
#ifndef LATMC_CPU_HEISENBERG_DSP_H
#define LATMC_CPU_HEISENBERG_DSP_H

#include <stdbool.h>

#include "heisenberg_ref.h"

/* Slack on either side of each array, a whole number of 64-byte lines; also staggers the
 * arrays' addresses modulo 4 KiB (loads that alias earlier stores there wait for them). */
enum { HEISENBERG_PAD = 40 };

struct cpu_heisenberg_soa {
    int64_t n;                 /* L_x / 2: sites of one colour per row */
    int64_t half;              /* N / 2: sites per colour */
    double *spin[2][2];        /* [replica][colour]: component k of (row, m) at (3 row + k) n + m */
    float *coupling[2];        /* [colour]: J_{i,mu} of (row, m) at (3 row + mu) n + m */
    void *alloc;
    /* Appended: slab-only storage (cpu_backend.h): the global checkerboard number of local
     * j = 0, a multiple of 4 (the draws of site j are those of j + j_origin); 0 for the
     * whole lattice. */
    int64_t j_origin;
};

/* Where component k of the site numbered j of a colour sits in its array. */
static inline int64_t cpu_heisenberg_soa_index(const struct cpu_heisenberg_soa *s, int64_t j,
                                               int k)
{
    const int64_t row = j / s->n;
    return (3 * row + k) * s->n + (j - row * s->n);
}

/* The state a step works on: the reference layout (the C level's entries), or the SoA
 * arrays (the SIMD levels', dsp.soa). */
struct cpu_heisenberg_fields {
    float *spins;                   /* reference layout, replica r at 3 N r */
    const float *couplings;
    int64_t j_origin;               /* slab storage: the global number of local j = 0 */
    struct cpu_heisenberg_soa *soa; /* the SoA arrays (their own j_origin) */
};

struct cpu_heisenberg_dsp {
    const char *level;         /* "c", "avx2", "avx512" */
    bool soa;                  /* the state lives in a struct cpu_heisenberg_soa */
    /* One step of the plan on boxes for every replica, as cpu_heisenberg_step_boxes_at: the
     * C entry on f's reference layout, the SIMD levels' on f->soa. */
    uint64_t (*step)(const struct latmc_lattice *g, const struct cpu_heisenberg_fields *f,
                     int replicas, const struct latmc_heisenberg_params *p, bool heatbath,
                     int colour, uint64_t seed, struct latmc_rng_name name,
                     const struct latmc_box *boxes, int n_boxes, const struct cpu_team *team);
    /* Optional (NULL: WHOLE steps only): a PAIR part (lib/box.h) of steps colour and
     * 1 - colour of one pass on boxes in the SoA layout, L_x / 2 a multiple of row_lanes,
     * names[0] and names[1] the two steps' draws; the part's heat-bath updates (all
     * members'), as step. */
    uint64_t (*pair_soa)(const struct latmc_lattice *g, struct cpu_heisenberg_soa *s,
                         int replicas, const struct latmc_heisenberg_params *p, bool heatbath,
                         int colour, int part, uint64_t seed,
                         const struct latmc_rng_name names[2],
                         const struct latmc_box *boxes, int n_boxes,
                         const struct cpu_team *team);
    /* Appended. Sites per vector of the level (4 AVX2, 8 AVX-512): pair_soa walks rows of
     * whole vectors, so the pair is offered where L_x / 2 is a multiple of it. */
    int row_lanes;
    /* Appended. Optional (NULL: pass by pass): `passes` overrelaxation passes of every
     * replica (each colour `colour`, then 1 - colour) on the whole lattice in the SoA
     * layout, as one temporal wavefront over the planes; L_x / 2 a multiple of row_lanes
     * and `passes` at most cpu_heisenberg_fused_passes(g, team->size, ...). */
    void (*or_passes_soa)(const struct latmc_lattice *g, struct cpu_heisenberg_soa *s,
                          int replicas, const struct latmc_heisenberg_params *p, int colour,
                          int passes, const struct cpu_team *team);
};

/* How many of `available` overrelaxation passes or_passes_soa takes in one call on
 * lattice g with a team of team_size members: the most whose wavefront windows fit the
 * cache budget and whose bands hold 4 planes a pass, or 0 where that is below 2 (the
 * pair alone is then as good). */
int cpu_heisenberg_fused_passes(const struct latmc_lattice *g, int team_size, int available);

void cpu_heisenberg_dsp_init(struct cpu_heisenberg_dsp *dsp, unsigned simd_flags);
/* The flags a sim on lattice g builds its table with: simd_flags without AVX-512 where
 * its 8-site vectors would straddle the rows that AVX2's 4-site vectors fill (L_x / 2 a
 * multiple of 4 but not of 8: the flat walk, and no pair of a pass). Every level
 * computes the same chain: this chooses speed only. */
unsigned cpu_heisenberg_dsp_flags(const struct latmc_lattice *g, unsigned simd_flags);
void cpu_heisenberg_dsp_init_avx2(struct cpu_heisenberg_dsp *dsp);   /* heisenberg_avx2.c */
void cpu_heisenberg_dsp_init_avx512(struct cpu_heisenberg_dsp *dsp); /* heisenberg_avx512.c */

/* Allocate the SoA arrays for `replicas` replicas (LATMC_OK or LATMC_ENOMEM). */
int cpu_heisenberg_soa_alloc(const struct latmc_lattice *g, int replicas,
                             struct cpu_heisenberg_soa *s);
void cpu_heisenberg_soa_free(struct cpu_heisenberg_soa *s);

/* Reference layout <-> SoA: the spins of one replica, the couplings. */
void cpu_heisenberg_soa_import_spins(const struct latmc_lattice *g, const float *spins,
                                     struct cpu_heisenberg_soa *s, int replica, int n_threads);
void cpu_heisenberg_soa_export_spins(const struct latmc_lattice *g,
                                     const struct cpu_heisenberg_soa *s, int replica, float *spins,
                                     int n_threads);
/* The same for rows [r0, r1) of one replica; spins holds those rows' sites only (site
 * r0 L_x first). */
void cpu_heisenberg_soa_import_rows(const struct latmc_lattice *g, const float *spins,
                                    struct cpu_heisenberg_soa *s, int replica, int64_t r0,
                                    int64_t r1, int n_threads);
void cpu_heisenberg_soa_export_rows(const struct latmc_lattice *g,
                                    const struct cpu_heisenberg_soa *s, int replica, float *spins,
                                    int64_t r0, int64_t r1, int n_threads);
void cpu_heisenberg_soa_import_couplings(const struct latmc_lattice *g, const float *couplings,
                                         struct cpu_heisenberg_soa *s, int n_threads);

#endif
