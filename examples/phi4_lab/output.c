/* phi4_lab — the table on stdout, the data file and the gnuplot script. */
#include <math.h>
#include <stdio.h>

#include "ex_output.h"
#include "output.h"

/* Where U4 of two sizes cross, by linear interpolation between neighbouring mu2: a rough
 * locator of the transition (the smaller mu2 is, the more ordered; larger lattices order
 * more sharply, so U4_big - U4_small goes from + to - as mu2 grows). NaN if they do not. */
static double u4_crossing(const struct lab *lab, const struct lab_point *a,
                          const struct lab_point *b)
{
    for (int i = 0; i + 1 < lab->npoints; i++) {
        double d0 = b[i].u4 - a[i].u4, d1 = b[i + 1].u4 - a[i + 1].u4;
        if (d0 > 0.0 && d1 <= 0.0)
            return a[i].mu2 + (a[i + 1].mu2 - a[i].mu2) * d0 / (d0 - d1);
    }
    return NAN;
}

void lab_print(const struct lab *lab, const struct lab_point *res)
{
    for (int l = 0; l < lab->nL; l++) {
        const struct lab_point *p = res + l * lab->npoints;
        printf("\nL = %d (%dD, %d sites)\n  %8s %18s %18s %18s %8s %8s\n", lab->L[l],
               lab->ndim, (int)pow(lab->L[l], lab->ndim), "mu2", "<|phi|>", "chi", "U4",
               "accept", "epsilon");
        for (int i = 0; i < lab->npoints; i++)
            printf("  %8.4f %9.5f +- %.5f %9.3f +- %.3f %8.4f +- %.4f %8.3f %8.4f\n",
                   p[i].mu2, p[i].absm, p[i].dabsm, p[i].chi, p[i].dchi, p[i].u4, p[i].du4,
                   p[i].acceptance, p[i].epsilon);
    }
    printf("\n");
    for (int l = 0; l + 1 < lab->nL; l++) {
        double c = u4_crossing(lab, res + l * lab->npoints, res + (l + 1) * lab->npoints);
        if (isnan(c))
            printf("U4 of L = %d and %d: no crossing in the scan\n", lab->L[l], lab->L[l + 1]);
        else
            printf("U4 of L = %d and %d cross near mu2 = %.3f (linear interpolation): the "
                   "transition at g = %g, Lambda = %g\n", lab->L[l], lab->L[l + 1], c, lab->g,
                   lab->lambda);
    }
}

static bool write_data(const struct lab *lab, const struct lab_point *res, const char *dir)
{
    char path[4096];
    FILE *f = ex_create(dir, "phi4_lab.dat", path, sizeof path);
    if (f == NULL)
        return false;
    fprintf(f, "# phi^4, %dD, g = %.17g, Lambda = %.17g, nhit = %d, nloc = %d, %s field\n"
               "# %llu measured sweeps per point; one block per L (gnuplot 'index')\n"
               "# L mu2 absm dabsm chi dchi U4 dU4 phi2 dphi2 acceptance epsilon\n",
            lab->ndim, lab->g, lab->lambda, lab->nhit, lab->nloc,
            lab->precision == LATMC_PRECISION_FLOAT ? "float" : "double",
            (unsigned long long)lab->sweeps);
    for (int l = 0; l < lab->nL; l++) {
        for (int i = 0; i < lab->npoints; i++) {
            const struct lab_point *p = &res[l * lab->npoints + i];
            fprintf(f, "%d %.6f %.8g %.3g %.8g %.3g %.8g %.3g %.8g %.3g %.5f %.6g\n",
                    lab->L[l], p->mu2, p->absm, p->dabsm, p->chi, p->dchi, p->u4, p->du4,
                    p->phi2, p->dphi2, p->acceptance, p->epsilon);
        }
        fprintf(f, "\n\n");
    }
    return ex_close(f, path);
}

/* One panel: column `col` with errors in col + 1, against mu2, one curve per size. */
static void panel(FILE *f, const struct lab *lab, const char *ylabel, int col)
{
    fprintf(f, "set ylabel '%s'\nplot \\\n", ylabel);
    for (int l = 0; l < lab->nL; l++)
        fprintf(f, "  'phi4_lab.dat' index %d using 2:%d:%d with yerrorlines pt 7 ps 0.6 "
                   "title 'L = %d'%s\n", l, col, col + 1, lab->L[l],
                l + 1 < lab->nL ? ", \\" : "");
}

static bool write_script(const struct lab *lab, const char *dir)
{
    char path[4096];
    FILE *f = ex_create(dir, "phi4_lab.gp", path, sizeof path);
    if (f == NULL)
        return false;
    fprintf(f,
        "# gnuplot phi4_lab.gp  ->  phi4_lab.png\n"
        "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
        "    set terminal pngcairo size 1500,480 font ',11'\n"
        "} else {\n"
        "    set terminal png size 1500,480\n"
        "}\n"
        "set output 'phi4_lab.png'\n"
        "set multiplot layout 1,3 title '%dD phi^4: g = %g, {/Symbol L} = %g'\n"
        "set xlabel '{/Symbol m}^2'\nset key top right\n",
        lab->ndim, lab->g, lab->lambda);
    panel(f, lab, "<|{/Symbol f}|>", 3);
    panel(f, lab, "{/Symbol c} = N (<{/Symbol f}^2> - <|{/Symbol f}|>^2)", 5);
    fprintf(f, "set key bottom left\n");
    panel(f, lab, "U_4 = 1 - <{/Symbol f}^4> / 3<{/Symbol f}^2>^2", 7);
    fprintf(f, "unset multiplot\n");
    return ex_close(f, path);
}

bool lab_write(const struct lab *lab, const struct lab_point *res, const char *dir)
{
    return write_data(lab, res, dir) && write_script(lab, dir);
}
