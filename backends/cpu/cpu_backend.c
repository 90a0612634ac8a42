/* The built-in CPU backend: state, threads, and dispatch to the model's kernels. */
#include <stdlib.h>

#include "cpu_exec.h"
#include "cpu_features.h"
#include "cpu_omp.h"
#include "ising_lanes.h"
#include "model.h"
#include "part.h"
#include "plan.h"
#include "thread_probe.h"

static int resolve_threads(latmc_sim *sim)
{
    int want = sim->desc.n_threads;
#ifdef _OPENMP
    /* Reading the runtime default is fine; setting global OpenMP state is not. */
    return want > 0 ? want : omp_get_max_threads();
#else
    if (want > 1)
        latmc_log(sim->ctx, LATMC_LOG_WARN, "n_threads = %d requested, but this liblatmc was "
                  "built without OpenMP: running on 1 thread", want);
    return 1;
#endif
}

/*
 * Slab-only storage (cpu_backend.h) for a part of n_parts > 1 whose model's kernels take
 * it: the local lattice is the slab plus its halos along the last axis.
 */
static void slab_setup(latmc_sim *sim, struct cpu_state *st)
{
    st->global = st->lattice;
    const struct latmc_part *part = sim->part;
    if (!part || part->n_parts < 2 || !st->kernels->slab_storage)
        return;
    cpu_slab_setup(sim, st, &sim->plan->boxes[part->rank]);
}

static int cpu_create(latmc_sim *sim)
{
    const struct cpu_model_kernels *k = cpu_model_kernels_get(sim->desc.model);
    if (!k)
        return latmc_fail(LATMC_EUNSUPPORTED, "the CPU backend has no kernels for the %s model",
                          sim->model->name);
    unsigned simd_flags;
    int mask_status = cpu_flags(&simd_flags);
    if (mask_status < 0)
        return mask_status;
    struct cpu_state *st = calloc(1, sizeof *st);
    if (!st)
        return latmc_fail(LATMC_ENOMEM, "CPU backend: cannot allocate its state");
    st->simd_flags = simd_flags;
    st->kernels = k;
    st->lattice.ndim = sim->desc.ndim;
    st->lattice.lx = sim->desc.extent[0];
    st->lattice.ly = sim->desc.extent[1];
    st->lattice.lz = sim->desc.ndim == 3 ? sim->desc.extent[2] : 1;
    st->lattice.nsites = sim->nsites;
    slab_setup(sim, st);
    sim->n_threads = resolve_threads(sim);
    int status = latmc_thread_probe(sim->n_threads); /* never let OpenMP exit the process */
    if (status == LATMC_OK)
        status = cpu_boxes_wanted(sim, st, sim->plan->n_boxes)
                     ? cpu_boxes_create(sim, st, sim->plan->boxes, sim->plan->n_boxes)
                     : k->create(sim, st);
    if (status < 0) {
        free(st);
        return status;
    }
    sim->backend = st;
    return LATMC_OK;
}

static void cpu_destroy(latmc_sim *sim)
{
    struct cpu_state *st = cpu_state_of(sim);
    if (!st)
        return;
    if (st->boxes)
        cpu_boxes_destroy(st);
    else
        st->kernels->destroy(st);
    free(st);
    sim->backend = NULL;
}

static int cpu_init_spins(latmc_sim *sim, int how)
{
    struct cpu_state *st = cpu_state_of(sim);
    if (st->boxes)
        return cpu_boxes_init_spins(sim, st, how);
    return st->kernels->init_spins(sim, st, how);
}

static int cpu_measure(latmc_sim *sim, void *sums)
{
    struct cpu_state *st = cpu_state_of(sim);
    if (st->boxes)
        return cpu_boxes_measure(sim, st, sums);
    st->kernels->measure(sim, st, sums);
    return LATMC_OK;
}

/* The sums and the Fourier modes in one pass: one state holding the whole lattice only
 * (boxes and slabs: the core's separate pass). */
