/*
 * The projections of a whole lattice on a sim's threads (cpu_projections.h).
 */
#include "cpu_projections.h"

#include <stdlib.h>
#include <string.h>

#include "cpu_omp.h"
#include "latmc/latmc.h"

int cpu_count_planes(int64_t planes, int64_t entries, int threads, cpu_plane_counter plane,
                     void *ctx, int64_t *proj)
{
    /* each thread's own projections after the first's (proj) */
    int64_t *own = threads > 1 ? calloc((size_t)(threads - 1) * (size_t)entries, sizeof *own)
                               : NULL;
    if (threads > 1 && !own)
        return LATMC_ENOMEM;
    memset(proj, 0, (size_t)entries * sizeof *proj);
    if (threads <= 1) {
        for (int64_t p = 0; p < planes; p++)
            plane(ctx, p, proj);
        return LATMC_OK;
    }
    LATMC_OMP(parallel num_threads(threads))
    {
#ifdef _OPENMP
        const int t = omp_get_thread_num();
#else
        const int t = 0;
#endif
        int64_t *mine = t == 0 ? proj : own + (size_t)(t - 1) * (size_t)entries;
        LATMC_OMP(for schedule(static))
        for (int64_t p = 0; p < planes; p++)
            plane(ctx, p, mine);
    }
    for (int t = 1; t < threads; t++)
        for (int64_t i = 0; i < entries; i++)
            proj[i] = (int64_t)((uint64_t)proj[i] +
                                (uint64_t)own[(size_t)(t - 1) * (size_t)entries + (size_t)i]);
    free(own);
    return LATMC_OK;
}
