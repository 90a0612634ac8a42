/*
 * Internal to the CUDA module: the ensembles' batched Ising kernels and their host side
 * (lib/box.h, a batch of members; doc/ensembles.md). One launch per colour covers every
 * member of an ensemble: the grid runs over members x Philox blocks, each member's device
 * pointers and seed in a device array, each site updated by the very per-block rule of the
 * CPU reference (lib/ising_rules.h), so every member is bit for bit its standalone sim.
 */
#ifndef LATMC_CUDA_ISING_BATCH_H
#define LATMC_CUDA_ISING_BATCH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "ising.h"
#include "rng_streams.h" /* struct latmc_rng_name */
#include "ising_packed.h"
#include "lattice_numbering.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Tempering's state and round (exec/cuda_temper.h), as the launchers below take them. */
struct cuda_ens_temper_dev;
struct cuda_ens_round;

/* One member of a batched Ising launch. */
struct cuda_ens_ising_member {
    int8_t *spins;                           /* byte layout, natural site order */
    const int8_t *eps;                       /* +-J couplings eps[ndim i + mu]; NULL uniform */
    const struct latmc_ising_tables *tables; /* the device copy of the core's tables */
    uint64_t seed;
};

/* Colour `colour` of all n_members members (device array `members`, one lattice shape,
 * uniform or all +-J as `coupled` says), one launch, its draws named `name` (the step's,
 * latmc_ising_rng_name of the sweep and colour: built once by the caller); the spins of
 * member m that changed are added to changed[m] (device counters). */
cudaError_t cuda_ens_ising_sweep_colour(cudaStream_t stream, const struct latmc_lattice *g,
                                        const struct cuda_ens_ising_member *members,
                                        int64_t n_members, int coupled, int algorithm,
                                        struct latmc_rng_name name, int colour,
                                        unsigned long long *changed);

/* LATMC_ENS_ISING_FUSED=0: whole sweeps as a launch a colour, never the fused kernels
 * (read at each call; the tests run both). */
static inline bool cuda_ens_fused_off(void)
{
    const char *env = getenv("LATMC_ENS_ISING_FUSED");
    return env && strcmp(env, "0") == 0;
}

/* The fused byte kernel (ising_batch_bytes_kernels.cu) takes members of this lattice on
 * this device: a block a member, its spins, couplings and tables in shared memory (the
 * device's opt-in; not under LATMC_ENS_ISING_FUSED=0). */
bool cuda_ens_ising_fused_fits(const struct latmc_lattice *g, int coupled, int device);

/* n_sweeps sweeps (sweep0 on) of every member on the fused byte kernel: the chain of
 * cuda_ens_ising_sweep_colour for each colour in turn, each pass named
 * latmc_ising_rng_name(sweep, colour); changed[m] gains member m's flips. sums != NULL:
 * sums[m] is set to member m's sums after the last sweep (cuda_ens_ising_measure's). */
cudaError_t cuda_ens_ising_sweeps(cudaStream_t stream, const struct latmc_lattice *g,
                                  const struct cuda_ens_ising_member *members,
                                  int64_t n_members, int coupled, int algorithm,
                                  uint64_t sweep0, uint64_t n_sweeps,
                                  unsigned long long *changed, struct latmc_ising_sums *sums);

/*
 * One member of a packed batched launch (ising_batch_packed_kernels.cu): the member's own packed
 * arrays (ising_packed.h's layout), its +-J coupling words per colour (NULL: uniform), its
 * thresholds (at its own beta) and seed. Any L_x a multiple of 16: the kernel takes one
 * to eight words of a colour per thread, each with its own neighbours (L_x = 16 is one
 * word a row).
 */
struct cuda_ens_packed_member {
    uint32_t *colour[2];
    const uint32_t *eps[2];
    uint64_t seed;
    struct cuda_ising_packed_thresholds thr;
};

/* Colour `colour` of all members, its draws named `name` (as above), one launch, as the
 * single-lattice packed kernels would do it member by member (the same draws and
 * decisions); changed as above. */
cudaError_t cuda_ens_packed_sweep_colour(cudaStream_t stream, const struct latmc_lattice *g,
                                         const struct cuda_ens_packed_member *members,
                                         int64_t n_members, int coupled, int algorithm,
                                         struct latmc_rng_name name, int colour,
                                         unsigned long long *changed);

/* The sums of lib/ising.h of every member from its packed arrays (one block per member
 * where the fused kernel takes the lattice, else several), into sums[m] (zeroed by the
 * caller): each exactly the packed layout's measurement's / cuda_ising_measure's. */
cudaError_t cuda_ens_packed_measure(cudaStream_t stream, const struct latmc_lattice *g,
                                    const struct cuda_ens_packed_member *members,
                                    int64_t n_members, int coupled,
                                    struct latmc_ising_sums *sums);

/* The fused kernel takes members of this lattice on this device: at most 2048 words a
 * colour (16^3, 2D 128^2, 32^3), or up to 16384 (48^3, 64^3, 2D 512^2) whose two colour
 * arrays fit the device's opt-in shared memory of a block. */
