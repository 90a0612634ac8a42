/*
 * spinglass_pt — the 3D Edwards-Anderson (+-J) Ising spin glass with parallel tempering,
 * run as liblatmc ensembles: for each L, n_samples disorder samples x n_T temperatures x
 * 2 replicas in one latmc_ens, replica exchange after every sweep. Measured: the overlap
 * q = (1/N) sum_i s_i^a s_i^b of the two replicas, and per L the Binder ratio
 *     g(T) = (3 - [<q^4>] / [<q^2>]^2) / 2
 * ([ ] the mean over samples, < > the thermal mean), with jackknife errors over samples.
 * g is dimensionless, so the curves of different L cross at the spin-glass transition.
 * So does xi_SG/L, the second-moment correlation length of the overlap over L,
 *     xi_SG = sqrt([<q^2>] / [<|q(k_min)|^2>] - 1) / (2 sin(pi / L))
 * (LATMC_ENS_QKMIN2, latmc_ens_corr_length), the usual estimator of T_c in spin glasses.
 * Comparison value: T_c = 1.120(4) (Katzgraber, Koerner and Young, Phys. Rev. B 73, 224432
 * (2006), from the crossings of the correlation length and of g for L up to 24).
 *
 *   spinglass_pt           L = 4,6,8, 64 samples, 12 temperatures in [0.9, 2.0]
 *   spinglass_pt --quick   L = 4,6, 6 samples, 6 temperatures, short runs (the test)
 *   --device cuda          every ensemble on the GPU: its members swept together, the
 *                          energies and the overlaps computed on the device
 *
 * Writes spinglass_pt.dat (L T g err e acceptance xi/L err), spinglass_pt_crossings.dat
 * (of g and of xi_SG/L) and spinglass_pt.gp (gnuplot: g(T) per L, the crossings and the
 * reference T_c).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <latmc/latmc.h>

#include "ex_args.h"
#include "ex_output.h"
#include "ex_util.h"

#define MAX_L 8
#define MAX_T 64
#define TC_REF 1.120
#define TC_REF_ERR 0.004

struct study {
    int nL, Ls[MAX_L], nT, nsamples, threads, device;
    double tmin, tmax;
    uint64_t therm, sweeps, seed;
};

struct curve {
    int L;
    double T[MAX_T], g[MAX_T], err[MAX_T], e[MAX_T], acc[MAX_T];
    double xil[MAX_T], xierr[MAX_T]; /* xi_SG / L and its error; NaN: not real */
    double trip_mean;
    uint64_t trips;
};

static void usage(const char *prog)
{
    printf("Usage: %s [--quick] [options]\n"
           "3D +-J Ising spin glass with parallel tempering: Binder ratio g(T) per L.\n\n"
           "  --quick        L = 4,6, 6 samples, 6 temperatures, 400 + 400 sweeps\n"
           "  --L L1,L2,..   lattice sizes, even (default 4,6,8)\n"
           "  --samples N    disorder samples, 2..100000 (default 64)\n"
           "  --temps N      temperatures, 2..%d, geometric in [tmin, tmax] (default 12)\n"
           "  --tmin T       lowest temperature (default 0.9)\n"
           "  --tmax T       highest temperature (default 2.0)\n"
           "  --therm N      thermalisation sweeps (default 2000 x (L/4)^2)\n"
           "  --sweeps N     measured sweeps (default 2000 x (L/4)^2)\n"
           "  --threads N    threads over members (default: OpenMP's; CPU only)\n"
           "  --device D     cpu or cuda (default cpu); cuda: the ensembles on the GPU\n"
           "                 (overlaps and energies on the device), an error if the CUDA\n"
           "                 backend is not usable here\n"
           "  --seed S       ensemble seed (default 1)\n"
           "  --out DIR      output directory (default spinglass_pt-out)\n", prog, MAX_T);
}

