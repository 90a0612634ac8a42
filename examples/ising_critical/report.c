/* ising_critical — what the study prints and writes. */
#include <math.h>
#include <stdio.h>

#include "ex_output.h"
#include "report.h"

const struct critical_refs *critical_refs(int dim)
{
    static const struct critical_refs d2 = { 2.269185314213022, 0.61069, 0.9050488292, 1.75,
                                             "exact, Onsager" };
    static const struct critical_refs d3 = { 1.0 / 0.221654626, 1.0 - 1.6036 / 3.0, 0.6431,
                                             2.0 - 0.0363, "1/0.221654626(5), Ferrenberg, "
                                             "Xu and Landau 2018" };
    return dim == 3 ? &d3 : &d2;
}

/* The crossings of one quantity, as report_print lists them. */
static void print_pairs(const struct study *s, const struct analysis *a,
                        const struct crossing *pair, const char *name)
{
    for (int p = 0; p < a->npairs; p++) {
        const struct crossing *c = &pair[p];
        if (c->found)
            printf("  L = %3d / %3d:  T = %.5f +- %.5f   %s = %.4f +- %.4f   (fit over T = "
                   "%.4f .. %.4f)\n", s->L[c->la], s->L[c->lb], c->tc, c->dtc, name, c->u,
                   c->du, s->T[c->t_lo], s->T[c->t_hi]);
        else
            printf("  L = %3d / %3d:  no crossing in [%.4f, %.4f] (in the full sample or a "
                   "jackknife sample)\n", s->L[c->la], s->L[c->lb], s->T[0], s->T[s->nT - 1]);
    }
}

/* The table of U4 (or xi/L) with its errors: a row per temperature, a column per size. */
static void print_table(const struct study *s, const struct analysis *a, bool xi)
{
    printf("%8s", "T");
    for (int l = 0; l < s->nL; l++)
        printf("   %9s L=%-4d", "", s->L[l]);
    printf("\n");
    for (int t = 0; t < s->nT; t++) {
        printf("%8.4f", s->T[t]);
        for (int l = 0; l < s->nL; l++) {
            const struct point *p = &a->pt[l][t];
            printf("   %7.4f +- %6.4f", xi ? p->xil : p->u4, xi ? p->dxil : p->du4);
        }
        printf("\n");
    }
}

/* xi/L: its table, its crossings and the headline. */
static void print_xi(const struct study *s, const struct analysis *a)
{
    const struct critical_refs *ref = critical_refs(s->dim);
    if (!a->have_xi) {
        printf("\nxi/L: not measured (a chain ran where the backend has no |m(k_min)|^2: "
               "stderr says why)\n");
        return;
    }
    printf("\nSecond-moment correlation length over L, xi/L = sqrt(<m^2>/<|m(kmin)|^2> - 1) / "
           "(2 L sin(pi/L))\n");
    print_table(s, a, true);
    for (int l = 0; l < s->nL; l++)
        for (int t = 0; t < s->nT; t++)
            if (!isfinite(a->pt[l][t].xil))
                printf("xi/L not finite at L = %d, T = %.4f (stderr names the first "
                       "|m(k_min)|^2 outside [0, 1], if any)\n", s->L[l], s->T[t]);
    printf("\nCrossings of xi/L(T), fitted as U4:\n");
    print_pairs(s, a, a->xpair, "xi/L");
    if (a->xfound)
        printf("\nTc from xi/L = %.5f +- %.5f  (%.1f sigma off Tc = %.6f); xi/L there = "
               "%.4f (infinite volume %.4f)\n", a->xtc, a->dxtc,
               fabs(a->xtc - ref->tc) / a->dxtc, ref->tc, a->xu, ref->xil_star);
}

