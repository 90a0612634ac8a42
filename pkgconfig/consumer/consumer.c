/*
 * An out-of-tree program built against the installed liblatmc through pkg-config:
 * a 2D Ising run at beta = 0 whose outcome is known exactly (every flip accepted).
 */
#include <stdio.h>
#include <string.h>

#include <latmc/latmc.h>

int main(void)
{
    latmc_ctx *ctx = NULL;
    latmc_sim *sim = NULL;
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_ISING;
    d.ndim = 2;
    d.extent[0] = d.extent[1] = 8;
    d.device = LATMC_DEVICE_CPU;
    if (latmc_ctx_create(&ctx) != LATMC_OK || latmc_sim_create(ctx, &d, &sim) != LATMC_OK) {
        fprintf(stderr, "consumer: %s\n", latmc_last_error());
        return 1;
    }
    double m = 0, acc = 0;
    int st = latmc_sim_init_spins(sim, LATMC_INIT_COLD);
    if (st == LATMC_OK)
        st = latmc_sim_sweep(sim, 1);
    if (st == LATMC_OK)
        st = latmc_sim_observable(sim, LATMC_OBS_MAGNETIZATION, &m);
    if (st == LATMC_OK)
        st = latmc_sim_observable(sim, LATMC_OBS_ACCEPTANCE, &acc);
    printf("consumer: liblatmc %s (headers %s), m = %g, acceptance = %g\n",
           latmc_version_string(), LATMC_VERSION_STRING, m, acc);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
    if (st != LATMC_OK || m != -1.0 || acc != 1.0 ||
        strcmp(latmc_version_string(), LATMC_VERSION_STRING) != 0)
        return 1;
    return 0;
}
