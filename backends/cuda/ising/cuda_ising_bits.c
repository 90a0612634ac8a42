/*
 * The Ising leaf that holds the configuration in the 1-bit layout only
 * (cuda_ising_bitsliced.h: both colours, a box's local N / 64 words each, 1 bit a spin):
 * the storage the executor allocates is those two arrays (arrays 2, a plane of plane_rows
 * rows of L_x / 64 words), cold start all zero bits (+1). Chosen by cuda_ising_leaf_of
 * where L_x is a multiple of 64 and the packed leaf's arrays (4 bits a spin) do not fit
 * the device's free memory, or where LATMC_CUDA_ISING_FORM=bits forces it
 * (doc/cuda.md, "One bit a spin"): a box alone (halo 0: the whole lattice, periodic), the
 * boxes of one process on one or several GPUs, or a part's box.
 *
 * Boxes with halos: as the packed leaf's (cuda_ising_packed.c), halo 2 planes (the reach,
 * 1, rounded up to the colouring's plane multiple), boxes cut on even planes, so that a
 * local row has its lattice row's parity and the kernels' colouring holds; their ranges
 * take whole rows, named by the lattice's rows (struct cuda_ising_rows), so each writes
 * what the one-box step writes. A step writes its colour's array only, and the plane next
 * to a box that its neighbour reads travels as it is stored: plane_rows rows of L_x / 64
 * words of that colour (the executor's sends, written_array and sent_planes: no pack or
 * unpack; the bit-sliced steps' halos as well, since this is their form too). A part's
 * exchange moves the API's bytes (put_planes / get_planes, which every leaf takes, so parts
 * may choose their forms apart): planes of up to HOST_SITES sites travel as their words
 * and are converted on the host, as the packed leaf's do, larger ones through the piece.
 *
 * Both chains run on the words as they are: the bit-sliced steps (decisions = 1) by
 * cuda_ising_bitsliced_bits_colour, the default chain by cuda_ising_bits_sweep_colour (the
 * packed kernel's chain bit for bit, where its thresholds fit 32 bits; elsewhere
 * check_steps refuses decisions = 0 and names decisions = 1). The measurement and the
 * projections of the Fourier modes count on the words (cuda_ising_bits_measure,
 * cuda_ising_bits_measure_projections); the API's bytes (hot start, get/set_spins,
 * checkpoints) go a piece of whole planes at a time through a staging buffer of bytes
 * (LATMC_CUDA_ISING_PIECE_BYTES); a device view unpacks the whole
 * lattice into bytes allocated at the first view. +-J: the 1-bit coupling bits
 * (cuda_ising_bits_couplings' layout), made straight from a window of whole planes of the
 * couplings (drawn there, or the host's: cuda_ising_pieces.h). An ensemble's member on this
 * leaf runs its own steps (the batched kernels take the packed and byte leaves' members).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

#include "cuda_check.h"
#include "cuda_ising_bitsliced.h"
#include "cuda_ising_leaf.h"
#include "cuda_ising_pieces.h"
#include "cuda_kernels.h"
#include "ising_range_kernels.h" /* cuda_ising_hot_start_range */
#include "ising_bits.h"
#include "ising_bits_host.h" /* the host path's conversions */
#include "ising_packed.h"
#include "mode_projections.h"
#include "model.h"
#include "part.h"

/* Planes of at most this many sites of a box with halos travel as their words and are
 * converted on the host (the packed leaf's rule): no kernel, so a part's halo exchange runs
 * beside the interior update that fills the GPU (a kernel would wait for it). */
#define HOST_SITES ((int64_t)1 << 20)

struct bits_box {
    uint32_t *eps_bits;     /* +-J: both colours' coupling bits, else NULL */
    int8_t *stage;          /* bytes of stage_rows rows (whole planes) */
    int64_t stage_rows;
    uint32_t *host_words;   /* pinned: both colours' words of up to HOST_SITES sites (a box
                               with halos) */
    int8_t *view;           /* the bytes of a device view (allocated at the first) */
    struct cuda_ising_packed_thresholds thr;
    bool thr_fit;
};

static int64_t plane_rows(const latmc_sim *sim)
{
    return sim->desc.ndim == 3 ? sim->desc.extent[1] : 1;
}

/* The packed leaf's halo: the reach rounded up to the colouring's plane multiple (2). */
static int64_t bits_halo(const latmc_sim *sim)
{
    const int64_t mult = sim->model->box_plane_multiple > 1 ? sim->model->box_plane_multiple : 1;
    return (sim->model->box_halo + mult - 1) / mult * mult;
}

