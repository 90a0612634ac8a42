/*
 * Internal to the cluster updates (lib/cluster_*.c): the work space a sim keeps, what one
 * latmc_sim_sweep call reads once, and the passes the sweep files share.
 */
#ifndef LATMC_LIB_CLUSTER_JOB_H
#define LATMC_LIB_CLUSTER_JOB_H

#include <stdbool.h>
#include <stdint.h>

#include "cluster_label.h"
#include "cluster_sweep.h"

#ifdef _OPENMP
#  define CLUSTER_PRAGMA_(x) _Pragma(#x)
#  define CLUSTER_OMP(x) CLUSTER_PRAGMA_(omp x)
#else
#  define CLUSTER_OMP(x)
#endif

/*
 * for (int u = 0; u < n; u++) body, over a team of nt threads when nt > 1 (clauses: the
 * loop's OpenMP clauses), and without entering the OpenMP runtime when nt == 1: a
 * parallel region costs system calls even when it runs on one thread, which small
 * lattices, a sweep per call, would pay several times per sweep.
 */
#define CLUSTER_FOR_UNITS(nt, clauses, u, n, ...)                                          \
    do {                                                                                   \
        if ((nt) > 1) {                                                                    \
            CLUSTER_OMP(parallel for num_threads(nt) schedule(static, 1) clauses)          \
            for (int u = 0; u < (n); u++)                                                  \
                __VA_ARGS__                                                                \
        } else {                                                                           \
            for (int u = 0; u < (n); u++)                                                  \
                __VA_ARGS__                                                                \
        }                                                                                  \
    } while (0)

/* Below this many sites one thread is quicker than waking a team (speed only). */
#define CLUSTER_MIN_PARALLEL_SITES 65536

/* Philox blocks computed together (latmc_cluster_batch). */
enum { LATMC_CLUSTER_BATCH = 8 };

struct latmc_cluster_work {
    int64_t nsites;
    uint8_t *spins;      /* the configuration: Ising int8 +-1 as bytes, Potts states */
    uint8_t *bonds;      /* bit mu: bond (i, mu) active; then the clusters' decisions */
    uint32_t *parent;    /* union-find */
    uint32_t *name;      /* Swendsen-Wang: the clusters' sizes at their roots; Wolff: the
                            cluster's sites */
    int64_t *msum;       /* Ising with a field: the clusters' magnetisations */
    int8_t *eps;         /* Ising +-J: the couplings, ndim per site; else NULL */
    struct latmc_cluster_stats last;
    bool have_stats;     /* a cluster sweep filled `last` */
};

/* Everything one sweep needs, read once per latmc_sim_sweep call. */
struct latmc_cluster_job {
    struct latmc_cluster_lattice g;   /* the whole lattice: the draws' names, the wraps */
    /* The sites held in memory: the whole lattice (box = g, site0 = 0), or a part's slab
     * of planes (lib/cluster_part.c): box has its planes, local site k is global site
     * site0 + k, and with halo_up the spins hold one plane more after the slab's last, the
     * next plane along the last axis (the upper neighbour's first), so that the bonds
     * leaving the slab upwards are drawn here. Labels are local site indices. */
    struct latmc_cluster_lattice box;
    int64_t site0;
    int halo_up;
    uint64_t seed;
    int potts;                /* else Ising */
    int q;
    int wolff;
    int sign_k;               /* Ising: sign of beta J (0: no bonds) */
    uint64_t bond_threshold;  /* floor(p 2^32) */
    double beta_h;            /* the field's weight, beta h */
    const int8_t *eps;        /* Ising +-J couplings or NULL */
    int n_units;              /* labelling pieces: planes [unit_p[u], unit_p[u + 1]) */
    int64_t *unit_p;
    int n_threads;
    /* Swendsen-Wang: count the clusters' sizes (and magnetisations) -- needed for the
     * decisions in a field and for the statistics of a call's last sweep only */
    int count_sizes;
    /* work space of the call (allocated once per latmc_sim_sweep call, not per sweep) */
    uint32_t *row_draws;      /* n_units * row_words: each unit's draws of one row */
    size_t row_words;
    uint32_t *cand;           /* the local roots of the units' first and last planes */
    /* the row passes of lib/cluster_sw_rows.c, where they fit (else NULL) */
    uint32_t *rows_work;      /* n_units * rows_words: each unit's row buffers */
    size_t rows_words;
    uint32_t *face_pairs;     /* latmc_cluster_sw_rows_pair_words */
};

/* The words latmc_cluster_draw_bonds_into needs for one row of the lattice. */
size_t latmc_cluster_row_words(const struct latmc_cluster_lattice *g);

