/* checkasm: what the two Ising checks share (check_ising_common.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "check_ising_common.h"
#include "checkasm.h"
#include "decision.h" /* latmc_threshold_u32 */
#include "ising_ref.h"

void checkasm_ising_tables(struct latmc_ising_tables *t, int ndim, double beta, double J,
                           double h)
{
    memset(t, 0, sizeof *t);
    for (int k = 0; k <= 2 * ndim; k++) {
        const int n = 2 * k - 2 * ndim;
        for (int up = 0; up < 2; up++) {
            const double de = 2.0 * (up ? 1 : -1) * (J * n + h);
            t->metropolis[up][k] =
                latmc_threshold_u32(beta == 0.0 || de <= 0.0 ? 1.0 : exp(-beta * de));
        }
        t->heatbath[k] = latmc_threshold_u32(beta == 0.0 ? 0.5
                                             : 1.0 / (1.0 + exp(-2.0 * beta * (J * n + h))));
    }
}

int checkasm_ising_bench_open(struct checkasm_ising_bench *b, const char *func, int ndim,
                              int64_t L, int64_t rows)
{
    memset(b, 0, sizeof *b);
    b->g = (struct latmc_lattice){ ndim, L, rows, ndim == 3 ? rows : 1, 0 };
    b->g.nsites = b->g.lx * b->g.ly * b->g.lz;
    checkasm_ising_tables(&b->t, ndim, ndim == 3 ? 0.25 : 2.0 / 3.0, 1, 0);
    b->spins = malloc((size_t)b->g.nsites);
    if (!b->spins || cpu_ising_split_alloc(&b->s, &b->g) != 0) {
        free(b->spins);
        checkasm_fail(func, "c", "out of memory");
        return 0;
    }
    cpu_ising_hot_start(&b->g, b->spins, 1, 1);
    cpu_ising_split_from_natural(&b->s, b->spins, 1);
    return 1;
}

void checkasm_ising_bench_close(struct checkasm_ising_bench *b)
{
    cpu_ising_split_free(&b->s);
    free(b->spins);
}
