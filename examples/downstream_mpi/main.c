/*
 * A downstream MPI program built against the installed liblatmc_mpi (latmc-mpi.pc):
 *
 *     mpicc main.c $(pkg-config --cflags --libs latmc-mpi) -o ising_mpi
 *     mpirun -np 4 ./ising_mpi
 *
 * One 2D Ising lattice across the ranks; rank 0 prints the mean energy, which is the same
 * bit for bit on any number of ranks (and in one process without MPI).
 */
#include <stdio.h>

#include <latmc/latmc_mpi.h>

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank = 0, size = 1;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);

    latmc_ctx *ctx = NULL;
    latmc_sim *sim = NULL;
    latmc_sim_desc desc;
    latmc_sim_desc_init(&desc);
    desc.model = LATMC_MODEL_ISING;
    desc.extent[0] = desc.extent[1] = 64;
    desc.device = LATMC_DEVICE_CPU;
    desc.n_threads = 1;
    desc.seed = 2024;
    /* collective: every rank passes the same desc */
    int st = latmc_ctx_create(&ctx);
    if (st == LATMC_OK)
        st = latmc_mpi_sim_create(ctx, MPI_COMM_WORLD, &desc, &sim);
    if (st == LATMC_OK)
        st = latmc_sim_set_param(sim, LATMC_PARAM_BETA, 0.4406868);
    if (st == LATMC_OK)
        st = latmc_sim_init_spins(sim, LATMC_INIT_HOT);
    if (st == LATMC_OK)
        st = latmc_sim_sweep(sim, 200);
    double e_sum = 0;
    for (int i = 0; st == LATMC_OK && i < 100; i++) {
        double e = 0;
        st = latmc_sim_sweep(sim, 1);
        if (st == LATMC_OK)
            st = latmc_sim_observable(sim, LATMC_OBS_ENERGY, &e); /* collective too */
        e_sum += e;
    }
    if (st != LATMC_OK && rank == 0) /* the same failure on every rank */
        fprintf(stderr, "liblatmc: %s\n", latmc_last_error());
    if (st == LATMC_OK && rank == 0)
        printf("<E>/N = %.17g (%d ranks)\n", e_sum / 100, size);
    latmc_sim_destroy(&sim); /* before MPI_Finalize: it frees the sim's communicator */
    latmc_ctx_destroy(&ctx);
    MPI_Finalize();
    return st == LATMC_OK ? 0 : 1;
}
