/*
 * One row's chain on one layout, and the reference it must equal. The chain: create (or
 * load), the spec's parameters, a hot (or cold) start, sweeps1 sweeps, the spec's change of a
 * parameter, the layout's middle (nothing, a recut, a checkpoint continued on another
 * placement), sweeps2 sweeps, then everything the guarantee covers read back. Parts run
 * the same script on threads (thread_parts.h) or MPI ranks, each part checked.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "identity.h"
#include "thread_parts.h"

/* ---- the end of a chain ---- */

void chain_end_free(struct chain_end *e)
{
    free(e->spins);
    free(e->ckpt);
    memset(e, 0, sizeof *e);
}

/*
 * Ising and Potts: the configuration set again and the sums and M2_KMIN read once more.
 * The first read counted the modes in a pass of their own (asked after the sums); from
 * then on a layout that can counts them in the measurement's pass (lib/modes.h,
 * latmc_modes_measure_with_sums): the two must give the same bits. A difference shows as
 * the key's status LATMC_EBACKEND, which no reference has. Last: set_spins clears the
 * acceptance counts, read before.
 */
static int reread_with_modes(latmc_sim *sim, struct chain_end *e)
{
    if (!e->modes_everywhere || e->obs_status[LATMC_OBS_M2_KMIN] != LATMC_OK)
        return LATMC_OK;
    int st = latmc_sim_set_spins(sim, e->spins, e->bytes);
    if (st != LATMC_OK)
        return st;
    const int keys[] = { LATMC_OBS_ENERGY, LATMC_OBS_M2, LATMC_OBS_M2_KMIN };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        double again = 0;
        const int k = keys[i];
        const int got = latmc_sim_observable(sim, k, &again);
        if (got != e->obs_status[k] ||
            (got == LATMC_OK && memcmp(&again, &e->obs[k], sizeof again) != 0))
            e->obs_status[k] = LATMC_EBACKEND;
    }
    return LATMC_OK;
}

/* Everything the guarantee covers (collective on parts: every part makes these calls). */
static int take_end(latmc_sim *sim, struct chain_end *e)
{
    memset(e, 0, sizeof *e);
    int st = latmc_sim_spins_size(sim, &e->bytes);
    if (st != LATMC_OK)
        return st;
    e->spins = malloc(e->bytes);
    if (!e->spins)
        return LATMC_ENOMEM;
    if ((st = latmc_sim_get_spins(sim, e->spins, e->bytes)) != LATMC_OK)
        return st;
    for (int key = LATMC_OBS_ENERGY; key < N_OBS_KEYS; key++)
        e->obs_status[key] = latmc_sim_observable(sim, key, &e->obs[key]);
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    if ((st = latmc_sim_get_desc(sim, &d)) != LATMC_OK)
        return st;
    e->modes_everywhere = d.model == LATMC_MODEL_ISING || d.model == LATMC_MODEL_POTTS ||
                          d.model == LATMC_MODEL_PHI4 ||
                          d.model == LATMC_MODEL_HEISENBERG;
    e->clusters_everywhere = (d.model == LATMC_MODEL_ISING || d.model == LATMC_MODEL_POTTS) &&
                             (d.algorithm == LATMC_ALGO_SWENDSEN_WANG ||
                              d.algorithm == LATMC_ALGO_WOLFF);
    if ((st = latmc_sim_acceptance_counts(sim, &e->accepted, &e->attempted)) != LATMC_OK ||
        (st = latmc_sim_sweep_count(sim, &e->sweeps)) != LATMC_OK)
        return st;
    st = latmc_sim_serialize(sim, NULL, 0, &e->ckpt_bytes);
    /* a chain a checkpoint cannot record (none today: Ising decisions = 1 is format
     * version 3, on every layout) would be compared without its bytes */
    if (st == LATMC_EUNSUPPORTED) {
        e->ckpt_bytes = 0;
        return LATMC_OK;
    }
    if (st != LATMC_OK)
        return st;
    e->ckpt = malloc(e->ckpt_bytes);
    if (!e->ckpt)
        return LATMC_ENOMEM;
    if ((st = latmc_sim_serialize(sim, e->ckpt, e->ckpt_bytes, &e->ckpt_bytes)) != LATMC_OK)
        return st;
    return reread_with_modes(sim, e);
}

