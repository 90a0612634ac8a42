/**
 * @file latmc/ens.h
 * @brief liblatmc — ensembles: many small lattices of one model and shape, swept together,
 * with parallel tempering and spin-glass overlaps (doc/ensembles.md).
 *
 * An ensemble holds M = n_samples x n_temperatures x n_replicas members. Member m sits at
 * its home coordinates (sample, slot, replica), m = (sample * n_temperatures + slot) *
 * n_replicas + replica; parallel tempering moves temperatures between members, so the
 * member that holds temperature index t changes (latmc_ens_member_at()). Every member is a
 * Markov chain of its own with a seed derived from the ensemble's (latmc_ens_member_desc()):
 * with exchanges off, member m is bit for bit the sim created from that desc.
 *
 * Thread safety: one ensemble must not be used by two threads at once; different ensembles
 * may be used concurrently. Every function returns LATMC_OK (0) or a negative LATMC_E*
 * code; on failure the ensemble is unchanged (except a failing sweep, see latmc_ens_sweep())
 * and latmc_ens_last_error() says why.
 *
 * @since 0.2
 */
#ifndef LATMC_ENS_H
#define LATMC_ENS_H

#include <latmc/defs.h>
#include <latmc/ctx.h>
#include <latmc/sim.h>

LATMC_BEGIN_DECLS

/**
 * Opaque ensemble. Created by latmc_ens_create() or latmc_ens_load(), owned by the caller,
 * freed by latmc_ens_destroy(). Holds a reference to its ctx.
 * @since 0.2
 */
typedef struct latmc_ens latmc_ens;

/**
 * How many members an ensemble has and how they are named, its seeds and threads.
 * Always start from latmc_ens_layout_init(): the struct may grow at its end.
 * @since 0.2
 */
typedef struct latmc_ens_layout {
    uint32_t struct_size;    /**< set by latmc_ens_layout_init() */
    int      n_samples;      /**< disorder samples, >= 1 */
    int      n_temperatures; /**< temperatures, >= 1 */
    int      n_replicas;     /**< replicas per sample and temperature, >= 1 (2 for overlaps) */
    uint64_t seed;           /**< the ensemble's Monte Carlo seed (members' seeds derive) */
    uint64_t coupling_seed;  /**< base of the samples' disorder (one realisation per sample) */
    int      n_threads;      /**< CPU threads over members, 0 = OpenMP default; <= 4096 */
} latmc_ens_layout;

/** Orders of per-member arrays (latmc_ens_observables()). @since 0.2 */
enum latmc_ens_order {
    LATMC_ENS_BY_MEMBER      = 0, /**< value[m] belongs to member m */
    LATMC_ENS_BY_TEMPERATURE = 1  /**< value[(s * n_T + t) * n_R + r] belongs to the member
                                       now at temperature t of sample s, replica r */
};

/** Two-replica observables per (sample, temperature) (latmc_ens_overlaps()). @since 0.2 */
enum latmc_ens_overlap {
    LATMC_ENS_Q    = 1, /**< Ising: q = (1/N) sum_i s_i^a s_i^b */
    LATMC_ENS_Q2   = 2, /**< Ising: q^2; Heisenberg: sum_{mu,nu} q_{mu nu}^2 */
    LATMC_ENS_Q4   = 3, /**< the square of LATMC_ENS_Q2 */
    LATMC_ENS_QL   = 4, /**< link overlap (1/(N ndim)) sum_<ij> (s_i^a s_j^a)(s_i^b s_j^b)
                             (Heisenberg: dot products S_i^a.S_i^b times S_j^a.S_j^b) */
    /**
     * |q(k_min)|^2, q(k) = (1/N) sum_i s_i^a s_i^b e^{i k.x_i}, k_min = (2 pi / L) e_mu,
     * averaged over the ndim directions (Heisenberg: the tensor,
     * sum_{mu,nu} |q_{mu nu}(k_min)|^2); equal extents only. With Q2 it gives the
     * spin-glass correlation length (latmc_ens_corr_length()). @since 0.2
     */
    LATMC_ENS_QKMIN2 = 5
};

