/*
 * Internal: embedded Ising clusters of continuous fields (doc/clusters.md, "Embedded
 * clusters"). A model writes its field as a_i = sigma_i |a_i| with Ising signs sigma_i
 * (phi^4: a_i = phi_i; Heisenberg: a_i = r . s_i for the step's direction r); the part of
 * its weight that depends on the signs is exp(sum over coupled pairs (i, j) of
 * K_ij a_i a_j), an Ising model in sigma with couplings K_ij |a_i a_j| of either sign.
 * One cluster step is a Swendsen-Wang or Wolff step of that Ising model:
 *
 *   bond (i, d) -- site i and its partner j = i + off[d] (periodic), draw number
 *     n_dirs i + d -- is active iff K a_i a_j > 0 and its draw u < floor(p 2^32),
 *     p = 1 - exp(-2 K a_i a_j);
 *   a cluster (connected by active bonds) is named by its smallest site r; it keeps its
 *     signs iff its draw u (at r) < floor(2^32 / (1 + exp(-2 F A))), F the field's weight
 *     of the step and A the cluster's sum of a_i as lib/cluster_embed_sum.h defines it
 *     (each a_i rounded to a multiple of 2^-30, added exactly; F = 0: 2^31; Wolff with
 *     F = 0 always flips); a flip is a_i -> -a_i on its sites.
 *
 * Draws (lib/rng_streams.h): stream LATMC_STREAM_CLUSTER of the replica, sweep = the sim's
 * sweep number, sub LATMC_EMBED_SUB; phases as lib/cluster_bonds.h (0 bonds, 1 decisions,
 * 2 Wolff's seed site) plus LATMC_EMBED_PHASE_AXIS; draw n is lane n mod 4 of block n / 4.
 * Nothing names a thread or a box: the flips are the same for any thread count.
 */
#ifndef LATMC_LIB_CLUSTER_EMBED_H
#define LATMC_LIB_CLUSTER_EMBED_H

#include <stdbool.h>
#include <stdint.h>

#include "cluster_label.h"
#include "internal.h"
#include "rng_streams.h"

enum { LATMC_EMBED_MAX_DIRS = 12 };

/* Sub of every embedded-cluster draw: 1, apart from the Ising and Potts clusters' 0 (a sim
 * has one model, so this only keeps the names distinct on paper). */
enum { LATMC_EMBED_SUB = 1 };
/* Phase of the Heisenberg reflection axis (draws 0 and 1). Phases 0 .. 2 as in
 * lib/cluster_bonds.h. */
enum { LATMC_EMBED_PHASE_AXIS = 3 };

/* x + dx on a ring of l sites, |dx| <= 2 < 5 <= l or l >= 2 for |dx| <= 1 (phi^4's
 * extents are >= 5; nearest-neighbour models have extents >= 2): a partner's coordinate
 * (lib/cluster_embed.c, lib/cluster_embed_part.c). */
static inline int64_t latmc_embed_ring(int64_t x, int dx, int64_t l)
{
    x += dx;
    return x >= l ? x - l : x < 0 ? x + l : x;
}

/* What one cluster step of one replica is made of. */
struct latmc_embed_problem {
    struct latmc_cluster_lattice g;
    int n_dirs;                               /* coupled directions per site */
    int off[LATMC_EMBED_MAX_DIRS][3];         /* partner offset of direction d */
    double k[LATMC_EMBED_MAX_DIRS];           /* K of direction d (when kbond is NULL) */
    const double *kbond;                      /* or K of bond (i, d) at [n_dirs i + d] */
    double field;                             /* F: the orientation weight exp(F A) */
    uint64_t seed, sweep;
    uint32_t replica;
    int wolff;
    int n_threads;
};

/* What the step built (as struct latmc_cluster_stats). w2 is the improved estimator of
 * (sum_i a_i)^2: given the bonds, the clusters' orientations are independent and each
 * cluster's signs flip together, so the cross terms average to zero (with a field they
 * do not: then it is only a statistic of the clusters). A cluster's sum of a is its
 * integer sum S_C of latmc_embed_stat_term (lib/cluster_embed_sum.h), A_C = S_C 2^-20,
 * and the sum of the A_C^2 is exact (struct latmc_embed_w2), so every route and every
 * cut of the lattice (boxes, parts) counts the same double. */