bool chain_same(const struct chain_end *a, const struct chain_end *b, bool with_ckpt,
                char *why, size_t why_size)
{
    if (a->bytes != b->bytes) {
        snprintf(why, why_size, "configuration sizes %zu vs %zu", a->bytes, b->bytes);
        return false;
    }
    for (size_t i = 0; i < a->bytes; i++)
        if (a->spins[i] != b->spins[i]) {
            size_t n = 0;
            for (size_t j = i; j < a->bytes; j++)
                n += a->spins[j] != b->spins[j];
            snprintf(why, why_size, "configurations differ in %zu of %zu bytes, first at %zu",
                     n, a->bytes, i);
            return false;
        }
    /* memcmp, not ==: -0.0 against 0.0, or two NaN, would hide a difference */
    for (int k = LATMC_OBS_ENERGY; k < N_OBS_KEYS; k++) {
        /* the keys after OVERLAP2 (cluster statistics, Fourier modes) exist on some
         * backends only: a layout that does not offer one (LATMC_EUNSUPPORTED) is compared
         * on the others; but every model's M2_KMIN (and Heisenberg's OVERLAP2_KMIN) every
         * layout offers (on a cubic lattice, with two replicas: elsewhere every layout
         * refuses it alike), and the cluster statistics of Ising and Potts every layout
         * of a sim (ensemble members' ends, read otherwise, are not required) */
        const bool cluster_key = k == LATMC_OBS_CLUSTERS || k == LATMC_OBS_LARGEST_CLUSTER ||
                                 k == LATMC_OBS_CLUSTER_M2;
        const bool required = ((k == LATMC_OBS_M2_KMIN || k == LATMC_OBS_OVERLAP2_KMIN) &&
                               a->modes_everywhere) ||
                              (cluster_key && a->clusters_everywhere &&
                               b->clusters_everywhere);
        if (k > LATMC_OBS_OVERLAP2 && !required &&
            (a->obs_status[k] == LATMC_EUNSUPPORTED || b->obs_status[k] == LATMC_EUNSUPPORTED))
            continue;
        if (a->obs_status[k] != b->obs_status[k] ||
            (a->obs_status[k] == LATMC_OK && memcmp(&a->obs[k], &b->obs[k], sizeof(double)))) {
            snprintf(why, why_size, "%s: %.17g (status %d) vs %.17g (status %d)",
                     latmc_observable_name(k), a->obs[k], a->obs_status[k], b->obs[k],
                     b->obs_status[k]);
            return false;
        }
    }
    if (a->accepted != b->accepted || a->attempted != b->attempted || a->sweeps != b->sweeps) {
        snprintf(why, why_size, "acceptance %llu/%llu vs %llu/%llu, sweeps %llu vs %llu",
                 (unsigned long long)a->accepted, (unsigned long long)a->attempted,
                 (unsigned long long)b->accepted, (unsigned long long)b->attempted,
                 (unsigned long long)a->sweeps, (unsigned long long)b->sweeps);
        return false;
    }
    /* one checkpoint format whatever the layout (where the desc stored is the same) */
    if (with_ckpt && (a->ckpt_bytes != b->ckpt_bytes ||
                      (a->ckpt_bytes && memcmp(a->ckpt, b->ckpt, a->ckpt_bytes) != 0))) {
        snprintf(why, why_size, "checkpoint bytes differ (%zu vs %zu bytes)", a->ckpt_bytes,
                 b->ckpt_bytes);
        return false;
    }
    return true;
}

/* The configuration read and set again (collective on parts). */
static int set_own_spins(latmc_sim *sim)
{
    size_t bytes = 0;
    int st = latmc_sim_spins_size(sim, &bytes);
    unsigned char *b = st == LATMC_OK ? malloc(bytes) : NULL;
    if (st == LATMC_OK && !b)
        st = LATMC_ENOMEM;
    if (st == LATMC_OK)
        st = latmc_sim_get_spins(sim, b, bytes);
    if (st == LATMC_OK)
        st = latmc_sim_set_spins(sim, b, bytes);
    free(b);
    return st;
}

/* The layout `measured`: n sweeps one call each, each followed by reads of everything a
 * program reads between sweeps (collective on parts): every observable (Fourier modes
 * included: after the first, a backend that can measures them with the sums), the
 * configuration and a checkpoint in memory. A read must leave the chain as it is (CUDA Ising
 * decisions = 1 keeps its 1-bit form across reads), so the end equals the reference's,
 * which makes none of them; the values read are not compared (the end's are). */