static int parse(int argc, char **argv, struct study *s, const char **out)
{
    bool quick = false;
    for (int i = 1; i < argc; i++)
        quick = quick || strcmp(argv[i], "--quick") == 0;
    *s = (struct study){ .nL = 3, .Ls = { 4, 6, 8 }, .nT = 12, .nsamples = 64, .tmin = 0.9,
                         .tmax = 2.0, .therm = 0, .sweeps = 0, .seed = 1 };
    if (quick)
        *s = (struct study){ .nL = 2, .Ls = { 4, 6 }, .nT = 6, .nsamples = 6, .tmin = 0.9,
                             .tmax = 2.0, .therm = 400, .sweeps = 400, .seed = 1 };
    s->device = LATMC_DEVICE_CPU;
    *out = "spinglass_pt-out";
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v;
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
            ok = (s->nL = ex_parse_int_list(a, v, 2, 64, s->Ls, MAX_L)) > 0;
        else if (strcmp(a, "--samples") == 0)
            ok = ex_parse_int(a, v, 2, 100000, &s->nsamples);
        else if (strcmp(a, "--temps") == 0)
            ok = ex_parse_int(a, v, 2, MAX_T, &s->nT);
        else if (strcmp(a, "--tmin") == 0)
            ok = ex_parse_double(a, v, false, &s->tmin);
        else if (strcmp(a, "--tmax") == 0)
            ok = ex_parse_double(a, v, false, &s->tmax);
        else if (strcmp(a, "--therm") == 0)
            ok = ex_parse_u64(a, v, 0, UINT64_C(1) << 40, &s->therm);
        else if (strcmp(a, "--sweeps") == 0)
            ok = ex_parse_u64(a, v, 2, UINT64_C(1) << 40, &s->sweeps);
        else if (strcmp(a, "--threads") == 0)
            ok = ex_parse_int(a, v, 0, 4096, &s->threads);
        else if (strcmp(a, "--seed") == 0)
            ok = ex_parse_u64(a, v, 0, UINT64_MAX, &s->seed);
        else if (strcmp(a, "--out") == 0)
            *out = v;
        else if (strcmp(a, "--device") == 0) {
            ok = strcmp(v, "cpu") == 0 || strcmp(v, "cuda") == 0;
            if (ok)
                s->device = strcmp(v, "cuda") == 0 ? LATMC_DEVICE_CUDA : LATMC_DEVICE_CPU;
            else
                fprintf(stderr, "--device %s: expected cpu or cuda\n", v);
        }
        else {
            fprintf(stderr, "unknown option %s (--help lists them)\n", a);
            return 2;
        }
        if (!ok)
            return 2;
    }
    if (!(s->tmin > 0 && s->tmax > s->tmin)) {
        fprintf(stderr, "need 0 < tmin < tmax\n");
        return 2;
    }
    return 0;
}

