/*
 * The Potts model on the CPU. The C level: uint8 states in natural site order and the
 * reference kernels (potts_sweep.c). The SIMD levels (cpu_potts_dsp, potts_fast.h): the
 * split layout (potts_split.h) and the vector passes; get/set_spins convert, so the layout
 * never shows outside.
 */
#include <stdlib.h>
#include <string.h>

#include "cpu_backend.h"
#include "cpu_features.h"
#include "cpu_omp.h"
#include "potts.h"
#include "potts_fast.h"
#include "potts_kernels.h"
#include "potts_ref.h"
#include "potts_split.h"

struct potts_state {
    int colours;
    struct cpu_potts_dsp dsp;
    uint8_t *spins;                       /* C level: natural order */
    struct cpu_potts_split split;         /* SIMD levels */
    struct cpu_potts_fast_tables fast;    /* from the core's tables: potts_params_changed */
    struct cpu_potts_hb_table hb;         /* heat bath 4 <= q <= 9 on large lattices */
    int scalar_every_site;                /* cpu_potts_set_scalar_every_site() */
};

static struct potts_state *potts_of(struct cpu_state *st)
{
    return st->model_state;
}

void cpu_potts_dsp_init(struct cpu_potts_dsp *dsp, unsigned flags)
{
    memset(dsp, 0, sizeof *dsp);
    dsp->level = "c";                     /* width 0: the reference kernels */
#if LATMC_HAVE_AVX2
    if (flags & CPU_FLAG_AVX2)
        cpu_potts_dsp_init_avx2(dsp);
#endif
#if LATMC_HAVE_AVX512
    if (flags & CPU_FLAG_AVX512)
        cpu_potts_dsp_init_avx512(dsp);
#endif
    (void)flags;
}

/* The storage the dsp's level needs: the split layout for SIMD, else natural order. */
static int alloc_states(struct potts_state *ps, const struct latmc_lattice *g)
{
    if (ps->dsp.width > 0)
        return cpu_potts_split_alloc(&ps->split, g, ps->colours);
    const size_t bytes = (size_t)g->nsites;
    ps->spins = malloc(bytes);
    if (!ps->spins)
        return latmc_fail(LATMC_ENOMEM, "CPU backend: cannot allocate %zu bytes of Potts "
                          "states", bytes);
    return LATMC_OK;
}

static void free_states(struct potts_state *ps)
{
    free(ps->spins);
    ps->spins = NULL;
    cpu_potts_split_free(&ps->split);
    cpu_potts_hb_table_free(&ps->hb);
}

static int potts_create(latmc_sim *sim, struct cpu_state *st)
{
    struct potts_state *ps = calloc(1, sizeof *ps);
    if (!ps)
        return latmc_fail(LATMC_ENOMEM, "CPU backend: cannot allocate the Potts state");
    /* check_desc has accepted the extents, so this is 2 or 3 */
    ps->colours = latmc_potts_colours(sim->desc.ndim, sim->desc.extent);
    cpu_potts_dsp_init(&ps->dsp, st->simd_flags);
    const int status = alloc_states(ps, &st->lattice);
    if (status < 0) {
        free(ps);
        return status;
    }
    st->model_state = ps;
    return LATMC_OK;
}

static void potts_destroy(struct cpu_state *st)
{
    struct potts_state *ps = potts_of(st);
    if (ps)
        free_states(ps);
    free(ps);
    st->model_state = NULL;
}

static int potts_init_spins(latmc_sim *sim, struct cpu_state *st, int how)
{
    struct potts_state *ps = potts_of(st);
    if (ps->dsp.width > 0) {
        if (how == LATMC_INIT_COLD)
            cpu_potts_split_cold_start(&ps->split);
        else
            cpu_potts_split_hot_start(&st->lattice, &ps->split, sim->desc.q, sim->desc.seed,
                                      sim->n_threads);
    } else if (how == LATMC_INIT_COLD) {
        memset(ps->spins, 0, (size_t)sim->nsites);
    } else {
        cpu_potts_hot_start(&st->lattice, ps->spins, sim->desc.q, sim->desc.seed,
                            sim->n_threads);
    }
    return LATMC_OK;
}

/* The fast tables follow the core's tables: rebuilt after create and whenever a
 * parameter changed them (and after cpu_potts_use_dsp, which frees the heat-bath table). */