static int sweeps_read(latmc_sim *sim, uint64_t n, bool measured)
{
    if (!measured)
        return latmc_sim_sweep(sim, n);
    size_t bytes = 0, ckpt_bytes = 0;
    int st = latmc_sim_spins_size(sim, &bytes);
    unsigned char *spins = st == LATMC_OK ? malloc(bytes) : NULL;
    unsigned char *ckpt = NULL;
    if (st == LATMC_OK && !spins)
        st = LATMC_ENOMEM;
    for (uint64_t i = 0; i < n && st == LATMC_OK; i++) {
        if ((st = latmc_sim_sweep(sim, 1)) != LATMC_OK)
            break;
        double v; /* the observables first: the first read after the sweep */
        for (int key = LATMC_OBS_ENERGY; key < N_OBS_KEYS && st == LATMC_OK; key++) {
            const int got = latmc_sim_observable(sim, key, &v);
            if (got != LATMC_OK && got != LATMC_EUNSUPPORTED) /* not offered: passed over */
                st = got;
        }
        if (st != LATMC_OK || (st = latmc_sim_get_spins(sim, spins, bytes)) != LATMC_OK)
            break;
        st = latmc_sim_serialize(sim, NULL, 0, &ckpt_bytes);
        if (st == LATMC_EUNSUPPORTED) { /* as take_end */
            st = LATMC_OK;
            continue;
        }
        unsigned char *grown = st == LATMC_OK ? realloc(ckpt, ckpt_bytes) : NULL;
        if (st == LATMC_OK && !grown)
            st = LATMC_ENOMEM;
        if (st == LATMC_OK) {
            ckpt = grown;
            st = latmc_sim_serialize(sim, ckpt, ckpt_bytes, &ckpt_bytes);
        }
    }
    free(ckpt);
    free(spins);
    return st;
}

/* ---- placements ---- */

static int n_gpus;

/* The desc of a placement: the reference's with the placement's fields. */
static latmc_sim_desc placed_desc(const struct spec *s, const struct row *r,
                                  const struct place *p, int *list)
{
    latmc_sim_desc d = spec_desc(s, r);
    d.n_threads = p->threads ? p->threads : 1;
    d.n_parts = p->boxes;
    if (p->cuda) {
        d.device = LATMC_DEVICE_CUDA;
        if (p->devices > 1) {
            /* slab i on GPU i mod GPUs: peer copies and copies within one GPU both occur */
            for (int i = 0; i < p->devices; i++)
                list[i] = i % (n_gpus > 0 ? n_gpus : 1);
            d.n_devices = p->devices;
            d.device_list = list;
        }
    }
    return d;
}

/* The job of one phase of a chain, shared by its parts. */
struct job {
    const struct spec *s;
    const struct row *r;
    const struct layout *l;
    int phase;              /* 0: create .. middle; 1: continue the checkpoint */
    const char *path;       /* MID_SAVE's file */
    unsigned char *ser;     /* MID_SERIALIZE's bytes (part 0's) */
    size_t nser;
    struct chain_end end[THREAD_PARTS_MAX];
    int status[THREAD_PARTS_MAX];
    char where[THREAD_PARTS_MAX][48];
    char msg[THREAD_PARTS_MAX][400];
};

#define STEP(what, call)                                                                   \
    do {                                                                                   \
        if (st == LATMC_OK && (st = (call)) != LATMC_OK) {                                 \
            snprintf(j->where[slot], sizeof j->where[slot], "%s", what);                   \
            snprintf(j->msg[slot], sizeof j->msg[slot], "%s", latmc_last_error());        \
        }                                                                                  \
    } while (0)

