/**
 * @file latmc/part.h
 * @brief liblatmc — one lattice shared by cooperating processes: a sim that is part `rank`
 * of `n_parts` of one global lattice, talking to the other parts through a transport the
 * caller supplies (doc/mpi.md).
 *
 * liblatmc itself never links a communication library. liblatmc_mpi
 * (`latmc/latmc_mpi.h`) fills this transport with MPI; any other transport (sockets, a
 * test harness of threads) works the same way.
 *
 * The lattice is cut into n_parts slabs along its last axis (y in 2D, z in 3D), the cut of
 * latmc_sim_desc.n_parts (doc/architecture.md): part `rank` updates slab `rank`. Every
 * random number is named by the global site and the sweep, so the configuration, every
 * observable and the acceptance after n sweeps are bit-identical for any n_parts, and equal
 * to those of one ordinary sim; checkpoints are the ordinary format (a file saved by 4 parts
 * loads as an ordinary sim or as any number of parts).
 *
 * Collective calls: on a part sim every call that changes or reads the configuration
 * (latmc_sim_init_spins, _sweep, _observable, _get_spins, _set_spins, _get_couplings,
 * _set_couplings, _tune_epsilon, _save, _save_app_data, _serialize; latmc_sim_load_part)
 * is collective: every part must make
 * the same calls, in the same order, with the same arguments; each returns the same status
 * on every part (a failure on one part is that failure on every part, its message naming
 * the part). Calls that only read or set the sim's own state (parameters, counters, desc,
 * names, messages) are local, but parameters must be set alike on every part:
 * latmc_sim_sweep compares them across the parts before it runs (no extra message: in
 * the agreement it makes anyway), and a difference fails it with LATMC_EINVAL on every
 * part, naming the first part and parameter that differ from part 0's.
 *
 * @since 0.2
 */
#ifndef LATMC_PART_H
#define LATMC_PART_H

#include <latmc/defs.h>
#include <latmc/ctx.h>
#include <latmc/sim.h>

LATMC_BEGIN_DECLS

/**
 * How the parts of one lattice talk to each other. Filled by the caller (set struct_size =
 * sizeof first, and every operation); copied by latmc_sim_create_part(). Every operation
 * is called on every part at the same point of the same call (it may block until the
 * others arrive), returns 0 on success or a negative LATMC_E* code (then the part sim
 * returns it, with the message the operation recorded through latmc_record_failure(), or a
 * generic one); any other value (a positive one, an unknown code) is the transport's bug
 * and fails the call with LATMC_EBACKEND. A gather must deliver every part's contribution,
 * the calling part's own included: one that does not fails the call (LATMC_EBACKEND, or
 * the part's own failure). A transport that cannot fail cleanly on every part at once (MPI's default
 * error handler) should end the job instead: a part left waiting cannot be freed. Buffers are host memory. Parts are numbered 0 .. n_parts - 1; part
 * rank's lower neighbour is rank - 1 and its upper rank + 1, both modulo n_parts (the
 * lattice is periodic).
 * @since 0.2
 */
