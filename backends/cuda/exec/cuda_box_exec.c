/*
 * The per-box plumbing (cuda_box_exec.h) that the one executor's boxes use.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda_check.h"
#include "cuda_box_exec.h"
#include "model.h"

int cuda_box_set_device(int device)
{
    return cuda_check(cudaSetDevice(device), "cudaSetDevice");
}

int cuda_box_device_of(const latmc_sim_desc *d, int i)
{
    if (d->n_devices <= 1)
        return d->device_index;
    return d->device_list ? d->device_list[i] : d->device_index + i;
}

int cuda_box_alloc_on(void **ptr, size_t bytes, int device, const char *what)
{
    char msg[160];
    snprintf(msg, sizeof msg, "cannot allocate %zu bytes of device memory on device %d for "
             "the %s of a box", bytes, device, what);
    return cuda_check(cudaMalloc(ptr, bytes), msg);
}

int cuda_box_exec_create(struct cuda_box_exec *e)
{
    int low = 0, high = 0;
    int st;
    if ((st = cuda_box_set_device(e->device)) < 0 ||
        (st = cuda_check(cudaStreamCreateWithFlags(&e->stream, cudaStreamNonBlocking),
                         "cudaStreamCreateWithFlags")) < 0 ||
        (st = cuda_check(cudaDeviceGetStreamPriorityRange(&low, &high),
                         "cudaDeviceGetStreamPriorityRange")) < 0 ||
        (st = cuda_check(cudaStreamCreateWithPriority(&e->border_stream,
                                                      cudaStreamNonBlocking, high),
                         "cudaStreamCreateWithPriority")) < 0 ||
        (st = cuda_check(cudaEventCreateWithFlags(&e->interior_done, cudaEventDisableTiming),
                         "cudaEventCreateWithFlags")) < 0 ||
        (st = cuda_check(cudaEventCreateWithFlags(&e->border_done, cudaEventDisableTiming),
                         "cudaEventCreateWithFlags")) < 0 ||
        (st = cuda_check(cudaEventCreateWithFlags(&e->copies_done, cudaEventDisableTiming),
                         "cudaEventCreateWithFlags")) < 0 ||
        (st = cuda_check(cudaMallocHost((void **)&e->count_host, sizeof *e->count_host),
                         "cannot allocate pinned host memory for a counter")) < 0 ||
        (st = cuda_box_alloc_on((void **)&e->changed, sizeof *e->changed, e->device,
                                 "update counter")) < 0)
        return st;
    return cuda_check(cudaMemsetAsync(e->changed, 0, sizeof *e->changed, e->stream),
                      "clearing the update counter");
}

int cuda_box_exec_add_half(struct cuda_box_exec *e)
{
    int st;
    if ((st = cuda_box_set_device(e->device)) < 0 ||
        (st = cuda_check(cudaStreamCreateWithFlags(&e->half_stream, cudaStreamNonBlocking),
                         "cudaStreamCreateWithFlags")) < 0)
        return st;
    return cuda_check(cudaEventCreateWithFlags(&e->half_done, cudaEventDisableTiming),
                      "cudaEventCreateWithFlags");
}

/* The executor of box i. */
static struct cuda_box_exec *nth(struct cuda_box_exec *first, size_t stride, int i)
{
    return (struct cuda_box_exec *)((char *)first + (size_t)i * stride);
}

static void sync_quiet(const struct cuda_box_exec *e)
{
    if (e->stream)
        cudaStreamSynchronize(e->stream);
    if (e->border_stream)
        cudaStreamSynchronize(e->border_stream);
    if (e->half_stream)
        cudaStreamSynchronize(e->half_stream);
}

static void destroy(struct cuda_box_exec *e)
{
    cudaFree(e->changed);
    cudaFreeHost(e->count_host);
    cudaFreeHost(e->sums_host);
    if (e->border_done)
        cudaEventDestroy(e->border_done);
    if (e->copies_done)
        cudaEventDestroy(e->copies_done);
    if (e->interior_done)
        cudaEventDestroy(e->interior_done);
    if (e->half_done)
        cudaEventDestroy(e->half_done);
    if (e->half_stream)
        cudaStreamDestroy(e->half_stream);
    if (e->border_stream)
        cudaStreamDestroy(e->border_stream);
    if (e->stream)
        cudaStreamDestroy(e->stream);
}