static int64_t bits_reach(const latmc_sim *sim)
{
    return sim->model->box_halo;
}

static size_t bits_plane_bytes(const latmc_sim *sim)
{
    return (size_t)(plane_rows(sim) * (sim->desc.extent[0] / 64)) * sizeof(uint32_t);
}

static int bits_written_array(const struct latmc_step *step)
{
    return step->colour;
}

static uint32_t *colour_of(const struct cuda_box *b, int c)
{
    return (uint32_t *)((char *)b->data + (size_t)c * b->array_bytes);
}

/* Local rows [row0, row0 + rows) of the box from the API's bytes at `host`, or the hot
 * start's draws of the lattice's rows from global_row on (host NULL), a staging piece at a
 * time. */
static cudaError_t rows_in(const latmc_sim *sim, const struct cuda_box *b, cudaStream_t stream,
                           int64_t row0, int64_t global_row, int64_t rows, const int8_t *host)
{
    const struct bits_box *bb = b->own;
    const int64_t lx = sim->desc.extent[0];
    cudaError_t err = cudaSuccess;
    for (int64_t r = 0; r < rows && err == cudaSuccess; r += bb->stage_rows) {
        const int64_t n = rows - r < bb->stage_rows ? rows - r : bb->stage_rows;
        if (host)
            err = cudaMemcpyAsync(bb->stage, host + r * lx, (size_t)(n * lx),
                                  cudaMemcpyHostToDevice, stream);
        else
            err = cuda_ising_hot_start_range(stream, bb->stage, (global_row + r) * lx, n * lx,
                                             sim->desc.seed);
        if (err == cudaSuccess)
            err = cuda_ising_bits_pack_rows(stream, &b->local, row0 + r, n, bb->stage,
                                            (uint32_t *)b->data);
    }
    return err;
}

/* The host path of put_planes (host: the bytes) or get_planes (out: the bytes) of local
 * rows [row0, row0 + rows) of a box with halos: the 1-bit words converted on the host
 * (ising_bits_host.h). */
static const struct cuda_ising_host_form bits_host_form = { 64, cuda_ising_bits_host_pack,
                                                            cuda_ising_bits_host_unpack };

static cudaError_t host_path(const struct cuda_box *b, cudaStream_t stream, int64_t row0,
                             int64_t rows, const int8_t *host, int8_t *out)
{
    const struct bits_box *bb = b->own;
    return cuda_ising_host_rows(stream, &b->local, &bits_host_form, colour_of(b, 0),
                                colour_of(b, 1), bb->host_words, row0, rows, host, out);
}

static cudaError_t bits_hot_planes(const latmc_sim *sim, const struct cuda_box *b,
                                   cudaStream_t stream, int64_t local_p0, int64_t global_p0,
                                   int64_t planes)
{
    const int64_t pr = plane_rows(sim);
    return rows_in(sim, b, stream, local_p0 * pr, global_p0 * pr, planes * pr, NULL);
}

static cudaError_t bits_put_planes(const latmc_sim *sim, const struct cuda_box *b,
                                   cudaStream_t stream, int64_t local_p0, const void *host,
                                   int64_t planes)
{
    const int64_t pr = plane_rows(sim);
    if (b->halo > 0 && planes * pr * sim->desc.extent[0] <= HOST_SITES)
        return host_path(b, stream, local_p0 * pr, planes * pr, host, NULL);
    return rows_in(sim, b, stream, local_p0 * pr, 0, planes * pr, host);
}

static cudaError_t bits_get_planes(const latmc_sim *sim, const struct cuda_box *b,
                                   cudaStream_t stream, int64_t local_p0, void *host,
                                   int64_t planes)
{
    const struct bits_box *bb = b->own;
    const int64_t lx = sim->desc.extent[0], pr = plane_rows(sim);
    const int64_t row0 = local_p0 * pr, rows = planes * pr;
    if (b->halo > 0 && rows * lx <= HOST_SITES)
        return host_path(b, stream, row0, rows, NULL, host);
    cudaError_t err = cudaSuccess;
    for (int64_t r = 0; r < rows && err == cudaSuccess; r += bb->stage_rows) {
        const int64_t n = rows - r < bb->stage_rows ? rows - r : bb->stage_rows;
        err = cuda_ising_bits_unpack_rows(stream, &b->local, row0 + r, n,
                                          (const uint32_t *)b->data, bb->stage);
        if (err == cudaSuccess)
            err = cudaMemcpyAsync((int8_t *)host + r * lx, bb->stage, (size_t)(n * lx),
                                  cudaMemcpyDeviceToHost, stream);
    }
    return err;
}

