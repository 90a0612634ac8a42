/*
 * Writing and reading whole files safely: see safe_file.h for the rules and
 * doc/checkpoints.md ("Safety") for what callers are promised.
 */
/* renameat2 (RENAME_EXCHANGE, RENAME_NOREPLACE): glibc declares it for _GNU_SOURCE */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "safe_file.h"
#include "temp_files.h"

/* Symlink chains longer than this are refused, as the kernel does (ELOOP). */
#define MAX_LINK_DEPTH 40

static const char *file_kind(mode_t mode)
{
    if (S_ISDIR(mode))
        return "a directory";
    if (S_ISFIFO(mode))
        return "a FIFO (named pipe)";
    if (S_ISCHR(mode))
        return "a character device";
    if (S_ISBLK(mode))
        return "a block device";
    if (S_ISSOCK(mode))
        return "a socket";
    return "not a regular file";
}

/* What the user can do about a failed system call, for the end of a message. */
static const char *advice(int err)
{
    switch (err) {
    case ENOSPC:
#ifdef EDQUOT
    case EDQUOT:
#endif
        return "free space on that file system or choose another directory";
    case EACCES:
    case EPERM:
        return "check the permissions of the file and of its directory";
    case EROFS:
        return "the file system is read-only: choose another directory";
    case ENOENT:
    case ENOTDIR:
        return "check that the directory exists";
    case ENAMETOOLONG:
        return "use a shorter path";
    case ELOOP:
        return "check the chain of symbolic links";
    default:
        return "check the file system";
    }
}

static char *copy_string(const char *s)
{
    size_t n = strlen(s) + 1;
    char *p = malloc(n);
    if (p)
        memcpy(p, s, n);
    return p;
}

/* The directory part of a path: "." for a bare name, "/" for a name in the root. */
static char *directory_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return copy_string(".");
    size_t n = slash == path ? 1 : (size_t)(slash - path);
    char *dir = malloc(n + 1);
    if (dir) {
        memcpy(dir, path, n);
        dir[n] = '\0';
    }
    return dir;
}

/* A symlink's target, relative targets taken relative to the link's directory. */
static char *follow_link(const char *link, size_t size_hint, int *err)
{
    size_t cap = size_hint > 0 ? size_hint + 1 : PATH_MAX;
    char *dest = malloc(cap);
    if (!dest) {
        *err = ENOMEM;
        return NULL;
    }
    ssize_t n = readlink(link, dest, cap);
    if (n < 0 || (size_t)n >= cap) { /* >= cap: the link changed since lstat */
        *err = n < 0 ? errno : EAGAIN;
        free(dest);
        return NULL;
    }
    dest[n] = '\0';
    if (dest[0] == '/')
        return dest;
    char *dir = directory_of(link);
    char *joined = dir ? malloc(strlen(dir) + 1 + (size_t)n + 1) : NULL;
    if (joined)
        sprintf(joined, "%s/%s", dir, dest);
    else
        *err = ENOMEM;
    free(dir);
    free(dest);
    return joined;
}

/*
 * The file a write to `path` replaces: path itself, or the end of its chain of symlinks
 * (the links stay). *exists tells whether that file exists, *mode its permissions.
 * Refuses anything that is not a regular file: renaming over a device, FIFO, socket or
 * directory would destroy it, and writing into one is not a checkpoint.
 */
