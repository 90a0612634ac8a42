/*
 * Ising on a GPU rank with its slab only (doc/mpi.md, "GPU ranks"): a one-device sim that
 * is part `rank` of n_parts > 1 of a lattice shared by processes stores, in the packed
 * layout, only its own planes and `halo` planes on each side, like one slab of a sim on
 * several devices (ising/cuda_ising_packed.c): a local lattice of planes + 2 halo planes along the last
 * axis, local plane p being global plane origin - halo + p (mod L). The halo is the model's
 * reach (1) rounded up to its plane multiple (2), and slabs start on even planes, so a local
 * plane has its global plane's parity and the packed kernels' colouring holds; the update
 * kernels take the global row offset, which names every random number (the one-device
 * chain bit for bit). The halo planes are written by the part's exchange (set_planes,
 * cuda_planes.c) and by the starts and set_spins, which see the whole lattice's draws or
 * bytes; the kernels' periodic wrap of the local lattice only reaches halo planes.
 *
 * This is the sim's kernel table (cuda_planes_part_kernels, chosen at creation instead of
 * cuda_ising.c's): create allocates the local arrays only (the generic code's tables,
 * sums and counter are a few bytes); the steps, reductions and plane copies of a part run
 * in cuda_planes.c on the arrays that cuda_planes_ising_access gives. +-J: the couplings
 * of the local planes only are drawn on the host (where they lie in the global draws) and
 * packed; a part's couplings are gathered plane by plane (ops.get_coupling_planes).
 */
#include <stdlib.h>
#include <string.h>

#include "cuda_backend.h"
#include "cuda_check.h"
#include "cuda_ising_pieces.h"
#include "cuda_planes.h"
#include "ising_packed.h"
#include "model.h"
#include "part.h"
#include "plan.h"

struct slab_ising {
    struct latmc_lattice local;     /* the local lattice: planes + 2 halo planes */
    struct cuda_planes_slab geom;   /* own planes [origin, origin + planes) of L, halo 2 */
    int64_t plane_rows;             /* packed rows per plane */
    uint32_t *colour[2];            /* the packed configuration of the local planes */
    uint32_t *eps_packed[2];        /* +-J: packed couplings of the local planes */
    int8_t *eps_local;              /* +-J: the local planes' couplings, eps[ndim i + mu]
                                       of local site i (NULL: uniform) */
    int8_t *stage;                  /* bytes of stage_rows rows: starts and set/get_spins */
    int64_t stage_rows;
    struct cuda_ising_packed_thresholds thr;
    bool thr_fit;
};

static const struct cuda_model_kernels slab_ising_kernels;

static struct slab_ising *slab_of(const struct cuda_sim *cs)
{
    return cs->model_state;
}

static size_t colour_bytes(const struct slab_ising *s)
{
    return (size_t)cuda_ising_packed_words(&s->local) * sizeof(uint32_t);
}

static void slab_destroy(struct cuda_sim *cs)
{
    struct slab_ising *s = slab_of(cs);
    if (!s)
        return;
    for (int c = 0; c < 2; c++) {
        cudaFree(s->colour[c]);
        cudaFree(s->eps_packed[c]);
    }
    cudaFree(s->stage);
    free(s->eps_local);
    free(s);
    cs->model_state = NULL;
}

/* The local planes' couplings are a lattice of their own planes (local plane lp is its
 * plane lp): the packing's wrap below local plane 0 only touches the outermost halo
 * plane's own coupling words, which nothing reads (it is never updated or measured). */
static cudaError_t pack_couplings(struct cuda_sim *cs, struct slab_ising *s)
{
    return cuda_ising_pack_couplings_host(cs->stream, &s->local, s->eps_local,
                                          s->geom.planes + 2 * s->geom.halo, 0,
                                          s->eps_packed[0], s->eps_packed[1]);
}