static void bits_box_destroy(struct cuda_box *b)
{
    struct bits_box *bb = b->own;
    if (!bb)
        return;
    cudaFree(bb->eps_bits);
    cudaFree(bb->stage);
    cudaFree(bb->view);
    cudaFreeHost(bb->host_words);
    free(bb);
    b->own = NULL;
}

static int alloc_on(void **ptr, size_t bytes, int device, const char *what)
{
    char msg[160];
    snprintf(msg, sizeof msg, "cannot allocate %zu bytes of device memory on device %d for "
             "the %s", bytes, device, what);
    return cuda_check(cudaMalloc(ptr, bytes), msg);
}

static int bits_box_create(const latmc_sim *sim, struct cuda_box *b)
{
    struct bits_box *bb = calloc(1, sizeof *bb);
    if (!bb)
        return cuda_core->fail(LATMC_ENOMEM, "CUDA Ising: cannot allocate a box's state");
    b->own = bb; /* freed by bits_box_destroy, also after a failure below */
    if (!cuda_ising_bits_fits(&b->local))
        return cuda_core->fail(LATMC_EUNSUPPORTED, "CUDA Ising: the 1-bit layout holds "
                               "lattices with L_x a multiple of 64");
    if (b->halo > 0 && (b->ex.origin % 2 != 0 || b->ex.planes % 2 != 0))
        return cuda_core->fail(LATMC_EUNSUPPORTED, "CUDA Ising: a box of planes [%lld, %lld) "
                               "of the last axis: the 1-bit layout's boxes start and end on "
                               "even planes", (long long)b->ex.origin,
                               (long long)(b->ex.origin + b->ex.planes));
    /* the staging piece: whole planes of rows, at least one */
    const int64_t lx = sim->desc.extent[0], pr = plane_rows(sim), rows = b->local.nsites / lx;
    int64_t n = cuda_ising_piece_rows(lx, rows) / pr * pr;
    bb->stage_rows = n < pr ? pr : n;
    int st = alloc_on((void **)&bb->stage, (size_t)(bb->stage_rows * lx), b->ex.device,
                      "staging piece of the spins");
    if (st == LATMC_OK && b->halo > 0)
        st = cuda_check(cudaMallocHost((void **)&bb->host_words,
                                       (size_t)(HOST_SITES / 32) * sizeof(uint32_t)),
                        "cannot allocate pinned host memory for planes in transit");
    if (st < 0 || sim->desc.couplings != LATMC_COUPLINGS_BIMODAL)
        return st;
    return alloc_on((void **)&bb->eps_bits,
                    (size_t)cuda_ising_bits_coupling_words(&b->local) * sizeof(uint32_t),
                    b->ex.device, "coupling bits");
}

/* +-J: the coupling bits straight from a window of the couplings (cuda_ising_pieces.h):
 * `host` the executor's (host_planes planes from the lattice's plane host_first), or
 * NULL: drawn on the device. Local plane p is the lattice's plane origin - halo + p
 * (mod L); the window's wrap below local plane 0 only touches the outer halo plane's own
 * bits, which nothing reads. Synchronises the stream (the window is freed). */
static cudaError_t couplings_in(const latmc_sim *sim, const struct cuda_box *b,
                                cudaStream_t stream, const void *host, int64_t host_first,
                                int64_t host_planes)
{
    const struct bits_box *bb = b->own;
    const latmc_sim_desc *d = &sim->desc;
    uint32_t *bits1 = bb->eps_bits + cuda_ising_bits_coupling_words(&b->local) / 2;
    if (host)
        return cuda_ising_pack_couplings_host(stream, &b->local, CUDA_ISING_EPS_BITS, host,
                                              host_planes, b->ex.origin - b->halo - host_first,
                                              bb->eps_bits, bits1);
    return cuda_ising_pack_couplings_drawn(stream, &b->local, CUDA_ISING_EPS_BITS,
                                           d->extent[d->ndim - 1], b->ex.origin - b->halo,
                                           d->coupling_seed, bb->eps_bits, bits1);
}

static cudaError_t bits_couplings_to_box(const latmc_sim *sim, const struct cuda_box *b,
                                         cudaStream_t stream, const void *host,
                                         int64_t host_first, int64_t host_planes)
{
    return couplings_in(sim, b, stream, host, host_first, host_planes);
}

