/* latmc front end — one process (cluster.h): everything is local. */
#include "cluster.h"

void cluster_init(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
}

int cluster_finish(int status)
{
    return status;
}

bool cluster_is_root(void)
{
    return true;
}

int cluster_sim_create(latmc_ctx *ctx, const latmc_sim_desc *desc, latmc_sim **out)
{
    return latmc_sim_create(ctx, desc, out);
}

int cluster_sim_load(latmc_ctx *ctx, const char *path, latmc_sim **out)
{
    return latmc_sim_load(ctx, path, out);
}

int cluster_max_int(int v)
{
    return v;
}

double cluster_max_double(double v)
{
    return v;
}
