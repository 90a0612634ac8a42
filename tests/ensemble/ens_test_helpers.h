/* Helpers of the ensemble tests (public API only). */
#ifndef LATMC_TEST_ENS_HELPERS_H
#define LATMC_TEST_ENS_HELPERS_H

#include <stdlib.h>
#include <string.h>

#include <latmc/latmc.h>

/* The device of the members (test_ens_identity sets it from LATMC_TEST_DEVICE). */
static int ens_test_device = LATMC_DEVICE_CPU;

/* A member desc of `model` on an L^ndim lattice, seed fields left to the ensemble. */
static inline latmc_sim_desc ens_test_desc(int model, int ndim, int L)
{
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = model;
    d.ndim = ndim;
    for (int mu = 0; mu < ndim; mu++)
        d.extent[mu] = L;
    d.device = ens_test_device;
    return d;
}

static inline latmc_ens_layout ens_test_layout(int ns, int nt, int nr, uint64_t seed, int threads)
{
    latmc_ens_layout l;
    latmc_ens_layout_init(&l);
    l.n_samples = ns;
    l.n_temperatures = nt;
    l.n_replicas = nr;
    l.seed = seed;
    l.coupling_seed = seed ^ 0x5eedu;
    l.n_threads = threads;
    return l;
}

/* Every member's configuration, concatenated (caller frees). */
static inline unsigned char *ens_test_all_spins(latmc_ens *e, size_t *total)
{
    latmc_ens_layout l;
    latmc_ens_layout_init(&l); /* struct_size: get_layout writes no more than it says */
    latmc_ens_get_layout(e, &l);
    const int M = l.n_samples * l.n_temperatures * l.n_replicas;
    size_t bytes = 0;
    latmc_ens_spins_size(e, &bytes);
    unsigned char *all = malloc(bytes * (size_t)M);
    for (int m = 0; all && m < M; m++)
        if (latmc_ens_get_spins(e, m, all + (size_t)m * bytes, bytes) != LATMC_OK) {
            free(all);
            return NULL;
        }
    *total = bytes * (size_t)M;
    return all;
}

#endif
