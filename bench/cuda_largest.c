/*
 * The largest Ising lattice on the GPU(s): creates one CUDA Ising sim of the given
 * extents (public API only), and reports the device memory it takes (cudaMemGetInfo
 * before and after, per device), the hot start's time, the flips/ns of timed sweeps, one
 * measurement (energy and magnetization) and its time, and that destroying it gives all
 * the memory back. A lattice that does not fit must fail with LATMC_ENOMEM and leave
 * every device's free memory as it was (checked: exit 1 otherwise).
 *
 *   cuda_largest --extents 524288x524288 [--sweeps 10] [--beta 0.4406868]
 *                [--algo metropolis|heatbath] [--device I] [--devices N] [--parts K]
 *                [--decisions D] [--bimodal 1] [--leave GIB]
 *
 * --bimodal 1: +-J couplings (drawn from coupling seed 2). --leave GIB: before the create,
 * take all but GIB GiB of each device's free memory (freed at exit), so that the choice
 * between the packed and the 1-bit Ising leaf (by free memory, doc/cuda.md "One bit a
 * spin") can be seen on a lattice smaller than the device.
 *
 * --devices N: slabs on devices I .. I + N - 1 (desc.n_devices); --parts K: K slabs on
 * device I (desc.n_parts), the several-slab code on one GPU. --checkpoint FILE: after the
 * measurement, save the sim to FILE (created; removed at the end), load it as a second
 * CUDA sim, sweep both once more and compare their observables and configurations bit for
 * bit (needs 2 N bytes of host memory besides the checkpoint's own buffers).
 *
 * Standalone, not built by meson (it links the CUDA runtime for cudaMemGetInfo):
 *   nvcc -O2 -Iinclude -I<build>/include -o cuda_largest bench/cuda_largest.c -L<build> -llatmc
 *   LATMC_MODULE_PATH=<build>/backends/cuda LD_LIBRARY_PATH=<build> ./cuda_largest ...
 * Figures: doc/PERFORMANCE.md, "The largest lattice".
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cuda_runtime_api.h>

#include <latmc/latmc.h>

#define MAX_DEV 16

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void free_memory(int first, int n, size_t *free_b, size_t *total_b)
{
    for (int i = 0; i < n; i++) {
        cudaSetDevice(first + i);
        if (cudaMemGetInfo(&free_b[i], &total_b[i]) != cudaSuccess) {
            fprintf(stderr, "cudaMemGetInfo failed on device %d\n", first + i);
            exit(2);
        }
    }
}

/* Save sim to path, load it, one more sweep on both: the same observables and spins. */
static int checkpoint_round_trip(latmc_ctx *ctx, latmc_sim *sim, const char *path)
{
    double t0 = now_s();
    int st = latmc_sim_save(sim, path);
    if (st != LATMC_OK)
        return st;
    FILE *f = fopen(path, "rb");
    long long size = -1;
    if (f && fseek(f, 0, SEEK_END) == 0)
        size = (long long)ftello(f);
    if (f)
        fclose(f);
    printf("checkpoint saved in %.2f s: %lld bytes (%.3f GiB; 2^32 = 4 GiB)\n", now_s() - t0,
           size, (double)size / 1073741824.0);
    latmc_sim *loaded = NULL;
    t0 = now_s();
    st = latmc_sim_load(ctx, path, &loaded);
    remove(path);
    if (st != LATMC_OK)
        return st;
    printf("loaded in %.2f s\n", now_s() - t0);
    const int keys[3] = { LATMC_OBS_ENERGY, LATMC_OBS_MAGNETIZATION, LATMC_OBS_M2 };
    int same = 1;
    if ((st = latmc_sim_sweep(sim, 1)) != LATMC_OK || (st = latmc_sim_sweep(loaded, 1)) != LATMC_OK)
        goto out;
    for (int k = 0; k < 3; k++) {
        double a = 0, b = 0;
        if ((st = latmc_sim_observable(sim, keys[k], &a)) != LATMC_OK ||
            (st = latmc_sim_observable(loaded, keys[k], &b)) != LATMC_OK)
            goto out;
        same &= memcmp(&a, &b, sizeof a) == 0;
    }
    size_t n = 0;
    if ((st = latmc_sim_spins_size(sim, &n)) != LATMC_OK)
        goto out;
    unsigned char *x = malloc(n), *y = malloc(n);
    if (x && y && (st = latmc_sim_get_spins(sim, x, n)) == LATMC_OK &&
        (st = latmc_sim_get_spins(loaded, y, n)) == LATMC_OK) {
        same &= memcmp(x, y, n) == 0;
        printf("after one more sweep each: observables and all %zu spins %s\n", n,
               same ? "bit-identical" : "DIFFER");
    } else if (st == LATMC_OK) {
        printf("no host memory for two copies of the spins (%zu bytes each)\n", n);
    }
    free(x);
    free(y);
    if (st == LATMC_OK && !same)
        st = LATMC_EINVAL;
out:
    latmc_sim_destroy(&loaded);
    return st;
}

