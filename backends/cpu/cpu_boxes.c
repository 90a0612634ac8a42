/*
 * In-process boxes with their own memory (cpu_exec.h; issue "the core plans every
 * sweep over boxes", item 4): a sim cut into k > 1 boxes (desc.n_parts) keeps one CPU state
 * per box, each holding its slab and halo planes only (struct cpu_slab, the storage of a
 * part of a lattice shared by processes). The member that updates a box's border plane
 * copies that plane's sites of the step's colour into the neighbouring box's halo at once
 * (the model's copy_step_sites, Ising's run_pair_own_boxes: memcpy of the colour's runs),
 * so that the step's one end barrier orders the halos before the next step: the boxes meet
 * as often as one shared lattice does (doc/architecture.md). The chain is the plan's, so
 * it is the same as with one box, bit for bit; the observables are the planes' sums added
 * in plane order, as for one box.
 */
#include <stdlib.h>
#include <string.h>

#include "cpu_exec.h"
#include "cpu_omp.h"
#include "model.h"

bool cpu_boxes_wanted(const latmc_sim *sim, const struct cpu_state *st, int n_boxes)
{
    return !sim->part && n_boxes > 1 && st->kernels->slab_storage;
}

/* Bytes of one plane of every replica in get_planes' layout. */
/* A box's storage along its axis: its planes, `halo` above and `below` under them (the
 * model's kernels may ask for more below), in place of the whole lattice's extent. */
void cpu_slab_setup(latmc_sim *sim, struct cpu_state *st, const struct latmc_box *box)
{
    const int axis = box->axis;
    struct cpu_slab *sl = &st->slab;
    sl->on = true;
    sl->halo = box->halo;
    sl->p0 = box->origin[axis];
    sl->p1 = sl->p0 + box->extent[axis];
    sl->below = st->kernels->slab_below ? st->kernels->slab_below(sim, sl->p0, sl->halo)
                                        : sl->halo;
    sl->origin = sl->p0 - sl->below;
    sl->planes = sl->below + box->extent[axis] + sl->halo;
    sl->global_planes = sim->desc.extent[axis];
    if (axis == 2)
        st->lattice.lz = sl->planes;
    else
        st->lattice.ly = sl->planes;
    st->lattice.nsites = st->lattice.lx * st->lattice.ly * st->lattice.lz;
}

static size_t plane_bytes(const latmc_sim *sim)
{
    const int axis = sim->desc.ndim - 1;
    return (size_t)(sim->nsites / sim->desc.extent[axis]) * (size_t)sim->desc.replicas *
           sim->model->site_bytes(&sim->desc);
}

void cpu_boxes_destroy(struct cpu_state *st)
{
    struct cpu_boxes *b = st->boxes;
    if (!b)
        return;
    for (int i = 0; i < b->n; i++)
        if (b->box[i].model_state)
            st->kernels->destroy(&b->box[i]);
    free(b->box);
    free(b->halo_buf);
    free(b);
    st->boxes = NULL;
}

int cpu_boxes_create(latmc_sim *sim, struct cpu_state *st, const struct latmc_box *boxes,
                     int n_boxes)
{
    struct cpu_boxes *b = calloc(1, sizeof *b);
    const int halo = boxes[0].halo;
    if (b) {
        b->n = n_boxes;
        b->planes = sim->desc.extent[boxes[0].axis];
        b->box = calloc((size_t)n_boxes, sizeof *b->box);
        b->halo_bytes = (size_t)halo * plane_bytes(sim);
        b->halo_buf = malloc((size_t)n_boxes * b->halo_bytes);
    }
    if (!b || !b->box || !b->halo_buf) {
        if (b) {
            free(b->box);
            free(b->halo_buf);
        }
        free(b);
        return latmc_fail(LATMC_ENOMEM, "CPU backend: cannot allocate %d boxes", n_boxes);
    }
    st->boxes = b;
    for (int i = 0; i < n_boxes; i++) {
        struct cpu_state *bs = &b->box[i];
        bs->kernels = st->kernels;
        bs->simd_flags = st->simd_flags;
        bs->lattice = st->global;
        bs->global = st->global;
        cpu_slab_setup(sim, bs, &boxes[i]);
        const int status = st->kernels->create(sim, bs);
        if (status < 0) {
            cpu_boxes_destroy(st);
            return status;
        }
    }
    return LATMC_OK;
}

