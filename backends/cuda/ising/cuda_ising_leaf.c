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

/* Whether `need` bytes fit the device's free memory (true where it cannot be asked: the
 * creation reports a real problem). */
static bool fits_free(int device, size_t need)
{
    int prev = 0;
    size_t free_bytes = 0, total = 0;
    if (cudaGetDevice(&prev) != cudaSuccess) {
        (void)cudaGetLastError();
        return true;
    }
    const bool known = cudaSetDevice(device) == cudaSuccess &&
                       cudaMemGetInfo(&free_bytes, &total) == cudaSuccess;
    (void)cudaGetLastError();
    (void)cudaSetDevice(prev);
    return !known || need <= free_bytes;
}

/* Room on each device of the sim's boxes for the packed leaf's arrays (half a byte a site
 * of a box's local planes: its own and, with several boxes or a part, 2 halo planes a side;
 * +-J: its coupling words, cuda_ising_packed_coupling_words a packed word: half a byte a
 * site in 2D, one in 3D) and a margin: each box's staging piece (packed_box_create makes
 * one a box: LATMC_CUDA_ISING_PIECE_BYTES, at most its local planes; +-J: the largest of
 * them again for the couplings' window, which the boxes make one after the other) and
 * 64 MiB of small allocations (the 1-bit form its bit-sliced steps would add is not
 * counted: where it does not fit, those steps run on the packed arrays, as they do on every
 * packed box). A device whose boxes need below 1 GiB of arrays is not asked about (no
 * device query at the creation of small sims). The parts of a lattice shared by processes
 * may choose differently: their halos travel in the API's bytes, which every leaf reads. */
#define FORM_SMALL ((size_t)64 << 20)
#define FORM_DEVICES 64
static bool packed_fits_device(const latmc_sim *sim)
{
    const latmc_sim_desc *d = &sim->desc;
    const bool pmj = d->couplings == LATMC_COUPLINGS_BIMODAL;
    const struct latmc_lattice g = { d->ndim, d->extent[0], d->extent[1],
                                     d->ndim == 3 ? d->extent[2] : 1, sim->nsites };
    const int64_t plane_sites = sim->nsites / d->extent[d->ndim - 1];
    const size_t per_site = 1 + (pmj ? (size_t)cuda_ising_packed_coupling_words(&g) : 0);
    const int64_t plane_rows = d->ndim == 3 ? d->extent[1] : 1;
    const bool part = latmc_part_many(sim);
    const int n = part ? 1 : sim->plan ? sim->plan->n_boxes : 1;
    /* each device's boxes: their local planes, staging pieces and largest piece (one box
     * alone: the lattice's planes, no halo) */
    int device[FORM_DEVICES];
    int64_t planes[FORM_DEVICES];
    size_t pieces[FORM_DEVICES], largest[FORM_DEVICES];
    int used = 0;
    for (int i = 0; i < n; i++) {
        const int dev = part ? d->device_index : cuda_box_device_of(d, i);
        /* one box alone: the lattice's planes; else a box's own and 2 halo planes a side */
        const struct latmc_box *box =
            n == 1 && !part ? NULL : &sim->plan->boxes[part ? sim->part->rank : i];
        const int64_t own = box ? box->extent[d->ndim - 1] + 4 : d->extent[d->ndim - 1];
        const size_t piece = (size_t)cuda_ising_piece_rows(g.lx, own * plane_rows) *
                             (size_t)g.lx;
        int k = 0;
        while (k < used && device[k] != dev)
            k++;
        if (k == FORM_DEVICES)
            return true; /* not expected: the packed leaf, as before */
        if (k == used) {
            device[used] = dev;
            planes[used] = 0;
            pieces[used] = largest[used] = 0;
            used++;
        }
        planes[k] += own;
        pieces[k] += piece;
        largest[k] = piece > largest[k] ? piece : largest[k];
    }
    for (int k = 0; k < used; k++) {
        const size_t need = (size_t)(planes[k] * plane_sites) / 2 * per_site;
        const size_t margin = pieces[k] + (pmj ? largest[k] : 0) + FORM_SMALL;
        if (need >= ((size_t)1 << 30) && !fits_free(device[k], need + margin))
            return false;
    }
    return true;
}

const struct cuda_leaf *cuda_ising_leaf_of(const latmc_sim *sim)
{
    if (sim->desc.extent[0] % 64 == 0 && cuda_ising_packed_allowed()) {
        const int form = form_setting();
        if (form > 0 || (form == 0 && !packed_fits_device(sim)))
            return &cuda_ising_bits_leaf;
    }
    /* (a box alone on the packed leaf runs the byte kernels itself where its own cannot:
     * thresholds past 32 bits; boxes with halos refuse such a beta at the sweep) */
    return sim->desc.extent[0] % 16 == 0 && cuda_ising_packed_allowed() ? &cuda_ising_packed_leaf
                                                                         : &cuda_ising_bytes_leaf;
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