/* One part's (or the only sim's) phase: rank of n; t NULL unless parts over threads. */
static void run_phase(struct job *j, int rank, int n, const latmc_transport *t)
{
    const int slot = t ? rank : 0;
    const struct place *p = j->phase == 0 ? &j->l->first : &j->l->then;
    int list[64];
    latmc_sim_desc d = placed_desc(j->s, j->r, p, list);
    latmc_ctx *ctx = NULL;
    latmc_sim *sim = NULL;
    int st = LATMC_OK;
    STEP("context", latmc_ctx_create(&ctx));
    if (j->phase == 0) {
        if (t)
            STEP("create part", latmc_sim_create_part(ctx, &d, rank, n, t, &sim));
        else if (p->mpi)
            STEP("create on ranks", mpi_sim_create(ctx, &d, &sim));
        else
            STEP("create", latmc_sim_create(ctx, &d, &sim));
        STEP("parameters", spec_set_params(j->s, sim));
        const int how = j->l->cold ? LATMC_INIT_COLD : LATMC_INIT_HOT;
        STEP("start", latmc_sim_init_spins(sim, how));
        STEP("sweeps1", sweeps_read(sim, j->s->sweeps1, j->l->measured));
        if (j->s->change_key)
            STEP("change", latmc_sim_set_param(sim, j->s->change_key, j->s->change_value));
        if (j->l->setspins)
            STEP("setspins", set_own_spins(sim));
        if (j->l->mid == MID_RECUT)
            STEP("recut", latmc_sim_set_parts(sim, j->l->recut));
        if (j->l->mid == MID_SAVE)
            STEP("save", latmc_sim_save(sim, j->path));
        if (j->l->mid == MID_SERIALIZE) {
            size_t size = 0;
            STEP("serialize size", latmc_sim_serialize(sim, NULL, 0, &size));
            unsigned char *b = st == LATMC_OK ? malloc(size) : NULL;
            STEP("serialize", b ? latmc_sim_serialize(sim, b, size, &size) : LATMC_ENOMEM);
            if (rank == 0 && st == LATMC_OK) {
                j->ser = b;
                j->nser = size;
            } else {
                free(b);
            }
        }
    } else if (j->l->mid == MID_SAVE) {
        if (t)
            STEP("load part", latmc_sim_load_part(ctx, j->path, rank, n, t, &sim));
        else if (p->mpi)
            STEP("load on ranks", mpi_sim_load(ctx, j->path, &sim));
        else
            STEP("load on", latmc_sim_load_on(ctx, j->path, &d, &sim));
    } else {
        if (t)
            STEP("deserialize part",
                 latmc_sim_deserialize_part(ctx, j->ser, j->nser, rank, n, t, &sim));
        else
            STEP("deserialize on", latmc_sim_deserialize_on(ctx, j->ser, j->nser, &d, &sim));
    }
    /* the sim says how it runs: its boxes or parts, its devices (a checkpoint stores
     * neither: a loaded sim runs as the placement it was given) */
    if (st == LATMC_OK) {
        latmc_sim_desc got;
        got.struct_size = sizeof got;
        STEP("get_desc", latmc_sim_get_desc(sim, &got));
        const int parts = j->l->mid == MID_RECUT && j->phase == 0 ? j->l->recut
                          : t ? n : p->boxes;
        const int devices = p->devices > 1 ? p->devices : 0;
        if (st == LATMC_OK && !p->cuda && !p->mpi && got.n_parts != parts) {
            st = LATMC_EBACKEND;
            snprintf(j->where[slot], sizeof j->where[slot], "get_desc");
            snprintf(j->msg[slot], sizeof j->msg[slot], "n_parts %d, placed as %d",
                     got.n_parts, parts);
        }
        if (st == LATMC_OK && p->cuda && got.n_devices != devices &&
            !(devices == 0 && got.n_devices == 1)) {
            st = LATMC_EBACKEND;
            snprintf(j->where[slot], sizeof j->where[slot], "get_desc");
            snprintf(j->msg[slot], sizeof j->msg[slot], "n_devices %d, placed on %d",
                     got.n_devices, devices);
        }
    }
    const bool ends_here = j->phase == 1 || j->l->mid == MID_NONE || j->l->mid == MID_RECUT;
    if (ends_here) {
        STEP("sweeps2", sweeps_read(sim, j->s->sweeps2, j->l->measured));
        STEP("read back", take_end(sim, &j->end[slot]));
    }
    j->status[slot] = st;
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
}

static void part_body(int rank, int n, const latmc_transport *t, void *arg)
{
    run_phase(arg, rank, n, t);
}

/* LATMC_CPU_MASK as the process found it (the default of a placement without simd=). */
static const char *outer_mask(void)
{
    static int read;
    static char value[64];
    static bool set;
    if (!read) {
        const char *v = getenv("LATMC_CPU_MASK");
        set = v != NULL;
        if (v)
            snprintf(value, sizeof value, "%s", v);
        read = 1;
    }
    return set ? value : NULL;
}

