/*
 * test_identity_matrix: every (spec x lattice x layout) row of rows.c against the one-box
 * CPU chain, bit for bit (identity.h). Usage:
 *   test_identity_matrix [--layout cpu|cuda|mpi|TEXT] [--spec NAME] [--model NAME]
 *                        [--devices K] [--list]
 * --layout cpu: the rows on the CPU in one process; cuda: those with a CUDA placement;
 * mpi: those with parts over MPI ranks (run under mpirun); any other TEXT: the layouts
 * whose text contains it. --spec NAME: the rows of the specs whose name starts with
 * NAME. --model NAME: the rows of the specs of that model (its name in lib/model_list.h,
 * latmc_model_by_name). --devices K: only the placements on several CUDA devices, each
 * run on K devices instead (slab i on GPU i mod GPUs), every distinct text once: the
 * matrix on a machine with more GPUs than its rows name (a row whose last extent is
 * under 4 K is skipped: slabs of fewer than 4 planes may be refused by the slab rules,
 * which is not what the option checks; a placement the library refuses there as
 * unsupported, LATMC_EUNSUPPORTED: phi^4's chunk layers fewer than the boxes, is skipped
 * with its message; any other refusal fails). Each row prints PASS, SKIP (with the
 * reason: never counted as a pass) or FAIL (with the first difference). Exit 0 when every
 * row that ran passed and one ran, 77 when every selected row was skipped, 1 on a failure,
 * 2 on bad usage or a bad table.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "identity.h"

static const char *kind_of(const struct layout *l)
{
    if (l->first.mpi || l->then.mpi)
        return "mpi";
    if (l->first.cuda || l->then.cuda)
        return "cuda";
    return "cpu";
}

static bool selected(const struct layout *l, const char *want)
{
    if (!want)
        return true;
    if (strcmp(want, "cpu") == 0 || strcmp(want, "cuda") == 0 || strcmp(want, "mpi") == 0)
        return strcmp(kind_of(l), want) == 0;
    return strstr(l->text, want) != NULL;
}

/* The table covers every model of the library (latmc_model_name: numbered 1, 2, ...
 * without gaps): each has a row on the CPU and one with a CUDA placement, so that a model
 * added to lib/model_list.h without its rows fails here instead of going unchecked. */
static int uncovered_models(void)
{
    int missing = 0;
    for (int m = 1; latmc_model_name(m) != NULL; m++) {
        bool cpu = false, cuda = false;
        for (size_t i = 0; i < n_rows; i++) {
            const struct spec *s = spec_by_name(rows[i].spec);
            if (!s || s->model != m)
                continue;
            char text[4096], why[512];
            snprintf(text, sizeof text, "%s", rows[i].layouts);
            for (char *save = NULL, *tok = strtok_r(text, " ", &save); tok;
                 tok = strtok_r(NULL, " ", &save)) {
                struct layout l;
                if (!layout_parse(tok, &l, why, sizeof why))
                    continue; /* reported by the run */
                cpu = cpu || strcmp(kind_of(&l), "cpu") == 0;
                cuda = cuda || strcmp(kind_of(&l), "cuda") == 0;
            }
        }
        if (!cpu || !cuda) {
            if (mpi_rank() == 0)
                fprintf(stderr, "rows.c: the model %s has no row %s\n", latmc_model_name(m),
                        !cpu ? "on the CPU" : "with a CUDA placement");
            missing++;
        }
    }
    return missing;
}

/* tok with every "devices=N" of its placements made "devices=K" in out: 1; 0 when tok
 * names no placement on several devices; -1 when the text does not fit out. */
static int devices_retarget(const char *tok, int k, char *out, size_t size)
{
    if (!strstr(tok, "devices="))
        return 0;
    size_t n = 0;
    const char *c = tok;
    while (*c && n + 1 < size) {
        if (strncmp(c, "devices=", 8) == 0) {
            const int w = snprintf(out + n, size - n, "devices=%d", k);
            if (w < 0 || (size_t)w >= size - n)
                return -1;
            n += (size_t)w;
            c += 8;
            while (*c >= '0' && *c <= '9')
                c++;
        } else {
            out[n++] = *c++;
        }
    }
    out[n] = '\0';
    return *c == '\0' ? 1 : -1;
}

static double now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

static void say(const char *verdict, const struct spec *s, const struct row *r,
                const char *layout, double secs, const char *why)
{
    if (mpi_rank() != 0)
        return;
    char lattice[64];
    if (r->ndim == 3)
        snprintf(lattice, sizeof lattice, "%lldx%lldx%lld", (long long)r->extent[0],
                 (long long)r->extent[1], (long long)r->extent[2]);
    else
        snprintf(lattice, sizeof lattice, "%lldx%lld", (long long)r->extent[0],
                 (long long)r->extent[1]);
    printf("%s %s %s [%s] %.2fs%s%s\n", verdict, s->name, lattice, layout, secs,
           why && *why ? ": " : "", why ? why : "");
    fflush(stdout);
}

