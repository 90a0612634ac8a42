/*
 * The ens_sweep operation of the CUDA module (lib/backend.h; doc/ensembles.md): n sweeps
 * of every member of an ensemble with one launch per colour for all members together,
 * instead of one per member. Ising (uniform and +-J, 2D and 3D) for now; other models
 * answer LATMC_EUNSUPPORTED and the core runs their members one by one.
 *
 * The members' own state stays theirs: their bytes are made current first (an unpack
 * where a member's packed copy held the configuration), the batched kernel updates them
 * in place and their packed copies are marked stale, as after a byte-kernel sweep of the
 * sim itself. The launches go on member 0's stream; the streams of members that needed
 * an unpack are drained before, and the batch's after, so the ensemble returns with
 * nothing in flight, as every operation of the module does.
 */
#include <stdbool.h>
#include <stdlib.h>

#include "cuda_check.h"
#include "ens_cuda.h"
#include "model.h"

/* Can these members run as one batch: Ising on one device, one sweep count. */
static bool batchable(latmc_sim *const *members, int n)
{
    const latmc_sim *first = members[0];
    if (first->desc.model != LATMC_MODEL_ISING)
        return false;
    const int device = cuda_sim_of(first)->device;
    for (int m = 1; m < n; m++)
        if (cuda_sim_of(members[m])->device != device || members[m]->sweeps != first->sweeps)
            return false;
    return true;
}

int cuda_ens_sweep(latmc_sim *const *members, int n, uint64_t sweeps, uint64_t *accepted,
                   uint64_t *attempted)
{
    if (n < 1 || !batchable(members, n))
        return cuda_core->fail(LATMC_EUNSUPPORTED, "CUDA: no batched sweep for these members");
    struct cuda_sim *cs0 = cuda_sim_of(members[0]);
    int st = cuda_check(cudaSetDevice(cs0->device), "cudaSetDevice");
    if (st < 0)
        return st;
    const size_t table_bytes = (size_t)n * sizeof(struct cuda_ens_ising_member);
    const size_t count_bytes = (size_t)n * sizeof(unsigned long long);
    struct cuda_ens_ising_member *host = malloc(table_bytes);
    unsigned long long *changed = malloc(count_bytes);
    bool *pending = malloc((size_t)n * sizeof *pending); /* streams that got an unpack */
    void *dev = NULL;
    if (!host || !changed || !pending) {
        free(host);
        free(changed);
        free(pending);
        return cuda_core->fail(LATMC_ENOMEM, "CUDA: cannot allocate the table of %d members", n);
    }
    int coupled = 0;
    for (int m = 0; m < n && st == LATMC_OK; m++) {
        struct cuda_sim *cs = cuda_sim_of(members[m]);
        const int8_t *eps = NULL;
        st = cuda_check(cuda_ising_batch_member(cs, &eps, &pending[m]),
                        "preparing a member's spins");
        host[m].spins = cs->spins;
        host[m].eps = eps;
        host[m].tables = cs->tables;
        host[m].seed = members[m]->desc.seed;
        coupled = eps != NULL; /* one desc: all members alike */
    }
    /* only the streams that got work (a stream sync costs microseconds even when idle,
     * and there may be thousands of members) */
    for (int m = 0; m < n && st == LATMC_OK; m++)
        if (pending[m])
            st = cuda_check(cudaStreamSynchronize(cuda_sim_of(members[m])->stream),
                            "preparing a member's spins");
    if (st == LATMC_OK)
        st = cuda_check(cudaMalloc(&dev, table_bytes + count_bytes),
                        "cannot allocate device memory for the batch's table");
    struct cuda_ens_ising_member *dev_members = dev;
    unsigned long long *dev_changed =
        dev ? (unsigned long long *)((char *)dev + table_bytes) : NULL;
    if (st == LATMC_OK)
        st = cuda_check(cudaMemcpyAsync(dev_members, host, table_bytes, cudaMemcpyHostToDevice,
                                        cs0->stream), "copying the batch's table");
    if (st == LATMC_OK)
        st = cuda_check(cudaMemsetAsync(dev_changed, 0, count_bytes, cs0->stream),
                        "clearing the acceptance counters");
    const latmc_sim *first = members[0];
    for (uint64_t t = 0; t < sweeps && st == LATMC_OK; t++)
        for (int colour = 0; colour < 2 && st == LATMC_OK; colour++)
            st = cuda_check(cuda_ens_ising_sweep_colour(cs0->stream, &cs0->lattice, dev_members,
                                                        n, coupled, first->desc.algorithm,
                                                        first->sweeps + t, colour, dev_changed),
                            "launching a batched sweep");
    if (st == LATMC_OK)
        st = cuda_check(cudaMemcpyAsync(changed, dev_changed, count_bytes,
                                        cudaMemcpyDeviceToHost, cs0->stream),
                        "reading the acceptance counters");
    if (st == LATMC_OK)
        st = cuda_check(cudaStreamSynchronize(cs0->stream), "sweeping the members");
    if (st == LATMC_OK)
        for (int m = 0; m < n; m++) {
            accepted[m] += changed[m];
            attempted[m] += sweeps * (uint64_t)members[m]->nsites;
        }
    cudaFree(dev);
    free(host);
    free(changed);
    free(pending);
    return st;
}
