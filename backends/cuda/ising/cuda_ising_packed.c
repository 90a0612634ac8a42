/*
 * The Ising leaf of the one executor (exec/cuda_leaf.h) on the multi-spin coded layout
 * (ising_packed.h; doc/cuda.md, "Multi-spin coded Ising"): a box stores two arrays, one
 * per colour, of its local planes, a plane being plane_rows rows of L_x / 16 words.
 *
 * Halo 2 planes: the model's reach (1) rounded up to its plane multiple (2). The plan cuts
 * boxes on even planes, so a local plane has its lattice plane's parity and the packed
 * kernels' colouring holds; the kernels take the lattice's row of local row 0, which
 * names every random number, so each range writes what the one-device step writes (the
 * one-device and the CPU's chain bit for bit). A step writes its colour's array only: the
 * executor sends that array's border plane (written_array), the one plane next to the
 * box that a neighbour reads (sent_planes; the outer halo plane is never read). Borders
 * of 1 plane, the plane sent.
 *
 * The API's bytes are made and read a piece of rows at a time through a staging buffer
 * of the box (at most LATMC_CUDA_ISING_PIECE_BYTES, cuda_ising_piece_rows): hot start,
 * get/set_spins and the per-plane forms; a few planes (a part's halo exchange: up to
 * HOST_SITES sites) travel as their words instead and are converted on the host. +-J
 * couplings: packed per colour from the box's local planes' bytes, drawn on the device
 * (cuda_ising_pack_couplings_drawn) or, after set_couplings, the host's
 * (cuda_ising_pack_couplings_host).
 *
 * The kernels run where the decision tables fit 32-bit thresholds (all but extreme
 * beta); elsewhere the steps of a box with halos are refused with the reason (check_steps).
 *
 * A box alone (halo 0: one GPU, an ensemble's member) holds the whole lattice and takes
 * every lattice whose L_x is a multiple of 16 (cuda_ising_leaf_of; where L_x is a multiple
 * of 64 and these arrays do not fit the device, the 1-bit leaf instead, for a box alone as
 * for boxes with halos: cuda_ising_bits.c, which holds the configuration at 1 bit a spin
 * alone). Where the packed kernels cannot run its steps (thresholds beyond 32 bits) they
 * run the byte kernels (ising_kernels.cu) on the API's bytes of the lattice, allocated on
 * first need and kept (with the +-J byte couplings, drawn on the device or copied from the
 * executor's host couplings), as do the ensembles' byte kernels and a device view: two
 * flags say which forms hold the configuration, and each is made from the other (a pack or
 * an unpack of the whole lattice) when it is needed and stale. Both kernels follow the same
 * chain bit for bit, so which one runs never shows in a result.
 *
 * Bit-sliced steps (decisions = 1, cuda_ising_bitsliced.h) run on a box alone and, where
 * L_x is a multiple of 64 (every group in one row), on the ranges of boxes with halos.
 * Where L_x is a multiple of 64 they run on a third form, both colours at 1 bit per spin
 * (boxes with halos: the form their halos then travel in; packed_step_arrays), made from
 * the packed arrays at the first such step and kept while they run (elsewhere, or without
 * the memory for it, on the packed arrays); everything that writes the
 * configuration otherwise folds it back into the packed arrays first and drops it
 * (bits_back), so the two flags above keep their meaning whenever the 1-bit form does not
 * hold the configuration. The measurement and the projections count on its words
 * (ising_bits.h); get_spins and checkpoints make the packed arrays current from it and
 * keep it (bits_read): both then hold the configuration, and the next bit-sliced step
 * converts nothing (on boxes with halos also no executor's form switch, two waits for
 * every box).
 * With +-J couplings the 1-bit form has its coupling bits (eps_bits), made from the packed
 * coupling words with it and again whenever those are made; the packed arrays' steps read
 * the packed coupling words.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "box.h" /* struct latmc_step_call */
#include "cuda_check.h"
#include "cuda_coupling_draws.h"
#include "cuda_ising_bitsliced.h"
#include "cuda_ising_pieces.h" /* cuda_ising_pack_couplings_host, cuda_ising_piece_rows */
#include "cuda_ising_leaf.h"
#include "cuda_kernels.h"
#include "ising_range_kernels.h" /* cuda_ising_hot_start_range */
#include "mode_projections.h"
#include "ising_bits.h" /* the 1-bit form's sums and projections */
#include "ising_packed.h"
#include "model.h"
#include "part.h"
#include "plan.h"

/* Planes of at most this many sites travel as their packed words and are converted on
 * the host: no kernel, so a part's halo exchange runs beside the interior update that
 * fills the GPU (a kernel would wait for it). */
#define HOST_SITES ((int64_t)1 << 20)

/* A box's own state (cuda_box.own). */
struct packed_box {
    uint32_t *eps[2];       /* +-J: each colour's packed coupling words (else NULL) */
    int8_t *stage;          /* bytes of stage_rows rows */
    int64_t stage_rows;
    uint32_t *host_words;   /* pinned: both colours' words of up to HOST_SITES sites (a
                               box with halos: a part's exchange) */
    struct cuda_ising_packed_thresholds thr; /* from the core's tables */
    bool thr_fit;
    /* A box alone (the file's comment): the bytes of the lattice and their +-J couplings
     * (NULL until first needed), the executor's host couplings they are copied from or
     * (eps_drawn) the draws they are made by on the device, and which forms hold the
     * configuration (at least one; a box with halos: the packed). */
    int8_t *bytes, *eps_bytes;
    const int8_t *eps_host;
    bool eps_drawn;
    bool bytes_valid, packed_valid;
    /* A box alone running bit-sliced steps (decisions = 1) where L_x is a multiple of 64:
     * both colours in the 1-bit layout (cuda_ising_bitsliced.h), made from the packed
     * arrays at the first such step. bits_valid: it holds the configuration; alone
     * (packed_valid false) after a bit-sliced step, beside the packed arrays (packed_valid,
     * the same spins) after a read of them (bits_read). Anything that writes otherwise
     * drops it (bits_back: the packed arrays made current from it first). */
    uint32_t *bits;
    bool bits_valid;
    bool bits_failed;       /* the 1-bit form's memory could not be had: the packed arrays */
    /* +-J with the 1-bit form: both colours' coupling bits (cuda_ising_bits_couplings),
     * allocated and made from eps[] with the form's memory, made again whenever eps[] is
     * (couplings_to_box, draw_couplings_on_box) */
    uint32_t *eps_bits;
    bool member;            /* prepared as an ensemble's member (cuda_ising_leaf.h) */
    /* Chains of steps (packed_chain_steps): the queue and stamps (made at the first
     * chain), and LATMC_CUDA_CHAIN as read at the box's creation (-1 unset) */
    struct cuda_ising_chain chain;
    int chain_mode;
};