void report_print(const struct study *s, const struct analysis *a)
{
    const struct critical_refs *ref = critical_refs(s->dim);
    printf("\nBinder cumulant U4 = 1 - <m^4>/(3<m^2>^2), jackknife errors over %d chains\n",
           s->R);
    print_table(s, a, false);
    printf("\nCrossings: U4(T) of both sizes fitted by polynomials of degree %d over the %d "
           "temperatures nearest to where the data cross:\n", a->deg, a->window);
    print_pairs(s, a, a->pair, "U4");
    printf("\n");
    if (a->found)
        printf("Tc estimate = %.5f +- %.5f  (Tc = %.6f, %s; %.1f sigma off)\n"
               "  beta_c estimate = %.7f +- %.7f\n"
               "  the crossing of the two largest sizes, L = %d and %d (the crossings of "
               "smaller sizes drift towards Tc as L grows);\n"
               "  error: jackknife over the %d independent chains per point\n"
               "  U4 there = %.4f; universal U4* = %.5f\n",
               a->tc, a->dtc, ref->tc, ref->tc_source, fabs(a->tc - ref->tc) / a->dtc,
               1.0 / a->tc, a->dtc / (a->tc * a->tc), s->L[s->nL - 2], s->L[s->nL - 1], s->R,
               a->u, ref->u4_star);
    else
        printf("Tc estimate: none (a pair of sizes has no crossing in the window: widen "
               "it, or run longer)\n");
    print_xi(s, a);
}

static bool write_points(const struct study *s, const struct analysis *a, const char *dir)
{
    char path[4096];
    FILE *f = ex_create(dir, "ising_critical.dat", path, sizeof path);
    if (f == NULL)
        return false;
    fprintf(f, "# %dD Ising, %s; %d chains per point; measured sweeps per chain:", s->dim,
            s->algo_name, s->R);
    for (int l = 0; l < s->nL; l++)
        fprintf(f, " L=%d: %llu", s->L[l], (unsigned long long)s->sweeps[l]);
    fprintf(f, "\n# one block per L (separated by two blank lines: gnuplot 'index')\n"
               "# L T U4 dU4 absm dabsm chi dchi e de C dC xi/L dxi/L\n");
    for (int l = 0; l < s->nL; l++) {
        for (int t = 0; t < s->nT; t++) {
            const struct point *p = &a->pt[l][t];
            fprintf(f, "%d %.6f %.8g %.4g %.8g %.4g %.8g %.4g %.10g %.4g %.8g %.4g %.8g %.4g\n",
                    s->L[l], s->T[t], p->u4, p->du4, p->absm, p->dabsm, p->chi, p->dchi,
                    p->e, p->de, p->c, p->dc, p->xil, p->dxil);
        }
        fprintf(f, "\n\n");
    }
    if (!ex_close(f, path))
        return false;

    f = ex_create(dir, "ising_critical_crossings.dat", path, sizeof path);
    if (f == NULL)
        return false;
    fprintf(f, "# crossings of the fitted U4(T) and xi/L(T); jackknife errors\n"
               "# quantity La Lb Tc dTc value dvalue\n");
    for (int p = 0; p < a->npairs; p++) {
        const struct crossing *c = &a->pair[p];
        if (c->found)
            fprintf(f, "U4 %d %d %.8f %.3g %.6f %.3g\n", s->L[c->la], s->L[c->lb], c->tc,
                    c->dtc, c->u, c->du);
    }
    for (int p = 0; a->have_xi && p < a->npairs; p++) {
        const struct crossing *c = &a->xpair[p];
        if (c->found)
            fprintf(f, "xi/L %d %d %.8f %.3g %.6f %.3g\n", s->L[c->la], s->L[c->lb], c->tc,
                    c->dtc, c->u, c->du);
    }
    return ex_close(f, path);
}

/* A fitted polynomial as the gnuplot function <name>(T), undefined (1/0, not drawn)
 * outside [tmin, tmax], the window it was fitted over. */
static void write_poly(FILE *f, const char *name, const struct poly *p, double tmin,
                       double tmax)
{
    /* Horner: c0 + x (c1 + x (c2 + ...)), x = (T - t0) / h */
    fprintf(f, "%s(T) = (T < %.12g || T > %.12g) ? 1/0 : ", name, tmin, tmax);
    for (int k = 0; k < p->deg; k++)
        fprintf(f, "%.12g + ((T - %.12g) / %.12g) * (", p->c[k], p->t0, p->h);
    fprintf(f, "%.12g", p->c[p->deg]);
    for (int k = 0; k < p->deg; k++)
        fprintf(f, ")");
    fprintf(f, "\n");
}