struct latmc_embed_stats {
    int64_t clusters, largest;
    double w2;    /* Swendsen-Wang: sum_C A_C^2; Wolff: A_C^2 / |C|; A_C = sum_C a_i */
    int64_t size; /* the sites of the clusters updated (Wolff: its one cluster's) */
};

/* The sim's work space for embedded clusters (sim->embed). */
struct latmc_embed_work {
    int64_t nsites;
    void *field;        /* the configuration as get_spins gives it (all replicas) */
    double *a;          /* a_i of the replica being updated */
    uint8_t *flip;      /* the step's result: 1 where a_i -> -a_i */
    uint16_t *bonds;    /* bit d: bond (i, d) active */
    uint32_t *parent;   /* union-find; Wolff: its stack */
    uint32_t *name;
    int64_t *ssum;      /* per cluster name: its statistics' sum S_C (statistics) */
    int64_t *qsum;      /* Heisenberg: per cluster name its Q_C (the decision in a field) */
    double *kbond;      /* Heisenberg: beta J per bond */
    bool names_on_backend; /* the last step ran on the backend (ops.embed_step): its
                              statistics are counted when first asked for */
    uint64_t names_sweep;  /* that step's sweep (Wolff: its seed site) */
    double names_lambda;   /* phi^4: that step's Lambda (Wolff: its pairs and K) */
};

/* Whether the sim runs embedded clusters (phi^4 or Heisenberg with a cluster algorithm). */
int latmc_embed_applies(const latmc_sim *sim);

/* n sweeps of such a sim: each the model's local passes (the plan's sweep) then one
 * cluster step per replica. Adds the local passes' acceptance counts only. */
int latmc_embed_sweeps(latmc_sim *sim, uint64_t n, uint64_t *accepted, uint64_t *attempted);

/* Free sim->embed (latmc_sim_destroy). */
void latmc_embed_free(latmc_sim *sim);

/* One cluster step on w->a (read only) into w->flip. LATMC_OK (no failure after the work
 * space exists). */
void latmc_embed_step(const struct latmc_embed_problem *p, struct latmc_embed_work *w,
                      struct latmc_embed_stats *out);

/* Swendsen-Wang's statistics from each site's cluster name (its smallest site) and a:
 * each cluster's sum S_C (into ssum at its name) and size (into size), then the clusters.
 * The core's step and a backend's (latmc_embed_settle_stats) count alike. */
void latmc_embed_sw_stats(int64_t n, const uint32_t *name, const double *a, int64_t *ssum,
                          uint32_t *size, struct latmc_embed_stats *out);

/* The exact sum of the clusters' S_C^2 (each below 2^126 in magnitude, their sum too for
 * at most 2^32 sites of |a| <= 2048): 128 bits, added in any order. */
struct latmc_embed_w2 {
    uint64_t lo, hi;
};
void latmc_embed_w2_add(struct latmc_embed_w2 *acc, int64_t s);
void latmc_embed_w2_merge(struct latmc_embed_w2 *acc, const struct latmc_embed_w2 *b);
/* The sum of the A_C^2 = S_C^2 2^-40 as a double (one value for one sum). */
double latmc_embed_w2_value(const struct latmc_embed_w2 *acc);
/* Wolff's w2 from its one cluster's S_C and size: A_C^2 / |C|. */
double latmc_embed_wolff_w2(int64_t s, int64_t size);

/* The Philox block of bond draws last computed (a site's draws share one to three). */
struct latmc_embed_draw_cache {
    uint64_t block;
    latmc_philox_ctr r;
};
#define LATMC_EMBED_DRAW_CACHE_INIT { UINT64_MAX, { { 0, 0, 0, 0 } } }
/* Whether the bond of draw number n between sites of a_i and a_j coupled by K is active:
 * K a_i a_j > 0 (multiplied in that order) and its draw below
 * floor((1 - exp(-2 K a_i a_j)) 2^32); the draw is made only where it can matter. */
