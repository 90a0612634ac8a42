/*
 * The Swendsen-Wang and Wolff sweeps as steps of the plan (lib/step.h:
 * LATMC_STEP_CLUSTER_BONDS, _LABEL, then _FLIP or Wolff's _FLIP_SEED), for backends that
 * run the cluster chain in their own memory (CUDA) instead of the core's host copy (lib/cluster_sweep.c). The names and thresholds are
 * those of lib/cluster_bonds.h and latmc_cluster_job_init, so a backend running these
 * steps makes the CPU's chain bit for bit.
 */
#include <math.h>

#include "cluster_bonds.h"
#include "cluster_sweep.h"
#include "decision.h"
#include "step.h"

int latmc_cluster_step_count(const latmc_sim *sim)
{
    (void)sim;
    return 3; /* bonds, labels, flips (Wolff: the seed's cluster's) */
}

struct latmc_step latmc_cluster_step_of(const latmc_sim *sim, uint64_t sweep, int s)
{
    const bool wolff = sim->desc.algorithm == LATMC_ALGO_WOLFF;
    const int kinds[3] = { LATMC_STEP_CLUSTER_BONDS, LATMC_STEP_CLUSTER_LABEL,
                           wolff ? LATMC_STEP_CLUSTER_FLIP_SEED : LATMC_STEP_CLUSTER_FLIP };
    /* the label step draws nothing: it carries the decisions' name, unused */
    const uint32_t phase = s == 0 ? LATMC_CLUSTER_PHASE_BONDS : LATMC_CLUSTER_PHASE_DECIDE;
    struct latmc_step st = latmc_step_name(s, kinds[s], 0, 0, sweep, phase, 0);
    st.stream = latmc_rng_stream(LATMC_STREAM_CLUSTER, 0);
    st.rng = latmc_rng_cluster_name(sweep, 0, phase, 0); /* of st.stream */
    if (s == 0) { /* as latmc_cluster_job_init */
        const double K = sim->param[LATMC_PARAM_BETA] * sim->param[LATMC_PARAM_J];
        const bool potts = sim->desc.model == LATMC_MODEL_POTTS;
        st.cluster_threshold = latmc_threshold_u32(potts ? -expm1(-K) : -expm1(-2.0 * fabs(K)));
    } else if (s == 2) {
        st.cluster_threshold = UINT64_C(1) << 31;
    }
    return st;
}
