/*
 * The executor's halo transports (cuda_halo.h): how a box's border planes reach its
 * neighbours' halos.
 */
#include <string.h>

#include "cuda_halo.h"
#include "cuda_kernels.h" /* cuda_box_copy_runs: the copy kernel (cuda_box_kernels.cu) */

/* Both runs, every row, by one kernel launch on the box's device. */
static cudaError_t send_by_kernel(const struct cuda_halo_runs *r, cudaStream_t stream)
{
    struct cuda_box_copies c = { .n = 2, .rows = r->rows };
    for (int k = 0; k < 2; k++) {
        c.src[k] = r->src[k];
        c.dst[k] = r->dst[k];
        c.bytes[k] = r->bytes;
        c.src_pitch[k] = r->src_pitch;
        c.dst_pitch[k] = r->dst_pitch[k];
    }
    return cuda_box_copy_runs(stream, &c);
}

/* Run k's rows by one call of the runtime: a 2D device copy where the neighbour shares the
 * box's device, else a 3D peer copy (staged through host memory by the driver without
 * peer access). The 2D and 3D copies take pitches below 2^31 bytes (cudaDevAttrMaxPitch
 * on current GPUs): larger boxes, and a single row, copy row by row. */
static cudaError_t send_run(const struct cuda_halo_runs *r, int k, cudaStream_t stream)
{
    const struct cuda_box_exec *to = r->to[k];
    const size_t max_pitch = (size_t)1 << 31;
    if (r->rows == 1 || r->src_pitch >= max_pitch || r->dst_pitch[k] >= max_pitch) {
        cudaError_t err = cudaSuccess;
        for (int j = 0; j < r->rows && err == cudaSuccess; j++)
            err = cuda_box_copy_to(r->from, (const char *)r->src[k] + (size_t)j * r->src_pitch,
                                   to, (char *)r->dst[k] + (size_t)j * r->dst_pitch[k],
                                   r->bytes, stream);
        return err;
    }
    if (r->from->device == to->device)
        return cudaMemcpy2DAsync(r->dst[k], r->dst_pitch[k], r->src[k], r->src_pitch, r->bytes,
                                 (size_t)r->rows, cudaMemcpyDeviceToDevice, stream);
    struct cudaMemcpy3DPeerParms p;
    memset(&p, 0, sizeof p);
    p.srcPtr = (struct cudaPitchedPtr){ (void *)r->src[k], r->src_pitch, r->bytes,
                                        (size_t)r->rows };
    p.srcDevice = r->from->device;
    p.dstPtr = (struct cudaPitchedPtr){ r->dst[k], r->dst_pitch[k], r->bytes,
                                        (size_t)r->rows };
    p.dstDevice = to->device;
    p.extent = (struct cudaExtent){ r->bytes, (size_t)r->rows, 1 };
    return cudaMemcpy3DPeerAsync(&p, stream);
}

/* Each run by the runtime (send_run). */
static cudaError_t send_by_copies(const struct cuda_halo_runs *r, cudaStream_t stream)
{
    cudaError_t err = cudaSuccess;
    for (int k = 0; k < 2 && err == cudaSuccess; k++)
        err = send_run(r, k, stream);
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
