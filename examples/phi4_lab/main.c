/*
 * phi4_lab — a virtual lab for the phi^4 model with a higher-derivative cut-off term: scan
 * the mass parameter mu2 at fixed quartic coupling g and cut-off Lambda, on several lattice
 * sizes, and watch the Z2 symmetry break: <|phi|> rises from ~0 (finite-size noise) to a
 * plateau, the susceptibility peaks, and the Binder cumulants of different sizes cross at
 * the transition. Every parameter is an option, to experiment with.
 *
 *   phi4_lab            2D, L = 16, 32, 64, g = 6, Lambda = 10 (about a minute on 2 cores)
 *   phi4_lab --quick    L = 8, 16, short chains (the test)
 *   phi4_lab --lambda inf --g 1 --mu2-min -0.6 --mu2-max 0   another corner of the lab
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ex_args.h"
#include "ex_output.h"
#include "ex_util.h"
#include "lab.h"
#include "output.h"

static void usage(const char *prog)
{
    printf("Usage: %s [--quick] [options]\n"
           "Scan mu2 of phi^4 at fixed g and Lambda: <|phi|>, chi and U4 against mu2.\n\n"
           "  --quick            L = 8,16, 9 points, 1000 + 4000 sweeps (seconds)\n"
           "  --dim D            2 or 3 (default 2)\n"
           "  --sizes L1,L2,..   lattice sizes, multiples of 8 (2D: or of 5) (default "
           "16,32,64)\n"
           "  --g G              quartic coupling, > 0 (default 6)\n"
           "  --lambda X         cut-off Lambda, > 0 or inf (default 10)\n"
           "  --mu2-min A, --mu2-max B, --points N   the scan (default -1.6, -0.6, 11)\n"
           "  --nhit N, --nloc N Metropolis hits per site, passes per sweep (default 1, 1)\n"
           "  --accept A         acceptance the proposal width is tuned to (default 0.5)\n"
           "  --float            single-precision field (default double)\n"
           "  --therm N          thermalisation (epsilon tuning) sweeps (default 3000)\n"
           "  --sweeps N         measured sweeps per point (default 20000)\n"
           "  --jobs J           chains run at once (default: the number of CPUs)\n"
           "  --seed S           base seed, < 2^32 (default 1)\n"
           "  --out DIR          output directory (default phi4_lab-out)\n", prog);
}

static int parse(int argc, char **argv, struct lab *lab, const char **out)
{
    bool quick = false;
    for (int i = 1; i < argc; i++)
        quick = quick || strcmp(argv[i], "--quick") == 0;
    *lab = (struct lab){ .ndim = 2, .nL = 3, .L = { 16, 32, 64 },
                         .precision = LATMC_PRECISION_DOUBLE, .g = 6.0, .lambda = 10.0,
                         .mu2_lo = -1.6, .mu2_hi = -0.6, .npoints = 11, .nhit = 1,
                         .nloc = 1, .target = 0.5, .therm = 3000, .sweeps = 20000,
                         .seed = 1 };
    if (quick) {
        lab->nL = 2;
        lab->L[0] = 8;
        lab->L[1] = 16;
        lab->npoints = 9;
        lab->therm = 1000;
        lab->sweeps = 4000;
    }
    *out = "phi4_lab-out";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
        uint64_t u = 0;
        bool ok = true;
        if (strcmp(a, "--help") == 0) {
            usage(argv[0]);
            exit(0);
        }
        if (strcmp(a, "--quick") == 0)
            continue;
        if (strcmp(a, "--float") == 0) {
            lab->precision = LATMC_PRECISION_FLOAT;
            continue;
        }
        if ((v = ex_arg_value(argc, argv, &i)) == NULL)
            return 2;
        if (strcmp(a, "--dim") == 0)
            ok = ex_parse_int(a, v, 2, 3, &lab->ndim);
        else if (strcmp(a, "--sizes") == 0)
            ok = (lab->nL = ex_parse_int_list(a, v, 5, 4096, lab->L, LAB_MAX_L)) > 0;
        else if (strcmp(a, "--g") == 0)
            ok = ex_parse_double(a, v, false, &lab->g);
        else if (strcmp(a, "--lambda") == 0)
            ok = ex_parse_double(a, v, true, &lab->lambda);
        else if (strcmp(a, "--mu2-min") == 0)
            ok = ex_parse_double(a, v, false, &lab->mu2_lo);
        else if (strcmp(a, "--mu2-max") == 0)
            ok = ex_parse_double(a, v, false, &lab->mu2_hi);
        else if (strcmp(a, "--points") == 0)
            ok = ex_parse_int(a, v, 1, LAB_MAX_POINTS, &lab->npoints);
        else if (strcmp(a, "--nhit") == 0)
            ok = ex_parse_int(a, v, 1, 65535, &lab->nhit);
        else if (strcmp(a, "--nloc") == 0)
            ok = ex_parse_int(a, v, 1, 65535, &lab->nloc);
        else if (strcmp(a, "--accept") == 0)
            ok = ex_parse_double(a, v, false, &lab->target) && lab->target > 0.0 &&
                 lab->target < 1.0;
        else if (strcmp(a, "--therm") == 0)
            ok = ex_parse_u64(a, v, 0, UINT64_C(1) << 40, &lab->therm);
        else if (strcmp(a, "--sweeps") == 0)
            ok = ex_parse_u64(a, v, 64, UINT64_C(1) << 40, &lab->sweeps);
        else if (strcmp(a, "--jobs") == 0)
            ok = ex_parse_int(a, v, 1, 256, &lab->jobs);
        else if (strcmp(a, "--seed") == 0) {
            ok = ex_parse_u64(a, v, 0, UINT32_MAX, &u);
            lab->seed = u;
        } else if (strcmp(a, "--out") == 0)
            *out = v;
        else {
            fprintf(stderr, "%s: unknown option %s\n", argv[0], a);
            ok = false;
        }
        if (!ok) {
            fprintf(stderr, "%s: bad value for %s. Try '%s --help'.\n", argv[0], a, argv[0]);
            return 2;
        }
    }
    /* g <= 0 has no normalisable weight in the broken phase; the library would accept it
     * (the weight is the user's business) but the lab would measure a runaway field. */
    if (!(lab->g > 0.0) || !(lab->lambda > 0.0) || lab->mu2_hi < lab->mu2_lo) {
        fprintf(stderr, "need g > 0, Lambda > 0 and --mu2-min <= --mu2-max\n");
        return 2;
    }
    return 0;
}

