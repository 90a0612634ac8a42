/* spinglass_replicas — the table, the data files and the gnuplot script. */
#include <math.h>
#include <stdio.h>

#include "ex_output.h"
#include "output.h"

void sg_print(const struct sg_study *s, const struct sg_point *pts)
{
    printf("\n%6s %22s %10s %20s %18s %16s %10s\n", "T", "[<e>]", "high-T", "[<q^2>]",
           "chi_SG", "g", "2nd half");
    for (int t = 0; t < s->nT; t++) {
        const struct sg_point *p = &pts[t];
        printf("%6.3f %11.5f +- %.5f %10.5f %9.5f +- %.5f %8.2f +- %.2f %7.3f +- %.3f %10.5f\n",
               s->T[t], p->e, p->de, p->e_tree, p->q2, p->dq2, p->chi, p->dchi, p->g, p->dg,
               p->q2_late);
    }
    printf("\nhigh-T: -%d [J L(J/T)], the energy of independent bonds, exact as T -> inf;\n"
           "g = (11 - 9 [<q^4>]/[<q^2>]^2)/2 is 0 in the paramagnet and grows with order;\n"
           "2nd half: [<q^2>] of the second halves of the chains (equal to the whole within "
           "errors when the chains are equilibrated)\n", s->ndim);
}

static bool write_table(const struct sg_study *s, const struct sg_point *pts, const char *dir)
{
    char path[4096];
    FILE *f = ex_create(dir, "spinglass.dat", path, sizeof path);
    if (f == NULL)
        return false;
    fprintf(f, "# %dD Heisenberg spin glass, Gaussian couplings, L = %d, two replicas; "
               "%d disorder samples, %llu measured sweeps each (nover = %d)\n"
               "# T beta e de q2 dq2 chiSG dchiSG g dg q2_second_half e_hightemp\n",
            s->ndim, s->L, s->nsamples, (unsigned long long)s->sweeps, s->nover);
    for (int t = 0; t < s->nT; t++) {
        const struct sg_point *p = &pts[t];
        fprintf(f, "%.6f %.6f %.8f %.3g %.8f %.3g %.6g %.3g %.6f %.3g %.8f %.8f\n", s->T[t],
                1.0 / s->T[t], p->e, p->de, p->q2, p->dq2, p->chi, p->dchi, p->g, p->dg,
                p->q2_late, p->e_tree);
    }
    if (!ex_close(f, path))
        return false;

    f = ex_create(dir, "spinglass_qhist.dat", path, sizeof path);
    if (f == NULL)
        return false;
    fprintf(f, "# disorder-averaged distribution of q^2 = sum_{mu,nu} q_{mu nu}^2, as a density "
               "in log10(q^2) (bins of equal width in log10 q^2); one block per T (gnuplot "
               "'index')\n# T q2_bin_centre P(log10 q2)\n");
    for (int t = 0; t < s->nT; t++) {
        for (int b = 0; b < SG_QBINS; b++)
            fprintf(f, "%.6f %.6g %.6g\n", s->T[t], sg_qbin_centre(b), pts[t].p[b]);
        fprintf(f, "\n\n");
    }
    return ex_close(f, path);
}

static bool write_script(const struct sg_study *s, const char *dir)
{
    char path[4096];
    FILE *f = ex_create(dir, "spinglass.gp", path, sizeof path);
    if (f == NULL)
        return false;
    fprintf(f,
        "# gnuplot spinglass.gp  ->  spinglass.png\n"
        "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
        "    set terminal pngcairo size 1300,520 font ',11'\n"
        "} else {\n"
        "    set terminal png size 1300,520\n"
        "}\n"
        "set output 'spinglass.png'\n"
        "set multiplot layout 1,2 title '%dD Heisenberg spin glass, Gaussian J, L = %d, "
        "%d samples'\n"
        "set xlabel 'T'\nset ylabel 'e = E/N'\nset key bottom right\n"
        "plot 'spinglass.dat' using 1:3:4 with yerrorbars pt 7 title 'Monte Carlo', \\\n"
        "     '' using 1:12 with linespoints dt 2 title 'independent bonds (T -> inf)'\n"
        "set xlabel 'q^2'\nset ylabel 'P(log_{10} q^2)'\nset logscale x\n"
        "set format x '10^{%%L}'\nset key top left\nplot \\\n",
        s->ndim, s->L, s->nsamples);
    for (int t = 0; t < s->nT; t++)
        fprintf(f, "  'spinglass_qhist.dat' index %d using 2:3 with histeps title 'T = %g'%s\n",
                t, s->T[t], t + 1 < s->nT ? ", \\" : "");
    fprintf(f, "unset multiplot\n");
    return ex_close(f, path);
}

bool sg_write(const struct sg_study *s, const struct sg_point *pts, const char *dir)
{
    return write_table(s, pts, dir) && write_script(s, dir);
}
