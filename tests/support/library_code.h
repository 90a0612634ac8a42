/*
 * Where liblatmc's code lies in this process: the executable segments of the loaded
 * liblatmc.so, so that an allocation interposer in a test can tell the library's calls
 * (by their return address) from the test's, cmocka's and the C library's. Header-only:
 * each test that interposes malloc has one copy. Call library_code_find() once the library
 * is loaded (in main); library_code_count() is 0 until then (or where it is not found).
 */
#ifndef LATMC_TEST_LIBRARY_CODE_H
#define LATMC_TEST_LIBRARY_CODE_H

#include <link.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

static uintptr_t library_code_lo[4], library_code_hi[4];
static int library_code_ranges;

static int library_code_segments(struct dl_phdr_info *info, size_t size, void *data)
{
    (void)size;
    (void)data;
    if (!info->dlpi_name || !strstr(info->dlpi_name, "liblatmc.so"))
        return 0;
    for (int i = 0; i < info->dlpi_phnum && library_code_ranges < 4; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_X)) {
            library_code_lo[library_code_ranges] = info->dlpi_addr + ph->p_vaddr;
            library_code_hi[library_code_ranges] =
                library_code_lo[library_code_ranges] + ph->p_memsz;
            library_code_ranges++;
        }
    }
    return 1;
}

/* The number of segments found (0: liblatmc.so is not loaded). */
static inline int library_code_find(void)
{
    dl_iterate_phdr(library_code_segments, NULL);
    return library_code_ranges;
}

static inline int library_code_count(void)
{
    return library_code_ranges;
}

/* Whether the code address ret lies in liblatmc. */
static inline bool library_code_has(const void *ret)
{
    for (int i = 0; i < library_code_ranges; i++)
        if ((uintptr_t)ret >= library_code_lo[i] && (uintptr_t)ret < library_code_hi[i])
            return true;
    return false;
}

#endif