/* Every access to a box's state: an ensemble's prepared table may be stale. */
static struct packed_box *state_of(const struct cuda_box *b)
{
    struct packed_box *pb = b->own;
    cuda_ising_state_touched(pb->member);
    return pb;
}

static int64_t plane_rows(const latmc_sim *sim)
{
    return sim->desc.ndim == 3 ? sim->desc.extent[1] : 1;
}

static int64_t packed_halo(const latmc_sim *sim)
{
    const int64_t mult = sim->model->box_plane_multiple > 1 ? sim->model->box_plane_multiple : 1;
    return (sim->model->box_halo + mult - 1) / mult * mult;
}

/* The planes the updates and reductions read beyond a box's own: the nearest neighbours. */
static int64_t packed_reach(const latmc_sim *sim)
{
    return sim->model->box_halo;
}

static size_t packed_plane_bytes(const latmc_sim *sim)
{
    return (size_t)(plane_rows(sim) * (sim->desc.extent[0] / 16)) * sizeof(uint32_t);
}

static int packed_written_array(const struct latmc_step *step)
{
    return step->colour;
}

static uint32_t *colour_of(const struct cuda_box *b, int c)
{
    return (uint32_t *)((char *)b->data + (size_t)c * b->array_bytes);
}

/* Before a write of anything but the 1-bit form: the packed arrays made current from it
 * where only it holds the configuration, and it dropped (stale after the write). Where the
 * packed arrays hold the same spins (bits_read) nothing is converted. */
static cudaError_t bits_back(const struct cuda_box *b, cudaStream_t stream)
{
    struct packed_box *pb = b->own;
    if (!pb->bits_valid)
        return cudaSuccess;
    if (pb->packed_valid) {
        pb->bits_valid = false;
        return cudaSuccess;
    }
    const cudaError_t err = cuda_ising_bits_to_packed(stream, &b->local, pb->bits,
                                                      colour_of(b, 0), colour_of(b, 1));
    if (err == cudaSuccess) {
        pb->bits_valid = false;
        pb->packed_valid = true;
    }
    return err;
}

/* Before a read of the packed arrays (nothing written): they are made current from the
 * 1-bit form (a box with halos: its halo planes too, which the last step's sends filled),
 * and it is kept (both hold the configuration), so that the next bit-sliced step converts
 * nothing and, on boxes with halos, the executor switches no form (packed_form_differs:
 * the form switch waits for every box, twice). The callers read with nothing in flight and
 * wait for the read, so no step writes the 1-bit form while it is converted. */
static cudaError_t bits_read(const struct cuda_box *b, cudaStream_t stream)
{
    struct packed_box *pb = b->own;
    if (!pb->bits_valid || pb->packed_valid)
        return cudaSuccess;
    const cudaError_t err = cuda_ising_bits_to_packed(stream, &b->local, pb->bits,
                                                      colour_of(b, 0), colour_of(b, 1));
    if (err == cudaSuccess)
        pb->packed_valid = true;
    return err;
}

/* A box alone: its bytes (and +-J byte couplings) allocated, made current (unpacked where
 * only the packed arrays hold the configuration). cudaErrorMemoryAllocation (LATMC_ENOMEM)
 * where they do not fit; kept from then on. */
static cudaError_t bytes_current(const latmc_sim *sim, const struct cuda_box *b,
                                 cudaStream_t stream)
{
    struct packed_box *pb = b->own;
    cudaError_t err = cudaSuccess;
    if (!pb->bytes)
        err = cudaMalloc((void **)&pb->bytes, (size_t)b->local.nsites);
    if (err == cudaSuccess && (pb->eps_host || pb->eps_drawn) && !pb->eps_bytes) {
        const size_t n = (size_t)b->local.nsites * (size_t)sim->desc.ndim;
        err = cudaMalloc((void **)&pb->eps_bytes, n);
        if (err == cudaSuccess)
            err = pb->eps_host ? cudaMemcpyAsync(pb->eps_bytes, pb->eps_host, n,
                                                 cudaMemcpyHostToDevice, stream)
                               : cuda_draw_bimodal_bytes(stream, pb->eps_bytes, 0, (int64_t)n,
                                                         sim->desc.coupling_seed);
    }
    if (err == cudaSuccess && !pb->bytes_valid)
        err = bits_back(b, stream);
    if (err == cudaSuccess && !pb->bytes_valid)
        err = cuda_ising_unpack(stream, &b->local, colour_of(b, 0), colour_of(b, 1), pb->bytes);
    if (err == cudaSuccess)
        pb->bytes_valid = true;
    return err;
}

/* A box alone: its packed arrays made current (packed where only the bytes hold it). */
static cudaError_t packed_current(const struct cuda_box *b, cudaStream_t stream)
{
    struct packed_box *pb = b->own;
    cudaError_t err = bits_back(b, stream);
    if (err != cudaSuccess || pb->packed_valid)
        return err;
    err = cuda_ising_pack(stream, &b->local, pb->bytes, colour_of(b, 0), colour_of(b, 1));
    if (err == cudaSuccess)
        pb->packed_valid = true;
    return err;
}

/* The packed arrays were just written (whole): the bytes are stale. */
static void packed_written(struct packed_box *pb)
{
    pb->packed_valid = true;
    pb->bits_valid = false;
    pb->bytes_valid = false;
}

/* The packed kernels can run the sim's steps on this box: thresholds that fit (+-J
 * couplings wherever the spins do). */
static bool own_kernels(const struct cuda_box *b)
{
    const struct packed_box *pb = b->own;
    return pb->thr_fit;
}

/* Rows [local_row, local_row + rows) of the box from the API's bytes of the lattice's rows
 * from global_row on: at `host` (host memory), or the hot start's draws (host NULL). */
