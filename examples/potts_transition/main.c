/*
 * potts_transition — the 2D q-state Potts model across beta_c = ln(1 + sqrt q):
 * q = 3, a continuous transition, and q = 10, a first-order one whose energy histogram at
 * beta_c has two peaks (ordered and disordered phases coexisting), compared with Baxter's
 * exact energies. For q = 10 the histogram is reweighted to the beta where the ordered
 * phases weigh q times the disordered one, a finite-size estimate of beta_c. Every scan
 * point also gives xi/L, the second-moment correlation length of the simplex order
 * parameter over L (LATMC_OBS_M2_K0, LATMC_OBS_M2_KMIN, latmc_acc_corr_length).
 *
 *   potts_transition            the full study (about a minute on 2 cores)
 *   potts_transition --quick    small lattices, short chains (the test)
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <latmc/latmc.h>

#include "ex_args.h"
#include "ex_output.h"
#include "ex_pool.h"
#include "ex_util.h"
#include "exact.h"
#include "output.h"
#include "potts.h"
#include "reweight.h"

struct options {
    int L3, L10, nscan, chains, jobs;
    uint64_t therm, sweeps, hist_sweeps, seed;
    const char *out;
};

static void usage(const char *prog)
{
    printf("Usage: %s [--quick] [options]\n"
           "The 2D Potts model across beta_c: q = 3 (continuous), q = 10 (first order).\n\n"
           "  --quick           L = 12, short chains (seconds)\n"
           "  --L3 L, --L10 L   lattice sizes for q = 3 and q = 10 (default 48, 24)\n"
           "  --points N        points of each beta scan (default 13)\n"
           "  --therm N         thermalisation sweeps per chain (default 2000)\n"
           "  --sweeps N        measured sweeps per scan point (default 30000)\n"
           "  --hist-sweeps N   measured sweeps per histogram chain (default 100000)\n"
           "  --chains N        histogram chains at beta_c, 2..%d (default 8)\n"
           "  --jobs J          chains run at once (default: the number of CPUs)\n"
           "  --seed S          base seed, < 2^32 (default 1)\n"
           "  --out DIR         output directory (default potts_transition-out)\n",
           prog, MAX_CHAINS);
}

static int parse(int argc, char **argv, struct options *o)
{
    bool quick = false;
    for (int i = 1; i < argc; i++)
        quick = quick || strcmp(argv[i], "--quick") == 0;
    *o = quick ? (struct options){ 12, 12, 7, 4, 0, 200, 2000, 5000, 1, "potts_transition-out" }
               : (struct options){ 48, 24, 13, 8, 0, 2000, 30000, 100000, 1,
                                   "potts_transition-out" };
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        if (strcmp(a, "--help") == 0) {
            usage(argv[0]);
            exit(0);
        }
        if (strcmp(a, "--quick") == 0)
            continue;
        if ((v = ex_arg_value(argc, argv, &i)) == NULL)
            return 2;
        uint64_t u = 0;
        bool ok;
        if (strcmp(a, "--L3") == 0)
            ok = ex_parse_int(a, v, 6, 4096, &o->L3);
        else if (strcmp(a, "--L10") == 0)
            ok = ex_parse_int(a, v, 6, 4096, &o->L10);
        else if (strcmp(a, "--points") == 0)
            ok = ex_parse_int(a, v, 2, MAX_SCAN, &o->nscan);
        else if (strcmp(a, "--chains") == 0)
            ok = ex_parse_int(a, v, 2, MAX_CHAINS, &o->chains);
        else if (strcmp(a, "--jobs") == 0)
            ok = ex_parse_int(a, v, 1, 256, &o->jobs);
        else if (strcmp(a, "--therm") == 0)
            ok = ex_parse_u64(a, v, 0, UINT64_C(1) << 40, &o->therm);
        else if (strcmp(a, "--sweeps") == 0)
            ok = ex_parse_u64(a, v, 64, UINT64_C(1) << 40, &o->sweeps);
        else if (strcmp(a, "--hist-sweeps") == 0)
            ok = ex_parse_u64(a, v, 1, UINT64_C(1) << 40, &o->hist_sweeps);
        else if (strcmp(a, "--seed") == 0) {
            ok = ex_parse_u64(a, v, 0, UINT32_MAX, &u);
            o->seed = u;
        } else if (strcmp(a, "--out") == 0) {
            o->out = v;
            ok = true;
        } else {
            fprintf(stderr, "%s: unknown option %s\n", argv[0], a);
            ok = false;
        }
        if (!ok) {
            fprintf(stderr, "Try '%s --help'.\n", argv[0]);
            return 2;
        }
    }
    /* Even extents, or all divisible by 3: the colourings of doc/models/potts.md. */
    if ((o->L3 % 2 && o->L3 % 3) || (o->L10 % 2 && o->L10 % 3)) {
        fprintf(stderr, "lattice sizes must be even or divisible by 3\n");
        return 2;
    }
    return 0;
}

static void print_scan(const struct potts_case *c, const struct scan_point *pts)
{
    printf("  %10s %10s %20s %18s %18s %18s\n", "beta/bc", "beta", "e = E/N", "m", "C",
           "xi/L");
    for (int i = 0; i < c->nscan; i++) {
        const struct scan_point *p = &pts[i];
        printf("  %10.5f %10.6f %11.5f +- %.5f %9.4f +- %.4f %9.3f +- %.3f", p->beta / c->beta_c,
               p->beta, p->e, p->de, p->m, p->dm, p->c, p->dc);
        if (isnan(p->xil))
            printf(" %18s\n", "- (not real)");
        else
            printf(" %9.4f +- %.4f\n", p->xil, p->dxil);
    }
}