/**
 * Fill the first `size` bytes of *l with defaults and set struct_size = size: 1 sample, 1
 * temperature, 1 replica, seed 0, coupling_seed 0, n_threads 0. Writes nothing past `size`
 * bytes. Call it through the latmc_ens_layout_init() macro, which passes the size of the
 * layout the caller was compiled with.
 * @param[out] l    the caller's layout (NULL: nothing is written, LATMC_EINVAL).
 * @param[in]  size the caller's sizeof(latmc_ens_layout): this version's size, or larger
 *                  (a newer header: the bytes past this version's layout are zeroed, up to
 *                  4096 in all). Smaller: LATMC_EINVAL, and nothing is written.
 * @return LATMC_OK or LATMC_EINVAL.
 * @note Thread-safe.
 * @since 0.2
 */
LATMC_API int latmc_ens_layout_init_size(latmc_ens_layout *l, size_t size);

/**
 * The function behind the macro below, as a symbol: fills the layout of 0.2 (this header's)
 * and no more, whatever later versions add. Accepts NULL (does nothing).
 * @param[out] l the caller's layout.
 * @note Thread-safe.
 * @since 0.2
 */
LATMC_API void latmc_ens_layout_init(latmc_ens_layout *l);

/**
 * Fill *l (a latmc_ens_layout *) with defaults for the layout of the header the caller is
 * compiled with: latmc_ens_layout_init_size(l, sizeof(latmc_ens_layout)).
 * @since 0.2
 */
#define latmc_ens_layout_init(l) ((void)latmc_ens_layout_init_size((l), sizeof(latmc_ens_layout)))

/**
 * Create an ensemble: one member sim per (sample, slot, replica), each from `member` with
 * its seed, coupling_seed and n_threads replaced as latmc_ens_member_desc() says. Members
 * start with no configuration (latmc_ens_init_spins()), beta 0 and exchanges off. On any
 * failure nothing is left allocated.
 * @param[in]  ctx    the context.
 * @param[in]  member the members' desc (model, shape, algorithm, couplings, device);
 *                    desc.replicas must be 1 (replicas are the layout's).
 * @param[in]  layout from latmc_ens_layout_init().
 * @param[out] out    receives the ensemble; NULL on failure.
 * @return LATMC_OK; LATMC_EINVAL (NULL, counts < 1, too many members, bad member desc);
 *         LATMC_EUNSUPPORTED (member.replicas != 1, or any refusal of latmc_sim_create());
 *         LATMC_ENOMEM (the members would not fit in memory: checked before anything is
 *         allocated, and any allocation failure); backend codes of latmc_sim_create().
 * @note Thread-safe (ctx-level).
 * @since 0.2
 */
LATMC_API int latmc_ens_create(latmc_ctx *ctx, const latmc_sim_desc *member,
                               const latmc_ens_layout *layout, latmc_ens **out);

/**
 * Destroy an ensemble and set *ens = NULL. Accepts NULL and *ens == NULL.
 * @param[in,out] ens address of the caller's handle.
 * @since 0.2
 */
LATMC_API void latmc_ens_destroy(latmc_ens **ens);

/**
 * The ensemble's layout (n_threads resolved).
 * @param[in]  ens the ensemble.
 * @param[in,out] out the caller's layout, its struct_size set first (latmc_ens_layout_init()
 *                or sizeof): this version's fields are written, struct_size and any bytes
 *                past this version's layout are left as they are.
 * @return LATMC_OK; LATMC_EINVAL (a NULL argument, out->struct_size smaller than this
 *         version's layout or larger than 4096: nothing written).
 * @since 0.2
 */
LATMC_API int latmc_ens_get_layout(const latmc_ens *ens, latmc_ens_layout *out);

/**
 * Member index of home coordinates: m = (sample * n_T + slot) * n_R + replica.
 * @return LATMC_OK; LATMC_EINVAL (NULL, a coordinate out of range).
 * @since 0.2
 */
LATMC_API int latmc_ens_member_index(const latmc_ens *ens, int sample, int slot, int replica,
                                     int *member);

/**
 * The exact desc of member m: seed = draws 0 and 1 (low, high word) of the Philox block
 * m of key layout.seed, stream 3, sweep 0, phase 0, sub 0; coupling_seed = the same of
 * key layout.coupling_seed, stream 4, block = the member's sample; n_threads 1
 * (doc/ensembles.md). latmc_sim_create() of this desc, at the member's beta and with the
 * same start, gives member m's chain bit for bit while exchanges are off.
 * `out` is filled as latmc_sim_get_desc() fills it: the 0.1 desc or the desc that ends
 * with n_parts for those struct_size values (callers built against older headers), else
 * this version's whole desc.
 * @return LATMC_OK; LATMC_EINVAL (NULL, m out of range).
 * @since 0.2
 */
