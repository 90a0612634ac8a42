/*
 * latmc-mpi-bench: sweeps per second of a 2D Ising lattice (or a 3D Heisenberg spin glass)
 * on MPI ranks, against one process (doc/mpi.md, "Performance"). Not installed.
 *
 *   mpirun -np 2 latmc-mpi-bench L THREADS SWEEPS REPEATS        the MPI sim
 *   latmc-mpi-bench L THREADS SWEEPS REPEATS plain               one ordinary sim
 *
 * Words after REPEATS, in any order: `plain` (one ordinary sim), `cuda` (on the GPU: rank
 * r on device r modulo the GPUs, doc/mpi.md "GPU ranks"), `weak` (L x L per rank: the
 * lattice is L x (ranks L), cut into ranks slabs of L x L; with `plain`, give the rank
 * count to compare with as `ranks=N`), `heisenberg` (the 3D Heisenberg spin glass, two
 * replicas, Gaussian couplings, float, heat bath: L x L x L, or L x L x (ranks L) with
 * `weak`), `devices=N` (with `plain cuda`: one process on N GPUs, the in-process slabs of
 * doc/cuda.md "Several GPUs", to compare GPU ranks with).
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
    int plain = 0, cuda = 0, weak = 0, heisenberg = 0, as_ranks = size, devices = 0;
    for (int i = 5; i < argc; i++) {
        plain |= strcmp(argv[i], "plain") == 0;
        cuda |= strcmp(argv[i], "cuda") == 0;
        weak |= strcmp(argv[i], "weak") == 0;
        heisenberg |= strcmp(argv[i], "heisenberg") == 0;
        if (strncmp(argv[i], "devices=", 8) == 0)
            devices = atoi(argv[i] + 8);
        if (strncmp(argv[i], "ranks=", 6) == 0)
            as_ranks = atoi(argv[i] + 6);
    }
    const long long LY = weak ? L * (plain ? as_ranks : size) : L;
    latmc_ctx *ctx = NULL;
    latmc_sim *sim = NULL;
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = heisenberg ? LATMC_MODEL_HEISENBERG : LATMC_MODEL_ISING;
    d.ndim = heisenberg ? 3 : 2;
    d.extent[0] = L;
    d.extent[1] = heisenberg ? L : LY;
    if (heisenberg) {
        d.extent[2] = LY;
        d.replicas = 2;
        d.couplings = LATMC_COUPLINGS_GAUSSIAN;
        d.coupling_seed = 3;
        d.precision = LATMC_PRECISION_FLOAT;
        d.algorithm = LATMC_ALGO_HEATBATH;
    }
    if (plain && devices > 1)
        d.n_devices = devices;
    d.device = cuda ? LATMC_DEVICE_CUDA : LATMC_DEVICE_CPU;
    d.n_threads = threads;
    d.seed = 1;
    int st = latmc_ctx_create(&ctx);
    if (st == LATMC_OK)
        st = plain ? latmc_sim_create(ctx, &d, &sim)
                   : latmc_mpi_sim_create(ctx, MPI_COMM_WORLD, &d, &sim);
    if (st == LATMC_OK)
        st = latmc_sim_set_param(sim, LATMC_PARAM_BETA, heisenberg ? 1.0 : 0.4406868);
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
    /* updates per sweep: every site (of both replicas for the spin glass) */
    const double updates = heisenberg ? 2.0 * (double)L * (double)L * (double)LY : (double)(L * LY);
    char extents[64];
    if (heisenberg)
        snprintf(extents, sizeof extents, "%lldx%lldx%lld", L, L, LY);
    else
        snprintf(extents, sizeof extents, "%lldx%lld", L, LY);
    if (rank == 0)
        printf("%s%s%s %s ranks=%d devices=%d threads=%d: median %.6f s for %d sweeps, "
               "%.4f ns/update%s\n", plain ? "plain" : "mpi", cuda ? " cuda" : "",
               heisenberg ? " heisenberg" : "", extents, plain ? 1 : size,
               plain && devices > 1 ? devices : 1, threads, med, sweeps,
               med / sweeps / updates * 1e9,
               cuda && !plain ? (latmc_mpi_cuda_aware() ? " (CUDA-aware MPI)"
                                                        : " (MPI not CUDA-aware: host staging)")
                              : "");
    free(t);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
    MPI_Finalize();
    return 0;
}