static cudaError_t rows_in(const latmc_sim *sim, const struct cuda_box *b, cudaStream_t stream,
                           int64_t local_row, int64_t global_row, int64_t rows,
                           const int8_t *host)
{
    const struct packed_box *pb = b->own;
    const int64_t lx = sim->desc.extent[0];
    cudaError_t err = cudaSuccess;
    for (int64_t r = 0; r < rows && err == cudaSuccess; r += pb->stage_rows) {
        const int64_t n = rows - r < pb->stage_rows ? rows - r : pb->stage_rows;
        if (host)
            err = cudaMemcpyAsync(pb->stage, host + r * lx, (size_t)(n * lx),
                                  cudaMemcpyHostToDevice, stream);
        else
            err = cuda_ising_hot_start_range(stream, pb->stage, (global_row + r) * lx, n * lx,
                                             sim->desc.seed);
        if (err == cudaSuccess)
            err = cuda_ising_pack_rows(stream, &b->local, local_row + r, n, pb->stage,
                                       colour_of(b, 0), colour_of(b, 1));
    }
    return err;
}

/* Local row r's parity: (y + z) & 1 of its lattice row (a local plane has its lattice
 * plane's parity). */
static int row_parity(const struct latmc_lattice *g, int64_t r)
{
    const int64_t y = g->ndim == 3 ? r % g->ly : r, z = g->ndim == 3 ? r / g->ly : 0;
    return (int)((y + z) & 1);
}

/*
 * Bytes of `rows` rows <-> both colours' words of them (w[0], w[1]), the packed layout of
 * ising_packed.h: nibble m of word j of row r of colour c holds site x = 16 j + 2 m + par,
 * par = (c + y + z) & 1, as bit 0 of the nibble (set: spin -1).
 */
static void host_unpack(const struct latmc_lattice *g, int64_t row0, int64_t rows,
                        uint32_t *const w[2], int8_t *buf)
{
    const int64_t lx = g->lx, wpr = lx / 16;
    for (int64_t k = 0; k < rows; k++) {
        const int par0 = row_parity(g, row0 + k);
        int8_t *row = buf + k * lx;
        for (int c = 0; c < 2; c++) {
            const uint32_t *words = w[c] + k * wpr;
            const int par = par0 ^ c;
            for (int64_t j = 0; j < wpr; j++)
                for (int m = 0; m < 8; m++)
                    row[16 * j + 2 * m + par] = (words[j] >> (4 * m)) & 1u ? (int8_t)-1
                                                                          : (int8_t)1;
        }
    }
}

static void host_pack(const struct latmc_lattice *g, int64_t row0, int64_t rows,
                      const int8_t *buf, uint32_t *const w[2])
{
    const int64_t lx = g->lx, wpr = lx / 16;
    for (int64_t k = 0; k < rows; k++) {
        const int par0 = row_parity(g, row0 + k);
        const int8_t *row = buf + k * lx;
        for (int c = 0; c < 2; c++) {
            uint32_t *words = w[c] + k * wpr;
            const int par = par0 ^ c;
            for (int64_t j = 0; j < wpr; j++) {
                uint32_t v = 0;
                for (int m = 0; m < 8; m++)
                    v |= (uint32_t)(row[16 * j + 2 * m + par] < 0) << (4 * m);
                words[j] = v;
            }
        }
    }
}

/* The host path of put_planes (host: the bytes) or get_planes (out: the bytes) of local
 * rows [row0, row0 + rows): the packed words converted on the host. */
static const struct cuda_ising_host_form packed_host_form = { 16, host_pack, host_unpack };

static cudaError_t host_path(const struct cuda_box *b, cudaStream_t stream, int64_t row0,
                             int64_t rows, const int8_t *host, int8_t *out)
{
    const struct packed_box *pb = b->own;
    return cuda_ising_host_rows(stream, &b->local, &packed_host_form, colour_of(b, 0),
                                colour_of(b, 1), pb->host_words, row0, rows, host, out);
}

static cudaError_t packed_hot_planes(const latmc_sim *sim, const struct cuda_box *b,
                                     cudaStream_t stream, int64_t local_p0, int64_t global_p0,
                                     int64_t planes)
{
    /* a box alone whose bytes hold the configuration: packed first, so that the planes not
     * written keep theirs */
    const cudaError_t err = packed_current(b, stream);
    if (err != cudaSuccess)
        return err;
    packed_written(state_of(b));
    const int64_t pr = plane_rows(sim);
    return rows_in(sim, b, stream, local_p0 * pr, global_p0 * pr, planes * pr, NULL);
}

static cudaError_t packed_put_planes(const latmc_sim *sim, const struct cuda_box *b,
                                     cudaStream_t stream, int64_t local_p0, const void *host,
                                     int64_t planes)
{
    /* a box alone whose bytes hold the configuration: packed first, so that the planes not
     * written keep theirs */
    const cudaError_t err = packed_current(b, stream);
    if (err != cudaSuccess)
        return err;
    packed_written(state_of(b));
    const int64_t pr = plane_rows(sim);
    if (b->halo > 0 && planes * pr * sim->desc.extent[0] <= HOST_SITES)
        return host_path(b, stream, local_p0 * pr, planes * pr, host, NULL);
    return rows_in(sim, b, stream, local_p0 * pr, 0, planes * pr, host);
}

static cudaError_t packed_get_planes(const latmc_sim *sim, const struct cuda_box *b,
                                     cudaStream_t stream, int64_t local_p0, void *host,
                                     int64_t planes)
{
    const struct packed_box *pb = state_of(b);
    const int64_t lx = sim->desc.extent[0], pr = plane_rows(sim);
    const int64_t row0 = local_p0 * pr, rows = planes * pr;
    const cudaError_t back = bits_read(b, stream);
    if (back != cudaSuccess)
        return back;
    if (!pb->packed_valid) /* a box alone whose bytes hold the configuration */
        return cudaMemcpyAsync(host, pb->bytes + row0 * lx, (size_t)(rows * lx),
                               cudaMemcpyDeviceToHost, stream);
    if (b->halo > 0 && rows * lx <= HOST_SITES)
        return host_path(b, stream, row0, rows, NULL, host);
    cudaError_t err = cudaSuccess;
    for (int64_t r = 0; r < rows && err == cudaSuccess; r += pb->stage_rows) {
        const int64_t n = rows - r < pb->stage_rows ? rows - r : pb->stage_rows;
        err = cuda_ising_unpack_rows(stream, &b->local, row0 + r, n, colour_of(b, 0),
                                     colour_of(b, 1), pb->stage);
        if (err == cudaSuccess)
            err = cudaMemcpyAsync((int8_t *)host + r * lx, pb->stage, (size_t)(n * lx),
                                  cudaMemcpyDeviceToHost, stream);
    }
    return err;
}