void cuda_box_exec_release_all(struct cuda_box_exec *first, size_t stride, int n,
                                void (*free_arrays)(struct cuda_box_exec *ex))
{
    for (int i = 0; first && i < n; i++) {
        struct cuda_box_exec *e = nth(first, stride, i);
        if (cudaSetDevice(e->device) != cudaSuccess) {
            (void)cudaGetLastError();
            continue;
        }
        sync_quiet(e);
        if (free_arrays)
            free_arrays(e);
        destroy(e);
        (void)cudaGetLastError();
    }
}

int cuda_box_exec_finish_all(struct cuda_box_exec *first, size_t stride, int n,
                              const char *what)
{
    int first_err = LATMC_OK;
    for (int i = 0; i < n; i++) {
        struct cuda_box_exec *e = nth(first, stride, i);
        int st = cuda_box_set_device(e->device);
        if (st == LATMC_OK)
            st = cuda_check(cudaStreamSynchronize(e->border_stream), what);
        if (st == LATMC_OK)
            st = cuda_check(cudaStreamSynchronize(e->stream), what);
        if (st == LATMC_OK && e->half_stream)
            st = cuda_check(cudaStreamSynchronize(e->half_stream), what);
        if (st < 0 && first_err == LATMC_OK)
            first_err = st;
        e->recorded = false;
    }
    return first_err;
}

int cuda_box_exec_read_counts(struct cuda_box_exec *first, size_t stride, int n,
                               const char *what, uint64_t *accepted)
{
    int st = LATMC_OK;
    for (int i = 0; i < n && st == LATMC_OK; i++) {
        struct cuda_box_exec *e = nth(first, stride, i);
        cudaError_t err = cudaSuccess;
        if ((st = cuda_box_set_device(e->device)) < 0)
            break;
        if (e->recorded && e->split) /* else copies_done, after it, covers it */
            err = cudaStreamWaitEvent(e->stream, e->border_done, 0);
        if (err == cudaSuccess && e->recorded && e->split && e->half_stream)
            err = cudaStreamWaitEvent(e->stream, e->half_done, 0);
        if (err == cudaSuccess && e->recorded)
            err = cudaStreamWaitEvent(e->stream, e->copies_done, 0);
        if (err == cudaSuccess)
            err = cudaMemcpyAsync(e->count_host, e->changed, sizeof *e->changed,
                                  cudaMemcpyDeviceToHost, e->stream);
        st = cuda_check(err, what);
    }
    const int fin = cuda_box_exec_finish_all(first, stride, n, "sweeping");
    if (st == LATMC_OK)
        st = fin;
    for (int i = 0; i < n && st == LATMC_OK; i++) {
        struct cuda_box_exec *e = nth(first, stride, i);
        *accepted += *e->count_host - e->count_seen;
        e->count_seen = *e->count_host;
    }
    return st;
}

cudaError_t cuda_box_copy_to(const struct cuda_box_exec *src, const void *from,
                              const struct cuda_box_exec *dst, void *to, size_t bytes,
                              cudaStream_t stream)
{
    if (src->device == dst->device)
        return cudaMemcpyAsync(to, from, bytes, cudaMemcpyDeviceToDevice, stream);
    return cudaMemcpyPeerAsync(to, dst->device, from, src->device, bytes, stream);
}

void cuda_box_runs_of(int64_t origin, int64_t planes, int64_t halo, int64_t L,
                       struct cuda_box_run r[3])
{
    r[0] = (struct cuda_box_run){ (origin - halo + L) % L, 0, halo };
    r[1] = (struct cuda_box_run){ origin, halo, planes };
    r[2] = (struct cuda_box_run){ (origin + planes) % L, halo + planes, halo };
}

void cuda_box_runs(const struct cuda_box_exec *e, int64_t halo, int64_t L,
                    struct cuda_box_run r[3])
{
    cuda_box_runs_of(e->origin, e->planes, halo, L, r);
}