typedef struct latmc_transport {
    uint32_t struct_size; /**< sizeof(latmc_transport) */
    void *user;           /**< passed to every operation */
    /**
     * Halo exchange: send `bytes` bytes from to_lower to the lower neighbour and from
     * to_upper to the upper one; receive into from_lower what the lower neighbour sent
     * upwards and into from_upper what the upper one sent downwards. Returns when every
     * buffer may be reused. Never called with n_parts = 1.
     */
    int (*exchange)(void *user, const void *to_lower, const void *to_upper, void *from_lower,
                    void *from_upper, size_t bytes);
    /**
     * Gather: part p contributes `mine`, bytes[p] bytes (bytes has n_parts entries, the same
     * on every part); the contributions arrive concatenated in part order in `all`
     * (sum of bytes[] bytes) on part `root`, or on every part when root < 0. `all` is unused
     * (may be NULL) on the other parts.
     */
    int (*gather)(void *user, int root, const void *mine, void *all, const size_t *bytes);
    /** Broadcast: `bytes` bytes of `buf` from part `root` into `buf` of every part. */
    int (*broadcast)(void *user, int root, void *buf, size_t bytes);
    /**
     * Optional (NULL: nothing to do): called by latmc_sim_destroy() on the part sim, the
     * last use of `user`. Never called by a create that fails: `user` is then still the
     * caller's.
     */
    void (*release)(void *user);
    /**
     * Optional (NULL, or a struct_size that ends before it, an older header's: halos go
     * by exchange; set with sync_halos or not at all): halo buffers in memory that this
     * part shares with its neighbours (liblatmc_mpi: MPI-3 shared memory, where every
     * rank is on one node), so that a border plane is written once, straight into memory
     * its neighbour reads (a GPU copies it there by DMA), and the exchange is a handshake
     * (sync_halos) instead of a copy. Called once at the creation of a part sim
     * (latmc_sim_create_part() and the other part constructors), on every part (n_parts >
     * 1), after every part's creation has succeeded so far, with the
     * bytes one side's halo planes take (the same on every part). Returns 1 having filled,
     * for the two sets k = 0, 1 that the exchanges use in turn: send[2k] (what goes to the
     * lower neighbour), send[2k + 1] (to the upper one), recv[2k] (the lower neighbour's
     * send[2k + 1]) and recv[2k + 1] (the upper one's send[2k]), each `bytes` long and
     * valid until release; 0: not available (exchange is used; every part must give the
     * same answer, else the create fails with LATMC_EBACKEND on every part); or a negative
     * LATMC_E* code (the create fails).
     * @since 0.2
     */
    int (*share_halos)(void *user, size_t bytes, void *send[4], void *recv[4]);
    /**
     * With share_halos: this part has written send[2 set] and send[2 set + 1] (set 0 or 1,
     * in turn); returns once both neighbours have written theirs of the same set, so that
     * recv[2 set] and recv[2 set + 1] hold them (the writes made visible, e.g.
     * MPI_Win_sync). A part has read its recv buffers of a set before its next
     * sync_halos call, so a neighbour that returns from that call may write its send
     * buffers of the other set, and of this set one exchange later.
     * @since 0.2
     */
    int (*sync_halos)(void *user, int set);
} latmc_transport;

/**
 * Create part `rank` of `n_parts` of the sim described by desc. Collective: every part
 * calls it with the same desc (compared across the parts: a difference is LATMC_EINVAL on
 * every part, naming the first part that differs). desc.n_parts must be 0 or n_parts; the
 * sim's desc (latmc_sim_get_desc()) has n_parts = n_parts. The rules of desc.n_parts hold
 * (LATMC_EINVAL: a slab thinner than the model's halo or colouring allows;
 * LATMC_EUNSUPPORTED: a model or backend that runs as one box only).
 *
 * Storage: each part holds its slab and halo planes only (CPU backend, every model; GPU
 * ranks likewise, doc/mpi.md); latmc_sim_save() and latmc_sim_load_part() stream the
 * checkpoint in chunks of planes, so no part holds the whole lattice for them either
 * (latmc_sim_get_spins, _get_couplings and _serialize return the whole lattice by design).
 *
 * @param[in]  ctx       the context.
 * @param[in]  desc      the sim's desc, the same on every part.
 * @param[in]  rank      this part, 0 <= rank < n_parts.
 * @param[in]  n_parts   how many parts, >= 1.
 * @param[in]  transport filled as above; copied (the sim owns `user` from a successful
 *                       create on: latmc_sim_destroy() calls release).
 * @param[out] out       the part sim.
 * @return LATMC_OK, or the failure of any part (the same status on every part once the
 *         arguments themselves are valid); LATMC_EINVAL without any communication for
 *         NULL arguments, a rank outside [0, n_parts), or a transport with a struct_size
 *         other than this version's (or larger with unknown fields set) or a NULL
 *         operation other than release.
 * @since 0.2
 */
LATMC_API int latmc_sim_create_part(latmc_ctx *ctx, const latmc_sim_desc *desc, int rank,
                                    int n_parts, const latmc_transport *transport,
                                    latmc_sim **out);