static int cpu_measure_modes(latmc_sim *sim, void *sums, void *modes_partial)
{
    struct cpu_state *st = cpu_state_of(sim);
    if (st->boxes || st->slab.on || !st->kernels->measure_modes)
        return LATMC_EUNSUPPORTED;
    if (!sums)
        return LATMC_OK;
    return st->kernels->measure_modes(sim, st, sums, modes_partial);
}

/* Every box's planes (in-process boxes: each writes its own slab's, takes its planes) or
 * the one state's. */
static int cpu_get_spins(latmc_sim *sim, void *buf)
{
    struct cpu_state *st = cpu_state_of(sim);
    for (int i = 0; i < cpu_state_count(st); i++)
        st->kernels->get_spins(sim, cpu_state_at(st, i), buf);
    return LATMC_OK;
}

static int cpu_set_spins(latmc_sim *sim, const void *buf)
{
    struct cpu_state *st = cpu_state_of(sim);
    for (int i = 0; i < cpu_state_count(st); i++)
        st->kernels->set_spins(sim, cpu_state_at(st, i), buf);
    return LATMC_OK;
}

static int cpu_get_couplings(latmc_sim *sim, float *buf)
{
    struct cpu_state *st = cpu_state_of(sim);
    if (!st->kernels->get_couplings)
        return latmc_fail(LATMC_EUNSUPPORTED, "the %s model has no couplings", sim->model->name);
    for (int i = 0; i < cpu_state_count(st); i++)
        st->kernels->get_couplings(sim, cpu_state_at(st, i), buf);
    return LATMC_OK;
}

static int cpu_set_couplings(latmc_sim *sim, const float *buf)
{
    struct cpu_state *st = cpu_state_of(sim);
    if (!st->kernels->set_couplings)
        return latmc_fail(LATMC_EUNSUPPORTED, "the %s model has no couplings", sim->model->name);
    for (int i = 0; i < cpu_state_count(st); i++)
        st->kernels->set_couplings(sim, cpu_state_at(st, i), buf);
    return LATMC_OK;
}

static int cpu_params_changed(latmc_sim *sim)
{
    struct cpu_state *st = cpu_state_of(sim);
    if (st->kernels->params_changed)
        for (int i = 0; i < cpu_state_count(st); i++)
            st->kernels->params_changed(sim, cpu_state_at(st, i));
    return LATMC_OK;
}

/* The fused pairs from calls[c] the kernels run as one (cpu_backend.h), or 0. */
static int fused_pairs(latmc_sim *sim, struct cpu_state *st, const struct latmc_step_call *calls,
                       int n_calls, int c, int team_size)
{
    if (!st->kernels->fuse_pairs)
        return 0;
    int n_pairs = 0;
    while (c + 2 * n_pairs < n_calls && cpu_is_pair_start(calls, n_calls, c + 2 * n_pairs))
        n_pairs++;
    return n_pairs >= 2 ? st->kernels->fuse_pairs(sim, st, &calls[c], n_pairs, team_size) : 0;
}

/*
 * Steps calls[0 .. n) of the plan in order, in one thread team: every member runs its share
 * of a step (the model's run_step, cpu_omp.h), then waits at one barrier for the others
 * before the next step, which may read what this one wrote. This is the whole cost of a
 * step boundary, as between the colours of a 1-box sweep: no fork and join per step. The
 * boxes of a sim all live in this backend's one lattice, so the halo exchange between
 * steps has nothing to copy (lib/plan.c gives a list only then). Consecutive fused pairs
 * that the kernels take as one (fuse_pairs: Heisenberg's overrelaxation passes) run as one
 * call. Counts are integers, added in any order.
 */
