/*
 * latmc_model_name / latmc_model_by_name: the documented names (include/latmc/sim.h, written
 * here from the header, not read from the library), numbering without gaps, and every bad
 * input refused with LATMC_EINVAL, the output unchanged and a message that says why.
 * A model added later needs no change here (its name is checked by the rules every name
 * keeps).
 * Public API only, through the shared library.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <limits.h>
#include <string.h>

#include <latmc/latmc.h>

static const struct {
    const char *name;
    int model;
} documented[] = {
    { "ising", LATMC_MODEL_ISING },
    { "potts", LATMC_MODEL_POTTS },
    { "phi4", LATMC_MODEL_PHI4 },
    { "heisenberg", LATMC_MODEL_HEISENBERG },
};
enum { n_documented = sizeof documented / sizeof documented[0] };

static void names_both_ways(void **state)
{
    (void)state;
    for (int i = 0; i < n_documented; i++) {
        assert_non_null(latmc_model_name(documented[i].model));
        assert_string_equal(latmc_model_name(documented[i].model), documented[i].name);
        int model = -7;
        assert_int_equal(latmc_model_by_name(documented[i].name, &model), LATMC_OK);
        assert_int_equal(model, documented[i].model);
    }
}

/* The number of models: 1, 2, ... until NULL. */
static int model_count(void)
{
    int count = 0;
    while (latmc_model_name(count + 1) != NULL)
        count++;
    return count;
}

/* 1, 2, ... until NULL lists every model once: the documented ones among them (a later
 * model may follow them), no gap before the end, nothing after it, each name lower-case
 * letters and digits (what latmc's --model and the docs check take) and found again by
 * latmc_model_by_name. */
static void numbering_without_gaps(void **state)
{
    (void)state;
    const int count = model_count();
    assert_true(count >= n_documented);
    for (int i = 0; i < n_documented; i++)
        assert_true(documented[i].model >= 1 && documented[i].model <= count);
    for (int m = count + 1; m <= count + 256; m++)
        assert_null(latmc_model_name(m));
    for (int a = 1; a <= count; a++) {
        const char *name = latmc_model_name(a);
        assert_true(name[0] != '\0' && strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789") ==
                                           strlen(name));
        int model = -7;
        assert_int_equal(latmc_model_by_name(name, &model), LATMC_OK);
        assert_int_equal(model, a);
        for (int b = a + 1; b <= count; b++)
            assert_true(strcmp(name, latmc_model_name(b)) != 0);
    }
}

static void unknown_numbers(void **state)
{
    (void)state;
    const int bad[] = { LATMC_MODEL_NONE, -1, INT_MIN, INT_MAX, model_count() + 1 };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        assert_null(latmc_model_name(bad[i]));
}

static void bad_names(void **state)
{
    (void)state;
    const char *bad[] = { "", "Ising", "ISING", "phi^4", "ising ", " potts", "heis", "none",
                          "isingpotts" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        int model = 42;
        assert_int_equal(latmc_model_by_name(bad[i], &model), LATMC_EINVAL);
        assert_int_equal(model, 42);
        const char *msg = latmc_last_error();
        assert_non_null(strstr(msg, "unknown model name"));
        for (int m = 1; m <= model_count(); m++) /* the message lists every valid name */
            assert_non_null(strstr(msg, latmc_model_name(m)));
    }
}

static void null_arguments(void **state)
{
    (void)state;
    int model = 42;
    assert_int_equal(latmc_model_by_name(NULL, &model), LATMC_EINVAL);
    assert_int_equal(model, 42);
    assert_non_null(strstr(latmc_last_error(), "name is NULL"));
    assert_int_equal(latmc_model_by_name("ising", NULL), LATMC_EINVAL);
    assert_non_null(strstr(latmc_last_error(), "model is NULL"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(names_both_ways),
        cmocka_unit_test(numbering_without_gaps),
        cmocka_unit_test(unknown_numbers),
        cmocka_unit_test(bad_names),
        cmocka_unit_test(null_arguments),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
