/*
 * Validation of the bit-sliced decisions (decisions = 1, doc/models/ising-decisions.md) at
 * moderate L, run by hand (minutes, not a CI test): 2D Ising L x L on the CPU, Metropolis
 * and heat bath, both chains side by side, at several temperatures:
 * - <e> against the exact finite-lattice value (Kaufman) in binning sigma, and the
 *   infinite lattice's (Onsager) for reference; <|m|> against Yang's spontaneous
 *   magnetisation below T_c, for reference (finite L);
 * - +-J (2D, 3D) and 3D uniform, where no exact value is at hand: <e> of the two chains
 *   against each other (one disorder realisation);
 * - on equilibrium configurations of chain 1: every site's decision in a few sweeps
 *   recomputed from the definition (lib/ising_decision_rules.h on the thresholds read off
 *   the lattice) and compared, and the planes each group drew: mean per group and mean of
 *   the largest over 32 consecutive groups (a warp's wait).
 * usage: validate_ising_decisions [L [measurements [threads [pair_measurements [chains
 *   [betas]]]]]]   (default 128 20000 1 = measurements, chains "01", the five betas below):
 *   pair_measurements for the chains against each other (0: none; their thermalisation
 *   2000 sweeps and a tenth of them); chains "1" compares chain 1 alone with the exact
 *   values; betas a comma-separated list or "none" (the long runs at large L that pin <e>
 *   and <|m|> to 1e-5 relative take the betas away from beta_c, where a local chain at
 *   large L does not reach equilibrium in any run here).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <latmc/latmc.h>

#include "exact_ising.h"
#include "ising_decision_rules.h"
#include "mc_sampling.h"

static uint64_t threshold(double p)
{
    return p >= 1.0 ? UINT64_C(1) << 32 : (uint64_t)ldexp(p, 32);
}

static double probability(int algorithm, double beta, int s, int n)
{
    if (algorithm == LATMC_ALGO_HEATBATH)
        return 1.0 / (1.0 + exp(-2.0 * beta * n));
    const double de = 2.0 * s * n;
    return de <= 0 ? 1.0 : exp(-beta * de);
}

/* Decisions of `sweeps` sweeps of sim (chain 1, uniform, h = 0) recomputed by the
 * definition; planes per group and per 32 groups. Returns the mismatches. */
/* The planes drawn: per group, its tail (the fraction of groups past 8 and 16 planes),
 * per run of 8 consecutive groups (the AVX2 kernel's: Philox calls = ceil(slowest / 4)
 * per run) and per 32 (a warp's wait). */
struct planes_seen {
    double group, past8, past16, calls8, warp;
};

static long check_decisions(latmc_sim *sim, int L, int algorithm, double beta, uint64_t seed,
                            int sweeps, struct planes_seen *ps)
{
    const int64_t n = (int64_t)L * L, half = n / 2, groups = half / 32;
    int8_t *before = malloc((size_t)n), *after = malloc((size_t)n);
    uint64_t *t = malloc((size_t)half * sizeof *t);
    uint32_t *seen = malloc((size_t)groups * sizeof *seen);
    long bad = 0;
    double sum_g = 0, sum_w = 0, count_g = 0, count_w = 0, past8 = 0, past16 = 0;
    double calls8 = 0, count8 = 0;
    for (int sw = 0; sw < sweeps; sw++) {
        uint64_t sweep = 0;
        latmc_sim_sweep_count(sim, &sweep);
        latmc_sim_get_spins(sim, before, (size_t)n);
        latmc_sim_sweep(sim, 1);
        latmc_sim_get_spins(sim, after, (size_t)n);
        for (int colour = 0; colour < 2; colour++) {
            for (int64_t g = 0; g < groups; g++)
                seen[g] = 0;
            for (int64_t i = 0; i < n; i++) {
                const int x = (int)(i % L), y = (int)(i / L);
                if ((x + y) % 2 != colour)
                    continue;
                const int8_t *nb = colour == 0 ? before : after;
                const int sum = nb[(x + 1) % L + L * y] + nb[(x + L - 1) % L + L * y] +
                                nb[x + L * ((y + 1) % L)] + nb[x + L * ((y + L - 1) % L)];
                const int s = before[i];
                t[i / 2] = threshold(probability(algorithm, beta, s, sum));
                const int accept = algorithm == LATMC_ALGO_HEATBATH ? after[i] == 1 : after[i] != s;
                seen[i / 64] |= (uint32_t)accept << ((i / 2) % 32);
            }
            int warp_max = 0, run_max = 0;
            for (int64_t g = 0; g < groups; g++) {
                int planes;
                const uint32_t mask = latmc_ising_group_decide(t + 32 * g, UINT32_MAX, seed, sweep,
                                                               colour, (uint64_t)g, &planes);
                bad += mask != seen[g];
                sum_g += planes;
                count_g += 1;
                past8 += planes > 8;
                past16 += planes > 16;
                run_max = planes > run_max ? planes : run_max;
                if (g % 8 == 7) {
                    calls8 += (run_max + 3) / 4;
                    count8 += 1;
                    run_max = 0;
                }
                warp_max = planes > warp_max ? planes : warp_max;
                if (g % 32 == 31) {
                    sum_w += warp_max;
                    count_w += 1;
                    warp_max = 0;
                }
            }
        }
    }
    ps->group = sum_g / count_g;
    ps->past8 = past8 / count_g;
    ps->past16 = past16 / count_g;
    ps->calls8 = count8 > 0 ? calls8 / count8 : 0;
    ps->warp = count_w > 0 ? sum_w / count_w : 0;
    free(before);
    free(after);
    free(t);
    free(seen);
    return bad;
}

