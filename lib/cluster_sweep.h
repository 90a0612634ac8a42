/*
 * Internal: cluster sweeps (Swendsen-Wang, Wolff) of Ising and Potts sims, run by the
 * core on a host copy of the configuration (doc/clusters.md). The chain is defined by
 * lib/cluster_bonds.h (draws and decisions) and lib/cluster_label.h (which sites form a
 * cluster, its name); it does not depend on the boxes of the plan or the thread count.
 */
#ifndef LATMC_LIB_CLUSTER_SWEEP_H
#define LATMC_LIB_CLUSTER_SWEEP_H

#include <stdbool.h>
#include <stdint.h>

#include "internal.h"
#include "step.h"

/* Whether `algorithm` is a cluster update (LATMC_ALGO_SWENDSEN_WANG, LATMC_ALGO_WOLFF). */
bool latmc_cluster_algorithm(int algorithm);

/*
 * Whether the sim can run its cluster algorithm: the CPU backend (one process or the
 * parts of a lattice shared by processes, lib/cluster_part.c), another backend's
 * cluster steps for Ising and Potts (parts where it joins their faces), and the embedded
 * clusters of phi^4 and Heisenberg on any backend (its local passes, the core's step on a
 * host copy); a lattice of fewer than 2^32 sites. LATMC_EUNSUPPORTED with a message
 * naming what to change otherwise. Checked at latmc_sim_create.
 */
int latmc_cluster_check_sim(const latmc_sim *sim);

/* The sim's parameters can be run (Potts: beta J >= 0): LATMC_EUNSUPPORTED otherwise. */
int latmc_cluster_check_params(const latmc_sim *sim);

/*
 * n cluster sweeps numbered sim->sweeps, ... of a sim whose desc.algorithm is a cluster
 * update, through the backend's get_spins / set_spins (a part of n_parts > 1: its
 * get_planes / set_planes, collectively). Adds the sites whose spin changed
 * (accepted) and the sites of the clusters updated (attempted: every site for
 * Swendsen-Wang, the cluster's for Wolff).
 */
int latmc_cluster_sweeps(latmc_sim *sim, uint64_t n, uint64_t *accepted, uint64_t *attempted);

/*
 * What the last cluster sweep of the sim built. The improved estimator of <m^2> (Ising,
 * h = 0) is size2_sum / N^2 for Swendsen-Wang, size / N for Wolff (doc/clusters.md).
 */
struct latmc_cluster_stats {
    int64_t clusters;     /* Swendsen-Wang: clusters of the sweep; Wolff: 1 */
    int64_t largest;      /* sites of the largest cluster (Wolff: of its one cluster) */
    double size2_sum;     /* sum over the clusters of size^2 (Wolff: the cluster's size) */
};
/* LATMC_OK, or LATMC_ESTATE when the sim has made no cluster sweep yet (a backend's
 * embedded step's statistics counted first: latmc_embed_settle_stats). */
int latmc_cluster_last_stats(const latmc_sim *sim, struct latmc_cluster_stats *out);

/* Whether `key` is one of the cluster observables (LATMC_OBS_CLUSTERS ..
 * LATMC_OBS_CLUSTER_M2), and its value from the last cluster sweep: LATMC_EUNSUPPORTED
 * for a sim of another algorithm, LATMC_ESTATE before its first cluster sweep. */
bool latmc_cluster_observable_key(int key);
int latmc_cluster_observable(const latmc_sim *sim, int key, double *value);

/*
 * The Swendsen-Wang or Wolff sweep as steps of the plan (lib/cluster_steps.c), for a
 * backend other than the CPU, which runs the chain in its own memory:
 * latmc_cluster_step_count steps a sweep, step s of sweep `sweep` latmc_cluster_step_of's
 * (bonds, labels, flips -- Wolff: the seed's cluster's; lib/step.h).
 */
int latmc_cluster_step_count(const latmc_sim *sim);
struct latmc_step latmc_cluster_step_of(const latmc_sim *sim, uint64_t sweep, int s);

/* Whether the sim's cluster sweeps run as steps of the plan (Ising and Potts on a
 * backend other than the CPU) rather than on the core's host copy (the CPU; the embedded
 * clusters everywhere: lib/cluster_embed_sweep.c). */
bool latmc_cluster_as_steps(const latmc_sim *sim);

/* Free the sim's cluster work space (latmc_sim_destroy). */
void latmc_cluster_free(latmc_sim *sim);

#endif /* LATMC_LIB_CLUSTER_SWEEP_H */
