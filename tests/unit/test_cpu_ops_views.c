/* Views (unsqueeze, squeeze, view, flatten), dropout as the identity,
 * clone, and linear on the CPU backend, run through kbv_graph_run as a
 * problem runs: a view shares its operand's memory (no allocation, the
 * same values under new strides), a view that no strides allow fails as
 * PyTorch's .view does, a clone is a copy freed at its last use, and
 * F.linear is the product with the transposed weight plus the bias. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "support/test_problem.h"
#include "graph/problem_def.h"
#include "exec/view.h"
#include "graph/graph.h"
#include "support/host_tensor.h"
#include "support/op_check.h"

static kbv_graph graph;

static size_t counted(size_t bytes) { return (bytes + 511) / 512 * 512; }

/* Inputs of g in be's memory, element i of input k = (i * 37 + k) % 11 - 5. */
static void make_inputs(kbv_backend *be, const kbv_graph *g, kbv_tensor *in)
{
    for (int k = 0; k < g->n_inputs + g->n_params; k++) {
        kbv_value_tensor(&g->values[k], &in[k]);
        in[k].dtype = be->float_dtype;
        size_t bytes = (size_t)kbv_value_numel(&g->values[k]) * kbv_dtype_size(in[k].dtype);
        assert_int_equal(be->alloc(be, bytes, &in[k].data), KBV_OK);
        for (int64_t i = 0; i < kbv_value_numel(&g->values[k]); i++)
            kbv_test_set(&in[k], i, (double)((i * 37 + k) % 11 - 5) * 0.25);
    }
}

static void test_view_strides(void **state)
{
    (void)state;
    int64_t st[KBV_MAX_DIMS];
    /* contiguous [2, 3, 4] as [6, 4] and [2, 12] */
    const int64_t s234[3] = {2, 3, 4}, c234[3] = {12, 4, 1};
    assert_true(kbv_view_strides(3, s234, c234, 2, (int64_t[]){6, 4}, st));
    assert_true(st[0] == 4 && st[1] == 1);
    assert_true(kbv_view_strides(3, s234, c234, 4, (int64_t[]){2, 1, 3, 4}, st));
    assert_true(st[0] == 12 && st[2] == 4 && st[3] == 1);
    /* a transposed [3, 4] (strides 1, 3): unsqueeze is fine, flatten is not */
    const int64_t s34[2] = {3, 4}, t34[2] = {1, 3};
    assert_true(kbv_view_strides(2, s34, t34, 3, (int64_t[]){3, 1, 4}, st));
    assert_true(st[0] == 1 && st[2] == 3);
    assert_false(kbv_view_strides(2, s34, t34, 1, (int64_t[]){12}, st));
    /* a[:-1] of [5, 4] rows: [4, 4] with stride 4 flattens */
    assert_true(kbv_view_strides(2, (int64_t[]){4, 4}, (int64_t[]){4, 1}, 1, (int64_t[]){16}, st));
    /* element counts must agree; 0-dim to [1, 1] */
    assert_false(kbv_view_strides(3, s234, c234, 2, (int64_t[]){5, 5}, st));
    assert_true(kbv_view_strides(0, NULL, NULL, 2, (int64_t[]){1, 1}, st));
}

/* x [B, C, H] -> unsqueeze(1) -> view(B, -1) -> dropout (training) ->
 * flatten -> squeeze_all -> out = y * 2: the five views allocate nothing. */
static const kbv_problem_def chain = {
    .level = 0,
    .id = 31,
    .name = "31_Views",
    .dims = {{"B", 3, 3}, {"C", 4, 4}, {"H", 5, 5}},
    .inputs = {{.name = "x", .dtype = KBV_F32, .shape = {"B", "C", "H"}, .gen = KBV_GEN_RANDN}},
    .nodes = {
        {.op = KBV_OP_UNSQUEEZE, .args = {"x"}, .out = "u", .i = {1}},
        {.op = KBV_OP_VIEW, .args = {"u"}, .out = "v", .s = "(B, 1, -1)"},
        {.op = KBV_OP_DROPOUT, .args = {"v"}, .out = "d", .f = {0.2}, .i = {1}},
        {.op = KBV_OP_FLATTEN, .args = {"d"}, .out = "f", .i = {0, -1}},
        {.op = KBV_OP_UNSQUEEZE, .args = {"f"}, .out = "g", .i = {0}},
        {.op = KBV_OP_SQUEEZE, .args = {"g"}, .out = "h", .i = {0}},
        {.op = KBV_OP_MUL_SCALAR, .args = {"h"}, .out = "y", .f = {2.0}},
    },
};