static int resolve_target(const char *path, const char *fn, char **target, bool *exists,
                          mode_t *mode)
{
    char *cur = copy_string(path);
    if (!cur)
        return latmc_fail(LATMC_ENOMEM, "%s: cannot allocate a path", fn);
    for (int depth = 0;; depth++) {
        struct stat st;
        if (lstat(cur, &st) != 0) {
            int err = errno;
            if (err == ENOENT) {
                *target = cur;
                *exists = false;
                *mode = 0;
                return LATMC_OK;
            }
            bool via_link = strcmp(cur, path) != 0;
            int status = latmc_fail(LATMC_EIO, "%s: cannot examine '%s'%s%s%s: %s; %s", fn, cur,
                                    via_link ? " (reached through the link '" : "",
                                    via_link ? path : "", via_link ? "')" : "", strerror(err),
                                    advice(err));
            free(cur);
            return status;
        }
        if (S_ISREG(st.st_mode)) {
            *target = cur;
            *exists = true;
            *mode = st.st_mode & 0777;
            return LATMC_OK;
        }
        if (!S_ISLNK(st.st_mode)) {
            int status = latmc_fail(LATMC_EIO, "%s: will not replace '%s'%s%s%s: it is %s, and "
                                    "%s writes regular files only (through a temporary file "
                                    "and a rename, which would destroy it); give the path of "
                                    "a regular file or of a new one", fn, cur,
                                    strcmp(cur, path) ? " (the target of the link '" : "",
                                    strcmp(cur, path) ? path : "",
                                    strcmp(cur, path) ? "')" : "", file_kind(st.st_mode), fn);
            free(cur);
            return status;
        }
        if (depth == MAX_LINK_DEPTH) {
            free(cur);
            return latmc_fail(LATMC_EIO, "%s: cannot write '%s': more than %d levels of "
                              "symbolic links; %s", fn, path, MAX_LINK_DEPTH, advice(ELOOP));
        }
        int err = 0;
        char *next = follow_link(cur, (size_t)st.st_size, &err);
        if (!next) {
            int status = err == ENOMEM
                             ? latmc_fail(LATMC_ENOMEM, "%s: cannot allocate a path", fn)
                             : latmc_fail(LATMC_EIO, "%s: cannot read the symbolic link '%s': "
                                          "%s; %s", fn, cur, strerror(err), advice(err));
            free(cur);
            return status;
        }
        free(cur);
        cur = next;
    }
}

static int write_all(int fd, const unsigned char *p, size_t n)
{
    while (n > 0) {
        ssize_t done = write(fd, p, n);
        if (done < 0) {
            if (errno == EINTR)
                continue;
            return errno;
        }
        if (done == 0)
            return EIO;
        p += done;
        n -= (size_t)done;
    }
    return 0;
}

/* Flush a directory's entries (the rename) to the disk. File systems that cannot sync a
 * directory say EINVAL (or ENOTSUP): their renames are as durable as they get. */
static int sync_directory(const char *dir)
{
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0)
        return errno;
    int err = 0;
    if (fsync(fd) != 0 && errno != EINVAL && errno != ENOTSUP)
        err = errno;
    close(fd);
    return err;
}

/* A replacement being written (safe_file.h): the temporary file beside the target. */
struct latmc_file_writer {
    const char *fn;
    char *target, *dir, *tmp;
    int fd;
    bool tmp_is_theirs; /* the temporary name holds what appeared at the target */
};

static void writer_free(struct latmc_file_writer *w)
{
    free(w->tmp);
    free(w->dir);
    free(w->target);
    free(w);
}