/* +-J: the coupling bits of the 1-bit form made from the packed coupling words. */
static cudaError_t eps_bits_make(const struct cuda_box *b, cudaStream_t stream)
{
    const struct packed_box *pb = b->own;
    const int64_t half = cuda_ising_bits_coupling_words(&b->local) / 2;
    return cuda_ising_bits_couplings(stream, &b->local, pb->eps[0], pb->eps[1], pb->eps_bits,
                                     pb->eps_bits + half);
}

/* The step's colour's coupling bits of the 1-bit form (NULL: uniform couplings). */
static const uint32_t *eps_bits_of(const struct cuda_box *b, int c)
{
    const struct packed_box *pb = b->own;
    if (!pb->eps_bits)
        return NULL;
    return pb->eps_bits + c * (cuda_ising_bits_coupling_words(&b->local) / 2);
}

/* The 1-bit form alone holds the configuration (after bit-sliced steps): a read counts on
 * its words (ising_bits.h) instead of reading them back into the packed arrays. */
static bool bits_alone(const struct packed_box *pb)
{
    return pb->bits_valid && !pb->packed_valid;
}

/* The 1-bit form made current for a bit-sliced step (allocated at the first, from the packed
 * arrays, with the +-J coupling bits); false where the lattice has no 1-bit layout or its
 * memory cannot be had (the packed kernel runs the step: the same chain). */
static bool bits_current(const struct cuda_box *b, cudaStream_t stream)
{
    struct packed_box *pb = b->own;
    if (!cuda_ising_bits_fits(&b->local))
        return false;
    if (!pb->bits) {
        const size_t bytes = 2 * (size_t)cuda_ising_bits_words(&b->local) * sizeof(uint32_t);
        const size_t eps_bytes = (size_t)cuda_ising_bits_coupling_words(&b->local) *
                                 sizeof(uint32_t);
        if (cudaMalloc((void **)&pb->bits, bytes) != cudaSuccess ||
            (pb->eps[0] && cudaMalloc((void **)&pb->eps_bits, eps_bytes) != cudaSuccess) ||
            (pb->eps[0] && eps_bits_make(b, stream) != cudaSuccess)) {
            (void)cudaGetLastError();
            cudaFree(pb->bits);
            cudaFree(pb->eps_bits);
            pb->bits = pb->eps_bits = NULL;
            pb->bits_failed = true;
            return false;
        }
    }
    if (pb->bits_valid) { /* the step writes it: the other forms are stale */
        pb->packed_valid = pb->bytes_valid = false;
        return true;
    }
    if (packed_current(b, stream) != cudaSuccess ||
        cuda_ising_bits_from_packed(stream, &b->local, colour_of(b, 0), colour_of(b, 1),
                                    pb->bits) != cudaSuccess)
        return false; /* the packed step reports a launch failure */
    pb->bits_valid = true;
    pb->packed_valid = pb->bytes_valid = false;
    return true;
}

static cudaError_t packed_update(const latmc_sim *sim, const struct cuda_box_range *r,
                                 uint64_t sweep, const struct latmc_step *step,
                                 cudaStream_t stream, unsigned long long *changed)
{
    (void)sweep; /* the draws are named by step->rng */
    const struct cuda_box *b = r->box;
    struct packed_box *pb = b->own;
    const int c = step->colour;
    const int64_t pr = plane_rows(sim);
    /* a range of a box with halos: its local rows, named by the lattice's rows (that of
     * local row 0) */
    const struct cuda_ising_rows rows = { r->p0 * pr, r->planes * pr,
                                          (r->global_p0 - r->p0) * pr };
    if (step->kind == LATMC_STEP_COLOUR_BITSLICED) { /* packed_bitsliced */
        state_of(b);
        if (!r->whole && pb->bits_valid) { /* boxes with halos: the 1-bit form */
            const int64_t words = cuda_ising_bits_words(&b->local);
            pb->packed_valid = pb->bytes_valid = false; /* a read's copies now stale */
            return cuda_ising_bitsliced_bits_colour(stream, &b->local, &rows,
                                                    pb->bits + c * words,
                                                    pb->bits + (c ^ 1) * words,
                                                    eps_bits_of(b, c), sim->model_data,
                                                    sim->desc.algorithm,
                                                    sim->desc.seed, step, changed);
        }
        if (!r->whole) /* the packed arrays (no memory for the 1-bit form) */
            return cuda_ising_bitsliced_colour(stream, &b->local, &rows, colour_of(b, c),
                                               colour_of(b, c ^ 1), pb->eps[c], sim->model_data,
                                               sim->desc.algorithm, sim->desc.seed, step,
                                               changed);
        if (bits_current(b, stream)) { /* a box alone: the 1-bit layout */
            const int64_t words = cuda_ising_bits_words(&b->local);
            return cuda_ising_bitsliced_bits_colour(stream, &b->local, NULL,
                                                    pb->bits + c * words,
                                                    pb->bits + (c ^ 1) * words,
                                                    eps_bits_of(b, c), sim->model_data,
                                                    sim->desc.algorithm,
                                                    sim->desc.seed, step, changed);
        }
        const cudaError_t err = packed_current(b, stream);
        if (err != cudaSuccess)
            return err;
        pb->bytes_valid = false;
        return cuda_ising_bitsliced_colour(stream, &b->local, NULL, colour_of(b, c),
                                           colour_of(b, c ^ 1), pb->eps[c], sim->model_data,
                                           sim->desc.algorithm, sim->desc.seed, step, changed);
    }
    if (r->whole) { /* a box alone: the packed kernels where they run, else the bytes' */
        cudaError_t err;
        state_of(b);
        if (own_kernels(b)) {
            if ((err = packed_current(b, stream)) != cudaSuccess)
                return err;
            pb->bytes_valid = false;
            return cuda_ising_packed_sweep_colour(stream, &b->local, colour_of(b, c),
                                                  colour_of(b, c ^ 1), pb->eps[c], &pb->thr,
                                                  sim->desc.algorithm, sim->desc.seed,
                                                  step->rng, c, changed);
        }
        if ((err = bytes_current(sim, b, stream)) != cudaSuccess)
            return err;
        pb->packed_valid = false;
        return cuda_ising_sweep_colour(stream, &b->local, pb->bytes, pb->eps_bytes, b->tables,
                                       sim->desc.algorithm, sim->desc.seed, step->rng, c,
                                       changed);
    }
    if (b->halo == 0) { /* a box alone's range (packed_halves; packed_switch_form made the */
        state_of(b);    /* packed arrays current): the bytes now stale */
        pb->bytes_valid = false;
    }
    return cuda_ising_packed_sweep_rows(stream, &b->local, &rows, colour_of(b, c),
                                        colour_of(b, c ^ 1), pb->eps[c], &pb->thr,
                                        sim->desc.algorithm, sim->desc.seed, step->rng, c,
                                        changed);
}

