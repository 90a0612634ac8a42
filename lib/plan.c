/*
 * The plan: a sim cut into slabs along its last axis, and the core's loop over the steps
 * of a sweep and the boxes. Every random number is named by the global site, the sweep
 * and the step (lib/rng_streams.h), never by the box, so the chain does not depend on the
 * cut; the loop only has to respect what each step reads (its halo).
 */
#include <stddef.h>
#include <stdlib.h>

#include "backend.h"
#include "cluster_sweep.h"
#include "model.h"
#include "plan.h"

/* Planes per unit of a cut: a slab's thickness and origin are multiples of it. */
static int64_t plane_multiple(const latmc_sim_desc *d, const struct latmc_model_def *m)
{
    const int mult = m->box_plane_multiple_of ? m->box_plane_multiple_of(d)
                                              : m->box_plane_multiple;
    return mult > 1 ? mult : 1;
}

/* Whether the model gives the core a schedule of steps (else it runs as one box only). */
static bool has_schedule(const struct latmc_model_def *m)
{
    return m->sweep_steps > 0 || m->sweep_schedule;
}

/* Slabs of the cut: one per device on several devices (desc.c checked that n_parts is 0
 * or the same then), else n_parts; and the field that asked for them, for messages. */
int latmc_plan_parts(const latmc_sim_desc *d)
{
    return d->n_devices > 1 ? d->n_devices : d->n_parts;
}

static const char *parts_field(const latmc_sim_desc *d)
{
    return d->n_devices > 1 ? "n_devices" : "n_parts";
}

int latmc_plan_check(const latmc_sim_desc *d, const struct latmc_model_def *m)
{
    const int k = latmc_plan_parts(d);
    const char *field = parts_field(d);
    if (k < 0)
        return latmc_fail(LATMC_EINVAL, "desc.n_parts = %d is negative: use 0 (automatic) or "
                          "the number of slabs along the last axis", k);
    if (k <= 1)
        return LATMC_OK;
    if (!has_schedule(m))
        return latmc_fail(LATMC_EUNSUPPORTED, "desc.%s = %d: the %s model runs as one box "
                          "only in this version (it has no schedule of steps for the plan); "
                          "use %s 0 or 1", field, k, m->name, field);
    const int axis = d->ndim - 1;
    const int64_t planes = d->extent[axis], mult = plane_multiple(d, m);
    const int64_t halo = m->box_halo > 0 ? m->box_halo : 1;
    /* The thinnest slab of the cut below is mult * floor(units / k) planes. */
    const int64_t units = planes / mult;
    const int64_t thinnest = mult * (units / k);
    if (planes % mult != 0 || thinnest < halo) {
        int64_t min_planes = (halo + mult - 1) / mult * mult;
        return latmc_fail(LATMC_EINVAL, "desc.%s = %d: the lattice has %lld planes along "
                          "its last axis, and the %s model needs slabs of at least %lld planes "
                          "(halo %lld; a whole number of %lld-plane units, so that each slab's "
                          "colouring is the global one): at most %lld parts",
                          field, k, (long long)planes, m->name, (long long)min_planes, (long long)halo,
                          (long long)mult, (long long)(planes / min_planes));
    }
    return LATMC_OK;
}

int latmc_plan_build(const latmc_sim_desc *d, const struct latmc_model_def *m,
                     struct latmc_plan *plan)
{
    const int k = latmc_plan_parts(d) > 1 ? latmc_plan_parts(d) : 1;
    plan->boxes = calloc((size_t)k, sizeof *plan->boxes);
    if (!plan->boxes)
        return latmc_fail(LATMC_ENOMEM, "latmc_sim_create: cannot allocate the plan");
    plan->n_boxes = k;
    plan->n_steps = m->sweep_steps;
    const int axis = d->ndim - 1;
    const int64_t mult = plane_multiple(d, m), units = d->extent[axis] / mult;
    for (int p = 0; p < k; p++) {
        struct latmc_box *b = &plan->boxes[p];
        b->axis = axis;
        b->halo = m->box_halo > 0 ? m->box_halo : 1;
        for (int mu = 0; mu < d->ndim; mu++)
            b->extent[mu] = d->extent[mu];
        /* Units spread as evenly as they go: the first slabs are the thinner ones. */
        const int64_t u0 = units * p / k, u1 = units * (p + 1) / k;
        b->origin[axis] = mult * u0;
        b->extent[axis] = mult * (u1 - u0);
    }
    return LATMC_OK;
}

