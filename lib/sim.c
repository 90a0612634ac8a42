/*
 * The public sim API: argument and state validation, then dispatch to the backend.
 * Backends never re-validate, so every check lives here, once.
 */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "cluster_embed.h"
#include "cluster_sweep.h"
#include "desc.h"
#include "env_switches.h"
#include "model.h"
#include "params.h"
#include "thread_probe.h"
#include "part.h"
#include "plan.h"
#include "modes.h"
#include "rng_streams.h"

/*
 * A failure is first of all a return code; the log hears of it too. Refusals of bad or
 * unsupported requests are routine for a caller probing what a model supports, so they
 * go to the log at DEBUG; failures of the machine (memory, device, files) at ERROR.
 */
static int failure_log_level(int status)
{
    switch (status) {
    case LATMC_ENOMEM:
    case LATMC_EDEVICE:
    case LATMC_EIO:
    case LATMC_ECORRUPT:
        return LATMC_LOG_ERROR;
    default:
        return LATMC_LOG_DEBUG;
    }
}

/* Only codes of the documented list reach the caller (a module could return any int). */
static int known_failure(const latmc_sim *sim, int status)
{
    if (status < 0 && latmc_status_known(status))
        return status;
    return latmc_fail(LATMC_EBACKEND, "the %s backend reported status %d, which is not a "
                      "failure code of liblatmc: a bug in the backend", sim->ops->name, status);
}

int latmc_sim_record_failure(const latmc_sim *csim, int status)
{
    /* Only non-const calls come here (internal.h): the message buffer is theirs to write. */
    latmc_sim *sim = (latmc_sim *)csim;
    status = known_failure(sim, status);
    strncpy(sim->errmsg, latmc_thread_error(), sizeof sim->errmsg - 1);
    sim->errmsg[sizeof sim->errmsg - 1] = '\0';
    latmc_log(sim->ctx, failure_log_level(status), "%s", sim->errmsg);
    return status;
}

int latmc_sim_log_failure(const latmc_sim *sim, int status)
{
    latmc_log(sim->ctx, failure_log_level(status), "%s", latmc_thread_error());
    return status;
}

/* Call a backend operation; what it returns is checked (latmc_backend_result). */
#define BACKEND_CALL(st, sim, what, call)                                                   \
    do {                                                                                    \
        const unsigned long fails_before_ = latmc_fail_count();                             \
        int raw_ = team_ready(sim);                                                         \
        if (raw_ == LATMC_OK)                                                               \
            raw_ = (call);                                                                  \
        (st) = latmc_backend_result((sim)->ops->name, (what), raw_, fails_before_);         \
    } while (0)

/*
 * Before a backend call that may start OpenMP teams: can this thread have the sim's team
 * (latmc_team_ready: the runtime would end the process where the system refuses a
 * thread)? A part sim checks inside its collective forms and agreements instead (a part
 * that returned here would leave the others waiting); a sim not created yet (n_threads
 * 0) probes in its create.
 */
static int team_ready(const latmc_sim *sim)
{
    if (sim->n_threads <= 1 || latmc_part_many(sim))
        return LATMC_OK;
    return latmc_team_ready(sim->n_threads);
}

static void configuration_changed(latmc_sim *sim)
{
    sim->sums_valid = false;
}

static void sim_free(latmc_sim *sim)
{
    latmc_embed_free(sim);
    latmc_cluster_free(sim);
    free(sim->device_list);
    free(sim->model_data);
    free(sim->sums);
    free(sim->modes);
    free(sim->mode_phases);
    free(sim->mode_partial);
    if (sim->plan)
        latmc_plan_free(sim->plan);
    free(sim->plan);
    latmc_part_free(sim->part);
    free(sim);
}

int latmc_sim_create(latmc_ctx *ctx, const latmc_sim_desc *desc, latmc_sim **out)
{
    return latmc_sim_create_as_part(ctx, desc, NULL, out);
}

