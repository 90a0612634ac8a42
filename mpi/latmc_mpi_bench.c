/*
 * latmc-mpi-bench: sweeps per second of a 2D Ising lattice on MPI ranks, against one
 * process (doc/mpi.md, "Performance"). Not installed.
 *
 *   mpirun -np 2 latmc-mpi-bench L THREADS SWEEPS REPEATS        the MPI sim
 *   latmc-mpi-bench L THREADS SWEEPS REPEATS plain               one ordinary sim
 *
 * Words after REPEATS, in any order: `plain` (one ordinary sim), `cuda` (on the GPU: rank
 * r on device r modulo the GPUs, doc/mpi.md "GPU ranks"), `weak` (L x L per rank: the
 * lattice is L x (ranks L), cut into ranks slabs of L x L; with `plain`, give the rank
 * count to compare with as `ranks=N`).
 *
 * Prints the median over REPEATS timings of SWEEPS sweeps (rank 0), and ns per update of
 * the whole lattice.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <latmc/latmc_mpi.h>

static int cmp(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 5) {
        if (rank == 0)
            fprintf(stderr, "usage: latmc-mpi-bench L THREADS SWEEPS REPEATS [plain] [cuda] "
                    "[weak] [ranks=N]\n");
        MPI_Finalize();
        return 2;
    }
    const long long L = atoll(argv[1]);
    const int threads = atoi(argv[2]), sweeps = atoi(argv[3]), repeats = atoi(argv[4]);
    int plain = 0, cuda = 0, weak = 0, as_ranks = size;
    for (int i = 5; i < argc; i++) {
        plain |= strcmp(argv[i], "plain") == 0;
        cuda |= strcmp(argv[i], "cuda") == 0;
        weak |= strcmp(argv[i], "weak") == 0;
        if (strncmp(argv[i], "ranks=", 6) == 0)
            as_ranks = atoi(argv[i] + 6);
    }
    const long long LY = weak ? L * (plain ? as_ranks : size) : L;
    latmc_ctx *ctx = NULL;
    latmc_sim *sim = NULL;
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_ISING;
    d.extent[0] = L;
    d.extent[1] = LY;
    d.device = cuda ? LATMC_DEVICE_CUDA : LATMC_DEVICE_CPU;
    d.n_threads = threads;
    d.seed = 1;
    int st = latmc_ctx_create(&ctx);
    if (st == LATMC_OK)
        st = plain ? latmc_sim_create(ctx, &d, &sim)
                   : latmc_mpi_sim_create(ctx, MPI_COMM_WORLD, &d, &sim);
    if (st == LATMC_OK)
        st = latmc_sim_set_param(sim, LATMC_PARAM_BETA, 0.4406868);
    if (st == LATMC_OK)
        st = latmc_sim_init_spins(sim, LATMC_INIT_HOT);
    if (st == LATMC_OK)
        st = latmc_sim_sweep(sim, 5);
    if (st != LATMC_OK) {
        fprintf(stderr, "rank %d: %s\n", rank, latmc_last_error());
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    double *t = calloc((size_t)repeats, sizeof *t);
    for (int r = 0; r < repeats; r++) {
        MPI_Barrier(MPI_COMM_WORLD);
        double t0 = MPI_Wtime();
        latmc_sim_sweep(sim, (uint64_t)sweeps);
        MPI_Barrier(MPI_COMM_WORLD);
        t[r] = MPI_Wtime() - t0;
    }
    qsort(t, (size_t)repeats, sizeof *t, cmp);
    const double med = t[repeats / 2];
    if (rank == 0)
        printf("%s%s %lldx%lld ranks=%d threads=%d: median %.6f s for %d sweeps, %.4f "
               "ns/update%s\n", plain ? "plain" : "mpi", cuda ? " cuda" : "", L, LY,
               plain ? 1 : size, threads, med, sweeps, med / sweeps / (double)(L * LY) * 1e9,
               cuda && !plain ? (latmc_mpi_cuda_aware() ? " (CUDA-aware MPI)"
                                                        : " (MPI not CUDA-aware: host staging)")
                              : "");
    free(t);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
    MPI_Finalize();
    return 0;
}