void latmc_plan_free(struct latmc_plan *plan)
{
    free(plan->boxes);
    plan->boxes = NULL;
    plan->n_boxes = 0;
}

/* The members of struct latmc_backend_ops this file uses, present in the backend's build. */
static bool has_run_step(const struct latmc_backend_ops *ops)
{
    return ops->size >= offsetof(struct latmc_backend_ops, step_caps) + sizeof ops->step_caps &&
           ops->run_step;
}

unsigned latmc_plan_step_caps(const latmc_sim *sim)
{
    const struct latmc_backend_ops *ops = sim->ops;
    return ops->size >= offsetof(struct latmc_backend_ops, step_caps) + sizeof ops->step_caps &&
                   ops->step_caps
               ? ops->step_caps((latmc_sim *)sim)
               : 0u;
}

bool latmc_plan_backend_runs(const struct latmc_backend_ops *ops, const struct latmc_plan *plan)
{
    return plan->n_boxes <= 1 || has_run_step(ops);
}

int latmc_plan_check_backend(const latmc_sim *sim, const struct latmc_plan *plan)
{
    if (latmc_plan_backend_runs(sim->ops, plan))
        return LATMC_OK;
    return latmc_fail(LATMC_EUNSUPPORTED, "desc.%s = %d: the %s backend runs the %s "
                      "model as one box only in this version; use %s 0 or 1",
                      parts_field(&sim->desc), latmc_plan_parts(&sim->desc), sim->ops->name,
                      sim->model->name, parts_field(&sim->desc));
}

/*
 * After a step (or a step's part) on every box: give each box the planes of its
 * neighbours that the next one reads. The boxes of one sim live in its backend's memory,
 * so their halos are the neighbours' planes themselves (or the backend copies them inside
 * its step) and there is nothing to do here; a sim that is one part of a lattice shared by
 * processes receives them through its halo table (sim->halo, lib/plan.h).
 */
static int exchange_halos(latmc_sim *sim, const struct latmc_step *step, int status)
{
    return sim->halo ? sim->halo->exchange(sim, step, status) : LATMC_OK;
}

/*
 * One step (or part) on every box, then the halo exchange. All boxes of a sim are on one
 * executor (the CPU), which gets them in one call and may run them concurrently (one
 * thread team for all, no barrier between boxes); a part of a shared lattice runs its own
 * box only. After a failure (*failed) a part skips the steps but still exchanges halos, so
 * that its neighbours are not left waiting; the parts agree on the failure afterwards.
 */
static int run_on_boxes(latmc_sim *sim, const struct latmc_plan *plan, uint64_t sweep,
                        const struct latmc_step *step, int part, int last, uint64_t *accepted, uint64_t *attempted,
                        int *failed)
{
    const bool shared = sim->halo != NULL;
    const struct latmc_step_call call = {
        .sweep = sweep, .step = *step, .part = part,
        .boxes = shared ? &plan->boxes[sim->halo_box] : plan->boxes,
        .n_boxes = shared ? 1 : plan->n_boxes, .last = last,
    };
    int st = *failed < 0 ? *failed : sim->ops->run_step(sim, &call, accepted, attempted);
    if (st < 0 && !shared)
        return st;
    int xst = exchange_halos(sim, step, st);
    if (st >= 0 && xst < 0)
        st = xst;
    if (st < 0)
        *failed = st;
    return shared ? LATMC_OK : st;
}