static void set_mask(const char *level)
{
    (void)outer_mask(); /* the process's value, read before the first change */
    if (level)
        setenv("LATMC_CPU_MASK", level, 1);
    else
        unsetenv("LATMC_CPU_MASK");
}

static void set_chunk(const char *chunk)
{
    if (chunk && *chunk)
        setenv("LATMC_CUDA_PHI4_CHUNK", chunk, 1);
    else
        unsetenv("LATMC_CUDA_PHI4_CHUNK");
}

/* The phi^4 schedules of spec s on layout l (NULL: none, both variables unset): the
 * spec's chunks on both devices where it names them, else the layout's CUDA chunks. */
static void set_schedules(const struct spec *s, const struct layout *l)
{
    if (s && s->chunk) {
        setenv("LATMC_CPU_PHI4_CHUNK", s->chunk, 1);
        set_chunk(strcmp(s->chunk, "cuda") == 0 ? NULL : s->chunk);
        return;
    }
    unsetenv("LATMC_CPU_PHI4_CHUNK");
    set_chunk(l ? l->chunk : NULL);
}

/* One phase on a placement: on threads for parts, else here. The level and the phi^4
 * schedule are set in the environment for the whole phase (read at each creation). */
static void run_placed(struct job *j)
{
    const struct place *p = j->phase == 0 ? &j->l->first : &j->l->then;
    set_mask(p->simd ? p->simd : outer_mask());
    if (p->parts) {
        void *args[THREAD_PARTS_MAX];
        for (int i = 0; i < p->parts; i++)
            args[i] = j;
        struct thread_parts_opts o = { p->shared_halos, -1 };
        struct thread_parts_stats stats;
        if (thread_parts_run(p->parts, &o, part_body, args, &stats) != 0) {
            j->status[0] = LATMC_EINVAL;
            snprintf(j->msg[0], sizeof j->msg[0], "parts=%d: more than the transport takes",
                     p->parts);
        } else if (p->parts > 1 && j->status[0] == LATMC_OK &&
                   (p->shared_halos ? stats.syncs == 0 : stats.syncs != 0)) {
            /* the halos went through the shared buffers, or by exchange, as offered */
            j->status[0] = LATMC_EBACKEND;
            snprintf(j->msg[0], sizeof j->msg[0], "shared halos %s but %d sync_halos calls",
                     p->shared_halos ? "offered" : "not offered", stats.syncs);
        }
    } else {
        run_phase(j, 0, 1, NULL);
    }
    set_mask(outer_mask());
}

/* ---- the reference ---- */

static bool reference_on(const struct spec *s, const struct row *r, const struct layout *l,
                         latmc_ctx *ctx, int device, struct chain_end *out, char *why,
                         size_t why_size)
{
    latmc_sim_desc d = spec_desc(s, r);
    d.device = device;
    latmc_sim *sim = NULL;
    int st = latmc_sim_create(ctx, &d, &sim);
    const char *what = "create";
    if (st == LATMC_OK && (st = spec_set_params(s, sim)) != LATMC_OK)
        what = "parameters";
    if (st == LATMC_OK &&
        (st = latmc_sim_init_spins(sim, l->cold ? LATMC_INIT_COLD : LATMC_INIT_HOT)) !=
            LATMC_OK)
        what = "start";
    /* the sweeps in one call where nothing happens between them: any split of n sweeps
     * into calls is the same chain, so the layouts' two calls are checked too */
    if (!s->change_key && !l->setspins) {
        if (st == LATMC_OK &&
            (st = latmc_sim_sweep(sim, s->sweeps1 + s->sweeps2)) != LATMC_OK)
            what = "sweeps";
    } else {
        if (st == LATMC_OK && (st = latmc_sim_sweep(sim, s->sweeps1)) != LATMC_OK)
            what = "sweeps1";
        if (st == LATMC_OK && s->change_key &&
            (st = latmc_sim_set_param(sim, s->change_key, s->change_value)) != LATMC_OK)
            what = "change";
        if (st == LATMC_OK && l->setspins && (st = set_own_spins(sim)) != LATMC_OK)
            what = "setspins";
        if (st == LATMC_OK && (st = latmc_sim_sweep(sim, s->sweeps2)) != LATMC_OK)
            what = "sweeps2";
    }
    if (st == LATMC_OK && (st = take_end(sim, out)) != LATMC_OK)
        what = "read back";
    if (st != LATMC_OK)
        snprintf(why, why_size, "reference: %s: %s (%s)", what, latmc_strerror(st),
                 latmc_last_error());
    latmc_sim_destroy(&sim);
    return st == LATMC_OK;
}

