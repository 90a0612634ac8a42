/* Internal: validation of a latmc_sim_desc. */
#ifndef LATMC_LIB_DESC_H
#define LATMC_LIB_DESC_H

#include "internal.h"

/*
 * Copy *in (any struct_size this version accepts) into *out, check every field, resolve
 * the DEFAULT algorithm and compute the site count. LATMC_OK or a code with a message
 * naming the field.
 */
int latmc_desc_validate(const latmc_sim_desc *in, latmc_sim_desc *out, int64_t *nsites);

#endif