static void usage(void)
{
    fprintf(stderr, "usage: cuda_largest --extents AxB[xC] [--sweeps N] [--beta B] "
                    "[--algo metropolis|heatbath] [--device I] [--devices N] [--parts K] "
                    "[--checkpoint FILE] [--decisions D] [--bimodal 1] [--leave GIB]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    int64_t ext[3] = { 0, 0, 0 };
    int ndim = 0, sweeps = 10, device = 0, ndev = 1, parts = 0;
    double beta = 0.4406868;
    const char *ckpt = NULL;
    int algo = LATMC_ALGO_METROPOLIS;
    double decisions = 0, leave_gib = -1;
    int bimodal = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v)
            usage();
        if (!strcmp(a, "--extents")) {
            long long x = 0, y = 0, z = 0;
            const int k = sscanf(v, "%lldx%lldx%lld", &x, &y, &z);
            if (k < 2)
                usage();
            ndim = k;
            ext[0] = x;
            ext[1] = y;
            ext[2] = z;
        } else if (!strcmp(a, "--sweeps"))
            sweeps = atoi(v);
        else if (!strcmp(a, "--beta"))
            beta = atof(v);
        else if (!strcmp(a, "--device"))
            device = atoi(v);
        else if (!strcmp(a, "--devices"))
            ndev = atoi(v);
        else if (!strcmp(a, "--parts"))
            parts = atoi(v);
        else if (!strcmp(a, "--checkpoint"))
            ckpt = v;
        else if (!strcmp(a, "--decisions")) /* the chain (doc/models/ising-decisions.md) */
            decisions = atof(v);
        else if (!strcmp(a, "--bimodal"))
            bimodal = atoi(v);
        else if (!strcmp(a, "--leave"))
            leave_gib = atof(v);
        else if (!strcmp(a, "--algo"))
            algo = !strcmp(v, "heatbath") ? LATMC_ALGO_HEATBATH : LATMC_ALGO_METROPOLIS;
        else
            usage();
        i++;
    }
    if (ndim == 0 || ndev < 1 || ndev > MAX_DEV || sweeps < 1)
        usage();
    const double sites = (double)ext[0] * (double)ext[1] * (ndim == 3 ? (double)ext[2] : 1.0);

    size_t free0[MAX_DEV], free1[MAX_DEV], free2[MAX_DEV], total[MAX_DEV];
    for (int i = 0; i < ndev; i++) {
        cudaSetDevice(device + i);
        cudaFree(NULL); /* the context, so that its own memory is not counted as the sim's */
    }
    latmc_ctx *ctx = NULL;
    if (latmc_ctx_create(&ctx) != LATMC_OK)
        return 2;
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_ISING;
    d.ndim = ndim;
    for (int mu = 0; mu < ndim; mu++)
        d.extent[mu] = ext[mu];
    d.algorithm = algo;
    d.seed = 1;
    d.device = LATMC_DEVICE_CUDA;
    d.device_index = device;
    d.n_devices = ndev;
    d.n_parts = parts;
    if (bimodal) {
        d.couplings = LATMC_COUPLINGS_BIMODAL;
        d.coupling_seed = 2;
    }
    /* a first tiny sim loads the module and its kernels (their memory is no sim's) */
    {
        latmc_sim_desc t = d;
        t.extent[0] = t.extent[1] = 64;
        t.extent[2] = ndim == 3 ? 64 : 0;
        latmc_sim *tiny = NULL;
        if (latmc_sim_create(ctx, &t, &tiny) != LATMC_OK ||
            latmc_sim_init_spins(tiny, LATMC_INIT_HOT) != LATMC_OK ||
            latmc_sim_sweep(tiny, 1) != LATMC_OK) {
            fprintf(stderr, "a 64^%d sim fails: %s\n", ndim, latmc_last_error());
            return 2;
        }
        latmc_sim_destroy(&tiny);
    }
    for (int i = 0; leave_gib >= 0 && i < ndev; i++) {
        size_t f = 0, t = 0;
        void *filler = NULL;
        const size_t keep = (size_t)(leave_gib * 1073741824.0);
        cudaSetDevice(device + i);
        cudaMemGetInfo(&f, &t);
        if (f > keep && cudaMalloc(&filler, f - keep) != cudaSuccess) {
            fprintf(stderr, "cannot take %zu bytes of device %d\n", f - keep, device + i);
            return 2;
        }
    }
    free_memory(device, ndev, free0, total);
    printf("lattice %lld x %lld", (long long)ext[0], (long long)ext[1]);
    if (ndim == 3)
        printf(" x %lld", (long long)ext[2]);
    printf(": %.4g spins%s, %d device(s) from %d%s\n", sites, bimodal ? " (+-J)" : "", ndev,
           device, parts > 1 ? " (several slabs on one device: --parts)" : "");
    for (int i = 0; i < ndev; i++)
        printf("  device %d: %.3f GiB free of %.3f GiB before create\n", device + i,
               (double)free0[i] / 1073741824.0, (double)total[i] / 1073741824.0);

    latmc_sim *sim = NULL;
    double t0 = now_s();
    int st = latmc_sim_create(ctx, &d, &sim);
    const double t_create = now_s() - t0;
    if (st != LATMC_OK) {
        printf("create: %s (%s) after %.2f s\n", latmc_strerror(st), latmc_last_error(),
               t_create);
        free_memory(device, ndev, free2, total);
        int leaked = 0;
        for (int i = 0; i < ndev; i++) {
            printf("  device %d: %.3f GiB free after the failure (%+.3f MiB)\n", device + i,
                   (double)free2[i] / 1073741824.0,
                   ((double)free2[i] - (double)free0[i]) / 1048576.0);
            leaked |= free2[i] + ((size_t)4 << 20) < free0[i]; /* allow the runtime 4 MiB */
        }
        latmc_ctx_destroy(&ctx);
        return st == LATMC_ENOMEM && !leaked ? 0 : 1;
    }
    free_memory(device, ndev, free1, total);
    double used = 0;
    for (int i = 0; i < ndev; i++) {
        const double u = (double)free0[i] - (double)free1[i];
        used += u;
        printf("  device %d: the sim takes %.3f GiB (%.4f bytes per spin of its slab); %.3f "
               "GiB left\n", device + i, u / 1073741824.0, u * ndev / sites,
               (double)free1[i] / 1073741824.0);
    }
    printf("create %.2f s; %.4f bytes per spin in all (%.3f GiB)\n", t_create, used / sites,
           used / 1073741824.0);

    if ((st = latmc_sim_set_param(sim, LATMC_PARAM_BETA, beta)) != LATMC_OK ||
        (decisions != 0 &&
         (st = latmc_sim_set_param(sim, LATMC_PARAM_DECISIONS, decisions)) != LATMC_OK))
        goto fail;
    t0 = now_s();
    if ((st = latmc_sim_init_spins(sim, LATMC_INIT_HOT)) != LATMC_OK)
        goto fail;
    printf("hot start %.2f s\n", now_s() - t0);
    if ((st = latmc_sim_sweep(sim, 1)) != LATMC_OK) /* warm-up */
        goto fail;
    t0 = now_s();
    if ((st = latmc_sim_sweep(sim, (uint64_t)sweeps)) != LATMC_OK)
        goto fail;
    const double t_sweeps = now_s() - t0;
    printf("%d sweeps (beta %.7g, %s, decisions %g) in %.3f s: %.1f flips/ns\n", sweeps, beta,
           algo == LATMC_ALGO_HEATBATH ? "heat bath" : "Metropolis", decisions, t_sweeps,
           (double)sweeps * sites / (t_sweeps * 1e9));
    double e = 0, m = 0, acc = 0;
    t0 = now_s();
    if ((st = latmc_sim_observable(sim, LATMC_OBS_ENERGY, &e)) != LATMC_OK ||
        (st = latmc_sim_observable(sim, LATMC_OBS_MAGNETIZATION, &m)) != LATMC_OK ||
        (st = latmc_sim_observable(sim, LATMC_OBS_ACCEPTANCE, &acc)) != LATMC_OK)
        goto fail;
    printf("energy per site %.9f, magnetization %.3e, acceptance %.6f (measured in %.3f s)\n",
           e, m, acc, now_s() - t0);
    free_memory(device, ndev, free2, total);
    for (int i = 0; i < ndev; i++)
        printf("  device %d: %.3f GiB free after the sweeps and the measurement\n", device + i,
               (double)free2[i] / 1073741824.0);
    if (ckpt && (st = checkpoint_round_trip(ctx, sim, ckpt)) != LATMC_OK)
        goto fail;
    latmc_sim_destroy(&sim);
    free_memory(device, ndev, free2, total);
    for (int i = 0; i < ndev; i++)
        printf("  device %d: %.3f GiB free after destroy (%+.3f MiB against before create)\n",
               device + i, (double)free2[i] / 1073741824.0,
               ((double)free2[i] - (double)free0[i]) / 1048576.0);
    latmc_ctx_destroy(&ctx);
    return 0;
fail:
    printf("failed: %s (%s)\n", latmc_strerror(st), latmc_sim_last_error(sim));
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
    return 1;
}
