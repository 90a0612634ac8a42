/*
 * Internal to the CUDA module: Heisenberg members of an ensemble in one launch
 * (heisenberg_batch_kernels.cu, the kernel; heisenberg/cuda_heisenberg_batch.c, the host side;
 * doc/ensembles.md).
 */
#ifndef LATMC_CUDA_HEISENBERG_BATCH_H
#define LATMC_CUDA_HEISENBERG_BATCH_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Tempering's state and round (exec/cuda_temper.h), as the launchers below take them. */
struct cuda_ens_temper_dev;
struct cuda_ens_round;

/* The members' lattice (one replica each), natural site order i = x + L_x (y + L_y z). */
typedef struct ens_heisenberg_shape {
    int ndim, lx, ly, lz; /* lz = 1 in 2D; L_x even */
    int n;                /* sites */
} ens_heisenberg_shape;

/* The reduction's chunks (the one-device sim's, lib/heisenberg.h: cuda_heisenberg_leaf.c):
 * rows_per_chunk rows a chunk, nchunks of them, chunks_per_plane a plane. */
typedef struct ens_heisenberg_chunks {
    int rows_per_chunk, nchunks, chunks_per_plane;
} ens_heisenberg_chunks;

/* One member of the launch: its configuration (the standalone sim's own SoA buffer,
 * component c at c N + i, updated in place), its couplings (SoA, J_{i,mu} at mu N + i),
 * its seed and parameters. */
struct cuda_ens_heisenberg_member {
    float *spins;
    const float *J;
    uint64_t seed;
    double beta, h;
    int nover;
    int pad_;
};

/* Dynamic shared memory of a block: the spins, and with jsmem the couplings. */
size_t cuda_ens_heisenberg_smem(const ens_heisenberg_shape *g, int jsmem);

/* The same, with the member's sums left by the launch (the chunks' partials after them). */
size_t cuda_ens_heisenberg_sums_smem(const ens_heisenberg_shape *g, int jsmem,
                                     const ens_heisenberg_chunks *ch);

/* Make the kernel of (double?, ndim) launchable with smem bytes and `threads` threads:
 * cudaErrorInvalidConfiguration where the device or the kernel cannot take them. The
 * second, its instance that leaves the sums (smem: cuda_ens_heisenberg_sums_smem's), also
 * cudaErrorInvalidConfiguration where it would hold fewer blocks an SM than the plain
 * instance with plain_smem (the last launch before a round would run more waves). */
cudaError_t cuda_ens_heisenberg_prepare(int dbl, int ndim, size_t smem, int threads);
cudaError_t cuda_ens_heisenberg_prepare_sums(int dbl, int ndim, size_t smem, size_t plain_smem,
                                       int threads);

/* n_sweeps sweeps (numbers sweep0, sweep0 + 1, ...) of every member (device table
 * `members`), one block per member: the heat bath (heatbath != 0) then nover
 * overrelaxation passes, or max(nover, 1) overrelaxation passes, as heisenberg_sweep. With
 * sums (not NULL; made launchable by cuda_ens_heisenberg_prepare_sums), each member's bonds and
 * M after the last sweep too, the very doubles cuda_ens_heisenberg_measure gives with chunks ch
 * (the first four of its 13 at sums + 13 m; the rest left as they were). after_round:
 * the launch comes right after a round's launch, which wrote no spins, so that its blocks
 * may copy their spins in before that launch ends (a programmatic launch); else after. */
cudaError_t cuda_ens_heisenberg_sweeps(cudaStream_t stream, const ens_heisenberg_shape *g,
                                 const struct cuda_ens_heisenberg_member *members, int n_members,
                                 int dbl, int heatbath, int jsmem, int threads, uint64_t sweep0,
                                 uint64_t n_sweeps, double *sums, const ens_heisenberg_chunks *ch,
                                 int after_round);

/* The sums of lib/heisenberg.h of every member (13 doubles each, at sums + 13 m; zeroed by
 * the caller), each exactly what the member's own measure gives: chunks of rows_per_chunk
 * rows, nchunks of them, chunks_per_plane a plane (the leaf's choice, cuda_heisenberg_leaf.c). */
cudaError_t cuda_ens_heisenberg_measure(cudaStream_t stream, const ens_heisenberg_shape *g,
                                  const struct cuda_ens_heisenberg_member *members, int n_members,
                                  int rows_per_chunk, int nchunks, int chunks_per_plane,
                                  double *sums);

/* A tempering round's sums: as cuda_ens_heisenberg_measure, but where its window kernel applies
 * only the bonds and M_z (sums + 13 m, doubles 0 and 3: the two a round's energy reads,
 * the very doubles cuda_ens_heisenberg_measure gives), the other two left as they were. */
cudaError_t cuda_ens_heisenberg_measure_round(cudaStream_t stream, const ens_heisenberg_shape *g,
                                        const struct cuda_ens_heisenberg_member *members,
                                        int n_members, int rows_per_chunk, int nchunks,
                                        int chunks_per_plane, double *sums);

