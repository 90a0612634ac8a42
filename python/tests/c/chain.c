/* The same chain as python/tests/test_c_identity.py drives from Python, driven from C
 * through the public API: create, set parameters, hot start, n1 sweeps, save a checkpoint,
 * n2 more sweeps, write the configuration's raw bytes.
 * usage: chain MODEL Q PRECISION REPLICAS COUPLINGS SEED LX LY LZ N1 N2 CKPT SPINS [NAME=VALUE...]
 * (LZ 0 for 2D). Exit 1 with the library's message on any failure. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <latmc/ctx.h>
#include <latmc/sim.h>

static int fail(latmc_sim *sim, const char *what, int st)
{
    fprintf(stderr, "chain: %s: %s: %s\n", what, latmc_strerror(st),
            sim ? latmc_sim_last_error(sim) : latmc_last_error());
    return 1;
}

int main(int argc, char **argv)
{
    if (argc < 14) {
        fprintf(stderr, "usage: chain MODEL Q PRECISION REPLICAS COUPLINGS SEED LX LY LZ N1 N2 "
                        "CKPT SPINS [NAME=VALUE...]\n");
        return 2;
    }
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = atoi(argv[1]);
    d.q = atoi(argv[2]);
    d.precision = atoi(argv[3]);
    d.replicas = atoi(argv[4]);
    d.couplings = atoi(argv[5]);
    d.seed = strtoull(argv[6], NULL, 10);
    d.extent[0] = atoll(argv[7]);
    d.extent[1] = atoll(argv[8]);
    d.extent[2] = atoll(argv[9]);
    d.ndim = d.extent[2] > 0 ? 3 : 2;
    d.device = LATMC_DEVICE_CPU;
    uint64_t n1 = strtoull(argv[10], NULL, 10), n2 = strtoull(argv[11], NULL, 10);

    latmc_ctx *ctx = NULL;
    latmc_sim *sim = NULL;
    int st = latmc_ctx_create(&ctx);
    if (st != LATMC_OK)
        return fail(NULL, "ctx", st);
    st = latmc_sim_create(ctx, &d, &sim);
    if (st != LATMC_OK)
        return fail(NULL, "create", st);
    for (int a = 14; a < argc; a++) {
        char name[64];
        const char *eq = strchr(argv[a], '=');
        int key;
        if (!eq || (size_t)(eq - argv[a]) >= sizeof name)
            return 2;
        memcpy(name, argv[a], (size_t)(eq - argv[a]));
        name[eq - argv[a]] = '\0';
        if ((st = latmc_param_by_name(name, &key)) != LATMC_OK)
            return fail(NULL, "param name", st);
        if ((st = latmc_sim_set_param(sim, key, atof(eq + 1))) != LATMC_OK)
            return fail(sim, "param", st);
    }
    if ((st = latmc_sim_init_spins(sim, LATMC_INIT_HOT)) != LATMC_OK)
        return fail(sim, "init", st);
    if ((st = latmc_sim_sweep(sim, n1)) != LATMC_OK)
        return fail(sim, "sweep", st);
    if ((st = latmc_sim_save(sim, argv[12])) != LATMC_OK)
        return fail(sim, "save", st);
    if ((st = latmc_sim_sweep(sim, n2)) != LATMC_OK)
        return fail(sim, "sweep", st);
    size_t bytes = 0;
    latmc_sim_spins_size(sim, &bytes);
    void *buf = malloc(bytes);
    if (!buf || (st = latmc_sim_get_spins(sim, buf, bytes)) != LATMC_OK)
        return fail(sim, "get_spins", st);
    FILE *f = fopen(argv[13], "wb");
    if (!f || fwrite(buf, 1, bytes, f) != bytes || fclose(f) != 0) {
        perror(argv[13]);
        return 1;
    }
    double e = 0;
    if ((st = latmc_sim_observable(sim, LATMC_OBS_ENERGY, &e)) != LATMC_OK)
        return fail(sim, "energy", st);
    printf("%.17g\n", e);
    free(buf);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
    return 0;
}
