#ifndef LATMC_ENV_SWITCHES_H
#define LATMC_ENV_SWITCHES_H
/* The core's switch variables checked (lib/env_switches.c): LATMC_OK, or LATMC_EINVAL
 * with a message naming the variable, its value and the values it takes. */
int latmc_env_check_core(void);
#endif