int latmc_sim_create_as_part(latmc_ctx *ctx, const latmc_sim_desc *desc,
                             struct latmc_part *part, latmc_sim **out)
{
    if (out)
        *out = NULL;
    if (!ctx || !desc || !out)
        return latmc_fail(LATMC_EINVAL, "latmc_sim_create: %s is NULL",
                          !ctx ? "ctx" : !desc ? "desc" : "out");
    /* device AUTO may meet a backend that cannot take the sim (no module, no GPU, no
     * kernels for the model) before it settles on one: a create that succeeds leaves the
     * thread's last error as it found it (doc: the message of the last failed call) */
    struct latmc_error_mark mark;
    latmc_error_mark(&mark);
    latmc_sim_desc d;
    int64_t nsites = 0;
    const struct latmc_backend_ops *ops = NULL;
    int st = latmc_desc_validate(desc, &d, &nsites);
    if (st == LATMC_OK)
        st = latmc_env_check_core();
    if (st == LATMC_OK)
        st = latmc_backend_select(ctx, &d, &ops);
    if (st < 0) {
        latmc_log(ctx, failure_log_level(st), "%s", latmc_thread_error());
        return st;
    }
    const struct latmc_model_def *model = latmc_model_get(d.model);
    latmc_sim *sim = calloc(1, sizeof *sim);
    if (sim) {
        sim->model_data = calloc(1, model->data_size ? model->data_size : 1);
        sim->sums = calloc(1, model->sums_size ? model->sums_size : 1);
        sim->plan = calloc(1, sizeof *sim->plan);
        /* The sim's own copy of the device list (the caller's need not outlive the call). */
        if (d.n_devices > 1 && d.device_list &&
            (sim->device_list = malloc((size_t)d.n_devices * sizeof *d.device_list)))
            memcpy(sim->device_list, d.device_list, (size_t)d.n_devices * sizeof *d.device_list);
        d.device_list = sim->device_list;
    }
    if (sim && sim->plan && latmc_plan_build(&d, model, sim->plan) < 0) {
        sim_free(sim);
        return LATMC_ENOMEM;
    }
    if (!sim || !sim->model_data || !sim->sums || !sim->plan ||
        (d.n_devices > 1 && desc->device_list && !sim->device_list)) {
        if (sim)
            sim_free(sim);
        return latmc_fail(LATMC_ENOMEM, "latmc_sim_create: cannot allocate the sim");
    }
    sim->ctx = ctx;
    sim->desc = d;
    sim->nsites = nsites;
    sim->model = model;
    sim->ops = ops;
    latmc_param_defaults(sim->param);
    model->update_data(sim);
    if (d.device == LATMC_DEVICE_AUTO && ops != &latmc_cpu_backend_ops &&
        !latmc_plan_backend_runs(ops, sim->plan)) {
        /* AUTO: the best backend that can run the sim's boxes. */
        latmc_log(ctx, LATMC_LOG_INFO, "device AUTO: using the CPU (backend %s runs one box "
                  "only, desc.n_parts = %d)", ops->name, d.n_parts);
        sim->ops = ops = &latmc_cpu_backend_ops;
    }
    sim->part = part; /* latmc_cluster_check_sim asks */
    if (latmc_cluster_algorithm(d.algorithm) && ops != &latmc_cpu_backend_ops &&
        d.device == LATMC_DEVICE_AUTO && d.n_devices <= 1 && d.device_index == 0 &&
        (part ||
         (d.model == LATMC_MODEL_PHI4 && latmc_embed_applies(sim) && d.n_parts > 1) ||
         latmc_cluster_check_sim(sim) < 0)) {
        /* AUTO: the GPU labels the clusters of Ising and Potts sims of one process (one
         * box or boxes, any field; the same chain bit for bit), and the embedded clusters
         * of Heisenberg sims of one process (their step on the device in every field, one
         * box or boxes) and of phi^4 sims of one box (their step on the device for every
         * Lambda); phi^4's on boxes go to the CPU (there the device steps only with
         * Lambda = inf, the default but a parameter that may change after creation; with a
         * finite Lambda it is the core's on a host copy: the configuration over the bus
         * twice a sweep, labelled by one host thread), and so do the parts of a lattice
         * shared by processes: each rank resolves AUTO alone, a rank without a GPU would be
         * a CPU part, and CPU and GPU parts join their clusters through different
         * collectives. Any other reason is latmc_cluster_check_sim's. */
        latmc_log(ctx, LATMC_LOG_INFO, "device AUTO: using the CPU (%s)", part
                  ? "the parts of processes join clusters on the CPU under AUTO"
                  : d.model == LATMC_MODEL_PHI4 && latmc_embed_applies(sim) && d.n_parts > 1
                  ? "the embedded clusters of phi^4 on boxes run on the CPU under AUTO (on "
                    "a GPU's boxes their step runs on the device only with Lambda = inf)"
                  : latmc_thread_error());
        sim->ops = ops = &latmc_cpu_backend_ops;
    }
    if (latmc_cluster_algorithm(d.algorithm) && (st = latmc_cluster_check_sim(sim)) < 0) {
        latmc_log(ctx, failure_log_level(st), "%s", latmc_thread_error());
        sim->part = NULL; /* still the caller's */
        sim_free(sim);
        return st;
    }
    sim->part = NULL;
    if ((st = latmc_plan_check_backend(sim, sim->plan)) < 0) {
        latmc_log(ctx, failure_log_level(st), "%s", latmc_thread_error());
        sim_free(sim);
        return st;
    }
    sim->part = part; /* the backend sees a part at create (one box of its own: CUDA) */
    BACKEND_CALL(st, sim, "create", ops->create(sim));
    if (st == LATMC_EUNSUPPORTED && d.device == LATMC_DEVICE_AUTO && ops != &latmc_cpu_backend_ops) {
        /* AUTO means "the best backend for this sim": one without kernels for the model
         * does not qualify. The CPU has only device 0, so a device_index meant for the GPU
         * cannot move to it. */
        sim->ops = ops = &latmc_cpu_backend_ops;
        if (d.n_devices > 1) {
            char why[LATMC_ERRMSG_SIZE];
            snprintf(why, sizeof why, "%s", latmc_thread_error());
            st = latmc_fail(LATMC_EUNSUPPORTED, "desc.n_devices = %d with device AUTO: %.300s; "
                            "the CPU is one device", d.n_devices, why);
        } else if (d.device_index != 0) {
            st = latmc_fail(LATMC_ENODEV, "desc.device_index = %d with device AUTO: the %s "
                            "model runs on the CPU, which has only device 0", d.device_index,
                            model->name);
        } else {
            latmc_log(ctx, LATMC_LOG_INFO, "device AUTO: using the CPU (%s)",
                      latmc_thread_error());
            BACKEND_CALL(st, sim, "create", ops->create(sim));
        }
    }
    if (st == LATMC_OK && ops->params_changed && (st = ops->params_changed(sim)) < 0)
        ops->destroy(sim);
    if (st < 0) {
        latmc_log(ctx, failure_log_level(st), "%s", latmc_thread_error());
        sim->part = NULL; /* still the caller's */
        sim_free(sim);
        return st;
    }
    sim->desc.n_threads = sim->n_threads; /* latmc_sim_get_desc reports what runs */
    latmc_ctx_ref(ctx);
    latmc_log(ctx, LATMC_LOG_DEBUG, "created a %dD %s sim of %lld sites on backend %s, "
              "%d thread(s)", d.ndim, model->name, (long long)nsites, ops->name, sim->n_threads);
    *out = sim;
    latmc_error_restore(&mark);
    return LATMC_OK;
}

