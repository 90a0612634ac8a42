/*
 * The model specs of the identity matrix: each model, algorithm, coupling kind and
 * precision, with parameters where the chain moves (a fraction of proposals accepted,
 * neither none nor all: chain.c checks the reference is such a chain). The parameters are
 * those of the layout tests the matrix replaced (boxes, teams, threads, parts, devices).
 */
#include <math.h>
#include <string.h>

#include "identity.h"

#define ISING(name_, algo_, couplings_, beta_)                                              \
    { .name = name_, .model = LATMC_MODEL_ISING, .algorithm = algo_,                       \
      .couplings = couplings_, .replicas = 1, .keys = { LATMC_PARAM_BETA, LATMC_PARAM_H },  \
      .values = { beta_, 0.05 }, .sweeps1 = 6, .sweeps2 = 6, .cuda_is_cpu = true }
#define POTTS(name_, algo_, q_, beta_)                                                      \
    { .name = name_, .model = LATMC_MODEL_POTTS, .algorithm = algo_, .q = q_,              \
      .replicas = 1, .keys = { LATMC_PARAM_BETA, LATMC_PARAM_H }, .values = { beta_, 0.05 }, \
      .sweeps1 = 5, .sweeps2 = 5, .cuda_is_cpu = true }
/* phi^4: nloc changes between the sweep calls (the plan asks the model for its schedule
 * at every call); a finite Lambda makes the update read two planes away (halo 2) */
#define PHI4(name_, precision_, lambda_)                                                    \
    { .name = name_, .model = LATMC_MODEL_PHI4, .algorithm = LATMC_ALGO_METROPOLIS,         \
      .single = (precision_) == LATMC_PRECISION_FLOAT, .replicas = 1,                     \
      .keys = { LATMC_PARAM_MU2, LATMC_PARAM_G, LATMC_PARAM_LAMBDA, LATMC_PARAM_EPSILON,    \
                LATMC_PARAM_NHIT, LATMC_PARAM_NLOC },                                      \
      .values = { -0.4, 1.8, lambda_, 0.9, 2, 2 }, .sweeps1 = 2, .sweeps2 = 1,             \
      .change_key = LATMC_PARAM_NLOC, .change_value = 3,                                   \
      .cuda_is_cpu = (precision_) == LATMC_PRECISION_DOUBLE }
/* phi^4 on the chunk schedule of shape chunk_ (LATMC_CPU_PHI4_CHUNK, and CUDA's of the same
 * shape: the same chain, float and double) */
#define PHI4_CHUNKS(name_, precision_, lambda_, chunk_)                                     \
    { .name = name_, .model = LATMC_MODEL_PHI4, .algorithm = LATMC_ALGO_METROPOLIS,         \
      .single = (precision_) == LATMC_PRECISION_FLOAT, .replicas = 1,                     \
      .keys = { LATMC_PARAM_MU2, LATMC_PARAM_G, LATMC_PARAM_LAMBDA, LATMC_PARAM_EPSILON,    \
                LATMC_PARAM_NHIT, LATMC_PARAM_NLOC },                                      \
      .values = { -0.4, 1.8, lambda_, 0.9, 2, 2 }, .sweeps1 = 2, .sweeps2 = 1,             \
      .change_key = LATMC_PARAM_NLOC, .change_value = 3, .cuda_is_cpu = true,             \
      .chunk = chunk_ }
/* Heisenberg: nover changes between the sweep calls (the schedule's length) */
#define HEISENBERG(name_, algo_, couplings_, replicas_, nover_)                           \
    HEISENBERG_AT(name_, algo_, couplings_, replicas_, nover_, false, 0.15)
#define HEISENBERG_P(name_, algo_, couplings_, replicas_, nover_, single_)                  \
    HEISENBERG_AT(name_, algo_, couplings_, replicas_, nover_, single_, 0.15)