bool cuda_ens_packed_fused_fits(const struct latmc_lattice *g, int device);
/* Whether it takes them in its STREAM form (past 2048 words a colour), whose launch loads
 * a member's words and couplings at a cost that a round after every sweep does not repay
 * (one H200, 512 x 48^3 +-J: 393 flips/ns against the colour launches' 414). */
bool cuda_ens_packed_fused_stream(const struct latmc_lattice *g);

/* n_sweeps sweeps (sweeps sweep0 ..) of all members with the fused kernel: one block per
 * member runs both colours of up to 1024 sweeps a launch, its spins in shared memory;
 * the same chain as cuda_ens_packed_sweep_colour for each colour in turn (each pass's
 * draws named in the kernel by latmc_ising_rng_name of its sweep and colour). changed[m]
 * gains member m's flips; with clear, it is set to them (no clearing launch needed). With
 * sums not NULL the last launch also writes each member's sums after the last sweep into
 * sums[m] (exactly cuda_ens_packed_measure's; no clearing needed). */
cudaError_t cuda_ens_packed_sweeps(cudaStream_t stream, const struct latmc_lattice *g,
                                   const struct cuda_ens_packed_member *members,
                                   int64_t n_members, int coupled, int algorithm,
                                   uint64_t sweep0, uint64_t n_sweeps,
                                   unsigned long long *changed, int clear,
                                   struct latmc_ising_sums *sums);

/* Tempering on the device (exec/cuda_temper.h; its host side cuda_ising_temper.c; the
 * round's kernels in ising_batch_temper_kernels.cu, of exec/cuda_temper_round.cuh): the
 * state's part of each temperature is the members' thresholds (packed) or decision tables
 * (bytes), its sums of each member a struct latmc_ising_sums. One exchange round of every
 * (sample, replica) chain, one warp a chain: the decisions, the map's moves, each moved
 * member's thresholds in members[] (its new temperature's part), the acceptance per pair
 * and the round trips. */
cudaError_t cuda_ens_exchange_round(cudaStream_t stream, const struct cuda_ens_temper_dev *d,
                                    const struct cuda_ens_round *r,
                                    struct cuda_ens_packed_member *members);

/*
 * Tempering with the chains resident (ising_batch_temper_kernels.cu): one block per (sample,
 * replica) chain keeps the chain's nT members in shared memory through every sweep and
 * round of a list -- the same chain as the fused kernel plus cuda_ens_exchange_round, with
 * no launch, reload or host step per round. A list is segments of whole sweeps (sweep0 on,
 * consecutive), each followed by a round or not; changed[m] is set to (clear) or gains
 * member m's flips.
 */
#define CUDA_ENS_CHAIN_SEGMENTS 64
#define CUDA_ENS_CHAIN_MAX_SWEEPS 1024 /* sweeps per launch: a launch stays short */
struct cuda_ens_chain_geom {
    uint32_t wpr, ly, lz, words; /* ens_packed_geom's */
    int ndim, coupled, heatbath;
};
struct cuda_ens_chain_list {
    uint64_t sweep0;
    int n, clear;
    uint32_t n_sweeps[CUDA_ENS_CHAIN_SEGMENTS];
    uint32_t round_after[CUDA_ENS_CHAIN_SEGMENTS];
    uint64_t round[CUDA_ENS_CHAIN_SEGMENTS];        /* the round's number */
    uint64_t round_sweeps[CUDA_ENS_CHAIN_SEGMENTS]; /* the ensemble's sweeps at it */
};
struct cuda_ens_chain_geom cuda_ens_chain_geom_of(const struct latmc_lattice *g, int coupled,
                                                  int algorithm);
/* Shared memory bytes a block needs (the caller checks the device's limit; members of a
 * multiple of 32 words a colour, at most 1024). */
uint32_t cuda_ens_chain_shared(const struct cuda_ens_chain_geom *g, int n_temperatures);
/* One launch of the list (r: the rounds' constants; its round and sweeps unused); with
 * blocks_per_sm not NULL nothing runs: the blocks an SM holds at once go there. */
cudaError_t cuda_ens_chain_run(cudaStream_t stream, const struct cuda_ens_chain_geom *g,
                               const struct cuda_ens_temper_dev *d, const struct cuda_ens_round *r,
                               const struct cuda_ens_chain_list *list,
                               struct cuda_ens_packed_member *members,
                               unsigned long long *changed, int *blocks_per_sm);

/* The same for members of the byte layout: each temperature's decision tables
 * (struct latmc_ising_tables) at d's param_of_t, a move pointing the member's `tables`
 * at its new temperature's; and every member pointed at its temperature's. */
cudaError_t cuda_ens_bytes_exchange_round(cudaStream_t stream, const struct cuda_ens_temper_dev *d,
                                          const struct cuda_ens_round *r,
                                          struct cuda_ens_ising_member *members);
cudaError_t cuda_ens_bytes_temper_tables(cudaStream_t stream, const struct cuda_ens_temper_dev *d,
                                         struct cuda_ens_ising_member *members, int64_t n);