/**
 * latmc_sim_deserialize() as part `rank` of `n_parts`: every part passes the same
 * checkpoint bytes (e.g. read by one part and broadcast), so every part holds the whole
 * state once; latmc_sim_load_part() streams a file instead. Collective, like
 * latmc_sim_create_part(); the stored desc's n_parts is ignored (checkpoints do not store it).
 * @param[in]  rank      this part, 0 <= rank < n_parts.
 * @param[in]  n_parts   how many parts, >= 1 (an ordinary sim: latmc_sim_deserialize()).
 * @return LATMC_OK, or the same failure on every part: LATMC_ECORRUPT, LATMC_ENOMEM,
 *         LATMC_EUNSUPPORTED, and those of latmc_sim_create_part(); LATMC_EINVAL without
 *         any communication for NULL arguments, n_parts < 1, a rank outside [0, n_parts)
 *         or a transport latmc_sim_create_part() refuses.
 * @since 0.2
 */
LATMC_API int latmc_sim_deserialize_part(latmc_ctx *ctx, const void *buf, size_t size,
                                         int rank, int n_parts,
                                         const latmc_transport *transport, latmc_sim **out);

/**
 * latmc_sim_load() as part `rank` of `n_parts`: part 0 reads the checkpoint file `path`
 * (any checkpoint: saved by an ordinary sim or by any number of parts) and sends each
 * part only the planes of its slab, in chunks of a few MiB, so that no part holds the
 * whole lattice (doc/mpi.md, "Checkpoints"). The file is checked as latmc_sim_load()
 * checks it (sizes, desc, values, the checksum as it is read), with its verdict: a damaged
 * file is a checksum mismatch whatever else the damage makes of it, and a crafted one's
 * first finding in latmc_sim_load()'s order; any failure leaves no sim.
 * Collective, like latmc_sim_create_part(); `path` is read on part 0 only (it must not be
 * NULL on any part). The sim continues the saved chain bit-identically.
 * @param[in]  rank      this part, 0 <= rank < n_parts.
 * @param[in]  n_parts   how many parts, >= 1 (an ordinary sim: latmc_sim_load()).
 * @return LATMC_OK, or the same failure on every part: LATMC_EIO (part 0 cannot read the
 *         file), LATMC_ECORRUPT, LATMC_ENOMEM, LATMC_EUNSUPPORTED (a file of format
 *         version 3, the Ising decisions = 1 chain, on parts whose backend does not run
 *         that chain: it is never continued as another), and those of
 *         latmc_sim_create_part();
 *         LATMC_EINVAL without any communication for NULL arguments, n_parts < 1, a
 *         rank outside [0, n_parts) or a transport latmc_sim_create_part() refuses.
 * @since 0.2
 */
LATMC_API int latmc_sim_load_part(latmc_ctx *ctx, const char *path, int rank, int n_parts,
                                  const latmc_transport *transport, latmc_sim **out);

/**
 * Which part a sim is and which planes (along the last axis) it updates: planes
 * [*first_plane, *first_plane + *planes). An ordinary sim is part 0 of 1 with every plane.
 * Any output may be NULL.
 * @return LATMC_OK; LATMC_EINVAL (sim NULL).
 * @note Thread-safe as a const call.
 * @since 0.2
 */
LATMC_API int latmc_sim_part_info(const latmc_sim *sim, int *rank, int *n_parts,
                                  int64_t *first_plane, int64_t *planes);

/**
 * Record a failure as the calling thread's last error (latmc_last_error()): for transports
 * (an operation that fails sets its message this way before returning the status) and
 * libraries layered over liblatmc (liblatmc_mpi).
 * @param status  a negative LATMC_E* code (anything else is recorded as LATMC_EINVAL).
 * @param message the text; NULL is recorded as "(no message)".
 * @return the status recorded.
 * @note Thread-safe (the message is the thread's).
 * @since 0.2
 */
LATMC_API int latmc_record_failure(int status, const char *message);

LATMC_END_DECLS

#endif
