/* latmc front end — the --json results (see json_out.h). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "json_out.h"

static void jstr(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
        if (*p == '"' || *p == '\\')
            fprintf(f, "\\%c", *p);
        else if (*p < 0x20)
            fprintf(f, "\\u%04x", *p);
        else
            fputc(*p, f);
    }
    fputc('"', f);
}

/* A number; JSON has no NaN or infinity: null. */
static void jnum(FILE *f, double v)
{
    if (isfinite(v))
        fprintf(f, "%.17g", v);
    else
        fputs("null", f);
}

static void key(FILE *f, int *first, const char *k)
{
    fprintf(f, "%s\n    ", *first ? "" : ",");
    *first = 0;
    jstr(f, k);
    fputs(": ", f);
}

static void warnings(FILE *f, unsigned flags, bool rough)
{
    char buf[128];
    results_flag_names(flags, rough, buf, sizeof buf);
    fputc('[', f);
    char *save = buf;
    int n = 0;
    while (*save) {
        size_t len = strcspn(save, ",");
        fprintf(f, "%s\"%.*s\"", n++ ? ", " : "", (int)len, save);
        save += len + (save[len] == ',');
    }
    fputc(']', f);
}

static void write_inputs(FILE *f, const struct run_meta *m)
{
    fputs("  \"inputs\": {", f);
    int first = 1;
    for (int i = 0; i < m->n; i++) {
        const struct meta_item *it = &m->item[i];
        if (it->param)
            continue;
        key(f, &first, it->key);
        switch (it->type) {
        case META_STR: jstr(f, it->s); break;
        case META_U64: fprintf(f, "%llu", (unsigned long long)it->u); break;
        case META_F64: jnum(f, it->d); break;
        case META_BOOL: fputs(it->u ? "true" : "false", f); break;
        case META_EXTENT:
            fputc('[', f);
            for (int k = 0; k < it->n; k++)
                fprintf(f, "%s%lld", k ? ", " : "", (long long)it->e[k]);
            fputc(']', f);
            break;
        }
    }
    key(f, &first, "parameters");
    fputc('{', f);
    int np = 0;
    for (int i = 0; i < m->n; i++) {
        if (!m->item[i].param)
            continue;
        fprintf(f, "%s", np++ ? ", " : "");
        jstr(f, m->item[i].key);
        fputs(": ", f);
        jnum(f, m->item[i].d);
    }
    fputs("}\n  }", f);
}

static void write_run(FILE *f, const struct json_run *jr)
{
    const struct run_stats *st = jr->stats;
    uint64_t therm = st->last_sweep < jr->therm ? st->last_sweep : jr->therm;
    double sites = jr->res->sites;
    double updates = sites * (double)(st->last_sweep - st->first_sweep);
    int first = 1;
    fputs(",\n  \"run\": {", f);
    key(f, &first, "first_sweep");
    fprintf(f, "%llu", (unsigned long long)st->first_sweep);
    key(f, &first, "last_sweep");
    fprintf(f, "%llu", (unsigned long long)st->last_sweep);
    key(f, &first, "thermalization_sweeps");
    fprintf(f, "%llu", (unsigned long long)therm);
    key(f, &first, "measured_sweeps");
    fprintf(f, "%llu", (unsigned long long)(st->last_sweep - therm));
    key(f, &first, "measurements");
    fprintf(f, "%llu", (unsigned long long)jr->res->n_meas);
    key(f, &first, "measurements_reloaded");
    fprintf(f, "%llu", (unsigned long long)jr->obs->reloaded);
    key(f, &first, "sites");
    jnum(f, sites);
    key(f, &first, "interrupted");
    fputs(st->interrupted ? "true" : "false", f);
    key(f, &first, "signal");
    if (jr->signal)
        fprintf(f, "%d", jr->signal);
    else
        fputs("null", f);
    key(f, &first, "checkpoint");
    if (jr->checkpoint)
        jstr(f, jr->checkpoint);
    else
        fputs("null", f);
    key(f, &first, "checkpoint_failures");
    fprintf(f, "%u", st->checkpoint_failures);
    key(f, &first, "wall_s");
    jnum(f, st->wall_s);
    key(f, &first, "sweep_s");
    jnum(f, st->sweep_s);
    key(f, &first, "site_updates_per_ns");
    if (st->sweep_s > 0.0 && updates > 0.0)
        jnum(f, updates / (st->sweep_s * 1e9));
    else
        fputs("null", f);
    key(f, &first, "exit_status");
    fprintf(f, "%d", jr->exit_status);
    fputs("\n  }", f);
}

static void write_results(FILE *f, const struct json_run *jr)
{
    const struct results *r = jr->res;
    int first = 1;
    fputs(",\n  \"observables\": {", f);
    for (int c = 0; c < r->n_obs; c++) {
        const struct obs_result *o = &r->obs[c];
        key(f, &first, o->name);
        fputs("{\"label\": ", f);
        jstr(f, o->label);
        fputs(", \"mean\": ", f);
        jnum(f, o->have_mean ? o->mean : NAN);
        /* a degenerate error is no estimate: null, with the warning saying why */
        fputs(", \"error\": ", f);
        jnum(f, o->have_err && !(o->flags & LATMC_ACC_WARN_ZERO_ERROR) ? o->err : NAN);
        fputs(", \"tau_int\": ", f);
        jnum(f, o->have_tau && !(o->flags & LATMC_ACC_WARN_TAU_UNDEFINED) ? o->tau : NAN);
        fputs(", \"warnings\": ", f);
        warnings(f, o->flags, o->rough);
        fputc('}', f);
    }
    fputs("\n  },\n  \"acceptance\": ", f);
    const struct observables *obs = jr->obs;
    if (obs->accept_valid && obs->attempted > 0)
        fprintf(f, "{\"value\": %.17g, \"accepted\": %llu, \"attempted\": %llu}",
                (double)obs->accepted / (double)obs->attempted,
                (unsigned long long)obs->accepted, (unsigned long long)obs->attempted);
    else
        fputs("null", f);
    fprintf(f, ",\n  \"derived\": {");
    first = 1;
    for (int i = 0; i < r->n_derived; i++) {
        const struct derived_result *d = &r->derived[i];
        key(f, &first, d->name);
        fputs("{\"label\": ", f);
        jstr(f, d->label);
        fputs(", \"value\": ", f);
        jnum(f, d->ok ? d->value : NAN);
        fputs(", \"error\": ", f);
        jnum(f, d->ok && !(d->flags & LATMC_ACC_WARN_ZERO_ERROR) ? d->err : NAN);
        fprintf(f, ", \"jackknife_blocks\": %d, \"warnings\": ", d->ok ? r->nblocks : 0);
        warnings(f, d->flags, false);
        if (!d->ok) {
            fputs(", \"reason\": ", f);
            jstr(f, d->why);
        }
        fputc('}', f);
    }
    fprintf(f, "\n  },\n  \"degenerate\": %s\n", r->degenerate ? "true" : "false");
}

int json_write(const struct outfile *target, const struct json_run *jr, struct failure *f)
{
    char tmp[OUTFILE_MAX_PATH + 16];
    FILE *out = outfile_begin(target, tmp, sizeof tmp, f);
    if (out == NULL)
        return f->code;
    fputs("{\n  \"format\": \"latmc-results 1\",\n", out);
    write_inputs(out, jr->meta);
    write_run(out, jr);
    write_results(out, jr);
    fputs("}\n", out);
    return outfile_commit(target, out, tmp, f);
}