int main(int argc, char **argv)
{
    struct lab lab;
    const char *out;
    int st = parse(argc, argv, &lab, &out);
    if (st != 0)
        return st;
    struct lab_point *res = calloc((size_t)lab.nL * (size_t)lab.npoints, sizeof *res);
    if (res == NULL || !ex_make_dir(out)) {
        free(res);
        return 1;
    }
    printf("liblatmc %s: phi^4 lab, %dD, g = %g, Lambda = %g, mu2 from %g to %g in %d points; "
           "%llu sweeps tuning epsilon to acceptance %.2f, then %llu measured\n",
           latmc_version_string(), lab.ndim, lab.g, lab.lambda, lab.mu2_lo, lab.mu2_hi,
           lab.npoints, (unsigned long long)lab.therm, lab.target,
           (unsigned long long)lab.sweeps);
    double t0 = ex_now();
    /* The library checks the extents (multiples of 8, or of 5 in 2D) and says so. */
    st = lab_run(&lab, res);
    if (st == 0) {
        printf("(%.1f s)\n", ex_now() - t0);
        lab_print(&lab, res);
        if (!lab_write(&lab, res, out))
            st = 1;
    }
    free(res);
    if (st != 0)
        return 1;
    printf("\ndata: %s/phi4_lab.dat; script: %s/phi4_lab.gp\n", out, out);
    ex_gnuplot(out, "phi4_lab.gp");
    return 0;
}
