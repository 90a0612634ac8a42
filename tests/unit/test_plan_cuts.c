/*
 * The plan's cut of an Ising lattice (lib/plan.c latmc_plan_build) for every slab count
 * it accepts: slabs in order that cover the last axis once, each a whole number of the
 * model's 2-plane units from an even plane (box_plane_multiple), at least a halo thick,
 * the thinnest and the thickest at most one unit apart. The CUDA Ising leaves (packed and
 * 1-bit, backends/cuda/ising/) rely on it: a box with halos starting on an odd plane would
 * turn the kernels' colouring, and they refuse one with LATMC_EUNSUPPORTED; boxes on
 * devices (desc.n_devices) and parts of processes (desc.n_parts) are cut by this one rule.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include <latmc/latmc.h>

#include "box.h"
#include "internal.h"
#include "model.h"
#include "plan.h"

static latmc_sim_desc ising_desc(int ndim, int64_t last)
{
    latmc_sim_desc d;
    latmc_sim_desc_init(&d);
    d.model = LATMC_MODEL_ISING;
    d.ndim = ndim;
    d.extent[0] = 64;
    d.extent[1] = ndim == 3 ? 6 : last;
    if (ndim == 3)
        d.extent[2] = last;
    return d;
}

/* Every accepted cut of planes 2..last_max (even: latmc_check_even_extents) into 1..planes
 * slabs, as n_parts and as n_devices; returns the cuts checked. */
static int check_cuts(int ndim, int64_t last_max)
{
    const struct latmc_model_def *m = latmc_model_get(LATMC_MODEL_ISING);
    assert_non_null(m);
    int checked = 0;
    for (int64_t planes = 2; planes <= last_max; planes += 2) {
        for (int k = 1; k <= planes; k++) {
            for (int devices = 0; devices < 2; devices++) {
                latmc_sim_desc d = ising_desc(ndim, planes);
                if (devices && k > 1)
                    d.n_devices = k; /* device_list NULL: the plan only counts them */
                else
                    d.n_parts = k;
                if (latmc_plan_check(&d, m) != LATMC_OK) {
                    /* refused only where a slab would be thinner than one unit */
                    assert_true(k > planes / 2);
                    continue;
                }
                struct latmc_plan plan = { 0, NULL, 0 };
                assert_int_equal(latmc_plan_build(&d, m, &plan), LATMC_OK);
                assert_int_equal(plan.n_boxes, k);
                const int axis = ndim - 1;
                int64_t next = 0, thinnest = planes, thickest = 0;
                for (int i = 0; i < plan.n_boxes; i++) {
                    const struct latmc_box *b = &plan.boxes[i];
                    assert_int_equal(b->axis, axis);
                    assert_int_equal(b->origin[axis], next);
                    assert_int_equal(b->origin[axis] % 2, 0);
                    assert_int_equal(b->extent[axis] % 2, 0);
                    assert_true(b->extent[axis] >= b->halo);
                    assert_true(b->extent[axis] >= 2);
                    for (int mu = 0; mu < axis; mu++)
                        assert_int_equal(b->extent[mu], d.extent[mu]);
                    next += b->extent[axis];
                    thinnest = b->extent[axis] < thinnest ? b->extent[axis] : thinnest;
                    thickest = b->extent[axis] > thickest ? b->extent[axis] : thickest;
                }
                assert_int_equal(next, planes);
                assert_true(thickest - thinnest <= 2);
                latmc_plan_free(&plan);
                checked++;
            }
        }
    }
    return checked;
}

static void ising_cuts_even_2d(void **state)
{
    (void)state;
    assert_true(check_cuts(2, 70) > 1000);
}

static void ising_cuts_even_3d(void **state)
{
    (void)state;
    assert_true(check_cuts(3, 40) > 300);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(ising_cuts_even_2d),
        cmocka_unit_test(ising_cuts_even_3d),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
