/* latmc front end — the inputs of a run (see meta.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "meta.h"
#include "names.h"

static struct meta_item *add(struct run_meta *m, const char *key, enum meta_type type)
{
    if (m->n >= META_MAX)
        return &m->item[META_MAX - 1]; /* cannot happen: fewer keys than META_MAX */
    struct meta_item *it = &m->item[m->n++];
    memset(it, 0, sizeof *it);
    it->key = key;
    it->type = type;
    return it;
}

static void add_str(struct run_meta *m, const char *key, const char *value)
{
    snprintf(add(m, key, META_STR)->s, sizeof m->item[0].s, "%s", value);
}

static void add_u64(struct run_meta *m, const char *key, uint64_t value)
{
    add(m, key, META_U64)->u = value;
}

void meta_fill(struct run_meta *m, latmc_sim *sim, const struct cli_options *opt,
               const char *start)
{
    memset(m, 0, sizeof *m);
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    latmc_sim_get_desc(sim, &d); /* cannot fail for a valid sim */
    add_str(m, "program", "latmc");
    add_str(m, "version", latmc_version_string());
    add_str(m, "model", names_of(names_models(), d.model, "?"));
    add_u64(m, "ndim", (uint64_t)d.ndim);
    struct meta_item *e = add(m, "extent", META_EXTENT);
    e->n = d.ndim;
    for (int k = 0; k < d.ndim && k < 3; k++)
        e->e[k] = d.extent[k];
    if (d.model == LATMC_MODEL_POTTS)
        add_u64(m, "q", (uint64_t)d.q);
    if (d.model == LATMC_MODEL_PHI4)
        add_str(m, "precision", names_of(names_precision, d.precision, "?"));
    /* Ising: the couplings only when they are not the uniform ferromagnet's */
    if (d.model == LATMC_MODEL_HEISENBERG ||
        (d.model == LATMC_MODEL_ISING && d.couplings != LATMC_COUPLINGS_UNIFORM)) {
        add_str(m, "couplings", names_of(names_couplings, d.couplings, "?"));
        add_u64(m, "coupling_seed", d.coupling_seed);
    }
    if (d.model == LATMC_MODEL_HEISENBERG)
        add_u64(m, "replicas", (uint64_t)d.replicas);
    add_str(m, "algorithm", names_of(names_algorithm, d.algorithm, "?"));
    for (int key = 1; key < 64; key++) {
        const char *name = latmc_param_name(key);
        double v = 0.0;
        if (name == NULL || latmc_sim_get_param(sim, key, &v) != LATMC_OK)
            continue;
        struct meta_item *it = add(m, name, META_F64);
        it->param = true;
        it->d = v;
    }
    add_u64(m, "seed", d.seed);
    add_str(m, "device", names_of(names_device, d.device, "?"));
    add_str(m, "backend", latmc_sim_backend_name(sim));
    add_u64(m, "threads", (uint64_t)d.n_threads);
    int parts = 1; /* latmc-mpi: the ranks, each with `threads` threads */
    latmc_sim_part_info(sim, NULL, &parts, NULL, NULL);
    if (parts > 1)
        add_u64(m, "ranks", (uint64_t)parts);
    /* a resumed run states the start of the chain it continues (its checkpoint keeps it;
     * "resumed" for a checkpoint that did not) */
    add_str(m, "start", opt->resume_path == NULL ? names_of(names_start, opt->start, "?")
                        : start != NULL && start[0] ? start : "resumed");
    add_u64(m, "therm", opt->therm);
    add_u64(m, "sweeps", opt->sweeps);
    add_u64(m, "every", opt->every);
    if (opt->tune_target > 0.0)
        add(m, "tune_epsilon", META_F64)->d = opt->tune_target;
    if (opt->resume_path != NULL)
        add_str(m, "resumed_from", opt->resume_path);
}

void meta_value_text(const struct meta_item *it, char *buf, size_t size)
{
    switch (it->type) {
    case META_STR: snprintf(buf, size, "%s", it->s); break;
    case META_U64: snprintf(buf, size, "%" PRIu64, it->u); break;
    case META_F64: snprintf(buf, size, "%.17g", it->d); break;
    case META_BOOL: snprintf(buf, size, "%s", it->u ? "true" : "false"); break;
    case META_EXTENT: {
        size_t len = 0;
        buf[0] = '\0';
        for (int k = 0; k < it->n && len < size; k++)
            len += (size_t)snprintf(buf + len, size - len, "%s%" PRId64, k ? "x" : "",
                                    it->e[k]);
        break;
    }
    }
}
