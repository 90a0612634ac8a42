/* A downstream program: a short Ising run against the installed liblatmc. It fails (exit 1)
 * if the headers it was compiled with and the library it runs with disagree on the ABI. */
#include <stdio.h>
#include <string.h>

#include <latmc/latmc.h>

int main(void)
{
    /* The soname is the ABI major: a library of another major would not have been loaded,
     * but the headers' version must match the loaded library's major too. */
    const char *lib = latmc_version_string();
    int major = 0;
    if (sscanf(lib, "%d", &major) != 1 || major != LATMC_VERSION_MAJOR) {
        fprintf(stderr, "headers %s, library %s\n", LATMC_VERSION_STRING, lib);
        return 1;
    }
    latmc_ctx *ctx = NULL;
    latmc_sim *sim = NULL;
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_ISING;
    d.ndim = 2;
    d.extent[0] = d.extent[1] = 16;
    d.device = LATMC_DEVICE_CPU;
    d.seed = 1;
    double e = 0.0;
    int st = latmc_ctx_create(&ctx);
    if (st == LATMC_OK)
        st = latmc_sim_create(ctx, &d, &sim);
    if (st == LATMC_OK)
        st = latmc_sim_set_param(sim, LATMC_PARAM_BETA, 0.6);
    if (st == LATMC_OK)
        st = latmc_sim_init_spins(sim, LATMC_INIT_COLD);
    if (st == LATMC_OK)
        st = latmc_sim_sweep(sim, 200);
    if (st == LATMC_OK)
        st = latmc_sim_observable(sim, LATMC_OBS_ENERGY, &e);
    if (st != LATMC_OK)
        fprintf(stderr, "downstream: %s: %s\n", latmc_strerror(st),
                sim != NULL ? latmc_sim_last_error(sim) : latmc_last_error());
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
    if (st != LATMC_OK)
        return 1;
    /* Deep in the ordered phase (beta = 0.6) the energy is close to -2. */
    printf("downstream (C): liblatmc %s, 16x16 Ising at beta 0.6: E/N = %.4f\n", lib, e);
    return e < -1.8 && e > -2.0001 ? 0 : 1;
}
