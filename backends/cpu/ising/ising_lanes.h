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

/* run: groups job->group0 .. job->groups - 1 in vectors of the level's width from group0
 * (the last one's lanes past the last group inactive), on the words kept in job->keep;
 * returns how many it ran (all, or 0 where keep was not made for them by the level's
 * keep): the caller runs the rest. keep: job->keep made for those groups (KEEP,
 * lib/backend.h; LATMC_OK, or LATMC_ENOMEM with job->keep unchanged). */
typedef int (*cpu_ising_lanes_fn)(const struct latmc_ens_lanes_job *job);

struct cpu_ising_lanes_dsp {
    cpu_ising_lanes_fn run;   /* NULL: the C level (lib/ens_lanes.c's scalar form) */
    cpu_ising_lanes_fn keep;
    /* sums: an exchange round's per-lane sums (SUMS) of those groups from the kept words
     * into job->sums, returning how many (all, or 0 where the keep does not hold the
     * core's words at this width) */
    cpu_ising_lanes_fn sums;
    int width;
    /* calls of at most `narrow` groups (a vector less than half full): narrower vectors
     * (AVX-512: eight 64-bit lanes), or NULL */
    cpu_ising_lanes_fn run_narrow, keep_narrow, sums_narrow;
    int narrow;
    const char *level;
};

void cpu_ising_lanes_dsp_init(struct cpu_ising_lanes_dsp *dsp, unsigned flags);
void cpu_ising_lanes_dsp_init_avx2(struct cpu_ising_lanes_dsp *dsp);
void cpu_ising_lanes_dsp_init_avx512(struct cpu_ising_lanes_dsp *dsp);
int cpu_ising_lanes_run_avx512_x8(const struct latmc_ens_lanes_job *job);
int cpu_ising_lanes_keep_avx512_x8(const struct latmc_ens_lanes_job *job);
int cpu_ising_lanes_sums_avx512_x8(const struct latmc_ens_lanes_job *job);

/* ops.ens_lanes of the CPU backend (lib/backend.h's job): ASK returns the level's width,
 * KEEP, SWEEPS and SUMS run cpu_ising_lanes_fn's; the rest is lib/ens_lanes.c's. */
int cpu_ising_lanes_op(latmc_sim *const *members, int n_members, struct latmc_ens_lanes_job *job);

#endif
