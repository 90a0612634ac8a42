/*
 * The executor's halo transports (cuda_halo.h): how a box's border planes reach its
 * neighbours' halos.
 */
#include "cuda_halo.h"
#include "cuda_kernels.h" /* cuda_box_copy_runs: the copy kernel (cuda_box_kernels.cu) */

/* Both runs by one kernel launch on the box's device. */
static cudaError_t send_by_kernel(const struct cuda_halo_runs *r, cudaStream_t stream)
{
    struct cuda_box_copies c = { .n = 2 };
    for (int k = 0; k < 2; k++) {
        c.src[k] = r->src[k];
        c.dst[k] = r->dst[k];
        c.bytes[k] = r->bytes;
    }
    return cuda_box_copy_runs(stream, &c);
}

/* Each run by the runtime: a device copy where the neighbour shares the box's device,
 * else a peer copy (staged through host memory by the driver without peer access). */
static cudaError_t send_by_copies(const struct cuda_halo_runs *r, cudaStream_t stream)
{
    cudaError_t err = cudaSuccess;
    for (int k = 0; k < 2 && err == cudaSuccess; k++)
        err = cuda_box_copy_to(r->from, r->src[k], r->to[k], r->dst[k], r->bytes, stream);
    return err;
}

static const struct cuda_halo_transport same_device_kernel = { "same device, one launch",
                                                               send_by_kernel };
static const struct cuda_halo_transport same_device_copies = { "same device, copies",
                                                               send_by_copies };
static const struct cuda_halo_transport peer_copy = { "peer copy", send_by_copies };
static const struct cuda_halo_transport host_staged = { "host-staged", send_by_copies };

/* A part's neighbours are in other processes: the core exchanges after the step. */
static cudaError_t send_nothing(const struct cuda_halo_runs *r, cudaStream_t stream)
{
    (void)r, (void)stream;
    return cudaSuccess;
}

static const struct cuda_halo_transport part_transport = { "the part's transport (lib/part.c)",
                                                           send_nothing };

const struct cuda_halo_transport *cuda_halo_part(void)
{
    return &part_transport;
}

/* Whether device a reaches b's memory directly. */
static bool peer_reachable(int a, int b)
{
    int can = 0;
    if (a == b)
        return true;
    if (cudaDeviceCanAccessPeer(&can, a, b) != cudaSuccess) {
        (void)cudaGetLastError();
        return false;
    }
    return can != 0;
}

const struct cuda_halo_transport *cuda_halo_pick(int device, int lower, int upper,
                                                 bool memcpy_only)
{
    if (lower == device && upper == device)
        return memcpy_only ? &same_device_copies : &same_device_kernel;
    if (peer_reachable(device, lower) && peer_reachable(device, upper))
        return &peer_copy;
    return &host_staged;
}
