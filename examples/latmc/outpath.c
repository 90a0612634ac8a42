/* latmc front end — checking output paths. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli_options.h"
#include "outpath.h"

/* Leave room for the ".csv" and ".tmp" suffixes of the files written next to path. */
#define MAX_PATH 4000

bool outpath_check(const char *option, const char *path)
{
    struct stat sb;
    if (strlen(path) > MAX_PATH) {
        cli_usage_error("%s: path too long", option);
        return false;
    }
    if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        cli_usage_error("%s: '%s' is a directory", option, path);
        return false;
    }
    char dir[MAX_PATH + 1];
    const char *slash = strrchr(path, '/');
    if (slash == NULL) {
        snprintf(dir, sizeof dir, ".");
    } else if (slash == path) {
        snprintf(dir, sizeof dir, "/");
    } else {
        size_t n = (size_t)(slash - path);
        memcpy(dir, path, n);
        dir[n] = '\0';
    }
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        cli_usage_error("%s: no directory '%s' to write '%s' in", option, dir, path);
        return false;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        cli_usage_error("%s: cannot write in directory '%s': %s", option, dir, strerror(errno));
        return false;
    }
    return true;
}
