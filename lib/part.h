/*
 * Internal: a sim that is one part of a lattice shared by cooperating processes
 * (include/latmc/part.h, doc/mpi.md). The part's slab is plan->boxes[rank]; the transport
 * carries halos, tiles and configurations between the parts.
 *
 * Storage: a part's backend updates only its slab (ops.run_step on its one box) and
 * receives its neighbours' border planes as halos. The CPU backend holds only the slab and
 * its halos (every model; Potts, phi^4 and Heisenberg hold some planes more under the lower
 * halo, never read, so that the local colouring and random-number blocks line up with the
 * global ones: backends/cpu/cpu_backend.h, struct cpu_slab); another backend may hold the whole
 * lattice, whose planes beyond the halos are then stale and never read. The per-plane ops
 * (measure_planes, get_planes, set_planes, get_coupling_planes) are all this code uses of
 * a configuration, so either storage works the same here.
 *
 * Every collective function below follows one pattern, so that a failure on one part never
 * leaves another waiting: the local work's failure is latched, the communication runs in
 * full on every part anyway, and the status is agreed at the end (latmc_part_agree).
 */
#ifndef LATMC_LIB_PART_H
#define LATMC_LIB_PART_H

#include <latmc/part.h>

#include <stdint.h>

#include "internal.h"

struct latmc_part {
    int rank, n_parts;
    latmc_transport tr;
    int64_t p0, p1;           /* this part's planes [p0, p1) along the last axis */
    int64_t planes;           /* planes along the last axis */
    int halo;                 /* planes exchanged at each end */
    size_t plane_bytes;       /* one plane of every replica (get_planes' layout) */
    int64_t *first;           /* n_parts + 1 entries: part p owns [first[p], first[p + 1]) */
    unsigned char *halo_buf;  /* 4 halo-plane buffers */
    size_t *gather_bytes;     /* n_parts entries: the byte counts of one gather */
    /* Appended: the whole state gathered for a checkpoint (latmc_part_collect), on the
     * parts that receive it: the configuration in get_spins' layout (NULL: none) and the
     * couplings in get_couplings' (NULL: none), read by checkpoint.c instead of the
     * backend's whole-lattice copies, which a part that stores its slab only has not. */
    unsigned char *staged_spins;
    float *staged_couplings;
    /* Appended: halos in memory shared with the neighbours (transport.share_halos, set up
     * at creation): the buffers of both sets (send[2k] to the lower neighbour, send[2k + 1]
     * to the upper; recv[2k], recv[2k + 1] from them, the neighbours' own send buffers),
     * and the set that the next exchange uses. A backend may recognise them
     * (latmc_part_is_halo_buffer) to copy straight between its device and them. */
    bool shared;
    int shared_set;
    void *shared_send[4], *shared_recv[4];
    /* Appended: room for an agreement (latmc_part_agree), n_parts votes and their byte
     * counts, allocated with the part so that no agreement allocates (a part that could
     * not would return without taking part, the others left waiting). */
    void *votes;
    size_t *vote_bytes;
    /* Appended: a device's Swendsen-Wang clusters joined across the parts
     * (lib/cluster_part_steps.c): this part's face record then every part's, each
     * face_bytes (a status word and the backend's record, ops.cluster_faces, whose size
     * may change with the parameters: set before every call of sweeps by
     * latmc_cluster_part_ready, which allocates them, NULL until then, for records of up
     * to faces_room bytes). */
    unsigned char *faces;
    size_t face_bytes;
    size_t faces_room; /* appended */
    /* Appended: the record's bytes with the cluster statistics (LATMC_CLUSTER_FACES_STATS,
     * a status word included; set with face_bytes), and the sweep whose join carries them:
     * the last of the call of sweeps in progress (latmc_part_sweep), whose clusters the
     * cluster observables describe. */
    size_t stats_face_bytes;
    uint64_t stats_sweep;
};

/* Whether [buf, buf + bytes) lies in one of the part's halo buffers (the 4 of halo_buf, or
 * one of the shared ones): memory that only the halo exchange uses. *region and
 * *region_bytes: the buffer it lies in (halo_buf counts as one), for page-locking. Inline:
 * backend modules, which never link liblatmc, use it. */
static inline bool latmc_part_is_halo_buffer(const struct latmc_part *part, const void *buf,
                                             size_t bytes, void **region,
                                             size_t *region_bytes)
{
    const size_t one = (size_t)part->halo * part->plane_bytes;
    const uintptr_t b = (uintptr_t)buf;
    /* halo_buf (4 buffers of one side's halo planes), then each shared buffer */
    unsigned char *regions[9] = { part->halo_buf };
    size_t sizes[9] = { 4 * one };
    int n = 1;
    for (int k = 0; part->shared && k < 4; k++) {
        regions[n] = part->shared_send[k];
        sizes[n++] = one;
        regions[n] = part->shared_recv[k];
        sizes[n++] = one;
    }
    for (int k = 0; k < n; k++) {
        const uintptr_t h = (uintptr_t)regions[k];
        if (h && bytes <= sizes[k] && b >= h && b - h <= sizes[k] - bytes) {
            *region = regions[k];
            *region_bytes = sizes[k];
            return true;
        }
    }
    return false;
}

/* Whether the sim is a part of n_parts > 1 (the collective paths below are needed). */
static inline bool latmc_part_many(const latmc_sim *sim)
{
    return sim->part && sim->part->n_parts > 1;
}

