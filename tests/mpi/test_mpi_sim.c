/*
 * liblatmc_mpi on CPU ranks, and GPU ranks (the cuda_* models: each rank's sim on a GPU,
 * compared with the single-process CUDA sim), run under mpirun by tests/mpi/run_mpi.sh:
 *
 *   test_mpi_sim identity MODEL        the sim on all ranks against the single-process sim
 *                                      (configuration, every observable, acceptance, bit
 *                                      for bit), and a save / load round trip on this
 *                                      rank count
 *   test_mpi_sim save MODEL FILE       N sweeps, then save to FILE
 *   test_mpi_sim load MODEL FILE       load FILE on this rank count (and by plain liblatmc
 *                                      on every rank), continue M sweeps: equal to the
 *                                      single-process sim after N + M sweeps
 *   test_mpi_sim mismatch MODEL        ranks pass different descs (or set different
 *                                      parameters before a sweep): LATMC_EINVAL everywhere;
 *                                      bad spins on one rank, a save rank 0 cannot write:
 *                                      the same failure on every rank, the sim goes on
 *
 * Exit 0 pass, 1 fail, 77 when the model does not run on several ranks yet or a cuda_*
 * model finds no CUDA device (the reason is printed: a skip, never a pass). Every rank
 * exits with the same status.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <latmc/latmc_mpi.h>

enum { N_SWEEPS = 7, M_SWEEPS = 5 };

static int rank, nranks;

struct model_case {
    const char *name;
    int model, ndim, algorithm, couplings, replicas, q;
    int64_t extent[3];
    int params[4];
    double values[4];
    int device; /* 0: the CPU; LATMC_DEVICE_CUDA: GPU ranks, against one CUDA process */
};