void latmc_sim_destroy(latmc_sim **psim)
{
    if (!psim || !*psim)
        return;
    latmc_sim *sim = *psim;
    sim->ops->destroy(sim);
    latmc_ctx_unref(sim->ctx);
    sim_free(sim);
    *psim = NULL;
}

int latmc_sim_get_desc(const latmc_sim *sim, latmc_sim_desc *out)
{
    if (!sim)
        return latmc_fail(LATMC_EINVAL, "latmc_sim_get_desc: sim is NULL");
    if (!out)
        return SIM_FAIL_CONST(sim, LATMC_EINVAL, "latmc_sim_get_desc: out is NULL");
    latmc_desc_copy_out(&sim->desc, out);
    return LATMC_OK;
}

const char *latmc_sim_backend_name(const latmc_sim *sim)
{
    return sim ? sim->ops->name : "none";
}

/* Common checks of set/get_param: the key exists and belongs to the sim's model. Records
 * the thread's message only: the caller records it on the sim where it may. */
static int check_param_key(const latmc_sim *sim, int key, const char *fn)
{
    if (!latmc_param_name(key))
        return latmc_fail(LATMC_EINVAL, "%s: unknown parameter key %d (enum latmc_param)", fn,
                          key);
    if (!(sim->model->params & (1u << key)))
        return latmc_fail(LATMC_EUNSUPPORTED, "%s: parameter %s does not belong to the %s model",
                          fn, latmc_param_name(key), sim->model->name);
    return LATMC_OK;
}

/* A value that chooses a chain only some backends and algorithms run
 * (doc/models/ising-decisions.md): refused, and the old value kept, rather than run as
 * another chain. */
int latmc_sim_check_chain_param(const latmc_sim *sim, int key, double value)
{
    if (key != LATMC_PARAM_DECISIONS || value == 0.0)
        return LATMC_OK;
    if (sim->desc.algorithm != LATMC_ALGO_METROPOLIS && sim->desc.algorithm != LATMC_ALGO_HEATBATH)
        return latmc_fail(LATMC_EUNSUPPORTED, "parameter decisions = %g: the bit-sliced "
                          "decisions are those of Metropolis and heat bath, and this sim runs "
                          "%s", value, latmc_algorithm_name(sim->desc.algorithm));
    if (sim->ops != &latmc_cpu_backend_ops &&
        !(latmc_plan_step_caps(sim) & LATMC_STEP_CAP_BITSLICED))
        return latmc_fail(LATMC_EUNSUPPORTED, "parameter decisions = %g: the bit-sliced Ising "
                          "decisions run on the CPU backend and, on %s, only in one process "
                          "(not on parts of a lattice shared by processes), on a 2D or 3D "
                          "lattice with L_x a multiple of 16 (one box, uniform couplings) "
                          "or of 64 (+-J couplings, several boxes or devices) (create it "
                          "with device LATMC_DEVICE_CPU)", value, sim->ops->name);
    return LATMC_OK;
}

int latmc_sim_set_param(latmc_sim *sim, int key, double value)
{
    if (!sim)
        return latmc_fail(LATMC_EINVAL, "latmc_sim_set_param: sim is NULL");
    int st = check_param_key(sim, key, "latmc_sim_set_param");
    if (st == LATMC_OK)
        st = latmc_param_check(key, value);
    if (st == LATMC_OK)
        st = latmc_sim_check_chain_param(sim, key, value);
    if (st < 0)
        return latmc_sim_record_failure(sim, st);
    sim->param[key] = value;
    return latmc_sim_params_changed(sim);
}

int latmc_sim_params_changed(latmc_sim *sim)
{
    sim->model->update_data(sim);
    int st = sim->ops->params_changed ? sim->ops->params_changed(sim) : LATMC_OK;
    return st < 0 ? latmc_sim_record_failure(sim, st) : LATMC_OK;
}

