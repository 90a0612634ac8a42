/*
 * spinglass_replicas — the 3D Heisenberg spin glass with Gaussian couplings: two replicas of
 * each disorder sample, the energy and the distribution of the overlap
 * q^2 = sum_{mu,nu} q_{mu nu}^2, q_{mu nu} = (1/N) sum_i s^a_{i,mu} s^b_{i,nu},
 * averaged over samples, at several temperatures. At high T the replicas are uncorrelated
 * and P(q^2) is a narrow peak near 0 (width ~ 1/N); on cooling it broadens and moves out,
 * the signature of the frozen spin-glass state on a finite lattice.
 *
 *   spinglass_replicas           L = 6, 8 samples, 5 temperatures (about half a minute)
 *   spinglass_replicas --quick   L = 4, 4 samples, 3 temperatures (the test)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <latmc/latmc.h>

#include "analysis.h"
#include "ex_args.h"
#include "ex_output.h"
#include "ex_util.h"
#include "output.h"
#include "sg.h"

static void usage(const char *prog)
{
    printf("Usage: %s [--quick] [options]\n"
           "Heisenberg spin glass, Gaussian couplings, two replicas: energy and overlap.\n\n"
           "  --quick          L = 4, T = 0.3,1,2, 4 samples, 500 + 1000 sweeps\n"
           "  --L L            lattice size, even (default 6)\n"
           "  --dim D          2 or 3 (default 3)\n"
           "  --temps T1,T2,.. temperatures (default 0.2,0.3,0.5,1,2)\n"
           "  --samples N      disorder samples, 2..%d (default 8)\n"
           "  --nover N        overrelaxation passes per sweep (default 2)\n"
           "  --therm N        thermalisation sweeps (default 5000)\n"
           "  --sweeps N       measured sweeps (default 10000)\n"
           "  --jobs J         chains run at once (default: the number of CPUs)\n"
           "  --seed S         base Monte Carlo seed, < 2^32 (default 1)\n"
           "  --out DIR        output directory (default spinglass_replicas-out)\n",
           prog, SG_MAX_SAMPLES);
}

static int parse(int argc, char **argv, struct sg_study *s, const char **out)
{
    bool quick = false;
    for (int i = 1; i < argc; i++)
        quick = quick || strcmp(argv[i], "--quick") == 0;
    if (quick)
        *s = (struct sg_study){ .ndim = 3, .L = 4, .nover = 2, .nT = 3, .T = { 0.3, 1.0, 2.0 },
                                .nsamples = 4, .therm = 500, .sweeps = 1000, .seed = 1 };
    else
        *s = (struct sg_study){ .ndim = 3, .L = 6, .nover = 2, .nT = 5,
                                .T = { 0.2, 0.3, 0.5, 1.0, 2.0 }, .nsamples = 8,
                                .therm = 5000, .sweeps = 10000, .seed = 1 };
    *out = "spinglass_replicas-out";
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
        if ((v = ex_arg_value(argc, argv, &i)) == NULL)
            return 2;
        if (strcmp(a, "--L") == 0)
            ok = ex_parse_int(a, v, 2, 1024, &s->L);
        else if (strcmp(a, "--dim") == 0)
            ok = ex_parse_int(a, v, 2, 3, &s->ndim);
        else if (strcmp(a, "--temps") == 0)
            ok = (s->nT = ex_parse_double_list(a, v, s->T, SG_MAX_T)) > 0;
        else if (strcmp(a, "--samples") == 0)
            ok = ex_parse_int(a, v, 2, SG_MAX_SAMPLES, &s->nsamples);
        else if (strcmp(a, "--nover") == 0)
            ok = ex_parse_int(a, v, 0, 65535, &s->nover);
        else if (strcmp(a, "--therm") == 0)
            ok = ex_parse_u64(a, v, 0, UINT64_C(1) << 40, &s->therm);
        else if (strcmp(a, "--sweeps") == 0)
            ok = ex_parse_u64(a, v, 2, UINT64_C(1) << 40, &s->sweeps);
        else if (strcmp(a, "--jobs") == 0)
            ok = ex_parse_int(a, v, 1, 256, &s->jobs);
        else if (strcmp(a, "--seed") == 0) {
            ok = ex_parse_u64(a, v, 0, UINT32_MAX, &u);
            s->seed = u;
        } else if (strcmp(a, "--out") == 0)
            *out = v;
        else {
            fprintf(stderr, "%s: unknown option %s\n", argv[0], a);
            ok = false;
        }
        if (!ok) {
            fprintf(stderr, "Try '%s --help'.\n", argv[0]);
            return 2;
        }
    }
    for (int t = 0; t < s->nT; t++)
        if (!(s->T[t] > 0.0)) {
            fprintf(stderr, "--temps: temperatures must be > 0\n");
            return 2;
        }
    return 0;
}

int main(int argc, char **argv)
{
    struct sg_study s;
    const char *out;
    int st = parse(argc, argv, &s, &out);
    if (st != 0)
        return st;
    struct sg_chain *res = calloc((size_t)s.nT * (size_t)s.nsamples, sizeof *res);
    struct sg_point *pts = calloc((size_t)s.nT, sizeof *pts);
    if (res == NULL || pts == NULL || !ex_make_dir(out)) {
        free(res);
        free(pts);
        return 1;
    }
    printf("liblatmc %s: %dD Heisenberg spin glass, L = %d, Gaussian couplings, 2 replicas; "
           "%d samples x %d temperatures, %llu + %llu sweeps (heat bath + %d overrelaxation)\n",
           latmc_version_string(), s.ndim, s.L, s.nsamples, s.nT,
           (unsigned long long)s.therm, (unsigned long long)s.sweeps, s.nover);
    double t0 = ex_now();
    st = sg_run(&s, res);
    if (st == 0) {
        printf("(%.1f s)\n", ex_now() - t0);
        sg_analyse(&s, res, pts);
        sg_print(&s, pts);
        if (!sg_write(&s, pts, out))
            st = 1;
    }
    free(res);
    free(pts);
    if (st != 0)
        return 1;
    printf("\ndata: %s/spinglass.dat, %s/spinglass_qhist.dat; script: %s/spinglass.gp\n", out,
           out, out);
    ex_gnuplot(out, "spinglass.gp");
    return 0;
}