/* Whether the backend takes a list of steps (run_steps) in its build of the ops. */
static bool has_run_steps(const struct latmc_backend_ops *ops)
{
    return LATMC_BACKEND_OP(ops, run_steps) != NULL;
}

bool latmc_plan_runs_sweeps(const latmc_sim *sim, const struct latmc_plan *plan)
{
    return plan->n_boxes > 1 || (has_schedule(sim->model) && has_run_steps(sim->ops));
}

enum { PLAN_BATCH = 64 }; /* step calls handed to ops.run_steps at once */

/* The backend's own chain for this sim where it declares one (own_schedule: its length),
 * else 0. */
static int own_length(latmc_sim *sim)
{
    const struct latmc_backend_ops *ops = sim->ops;
    if (LATMC_BACKEND_OP(ops, own_schedule)) {
        const int own = ops->own_schedule(sim);
        if (own > 0)
            return own;
    }
    return 0;
}

/* Steps of one sweep: the backend's own chain (own_length), else the model's for the
 * current parameters (phi^4: nloc passes of the colours). */
static int sweep_length(latmc_sim *sim, const struct latmc_plan *plan, int own)
{
    if (own > 0)
        return own;
    if (latmc_cluster_as_steps(sim)) /* Swendsen-Wang's bonds, labels, flips */
        return latmc_cluster_step_count(sim);
    return sim->model->sweep_schedule ? sim->model->sweep_schedule(sim) : plan->n_steps;
}

/* Step s of sweep `sweep` as executors get it: the model's (model_def.step_of, its
 * counter words built there once), or step s of the backend's own chain. */
static struct latmc_step concrete_step(latmc_sim *sim, bool own, uint64_t sweep, int s)
{
    if (own)
        return latmc_step_own(s);
    return latmc_cluster_as_steps(sim) ? latmc_cluster_step_of(sim, sweep, s)
                                       : sim->model->step_of(sim, sweep, s);
}

/*
 * Where the loop below sends each step (or part): straight to run_on_boxes, or, for a
 * sim whose boxes all live in its backend's memory (no part of a shared lattice: the halo
 * exchange has nothing to do) on a backend with run_steps, into a list handed over
 * PLAN_BATCH calls at a time, so that the backend keeps its threads across the steps of
 * one or several sweeps. The calls and their order are the same either way. A batch of
 * members (latmc_plan_sweep_batch) always goes by lists, every call carrying the batch.
 */
struct step_queue {
    latmc_sim *sim;
    const struct latmc_plan *plan;
    bool batched;
    latmc_sim *const *members; /* a batch's members (n_members > 0), sim = members[0] */
    int n_members;
    int flushes;               /* lists handed over so far */
    int n;
    uint64_t first;            /* the sim's (or batch's) sweep count before the loop */
    struct latmc_step_call calls[PLAN_BATCH];
    uint64_t *accepted, *attempted;
    int failed; /* a part's latched failure (run_on_boxes) */
    uint64_t rounds_run; /* the exchange rounds of the lists the backend completed */
};

static int queue_flush(struct step_queue *q)
{
    const int n = q->n;
    q->n = 0;
    if (!n)
        return LATMC_OK;
    const int st = q->sim->ops->run_steps(q->sim, q->calls, n, q->accepted, q->attempted);
    /* a batch is refused on its first list only, with nothing done (lib/box.h) */
    if (st == LATMC_EUNSUPPORTED && q->n_members > 0 && q->flushes > 0)
        return latmc_fail(LATMC_EDEVICE, "the %s backend refused a batch of %d members "
                          "after it ran part of their steps", q->sim->ops->name, q->n_members);
    q->flushes++;
    for (int c = 0; c < n && st == LATMC_OK; c++) /* a list's rounds count once it ran */
        q->rounds_run += q->calls[c].step.kind == LATMC_STEP_EXCHANGE;
    return st;
}