int latmc_sim_get_param(const latmc_sim *sim, int key, double *value)
{
    if (!sim)
        return latmc_fail(LATMC_EINVAL, "latmc_sim_get_param: sim is NULL");
    if (!value)
        return SIM_FAIL_CONST(sim, LATMC_EINVAL, "latmc_sim_get_param: value is NULL");
    int st = check_param_key(sim, key, "latmc_sim_get_param");
    if (st < 0)
        return latmc_sim_log_failure(sim, st);
    *value = sim->param[key];
    return LATMC_OK;
}

int latmc_sim_init_spins(latmc_sim *sim, int how)
{
    if (!sim)
        return latmc_fail(LATMC_EINVAL, "latmc_sim_init_spins: sim is NULL");
    int st;
    if (how != LATMC_INIT_COLD && how != LATMC_INIT_HOT)
        st = SIM_FAIL(sim, LATMC_EINVAL, "latmc_sim_init_spins: how = %d is not "
                      "LATMC_INIT_COLD or LATMC_INIT_HOT", how);
    else if (latmc_part_many(sim) && (st = latmc_team_ready(sim->n_threads)) < 0)
        ; /* a part that cannot have its team: agreed on below */
    else
        BACKEND_CALL(st, sim, "init_spins", sim->ops->init_spins(sim, how));
    /* every part starts the whole lattice alike; a part's bad `how` fails it on all */
    st = latmc_part_agree(sim, st);
    if (st < 0)
        return latmc_sim_record_failure(sim, st);
    sim->have_config = true;
    sim->accepted = sim->attempted = 0;
    configuration_changed(sim);
    return LATMC_OK;
}

uint64_t latmc_sim_max_sweeps(const latmc_sim *sim)
{
    /* Models with several passes per sweep (phi^4: nloc) name each pass in the sweep
     * field of the RNG counter, so they can run 2^48 / nloc sweeps. */
    const uint64_t passes = (sim->model->params & (1u << LATMC_PARAM_NLOC))
                                ? (uint64_t)sim->param[LATMC_PARAM_NLOC] : 1;
    return (LATMC_RNG_MAX_SWEEP + 1) / passes;
}

int latmc_sim_sweep(latmc_sim *sim, uint64_t n)
{
    if (!sim)
        return latmc_fail(LATMC_EINVAL, "latmc_sim_sweep: sim is NULL");
    if (!sim->have_config)
        return SIM_FAIL(sim, LATMC_ESTATE, "latmc_sim_sweep: no configuration yet "
                        "(call latmc_sim_init_spins or latmc_sim_set_spins first)");
    if (n == 0)
        return LATMC_OK;
    int st = latmc_params_check_joint(sim->desc.model, sim->param);
    if (st < 0)
        st = latmc_sim_record_failure(sim, st);
    const uint64_t max_sweeps = latmc_sim_max_sweeps(sim);
    if (st == LATMC_OK && (sim->sweeps > max_sweeps || n > max_sweeps - sim->sweeps))
        st = SIM_FAIL(sim, LATMC_EINVAL, "latmc_sim_sweep: %llu more sweeps would pass the "
                      "%llu sweeps the random-number counters can name",
                      (unsigned long long)n, (unsigned long long)max_sweeps);
    if (st == LATMC_OK && sim->attempted > LATMC_SWEEP_MAX_ATTEMPTED)
        st = SIM_FAIL(sim, LATMC_ESTATE, "latmc_sim_sweep: the acceptance counters hold %llu "
                      "attempted updates, more than 2^62 (empty them with "
                      "latmc_sim_reset_acceptance)", (unsigned long long)sim->attempted);
    /* collective on parts: the parameters are each part's own (set_param), so a part
     * whose parameters are refused fails the sweep on every part (none is left waiting
     * in the others' halo exchanges), and so do parameters that differ between the parts
     * (compared in the same agreement: no message more) */
    if (latmc_part_many(sim) && st == LATMC_OK)
        st = latmc_team_ready(sim->n_threads); /* agreed on just below */
    if (latmc_part_many(sim) && st == LATMC_OK && latmc_cluster_as_steps(sim))
        st = latmc_cluster_part_ready(sim); /* the joins' buffers: agreed on likewise */
    if (latmc_part_many(sim) && (st = latmc_part_agree_params(sim, st)) < 0)
        return latmc_sim_record_failure(sim, st);
    if (st < 0)
        return st;
    uint64_t accepted = 0, attempted = 0;
    if (latmc_cluster_algorithm(sim->desc.algorithm) && !latmc_cluster_as_steps(sim)) {
        /* the core's own loop, whose OpenMP teams the runtime would end the process for
         * where the system refuses a thread: checked first, as BACKEND_CALL does */
        st = team_ready(sim);
        if (st == LATMC_OK)
            st = latmc_embed_applies(sim) ? latmc_embed_sweeps(sim, n, &accepted, &attempted)
                                          : latmc_cluster_sweeps(sim, n, &accepted, &attempted);
    }
    else if (latmc_cluster_as_steps(sim) && (st = latmc_cluster_check_params(sim)) < 0)
        ; /* refused before any step (Potts J < 0) */
    else if (latmc_part_many(sim))
        BACKEND_CALL(st, sim, "sweep", latmc_part_sweep(sim, n, &accepted, &attempted));
    else if (latmc_plan_runs_sweeps(sim, sim->plan))
        BACKEND_CALL(st, sim, "sweep",
                     latmc_plan_sweep(sim, sim->plan, n, &accepted, &attempted));
    else /* a backend without run_steps, or a model without a schedule */
        st = latmc_fail(LATMC_EUNSUPPORTED, "latmc_sim_sweep: the %s backend has no sweep "
                        "of the %s model", sim->ops->name, sim->model->name);
    configuration_changed(sim);
    if (st < 0)
        return latmc_sim_record_failure(sim, st);
    sim->sweeps += n;
    sim->accepted += accepted;
    sim->attempted += attempted;
    return LATMC_OK;
}

