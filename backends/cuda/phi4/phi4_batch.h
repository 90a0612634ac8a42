/*
 * Internal to the CUDA module: phi^4 members of an ensemble in one launch per step (a
 * chunk sub-grid or a site-order colour step), or per stretch of whole sweeps for small
 * site-order members (phi4_batch_kernels.cu, the kernels, which run the single lattice's
 * per-chunk and per-Philox-block code of phi4/phi4_device.cuh with a member index;
 * phi4/cuda_phi4_batch.c, the host side; doc/ensembles.md).
 */
#ifndef LATMC_CUDA_PHI4_BATCH_H
#define LATMC_CUDA_PHI4_BATCH_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#include "lattice_numbering.h"
#include "phi4.h"
#include "phi4_cuda.h"
#include "rng_streams.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Tempering's state and round (exec/cuda_temper.h), as the launchers below take them. */
struct cuda_ens_temper_dev;
struct cuda_ens_round;

/* One member of the launch: its field (the standalone sim's own device values, updated in
 * place), its coefficients (the sim's model data, both precisions as lib/phi4.h keeps them)
 * and its seed's round keys. */
struct cuda_ens_phi4_member {
    void *phi;
    struct latmc_phi4_coef_f f;
    struct latmc_phi4_coef_d d;
    struct cuda_phi4_keys keys;
};

/* The part of a member's entry that its mu2 gives (both precisions' coefficients, the
 * sim's model data): what tempering on the device writes into a moved member's entry
 * (cuda_phi4_temper.c, a temperature's part of the state). */
struct cuda_ens_phi4_coefs {
    struct latmc_phi4_coef_f f;
    struct latmc_phi4_coef_d d;
};

/* What a launch runs, for members of one plan (their sims' own, all equal) and one nhit,
 * nloc: chunk schedule, sub-grid `sub` of sweep `sweep`; site order, either one step
 * (n_sweeps 0: colour `colour` with the plan's draws `rng`) or n_sweeps whole sweeps from
 * sweep0 on, every pass and colour in the model's order (lib/model_phi4.c, phi4_step_of). */
struct cuda_ens_phi4_run {
    uint32_t nhit, nloc;
    uint64_t sweep;
    int sub;
    struct latmc_rng_name rng;
    int colour;
    uint64_t sweep0, n_sweeps;
};

/* Whether whole sweeps of members of this site-order lattice run in one launch (one block
 * a member: small members, whose steps a block barrier separates; the member in shared
 * memory where it fits). */
int cuda_ens_phi4_fused_fits(const struct cuda_phi4_plan *plan, const struct latmc_lattice *lat);

/* cuda_phi4_prepare for the batch's kernels of this plan (on the current device): the chunk
 * kernel, or the whole-sweep kernel that keeps a member in shared memory. */
cudaError_t cuda_ens_phi4_prepare(const struct cuda_phi4_plan *plan);

/* The run on every member of the device table `members` (n of them), each member's
 * accepted hits added to accepted[m]. Whole sweeps only where cuda_ens_phi4_fused_fits. */
cudaError_t cuda_ens_phi4_steps(cudaStream_t stream, const struct cuda_phi4_plan *plan,
                                const struct latmc_lattice *lat,
                                const struct cuda_ens_phi4_member *members, int n,
                                const struct cuda_ens_phi4_run *run,
                                unsigned long long *accepted);

/* The sums of lib/phi4.h of every member (struct latmc_phi4_sums each, out[m]), each in the
 * single lattice's order (cuda_phi4_measure): rows into partials (5 doubles a row a member),
 * then one block a member adds them. */
cudaError_t cuda_ens_phi4_measure(cudaStream_t stream, const struct cuda_phi4_plan *plan,
                                  const struct latmc_lattice *lat,
                                  const struct cuda_ens_phi4_member *members, int n,
                                  double *partials, struct latmc_phi4_sums *out);

/* Each member's sum phi^2 alone into out[m].phi2 (the other sums left as they were), the
 * very double cuda_ens_phi4_measure gives, in one launch (one block a member); scratch as
 * cuda_ens_phi4_measure's partials. */
cudaError_t cuda_ens_phi4_phi2(cudaStream_t stream, const struct cuda_phi4_plan *plan,
                               const struct latmc_lattice *lat,
                               const struct cuda_ens_phi4_member *members, int n,
                               double *scratch, struct latmc_phi4_sums *out);

/* The members whose phi2 differ between a and b (bit for bit) added to *diffs. */
cudaError_t cuda_ens_phi4_phi2_compare(cudaStream_t stream, const struct latmc_phi4_sums *a,
                                       const struct latmc_phi4_sums *b, int n,
                                       unsigned long long *diffs);