bool chain_reference(const struct spec *s, const struct row *r, const struct layout *l,
                     latmc_ctx *ctx, struct chain_end *out, char *why, size_t why_size)
{
    set_mask("c");
    set_schedules(s, NULL);
    const bool ok = reference_on(s, r, l, ctx, LATMC_DEVICE_CPU, out, why, why_size);
    set_schedules(NULL, NULL);
    set_mask(outer_mask());
    if (!ok)
        return false;
    /* a chain that moves: some proposals taken, some refused (Heisenberg: its heat bath
     * takes every draw, overrelaxation alone makes none, 0 of 0) */
    const bool all_taken = s->model == LATMC_MODEL_HEISENBERG ||
                           /* Wolff without a field flips every site of its cluster */
                           s->algorithm == LATMC_ALGO_WOLFF;
    if (out->attempted > 0 &&
        (out->accepted == 0 || (!all_taken && out->accepted == out->attempted))) {
        snprintf(why, why_size, "reference: a chain that does not move (%llu of %llu "
                 "accepted): the row tests nothing", (unsigned long long)out->accepted,
                 (unsigned long long)out->attempted);
        return false;
    }
    return true;
}

bool chain_reference_cuda(const struct spec *s, const struct row *r, const struct layout *l,
                          latmc_ctx *ctx, struct chain_end *out, char *why, size_t why_size)
{
    set_schedules(s, l);
    const bool ok = reference_on(s, r, l, ctx, LATMC_DEVICE_CUDA, out, why, why_size);
    set_schedules(NULL, NULL);
    return ok;
}

/* ---- a row on a layout ---- */

static const char *cpu_lacks(latmc_ctx *ctx, const struct place *p)
{
    if (!p->simd || strcmp(p->simd, "c") == 0)
        return NULL;
    const char *status = latmc_ctx_backend_status(ctx, LATMC_DEVICE_CPU);
    const char *has = status ? strstr(status, "the CPU has ") : NULL;
    if (!has)
        return "the CPU backend does not say which SIMD level the CPU has";
    has += strlen("the CPU has ");
    const bool avx512 = strncmp(has, "avx512", 6) == 0;
    const bool avx2 = avx512 || strncmp(has, "avx2", 4) == 0;
    if (strcmp(p->simd, "avx512") == 0 && !avx512)
        return "this CPU has no avx512";
    if (strcmp(p->simd, "avx2") == 0 && !avx2)
        return "this CPU has no avx2";
    /* a level the build has no kernels of runs C: a row there would compare C with C */
    const char *built = strstr(status, "levels built: ");
    if (!built)
        return "the CPU backend does not say which SIMD levels it was built with";
    char level[16];
    snprintf(level, sizeof level, ", %s", p->simd);
    const char *end = strchr(built, ';') ? strchr(built, ';') : strchr(built, ')');
    const char *at = strstr(built, level);
    if (!at || (end && at > end))
        return "this build has no kernels of that SIMD level (-Dsimd=false)";
    return NULL;
}

/* Why a placement cannot run here (a skip), or NULL. */
static const char *cannot_run(latmc_ctx *ctx, const struct place *p)
{
    if (p->mpi && !mpi_built())
        return "parts over MPI run in the mpi suite (the matrix built with liblatmc_mpi, "
               "under mpirun)";
    if (p->mpi && p->max_ranks && mpi_size() > p->max_ranks)
        return "more ranks than the lattice takes (max_ranks)";
    if (p->cuda) {
        if (n_gpus == 0 &&
            (latmc_ctx_device_count(ctx, LATMC_DEVICE_CUDA, &n_gpus) != LATMC_OK ||
             n_gpus < 1)) {
            n_gpus = -1;
        }
        if (n_gpus < 1)
            return "no usable CUDA module or GPU";
    }
    return cpu_lacks(ctx, p);
}

static bool is_cluster(const struct spec *s)
{
    return s->algorithm == LATMC_ALGO_SWENDSEN_WANG || s->algorithm == LATMC_ALGO_WOLFF;
}