int cpu_boxes_init_spins(latmc_sim *sim, struct cpu_state *st, int how)
{
    for (int i = 0; i < st->boxes->n; i++) {
        const int status = st->kernels->init_spins(sim, &st->boxes->box[i], how);
        if (status < 0)
            return status;
    }
    return LATMC_OK;
}

/* x mod L in [0, L). */
static int64_t wrap(int64_t x, int64_t L)
{
    x %= L;
    return x < 0 ? x + L : x;
}

/* The local plane of global plane p of box bs's own slab. */
static int64_t local_of(const struct cpu_state *bs, int64_t p)
{
    return bs->slab.below + (p - bs->slab.p0);
}

/* The box that holds global plane p. */
static int owner(const struct cpu_boxes *b, int64_t p)
{
    int i = 0;
    while (i + 1 < b->n && p >= b->box[i].slab.p1)
        i++;
    return i;
}

int cpu_boxes_measure_planes(latmc_sim *sim, struct cpu_state *st, int64_t p0, int64_t p1,
                             void *sums)
{
    struct cpu_boxes *b = st->boxes;
    const size_t ss = sim->model->sums_size;
    for (int64_t p = p0; p < p1;) {
        struct cpu_state *bs = &b->box[owner(b, p)];
        const int64_t e = p1 < bs->slab.p1 ? p1 : bs->slab.p1, l = local_of(bs, p);
        st->kernels->measure_planes(sim, bs, l, l + (e - p),
                                    (unsigned char *)sums + (size_t)(p - p0) * ss);
        p = e;
    }
    return LATMC_OK;
}

/* The whole lattice: every plane's sums, added in plane order from zeros (model.h), as
 * the measure of one box. */
int cpu_boxes_measure(latmc_sim *sim, struct cpu_state *st, void *sums)
{
    const int64_t planes = sim->desc.extent[sim->desc.ndim - 1];
    const size_t ss = sim->model->sums_size;
    unsigned char *tiles = malloc((size_t)planes * ss);
    if (!tiles)
        return latmc_fail(LATMC_ENOMEM, "CPU backend: cannot allocate %lld plane sums",
                          (long long)planes);
    cpu_boxes_measure_planes(sim, st, 0, planes, tiles);
    latmc_model_add_planes(sim->model, sums, tiles, planes);
    free(tiles);
    return LATMC_OK;
}

/* Plane p - p0 of replica r in a buffer of planes [p0, p1) in get_planes' layout (each
 * replica's planes in turn), one replica's plane `one` bytes. */
static size_t replica_plane_at(int r, int64_t p, int64_t p0, int64_t p1, size_t one)
{
    return ((size_t)r * (size_t)(p1 - p0) + (size_t)(p - p0)) * one;
}

int cpu_boxes_get_planes(latmc_sim *sim, struct cpu_state *st, int64_t p0, int64_t p1,
                         void *buf)
{
    /* one plane at a time: a range of several planes spans replicas in the buffer */
    const size_t one = plane_bytes(sim) / (size_t)sim->desc.replicas;
    const int R = sim->desc.replicas;
    unsigned char *tmp = malloc(plane_bytes(sim));
    if (!tmp)
        return latmc_fail(LATMC_ENOMEM, "CPU backend: cannot allocate a plane");
    for (int64_t p = p0; p < p1; p++) {
        struct cpu_state *bs = &st->boxes->box[owner(st->boxes, p)];
        const int64_t l = local_of(bs, p);
        st->kernels->get_planes(sim, bs, l, l + 1, tmp);
        for (int r = 0; r < R; r++)
            memcpy((unsigned char *)buf + replica_plane_at(r, p, p0, p1, one),
                   tmp + (size_t)r * one, one);
    }
    free(tmp);
    return LATMC_OK;
}

