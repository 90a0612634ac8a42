/* potts_transition — data files and the gnuplot script. */
#include <stdio.h>

#include "ex_output.h"
#include "exact.h"
#include "output.h"

static bool write_scan(const struct case_result *r, int n, const char *dir)
{
    char path[4096];
    FILE *f = ex_create(dir, "potts_scan.dat", path, sizeof path);
    if (f == NULL)
        return false;
    fprintf(f, "# 2D q-state Potts, heat bath; one block per q (gnuplot 'index')\n"
               "# q L beta/beta_c beta e de m dm C dC chi dchi xi/L dxi/L (NaN: not real)\n");
    for (int k = 0; k < n; k++) {
        for (int i = 0; i < r[k].c->nscan; i++) {
            const struct scan_point *p = &r[k].pts[i];
            fprintf(f, "%d %d %.6f %.8f %.8f %.3g %.6f %.3g %.6g %.3g %.6g %.3g %.6g %.3g\n",
                    r[k].c->q, r[k].c->L, p->beta / r[k].c->beta_c, p->beta, p->e, p->de, p->m,
                    p->dm, p->c, p->dc, p->chi, p->dchi, p->xil, p->dxil);
        }
        fprintf(f, "\n\n");
    }
    return ex_close(f, path);
}

static bool write_hist(const struct case_result *r, int n, const char *dir)
{
    char path[4096];
    FILE *f = ex_create(dir, "potts_hist.dat", path, sizeof path);
    if (f == NULL)
        return false;
    fprintf(f, "# energy distributions P(e), e = E/N; one block per q (gnuplot 'index')\n"
               "# q e P(e) at beta_c, P(e) reweighted to beta_eqw (= P at beta_c when not "
               "double-peaked)\n");
    for (int k = 0; k < n; k++) {
        const struct binned *b = &r[k].at_beta_c;
        const struct binned *w = r[k].have_reweighted ? &r[k].at_eqw : b;
        for (int j = 0; j < b->nbins; j++)
            fprintf(f, "%d %.6f %.6g %.6g\n", r[k].c->q, b->e[j], b->p[j],
                    j < w->nbins ? w->p[j] : 0.0);
        fprintf(f, "\n\n");
    }
    return ex_close(f, path);
}

static bool write_script(const struct case_result *r, int n, const char *dir)
{
    char path[4096];
    FILE *f = ex_create(dir, "potts_transition.gp", path, sizeof path);
    if (f == NULL)
        return false;
    fprintf(f,
        "# gnuplot potts_transition.gp  ->  potts_transition.png\n"
        "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
        "    set terminal pngcairo size 1600,900 font ',11'\n"
        "} else {\n"
        "    set terminal png size 1600,900\n"
        "}\n"
        "set output 'potts_transition.png'\n"
        "set multiplot layout 2,3 title '2D q-state Potts across beta_c = ln(1 + sqrt q)'\n"
        "set xlabel '{/Symbol b} / {/Symbol b}_c'\n"
        "set arrow 1 from 1, graph 0 to 1, graph 1 nohead dt 2\n"
        "set ylabel 'e = E/N'\nset key bottom left\nplot \\\n");
    for (int k = 0; k < n; k++)
        fprintf(f, "  'potts_scan.dat' index %d using 3:5:6 with yerrorlines pt 7 ps 0.6 "
                   "title 'q = %d, L = %d'%s\n", k, r[k].c->q, r[k].c->L,
                k + 1 < n ? ", \\" : "");
    /* the order parameter (LATMC_OBS_MAGNETIZATION, doc/models/potts.md): rises from
     * about 0 continuously for q = 3, jumps for q = 10 */
    fprintf(f, "set ylabel 'order parameter m'\nset key top left\nplot \\\n");
    for (int k = 0; k < n; k++)
        fprintf(f, "  'potts_scan.dat' index %d using 3:7:8 with yerrorlines pt 7 ps 0.6 "
                   "title 'q = %d, L = %d'%s\n", k, r[k].c->q, r[k].c->L,
                k + 1 < n ? ", \\" : "");
    fprintf(f, "set ylabel 'specific heat C'\nset logscale y\nset key top left\nplot \\\n");
    for (int k = 0; k < n; k++)
        fprintf(f, "  'potts_scan.dat' index %d using 3:9:10 "
                   "with yerrorlines pt 7 ps 0.6 title 'q = %d, L = %d'%s\n", k, r[k].c->q,
                r[k].c->L, k + 1 < n ? ", \\" : "");
    fprintf(f, "unset logscale y\nunset arrow 1\nset xlabel 'e = E/N'\nset ylabel 'P(e)'\n"
               "set key top right\n");
    for (int k = 0; k < n; k++) {
        const struct case_result *c = &r[k];
        double eo = potts_energy_c(c->c->q, -1), ed = potts_energy_c(c->c->q, +1);
        fprintf(f, "unset arrow\nset arrow from %.6f, graph 0 to %.6f, graph 1 nohead dt 2\n",
                eo, eo);
        if (ed != eo)
            fprintf(f, "set arrow from %.6f, graph 0 to %.6f, graph 1 nohead dt 2\n", ed, ed);
        fprintf(f, "set title 'q = %d, L = %d (dashed: exact infinite-volume e at beta_c)'\n",
                c->c->q, c->c->L);
        fprintf(f, "plot 'potts_hist.dat' index %d using 2:3 with steps title "
                   "'{/Symbol b}_c = %.6f'", k, c->c->beta_c);
        if (c->have_reweighted)
            fprintf(f, ", '' index %d using 2:4 with lines title 'reweighted to W_o = q W_d, "
                       "{/Symbol b} = %.6f'", k, c->beta_eqw);
        fprintf(f, "\n");
    }
    fprintf(f, "unset multiplot\n");
    return ex_close(f, path);
}

bool output_write(const struct case_result *r, int n, const char *dir)
{
    return write_scan(r, n, dir) && write_hist(r, n, dir) && write_script(r, n, dir);
}