static int slab_create(const latmc_sim *sim, struct cuda_sim *cs)
{
    struct slab_ising *s = calloc(1, sizeof *s);
    if (!s)
        return cuda_core->fail(LATMC_ENOMEM, "CUDA backend: cannot allocate the Ising part's "
                               "state");
    cs->model_state = s; /* freed by slab_destroy, also after a failure below */
    const struct latmc_part *part = sim->part;
    const int nd = sim->desc.ndim;
    /* the part's box (part->p0, p1 are set after the creation) */
    const struct latmc_box *box = &sim->plan->boxes[part->rank];
    s->geom.origin = box->origin[nd - 1];
    s->geom.planes = box->extent[nd - 1];
    s->geom.L = sim->desc.extent[nd - 1];
    s->geom.halo = 2; /* the reach (1) rounded up to the plane multiple (2) */
    s->plane_rows = nd == 3 ? sim->desc.extent[1] : 1;
    if (s->geom.origin % 2 != 0 || s->geom.planes % 2 != 0 || s->geom.L % 2 != 0)
        return cuda_core->fail(LATMC_EUNSUPPORTED, "CUDA backend: part %d of %d of an Ising "
                               "sim holds planes [%lld, %lld) of %lld: a GPU rank's slab must "
                               "start and end on even planes", part->rank, part->n_parts,
                               (long long)s->geom.origin,
                               (long long)(s->geom.origin + s->geom.planes),
                               (long long)s->geom.L);
    s->local = cs->lattice;
    const int64_t local_planes = s->geom.planes + 2 * s->geom.halo;
    if (nd == 3)
        s->local.lz = local_planes;
    else
        s->local.ly = local_planes;
    s->local.nsites = local_planes * s->plane_rows * s->local.lx;
    const size_t bytes = colour_bytes(s);
    const bool pmj = sim->desc.couplings == LATMC_COUPLINGS_BIMODAL;
    const size_t eps_bytes = bytes * (size_t)cuda_ising_packed_coupling_words(&s->local);
    s->stage_rows = cuda_ising_piece_rows(s->local.lx, local_planes * s->plane_rows);
    int st = LATMC_OK;
    for (int c = 0; c < 2 && st == LATMC_OK; c++) {
        st = cuda_check(cudaMalloc((void **)&s->colour[c], bytes),
                        "cannot allocate device memory for the packed spins of the part's slab");
        if (st == LATMC_OK)
            st = cuda_check(cudaMemsetAsync(s->colour[c], 0, bytes, cs->stream),
                            "clearing the spins");
        if (st == LATMC_OK && pmj)
            st = cuda_check(cudaMalloc((void **)&s->eps_packed[c], eps_bytes),
                            "cannot allocate device memory for the packed couplings of the "
                            "part's slab");
    }
    if (st == LATMC_OK)
        st = cuda_check(cudaMalloc((void **)&s->stage, (size_t)(s->stage_rows * s->local.lx)),
                        "cannot allocate device memory for the Ising staging piece");
    if (st == LATMC_OK && pmj) {
        /* the local planes' couplings only, drawn where they lie in the global draws */
        const int64_t per_plane = s->plane_rows * s->local.lx * nd;
        const size_t n = (size_t)(local_planes * per_plane);
        if (!(s->eps_local = malloc(n)))
            return cuda_core->fail(LATMC_ENOMEM, "CUDA Ising: cannot allocate %zu bytes of "
                                   "host memory for the couplings of the part's slab", n);
        for (int64_t p = 0; p < local_planes && st == LATMC_OK; p++) {
            const int64_t g = cuda_planes_global(&s->geom, p);
            st = cuda_core->draw_couplings(s->eps_local + p * per_plane, 0,
                                           LATMC_COUPLINGS_BIMODAL, g * per_plane,
                                           (g + 1) * per_plane, sim->desc.coupling_seed,
                                           sim->desc.n_threads);
        }
        if (st == LATMC_OK)
            st = cuda_check(pack_couplings(cs, s), "packing the couplings");
    }
    if (st == LATMC_OK)
        cuda_core->log(sim->ctx, LATMC_LOG_DEBUG, "CUDA backend: Ising part %d of %d stores "
                       "planes [%lld, %lld) and 2 x %lld halo planes (%zu bytes of spins)",
                       part->rank, part->n_parts, (long long)s->geom.origin,
                       (long long)(s->geom.origin + s->geom.planes), (long long)s->geom.halo,
                       2 * bytes);
    return st;
}