/* One L: the ensemble, thermalisation, measurements, g(T) with errors. */
static int run_size(const struct study *st, int L, struct curve *c)
{
    const int nS = st->nsamples, nT = st->nT, nST = nS * nT;
    const uint64_t scale = (uint64_t)(L * L) / 16 > 0 ? (uint64_t)(L * L) / 16 : 1;
    const uint64_t therm = st->therm ? st->therm : 2000 * scale;
    const uint64_t sweeps = st->sweeps ? st->sweeps : 2000 * scale;
    latmc_ctx *ctx = NULL;
    latmc_ens *e = NULL;
    double *q2 = calloc((size_t)nST, sizeof *q2), *q4 = calloc((size_t)nST, sizeof *q4);
    double *sum2 = calloc((size_t)nST, sizeof *sum2), *sum4 = calloc((size_t)nST, sizeof *sum4);
    double *en = calloc((size_t)nST * 2, sizeof *en), beta[MAX_T];
    double *qk = calloc((size_t)nST, sizeof *qk), *sumk = calloc((size_t)nST, sizeof *sumk);
    int rc = 1;
    if (!q2 || !q4 || !sum2 || !sum4 || !en || !qk || !sumk)
        goto out;
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_ISING;
    d.ndim = 3;
    d.extent[0] = d.extent[1] = d.extent[2] = L;
    d.couplings = LATMC_COUPLINGS_BIMODAL;
    d.algorithm = LATMC_ALGO_METROPOLIS;
    d.device = st->device;
    latmc_ens_layout l;
    latmc_ens_layout_init(&l);
    l.n_samples = nS;
    l.n_temperatures = nT;
    l.n_replicas = 2;
    l.seed = ex_chain_seed(st->seed, (uint64_t)L);
    l.coupling_seed = ex_chain_seed(st->seed + 1000, (uint64_t)L);
    l.n_threads = st->threads;
    /* beta increasing = T decreasing; temperatures geometric, denser where it is cold */
    for (int t = 0; t < nT; t++) {
        c->T[t] = st->tmax * pow(st->tmin / st->tmax, (double)t / (nT - 1));
        beta[t] = 1.0 / c->T[t];
    }
    c->L = L;
    if (ex_check(latmc_ctx_create(&ctx), NULL, "ctx"))
        goto out;
    const int created = latmc_ens_create(ctx, &d, &l, &e);
    if (created != LATMC_OK) {
        ex_check(created, NULL, "ensemble");
        if (st->device == LATMC_DEVICE_CUDA)
            fprintf(stderr, "--device cuda: the CUDA backend cannot run this ensemble here "
                            "(see above); --device cpu runs it on the CPU\n");
        goto out;
    }
    if (latmc_ens_set_temperatures(e, beta, nT) || latmc_ens_set_exchange(e, 1) ||
        latmc_ens_init_spins(e, LATMC_INIT_HOT) || latmc_ens_sweep(e, therm)) {
        fprintf(stderr, "L = %d: %s\n", L, latmc_ens_last_error(e));
        goto out;
    }
    uint64_t acc0[MAX_T], att0[MAX_T], acc1[MAX_T], att1[MAX_T];
    latmc_ens_exchange_counts(e, acc0, att0, nT - 1);
    double esum[MAX_T] = { 0 };
    /* The overlap at k_min is summed on the host in this version (every member's spins
     * copied there at each measurement): on the GPU that would cost more than the sweeps,
     * so xi_SG/L is measured on the CPU only. */
    const bool with_xi = st->device == LATMC_DEVICE_CPU;
    const uint64_t every = 2, nmeas = sweeps / every;
    for (uint64_t i = 0; i < nmeas; i++) {
        if (latmc_ens_sweep(e, every) ||
            latmc_ens_overlaps(e, LATMC_ENS_Q2, q2, (size_t)nST) ||
            (with_xi && latmc_ens_overlaps(e, LATMC_ENS_QKMIN2, qk, (size_t)nST)) ||
            latmc_ens_observables(e, LATMC_OBS_ENERGY, LATMC_ENS_BY_TEMPERATURE, en,
                                  (size_t)nST * 2)) {
            fprintf(stderr, "L = %d: %s\n", L, latmc_ens_last_error(e));
            goto out;
        }
        /* q^4 = (q^2)^2: exactly what latmc_ens_overlaps gives for LATMC_ENS_Q4 */
        for (int k = 0; k < nST; k++) {
            sum2[k] += q2[k];
            sum4[k] += q2[k] * q2[k];
            sumk[k] += qk[k];
        }
        for (int k = 0; k < nST * 2; k++)
            esum[(k / 2) % nT] += en[k];
    }
    latmc_ens_exchange_counts(e, acc1, att1, nT - 1);
    latmc_ens_round_trips(e, &c->trips, &c->trip_mean);
    for (int t = 0; t < nT; t++) {
        double *a2 = q2, *a4 = q4, *ak = qk; /* per-sample thermal means at temperature t */
        for (int s = 0; s < nS; s++) {
            a2[s] = sum2[s * nT + t] / (double)nmeas;
            a4[s] = sum4[s * nT + t] / (double)nmeas;
            ak[s] = sumk[s * nT + t] / (double)nmeas;
        }
        if (ex_check(latmc_ens_binder_g(a2, a4, nS, 1, &c->g[t], &c->err[t]), NULL, "binder"))
            goto out;
        /* no real xi_SG where [<q^2>] <= [<|q(k_min)|^2>] (high T, few samples): NaN */
        if (with_xi &&
            latmc_ens_corr_length(a2, ak, nS, L, &c->xil[t], &c->xierr[t]) == LATMC_OK) {
            c->xil[t] /= L;
            c->xierr[t] /= L;
        } else {
            c->xil[t] = c->xierr[t] = NAN;
        }
        c->e[t] = esum[t] / ((double)nmeas * nS * 2);
        c->acc[t] = t + 1 < nT && att1[t] > att0[t]
                        ? (double)(acc1[t] - acc0[t]) / (double)(att1[t] - att0[t]) : NAN;
    }
    rc = 0;
out:
    latmc_ens_destroy(&e);
    latmc_ctx_destroy(&ctx);
    free(q2);
    free(q4);
    free(sum2);
    free(sum4);
    free(en);
    free(qk);
    free(sumk);
    return rc;
}

