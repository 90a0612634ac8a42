/*
 * latmc-mpi: the latmc front end's processes (examples/latmc/cluster.h) as the ranks of
 * MPI_COMM_WORLD, the sim as liblatmc_mpi's. Every rank runs the same loop; the decisions
 * that depend on something local (a signal that reached one rank first, the clock that
 * sizes the chunks of sweeps) are taken as the maximum over the ranks, so that every rank
 * makes the same collective calls. Rank 0 alone writes output.
 */
#include <stdio.h>

#include <latmc/latmc_mpi.h>

#include "cluster.h"

static int rank;

void cluster_init(int *argc, char ***argv)
{
    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank != 0) {
        /* rank 0 reports for all: every failure is agreed on, so it knows them */
        if (!freopen("/dev/null", "w", stdout) || !freopen("/dev/null", "w", stderr))
            MPI_Abort(MPI_COMM_WORLD, 70);
    }
}

int cluster_finish(int status)
{
    MPI_Finalize();
    return status;
}

bool cluster_is_root(void)
{
    return rank == 0;
}

int cluster_sim_create(latmc_ctx *ctx, const latmc_sim_desc *desc, latmc_sim **out)
{
    return latmc_mpi_sim_create(ctx, MPI_COMM_WORLD, desc, out);
}

int cluster_sim_load(latmc_ctx *ctx, const char *path, latmc_sim **out)
{
    return latmc_mpi_sim_load(ctx, MPI_COMM_WORLD, path, out);
}

int cluster_max_int(int v)
{
    int all = v;
    MPI_Allreduce(&v, &all, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    return all;
}

double cluster_max_double(double v)
{
    /* a maximum is exact in any order: no rank sees another value */
    double all = v;
    MPI_Allreduce(&v, &all, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    return all;
}