static void potts_params_changed(latmc_sim *sim, struct cpu_state *st)
{
    struct potts_state *ps = potts_of(st);
    const struct latmc_potts_tables *t = sim->model_data;
    cpu_potts_fast_tables_build(&ps->fast, t, sim->desc.ndim, sim->desc.q);
    if (sim->desc.algorithm == LATMC_ALGO_HEATBATH &&
        cpu_potts_hb_table_wanted(sim->desc.ndim, sim->desc.q, sim->nsites))
        (void)cpu_potts_hb_table_build(&ps->hb, t, sim->desc.ndim, sim->desc.q);
}

/* What every pass over colour `col` of the split layout needs. */
static void pass_geometry(latmc_sim *sim, struct cpu_state *st, int col,
                          struct cpu_potts_pass *p)
{
    struct potts_state *ps = potts_of(st);
    memset(p, 0, sizeof *p);
    p->g = &st->lattice;
    p->colours = ps->colours;
    p->colour = col;
    p->q = sim->desc.q;
    p->ndim = sim->desc.ndim;
    p->per_row = ps->split.per_row;
    p->per_colour = ps->split.per_colour;
    for (int k = 0; k < ps->colours; k++)
        p->sub[k] = ps->split.sub[k];
}

/* Chunks handed to a thread at a time in a sweep: 256 x 32 sites, ~10 us of work. */
#define CPU_POTTS_GROUP 256

/* Thread k of T takes chunks [n k / T, n (k + 1) / T) of every colour. */
static void thread_chunks(int64_t chunks, int64_t *begin, int64_t *end)
{
#ifdef _OPENMP
    const int64_t k = omp_get_thread_num(), T = omp_get_num_threads();
#else
    const int64_t k = 0, T = 1;
#endif
    *begin = chunks * k / T;
    *end = chunks * (k + 1) / T;
}

/*
 * One sweep on the split layout: colour passes in turn, each cut into chunks of W sites,
 * split among the threads by thread_chunks(). The chunk boundaries and every random
 * number are fixed by the lattice alone, so the thread count changes nothing.
 */
static uint64_t split_sweep(latmc_sim *sim, struct cpu_state *st, uint64_t sweep)
{
    struct potts_state *ps = potts_of(st);
    const int c = ps->colours;
    const struct cpu_potts_fast_tables *fast = &ps->fast;
    struct cpu_potts_pass pass[3];
    for (int col = 0; col < c; col++) {
        struct cpu_potts_pass *p = &pass[col];
        pass_geometry(sim, st, col, p);
        p->tables = sim->model_data;
        p->fast = fast;
        p->hb_entry = ps->hb.entry;
        p->seed = sim->desc.seed;
        p->sweep = sweep;
        for (uint32_t s = 0; s < 2; s++)
            cpu_potts_philox_init(&p->rng[s], sim->desc.seed, sweep, (uint32_t)col, s, 0);
        p->scalar_every_site = ps->scalar_every_site;
    }
    const cpu_potts_pass_fn fn = sim->desc.algorithm == LATMC_ALGO_METROPOLIS
                                     ? ps->dsp.metropolis : ps->dsp.heatbath;
    const int64_t W = ps->dsp.width;
    const int64_t chunks = (ps->split.per_colour + W - 1) / W;
    uint64_t changed = 0;
    if (cpu_use_threads(sim->n_threads, ps->split.per_colour)) {
        /* Groups of chunks go to whichever thread is free: a thread that the OS has
         * descheduled does not hold the others up at the colour's end. Which thread
         * updates a site never matters (its draws are named by the site). */
        const int64_t group = CPU_POTTS_GROUP;
        const int64_t groups = (chunks + group - 1) / group;
        LATMC_OMP(parallel num_threads(sim->n_threads) reduction(+:changed))
        for (int col = 0; col < c; col++) {
            /* the loop's end is a barrier: the next colour reads what this one wrote */
            LATMC_OMP(for schedule(dynamic, 1))
            for (int64_t k = 0; k < groups; k++)
                changed += fn(&pass[col], k * group,
                              (k + 1) * group < chunks ? (k + 1) * group : chunks);
        }
        return changed;
    }
    for (int col = 0; col < c; col++)
        changed += fn(&pass[col], 0, chunks);
    return changed;
}