/* Where ya - yb changes sign (y: g, or xi_SG/L, of curves a and b, errors ea, eb), by
 * linear interpolation in T; NAN if nowhere. */
static double crossing(const struct curve *a, const double *ya, const double *ea,
                       const double *yb, const double *eb, int nT, double *err)
{
    double best = NAN;
    *err = NAN;
    for (int t = 0; t + 1 < nT; t++) {
        const double d0 = ya[t] - yb[t], d1 = ya[t + 1] - yb[t + 1];
        if (d0 == 0 || d0 * d1 < 0) {
            const double f = d0 / (d0 - d1);
            best = a->T[t] + f * (a->T[t + 1] - a->T[t]);
            /* error: the difference's error over its slope */
            const double sd = sqrt(ea[t] * ea[t] + eb[t] * eb[t]);
            const double slope = fabs((d1 - d0) / (a->T[t + 1] - a->T[t]));
            *err = slope > 0 ? sd / slope : NAN;
        }
    }
    return best;
}

static bool write_outputs(const struct study *st, const struct curve *c, const char *dir,
                          double *cross, double *cross_err, double *xcross, double *xcross_err)
{
    char path[4096];
    FILE *f = ex_create(dir, "spinglass_pt.dat", path, sizeof path);
    if (!f)
        return false;
    fprintf(f, "# 3D +-J Ising spin glass, %d samples x %d temperatures x 2 replicas per L, "
               "parallel tempering every sweep\n"
               "# L T g err_g e/N acceptance(T, next T) xi_SG/L err (NaN: not real)\n",
            st->nsamples, st->nT);
    for (int i = 0; i < st->nL; i++) {
        for (int t = 0; t < st->nT; t++)
            fprintf(f, "%d %.6f %.6f %.6f %.6f %.4f %.6f %.6f\n", c[i].L, c[i].T[t],
                    c[i].g[t], c[i].err[t], c[i].e[t], c[i].acc[t], c[i].xil[t],
                    c[i].xierr[t]);
        fprintf(f, "\n\n");
    }
    if (!ex_close(f, path))
        return false;
    f = ex_create(dir, "spinglass_pt_crossings.dat", path, sizeof path);
    if (!f)
        return false;
    fprintf(f, "# quantity L1 L2 T_cross err (reference T_c = %.3f(%d), Katzgraber et al. "
               "PRB 73, 224432 (2006))\n", TC_REF, (int)(TC_REF_ERR * 1000));
    for (int i = 0; i + 1 < st->nL; i++) {
        cross[i] = crossing(&c[i], c[i].g, c[i].err, c[i + 1].g, c[i + 1].err, st->nT,
                            &cross_err[i]);
        fprintf(f, "g %d %d %.4f %.4f\n", c[i].L, c[i + 1].L, cross[i], cross_err[i]);
    }
    for (int i = 0; i + 1 < st->nL; i++) {
        xcross[i] = crossing(&c[i], c[i].xil, c[i].xierr, c[i + 1].xil, c[i + 1].xierr, st->nT,
                             &xcross_err[i]);
        fprintf(f, "xi_SG/L %d %d %.4f %.4f\n", c[i].L, c[i + 1].L, xcross[i], xcross_err[i]);
    }
    if (!ex_close(f, path))
        return false;
    f = ex_create(dir, "spinglass_pt.gp", path, sizeof path);
    if (!f)
        return false;
    fprintf(f,
        "# gnuplot spinglass_pt.gp  ->  spinglass_pt.png\n"
        "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
        "    set terminal pngcairo size 900,600 font ',11'\n"
        "} else {\n"
        "    set terminal png size 900,600\n"
        "}\n"
        "set output 'spinglass_pt.png'\n"
        "set title '3D +-J Ising spin glass: Binder ratio of the overlap, %d samples, "
        "parallel tempering'\n"
        "set xlabel 'T'\nset ylabel 'g = (3 - [<q^4>]/[<q^2>]^2) / 2'\nset key top right\n"
        "set arrow from %.3f, graph 0 to %.3f, graph 1 nohead dt 2\n"
        "set label 'T_c = 1.120(4) (Katzgraber et al. 2006)' at %.3f, graph 0.05 offset 0.5,0\n"
        "plot \\\n", st->nsamples, TC_REF, TC_REF, TC_REF);
    for (int i = 0; i < st->nL; i++)
        fprintf(f, "  'spinglass_pt.dat' index %d using 2:3:4 with yerrorlines pt 7 "
                   "title 'L = %d'%s\n", i, c[i].L, i + 1 < st->nL ? ", \\" : "");
    return ex_close(f, path);
}