static const struct model_case cases[] = {
    { "ising2d", LATMC_MODEL_ISING, 2, LATMC_ALGO_METROPOLIS, 0, 1, 2, { 16, 16, 0 },
      { LATMC_PARAM_BETA, LATMC_PARAM_H, 0, 0 }, { 0.44, 0.05, 0, 0 }, 0 },
    { "ising2d_heatbath_pmj", LATMC_MODEL_ISING, 2, LATMC_ALGO_HEATBATH,
      LATMC_COUPLINGS_BIMODAL, 1, 2, { 64, 24, 0 },
      { LATMC_PARAM_BETA, 0, 0, 0 }, { 0.6, 0, 0, 0 }, 0 },
    { "ising3d", LATMC_MODEL_ISING, 3, LATMC_ALGO_METROPOLIS, 0, 1, 2, { 8, 6, 8 },
      { LATMC_PARAM_BETA, 0, 0, 0 }, { 0.22, 0, 0, 0 }, 0 },
    { "potts", LATMC_MODEL_POTTS, 2, LATMC_ALGO_METROPOLIS, 0, 1, 3, { 24, 24, 0 },
      { LATMC_PARAM_BETA, 0, 0, 0 }, { 1.0, 0, 0, 0 }, 0 },
    { "phi4", LATMC_MODEL_PHI4, 2, LATMC_ALGO_METROPOLIS, 0, 1, 2, { 40, 40, 0 },
      { LATMC_PARAM_MU2, LATMC_PARAM_G, 0, 0 }, { -1.0, 6.0, 0, 0 }, 0 },
    { "heisenberg", LATMC_MODEL_HEISENBERG, 3, LATMC_ALGO_HEATBATH, LATMC_COUPLINGS_GAUSSIAN,
      2, 2, { 4, 4, 8 },
      { LATMC_PARAM_BETA, LATMC_PARAM_NOVER, 0, 0 }, { 2.0, 2, 0, 0 }, 0 },
    /* GPU ranks (doc/mpi.md, "GPU ranks"): every rank's sim on the GPU, against the
     * single-process CUDA sim; the packed kernels' lattices (L_x a multiple of 16, of 64
     * with +-J), slabs of 2 to 12 planes, halos at odd and even planes */
    { "cuda_ising2d", LATMC_MODEL_ISING, 2, LATMC_ALGO_METROPOLIS, 0, 1, 2, { 32, 24, 0 },
      { LATMC_PARAM_BETA, LATMC_PARAM_H, 0, 0 }, { 0.44, 0.05, 0, 0 }, LATMC_DEVICE_CUDA },
    { "cuda_ising2d_heatbath_pmj", LATMC_MODEL_ISING, 2, LATMC_ALGO_HEATBATH,
      LATMC_COUPLINGS_BIMODAL, 1, 2, { 64, 24, 0 },
      { LATMC_PARAM_BETA, 0, 0, 0 }, { 0.6, 0, 0, 0 }, LATMC_DEVICE_CUDA },
    { "cuda_ising3d", LATMC_MODEL_ISING, 3, LATMC_ALGO_METROPOLIS, 0, 1, 2, { 16, 6, 12 },
      { LATMC_PARAM_BETA, 0, 0, 0 }, { 0.22, 0, 0, 0 }, LATMC_DEVICE_CUDA },
    /* slabs of 340 to 1024 planes of 4096 sites: the halo copies overlap a long interior
     * update (cuda_planes.c), so that a missing wait between the two would show, and
     * slabs of more than 2^20 sites move through the device's pack kernels */
    { "cuda_ising2d_big", LATMC_MODEL_ISING, 2, LATMC_ALGO_METROPOLIS, 0, 1, 2, { 4096, 1024, 0 },
      { LATMC_PARAM_BETA, 0, 0, 0 }, { 0.4406868, 0, 0, 0 }, LATMC_DEVICE_CUDA },
    /* 4 planes of 2^21 sites on 2 ranks: each slab (2 planes, 2 halo planes a side) holds
     * a halo plane twice, and a plane of more than 2^20 sites is set through the device's
     * pack kernel, which must write every copy (run on 1 and 2 ranks only: meson.build) */
    { "cuda_ising3d_wide_planes", LATMC_MODEL_ISING, 3, LATMC_ALGO_METROPOLIS, 0, 1, 2,
      { 2048, 1024, 4 }, { LATMC_PARAM_BETA, 0, 0, 0 }, { 0.22, 0, 0, 0 }, LATMC_DEVICE_CUDA },
    /* Potts (cuda_planes_potts.c): 2 colours on the row kernels (L_x a multiple of 16),
     * slabs of 6 to 10 planes; the per-block reference kernel (q = 10 heat bath, L_x = 10)
     * on slabs of 2 and 4 planes (a slab of c planes: all border); 3 colours in 3D on the
     * heat-bath table kernel, slabs of 3 to 9 planes. The first and last slabs' borders
     * run in a window across the lattice's wrap, the others in place. */
    { "cuda_potts2d", LATMC_MODEL_POTTS, 2, LATMC_ALGO_METROPOLIS, 0, 1, 3, { 32, 20, 0 },
      { LATMC_PARAM_BETA, 0, 0, 0 }, { 1.0, 0, 0, 0 }, LATMC_DEVICE_CUDA },
    { "cuda_potts2d_reference", LATMC_MODEL_POTTS, 2, LATMC_ALGO_HEATBATH, 0, 1, 10,
      { 10, 10, 0 }, { LATMC_PARAM_BETA, 0, 0, 0 }, { 1.4, 0, 0, 0 }, LATMC_DEVICE_CUDA },
    { "cuda_potts3d_heatbath", LATMC_MODEL_POTTS, 3, LATMC_ALGO_HEATBATH, 0, 1, 4,
      { 12, 9, 15 }, { LATMC_PARAM_BETA, 0, 0, 0 }, { 0.6, 0, 0, 0 }, LATMC_DEVICE_CUDA },
    /* Heisenberg (cuda_planes_heis.c): two replicas, Gaussian couplings, heat bath and 2
     * overrelaxation passes, slabs of 4 to 8 planes (with and without an interior); 2D,
     * one replica, +-J couplings, 3 overrelaxation passes alone, slabs of 2 to 8 planes
     * (slabs of 2: both halo planes of a pass come from one neighbour's two planes) */
    { "cuda_heisenberg", LATMC_MODEL_HEISENBERG, 3, LATMC_ALGO_HEATBATH, LATMC_COUPLINGS_GAUSSIAN,
      2, 2, { 8, 6, 16 }, { LATMC_PARAM_BETA, LATMC_PARAM_NOVER, LATMC_PARAM_H, 0 },
      { 2.0, 2, 0.1, 0 }, LATMC_DEVICE_CUDA },
    { "cuda_heisenberg2d_overrelax_pmj", LATMC_MODEL_HEISENBERG, 2, LATMC_ALGO_OVERRELAX,
      LATMC_COUPLINGS_BIMODAL, 1, 2, { 12, 10, 0 }, { LATMC_PARAM_BETA, LATMC_PARAM_NOVER, 0, 0 },
      { 1.5, 3, 0, 0 }, LATMC_DEVICE_CUDA },
    /* slabs thicker than two border ranges of a kernel chunk (32 planes in 3D, 8 rows in
     * 2D: cuda_planes_heis_border), so that a pass runs as borders and an interior on two
     * streams: 3D slabs of 66 to 200 planes, 2D of 20 to 60 rows */
    { "cuda_heisenberg_split", LATMC_MODEL_HEISENBERG, 3, LATMC_ALGO_HEATBATH,
      LATMC_COUPLINGS_GAUSSIAN, 2, 2, { 8, 4, 200 },
      { LATMC_PARAM_BETA, LATMC_PARAM_NOVER, LATMC_PARAM_H, 0 }, { 2.0, 1, 0.1, 0 },
      LATMC_DEVICE_CUDA },
    { "cuda_heisenberg2d_split", LATMC_MODEL_HEISENBERG, 2, LATMC_ALGO_OVERRELAX,
      LATMC_COUPLINGS_BIMODAL, 1, 2, { 12, 60, 0 }, { LATMC_PARAM_BETA, LATMC_PARAM_NOVER, 0, 0 },
      { 1.5, 2, 0, 0 }, LATMC_DEVICE_CUDA },
    /* phi^4 (cuda_planes_phi4.c) on the site-order schedule (extents that take no chunks:
     * L_x not a multiple of twice the segment width): 2D, 5 colours, the 1/Lambda term (it
     * reads two planes away), 2 passes per sweep, slabs of 10 to 15 planes; 3D, 8 colours,
     * 3 hits per site, slabs of 4 to 8 planes (all border, or an interior) */
    { "cuda_phi4_2d", LATMC_MODEL_PHI4, 2, LATMC_ALGO_METROPOLIS, 0, 1, 2, { 20, 30, 0 },
      { LATMC_PARAM_MU2, LATMC_PARAM_G, LATMC_PARAM_LAMBDA, LATMC_PARAM_NLOC },
      { -1.0, 6.0, 2.0, 2 }, LATMC_DEVICE_CUDA },
    { "cuda_phi4_3d", LATMC_MODEL_PHI4, 3, LATMC_ALGO_METROPOLIS, 0, 1, 2, { 32, 8, 16 },
      { LATMC_PARAM_MU2, LATMC_PARAM_G, LATMC_PARAM_NHIT, 0 }, { -0.5, 1.0, 3, 0 },
      LATMC_DEVICE_CUDA },
    /* extents that take chunks (the CUDA default there, refused on several ranks: see
     * identity), run on the site order that the environment selects, in every process */
    { "cuda_phi4_2d_chunk_none", LATMC_MODEL_PHI4, 2, LATMC_ALGO_METROPOLIS, 0, 1, 2,
      { 40, 30, 0 }, { LATMC_PARAM_MU2, LATMC_PARAM_G, 0, 0 }, { -1.0, 6.0, 0, 0 },
      LATMC_DEVICE_CUDA },
};

