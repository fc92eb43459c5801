/* Swin V2's computed buffers (graph/problem.h's KBV_INIT_SWIN_*, computed by
 * dist.h's kbv_swin_buffer_value): elements against the module's own, read
 * off PyTorch 1.13 (WindowAttention(96, (7, 7), 3) and
 * SwinTransformerBlock(96, (14, 14), 3, 7, 3)); the parity test compares
 * every element of every buffer of L3/30. And the graph refuses buffers of
 * shapes the module cannot make. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dist/dist.h"
#include "graph/graph.h"
#include "graph/problem_builder.h"

static double coords(int64_t h, int64_t w, int c)
{
    return kbv_swin_buffer_value(KBV_PARAM_SWIN_COORDS_TABLE, KBV_SWIN_GEOMETRY(0, 7), 0.0,
                                 (uint64_t)((h * 13 + w) * 2 + c));
}

static double position(int64_t p, int64_t q)
{
    return kbv_swin_buffer_value(KBV_PARAM_SWIN_POSITION_INDEX, KBV_SWIN_GEOMETRY(0, 7), 0.0,
                                 (uint64_t)(p * 49 + q));
}

static double mask(int64_t k, int64_t p, int64_t q)
{
    return kbv_swin_buffer_value(KBV_PARAM_SWIN_ATTN_MASK, KBV_SWIN_GEOMETRY(14, 7), 3.0,
                                 (uint64_t)((k * 49 + p) * 49 + q));
}

static void test_values_are_the_modules(void **state)
{
    (void)state;
    assert_true(coords(0, 0, 0) == -1.056641697883606);
    assert_true(coords(0, 0, 1) == -1.056641697883606);
    assert_true(coords(5, 7, 0) == -0.4074641764163971);
    assert_true(coords(5, 7, 1) == 0.4074641764163971);
    assert_true(coords(6, 6, 0) == 0.0);
    assert_true(position(0, 0) == 84 && position(0, 48) == 0 && position(48, 0) == 168 &&
                position(10, 17) == 71);
    for (int64_t p = 0; p < 49; p++)
        for (int64_t q = 0; q < 49; q++)
            assert_true(mask(0, p, q) == 0.0); /* the top-left window is one region */
    assert_true(mask(3, 0, 48) == -100.0 && mask(3, 0, 1) == 0.0);
    assert_true(mask(1, 0, 4) == -100.0 && mask(1, 0, 5) == -100.0);
}

static const char *shape_of_case;

static kbv_status build_with_buffer(kbv_builder *b)
{
    kbv_b_problem(b, 3, 999, "999_SwinBuffer", "test");
    kbv_b_dim(b, "n", 2, 2);
    kbv_b_input(b, "x", KBV_GEN_RAND, "n");
    kbv_b_param(b, "attn_mask", KBV_INIT_SWIN_ATTN_MASK, shape_of_case, true);
    kbv_b_param_value(b, 3.0);
    kbv_b_op1(b, KBV_OP_RELU, NULL, (kbv_b_attrs){0}, "x");
    return kbv_b_status(b);
}

static void test_graph_checks_shapes(void **state)
{
    (void)state;
    static const char *const good = "4,49,49";
    static const char *const bad[] = {"4,48,48", "3,49,49", "4,49", "4,49,36"};
    kbv_graph g;
    const kbv_problem *p = NULL;
    shape_of_case = good;
    assert_int_equal(kbv_builder_run(build_with_buffer, &p), KBV_OK);
    memset(&g, 0, sizeof g);
    assert_int_equal(kbv_graph_build(p, KBV_SIZE_FULL, &g), KBV_OK);
    assert_true(g.values[g.n_inputs].fan_in == KBV_SWIN_GEOMETRY(14, 7));
    kbv_graph_free(&g);
    kbv_built_problem_free(p);
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        shape_of_case = bad[k];
        assert_int_equal(kbv_builder_run(build_with_buffer, &p), KBV_OK);
        memset(&g, 0, sizeof g);
        if (kbv_graph_build(p, KBV_SIZE_FULL, &g) == KBV_OK)
            fail_msg("a mask of shape %s was accepted", bad[k]);
        kbv_graph_free(&g);
        kbv_built_problem_free(p);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_values_are_the_modules),
        cmocka_unit_test(test_graph_checks_shapes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
