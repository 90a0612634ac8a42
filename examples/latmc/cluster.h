/*
 * latmc front end — the processes one run spans: one (latmc, cluster_single.c) or the
 * ranks of MPI_COMM_WORLD (latmc-mpi, mpi/latmc_cli_cluster.c, doc/mpi.md). The same
 * program text runs on every rank; what must be the same on all of them (the sim, whether
 * to stop, the chunk sizes, which depend on the clock) goes through here, and only rank 0
 * writes output.
 */
#ifndef LATMC_CLI_CLUSTER_H
#define LATMC_CLI_CLUSTER_H

#include <latmc/latmc.h>

/* Start (MPI_Init) and end (MPI_Finalize): main's first and last calls. Ranks other than
 * 0 have stdout and stderr on /dev/null from cluster_init on. */
void cluster_init(int *argc, char ***argv);
int cluster_finish(int status);
/* Whether this process writes the output files (rank 0). */
bool cluster_is_root(void);
/* latmc_sim_create / latmc_sim_load across the processes. */
int cluster_sim_create(latmc_ctx *ctx, const latmc_sim_desc *desc, latmc_sim **out);
int cluster_sim_load(latmc_ctx *ctx, const char *path, latmc_sim **out);
/* The largest of every process's value (a signal number, a duration). */
int cluster_max_int(int v);
double cluster_max_double(double v);

#endif