LATMC_API int latmc_ens_member_desc(const latmc_ens *ens, int member, latmc_sim_desc *out);

/**
 * Set the temperatures: beta[t] for t = 0..n-1, n == n_temperatures, every beta finite and
 * >= 0, strictly increasing or strictly decreasing. Resets the temperature-to-member map to
 * the home slots (member (s, t, r) at temperature t), the exchange statistics and round
 * trips.
 * Same as latmc_ens_set_ladder(ens, LATMC_PARAM_BETA, beta, n).
 * @return LATMC_OK; LATMC_EINVAL (NULL, wrong n, bad or unordered values);
 *         LATMC_EUNSUPPORTED (a model without beta: phi^4, see latmc_ens_set_ladder()).
 * @since 0.2
 */
LATMC_API int latmc_ens_set_temperatures(latmc_ens *ens, const double *beta, int n);

/**
 * Read the temperatures into beta[0..n-1], n == n_temperatures (0 before any were set);
 * with a mu2 ladder (latmc_ens_set_ladder()) the ladder's mu2 values.
 * @return LATMC_OK; LATMC_EINVAL (NULL, wrong n).
 * @since 0.2
 */
LATMC_API int latmc_ens_get_temperatures(const latmc_ens *ens, double *beta, int n);

/**
 * Set the ladder that parallel tempering walks: the parameter `key` takes values[t] at
 * temperature index t = 0..n-1, n == n_temperatures, the values valid for the parameter
 * and strictly increasing or strictly decreasing. key LATMC_PARAM_BETA: the temperatures
 * (as latmc_ens_set_temperatures()); key LATMC_PARAM_MU2: phi^4's mass parameter, the
 * exchange then weighing sum phi^2 (doc/ensembles.md, "Exchange rule"). Resets the map,
 * the exchange statistics and round trips as latmc_ens_set_temperatures() does; the
 * ladder's parameter can then no longer be set by latmc_ens_set_param().
 * @return LATMC_OK; LATMC_EINVAL (NULL, a key other than the two, wrong n, bad or
 *         unordered values); LATMC_EUNSUPPORTED (the model has no such parameter).
 * @since 0.2
 */
LATMC_API int latmc_ens_set_ladder(latmc_ens *ens, int key, const double *values, int n);

/**
 * The ladder: its parameter into *key (LATMC_PARAM_BETA until a mu2 ladder is set) and
 * its values into values[0..n-1], n == n_temperatures.
 * @return LATMC_OK; LATMC_EINVAL (NULL, wrong n).
 * @since 0.2
 */
LATMC_API int latmc_ens_get_ladder(const latmc_ens *ens, int *key, double *values, int n);

/**
 * Set a model parameter other than beta on every member (as latmc_sim_set_param()).
 * @return LATMC_OK; LATMC_EINVAL (beta: use latmc_ens_set_temperatures(); mu2 while a mu2
 *         ladder is set; bad value);
 *         LATMC_EUNSUPPORTED (not a parameter of the model). All members or none change.
 * @since 0.2
 */
LATMC_API int latmc_ens_set_param(latmc_ens *ens, int key, double value);

/**
 * Replica exchange every `every` sweeps (0: off, the default). Needs at least two
 * temperatures, set by latmc_ens_set_temperatures().
 * @return LATMC_OK; LATMC_EINVAL (NULL; every > 0 with one temperature);
 *         LATMC_ESTATE (no temperatures set yet).
 * @since 0.2
 */
LATMC_API int latmc_ens_set_exchange(latmc_ens *ens, uint64_t every);

/**
 * The replica-exchange interval in sweeps (0: off), as set by latmc_ens_set_exchange() or
 * restored by latmc_ens_load().
 * @return LATMC_OK; LATMC_EINVAL (NULL ens or every).
 * @since 0.2
 */
LATMC_API int latmc_ens_get_exchange(const latmc_ens *ens, uint64_t *every);

/**
 * latmc_sim_init_spins() on every member (each from its own seed).
 * @return LATMC_OK; LATMC_EINVAL; or a member's failure.
 * @since 0.2
 */
LATMC_API int latmc_ens_init_spins(latmc_ens *ens, int how);