/* LATMC_CUDA_PHI4_CHUNK as a case sets it in every rank before anything runs (NULL:
 * unset). */
static const char *case_phi4_chunk(const struct model_case *c)
{
    return strcmp(c->name, "cuda_phi4_2d_chunk_none") == 0 ? "none" : NULL;
}

static const struct model_case *find_case(const char *name)
{
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        if (strcmp(cases[i].name, name) == 0)
            return &cases[i];
    return NULL;
}

static void desc_of(const struct model_case *c, latmc_sim_desc *d)
{
    latmc_sim_desc_init(d);
    d->model = c->model;
    d->ndim = c->ndim;
    for (int mu = 0; mu < c->ndim; mu++)
        d->extent[mu] = c->extent[mu];
    d->algorithm = c->algorithm;
    d->couplings = c->couplings;
    d->coupling_seed = 99;
    d->replicas = c->replicas;
    d->q = c->q;
    d->device = c->device ? c->device : LATMC_DEVICE_CPU;
    d->n_threads = 1;
    d->seed = 20261122;
}

/* The same on every rank: any rank's failure fails all. */
static int all_ok(int ok)
{
    int all = 0;
    MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    return all;
}

#define CHECK(cond, ...)                                                                    \
    do {                                                                                    \
        if (!(cond)) {                                                                      \
            fprintf(stderr, "rank %d/%d: FAIL %s:%d: ", rank, nranks, __FILE__, __LINE__); \
            fprintf(stderr, __VA_ARGS__);                                                   \
            fprintf(stderr, " [%s]\n", latmc_last_error());                                 \
            return 0;                                                                       \
        }                                                                                   \
    } while (0)

