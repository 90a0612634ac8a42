// The public structs and constants as a C++ compiler sees them (compared with C in
// test_headers.c): a C++ host code must see exactly the layout the library was built with.
#include <latmc/latmc.h>
#include <cstddef>

extern "C" void latmc_test_layout_cxx(size_t *out, int *n);

extern "C" void latmc_test_layout_cxx(size_t *out, int *n)
{
    int i = 0;
    out[i++] = sizeof(latmc_sim_desc);
    out[i++] = offsetof(latmc_sim_desc, struct_size);
    out[i++] = offsetof(latmc_sim_desc, model);
    out[i++] = offsetof(latmc_sim_desc, ndim);
    out[i++] = offsetof(latmc_sim_desc, extent);
    out[i++] = offsetof(latmc_sim_desc, q);
    out[i++] = offsetof(latmc_sim_desc, algorithm);
    out[i++] = offsetof(latmc_sim_desc, precision);
    out[i++] = offsetof(latmc_sim_desc, couplings);
    out[i++] = offsetof(latmc_sim_desc, coupling_seed);
    out[i++] = offsetof(latmc_sim_desc, replicas);
    out[i++] = offsetof(latmc_sim_desc, device);
    out[i++] = offsetof(latmc_sim_desc, device_index);
    out[i++] = offsetof(latmc_sim_desc, n_threads);
    out[i++] = offsetof(latmc_sim_desc, seed);
    out[i++] = offsetof(latmc_sim_desc, n_parts);
    out[i++] = offsetof(latmc_sim_desc, n_devices);
    out[i++] = offsetof(latmc_sim_desc, device_list);
    out[i++] = sizeof(enum latmc_status);
    out[i++] = (size_t)(LATMC_ECANCELLED + 100);
    out[i++] = (size_t)LATMC_OBS_OVERLAP2;
    out[i++] = (size_t)LATMC_PARAM_NOVER;
    out[i++] = sizeof(latmc_device_view);
    out[i++] = offsetof(latmc_device_view, data);
    out[i++] = offsetof(latmc_device_view, shape);
    out[i++] = offsetof(latmc_device_view, readonly);
    out[i++] = (size_t)LATMC_DTYPE_FLOAT64;
    *n = i;
}
