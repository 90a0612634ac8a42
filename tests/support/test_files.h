/*
 * Whole files in and out for the cmocka tests that edit a saved file's bytes (include
 * after <cmocka.h>): every step asserted, so a test never goes on with a half-read file.
 */
#ifndef LATMC_TEST_FILES_H
#define LATMC_TEST_FILES_H

#include <stdio.h>
#include <stdlib.h>

/* The file at path, *n bytes (the caller frees). */
static inline unsigned char *test_read_file(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    assert_non_null(f);
    assert_int_equal(fseek(f, 0, SEEK_END), 0);
    *n = (size_t)ftell(f);
    rewind(f);
    unsigned char *p = malloc(*n ? *n : 1);
    assert_non_null(p);
    assert_int_equal(fread(p, 1, *n, f), *n);
    fclose(f);
    return p;
}

/* path made (or replaced) with the n bytes at p. */
static inline void test_write_file(const char *path, const unsigned char *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    assert_int_equal(fwrite(p, 1, n, f), n);
    assert_int_equal(fclose(f), 0);
}

#endif