static int set_params(latmc_sim *sim, const struct model_case *c)
{
    for (int i = 0; i < 4 && c->params[i]; i++)
        CHECK(latmc_sim_set_param(sim, c->params[i], c->values[i]) == LATMC_OK, "set_param");
    return 1;
}

/* Everything the guarantee covers: configuration, every observable, acceptance counts. */
struct state {
    unsigned char *spins;
    size_t bytes;
    double obs[9];
    int have[9];
    uint64_t sweeps, acc, att;
};

static int read_state(latmc_sim *sim, struct state *s)
{
    memset(s, 0, sizeof *s);
    CHECK(latmc_sim_spins_size(sim, &s->bytes) == LATMC_OK, "spins_size");
    s->spins = malloc(s->bytes);
    CHECK(s->spins, "malloc");
    CHECK(latmc_sim_get_spins(sim, s->spins, s->bytes) == LATMC_OK, "get_spins");
    /* every observable the model has (EUNSUPPORTED for the others, alike on every rank) */
    for (int key = LATMC_OBS_ENERGY; key <= LATMC_OBS_OVERLAP2; key++) {
        if (key == LATMC_OBS_ACCEPTANCE)
            continue;
        int st = latmc_sim_observable(sim, key, &s->obs[key]);
        CHECK(st == LATMC_OK || st == LATMC_EUNSUPPORTED, "observable %d: %s", key,
              latmc_strerror(st));
        s->have[key] = st == LATMC_OK;
    }
    CHECK(latmc_sim_sweep_count(sim, &s->sweeps) == LATMC_OK, "sweep_count");
    CHECK(latmc_sim_acceptance_counts(sim, &s->acc, &s->att) == LATMC_OK, "acceptance");
    return 1;
}

static void free_state(struct state *s)
{
    free(s->spins);
    s->spins = NULL;
}

static int same_state(const struct state *a, const struct state *b, const char *what)
{
    int ok = a->bytes == b->bytes && memcmp(a->spins, b->spins, a->bytes) == 0;
    if (!ok)
        fprintf(stderr, "rank %d/%d: %s: configurations differ\n", rank, nranks, what);
    for (int k = 0; k < 9; k++)
        if (a->have[k] != b->have[k] ||
            (a->have[k] && memcmp(&a->obs[k], &b->obs[k], sizeof(double)) != 0)) {
            fprintf(stderr, "rank %d/%d: %s: observable %s: %.17g vs %.17g\n", rank, nranks,
                    what, latmc_observable_name(k), a->obs[k], b->obs[k]);
            ok = 0;
        }
    if (a->sweeps != b->sweeps || a->acc != b->acc || a->att != b->att) {
        fprintf(stderr, "rank %d/%d: %s: sweeps %llu/%llu acceptance %llu/%llu vs %llu/%llu\n",
                rank, nranks, what, (unsigned long long)a->sweeps,
                (unsigned long long)b->sweeps, (unsigned long long)a->acc,
                (unsigned long long)a->att, (unsigned long long)b->acc,
                (unsigned long long)b->att);
        ok = 0;
    }
    return ok;
}

/* The single-process sim after n sweeps from a hot start (the reference). */
static int reference(latmc_ctx *ctx, const struct model_case *c, uint64_t n, struct state *s)
{
    latmc_sim_desc d;
    desc_of(c, &d);
    latmc_sim *sim = NULL;
    CHECK(latmc_sim_create(ctx, &d, &sim) == LATMC_OK, "reference create");
    int ok = set_params(sim, c) && latmc_sim_init_spins(sim, LATMC_INIT_HOT) == LATMC_OK &&
             latmc_sim_sweep(sim, n) == LATMC_OK && read_state(sim, s);
    latmc_sim_destroy(&sim);
    return ok;
}