static int cpu_run_steps(latmc_sim *sim, const struct latmc_step_call *calls, int n_calls,
                         uint64_t *accepted, uint64_t *attempted)
{
    struct cpu_state *st = cpu_state_of(sim);
    if (!st->kernels->run_step) /* the core checks at create; a guard, not a path */
        return latmc_fail(LATMC_EUNSUPPORTED, "the CPU backend runs the %s model as one box "
                          "only", sim->model->name);
    /* the plan's cut, which latmc_sim_set_parts may have changed since the last step */
    if (!sim->part && cpu_boxes_recut_needed(sim, st, calls[0].boxes, calls[0].n_boxes)) {
        const int rst = cpu_boxes_recut(sim, st, calls[0].boxes, calls[0].n_boxes);
        if (rst < 0)
            return rst;
    }
    if (st->boxes)
        return cpu_boxes_run_steps(sim, st, calls, n_calls, accepted, attempted);
    /* a step covers a colour of the lattice (of the slab held): about half of it, or less */
    if (!cpu_use_threads(sim->n_threads, st->lattice.nsites / 2)) {
        const struct cpu_team alone = cpu_team_alone();
        for (int c = 0; c < n_calls; c++) {
            const int k = fused_pairs(sim, st, calls, n_calls, c, 1);
            if (k) {
                st->kernels->run_pairs(sim, st, &calls[c], k, &alone, accepted, attempted);
                c += 2 * k - 1;
            } else if (cpu_is_pair_start(calls, n_calls, c)) {
                const struct latmc_step_call whole = cpu_pair_whole(calls, c);
                st->kernels->run_step(sim, st, &whole, &alone, accepted, attempted);
                c++;
            } else {
                st->kernels->run_step(sim, st, &calls[c], &alone, accepted, attempted);
            }
        }
        return LATMC_OK;
    }
    uint64_t acc = 0, att = 0;
#ifdef _OPENMP
    LATMC_OMP(parallel num_threads(sim->n_threads) reduction(+:acc, att))
    {
        const struct cpu_team team = { omp_get_thread_num(), omp_get_num_threads() };
        for (int c = 0; c < n_calls; c++) {
            if (c > 0)
                cpu_team_barrier(&team);
            const int k = fused_pairs(sim, st, calls, n_calls, c, team.size);
            if (k) {
                st->kernels->run_pairs(sim, st, &calls[c], k, &team, &acc, &att);
                c += 2 * k - 1;
            } else if (cpu_is_pair_start(calls, n_calls, c)) {
                const struct latmc_step_call whole = cpu_pair_whole(calls, c);
                st->kernels->run_step(sim, st, &whole, &team, &acc, &att);
                c++;
            } else {
                st->kernels->run_step(sim, st, &calls[c], &team, &acc, &att);
            }
        }
    }
#endif
    *accepted += acc;
    *attempted += att;
    return LATMC_OK;
}

static int cpu_run_step(latmc_sim *sim, const struct latmc_step_call *call, uint64_t *accepted,
                        uint64_t *attempted)
{
    struct cpu_state *st = cpu_state_of(sim);
    if (!st->slab.on)
        return cpu_run_steps(sim, call, 1, accepted, attempted);
    /* Slab storage: the part's one box in local planes (the kernels name the random
     * numbers by origin + local plane). */
    struct latmc_box local = call->boxes[0];
    local.origin[local.axis] = st->slab.below;
    struct latmc_step_call here = *call;
    here.boxes = &local;
    here.n_boxes = 1;
    return cpu_run_steps(sim, &here, 1, accepted, attempted);
}

static unsigned cpu_step_caps(latmc_sim *sim)
{
    struct cpu_state *st = cpu_state_of(sim);
    return st->kernels->step_caps ? st->kernels->step_caps(sim, cpu_state_at(st, 0)) : 0u;
}

static int no_plane_form(latmc_sim *sim, const char *what)
{
    return latmc_fail(LATMC_EUNSUPPORTED, "the CPU backend has no per-plane %s for the %s "
                      "model in this version", what, sim->model->name);
}

static int cpu_measure_planes(latmc_sim *sim, int64_t p0, int64_t p1, void *sums)
{
    struct cpu_state *st = cpu_state_of(sim);
    if (!st->kernels->measure_planes)
        return no_plane_form(sim, "reduction");
    if (st->boxes)
        return cpu_boxes_measure_planes(sim, st, p0, p1, sums);
    const int64_t l0 = cpu_slab_local(st, p0); /* a range never crosses the slab's wrap */
    st->kernels->measure_planes(sim, st, l0, l0 + (p1 - p0), sums);
    return LATMC_OK;
}

