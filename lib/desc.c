/* latmc_sim_desc: defaults, versioned copy-in and validation. */
#include <stddef.h>
#include <string.h>

#include "desc.h"
#include "model.h"
#include "plan.h"

/* Caps that keep every index and RNG block number far inside its integer type. */
#define MAX_EXTENT (INT64_C(1) << 30)
#define MAX_SITES  (INT64_C(1) << 40)

/* The defaults of every field, in a struct of this version. */
static void desc_defaults(latmc_sim_desc *d)
{
    memset(d, 0, sizeof *d);
    d->struct_size = (uint32_t)sizeof *d;
    d->model = LATMC_MODEL_NONE;
    d->ndim = 2;
    d->q = 2;
    d->algorithm = LATMC_ALGO_DEFAULT;
    d->precision = LATMC_PRECISION_DOUBLE;
    d->couplings = LATMC_COUPLINGS_UNIFORM;
    d->replicas = 1;
    d->device = LATMC_DEVICE_AUTO;
}

/* The defaults copied into the caller's first `size` bytes (a known size, checked). */
static void desc_defaults_into(latmc_sim_desc *d, size_t size)
{
    latmc_sim_desc full;
    desc_defaults(&full);
    const size_t mine = sizeof full;
    memcpy(d, &full, size < mine ? size : mine);
    if (size > mine)
        memset((unsigned char *)d + mine, 0, size - mine);
    d->struct_size = (uint32_t)size;
}

int latmc_sim_desc_init_size(latmc_sim_desc *d, size_t size)
{
    if (!d)
        return latmc_fail(LATMC_EINVAL, "latmc_sim_desc_init_size: desc is NULL");
    if (size != LATMC_DESC_SIZE_V1 && size != LATMC_DESC_SIZE_V2 && size < sizeof *d)
        return latmc_fail(LATMC_EINVAL, "latmc_sim_desc_init_size: size %zu is no version's "
                          "latmc_sim_desc (%zu for 0.1, %zu before n_devices, %zu now): pass "
                          "sizeof(latmc_sim_desc)", size, (size_t)LATMC_DESC_SIZE_V1,
                          (size_t)LATMC_DESC_SIZE_V2, sizeof *d);
    if (size > LATMC_STRUCT_SIZE_MAX)
        return latmc_fail(LATMC_EINVAL, "latmc_sim_desc_init_size: size %zu is larger than any "
                          "latmc_sim_desc can be (at most %u bytes)", size, LATMC_STRUCT_SIZE_MAX);
    desc_defaults_into(d, size);
    return LATMC_OK;
}

/* The 0.1 symbol (sim.h): its callers' structs end after seed. The parentheses keep the
 * header's macro of the same name from expanding here. */
void(latmc_sim_desc_init)(latmc_sim_desc *d)
{
    if (d)
        desc_defaults_into(d, LATMC_DESC_SIZE_V1);
}

/*
 * A caller compiled against an older header passes a smaller struct_size: a known older
 * size (v1, before n_parts; v2, before n_devices) is accepted and the fields it lacks take
 * their defaults (0, NULL);
 * any other smaller size is an error. A newer caller passes a larger one: accepted only
 * if every field this version does not know is zero (i.e. left at its default), as the Linux kernel does
 * for its extensible structs; and, as there, a size past LATMC_STRUCT_SIZE_MAX is refused
 * before any byte beyond the known struct is read.
 */
void latmc_desc_copy_out(const latmc_sim_desc *src, latmc_sim_desc *out)
{
    if (out->struct_size == LATMC_DESC_SIZE_V1 || out->struct_size == LATMC_DESC_SIZE_V2) {
        /* A caller built against an older header has a shorter struct: fill only that. */
        const size_t n = out->struct_size == LATMC_DESC_SIZE_V1 ? LATMC_DESC_SIZE_V1
                                                                 : LATMC_DESC_FIELDS_V2;
        const uint32_t size = out->struct_size;
        memcpy(out, src, n);
        out->struct_size = size;
        return;
    }
    *out = *src;
}

