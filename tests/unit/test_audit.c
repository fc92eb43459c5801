/* The degenerate-problem audit, on the CPU backend, with problems made to be
 * degenerate and with real ones. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "eval/audit.h"

static kbv_backend *be[KBV_MODE_COUNT];

static int setup(void **state)
{
    (void)state;
    for (int m = 0; m < KBV_MODE_COUNT; m++)
        if (kbv_cpu_backend_create((kbv_mode)m, &be[m]) != KBV_OK)
            return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    for (int m = 0; m < KBV_MODE_COUNT; m++)
        kbv_backend_destroy(be[m]);
    return 0;
}

static void audit(const kbv_problem_def *def, kbv_audit_result *r)
{
    kbv_graph g;
    assert_int_equal(kbv_graph_build(def, KBV_SIZE_SMALL, &g), KBV_OK);
    assert_int_equal(kbv_audit_problem(be, &g, 2, r), KBV_OK);
    assert_int_equal(r->draws, 2 * KBV_DIST_COUNT);
}

/* relu(x): y is an input the output never reads. */
static const kbv_problem_def ignores_y = {
    .level = 9, .id = 1, .name = "ignores_y",
    .dims = {{"B", 8, 8}, {"D", 16, 16}},
    .inputs = {{.name = "x", .dtype = KBV_F32, .shape = {"B", "D"}, .gen = KBV_GEN_RAND},
               {.name = "y", .dtype = KBV_F32, .shape = {"B", "D"}, .gen = KBV_GEN_RAND}},
    .nodes = {{.op = KBV_OP_RELU, .args = {"x"}, .out = "out"}},
};

/* abs(x * 0): zero whatever the input. */
static const kbv_problem_def constant = {
    .level = 9, .id = 2, .name = "constant",
    .dims = {{"B", 8, 8}, {"D", 16, 16}},
    .inputs = {{.name = "x", .dtype = KBV_F32, .shape = {"B", "D"}, .gen = KBV_GEN_RANDN}},
    .nodes = {{.op = KBV_OP_MUL_SCALAR, .args = {"x"}, .out = "t", .f = {0.0}},
              {.op = KBV_OP_ABS, .args = {"t"}, .out = "out"}},
};

/* x * 1e-6: not degenerate, but an all-zero output passes atol 1e-3. */
static const kbv_problem_def tiny = {
    .level = 9, .id = 3, .name = "tiny",
    .dims = {{"B", 8, 8}, {"D", 16, 16}},
    .inputs = {{.name = "x", .dtype = KBV_F32, .shape = {"B", "D"}, .gen = KBV_GEN_RAND}},
    .nodes = {{.op = KBV_OP_MUL_SCALAR, .args = {"x"}, .out = "out", .f = {1e-6}}},
};

static void test_ignored_input_is_found(void **state)
{
    (void)state;
    kbv_audit_result r;
    audit(&ignores_y, &r);
    assert_true(kbv_audit_degenerate(&r));
    assert_false(r.constant);
    assert_int_equal(r.n_ignored, 1);
    assert_string_equal(r.ignored[0], "y");
    assert_true(r.copy_pass);  /* relu on [0,1) is the identity: the paper's weak test */
}

static void test_constant_output_is_found(void **state)
{
    (void)state;
    kbv_audit_result r;
    audit(&constant, &r);
    assert_true(r.constant);
    assert_true(kbv_audit_degenerate(&r));
    assert_true(r.zeros_pass);
}

static void test_tiny_output_is_weak_not_degenerate(void **state)
{
    (void)state;
    kbv_audit_result r;
    audit(&tiny, &r);
    assert_false(kbv_audit_degenerate(&r));
    assert_int_equal(r.n_ignored, 0);
    assert_true(r.zeros_pass);
    assert_false(r.copy_pass);
}

static void test_real_problems(void **state)
{
    (void)state;
    kbv_audit_result r;
    audit(kbv_problem_find("L1/1"), &r);  /* matmul depends on both inputs */
    assert_false(kbv_audit_degenerate(&r));
    assert_false(r.zeros_pass);
    assert_int_equal(r.tf32_fail, 0);
    assert_int_equal(r.tf32_judged, 2 * 5);
    audit(kbv_problem_find("L1/21"), &r);  /* sigmoid is no identity on [0,1) */
    assert_false(kbv_audit_degenerate(&r));
    assert_false(r.copy_pass);
    audit(kbv_problem_find("L1/19"), &r);  /* relu is */
    assert_true(r.copy_pass);
    assert_false(kbv_audit_degenerate(&r));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ignored_input_is_found),
        cmocka_unit_test(test_constant_output_is_found),
        cmocka_unit_test(test_tiny_output_is_weak_not_degenerate),
        cmocka_unit_test(test_real_problems),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
