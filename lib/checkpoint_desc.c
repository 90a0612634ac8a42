/* The desc in the checkpoint formats (checkpoint_desc.h). */
#include "checkpoint_desc.h"

/* The fields that name the chain and where it ran; not n_parts, n_devices, device_list
 * (how a sim is cut never changes its chain: a loaded sim runs as 1 box on 1 device). */
#define DESC_FIELDS 16

void ckpt_put_desc(struct ckpt_writer *w, const latmc_sim_desc *d)
{
    const int64_t fields[DESC_FIELDS] = {
        d->model, d->ndim, d->extent[0], d->extent[1], d->extent[2], d->extent[3], d->q,
        d->algorithm, d->precision, d->couplings, (int64_t)d->coupling_seed, d->replicas,
        d->device, d->device_index, d->n_threads, (int64_t)d->seed };
    ckpt_put_u32(w, DESC_FIELDS);
    for (int i = 0; i < DESC_FIELDS; i++)
        ckpt_put_u64(w, (uint64_t)fields[i]);
}

const char *ckpt_get_desc(struct ckpt_reader *r, latmc_sim_desc *d)
{
    if (ckpt_get_u32(r) != DESC_FIELDS)
        return "the desc does not have the 16 fields of format version 1";
    int64_t f[DESC_FIELDS];
    for (int i = 0; i < DESC_FIELDS; i++)
        f[i] = (int64_t)ckpt_get_u64(r);
    latmc_sim_desc_init(d);
    /* the fields that are ints in the desc must fit one */
    const int int_fields[] = { 0, 1, 6, 7, 8, 9, 11, 12, 13, 14 };
    for (size_t i = 0; i < sizeof int_fields / sizeof int_fields[0]; i++)
        if (f[int_fields[i]] < -2147483647 - 1 || f[int_fields[i]] > 2147483647)
            return "a desc field is out of range";
    d->model = (int)f[0];
    d->ndim = (int)f[1];
    for (int mu = 0; mu < 4; mu++)
        d->extent[mu] = f[2 + mu];
    d->q = (int)f[6];
    d->algorithm = (int)f[7];
    d->precision = (int)f[8];
    d->couplings = (int)f[9];
    d->coupling_seed = (uint64_t)f[10];
    d->replicas = (int)f[11];
    d->device = (int)f[12];
    d->device_index = (int)f[13];
    d->n_threads = (int)f[14];
    d->seed = (uint64_t)f[15];
    return NULL;
}