static int queue_call(struct step_queue *q, const struct latmc_step_call *call)
{
    q->calls[q->n] = *call;
    q->calls[q->n].members = q->members;
    q->calls[q->n].n_members = q->n_members;
    q->n++;
    return q->n == PLAN_BATCH ? queue_flush(q) : LATMC_OK;
}

static int queue_step(struct step_queue *q, uint64_t sweep, const struct latmc_step *step,
                      int part, int last)
{
    if (!q->batched)
        return run_on_boxes(q->sim, q->plan, sweep, step, part, last, q->accepted,
                            q->attempted, &q->failed);
    const struct latmc_step_call call = {
        .sweep = sweep, .step = *step, .part = part, .boxes = q->plan->boxes,
        .n_boxes = q->plan->n_boxes, .last = last,
    };
    return queue_call(q, &call);
}

/* The loop of n sweeps of q's sim (or batch) over its plan: each sweep's steps from the
 * model's schedule (or the backend's own chain), paired where caps say so. */
static int sweep_steps(struct step_queue *q, uint64_t n, unsigned caps)
{
    latmc_sim *sim = q->sim;
    const int own = own_length(sim);
    const int n_steps = sweep_length(sim, q->plan, own);
    for (uint64_t k = 0; k < n; k++) {
        const uint64_t sweep = q->first + k;
        for (int s = 0; s < n_steps;) {
            const struct latmc_step step = concrete_step(sim, own > 0, sweep, s);
            int st;
            if ((caps & LATMC_STEP_CAP_PAIR) && s + 1 < n_steps) {
                /* Steps s and s + 1 in one pass over each box, s + 1 of the border planes
                 * once every box has done s. */
                const int last = k + 1 == n && s + 2 >= n_steps;
                st = queue_step(q, sweep, &step, LATMC_STEP_PAIR_INTERIOR, 0);
                if (st == LATMC_OK)
                    st = queue_step(q, sweep, &step, LATMC_STEP_PAIR_BORDER, last);
                s += 2;
            } else {
                const int last = k + 1 == n && s + 1 == n_steps;
                st = queue_step(q, sweep, &step, LATMC_STEP_WHOLE, last);
                s += 1;
            }
            if (st < 0)
                return st;
        }
    }
    const int st = queue_flush(q);
    return st < 0 ? st : q->failed;
}

int latmc_plan_sweep(latmc_sim *sim, const struct latmc_plan *plan, uint64_t n,
                     uint64_t *accepted, uint64_t *attempted)
{
    /* cluster steps are never paired: each reads all of the one before */
    const unsigned caps = latmc_cluster_as_steps(sim) ? 0u : latmc_plan_step_caps(sim);
    struct step_queue q = {
        .sim = sim, .plan = plan, .batched = !sim->halo && has_run_steps(sim->ops),
        .first = sim->sweeps, .accepted = accepted, .attempted = attempted,
        .failed = LATMC_OK,
    };
    return sweep_steps(&q, n, caps);
}

/* A batch's queue, or LATMC_EUNSUPPORTED where the backend runs no batch of these
 * members (caps must hold `need` as well). */
static int batch_queue(struct step_queue *q, latmc_sim *const *members, int n_members,
                       uint64_t first, unsigned need, uint64_t *accepted, uint64_t *attempted)
{
    if (n_members < 1)
        return LATMC_EUNSUPPORTED;
    latmc_sim *lead = members[0];
    const unsigned caps = latmc_plan_step_caps(lead);
    if (!has_run_steps(lead->ops) || (caps & (LATMC_STEP_CAP_BATCH | need)) !=
                                         (LATMC_STEP_CAP_BATCH | need) ||
        lead->halo || lead->plan->n_boxes != 1 ||
        (latmc_cluster_as_steps(lead) && (need & LATMC_STEP_CAP_BATCH_EXCHANGE)))
        return LATMC_EUNSUPPORTED;
    *q = (struct step_queue){
        .sim = lead, .plan = lead->plan, .batched = true, .members = members,
        .n_members = n_members, .first = first, .accepted = accepted, .attempted = attempted,
        .failed = LATMC_OK,
    };
    return LATMC_OK;
}

