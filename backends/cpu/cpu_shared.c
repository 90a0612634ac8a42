/*
 * What the CPU executor (cpu_backend.c, cpu_boxes.c) and the models' kernels both call: a
 * sim's states and the two steps of a fused pair. The layer below both: it calls neither,
 * so a kernel, which the executor calls through its table, never calls back up into it.
 */
#include "cpu_exec.h"
#include "model.h"

int cpu_state_count(const struct cpu_state *st)
{
    return st->boxes ? st->boxes->n : 1;
}

struct cpu_state *cpu_state_at(struct cpu_state *st, int i)
{
    return st->boxes ? &st->boxes->box[i] : st;
}

void cpu_pair_steps(latmc_sim *sim, const struct latmc_step_call *call,
                    struct latmc_step pair[2])
{
    pair[0] = call->step;
    pair[1] = sim->model->step_of(sim, call->sweep, call->step.index + 1);
}