int main(int argc, char **argv)
{
    mpi_init(&argc, &argv);
    const char *want_layout = NULL, *want_spec = NULL;
    int want_model = 0; /* LATMC_MODEL_NONE: every model */
    bool list = false;
    int want_devices = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--layout") == 0 && i + 1 < argc) {
            want_layout = argv[++i];
        } else if (strcmp(argv[i], "--spec") == 0 && i + 1 < argc) {
            want_spec = argv[++i];
        } else if (strcmp(argv[i], "--model") == 0 && i + 1 < argc) {
            if (latmc_model_by_name(argv[++i], &want_model) != LATMC_OK) {
                fprintf(stderr, "--model: %s\n", latmc_last_error());
                mpi_finalize();
                return 2;
            }
        } else if (strcmp(argv[i], "--devices") == 0 && i + 1 < argc) {
            char *end = NULL;
            const long k = strtol(argv[++i], &end, 10);
            want_devices = *end == '\0' && k >= 2 && k <= 16 ? (int)k : 0;
            if (!want_devices) {
                fprintf(stderr, "--devices: K from 2 to 16\n");
                mpi_finalize();
                return 2;
            }
        } else if (strcmp(argv[i], "--list") == 0) {
            list = true;
        } else {
            fprintf(stderr, "usage: %s [--layout cpu|cuda|mpi|TEXT] [--spec NAME] [--model NAME] "
                    "[--devices K] [--list]\n", argv[0]);
            mpi_finalize();
            return 2;
        }
    }
    latmc_ctx *ctx = NULL;
    if (latmc_ctx_create(&ctx) != LATMC_OK) {
        fprintf(stderr, "no context: %s\n", latmc_last_error());
        mpi_finalize();
        return 1;
    }
    int passed = 0, skipped = 0, failed = uncovered_models();
    const double start = now();
    for (size_t i = 0; i < n_specs; i++)
        if (!spec_name_tells_field(&specs[i])) {
            fprintf(stderr, "specs.c: the name of spec \"%s\" does not tell whether it runs "
                    "in a field (\"_field\")\n", specs[i].name);
            failed++;
        }
    for (size_t i = 0; i < n_rows; i++) {
        const struct row *r = &rows[i];
        const struct spec *s = spec_by_name(r->spec);
        if (!s) {
            fprintf(stderr, "rows.c: row %zu names no spec \"%s\"\n", i, r->spec);
            failed++;
            continue;
        }
        if (want_spec && strncmp(want_spec, s->name, strlen(want_spec)) != 0)
            continue;
        if (want_model != LATMC_MODEL_NONE && s->model != want_model)
            continue;
        /* one reference per script, made when a layout of that script first runs */
        struct chain_end ref[N_SCRIPTS];
        bool have_ref[N_SCRIPTS] = { false }, ref_failed[N_SCRIPTS] = { false };
        char ref_why[N_SCRIPTS][512];
        char text[4096], seen[4096] = " ", moved[160];
        snprintf(text, sizeof text, "%s", r->layouts);
        for (char *save = NULL, *tok = strtok_r(text, " ", &save); tok;
             tok = strtok_r(NULL, " ", &save)) {
            struct layout l;
            struct outcome o = { PASSED, "" };
            if (want_devices) {
                char key[164];
                const int got = devices_retarget(tok, want_devices, moved, sizeof moved);
                if (got == 0)
                    continue;
                if (got < 0 || strlen(seen) + strlen(moved) + 2 >= sizeof seen) {
                    fprintf(stderr, "rows.c: row %zu: \"%s\" on %d devices is too long\n", i,
                            tok, want_devices);
                    failed++;
                    continue;
                }
                snprintf(key, sizeof key, " %s ", moved);
                if (strstr(seen, key))
                    continue;
                strcat(seen, moved);
                strcat(seen, " ");
                tok = moved;
            }
            if (!layout_parse(tok, &l, o.why, sizeof o.why)) {
                fprintf(stderr, "rows.c: row %zu: %s\n", i, o.why);
                failed++;
                continue;
            }
            if (!selected(&l, want_layout))
                continue;
            if (list) {
                say("ROW", s, r, l.text, 0, kind_of(&l));
                continue;
            }
            const double t0 = now();
            const char *skip = spec_skip(s, &l);
            if (!skip && want_devices && r->extent[r->ndim - 1] < 4 * want_devices)
                skip = "--devices: the last extent is under 4 planes a slab";
            if (!skip && !l.ens)
                skip = chain_skip(ctx, &l);
            if (!skip && want_devices)
                skip = chain_refused(ctx, s, r, &l);
            if (skip) {
                o.verdict = SKIPPED;
                snprintf(o.why, sizeof o.why, "%s", skip);
            } else if (l.ens) {
                ens_check(s, r, &l, ctx, &o);
            } else {
                const int k = layout_script(&l);
                if (!have_ref[k] && !ref_failed[k]) {
                    have_ref[k] = mpi_all(chain_reference(s, r, &l, ctx, &ref[k], ref_why[k],
                                                          sizeof ref_why[k]));
                    ref_failed[k] = !have_ref[k];
                }
                if (ref_failed[k]) {
                    o.verdict = FAILED;
                    snprintf(o.why, sizeof o.why, "%s", ref_why[k]);
                } else {
                    chain_check(s, r, &l, &ref[k], ctx, &o);
                }
            }
            const double secs = now() - t0;
            if (o.verdict == PASSED) {
                passed++;
                say("PASS", s, r, l.text, secs, NULL);
            } else if (o.verdict == SKIPPED) {
                skipped++;
                say("SKIP", s, r, l.text, secs, o.why);
            } else {
                failed++;
                say("FAIL", s, r, l.text, secs, o.why);
            }
        }
        for (int k = 0; k < N_SCRIPTS; k++)
            if (have_ref[k])
                chain_end_free(&ref[k]);
    }
    latmc_ctx_destroy(&ctx);
    if (mpi_rank() == 0 && !list)
        printf("identity matrix%s%s: %d passed, %d skipped, %d failed (%.1fs)\n",
               want_layout ? " --layout " : "", want_layout ? want_layout : "", passed,
               skipped, failed, now() - start);
    mpi_finalize();
    if (list)
        return failed ? 2 : 0;
    if (failed)
        return 1;
    return passed == 0 ? 77 : 0;
}
