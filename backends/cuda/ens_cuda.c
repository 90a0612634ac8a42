/*
 * The ens_sweep operation of the CUDA module (lib/backend.h; doc/ensembles.md): n sweeps
 * of every member of an ensemble with one launch per colour for all members together,
 * instead of one per member. Ising (uniform and +-J, 2D and 3D) for now; other models
 * answer LATMC_EUNSUPPORTED and the core runs their members one by one.
 *
 * The members' own state stays theirs. Where every member can run the multi-spin coded
 * kernel (ens_ising_packed.cu: L_x a multiple of 16, thresholds that fit 32 bits) it runs
 * on the members' own packed arrays (packed first where only their bytes held the
 * configuration), which then hold it and their bytes are stale, as after a packed sweep
 * of the sim itself: the configuration stays packed on the device from call to call, and
 * bytes are made only when a member's spins or observables are read. Otherwise the byte
 * kernel (ens_ising.cu) runs on their bytes (unpacked first where needed) and their packed
 * copies are marked stale. The launches go on member 0's stream; the streams of members that needed
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

/*
 * Prepare every member for the packed kernel (ens_ising_packed.cu) into packed[], or, where
 * one of them cannot run it (thresholds that do not fit 32 bits, a lattice without the
 * packed layout, LATMC_CUDA_KERNELS=reference), every member for the byte kernel into
 * bytes[]. *use_packed says which; pending[m]: member m's stream got work.
 */
static int prepare_members(latmc_sim *const *members, int n, struct cuda_ens_packed_member *packed,
                           struct cuda_ens_ising_member *bytes, bool *pending, bool *use_packed,
                           int *coupled)
{
    int st = LATMC_OK;
    /* the packed kernel numbers a member's blocks in 32 bits */
    *use_packed = members[0]->nsites < ((int64_t)1 << 32);
    for (int m = 0; m < n && *use_packed && st == LATMC_OK; m++) {
        cudaError_t err = cudaSuccess;
        *use_packed = cuda_ising_packed_member(cuda_sim_of(members[m]), &packed[m], &pending[m],
                                               &err);
        st = cuda_check(err, "preparing a member's packed spins");
        packed[m].seed = members[m]->desc.seed;
        *coupled = packed[m].eps[0] != NULL; /* one desc: all members alike */
    }
    if (st < 0 || *use_packed)
        return st;
    for (int m = 0; m < n && st == LATMC_OK; m++) {
        struct cuda_sim *cs = cuda_sim_of(members[m]);
        const int8_t *eps = NULL;
        bool enqueued = false;
        st = cuda_check(cuda_ising_batch_member(cs, &eps, &enqueued),
                        "preparing a member's spins");
        pending[m] = pending[m] || enqueued;
        bytes[m].spins = cs->spins;
        bytes[m].eps = eps;
        bytes[m].tables = cs->tables;
        bytes[m].seed = members[m]->desc.seed;
        *coupled = eps != NULL;
    }
    return st;
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
    const size_t packed_bytes = (size_t)n * sizeof(struct cuda_ens_packed_member);
    const size_t byte_bytes = (size_t)n * sizeof(struct cuda_ens_ising_member);
    const size_t count_bytes = (size_t)n * sizeof(unsigned long long);
    struct cuda_ens_packed_member *packed = calloc((size_t)n, sizeof *packed);
    struct cuda_ens_ising_member *bytes = calloc((size_t)n, sizeof *bytes);
    unsigned long long *changed = malloc(count_bytes);
    bool *pending = calloc((size_t)n, sizeof *pending); /* streams that got work */
    void *dev = NULL;
    if (!packed || !bytes || !changed || !pending) {
        free(packed);
        free(bytes);
        free(changed);
        free(pending);
        return cuda_core->fail(LATMC_ENOMEM, "CUDA: cannot allocate the table of %d members", n);
    }
    bool use_packed = false;
    int coupled = 0;
    st = prepare_members(members, n, packed, bytes, pending, &use_packed, &coupled);
    const size_t table_bytes = use_packed ? packed_bytes : byte_bytes;
    const void *table = use_packed ? (const void *)packed : (const void *)bytes;
    /* only the streams that got work (a stream sync costs microseconds even when idle,
     * and there may be thousands of members) */
    for (int m = 0; m < n && st == LATMC_OK; m++)
        if (pending[m])
            st = cuda_check(cudaStreamSynchronize(cuda_sim_of(members[m])->stream),
                            "preparing a member's spins");
    if (st == LATMC_OK)
        st = cuda_check(cudaMalloc(&dev, table_bytes + count_bytes),
                        "cannot allocate device memory for the batch's table");
    unsigned long long *dev_changed =
        dev ? (unsigned long long *)((char *)dev + table_bytes) : NULL;
    if (st == LATMC_OK)
        st = cuda_check(cudaMemcpyAsync(dev, table, table_bytes, cudaMemcpyHostToDevice,
                                        cs0->stream), "copying the batch's table");
    if (st == LATMC_OK)
        st = cuda_check(cudaMemsetAsync(dev_changed, 0, count_bytes, cs0->stream),
                        "clearing the acceptance counters");
    const latmc_sim *first = members[0];
    for (uint64_t t = 0; t < sweeps && st == LATMC_OK; t++)
        for (int colour = 0; colour < 2 && st == LATMC_OK; colour++)
            st = cuda_check(
                use_packed
                    ? cuda_ens_packed_sweep_colour(cs0->stream, &cs0->lattice, dev, n, coupled,
                                                   first->desc.algorithm, first->sweeps + t,
                                                   colour, dev_changed)
                    : cuda_ens_ising_sweep_colour(cs0->stream, &cs0->lattice, dev, n, coupled,
                                                  first->desc.algorithm, first->sweeps + t,
                                                  colour, dev_changed),
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
    free(packed);
    free(bytes);
    free(changed);
    free(pending);
    return st;
}