/* The planes into every box that holds them (the owner, and the neighbours whose halos
 * they are). */
int cpu_boxes_set_planes(latmc_sim *sim, struct cpu_state *st, int64_t p0, int64_t p1,
                         const void *buf)
{
    struct cpu_boxes *b = st->boxes;
    const int64_t L = sim->desc.extent[sim->desc.ndim - 1];
    const size_t one = plane_bytes(sim) / (size_t)sim->desc.replicas;
    const int R = sim->desc.replicas;
    unsigned char *tmp = malloc(plane_bytes(sim));
    if (!tmp)
        return latmc_fail(LATMC_ENOMEM, "CPU backend: cannot allocate a plane");
    for (int64_t p = p0; p < p1; p++) {
        for (int r = 0; r < R; r++)
            memcpy(tmp + (size_t)r * one,
                   (const unsigned char *)buf + replica_plane_at(r, p, p0, p1, one), one);
        for (int i = 0; i < b->n; i++) {
            /* the box's own plane, or one of its upper or lower halo planes (both, when
             * the other boxes are thinner than two halos) */
            const struct cpu_slab *sl = &b->box[i].slab;
            const int64_t slab = sl->p1 - sl->p0;
            const int64_t d = wrap(p - sl->p0, L), up = wrap(p - sl->p1, L),
                          down = wrap(sl->p0 - 1 - p, L);
            if (d < slab)
                st->kernels->set_planes(sim, &b->box[i], sl->below + d, sl->below + d + 1, tmp);
            if (up < sl->halo)
                st->kernels->set_planes(sim, &b->box[i], sl->below + slab + up,
                                        sl->below + slab + up + 1, tmp);
            if (down < sl->halo)
                st->kernels->set_planes(sim, &b->box[i], sl->below - 1 - down,
                                        sl->below - down, tmp);
        }
    }
    free(tmp);
    return LATMC_OK;
}

int cpu_boxes_get_coupling_planes(latmc_sim *sim, struct cpu_state *st, int64_t p0,
                                  int64_t p1, float *buf)
{
    struct cpu_boxes *b = st->boxes;
    const size_t per_plane = (size_t)(sim->nsites / sim->desc.extent[sim->desc.ndim - 1]) *
                             (size_t)sim->desc.ndim;
    for (int64_t p = p0; p < p1;) {
        struct cpu_state *bs = &b->box[owner(b, p)];
        const int64_t e = p1 < bs->slab.p1 ? p1 : bs->slab.p1, l = local_of(bs, p);
        st->kernels->get_coupling_planes(sim, bs, l, l + (e - p),
                                         buf + (size_t)(p - p0) * per_plane);
        p = e;
    }
    return LATMC_OK;
}

/* Box i's halos from its neighbours' border planes (through box i's buffer, in
 * get_planes' layout): the lower neighbour's last h planes into the h local planes under
 * the slab, the upper one's first h above it (every slab has at least h planes). */
static void fill_halos(latmc_sim *sim, struct cpu_state *st, int i)
{
    struct cpu_boxes *b = st->boxes;
    struct cpu_state *me = &b->box[i];
    struct cpu_state *lower = &b->box[(i + b->n - 1) % b->n];
    struct cpu_state *upper = &b->box[(i + 1) % b->n];
    const int64_t h = me->slab.halo, slab = me->slab.p1 - me->slab.p0;
    unsigned char *buf = b->halo_buf + (size_t)i * b->halo_bytes;
    const int64_t lo_top = lower->slab.below + (lower->slab.p1 - lower->slab.p0);
    st->kernels->get_planes(sim, lower, lo_top - h, lo_top, buf);
    st->kernels->set_planes(sim, me, me->slab.below - h, me->slab.below, buf);
    st->kernels->get_planes(sim, upper, upper->slab.below, upper->slab.below + h, buf);
    st->kernels->set_planes(sim, me, me->slab.below + slab, me->slab.below + slab + h, buf);
}

