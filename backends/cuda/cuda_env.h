#ifndef LATMC_CUDA_ENV_H
#define LATMC_CUDA_ENV_H
/* The module's switch variables checked (cuda_env.c): LATMC_OK, or LATMC_EINVAL recorded
 * through the core with the variable, its value and the values it takes. */
int cuda_env_check(void);
#endif
