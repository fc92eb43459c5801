/* The problem audit, on the CPU backend, with problems made to be degenerate
 * and with real ones; and the tf32 baseline against both gates, honest and
 * with its outputs perturbed. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "support/test_problem.h"
#include "graph/problem_def.h"
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

static void audit_seeds(const kbv_problem *def, int seeds, kbv_audit_result *r)
{
    kbv_graph g = {0};
    assert_non_null(def);
    assert_int_equal(kbv_graph_build(def, KBV_SIZE_SMALL, &g), KBV_OK);
    assert_int_equal(kbv_audit_problem(be, &g, seeds, r), KBV_OK);
    assert_int_equal(r->draws, seeds * KBV_DIST_COUNT);
    kbv_graph_free(&g);
}

static void audit(const kbv_problem *def, kbv_audit_result *r) { audit_seeds(def, 2, r); }

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

/* (x + 1000) - x: 1000 whatever the input, but only up to float64 rounding
 * (its last bits move with x), as L2/23's mean of a group norm is 0. */
static const kbv_problem_def rounding_constant = {
    .level = 9, .id = 4, .name = "rounding_constant",
    .dims = {{"B", 8, 8}, {"D", 16, 16}},
    .inputs = {{.name = "x", .dtype = KBV_F32, .shape = {"B", "D"}, .gen = KBV_GEN_RANDN}},
    .nodes = {{.op = KBV_OP_ADD_SCALAR, .args = {"x"}, .out = "t", .f = {1000.0}},
              {.op = KBV_OP_SUB, .args = {"t", "x"}, .out = "out"}},
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
    audit(kbv_test_problem(&ignores_y), &r);
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
    audit(kbv_test_problem(&constant), &r);
    assert_true(r.constant);
    assert_true(kbv_audit_degenerate(&r));
    assert_true(r.zeros_pass);
}

static void test_constant_up_to_rounding_is_found(void **state)
{
    (void)state;
    kbv_audit_result r;
    audit(kbv_test_problem(&rounding_constant), &r);
    assert_true(r.constant);
    assert_true(kbv_audit_degenerate(&r));
    assert_int_equal(r.n_ignored, 1);   /* and x, its one input, is ignored */
    assert_false(r.zeros_pass);
}

static void test_tiny_output_is_weak_not_degenerate(void **state)
{
    (void)state;
    kbv_audit_result r;
    audit(kbv_test_problem(&tiny), &r);
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
    assert_int_equal(r.tf32_standard.failed, 0);
    assert_int_equal(r.tf32_standard.judged, 2 * 5);
    assert_int_equal(r.tf32_strict.failed, 0);
    assert_int_equal(r.tf32_strict.judged, 2 * KBV_DIST_COUNT);
    audit(kbv_problem_find("L1/21"), &r);  /* sigmoid is no identity on [0,1) */
    assert_false(kbv_audit_degenerate(&r));
    assert_false(r.copy_pass);
    audit(kbv_problem_find("L1/19"), &r);  /* relu is */
    assert_true(r.copy_pass);
    assert_false(kbv_audit_degenerate(&r));
}

/* On the CPU tf32 is float32, so the baseline passes both gates: the
 * standard gate judges (or skips, on a non-finite reference) the base and
 * D1-D4 draws, the strict gate every draw. */
static void test_tf32_gates_are_counted(void **state)
{
    (void)state;
    const char *keys[] = {"L1/1", "L1/19", "L1/23", "L1/97"};
    for (size_t p = 0; p < sizeof keys / sizeof keys[0]; p++) {
        kbv_audit_result r;
        audit_seeds(kbv_problem_find(keys[p]), 1, &r);
        assert_int_equal(r.tf32_standard.judged + r.tf32_standard.skipped, 5);
        assert_int_equal(r.tf32_strict.judged, KBV_DIST_COUNT);
        assert_int_equal(r.tf32_strict.skipped, 0);
        assert_int_equal(r.tf32_standard.failed, 0);
        assert_int_equal(r.tf32_strict.failed, 0);
        assert_string_equal(r.tf32_standard.first_failure, "");
        assert_string_equal(r.tf32_strict.first_failure, "");
        assert_true(r.tf32_max_diff == 0.0);
    }
}