static cudaError_t bits_draw_couplings_on_box(const latmc_sim *sim, const struct cuda_box *b,
                                              cudaStream_t stream)
{
    return couplings_in(sim, b, stream, NULL, 0, 0);
}

/* The step's colour's coupling bits (NULL: uniform couplings). */
static const uint32_t *eps_bits_of(const struct cuda_box *b, int c)
{
    const struct bits_box *bb = b->own;
    if (!bb->eps_bits)
        return NULL;
    return bb->eps_bits + c * (cuda_ising_bits_coupling_words(&b->local) / 2);
}

static void bits_params_changed(const latmc_sim *sim, struct cuda_box *b)
{
    struct bits_box *bb = b->own;
    bb->thr_fit = cuda_ising_packed_thresholds_of(sim->model_data, sim->desc.algorithm,
                                                  sim->desc.ndim, &bb->thr);
}

static int bits_check_steps(const latmc_sim *sim, const struct cuda_box *b)
{
    const struct bits_box *bb = b->own;
    if (bb->thr_fit || sim->param[LATMC_PARAM_DECISIONS] != 0.0)
        return LATMC_OK;
    return cuda_core->fail(LATMC_EUNSUPPORTED, "CUDA Ising at 1 bit a spin (a lattice whose "
                           "4-bit layout does not fit the device, or LATMC_CUDA_ISING_FORM="
                           "bits): the decision tables at this beta do not fit 32-bit "
                           "thresholds, which the default chain (decisions = 0) needs here; "
                           "decisions = 1 runs (not on parts of a lattice shared by "
                           "processes)");
}

/* Range r's local rows, named by the lattice's rows (that of local row 0), in *rows; NULL
 * for the whole lattice of a box alone. */
static const struct cuda_ising_rows *rows_of(const latmc_sim *sim, const struct cuda_box_range *r,
                                             struct cuda_ising_rows *rows)
{
    if (r->whole)
        return NULL;
    const int64_t pr = plane_rows(sim);
    rows->row0 = r->p0 * pr;
    rows->nrows = r->planes * pr;
    rows->row_offset = (r->global_p0 - r->p0) * pr;
    return rows;
}

static cudaError_t bits_update(const latmc_sim *sim, const struct cuda_box_range *r,
                               uint64_t sweep, const struct latmc_step *step,
                               cudaStream_t stream, unsigned long long *changed)
{
    (void)sweep; /* the draws are named by step->rng */
    const struct cuda_box *b = r->box;
    const struct bits_box *bb = b->own;
    const int c = step->colour;
    struct cuda_ising_rows range;
    const struct cuda_ising_rows *rows = rows_of(sim, r, &range);
    if (step->kind == LATMC_STEP_COLOUR_BITSLICED)
        return cuda_ising_bitsliced_bits_colour(stream, &b->local, rows, colour_of(b, c),
                                                colour_of(b, c ^ 1), eps_bits_of(b, c),
                                                sim->model_data, sim->desc.algorithm,
                                                sim->desc.seed, step, changed);
    if (!bb->thr_fit) /* bits_check_steps refused it */
        return cudaErrorInvalidValue;
    return cuda_ising_bits_sweep_colour(stream, &b->local, rows, colour_of(b, c),
                                        colour_of(b, c ^ 1), eps_bits_of(b, c), &bb->thr,
                                        sim->desc.algorithm, sim->desc.seed, step->rng, c,
                                        changed);
}

/* Every bond has one colour-0 end: the sums of disjoint ranges add up to the lattice's. */
static cudaError_t bits_measure(const latmc_sim *sim, const struct cuda_box_range *own,
                                cudaStream_t stream, void *sums)
{
    const struct cuda_box *b = own->box;
    struct cuda_ising_rows range;
    return cuda_ising_bits_measure(stream, &b->local, rows_of(sim, own, &range),
                                   (const uint32_t *)b->data, eps_bits_of(b, 0), sums);
}

/* The sums and the projections in one pass on the words (ising_bits_fold.cu); sums NULL:
 * the projections alone (bits_projections). */
static cudaError_t bits_measure_projections(const latmc_sim *sim,
                                            const struct cuda_box_range *own,
                                            cudaStream_t stream, void *sums, int64_t *proj)
{
    (void)sim;
    const struct cuda_box *b = own->box;
    const struct cuda_proj_range pr = { own->p0, own->planes, own->global_p0, own->L };
    return cuda_ising_bits_measure_projections(stream, &b->local, (const uint32_t *)b->data,
                                               eps_bits_of(b, 0), &pr, sums, proj);
}