/* The observables' sums on the split layout, chunk by chunk like a sweep. */
static void split_measure(latmc_sim *sim, struct cpu_state *st, struct latmc_potts_sums *sums)
{
    struct potts_state *ps = potts_of(st);
    const int c = ps->colours;
    struct cpu_potts_pass pass[3];
    for (int col = 0; col < c; col++)
        pass_geometry(sim, st, col, &pass[col]);
    const int64_t W = ps->dsp.width;
    const int64_t chunks = (ps->split.per_colour + W - 1) / W;
    int64_t matches = 0;
    int64_t count[LATMC_POTTS_MAX_Q + 1];
    memset(count, 0, sizeof count);
    if (cpu_use_threads(sim->n_threads, sim->nsites)) {
        /* integer sums: the reduction's order cannot change the result */
        LATMC_OMP(parallel num_threads(sim->n_threads)
                  reduction(+:matches, count[:LATMC_POTTS_MAX_Q + 1]))
        {
            int64_t begin, end;
            thread_chunks(chunks, &begin, &end);
            for (int col = 0; col < c; col++)
                ps->dsp.measure(&pass[col], begin, end, &matches, count);
        }
    } else {
        for (int col = 0; col < c; col++)
            ps->dsp.measure(&pass[col], 0, chunks, &matches, count);
    }
    sums->matches = matches;
    memcpy(sums->count, count, sizeof count);
}

static void potts_sweep(latmc_sim *sim, struct cpu_state *st, uint64_t sweep,
                        uint64_t *accepted, uint64_t *attempted)
{
    struct potts_state *ps = potts_of(st);
    if (ps->dsp.width > 0) {
        *accepted += split_sweep(sim, st, sweep);
    } else {
        const struct latmc_potts_chain chain = {
            .tables = sim->model_data,
            .algorithm = sim->desc.algorithm,
            .q = sim->desc.q,
            .colours = ps->colours,
            .seed = sim->desc.seed,
        };
        *accepted += cpu_potts_sweep(&st->lattice, ps->spins, &chain, sweep, sim->n_threads);
    }
    *attempted += (uint64_t)sim->nsites;
}

static void potts_measure(latmc_sim *sim, struct cpu_state *st, void *sums)
{
    struct potts_state *ps = potts_of(st);
    if (ps->dsp.width > 0)
        split_measure(sim, st, sums);
    else
        cpu_potts_measure(&st->lattice, ps->spins, sim->n_threads, sums);
}

static void potts_get_spins(latmc_sim *sim, struct cpu_state *st, void *buf)
{
    struct potts_state *ps = potts_of(st);
    if (ps->dsp.width > 0)
        cpu_potts_split_to_natural(&st->lattice, &ps->split, buf, sim->n_threads);
    else
        memcpy(buf, ps->spins, (size_t)sim->nsites);
}

static void potts_set_spins(latmc_sim *sim, struct cpu_state *st, const void *buf)
{
    struct potts_state *ps = potts_of(st);
    if (ps->dsp.width > 0)
        cpu_potts_split_from_natural(&st->lattice, &ps->split, buf, sim->n_threads);
    else
        memcpy(ps->spins, buf, (size_t)sim->nsites);
}

const char *cpu_potts_level(latmc_sim *sim)
{
    return potts_of(cpu_state_of(sim))->dsp.level;
}

int cpu_potts_use_dsp(latmc_sim *sim, const struct cpu_potts_dsp *dsp)
{
    struct cpu_state *st = cpu_state_of(sim);
    struct potts_state *ps = potts_of(st);
    if (sim->have_config || dsp->width > CPU_POTTS_PAD)
        return latmc_fail(LATMC_ESTATE, "cpu_potts_use_dsp: only before the first "
                          "configuration, and for widths up to %d", CPU_POTTS_PAD);
    free_states(ps);
    ps->dsp = *dsp;
    int status = alloc_states(ps, &st->lattice);
    if (status == LATMC_OK)
        potts_params_changed(sim, st);
    return status;
}

void cpu_potts_set_scalar_every_site(latmc_sim *sim, int on)
{
    potts_of(cpu_state_of(sim))->scalar_every_site = on;
}

const struct cpu_model_kernels cpu_potts_kernels = {
    .model = LATMC_MODEL_POTTS,
    .create = potts_create,
    .destroy = potts_destroy,
    .init_spins = potts_init_spins,
    .sweep = potts_sweep,
    .measure = potts_measure,
    .get_spins = potts_get_spins,
    .set_spins = potts_set_spins,
    .params_changed = potts_params_changed,
};