/* x * 2, the op the perturbed tf32 backend below disturbs. */
static const kbv_problem_def twice = {
    .level = 9, .id = 4, .name = "twice",
    .dims = {{"B", 8, 8}, {"D", 16, 16}},
    .inputs = {{.name = "x", .dtype = KBV_F32, .shape = {"B", "D"}, .gen = KBV_GEN_RAND}},
    .nodes = {{.op = KBV_OP_MUL_SCALAR, .args = {"x"}, .out = "out", .f = {2.0}}},
};

/* A tf32 backend whose mul_scalar is off: by 1% everywhere, or NaN at element 0. */
typedef enum perturbation { PERTURB_SCALE, PERTURB_NAN } perturbation;
static perturbation perturb;
static const kbv_op_fn *real_ops;
static kbv_op_fn perturbed_ops[KBV_OP_COUNT];

static kbv_status perturbed_mul_scalar(kbv_backend *b, const kbv_node *node,
                                       const kbv_tensor *args, kbv_tensor *out)
{
    KBV_TRY(real_ops[KBV_OP_MUL_SCALAR](b, node, args, out));
    assert_int_equal(out->dtype, KBV_F32);
    float *y = out->data;
    if (perturb == PERTURB_NAN) {
        y[0] = NAN;
        return KBV_OK;
    }
    int64_t n = 1;
    for (int d = 0; d < out->ndim; d++)
        n *= out->shape[d];
    for (int64_t i = 0; i < n; i++)
        y[i] *= 1.01f;
    return KBV_OK;
}

static void audit_perturbed(perturbation how, kbv_audit_result *r)
{
    kbv_backend *tf32 = be[KBV_MODE_TF32];
    real_ops = tf32->ops;
    memcpy(perturbed_ops, real_ops, sizeof perturbed_ops);
    perturbed_ops[KBV_OP_MUL_SCALAR] = perturbed_mul_scalar;
    perturb = how;
    tf32->ops = perturbed_ops;
    kbv_graph g = {0};
    kbv_status st = kbv_graph_build(kbv_test_problem(&twice), KBV_SIZE_SMALL, &g);
    if (st == KBV_OK)
        st = kbv_audit_problem(be, &g, 1, r);
    kbv_graph_free(&g);
    tf32->ops = real_ops;
    assert_int_equal(st, KBV_OK);
}

static void test_tf32_gate_failures_are_reported(void **state)
{
    (void)state;
    kbv_audit_result r;
    /* 1% off fails allclose 1e-3 except on D3 (x 0.01: the values are below
     * atol); the strict budget is 8x the baseline's own error, so it passes */
    audit_perturbed(PERTURB_SCALE, &r);
    assert_false(kbv_audit_degenerate(&r));
    assert_int_equal(r.tf32_standard.judged, 5);
    assert_int_equal(r.tf32_standard.failed, 4);
    assert_non_null(strstr(r.tf32_standard.first_failure, "base seed 1: "));
    assert_non_null(strstr(r.tf32_standard.first_failure, "outside atol/rtol 1e-3"));
    assert_true(r.tf32_max_diff > 1e-3);
    assert_int_equal(r.tf32_strict.judged, KBV_DIST_COUNT);
    assert_int_equal(r.tf32_strict.failed, 0);
    /* a NaN where the oracle and fp32-strict are finite fails both gates, every draw */
    audit_perturbed(PERTURB_NAN, &r);
    assert_int_equal(r.tf32_standard.failed, 5);
    assert_int_equal(r.tf32_strict.failed, KBV_DIST_COUNT);
    assert_non_null(strstr(r.tf32_strict.first_failure, "base seed 1: "));
    assert_non_null(strstr(r.tf32_strict.first_failure, "in class"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ignored_input_is_found),
        cmocka_unit_test(test_constant_output_is_found),
        cmocka_unit_test(test_constant_up_to_rounding_is_found),
        cmocka_unit_test(test_tiny_output_is_weak_not_degenerate),
        cmocka_unit_test(test_real_problems),
        cmocka_unit_test(test_tf32_gates_are_counted),
        cmocka_unit_test(test_tf32_gate_failures_are_reported),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
