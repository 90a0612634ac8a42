#ifndef LATMC_TEST_POTTS_TABLES_OF_H
#define LATMC_TEST_POTTS_TABLES_OF_H

#include <latmc/latmc.h>

#include "potts.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The core's decision tables of a Potts sim (its model data). */
const struct latmc_potts_tables *test_potts_tables_of(const latmc_sim *sim);

#ifdef __cplusplus
}
#endif

#endif
