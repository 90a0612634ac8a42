/* mirror_transport.h: one part standing in for all of them. */
#include <string.h>

#include "mirror_transport.h"

static int mirror_exchange(void *u, const void *to_lower, const void *to_upper,
                           void *from_lower, void *from_upper, size_t n)
{
    (void)u;
    memcpy(from_lower, to_upper, n);
    memcpy(from_upper, to_lower, n);
    return 0;
}

static int mirror_gather(void *u, int root, const void *mine, void *all, const size_t *bytes)
{
    (void)root;
    const int n = *(const int *)u;
    unsigned char *out = all;
    for (int p = 0; all && p < n; p++) {
        memcpy(out, mine, bytes[p] < bytes[0] ? bytes[p] : bytes[0]);
        out += bytes[p];
    }
    return 0;
}

static int mirror_broadcast(void *u, int root, void *buf, size_t n)
{
    (void)u, (void)root, (void)buf, (void)n;
    return 0;
}

latmc_transport mirror_transport(int *n_parts)
{
    latmc_transport t;
    memset(&t, 0, sizeof t);
    t.struct_size = sizeof t;
    t.user = n_parts;
    t.exchange = mirror_exchange;
    t.gather = mirror_gather;
    t.broadcast = mirror_broadcast;
    return t;
}
