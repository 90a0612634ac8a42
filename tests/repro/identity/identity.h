/*
 * The identity matrix (tests/repro/identity/): one chain, many layouts. A row is a model
 * spec (model, algorithm, couplings, precision, parameters, sweeps), a lattice and a
 * layout (threads, SIMD level, boxes, devices, parts, ranks, an ensemble, a checkpoint
 * between sweeps); each row's chain must end bit for bit where the one-box CPU chain of
 * the same spec and lattice ends (one thread, the C level): configuration, every
 * observable (value and status), acceptance counts, sweep count. Public API only.
 *
 * Adding a case: a new lattice or layout of an existing spec is one line of rows.c; a new
 * spec one entry of specs.c; a new layout kind one token in layout.c and its step in
 * chain.c.
 */
#ifndef LATMC_TEST_IDENTITY_H
#define LATMC_TEST_IDENTITY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <latmc/latmc.h>

enum { SPEC_MAX_PARAMS = 8, N_OBS_KEYS = LATMC_OBS_OVERLAP2_KMIN + 1 /* every key */ };

/* A model spec: everything of the chain but the lattice and the layout. */
struct spec {
    const char *name;
    int model, algorithm, couplings, replicas, q;
    bool single;                /* phi^4, Heisenberg: LATMC_PRECISION_FLOAT */
    int keys[SPEC_MAX_PARAMS]; /* parameters set after creation (0 ends) */
    double values[SPEC_MAX_PARAMS];
    uint64_t sweeps1, sweeps2;  /* sweeps before and after the middle of the chain */
    int change_key;             /* set between sweeps1 and sweeps2 (0: none): a schedule
                                   that changes between sweep calls */
    double change_value;
    /* CUDA runs this spec's chain exactly as the CPU (Ising, Potts, phi^4 on the site
     * order in double); false: the CUDA rows compare with one GPU's one-box chain */
    bool cuda_is_cpu;
    /* phi^4: the chunk schedule of this shape (doc/models/phi4.md, "The chunk schedule on the CPU")
     * on every device and layout, the reference too: LATMC_CPU_PHI4_CHUNK and
     * LATMC_CUDA_PHI4_CHUNK ("cuda": CUDA's default shape, the CUDA variable unset); the
     * two devices run the same chain. NULL: each device's default schedule. */
    const char *chunk;
};

/* A layout: how the chain is run. Parsed from text (layout.c); every field 0 / NULL is the
 * reference's choice, but the SIMD level (the reference's is "c"). */
struct place {
    int threads;         /* desc.n_threads (0: 1) */
    const char *simd;    /* LATMC_CPU_MASK at creation (NULL: the process's own) */
    int boxes;           /* desc.n_parts (CPU or one GPU) */
    bool cuda;           /* the CUDA backend */
    int devices;         /* desc.n_devices (slab i on GPU i mod GPUs) */
    int parts;           /* parts of one lattice over the in-process transport of threads */
    bool shared_halos;   /* ... offering share_halos */
    bool mpi;            /* parts over MPI_COMM_WORLD (liblatmc_mpi, one part per rank) */
    int max_ranks;       /* mpi: skipped on more ranks than this (0: any) */
};

enum middle { MID_NONE, MID_RECUT, MID_SERIALIZE, MID_SAVE };

struct layout {
    char text[160];
    struct place first;  /* create, hot start, sweeps1 [, the spec's change] */
    enum middle mid;     /* then: nothing, latmc_sim_set_parts(recut), a checkpoint in
                            memory or in a file of a temporary directory */
    int recut;
    struct place then;   /* the checkpoint continued on this placement (default: first) */
    bool cold;           /* a cold start (the reference too) instead of a hot one */
    bool setspins;       /* after sweeps1: the configuration read and set again (which
                            resets the acceptance counts; the reference too) */
    bool measured;       /* every sweep a call of its own, followed by reads of everything
                            (spins, every observable, a checkpoint in memory): reads never
                            change the chain, so the reference runs without them */
    bool ens;            /* members of an ensemble against their standalone sims */
    char chunk[16];      /* LATMC_CUDA_PHI4_CHUNK ("": unset; "none": the site order) */
};

/* A row of the matrix: spec x lattice x layouts (space-separated list of layouts, each a
 * comma-separated list of tokens: layout.c). */
struct row {
    const char *spec;
    int ndim;
    int64_t extent[3];
    const char *layouts;
};