/* Agree on a status: every part gets the first failing part's (its message naming that
 * part), or LATMC_OK. A no-op (returns status) for an ordinary sim. */
int latmc_part_agree(latmc_sim *sim, int status);

/* latmc_part_agree before a sweep: the parts' parameters are also compared (bit for bit;
 * a difference is LATMC_EINVAL on every part, naming the first part and parameter). */
int latmc_part_agree_params(latmc_sim *sim, int status);

/* latmc_part_agree, also adding count[0] and count[1] over the parts (in part order):
 * every part gets the sums. */
int latmc_part_agree_counts(latmc_sim *sim, int status, uint64_t count[2]);

void latmc_part_free(struct latmc_part *part);

/* Outside a sweep, after this part's own planes were set (a streamed load): every plane
 * the backend keeps beyond each end of the slab from its neighbours, the model's halo
 * and those of ops.part_halo_depth beyond it (collective, n_parts > 1). */
int latmc_part_fill_halos(latmc_sim *sim);

/* The collective forms of the sim's calls (n_parts > 1; latmc_part_many). */
int latmc_part_sweep(latmc_sim *sim, uint64_t n, uint64_t *accepted, uint64_t *attempted);
int latmc_part_measure(latmc_sim *sim, void *sums);
/* The Fourier modes' tiles of every part, added in plane order (lib/modes.h). */
int latmc_part_modes(latmc_sim *sim, double *modes);
/* latmc_part_measure and latmc_part_modes from one pass of each part's backend where it
 * can (ops.measure_planes_modes; Ising and Potts: the projections). */
int latmc_part_measure_modes(latmc_sim *sim, void *sums, double *modes);
int latmc_part_get_spins(latmc_sim *sim, void *buf);
int latmc_part_set_spins(latmc_sim *sim, const void *buf);
/* Every part's slab (configuration and couplings) into host buffers on part root (root < 0:
 * on every part), part->staged_*, so that the ordinary whole-lattice code (checkpoints)
 * may run there; latmc_part_unstage frees them. */
int latmc_part_collect(latmc_sim *sim, int root);
void latmc_part_unstage(latmc_sim *sim);
/* latmc_sim_get_couplings of a part (n_parts > 1): every part's couplings to every part. */
int latmc_part_get_couplings(latmc_sim *sim, float *buf);

/* A sim whose cluster sweeps run as steps of the plan on a device (lib/cluster_steps.c),
 * on parts: latmc_cluster_part_ready, before the sweeps (its failure agreed on with the
 * parameters), makes room for the joins; latmc_cluster_part_join, after each label step
 * (the part halo table's exchange), gathers every part's face record (ops.cluster_faces)
 * to every part, which joins them all (collective: runs in full whatever `status`, the
 * step's; a part that failed sends no record, and then no part joins). stats: the join of
 * the call's last sweep, whose records carry what every part needs to count the clusters
 * (LATMC_CLUSTER_FACES_STATS: the cluster observables, with no message at their reads). */
int latmc_cluster_part_ready(latmc_sim *sim);
int latmc_cluster_part_join(latmc_sim *sim, int status, bool stats);

/* The transport's gather and broadcast with its status checked (a failure recorded,
 * `what` naming it): LATMC_OK or a negative status. */
int latmc_part_gather(struct latmc_part *part, const char *what, int root, const void *mine,
                      void *all, const size_t *bytes);
int latmc_part_broadcast(struct latmc_part *part, const char *what, int root, void *buf,
                         size_t bytes);
/* The transport's exchange (to_lower to the lower neighbour, from_upper from the upper
 * one, ...) with its status checked, for buffers other than the halo planes (the cluster
 * updates' halo plane of spins). Collective. */
int latmc_part_exchange(struct latmc_part *part, const char *what, const void *to_lower,
                        const void *to_upper, void *from_lower, void *from_upper,
                        size_t bytes);
/* A transport's struct_size and operations (latmc_sim_create_part's checks, no
 * communication). */
int latmc_part_check_transport(const latmc_transport *t);
/* Whether the backend has ops.get_coupling_planes (it may still answer
 * LATMC_EUNSUPPORTED: then every part holds the couplings of the whole lattice). */
bool latmc_part_has_coupling_planes(const latmc_sim *sim);
/* The couplings of the part's own sites, get_couplings' layout restricted to its planes
 * (ndim floats a site), at *out + *off: its planes' (get_coupling_planes) where the
 * backend gives them so, else the whole lattice's (get_couplings). *out is the caller's
 * to free (NULL on failure). The cluster updates of parts read them (lib/cluster_part.c,
 * lib/cluster_embed_part.c). */
int latmc_part_own_couplings(latmc_sim *sim, float **out, size_t *off);

/* latmc_sim_create (lib/sim.c) of a sim that is `part` (attached before the backend's
 * create, so that a backend may store its part's way, e.g. CUDA: one box on one device);
 * on failure the part is still the caller's. */
int latmc_sim_create_as_part(latmc_ctx *ctx, const latmc_sim_desc *desc,
                             struct latmc_part *part, latmc_sim **out);

/* latmc_sim_create_part's body, also used by checkpoint.c's latmc_sim_deserialize_part:
 * `prior` < 0 is a failure of this part before the creation (desc then unused), agreed
 * on with the others once the arguments are checked. */
int latmc_part_create(latmc_ctx *ctx, const latmc_sim_desc *desc, int rank, int n_parts,
                      const latmc_transport *transport, int prior, latmc_sim **out);

#endif