/* Whether the sweep's passes open a thread team (else one thread runs them). */
bool latmc_cluster_threaded(const struct latmc_cluster_job *job);

/* Whether bond (i, mu) to site j = i + e_mu can be active: its ends satisfied. */
int latmc_cluster_can_join(const struct latmc_cluster_job *job, const uint8_t *s, int64_t i,
                           int64_t j, int mu);

/* The draws of the LATMC_CLUSTER_BATCH blocks blk[k] of phase `phase` of the sweep
 * (lib/cluster_bonds.h) into out[4 k + lane]. */
void latmc_cluster_batch(uint64_t seed, uint64_t sweep, uint32_t phase, const uint64_t *blk,
                         uint32_t *out);

/* The draws of blocks b0 .. b0 + n - 1 of phase `phase` into out[4 (b - b0) + lane] (room
 * for n rounded up to a multiple of LATMC_CLUSTER_BATCH blocks). */
void latmc_cluster_blocks(uint64_t seed, uint64_t sweep, uint32_t phase, uint64_t b0,
                          int64_t n, uint32_t *out);

/* The scalar fields of a sweep's job (lattice, draws, thresholds, threads), from the
 * sim; box = g, site0 = 0, no units and no work space yet. */
void latmc_cluster_job_init(const latmc_sim *sim, struct latmc_cluster_job *job);

/* The bonds of the local sites [i0, i1) (job->site0 + i0 .. globally), at the start of
 * rows, into bonds[i0 .. i1): bit mu is bond (i, mu); draws: the caller's buffer of
 * latmc_cluster_row_words words. */
void latmc_cluster_draw_bonds_into(const struct latmc_cluster_job *job, uint64_t sweep,
                                   const uint8_t *s, uint8_t *bonds, int64_t i0, int64_t i1,
                                   uint32_t *draws);

/* The new state of a cluster from its draw u (lib/cluster_bonds.h): Ising 1 keep, 0 flip;
 * Potts the new colour. size: its sites; m: its magnetisation (Ising); old: its colour
 * (Potts). decide_one draws u at the cluster's name r. */
uint8_t latmc_cluster_decide(const struct latmc_cluster_job *job, uint32_t u, int64_t size,
                             int64_t m, int old);
uint8_t latmc_cluster_decide_one(const struct latmc_cluster_job *job, uint64_t sweep,
                                 int64_t r, int64_t size, int64_t m, int old);

/*
 * Steps (1) and (2) of a Swendsen-Wang sweep (cluster_sw.c): the bonds of the units of
 * job->box and their clusters, the units' faces merged (a part's last face, to the next
 * part, is left to lib/cluster_part.c). Afterwards the root of site i is
 * root_of(parent, parent[i]), and with job->count_sizes the roots hold their clusters'
 * sizes in w->name (and magnetisations in w->msum, with a field).
 */
void latmc_cluster_sw_label(const struct latmc_cluster_job *job, struct latmc_cluster_work *w,
                            uint64_t sweep);

/* One Swendsen-Wang sweep of w->spins (cluster_sw.c); adds the sites changed. */
int latmc_cluster_sw_sweep(const struct latmc_cluster_job *job, struct latmc_cluster_work *w,
                           uint64_t sweep, uint64_t *changed);

/* Whether lib/cluster_sw_rows.c runs the job's Swendsen-Wang sweeps (2D or 3D, the lattice
 * held whole, no field, uniform or +-J couplings, beta J != 0), its words per unit and its
 * face pairs' words, and one such sweep (the chain of latmc_cluster_sw_sweep, bit for bit). */
bool latmc_cluster_sw_rows_fits(const struct latmc_cluster_job *job);
size_t latmc_cluster_sw_rows_words(const struct latmc_cluster_lattice *g);
size_t latmc_cluster_sw_rows_pair_words(const struct latmc_cluster_lattice *g, int n_units);
void latmc_cluster_sw_rows_sweep(const struct latmc_cluster_job *job,
                                 struct latmc_cluster_work *w, uint64_t sweep,
                                 uint64_t *changed);

/* One Wolff sweep of w->spins (cluster_wolff.c); adds the sites changed and the cluster's
 * sites. w->bonds must be all 0 (it is again after). */
void latmc_cluster_wolff_sweep(const struct latmc_cluster_job *job,
                               struct latmc_cluster_work *w, uint64_t sweep,
                               uint64_t *changed, uint64_t *size);

/* latmc_cluster_sweeps of a part of n_parts > 1 (lib/cluster_part.c): collective. */
int latmc_cluster_part_sweeps(latmc_sim *sim, uint64_t n, uint64_t *accepted,
                              uint64_t *attempted);

#endif /* LATMC_LIB_CLUSTER_JOB_H */
