/* The models the CPU backend runs: the kernel table `cpu_<m>_kernels` of each model of
 * lib/model_list.h (every model runs on the CPU). */
#include "cpu_exec.h"

#define LATMC_MODEL(m) extern const struct cpu_model_kernels cpu_##m##_kernels;
#include "model_list.h"
#undef LATMC_MODEL

static const struct cpu_model_kernels *const kernel_tables[] = {
#define LATMC_MODEL(m) &cpu_##m##_kernels,
#include "model_list.h"
#undef LATMC_MODEL
};

const struct cpu_model_kernels *cpu_model_kernels_get(int model)
{
    for (size_t i = 0; i < sizeof kernel_tables / sizeof kernel_tables[0]; i++)
        if (kernel_tables[i]->model == model)
            return kernel_tables[i];
    return NULL;
}