/*
 * mc_sample_ising's measurements, but started cold in the ordered phase: a hot start
 * quenched below T_c freezes into stripes (two straight domain walls across the periodic
 * lattice) that live far longer than any run here, on either chain, and would compare a
 * metastable state with the equilibrium result.
 */
static int sample(latmc_sim *sim, int cold, uint64_t therm, uint64_t nmeas, latmc_acc **out)
{
    static const int keys[NCOLS] = { LATMC_OBS_ENERGY, LATMC_OBS_ABS_MAGNETIZATION,
                                     LATMC_OBS_M2, LATMC_OBS_M4, LATMC_OBS_MAGNETIZATION };
    latmc_acc *acc = NULL;
    int st = latmc_acc_create(&acc, NCOLS);
    if (st == LATMC_OK)
        st = latmc_sim_init_spins(sim, cold ? LATMC_INIT_COLD : LATMC_INIT_HOT);
    if (st == LATMC_OK)
        st = latmc_sim_sweep(sim, therm);
    for (uint64_t t = 0; st == LATMC_OK && t < nmeas; t++) {
        double row[NCOLS];
        st = latmc_sim_sweep(sim, 1);
        for (int c = 0; st == LATMC_OK && c < NCOLS; c++)
            st = latmc_sim_observable(sim, keys[c], &row[c]);
        if (st == LATMC_OK)
            st = latmc_acc_push(acc, row, NCOLS);
    }
    if (st != LATMC_OK) {
        latmc_acc_destroy(&acc);
        return st;
    }
    *out = acc;
    return LATMC_OK;
}