int cuda_box_exec_put_planes(struct cuda_box_exec *first, size_t stride, int n,
                              void *(*local_of)(struct cuda_box_exec *ex), int64_t halo,
                              int64_t L, size_t plane_bytes, const void *whole,
                              const char *what)
{
    int st = cuda_box_exec_finish_all(first, stride, n, what);
    for (int i = 0; i < n && st == LATMC_OK; i++) {
        struct cuda_box_exec *e = nth(first, stride, i);
        char *local = local_of(e);
        struct cuda_box_run r[3];
        cuda_box_runs(e, halo, L, r);
        if ((st = cuda_box_set_device(e->device)) < 0)
            break;
        for (int k = 0; k < 3 && st == LATMC_OK; k++)
            st = cuda_check(cudaMemcpyAsync(local + (size_t)r[k].local * plane_bytes,
                                            (const char *)whole +
                                                (size_t)r[k].global * plane_bytes,
                                            (size_t)r[k].planes * plane_bytes,
                                            cudaMemcpyHostToDevice, e->stream), what);
    }
    const int fin = cuda_box_exec_finish_all(first, stride, n, what);
    return st < 0 ? st : fin;
}

int cuda_box_exec_get_planes(struct cuda_box_exec *first, size_t stride, int n,
                              void *(*local_of)(struct cuda_box_exec *ex), int64_t halo,
                              size_t plane_bytes, void *whole, const char *what)
{
    int st = cuda_box_exec_finish_all(first, stride, n, what);
    for (int i = 0; i < n && st == LATMC_OK; i++) {
        struct cuda_box_exec *e = nth(first, stride, i);
        const char *local = local_of(e);
        if ((st = cuda_box_set_device(e->device)) == LATMC_OK)
            st = cuda_check(cudaMemcpyAsync((char *)whole + (size_t)e->origin * plane_bytes,
                                            local + (size_t)halo * plane_bytes,
                                            (size_t)e->planes * plane_bytes,
                                            cudaMemcpyDeviceToHost, e->stream), what);
    }
    const int fin = cuda_box_exec_finish_all(first, stride, n, what);
    return st < 0 ? st : fin;
}

/* e->sums_host of at least `bytes` (pinned; the old contents are not kept). */
static int host_sums_of(struct cuda_box_exec *e, size_t bytes)
{
    if (e->sums_host_bytes >= bytes)
        return LATMC_OK;
    cudaFreeHost(e->sums_host);
    e->sums_host = NULL;
    e->sums_host_bytes = 0;
    int st = cuda_check(cudaMallocHost(&e->sums_host, bytes),
                        "cannot allocate pinned host memory for the sums");
    if (st == LATMC_OK)
        e->sums_host_bytes = bytes;
    return st;
}

/*
 * What measure_planes and measure_boxes share: every box's reduction launched and read
 * (per bytes, or per bytes a plane of its own: per_plane, from the device pointer reduce
 * gives) into its pinned sums_host, all before the one wait. The host launches every
 * box's reduction first, then each box's `tail` (NULL: none: the small kernels that finish
 * a reduction) and copy, so that the last box's reduction does not wait on the host for
 * the tails and copies of the boxes before it.
 */
/* The bytes box e's reduction gives (reduce_all). */
static size_t reduce_bytes(const struct cuda_box_exec *e, size_t per, bool per_plane)
{
    return per_plane ? (size_t)e->planes * per : per;
}

static int reduce_all(struct cuda_box_exec *first, size_t stride, int n, size_t per,
                      bool per_plane,
                      cudaError_t (*reduce)(struct cuda_box_exec *ex, const void *ctx,
                                            void **dev_sums),
                      cudaError_t (*tail)(struct cuda_box_exec *ex, const void *ctx),
                      const void *ctx)
{
    int st = cuda_box_exec_finish_all(first, stride, n, "measuring");
    for (int i = 0; i < n && st == LATMC_OK; i++) {
        struct cuda_box_exec *e = nth(first, stride, i);
        e->reduced = NULL;
        if ((st = host_sums_of(e, reduce_bytes(e, per, per_plane))) == LATMC_OK &&
            (st = cuda_box_set_device(e->device)) == LATMC_OK)
            st = cuda_check(reduce(e, ctx, &e->reduced), "launching the reduction");
    }
    for (int i = 0; i < n && st == LATMC_OK; i++) {
        struct cuda_box_exec *e = nth(first, stride, i);
        if ((st = cuda_box_set_device(e->device)) == LATMC_OK && tail)
            st = cuda_check(tail(e, ctx), "launching the reduction");
        if (st == LATMC_OK)
            st = cuda_check(cudaMemcpyAsync(e->sums_host, e->reduced,
                                            reduce_bytes(e, per, per_plane),
                                            cudaMemcpyDeviceToHost, e->stream),
                            "reading the reduction");
    }
    const int fin = cuda_box_exec_finish_all(first, stride, n, "measuring");
    return st < 0 ? st : fin;
}