/*
 * Chains (cuda_leaf.h; ising_packed.h, cuda_ising_packed_chain): a box alone's colour steps
 * of the default chain, up to CUDA_ISING_CHAIN_STEPS of them a launch, where the packed
 * kernels run them, the chain kernel fits the rows (cuda_ising_packed_chain_fits) and a
 * colour has at most CHAIN_GROUPS x 8 words: there a launch
 * a step leaves the SMs idle for part of each step (its last groups, the gap to the next
 * launch; doc/PERFORMANCE.md, "Chains of steps"). LATMC_CUDA_CHAIN (read at the box's
 * creation): "1" every box alone the chain kernel fits (the tests), "0" none.
 */
#define CHAIN_GROUPS ((int64_t)1 << 18)

static int packed_chain_steps(const latmc_sim *sim, const struct cuda_box *b,
                              const struct latmc_step_call *calls, int n)
{
    struct packed_box *pb = b->own; /* its chain state made here (the box's own part) */
    if (b->halo != 0 || pb->chain_mode == 0 || pb->member ||
        !cuda_ising_packed_chain_fits(&b->local) || !own_kernels(b))
        return 0;
    if (pb->chain_mode < 0 && cuda_ising_packed_words(&b->local) / 8 > CHAIN_GROUPS)
        return 0;
    int k = 0;
    while (k < n && k < CUDA_ISING_CHAIN_STEPS && calls[k].step.kind == LATMC_STEP_COLOUR)
        k++;
    /* the queue and stamps at the first chain (on the box's stream, which the chains run
     * on); where they cannot be had, a launch a step from then on */
    if (k > 1 && !pb->chain.done &&
        cuda_ising_packed_chain_make(&b->local, b->ex.stream, &pb->chain) != cudaSuccess) {
        (void)cudaGetLastError();
        pb->chain_mode = 0;
        return 0;
    }
    return k;
}

static cudaError_t packed_chain(const latmc_sim *sim, struct cuda_box *b,
                                const struct latmc_step_call *calls, int n,
                                cudaStream_t stream, unsigned long long *changed)
{
    struct packed_box *pb = state_of(b);
    cudaError_t err = packed_current(b, stream);
    if (err != cudaSuccess)
        return err;
    pb->bytes_valid = false;
    struct latmc_rng_name names[CUDA_ISING_CHAIN_STEPS];
    int colours[CUDA_ISING_CHAIN_STEPS];
    for (int i = 0; i < n && i < CUDA_ISING_CHAIN_STEPS; i++) {
        names[i] = calls[i].step.rng;
        colours[i] = calls[i].step.colour;
    }
    return cuda_ising_packed_chain(stream, &b->local, colour_of(b, 0), colour_of(b, 1), pb->eps,
                                   &pb->thr, sim->desc.algorithm, sim->desc.seed, names,
                                   colours, n, &pb->chain, changed);
}

/* Ranges of a box alone (cuda_leaf.h, halves): the default chain's where the packed kernels
 * run it (its whole steps' kernels on rows), the bit-sliced decisions' where L_x is a
 * multiple of 64 (rows of whole groups, in either form); the executor puts the box in the
 * steps' form first (packed_switch_form). */
static bool packed_halves(const latmc_sim *sim, const struct cuda_box *b,
                          const struct latmc_step *step)
{
    if (step->kind == LATMC_STEP_COLOUR_BITSLICED)
        return cuda_ising_bitsliced_rows_fit(&b->local);
    return step->kind == LATMC_STEP_COLOUR && own_kernels(b);
}

/* The bit-sliced decisions (decisions = 1, cuda_ising_bitsliced.h): a box alone, or boxes
 * of one process (one or several GPUs) where their rows hold whole groups (L_x a multiple
 * of 64); not yet a part of a lattice shared by processes. */
static bool packed_bitsliced(const latmc_sim *sim)
{
    const struct latmc_lattice g = { sim->desc.ndim, sim->desc.extent[0], sim->desc.extent[1],
                                     sim->desc.ndim == 3 ? sim->desc.extent[2] : 1, sim->nsites };
    if (latmc_part_many(sim) || !cuda_ising_bitsliced_fits(&g, sim->desc.couplings))
        return false;
    return !(sim->plan && sim->plan->n_boxes > 1) || cuda_ising_bitsliced_rows_fit(&g);
}

/* Boxes with halos (cuda_leaf.h, form_differs): bit-sliced steps run on the 1-bit form
 * where L_x is a multiple of 64 and its memory could be had, every other step on the
 * packed arrays; the executor switches all boxes together with nothing in flight. */
static bool bits_steps(const struct cuda_box *b, const struct latmc_step *step)
{
    const struct packed_box *pb = b->own;
    return step->kind == LATMC_STEP_COLOUR_BITSLICED && cuda_ising_bits_fits(&b->local) &&
           !pb->bits_failed;
}

static bool packed_form_differs(const latmc_sim *sim, const struct cuda_box *b,
                                const struct latmc_step *step)
{
    (void)sim;
    const struct packed_box *pb = b->own;
    return b->halo > 0 && bits_steps(b, step) != pb->bits_valid;
}