static cudaError_t slab_cold_start(const latmc_sim *sim, struct cuda_sim *cs)
{
    (void)sim;
    const struct slab_ising *s = slab_of(cs);
    cudaError_t err = cudaMemsetAsync(s->colour[0], 0, colour_bytes(s), cs->stream); /* +1 */
    return err == cudaSuccess ? cudaMemsetAsync(s->colour[1], 0, colour_bytes(s), cs->stream)
                              : err;
}

/*
 * The local planes, halos included, from the whole lattice's bytes `host` (or its hot
 * start's draws, named by the global site: host NULL), or the own planes into `out` (the
 * whole lattice's layout; the other planes untouched), a piece of rows at a time.
 */
static cudaError_t local_rows(const latmc_sim *sim, struct cuda_sim *cs, const int8_t *host,
                              int8_t *out)
{
    const struct slab_ising *s = slab_of(cs);
    const int64_t lx = s->local.lx, pr = s->plane_rows;
    struct cuda_slab_run runs[3];
    const int nruns = cuda_planes_slab_runs(&s->geom, out != NULL, runs);
    cudaError_t err = cudaSuccess;
    for (int k = 0; k < nruns && err == cudaSuccess; k++) {
        const int64_t rows = runs[k].planes * pr;
        for (int64_t r = 0; r < rows && err == cudaSuccess; r += s->stage_rows) {
            const int64_t n = rows - r < s->stage_rows ? rows - r : s->stage_rows;
            const int64_t grow = runs[k].global * pr + r, lrow = runs[k].local * pr + r;
            if (out) {
                err = cuda_ising_unpack_rows(cs->stream, &s->local, lrow, n, s->colour[0],
                                             s->colour[1], s->stage);
                if (err == cudaSuccess)
                    err = cudaMemcpyAsync(out + grow * lx, s->stage, (size_t)(n * lx),
                                          cudaMemcpyDeviceToHost, cs->stream);
                continue;
            }
            err = host ? cudaMemcpyAsync(s->stage, host + grow * lx, (size_t)(n * lx),
                                         cudaMemcpyHostToDevice, cs->stream)
                       : cuda_ising_hot_start_range(cs->stream, s->stage, grow * lx, n * lx,
                                                    sim->desc.seed);
            if (err == cudaSuccess)
                err = cuda_ising_pack_rows(cs->stream, &s->local, lrow, n, s->stage,
                                           s->colour[0], s->colour[1]);
        }
    }
    return err;
}

static cudaError_t slab_hot_start(const latmc_sim *sim, struct cuda_sim *cs)
{
    return local_rows(sim, cs, NULL, NULL);
}

static cudaError_t slab_set_spins(const latmc_sim *sim, struct cuda_sim *cs, const void *buf)
{
    return local_rows(sim, cs, buf, NULL);
}

/* The own planes only (a part's configuration is gathered by get_planes: lib/part.c). */
static cudaError_t slab_get_spins(const latmc_sim *sim, struct cuda_sim *cs, void *buf)
{
    return local_rows(sim, cs, NULL, buf);
}

/* The own planes' sums (a part measures by measure_planes: lib/part.c). */
static cudaError_t slab_measure(const latmc_sim *sim, struct cuda_sim *cs)
{
    (void)sim;
    const struct slab_ising *s = slab_of(cs);
    const struct cuda_ising_rows rows = { s->geom.halo * s->plane_rows,
                                          s->geom.planes * s->plane_rows, 0 };
    return cuda_ising_packed_measure_rows(cs->stream, &s->local, &rows, s->colour[0],
                                          s->colour[1], s->eps_packed[0], cs->sums);
}

static void slab_params_changed(const latmc_sim *sim, struct cuda_sim *cs)
{
    struct slab_ising *s = slab_of(cs);
    s->thr_fit = cuda_ising_packed_thresholds_of(sim->model_data, sim->desc.algorithm,
                                                 sim->desc.ndim, &s->thr);
}

/* The slab holds its planes' couplings only: a part's are gathered plane by plane
 * (cuda_planes_ising_coupling_planes, ops.get_coupling_planes), never whole. */
static cudaError_t slab_get_couplings(const latmc_sim *sim, struct cuda_sim *cs, float *buf)
{
    (void)sim, (void)cs, (void)buf;
    return cudaErrorNotSupported;
}

/* The whole lattice's couplings (values checked by the core: exactly +1.0f or -1.0f):
 * the local planes' taken, packed. */