int latmc_desc_copy_in(const latmc_sim_desc *in, latmc_sim_desc *out)
{
    if (in->struct_size == LATMC_DESC_SIZE_V1 || in->struct_size == LATMC_DESC_SIZE_V2) {
        /* v2's padding after n_parts is not read: it may hold anything */
        desc_defaults(out);
        memcpy(out, in, in->struct_size == LATMC_DESC_SIZE_V1 ? LATMC_DESC_SIZE_V1
                                                               : LATMC_DESC_FIELDS_V2);
        out->struct_size = (uint32_t)sizeof *out;
        return LATMC_OK;
    }
    if (in->struct_size < sizeof *out)
        return latmc_fail(LATMC_EINVAL, "desc.struct_size = %u is smaller than this library's "
                          "latmc_sim_desc (%zu): initialise it with latmc_sim_desc_init()",
                          (unsigned)in->struct_size, sizeof *out);
    if (in->struct_size > LATMC_STRUCT_SIZE_MAX)
        return latmc_fail(LATMC_EINVAL, "desc.struct_size = %u is larger than any "
                          "latmc_sim_desc can be (at most %u bytes): initialise it with "
                          "latmc_sim_desc_init()", (unsigned)in->struct_size,
                          LATMC_STRUCT_SIZE_MAX);
    const unsigned char *extra = (const unsigned char *)in + sizeof *out;
    for (size_t i = 0; i < in->struct_size - sizeof *out; i++)
        if (extra[i] != 0)
            return latmc_fail(LATMC_EUNSUPPORTED, "desc sets fields this version of liblatmc "
                              "does not know (byte %zu past its end is non-zero)", i);
    memcpy(out, in, sizeof *out);
    out->struct_size = (uint32_t)sizeof *out;
    return LATMC_OK;
}

/* n_devices and device_list; the backend checks the indices against its devices. */
static int check_devices(const latmc_sim_desc *d)
{
    if (d->n_devices < 0 || d->n_devices > LATMC_MAX_DEVICES)
        return latmc_fail(LATMC_EINVAL, "desc.n_devices = %d: use 0 or 1 (one device) to %d",
                          d->n_devices, LATMC_MAX_DEVICES);
    if (d->n_devices <= 1) {
        if (d->device_list)
            return latmc_fail(LATMC_EINVAL, "desc.device_list is set with desc.n_devices = %d: "
                              "a list needs n_devices > 1 (one device: device_index)",
                              d->n_devices);
        return LATMC_OK;
    }
    if (d->n_parts != 0 && d->n_parts != d->n_devices)
        return latmc_fail(LATMC_EINVAL, "desc.n_parts = %d with desc.n_devices = %d: a sim on "
                          "several devices runs one slab per device (n_parts 0 or %d)",
                          d->n_parts, d->n_devices, d->n_devices);
    if (d->device == LATMC_DEVICE_CPU)
        return latmc_fail(LATMC_EUNSUPPORTED, "desc.n_devices = %d: the CPU backend is one "
                          "device; slabs on the CPU are desc.n_parts", d->n_devices);
    for (int i = 0; d->device_list && i < d->n_devices; i++)
        if (d->device_list[i] < 0)
            return latmc_fail(LATMC_ENODEV, "desc.device_list[%d] = %d is negative", i,
                              d->device_list[i]);
    if (!d->device_list && (int64_t)d->device_index + d->n_devices - 1 > INT32_MAX)
        return latmc_fail(LATMC_ENODEV, "desc.device_index = %d with desc.n_devices = %d "
                          "names devices past any index", d->device_index, d->n_devices);
    return LATMC_OK;
}

static int check_extents(latmc_sim_desc *d, int64_t *nsites)
{
    if (d->ndim != 2 && d->ndim != 3)
        return latmc_fail(LATMC_EINVAL, "desc.ndim = %d: only 2 and 3 dimensions exist", d->ndim);
    int64_t n = 1;
    for (int mu = 0; mu < 4; mu++) {
        int64_t l = d->extent[mu];
        if (mu >= d->ndim) {
            if (l != 0 && l != 1)
                return latmc_fail(LATMC_EINVAL, "desc.extent[%d] = %lld but ndim = %d: "
                                  "unused extents must be 0 or 1", mu, (long long)l, d->ndim);
            d->extent[mu] = 0;
            continue;
        }
        if (l < 2)
            return latmc_fail(LATMC_EINVAL, "desc.extent[%d] = %lld: extents must be >= 2",
                              mu, (long long)l);
        if (l > MAX_EXTENT || n > MAX_SITES / l)
            return latmc_fail(LATMC_EINVAL, "desc.extent[%d] = %lld: lattice larger than "
                              "2^40 sites", mu, (long long)l);
        n *= l;
    }
    *nsites = n;
    return LATMC_OK;
}

