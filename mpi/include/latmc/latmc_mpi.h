/**
 * @file latmc/latmc_mpi.h
 * @brief liblatmc_mpi — one lattice across the ranks of an MPI communicator (doc/mpi.md).
 *
 * A separate library (liblatmc_mpi.so.1, pkg-config latmc-mpi) over liblatmc's part API
 * (latmc/part.h): rank r of the communicator updates slab r of the lattice (slabs along the
 * last axis), halos travel by nonblocking MPI point-to-point, reductions by MPI gathers,
 * combined in plane order, so every result is bit-identical for any number of ranks and
 * equal to the single-process sim. After creation the ordinary latmc_sim_* calls work;
 * which of them are collective is said in latmc/part.h and doc/mpi.md.
 *
 * MPI must be initialised before any call here and finalised only after every sim made
 * here was destroyed (latmc_sim_destroy() frees the sim's duplicate of the communicator).
 * MPI's default error handler stays in force: an MPI failure ends the job (no rank left
 * waiting); a liblatmc failure on one rank is the same failure on every rank.
 *
 * @since 0.2
 */
#ifndef LATMC_MPI_H
#define LATMC_MPI_H

#include <mpi.h>

#include <latmc/latmc.h>

#if defined(LATMC_STATIC)
#  define LATMC_MPI_API
#elif defined(__GNUC__) && __GNUC__ >= 4
#  define LATMC_MPI_API __attribute__((visibility("default")))
#else
#  define LATMC_MPI_API
#endif

LATMC_BEGIN_DECLS

/**
 * Create this rank's part of the sim described by desc, cut into as many slabs as comm
 * has ranks. Collective over comm; every rank passes the same desc (compared: a difference
 * is LATMC_EINVAL on every rank, never a hang). desc.n_parts must be 0 or the number of
 * ranks. The communicator is duplicated (the sim's messages never meet the caller's).
 * @return LATMC_OK, or the same failure on every rank (latmc_last_error() names the rank
 *         that failed first); LATMC_EINVAL for a NULL argument or MPI_COMM_NULL (local);
 *         LATMC_ESTATE before MPI_Init or after MPI_Finalize (local: no MPI call made).
 * @since 0.2
 */
LATMC_MPI_API int latmc_mpi_sim_create(latmc_ctx *ctx, MPI_Comm comm,
                                       const latmc_sim_desc *desc, latmc_sim **out);

/**
 * Load a checkpoint (written by latmc_sim_save() of any sim: one process or any number of
 * ranks) as this rank's part, cut into as many slabs as comm has ranks. Collective; rank
 * 0 reads the file (path matters on rank 0 only) and sends each rank only its planes,
 * in chunks (latmc_sim_load_part()): no rank holds the whole lattice. The sim continues
 * the saved chain bit-identically.
 * @return LATMC_OK, or the same failure on every rank: LATMC_EIO (rank 0 cannot read
 *         the file), LATMC_ECORRUPT, and those of latmc_mpi_sim_create().
 * @since 0.2
 */
LATMC_MPI_API int latmc_mpi_sim_load(latmc_ctx *ctx, MPI_Comm comm, const char *path,
                                     latmc_sim **out);

/**
 * Whether the MPI library says it passes CUDA device buffers directly (Open MPI's
 * MPIX_Query_cuda_support, MPICH's MPIR_CVAR_ENABLE_GPU: 1), or 0 (or not known: host
 * staging). Information for GPU ranks, which stage their halos through the host either
 * way (doc/mpi.md, "GPU ranks").
 * @since 0.2
 */
LATMC_MPI_API int latmc_mpi_cuda_aware(void);

LATMC_END_DECLS

#endif
