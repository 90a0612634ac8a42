/* The matrix without liblatmc_mpi: one process, no ranks; the mpi rows are skipped. */
#include <stdio.h>
#include <stdlib.h>

#include "identity.h"

bool mpi_built(void)
{
    return false;
}

int mpi_rank(void)
{
    return 0;
}

int mpi_size(void)
{
    return 1;
}

bool mpi_all(bool ok)
{
    return ok;
}

int mpi_sim_create(latmc_ctx *ctx, const latmc_sim_desc *d, latmc_sim **out)
{
    (void)ctx;
    (void)d;
    *out = NULL;
    return latmc_record_failure(LATMC_EUNSUPPORTED, "built without liblatmc_mpi");
}

int mpi_sim_load(latmc_ctx *ctx, const char *path, latmc_sim **out)
{
    (void)ctx;
    (void)path;
    *out = NULL;
    return latmc_record_failure(LATMC_EUNSUPPORTED, "built without liblatmc_mpi");
}

bool mpi_shared_tempdir(char *dir, size_t size)
{
    snprintf(dir, size, "/tmp/latmc-matrix-XXXXXX");
    return mkdtemp(dir) != NULL;
}

void mpi_init(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
}

void mpi_finalize(void)
{
}