/**
 * n sweeps of every member; with exchanges on, an exchange round after every sweep whose
 * count is a multiple of `every`. CPU members run on the layout's threads, one member per
 * thread at a time (each member single-threaded): the result never depends on the thread
 * count. CUDA Ising, Heisenberg and Potts members of a local update run together, one
 * launch per step (or per stretch of whole sweeps) for all of them; other CUDA members
 * (phi^4, Swendsen-Wang, Wolff) one after the other (doc/ensembles.md, "Execution").
 * @return LATMC_OK; LATMC_EINVAL (NULL, or more sweeps than latmc_sim_sweep() would take,
 *         refused before any runs); LATMC_ESTATE (no configuration; exchanges on need
 *         temperatures; a member's acceptance counters or a pair's exchange counters hold
 *         more than 2^62 attempts, as latmc_sim_sweep() refuses: latmc_ens_set_spins()
 *         of the member's own configuration, or latmc_ens_set_ladder(), empties them;
 *         the round-trip statistics hold more than 2^62 trips or 2^62 sweeps of trips:
 *         latmc_ens_set_ladder() empties them; refused before any runs); a member's
 *         failure (members may then differ in sweep count: destroy the ensemble).
 * @since 0.2
 */
LATMC_API int latmc_ens_sweep(latmc_ens *ens, uint64_t n);

/**
 * Sweeps done since creation (a loaded ensemble continues the count).
 * @return LATMC_OK; LATMC_EINVAL (a NULL argument).
 * @since 0.2
 */
LATMC_API int latmc_ens_sweep_count(const latmc_ens *ens, uint64_t *count);

/**
 * Observable `key` (enum latmc_observable) of every member into values[0..count-1],
 * count == M, ordered as `order` (enum latmc_ens_order) says.
 * @return LATMC_OK; LATMC_EINVAL (NULL, wrong count, bad order or key); the members'
 *         codes of latmc_sim_observable() (first failing member).
 * @since 0.2
 */
LATMC_API int latmc_ens_observables(latmc_ens *ens, int key, int order, double *values,
                                    size_t count);

/**
 * Two-replica observable `key` (enum latmc_ens_overlap) of replicas 0 and 1 at every
 * (sample, temperature): values[s * n_T + t], count == n_samples * n_temperatures, the
 * members now at temperature t.
 * @return LATMC_OK; LATMC_EINVAL (NULL, wrong count, unknown key); LATMC_EUNSUPPORTED
 *         (fewer than 2 replicas; a model other than Ising and Heisenberg; Q of
 *         Heisenberg; QKMIN2 on unequal extents); LATMC_ESTATE (no configuration);
 *         LATMC_ENOMEM.
 * @since 0.2
 */
LATMC_API int latmc_ens_overlaps(latmc_ens *ens, int key, double *values, size_t count);

/**
 * Bytes of one member's configuration (latmc_sim_spins_size() of a member).
 * @return LATMC_OK; LATMC_EINVAL (a NULL argument).
 * @since 0.2
 */
LATMC_API int latmc_ens_spins_size(const latmc_ens *ens, size_t *bytes);

/**
 * Copy member m's configuration out (as latmc_sim_get_spins()).
 * @return LATMC_OK; LATMC_EINVAL (NULL, m out of range, wrong size); LATMC_ESTATE.
 * @since 0.2
 */
LATMC_API int latmc_ens_get_spins(latmc_ens *ens, int member, void *buf, size_t bytes);

/**
 * Set member m's configuration (as latmc_sim_set_spins()).
 * @return LATMC_OK; LATMC_EINVAL (NULL, m out of range, wrong size or values).
 * @since 0.2
 */
LATMC_API int latmc_ens_set_spins(latmc_ens *ens, int member, const void *buf, size_t bytes);

/**
 * The member now at temperature index t of (sample, replica).
 * @return LATMC_OK; LATMC_EINVAL (NULL, coordinate out of range).
 * @since 0.2
 */
LATMC_API int latmc_ens_member_at(const latmc_ens *ens, int sample, int t, int replica,
                                  int *member);

/**
 * The temperature index member m holds now.
 * @return LATMC_OK; LATMC_EINVAL (NULL, m out of range).
 * @since 0.2
 */
LATMC_API int latmc_ens_temperature_of(const latmc_ens *ens, int member, int *t);