int main(int argc, char **argv)
{
    struct study st;
    const char *out;
    int rc = parse(argc, argv, &st, &out);
    if (rc)
        return rc;
    if (!ex_make_dir(out))
        return 1;
    struct curve *c = calloc((size_t)st.nL, sizeof *c);
    if (!c)
        return 1;
    printf("3D +-J Ising spin glass, parallel tempering: %d samples x %d temperatures x "
           "2 replicas per L, T in [%g, %g], on the %s\n", st.nsamples, st.nT, st.tmin,
           st.tmax, st.device == LATMC_DEVICE_CUDA ? "GPU (CUDA)" : "CPU");
    fflush(stdout);
    for (int i = 0; i < st.nL; i++) {
        const double t0 = ex_now();
        if (st.Ls[i] % 2 || run_size(&st, st.Ls[i], &c[i])) {
            fprintf(stderr, "L = %d failed%s\n", st.Ls[i], st.Ls[i] % 2 ? " (odd L)" : "");
            free(c);
            return 1;
        }
        printf("\nL = %d (%.1f s; %llu round trips, mean %.0f sweeps)\n"
               "     T        g        err     e/N     swap acc.   xi_SG/L    err\n", st.Ls[i],
               ex_now() - t0, (unsigned long long)c[i].trips, c[i].trip_mean);
        for (int t = 0; t < st.nT; t++)
            printf("  %6.4f  %7.4f  %7.4f  %7.4f  %6.3f    %7.4f  %7.4f\n", c[i].T[t], c[i].g[t],
                   c[i].err[t], c[i].e[t], c[i].acc[t], c[i].xil[t], c[i].xierr[t]);
        fflush(stdout); /* a long study's sizes show as they finish, also into a file */
    }
    double cross[MAX_L], cross_err[MAX_L], xcross[MAX_L], xcross_err[MAX_L];
    if (!write_outputs(&st, c, out, cross, cross_err, xcross, xcross_err)) {
        free(c);
        return 1;
    }
    printf("\n");
    for (int i = 0; i + 1 < st.nL; i++) {
        if (isnan(cross[i]))
            printf("crossing L = %d / %d: none in [%g, %g]\n", c[i].L, c[i + 1].L, st.tmin,
                   st.tmax);
        else
            printf("crossing L = %d / %d: T = %.3f +- %.3f\n", c[i].L, c[i + 1].L, cross[i],
                   cross_err[i]);
        if (isnan(xcross[i]))
            printf("  xi_SG/L: no crossing in [%g, %g]\n", st.tmin, st.tmax);
        else
            printf("  xi_SG/L: T = %.3f +- %.3f\n", xcross[i], xcross_err[i]);
    }
    printf("reference: T_c = %.3f(%d), Katzgraber, Koerner, Young, PRB 73, 224432 (2006)\n",
           TC_REF, (int)(TC_REF_ERR * 1000));
    printf("\ndata: %s/spinglass_pt.dat, %s/spinglass_pt_crossings.dat; script: "
           "%s/spinglass_pt.gp\n", out, out, out);
    ex_gnuplot(out, "spinglass_pt.gp");
    free(c);
    return 0;
}
