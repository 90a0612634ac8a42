/*
 * Wolff's embedding for Heisenberg spins (Wolff 1989; doc/models/heisenberg.md, "Cluster
 * steps"). Each step draws a unit direction r; written s_i = s_i' + a_i r with
 * a_i = r . s_i, the weight exp(beta sum J_ij s_i . s_j + beta h sum s_i^z) depends on
 * the signs of the a_i through exp(sum beta J_ij a_i a_j + beta h r_z sum a_i) only: an
 * Ising model with couplings beta J_ij |a_i a_j| (of J's sign: Gaussian couplings are
 * fine) in the field beta h r_z |a_i|. lib/cluster_embed.h's step on it, and a flip is the
 * reflection s -> s - 2 (r . s) r, its own inverse (normalised in double before it is
 * rounded to float, as every spin the library writes). Each replica has its own direction
 * and clusters (the replica's stream).
 */
#include <math.h>
#include <stdlib.h>

#include "backend.h"
#include "cluster_embed.h"
#include "heisenberg_rules.h"
#include "model.h"
#include "part.h"

/* The step's direction, uniform on the sphere as the hot start draws a spin: z = 2 u0 - 1
 * to e_z, azimuth 2 pi u1, u = (r + 1/2) 2^-32 of draws 0 and 1 of phase
 * LATMC_EMBED_PHASE_AXIS (lib/heisenberg_rules.h's functions, libm's sqrt only). */
void latmc_embed_heisenberg_axis(const struct latmc_embed_problem *p, double r[3])
{
    const double z =
        2.0 * latmc_heisenberg_uniform(latmc_embed_draw(p, LATMC_EMBED_PHASE_AXIS, 0)) - 1.0;
    const double rho = sqrt((1.0 - z) * (1.0 + z));
    double sin_phi, cos_phi;
    latmc_math_sincos_2pi(latmc_heisenberg_uniform(latmc_embed_draw(p, LATMC_EMBED_PHASE_AXIS, 1)),
                          &sin_phi, &cos_phi);
    r[0] = rho * cos_phi;
    r[1] = rho * sin_phi;
    r[2] = z;
}

/* beta J of every bond. Collective on a part of n_parts > 1 (the couplings of every
 * part gathered: each part runs the step on the whole lattice). A backend without
 * get_couplings (optional in lib/backend.h) cannot give the host copy its couplings:
 * LATMC_EUNSUPPORTED, agreed on by every part. */
static int load_couplings(latmc_sim *sim, struct latmc_embed_work *w)
{
    const size_t count = (size_t)sim->nsites * (size_t)sim->desc.ndim;
    float *c = malloc(count * sizeof *c);
    if (!w->kbond)
        w->kbond = malloc(count * sizeof *w->kbond);
    int st = c && w->kbond ? LATMC_OK
                           : latmc_fail(LATMC_ENOMEM, "latmc_sim_sweep: cannot allocate the "
                                        "couplings of the cluster step");
    if (st == LATMC_OK && !sim->ops->get_couplings)
        st = latmc_fail(LATMC_EUNSUPPORTED, "latmc_sim_sweep: the %s backend gives no "
                        "couplings (ops.get_couplings) for the host's cluster step of the "
                        "%s model", sim->ops->name, sim->model->name);
    if (latmc_part_many(sim) && (st = latmc_part_agree(sim, st)) == LATMC_OK)
        st = latmc_part_get_couplings(sim, c);
    else if (!latmc_part_many(sim) && st == LATMC_OK)
        st = sim->ops->get_couplings(sim, c);
    const double beta = sim->param[LATMC_PARAM_BETA];
    for (size_t k = 0; st == LATMC_OK && k < count; k++)
        w->kbond[k] = beta * (double)c[k];
    free(c);
    return st;
}

