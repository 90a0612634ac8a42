/* latmc front end — output paths and writing files aside (see outfile.h). */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <latmc/latmc.h>

#include "cli_options.h"
#include "outfile.h"

static const char *kind_of(mode_t m)
{
    return S_ISDIR(m) ? "a directory" : S_ISCHR(m) ? "a character device"
         : S_ISBLK(m) ? "a block device" : S_ISFIFO(m) ? "a FIFO"
         : S_ISSOCK(m) ? "a socket" : "not a regular file";
}

/* The directory part of path into dir. */
static void dir_of(const char *path, char *dir, size_t size)
{
    const char *slash = strrchr(path, '/');
    if (slash == NULL)
        snprintf(dir, size, ".");
    else if (slash == path)
        snprintf(dir, size, "/");
    else
        snprintf(dir, size, "%.*s", (int)(slash - path), path);
}

/* Follow o->real while it is a symbolic link, also to a target that does not exist yet
 * (the file is then created there). A relative target is relative to the link's
 * directory. False on a loop (more than 40 links) or an unreadable link. */
static bool resolve_links(struct outfile *o)
{
    for (int depth = 0; depth < 40; depth++) {
        struct stat sb;
        if (lstat(o->real, &sb) != 0 || !S_ISLNK(sb.st_mode))
            return true;
        char target[OUTFILE_MAX_PATH + 1];
        ssize_t n = readlink(o->real, target, sizeof target - 1);
        if (n <= 0 || (size_t)n >= sizeof target - 1)
            return false;
        target[n] = '\0';
        char next[2 * OUTFILE_MAX_PATH + 2];
        if (target[0] == '/') {
            snprintf(next, sizeof next, "%s", target);
        } else {
            char dir[OUTFILE_MAX_PATH + 1];
            dir_of(o->real, dir, sizeof dir);
            snprintf(next, sizeof next, "%s/%s", dir, target);
        }
        if (strlen(next) > OUTFILE_MAX_PATH)
            return false;
        snprintf(o->real, sizeof o->real, "%s", next);
    }
    return false;
}

bool outfile_check(struct outfile *o, const char *option, const char *arg, bool allow_stdout)
{
    memset(o, 0, sizeof *o);
    o->option = option;
    o->arg = arg;
    if (strcmp(arg, "-") == 0) {
        if (!allow_stdout) {
            cli_usage_error("%s: '-' (standard output) is not possible here", option);
            return false;
        }
        o->is_stdout = true;
        return true;
    }
    if (strlen(arg) > OUTFILE_MAX_PATH) {
        cli_usage_error("%s: path too long", option);
        return false;
    }
    snprintf(o->real, sizeof o->real, "%s", arg);
    if (!resolve_links(o)) {
        cli_usage_error("%s: '%s': too many levels of symbolic links, or a link that cannot "
                        "be read", option, arg);
        return false;
    }
    struct stat sb;
    if (stat(o->real, &sb) == 0 && !S_ISREG(sb.st_mode)) {
        cli_usage_error("%s: '%s' is %s: latmc writes regular files only (and never "
                        "replaces anything else)%s", option, arg, kind_of(sb.st_mode),
                        allow_stdout && !S_ISDIR(sb.st_mode) ? "; use '-' for standard output"
                                                             : "");
        return false;
    }
    char dir[OUTFILE_MAX_PATH + 1];
    dir_of(o->real, dir, sizeof dir);
    if (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
        cli_usage_error("%s: no directory '%s' to write '%s' in", option, dir, arg);
        return false;
    }
    if (access(dir, W_OK | X_OK) != 0) {
        cli_usage_error("%s: cannot write in directory '%s': %s", option, dir, strerror(errno));
        return false;
    }
    return true;
}

FILE *outfile_begin(const struct outfile *o, char *tmp, size_t tmp_size, struct failure *f)
{
    tmp[0] = '\0';
    if (o->is_stdout)
        return stdout;
    if (snprintf(tmp, tmp_size, "%s.XXXXXX", o->real) >= (int)tmp_size) {
        failure_set(f, LATMC_EINVAL, "", "%s: path too long", o->option);
        return NULL;
    }
    int fd = mkstemp(tmp);
    if (fd < 0) {
        failure_set(f, LATMC_EIO, strerror(errno), "%s: cannot create a file next to '%s'",
                    o->option, o->real);
        tmp[0] = '\0';
        return NULL;
    }
    /* mkstemp makes 0600; an output file gets the usual 0666 & ~umask */
    mode_t um = umask(0);
    umask(um);
    fchmod(fd, 0666 & ~um);
    FILE *out = fdopen(fd, "w");
    if (out == NULL) {
        failure_set(f, LATMC_EIO, strerror(errno), "%s: cannot write '%s'", o->option, tmp);
        close(fd);
        unlink(tmp);
        tmp[0] = '\0';
    }
    return out;
}

int outfile_commit(const struct outfile *o, FILE *out, const char *tmp, struct failure *f)
{
    if (o->is_stdout) {
        if (fflush(out) != 0 || ferror(out))
            return failure_set(f, LATMC_EIO, strerror(errno), "%s: writing to standard output",
                               o->option);
        return LATMC_OK;
    }
    const char *what = NULL;
    if (fflush(out) != 0 || ferror(out))
        what = "cannot write";
    else if (fsync(fileno(out)) != 0 && errno != EINVAL)
        what = "cannot sync";
    int e = errno;
    if (fclose(out) != 0 && what == NULL) {
        what = "cannot close";
        e = errno;
    }
    if (what == NULL && rename(tmp, o->real) != 0) {
        what = "cannot rename the temporary file to";
        e = errno;
    }
    if (what != NULL) {
        unlink(tmp);
        return failure_set(f, LATMC_EIO, strerror(e), "%s: %s '%s'", o->option, what, o->real);
    }
    return LATMC_OK;
}

void outfile_abort(const struct outfile *o, FILE *out, const char *tmp)
{
    if (o->is_stdout || out == NULL)
        return;
    fclose(out);
    if (tmp[0] != '\0')
        unlink(tmp);
}
