/* The models the CPU backend runs: one kernel table each. */
#include "cpu_backend.h"

extern const struct cpu_model_kernels cpu_ising_kernels;
/* potts: declaration */
/* phi4: declaration */
/* heisenberg: declaration */

static const struct cpu_model_kernels *const kernel_tables[] = {
    &cpu_ising_kernels,
    /* potts: entry */
    /* phi4: entry */
    /* heisenberg: entry */
};

const struct cpu_model_kernels *cpu_model_kernels_get(int model)
{
    for (size_t i = 0; i < sizeof kernel_tables / sizeof kernel_tables[0]; i++)
        if (kernel_tables[i]->model == model)
            return kernel_tables[i];
    return NULL;
}
