/* latmc front end — name <-> value tables for the library's enums. */
#include <stddef.h>
#include <string.h>

#include <latmc/latmc.h>

#include "names.h"

/* The library's names (latmc_model_name, numbered 1, 2, ... until NULL): a model the
 * library gains is offered here without a change. Built at the first call; the program
 * asks for it from its one thread. */
const struct name_value *names_models(void)
{
    enum { most = 64 }; /* far above the models there are; the rest would go unnamed */
    static struct name_value table[most + 1]; /* ends with { NULL, 0 } */
    if (table[0].name == NULL) {
        int n = 0;
        for (int m = 1; n < most && latmc_model_name(m) != NULL; m++)
            table[n++] = (struct name_value){ latmc_model_name(m), m };
        table[n] = (struct name_value){ NULL, 0 };
    }
    return table;
}

const struct name_value names_algorithm[] = {
    { "default", LATMC_ALGO_DEFAULT },
    { "metropolis", LATMC_ALGO_METROPOLIS },
    { "heatbath", LATMC_ALGO_HEATBATH },
    { "overrelax", LATMC_ALGO_OVERRELAX },
    { "sw", LATMC_ALGO_SWENDSEN_WANG },
    { "wolff", LATMC_ALGO_WOLFF },
    { NULL, 0 },
};

const struct name_value names_device[] = {
    { "auto", LATMC_DEVICE_AUTO },
    { "cpu", LATMC_DEVICE_CPU },
    { "cuda", LATMC_DEVICE_CUDA },
    { NULL, 0 },
};

const struct name_value names_start[] = {
    { "hot", LATMC_INIT_HOT },
    { "cold", LATMC_INIT_COLD },
    { NULL, 0 },
};

const struct name_value names_couplings[] = {
    { "uniform", LATMC_COUPLINGS_UNIFORM },
    { "gaussian", LATMC_COUPLINGS_GAUSSIAN },
    { "bimodal", LATMC_COUPLINGS_BIMODAL },
    { NULL, 0 },
};

const struct name_value names_precision[] = {
    { "float", LATMC_PRECISION_FLOAT },
    { "double", LATMC_PRECISION_DOUBLE },
    { NULL, 0 },
};

bool names_lookup(const struct name_value *table, const char *name, int *value)
{
    for (const struct name_value *e = table; e->name != NULL; e++) {
        if (strcmp(e->name, name) == 0) {
            *value = e->value;
            return true;
        }
    }
    return false;
}

const char *names_of(const struct name_value *table, int value, const char *fallback)
{
    for (const struct name_value *e = table; e->name != NULL; e++)
        if (e->value == value)
            return e->name;
    return fallback;
}

const char *names_list(const struct name_value *table)
{
    static char buf[256];
    size_t n = 0, len = 0;
    while (table[n].name != NULL)
        n++;
    buf[0] = '\0';
    for (size_t i = 0; i < n; i++) {
        const char *sep = i == 0 ? "" : (i + 1 == n ? " or " : ", ");
        size_t need = strlen(sep) + strlen(table[i].name);
        if (len + need + 1 > sizeof buf)
            break;
        strcat(buf, sep);
        strcat(buf, table[i].name);
        len += need;
    }
    return buf;
}