int main(int argc, char **argv)
{
    const int L = argc > 1 ? atoi(argv[1]) : 128;
    const uint64_t nmeas = argc > 2 ? strtoull(argv[2], NULL, 10) : 20000;
    const int threads = argc > 3 ? atoi(argv[3]) : 1;
    const uint64_t pair_meas = argc > 4 ? strtoull(argv[4], NULL, 10) : nmeas;
    const int first_chain = argc > 5 && argv[5][0] == '1' ? 1 : 0;
    if (L < 64 || L % 64 != 0) {
        fprintf(stderr, "L must be a multiple of 64 (whole groups per row)\n");
        return 2;
    }
    if (nmeas < 2 || pair_meas == 1 || threads < 1) {
        fprintf(stderr, "at least 2 measurements (pairs: 0 or at least 2) and a thread\n");
        return 2;
    }
    double betas[8] = { 0.30, 0.40, 0.4406867935097715, 0.50, 0.60 };
    size_t nbetas = 5;
    if (argc > 6) {
        nbetas = 0;
        for (const char *p = argv[6]; strcmp(argv[6], "none") != 0 && *p;) {
            char *end = NULL;
            const double b = strtod(p, &end);
            if (end == p || !(b > 0 && b < 10) || nbetas == sizeof betas / sizeof betas[0] ||
                (*end != ',' && *end != 0)) {
                fprintf(stderr, "betas: a comma-separated list of at most 8 values in (0, 10), "
                        "or none\n");
                return 2;
            }
            betas[nbetas++] = b;
            p = *end ? end + 1 : end;
        }
    }
    latmc_ctx *ctx = NULL;
    if (latmc_ctx_create(&ctx) != LATMC_OK)
        return 1;
    printf("2D Ising %dx%d, %llu measurements after 2000 sweeps (hot start above T_c, cold "
           "below), %d thread(s)\n", L, L,
           (unsigned long long)nmeas, threads);
    double worst = 0;
    long mismatches = 0;
    for (int a = 0; a < 2; a++) {
        const int algorithm = a ? LATMC_ALGO_HEATBATH : LATMC_ALGO_METROPOLIS;
        for (size_t b = 0; b < nbetas; b++) {
            const double beta = betas[b];
            const double kaufman = exact_ising_kaufman_energy(L, L, beta, 1.0);
            const double onsager = exact_ising_onsager_energy(beta, 1.0);
            const double sh = sinh(2 * beta);
            const double yang = beta > 0.4406868 ? pow(1.0 - pow(sh, -4.0), 0.125) : 0.0;
            for (int dec = first_chain; dec < 2; dec++) {
                latmc_sim_desc d;
                latmc_sim_desc_init(&d);
                d.model = LATMC_MODEL_ISING;
                d.ndim = 2;
                d.extent[0] = d.extent[1] = L;
                d.algorithm = algorithm;
                d.n_threads = threads;
                d.seed = 1000 + 10 * b + (uint64_t)a;
                d.device = LATMC_DEVICE_CPU;
                latmc_sim *sim = NULL;
                if (latmc_sim_create(ctx, &d, &sim) != LATMC_OK ||
                    latmc_sim_set_param(sim, LATMC_PARAM_BETA, beta) != LATMC_OK ||
                    latmc_sim_set_param(sim, LATMC_PARAM_DECISIONS, dec) != LATMC_OK) {
                    fprintf(stderr, "%s\n", latmc_last_error());
                    return 1;
                }
                latmc_acc *acc = NULL;
                if (sample(sim, beta > 0.45, 2000, nmeas, &acc) != LATMC_OK) {
                    fprintf(stderr, "%s\n", latmc_sim_last_error(sim));
                    return 1;
                }
                char label[96];
                snprintf(label, sizeof label, "%s beta=%.4f decisions=%d <e> vs Kaufman",
                         a ? "heatb" : "metro", beta, dec);
                const double dev = mc_deviation(acc, COL_E, kaufman, label);
                if (fabs(dev) > worst)
                    worst = fabs(dev);
                double e = 0, e_err = 0, absm = 0, absm_err = 0;
                latmc_acc_mean(acc, COL_E, &e);
                latmc_acc_error(acc, COL_E, &e_err);
                latmc_acc_mean(acc, COL_ABSM, &absm);
                latmc_acc_error(acc, COL_ABSM, &absm_err);
                printf("    <e> %.9f +- %.2e (relative %.1e), Kaufman %.9f: %+.2e; Onsager "
                       "(infinite lattice) %.9f\n", e, e_err, e_err / fabs(e), kaufman,
                       e - kaufman, onsager);
                if (yang > 0) {
                    /* below T_c at L >> xi (xi about 4.4 at beta 0.5): <|m|> is Yang's up to
                     * terms exponentially small in L / xi */
                    const double dm = (absm - yang) / absm_err;
                    printf("    <|m|> %.9f +- %.2e (relative %.1e), Yang %.9f: %+.2e, "
                           "%+.2f sigma\n", absm, absm_err, absm_err / absm, yang, absm - yang,
                           dm);
                    if (fabs(dm) > worst)
                        worst = fabs(dm);
                } else {
                    printf("    <|m|> %.6f (above T_c: of order L^-1 at beta_c, N^-1/2 above)\n",
                           absm);
                }
                if (dec == 1) {
                    struct planes_seen ps;
                    const long bad = check_decisions(sim, L, algorithm, beta, d.seed, 20, &ps);
                    mismatches += bad;
                    printf("    decisions of 20 sweeps against the definition: %ld groups "
                           "differ; planes per group %.3f (past 8: %.4f, past 16: %.1e), "
                           "Philox calls per run of 8 groups %.3f, planes per 32 groups (max) "
                           "%.3f\n", bad, ps.group, ps.past8, ps.past16, ps.calls8, ps.warp);
                }
                latmc_acc_destroy(&acc);
                latmc_sim_destroy(&sim);
            }
        }
    }
    /* where no exact result is at hand (+-J, 3D): the two chains' <e> against each other */
    const struct { int ndim, L, couplings, algorithm; double beta; } cmp[] = {
        { 2, L, LATMC_COUPLINGS_BIMODAL, LATMC_ALGO_METROPOLIS, 1.0 },
        { 2, L, LATMC_COUPLINGS_BIMODAL, LATMC_ALGO_HEATBATH, 0.6 },
        { 3, L / 4, LATMC_COUPLINGS_UNIFORM, LATMC_ALGO_METROPOLIS, 0.2 },
        { 3, L / 4, LATMC_COUPLINGS_BIMODAL, LATMC_ALGO_HEATBATH, 0.5 },
    };
    double worst_pair = 0;
    for (size_t c = 0; pair_meas > 0 && c < sizeof cmp / sizeof cmp[0]; c++) {
        double mean[2], err[2];
        for (int dec = 0; dec < 2; dec++) {
            latmc_sim_desc d;
            latmc_sim_desc_init(&d);
            d.model = LATMC_MODEL_ISING;
            d.ndim = cmp[c].ndim;
            for (int mu = 0; mu < d.ndim; mu++)
                d.extent[mu] = cmp[c].L;
            d.algorithm = cmp[c].algorithm;
            d.couplings = cmp[c].couplings;
            d.coupling_seed = 4242; /* one realisation for both chains */
            d.n_threads = threads;
            d.seed = 5000 + 10 * c + (uint64_t)dec;
            d.device = LATMC_DEVICE_CPU;
            latmc_sim *sim = NULL;
            latmc_acc *acc = NULL;
            if (latmc_sim_create(ctx, &d, &sim) != LATMC_OK ||
                latmc_sim_set_param(sim, LATMC_PARAM_BETA, cmp[c].beta) != LATMC_OK ||
                latmc_sim_set_param(sim, LATMC_PARAM_DECISIONS, dec) != LATMC_OK ||
                sample(sim, 0, 2000 + pair_meas / 10, pair_meas, &acc) != LATMC_OK) {
                fprintf(stderr, "%s\n", latmc_last_error());
                return 1;
            }
            latmc_acc_mean(acc, COL_E, &mean[dec]);
            latmc_acc_error(acc, COL_E, &err[dec]);
            latmc_acc_destroy(&acc);
            latmc_sim_destroy(&sim);
        }
        const double z = (mean[1] - mean[0]) / sqrt(err[0] * err[0] + err[1] * err[1]);
        printf("%dD %d^%d %s %s beta=%.2f: <e> chain 0 %.6f +- %.6f, chain 1 %.6f +- %.6f "
               "(%+.2f sigma)\n", cmp[c].ndim, cmp[c].L, cmp[c].ndim,
               cmp[c].couplings ? "+-J" : "uniform",
               cmp[c].algorithm == LATMC_ALGO_HEATBATH ? "heatb" : "metro", cmp[c].beta,
               mean[0], err[0], mean[1], err[1], z);
        if (fabs(z) > worst_pair)
            worst_pair = fabs(z);
    }
    printf("largest |deviation| %.2f sigma (<e>, and <|m|> below T_c; chains against each "
           "other: %.2f sigma); %ld groups differ from the definition\n", worst, worst_pair,
           mismatches);
    latmc_ctx_destroy(&ctx);
    return mismatches == 0 && worst < 5.0 && worst_pair < 5.0 ? 0 : 1;
}
