/*
 * Internal to the CUDA module: parallel tempering on the device for more than one model
 * (ens_tempering.c, the host side; ens_exchange_kernels.cu, the round). The state of the
 * map (struct cuda_ens_temper_dev) and a round's constants (struct cuda_ens_round) are
 * ising_batch.h's; a model adds its members' energies and the move of a member to a
 * temperature in its batch's device table. Ising's launchers are in ising_batch.h;
 * Heisenberg's and phi^4's are below.
 */
#ifndef LATMC_CUDA_ENS_TEMPER_MODELS_H
#define LATMC_CUDA_ENS_TEMPER_MODELS_H

#include <stdint.h>

#include <cuda_runtime_api.h>

#include "heisenberg_batch.h"
#include "ising_batch.h"
#include "phi4_batch.h"

#ifdef __cplusplus
extern "C" {
#endif

/* One exchange round of Heisenberg members (as cuda_ens_exchange_round): their energies
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

/* One exchange round of phi^4 members on a mu2 ladder (as cuda_ens_exchange_round, r.scale
 * 1/2): their sum phi^2 per site from sums[m].phi2 and r.nsites; a moved member's
 * coefficients in members[] those of its new temperature, coefs_of_t[t]. */
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
#endif

#endif
