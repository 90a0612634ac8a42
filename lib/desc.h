/* Internal: validation of a latmc_sim_desc. */
#ifndef LATMC_LIB_DESC_H
#define LATMC_LIB_DESC_H

#include <stddef.h>

#include "internal.h"

/* struct_size of the 0.1 latmc_sim_desc (up to and including seed, before n_parts). */
#define LATMC_DESC_SIZE_V1 offsetof(latmc_sim_desc, n_parts)

/* struct_size of the desc with n_parts as its last field (sizeof of that struct: n_parts
 * and the padding to the struct's alignment, 104 bytes on LP64), and the bytes of it that
 * hold fields (up to n_devices, which now sits in that padding). */
#define LATMC_DESC_FIELDS_V2 offsetof(latmc_sim_desc, n_devices)
#define LATMC_DESC_SIZE_V2                                                                  \
    ((LATMC_DESC_FIELDS_V2 + _Alignof(latmc_sim_desc) - 1) / _Alignof(latmc_sim_desc) *     \
     _Alignof(latmc_sim_desc))

/* Most devices of one sim (desc.n_devices). */
#define LATMC_MAX_DEVICES 1024

/*
 * Copy *in (any struct_size this version accepts) into *out, this version's struct, with
 * the fields an older caller's struct lacks at their defaults; no other check.
 */
int latmc_desc_copy_in(const latmc_sim_desc *in, latmc_sim_desc *out);

/*
 * Copy *src (this version's) into the caller's *out as far as out->struct_size says: the
 * 0.1 or the n_parts-era prefix for those sizes (struct_size kept), else the whole desc
 * (latmc_sim_get_desc's contract, shared by every function that fills a caller's desc).
 */
void latmc_desc_copy_out(const latmc_sim_desc *src, latmc_sim_desc *out);

/*
 * Copy *in (any struct_size this version accepts) into *out, check every field, resolve
 * the DEFAULT algorithm and compute the site count. LATMC_OK or a code with a message
 * naming the field.
 */
int latmc_desc_validate(const latmc_sim_desc *in, latmc_sim_desc *out, int64_t *nsites);

#endif