/* Tempering on the device (cuda_phi4_temper.c; the kernels of exec/cuda_temper_round.cuh):
 * one exchange round of phi^4 members on a mu2 ladder (r.scale 1/2): their sum phi^2 per
 * site from sums[m].phi2 and r.nsites; a moved member's coefficients in members[] those of
 * its new temperature, coefs_of_t[t]. */
cudaError_t cuda_ens_phi4_exchange_round(cudaStream_t stream, const struct cuda_ens_temper_dev *d,
                                         const struct cuda_ens_round *r,
                                         struct cuda_ens_phi4_member *members,
                                         const struct latmc_phi4_sums *sums,
                                         const struct cuda_ens_phi4_coefs *coefs_of_t);

/* Every member's coefficients those of its temperature in the device's map (after a table
 * upload from the host, whose members lag behind the map). */
cudaError_t cuda_ens_phi4_temper_coefs(cudaStream_t stream, const struct cuda_ens_temper_dev *d,
                                       struct cuda_ens_phi4_member *members,
                                       const struct cuda_ens_phi4_coefs *coefs_of_t, int64_t n);

#ifdef __cplusplus
}
#else

#include <stdbool.h>

#include "box.h"
#include "internal.h"

/*
 * For tempering on the device (cuda_phi4_temper.c): the batch of these members taken, with
 * this call's table on the device (as a batched sweep makes it ready, on the batch's stream;
 * LATMC_EUNSUPPORTED where they cannot run together or do not take whole sweeps), and
 * given back with cuda_ens_phi4_close. Launches of whole sweeps (up to the batch's hits a
 * launch, as the batch's run_steps; each member's accepted hits added to its counter
 * dev_changed) and of the members' sum phi^2 into `sums` (the phi2 of each member's
 * struct latmc_phi4_sums, the very double a host round reads through LATMC_STEP_MEASURE: by
 * default in one launch of its own, cuda_ens_phi4_phi2; LATMC_ENS_PHI4_ROUND_SUMS=measure
 * the two launches of the measurement; =check both, compared on the device), on that
 * stream, nothing waited for; after the list was waited for, cuda_ens_phi4_check_result
 * with the list's status: LATMC_EDEVICE where a checked phi2 differed (else the status;
 * the count of differences cleared after a failed list too; LATMC_EINVAL for another
 * value of the variable, found by cuda_ens_phi4_open).
 */
struct cuda_ens_phi4_view {
    void *batch;                               /* the batch taken */
    struct cuda_ens_phi4_member *dev;          /* the table on the device */
    const struct cuda_ens_phi4_member *host;   /* the host's copy of what it uploaded */
    struct latmc_phi4_sums *sums;              /* a member each, on the device */
    unsigned long long *dev_changed, *changed; /* accepted hits a member: device, host */
    uint64_t uploads;                          /* the batch's table uploads so far */
    uint64_t updates_per_sweep;                /* attempted hits a member a sweep */
};
int cuda_ens_phi4_open(latmc_sim *const *members, int n, struct cuda_ens_phi4_view *v);
void cuda_ens_phi4_close(struct cuda_ens_phi4_view *v);
/* Whether the batch runs whole-sweeps call k as the model names its steps. */
bool cuda_ens_phi4_sweeps_ok(const latmc_sim *first, const struct latmc_step_call *k);
cudaError_t cuda_ens_phi4_launch_sweeps(const struct cuda_ens_phi4_view *v, uint64_t sweep0,
                                        uint64_t n_sweeps);
cudaError_t cuda_ens_phi4_launch_round_sums(const struct cuda_ens_phi4_view *v);
/* Whether the batch's members may run in parts (the round's sums phi^2 in a launch of
 * their own, not the measurement's): the two launches above for members [m0, m0 + n)
 * alone, on `stream` (cuda_temper_run_in_parts: whole samples on streams of their own). */
bool cuda_ens_phi4_splits(const struct cuda_ens_phi4_view *v);
cudaError_t cuda_ens_phi4_launch_sweeps_of(const struct cuda_ens_phi4_view *v,
                                           cudaStream_t stream, int m0, int n, uint64_t sweep0,
                                           uint64_t n_sweeps);
cudaError_t cuda_ens_phi4_launch_round_sums_of(const struct cuda_ens_phi4_view *v,
                                               cudaStream_t stream, int m0, int n);
int cuda_ens_phi4_check_result(const struct cuda_ens_phi4_view *v, int status);
/* After the device's tempering map was fetched (or a tempering list failed): the table
 * the rounds wrote is not the host's copy, so the next call uploads the members' own. */
void cuda_ens_phi4_table_moved(latmc_sim *const *members, int n);

#endif

#endif