/* The histogram's story: peaks against Baxter's energies, and for a first-order transition
 * the equal-weight beta with its jackknife error over the chains. */
static void analyse_histogram(const struct potts_case *c, const struct energy_hist *h,
                              struct case_result *r)
{
    double e_o, e_d, e_min, dip;
    hist_binned(h, -1, c->beta_c, &r->at_beta_c);
    printf("  energy histogram at beta_c (%d chains): ", c->nchains);
    if (!hist_peaks(&r->at_beta_c, &e_o, &e_d, &e_min, &dip)) {
        double mean = 0.0, tot = 0.0, de = (double)r->at_beta_c.width / h->N;
        for (int j = 0; j < r->at_beta_c.nbins; j++) {
            mean += r->at_beta_c.e[j] * r->at_beta_c.p[j] * de;
            tot += r->at_beta_c.p[j] * de;
        }
        printf("one peak, <e> = %.4f (exact infinite-volume e(beta_c) = %.5f)\n", mean / tot,
               potts_energy_c(c->q, -1));
        /* At a continuous transition e(beta_c, L) - e(beta_c) ~ L^((alpha - 1)/nu). */
        static const double power[5] = { 0, 0, 1.0, 0.8, 0.5 };  /* (1 - alpha)/nu, q = 2..4 */
        if (c->q >= 2 && c->q <= 4)
            printf("    the finite lattice differs by O(L^-%.1f): (1 - alpha)/nu for q = %d\n",
                   power[c->q], c->q);
        return;
    }
    printf("two peaks, e = %.4f and %.4f, the minimum between them %.2f of the lower peak\n"
           "    exact infinite-volume phase energies (Baxter): e_o = %.5f, e_d = %.5f\n",
           e_o, e_d, dip, potts_energy_c(c->q, -1), potts_energy_c(c->q, +1));
    if (c->q <= 4)
        return;
    double width = 0.05 * c->beta_c;
    double b = hist_equal_weight(h, -1, c->q, width), samp[MAX_CHAINS], mean = 0.0, ss = 0.0;
    bool ok = !isnan(b);
    for (int k = 0; ok && k < c->nchains; k++) {
        samp[k] = hist_equal_weight(h, k, c->q, width);
        ok = !isnan(samp[k]);
        mean += samp[k] / c->nchains;
    }
    if (!ok) {
        printf("  W_ordered = q W_disordered: no solution within beta_c +- 5%% (too few "
               "tunnelings between the phases: run longer)\n");
        return;
    }
    for (int k = 0; k < c->nchains; k++)
        ss += (samp[k] - mean) * (samp[k] - mean);
    double err = sqrt((c->nchains - 1.0) / c->nchains * ss);
    printf("  reweighted to W_ordered = q W_disordered: beta = %.5f +- %.5f  (exact beta_c "
           "%.6f; jackknife over chains)\n", b, err, c->beta_c);
    r->have_reweighted = hist_binned(h, -1, b, &r->at_eqw);
    r->beta_eqw = b;
}

static int run_case(latmc_ctx *ctx, const struct potts_case *c, const struct run_plan *p,
                    struct scan_point *pts, struct case_result *r)
{
    printf("\nq = %d, L = %d, beta_c = ln(1 + sqrt %d) = %.6f: %s transition\n", c->q, c->L,
           c->q, c->beta_c, c->q <= 4 ? "continuous" : "first-order");
    double t0 = ex_now();
    if (potts_scan(ctx, c, p, pts) != 0)
        return 1;
    print_scan(c, pts);
    struct run_plan hp = *p;
    hp.sweeps = p->hist_sweeps;
    struct energy_hist h = { 0 };
    if (potts_histogram(ctx, c, &hp, &h) != 0) {
        hist_free(&h);
        return 1;
    }
    *r = (struct case_result){ .c = c, .pts = pts };
    analyse_histogram(c, &h, r);
    hist_free(&h);
    printf("  (%.1f s)\n", ex_now() - t0);
    return 0;
}

int main(int argc, char **argv)
{
    struct options o;
    int st = parse(argc, argv, &o);
    if (st != 0)
        return st;
    struct potts_case cases[2] = {
        { .q = 3, .L = o.L3, .nscan = o.nscan, .lo = 0.94, .hi = 1.06, .nchains = o.chains },
        { .q = 10, .L = o.L10, .nscan = o.nscan, .lo = 0.98, .hi = 1.02, .nchains = o.chains },
    };
    struct run_plan plan = { o.therm, o.sweeps, o.hist_sweeps, o.seed, o.jobs };
    static struct scan_point pts[2][MAX_SCAN];
    struct case_result res[2];

    latmc_ctx *ctx = NULL;
    if (ex_check(latmc_ctx_create(&ctx), NULL, "latmc_ctx_create") || !ex_make_dir(o.out)) {
        latmc_ctx_destroy(&ctx);
        return 1;
    }
    printf("liblatmc %s: 2D Potts, heat bath; scans %llu + %llu sweeps per point, "
           "histograms %d chains x %llu sweeps\n", latmc_version_string(),
           (unsigned long long)o.therm, (unsigned long long)o.sweeps, o.chains,
           (unsigned long long)o.hist_sweeps);
    for (int k = 0; k < 2 && st == 0; k++) {
        cases[k].beta_c = potts_beta_c(cases[k].q);
        st = run_case(ctx, &cases[k], &plan, pts[k], &res[k]);
    }
    latmc_ctx_destroy(&ctx);
    if (st != 0 || !output_write(res, 2, o.out))
        return 1;
    printf("\ndata: %s/potts_scan.dat, %s/potts_hist.dat; script: %s/potts_transition.gp\n",
           o.out, o.out, o.out);
    ex_gnuplot(o.out, "potts_transition.gp");
    return 0;
}
