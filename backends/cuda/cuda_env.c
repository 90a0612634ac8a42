/*
 * The CUDA module's switches (lib/env_switch.h, doc/environment.md), checked when a sim is
 * made on the module: a value outside a switch's list fails the creation with
 * LATMC_EINVAL instead of running the path the variable's absence picks. The variables
 * that parse a geometry (LATMC_CUDA_HEISENBERG_TILE, LATMC_CUDA_PHI4_CHUNK and _THREADS,
 * LATMC_ENS_HEIS_GEOM) check their values where they are read.
 */
#include "cuda_env.h"

#include "cuda_check.h"
#include "env_switch.h"

static const struct latmc_env_switch cuda_switches[] = {
    { "LATMC_CUDA_KERNELS", "reference" },
    { "LATMC_CUDA_BITS_FOLD", "0|1" },
    { "LATMC_CUDA_ISING_FORM", "bits|packed" },
    { "LATMC_CUDA_ISING_PIECE_BYTES", NULL },
    { "LATMC_CUDA_EMBED", "device|host" },
    { "LATMC_CUDA_COUPLINGS", "host" },
    { "LATMC_CUDA_BOX_COPY", "memcpy" },
    { "LATMC_CUDA_BOX_SPLIT", "0|1" },
    { "LATMC_CUDA_HALVES", "0|1" },
    { "LATMC_CUDA_CHAIN", "0|1" },
    { "LATMC_CUDA_FOLD_WIDE", "0|1" },
    { "LATMC_CUDA_SLAB_COPY", "memcpy" },
    { "LATMC_CUDA_TEMPER", "resident|launches" },
    { "LATMC_CUDA_PHI4_MODES", "walk|split" },
    { "LATMC_ENS_HEIS_BATCH", "0|1" },
    { "LATMC_ENS_HEIS_SUMS", "0|1|check" },
    { "LATMC_ENS_TEMPER_PARTS", "1|2|4|8" },
    { "LATMC_ENS_POTTS_BATCH", "0|1" },
    { "LATMC_ENS_PHI4_BATCH", "0|1" },
    { "LATMC_ENS_SW_BATCH", "0|1" },
    { "LATMC_ENS_PHI4_ROUND_SUMS", "measure|check" },
    { "LATMC_ENS_POTTS_SWEEP", "steps" },
    { "LATMC_ENS_ISING_SWEEP", "words" },
    { "LATMC_ENS_ISING_FUSED", "0|1" },
    { "LATMC_ENS_ISING_WORDS", "1|2|4|8" },
    /* the core takes "reference" (lib/env_switches.c) */
    { "LATMC_ENS_LANES", "reference|plain|keys|nozeros" },
};

int cuda_env_check(void)
{
    const char *value = NULL;
    const struct latmc_env_switch *bad =
        latmc_env_unknown(cuda_switches, sizeof cuda_switches / sizeof *cuda_switches, &value);
    if (!bad)
        return LATMC_OK;
    const char *tail = latmc_env_shown_tail(value);
    if (!bad->values)
        return cuda_core->fail(LATMC_EINVAL, "CUDA backend: %s=\"%.*s%s\": expected a positive "
                               "decimal integer (doc/environment.md)", bad->name, LATMC_ENV_SHOWN,
                               value, tail);
    return cuda_core->fail(LATMC_EINVAL, "CUDA backend: %s=\"%.*s%s\": expected one of \"%s\" "
                           "(or unset; doc/environment.md)", bad->name, LATMC_ENV_SHOWN, value,
                           tail, bad->values);
}
