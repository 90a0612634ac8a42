/*
 * A GPU rank stores its slab only (doc/mpi.md, "GPU ranks"; backends/cuda/exec/cuda_exec.c
 * for every model): part 5 of 1024 of a
 * lattice whose spins alone are 96 to 256 GiB (Ising 2D and 3D, packed, half a byte per
 * site, uniform and +-J; Potts, a byte per site; phi^4, a float per site; the Heisenberg
 * spin glass, two buffers of two replicas' spins and the couplings), more than any GPU
 * holds, is created, started hot and swept on one GPU: its slab is 1/1024 of the lattice
 * plus its halo planes, and the +-J and Heisenberg couplings on the host are its planes'
 * only. With whole-lattice storage on every rank this test would fail: the first four
 * creations with LATMC_ENOMEM (the device memory of the whole lattice), and the +-J
 * creation would not end within the test's time (drawing the whole lattice's 512 GiB of
 * couplings on the host first).
 *
 * No MPI: the part runs alone with a transport that stands in for its 1023 partners
 * (mirror_transport.h: every gather slot gets this part's bytes, its halos come back from
 * itself), as tests/mpi/test_parts.c's part_holds_its_slab_only on the CPU. The chain of
 * GPU ranks against the single-process sim is the mpi cuda_* tests' (test_mpi_sim.c).
 *
 * Exit 0 pass, 1 fail, 77 without a usable CUDA module and GPU (saying why).
 */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L /* setenv */
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <latmc/latmc.h>
#include <latmc/part.h>

#include "mirror_transport.h"

/* Part `rank` of n of desc d on the GPU: created, started hot, swept twice. */
static int run_part(latmc_ctx *ctx, const char *name, latmc_sim_desc d, int rank, int n,
                    double site_bytes)
{
    latmc_transport t = mirror_transport(&n);
    double sites = 1;
    for (int mu = 0; mu < d.ndim; mu++)
        sites *= (double)d.extent[mu];
    latmc_sim *sim = NULL;
    int st = latmc_sim_create_part(ctx, &d, rank, n, &t, &sim);
    const char *step = "create";
    /* phi^4: a normalisable weight (mu2 > 0) before sweeping */
    if (st == LATMC_OK && d.model == LATMC_MODEL_PHI4 &&
        (st = latmc_sim_set_param(sim, LATMC_PARAM_MU2, 1.0)) != LATMC_OK)
        step = "set_param";
    if (st == LATMC_OK && (st = latmc_sim_init_spins(sim, LATMC_INIT_HOT)) != LATMC_OK)
        step = "hot start";
    if (st == LATMC_OK && (st = latmc_sim_sweep(sim, 2)) != LATMC_OK)
        step = "sweep";
    int64_t first = -1, planes = -1;
    int r = -1, np = -1;
    if (st == LATMC_OK)
        st = latmc_sim_part_info(sim, &r, &np, &first, &planes);
    latmc_sim_destroy(&sim);
    if (st != LATMC_OK) {
        printf("FAIL %s: part %d of %d (the whole lattice's spins: %.0f GiB): %s: "
               "%s: %s\n", name, rank, n, sites * site_bytes / (1 << 30), step, latmc_strerror(st),
               latmc_last_error());
        return 1;
    }
    printf("ok %s: part %d of %d holds planes [%lld, %lld) (%.0f MiB of spins; the "
           "whole lattice's: %.0f GiB)\n", name, r, np, (long long)first,
           (long long)(first + planes), sites / n * site_bytes / (1 << 20),
           sites * site_bytes / (1 << 30));
    return 0;
}

int main(void)
{
    latmc_ctx *ctx = NULL;
    if (latmc_ctx_create(&ctx) != LATMC_OK)
        return 1;
    int ngpus = 0;
    const int st = latmc_ctx_device_count(ctx, LATMC_DEVICE_CUDA, &ngpus);
    if (st != LATMC_OK || ngpus < 1) {
        printf("SKIP: no usable CUDA module or GPU (%s)\n",
               st != LATMC_OK ? latmc_last_error() : "no device");
        latmc_ctx_destroy(&ctx);
        return 77;
    }
    int failed = 0;
    /* phi^4 parts run the site-order schedule (the chunk schedule is refused on several
     * parts, doc/mpi.md): select it as a user would */
    setenv("LATMC_CUDA_PHI4_CHUNK", "none", 1);
    static const char *const name[] = { "Ising 2D", "Ising 3D", "Potts 2D (q = 3)",
                                         "phi^4 2D (float)", "Ising 2D +-J",
                                         "Heisenberg 3D (2 replicas, Gaussian)" };
    static const int model[] = { LATMC_MODEL_ISING, LATMC_MODEL_ISING, LATMC_MODEL_POTTS,
                                 LATMC_MODEL_PHI4, LATMC_MODEL_ISING, LATMC_MODEL_HEISENBERG };
    /* bytes per site of the spins (Heisenberg: one of its two buffers) */
    static const double site_bytes[] = { 0.5, 0.5, 1.0, 4.0, 0.5, 24.0 };
    for (int kind = 0; kind < 6; kind++) {
        latmc_sim_desc d;
        latmc_sim_desc_init(&d);
        d.model = model[kind];
        d.device = LATMC_DEVICE_CUDA;
        d.seed = 11;
        if (kind == 0) { /* 2D: 2^19 x 2^20 = 2^39 sites */
            d.ndim = 2;
            d.extent[0] = (int64_t)1 << 19;
            d.extent[1] = (int64_t)1 << 20;
        } else if (kind == 1) { /* 3D: 2048 x 2048 x 131072 = 2^39 sites */
            d.ndim = 3;
            d.extent[0] = d.extent[1] = 2048;
            d.extent[2] = (int64_t)1 << 17;
        } else if (kind == 2) { /* Potts, a byte per site: 2^19 x 2^19 = 2^38 sites */
            d.q = 3;
            d.ndim = 2;
            d.extent[0] = d.extent[1] = (int64_t)1 << 19;
        } else if (kind == 3) { /* phi^4, a float per site: 2^18 x 2^18 = 2^36 sites */
            d.ndim = 2;
            d.precision = LATMC_PRECISION_FLOAT;
            d.extent[0] = d.extent[1] = (int64_t)1 << 18;
        } else if (kind == 4) { /* +-J: 2^17 x 2^21 = 2^38 sites, as many packed couplings
                                 * (and 512 GiB of byte couplings on the host, whole) */
            d.ndim = 2;
            d.couplings = LATMC_COUPLINGS_BIMODAL;
            d.extent[0] = (int64_t)1 << 17;
            d.extent[1] = (int64_t)1 << 21;
        } else { /* 1024 x 1024 x 4096 = 2^32 sites: two buffers of 96 GiB, and the
                  * couplings (48 GiB; on the host too, whole) */
            d.ndim = 3;
            d.replicas = 2;
            d.couplings = LATMC_COUPLINGS_GAUSSIAN;
            d.extent[0] = d.extent[1] = 1024;
            d.extent[2] = 4096;
        }
        failed |= run_part(ctx, name[kind], d, 5, 1024, site_bytes[kind]);
    }
    latmc_ctx_destroy(&ctx);
    return failed;
}