/* Every member's thresholds those of its temperature (after a table upload from the
 * host, whose members' parameters lag behind the device's map). */
cudaError_t cuda_ens_temper_thresholds(cudaStream_t stream, const struct cuda_ens_temper_dev *d,
                                       struct cuda_ens_packed_member *members, int64_t n);

/* The sums of lib/ising.h of every member from its bytes (ising_batch_bytes_kernels.cu), one
 * block per member, into sums[m] (zeroed by the caller): each exactly cuda_ising_measure's. */
cudaError_t cuda_ens_ising_measure(cudaStream_t stream, const struct latmc_lattice *g,
                                   const struct cuda_ens_ising_member *members,
                                   int64_t n_members, struct latmc_ising_sums *sums);

/* The overlap sums of the pairs of members pairs[2k], pairs[2k + 1] (indices into the
 * member table, k < n_pairs; ising_batch_overlaps_kernels.cu): q[k] = sum_i s_i^a s_i^b and
 * ql[k] = sum_{i,mu} s_i^a s_i^b s_{i+mu}^a s_{i+mu}^b as two's-complement 64-bit
 * integers, added to q and ql (zeroed by the caller); one block per pair. From the
 * members' bytes or from their packed arrays. */
cudaError_t cuda_ens_overlaps_bytes(cudaStream_t stream, const struct latmc_lattice *g,
                                    const struct cuda_ens_ising_member *members,
                                    const int32_t *pairs, int64_t n_pairs,
                                    unsigned long long *q, unsigned long long *ql);
cudaError_t cuda_ens_overlaps_packed(cudaStream_t stream, const struct latmc_lattice *g,
                                     const struct cuda_ens_packed_member *members,
                                     const int32_t *pairs, int64_t n_pairs,
                                     unsigned long long *q, unsigned long long *ql);

#ifdef __cplusplus
}

#else /* the C side */

#include "box.h"
#include "internal.h" /* latmc_sim */

/* cuda_ising_batch.c, for cuda_ising_temper.c: the members' table ready on the
 * device (as a batched sweep prepares it, on its lead's stream): the packed table, or the
 * byte layout's (packed false: bytes, bytes_host instead of dev, host). */
struct cuda_ens_ready {
    bool packed;                               /* the packed table (else the byte one) */
    struct cuda_ens_packed_member *dev;        /* the table on the device */
    const struct cuda_ens_packed_member *host; /* the host's copy of what it uploaded */
    struct cuda_ens_ising_member *bytes;       /* the byte layout's: the same */
    const struct cuda_ens_ising_member *bytes_host;
    unsigned long long *dev_changed;           /* n counters after the table */
    unsigned long long *changed;               /* n host counters (page-locked if it can) */
    int coupled;
    uint64_t uploads;                          /* the batch's table uploads so far */
    bool aligned16;                            /* every member's arrays at a multiple of 16
                                                  bytes (worked out once per table) */
    bool fused;                                /* the fused kernel takes the members (else
                                                  their sweeps are colour launches) */
    bool stream;                               /* ... in its STREAM form
                                                  (cuda_ens_packed_fused_stream) */
};
int cuda_ens_packed_ready(latmc_sim *const *members, int n, struct cuda_ens_ready *out);

/* n_sweeps whole sweeps (sweep0 on) of every member as launches of one colour each (the
 * per-colour kernels of the packed table or of the byte table, as use_packed says), each
 * step's draws named as the plan names them (latmc_ising_rng_name): the chain of the
 * plan's colour steps, for members the fused kernel does not take. changed[m] gains
 * member m's flips. */
cudaError_t cuda_ens_colour_sweeps(cudaStream_t stream, const struct latmc_lattice *g,
                                   const void *table, bool use_packed, int n, int coupled,
                                   int algorithm, uint64_t sweep0, uint64_t n_sweeps,
                                   unsigned long long *changed);
/* The same for members of the byte layout on `device`: the fused byte kernel where it
 * takes them (cuda_ens_ising_fused_fits), else a launch a colour. With `sums`, where the
 * fused kernel runs them, it leaves the members' sums there and *measured (measured not
 * NULL) is true. */
cudaError_t cuda_ens_bytes_sweeps(cudaStream_t stream, const struct latmc_lattice *g,
                                  int device, const struct cuda_ens_ising_member *table, int n,
                                  int coupled, int algorithm, uint64_t sweep0,
                                  uint64_t n_sweeps, unsigned long long *changed,
                                  struct latmc_ising_sums *sums, bool *measured);
/* After a failed tempering list (cuda_ising_temper.c): the next call uploads the table, whose
 * host copy may not say what the rounds left on the device. */
void cuda_ens_packed_table_moved(latmc_sim *const *members, int n);
/* After the map's fetch: a byte table's entries point at the state's tables, its host
 * copy at the members' own, so the next call uploads it (a packed table's entries are
 * values, which the core's swaps patch: nothing to do). */
void cuda_ens_bytes_table_fetched(latmc_sim *const *members, int n);

#endif

#endif