int latmc_embed_heisenberg_step(latmc_sim *sim, struct latmc_embed_work *w, uint64_t sweep,
                                struct latmc_embed_stats *stats)
{
    const int st = load_couplings(sim, w);
    if (st < 0)
        return st;
    struct latmc_embed_problem p = { 0 };
    p.g = latmc_cluster_lattice_of(sim->desc.ndim, sim->desc.extent);
    p.n_dirs = sim->desc.ndim;
    for (int mu = 0; mu < p.n_dirs; mu++)
        p.off[mu][mu] = 1;
    p.kbond = w->kbond;
    p.seed = sim->desc.seed;
    p.sweep = sweep;
    p.wolff = sim->desc.algorithm == LATMC_ALGO_WOLFF;
    p.n_threads = sim->n_threads;
    const int64_t n = sim->nsites;
    const double beta_h = sim->param[LATMC_PARAM_BETA] * sim->param[LATMC_PARAM_H];
    for (int rep = 0; rep < sim->desc.replicas; rep++) {
        float *s = (float *)w->field + (size_t)LATMC_HEISENBERG_COMPONENTS * (size_t)n * (size_t)rep;
        double r[3];
        p.replica = (uint32_t)rep;
        latmc_embed_heisenberg_axis(&p, r);
        p.field = beta_h * r[2];
        for (int64_t i = 0; i < n; i++) {
            const float *v = s + LATMC_HEISENBERG_COMPONENTS * i;
            w->a[i] = r[0] * v[0] + r[1] * v[1] + r[2] * v[2];
        }
        struct latmc_embed_stats one;
        latmc_embed_step(&p, w, &one);
        if (rep == 0) {
            *stats = one;
            stats->w2 *= 3.0; /* <(r . M)^2> = <|M|^2> / 3 for a uniform r */
        }
        for (int64_t i = 0; i < n; i++) {
            if (!w->flip[i])
                continue;
            float *v = s + LATMC_HEISENBERG_COMPONENTS * i;
            const double two_a = 2.0 * w->a[i];
            double out[3];
            for (int c = 0; c < 3; c++)
                out[c] = (double)v[c] - two_a * r[c];
            latmc_heisenberg_store_unit(out, v); /* as every spin the library writes */
        }
    }
    return LATMC_OK;
}

int latmc_embed_heisenberg_backend_step(latmc_sim *sim, struct latmc_embed_work *w,
                                        uint64_t sweep)
{
    const struct latmc_backend_ops *ops = sim->ops;
    int (*step)(latmc_sim *, int, struct latmc_embed_job *) = LATMC_BACKEND_OP(ops, embed_step);
    /* Swendsen-Wang and Wolff, in a field too: the decisions' sums are integers
     * (lib/cluster_embed_sum.h), the same in any order a device adds them in */
    const double beta_h = sim->param[LATMC_PARAM_BETA] * sim->param[LATMC_PARAM_H];
    if (!step || sim->desc.model != LATMC_MODEL_HEISENBERG || sim->desc.replicas > 2 ||
        latmc_part_many(sim))
        return LATMC_EUNSUPPORTED;
    struct latmc_embed_job job = { 0 };
    job.sweep = sweep;
    job.beta = sim->param[LATMC_PARAM_BETA];
    struct latmc_embed_problem p = { 0 };
    p.seed = sim->desc.seed;
    p.sweep = sweep;
    for (int rep = 0; rep < sim->desc.replicas; rep++) {
        p.replica = (uint32_t)rep;
        latmc_embed_heisenberg_axis(&p, job.axis[rep]);
        job.field[rep] = beta_h * job.axis[rep][2]; /* latmc_embed_heisenberg_step's F */
    }
    if (step(sim, LATMC_EMBED_ASK, &job) != LATMC_OK)
        return LATMC_EUNSUPPORTED;
    const int st = step(sim, LATMC_EMBED_STEP, &job);
    w->names_on_backend = st == LATMC_OK;
    w->names_sweep = sweep;
    return st;
}