static cudaError_t slab_set_couplings(const latmc_sim *sim, struct cuda_sim *cs,
                                      const float *buf)
{
    struct slab_ising *s = slab_of(cs);
    const int64_t per_plane = s->plane_rows * s->local.lx * sim->desc.ndim;
    for (int64_t p = 0; p < s->geom.planes + 2 * s->geom.halo; p++) {
        const float *from = buf + cuda_planes_global(&s->geom, p) * per_plane;
        for (int64_t k = 0; k < per_plane; k++)
            s->eps_local[p * per_plane + k] = from[k] > 0.0f ? (int8_t)1 : (int8_t)-1;
    }
    return pack_couplings(cs, s);
}

int cuda_planes_ising_coupling_planes(const latmc_sim *sim, struct cuda_sim *cs, int64_t p0,
                                      int64_t p1, float *buf)
{
    if (cs->kernels != &slab_ising_kernels || !slab_of(cs)->eps_local)
        return LATMC_EUNSUPPORTED;
    const struct slab_ising *s = slab_of(cs);
    const int64_t l0 = cuda_planes_local(&s->geom, p0, p1);
    if (l0 < 0)
        return cuda_core->fail(LATMC_EINVAL, "CUDA backend: the couplings of planes [%lld, "
                               "%lld) are not in the part's slab", (long long)p0,
                               (long long)p1);
    const int64_t per_plane = s->plane_rows * s->local.lx * sim->desc.ndim;
    for (int64_t k = 0; k < (p1 - p0) * per_plane; k++)
        buf[k] = (float)s->eps_local[l0 * per_plane + k];
    return LATMC_OK;
}

static const struct cuda_model_kernels slab_ising_kernels = {
    .model = LATMC_MODEL_ISING,
    .cold_byte = 1, /* unused: cold_start */
    .create = slab_create,
    .destroy = slab_destroy,
    .cold_start = slab_cold_start,
    .hot_start = slab_hot_start,
    .step = cuda_planes_slab_no_step,
    .measure = slab_measure,
    .get_spins = slab_get_spins,
    .set_spins = slab_set_spins,
    .get_couplings = slab_get_couplings,
    .set_couplings = slab_set_couplings,
    .params_changed = slab_params_changed,
    .model_owns_spins = cuda_planes_slab_owns_spins,
    /* no device_view: no device array holds the lattice */
};

const struct cuda_model_kernels *cuda_planes_part_kernels(const latmc_sim *sim)
{
    if (!sim->part || sim->part->n_parts < 2 || !sim->plan || sim->plan->n_boxes < 2)
        return NULL;
    if (sim->desc.model == LATMC_MODEL_HEISENBERG)
        return cuda_planes_heis_part_kernels(sim);
    if (sim->desc.model == LATMC_MODEL_PHI4)
        return cuda_planes_phi4_part_kernels(sim);
    if (sim->desc.model != LATMC_MODEL_ISING || !cuda_ising_packed_allowed())
        return NULL;
    const struct latmc_lattice g = { .ndim = sim->desc.ndim, .lx = sim->desc.extent[0],
                                     .ly = sim->desc.extent[1],
                                     .lz = sim->desc.ndim == 3 ? sim->desc.extent[2] : 1,
                                     .nsites = sim->nsites };
    const bool pmj = sim->desc.couplings == LATMC_COUPLINGS_BIMODAL;
    if (!(pmj ? cuda_ising_packed_fits_couplings(&g) : cuda_ising_packed_fits(&g)))
        return NULL; /* the one-device sim refuses its steps, naming L_x */
    return &slab_ising_kernels;
}

bool cuda_planes_ising_access(struct cuda_sim *cs, struct cuda_ising_packed_access *out)
{
    if (cs->kernels != &slab_ising_kernels)
        return false;
    struct slab_ising *s = slab_of(cs);
    memset(out, 0, sizeof *out);
    for (int c = 0; c < 2; c++) {
        out->colour[c] = s->colour[c];
        out->eps[c] = s->eps_packed[c];
    }
    out->thr = &s->thr;
    out->thr_fit = s->thr_fit;
    out->lattice = &s->local;
    out->slab = true;
    out->geom = s->geom;
    return true;
}
