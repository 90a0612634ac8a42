/*
 * The CPU backend's ops.ens_lanes (ising_lanes.h): the member lanes' sweeps at the members'
 * SIMD level (their sims' LATMC_CPU_MASK at creation). The words stay the host's: ASK
 * (the level's width: groups a vector), SWEEPS, on job->spin and job->bond, and an
 * exchange round's SUMS from the words it keeps, from lib/ens_lanes.c's group loops.
 */
#include <stdbool.h>
#include <string.h>

#include "cpu_backend.h"
#include "cpu_features.h"
#include "internal.h"
#include "ising_lanes.h"

void cpu_ising_lanes_dsp_init(struct cpu_ising_lanes_dsp *dsp, unsigned flags)
{
    memset(dsp, 0, sizeof *dsp);
    dsp->width = 1;
    dsp->level = "c";
    CPU_DSP_LEVELS(cpu_ising_lanes_dsp_init, dsp, flags);
}

int cpu_ising_lanes_op(latmc_sim *const *members, int n_members, struct latmc_ens_lanes_job *job)
{
    (void)n_members;
    const struct cpu_state *st = members[0]->backend;
    struct cpu_ising_lanes_dsp dsp;
    cpu_ising_lanes_dsp_init(&dsp, st->simd_flags);
    if (job->what == LATMC_ENS_LANES_ASK)
        return dsp.width;
    if (job->what == LATMC_ENS_LANES_SUMS) /* the groups counted here (0: the caller's) */
        return dsp.sums_narrow && job->groups - job->group0 <= dsp.narrow ? dsp.sums_narrow(job)
               : dsp.sums                                                 ? dsp.sums(job)
                                                                          : 0;
    if (job->what != LATMC_ENS_LANES_SWEEPS && job->what != LATMC_ENS_LANES_KEEP)
        return latmc_fail(LATMC_EUNSUPPORTED, "the CPU's member lanes keep the host's words");
    const bool sweeps = job->what == LATMC_ENS_LANES_SWEEPS;
    if (dsp.run_narrow && job->groups - job->group0 <= dsp.narrow)
        return sweeps ? dsp.run_narrow(job) : dsp.keep_narrow(job);
    if (!dsp.run)
        return sweeps ? 0 : latmc_fail(LATMC_EUNSUPPORTED, "no SIMD level for member lanes");
    return sweeps ? dsp.run(job) : dsp.keep(job);
}
