/*
 * How liblatmc names its random numbers: the Philox key and counter layout shared by
 * every backend. Changing anything here changes every Markov chain: it is part of the
 * reproducibility guarantee (doc/conventions.md, "Random numbers").
 *
 *   key     = (seed & 0xffffffff, seed >> 32)
 *   counter = (c0, c1, c2, c3) with
 *     c0 = block & 0xffffffff                    block: index of a group of 4 draws
 *     c1 = (block >> 32) & 0xffff | (sweep >> 32) << 16
 *     c2 = sweep & 0xffffffff                    sweep: the sim's sweep number
 *     c3 = stream << 24 | phase << 16 | sub      stream: purpose (below); phase: colour;
 *                                                sub: hit / pass index
 * One Philox call yields four 32-bit outputs; draw `lane` (0..3) of a block is output
 * `lane`. Blocks therefore cover at most 2^48 groups (2^50 draws) per (sweep, phase, sub)
 * and sweeps count up to 2^48.
 */
#ifndef LATMC_RNG_STREAMS_H
#define LATMC_RNG_STREAMS_H

#include "philox.h"

/*
 * Stream numbers: what a random number is used for (low 4 bits) and for which replica
 * (high 4 bits: latmc_rng_stream()). Never renumber.
 */
enum latmc_rng_stream {
    LATMC_STREAM_UPDATE    = 0,  /* Monte Carlo updates */
    LATMC_STREAM_INIT      = 1,  /* hot start */
    LATMC_STREAM_COUPLINGS = 2,  /* disorder (keyed by desc.coupling_seed, not desc.seed) */
    LATMC_STREAM_CLUSTER   = 3   /* cluster updates: bonds, cluster decisions, Wolff's seed
                                    (lib/cluster_bonds.h names them) */
};

/* The stream byte of `purpose` for replica `replica` (0 or 1). */
LATMC_HOSTDEV uint32_t latmc_rng_stream(uint32_t purpose, uint32_t replica)
{
    return (purpose & 0xfu) | (replica << 4);
}

/* Largest block index and sweep number the layout can name. */
#define LATMC_RNG_MAX_BLOCK ((UINT64_C(1) << 48) - 1)
#define LATMC_RNG_MAX_SWEEP ((UINT64_C(1) << 48) - 1)

LATMC_HOSTDEV latmc_philox_key latmc_rng_key(uint64_t seed)
{
    latmc_philox_key k;
    k.v[0] = (uint32_t)seed;
    k.v[1] = (uint32_t)(seed >> 32);
    return k;
}

/* Counter word 3 of (stream, phase, sub): the one word a pass's draws may vary besides the
 * block (phi^4's hits and draws, lib/philox_fold.h's second fold). */
LATMC_HOSTDEV uint32_t latmc_rng_word3(uint32_t stream, uint32_t phase, uint32_t sub)
{
    return (stream << 24) | ((phase & 0xffu) << 16) | (sub & 0xffffu);
}

/* Counter word 1 of block `block` from word 1 of block 0 of the same pass: the block's
 * bits 32..47 are its low 16 bits (the kernels that fold a pass's words once and add
 * each group of 2^32 blocks). */
LATMC_HOSTDEV uint32_t latmc_rng_word1_at(uint32_t c1_block0, uint64_t block)
{
    return c1_block0 | ((uint32_t)(block >> 32) & 0xffffu);
}

LATMC_HOSTDEV latmc_philox_ctr latmc_rng_counter(uint64_t block, uint64_t sweep, uint32_t stream,
                                                 uint32_t phase, uint32_t sub)
{
    latmc_philox_ctr c;
    c.v[0] = (uint32_t)block;
    c.v[1] = latmc_rng_word1_at((uint32_t)((sweep >> 32) << 16), block);
    c.v[2] = (uint32_t)sweep;
    c.v[3] = latmc_rng_word3(stream, phase, sub);
    return c;
}

/* The four draws of one block. */
LATMC_HOSTDEV latmc_philox_ctr latmc_rng_block(uint64_t seed, uint64_t block, uint64_t sweep,
                                               uint32_t stream, uint32_t phase, uint32_t sub)
{
    return latmc_philox4x32_10(latmc_rng_counter(block, sweep, stream, phase, sub),
                               latmc_rng_key(seed));
}

/*
 * The name of a pass's draws: counter words 1..3 of its block 0, so that block b's
 * counter is (b mod 2^32, latmc_rng_word1_at(c1, b), c2, c3). An update step carries the
 * name of its first draws (lib/step.h, built once per step by the model's step_of); a
 * kernel takes it from there and derives the names of the step's other draws -- another
 * sub or phase (Potts's acceptance, phi^4's hits, Heisenberg's second angle) or the other
 * replica's stream, all with the same sweep word -- with the functions below, so that no
 * kernel puts a sweep, stream, phase or sub into counter words itself.
 */
struct latmc_rng_name {
    uint32_t c1, c2, c3;
};

/* The name of (sweep, stream, phase, sub): the one place a step's words are built. */
LATMC_HOSTDEV struct latmc_rng_name latmc_rng_name_of(uint64_t sweep, uint32_t stream,
                                                      uint32_t phase, uint32_t sub)
{
    const latmc_philox_ctr c = latmc_rng_counter(0, sweep, stream, phase, sub);
    struct latmc_rng_name n;
    n.c1 = c.v[1];
    n.c2 = c.v[2];
    n.c3 = c.v[3];
    return n;
}