int latmc_sim_sweep_count(const latmc_sim *sim, uint64_t *count)
{
    if (!sim)
        return latmc_fail(LATMC_EINVAL, "latmc_sim_sweep_count: sim is NULL");
    if (!count)
        return SIM_FAIL_CONST(sim, LATMC_EINVAL, "latmc_sim_sweep_count: count is NULL");
    *count = sim->sweeps;
    return LATMC_OK;
}

int latmc_sim_acceptance_counts(const latmc_sim *sim, uint64_t *accepted, uint64_t *attempted)
{
    if (!sim)
        return latmc_fail(LATMC_EINVAL, "latmc_sim_acceptance_counts: sim is NULL");
    if (!accepted || !attempted)
        return SIM_FAIL_CONST(sim, LATMC_EINVAL, "latmc_sim_acceptance_counts: %s is NULL",
                        !accepted ? "accepted" : "attempted");
    *accepted = sim->accepted;
    *attempted = sim->attempted;
    return LATMC_OK;
}

int latmc_sim_reset_acceptance(latmc_sim *sim)
{
    if (!sim)
        return latmc_fail(LATMC_EINVAL, "latmc_sim_reset_acceptance: sim is NULL");
    sim->accepted = sim->attempted = 0;
    return LATMC_OK;
}

/* M2_KMIN, OVERLAP2_KMIN: the modes' reduction, made once per state (lib/modes.h). */
static int fourier_observable(latmc_sim *sim, int key, double *value)
{
    sim->modes_wanted = true;
    if (!sim->modes_valid) {
        if (!sim->modes) {
            sim->modes = malloc(latmc_modes_doubles(&sim->desc) * sizeof *sim->modes);
            if (!sim->modes)
                return SIM_FAIL(sim, LATMC_ENOMEM, "observable %s: cannot allocate the "
                                "Fourier modes", latmc_observable_name(key));
        }
        int st;
        BACKEND_CALL(st, sim, "Fourier modes", latmc_modes_measure(sim, sim->modes));
        if (st < 0)
            return latmc_sim_record_failure(sim, st);
        sim->modes_valid = true;
    }
    return latmc_modes_observable(sim, sim->modes, key, value);
}

int latmc_sim_observable(latmc_sim *sim, int key, double *value)
{
    if (!sim)
        return latmc_fail(LATMC_EINVAL, "latmc_sim_observable: sim is NULL");
    if (!value)
        return SIM_FAIL(sim, LATMC_EINVAL, "latmc_sim_observable: value is NULL");
    if (!latmc_observable_name(key))
        return SIM_FAIL(sim, LATMC_EINVAL, "unknown observable key %d", key);
    if (key == LATMC_OBS_ACCEPTANCE) {
        if (sim->attempted == 0)
            return SIM_FAIL(sim, LATMC_ESTATE, "acceptance: no update attempted since the "
                            "last reset");
        *value = (double)sim->accepted / (double)sim->attempted;
        return LATMC_OK;
    }
    if (latmc_cluster_observable_key(key)) { /* of the last sweep, not of the configuration */
        const int st = latmc_cluster_observable(sim, key, value);
        return st < 0 ? latmc_sim_record_failure(sim, st) : LATMC_OK;
    }
    if (!(sim->model->observables & (1u << key)))
        return SIM_FAIL(sim, LATMC_EUNSUPPORTED, "observable %s is not defined for the %s model",
                        latmc_observable_name(key), sim->model->name);
    if ((key == LATMC_OBS_OVERLAP2 || key == LATMC_OBS_OVERLAP2_KMIN) &&
        sim->desc.replicas != 2)
        return SIM_FAIL(sim, LATMC_EUNSUPPORTED, "observable %s needs two replicas "
                        "(desc.replicas = 2)", latmc_observable_name(key));
    const bool fourier = key == LATMC_OBS_M2_KMIN || key == LATMC_OBS_OVERLAP2_KMIN;
    if (fourier && !latmc_modes_cubic(&sim->desc))
        return SIM_FAIL(sim, LATMC_EUNSUPPORTED, "observable %s needs equal extents "
                        "(k_min = 2 pi / L along every axis)", latmc_observable_name(key));
    if (!sim->have_config)
        return SIM_FAIL(sim, LATMC_ESTATE, "observable %s: no configuration yet",
                        latmc_observable_name(key));
    if (!sim->sums_valid) {
        int st;
        /* once the modes were asked for, both in one pass where the backend can */
        const bool with_modes = sim->modes_wanted && sim->modes &&
                                latmc_modes_with_sums_possible(sim);
        if (with_modes)
            BACKEND_CALL(st, sim, "measure",
                         latmc_modes_measure_with_sums(sim, sim->sums, sim->modes));
        else if (latmc_part_many(sim))
            BACKEND_CALL(st, sim, "measure", latmc_part_measure(sim, sim->sums));
        else
            BACKEND_CALL(st, sim, "measure", sim->ops->measure(sim, sim->sums));
        if (st < 0)
            return latmc_sim_record_failure(sim, st);
        sim->sums_valid = true;
        sim->modes_valid = with_modes;
    }
    if (fourier)
        return fourier_observable(sim, key, value);
    int st = sim->model->observable(sim, sim->sums, key, value);
    return st < 0 ? latmc_sim_record_failure(sim, st) : LATMC_OK;
}

