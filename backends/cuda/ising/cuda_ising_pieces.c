/*
 * The Ising packed layout's work in pieces (cuda_ising_pieces.h): the +-J couplings packed
 * through a window of a few planes, copied from the host's bytes or drawn on the device,
 * and the rows of a staging piece.
 */
#include <stdlib.h>

#include "cuda_coupling_draws.h"
#include "cuda_ising_pieces.h"
#include "ising_bits.h"
#include "ising_packed.h"

/* Bytes of one piece (LATMC_CUDA_ISING_PIECE_BYTES, tuning and tests; at least one row:
 * a smaller value gives pieces of one row). */
static int64_t piece_bytes_setting(void)
{
    const char *v = getenv("LATMC_CUDA_ISING_PIECE_BYTES");
    if (v && *v) {
        char *end = NULL;
        const long long n = strtoll(v, &end, 10);
        if (end && *end == '\0' && n > 0)
            return n;
    }
    return (int64_t)256 << 20;
}

/* Where a window's planes come from: the host's bytes of `total` planes (eps_host), or,
 * eps_host NULL, the couplings drawn on the device (the lattice's, total = L). */
struct eps_source {
    const int8_t *eps_host;
    int64_t total;
    uint64_t seed;
};

/* Fill the window of planes [w0, w0 + wn) (local, periodic in lloc) of a lattice whose
 * local plane lp is plane (first + lp) mod total of the source, in runs of consecutive
 * planes. */
static cudaError_t fill_window(cudaStream_t stream, int8_t *window, const struct eps_source *src,
                               int64_t plane_bytes, int64_t w0, int64_t wn, int64_t lloc,
                               int64_t first)
{
    const int64_t total = src->total;
    cudaError_t err = cudaSuccess;
    int64_t k = 0;
    while (k < wn && err == cudaSuccess) {
        const int64_t g = ((first + (w0 + k) % lloc) % total + total) % total;
        int64_t run = 1;
        while (k + run < wn &&
               ((first + (w0 + k + run) % lloc) % total + total) % total == g + run)
            run++;
        if (src->eps_host)
            err = cudaMemcpyAsync(window + k * plane_bytes, src->eps_host + g * plane_bytes,
                                  (size_t)(run * plane_bytes), cudaMemcpyHostToDevice, stream);
        else
            err = cuda_draw_bimodal_bytes(stream, window + k * plane_bytes, g * plane_bytes,
                                          (g + run) * plane_bytes, src->seed);
        k += run;
    }
    return err;
}

/* What a window's planes become (enum cuda_ising_eps_form): the packed coupling words, or
 * the 1-bit layout's coupling bits (ising_bits.h). */
typedef cudaError_t (*planes_fn)(cudaStream_t stream, const struct latmc_lattice *g, int64_t p0,
                                 int64_t p1, const int8_t *window, int64_t window_plane0,
                                 uint32_t *colour0, uint32_t *colour1);

static cudaError_t pack_couplings(cudaStream_t stream, const struct latmc_lattice *g,
                                  enum cuda_ising_eps_form form, const struct eps_source *src,
                                  int64_t first_plane, uint32_t *colour0, uint32_t *colour1)
{
    const planes_fn planes = form == CUDA_ISING_EPS_BITS ? cuda_ising_bits_couplings_planes
                                                         : cuda_ising_pack_couplings_planes;
    const int64_t lloc = g->ndim == 3 ? g->lz : g->ly;
    const int64_t plane_bytes = g->lx * (g->ndim == 3 ? g->ly : 1) * g->ndim;
    int64_t per = piece_bytes_setting() / plane_bytes - 1; /* planes packed per piece */
    if (per < 1)
        per = 1;
    if (per > lloc)
        per = lloc;
    const int64_t cap = per + 1 < lloc ? per + 1 : lloc; /* window: the plane below too */
    int8_t *window = NULL;
    cudaError_t err = cudaMalloc((void **)&window, (size_t)(cap * plane_bytes));
    for (int64_t p0 = 0; p0 < lloc && err == cudaSuccess; p0 += per) {
        const int64_t p1 = p0 + per < lloc ? p0 + per : lloc;
        const int64_t w0 = (p0 - 1 + lloc) % lloc, wn = p1 - p0 + 1 < lloc ? p1 - p0 + 1 : lloc;
        err = fill_window(stream, window, src, plane_bytes, w0, wn, lloc, first_plane);
        if (err == cudaSuccess)
            err = planes(stream, g, p0, p1, window, w0, colour0, colour1);
    }
    const cudaError_t done = cudaStreamSynchronize(stream); /* before the free */
    cudaFree(window);
    return err != cudaSuccess ? err : done;
}

cudaError_t cuda_ising_pack_couplings_host(cudaStream_t stream, const struct latmc_lattice *g,
                                           enum cuda_ising_eps_form form,
                                           const int8_t *eps_host, int64_t total_planes,
                                           int64_t first_plane, uint32_t *colour0,
                                           uint32_t *colour1)
{
    const struct eps_source src = { eps_host, total_planes, 0 };
    return pack_couplings(stream, g, form, &src, first_plane, colour0, colour1);
}

cudaError_t cuda_ising_pack_couplings_drawn(cudaStream_t stream, const struct latmc_lattice *g,
                                            enum cuda_ising_eps_form form, int64_t L,
                                            int64_t first_plane, uint64_t coupling_seed,
                                            uint32_t *colour0, uint32_t *colour1)
{
    const struct eps_source src = { NULL, L, coupling_seed };
    return pack_couplings(stream, g, form, &src, first_plane, colour0, colour1);
}

int64_t cuda_ising_piece_rows(int64_t lx, int64_t rows)
{
    int64_t n = piece_bytes_setting() / lx;
    if (n < 1)
        n = 1;
    return n > rows ? rows : n;
}

cudaError_t cuda_ising_host_rows(cudaStream_t stream, const struct latmc_lattice *g,
                                 const struct cuda_ising_host_form *form, uint32_t *colour0,
                                 uint32_t *colour1, uint32_t *host_words, int64_t row0,
                                 int64_t rows, const int8_t *host, int8_t *out)
{
    const int64_t wpr = g->lx / form->sites_per_word;
    const size_t n = (size_t)(rows * wpr);
    uint32_t *const w[2] = { host_words, host_words + n };
    uint32_t *const colour[2] = { colour0, colour1 };
    if (host)
        form->pack(g, row0, rows, host, w);
    cudaError_t err = cudaSuccess;
    for (int c = 0; c < 2 && err == cudaSuccess; c++) {
        uint32_t *dev = colour[c] + (size_t)(row0 * wpr);
        err = host ? cudaMemcpyAsync(dev, w[c], n * sizeof(uint32_t), cudaMemcpyHostToDevice,
                                     stream)
                   : cudaMemcpyAsync(w[c], dev, n * sizeof(uint32_t), cudaMemcpyDeviceToHost,
                                     stream);
    }
    const cudaError_t done = cudaStreamSynchronize(stream);
    if (err == cudaSuccess && done == cudaSuccess && out)
        form->unpack(g, row0, rows, w, out);
    return err != cudaSuccess ? err : done;
}
