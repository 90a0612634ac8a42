/*
 * The member lanes' sweeps (ensemble decisions = 2, lib/ens_lanes.c) with SIMD across
 * groups: the CPU backend's ops.ens_lanes, SWEEPS on the host's words only. The draws of
 * group g at site i are Philox block g N + i (lib/ens_lanes_rules.h), so the groups at one
 * site are independent vector lanes: W groups (AVX2 4 in 64-bit lanes, the 32-bit word in
 * a lane's low half as philox_lanes_tmpl.h draws; AVX-512 16 in 32-bit lanes) run every
 * site together, each lane lib/ens_lanes_sliced.h's latmc_ens_lanes_update_site_sliced
 * bit for bit.
 */
#ifndef LATMC_CPU_ISING_LANES_H
#define LATMC_CPU_ISING_LANES_H

#include "backend.h"

/* Runs groups job->group0 .. job->groups - 1 in vectors of the level's width from group0
 * (the last one's lanes past the last group inactive); returns how many it ran (all, or 0
 * when it cannot allocate its copy): the caller runs the rest. */
typedef int (*cpu_ising_lanes_fn)(const struct latmc_ens_lanes_job *job);

struct cpu_ising_lanes_dsp {
    cpu_ising_lanes_fn run;   /* NULL: the C level (lib/ens_lanes.c's scalar form) */
    int width;
    /* calls of at most `narrow` groups (a vector less than half full): narrower vectors
     * (AVX-512: eight 64-bit lanes), or NULL */
    cpu_ising_lanes_fn run_narrow;
    int narrow;
    const char *level;
};

void cpu_ising_lanes_dsp_init(struct cpu_ising_lanes_dsp *dsp, unsigned flags);
void cpu_ising_lanes_dsp_init_avx2(struct cpu_ising_lanes_dsp *dsp);
void cpu_ising_lanes_dsp_init_avx512(struct cpu_ising_lanes_dsp *dsp);
int cpu_ising_lanes_run_avx512_x8(const struct latmc_ens_lanes_job *job);

/* ops.ens_lanes of the CPU backend (lib/backend.h's job): ASK returns the level's width,
 * SWEEPS runs cpu_ising_lanes_fn's groups; the rest is lib/ens_lanes.c's. */
int cpu_ising_lanes_op(latmc_sim *const *members, int n_members, struct latmc_ens_lanes_job *job);

#endif
