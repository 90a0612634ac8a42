/* latmc front end — recording and printing a library failure. */
#include <stdarg.h>
#include <stdio.h>

#include <latmc/latmc.h>

#include "failure.h"

int failure_set(struct failure *f, int code, const char *detail, const char *what_fmt, ...)
{
    va_list ap;
    f->code = code;
    va_start(ap, what_fmt);
    vsnprintf(f->what, sizeof f->what, what_fmt, ap);
    va_end(ap);
    snprintf(f->detail, sizeof f->detail, "%s", detail != NULL ? detail : "");
    return code;
}

void failure_print(const struct failure *fl, FILE *f)
{
    if (fl->detail[0] != '\0')
        fprintf(f, "latmc: %s: %s: %s\n", fl->what, latmc_strerror(fl->code), fl->detail);
    else
        fprintf(f, "latmc: %s: %s\n", fl->what, latmc_strerror(fl->code));
}

void failure_print_detail(const struct failure *fl, FILE *f)
{
    if (fl->detail[0] != '\0')
        fprintf(f, "%s: %s: %s\n", fl->what, latmc_strerror(fl->code), fl->detail);
    else
        fprintf(f, "%s: %s\n", fl->what, latmc_strerror(fl->code));
}