static int cpu_get_planes(latmc_sim *sim, int64_t p0, int64_t p1, void *buf)
{
    struct cpu_state *st = cpu_state_of(sim);
    if (!st->kernels->get_planes)
        return no_plane_form(sim, "configuration copy");
    if (st->boxes)
        return cpu_boxes_get_planes(sim, st, p0, p1, buf);
    const int64_t l0 = cpu_slab_local(st, p0); /* a range never crosses the slab's wrap */
    st->kernels->get_planes(sim, st, l0, l0 + (p1 - p0), buf);
    return LATMC_OK;
}

static int cpu_set_planes(latmc_sim *sim, int64_t p0, int64_t p1, const void *buf)
{
    struct cpu_state *st = cpu_state_of(sim);
    if (!st->kernels->set_planes)
        return no_plane_form(sim, "configuration copy");
    if (st->boxes)
        return cpu_boxes_set_planes(sim, st, p0, p1, buf);
    const int64_t l0 = cpu_slab_local(st, p0); /* a range never crosses the slab's wrap */
    st->kernels->set_planes(sim, st, l0, l0 + (p1 - p0), buf);
    return LATMC_OK;
}

static int cpu_get_coupling_planes(latmc_sim *sim, int64_t p0, int64_t p1, float *buf)
{
    struct cpu_state *st = cpu_state_of(sim);
    if (!st->kernels->get_coupling_planes)
        return no_plane_form(sim, "coupling copy");
    if (st->boxes)
        return cpu_boxes_get_coupling_planes(sim, st, p0, p1, buf);
    const int64_t l0 = cpu_slab_local(st, p0); /* a range never crosses the slab's wrap */
    st->kernels->get_coupling_planes(sim, st, l0, l0 + (p1 - p0), buf);
    return LATMC_OK;
}

/* The kernels' own chain (phi^4 chunks) for a sim of one box held in one state, else the
 * model's schedule. The kernels refuse their own chain at create where n_parts > 1; a
 * later cut into boxes (latmc_sim_set_parts) runs the model's schedule while it holds.
 * Asked at the start of every sweep call: a cut changed since the last call is made here
 * first (as cpu_run_steps would before the first step), so that the answer is the one of
 * the state the steps run on. */
static int cpu_own_schedule(latmc_sim *sim)
{
    struct cpu_state *st = cpu_state_of(sim);
    if (!st->kernels->own_steps || sim->part || sim->plan->n_boxes != 1)
        return 0;
    if (cpu_boxes_recut_needed(sim, st, sim->plan->boxes, sim->plan->n_boxes) &&
        cpu_boxes_recut(sim, st, sim->plan->boxes, sim->plan->n_boxes) < 0)
        return 0; /* cpu_run_steps meets the cut again and reports the failure */
    if (st->boxes || st->slab.on)
        return 0;
    return st->kernels->own_steps(sim, st);
}

const struct latmc_backend_ops latmc_cpu_backend_ops = {
    .size = sizeof(struct latmc_backend_ops),
    .name = "cpu",
    .create = cpu_create,
    .destroy = cpu_destroy,
    .init_spins = cpu_init_spins,
    /* no .sweep: the core runs every sweep through its plan (run_steps, lib/plan.c) */
    .measure = cpu_measure,
    .get_spins = cpu_get_spins,
    .set_spins = cpu_set_spins,
    .get_couplings = cpu_get_couplings,
    .set_couplings = cpu_set_couplings,
    .params_changed = cpu_params_changed,
    .run_step = cpu_run_step,
    .step_caps = cpu_step_caps,
    .measure_planes = cpu_measure_planes,
    .get_planes = cpu_get_planes,
    .measure_modes = cpu_measure_modes,
    .set_planes = cpu_set_planes,
    .run_steps = cpu_run_steps,
    .get_coupling_planes = cpu_get_coupling_planes,
    .own_schedule = cpu_own_schedule,
    .ens_lanes = cpu_ising_lanes_op, /* SWEEPS on the host's words (ising/ising_lanes.c) */
};
