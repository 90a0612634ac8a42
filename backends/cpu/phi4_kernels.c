/*
 * The phi^4 model on the CPU: a float or double field (desc.precision) in natural site
 * order, the reference kernels of phi4_sweep.c and phi4_measure.c.
 */
#include <stdlib.h>
#include <string.h>

#include "cpu_backend.h"
#include "model.h"
#include "phi4_ref.h"

struct phi4_state {
    struct phi4_geom geom;
    bool single;          /* float field (LATMC_PRECISION_FLOAT), else double */
    void *field;          /* N values of the field type */
    double *partials;     /* PHI4_NPARTIALS per row, for the deterministic reduction */
};

static struct phi4_state *phi4_state(struct cpu_state *st)
{
    return st->model_state;
}

static size_t field_bytes(const latmc_sim *sim)
{
    return (size_t)sim->nsites * sim->model->site_bytes(&sim->desc);
}

static void phi4_destroy(struct cpu_state *st)
{
    struct phi4_state *p = phi4_state(st);
    if (p) {
        free(p->field);
        free(p->partials);
        free(p);
    }
    st->model_state = NULL;
}

static int phi4_create(latmc_sim *sim, struct cpu_state *st)
{
    struct phi4_state *p = calloc(1, sizeof *p);
    st->model_state = p;
    if (!p)
        return latmc_fail(LATMC_ENOMEM, "CPU backend: cannot allocate the phi^4 state");
    p->geom = phi4_geom_of(&st->lattice); /* the core's check_desc guarantees a colouring */
    p->single = sim->desc.precision == LATMC_PRECISION_FLOAT;
    const size_t rows = (size_t)(st->lattice.ly * st->lattice.lz);
    p->field = malloc(field_bytes(sim));
    p->partials = malloc(rows * PHI4_NPARTIALS * sizeof(double));
    if (!p->field || !p->partials) {
        phi4_destroy(st);
        return latmc_fail(LATMC_ENOMEM, "CPU backend: cannot allocate %zu bytes of phi^4 field",
                          field_bytes(sim));
    }
    return LATMC_OK;
}

static int phi4_init_spins(latmc_sim *sim, struct cpu_state *st, int how)
{
    struct phi4_state *p = phi4_state(st);
    if (how == LATMC_INIT_COLD) {
        memset(p->field, 0, field_bytes(sim)); /* all-zero bits are 0.0 in IEEE 754 */
    } else if (p->single) {
        cpu_phi4_hot_start_f(&p->geom, p->field, sim->desc.seed, sim->n_threads);
    } else {
        cpu_phi4_hot_start_d(&p->geom, p->field, sim->desc.seed, sim->n_threads);
    }
    return LATMC_OK;
}

static void phi4_sweep(latmc_sim *sim, struct cpu_state *st, uint64_t sweep, uint64_t *accepted,
                       uint64_t *attempted)
{
    struct phi4_state *p = phi4_state(st);
    const struct latmc_phi4_tables *t = sim->model_data;
    if (p->single)
        *accepted += cpu_phi4_sweep_f(&p->geom, p->field, t, sim->desc.seed, sweep,
                                      sim->n_threads);
    else
        *accepted += cpu_phi4_sweep_d(&p->geom, p->field, t, sim->desc.seed, sweep,
                                      sim->n_threads);
    *attempted += (uint64_t)sim->nsites * t->nloc * t->nhit;
}

static void phi4_measure(latmc_sim *sim, struct cpu_state *st, void *sums)
{
    struct phi4_state *p = phi4_state(st);
    struct latmc_phi4_sums *s = sums;
    if (p->single)
        *s = cpu_phi4_measure_f(&p->geom, p->field, p->partials, sim->n_threads);
    else
        *s = cpu_phi4_measure_d(&p->geom, p->field, p->partials, sim->n_threads);
}

static void phi4_get_spins(latmc_sim *sim, struct cpu_state *st, void *buf)
{
    memcpy(buf, phi4_state(st)->field, field_bytes(sim));
}

static void phi4_set_spins(latmc_sim *sim, struct cpu_state *st, const void *buf)
{
    memcpy(phi4_state(st)->field, buf, field_bytes(sim));
}

const struct cpu_model_kernels cpu_phi4_kernels = {
    .model = LATMC_MODEL_PHI4,
    .create = phi4_create,
    .destroy = phi4_destroy,
    .init_spins = phi4_init_spins,
    .sweep = phi4_sweep,
    .measure = phi4_measure,
    .get_spins = phi4_get_spins,
    .set_spins = phi4_set_spins,
};