/* The two reductions' callbacks as reduce_all's (a double array is a device pointer). */
struct plane_reduce {
    cudaError_t (*reduce)(struct cuda_box_exec *ex, const void *ctx, double **plane_sums);
    const void *ctx;
};

static cudaError_t reduce_plane_sums(struct cuda_box_exec *ex, const void *ctx, void **dev_sums)
{
    const struct plane_reduce *pr = ctx;
    double *plane_sums = NULL;
    const cudaError_t err = pr->reduce(ex, pr->ctx, &plane_sums);
    *dev_sums = plane_sums;
    return err;
}

int cuda_box_exec_measure_planes(const latmc_sim *sim, struct cuda_box_exec *first,
                                  size_t stride, int n, int64_t L, int nsums,
                                  cudaError_t (*reduce)(struct cuda_box_exec *ex,
                                                        const void *ctx, double **plane_sums),
                                  const void *ctx, void *sums)
{
    /* box order is plane order: each box's planes follow the previous box's, L in all */
    int64_t next = 0;
    for (int i = 0; i < n; i++) {
        const struct cuda_box_exec *e = nth(first, stride, i);
        if (e->origin != next)
            return cuda_core->fail(LATMC_EBACKEND, "CUDA backend: box %d starts at plane "
                                   "%lld, not %lld (a bug in the boxes)", i,
                                   (long long)e->origin, (long long)next);
        next += e->planes;
    }
    if (next != L)
        return cuda_core->fail(LATMC_EBACKEND, "CUDA backend: the boxes hold %lld planes, "
                               "not %lld (a bug in the boxes)", (long long)next, (long long)L);
    const struct plane_reduce pr = { reduce, ctx };
    const size_t plane = (size_t)nsums * sizeof(double);
    int st = reduce_all(first, stride, n, plane, true, reduce_plane_sums, NULL, &pr);
    if (st < 0)
        return st;
    memset(sums, 0, sim->model->sums_size);
    for (int i = 0; i < n; i++) {
        const struct cuda_box_exec *e = nth(first, stride, i);
        for (int64_t q = 0; q < e->planes; q++)
            sim->model->add_sums(sums, (const double *)e->sums_host + (size_t)q * (size_t)nsums);
    }
    return LATMC_OK;
}

int cuda_box_exec_measure_boxes(const latmc_sim *sim, struct cuda_box_exec *first,
                                 size_t stride, int n,
                                 cudaError_t (*reduce)(struct cuda_box_exec *ex, const void *ctx,
                                                       void **box_sums),
                                 const void *ctx, void *sums)
{
    const int st = cuda_box_exec_reduce_boxes(first, stride, n, sim->model->sums_size, reduce,
                                              NULL, ctx);
    if (st < 0)
        return st;
    /* in box order, which is plane order (integers: any order gives the same) */
    memset(sums, 0, sim->model->sums_size);
    for (int i = 0; i < n; i++)
        sim->model->add_sums(sums, nth(first, stride, i)->sums_host);
    return LATMC_OK;
}

int cuda_box_exec_reduce_boxes(struct cuda_box_exec *first, size_t stride, int n, size_t bytes,
                               cudaError_t (*reduce)(struct cuda_box_exec *ex, const void *ctx,
                                                     void **box_out),
                               cudaError_t (*tail)(struct cuda_box_exec *ex, const void *ctx),
                               const void *ctx)
{
    return reduce_all(first, stride, n, bytes, false, reduce, tail, ctx);
}

