/*
 * Internal to the CUDA module: the kernels of the ensemble chain of member lanes (ensemble
 * decisions = 2, doc/ensembles.md "Member lanes"), Ising's (ising_lanes_kernels.cu). One
 * thread block per group of 32 members runs every sweep of a call with the group's words
 * (lib/ens_lanes_rules.h's layout) in shared memory (where they fit), each site by
 * latmc_ens_lanes_update_site_sliced, the CPU's function, so the words, the draws and the
 * counters are the CPU path's bit for bit. The words' keeping between calls is the
 * ensembles' (ensembles/ens_lanes.c, ops.ens_lanes).
 */
#ifndef LATMC_CUDA_ISING_LANES_H
#define LATMC_CUDA_ISING_LANES_H

#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "ising.h"
#include "lattice_numbering.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Entries (16 bytes each) of the register form's tail queue, static shared memory beside
 * the words (ising_lanes_kernels.cu, lanes_regs_sweeps). */
#define CUDA_ENS_LANES_QUEUE 2048

/* The register form's instances by the top threshold planes known to be zero: with
 * instance z > 0 every present lane is open (a threshold below 2^32 and not 0) at every key
 * u < ndim, planes b < CUDA_ENS_LANES_ZEROS_ALL(z) are zero in all these thresholds, and
 * planes b < CUDA_ENS_LANES_ZEROS_MOST(z) in those of every key u < ndim - 1 too, so that
 * the head compares them without the thresholds (a lane stays open there iff its number's
 * bit is 0). Instance 0 knows none; the host picks the largest its tables allow
 * (ensembles/ens_lanes.c). Metropolis at h = 0 in 3D (2D alike): the keys u = 2 and 1
 * have p = e^{-4 beta} and e^{-8 beta}, about floor(5.8 beta) and floor(11.5 beta) leading
 * zero bits: beta 0.4 gives instance 1, 0.6 and 2/3 (the bench's) 2, 0.7 and colder 3. */
#define CUDA_ENS_LANES_ZEROS 4
#define CUDA_ENS_LANES_ZEROS_ALL(z) ((z) > 0 ? (z) + 1 : 0)
#define CUDA_ENS_LANES_ZEROS_MOST(z) ((z) > 0 ? 2 * (z) + 2 : 0)

/* Shared memory bytes a block asks for to hold its group's words (spins, and bonds where
 * coupled); the kernel reads global memory where the device cannot give them. table: the
 * words and the register form's sites' table after them (0: the lattice is too large for
 * its 16-bit offsets). */
size_t cuda_ens_lanes_shared_bytes(const struct latmc_lattice *g, int coupled, int table);

/* The register form's sites' table of the lattice (N entries of 4 words, host memory; the
 * kernel copies it into shared memory): 0, or -1 where the lattice is too large for it or
 * memory ran out. */
int cuda_ens_lanes_table_make(const struct latmc_lattice *g, uint32_t *out);

/* n sweeps numbered sweep0 .. of groups = ceil(n_members / 32) groups: spin (groups x N
 * words), bond (groups x ndim N, NULL uniform), tables (groups x 32, the lanes' own),
 * changed[32 g + l] gains lane l's spins that changed. in_shared: the block's words in
 * shared memory (cuda_ens_lanes_shared_bytes, within the device's opt-in limit); 2: and
 * the register form's sites' table (`table`, device memory, cuda_ens_lanes_table_make's;
 * NULL: none) too. mode: -1 each site by latmc_ens_lanes_update_site_sliced itself (the
 * plain form); else its form compiled in for the kind of classes: 0 heat bath, 1
 * Metropolis where every lane's tables are symmetric (keys u, lib/ens_lanes_sliced.h), 2
 * Metropolis otherwise (keys (spin, k) in every group: the same words), 3 as 1 where every
 * lane accepts at u >= ndim (the register form: planes 0 .. 7 of the keys u < ndim in
 * registers, the tail queued). zeros: the register form's instance (CUDA_ENS_LANES_ZEROS; 0
 * with the other modes). sums, where not NULL: after the last sweep, every lane's sums as
 * cuda_ens_lanes_sums gives them (the round's, in the same launch). */
cudaError_t cuda_ens_lanes_sweeps(cudaStream_t stream, const struct latmc_lattice *g,
                                  int n_members, int algorithm, uint64_t seed, uint64_t sweep0,
                                  uint64_t n_sweeps, uint32_t *spin, const uint32_t *bond,
                                  const struct latmc_ising_tables *tables,
                                  unsigned long long *changed, const uint32_t *table,
                                  int in_shared, int mode, int zeros, long long *sums);

/* Every lane's latmc_ens_lanes_sums: sums[64 g + l] bonds, sums[64 g + 32 + l] spins. */
cudaError_t cuda_ens_lanes_sums(cudaStream_t stream, const struct latmc_lattice *g,
                                int n_members, const uint32_t *spin, const uint32_t *bond,
                                long long *sums);

/* The exchange round r (exec/cuda_temper.h) of the map in d on the lanes' sums (as
 * cuda_ens_lanes_sums or the sweeps' launch before it leave them), an accepted swap writing each member's new
 * temperature's tables (d's param_of_t) into its lane's in `tables` (ising_lanes_round.cu). */
struct cuda_ens_temper_dev;
struct cuda_ens_round;
cudaError_t cuda_ens_lanes_round(cudaStream_t stream, const struct cuda_ens_temper_dev *d,
                                 const struct cuda_ens_round *r, const long long *sums,
                                 struct latmc_ising_tables *tables);

#ifdef __cplusplus
}
#endif

#endif