/* Why the CUDA backend does not run a cluster spec on placement p (it refuses those at
 * creation), or NULL: Swendsen-Wang and Wolff of Ising (uniform or +-J couplings) and
 * Potts, any field, on one box, k boxes on one GPU or several, parts over threads or
 * MPI ranks, and ensemble members (backends/cuda/clusters/); the embedded clusters of
 * phi^4 and Heisenberg on all of those (the GPU's local passes; the cluster step the
 * device's, or the core's on a host copy: doc/clusters.md),
 * but their GPU chain is its own (the local passes': doc/cuda.md), so a checkpoint
 * between the CPU and the GPU continues another chain than the GPU reference's. */
static const char *cuda_cluster_lacks(const struct spec *s, const struct layout *l,
                                      const struct place *p)
{
    if (s->model != LATMC_MODEL_ISING && s->model != LATMC_MODEL_POTTS) {
        if (s->model == LATMC_MODEL_PHI4 && p->cuda && (p->parts > 1 || p->mpi) &&
            strcmp(l->chunk, "none") != 0)
            return "phi^4 on CUDA parts runs the site order only (chunk=none)";
        if (l->mid >= MID_SERIALIZE && l->first.cuda != l->then.cuda)
            return "the GPU's embedded-cluster chain is its own (its local passes'): a "
                   "checkpoint between the CPU and the GPU continues another chain";
        return NULL;
    }
    if (s->couplings != LATMC_COUPLINGS_UNIFORM && s->couplings != LATMC_COUPLINGS_BIMODAL)
        return "CUDA's cluster updates run uniform and +-J couplings only";
    (void)l; /* ensemble members too: one by one (doc/clusters.md) */
    (void)p;
    return NULL;
}

/* The spec sets the bit-sliced decisions (decisions = 1). */
static bool is_bitsliced(const struct spec *s)
{
    for (int k = 0; k < SPEC_MAX_PARAMS && s->keys[k]; k++)
        if (s->keys[k] == LATMC_PARAM_DECISIONS && s->values[k] != 0.0)
            return true;
    return false;
}

const char *spec_skip(const struct spec *s, const struct layout *l)
{
    const bool cuda = l->first.cuda || (l->mid >= MID_SERIALIZE && l->then.cuda);
    if (is_cluster(s)) {
        const char *why = l->first.cuda ? cuda_cluster_lacks(s, l, &l->first) : NULL;
        if (!why && l->mid >= MID_SERIALIZE && l->then.cuda)
            why = cuda_cluster_lacks(s, l, &l->then);
        return why;
    }
    const char *kernels = getenv("LATMC_CUDA_KERNELS");
    if (is_bitsliced(s) && cuda && kernels && strcmp(kernels, "reference") == 0)
        return "CUDA's reference kernels (LATMC_CUDA_KERNELS=reference: the byte layout) do "
               "not run the bit-sliced decisions (set_param refuses them there)";
    return NULL;
}

const char *chain_skip(latmc_ctx *ctx, const struct layout *l)
{
    const char *skip = cannot_run(ctx, &l->first);
    if (!skip && l->mid >= MID_SERIALIZE)
        skip = cannot_run(ctx, &l->then);
    if (!skip && l->mid == MID_SERIALIZE && (l->first.mpi || l->then.mpi))
        skip = "liblatmc_mpi has no deserialize";
    return skip;
}

