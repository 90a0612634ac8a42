/*
 * Backend modules are shared objects found, in this order, in
 *   1. each directory of the environment variable LATMC_MODULE_PATH (':'-separated),
 *   2. next to liblatmc itself: <dir of liblatmc>/latmc-<abi>/ and <dir of liblatmc>/
 *      (in the build tree, meson links a copy of the module next to liblatmc, so the
 *      build tree finds its own module without any setting and without a build path
 *      compiled into the library),
 *   3. the built-in module directory <libdir>/latmc-<abi> (LATMC_MODULEDIR);
 * LATMC_MODULE_SYSTEM_PATH, when set (even to ""), replaces 2 and 3 by its own directories,
 * loaded with dlopen, and accepted only with the entry symbol, the same module ABI
 * version and a successful init. The first accepted candidate wins; every rejected one is
 * reported once (a file reached twice, e.g. through <dir of liblatmc>/latmc-1 and the
 * built-in directory of an installed library, is tried once) with its path and the reason:
 * dlerror's text, both ABI numbers, or the module's own message. When nothing is found the
 * message lists the directories searched and says what to set. Loading happens once per
 * process (pthread_once): a module, like the driver beneath it, is process-wide.
 */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <latmc/version.h>

#include "module_loader.h"

#ifndef LATMC_MODULEDIR
#  define LATMC_MODULEDIR "/usr/local/lib/latmc-1"
#endif
#define MODULE_SUBDIR "latmc-1"
#define MAX_TRIED 16

struct module_slot {
    int device;
    const char *file;          /* file name searched for */
    const struct latmc_module *module;
    void *handle;
    char why[4096];            /* what was tried, and why it was rejected */
    char searched[2048];       /* the directories searched, for the "not found" message */
    char tried[MAX_TRIED][PATH_MAX]; /* canonical paths of the files tried */
    int n_tried;
    bool found_any;            /* some candidate file existed */
    bool file_problem;         /* some candidate could not be used as a module file */
};

static struct module_slot cuda_slot = { .device = LATMC_DEVICE_CUDA, .file = "latmc-cuda.so" };
static pthread_once_t cuda_once = PTHREAD_ONCE_INIT;

/* Append to a "; "-separated list in buf (silently truncated when full: the list is a
 * diagnosis, and its first entries are the ones that matter). */
static void append(char *buf, size_t size, const char *sep, const char *fmt, ...)
    LATMC_PRINTF(4, 5);
static void append(char *buf, size_t size, const char *sep, const char *fmt, ...)
{
    size_t len = strlen(buf);
    if (len + 4 >= size)
        return;
    if (len)
        len += (size_t)snprintf(buf + len, size - len, "%s", sep);
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf + len, size - len, fmt, ap);
    va_end(ap);
}

#define NOTE(slot, ...) append((slot)->why, sizeof (slot)->why, "; ", __VA_ARGS__)

static const struct latmc_core_services core_services = {
    .size = sizeof(struct latmc_core_services),
    .fail = latmc_fail,
    .log = latmc_log,
    .draw_couplings = latmc_cpu_draw_couplings,
};

/* The first missing part of a module description, or NULL when it is complete. */
static const char *missing_part(const struct latmc_module *m)
{
    if (!m->ops)
        return "no backend ops";
    if (!m->init)
        return "no init";
    if (!m->device_count)
        return "no device_count";
    if (!m->device_info)
        return "no device_info";
    if (m->ops->size < sizeof(struct latmc_backend_ops))
        return "backend ops struct smaller than this liblatmc's";
    return NULL;
}

/* Run the module's init; true when it succeeded. Its message, or a word that it gave
 * none, goes into the slot's list. */
static bool init_module(struct module_slot *slot, const char *path,
                        const struct latmc_module *m)
{
    char before[LATMC_ERRMSG_SIZE];
    snprintf(before, sizeof before, "%s", latmc_thread_error());
    int st = m->init(&core_services);
    if (st == LATMC_OK)
        return true;
    const char *msg = latmc_thread_error();
    const char *reason = strcmp(msg, before) != 0 && msg[0] ? msg : "(the module gave no reason)";
    if (st == LATMC_EBACKEND)
        NOTE(slot, "%s: unavailable: %s", path, reason);
    else if (strcmp(latmc_strerror(st), "unknown status") == 0 || st > 0)
        NOTE(slot, "%s: init returned %d, not a liblatmc status code: %s", path, st, reason);
    else
        NOTE(slot, "%s: unavailable (%s): %s", path, latmc_strerror(st), reason);
    return false;
}

