/*
 * The Ising chain with bit-sliced decisions (parameter decisions = 1,
 * doc/models/ising-decisions.md) on the CPU: plain C over either layout of the Ising state
 * (the C level's int8 sites or the SIMD levels' split rows, ising_split.h), a whole
 * lattice or a slab, so that a sim switches chains between sweeps without changing layout.
 */
#ifndef LATMC_CPU_ISING_DECISIONS_H
#define LATMC_CPU_ISING_DECISIONS_H

#include <stdint.h>

#include "cpu_lattice.h"
#include "cpu_omp.h"
#include "ising.h"
#include "ising_split.h"
#include "step.h"

/* The storage one colour pass reads and writes. */
struct cpu_ising_dec_view {
    const struct latmc_lattice *global; /* the whole lattice: names the sites and draws */
    const struct latmc_lattice *local;  /* the storage's lattice (a slab's, halos included) */
    int64_t origin;                     /* global plane of local plane 0 (0: whole lattice) */
    int8_t *natural;                    /* the C level's sites, or NULL: */
    struct cpu_ising_split *split;      /* the SIMD levels' split rows (bonds inside) */
    const int8_t *eps;                  /* C level, +-J: eps[ndim i + mu]; NULL: uniform */
};

/*
 * Sites with global checkerboard numbers [j0, j1) of the colour of `step` (a
 * LATMC_STEP_COLOUR_BITSLICED step, lib/step.h: its names name the planes), this team member's
 * share of their groups of 32 (cpu_omp.h): each site decides as its group's lane, so any
 * cut of the range (threads, boxes, parts) gives the same sites the same decisions.
 * Returns the number of spins that changed.
 */
uint64_t cpu_ising_decisions_range(const struct cpu_ising_dec_view *v,
                                   const struct latmc_ising_tables *t, int algorithm,
                                   uint64_t seed, const struct latmc_step *step, int64_t j0,
                                   int64_t j1, const struct cpu_team *team);

/* The SIMD kernels (ising_decisions_simd_tmpl.h: ising_decisions_avx2.c, built with
 * -mavx2, and ising_decisions_avx512.c, with the AVX-512 flags): the same sites, the same
 * decisions, bit for bit. Split rows only (v->natural NULL). */
uint64_t cpu_ising_decisions_range_avx2(const struct cpu_ising_dec_view *v,
                                        const struct latmc_ising_tables *t, int algorithm,
                                        uint64_t seed, const struct latmc_step *step,
                                        int64_t j0, int64_t j1, const struct cpu_team *team);
uint64_t cpu_ising_decisions_range_avx512(const struct cpu_ising_dec_view *v,
                                          const struct latmc_ising_tables *t, int algorithm,
                                          uint64_t seed, const struct latmc_step *step,
                                          int64_t j0, int64_t j1, const struct cpu_team *team);

typedef uint64_t (*cpu_ising_decisions_range_fn)(const struct cpu_ising_dec_view *v,
                                                 const struct latmc_ising_tables *t,
                                                 int algorithm, uint64_t seed,
                                                 const struct latmc_step *step, int64_t j0,
                                                 int64_t j1, const struct cpu_team *team);

/*
 * A colour step of the SIMD kernels prepared once (its threshold planes and Philox folds),
 * then run on ranges of its sites in any order the step allows, as many times as asked:
 * the fused pair's wavefront runs each colour a row at a time (cpu_ising_dec_pair).
 * range_pass(prepare(step), v, j0, j1, team) = cpu_ising_decisions_range_<isa>(v, ...,
 * step, j0, j1, team), the same decisions. The bytes are the level's own; range_pass
 * writes them (one pass per team member).
 */
#define CPU_ISING_DEC_PASS_BYTES 12288
struct cpu_ising_dec_pass {
    _Alignas(64) unsigned char bytes[CPU_ISING_DEC_PASS_BYTES];
};
typedef void (*cpu_ising_dec_prepare_fn)(struct cpu_ising_dec_pass *pass,
                                         const struct latmc_ising_tables *t, int algorithm,
                                         int ndim, uint64_t seed, const struct latmc_step *step);
typedef uint64_t (*cpu_ising_dec_range_pass_fn)(struct cpu_ising_dec_pass *pass,
                                                const struct cpu_ising_dec_view *v, int64_t j0,
                                                int64_t j1, const struct cpu_team *team);