static void test_views_share_memory(void **state)
{
    (void)state;
    for (int m = 0; m < 2; m++) {
        kbv_backend *be = kbv_test_backend(m ? KBV_F64 : KBV_F32);
        assert_int_equal(kbv_graph_build(kbv_test_problem(&chain), KBV_SIZE_FULL, &graph), KBV_OK);
        kbv_tensor in[1], out[1];
        make_inputs(be, &graph, in);
        size_t es = kbv_dtype_size(be->float_dtype), one = counted(60 * es);
        be->reset_peak(be);
        assert_int_equal(kbv_graph_run(&graph, be, in, NULL, out), KBV_OK);
        /* only y was allocated: dropout is the identity and a view */
        assert_int_equal(be->mem.peak, 2 * one);
        assert_int_equal(out[0].ndim, 1);
        assert_int_equal(out[0].shape[0], 60);
        for (int64_t i = 0; i < 60; i++)
            assert_true(kbv_test_get(&out[0], i) == 2 * kbv_test_get(&in[0], i));
        be->release(be, out[0].data);
        be->release(be, in[0].data);
        kbv_backend_destroy(be);
    }
}

/* A view as the problem's output is copied out; its base is kept alive. */
static void test_view_output_and_direct_call(void **state)
{
    (void)state;
    kbv_backend *be = kbv_test_backend(KBV_F32);
    const int64_t s[2] = {3, 4};
    kbv_tensor x = kbv_test_tensor(KBV_F32, 2, s);
    kbv_tensor xt = x; /* x.T: [4, 3] with strides (1, 4) */
    xt.shape[0] = 4;
    xt.shape[1] = 3;
    xt.stride[0] = 1;
    xt.stride[1] = 4;
    kbv_tensor out;
    memset(&out, 0, sizeof out);
    out.dtype = KBV_F32;
    out.ndim = 3;
    out.shape[0] = 4;
    out.shape[1] = 1;
    out.shape[2] = 3;
    kbv_node_def nd = {.op = KBV_OP_UNSQUEEZE, .i = {1}};
    assert_int_equal(kbv_test_run_op(be, KBV_OP_UNSQUEEZE, &nd, &xt, 1, &out), KBV_OK);
    assert_ptr_equal(out.data, x.data);
    assert_true(out.stride[0] == 1 && out.stride[2] == 4);
    /* flattening the transposed view: no strides walk it */
    out.ndim = 1;
    out.shape[0] = 12;
    out.data = NULL;
    nd = (kbv_node_def){.op = KBV_OP_FLATTEN, .i = {0, -1}};
    assert_int_equal(kbv_test_run_op(be, KBV_OP_FLATTEN, &nd, &xt, 1, &out), KBV_ERR_UNSUPPORTED);
    assert_null(out.data);
    free(x.data);
    kbv_backend_destroy(be);
}

/* clone copies (a strided operand too) and is freed at its last use:
 * x -> clone c -> relu r (c dies) -> mul_scalar y (r dies). */
static const kbv_problem_def cloned = {
    .level = 0,
    .id = 32,
    .name = "32_Clone",
    .dims = {{"R", 3, 3}, {"S", 4, 4}},
    .inputs = {{.name = "x", .dtype = KBV_F32, .shape = {"R", "S"}, .gen = KBV_GEN_RANDN}},
    .nodes = {
        {.op = KBV_OP_TRANSPOSE, .args = {"x"}, .out = "t"},
        {.op = KBV_OP_CLONE, .args = {"t"}, .out = "c"},
        {.op = KBV_OP_RELU, .args = {"c"}, .out = "r"},
        {.op = KBV_OP_MUL_SCALAR, .args = {"r"}, .out = "y", .f = {3.0}},
    },
    .outputs = {"y", "c"},
};