/* The call of n whole sweeps of q's batch from member sweep `sweep` on. */
static struct latmc_step_call sweeps_call(struct step_queue *q, uint64_t sweep, uint64_t n)
{
    latmc_sim *first = q->sim;
    const struct latmc_step_call call = {
        .sweep = sweep, .step = concrete_step(first, own_length(first) > 0, sweep, 0),
        .part = LATMC_STEP_SWEEPS, .boxes = first->plan->boxes, .n_boxes = 1,
        .last = 1, .n_sweeps = n,
    };
    return call;
}

int latmc_plan_sweep_batch(latmc_sim *const *members, int n_members, uint64_t first,
                           uint64_t n, uint64_t *accepted, uint64_t *attempted)
{
    struct step_queue q;
    if (batch_queue(&q, members, n_members, first, 0u, accepted, attempted) < 0)
        return LATMC_EUNSUPPORTED;
    if ((latmc_plan_step_caps(q.sim) & LATMC_STEP_CAP_BATCH_SWEEPS) && n > 0) {
        /* whole sweeps in one call (e.g. fused multi-sweep kernels), where the backend
         * takes this batch so */
        const struct latmc_step_call call = sweeps_call(&q, first, n);
        int st = queue_call(&q, &call);
        if (st == LATMC_OK)
            st = queue_flush(&q);
        if (st != LATMC_EUNSUPPORTED)
            return st;
        q.flushes = 0; /* refused with nothing done: the steps one by one */
    }
    /* the members' boxes are each their own wrap: the steps are never paired */
    return sweep_steps(&q, n, 0u);
}

int latmc_plan_batch_request(latmc_sim *const *members, int n_members, int kind,
                             const struct latmc_batch_request *request)
{
    if (n_members < 1)
        return LATMC_EUNSUPPORTED;
    latmc_sim *lead = members[0];
    unsigned need;
    switch (kind) {
    case LATMC_STEP_MEASURE: need = LATMC_STEP_CAP_BATCH_MEASURE; break;
    case LATMC_STEP_OVERLAPS: need = LATMC_STEP_CAP_BATCH_OVERLAPS; break;
    case LATMC_STEP_SWAP_PARAMS: need = LATMC_STEP_CAP_BATCH_SWAP; break;
    case LATMC_STEP_TEMPER_STATE: need = LATMC_STEP_CAP_BATCH_EXCHANGE; break;
    default: return latmc_fail(LATMC_EINVAL, "latmc_plan_batch_request: kind %d is no request",
                               kind);
    }
    if (!has_run_steps(lead->ops) || !(latmc_plan_step_caps(lead) & need) || lead->halo ||
        lead->plan->n_boxes != 1)
        return LATMC_EUNSUPPORTED;
    const struct latmc_step_call call = {
        .sweep = lead->sweeps, .step = latmc_step_unnamed(kind), .part = LATMC_STEP_WHOLE,
        .boxes = lead->plan->boxes, .n_boxes = 1, .last = 1, .members = members,
        .n_members = n_members, .request = request,
    };
    return lead->ops->run_steps(lead, &call, 1, NULL, NULL);
}