/* ... in a field h_ */
#define HEISENBERG_AT(name_, algo_, couplings_, replicas_, nover_, single_, h_)             \
    { .name = name_, .model = LATMC_MODEL_HEISENBERG, .algorithm = algo_, .single = single_, \
      .couplings = couplings_, .replicas = replicas_,                                      \
      .keys = { LATMC_PARAM_BETA, LATMC_PARAM_H, LATMC_PARAM_NOVER },                      \
      .values = { 1.1, h_, nover_ }, .sweeps1 = 2, .sweeps2 = 2,                           \
      .change_key = LATMC_PARAM_NOVER, .change_value = (nover_) + 1 }

const struct spec specs[] = {
    ISING("ising2d_metropolis", LATMC_ALGO_METROPOLIS, LATMC_COUPLINGS_UNIFORM, 0.42),
    ISING("ising2d_heatbath", LATMC_ALGO_HEATBATH, LATMC_COUPLINGS_UNIFORM, 0.42),
    ISING("ising3d_metropolis", LATMC_ALGO_METROPOLIS, LATMC_COUPLINGS_UNIFORM, 0.22),
    ISING("ising3d_heatbath", LATMC_ALGO_HEATBATH, LATMC_COUPLINGS_UNIFORM, 0.22),
    ISING("ising_pmj_metropolis", LATMC_ALGO_METROPOLIS, LATMC_COUPLINGS_BIMODAL, 0.42),
    ISING("ising_pmj_heatbath", LATMC_ALGO_HEATBATH, LATMC_COUPLINGS_BIMODAL, 0.42),
    /* calls of more steps than one CUDA chain launch takes (ising_packed.h,
     * CUDA_ISING_CHAIN_STEPS: 64; the core hands the backend 64 steps at a time, so the
     * chains break where its lists do), with the field changed between the calls */
#define ISING_LONG(name_, algo_, couplings_, beta_)                                         \
    { .name = name_, .model = LATMC_MODEL_ISING, .algorithm = algo_,                       \
      .couplings = couplings_, .replicas = 1, .keys = { LATMC_PARAM_BETA, LATMC_PARAM_H },  \
      .values = { beta_, 0.05 }, .sweeps1 = 40, .sweeps2 = 33,                             \
      .change_key = LATMC_PARAM_H, .change_value = -0.1, .cuda_is_cpu = true }
    ISING_LONG("ising_long_metropolis", LATMC_ALGO_METROPOLIS, LATMC_COUPLINGS_UNIFORM, 0.3),
    ISING_LONG("ising_long_pmj_heatbath", LATMC_ALGO_HEATBATH, LATMC_COUPLINGS_BIMODAL, 0.5),
    /* the bit-sliced decisions (doc/models/ising-decisions.md): the CPU, and CUDA's boxes
     * of one process; _H0: the field switched off between the sweep calls */
#define ISING_BITSLICED_FIELDS(name_, algo_, couplings_, beta_)                            \
    .name = name_, .model = LATMC_MODEL_ISING, .algorithm = algo_, .couplings = couplings_, \
    .replicas = 1, .keys = { LATMC_PARAM_BETA, LATMC_PARAM_H, LATMC_PARAM_DECISIONS },     \
    .values = { beta_, 0.05, 1 }, .sweeps1 = 6, .sweeps2 = 6, .cuda_is_cpu = true
#define ISING_BITSLICED(name_, algo_, couplings_, beta_)                                    \
    { ISING_BITSLICED_FIELDS(name_, algo_, couplings_, beta_) }
#define ISING_BITSLICED_H0(name_, algo_, couplings_, beta_)                                 \
    { ISING_BITSLICED_FIELDS(name_, algo_, couplings_, beta_),                             \
      .change_key = LATMC_PARAM_H, .change_value = 0.0 }
    ISING_BITSLICED("ising2d_bitsliced_metropolis", LATMC_ALGO_METROPOLIS,
                    LATMC_COUPLINGS_UNIFORM, 0.42),
    ISING_BITSLICED("ising2d_bitsliced_heatbath", LATMC_ALGO_HEATBATH,
                    LATMC_COUPLINGS_UNIFORM, 0.42),
    ISING_BITSLICED("ising3d_bitsliced_pmj", LATMC_ALGO_METROPOLIS, LATMC_COUPLINGS_BIMODAL, 0.3),
    ISING_BITSLICED("ising3d_bitsliced_metropolis", LATMC_ALGO_METROPOLIS,
                    LATMC_COUPLINGS_UNIFORM, 0.22),
    /* the field switched off between the sweep calls: Metropolis's thresholds then depend
     * on the number of neighbours that differ from the site alone (CUDA's kernel counts
     * those) */
    ISING_BITSLICED_H0("ising_bitsliced_metropolis_h0", LATMC_ALGO_METROPOLIS,
                       LATMC_COUPLINGS_UNIFORM, 0.42),
    /* ... colder: every open class's threshold starts with three 0 bits (CUDA's kernel
     * takes those planes two at a time) */
    ISING_BITSLICED_H0("ising_bitsliced_metropolis_h0_cold", LATMC_ALGO_METROPOLIS,
                       LATMC_COUPLINGS_UNIFORM, 0.65),
    ISING_BITSLICED("ising3d_bitsliced_heatbath", LATMC_ALGO_HEATBATH,
                    LATMC_COUPLINGS_UNIFORM, 0.22),
    /* +-J (CUDA: the coupling bits xor-ed into the neighbour words, L_x a multiple of 64):
     * heat bath, and Metropolis in a field switched off between the calls (CUDA's kernels
     * of every class, then of the count of neighbours that differ: the pairs, the march) */
    ISING_BITSLICED("ising2d_bitsliced_pmj_heatbath", LATMC_ALGO_HEATBATH,
                    LATMC_COUPLINGS_BIMODAL, 0.42),
    ISING_BITSLICED_H0("ising_bitsliced_pmj_h0", LATMC_ALGO_METROPOLIS,
                       LATMC_COUPLINGS_BIMODAL, 0.6),
    /* heat bath with the field switched off between the sweep calls: at h = 0 the
     * thresholds of m and 2 ndim - m neighbours at -1 are each other's complement (CUDA's
     * kernel folds the classes: KEY_SYM), uniform and +-J */
    ISING_BITSLICED_H0("ising_bitsliced_heatbath_h0", LATMC_ALGO_HEATBATH,
                       LATMC_COUPLINGS_UNIFORM, 0.42),
    ISING_BITSLICED_H0("ising_bitsliced_pmj_heatbath_h0", LATMC_ALGO_HEATBATH,
                       LATMC_COUPLINGS_BIMODAL, 0.6),
    POTTS("potts2_metropolis", LATMC_ALGO_METROPOLIS, 2, 0.95),
    POTTS("potts2_heatbath", LATMC_ALGO_HEATBATH, 2, 0.95),
    POTTS("potts3_metropolis", LATMC_ALGO_METROPOLIS, 3, 0.95),
    POTTS("potts3_heatbath", LATMC_ALGO_HEATBATH, 3, 0.95),
    POTTS("potts5_heatbath", LATMC_ALGO_HEATBATH, 5, 0.95),
    POTTS("potts5_metropolis", LATMC_ALGO_METROPOLIS, 5, 0.95),
    POTTS("potts4_heatbath", LATMC_ALGO_HEATBATH, 4, 0.8),
    POTTS("potts10_heatbath", LATMC_ALGO_HEATBATH, 10, 1.4),
    /* q = 200 is disordered near q = 3's transition: a colder beta keeps its heat bath
     * away from "uniform over 200 states" */
    POTTS("potts200_metropolis", LATMC_ALGO_METROPOLIS, 200, 3.0),
    POTTS("potts200_heatbath", LATMC_ALGO_HEATBATH, 200, 3.0),
    /* new thresholds between the sweep calls (every box's and device's tables) */
    { .name = "potts3_metropolis_rebeta",
      .model = LATMC_MODEL_POTTS,
      .algorithm = LATMC_ALGO_METROPOLIS,
      .q = 3,
      .replicas = 1,
      .keys = { LATMC_PARAM_BETA, LATMC_PARAM_H },
      .values = { 0.95, 0.05 },
      .sweeps1 = 5,
      .sweeps2 = 5,
      .change_key = LATMC_PARAM_BETA,
      .change_value = 0.3,
      .cuda_is_cpu = true },
    PHI4("phi4_double_lambda", LATMC_PRECISION_DOUBLE, 2.5),
    PHI4("phi4_float_lambda", LATMC_PRECISION_FLOAT, 2.5),
    PHI4("phi4_double", LATMC_PRECISION_DOUBLE, INFINITY),
    PHI4("phi4_float", LATMC_PRECISION_FLOAT, INFINITY),
    PHI4_CHUNKS("phi4_chunks_float_lambda", LATMC_PRECISION_FLOAT, 2.5, "64x4x4"),
    PHI4_CHUNKS("phi4_chunks_double", LATMC_PRECISION_DOUBLE, INFINITY, "32x8x2"),
    PHI4_CHUNKS("phi4_chunks_cuda_float", LATMC_PRECISION_FLOAT, 2.5, "cuda"),
    PHI4_CHUNKS("phi4_chunks2d_double_lambda", LATMC_PRECISION_DOUBLE, 1.5, "64x32"),
    /* paired groups (two segments of W/2 numbers in one vector): 5 colours, AVX-512's
     * (s = 8) and AVX2's (s = 4); chunks of 3 and 5 rows, so that a pair's halves lie in
     * rows of different y, of different z, or a half is left alone */
    PHI4_CHUNKS("phi4_chunks2d_c5_float_lambda", LATMC_PRECISION_FLOAT, 2.5, "40x5"),
    PHI4_CHUNKS("phi4_chunks2d_c5_double", LATMC_PRECISION_DOUBLE, 1.5, "20x5"),
    PHI4_CHUNKS("phi4_chunks_rows3_double", LATMC_PRECISION_DOUBLE, 2.5, "64x3x2"),
    PHI4_CHUNKS("phi4_chunks_rows3_float", LATMC_PRECISION_FLOAT, 2.5, "32x3x4"),
    /* a finite Lambda made infinite between the sweep calls: the halo the update reads
     * goes from 2 planes to 1 */
    { .name = "phi4_float_relambda",
      .model = LATMC_MODEL_PHI4,
      .algorithm = LATMC_ALGO_METROPOLIS,
      .single = true,
      .replicas = 1,
      .keys = { LATMC_PARAM_MU2, LATMC_PARAM_G, LATMC_PARAM_LAMBDA, LATMC_PARAM_EPSILON,
                LATMC_PARAM_NHIT },
      .values = { -0.4, 1.8, 0.7, 0.9, 3 },
      .sweeps1 = 2,
      .sweeps2 = 2,
      .change_key = LATMC_PARAM_LAMBDA,
      .change_value = INFINITY },
    HEISENBERG("heisenberg_gauss_r1", LATMC_ALGO_HEATBATH, LATMC_COUPLINGS_GAUSSIAN, 1, 0),
    HEISENBERG("heisenberg_gauss_r2", LATMC_ALGO_HEATBATH, LATMC_COUPLINGS_GAUSSIAN, 2, 2),
    HEISENBERG("heisenberg_uniform_r1", LATMC_ALGO_HEATBATH, LATMC_COUPLINGS_UNIFORM, 1, 1),
    HEISENBERG("heisenberg_uniform_r2", LATMC_ALGO_HEATBATH, LATMC_COUPLINGS_UNIFORM, 2, 2),
    /* overrelaxation alone: no proposals, LATMC_OBS_ACCEPTANCE answers LATMC_ESTATE on
     * every layout alike */
    HEISENBERG("heisenberg_overrelax_r1", LATMC_ALGO_OVERRELAX, LATMC_COUPLINGS_GAUSSIAN, 1, 2),
    HEISENBERG("heisenberg_overrelax_r2", LATMC_ALGO_OVERRELAX, LATMC_COUPLINGS_GAUSSIAN, 2, 2),
    HEISENBERG("heisenberg_pmj_overrelax", LATMC_ALGO_OVERRELAX, LATMC_COUPLINGS_BIMODAL, 1, 3),
    HEISENBERG("heisenberg_pmj_r2", LATMC_ALGO_HEATBATH, LATMC_COUPLINGS_BIMODAL, 2, 1),
    /* spins in float (the CUDA kernels' precision) */
    HEISENBERG_P("heisenberg_gauss_r2_float", LATMC_ALGO_HEATBATH, LATMC_COUPLINGS_GAUSSIAN, 2, 2,
                 true),
    HEISENBERG_P("heisenberg_overrelax_r1_float", LATMC_ALGO_OVERRELAX, LATMC_COUPLINGS_GAUSSIAN, 1,
                 1, true),
    HEISENBERG_P("heisenberg_overrelax_r2_float", LATMC_ALGO_OVERRELAX, LATMC_COUPLINGS_GAUSSIAN, 2,
                 2, true),
    HEISENBERG_P("heisenberg_gauss_r1_float", LATMC_ALGO_HEATBATH, LATMC_COUPLINGS_GAUSSIAN, 1, 1,
                 true),

    /* ---- cluster updates (doc/clusters.md): the CPU; CUDA Swendsen-Wang of Ising ---- */
    /* Ising and Potts: without a field (the sizes counted in a call's last sweep only, on
     * one box) and with one (every sweep; the field changed between the calls) */
#define ISING_CLUSTER(name_, algo_, couplings_, beta_, h_, h2_)                              \
    { .name = name_, .model = LATMC_MODEL_ISING, .algorithm = algo_,                       \
      .couplings = couplings_, .replicas = 1, .keys = { LATMC_PARAM_BETA, LATMC_PARAM_H },  \
      .values = { beta_, h_ }, .sweeps1 = 4, .sweeps2 = 4,                                 \
      .change_key = (h2_) != (h_) ? LATMC_PARAM_H : 0, .change_value = h2_,               \
      .cuda_is_cpu = true }
#define POTTS_CLUSTER(name_, algo_, q_, beta_, h_)                                          \
    { .name = name_, .model = LATMC_MODEL_POTTS, .algorithm = algo_, .q = q_,              \
      .replicas = 1, .keys = { LATMC_PARAM_BETA, LATMC_PARAM_H }, .values = { beta_, h_ },   \
      .sweeps1 = 4, .sweeps2 = 4, .cuda_is_cpu = true }
    ISING_CLUSTER("ising2d_sw", LATMC_ALGO_SWENDSEN_WANG, LATMC_COUPLINGS_UNIFORM, 0.44, 0, 0),
    ISING_CLUSTER("ising2d_sw_field", LATMC_ALGO_SWENDSEN_WANG, LATMC_COUPLINGS_UNIFORM, 0.42, 0.05,
                  0.02),
    ISING_CLUSTER("ising3d_sw", LATMC_ALGO_SWENDSEN_WANG, LATMC_COUPLINGS_UNIFORM, 0.22, 0, 0),
    ISING_CLUSTER("ising_pmj_sw_field", LATMC_ALGO_SWENDSEN_WANG, LATMC_COUPLINGS_BIMODAL, 0.42,
                  0.05, 0.05),
    /* without a field: the row passes (lib/cluster_sw_rows.c), parts the four passes */
    ISING_CLUSTER("ising_pmj_sw_h0", LATMC_ALGO_SWENDSEN_WANG, LATMC_COUPLINGS_BIMODAL, 0.42, 0, 0),
    /* antiferromagnetic (J < 0: bonds between unequal spins), uniform and +-J; J changed
     * between the calls (the bonds' threshold and sense) */
    { .name = "ising_sw_afm",
      .model = LATMC_MODEL_ISING,
      .algorithm = LATMC_ALGO_SWENDSEN_WANG,
      .couplings = LATMC_COUPLINGS_UNIFORM,
      .replicas = 1,
      .keys = { LATMC_PARAM_BETA, LATMC_PARAM_J },
      .values = { 0.44, -1.0 },
      .sweeps1 = 4,
      .sweeps2 = 4,
      .change_key = LATMC_PARAM_J,
      .change_value = -0.8,
      .cuda_is_cpu = true },
    { .name = "ising_pmj_sw_afm",
      .model = LATMC_MODEL_ISING,
      .algorithm = LATMC_ALGO_SWENDSEN_WANG,
      .couplings = LATMC_COUPLINGS_BIMODAL,
      .replicas = 1,
      .keys = { LATMC_PARAM_BETA, LATMC_PARAM_J },
      .values = { 0.42, -1.0 },
      .sweeps1 = 4,
      .sweeps2 = 4,
      .cuda_is_cpu = true },
    ISING_CLUSTER("ising2d_wolff", LATMC_ALGO_WOLFF, LATMC_COUPLINGS_UNIFORM, 0.44, 0, 0),
    ISING_CLUSTER("ising3d_wolff_field", LATMC_ALGO_WOLFF, LATMC_COUPLINGS_UNIFORM, 0.22, 0.05,
                  0.1),
    ISING_CLUSTER("ising_pmj_wolff", LATMC_ALGO_WOLFF, LATMC_COUPLINGS_BIMODAL, 0.42, 0, 0),
    POTTS_CLUSTER("potts3_sw", LATMC_ALGO_SWENDSEN_WANG, 3, 1.0, 0),
    POTTS_CLUSTER("potts3_sw_field", LATMC_ALGO_SWENDSEN_WANG, 3, 1.0, 0.05),
    POTTS_CLUSTER("potts3_wolff", LATMC_ALGO_WOLFF, 3, 1.0, 0),
    /* below the FK percolation of q = 3 (1 - exp(-beta) < 1/2): from a cold start a
     * cluster smaller than the lattice, which the field does not always keep */
    POTTS_CLUSTER("potts3_wolff_field", LATMC_ALGO_WOLFF, 3, 0.6, 0.05),
    /* the largest q: each cluster's new colour drawn from 255. Couplings weak enough
     * that a cold start's cluster does not span the lattice: one spanning cluster
     * changes every site each sweep (Swendsen-Wang) or none (Wolff against the field),
     * and such a chain is refused as testing nothing */
    POTTS_CLUSTER("potts255_sw", LATMC_ALGO_SWENDSEN_WANG, 255, 1.2, 0),
    POTTS_CLUSTER("potts255_wolff_field", LATMC_ALGO_WOLFF, 255, 0.3, 0.05),
    /* embedded clusters: phi^4's local passes and one cluster step a sweep (nloc changed
     * between the calls; a finite Lambda couples pairs two sites apart); Heisenberg's heat
     * bath and overrelaxation and one step per replica, in a field */
#define PHI4_CLUSTER(name_, algo_, precision_, lambda_)                                     \
    { .name = name_, .model = LATMC_MODEL_PHI4, .algorithm = algo_,                        \
      .single = (precision_) == LATMC_PRECISION_FLOAT, .replicas = 1,                     \
      .keys = { LATMC_PARAM_MU2, LATMC_PARAM_G, LATMC_PARAM_LAMBDA, LATMC_PARAM_EPSILON,    \
                LATMC_PARAM_NHIT, LATMC_PARAM_NLOC },                                      \
      .values = { -0.9, 2.0, lambda_, 0.9, 2, 1 }, .sweeps1 = 2, .sweeps2 = 2,             \
      .change_key = LATMC_PARAM_NLOC, .change_value = 2 }
    PHI4_CLUSTER("phi4_sw_double_lambda", LATMC_ALGO_SWENDSEN_WANG, LATMC_PRECISION_DOUBLE, 1.5),
    PHI4_CLUSTER("phi4_wolff_float", LATMC_ALGO_WOLFF, LATMC_PRECISION_FLOAT, INFINITY),
    /* Lambda = inf: on one GPU, boxes and devices the step runs on the device */
    PHI4_CLUSTER("phi4_sw_float_inf", LATMC_ALGO_SWENDSEN_WANG, LATMC_PRECISION_FLOAT, INFINITY),
    PHI4_CLUSTER("phi4_sw_double_inf", LATMC_ALGO_SWENDSEN_WANG, LATMC_PRECISION_DOUBLE, INFINITY),
    HEISENBERG("heisenberg_sw_gauss_r2", LATMC_ALGO_SWENDSEN_WANG, LATMC_COUPLINGS_GAUSSIAN, 2, 1),
    HEISENBERG("heisenberg_wolff_uniform_r1", LATMC_ALGO_WOLFF, LATMC_COUPLINGS_UNIFORM, 1, 0),
    /* Wolff in a field (h = 0.15) with Gaussian couplings and two replicas: on one GPU,
     * boxes and devices the step on the device (the seed's cluster's sum of a by atomics;
     * on boxes the pieces' sums joined across the faces), on parts on the host copy */
    HEISENBERG("heisenberg_wolff_gauss_r2", LATMC_ALGO_WOLFF, LATMC_COUPLINGS_GAUSSIAN, 2, 1),
    /* without a field: on one GPU, boxes and devices the step runs on the device
     * (ops.embed_step), on parts on the host copy; the two must agree */
    HEISENBERG_AT("heisenberg_sw_h0_r2", LATMC_ALGO_SWENDSEN_WANG, LATMC_COUPLINGS_GAUSSIAN, 2,
                  1, false, 0.0),
    /* Wolff likewise: one GPU's step the device's (the seed's cluster of the labels, its
     * statistics regrown by the core from the step's bonds) */
    HEISENBERG_AT("heisenberg_wolff_h0_r2", LATMC_ALGO_WOLFF, LATMC_COUPLINGS_GAUSSIAN, 2, 1,
                  false, 0.0),
    PHI4_CLUSTER("phi4_wolff_double_inf", LATMC_ALGO_WOLFF, LATMC_PRECISION_DOUBLE, INFINITY),
    /* a finite Lambda: on one GPU the step on the device too (the pairs two sites apart
     * and the diagonals united after the labelling), on boxes the host copy's */
    PHI4_CLUSTER("phi4_sw_float_lambda", LATMC_ALGO_SWENDSEN_WANG, LATMC_PRECISION_FLOAT, 2.0),
    PHI4_CLUSTER("phi4_wolff_double_lambda", LATMC_ALGO_WOLFF, LATMC_PRECISION_DOUBLE, 2.0),
    PHI4_CLUSTER("phi4_wolff_float_lambda", LATMC_ALGO_WOLFF, LATMC_PRECISION_FLOAT, 2.0),
};
const size_t n_specs = sizeof specs / sizeof specs[0];