void cpu_ising_decisions_prepare_avx2(struct cpu_ising_dec_pass *pass,
                                      const struct latmc_ising_tables *t, int algorithm,
                                      int ndim, uint64_t seed, const struct latmc_step *step);
uint64_t cpu_ising_decisions_range_pass_avx2(struct cpu_ising_dec_pass *pass,
                                             const struct cpu_ising_dec_view *v, int64_t j0,
                                             int64_t j1, const struct cpu_team *team);
void cpu_ising_decisions_prepare_avx512(struct cpu_ising_dec_pass *pass,
                                        const struct latmc_ising_tables *t, int algorithm,
                                        int ndim, uint64_t seed, const struct latmc_step *step);
uint64_t cpu_ising_decisions_range_pass_avx512(struct cpu_ising_dec_pass *pass,
                                               const struct cpu_ising_dec_view *v, int64_t j0,
                                               int64_t j1, const struct cpu_team *team);

/*
 * The kernel table of the bit-sliced decisions (cpu_features.h, dav1d's pattern): the C
 * entry first, then each SIMD level the flags allow overwrites; `level` names the highest.
 * range: the C reference on either layout, a SIMD level's on split rows only. prepare and
 * range_pass (the fused pair's prepared passes): the SIMD levels' only, NULL at the C level.
 */
struct cpu_ising_dec_dsp {
    cpu_ising_decisions_range_fn range;
    cpu_ising_dec_prepare_fn prepare;
    cpu_ising_dec_range_pass_fn range_pass;
    const char *level; /* "c", "avx2", "avx512" */
};
void cpu_ising_dec_dsp_init(struct cpu_ising_dec_dsp *dsp, unsigned flags);
void cpu_ising_dec_dsp_init_avx2(struct cpu_ising_dec_dsp *dsp);   /* the template's, */
void cpu_ising_dec_dsp_init_avx512(struct cpu_ising_dec_dsp *dsp); /* per level */

/*
 * The fused pair of the bit-sliced chain (the two colour steps of a sweep in one wavefront,
 * ising_split.h's cpu_ising_split_boxes_interior / _border / _own_boxes) on the split rows
 * of a SIMD level: the pair runner whose colour c is step pair[c], its planes named by that
 * step as in two passes (each site draws what it draws in its own colour step), so the chain
 * is the same bit for bit. global: the whole lattice (the split's rows are local rows, global
 * row = local + row_origin). Large (two passes): one per team member.
 */
struct cpu_ising_dec_pair {
    struct cpu_ising_pair_runner runner; /* first */
    const struct latmc_lattice *global;
    cpu_ising_dec_range_pass_fn range_pass;
    struct cpu_ising_dec_pass pass[2];
};
void cpu_ising_dec_pair_setup(struct cpu_ising_dec_pair *p, cpu_ising_dec_prepare_fn prepare,
                              cpu_ising_dec_range_pass_fn range_pass,
                              const struct latmc_lattice *global,
                              const struct latmc_ising_tables *t, int algorithm, uint64_t seed,
                              const struct latmc_step pair[2]);

/* ---- shared with the vector kernels ---- */

/* The thresholds by class: heat bath k, Metropolis k + LATMC_ISING_MAX_K [s == +1]. */
#define CPU_ISING_DEC_CLASSES (2 * LATMC_ISING_MAX_K)
void cpu_ising_decisions_class_thresholds(const struct latmc_ising_tables *t, int algorithm,
                                          uint64_t ct[CPU_ISING_DEC_CLASSES]);

/* Lanes [l0, l1) of group g of the colour by the plain C path (any group: across rows,
 * partial); ct from cpu_ising_decisions_class_thresholds. Returns the spins changed. */
struct latmc_ising_plane_names;
uint64_t cpu_ising_decisions_group(const struct cpu_ising_dec_view *v, const uint64_t *ct,
                                   int algorithm, const struct latmc_ising_plane_names *names,
                                   int colour, int64_t g, int l0, int l1);

/* Site s (global coordinates) as a site of the storage's lattice. */
static inline struct latmc_site cpu_ising_dec_local_site(const struct cpu_ising_dec_view *v,
                                                         struct latmc_site s)
{
    if (v->global->ndim == 3)
        s.z -= v->origin;
    else
        s.y -= v->origin;
    s.row = s.y + v->local->ly * s.z;
    s.index = s.x + v->local->lx * s.row;
    return s;
}

#endif
