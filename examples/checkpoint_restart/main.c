/*
 * checkpoint_restart — stop a simulation, save it, load it, continue it, and check that the
 * result is bit for bit the one of a run never interrupted, for each of the four models.
 *
 * For each model: run A sweeps N1 and is saved to a file (latmc_sim_save) and to memory
 * (latmc_sim_serialize), then destroyed, as at the end of a batch job; B is loaded from the
 * file and C from the memory copy, and both sweep N2 more; U, a fresh sim with the same
 * description and parameters on a different thread count, sweeps N1 + N2 in one go. B, C and
 * U must agree exactly: configuration (and couplings), sweep count, acceptance counters,
 * every observable, every parameter. Exits 1 on any difference.
 *
 *   checkpoint_restart           larger lattices, 2 x 300 sweeps (seconds)
 *   checkpoint_restart --quick   small lattices, 2 x 50 sweeps (the test)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <latmc/latmc.h>

#include "compare.h"
#include "ex_args.h"
#include "ex_output.h"
#include "ex_util.h"
#include "models.h"

int main(int argc, char **argv)
{
    bool quick = false;
    const char *dir = "checkpoint_restart-out";
    int threads = 0;
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--quick") == 0) {
            quick = true;
        } else if (strcmp(argv[i], "--out") == 0 && i + 1 < argc) {
            dir = argv[++i];
        } else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
            if (!ex_parse_int("--threads", argv[++i], 0, 1024, &threads))
                return 2;
        } else {
            printf("Usage: %s [--quick] [--threads T] [--out DIR]\n"
                   "Save, load and continue a simulation of each model; check bit identity\n"
                   "with an uninterrupted run (which runs on 1 thread; the interrupted one on\n"
                   "T threads, default: the library's default). Exit 1 if anything differs.\n",
                   argv[0]);
            return strcmp(argv[i], "--help") == 0 ? 0 : 2;
        }
    }
    if (!ex_make_dir(dir))
        return 1;
    latmc_ctx *ctx = NULL;
    if (ex_check(latmc_ctx_create(&ctx), NULL, "latmc_ctx_create"))
        return 1;
    printf("liblatmc %s: checkpoint, restart, continue; compare with one uninterrupted run\n",
           latmc_version_string());

    int failures = 0, errors = 0;
    for (int m = 0; m < model_count(); m++) {
        struct model_case c;
        model_case(m, quick, &c);
        int r = restart_check(ctx, &c, threads, dir);
        failures += r > 0;
        errors += r < 0;
    }
    latmc_ctx_destroy(&ctx);
    if (errors > 0) {
        printf("\n%d model(s) could not be run (see the messages above)\n", errors);
        return 1;
    }
    if (failures > 0) {
        printf("\nNOT IDENTICAL for %d model(s): the restart guarantee is broken\n", failures);
        return 1;
    }
    printf("\nall %d models: the restarted runs are bit-identical to the uninterrupted ones\n",
           model_count());
    return 0;
}