/* The MPI sim, or 77 (every rank) where the model does not run on several ranks yet. */
static int create_mpi(latmc_ctx *ctx, const struct model_case *c, latmc_sim **sim)
{
    latmc_sim_desc d;
    desc_of(c, &d);
    int st = latmc_mpi_sim_create(ctx, MPI_COMM_WORLD, &d, sim);
    /* a cuda_* case is here because its GPU ranks exist: a refusal is a failure */
    if (st == LATMC_EUNSUPPORTED && !c->device) {
        if (rank == 0)
            printf("SKIP %s on %d ranks: %s\n", c->name, nranks, latmc_last_error());
        return 77;
    }
    if (st != LATMC_OK)
        fprintf(stderr, "rank %d/%d: latmc_mpi_sim_create: %s: %s\n", rank, nranks,
                latmc_strerror(st), latmc_last_error());
    return st == LATMC_OK ? 0 : 1;
}

/* phi^4 GPU ranks: a sim on the chunk schedule (2D extents that take chunks, no
 * override) is refused on every rank, the message naming the way out. */
static int phi4_chunks_refused(latmc_ctx *ctx, const struct model_case *c)
{
    latmc_sim_desc d;
    desc_of(c, &d);
    d.ndim = 2; /* 5 colours, chunks of 20 x 30 */
    d.extent[0] = 40;
    d.extent[1] = 30;
    d.extent[2] = 0;
    latmc_sim *sim = NULL;
    const int st = latmc_mpi_sim_create(ctx, MPI_COMM_WORLD, &d, &sim);
    const int ok = st == LATMC_EUNSUPPORTED && !sim &&
                   strstr(latmc_last_error(), "LATMC_CUDA_PHI4_CHUNK=none") != NULL;
    if (!ok)
        fprintf(stderr, "rank %d/%d: phi^4 on the chunk schedule: status %s, want "
                "LATMC_EUNSUPPORTED naming LATMC_CUDA_PHI4_CHUNK=none: %s\n", rank, nranks,
                latmc_strerror(st), latmc_last_error());
    latmc_sim_destroy(&sim);
    return ok;
}

static int identity(latmc_ctx *ctx, const struct model_case *c, const char *dir)
{
    if (c->device && c->model == LATMC_MODEL_PHI4 && !case_phi4_chunk(c) && nranks > 1 &&
        !all_ok(phi4_chunks_refused(ctx, c)))
        return 1;
    latmc_sim *sim = NULL;
    int rc = create_mpi(ctx, c, &sim);
    if (rc)
        return rc;
    struct state ref = { 0 }, got = { 0 }, ref2 = { 0 }, got2 = { 0 };
    int ok = reference(ctx, c, N_SWEEPS, &ref) && set_params(sim, c) &&
             latmc_sim_init_spins(sim, LATMC_INIT_HOT) == LATMC_OK;
    /* in two calls, with a measurement between (the plan does not care) */
    double e;
    ok = ok && latmc_sim_sweep(sim, 3) == LATMC_OK &&
         latmc_sim_observable(sim, LATMC_OBS_MAGNETIZATION, &e) == LATMC_OK &&
         latmc_sim_sweep(sim, N_SWEEPS - 3) == LATMC_OK && read_state(sim, &got) &&
         same_state(&ref, &got, "after N sweeps");
    /* set_spins from the reference's configuration: the chain goes on from it */
    ok = ok && latmc_sim_set_spins(sim, ref.spins, ref.bytes) == LATMC_OK;
    /* a save here and a load on this rank count continue bit-identically */
    char path[512];
    snprintf(path, sizeof path, "%s/identity-%s-%d.ckpt", dir, c->name, nranks);
    latmc_sim *back = NULL;
    ok = ok && latmc_sim_sweep(sim, 2) == LATMC_OK && latmc_sim_save(sim, path) == LATMC_OK &&
         latmc_mpi_sim_load(ctx, MPI_COMM_WORLD, path, &back) == LATMC_OK &&
         latmc_sim_sweep(back, M_SWEEPS) == LATMC_OK && read_state(back, &got2);
    /* reference: N sweeps, a set_spins (acceptance reset), 2 + M more sweeps */
    if (ok) {
        latmc_sim_desc d;
        desc_of(c, &d);
        latmc_sim *r = NULL;
        ok = latmc_sim_create(ctx, &d, &r) == LATMC_OK && set_params(r, c) &&
             latmc_sim_init_spins(r, LATMC_INIT_HOT) == LATMC_OK &&
             latmc_sim_sweep(r, N_SWEEPS) == LATMC_OK &&
             latmc_sim_set_spins(r, ref.spins, ref.bytes) == LATMC_OK &&
             latmc_sim_sweep(r, 2 + M_SWEEPS) == LATMC_OK && read_state(r, &ref2) &&
             same_state(&ref2, &got2, "saved, loaded and continued");
        latmc_sim_destroy(&r);
    }
    if (!ok)
        fprintf(stderr, "rank %d/%d: identity %s failed: %s\n", rank, nranks, c->name,
                latmc_last_error());
    latmc_sim_destroy(&back);
    latmc_sim_destroy(&sim);
    free_state(&ref);
    free_state(&got);
    free_state(&ref2);
    free_state(&got2);
    return all_ok(ok) ? 0 : 1;
}