static bool write_script(const struct study *s, const struct analysis *a, const char *dir)
{
    char path[4096];
    FILE *f = ex_create(dir, "ising_critical.gp", path, sizeof path);
    if (f == NULL)
        return false;
    fprintf(f,
        "# gnuplot ising_critical.gp  ->  ising_critical.png\n"
        "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
        "    set terminal pngcairo size 1300,520 font ',11'\n"
        "} else {\n"
        "    set terminal png size 1300,520\n"
        "}\n"
        "set output 'ising_critical.png'\n"
        "set multiplot layout 1,2 title '%dD Ising (%s): Binder cumulant crossings'\n"
        "Tc = %.9f\n", s->dim, s->algo_name, critical_refs(s->dim)->tc);
    for (int p = 0; p < a->npairs; p++) {
        const struct crossing *c = &a->pair[p];
        char name[32];
        if (!c->found)
            continue;
        snprintf(name, sizeof name, "fa%d", p);
        write_poly(f, name, &c->fa, s->T[c->t_lo], s->T[c->t_hi]);
        snprintf(name, sizeof name, "fb%d", p);
        write_poly(f, name, &c->fb, s->T[c->t_lo], s->T[c->t_hi]);
    }
    fprintf(f,
        "set xlabel 'T'\nset ylabel 'U_4'\nset key bottom left\n"
        "set arrow 1 from Tc, graph 0 to Tc, graph 1 nohead dt 2\n"
        "set label 1 'T_c' at Tc, graph 0.95 offset 0.5,0\n"
        "set xrange [%.6f:%.6f]\nset samples 400\n",
        s->T[0] - 0.1 * (s->T[1] - s->T[0]), s->T[s->nT - 1] + 0.1 * (s->T[1] - s->T[0]));
    fprintf(f, "plot \\\n");
    for (int l = 0; l < s->nL; l++)
        fprintf(f, "  'ising_critical.dat' index %d using 2:3:4 with yerrorbars lc %d pt 7 "
                   "ps 0.6 title 'L = %d', \\\n", l, l + 1, s->L[l]);
    /* The fits near each crossing, in the colours of their sizes. */
    for (int p = 0; p < a->npairs; p++)
        if (a->pair[p].found)
            fprintf(f, "  fa%d(x) with lines lc %d notitle, fb%d(x) with lines lc %d notitle, "
                       "\\\n", p, a->pair[p].la + 1, p, a->pair[p].lb + 1);
    if (a->found)
        fprintf(f, "  '+' using (%.8f):(%.6f):(%.8f) every ::0::0 with xerrorbars lc 'black' "
                   "pt 6 ps 1.5 title 'T_c estimate'\n", a->tc, a->u, a->dtc);
    else
        fprintf(f, "  1/0 notitle\n");
    fprintf(f, "unset arrow 1\nunset label 1\n"
               "set ylabel '{/Symbol c} / L^{%.4g}'\nset key top right\n"
               "set arrow 1 from Tc, graph 0 to Tc, graph 1 nohead dt 2\nplot \\\n",
            critical_refs(s->dim)->gamma_nu);
    const double gn = critical_refs(s->dim)->gamma_nu;
    for (int l = 0; l < s->nL; l++)
        fprintf(f, "  'ising_critical.dat' index %d using 2:($7/$1**%.6g):($8/$1**%.6g) "
                   "with yerrorlines lc %d pt 7 ps 0.6 title 'L = %d'%s\n",
                l, gn, gn, l + 1, s->L[l], l + 1 < s->nL ? ", \\" : "");
    fprintf(f, "unset multiplot\n");
    return ex_close(f, path);
}

bool report_write(const struct study *s, const struct analysis *a, const char *dir)
{
    return write_points(s, a, dir) && write_script(s, a, dir);
}
