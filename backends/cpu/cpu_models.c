/* The models the CPU backend runs: one kernel table each. */
#include "cpu_backend.h"

extern const struct cpu_model_kernels cpu_ising_kernels;
extern const struct cpu_model_kernels cpu_potts_kernels;
/* potts: declaration */
extern const struct cpu_model_kernels cpu_phi4_kernels;
/* phi4: declaration */
extern const struct cpu_model_kernels cpu_heisenberg_kernels;
/* heisenberg: declaration */

static const struct cpu_model_kernels *const kernel_tables[] = {
    &cpu_ising_kernels,
    &cpu_potts_kernels,
    /* potts: entry */
    &cpu_phi4_kernels,
    /* phi4: entry */
    &cpu_heisenberg_kernels,
    /* heisenberg: entry */
};

const struct cpu_model_kernels *cpu_model_kernels_get(int model)
{
    for (size_t i = 0; i < sizeof kernel_tables / sizeof kernel_tables[0]; i++)
        if (kernel_tables[i]->model == model)
            return kernel_tables[i];
    return NULL;
}
