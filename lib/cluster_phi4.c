/*
 * phi^4's embedded Ising clusters (Brower and Tamayo 1989; doc/models/phi4.md, "Cluster
 * steps"). Written phi_i = sigma_i |phi_i|, H depends on the signs only through its
 * off-diagonal quadratic terms, -sum over coupled pairs of K_ij phi_i phi_j; reading them
 * off H (the kinetic term and the square of the Laplacian, D = A - 2k with A the
 * adjacency matrix, so (D phi)^2 = phi (A^2 - 4k A + 4k^2) phi):
 *   nearest neighbours x, x + e_mu:         K = 1 + 4k / Lambda
 *   x, x + 2 e_mu:                          K = -1 / Lambda
 *   x, x + e_mu +- e_nu (mu < nu):          K = -2 / Lambda
 * (k = ndim; the last two absent for Lambda = inf). The extents phi^4 allows (>= 5) keep
 * all these partners distinct. The step is lib/cluster_embed.h's with a_i = phi_i and no
 * field; a flip is phi -> -phi, exact in both precisions.
 */
#include <math.h>

#include "backend.h"
#include "cluster_embed.h"
#include "part.h"

void latmc_embed_phi4_couplings(int ndim, double lambda, double *k_near, double *k_axis2,
                                double *k_diag)
{
    if (!isfinite(lambda)) { /* the 1/Lambda term is off: a branch, never 1/inf */
        *k_near = 1.0;
        *k_axis2 = *k_diag = 0.0;
        return;
    }
    *k_near = 1.0 + 4.0 * ndim / lambda;
    *k_axis2 = -1.0 / lambda;
    *k_diag = -2.0 / lambda;
}

/* The directions of the step, in their fixed order (their numbers name the bond draws):
 * +e_mu (mu = 0 .. k-1); with a finite Lambda then +2 e_mu; then for each plane (mu, nu),
 * mu < nu in the order (0,1), (0,2), (1,2): +e_mu + e_nu, +e_mu - e_nu. */
void latmc_embed_phi4_dirs(int k, double lambda, struct latmc_embed_problem *p)
{
    double kn, k2, kd;
    latmc_embed_phi4_couplings(k, lambda, &kn, &k2, &kd);
    int n = 0;
    for (int mu = 0; mu < k; mu++, n++) {
        p->off[n][0] = p->off[n][1] = p->off[n][2] = 0;
        p->off[n][mu] = 1;
        p->k[n] = kn;
    }
    if (isfinite(lambda)) {
        for (int mu = 0; mu < k; mu++, n++) {
            p->off[n][0] = p->off[n][1] = p->off[n][2] = 0;
            p->off[n][mu] = 2;
            p->k[n] = k2;
        }
        for (int mu = 0; mu < k; mu++)
            for (int nu = mu + 1; nu < k; nu++)
                for (int s = 1; s >= -1; s -= 2, n++) {
                    p->off[n][0] = p->off[n][1] = p->off[n][2] = 0;
                    p->off[n][mu] = 1;
                    p->off[n][nu] = s;
                    p->k[n] = kd;
                }
    }
    p->n_dirs = n;
}

int latmc_embed_phi4_step(latmc_sim *sim, struct latmc_embed_work *w, uint64_t sweep,
                          struct latmc_embed_stats *stats)
{
    struct latmc_embed_problem p = { 0 };
    p.g = latmc_cluster_lattice_of(sim->desc.ndim, sim->desc.extent);
    latmc_embed_phi4_dirs(sim->desc.ndim, sim->param[LATMC_PARAM_LAMBDA], &p);
    p.seed = sim->desc.seed;
    p.sweep = sweep;
    p.wolff = sim->desc.algorithm == LATMC_ALGO_WOLFF;
    p.n_threads = sim->n_threads;
    const int64_t n = sim->nsites;
    const int single = sim->desc.precision == LATMC_PRECISION_FLOAT;
    float *f = w->field;
    double *d = w->field;
    for (int64_t i = 0; i < n; i++)
        w->a[i] = single ? (double)f[i] : d[i];
    latmc_embed_step(&p, w, stats);
    for (int64_t i = 0; i < n; i++)
        if (w->flip[i]) {
            if (single)
                f[i] = -f[i];
            else
                d[i] = -d[i];
        }
    return LATMC_OK;
}

int latmc_embed_phi4_backend_step(latmc_sim *sim, struct latmc_embed_work *w, uint64_t sweep)
{
    const struct latmc_backend_ops *ops = sim->ops;
    int (*step)(latmc_sim *, int, struct latmc_embed_job *) = LATMC_BACKEND_OP(ops, embed_step);
    if (!step || latmc_part_many(sim))
        return LATMC_EUNSUPPORTED;
    struct latmc_embed_job job = { 0 };
    job.sweep = sweep;
    const double lambda = sim->param[LATMC_PARAM_LAMBDA];
    latmc_embed_phi4_couplings(sim->desc.ndim, lambda, &job.beta, &job.k_axis2, &job.k_diag);
    /* the directions in the core's order (their numbers name the bond draws); with a
     * finite Lambda the backend asked may decline (then the host copy steps) */
    struct latmc_embed_problem dirs = { 0 };
    latmc_embed_phi4_dirs(sim->desc.ndim, lambda, &dirs);
    job.n_dirs = dirs.n_dirs;
    if (step(sim, LATMC_EMBED_ASK, &job) != LATMC_OK)
        return LATMC_EUNSUPPORTED;
    const int st = step(sim, LATMC_EMBED_STEP, &job);
    w->names_on_backend = st == LATMC_OK;
    w->names_sweep = sweep;
    w->names_lambda = lambda; /* the step's pairs, for Wolff's regrowth (a later change of
                                 Lambda does not change the last step's cluster) */
    return st;
}
