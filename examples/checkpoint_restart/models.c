/* checkpoint_restart — one simulation of each model to stop and restart. */
#include "models.h"

int model_count(void)
{
    return 4;
}

static void param(struct model_case *c, int key, double value)
{
    c->param_key[c->nparams] = key;
    c->param_value[c->nparams] = value;
    c->nparams++;
}

void model_case(int m, bool quick, struct model_case *c)
{
    *c = (struct model_case){ .n1 = quick ? 50 : 300, .n2 = quick ? 50 : 300 };
    latmc_sim_desc *d = &c->desc;
    latmc_sim_desc_init(d);
    d->device = LATMC_DEVICE_CPU;
    d->seed = 20240 + (uint64_t)m;
    switch (m) {
    case 0:
        /* 256^2 = 65536 sites: above the size where the CPU backend uses several threads,
         * so the thread counts of the two runs really differ. */
        c->name = "ising";
        d->model = LATMC_MODEL_ISING;
        d->ndim = 2;
        d->extent[0] = d->extent[1] = quick ? 32 : 256;
        d->algorithm = LATMC_ALGO_METROPOLIS;
        param(c, LATMC_PARAM_BETA, 0.44);
        param(c, LATMC_PARAM_H, 0.01);
        break;
    case 1:
        c->name = "potts";
        d->model = LATMC_MODEL_POTTS;
        d->q = 3;
        d->ndim = 3;
        d->extent[0] = d->extent[1] = d->extent[2] = quick ? 6 : 36;
        d->algorithm = LATMC_ALGO_HEATBATH;
        param(c, LATMC_PARAM_BETA, 0.55);
        break;
    case 2:
        c->name = "phi4";
        d->model = LATMC_MODEL_PHI4;
        d->ndim = 2;
        d->extent[0] = d->extent[1] = quick ? 16 : 192;
        d->precision = LATMC_PRECISION_FLOAT;
        param(c, LATMC_PARAM_MU2, -1.0);
        param(c, LATMC_PARAM_G, 6.0);
        param(c, LATMC_PARAM_LAMBDA, 10.0);
        param(c, LATMC_PARAM_NHIT, 2);
        c->tune_target = 0.5;
        break;
    default:
        c->name = "heisenberg";
        d->model = LATMC_MODEL_HEISENBERG;
        d->ndim = 3;
        d->extent[0] = d->extent[1] = d->extent[2] = quick ? 4 : 16;
        d->couplings = LATMC_COUPLINGS_GAUSSIAN;
        d->coupling_seed = 7;
        d->replicas = 2;
        param(c, LATMC_PARAM_BETA, 2.0);
        param(c, LATMC_PARAM_NOVER, 2);
        break;
    }
}
