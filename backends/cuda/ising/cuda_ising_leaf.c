/*
 * The Ising leaves' choice of layout and the ensembles' member accessors
 * (cuda_ising_leaf.h): this file calls the two leaves; what they share is in
 * cuda_ising_shared.c, below them.
 */
#include "cuda_ising_leaf.h"
#include "model.h"
#include "part.h"
#include "plan.h"

const struct cuda_leaf *cuda_ising_leaf_of(const latmc_sim *sim)
{
    const bool alone = !(sim->plan && sim->plan->n_boxes > 1) && !latmc_part_many(sim);
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