/* Call `call` on local planes [l0, l1) of box i (a piece of its slab). */
static void run_on_planes(latmc_sim *sim, struct cpu_state *st, const struct latmc_step_call *call,
                          int i, int64_t l0, int64_t l1, const struct cpu_team *team,
                          uint64_t *accepted, uint64_t *attempted)
{
    struct latmc_box local = call->boxes[i];
    local.origin[local.axis] = l0;
    local.extent[local.axis] = l1 - l0;
    struct latmc_step_call one = *call;
    one.boxes = &local;
    one.n_boxes = 1;
    st->kernels->run_step(sim, &st->boxes->box[i], &one, team, accepted, attempted);
}

/*
 * A WHOLE step with the halos written through (copy_step_sites): the boxes' planes, taken
 * box after box, cut into one band of consecutive planes per member (the band order of
 * one memory, so that a member streams through its planes once); each member updates its
 * band box by box alone, and copies the sites of the step's colour of each of its planes
 * within `halo` of a box's end into the neighbouring box's halo. A step reads sites of the
 * other colours only, which no copy writes: the step needs no barrier but its end.
 */
static void run_written_through(latmc_sim *sim, struct cpu_state *st,
                                const struct latmc_step_call *call, const struct cpu_team *team,
                                uint64_t *accepted, uint64_t *attempted)
{
    struct cpu_boxes *b = st->boxes;
    const struct cpu_team alone = cpu_team_alone();
    int64_t u0, u1;
    cpu_team_share(team, b->planes, &u0, &u1);
    int64_t off = 0; /* planes of the boxes before box i */
    for (int i = 0; i < b->n && off < u1; i++) {
        struct cpu_state *me = &b->box[i];
        const int64_t below = me->slab.below, slab = me->slab.p1 - me->slab.p0;
        const int64_t h = me->slab.halo;
        /* the member's planes [a, e) of box i, offsets in the slab */
        const int64_t a = u0 > off ? u0 - off : 0, e = u1 - off < slab ? u1 - off : slab;
        off += slab;
        if (a >= e)
            continue;
        /* the low border planes first, copied while they are in the cache */
        const int64_t m = a < h && e > h ? h : e;
        run_on_planes(sim, st, call, i, below + a, below + m, &alone, accepted, attempted);
        if (a < h) { /* planes [a, min(e, h)) into the upper halo of box i - 1 */
            struct cpu_state *to = &b->box[(i + b->n - 1) % b->n];
            const int64_t n = (e < h ? e : h) - a;
            st->kernels->copy_step_sites(sim, me, below + a, to,
                                         to->slab.below + (to->slab.p1 - to->slab.p0) + a, n,
                                         &call->step);
        }
        if (m < e)
            run_on_planes(sim, st, call, i, below + m, below + e, &alone, accepted, attempted);
        if (e > slab - h) { /* planes [max(a, slab - h), e) into the lower halo of box i + 1 */
            struct cpu_state *to = &b->box[(i + 1) % b->n];
            const int64_t f = a > slab - h ? a : slab - h;
            st->kernels->copy_step_sites(sim, me, below + f, to, to->slab.below - (slab - f),
                                         e - f, &call->step);
        }
    }
}

/*
 * The plan's calls on the boxes in one thread team (cpu_omp.h), with the meetings of one
 * shared lattice where the model's kernels write the halos themselves: a fused pair
 * (run_pair_own_boxes: its own barrier inside, the border planes written into the
 * neighbours' halos colour by colour) ends at the barrier before the next call, as in
 * cpu_run_steps. Any other call: every box's part of it (the team shares each box's work,
 * as for one box), a barrier, the halo copies (the team shares the boxes), and the
 * barrier before the next call. A box's step writes its own planes and reads its halos;
 * the copies write halos and read border planes: neither touches what the other reads at
 * the same time.
 */