/* Whether cuda_ens_heisenberg_measure can launch for members of shape g in nchunks chunks on a
 * device whose blocks may opt in to optin bytes of shared memory (nonzero: yes). */
int cuda_ens_heisenberg_measure_fits(const ens_heisenberg_shape *g, int nchunks, int optin);

/* The members' sums a and b (13 doubles each) compared bit for bit, the first four (bonds
 * and M): the members with any difference added to *diffs. */
cudaError_t cuda_ens_heisenberg_sums_compare(cudaStream_t stream, const double *a, const double *b,
                                       int n_members, unsigned long long *diffs);

/* Tempering on the device (cuda_heisenberg_temper.c; the kernels of
 * exec/cuda_temper_round.cuh): one exchange round of Heisenberg members: their energies
 * from sums (13 doubles a member, cuda_ens_heisenberg_measure's), r.h and r.nsites; a moved
 * member's beta in members[] is the ladder's value of its new temperature. */
cudaError_t cuda_ens_heisenberg_exchange_round(cudaStream_t stream,
                                               const struct cuda_ens_temper_dev *d,
                                               const struct cuda_ens_round *r,
                                               struct cuda_ens_heisenberg_member *members,
                                               const double *sums);

/* Every member's beta the ladder's value of its temperature in the device's map (after a
 * table upload from the host, whose members lag behind the map). */
cudaError_t cuda_ens_heisenberg_temper_betas(cudaStream_t stream,
                                             const struct cuda_ens_temper_dev *d,
                                             struct cuda_ens_heisenberg_member *members, int64_t n);

#ifdef __cplusplus
}
#else

#include <stdbool.h>

#include "box.h"
#include "internal.h"

/*
 * For tempering on the device (cuda_heisenberg_temper.c): the batch of these members taken, with
 * this call's table on the device (as a batched sweep makes it ready, on the batch's stream;
 * LATMC_EUNSUPPORTED where they cannot run together), and given back with
 * cuda_ens_heisenberg_close. Launches of whole sweeps (up to ENS_HEISENBERG_SWEEPS_PER_LAUNCH a
 * launch, as the batch's run_steps) and of the members' sums into `sums`, on that stream,
 * nothing waited for.
 */
struct cuda_ens_heisenberg_view {
    void *batch;                              /* the batch taken */
    struct cuda_ens_heisenberg_member *dev;         /* the table on the device */
    const struct cuda_ens_heisenberg_member *host;  /* the host's copy of what it uploaded */
    double *sums;                             /* 13 doubles a member, on the device */
    uint64_t uploads;                         /* the batch's table uploads so far */
    bool fused_sums;                          /* the sweeps' last launch can leave the sums */
    uint64_t updates_per_sweep;               /* counted accepted and attempted a member */
};
int cuda_ens_heisenberg_open(latmc_sim *const *members, int n, struct cuda_ens_heisenberg_view *v);
void cuda_ens_heisenberg_close(struct cuda_ens_heisenberg_view *v);
cudaError_t cuda_ens_heisenberg_launch_sweeps(const struct cuda_ens_heisenberg_view *v,
                                              uint64_t sweep0, uint64_t n_sweeps, bool sums,
                                              bool after_round);
/* A round's sums (cuda_ens_heisenberg_measure_round: the bonds and M_z) into the view's sums. */
cudaError_t cuda_ens_heisenberg_launch_measure(const struct cuda_ens_heisenberg_view *v);
/* Whether the batch's members may run in parts (members of one block each, no
 * LATMC_ENS_HEIS_SUMS=check): the two launches above for members [m0, m0 + n) alone, on
 * `stream` (cuda_temper_run_in_parts: whole samples on streams of their own). */
bool cuda_ens_heisenberg_splits(const struct cuda_ens_heisenberg_view *v);
cudaError_t cuda_ens_heisenberg_launch_sweeps_of(const struct cuda_ens_heisenberg_view *v,
                                                 cudaStream_t stream, int m0, int n,
                                                 uint64_t sweep0, uint64_t n_sweeps, bool sums,
                                                 bool after_round);
cudaError_t cuda_ens_heisenberg_launch_measure_of(const struct cuda_ens_heisenberg_view *v,
                                                  cudaStream_t stream, int m0, int n);
/* LATMC_ENS_HEIS_SUMS=check: after a launch of sweeps with sums (fused_sums), the
 * reduction's sums compared with them on the device; after the list was waited for,
 * whatever it answered (status), LATMC_EDEVICE where any differed, else the status (the
 * count of differences cleared after a failed list too). No-ops otherwise. */
cudaError_t cuda_ens_heisenberg_launch_check(const struct cuda_ens_heisenberg_view *v);
int cuda_ens_heisenberg_check_result(const struct cuda_ens_heisenberg_view *v, int status);
/* After the device's tempering map was fetched (or a tempering list failed): the table
 * the rounds wrote is not the host's copy, so the next call uploads the members' own. */
void cuda_ens_heisenberg_table_moved(latmc_sim *const *members, int n);

#endif

#endif