/* A cluster spec of Ising or Potts says in its name whether it runs in a field (h != 0
 * at the start or after the change: "_field" in the name): the field decides which
 * layouts run it (CUDA parts and GPU ranks refuse one) and which code it reaches (the SW
 * row passes run without one), so a reader of a row must not have to look it up. */
bool spec_name_tells_field(const struct spec *s)
{
    if ((s->model != LATMC_MODEL_ISING && s->model != LATMC_MODEL_POTTS) ||
        (s->algorithm != LATMC_ALGO_SWENDSEN_WANG && s->algorithm != LATMC_ALGO_WOLFF))
        return true;
    bool field = s->change_key == LATMC_PARAM_H && s->change_value != 0.0;
    for (int k = 0; k < SPEC_MAX_PARAMS && s->keys[k]; k++)
        field = field || (s->keys[k] == LATMC_PARAM_H && s->values[k] != 0.0);
    return field == (strstr(s->name, "_field") != NULL);
}

const struct spec *spec_by_name(const char *name)
{
    for (size_t i = 0; i < n_specs; i++)
        if (strcmp(specs[i].name, name) == 0)
            return &specs[i];
    return NULL;
}

latmc_sim_desc spec_desc(const struct spec *s, const struct row *r)
{
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = s->model;
    d.ndim = r->ndim;
    for (int mu = 0; mu < r->ndim; mu++)
        d.extent[mu] = r->extent[mu];
    d.algorithm = s->algorithm;
    d.couplings = s->couplings;
    d.coupling_seed = 77;
    if (s->single)
        d.precision = LATMC_PRECISION_FLOAT;
    d.replicas = s->replicas;
    if (s->q)
        d.q = s->q;
    d.device = LATMC_DEVICE_CPU;
    d.n_threads = 1;
    d.seed = 20261122;
    return d;
}

int spec_set_params(const struct spec *s, latmc_sim *sim)
{
    for (int i = 0; i < SPEC_MAX_PARAMS && s->keys[i]; i++) {
        const int st = latmc_sim_set_param(sim, s->keys[i], s->values[i]);
        if (st != LATMC_OK)
            return st;
    }
    return LATMC_OK;
}
