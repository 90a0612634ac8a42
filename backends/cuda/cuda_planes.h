/*
 * Internal to the CUDA module: a one-device sim as one part of a lattice shared by
 * processes (lib/part.h, doc/mpi.md "GPU ranks"). The sim stores only its slab and halo
 * planes on its device, like a CPU part (cuda_planes_part_kernels, below);
 * run_step updates only the part's box (its slab of planes), and
 * the per-plane ops (lib/backend.h) move planes between the device and the host in the
 * CPU's get_planes layout, so CPU and GPU parts give one chain.
 *
 * Models: phi^4 on the site-order schedule (cuda_planes_phi4.c, the slabs' kernels);
 * Ising, Potts and Heisenberg parts run on the one executor (exec/cuda_exec.c);
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

/* phi^4 (cuda_planes_phi4.c): the sim's plan and keys (LATMC_EUNSUPPORTED, saying why,
 * for the chunk schedule); the window (scratch) of a range of `planes` planes near an end
 * of the lattice; the update of the step on planes [q0, q1); move: get (get_buf) or set
 * (set_buf) planes [p0, p1), enqueued on `stream`. */
struct cuda_phi4_plan;
struct cuda_phi4_keys;
int cuda_planes_phi4_plan(latmc_sim *sim, struct cuda_phi4_plan *plan,
                          struct cuda_phi4_keys *keys);
cudaError_t cuda_planes_phi4_update(const latmc_sim *sim, struct cuda_sim *cs,
                                    const struct cuda_phi4_plan *plan,
                                    const struct cuda_phi4_keys *keys, cudaStream_t stream,
                                    int64_t q0, int64_t q1, uint64_t sweep,
                                    const struct latmc_step *step);
uint64_t cuda_planes_phi4_attempted(const latmc_sim *sim, int64_t sites);
int cuda_planes_phi4_measure(latmc_sim *sim, const struct cuda_phi4_plan *plan, int64_t p0,
                             int64_t p1, void *sums);
size_t cuda_planes_phi4_plane_bytes(const struct cuda_sim *cs,
                                    const struct cuda_phi4_plan *plan);
cudaError_t cuda_planes_phi4_move(const struct cuda_sim *cs, const struct cuda_phi4_plan *plan,
                                  cudaStream_t stream, int64_t p0, int64_t p1, void *get_buf,
                                  const void *set_buf);


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
 * The local planes as runs of consecutive planes (cuda_slab_exec.h's, of the several-GPU
 * slabs), for the copies between a slab and the whole lattice's layout: into the slab
 * (the starts, set_spins: halos included) three, the lower halo, the own planes and the
 * upper halo; out of it (own_only: get_spins) one, the own planes. Returns the count.
 */
int cuda_planes_slab_runs(const struct cuda_planes_slab *s, bool own_only,
                          struct cuda_slab_run r[3]);

/*
 * GPU ranks that store their slab only (doc/mpi.md, "GPU ranks"): the kernel table a part
 * of n_parts > 1 runs instead of its model's, chosen at creation (cuda_backend.c), or NULL
 * for any other sim: phi^4 (cuda_planes_phi4.c); Ising, Potts and Heisenberg parts are
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
/* The starts and set/get_spins of a slab kept as the API's values (phi^4), `pb`
 * bytes a plane at cs->spins from local plane 0: the local planes, halos included, from
 * the whole lattice's `host`, or from `hot` (host NULL: the one-device hot start's values
 * of global planes [plane0, plane0 + planes) into dev); or the own planes into `out`
 * (the whole lattice's layout, the other planes untouched). Enqueued on cs->stream. */
typedef cudaError_t (*cuda_planes_hot_fn)(const latmc_sim *sim, struct cuda_sim *cs, void *dev,
                                          int64_t plane0, int64_t planes);
cudaError_t cuda_planes_slab_values(const latmc_sim *sim, struct cuda_sim *cs,
                                    const struct cuda_planes_slab *s, size_t pb,
                                    const void *host, void *out, cuda_planes_hot_fn hot);
const struct cuda_model_kernels *cuda_planes_phi4_part_kernels(const latmc_sim *sim);

/* ops.get_coupling_planes (cuda_planes.c) of a part on the old executors:
 * LATMC_EUNSUPPORTED without a message (phi^4 has no couplings; the core then reads them
 * whole). */
int cuda_planes_get_couplings(latmc_sim *sim, int64_t p0, int64_t p1, float *buf);

#endif
