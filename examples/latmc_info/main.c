/*
 * latmc-info — what this liblatmc installation is and what it can use here: versions, build
 * features, the CPU and its default thread count, the backend modules (and why one was not
 * usable), and the devices. The first thing to run, and to paste into a bug report.
 *
 * The build features (OpenMP, the CUDA module, the module directory) are those of the build
 * this program came from, passed in by Meson; everything else is asked of the library at
 * run time.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <latmc/latmc.h>

#ifndef LATMC_INFO_OPENMP
#define LATMC_INFO_OPENMP 0
#endif
#ifndef LATMC_INFO_CUDA
#define LATMC_INFO_CUDA 0
#endif
#ifndef LATMC_INFO_MODULEDIR
#define LATMC_INFO_MODULEDIR "?"
#endif

static const char *env_or(const char *name, const char *fallback)
{
    const char *v = getenv(name);
    return v != NULL && v[0] != '\0' ? v : fallback;
}

/* The thread count the CPU backend uses by default, as a sim reports it (desc.n_threads = 0
 * is resolved at creation). -1 if a sim cannot be made. */
static int default_threads(latmc_ctx *ctx)
{
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_ISING;
    d.ndim = 2;
    d.extent[0] = d.extent[1] = 2;
    d.device = LATMC_DEVICE_CPU;
    latmc_sim *sim = NULL;
    int n = -1;
    if (latmc_sim_create(ctx, &d, &sim) == LATMC_OK && latmc_sim_get_desc(sim, &d) == LATMC_OK)
        n = d.n_threads;
    latmc_sim_destroy(&sim);
    return n;
}

static void devices(latmc_ctx *ctx, int kind, const char *name)
{
    int n = 0;
    int st = latmc_ctx_device_count(ctx, kind, &n);
    if (st != LATMC_OK) {
        printf("  %-18s none (%s)\n", name, latmc_strerror(st));
        return;
    }
    if (n == 0)
        printf("  %-18s none\n", name);
    for (int i = 0; i < n; i++) {
        latmc_device_info info;
        memset(&info, 0, sizeof info);
        info.struct_size = sizeof info;
        char label[32];
        snprintf(label, sizeof label, "%s %d", name, i);
        st = latmc_ctx_device_info(ctx, kind, i, &info);
        if (st != LATMC_OK)
            printf("  %-18s %s: %s\n", label, latmc_strerror(st), latmc_last_error());
        else if (kind == LATMC_DEVICE_CPU)
            printf("  %-18s %s, %d logical processors\n", label, info.name,
                   info.multiprocessors);
        else
            printf("  %-18s %s, %.1f GiB, compute capability %d.%d, %d multiprocessors\n",
                   label, info.name, (double)info.memory_bytes / (1024.0 * 1024.0 * 1024.0),
                   info.compute_major, info.compute_minor, info.multiprocessors);
    }
    if (kind != LATMC_DEVICE_CUDA || n < 2)
        return;
    /* Peer access (latmc_sim_desc::n_devices copies halos directly where it exists, through
     * pinned host memory elsewhere): row a, column b = a reaches b's memory. */
    printf("  %-18s", "peer access");
    for (int b = 0; b < n; b++)
        printf(" %3d", b);
    printf("\n");
    for (int a = 0; a < n; a++) {
        char label[32];
        snprintf(label, sizeof label, "  %s %d", name, a);
        printf("  %-18s", label);
        for (int b = 0; b < n; b++) {
            int can = 0;
            st = latmc_ctx_device_peer(ctx, kind, a, b, &can);
            printf(" %3s", st != LATMC_OK ? "?" : a == b ? "-" : can ? "yes" : "no");
        }
        printf("\n");
    }
}

int main(int argc, char **argv)
{
    if (argc > 1) {
        printf("Usage: %s\nPrint liblatmc's version, build features, backends and devices.\n",
               argv[0]);
        return strcmp(argv[1], "--help") == 0 ? 0 : 2;
    }
    latmc_ctx *ctx = NULL;
    int st = latmc_ctx_create(&ctx);
    if (st != LATMC_OK) {
        fprintf(stderr, "latmc-info: %s: %s\n", latmc_strerror(st), latmc_last_error());
        return 1;
    }
    printf("liblatmc %s (headers %s, ABI %d: liblatmc.so.%d)\n", latmc_version_string(),
           LATMC_VERSION_STRING, LATMC_ABI_MAJOR, LATMC_ABI_MAJOR);

    printf("\nbuild\n");
    printf("  %-18s %s\n", "OpenMP", LATMC_INFO_OPENMP ? "yes" : "no (one thread)");
    printf("  %-18s %s\n", "CUDA module", LATMC_INFO_CUDA ? "built (latmc-cuda.so)"
                                                          : "not built");
    printf("  %-18s %s\n", "module directory", LATMC_INFO_MODULEDIR);
    printf("  %-18s %s\n", "LATMC_MODULE_PATH", env_or("LATMC_MODULE_PATH", "(not set)"));

    latmc_device_info cpu;
    memset(&cpu, 0, sizeof cpu);
    cpu.struct_size = sizeof cpu;
    printf("\nCPU\n");
    if (latmc_ctx_device_info(ctx, LATMC_DEVICE_CPU, 0, &cpu) == LATMC_OK) {
        printf("  %-18s %s\n", "name", cpu.name);
        printf("  %-18s %d\n", "logical CPUs", cpu.multiprocessors);
    }
    int threads = default_threads(ctx);
    printf("  %-18s %d (desc.n_threads = 0; OMP_NUM_THREADS %s)\n", "default threads", threads,
           env_or("OMP_NUM_THREADS", "not set"));
    /* The CPU backend's status line names the SIMD level in use and the CPU's own;
     * LATMC_CPU_MASK=c|avx2|avx512 lowers it (results are identical at every level). */
    printf("  %-18s %s (LATMC_CPU_MASK %s)\n", "SIMD", latmc_ctx_backend_status(ctx, LATMC_DEVICE_CPU),
           env_or("LATMC_CPU_MASK", "not set"));

    printf("\nbackends\n");
    printf("  %-18s %s\n", "cpu", latmc_ctx_backend_status(ctx, LATMC_DEVICE_CPU));
    printf("  %-18s %s\n", "cuda", latmc_ctx_backend_status(ctx, LATMC_DEVICE_CUDA));

    printf("\ndevices\n");
    devices(ctx, LATMC_DEVICE_CPU, "cpu");
    devices(ctx, LATMC_DEVICE_CUDA, "cuda");
    latmc_ctx_destroy(&ctx);
    return threads > 0 ? 0 : 1;
}