static void test_clone(void **state)
{
    (void)state;
    for (int m = 0; m < 2; m++) {
        kbv_backend *be = kbv_test_backend(m ? KBV_F64 : KBV_F32);
        kbv_tensor in[1], out[2];
        assert_int_equal(kbv_graph_build(kbv_test_problem(&cloned), KBV_SIZE_FULL, &graph), KBV_OK);
        make_inputs(be, &graph, in);
        size_t one = counted(12 * kbv_dtype_size(be->float_dtype));
        be->reset_peak(be);
        assert_int_equal(kbv_graph_run(&graph, be, in, NULL, out), KBV_OK);
        assert_int_equal(be->mem.peak, 4 * one); /* x, c (an output), r, y */
        assert_int_equal(be->mem.current, 3 * one); /* r is gone */
        assert_true(out[1].data != in[0].data);
        assert_true(out[1].stride[0] == 3 && out[1].stride[1] == 1);
        for (int64_t i = 0; i < 12; i++) {
            double xv = kbv_test_get(&in[0], (i % 3) * 4 + i / 3); /* x.T[i / 3][i % 3] */
            assert_true(kbv_test_get(&out[1], i) == xv);
            assert_true(kbv_test_get(&out[0], i) == 3 * (xv < 0 ? 0 : xv));
        }
        for (int k = 0; k < 2; k++)
            be->release(be, out[k].data);
        be->release(be, in[0].data);

        /* without c as an output it dies after relu: peak x, c, r */
        kbv_problem_def one_out = cloned;
        one_out.outputs[1] = NULL;
        assert_int_equal(kbv_graph_build(kbv_test_problem(&one_out), KBV_SIZE_FULL, &graph), KBV_OK);
        make_inputs(be, &graph, in);
        be->reset_peak(be);
        assert_int_equal(kbv_graph_run(&graph, be, in, NULL, out), KBV_OK);
        assert_int_equal(be->mem.peak, 3 * one);
        assert_int_equal(be->mem.current, 2 * one);
        be->release(be, out[0].data);
        be->release(be, in[0].data);
        kbv_backend_destroy(be);
    }
}

/* y = F.linear(x, w, b) with x [B, T, K], and without the bias. */
static void test_linear(void **state)
{
    (void)state;
    kbv_problem_def def = {
        .level = 0,
        .id = 33,
        .name = "33_Linear",
        .dims = {{"B", 2, 2}, {"T", 3, 3}, {"K", 37, 37}, {"N", 5, 5}},
        .inputs = {{.name = "x", .dtype = KBV_F32, .shape = {"B", "T", "K"},
                    .gen = KBV_GEN_RANDN}},
        .params = {{.name = "fc.weight", .dtype = KBV_F32, .shape = {"N", "K"},
                    .init = KBV_INIT_UNIFORM_FAN_IN},
                   {.name = "fc.bias", .dtype = KBV_F32, .shape = {"N"},
                    .init = KBV_INIT_UNIFORM_FAN_IN}},
        .nodes = {{.op = KBV_OP_LINEAR, .args = {"x", "fc.weight", "fc.bias"}, .out = "y"}},
    };
    for (int bias = 1; bias >= 0; bias--) {
        def.nodes[0].args[2] = bias ? "fc.bias" : NULL;
        for (int m = 0; m < 2; m++) {
            kbv_dtype dt = m ? KBV_F64 : KBV_F32;
            kbv_backend *be = kbv_test_backend(dt);
            assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_OK);
            kbv_tensor in[3], out[1];
            make_inputs(be, &graph, in);
            assert_int_equal(kbv_graph_run(&graph, be, in, in + 1, out), KBV_OK);
            assert_int_equal(out[0].ndim, 3);
            assert_int_equal(out[0].shape[2], 5);
            for (int64_t r = 0; r < 6; r++)
                for (int64_t n = 0; n < 5; n++) {
                    double want = bias ? kbv_test_get(&in[2], n) : 0.0;
                    for (int64_t k = 0; k < 37; k++)
                        want += kbv_test_get(&in[0], r * 37 + k) * kbv_test_get(&in[1], n * 37 + k);
                    kbv_test_assert_close(kbv_test_get(&out[0], r * 5 + n), want,
                                          16 * kbv_test_tol(dt), be->name, r * 5 + n);
                }
            be->release(be, out[0].data);
            for (int k = 0; k < 3; k++)
                be->release(be, in[k].data);
            kbv_backend_destroy(be);
        }
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_view_strides),
        cmocka_unit_test(test_views_share_memory),
        cmocka_unit_test(test_view_output_and_direct_call),
        cmocka_unit_test(test_clone),
        cmocka_unit_test(test_linear),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