int latmc_plan_sweep_batch_rounds(latmc_sim *const *members, int n_members, uint64_t first,
                                  uint64_t n, const struct latmc_batch_rounds *rounds,
                                  uint64_t *accepted, uint64_t *attempted,
                                  uint64_t *rounds_run)
{
    struct step_queue q;
    if (rounds_run)
        *rounds_run = 0;
    if (rounds->every == 0 ||
        batch_queue(&q, members, n_members, first,
                    LATMC_STEP_CAP_BATCH_SWEEPS | LATMC_STEP_CAP_BATCH_EXCHANGE, accepted,
                    attempted) < 0)
        return LATMC_EUNSUPPORTED;
    const uint64_t sweep0 = first;
    uint64_t round = rounds->round;
    int st = LATMC_OK;
    for (uint64_t done = 0; done < n && st == LATMC_OK;) {
        /* whole sweeps up to the next round (or the call's end) */
        const uint64_t to_round = rounds->every - (rounds->sweeps + done) % rounds->every;
        const uint64_t chunk = to_round < n - done ? to_round : n - done;
        /* a sweep and its round in one list: the backend takes the round's energies
         * from the sweep's last launch */
        if (q.n + 2 > PLAN_BATCH)
            st = queue_flush(&q);
        struct latmc_step_call call = sweeps_call(&q, sweep0 + done, chunk);
        call.device_map = 1;
        if (st == LATMC_OK)
            st = queue_call(&q, &call);
        done += chunk;
        if (chunk == to_round && st == LATMC_OK) {
            const struct latmc_step_call ex = {
                .sweep = sweep0 + done, .step = latmc_step_exchange(),
                .part = LATMC_STEP_WHOLE, .boxes = q.plan->boxes, .n_boxes = 1, .last = 1,
                .device_map = 1, .round = round++, .round_sweeps = rounds->sweeps + done,
            };
            st = queue_call(&q, &ex);
        }
    }
    if (st == LATMC_OK)
        st = queue_flush(&q);
    if (rounds_run)
        *rounds_run = q.rounds_run;
    return st;
}

bool latmc_plan_batch_one_list(latmc_sim *lead, uint64_t n,
                               const struct latmc_batch_rounds *rounds)
{
    if (rounds) { /* a list of whole sweeps and rounds: a call per round and per stretch */
        if (rounds->every == 0)
            return true;
        const uint64_t n_rounds = latmc_batch_rounds_in(rounds, n);
        const uint64_t trailing = (rounds->sweeps + n) % rounds->every != 0; /* no round */
        return 2 * n_rounds + trailing <= PLAN_BATCH;
    }
    /* the fused sweeps' one call, or where the backend refuses it the steps one by one
     * (sweep_steps of a batch: never paired) */
    const uint64_t steps = (uint64_t)sweep_length(lead, lead->plan, own_length(lead));
    return steps == 0 || n <= PLAN_BATCH / steps;
}

/*
 * A new cut of a sim between sweeps. Nothing but the plan changes: the chain is the same
 * for every cut, and the backends that can take it (run_steps without
 * LATMC_STEP_CAP_FIXED_CUT: all boxes in one memory)
 * derive nothing from the boxes outside a step call.
 */
int latmc_sim_set_parts(latmc_sim *sim, int n_parts)
{
    if (!sim)
        return latmc_fail(LATMC_EINVAL, "latmc_sim_set_parts: sim is NULL");
    /* run_steps comes after step_caps in the ops: a backend with it has both members */
    const bool fixed = !has_run_steps(sim->ops) ||
                       (latmc_plan_step_caps(sim) & LATMC_STEP_CAP_FIXED_CUT);
    if (sim->part || sim->desc.n_devices > 1 || fixed)
        return SIM_FAIL(sim, LATMC_EUNSUPPORTED, "latmc_sim_set_parts: %s; create the sim "
                        "with desc.n_parts = %d instead",
                        sim->part ? "the sim is one part of a lattice shared by processes"
                        : sim->desc.n_devices > 1 ? "the sim runs on several devices"
                                                  : "its backend keeps each box's memory "
                                                    "apart, so its cut is fixed at creation",
                        n_parts);
    latmc_sim_desc d = sim->desc;
    d.n_parts = n_parts;
    int st = latmc_plan_check(&d, sim->model);
    struct latmc_plan plan = { 0, NULL, 0 };
    if (st == LATMC_OK)
        st = latmc_plan_build(&d, sim->model, &plan);
    if (st < 0)
        return latmc_sim_record_failure(sim, st);
    latmc_plan_free(sim->plan);
    *sim->plan = plan;
    sim->desc.n_parts = n_parts;
    return LATMC_OK;
}