/* Boxes with halos, and a box alone before each step in halves (cuda_exec.c: enqueued
 * before its two streams part): the 1-bit form for bit-sliced steps where it can be had,
 * else the packed arrays (from the 1-bit form, or a box alone's bytes). */
static cudaError_t packed_switch_form(const latmc_sim *sim, struct cuda_box *b,
                                      const struct latmc_step *step, cudaStream_t stream)
{
    (void)sim;
    state_of(b);
    if (!bits_steps(b, step))
        return packed_current(b, stream);
    if (!bits_current(b, stream)) { /* a failed conversion, or no memory for the 1-bit */
        const cudaError_t err = cudaGetLastError(); /* form: the packed arrays run them */
        return err != cudaSuccess ? err : packed_current(b, stream);
    }
    return cudaGetLastError();
}

/* After a bit-sliced step of boxes in the 1-bit form, the halos travel in it: colour c's
 * words at bits + c words, a local plane of plane_rows rows of L_x / 64 words. */
static bool packed_step_arrays(const latmc_sim *sim, const struct cuda_box *b,
                               const struct latmc_step *step, char **base, size_t *array_bytes,
                               size_t *plane_bytes)
{
    const struct packed_box *pb = b->own;
    if (b->halo == 0 || !pb->bits_valid || step->kind != LATMC_STEP_COLOUR_BITSLICED)
        return false;
    *base = (char *)pb->bits;
    *array_bytes = (size_t)cuda_ising_bits_words(&b->local) * sizeof(uint32_t);
    *plane_bytes = (size_t)(plane_rows(sim) * (sim->desc.extent[0] / 64)) * sizeof(uint32_t);
    return true;
}

/* Every bond has one colour-0 end: the sums of the range's colour-0 words and their bonds
 * add up over disjoint ranges to the lattice's. */
static cudaError_t packed_measure(const latmc_sim *sim, const struct cuda_box_range *own,
                                  cudaStream_t stream, void *sums)
{
    const struct cuda_box *b = own->box;
    const struct packed_box *pb = b->own;
    if (own->whole)
        state_of(b);
    if (bits_alone(pb)) {
        /* counted on the 1-bit form's words, as the 1-bit leaf counts them (integers: the
         * same sums), a quarter of the packed arrays' bytes and no read-back first */
        const int64_t pr = plane_rows(sim);
        const struct cuda_ising_rows rows = { own->p0 * pr, own->planes * pr,
                                              (own->global_p0 - own->p0) * pr };
        return cuda_ising_bits_measure(stream, &b->local, own->whole ? NULL : &rows, pb->bits,
                                       eps_bits_of(b, 0), sums);
    }
    const cudaError_t back = bits_read(b, stream);
    if (back != cudaSuccess)
        return back;
    if (own->whole && !pb->packed_valid)
        return cuda_ising_measure(stream, &b->local, pb->bytes, pb->eps_bytes, sums);
    /* the folded walk's pass without the projections (measure_projections.cu: each word
     * read once, a few rows' loads in flight ahead of the counting) where it was measured
     * the faster (one H200 unless said): rows of full blocks (65536^2: 1.22x the kernel
     * below on the whole lattice, 1.5x on a box of a quarter of it); a box's range of rows
     * in blocks of a row (four H200, 3D 1024^3 cut in 4: 1.5x); a whole lattice of rows in
     * blocks of 128 (8192^2: 0.037-0.040 ms against 0.074); a whole 3D lattice, whose
     * chunks divide a plane (measure_fold.cuh fold_plane_chunk; doc/observables.md has the
     * figures). Elsewhere the grid-stride kernel: whole 2D lattices of rows of 32 or 64
     * threads (512^2 .. 4096^2: 0.019-0.032 ms against 0.031-0.040), rows no block fits. */
    bool row_block = false;
    const int threads = cuda_ising_packed_fold_threads(&b->local, &row_block);
    if (threads > 0 && (!row_block || !own->whole || threads >= 128 || sim->desc.ndim == 3)) {
        const struct cuda_proj_range pr = { own->p0, own->planes, own->global_p0, own->L };
        return cuda_ising_packed_measure_projections(stream, &b->local, colour_of(b, 0),
                                                     colour_of(b, 1), pb->eps[0], &pr, sums,
                                                     NULL);
    }
    if (own->whole)
        return cuda_ising_packed_measure(stream, &b->local, colour_of(b, 0), colour_of(b, 1),
                                         pb->eps[0], sums);
    const int64_t rpp = plane_rows(sim);
    const struct cuda_ising_rows rows = { own->p0 * rpp, own->planes * rpp, 0 };
    return cuda_ising_packed_measure_rows(stream, &b->local, &rows, colour_of(b, 0),
                                          colour_of(b, 1), pb->eps[0], sums);
}

/* The 1-bit form's words where they alone hold the configuration, else the packed arrays
 * where they do, else (a box alone) the bytes. */
static cudaError_t packed_projections(const latmc_sim *sim, const struct cuda_box_range *r,
                                      cudaStream_t stream, int64_t *proj)
{
    (void)sim;
    const struct cuda_box *b = r->box;
    const struct packed_box *pb = state_of(b);
    const struct cuda_proj_range pr = { r->p0, r->planes, r->global_p0, r->L };
    if (bits_alone(pb)) /* counted on the 1-bit form's words */
        return cuda_ising_bits_measure_projections(stream, &b->local, pb->bits, NULL, &pr,
                                                   NULL, proj);
    const cudaError_t back = bits_read(b, stream);
    if (back != cudaSuccess)
        return back;
    if (!r->whole || pb->packed_valid)
        return cuda_ising_packed_projections(stream, &b->local, colour_of(b, 0),
                                             colour_of(b, 1), &pr, proj);
    return cuda_byte_projections(stream, &b->local, pb->bytes, &pr, 0, proj);
}

/* packed_measure and packed_projections in one read (measure_projections.cu), of the form
 * packed_measure reads. */