/* Whether two files hold the same bytes. */
static int same_file(const char *a, const char *b)
{
    FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
    int same = fa && fb;
    while (same) {
        const int x = fgetc(fa), y = fgetc(fb);
        same = x == y;
        if (x == EOF)
            break;
    }
    if (fa)
        fclose(fa);
    if (fb)
        fclose(fb);
    return same;
}

static int save(latmc_ctx *ctx, const struct model_case *c, const char *path)
{
    latmc_sim *sim = NULL;
    int rc = create_mpi(ctx, c, &sim);
    if (rc)
        return rc;
    int ok = set_params(sim, c) && latmc_sim_init_spins(sim, LATMC_INIT_HOT) == LATMC_OK &&
             latmc_sim_sweep(sim, N_SWEEPS) == LATMC_OK && latmc_sim_save(sim, path) == LATMC_OK;
    if (!ok)
        fprintf(stderr, "rank %d/%d: save: %s\n", rank, nranks, latmc_last_error());
    latmc_sim_destroy(&sim);
    /* the file the ranks streamed is, byte for byte, the single-process sim's save */
    if (ok && rank == 0) {
        char plain[600];
        snprintf(plain, sizeof plain, "%s.plain", path);
        latmc_sim_desc d;
        desc_of(c, &d);
        latmc_sim *one = NULL;
        ok = latmc_sim_create(ctx, &d, &one) == LATMC_OK && set_params(one, c) &&
             latmc_sim_init_spins(one, LATMC_INIT_HOT) == LATMC_OK &&
             latmc_sim_sweep(one, N_SWEEPS) == LATMC_OK && latmc_sim_save(one, plain) == LATMC_OK;
        latmc_sim_destroy(&one);
        ok = ok && same_file(path, plain);
        if (!ok)
            fprintf(stderr, "rank 0/%d: the file saved on %d ranks is not the single-process "
                    "sim's (%s)\n", nranks, nranks, latmc_last_error());
        remove(plain);
    }
    return all_ok(ok) ? 0 : 1;
}

static int load(latmc_ctx *ctx, const struct model_case *c, const char *path)
{
    struct state ref = { 0 }, got = { 0 }, plain = { 0 };
    int ok = reference(ctx, c, N_SWEEPS + M_SWEEPS, &ref);
    latmc_sim *sim = NULL, *one = NULL;
    int st = latmc_mpi_sim_load(ctx, MPI_COMM_WORLD, path, &sim);
    if (st == LATMC_EUNSUPPORTED && !c->device) {
        if (rank == 0)
            printf("SKIP load %s on %d ranks: %s\n", c->name, nranks, latmc_last_error());
        free_state(&ref);
        return 77;
    }
    ok = ok && st == LATMC_OK && latmc_sim_sweep(sim, M_SWEEPS) == LATMC_OK &&
         read_state(sim, &got) && same_state(&ref, &got, "loaded on this rank count");
    /* plain liblatmc loads the same file (every rank: the file is on a shared disk here) */
    ok = ok && latmc_sim_load(ctx, path, &one) == LATMC_OK &&
         latmc_sim_sweep(one, M_SWEEPS) == LATMC_OK && read_state(one, &plain) &&
         same_state(&ref, &plain, "loaded by plain liblatmc");
    if (!ok)
        fprintf(stderr, "rank %d/%d: load: %s\n", rank, nranks, latmc_last_error());
    latmc_sim_destroy(&one);
    latmc_sim_destroy(&sim);
    free_state(&ref);
    free_state(&got);
    free_state(&plain);
    return all_ok(ok) ? 0 : 1;
}

