/*
 * The Heisenberg kernel table of the CPU backend (cpu_features.h: C reference first, then
 * overwritten by each SIMD level the CPU has), and the layout the SIMD levels use.
 *
 * Structure-of-arrays layout: per replica, colour and component one array of doubles
 * indexed by the checkerboard number j = i / 2 of the site; per colour and direction mu
 * one array of the couplings J_{i,mu} (to the neighbour in the positive direction) of that
 * colour's sites. In a row (fixed y, z) the sites of one colour are then a contiguous run
 * in x order, and so are their neighbours of the other colour along y and z (same j
 * offsets in the neighbouring rows) and along x (the run itself, shifted by at most one),
 * together with the couplings: whole vectors load where the reference layout (3 floats
 * per site, couplings per site) would need gathers. The values are the reference's float
 * spins and couplings held exactly in doubles (every spin the chain writes is rounded to
 * float first), so the chain is the same (doc/models/heisenberg.md); get/set_spins, the
 * couplings and the measurement convert. Each array has HEIS_PAD values of slack on
 * either side, which vector loads at the row ends may touch (their values are replaced).
 */
#ifndef LATMC_CPU_HEISENBERG_DSP_H
#define LATMC_CPU_HEISENBERG_DSP_H

#include <stdbool.h>

#include "heisenberg_ref.h"

enum { HEIS_PAD = 8 };

struct cpu_heisenberg_soa {
    int64_t half;              /* N / 2: sites per colour */
    double *spin[2][2][3];     /* [replica][colour][component][j] */
    double *coupling[2][3];    /* [colour][mu][j]: J_{i,mu}, i the site (colour, j) */
    void *alloc;
};

struct cpu_heisenberg_dsp {
    const char *level;         /* "c", "avx2" */
    bool soa;                  /* the state lives in a struct cpu_heisenberg_soa */
    /* One sweep of one replica in the SoA layout; as cpu_heisenberg_sweep. */
    uint64_t (*sweep_soa)(const struct latmc_lattice *g, struct cpu_heisenberg_soa *s,
                          const struct latmc_heisenberg_params *p, int algorithm, uint64_t seed,
                          int replica, uint64_t sweep, int n_threads);
};

void cpu_heisenberg_dsp_init(struct cpu_heisenberg_dsp *dsp, unsigned simd_flags);
void cpu_heisenberg_dsp_init_avx2(struct cpu_heisenberg_dsp *dsp); /* heisenberg_avx2.c */

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
void cpu_heisenberg_soa_import_couplings(const struct latmc_lattice *g, const float *couplings,
                                         struct cpu_heisenberg_soa *s, int n_threads);

#endif
