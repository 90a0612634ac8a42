/*
 * Internal: bounds-checked little-endian writing and reading of the checkpoint format.
 * The writer counts bytes past its capacity, so one pass with no buffer measures the size.
 */
#ifndef LATMC_LIB_CHECKPOINT_IO_H
#define LATMC_LIB_CHECKPOINT_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct ckpt_writer {
    unsigned char *buf;   /* may be NULL: only count */
    size_t cap, len;
};

static inline void ckpt_put_bytes(struct ckpt_writer *w, const void *p, size_t n)
{
    if (w->buf && w->len <= w->cap && n <= w->cap - w->len)
        memcpy(w->buf + w->len, p, n);
    w->len += n;
}

static inline void ckpt_put_u64(struct ckpt_writer *w, uint64_t v)
{
    unsigned char b[8];
    for (int i = 0; i < 8; i++)
        b[i] = (unsigned char)(v >> (8 * i));
    ckpt_put_bytes(w, b, 8);
}

static inline void ckpt_put_u32(struct ckpt_writer *w, uint32_t v)
{
    unsigned char b[4];
    for (int i = 0; i < 4; i++)
        b[i] = (unsigned char)(v >> (8 * i));
    ckpt_put_bytes(w, b, 4);
}

static inline void ckpt_put_f64(struct ckpt_writer *w, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    ckpt_put_u64(w, bits);
}

struct ckpt_reader {
    const unsigned char *buf;
    size_t len, pos;
    bool truncated;       /* a read went past the end: every later read yields 0 */
};

static inline void ckpt_get_bytes(struct ckpt_reader *r, void *p, size_t n)
{
    if (r->truncated || n > r->len - r->pos) {
        r->truncated = true;
        memset(p, 0, n);
        return;
    }
    memcpy(p, r->buf + r->pos, n);
    r->pos += n;
}

static inline uint64_t ckpt_get_u64(struct ckpt_reader *r)
{
    unsigned char b[8];
    ckpt_get_bytes(r, b, 8);
    uint64_t v = 0;
    for (int i = 7; i >= 0; i--)
        v = (v << 8) | b[i];
    return v;
}

static inline uint32_t ckpt_get_u32(struct ckpt_reader *r)
{
    unsigned char b[4];
    ckpt_get_bytes(r, b, 4);
    return (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
}

static inline double ckpt_get_f64(struct ckpt_reader *r)
{
    uint64_t bits = ckpt_get_u64(r);
    double v;
    memcpy(&v, &bits, sizeof v);
    return v;
}

/* FNV-1a, 64 bit: detects truncation and bit flips (not an authenticity check). */
static inline uint64_t ckpt_checksum(const unsigned char *p, size_t n)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (size_t i = 0; i < n; i++) {
        h ^= p[i];
        h *= UINT64_C(0x100000001b3);
    }
    return h;
}

#endif
