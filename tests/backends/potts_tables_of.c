/* The core's decision tables of a Potts sim (sim->model_data), for the C++ host test that
 * cannot include the core's C11 internals. */
#include "internal.h"
#include "potts_tables_of.h"

const struct latmc_potts_tables *test_potts_tables_of(const latmc_sim *sim)
{
    return (const struct latmc_potts_tables *)sim->model_data;
}