/* The same sweep word and stream, phase `phase` and sub `sub`. */
LATMC_HOSTDEV struct latmc_rng_name latmc_rng_name_at(struct latmc_rng_name n, uint32_t phase,
                                                      uint32_t sub)
{
    n.c3 = latmc_rng_word3(n.c3 >> 24, phase, sub);
    return n;
}

/* The same sweep word, stream and phase, sub `sub`. */
LATMC_HOSTDEV struct latmc_rng_name latmc_rng_name_sub(struct latmc_rng_name n, uint32_t sub)
{
    return latmc_rng_name_at(n, (n.c3 >> 16) & 0xffu, sub);
}

/* The same draws of replica `replica` (the stream's high bits, latmc_rng_stream). */
LATMC_HOSTDEV struct latmc_rng_name latmc_rng_name_replica(struct latmc_rng_name n,
                                                           uint32_t replica)
{
    n.c3 = latmc_rng_word3(latmc_rng_stream((n.c3 >> 24) & 0xfu, replica), (n.c3 >> 16) & 0xffu,
                           n.c3 & 0xffffu);
    return n;
}

/* The counter of block `block` of a name (latmc_rng_counter's words). */
LATMC_HOSTDEV latmc_philox_ctr latmc_rng_name_counter(struct latmc_rng_name n, uint64_t block)
{
    latmc_philox_ctr c;
    c.v[0] = (uint32_t)block;
    c.v[1] = latmc_rng_word1_at(n.c1, block);
    c.v[2] = n.c2;
    c.v[3] = n.c3;
    return c;
}

/* The four draws of block `block` of a name: latmc_rng_block of the same words. */
LATMC_HOSTDEV latmc_philox_ctr latmc_rng_name_block(uint64_t seed, struct latmc_rng_name n,
                                                    uint64_t block)
{
    return latmc_philox4x32_10(latmc_rng_name_counter(n, block), latmc_rng_key(seed));
}

/* The sweep word of a name of latmc_rng_name_of (the bits the counter carries: 0..47).
 * One kernel forms its counters from it as latmc_rng_block does instead of deriving names:
 * the CUDA Heisenberg pass kernel, where nvcc schedules the derived names' words worse
 * (one H200 ran a 256^3 pass 3.4 % slower with them); its leaf checks that the step's name
 * is the one the kernel assumes (backends/cuda/heisenberg/cuda_heisenberg_leaf.c). */
LATMC_HOSTDEV uint64_t latmc_rng_name_sweep(struct latmc_rng_name n)
{
    return ((uint64_t)(n.c1 >> 16) << 32) | n.c2;
}

/*
 * The names of each family of draws; every kernel of a family takes its words from here
 * (through lib/step.h and the models' rng_name functions for the update steps).
 */

/* Monte Carlo updates: the UPDATE stream of replica 0 (the others: latmc_rng_name_replica),
 * sweep word `sweep` (phi^4: lib/phi4.h's pass sweep), phase `phase` (the colour), sub
 * `sub` (the model's first draw of the step). */
LATMC_HOSTDEV struct latmc_rng_name latmc_rng_update_name(uint64_t sweep, uint32_t phase,
                                                          uint32_t sub)
{
    return latmc_rng_name_of(sweep, latmc_rng_stream(LATMC_STREAM_UPDATE, 0), phase, sub);
}

/* Hot start (doc/conventions.md): the INIT stream of replica `replica`, sweep 0, phase 0,
 * sub `sub` (a model that needs two draws per site takes sub 1 for the second). */
LATMC_HOSTDEV struct latmc_rng_name latmc_rng_init_name(uint32_t replica, uint32_t sub)
{
    return latmc_rng_name_of(0, latmc_rng_stream(LATMC_STREAM_INIT, replica), 0, sub);
}

/* The hot start's block `block` of replica `replica`, sub `sub`. */
LATMC_HOSTDEV latmc_philox_ctr latmc_rng_init_block(uint64_t seed, uint32_t replica,
                                                    uint32_t sub, uint64_t block)
{
    return latmc_rng_name_block(seed, latmc_rng_init_name(replica, sub), block);
}

/* Quenched couplings (lib/coupling_draws.h; key desc.coupling_seed): the COUPLINGS stream
 * of replica 0 (the replicas share their couplings), sweep 0, phase 0, sub `sub` (sub 1:
 * a Gaussian coupling's second draw). */
LATMC_HOSTDEV struct latmc_rng_name latmc_rng_coupling_name(uint32_t sub)
{
    return latmc_rng_name_of(0, latmc_rng_stream(LATMC_STREAM_COUPLINGS, 0), 0, sub);
}

/* Cluster updates (lib/cluster_bonds.h names the phases): the CLUSTER stream of replica
 * `replica`, sweep `sweep`, phase `phase`, sub `sub` (0 for Ising and Potts, the
 * embedding's sub for the embedded clusters, lib/cluster_embed.h). */
LATMC_HOSTDEV struct latmc_rng_name latmc_rng_cluster_name(uint64_t sweep, uint32_t replica,
                                                           uint32_t phase, uint32_t sub)
{
    return latmc_rng_name_of(sweep, latmc_rng_stream(LATMC_STREAM_CLUSTER, replica), phase, sub);
}

/* Ensembles (lib/ens_internal.h numbers their streams): stream `stream` with the sweep
 * word `round` (the exchange round; 0 for the derived seeds), phase 0, sub 0. */
LATMC_HOSTDEV struct latmc_rng_name latmc_rng_ens_name(uint32_t stream, uint64_t round)
{
    return latmc_rng_name_of(round, stream, 0, 0);
}

#endif /* LATMC_RNG_STREAMS_H */