const char *latmc_observable_name(int key)
{
    switch (key) {
    case LATMC_OBS_ENERGY:            return "energy";
    case LATMC_OBS_MAGNETIZATION:     return "magnetization";
    case LATMC_OBS_ABS_MAGNETIZATION: return "abs_magnetization";
    case LATMC_OBS_M2:                return "m2";
    case LATMC_OBS_M4:                return "m4";
    case LATMC_OBS_PHI2:              return "phi2";
    case LATMC_OBS_ACCEPTANCE:        return "acceptance";
    case LATMC_OBS_OVERLAP2:          return "overlap2";
    case LATMC_OBS_CLUSTERS:          return "clusters";
    case LATMC_OBS_LARGEST_CLUSTER:   return "largest_cluster";
    case LATMC_OBS_CLUSTER_M2:        return "cluster_m2";
    case LATMC_OBS_M2_K0:             return "m2_k0";
    case LATMC_OBS_M2_KMIN:           return "m2_kmin";
    case LATMC_OBS_OVERLAP2_KMIN:     return "overlap2_kmin";
    default:                          return NULL;
    }
}

int latmc_sim_spins_size(const latmc_sim *sim, size_t *bytes)
{
    if (!sim)
        return latmc_fail(LATMC_EINVAL, "latmc_sim_spins_size: sim is NULL");
    if (!bytes)
        return SIM_FAIL_CONST(sim, LATMC_EINVAL, "latmc_sim_spins_size: bytes is NULL");
    *bytes = (size_t)sim->nsites * (size_t)sim->desc.replicas * sim->model->site_bytes(&sim->desc);
    return LATMC_OK;
}

static int check_spin_buffer(latmc_sim *sim, const char *fn, const void *buf, size_t bytes)
{
    size_t want = 0;
    latmc_sim_spins_size(sim, &want);
    if (!buf)
        return SIM_FAIL(sim, LATMC_EINVAL, "%s: buf is NULL", fn);
    if (bytes != want)
        return SIM_FAIL(sim, LATMC_EINVAL, "%s: buffer of %zu bytes, the configuration takes "
                        "%zu (sites x replicas x %zu bytes)", fn, bytes, want,
                        sim->model->site_bytes(&sim->desc));
    return LATMC_OK;
}

int latmc_sim_get_spins(latmc_sim *sim, void *buf, size_t bytes)
{
    if (!sim)
        return latmc_fail(LATMC_EINVAL, "latmc_sim_get_spins: sim is NULL");
    int st = check_spin_buffer(sim, "latmc_sim_get_spins", buf, bytes);
    if (st == LATMC_OK && !sim->have_config)
        st = SIM_FAIL(sim, LATMC_ESTATE, "latmc_sim_get_spins: no configuration yet");
    /* a part's bad argument fails the call on every part (none waits in the gathers) */
    if (latmc_part_many(sim) && (st = latmc_part_agree(sim, st)) < 0)
        return latmc_sim_record_failure(sim, st);
    if (st < 0)
        return st;
    if (latmc_part_many(sim))
        BACKEND_CALL(st, sim, "get_spins", latmc_part_get_spins(sim, buf));
    else
        BACKEND_CALL(st, sim, "get_spins", sim->ops->get_spins(sim, buf));
    if (st < 0)
        return latmc_sim_record_failure(sim, st);
    return LATMC_OK;
}

/* The backend's device_view op, or NULL where it has none (also a backend built with an
 * ops struct that ends before it). */
static int (*device_view_op(const latmc_sim *sim))(latmc_sim *, latmc_device_view *)
{
    const struct latmc_backend_ops *ops = sim->ops;
    if (ops->size < offsetof(struct latmc_backend_ops, device_view) + sizeof ops->device_view)
        return NULL;
    return ops->device_view;
}

