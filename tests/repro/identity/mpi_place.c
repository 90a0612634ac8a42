/* The matrix under mpirun (liblatmc_mpi): one part per rank of MPI_COMM_WORLD; every rank
 * runs every selected row, and a row passes only where it passes on every rank. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <latmc/latmc_mpi.h>

#include "identity.h"

bool mpi_built(void)
{
    return true;
}

int mpi_rank(void)
{
    int r = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &r);
    return r;
}

int mpi_size(void)
{
    int n = 1;
    MPI_Comm_size(MPI_COMM_WORLD, &n);
    return n;
}

bool mpi_all(bool ok)
{
    int mine = ok, all = 0;
    MPI_Allreduce(&mine, &all, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
    return all != 0;
}

int mpi_sim_create(latmc_ctx *ctx, const latmc_sim_desc *d, latmc_sim **out)
{
    return latmc_mpi_sim_create(ctx, MPI_COMM_WORLD, d, out);
}

int mpi_sim_load(latmc_ctx *ctx, const char *path, latmc_sim **out)
{
    return latmc_mpi_sim_load(ctx, MPI_COMM_WORLD, path, out);
}

/* Rank 0 makes the directory and tells the others its name (one node: the tests' ranks
 * share /tmp). */
bool mpi_shared_tempdir(char *dir, size_t size)
{
    char name[64] = "/tmp/latmc-matrix-XXXXXX";
    int ok = 1;
    if (mpi_rank() == 0)
        ok = mkdtemp(name) != NULL;
    MPI_Bcast(&ok, 1, MPI_INT, 0, MPI_COMM_WORLD);
    MPI_Bcast(name, sizeof name, MPI_CHAR, 0, MPI_COMM_WORLD);
    snprintf(dir, size, "%s", name);
    return ok != 0;
}

void mpi_init(int *argc, char ***argv)
{
    MPI_Init(argc, argv);
}

void mpi_finalize(void)
{
    MPI_Finalize();
}