void chain_check(const struct spec *s, const struct row *r, const struct layout *l,
                 const struct chain_end *ref, latmc_ctx *ctx, struct outcome *out)
{
    out->verdict = PASSED;
    out->why[0] = '\0';
    struct chain_end gpu_ref;
    memset(&gpu_ref, 0, sizeof gpu_ref);
    const bool on_cuda = l->first.cuda || (l->mid >= MID_SERIALIZE && l->then.cuda);
    const bool cpu_chain = s->cuda_is_cpu && (s->model != LATMC_MODEL_PHI4 || s->chunk ||
                                              strcmp(l->chunk, "none") == 0);
    if (on_cuda && !cpu_chain) {
        /* phi^4 on the chunk schedule or in float, Heisenberg: CUDA's own chain
         * (doc/physics.md), so the GPU's one-box chain is the reference */
        if (!mpi_all(chain_reference_cuda(s, r, l, ctx, &gpu_ref, out->why, sizeof out->why))) {
            out->verdict = FAILED;
            chain_end_free(&gpu_ref);
            return;
        }
        ref = &gpu_ref;
    }
    char dir[256] = "";
    char path[300] = "";
    struct job *j = calloc(1, sizeof *j);
    bool ok = j != NULL;
    if (ok && l->mid == MID_SAVE) {
        ok = mpi_shared_tempdir(dir, sizeof dir);
        snprintf(path, sizeof path, "%s/chain.ckpt", dir);
    }
    if (!ok) {
        out->verdict = FAILED;
        snprintf(out->why, sizeof out->why, "no memory or no temporary directory");
        free(j);
        chain_end_free(&gpu_ref);
        return;
    }
    j->s = s;
    j->r = r;
    j->l = l;
    j->path = path;
    set_schedules(s, l);
    run_placed(j);
    const int parts0 = l->first.parts ? l->first.parts : 1;
    for (int p = 0; p < parts0 && ok; p++)
        if (j->status[p] != LATMC_OK) {
            snprintf(out->why, sizeof out->why, "part %d: %s: %s: %s", p, j->where[p],
                     latmc_strerror(j->status[p]), j->msg[p]);
            ok = false;
        }
    if (ok && l->mid >= MID_SERIALIZE) {
        for (int p = 0; p < parts0; p++)
            chain_end_free(&j->end[p]);
        j->phase = 1;
        run_placed(j);
    }
    set_schedules(NULL, NULL);
    const struct place *last = l->mid >= MID_SERIALIZE ? &l->then : &l->first;
    const int parts = last->parts ? last->parts : 1;
    for (int p = 0; p < parts && ok; p++) {
        if (j->status[p] != LATMC_OK) {
            snprintf(out->why, sizeof out->why, "part %d: %s: %s: %s", p, j->where[p],
                     latmc_strerror(j->status[p]), j->msg[p]);
            ok = false;
            break;
        }
        /* the checkpoint's bytes too where the stored desc is the reference's: the CPU,
         * one thread (checkpoints store device and n_threads, never the cut) */
        const bool with_ckpt = !last->cuda && last->threads <= 1;
        char why[400];
        if (!chain_same(ref, &j->end[p], with_ckpt, why, sizeof why)) {
            if (parts > 1)
                snprintf(out->why, sizeof out->why, "part %d: %s", p, why);
            else
                snprintf(out->why, sizeof out->why, "%s", why);
            ok = false;
        }
    }
    if (!mpi_all(ok)) {
        out->verdict = FAILED;
        if (ok)
            snprintf(out->why, sizeof out->why, "failed on another rank");
    }
    for (int p = 0; p < THREAD_PARTS_MAX; p++)
        chain_end_free(&j->end[p]);
    free(j->ser);
    free(j);
    if (path[0]) {
        if (mpi_rank() == 0) {
            unlink(path);
            rmdir(dir);
        }
    }
    chain_end_free(&gpu_ref);
}

/* Why the library refuses to create row r of spec s on the layout's first placement, or
 * the CUDA placement a checkpoint continues on, as an unsupported combination
 * (LATMC_EUNSUPPORTED: its message), or NULL (any other status: the row runs and says). For
 * test_identity_matrix --devices K, whose placements moved to K devices may meet a rule
 * that the row's own placements do not (phi^4's chunk layers, whole layers a box):
 * a refusal with its reason, not a difference of chains. */
const char *chain_refused(latmc_ctx *ctx, const struct spec *s, const struct row *r,
                          const struct layout *l)
{
    static char why[512];
    int st = LATMC_OK;
    set_schedules(s, l);
    /* the first placement, and the one a checkpoint continues on */
    for (int k = 0; k < 2 && st != LATMC_EUNSUPPORTED; k++) {
        const struct place *p = k == 0 ? &l->first : &l->then;
        if (k == 1 && (l->mid < MID_SERIALIZE || !p->cuda))
            break;
        int list[64];
        latmc_sim_desc d = placed_desc(s, r, p, list);
        latmc_sim *sim = NULL;
        st = latmc_sim_create(ctx, &d, &sim);
        if (st == LATMC_EUNSUPPORTED)
            snprintf(why, sizeof why, "refused: %s", latmc_last_error());
        latmc_sim_destroy(&sim);
    }
    set_schedules(NULL, NULL);
    return st == LATMC_EUNSUPPORTED ? why : NULL;
}
