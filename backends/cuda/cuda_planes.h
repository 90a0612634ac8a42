/*
 * Internal to the CUDA module: a one-device sim as one part of a lattice shared by
 * processes (lib/part.h, doc/mpi.md "GPU ranks"). The sim stores only its slab and halo
 * planes on its device, like a CPU part (cuda_planes_part_kernels, below);
 * run_step updates only the part's box (its slab of planes), and
 * the per-plane ops (lib/backend.h) move planes between the device and the host in the
 * CPU's get_planes layout, so CPU and GPU parts give one chain.
 *
 * Models: the Heisenberg spin glass (cuda_planes_heis.c, the one-device pass on plane
 * ranges); Ising, Potts and phi^4 parts run on the one executor (exec/cuda_exec.c);
 * everything else is refused
 * with LATMC_EUNSUPPORTED and the reason (the part API then refuses n_parts > 1 at
 * creation: lib/part.c probes get_planes).
 */
#ifndef LATMC_CUDA_PLANES_H
#define LATMC_CUDA_PLANES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <cuda_runtime_api.h>

#include "backend.h"
#include "cuda_slab_exec.h" /* struct cuda_slab_run */

struct cuda_sim;

/* The ops (cuda_planes.c). run_step: one step (colour) on call->boxes[0] only. */
void cuda_planes_free(struct cuda_sim *cs); /* cs->planes, on cs->device (current) */
int cuda_planes_run_step(latmc_sim *sim, const struct latmc_step_call *call,
                         uint64_t *accepted, uint64_t *attempted);
int cuda_planes_measure(latmc_sim *sim, int64_t p0, int64_t p1, void *sums);
int cuda_planes_get(latmc_sim *sim, int64_t p0, int64_t p1, void *buf);
int cuda_planes_set(latmc_sim *sim, int64_t p0, int64_t p1, const void *buf);

/* A device scratch buffer of at least `bytes`, kept with the part (freed with it); its
 * users are ordered on one stream. */
int cuda_planes_scratch(struct cuda_sim *cs, size_t bytes, void **out);

/* The staging of planes in transit between the device and the caller's buffers: device
 * (dev_bytes, NULL dev where 0) and pinned host memory (host_bytes) of at least those
 * sizes, kept with the part and grown when needed (freed with it), so that a halo plane
 * crosses the bus as one DMA copy with no allocation. Used by one move at a time (every
 * move waits for its copies before it returns). Larger moves go in chunks of at most
 * CUDA_PLANES_STAGE_BYTES (or one plane). */
#define CUDA_PLANES_STAGE_BYTES ((size_t)16 << 20)
int cuda_planes_stage(struct cuda_sim *cs, size_t dev_bytes, size_t host_bytes, void **dev,
                      void **host);

/* Heisenberg's halo exchange (cuda_planes_heis.c, wire_move): whether a sweep call is
 * under way; whether buf[0, bytes) lies in the part's halo buffers (lib/part.c's, used
 * by its halo exchange only: halo_buf, or the buffers shared with the neighbours that a
 * transport's share_halos gave), and in *pinned whether the buffer is page-locked (done
 * at its first use, each of at most CUDA_PLANES_HALO_REGIONS buffers; false where it
 * cannot be); a set enqueued on the border stream and not
 * waited for; settle: wait for such sets (before anything on the sim's stream that
 * writes the planes). */
#define CUDA_PLANES_HALO_REGIONS 9
bool cuda_planes_in_sweep(const struct cuda_sim *cs);
bool cuda_planes_halo_buffer(latmc_sim *sim, const void *buf, size_t bytes, bool *pinned);
void cuda_planes_set_pending(struct cuda_sim *cs);
int cuda_planes_settle(struct cuda_sim *cs);

/* Heisenberg (cuda_planes_heis.c): the pass of the step (its colour-0 step; nothing at
 * the colour-1 one) on
 * planes [q0, q1) on `stream`; flip: the pass's buffer is the configuration now; move:
 * planes [p0, p1), enqueued on `stream` and waited for; border: the planes of each border
 * range of a step (at least the pass's halo, 2; a whole kernel chunk). */
cudaError_t cuda_planes_heis_pass(const latmc_sim *sim, struct cuda_sim *cs,
                                  cudaStream_t stream, int64_t q0, int64_t q1,
                                  const struct latmc_step *step);
void cuda_planes_heis_flip(const latmc_sim *sim, struct cuda_sim *cs);
uint64_t cuda_planes_heis_attempted(const latmc_sim *sim, int64_t sites);
int cuda_planes_heis_move(latmc_sim *sim, cudaStream_t stream, int64_t p0, int64_t p1,
                          void *get_buf, const void *set_buf);