int cuda_box_exec_order_step(struct cuda_box_exec *first, size_t stride, int n,
                              const char *what)
{
    int st = LATMC_OK;
    for (int i = 0; i < n && st == LATMC_OK; i++) {
        struct cuda_box_exec *e = nth(first, stride, i);
        if (!e->recorded)
            continue;
        const struct cuda_box_exec *nb[2] = { nth(first, stride, (i + n - 1) % n),
                                               nth(first, stride, (i + 1) % n) };
        if ((st = cuda_box_set_device(e->device)) < 0)
            break;
        cudaError_t err = cudaSuccess;
        if (e->split)
            err = cudaStreamWaitEvent(e->border_stream, e->interior_done, 0);
        /* interiors in halves (exec/cuda_exec.c): half B's last step before the borders, the
         * last borders before half B */
        if (err == cudaSuccess && e->split && e->half_stream)
            err = cudaStreamWaitEvent(e->border_stream, e->half_done, 0);
        if (err == cudaSuccess && e->split && e->half_stream)
            err = cudaStreamWaitEvent(e->half_stream, e->border_done, 0);
        /* each neighbour once: with two boxes both are the same one */
        for (int k = 0; k < 2 && err == cudaSuccess; k++)
            if (nb[k]->recorded && nb[k] != e && (k == 0 || nb[1] != nb[0]))
                err = cudaStreamWaitEvent(e->border_stream, nb[k]->copies_done, 0);
        if (err == cudaSuccess && e->split)
            err = cudaStreamWaitEvent(e->stream, e->border_done, 0);
        st = cuda_check(err, what);
    }
    return st;
}

void cuda_box_exec_drain(struct cuda_box_exec *first, size_t stride, int n)
{
    (void)cuda_box_exec_finish_all(first, stride, n, "sweeping");
    for (int i = 0; i < n; i++) {
        struct cuda_box_exec *e = nth(first, stride, i);
        unsigned long long v = 0;
        if (cudaSetDevice(e->device) == cudaSuccess &&
            cudaMemcpy(&v, e->changed, sizeof v, cudaMemcpyDeviceToHost) == cudaSuccess)
            e->count_seen = v;
        (void)cudaGetLastError();
    }
}

/* Peer access is enabled once per ordered pair of devices and process (enabling it again
 * is an error of the runtime that sanitizers report). */
#define PEER_TABLE 64
static pthread_mutex_t peer_lock = PTHREAD_MUTEX_INITIALIZER;
static bool peer_done[PEER_TABLE][PEER_TABLE];

/* Let each device reach its neighbours' memory and the first box's where the hardware
 * allows (the halos go to the neighbours; the first box's device is reached from every
 * box, once a pair, for copies gathered there). The copies work either way; without peer
 * access the driver stages them through host memory. */
static void enable_peer(int a, int b)
{
    int can = 0;
    const bool known = a < PEER_TABLE && b < PEER_TABLE;
    if (b == a || (known && peer_done[a][b]) ||
        cudaDeviceCanAccessPeer(&can, a, b) != cudaSuccess || !can) {
        (void)cudaGetLastError();
        return;
    }
    if (cudaSetDevice(a) == cudaSuccess)
        (void)cudaDeviceEnablePeerAccess(b, 0); /* by another user: fine */
    (void)cudaGetLastError();
    if (known)
        peer_done[a][b] = true;
}

static void enable_peers_of(const int *device, int n)
{
    pthread_mutex_lock(&peer_lock);
    for (int i = 0; i < n; i++) {
        enable_peer(device[i], device[(i + n - 1) % n]);
        enable_peer(device[i], device[(i + 1) % n]);
        enable_peer(device[i], device[0]);
        enable_peer(device[0], device[i]);
    }
    pthread_mutex_unlock(&peer_lock);
}

void cuda_box_exec_enable_peers(const latmc_sim_desc *d, int n)
{
    int *device = malloc((size_t)n * sizeof *device);
    if (!device)
        return; /* no peer access: the copies are staged, still correct */
    for (int i = 0; i < n; i++)
        device[i] = cuda_box_device_of(d, i);
    enable_peers_of(device, n);
    free(device);
}
