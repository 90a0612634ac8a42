/* checkpoint_restart — one small simulation of each model to stop and restart. */
#ifndef CKPT_MODELS_H
#define CKPT_MODELS_H

#include <stdint.h>

#include <latmc/latmc.h>

enum { CASE_MAX_PARAMS = 8 };

struct model_case {
    const char *name;           /* also the checkpoint's file name stem */
    latmc_sim_desc desc;        /* n_threads is set per run */
    int nparams;
    int param_key[CASE_MAX_PARAMS];
    double param_value[CASE_MAX_PARAMS];
    double tune_target;         /* > 0: tune epsilon during the first part (phi^4) */
    uint64_t n1, n2;            /* sweeps before and after the checkpoint */
};

int model_count(void);

/* Case m (0 <= m < model_count()), small with quick. */
void model_case(int m, bool quick, struct model_case *c);

#endif