/* The end of a chain. */
struct chain_end {
    unsigned char *spins;
    size_t bytes;
    double obs[N_OBS_KEYS];
    int obs_status[N_OBS_KEYS];
    bool modes_everywhere; /* Ising, Potts, phi^4, Heisenberg: the Fourier modes' keys
                              are offered on every layout */
    bool clusters_everywhere; /* Ising and Potts, Swendsen-Wang or Wolff: the cluster
                                 observables are offered on every layout (one box, boxes,
                                 parts, CPU and CUDA) */
    uint64_t accepted, attempted, sweeps;
    unsigned char *ckpt; /* latmc_sim_serialize's bytes */
    size_t ckpt_bytes;
};

/* Outcome of a row: passed, skipped (why says), failed (why says). */
enum verdict { PASSED, SKIPPED, FAILED };

struct outcome {
    enum verdict verdict;
    char why[512];
};

extern const struct spec specs[];
extern const size_t n_specs;
extern const struct row rows[];
extern const size_t n_rows;

const struct spec *spec_by_name(const char *name);

/* False where a cluster spec's name hides its field or claims one it lacks (specs.c). */
bool spec_name_tells_field(const struct spec *s);

/* Parse one layout's text; false (with why) on a token it does not know. */
bool layout_parse(const char *text, struct layout *out, char *why, size_t why_size);

/* The desc of spec x row, as the reference runs it (CPU, one thread, one box). */
latmc_sim_desc spec_desc(const struct spec *s, const struct row *r);

/* Set the spec's parameters on a sim; LATMC_OK or the failing status. */
int spec_set_params(const struct spec *s, latmc_sim *sim);

/* Why the spec cannot run on the layout at all (the row is then skipped, saying so: the
 * cluster algorithms on CUDA), or NULL. */
const char *spec_skip(const struct spec *s, const struct layout *l);

/* Why a layout cannot run here (the row is then skipped, saying so), or NULL. */
const char *chain_skip(latmc_ctx *ctx, const struct layout *l);

/* Why the library refuses the layout's first placement of the row as unsupported (its
 * message), or NULL (chain.c; for --devices K). */
const char *chain_refused(latmc_ctx *ctx, const struct spec *s, const struct row *r,
                          const struct layout *l);

/* Run a row's chain on a layout; the outcome's verdict against ref (the reference end). */
void chain_check(const struct spec *s, const struct row *r, const struct layout *l,
                 const struct chain_end *ref, latmc_ctx *ctx, struct outcome *out);

/* What the reference shares with a layout: its start and its setspins (0 .. 3), so that
 * a row keeps one reference per script. */
enum { N_SCRIPTS = 4 };
static inline int layout_script(const struct layout *l)
{
    return (l->cold ? 1 : 0) | (l->setspins ? 2 : 0);
}

/* The reference's end (CPU, one box, one thread, level c) of l's script; false with why
 * on failure. */
bool chain_reference(const struct spec *s, const struct row *r, const struct layout *l,
                     latmc_ctx *ctx, struct chain_end *out, char *why, size_t why_size);

/* The one-GPU one-box end (the CUDA rows' reference where CUDA is not the CPU's chain). */
bool chain_reference_cuda(const struct spec *s, const struct row *r, const struct layout *l,
                          latmc_ctx *ctx, struct chain_end *out, char *why, size_t why_size);

void chain_end_free(struct chain_end *e);

/* Compare two ends bit for bit; false with the first difference in why. */
bool chain_same(const struct chain_end *a, const struct chain_end *b, bool with_ckpt,
                char *why, size_t why_size);

/* An ensemble's members against their standalone one-box CPU chains. */
void ens_check(const struct spec *s, const struct row *r, const struct layout *l,
               latmc_ctx *ctx, struct outcome *out);

/* MPI (mpi_place.c in the MPI build, no_mpi.c otherwise). */
bool mpi_built(void);
int mpi_rank(void);
int mpi_size(void);
bool mpi_all(bool ok);          /* every rank's ok (MPI_LAND); ok itself without MPI */
int mpi_sim_create(latmc_ctx *ctx, const latmc_sim_desc *d, latmc_sim **out);
int mpi_sim_load(latmc_ctx *ctx, const char *path, latmc_sim **out);
/* A directory name the same on every rank, created by rank 0 (false on failure). */
bool mpi_shared_tempdir(char *dir, size_t size);
void mpi_init(int *argc, char ***argv);
void mpi_finalize(void);

#endif