int latmc_sim_device_view(latmc_sim *sim, latmc_device_view *view)
{
    if (!sim || !view)
        return latmc_fail(LATMC_EINVAL, "latmc_sim_device_view: %s is NULL",
                          !sim ? "sim" : "view");
    if (view->struct_size < sizeof *view || view->struct_size > LATMC_STRUCT_SIZE_MAX)
        return SIM_FAIL(sim, LATMC_EINVAL, "latmc_sim_device_view: view->struct_size = %u, "
                        "this library's latmc_device_view takes %zu (at most %u: a "
                        "struct_size struct never grows past it)", (unsigned)view->struct_size,
                        sizeof *view, LATMC_STRUCT_SIZE_MAX);
    if (!sim->have_config)
        return SIM_FAIL(sim, LATMC_ESTATE, "latmc_sim_device_view: no configuration yet");
    int (*op)(latmc_sim *, latmc_device_view *) = device_view_op(sim);
    if (!op)
        return SIM_FAIL(sim, LATMC_EUNSUPPORTED, "latmc_sim_device_view: the %s backend keeps "
                        "the configuration %s; copy it with latmc_sim_get_spins()",
                        sim->ops->name, sim->ops == &latmc_cpu_backend_ops
                            ? "in host memory, not on a device"
                            : "where this module offers no view");
    latmc_device_view v;
    memset(&v, 0, sizeof v);
    int st;
    BACKEND_CALL(st, sim, "device_view", op(sim, &v));
    if (st < 0)
        return latmc_sim_record_failure(sim, st);
    if (v.data == 0 || v.ndim < 2 || v.ndim > LATMC_VIEW_MAX_NDIM)
        return SIM_FAIL(sim, LATMC_EBACKEND, "latmc_sim_device_view: the %s backend returned "
                        "a malformed view (address %s, ndim %d)", sim->ops->name,
                        v.data ? "set" : "0", v.ndim);
    v.struct_size = sizeof v;
    v.readonly = 1;
    memcpy(view, &v, sizeof v);
    return LATMC_OK;
}

int latmc_sim_set_spins(latmc_sim *sim, const void *buf, size_t bytes)
{
    if (!sim)
        return latmc_fail(LATMC_EINVAL, "latmc_sim_set_spins: sim is NULL");
    int st = check_spin_buffer(sim, "latmc_sim_set_spins", buf, bytes);
    if (st == LATMC_OK && (st = sim->model->check_spins(sim, buf)) < 0)
        st = latmc_sim_record_failure(sim, st);
    /* a part's bad argument fails the call on every part (none waits in the exchange) */
    if (latmc_part_many(sim) && (st = latmc_part_agree(sim, st)) < 0)
        return latmc_sim_record_failure(sim, st);
    if (st < 0)
        return st;
    if (latmc_part_many(sim))
        BACKEND_CALL(st, sim, "set_spins", latmc_part_set_spins(sim, buf));
    else
        BACKEND_CALL(st, sim, "set_spins", sim->ops->set_spins(sim, buf));
    if (st < 0)
        return latmc_sim_record_failure(sim, st);
    sim->have_config = true;
    sim->accepted = sim->attempted = 0;
    configuration_changed(sim);
    return LATMC_OK;
}

/* The coupling count, or a failure recorded for the thread only (callers record it on
 * the sim where they may). */
static int couplings_count(const latmc_sim *sim, size_t *count)
{
    if (!sim->ops->get_couplings || !latmc_model_has_couplings(sim->model, &sim->desc))
        return latmc_fail(LATMC_EUNSUPPORTED, "the %s model has no couplings to read or set%s",
                          sim->model->name, sim->model->coupling_kinds
                              ? " with desc.couplings = UNIFORM (a random kind gives it some)"
                              : "");
    *count = (size_t)sim->nsites * (size_t)sim->desc.ndim;
    return LATMC_OK;
}

int latmc_sim_couplings_size(const latmc_sim *sim, size_t *count)
{
    if (!sim)
        return latmc_fail(LATMC_EINVAL, "latmc_sim_couplings_size: sim is NULL");
    if (!count)
        return SIM_FAIL_CONST(sim, LATMC_EINVAL, "latmc_sim_couplings_size: count is NULL");
    int st = couplings_count(sim, count);
    return st < 0 ? latmc_sim_log_failure(sim, st) : LATMC_OK;
}

static int check_coupling_buffer(latmc_sim *sim, const char *fn, const float *buf, size_t count)
{
    size_t want = 0;
    int st = couplings_count(sim, &want);
    if (st < 0)
        return latmc_sim_record_failure(sim, st);
    if (!buf)
        return SIM_FAIL(sim, LATMC_EINVAL, "%s: buf is NULL", fn);
    if (count != want)
        return SIM_FAIL(sim, LATMC_EINVAL, "%s: %zu couplings given, the lattice has %zu "
                        "(sites x ndim)", fn, count, want);
    return LATMC_OK;
}

int latmc_sim_get_couplings(latmc_sim *sim, float *buf, size_t count)
{
    if (!sim)
        return latmc_fail(LATMC_EINVAL, "latmc_sim_get_couplings: sim is NULL");
    int st = check_coupling_buffer(sim, "latmc_sim_get_couplings", buf, count);
    /* collective on parts (a part may hold its slab's couplings only): a part's bad
     * argument fails the call on every part (none waits in the gather) */
    if (latmc_part_many(sim) && (st = latmc_part_agree(sim, st)) < 0)
        return latmc_sim_record_failure(sim, st);
    if (st < 0)
        return st;
    if (latmc_part_many(sim))
        BACKEND_CALL(st, sim, "get_couplings", latmc_part_get_couplings(sim, buf));
    else
        BACKEND_CALL(st, sim, "get_couplings", sim->ops->get_couplings(sim, buf));
    return st < 0 ? latmc_sim_record_failure(sim, st) : LATMC_OK;
}

