/*
 * The quenched couplings drawn in bulk: any range [e0, e1) of the lattice's couplings
 * (coupling e = ndim i + mu), split over threads in chunks of whole Philox blocks and
 * drawn by the SIMD level's block kernels. Each coupling is a function of its own block
 * (lib/coupling_draws.h, lib/heisenberg_rules.h), so the values never depend on the range,
 * the thread count or the level: tests/unit/test_coupling_fill.c checks them against the
 * definition.
 */
#ifndef LATMC_CPU_COUPLING_FILL_H
#define LATMC_CPU_COUPLING_FILL_H

#include <stdint.h>

/* What is written, one element per coupling. */
enum cpu_couplings_layout {
    CPU_COUPLINGS_I8_BIMODAL,   /* int8 +-1 (the Ising layout) */
    CPU_COUPLINGS_F32_BIMODAL,  /* float +-1 (Heisenberg) */
    CPU_COUPLINGS_F32_GAUSSIAN, /* float, Box-Muller of the sub 0 and sub 1 draws */
    CPU_COUPLINGS_F32_UNIFORM,  /* float 1 (no draw) */
    CPU_COUPLINGS_LAYOUTS
};

/* The couplings of blocks [b0, b0 + nb) (couplings 4 b0 .. 4 (b0 + nb) - 1) into out,
 * coupling 4 b0 at out[0]. */
typedef void (*cpu_couplings_blocks_fn)(void *out, int64_t b0, int64_t nb, uint64_t seed);

/* The kernel table (cpu_features.h): the C entries first, then AVX2's; `level` names the
 * highest. */
struct cpu_couplings_dsp {
    cpu_couplings_blocks_fn blocks[CPU_COUPLINGS_F32_UNIFORM]; /* the drawn layouts */
    const char *level; /* "c", "avx2" */
};

void cpu_couplings_dsp_init(struct cpu_couplings_dsp *dsp, unsigned simd_flags);
void cpu_couplings_dsp_init_avx2(struct cpu_couplings_dsp *dsp); /* coupling_fill_avx2.c */

/* Couplings [e0, e1) of `layout` from coupling_seed into out[e - e0], on up to n_threads
 * threads (already checked: cpu_use_threads decides) at the level of simd_flags. */
void cpu_draw_couplings(void *out, int layout, int64_t e0, int64_t e1, uint64_t seed,
                        int n_threads, unsigned simd_flags);

/* A slab's couplings (cpu_backend.h): local plane l of per_plane couplings is global plane
 * cpu_slab_global(st, l). */
struct cpu_state;
void cpu_draw_slab_couplings(const struct cpu_state *st, void *out, int layout,
                             int64_t per_plane, uint64_t seed, int n_threads);

/* The layout of a Heisenberg sim's couplings of desc.couplings `kind`. */
int cpu_couplings_float_layout(int kind);

#endif