/**
 * Exchange statistics per pair of neighbouring temperatures (t, t+1), t = 0..n-1, summed
 * over samples and replicas since the temperatures were set; n == n_temperatures - 1.
 * @return LATMC_OK; LATMC_EINVAL (NULL, wrong n).
 * @since 0.2
 */
LATMC_API int latmc_ens_exchange_counts(const latmc_ens *ens, uint64_t *accepted,
                                        uint64_t *attempted, int n);

/**
 * Round trips: how many times a member went from temperature 0 to n_T - 1 and back to 0,
 * and their mean duration in sweeps (0 when none).
 * @return LATMC_OK; LATMC_EINVAL (a NULL argument).
 * @since 0.2
 */
LATMC_API int latmc_ens_round_trips(const latmc_ens *ens, uint64_t *count,
                                    double *mean_sweeps);

/**
 * Write the whole ensemble (layout, temperatures, map, statistics, every member's
 * checkpoint) to one checksummed file, replaced atomically (doc/ensembles.md).
 * @return LATMC_OK; LATMC_EINVAL; LATMC_EIO; LATMC_ENOMEM; a member's failure.
 * @since 0.2
 */
LATMC_API int latmc_ens_save(latmc_ens *ens, const char *path);

/**
 * Create an ensemble from a file of latmc_ens_save(); it continues bit-identically.
 * @return LATMC_OK; LATMC_EINVAL (NULL); LATMC_EIO; LATMC_ECORRUPT (damaged or
 *         inconsistent file); LATMC_ENOMEM; codes of latmc_sim_create(). *out NULL on
 *         failure, nothing left allocated.
 * @since 0.2
 */
LATMC_API int latmc_ens_load(latmc_ctx *ctx, const char *path, latmc_ens **out);

/**
 * Binder ratio of the overlap averaged over samples, with its jackknife error over
 * samples: from the per-sample thermal means q2[s] = <q^2>_s and q4[s] = <q^4>_s,
 * r = [<q^4>] / [<q^2>]^2 (square brackets: mean over samples) and
 * g = (3 - r) / 2 for n_components = 1 (Ising), g = (11 - 9 r) / 2 for 3 (Heisenberg).
 * *err is the leave-one-sample-out jackknife error.
 * @return LATMC_OK; LATMC_EINVAL (NULL, n_samples < 2, n_components not 1 or 3, a value
 *         not finite, moments no chain gives: q2[s] < 0, q4[s] < 0 or q4[s] < q2[s]^2
 *         beyond rounding; [<q^2>] == 0).
 * @note Thread-safe.
 * @since 0.2
 */
LATMC_API int latmc_ens_binder_g(const double *q2, const double *q4, int n_samples,
                                 int n_components, double *g, double *err);

/**
 * The spin-glass second-moment correlation length averaged over samples, with its
 * jackknife error over samples (as latmc_ens_binder_g()): from the per-sample thermal
 * means q2[s] = <q^2>_s (LATMC_ENS_Q2) and qk2[s] = <|q(k_min)|^2>_s (LATMC_ENS_QKMIN2),
 * xi_SG = sqrt([<q^2>] / [<|q(k_min)|^2>] - 1) / (2 sin(pi / L)). Divide xi and err by L
 * for xi_SG / L.
 * @param[in]  q2        n_samples values of <q^2>.
 * @param[in]  qk2       n_samples values of <|q(k_min)|^2>.
 * @param[in]  n_samples at least 2.
 * @param[in]  L         the lattice's extent (every extent), >= 2.
 * @param[out] xi        receives xi_SG.
 * @param[out] err       receives its leave-one-sample-out jackknife error.
 * @return LATMC_OK; LATMC_EINVAL (NULL, n_samples < 2, L < 2, a value not finite,
 *         [<|q(k_min)|^2>] == 0, [<q^2>] < [<|q(k_min)|^2>]: no real xi, also in a
 *         jackknife sample).
 * @note Thread-safe.
 * @since 0.2
 */
LATMC_API int latmc_ens_corr_length(const double *q2, const double *qk2, int n_samples,
                                    int64_t L, double *xi, double *err);

/**
 * Detail of the ensemble's last failure ("" if none; "ens is NULL" for NULL).
 * @since 0.2
 */
LATMC_API const char *latmc_ens_last_error(const latmc_ens *ens);

LATMC_END_DECLS

#endif /* LATMC_ENS_H */
