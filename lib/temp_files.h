/*
 * Internal: the names of a save's temporary files, and the removal of those that writers
 * killed mid-save left behind (doc/checkpoints.md, "Temporary files").
 *
 * A save writes `<target>.tmp-<pid>-<host>-<serial>-<clock>` beside its target: the
 * writer's pid, 8 hex digits naming the host and pid namespace in which that pid means
 * something, a per-process counter and clock bits. The next save to the same target
 * removes the temporaries of writers of this host and pid namespace whose process no
 * longer exists; those of live processes, of other hosts (a shared file system), of
 * other pid namespaces and of other names (older releases) are never touched.
 */
#ifndef LATMC_LIB_TEMP_FILES_H
#define LATMC_LIB_TEMP_FILES_H

/* A fresh temporary name for `target` (malloc'ed; NULL: out of memory). */
char *latmc_temp_name(const char *target);

/* Remove the stale temporaries of `target` in its directory `dir` (best effort: what
 * cannot be examined or removed stays). */
void latmc_remove_stale_temps(const char *target, const char *dir);

#endif