static int mismatch(latmc_ctx *ctx, const struct model_case *c)
{
    latmc_sim_desc d;
    desc_of(c, &d);
    int ok = 1;
    /* the last rank passes another seed: every rank is refused, none waits */
    if (rank == nranks - 1)
        d.seed += 1;
    latmc_sim *sim = NULL;
    int st = latmc_mpi_sim_create(ctx, MPI_COMM_WORLD, &d, &sim);
    if (nranks > 1) {
        if (st != LATMC_EINVAL || sim) {
            fprintf(stderr, "rank %d/%d: a desc differing on rank %d: status %s, want "
                    "LATMC_EINVAL\n", rank, nranks, nranks - 1, latmc_strerror(st));
            ok = 0;
        } else if (!strstr(latmc_last_error(), "desc")) {
            fprintf(stderr, "rank %d/%d: message does not name the desc: %s\n", rank, nranks,
                    latmc_last_error());
            ok = 0;
        } else if (rank == 0) {
            printf("refused on every rank: %s\n", latmc_last_error());
        }
    }
    latmc_sim_destroy(&sim);
    /* a bad desc on one rank only (extent 3): that rank's error on every rank */
    desc_of(c, &d);
    if (rank == 0)
        d.extent[0] = 3;
    st = latmc_mpi_sim_create(ctx, MPI_COMM_WORLD, &d, &sim);
    if (st != LATMC_EINVAL || sim) {
        fprintf(stderr, "rank %d/%d: an invalid desc on rank 0: status %s, want "
                "LATMC_EINVAL\n", rank, nranks, latmc_strerror(st));
        ok = 0;
    } else if (rank > 0 && !strstr(latmc_last_error(), "part 0 of")) {
        fprintf(stderr, "rank %d/%d: message does not name part 0: %s\n", rank, nranks,
                latmc_last_error());
        ok = 0;
    }
    latmc_sim_destroy(&sim);
    /* desc.n_parts other than 0 or the rank count */
    desc_of(c, &d);
    d.n_parts = nranks + 1;
    st = latmc_mpi_sim_create(ctx, MPI_COMM_WORLD, &d, &sim);
    if (st != LATMC_EINVAL) {
        fprintf(stderr, "rank %d/%d: desc.n_parts %d: status %s\n", rank, nranks, nranks + 1,
                latmc_strerror(st));
        ok = 0;
    }
    latmc_sim_destroy(&sim);
    /* and afterwards a good one works */
    desc_of(c, &d);
    st = latmc_mpi_sim_create(ctx, MPI_COMM_WORLD, &d, &sim);
    if (st != LATMC_OK) {
        fprintf(stderr, "rank %d/%d: good desc after refusals: %s\n", rank, nranks,
                latmc_last_error());
        ok = 0;
    }
    /* a failure inside a collective call on one rank: the same failure on every rank,
     * and the sim goes on afterwards */
    size_t bytes = 0;
    unsigned char *spins = NULL;
    if (st == LATMC_OK && set_params(sim, c) &&
        latmc_sim_init_spins(sim, LATMC_INIT_HOT) == LATMC_OK &&
        latmc_sim_spins_size(sim, &bytes) == LATMC_OK && (spins = malloc(bytes)) != NULL &&
        latmc_sim_get_spins(sim, spins, bytes) == LATMC_OK) {
        unsigned char keep = spins[0];
        if (rank == nranks - 1 && c->model == LATMC_MODEL_ISING)
            spins[0] = 0; /* not an Ising spin, on the last rank only */
        st = latmc_sim_set_spins(sim, spins, bytes);
        if (c->model == LATMC_MODEL_ISING && nranks > 1 &&
            (st != LATMC_EINVAL || (rank < nranks - 1 && !strstr(latmc_last_error(), "part")))) {
            fprintf(stderr, "rank %d/%d: bad spins on the last rank: status %s: %s\n", rank,
                    nranks, latmc_strerror(st), latmc_last_error());
            ok = 0;
        }
        spins[0] = keep;
        /* rank 0 writes the checkpoint: a path it cannot write fails every rank */
        st = latmc_sim_save(sim, "/nonexistent-dir-of-latmc-tests/x.ckpt");
        if (st != LATMC_EIO) {
            fprintf(stderr, "rank %d/%d: save to a missing directory: %s\n", rank, nranks,
                    latmc_strerror(st));
            ok = 0;
        }
        if (latmc_sim_set_spins(sim, spins, bytes) != LATMC_OK ||
            latmc_sim_sweep(sim, 2) != LATMC_OK) {
            fprintf(stderr, "rank %d/%d: the sim after failures: %s\n", rank, nranks,
                    latmc_last_error());
            ok = 0;
        }
        /* a parameter set differently on the last rank (set_param is local): the next
         * sweep fails on every rank with one message naming it, nothing runs; set alike
         * again, the sim sweeps */
        const double first = c->values[0];
        if (nranks > 1 && rank == nranks - 1)
            latmc_sim_set_param(sim, c->params[0], first * 1.5 + 0.25);
        uint64_t before = 0, after = 0;
        latmc_sim_sweep_count(sim, &before);
        st = latmc_sim_sweep(sim, 1);
        latmc_sim_sweep_count(sim, &after);
        char want[96];
        snprintf(want, sizeof want, "part %d of %d has %s = ", nranks - 1, nranks,
                 latmc_param_name(c->params[0]));
        if (nranks > 1 && (st != LATMC_EINVAL || !strstr(latmc_last_error(), want) ||
                           after != before)) {
            fprintf(stderr, "rank %d/%d: %s differing on the last rank: status %s: %s\n",
                    rank, nranks, latmc_param_name(c->params[0]), latmc_strerror(st),
                    latmc_last_error());
            ok = 0;
        } else if (nranks > 1 && rank == 0) {
            printf("parameters refused on every rank: %s\n", latmc_last_error());
        }
        if (latmc_sim_set_param(sim, c->params[0], first) != LATMC_OK ||
            latmc_sim_sweep(sim, 1) != LATMC_OK) {
            fprintf(stderr, "rank %d/%d: the sim after parameters set alike again: %s\n",
                    rank, nranks, latmc_last_error());
            ok = 0;
        }
    } else {
        fprintf(stderr, "rank %d/%d: setting up the fault checks: %s\n", rank, nranks,
                latmc_last_error());
        ok = 0;
    }
    free(spins);
    latmc_sim_destroy(&sim);
    return all_ok(ok) ? 0 : 1;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    const struct model_case *c = argc >= 3 ? find_case(argv[2]) : NULL;
    if (!c || argc < 4) {
        if (rank == 0)
            fprintf(stderr, "usage: test_mpi_sim identity|save|load|mismatch MODEL "
                    "DIR-or-FILE\n");
        MPI_Finalize();
        return 2;
    }
    if (case_phi4_chunk(c) && setenv("LATMC_CUDA_PHI4_CHUNK", case_phi4_chunk(c), 1) != 0) {
        MPI_Finalize();
        return 1;
    }
    latmc_ctx *ctx = NULL;
    if (latmc_ctx_create(&ctx) != LATMC_OK) {
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    int rc = 2, gpus = 0;
    if (c->device == LATMC_DEVICE_CUDA &&
        (latmc_ctx_device_count(ctx, LATMC_DEVICE_CUDA, &gpus) != LATMC_OK || gpus < 1)) {
        /* every rank asks alike: a skip on all of them, saying why */
        if (rank == 0)
            printf("SKIP %s: no CUDA device (%s)\n", c->name,
                   gpus < 1 && latmc_last_error()[0] ? latmc_last_error() : "none found");
        latmc_ctx_destroy(&ctx);
        MPI_Finalize();
        return 77;
    }
    if (strcmp(argv[1], "identity") == 0)
        rc = identity(ctx, c, argv[3]);
    else if (strcmp(argv[1], "save") == 0)
        rc = save(ctx, c, argv[3]);
    else if (strcmp(argv[1], "load") == 0)
        rc = load(ctx, c, argv[3]);
    else if (strcmp(argv[1], "mismatch") == 0)
        rc = mismatch(ctx, c);
    latmc_ctx_destroy(&ctx);
    if (rank == 0 && rc == 0)
        printf("%s %s on %d rank(s): ok\n", argv[1], c->name, nranks);
    MPI_Finalize();
    return rc;
}