int latmc_file_begin(const char *path, const char *fn, struct latmc_file_writer **out)
{
    *out = NULL;
    struct latmc_file_writer *w = calloc(1, sizeof *w);
    if (!w)
        return latmc_fail(LATMC_ENOMEM, "%s: cannot allocate a file writer", fn);
    w->fn = fn;
    w->fd = -1;
    bool exists = false;
    mode_t mode = 0;
    int status = resolve_target(path, fn, &w->target, &exists, &mode);
    if (status < 0) {
        free(w);
        return status;
    }
    w->dir = directory_of(w->target);
    /* what writers killed mid-save left beside this target (never a live writer's) */
    if (w->dir)
        latmc_remove_stale_temps(w->target, w->dir);
    int err = 0;
    for (int attempt = 0; w->dir && attempt < 100 && w->fd < 0; attempt++) {
        free(w->tmp);
        if (!(w->tmp = latmc_temp_name(w->target)))
            break;
        /* 0666 before the umask, as fopen(path, "w") would create the file. */
        w->fd = open(w->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
        err = w->fd < 0 ? errno : 0;
        if (w->fd < 0 && err != EEXIST)
            break;
    }
    if (!w->dir || !w->tmp) {
        writer_free(w);
        return latmc_fail(LATMC_ENOMEM, "%s: cannot allocate a path", fn);
    }
    if (w->fd < 0) {
        status = latmc_fail(LATMC_EIO, "%s: cannot create a temporary file beside '%s' (%s): "
                            "%s; %s", fn, w->target, w->tmp, strerror(err), advice(err));
        writer_free(w);
        return status;
    }
    /* Replacing a file keeps its permissions; a failure here only loses that nicety. */
    if (exists)
        (void)fchmod(w->fd, mode);
    *out = w;
    return LATMC_OK;
}

/* A failed step: the temporary file goes, the target stays; the writer is freed. */
static int writer_failed(struct latmc_file_writer *w, const char *step, int err)
{
    if (w->fd >= 0)
        close(w->fd);
    if (w->tmp_is_theirs) {
        int status = latmc_fail(LATMC_EIO, "%s: '%s' became %s during the save, and moving it "
                                "back from %s failed: %s; move it back by hand", w->fn,
                                w->target, "not a regular file", w->tmp, strerror(err));
        writer_free(w);
        return status;
    }
    unlink(w->tmp);
    int status = latmc_fail(LATMC_EIO, "%s: cannot %s the temporary file %s for '%s': %s; "
                            "%s; '%s' is unchanged", w->fn, step, w->tmp, w->target,
                            strerror(err), advice(err), w->target);
    writer_free(w);
    return status;
}

int latmc_file_write(struct latmc_file_writer *w, const void *bytes, size_t n)
{
    int err = write_all(w->fd, bytes, n);
    return err ? writer_failed(w, "write", err) : LATMC_OK;
}

int latmc_file_flush(struct latmc_file_writer *w)
{
    if (fsync(w->fd) != 0)
        return writer_failed(w, "flush (fsync)", errno);
    int fd = w->fd;
    w->fd = -1;
    if (close(fd) != 0)
        return writer_failed(w, "close", errno);
    return LATMC_OK;
}

/* The temporary file is gone and `target` has become something that is not a regular
 * file while we wrote: it is left as it is, and so is the target. */
static int target_changed(struct latmc_file_writer *w, mode_t mode)
{
    unlink(w->tmp);
    int status = latmc_fail(LATMC_EIO, "%s: will not replace '%s': it became %s during the "
                            "save, and %s writes regular files only (a rename would destroy "
                            "it); it is left as it is, and the new file was not written",
                            w->fn, w->target, file_kind(mode), w->fn);
    writer_free(w);
    return status;
}

/*
 * Put the temporary file at the target's name without destroying anything that appeared
 * there during the save (resolve_target checked the name before the save began): where
 * the file system has renameat2, the files are exchanged atomically and the old one
 * examined at the temporary name, a regular file removed, anything else exchanged back;
 * a missing target is created with RENAME_NOREPLACE. Elsewhere the name is examined
 * again just before a plain rename (a window of one system call, doc/checkpoints.md).
 * 0, or an errno for writer_failed; *changed = the mode of a non-regular file found.
 */
static int put_in_place(struct latmc_file_writer *w, mode_t *changed)
{
    *changed = 0;
    struct stat st;
#if defined(__linux__) && defined(RENAME_EXCHANGE) && defined(RENAME_NOREPLACE)
    for (int attempt = 0; attempt < 16; attempt++) {
        if (renameat2(AT_FDCWD, w->tmp, AT_FDCWD, w->target, RENAME_EXCHANGE) == 0) {
            if (lstat(w->tmp, &st) != 0 || S_ISREG(st.st_mode)) {
                unlink(w->tmp); /* the replaced file, now under the temporary name */
                return 0;
            }
            /* not ours to replace: back where it was, ours back at the temporary name */
            *changed = st.st_mode;
            if (renameat2(AT_FDCWD, w->tmp, AT_FDCWD, w->target, RENAME_EXCHANGE) != 0) {
                w->tmp_is_theirs = true; /* never removed: the message says where it is */
                return errno;
            }
            return 0;
        }
        int err = errno;
        if (err == ENOENT) { /* no target (yet, or any more): create it, never replace */
            if (renameat2(AT_FDCWD, w->tmp, AT_FDCWD, w->target, RENAME_NOREPLACE) == 0)
                return 0;
            err = errno;
            if (err == EEXIST)
                continue; /* it appeared in between: exchange and examine it */
        }
        if (err != EINVAL && err != ENOSYS && err != ENOTSUP && err != EOPNOTSUPP)
            return err;
        break; /* this file system cannot: examine the name, then rename */
    }
#endif
    if (lstat(w->target, &st) == 0 && !S_ISREG(st.st_mode)) {
        *changed = st.st_mode;
        return 0;
    }
    return rename(w->tmp, w->target) == 0 ? 0 : errno;
}

int latmc_file_commit(struct latmc_file_writer *w)
{
    if (w->fd >= 0) {
        int st = latmc_file_flush(w);
        if (st < 0)
            return st;
    }
    mode_t changed = 0;
    const int err_place = put_in_place(w, &changed);
    if (err_place != 0)
        return writer_failed(w, "rename", err_place);
    if (changed != 0)
        return target_changed(w, changed);
    int status = LATMC_OK, err = sync_directory(w->dir);
    if (err != 0)
        status = latmc_fail(LATMC_EIO, "%s: wrote '%s', but cannot flush its directory %s to "
                            "the disk (fsync): %s; the new file may be lost if the machine "
                            "fails now; %s", w->fn, w->target, w->dir, strerror(err),
                            advice(err));
    writer_free(w);
    return status;
}

void latmc_file_abort(struct latmc_file_writer *w)
{
    if (!w)
        return;
    if (w->fd >= 0)
        close(w->fd);
    unlink(w->tmp);
    writer_free(w);
}

int latmc_file_replace(const char *path, const void *bytes, size_t n, const char *fn)
{
    struct latmc_file_writer *w = NULL;
    int status = latmc_file_begin(path, fn, &w);
    if (status == LATMC_OK && (status = latmc_file_write(w, bytes, n)) == LATMC_OK)
        status = latmc_file_commit(w);
    return status;
}

int latmc_file_open_regular(const char *path, const char *fn, int *fd, uint64_t *size)
{
    *fd = -1;
    /* stat first: opening some devices has effects of its own. O_NONBLOCK: should the
     * path become a FIFO in between, opening it must not wait for a writer. */
    struct stat st;
    if (stat(path, &st) != 0) {
        int err = errno;
        return latmc_fail(LATMC_EIO, "%s: cannot open '%s': %s; %s", fn, path, strerror(err),
                          advice(err));
    }
    int file = S_ISREG(st.st_mode) ? open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC) : -1;
    if (S_ISREG(st.st_mode) && file < 0) {
        int err = errno;
        return latmc_fail(LATMC_EIO, "%s: cannot open '%s': %s; %s", fn, path, strerror(err),
                          advice(err));
    }
    if (file >= 0 && fstat(file, &st) != 0) {
        int err = errno;
        close(file);
        return latmc_fail(LATMC_EIO, "%s: cannot examine '%s': %s; %s", fn, path,
                          strerror(err), advice(err));
    }
    if (!S_ISREG(st.st_mode)) {
        if (file >= 0)
            close(file);
        /* the file the caller meant: an ensemble's for latmc_ens_load, else a sim's */
        const bool ens = strncmp(fn, "latmc_ens_", strlen("latmc_ens_")) == 0;
        return latmc_fail(LATMC_EIO, "%s: will not read '%s': it is %s; %s is a regular file "
                          "(written by %s)", fn, path, file_kind(st.st_mode),
                          ens ? "an ensemble file" : "a checkpoint",
                          ens ? "latmc_ens_save" : "latmc_sim_save");
    }
    *fd = file;
    *size = (uint64_t)st.st_size;
    return LATMC_OK;
}

int latmc_file_read_at(int fd, void *buf, size_t n, uint64_t at, const char *path,
                       const char *fn)
{
    unsigned char *p = buf;
    size_t got = 0;
    while (got < n) {
        ssize_t r = pread(fd, p + got, n - got, (off_t)(at + got));
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            int err = errno;
            return latmc_fail(LATMC_EIO, "%s: cannot read '%s': %s; %s", fn, path,
                              strerror(err), advice(err));
        }
        if (r == 0)
            return latmc_fail(LATMC_ECORRUPT, "%s: '%s' ended after %llu bytes, shorter than "
                              "when it was opened (changed while being read?); load it again",
                              fn, path, (unsigned long long)(at + got));
        got += (size_t)r;
    }
    return LATMC_OK;
}
