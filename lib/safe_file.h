/*
 * Internal: writing and reading whole files safely (doc/checkpoints.md, "Safety").
 *
 * Writing replaces a file atomically and durably: a symlink is followed to the file it
 * names (the link stays a link), anything but a regular file (or a name that does not
 * exist yet) is refused, the bytes go to a temporary file of a unique name in the target's
 * directory, which is flushed (fsync), renamed over the target, and the directory is
 * flushed too. Readers therefore always see a complete old or new file, and concurrent
 * writers never share a temporary file: the last rename wins.
 *
 * Reading opens without blocking (a FIFO never hangs the caller) and refuses anything but
 * a regular file.
 *
 * Failures are recorded with latmc_fail(LATMC_EIO, ...) in messages that name the
 * caller's function, the operation, the path, the system's reason and what to do.
 */
#ifndef LATMC_LIB_SAFE_FILE_H
#define LATMC_LIB_SAFE_FILE_H

#include <stddef.h>
#include <stdint.h>

/* Replace the regular file `path` (or create it) with n bytes. `fn` names the public
 * function in messages. LATMC_OK, LATMC_EIO or LATMC_ENOMEM. */
int latmc_file_replace(const char *path, const void *bytes, size_t n, const char *fn);

/*
 * The same replacement written piece by piece (a checkpoint streamed from the parts of a
 * shared lattice): begin creates the temporary file, write appends, commit flushes,
 * renames and flushes the directory, abort removes the temporary file. A failed write or
 * commit has removed the temporary file and freed the writer (the target is unchanged);
 * commit and abort always free it. LATMC_OK, LATMC_EIO or LATMC_ENOMEM.
 */
struct latmc_file_writer;
int latmc_file_begin(const char *path, const char *fn, struct latmc_file_writer **out);
int latmc_file_write(struct latmc_file_writer *w, const void *bytes, size_t n);
/* fsync and close (commit does it too): a failure here frees the writer as above. */
int latmc_file_flush(struct latmc_file_writer *w);
int latmc_file_commit(struct latmc_file_writer *w);
void latmc_file_abort(struct latmc_file_writer *w);

/* Open the regular file `path` for reading: *fd and its *size. LATMC_OK or LATMC_EIO
 * (missing, unreadable, or not a regular file: FIFO, device, directory, socket). */
int latmc_file_open_regular(const char *path, const char *fn, int *fd, uint64_t *size);

/* Read exactly n bytes at offset `at` of an open file; LATMC_OK, LATMC_EIO (read error) or
 * LATMC_ECORRUPT (the file ended early: it shrank while being read). */
int latmc_file_read_at(int fd, void *buf, size_t n, uint64_t at, const char *path,
                       const char *fn);

#endif