int latmc_embed_bond_on(const struct latmc_embed_problem *p, double k, double ai, double aj,
                        uint64_t n, struct latmc_embed_draw_cache *c);

/* One cluster step of every replica of a part's own planes (n_parts > 1: collective), the
 * clusters joined across the parts (lib/cluster_embed_part.c), for a sim where
 * every part is at least as thick as the planes the pairs reach (2 for phi^4 with a finite
 * Lambda, else 1; LATMC_EUNSUPPORTED otherwise, the same on every part); a failure is
 * agreed on by every part. Sets *stats to replica 0's
 * statistics. */
int latmc_embed_part_step(latmc_sim *sim, uint64_t sweep, struct latmc_embed_stats *stats);

/* A Wolff step's statistics from its bonds (bit d of bonds[i]: bond (i, d) active, as the
 * step drew them; other bits ignored) and w->a: its cluster regrown from the seed site of
 * p's names as latmc_embed_step grows it: the same cluster, its S_C an integer sum (a
 * backend's step, lib/backend.h's LATMC_EMBED_NAMES). */
void latmc_embed_wolff_regrow(const struct latmc_embed_problem *p, struct latmc_embed_work *w,
                              const uint8_t *bonds, struct latmc_embed_stats *out);

/* A Heisenberg (any field) or phi^4 (any Lambda) sim's Swendsen-Wang or Wolff
 * step of sweep `sweep` on its backend (ops.embed_step), where the backend runs it (one
 * box alone on a GPU): LATMC_OK with the statistics left on the backend (w->names_on_backend),
 * LATMC_EUNSUPPORTED without a message where not (then the host copy's step), or the
 * backend's failure. */
int latmc_embed_heisenberg_backend_step(latmc_sim *sim, struct latmc_embed_work *w,
                                        uint64_t sweep);
int latmc_embed_phi4_backend_step(latmc_sim *sim, struct latmc_embed_work *w, uint64_t sweep);

/* The statistics of a step left on the backend, counted into sim->cluster (the cluster
 * observables ask first); LATMC_OK where none is pending. */
int latmc_embed_settle_stats(latmc_sim *sim);

/* Draw n of phase `phase` of the step (the names above). */
uint32_t latmc_embed_draw(const struct latmc_embed_problem *p, uint32_t phase, uint64_t n);

/* The model parts (lib/cluster_phi4.c, lib/cluster_heisenberg.c): one cluster step of the
 * sim's configuration held in w->field, adding its statistics (replica 0) to *stats. */
int latmc_embed_phi4_step(latmc_sim *sim, struct latmc_embed_work *w, uint64_t sweep,
                          struct latmc_embed_stats *stats);
int latmc_embed_heisenberg_step(latmc_sim *sim, struct latmc_embed_work *w, uint64_t sweep,
                                struct latmc_embed_stats *stats);

/* Heisenberg's direction r of the replica's step (p's names: seed, sweep, replica),
 * uniform on the sphere (lib/cluster_heisenberg.c). */
void latmc_embed_heisenberg_axis(const struct latmc_embed_problem *p, double r[3]);

/* phi^4's directions (p->n_dirs, p->off, p->k) for ndim k and Lambda lambda, in their
 * fixed order: +e_mu; with a finite Lambda then +2 e_mu, then the planar diagonals
 * (doc/models/phi4.md, "Cluster steps"). */
void latmc_embed_phi4_dirs(int k, double lambda, struct latmc_embed_problem *p);

/* The couplings of phi^4's sign embedding: K of the nearest neighbours, of the pairs
 * 2 e_mu apart and of the planar diagonals (doc/models/phi4.md). */
void latmc_embed_phi4_couplings(int ndim, double lambda, double *k_near, double *k_axis2,
                                double *k_diag);

#endif /* LATMC_LIB_CLUSTER_EMBED_H */