static cudaError_t packed_measure_projections(const latmc_sim *sim,
                                              const struct cuda_box_range *own,
                                              cudaStream_t stream, void *sums, int64_t *proj)
{
    const struct cuda_box *b = own->box;
    const struct packed_box *pb = state_of(b);
    const struct cuda_proj_range pr = { own->p0, own->planes, own->global_p0, own->L };
    if (bits_alone(pb)) /* counted on its words, as the 1-bit leaf counts them */
        return cuda_ising_bits_measure_projections(stream, &b->local, pb->bits,
                                                   eps_bits_of(b, 0), &pr, sums, proj);
    const cudaError_t back = bits_read(b, stream);
    if (back != cudaSuccess)
        return back;
    if (own->whole && !pb->packed_valid)
        return cuda_byte_measure_projections(stream, &b->local, pb->bytes, pb->eps_bytes, &pr,
                                             0, sums, proj);
    return cuda_ising_packed_measure_projections(stream, &b->local, colour_of(b, 0),
                                                 colour_of(b, 1), pb->eps[0], &pr, sums, proj);
}

/* packed_measure_projections' sums and the exact sums of the modes in one read, where it
 * would read the packed arrays (measure_projections.cu's folded walk weighing its columns
 * and rows) or the 1-bit form's words (ising_bits_fold.cu, the same weighing); the bytes
 * decline, as the walks do for shapes of more chunks than the limbs hold (the executor
 * counts their projections). */
static cudaError_t packed_measure_modes(const latmc_sim *sim, const struct cuda_box_range *own,
                                        cudaStream_t stream, void *sums, const int64_t *weights,
                                        int64_t *limbs)
{
    (void)sim;
    const struct cuda_box *b = own->box;
    const struct packed_box *pb = state_of(b);
    const struct cuda_proj_range pr = { own->p0, own->planes, own->global_p0, own->L };
    if (bits_alone(pb)) /* as packed_measure_projections */
        return cuda_ising_bits_measure_modes(stream, &b->local, pb->bits, eps_bits_of(b, 0),
                                             &pr, sums, weights, limbs);
    const cudaError_t back = bits_read(b, stream); /* as packed_measure_projections */
    if (back != cudaSuccess)
        return back;
    if (own->whole && !pb->packed_valid)
        return cudaErrorNotSupported;
    return cuda_ising_packed_measure_modes(stream, &b->local, colour_of(b, 0), colour_of(b, 1),
                                           pb->eps[0], &pr, sums, weights, limbs);
}

static int alloc_on(void **ptr, size_t bytes, int device, const char *what)
{
    char msg[160];
    snprintf(msg, sizeof msg, "cannot allocate %zu bytes of device memory on device %d for "
             "the %s", bytes, device, what);
    return cuda_check(cudaMalloc(ptr, bytes), msg);
}

static void packed_box_destroy(struct cuda_box *b)
{
    struct packed_box *pb = b->own;
    if (!pb)
        return;
    cudaFree(pb->eps[0]);
    cudaFree(pb->eps[1]);
    cudaFree(pb->stage);
    cudaFree(pb->bytes);
    cudaFree(pb->eps_bytes);
    cudaFree(pb->bits);
    cudaFree(pb->eps_bits);
    cuda_ising_packed_chain_free(&pb->chain);
    cudaFreeHost(pb->host_words);
    free(pb);
    b->own = NULL;
}

static int packed_box_create(const latmc_sim *sim, struct cuda_box *b)
{
    struct packed_box *pb = calloc(1, sizeof *pb);
    if (!pb)
        return cuda_core->fail(LATMC_ENOMEM, "CUDA Ising: cannot allocate a box's state");
    b->own = pb; /* freed by packed_box_destroy, also after a failure below */
    pb->packed_valid = true; /* the executor's cold start */
    const char *chain = getenv("LATMC_CUDA_CHAIN");
    pb->chain_mode = chain ? strcmp(chain, "1") == 0 : -1;
    if (b->ex.origin % 2 != 0 || b->ex.planes % 2 != 0)
        return cuda_core->fail(LATMC_EUNSUPPORTED, "CUDA Ising: a box of planes [%lld, %lld) "
                               "of the last axis: the packed layout's boxes start and end on "
                               "even planes", (long long)b->ex.origin,
                               (long long)(b->ex.origin + b->ex.planes));
    const int64_t lx = sim->desc.extent[0];
    pb->stage_rows = cuda_ising_piece_rows(lx, b->local.nsites / lx);
    int st = alloc_on((void **)&pb->stage, (size_t)(pb->stage_rows * lx), b->ex.device,
                      "staging piece of the spins");
    if (st == LATMC_OK && b->halo > 0)
        st = cuda_check(cudaMallocHost((void **)&pb->host_words,
                                       (size_t)(HOST_SITES / 8) * sizeof(uint32_t)),
                        "cannot allocate pinned host memory for planes in transit");
    if (st < 0 || sim->desc.couplings != LATMC_COUPLINGS_BIMODAL)
        return st;
    const size_t bytes = (size_t)cuda_ising_packed_words(&b->local) * sizeof(uint32_t) *
                         (size_t)cuda_ising_packed_coupling_words(&b->local);
    for (int c = 0; c < 2 && st == LATMC_OK; c++)
        st = alloc_on((void **)&pb->eps[c], bytes, b->ex.device, "packed couplings");
    return st;
}

/* The couplings of the box's local planes, halos included (lattice plane origin - halo +
 * p, periodic: host plane origin - halo - host_first + p of the host's host_planes, which
 * are the whole lattice or exactly the box's local planes); the packing's wrap below
 * local plane 0 only touches the outermost halo plane's own words, which nothing reads. */
static cudaError_t packed_couplings_to_box(const latmc_sim *sim, const struct cuda_box *b,
                                           cudaStream_t stream, const void *host,
                                           int64_t host_first, int64_t host_planes)
{
    struct packed_box *pb = state_of(b);
    cudaError_t err = cuda_ising_pack_couplings_host(stream, &b->local, CUDA_ISING_EPS_PACKED,
                                                     host, host_planes,
                                                     b->ex.origin - b->halo - host_first,
                                                     pb->eps[0], pb->eps[1]);
    if (err == cudaSuccess && pb->eps_bits) /* the 1-bit form's, made again */
        err = eps_bits_make(b, stream);
    if (b->halo > 0)
        return err;
    /* a box alone: the host's couplings are the whole lattice's, kept by the executor for
     * as long as the box lives; the byte couplings, where they exist, follow them */
    pb->eps_host = host;
    pb->eps_drawn = false;
    if (err == cudaSuccess && pb->eps_bytes)
        err = cudaMemcpyAsync(pb->eps_bytes, host, (size_t)b->local.nsites *
                                                       (size_t)sim->desc.ndim,
                              cudaMemcpyHostToDevice, stream);
    return err;
}