static void team_calls(latmc_sim *sim, struct cpu_state *st, const struct latmc_step_call *calls,
                       int n_calls, const struct cpu_team *team, uint64_t *accepted,
                       uint64_t *attempted)
{
    struct cpu_boxes *b = st->boxes;
    const bool through = st->kernels->copy_step_sites &&
                         (!st->kernels->through_safe || st->kernels->through_safe(sim, b->box));
    for (int c = 0; c < n_calls; c++) {
        if (c > 0)
            cpu_team_barrier(team);
        if (st->kernels->run_pair_own_boxes && cpu_is_pair_start(calls, n_calls, c)) {
            const struct latmc_step_call whole = cpu_pair_whole(calls, c);
            st->kernels->run_pair_own_boxes(sim, b->box, &whole, team, accepted, attempted);
            c++;
            continue;
        }
        if (through && calls[c].part == LATMC_STEP_WHOLE) {
            run_written_through(sim, st, &calls[c], team, accepted, attempted);
            continue;
        }
        for (int i = 0; i < b->n; i++) /* each box's slab, shared by the team */
            run_on_planes(sim, st, &calls[c], i, b->box[i].slab.below,
                          b->box[i].slab.below + b->box[i].slab.p1 - b->box[i].slab.p0, team,
                          accepted, attempted);
        cpu_team_barrier(team);
        int64_t i0, i1;
        cpu_team_share(team, b->n, &i0, &i1);
        for (int64_t i = i0; i < i1; i++)
            fill_halos(sim, st, (int)i);
    }
}

int cpu_boxes_run_steps(latmc_sim *sim, struct cpu_state *st,
                        const struct latmc_step_call *calls, int n_calls, uint64_t *accepted,
                        uint64_t *attempted)
{
    if (!cpu_use_threads(sim->n_threads, sim->nsites / 2)) {
        const struct cpu_team alone = cpu_team_alone();
        team_calls(sim, st, calls, n_calls, &alone, accepted, attempted);
        return LATMC_OK;
    }
    uint64_t acc = 0, att = 0;
#ifdef _OPENMP
    LATMC_OMP(parallel num_threads(sim->n_threads) reduction(+:acc, att))
    {
        const struct cpu_team team = { omp_get_thread_num(), omp_get_num_threads() };
        team_calls(sim, st, calls, n_calls, &team, &acc, &att);
    }
#endif
    *accepted += acc;
    *attempted += att;
    return LATMC_OK;
}

/* ---- a new cut (latmc_sim_set_parts) ---- */

bool cpu_boxes_recut_needed(const latmc_sim *sim, const struct cpu_state *st,
                            const struct latmc_box *boxes, int n_boxes)
{
    const bool want = cpu_boxes_wanted(sim, st, n_boxes);
    if (!want || !st->boxes)
        return want != (st->boxes != NULL);
    if (st->boxes->n != n_boxes)
        return true;
    for (int i = 0; i < n_boxes; i++)
        if (st->boxes->box[i].slab.p0 != boxes[i].origin[boxes[i].axis] ||
            st->boxes->box[i].slab.p1 != boxes[i].origin[boxes[i].axis] +
                                             boxes[i].extent[boxes[i].axis])
            return true;
    return false;
}

/* The cut the state holds now as boxes (slabs along the last axis); NULL with *n = 0 where
 * it is one state, NULL with *n = -1 where the copy cannot be allocated. */
