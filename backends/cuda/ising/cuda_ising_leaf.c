/*
 * The Ising leaves' choice of layout and the ensembles' member accessors
 * (cuda_ising_leaf.h): this file calls the two leaves; what they share is in
 * cuda_ising_shared.c, below them.
 */
#include <stdlib.h>
#include <string.h>

#include "cuda_ising_leaf.h"
#include "cuda_ising_pieces.h"
#include "ising_packed.h" /* cuda_ising_packed_coupling_words */
#include "model.h"
#include "part.h"
#include "plan.h"

/* LATMC_CUDA_ISING_FORM (doc/environment.md): "bits" forces the 1-bit leaf wherever it
 * can hold the lattice, "packed" never takes it; unset: where the packed arrays do not fit. */
static int form_setting(void)
{
    const char *v = getenv("LATMC_CUDA_ISING_FORM");
    if (!v)
        return 0;
    return strcmp(v, "bits") == 0 ? 1 : strcmp(v, "packed") == 0 ? -1 : 0;
}

/* Room on the box's device for the packed leaf's arrays (half a byte a site; +-J: its
 * coupling words, cuda_ising_packed_coupling_words a packed word: half a byte a site in 2D,
 * one in 3D) and a margin: its staging piece (LATMC_CUDA_ISING_PIECE_BYTES; +-J: as much
 * again for the couplings' window while they are packed) and 64 MiB of small allocations
 * (the 1-bit form its bit-sliced steps would add is not counted: where it does not fit,
 * those steps run on the packed arrays, as they do on every packed box). Lattices below
 * 1 GiB of arrays are not asked about (no device query at the creation of small sims). */
#define FORM_SMALL ((size_t)64 << 20)
static bool packed_fits_device(const latmc_sim *sim)
{
    const latmc_sim_desc *d = &sim->desc;
    const bool pmj = d->couplings == LATMC_COUPLINGS_BIMODAL;
    const struct latmc_lattice g = { d->ndim, d->extent[0], d->extent[1],
                                     d->ndim == 3 ? d->extent[2] : 1, sim->nsites };
    const size_t half = (size_t)sim->nsites / 2;
    const size_t need = half + (pmj ? half * (size_t)cuda_ising_packed_coupling_words(&g) : 0);
    if (need < ((size_t)1 << 30))
        return true;
    const size_t piece = (size_t)cuda_ising_piece_rows(g.lx, g.nsites / g.lx) * (size_t)g.lx;
    const size_t margin = piece * (pmj ? 2 : 1) + FORM_SMALL;
    const int device = d->n_devices > 1 && d->device_list ? d->device_list[0] : d->device_index;
    int prev = 0;
    size_t free_bytes = 0, total = 0;
    if (cudaGetDevice(&prev) != cudaSuccess) {
        (void)cudaGetLastError();
        return true; /* the creation reports a real problem */
    }
    const bool known = cudaSetDevice(device) == cudaSuccess &&
                       cudaMemGetInfo(&free_bytes, &total) == cudaSuccess;
    (void)cudaGetLastError();
    (void)cudaSetDevice(prev);
    return !known || need + margin <= free_bytes;
}

const struct cuda_leaf *cuda_ising_leaf_of(const latmc_sim *sim)
{
    const bool alone = !(sim->plan && sim->plan->n_boxes > 1) && !latmc_part_many(sim);
    if (alone && sim->desc.extent[0] % 64 == 0 && cuda_ising_packed_allowed()) {
        const int form = form_setting();
        if (form > 0 || (form == 0 && !packed_fits_device(sim)))
            return &cuda_ising_bits_leaf;
    }
    if (alone) /* the packed leaf runs the byte kernels itself where its own cannot */
        return sim->desc.extent[0] % 16 == 0 && cuda_ising_packed_allowed()
                   ? &cuda_ising_packed_leaf : &cuda_ising_bytes_leaf;
    /* the packed kernels take +-J couplings in groups of 4 words a row (L_x / 64) */
    const int64_t words = sim->desc.couplings == LATMC_COUPLINGS_BIMODAL ? 64 : 16;
    return sim->desc.extent[0] % words == 0 ? &cuda_ising_packed_leaf : &cuda_ising_bytes_leaf;
}

bool cuda_ising_member_packed(const struct cuda_leaf *leaf, const latmc_sim *sim,
                              struct cuda_box *b, struct cuda_ising_member *out,
                              bool *enqueued, cudaError_t *err)
{
    *enqueued = false;
    *err = cudaSuccess;
    if (leaf != &cuda_ising_packed_leaf)
        return false;
    return cuda_ising_packed_member(sim, b, out, enqueued, err);
}

cudaError_t cuda_ising_member_bytes(const struct cuda_leaf *leaf, const latmc_sim *sim,
                                    struct cuda_box *b, struct cuda_ising_member *out,
                                    bool *enqueued)
{
    *enqueued = false;
    if (leaf == &cuda_ising_packed_leaf)
        return cuda_ising_packed_member_bytes(sim, b, out, enqueued);
    return cuda_ising_bytes_member(sim, b, out, enqueued);
}
