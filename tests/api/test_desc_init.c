/*
 * latmc_sim_desc_init and latmc_sim_desc_init_size write no byte past the caller's desc:
 * a program built against the 0.1 header passes a struct that ends after `seed`, one
 * built against the header with n_parts one that ends there; each must get its own
 * size's defaults and a desc that latmc_sim_create accepts.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <latmc/latmc.h>

/* The sizes of the older descs (doc/ABI.md): the 0.1 one ends after seed, the next after
 * n_parts with the padding to the struct's alignment. */
#define SIZE_V1 offsetof(latmc_sim_desc, n_parts)
#define SIZE_V2                                                                             \
    ((offsetof(latmc_sim_desc, n_parts) + sizeof(int) + _Alignof(latmc_sim_desc) - 1) /     \
     _Alignof(latmc_sim_desc) * _Alignof(latmc_sim_desc))

enum { CANARY = 0xA5, PAD = 64 };

/* A caller's desc of `size` bytes, followed by PAD canary bytes. */
union buffer {
    latmc_sim_desc desc;
    unsigned char bytes[sizeof(latmc_sim_desc) + 2 * PAD];
};

static void fill(union buffer *b, unsigned char with)
{
    memset(b->bytes, with, sizeof b->bytes);
}

static void assert_untouched_from(const union buffer *b, size_t from)
{
    for (size_t i = from; i < sizeof b->bytes; i++)
        if (b->bytes[i] != CANARY)
            fail_msg("byte %zu past the caller's %zu-byte desc was written", i - from, from);
}

/* The prefix of `size` bytes holds the defaults of the current desc. */
static void assert_defaults(const latmc_sim_desc *d, size_t size)
{
    assert_int_equal(d->struct_size, size);
    assert_int_equal(d->model, LATMC_MODEL_NONE);
    assert_int_equal(d->ndim, 2);
    assert_int_equal(d->q, 2);
    assert_int_equal(d->replicas, 1);
    assert_int_equal(d->device, LATMC_DEVICE_AUTO);
    assert_int_equal(d->seed, 0);
    if (size > offsetof(latmc_sim_desc, n_parts))
        assert_int_equal(d->n_parts, 0);
}

/* A desc from an initialiser is accepted by create once model and extents are set. */
static void assert_creates(latmc_sim_desc *d)
{
    latmc_ctx *ctx = NULL;
    assert_int_equal(latmc_ctx_create(&ctx), LATMC_OK);
    d->model = LATMC_MODEL_ISING;
    d->extent[0] = d->extent[1] = 8;
    d->device = LATMC_DEVICE_CPU;
    latmc_sim *sim = NULL;
    int st = latmc_sim_create(ctx, d, &sim);
    if (st != LATMC_OK)
        fail_msg("create: %s", latmc_last_error());
    latmc_sim_desc back;
    latmc_sim_desc_init(&back);
    assert_int_equal(latmc_sim_get_desc(sim, &back), LATMC_OK);
    assert_int_equal(back.n_parts, 0);
    assert_int_equal(back.n_devices, 0);
    assert_null(back.device_list);
    latmc_sim_destroy(&sim);
    latmc_ctx_destroy(&ctx);
}

/* The 0.1 function, called as a function (a 0.1 program's call): the 0.1 prefix only. */
static void function_writes_the_01_desc(void **state)
{
    (void)state;
    union buffer b;
    fill(&b, CANARY);
    (latmc_sim_desc_init)(&b.desc);
    assert_untouched_from(&b, SIZE_V1);
    assert_defaults(&b.desc, SIZE_V1);
    assert_creates(&b.desc);
    (latmc_sim_desc_init)(NULL); /* accepted, nothing happens */
}

/* Every known size: its prefix written, nothing past it. */
static void sized_init_known_sizes(void **state)
{
    (void)state;
    const size_t sizes[] = { SIZE_V1, SIZE_V2, sizeof(latmc_sim_desc) };
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        union buffer b;
        fill(&b, CANARY);
        assert_int_equal(latmc_sim_desc_init_size(&b.desc, sizes[i]), LATMC_OK);
        assert_untouched_from(&b, sizes[i]);
        assert_defaults(&b.desc, sizes[i]);
        assert_creates(&b.desc);
    }
}

/* The macro fills this header's whole desc. */
static void macro_fills_the_whole_desc(void **state)
{
    (void)state;
    union buffer b;
    fill(&b, CANARY);
    latmc_sim_desc_init(&b.desc);
    assert_untouched_from(&b, sizeof(latmc_sim_desc));
    assert_defaults(&b.desc, sizeof(latmc_sim_desc));
    assert_int_equal(b.desc.n_devices, 0);
    assert_null(b.desc.device_list);
}

/* A newer header's larger desc: the unknown tail is zeroed, and create accepts it. */
static void sized_init_newer_header(void **state)
{
    (void)state;
    union buffer b;
    fill(&b, CANARY);
    const size_t size = sizeof(latmc_sim_desc) + PAD;
    assert_int_equal(latmc_sim_desc_init_size(&b.desc, size), LATMC_OK);
    for (size_t i = sizeof(latmc_sim_desc); i < size; i++)
        assert_int_equal(b.bytes[i], 0);
    assert_untouched_from(&b, size);
    assert_defaults(&b.desc, size);
    assert_creates(&b.desc);
}

/* Sizes of no version and NULL: LATMC_EINVAL, with a message, and nothing written. */
static void sized_init_bad_sizes(void **state)
{
    (void)state;
    const size_t bad[] = { 0, 4, SIZE_V1 - 8, SIZE_V1 + 4, sizeof(latmc_sim_desc) - 4, 4097 };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (bad[i] == SIZE_V2)
            continue;
        union buffer b;
        fill(&b, CANARY);
        assert_int_equal(latmc_sim_desc_init_size(&b.desc, bad[i]), LATMC_EINVAL);
        assert_non_null(strstr(latmc_last_error(), "size"));
        assert_untouched_from(&b, 0);
    }
    assert_int_equal(latmc_sim_desc_init_size(NULL, sizeof(latmc_sim_desc)), LATMC_EINVAL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(function_writes_the_01_desc),
        cmocka_unit_test(sized_init_known_sizes),
        cmocka_unit_test(macro_fills_the_whole_desc),
        cmocka_unit_test(sized_init_newer_header),
        cmocka_unit_test(sized_init_bad_sizes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