static int check_enums(const latmc_sim_desc *d)
{
    if (d->precision != LATMC_PRECISION_FLOAT && d->precision != LATMC_PRECISION_DOUBLE)
        return latmc_fail(LATMC_EINVAL, "desc.precision = %d is not a LATMC_PRECISION_* value",
                          d->precision);
    if (d->couplings < LATMC_COUPLINGS_UNIFORM || d->couplings > LATMC_COUPLINGS_BIMODAL)
        return latmc_fail(LATMC_EINVAL, "desc.couplings = %d is not a LATMC_COUPLINGS_* value",
                          d->couplings);
    if (d->algorithm < LATMC_ALGO_DEFAULT || d->algorithm > LATMC_ALGO_WOLFF)
        return latmc_fail(LATMC_EINVAL, "desc.algorithm = %d is not a LATMC_ALGO_* value",
                          d->algorithm);
    if (d->n_threads < 0 || d->n_threads > 4096)
        return latmc_fail(LATMC_EINVAL, "desc.n_threads = %d: use 0 (runtime default) to 4096",
                          d->n_threads);
    if (d->replicas < 1 || d->replicas > 2)
        return latmc_fail(LATMC_EINVAL, "desc.replicas = %d: use 1, or 2 for the overlap",
                          d->replicas);
    if (d->device_index < 0)
        return latmc_fail(LATMC_ENODEV, "desc.device_index = %d is negative", d->device_index);
    return check_devices(d);
}

int latmc_desc_validate(const latmc_sim_desc *in, latmc_sim_desc *out, int64_t *nsites)
{
    int st = latmc_desc_copy_in(in, out);
    if (st < 0)
        return st;
    if (out->model == LATMC_MODEL_NONE)
        return latmc_fail(LATMC_EINVAL, "desc.model is not set (LATMC_MODEL_ISING, ...)");
    const struct latmc_model_def *info = latmc_model_get(out->model);
    if (!info)
        return latmc_fail(LATMC_EINVAL, "desc.model = %d is not a LATMC_MODEL_* value", out->model);
    if ((st = check_enums(out)) < 0 || (st = check_extents(out, nsites)) < 0)
        return st;
    if (!info->implemented)
        return latmc_fail(LATMC_EUNSUPPORTED, "the %s model is not implemented in liblatmc %s yet",
                          info->name, latmc_version_string());
    if (out->algorithm == LATMC_ALGO_DEFAULT)
        out->algorithm = info->default_algorithm;
    if (!(info->algorithms & (1u << out->algorithm)))
        return latmc_fail(LATMC_EUNSUPPORTED, "algorithm %s is not available for the %s model",
                          latmc_algorithm_name(out->algorithm), info->name);
    if (out->replicas > info->max_replicas)
        return latmc_fail(LATMC_EUNSUPPORTED, "the %s model runs one replica (desc.replicas = %d)",
                          info->name, out->replicas);
    if (out->couplings != LATMC_COUPLINGS_UNIFORM &&
        !(info->coupling_kinds & (1u << out->couplings)))
        return latmc_fail(LATMC_EINVAL, "desc.couplings = %s: the %s model %s",
                          out->couplings == LATMC_COUPLINGS_GAUSSIAN ? "GAUSSIAN" : "BIMODAL",
                          info->name, (info->coupling_kinds & (1u << LATMC_COUPLINGS_BIMODAL))
                                          ? "takes UNIFORM or BIMODAL (+-1) couplings only"
                                          : "has no couplings (use LATMC_COUPLINGS_UNIFORM)");
    if ((st = info->check_desc(out)) < 0)
        return st;
    return latmc_plan_check(out, info);
}
