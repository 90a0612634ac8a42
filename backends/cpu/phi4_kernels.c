/*
 * The phi^4 model on the CPU: a float or double field (desc.precision), swept by the
 * kernels of the sim's SIMD level (phi4_dsp.h: the reference of phi4_sweep.c, or AVX2).
 * The reference keeps the field in natural site order; the SIMD levels keep it
 * colour-transposed and convert on the way in and out, and for the measurement, which is
 * always the reference reduction of phi4_measure.c on natural order.
 */
#include <stdlib.h>
#include <string.h>

#include "cpu_backend.h"
#include "model.h"
#include "phi4_dsp.h"
#include "phi4_ref.h"

struct phi4_state {
    struct phi4_geom geom;
    struct cpu_phi4_dsp dsp;
    bool single;          /* float field (LATMC_PRECISION_FLOAT), else double */
    void *alloc;          /* the field with PHI4_PAD values of slack on either side */
    void *field;          /* N values of the field type, in the dsp's layout */
    void *natural;        /* transposed layouts: N values in natural order, else NULL */
    double *partials;     /* PHI4_NPARTIALS per row, for the deterministic reduction */
};

static struct phi4_state *phi4_state(struct cpu_state *st)
{
    return st->model_state;
}

static size_t value_bytes(const latmc_sim *sim)
{
    return sim->model->site_bytes(&sim->desc);
}

static size_t field_bytes(const latmc_sim *sim)
{
    return (size_t)sim->nsites * value_bytes(sim);
}

static void phi4_destroy(struct cpu_state *st)
{
    struct phi4_state *p = phi4_state(st);
    if (p) {
        free(p->alloc);
        free(p->natural);
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
    cpu_phi4_dsp_init(&p->dsp, st->simd_flags);
    p->single = sim->desc.precision == LATMC_PRECISION_FLOAT;
    const size_t rows = (size_t)(st->lattice.ly * st->lattice.lz);
    const size_t pad = PHI4_PAD * value_bytes(sim);
    /* zeroed: the slack is read (and its values discarded) by vector loads at row ends */
    p->alloc = calloc(1, field_bytes(sim) + 2 * pad);
    p->field = p->alloc ? (char *)p->alloc + pad : NULL;
    if (p->dsp.transposed)
        p->natural = malloc(field_bytes(sim));
    p->partials = malloc(rows * PHI4_NPARTIALS * sizeof(double));
    if (!p->alloc || (p->dsp.transposed && !p->natural) || !p->partials) {
        phi4_destroy(st);
        return latmc_fail(LATMC_ENOMEM, "CPU backend: cannot allocate %zu bytes of phi^4 field",
                          field_bytes(sim));
    }
    return LATMC_OK;
}

/* Natural order in, the dsp's layout out. */
static void import_field(latmc_sim *sim, struct phi4_state *p, const void *natural)
{
    if (p->dsp.transposed)
        cpu_phi4_to_transposed(&p->geom, natural, p->field, (int)value_bytes(sim), sim->n_threads);
    else if (natural != p->field)
        memcpy(p->field, natural, field_bytes(sim));
}

/* The field in natural order: `buf`, or p->natural when buf is NULL (the field itself
 * for the reference layout). */
static const void *export_field(latmc_sim *sim, struct phi4_state *p, void *buf)
{
    if (p->dsp.transposed) {
        void *out = buf ? buf : p->natural;
        cpu_phi4_from_transposed(&p->geom, p->field, out, (int)value_bytes(sim), sim->n_threads);
        return out;
    }
    if (buf)
        memcpy(buf, p->field, field_bytes(sim));
    return buf ? buf : p->field;
}

static int phi4_init_spins(latmc_sim *sim, struct cpu_state *st, int how)
{
    struct phi4_state *p = phi4_state(st);
    if (how == LATMC_INIT_COLD) {
        memset(p->field, 0, field_bytes(sim)); /* all-zero bits are 0.0 in IEEE 754 */
        return LATMC_OK;
    }
    void *natural = p->dsp.transposed ? p->natural : p->field;
    if (p->single)
        cpu_phi4_hot_start_f(&p->geom, natural, sim->desc.seed, sim->n_threads);
    else
        cpu_phi4_hot_start_d(&p->geom, natural, sim->desc.seed, sim->n_threads);
    import_field(sim, p, natural);
    return LATMC_OK;
}

static void phi4_sweep(latmc_sim *sim, struct cpu_state *st, uint64_t sweep, uint64_t *accepted,
                       uint64_t *attempted)
{
    struct phi4_state *p = phi4_state(st);
    const struct latmc_phi4_tables *t = sim->model_data;
    if (p->single)
        *accepted += p->dsp.sweep_f(&p->geom, p->field, t, sim->desc.seed, sweep, sim->n_threads);
    else
        *accepted += p->dsp.sweep_d(&p->geom, p->field, t, sim->desc.seed, sweep, sim->n_threads);
    *attempted += (uint64_t)sim->nsites * t->nloc * t->nhit;
}

static void phi4_measure(latmc_sim *sim, struct cpu_state *st, void *sums)
{
    struct phi4_state *p = phi4_state(st);
    struct latmc_phi4_sums *s = sums;
    const void *natural = export_field(sim, p, NULL);
    if (p->single)
        *s = cpu_phi4_measure_f(&p->geom, natural, p->partials, sim->n_threads);
    else
        *s = cpu_phi4_measure_d(&p->geom, natural, p->partials, sim->n_threads);
}

static void phi4_get_spins(latmc_sim *sim, struct cpu_state *st, void *buf)
{
    export_field(sim, phi4_state(st), buf);
}

static void phi4_set_spins(latmc_sim *sim, struct cpu_state *st, const void *buf)
{
    import_field(sim, phi4_state(st), buf);
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
