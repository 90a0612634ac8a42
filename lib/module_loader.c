/*
 * Backend modules are shared objects found, in this order, in
 *   1. each directory of the environment variable LATMC_MODULE_PATH (':'-separated),
 *   2. next to liblatmc itself: <dir of liblatmc>/latmc-<abi>/ and <dir of liblatmc>/,
 *   3. the built-in module directory <libdir>/latmc-<abi> (LATMC_MODULEDIR),
 * loaded with dlopen, and accepted only with the entry symbol, the same module ABI
 * version and a successful init. The first accepted candidate wins; the reasons for every
 * rejected one are kept for the log and for latmc_ctx_backend_status(). Loading happens
 * once per process (pthread_once): a module, like the driver beneath it, is process-wide.
 */
#define _GNU_SOURCE /* dladdr */
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "module_loader.h"

#ifndef LATMC_MODULEDIR
#  define LATMC_MODULEDIR "/usr/local/lib/latmc-1"
#endif
#define MODULE_SUBDIR "latmc-1"

struct module_slot {
    int device;
    const char *file;          /* file name searched for */
    const struct latmc_module *module;
    void *handle;
    char why[2048];            /* what was tried, and why it was rejected */
};

static struct module_slot cuda_slot = { LATMC_DEVICE_CUDA, "latmc-cuda.so", NULL, NULL, "" };
static pthread_once_t cuda_once = PTHREAD_ONCE_INIT;

static void note(struct module_slot *slot, const char *fmt, const char *a, const char *b)
{
    size_t len = strlen(slot->why);
    if (len + 3 >= sizeof slot->why)
        return;
    snprintf(slot->why + len, sizeof slot->why - len, len ? "; " : "");
    len = strlen(slot->why);
    snprintf(slot->why + len, sizeof slot->why - len, fmt, a, b);
}

static const struct latmc_core_services core_services = {
    .size = sizeof(struct latmc_core_services),
    .fail = latmc_fail,
    .log = latmc_log,
};

/* Try one file; true when it became the slot's module. */
static bool try_candidate(struct module_slot *slot, const char *path)
{
    if (access(path, F_OK) != 0)
        return false;
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        note(slot, "%s: cannot load: %s", path, dlerror());
        return false;
    }
    latmc_module_entry_fn entry;
    /* dlsym returns an object pointer; POSIX guarantees it converts to a function pointer. */
    *(void **)(&entry) = dlsym(handle, LATMC_MODULE_ENTRY_SYMBOL);
    const struct latmc_module *m = entry ? entry() : NULL;
    if (!entry) {
        note(slot, "%s: %s", path, "no symbol " LATMC_MODULE_ENTRY_SYMBOL " (not a liblatmc module)");
    } else if (!m || m->size < sizeof *m || m->abi_version != LATMC_MODULE_ABI_VERSION) {
        char got[64];
        snprintf(got, sizeof got, "%u, this liblatmc needs %u", m ? m->abi_version : 0u,
                 LATMC_MODULE_ABI_VERSION);
        note(slot, "%s: module ABI version %s", path, got);
    } else if (m->device_kind != slot->device || !m->ops || !m->init || !m->device_count ||
               !m->device_info || m->ops->size < sizeof(struct latmc_backend_ops)) {
        note(slot, "%s: %s", path, "incomplete module description");
    } else if (m->init(&core_services) != LATMC_OK) {
        note(slot, "%s: unavailable: %s", path, latmc_thread_error());
    } else {
        slot->module = m;
        slot->handle = handle;
        char loaded[PATH_MAX + 32];
        snprintf(loaded, sizeof loaded, "loaded %s", path);
        note(slot, "%s%s", loaded, "");
        return true;
    }
    dlclose(handle);
    return false;
}

static bool try_dir(struct module_slot *slot, const char *dir, size_t dir_len)
{
    char path[PATH_MAX];
    int n = snprintf(path, sizeof path, "%.*s/%s", (int)dir_len, dir, slot->file);
    return n > 0 && (size_t)n < sizeof path && try_candidate(slot, path);
}

static void load_slot(struct module_slot *slot)
{
    const char *env = getenv("LATMC_MODULE_PATH");
    for (const char *p = env; p && *p;) {
        const char *end = strchr(p, ':');
        size_t len = end ? (size_t)(end - p) : strlen(p);
        if (len && try_dir(slot, p, len))
            return;
        p = end ? end + 1 : p + len;
    }
    Dl_info info;
    if (dladdr((void *)&latmc_module_get, &info) && info.dli_fname) {
        const char *slash = strrchr(info.dli_fname, '/');
        if (slash) {
            char dir[PATH_MAX];
            int n = snprintf(dir, sizeof dir, "%.*s/%s", (int)(slash - info.dli_fname),
                             info.dli_fname, MODULE_SUBDIR);
            if (n > 0 && (size_t)n < sizeof dir && try_dir(slot, dir, strlen(dir)))
                return;
            if (try_dir(slot, info.dli_fname, (size_t)(slash - info.dli_fname)))
                return;
        }
    }
    if (try_dir(slot, LATMC_MODULEDIR, strlen(LATMC_MODULEDIR)))
        return;
    if (!slot->why[0])
        snprintf(slot->why, sizeof slot->why, "no %s in LATMC_MODULE_PATH, next to liblatmc "
                 "or in %s", slot->file, LATMC_MODULEDIR);
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