/* The same drawn on the device (cuda_ising_pack_couplings_drawn): local plane p is the
 * lattice's plane origin - halo + p (mod L). A box alone: its byte couplings, where they
 * exist, drawn too (the whole lattice: coupling e at eps_bytes[e]), else when first
 * needed (bytes_current). */
static cudaError_t packed_draw_couplings_on_box(const latmc_sim *sim, const struct cuda_box *b,
                                                cudaStream_t stream)
{
    struct packed_box *pb = state_of(b);
    const latmc_sim_desc *d = &sim->desc;
    cudaError_t err = cuda_ising_pack_couplings_drawn(stream, &b->local, CUDA_ISING_EPS_PACKED,
                                                      d->extent[d->ndim - 1],
                                                      b->ex.origin - b->halo,
                                                      d->coupling_seed, pb->eps[0], pb->eps[1]);
    if (err == cudaSuccess && pb->eps_bits) /* the 1-bit form's, made again */
        err = eps_bits_make(b, stream);
    if (b->halo > 0)
        return err;
    pb->eps_host = NULL;
    pb->eps_drawn = true;
    if (err == cudaSuccess && pb->eps_bytes)
        err = cuda_draw_bimodal_bytes(stream, pb->eps_bytes, 0,
                                      b->local.nsites * (int64_t)d->ndim, d->coupling_seed);
    return err;
}

static void packed_params_changed(const latmc_sim *sim, struct cuda_box *b)
{
    struct packed_box *pb = state_of(b);
    pb->thr_fit = cuda_ising_packed_thresholds_of(sim->model_data, sim->desc.algorithm,
                                                  sim->desc.ndim, &pb->thr);
}

static int packed_check_steps(const latmc_sim *sim, const struct cuda_box *b)
{
    (void)sim;
    const struct packed_box *pb = b->own;
    if (pb->thr_fit || b->halo == 0) /* a box alone runs the byte kernels instead */
        return LATMC_OK;
    return cuda_core->fail(LATMC_EUNSUPPORTED, "Ising on several CUDA boxes or parts: the "
                           "decision tables at this beta do not fit the multi-spin coded "
                           "kernels' 32-bit thresholds (extreme beta); run it as one box on "
                           "one device");
}

/* The executor's cold start wrote the packed arrays. */
static void packed_stored(const latmc_sim *sim, struct cuda_box *b)
{
    (void)sim;
    packed_written(state_of(b));
}

/* A device view of a box alone: its bytes, made current (both forms stay current, so the
 * next packed step needs no packing). */
static cudaError_t packed_view(const latmc_sim *sim, struct cuda_box *b, cudaStream_t stream,
                               void **data)
{
    const struct packed_box *pb = state_of(b);
    const cudaError_t err = bytes_current(sim, b, stream);
    *data = pb->bytes;
    return err;
}

bool cuda_ising_packed_member(const latmc_sim *sim, struct cuda_box *b,
                              struct cuda_ising_member *out, bool *enqueued, cudaError_t *err)
{
    (void)sim;
    struct packed_box *pb = b->own;
    pb->member = true;
    state_of(b);
    *enqueued = false;
    *err = cudaSuccess;
    if (b->halo > 0 || !pb->thr_fit)
        return false;
    *enqueued = !pb->packed_valid;
    if ((*err = packed_current(b, b->ex.stream)) != cudaSuccess)
        return true;
    pb->bytes_valid = false; /* the kernel writes the packed arrays */
    for (int c = 0; c < 2; c++) {
        out->colour[c] = colour_of(b, c);
        out->eps_packed[c] = pb->eps[c]; /* NULL when uniform */
    }
    out->thr = pb->thr;
    return true;
}

cudaError_t cuda_ising_packed_member_bytes(const latmc_sim *sim, struct cuda_box *b,
                                           struct cuda_ising_member *out, bool *enqueued)
{
    struct packed_box *pb = b->own;
    pb->member = true;
    state_of(b);
    *enqueued = !pb->bytes_valid || ((pb->eps_host || pb->eps_drawn) && !pb->eps_bytes);
    const cudaError_t err = bytes_current(sim, b, b->ex.stream);
    if (err == cudaSuccess)
        pb->packed_valid = false; /* the kernel writes the bytes */
    out->spins = pb->bytes;
    out->eps = pb->eps_bytes;
    out->tables = b->tables;
    return err;
}

const struct cuda_leaf cuda_ising_packed_leaf = {
    .model = LATMC_MODEL_ISING,
    .halo = packed_halo,
    .border_planes = packed_reach, /* the planes sent */
    .sent_planes = packed_reach,
    .plane_bytes = packed_plane_bytes,
    .arrays = 2,
    .written_array = packed_written_array,
    .cold_byte = 0, /* the nibble 0: +1 */
    .stored = packed_stored,
    .hot_planes = packed_hot_planes,
    .put_planes = packed_put_planes,
    .get_planes = packed_get_planes,
    .box_create = packed_box_create,
    .box_destroy = packed_box_destroy,
    .params_changed = packed_params_changed,
    .check_steps = packed_check_steps,
    .draw_couplings = cuda_ising_draw_couplings,
    .couplings_to_float = cuda_ising_couplings_to_float,
    .couplings_from_float = cuda_ising_couplings_from_float,
    .couplings_to_box = packed_couplings_to_box,
    .draws_couplings = cuda_ising_draws_couplings,
    .draw_couplings_on_box = packed_draw_couplings_on_box,
    .update = packed_update,
    .measure = packed_measure,
    .projections = packed_projections,
    .measure_projections = packed_measure_projections,
    .measure_modes = packed_measure_modes,
    .view_dtype = LATMC_DTYPE_INT8, /* a box alone: its bytes (packed_view) */
    .view = packed_view,
    .bitsliced = packed_bitsliced,
    .form_differs = packed_form_differs,
    .switch_form = packed_switch_form,
    .step_arrays = packed_step_arrays,
    .halves = packed_halves,
    .chain_steps = packed_chain_steps,
    .chain = packed_chain,
};
