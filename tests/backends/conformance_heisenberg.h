/* The Heisenberg part of the backend conformance suite (conformance_heisenberg.c). */
#ifndef LATMC_TEST_CONFORMANCE_HEISENBERG_H
#define LATMC_TEST_CONFORMANCE_HEISENBERG_H

/* The backend (LATMC_DEVICE_CPU or _CUDA, its name) against the CPU reference. */
void heisenberg_conformance(int device, const char *backend_name);

/* CUDA only: results independent of the launch geometry (LATMC_CUDA_HEISENBERG_TILE),
 * repeated runs identical, and malformed geometries refused. */
void heisenberg_cuda_launch_geometry(void);

#endif
