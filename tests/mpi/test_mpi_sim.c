/*
 * liblatmc_mpi's refusals and agreed failures on CPU ranks and GPU ranks (the cuda_*
 * models), run under mpirun by tests/mpi/run_mpi.sh. The chains themselves (bit-identical
 * to the single-process sim on 1 to 4 ranks, checkpoints saved and loaded on ranks) are
 * rows of the identity matrix (tests/repro/identity, `--layout mpi`).
 *
 *   test_mpi_sim mismatch MODEL DIR    ranks pass different descs (or set different
 *                                      parameters before a sweep): LATMC_EINVAL everywhere;
 *                                      bad spins on one rank, a save rank 0 cannot write:
 *                                      the same failure on every rank, the sim goes on;
 *                                      phi^4 GPU ranks on the chunk schedule are refused
 *
 *                                      and after MPI_Finalize, latmc_mpi_sim_create and
 *                                      latmc_mpi_sim_load are refused (LATMC_ESTATE)
 *                                      without an MPI call, which would abort
 *
 * Exit 0 pass, 1 fail, 77 when a cuda_* model finds no CUDA device (the reason is
 * printed: a skip, never a pass). Every rank exits with the same status.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <latmc/latmc_mpi.h>

#include "sim_helpers.h"

static int rank, nranks;

/* A case: a name and the sim as data (tests/support/sim_helpers.h; its desc has the seeds
 * below). m.device 0: CPU ranks; LATMC_DEVICE_CUDA: GPU ranks, against one CUDA process. */
struct model_case {
    const char *name;
    struct test_model m;
};
#define SEED 20261122
#define COUPLING_SEED 99

enum { MET = LATMC_ALGO_METROPOLIS, HB = LATMC_ALGO_HEATBATH };
enum { BETA = LATMC_PARAM_BETA, H = LATMC_PARAM_H, NOVER = LATMC_PARAM_NOVER };

static const struct model_case cases[] = {
    { "ising2d", { LATMC_MODEL_ISING, 2, { 16, 16, 0 }, MET, 0, 1, 2, false,
                   { { { BETA, 0.44 }, { H, 0.05 } } }, 0 } },
    { "ising2d_heatbath_pmj", { LATMC_MODEL_ISING, 2, { 64, 24, 0 }, HB, LATMC_COUPLINGS_BIMODAL,
                                1, 2, false, { { { BETA, 0.6 } } }, 0 } },
    { "ising3d", { LATMC_MODEL_ISING, 3, { 8, 6, 8 }, MET, 0, 1, 2, false,
                   { { { BETA, 0.22 } } }, 0 } },
    { "potts", { LATMC_MODEL_POTTS, 2, { 24, 24, 0 }, MET, 0, 1, 3, false,
                 { { { BETA, 1.0 } } }, 0 } },
    { "phi4", { LATMC_MODEL_PHI4, 2, { 40, 40, 0 }, MET, 0, 1, 2, false,
                { { { LATMC_PARAM_MU2, -1.0 }, { LATMC_PARAM_G, 6.0 } } }, 0 } },
    { "heisenberg", { LATMC_MODEL_HEISENBERG, 3, { 4, 4, 8 }, HB, LATMC_COUPLINGS_GAUSSIAN, 2, 2,
                      false, { { { BETA, 2.0 }, { NOVER, 2 } } }, 0 } },
    /* GPU ranks (doc/mpi.md, "GPU ranks"): the same refusals with every rank's sim on a
     * GPU; phi^4 on 2D extents that take chunks is refused on several ranks */
    { "cuda_ising2d", { LATMC_MODEL_ISING, 2, { 32, 24, 0 }, MET, 0, 1, 2, false,
                        { { { BETA, 0.44 }, { H, 0.05 } } }, LATMC_DEVICE_CUDA } },
    { "cuda_potts2d", { LATMC_MODEL_POTTS, 2, { 32, 20, 0 }, MET, 0, 1, 3, false,
                        { { { BETA, 1.0 } } }, LATMC_DEVICE_CUDA } },
    { "cuda_heisenberg", { LATMC_MODEL_HEISENBERG, 3, { 8, 6, 16 }, HB, LATMC_COUPLINGS_GAUSSIAN,
                           2, 2, false, { { { BETA, 2.0 }, { NOVER, 2 }, { H, 0.1 } } },
                           LATMC_DEVICE_CUDA } },
    { "cuda_phi4_2d", { LATMC_MODEL_PHI4, 2, { 20, 30, 0 }, MET, 0, 1, 2, false,
                        { { { LATMC_PARAM_MU2, -1.0 }, { LATMC_PARAM_G, 6.0 },
                            { LATMC_PARAM_LAMBDA, 2.0 }, { LATMC_PARAM_NLOC, 2 } } },
                        LATMC_DEVICE_CUDA } },
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
    CHECK(test_set_params(sim, &c->m.params) == LATMC_OK, "set_param");
    return 1;
}

/* phi^4 GPU ranks: a sim on the chunk schedule (2D extents that take chunks, no
 * override) is refused on every rank, the message naming the way out. */