int cuda_planes_heis_measure(latmc_sim *sim, int64_t p0, int64_t p1, void *sums);
int64_t cuda_planes_heis_border(const latmc_sim *sim, struct cuda_sim *cs);



/*
 * A GPU rank's slab: own planes [origin, origin + planes) of the last axis's L, `halo`
 * planes below and above them: local plane p is global plane origin - halo + p mod L, of
 * planes + 2 halo local planes. On a small lattice a global plane may be two local ones
 * (a lower and an upper halo plane, or a halo plane and an own one): a copy into the slab
 * writes every one of them (as the whole lattice's one plane would be written), a copy
 * out or an update takes the own one.
 *
 * cuda_planes_local_all: the local planes at which planes [p0, p1) (a range that does
 * not wrap) lie in the slab, the own one first where there is one, up to 4 into lp[];
 * their count (0: the slab does not hold the range). cuda_planes_local: the first, or -1.
 */
struct cuda_planes_slab {
    int64_t origin, planes, halo, L;
};
static inline int cuda_planes_local_all(const struct cuda_planes_slab *s, int64_t p0,
                                        int64_t p1, int64_t lp[4])
{
    const int64_t nloc = s->planes + 2 * s->halo, n = p1 - p0;
    const int64_t d = ((p0 - s->origin + s->halo) % s->L + s->L) % s->L;
    int k = 0;
    for (int64_t l = d; l + n <= nloc && k < 4; l += s->L)
        lp[k++] = l;
    for (int i = 1; i < k; i++)
        if (lp[i] >= s->halo && lp[i] + n <= s->halo + s->planes) {
            const int64_t own = lp[i];
            lp[i] = lp[0];
            lp[0] = own;
        }
    return k;
}
static inline int64_t cuda_planes_local(const struct cuda_planes_slab *s, int64_t p0,
                                        int64_t p1)
{
    int64_t lp[4];
    return cuda_planes_local_all(s, p0, p1, lp) > 0 ? lp[0] : -1;
}

/* The global plane of local plane p. */
static inline int64_t cuda_planes_global(const struct cuda_planes_slab *s, int64_t p)
{
    return ((s->origin - s->halo + p) % s->L + s->L) % s->L;
}

/*
 * GPU ranks that store their slab only (doc/mpi.md, "GPU ranks"): the kernel table a part
 * of n_parts > 1 runs instead of its model's, chosen at creation (cuda_backend.c), or NULL
 * for any other sim: Heisenberg (cuda_planes_heis.c); Ising, Potts and phi^4 parts are
 * the one executor's (exec/cuda_exec.c).
 */
struct cuda_model_kernels;
const struct cuda_model_kernels *cuda_planes_part_kernels(const latmc_sim *sim);
/* Entries every model's part table shares: a part's steps go to cuda_planes_run_step,
 * never to the table's step (cudaErrorNotSupported); the slab owns its device buffers
 * (no byte array of the whole lattice to hand out). */
cudaError_t cuda_planes_slab_no_step(const latmc_sim *sim, struct cuda_sim *cs, uint64_t sweep,
                                     const struct latmc_step *step);
bool cuda_planes_slab_owns_spins(const latmc_sim *sim);
const struct cuda_model_kernels *cuda_planes_heis_part_kernels(const latmc_sim *sim);

/* ops.get_coupling_planes (cuda_planes.c): a part's couplings of its planes [p0, p1) in
 * get_couplings' layout restricted to them, from a Heisenberg slab, which holds its
 * planes' couplings only; LATMC_EUNSUPPORTED (the core then reads them whole) for
 * any other sim. The models' forms return LATMC_EUNSUPPORTED without a message for a sim
 * not theirs. */
int cuda_planes_get_couplings(latmc_sim *sim, int64_t p0, int64_t p1, float *buf);

/* Heisenberg's pass reads two planes beyond its range (cuda_planes_heis.c), one more
 * than the model's halo: a part keeps that many beyond each end of its slab. */
#define CUDA_PLANES_HEIS_HALO 2

/* ops.part_halo_depth: CUDA_PLANES_HEIS_HALO for a Heisenberg part, else 0 (the halo). */
int cuda_planes_halo_depth(const latmc_sim *sim);
int cuda_planes_heis_coupling_planes(const latmc_sim *sim, struct cuda_sim *cs, int64_t p0,
                                     int64_t p1, float *buf);

#endif