/* bits_measure_projections' sums and the exact sums of the modes in one pass on the words
 * (ising_bits_fold.cu, weighing its columns and rows; cudaErrorNotSupported where the
 * limbs would take too many sums: the executor counts projections then). */
static cudaError_t bits_measure_modes(const latmc_sim *sim, const struct cuda_box_range *own,
                                      cudaStream_t stream, void *sums, const int64_t *weights,
                                      int64_t *limbs)
{
    (void)sim;
    const struct cuda_box *b = own->box;
    const struct cuda_proj_range pr = { own->p0, own->planes, own->global_p0, own->L };
    return cuda_ising_bits_measure_modes(stream, &b->local, (const uint32_t *)b->data,
                                         eps_bits_of(b, 0), &pr, sums, weights, limbs);
}

static cudaError_t bits_projections(const latmc_sim *sim, const struct cuda_box_range *r,
                                    cudaStream_t stream, int64_t *proj)
{
    return bits_measure_projections(sim, r, stream, NULL, proj);
}

/* A device view: the whole lattice's bytes, unpacked into memory allocated at the first
 * view and kept. */
static cudaError_t bits_view(const latmc_sim *sim, struct cuda_box *b, cudaStream_t stream,
                             void **data)
{
    (void)sim;
    struct bits_box *bb = b->own;
    *data = NULL;
    cudaError_t err = bb->view ? cudaSuccess
                               : cudaMalloc((void **)&bb->view, (size_t)b->local.nsites);
    if (err == cudaSuccess)
        err = cuda_ising_bits_unpack_rows(stream, &b->local, 0, b->local.nsites / b->local.lx,
                                          (const uint32_t *)b->data, bb->view);
    if (err == cudaSuccess)
        *data = bb->view;
    return err;
}

/* The bit-sliced decisions: a box alone, or the boxes of one process (their rows hold
 * whole groups: L_x a multiple of 64); not yet a part of a lattice shared by processes
 * (the packed leaf's rule, packed_bitsliced). */
static bool bits_bitsliced(const latmc_sim *sim)
{
    const struct latmc_lattice g = { sim->desc.ndim, sim->desc.extent[0], sim->desc.extent[1],
                                     sim->desc.ndim == 3 ? sim->desc.extent[2] : 1, sim->nsites };
    return !latmc_part_many(sim) && cuda_ising_bitsliced_fits(&g, sim->desc.couplings);
}

/* Ranges of a box alone (cuda_leaf.h, halves): both chains' kernels take rows of the box
 * (rows_of), its own wrap where the halo is 0. */
static bool bits_halves(const latmc_sim *sim, const struct cuda_box *b,
                        const struct latmc_step *step)
{
    (void)sim;
    (void)b;
    return step->kind == LATMC_STEP_COLOUR || step->kind == LATMC_STEP_COLOUR_BITSLICED;
}

const struct cuda_leaf cuda_ising_bits_leaf = {
    .model = LATMC_MODEL_ISING,
    .halo = bits_halo,
    .border_planes = bits_reach,
    .sent_planes = bits_reach,
    .plane_bytes = bits_plane_bytes,
    .arrays = 2,
    .written_array = bits_written_array,
    .cold_byte = 0, /* every bit 0: +1 */
    .hot_planes = bits_hot_planes,
    .put_planes = bits_put_planes,
    .get_planes = bits_get_planes,
    .box_create = bits_box_create,
    .box_destroy = bits_box_destroy,
    .params_changed = bits_params_changed,
    .check_steps = bits_check_steps,
    .draw_couplings = cuda_ising_draw_couplings,
    .couplings_to_float = cuda_ising_couplings_to_float,
    .couplings_from_float = cuda_ising_couplings_from_float,
    .couplings_to_box = bits_couplings_to_box,
    .draws_couplings = cuda_ising_draws_couplings,
    .draw_couplings_on_box = bits_draw_couplings_on_box,
    .update = bits_update,
    .measure = bits_measure,
    .projections = bits_projections,
    .measure_projections = bits_measure_projections,
    .measure_modes = bits_measure_modes,
    .view_dtype = LATMC_DTYPE_INT8, /* the unpacked bytes (bits_view) */
    .view = bits_view,
    .bitsliced = bits_bitsliced,
    .halves = bits_halves,
};