static int phi4_chunks_refused(latmc_ctx *ctx, const struct model_case *c)
{
    latmc_sim_desc d = test_model_desc(&c->m, SEED, COUPLING_SEED);
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

static int mismatch(latmc_ctx *ctx, const struct model_case *c)
{
    latmc_sim_desc d = test_model_desc(&c->m, SEED, COUPLING_SEED);
    int ok = 1;
    /* phi^4 GPU ranks on the chunk schedule (2D extents that take chunks): refused */
    if (c->m.device && c->m.model == LATMC_MODEL_PHI4 && !case_phi4_chunk(c) && nranks > 1 &&
        !all_ok(phi4_chunks_refused(ctx, c)))
        ok = 0;
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
    d = test_model_desc(&c->m, SEED, COUPLING_SEED);
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
    d = test_model_desc(&c->m, SEED, COUPLING_SEED);
    d.n_parts = nranks + 1;
    st = latmc_mpi_sim_create(ctx, MPI_COMM_WORLD, &d, &sim);
    if (st != LATMC_EINVAL) {
        fprintf(stderr, "rank %d/%d: desc.n_parts %d: status %s\n", rank, nranks, nranks + 1,
                latmc_strerror(st));
        ok = 0;
    }
    latmc_sim_destroy(&sim);
    /* and afterwards a good one works */
    d = test_model_desc(&c->m, SEED, COUPLING_SEED);
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
        if (rank == nranks - 1 && c->m.model == LATMC_MODEL_ISING)
            spins[0] = 0; /* not an Ising spin, on the last rank only */
        st = latmc_sim_set_spins(sim, spins, bytes);
        if (c->m.model == LATMC_MODEL_ISING && nranks > 1 &&
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
        const double first = c->m.params.p[0].value;
        if (nranks > 1 && rank == nranks - 1)
            latmc_sim_set_param(sim, c->m.params.p[0].key, first * 1.5 + 0.25);
        uint64_t before = 0, after = 0;
        latmc_sim_sweep_count(sim, &before);
        st = latmc_sim_sweep(sim, 1);
        latmc_sim_sweep_count(sim, &after);
        char want[96];
        snprintf(want, sizeof want, "part %d of %d has %s = ", nranks - 1, nranks,
                 latmc_param_name(c->m.params.p[0].key));
        if (nranks > 1 && (st != LATMC_EINVAL || !strstr(latmc_last_error(), want) ||
                           after != before)) {
            fprintf(stderr, "rank %d/%d: %s differing on the last rank: status %s: %s\n",
                    rank, nranks, latmc_param_name(c->m.params.p[0].key), latmc_strerror(st),
                    latmc_last_error());
            ok = 0;
        } else if (nranks > 1 && rank == 0) {
            printf("parameters refused on every rank: %s\n", latmc_last_error());
        }
        if (latmc_sim_set_param(sim, c->m.params.p[0].key, first) != LATMC_OK ||
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

/* After MPI_Finalize (no MPI call may follow it: it would abort the process): the two
 * entry points refuse, saying why. True when they do. */
static bool refused_after_finalize(void)
{
    latmc_ctx *ctx = NULL;
    latmc_sim *sim = NULL;
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_ISING;
    d.ndim = 2;
    d.extent[0] = d.extent[1] = 8;
    d.device = LATMC_DEVICE_CPU;
    bool ok = latmc_ctx_create(&ctx) == LATMC_OK &&
              latmc_mpi_sim_create(ctx, MPI_COMM_WORLD, &d, &sim) == LATMC_ESTATE && !sim &&
              strstr(latmc_last_error(), "MPI_Finalize") &&
              latmc_mpi_sim_load(ctx, MPI_COMM_WORLD, "x.ckpt", &sim) == LATMC_ESTATE && !sim;
    if (!ok)
        fprintf(stderr, "rank %d/%d: a call after MPI_Finalize: %s\n", rank, nranks,
                latmc_last_error());
    latmc_ctx_destroy(&ctx);
    return ok;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    const struct model_case *c = argc >= 3 ? find_case(argv[2]) : NULL;
    if (!c || argc < 4) {
        if (rank == 0)
            fprintf(stderr, "usage: test_mpi_sim mismatch MODEL DIR\n");
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
    if (c->m.device == LATMC_DEVICE_CUDA &&
        (latmc_ctx_device_count(ctx, LATMC_DEVICE_CUDA, &gpus) != LATMC_OK || gpus < 1)) {
        /* every rank asks alike: a skip on all of them, saying why */
        if (rank == 0)
            printf("SKIP %s: no CUDA device (%s)\n", c->name,
                   gpus < 1 && latmc_last_error()[0] ? latmc_last_error() : "none found");
        latmc_ctx_destroy(&ctx);
        MPI_Finalize();
        return 77;
    }
    if (strcmp(argv[1], "mismatch") == 0)
        rc = mismatch(ctx, c);
    latmc_ctx_destroy(&ctx);
    if (rank == 0 && rc == 0)
        printf("%s %s on %d rank(s): ok\n", argv[1], c->name, nranks);
    MPI_Finalize();
    if (rc == 0 && !refused_after_finalize())
        rc = 1;
    return rc;
}