/* Check a loaded file and make it the slot's module; false (the reason noted) otherwise. */
static bool accept_module(struct module_slot *slot, const char *path, void *handle)
{
    latmc_module_entry_fn entry;
    /* dlsym returns an object pointer; POSIX guarantees it converts to a function pointer. */
    *(void **)(&entry) = dlsym(handle, LATMC_MODULE_ENTRY_SYMBOL);
    if (!entry) {
        slot->file_problem = true;
        NOTE(slot, "%s: no symbol " LATMC_MODULE_ENTRY_SYMBOL " (not a liblatmc module)", path);
        return false;
    }
    const struct latmc_module *m = entry();
    const char *missing = NULL;
    if (!m) {
        slot->file_problem = true;
        NOTE(slot, "%s: " LATMC_MODULE_ENTRY_SYMBOL "() returned no module description", path);
    } else if (m->abi_version != LATMC_MODULE_ABI_VERSION) {
        slot->file_problem = true;
        NOTE(slot, "%s: module ABI version %u, this liblatmc %s needs module ABI version %u "
             "(a module built from another liblatmc version)", path, m->abi_version,
             LATMC_VERSION_STRING, LATMC_MODULE_ABI_VERSION);
    } else if (m->size < sizeof *m) {
        slot->file_problem = true;
        NOTE(slot, "%s: module description of %u bytes, this liblatmc needs %zu", path,
             m->size, sizeof *m);
    } else if (m->device_kind != slot->device) {
        slot->file_problem = true;
        NOTE(slot, "%s: a module for device kind %d, not %d", path, m->device_kind,
             slot->device);
    } else if ((missing = missing_part(m)) != NULL) {
        slot->file_problem = true;
        NOTE(slot, "%s: incomplete module description (%s)", path, missing);
    } else if (init_module(slot, path, m)) {
        slot->module = m;
        slot->handle = handle;
        NOTE(slot, "loaded %s", path);
        return true;
    }
    return false;
}

/* Try one file; true when it became the slot's module. A file already tried under
 * another name (the same canonical path) is skipped. */
static bool try_candidate(struct module_slot *slot, const char *path)
{
    if (access(path, F_OK) != 0)
        return false;
    slot->found_any = true;
    char canon[PATH_MAX];
    if (!realpath(path, canon))
        snprintf(canon, sizeof canon, "%s", path);
    for (int i = 0; i < slot->n_tried; i++)
        if (strcmp(slot->tried[i], canon) == 0)
            return false;
    if (slot->n_tried < MAX_TRIED)
        snprintf(slot->tried[slot->n_tried++], PATH_MAX, "%s", canon);
    dlerror(); /* clear a stale message */
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char *err = dlerror();
        slot->file_problem = true;
        NOTE(slot, "%s: cannot load: %s", path, err ? err : "dlopen failed");
        return false;
    }
    if (accept_module(slot, path, handle))
        return true;
    dlclose(handle);
    return false;
}

static bool try_dir(struct module_slot *slot, const char *dir, size_t dir_len)
{
    append(slot->searched, sizeof slot->searched, ", ", "%.*s", (int)dir_len, dir);
    char path[PATH_MAX];
    int n = snprintf(path, sizeof path, "%.*s/%s", (int)dir_len, dir, slot->file);
    return n > 0 && (size_t)n < sizeof path && try_candidate(slot, path);
}

/* Try each directory of a ':'-separated list; true when one gave the slot its module. */
static bool try_list(struct module_slot *slot, const char *list)
{
    for (const char *p = list; p && *p;) {
        const char *end = strchr(p, ':');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len && try_dir(slot, p, len))
            return true;
        p = end ? end + 1 : p + len;
    }
    return false;
}

static bool search(struct module_slot *slot)
{
    if (try_list(slot, getenv("LATMC_MODULE_PATH")))
        return true;
    /* LATMC_MODULE_SYSTEM_PATH, when set (also to ""), replaces the default directories:
     * a test, or a user ruling out an installed module, searches only what it names. */
    const char *system_path = getenv("LATMC_MODULE_SYSTEM_PATH");
    if (system_path)
        return try_list(slot, system_path);
    Dl_info info;
    if (dladdr((void *)&latmc_module_get, &info) && info.dli_fname) {
        /* liblatmc's own directory, canonical (the messages name real directories, not
         * the "$ORIGIN/../.." a program's RUNPATH reached it through) */
        char lib[PATH_MAX];
        if (!realpath(info.dli_fname, lib))
            snprintf(lib, sizeof lib, "%s", info.dli_fname);
        const char *slash = strrchr(lib, '/');
        if (slash) {
            char dir[PATH_MAX];
            int n = snprintf(dir, sizeof dir, "%.*s/%s", (int)(slash - lib), lib, MODULE_SUBDIR);
            if (n > 0 && (size_t)n < sizeof dir && try_dir(slot, dir, strlen(dir)))
                return true;
            if (try_dir(slot, lib, (size_t)(slash - lib)))
                return true;
        }
    }
    return try_dir(slot, LATMC_MODULEDIR, strlen(LATMC_MODULEDIR));
}

static void load_slot(struct module_slot *slot)
{
    if (search(slot))
        return;
    const char *env = getenv("LATMC_MODULE_PATH");
    if (!slot->found_any) {
        snprintf(slot->why, sizeof slot->why, "no %s found (searched: %s; LATMC_MODULE_PATH "
                 "%s); set LATMC_MODULE_PATH to the directory that holds %s", slot->file,
                 slot->searched[0] ? slot->searched : "no directory",
                 env && env[0] ? "is set" : "is not set", slot->file);
    } else if (slot->file_problem) {
        NOTE(slot, "set LATMC_MODULE_PATH to the directory of a %s built with this liblatmc "
             "(%s)", slot->file, LATMC_VERSION_STRING);
    }
}

static void load_cuda(void)
{
    load_slot(&cuda_slot);
}

const struct latmc_module *latmc_module_get(int device, const char **why)
{
    if (device != LATMC_DEVICE_CUDA) {
        *why = "no module serves this device kind";
        return NULL;
    }
    pthread_once(&cuda_once, load_cuda);
    *why = cuda_slot.why;
    return cuda_slot.module;
}
