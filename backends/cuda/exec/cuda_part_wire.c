/*
 * A GPU rank's halo planes on the wire (cuda_part_wire.h).
 */
#include "cuda_part_wire.h"

#include "cuda_check.h"
#include "part.h"

/* Whether region (a halo buffer of region_bytes) is page-locked here, locking it at its
 * first use. */
static bool locked_region(struct cuda_part_wire *w, void *region, size_t region_bytes)
{
    int k = 0;
    while (k < w->regions && w->region[k] != region)
        k++;
    if (k < w->regions)
        return w->locked[k];
    if (k == CUDA_PART_WIRE_REGIONS) /* not expected (lib/part.c has 9): pageable copies */
        return false;
    w->region[k] = region;
    w->regions++;
    w->locked[k] = cudaHostRegister(region, region_bytes, cudaHostRegisterDefault) ==
                   cudaSuccess;
    if (!w->locked[k])
        (void)cudaGetLastError(); /* e.g. pages already registered: pageable copies */
    return w->locked[k];
}

/* `rows` runs of `run` bytes, row j of the device side at dev + j pitch, of the host side
 * at host + j run: one 2D copy (row by row for pitches beyond the 2D copies' 2^31). */
static cudaError_t copy_rows(void *dst, size_t dst_pitch, const void *src, size_t src_pitch,
                             size_t run, int rows, enum cudaMemcpyKind kind,
                             cudaStream_t stream)
{
    const size_t max_pitch = (size_t)1 << 31;
    if (dst_pitch < max_pitch && src_pitch < max_pitch)
        return cudaMemcpy2DAsync(dst, dst_pitch, src, src_pitch, run, (size_t)rows, kind,
                                 stream);
    cudaError_t err = cudaSuccess;
    for (int j = 0; j < rows && err == cudaSuccess; j++)
        err = cudaMemcpyAsync((char *)dst + (size_t)j * dst_pitch,
                              (const char *)src + (size_t)j * src_pitch, run, kind, stream);
    return err;
}

bool cuda_part_wire_move(const latmc_sim *sim, const struct cuda_leaf *leaf, struct cuda_box *b,
                         struct cuda_part_wire *w, const int64_t *lp, int copies, int64_t planes,
                         size_t plane_bytes, void *get_buf, const void *set_buf, int *st)
{
    const struct latmc_part *part = sim->part;
    if (!leaf->wire_arrays || !part || copies < 1)
        return false;
    void *buf = get_buf ? get_buf : (void *)set_buf;
    const size_t buf_bytes = (size_t)planes * part->plane_bytes;
    void *region = NULL;
    size_t region_bytes = 0;
    if (!latmc_part_is_halo_buffer(part, buf, buf_bytes, &region, &region_bytes))
        return false;
    /* the same answer on every part (the same leaf, desc and buffers): the wire's layout
     * where its bytes fit the buffer */
    int64_t l = lp[0];
    int first = 0;
    const int rows = leaf->wire_arrays(b, &l, planes, get_buf != NULL, &first);
    const size_t run = (size_t)planes * plane_bytes;
    if (rows < 1 || (size_t)rows * run > buf_bytes)
        return false;
    const bool pinned = locked_region(w, region, region_bytes);
    cudaStream_t stream = b->ex.border_stream;
    const size_t pitch = b->array_bytes;
    const char *what = set_buf ? "copying a halo plane to the device"
                               : "copying a border plane to the host";
    cudaError_t err = cudaSuccess;
    if (get_buf) {
        const char *dev = (const char *)b->data + (size_t)first * pitch + (size_t)l * plane_bytes;
        err = copy_rows(get_buf, run, dev, pitch, run, rows, cudaMemcpyDeviceToHost, stream);
    } else {
        for (int k = 0; k < copies && err == cudaSuccess; k++) {
            l = lp[k];
            leaf->wire_arrays(b, &l, planes, false, &first);
            char *dev = (char *)b->data + (size_t)first * pitch + (size_t)l * plane_bytes;
            err = copy_rows(dev, pitch, set_buf, run, run, rows, cudaMemcpyHostToDevice, stream);
        }
        if (err == cudaSuccess && pinned) { /* waited for later (the header says when) */
            w->sets_pending = true;
            *st = LATMC_OK;
            return true;
        }
    }
    *st = cuda_check(err, what);
    const int fin = cuda_check(cudaStreamSynchronize(stream), what);
    if (*st == LATMC_OK)
        *st = fin;
    if (*st == LATMC_OK)
        w->sets_pending = false; /* the gets wait for the sets before them too */
    return true;
}

int cuda_part_wire_settle(struct cuda_part_wire *w, const struct cuda_box *b)
{
    if (!w->sets_pending)
        return LATMC_OK;
    w->sets_pending = false;
    return cuda_check(cudaStreamSynchronize(b->ex.border_stream), "waiting for the halo copies");
}

void cuda_part_wire_release(struct cuda_part_wire *w)
{
    for (int k = 0; k < w->regions; k++)
        if (w->locked[k])
            (void)cudaHostUnregister(w->region[k]);
    w->regions = 0;
    w->sets_pending = false;
}
