/*
 * Internal to the CUDA module: the ensemble chain of member lanes (ensemble decisions = 2,
 * doc/ensembles.md "Member lanes") on the device, ops.ens_lanes (ens_lanes.c): the group
 * words (lib/ens_lanes_rules.h's layout) stay in device memory between calls, kept in
 * member 0's cuda_sim; Ising's kernels run the sweeps and the sums
 * (ising/ising_lanes_kernels.cu, ising_lanes.h).
 */
#ifndef LATMC_CUDA_ENS_LANES_H
#define LATMC_CUDA_ENS_LANES_H

#include "backend.h"

/* ops.ens_lanes (lib/backend.h); the state kept in member 0's cuda_sim (ens_lanes), freed
 * with it. */
struct cuda_ens_lanes;
int cuda_ens_lanes(latmc_sim *const *members, int n_members, struct latmc_ens_lanes_job *job);
void cuda_ens_lanes_free(struct cuda_ens_lanes *l);

#endif
