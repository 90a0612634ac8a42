/*
 * Temporary files of saves: their names, and the removal of those left by dead writers
 * (temp_files.h). A writer killed between creating its temporary file and renaming it
 * leaves a file as large as the checkpoint; nothing else would ever remove it.
 */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE /* O_DIRECTORY, fstatat, unlinkat, dirfd with _POSIX_C_SOURCE */
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "temp_files.h"

/*
 * 32 bits naming where a pid means this process: the host name, and on Linux the boot's
 * id and the pid namespace (containers on one host may share a file system and a host
 * name, never a pid namespace; two machines may share a host name, and every machine's
 * first pid namespace has the same number, but not a boot id). FNV-1a.
 */
static uint32_t host_tag(void)
{
    char id[512];
    memset(id, 0, sizeof id);
    if (gethostname(id, 255) != 0)
        snprintf(id, 256, "(no host name)");
    id[255] = '\0';
    size_t n = strlen(id) + 1;
    const int boot = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC);
    if (boot >= 0) {
        const ssize_t got = read(boot, id + n, 64);
        if (got > 0)
            n += (size_t)got;
        close(boot);
    }
    const ssize_t ns = readlink("/proc/self/ns/pid", id + n + 1, sizeof id - n - 2);
    const size_t len = n + 1 + (ns > 0 ? (size_t)ns : 0);
    uint32_t h = 2166136261u;
    for (size_t i = 0; i < len; i++) {
        h ^= (unsigned char)id[i];
        h *= 16777619u;
    }
    return h;
}

char *latmc_temp_name(const char *target)
{
    static atomic_uint counter;
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    const unsigned serial = atomic_fetch_add(&counter, 1u);
    const size_t n = strlen(target) + 80;
    char *tmp = malloc(n);
    if (tmp)
        snprintf(tmp, n, "%s.tmp-%ld-%08x-%u-%05lx", target, (long)getpid(), host_tag(),
                 serial, (unsigned long)(now.tv_nsec & 0xfffff));
    return tmp;
}

/* The writer's pid of `name` if it is a temporary name of `base` from this host and pid
 * namespace (exactly the format above), else 0. */
static long writer_of(const char *name, const char *base, uint32_t tag)
{
    const size_t nb = strlen(base);
    if (strncmp(name, base, nb) != 0 || strncmp(name + nb, ".tmp-", 5) != 0)
        return 0;
    const char *p = name + nb + 5;
    long pid = 0;
    unsigned host = 0, serial = 0;
    unsigned long clock_bits = 0;
    if (sscanf(p, "%ld-%8x-%u-%5lx", &pid, &host, &serial, &clock_bits) != 4 || pid <= 0 ||
        host != tag)
        return 0;
    /* exactly the name such a writer makes, so that no other file matches by accident */
    char again[96];
    snprintf(again, sizeof again, "%ld-%08x-%u-%05lx", pid, host, serial, clock_bits);
    if (strcmp(again, p) != 0)
        return 0;
    return pid;
}

void latmc_remove_stale_temps(const char *target, const char *dir)
{
    const char *slash = strrchr(target, '/');
    const char *base = slash ? slash + 1 : target;
    DIR *d = opendir(dir);
    if (!d)
        return;
    const uint32_t tag = host_tag();
    const long self = (long)getpid();
    const int dfd = dirfd(d);
    for (struct dirent *e; (e = readdir(d)) != NULL;) {
        const long pid = writer_of(e->d_name, base, tag);
        if (pid == 0 || pid == self) /* this process's own: another thread may write it */
            continue;
        /* gone: ESRCH only (EPERM means a live process of another user) */
        if ((pid_t)pid != pid || kill((pid_t)pid, 0) == 0 || errno != ESRCH)
            continue;
        struct stat st;
        if (fstatat(dfd, e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode))
            (void)unlinkat(dfd, e->d_name, 0);
    }
    closedir(d);
}