static struct latmc_box *current_cut(const latmc_sim *sim, const struct cpu_state *st, int *n)
{
    *n = 0;
    if (!st->boxes)
        return NULL;
    struct latmc_box *cut = calloc((size_t)st->boxes->n, sizeof *cut);
    if (!cut) {
        *n = -1;
        return NULL;
    }
    const int axis = sim->desc.ndim - 1;
    for (int i = 0; i < st->boxes->n; i++) {
        const struct cpu_slab *sl = &st->boxes->box[i].slab;
        cut[i].axis = axis;
        cut[i].halo = sl->halo;
        for (int mu = 0; mu < sim->desc.ndim; mu++)
            cut[i].extent[mu] = sim->desc.extent[mu];
        cut[i].origin[axis] = sl->p0;
        cut[i].extent[axis] = sl->p1 - sl->p0;
    }
    *n = st->boxes->n;
    return cut;
}

/* The storage of a cut (n_boxes boxes; 0: one state) made, and the configuration and
 * couplings (whole-lattice host copies, NULL where there are none) put into it. */
static int fill_cut(latmc_sim *sim, struct cpu_state *st, const struct latmc_box *boxes,
                    int n_boxes, const unsigned char *spins, const float *couplings)
{
    int status = n_boxes > 0 ? cpu_boxes_create(sim, st, boxes, n_boxes)
                             : st->kernels->create(sim, st);
    for (int i = 0; status == LATMC_OK && i < cpu_state_count(st); i++) {
        struct cpu_state *bs = cpu_state_at(st, i);
        if (couplings)
            st->kernels->set_couplings(sim, bs, couplings);
        if (spins)
            st->kernels->set_spins(sim, bs, spins);
        if (st->kernels->params_changed)
            st->kernels->params_changed(sim, bs);
    }
    return status;
}

/*
 * The state moved into the storage of the new cut: the configuration and the couplings
 * through whole-lattice host copies (every state writes its own planes, every new one
 * takes its planes), the derived tables rebuilt. Between sweeps only, and once per cut.
 * When the new cut cannot be made (memory), the old one is made again from the same
 * copies, so the sim keeps its configuration and stays usable; the failure is returned.
 */
int cpu_boxes_recut(latmc_sim *sim, struct cpu_state *st, const struct latmc_box *boxes,
                    int n_boxes)
{
    const bool coupled = latmc_model_has_couplings(sim->model, &sim->desc);
    const size_t spin_bytes = (size_t)sim->nsites * (size_t)sim->desc.replicas *
                              sim->model->site_bytes(&sim->desc);
    const size_t ncouplings = coupled ? (size_t)sim->nsites * (size_t)sim->desc.ndim : 0;
    unsigned char *spins = sim->have_config ? malloc(spin_bytes) : NULL;
    float *couplings = coupled ? malloc(ncouplings * sizeof *couplings) : NULL;
    int n_old = 0;
    struct latmc_box *old = current_cut(sim, st, &n_old);
    if ((sim->have_config && !spins) || (coupled && !couplings) || n_old < 0) {
        free(spins);
        free(couplings);
        free(old);
        return latmc_fail(LATMC_ENOMEM, "CPU backend: cannot allocate a copy of the "
                          "configuration for a new cut");
    }
    for (int i = 0; i < cpu_state_count(st); i++) {
        if (spins)
            st->kernels->get_spins(sim, cpu_state_at(st, i), spins);
        if (couplings)
            st->kernels->get_couplings(sim, cpu_state_at(st, i), couplings);
    }
    if (st->boxes)
        cpu_boxes_destroy(st);
    else
        st->kernels->destroy(st);
    const int n_new = cpu_boxes_wanted(sim, st, n_boxes) ? n_boxes : 0;
    int status = fill_cut(sim, st, boxes, n_new, spins, couplings);
    if (status < 0 && fill_cut(sim, st, old, n_old, spins, couplings) < 0)
        status = latmc_fail(status, "CPU backend: the new cut of %d boxes failed, and so did "
                            "rebuilding the old one (%d boxes): the sim has no storage left",
                            n_boxes, n_old);
    free(spins);
    free(couplings);
    free(old);
    return status;
}