int latmc_sim_set_couplings(latmc_sim *sim, const float *buf, size_t count)
{
    if (!sim)
        return latmc_fail(LATMC_EINVAL, "latmc_sim_set_couplings: sim is NULL");
    int st = check_coupling_buffer(sim, "latmc_sim_set_couplings", buf, count);
    for (size_t i = 0; st == LATMC_OK && i < count; i++)
        if (!isfinite(buf[i]))
            st = SIM_FAIL(sim, LATMC_EINVAL, "latmc_sim_set_couplings: coupling %zu is not "
                          "finite", i);
    if (st == LATMC_OK && sim->model->check_couplings &&
        (st = sim->model->check_couplings(sim, buf, count, "latmc_sim_set_couplings")) < 0)
        st = latmc_sim_record_failure(sim, st);
    /* collective on parts: a part's bad buffer fails the call on every part before any
     * takes the couplings (each part holds its halos' couplings too: parts that took them
     * would disagree with the failed one about the bonds between their slabs) */
    if (latmc_part_many(sim) && (st = latmc_part_agree(sim, st)) < 0)
        return latmc_sim_record_failure(sim, st);
    if (st < 0)
        return st;
    BACKEND_CALL(st, sim, "set_couplings", sim->ops->set_couplings(sim, buf));
    if (st < 0)
        return latmc_sim_record_failure(sim, st);
    configuration_changed(sim);
    return LATMC_OK;
}

int latmc_sim_tune_epsilon(latmc_sim *sim, double target, uint64_t sweeps)
{
    if (!sim)
        return latmc_fail(LATMC_EINVAL, "latmc_sim_tune_epsilon: sim is NULL");
    int st = LATMC_OK;
    if (!(sim->model->params & (1u << LATMC_PARAM_EPSILON)))
        st = SIM_FAIL(sim, LATMC_EUNSUPPORTED, "latmc_sim_tune_epsilon: the %s model has no "
                      "proposal width epsilon", sim->model->name);
    else if (!(target > 0.0 && target < 1.0))
        st = SIM_FAIL(sim, LATMC_EINVAL, "latmc_sim_tune_epsilon: target acceptance %g is "
                      "not in (0, 1)", target);
    else if (sim->sweeps > latmc_sim_max_sweeps(sim) ||
             sweeps > latmc_sim_max_sweeps(sim) - sim->sweeps)
        /* refused whole, as latmc_sim_sweep does: its blocks of 10 would each pass */
        st = SIM_FAIL(sim, LATMC_EINVAL, "latmc_sim_tune_epsilon: %llu more sweeps would pass "
                      "the %llu sweeps the random-number counters can name",
                      (unsigned long long)sweeps,
                      (unsigned long long)latmc_sim_max_sweeps(sim));
    /* collective on parts: a part's bad argument fails the call on every part (none is
     * left waiting in the halo exchanges of the others' sweeps) */
    if (latmc_part_many(sim) && (st = latmc_part_agree(sim, st)) < 0)
        return latmc_sim_record_failure(sim, st);
    if (st < 0)
        return st;
    /*
     * Blocks are aligned to the sweep number, not to the call, and a block's acceptance is
     * read from the sim's acceptance counters, which are zeroed where a block starts: so a
     * call that ends inside a block leaves its part of the block in the counters (which
     * checkpoints keep), the next call completes it, and epsilon changes only at block
     * ends. Tuning split over several calls, or across a checkpoint, follows the same
     * chain as one call.
     */
    const uint64_t block = 10;
    if (sweeps > 0 && sim->sweeps % block == 0)
        sim->accepted = sim->attempted = 0;
    for (uint64_t done = 0, n; done < sweeps; done += n) {
        n = block - sim->sweeps % block;
        if (n > sweeps - done)
            n = sweeps - done;
        st = latmc_sim_sweep(sim, n);
        if (st < 0)
            return st;
        if (sim->sweeps % block != 0)
            break; /* the call ends inside a block: the next call completes it */
        const uint64_t att = sim->attempted, acc = sim->accepted;
        if (done + n < sweeps)
            sim->accepted = sim->attempted = 0; /* the next block starts here */
        if (att == 0)
            continue;
        double factor = ((double)acc / (double)att) / target;
        factor = factor < 0.5 ? 0.5 : factor > 2.0 ? 2.0 : factor;
        double eps = sim->param[LATMC_PARAM_EPSILON] * factor;
        if (latmc_param_check(LATMC_PARAM_EPSILON, eps) == LATMC_OK) {
            sim->param[LATMC_PARAM_EPSILON] = eps;
            if ((st = latmc_sim_params_changed(sim)) < 0)
                return st;
        }
    }
    return LATMC_OK;
}

const char *latmc_sim_last_error(const latmc_sim *sim)
{
    return sim ? sim->errmsg : "sim is NULL";
}
