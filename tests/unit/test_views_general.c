/* The general views (transpose_dims, permute, narrow, expand, reshape,
 * contiguous) and the nodes with several outputs (split, chunk): their
 * shape rules and refusals, and, on the CPU backend through kbv_graph_run,
 * what they allocate. A view allocates nothing; reshape and contiguous copy
 * exactly where PyTorch's do; an op whose PyTorch kernel makes its operand
 * contiguous (softmax) gets a copy for its own duration; a view as an output
 * that walks its whole block is handed over, a strided one comes out as a
 * contiguous copy. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "exec/backend.h"
#include "graph/graph.h"
#include "graph/problem_def.h"
#include "support/op_check.h"
#include "support/test_problem.h"

static kbv_graph graph;

static size_t counted(size_t bytes) { return (bytes + 511) / 512 * 512; }

static const kbv_value *value(const kbv_graph *g, const char *name)
{
    for (int v = 0; v < g->n_values; v++)
        if (!strcmp(g->values[v].name, name))
            return &g->values[v];
    fail_msg("no value %s", name);
    return NULL;
}

static void assert_shape(const kbv_graph *g, const char *name, int ndim, const int64_t *shape)
{
    const kbv_value *v = value(g, name);
    assert_int_equal(v->ndim, ndim);
    for (int d = 0; d < ndim; d++)
        assert_int_equal(v->shape[d], shape[d]);
}

#define DIMS4 {{"B", 2, 2}, {"C", 3, 3}, {"H", 4, 4}, {"W", 5, 5}}
#define X4 {{.name = "x", .dtype = KBV_F32, .shape = {"B", "C", "H", "W"}, .gen = KBV_GEN_RANDN}, \
            {.name = "y", .dtype = KBV_F32, .shape = {"C", "1"}, .gen = KBV_GEN_RANDN}}

static const kbv_problem_def shapes = {
    .level = 0, .id = 41, .name = "41_General_Views", .dims = DIMS4, .inputs = X4,
    .nodes = {
        {.op = KBV_OP_TRANSPOSE_DIMS, .args = {"x"}, .out = "t", .i = {1, -1}},
        {.op = KBV_OP_PERMUTE, .args = {"x"}, .out = "p", .s = "(0, 2, -1, 1)"},
        {.op = KBV_OP_NARROW, .args = {"x"}, .out = "n", .i = {1, 1, 2}},
        {.op = KBV_OP_EXPAND, .args = {"y"}, .out = "e", .s = "(B, -1, W)"},
        {.op = KBV_OP_RESHAPE, .args = {"t"}, .out = "r", .s = "(B, -1)"},
        /* an input's own size, as NetVLAD's max_sample = x.size()[1] */
        {.op = KBV_OP_RESHAPE, .args = {"r"}, .out = "rx", .s = "(x.size(0), -1, x.size(-1))"},
        {.op = KBV_OP_CONTIGUOUS, .args = {"p"}, .out = "c"},
        {.op = KBV_OP_SPLIT, .args = {"x"}, .outs = {"s0", "s1"}, .i = {2, 1}},
        {.op = KBV_OP_CHUNK, .args = {"x"}, .outs = {"k0", "k1", "k2"}, .i = {3, -1}},
        /* 4 chunks of 5: ceil(5 / 4) = 2 each, so three pieces, as PyTorch */
        {.op = KBV_OP_CHUNK, .args = {"x"}, .outs = {"q0", "q1", "q2"}, .i = {4, 3}},
        {.op = KBV_OP_ADD, .args = {"s1", "k2"}, .out = "z"},
    },
    .outputs = {"z", "rx", "c", "q2"},
};

static void test_shape_rules(void **state)
{
    (void)state;
    assert_int_equal(kbv_graph_build(kbv_test_problem(&shapes), KBV_SIZE_FULL, &graph), KBV_OK);
    assert_shape(&graph, "t", 4, (int64_t[]){2, 5, 4, 3});
    assert_shape(&graph, "p", 4, (int64_t[]){2, 4, 5, 3});
    assert_shape(&graph, "n", 4, (int64_t[]){2, 2, 4, 5});
    assert_shape(&graph, "e", 3, (int64_t[]){2, 3, 5});
    assert_shape(&graph, "r", 2, (int64_t[]){2, 60});
    assert_shape(&graph, "rx", 3, (int64_t[]){2, 12, 5});
    assert_shape(&graph, "c", 4, (int64_t[]){2, 4, 5, 3});
    assert_shape(&graph, "s0", 4, (int64_t[]){2, 2, 4, 5});
    assert_shape(&graph, "s1", 4, (int64_t[]){2, 1, 4, 5});
    assert_shape(&graph, "k0", 4, (int64_t[]){2, 3, 4, 2});
    assert_shape(&graph, "k2", 4, (int64_t[]){2, 3, 4, 1});
    assert_shape(&graph, "q1", 4, (int64_t[]){2, 3, 4, 2});
    assert_shape(&graph, "q2", 4, (int64_t[]){2, 3, 4, 1});
    /* a split's outputs are consecutive values of one node */
    const kbv_value *s0 = value(&graph, "s0"), *s1 = value(&graph, "s1");
    assert_int_equal(s0->def_index, s1->def_index);
    assert_int_equal(s1 - s0, 1);
    assert_int_equal(s1->out_index, 1);
    assert_int_equal(graph.nodes[s0->def_index].n_outs, 2);
    assert_int_equal(s1->last_use, 10);
    assert_int_equal(s0->last_use, -1);
    kbv_graph_free(&graph);
}

/* A problem of one node over x [B, C, H, W] and y [C, 1], built. */
static kbv_status build_one(kbv_static_node node)
{
    kbv_problem_def def = {.level = 0, .id = 42, .name = "42_One_View", .dims = DIMS4,
                           .inputs = X4};
    def.nodes[0] = node;
    kbv_status st = kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph);
    kbv_graph_free(&graph);
    return st;
}

static void assert_refused(kbv_static_node bad)
{
    assert_int_equal(build_one(bad), KBV_ERR_INVALID);
}

static void test_refusals(void **state)
{
    (void)state;
    /* the well-formed neighbours of the refusals below build */
    assert_int_equal(build_one((kbv_static_node){.op = KBV_OP_PERMUTE, .args = {"x"}, .out = "p",
                                                 .s = "(0, 1, 3, 2)"}), KBV_OK);
    assert_int_equal(build_one((kbv_static_node){.op = KBV_OP_NARROW, .args = {"x"}, .out = "n",
                                                 .i = {1, 1, 2}}), KBV_OK);
    assert_int_equal(build_one((kbv_static_node){.op = KBV_OP_EXPAND, .args = {"y"}, .out = "e",
                                                 .s = "(4, -1, 5)"}), KBV_OK);
    assert_int_equal(build_one((kbv_static_node){.op = KBV_OP_SPLIT, .args = {"x"},
                                                 .outs = {"a", "b", "c"}, .i = {1, 1}}), KBV_OK);
    /* x.size(k) names an input's dim: not an unknown value's, not past the rank */
    assert_refused((kbv_static_node){.op = KBV_OP_VIEW, .args = {"x"}, .out = "v",
                                     .s = "(w.size(0), -1)"});
    assert_refused((kbv_static_node){.op = KBV_OP_VIEW, .args = {"x"}, .out = "v",
                                     .s = "(y.size(2), -1)"});
    assert_int_equal(build_one((kbv_static_node){.op = KBV_OP_VIEW, .args = {"x"}, .out = "v",
                                                 .s = "(y.size(0), -1)"}), KBV_OK);
    /* a dim twice, too few dims */
    assert_refused((kbv_static_node){.op = KBV_OP_PERMUTE, .args = {"x"}, .out = "p",
                                     .s = "(0, 1, 1, 2)"});
    assert_refused((kbv_static_node){.op = KBV_OP_PERMUTE, .args = {"x"}, .out = "p",
                                     .s = "(0, 1, 2)"});
    assert_refused((kbv_static_node){.op = KBV_OP_TRANSPOSE_DIMS, .args = {"x"}, .out = "t",
                                     .i = {0, 4}});
    /* past the end of the dim, a negative start */
    assert_refused((kbv_static_node){.op = KBV_OP_NARROW, .args = {"x"}, .out = "n",
                                     .i = {1, 2, 2}});
    assert_refused((kbv_static_node){.op = KBV_OP_NARROW, .args = {"x"}, .out = "n",
                                     .i = {1, -1, 1}});
    /* only size-1 dims expand; a new dim needs a size */
    assert_refused((kbv_static_node){.op = KBV_OP_EXPAND, .args = {"y"}, .out = "e",
                                     .s = "(4, 5)"});
    assert_refused((kbv_static_node){.op = KBV_OP_EXPAND, .args = {"y"}, .out = "e",
                                     .s = "(-1, 3, 5)"});
    /* the pieces must be the outputs named */
    assert_refused((kbv_static_node){.op = KBV_OP_SPLIT, .args = {"x"}, .outs = {"a", "b"},
                                     .i = {1, 1}});
    assert_refused((kbv_static_node){.op = KBV_OP_CHUNK, .args = {"x"}, .outs = {"a", "b"},
                                     .i = {0, 1}});
    /* several outputs only for the ops that have them, and the other way round */
    assert_refused((kbv_static_node){.op = KBV_OP_RELU, .args = {"x"}, .outs = {"a", "b"}});
    assert_refused((kbv_static_node){.op = KBV_OP_SPLIT, .args = {"x"}, .out = "a",
                                     .i = {3, 1}});
    assert_refused((kbv_static_node){.op = KBV_OP_RESHAPE, .args = {"x"}, .out = "r",
                                     .s = "(7, -1)"});
}

/* Input k of g filled with (i * 37 + k) % 11 - 5, quartered. */
static void make_inputs(kbv_backend *be, const kbv_graph *g, kbv_tensor *in)
{
    for (int k = 0; k < g->n_inputs; k++) {
        kbv_value_tensor(&g->values[k], &in[k]);
        in[k].dtype = be->float_dtype;
        size_t bytes = (size_t)kbv_value_numel(&g->values[k]) * kbv_dtype_size(in[k].dtype);
        assert_int_equal(be->alloc(be, bytes, &in[k].data), KBV_OK);
        for (int64_t i = 0; i < kbv_value_numel(&g->values[k]); i++)
            kbv_test_set(&in[k], i, (double)((i * 37 + k) % 11 - 5) * 0.25);
    }
}

static void release_all(kbv_backend *be, kbv_tensor *t, int n)
{
    for (int k = 0; k < n; k++)
        be->release(be, t[k].data);
}

/* ShuffleNet's channel shuffle, x [B, 6, H, W] with 2 groups: view ->
 * transpose(1, 2) -> contiguous -> view. The contiguous copy is the one
 * allocation, and the last view, which walks all of it, is the output. */
static const kbv_problem_def shuffle = {
    .level = 0, .id = 43, .name = "43_Channel_Shuffle",
    .dims = {{"B", 2, 2}, {"H", 4, 4}, {"W", 8, 8}},
    .inputs = {{.name = "x", .dtype = KBV_F32, .shape = {"B", "6", "H", "W"},
                .gen = KBV_GEN_RANDN}},
    .nodes = {
        {.op = KBV_OP_VIEW, .args = {"x"}, .out = "v", .s = "(B, 2, 3, H, W)"},
        {.op = KBV_OP_TRANSPOSE_DIMS, .args = {"v"}, .out = "t", .i = {1, 2}},
        {.op = KBV_OP_CONTIGUOUS, .args = {"t"}, .out = "c"},
        {.op = KBV_OP_VIEW, .args = {"c"}, .out = "y", .s = "(B, -1, H, W)"},
    },
};

static void test_channel_shuffle(void **state)
{
    (void)state;
    for (int m = 0; m < 2; m++) {
        kbv_backend *be = kbv_test_backend(m ? KBV_F64 : KBV_F32);
        assert_int_equal(kbv_graph_build(kbv_test_problem(&shuffle), KBV_SIZE_FULL, &graph),
                         KBV_OK);
        kbv_tensor in[1], out[1];
        make_inputs(be, &graph, in);
        size_t one = counted(2 * 6 * 32 * kbv_dtype_size(be->float_dtype));
        be->reset_peak(be);
        assert_int_equal(kbv_graph_run(&graph, be, in, NULL, out), KBV_OK);
        assert_int_equal(be->mem.peak, 2 * one);
        assert_int_equal(be->mem.current, 2 * one);
        assert_int_equal(out[0].ndim, 4);
        assert_int_equal(out[0].shape[1], 6);
        /* channel c' = i * 2 + j holds x's channel j * 3 + i */
        for (int64_t b = 0; b < 2; b++)
            for (int64_t c = 0; c < 6; c++)
                for (int64_t p = 0; p < 32; p++) {
                    int64_t from = (c % 2) * 3 + c / 2;
                    assert_true(kbv_test_get(&out[0], (b * 6 + c) * 32 + p) ==
                                kbv_test_get(&in[0], (b * 6 + from) * 32 + p));
                }
        release_all(be, out, 1);
        release_all(be, in, 1);
        kbv_graph_free(&graph);
        kbv_backend_destroy(be);
    }
}

/* contiguous of a contiguous value and reshape that strides allow are
 * views; reshape of a transposed value copies. x [R, S]:
 * a = x.contiguous() * 2; b = x.T.reshape(-1) (a copy); d = a.reshape(S, R)
 * (a view of a, the output handed over). */
static const kbv_problem_def reshapes = {
    .level = 0, .id = 44, .name = "44_Reshape_Contiguous",
    .dims = {{"R", 16, 16}, {"S", 24, 24}},
    .inputs = {{.name = "x", .dtype = KBV_F32, .shape = {"R", "S"}, .gen = KBV_GEN_RANDN}},
    .nodes = {
        {.op = KBV_OP_CONTIGUOUS, .args = {"x"}, .out = "xc"},
        {.op = KBV_OP_MUL_SCALAR, .args = {"xc"}, .out = "a", .f = {2.0}},
        {.op = KBV_OP_TRANSPOSE_DIMS, .args = {"x"}, .out = "t", .i = {0, 1}},
        {.op = KBV_OP_RESHAPE, .args = {"t"}, .out = "b", .s = "(-1)"},
        {.op = KBV_OP_RESHAPE, .args = {"a"}, .out = "d", .s = "(S, R)"},
    },
    .outputs = {"b", "d"},
};

static void test_reshape_contiguous(void **state)
{
    (void)state;
    kbv_backend *be = kbv_test_backend(KBV_F32);
    assert_int_equal(kbv_graph_build(kbv_test_problem(&reshapes), KBV_SIZE_FULL, &graph), KBV_OK);
    kbv_tensor in[1], out[2];
    make_inputs(be, &graph, in);
    size_t one = counted(16 * 24 * 4);
    be->reset_peak(be);
    assert_int_equal(kbv_graph_run(&graph, be, in, NULL, out), KBV_OK);
    /* x, a (d's block, handed over) and b's copy: nothing else */
    assert_int_equal(be->mem.peak, 3 * one);
    assert_int_equal(be->mem.current, 3 * one);
    assert_int_equal(out[0].ndim, 1);
    for (int64_t i = 0; i < 16 * 24; i++) {
        int64_t r = i % 16, c = i / 16; /* b[i] = x.T[c][r] */
        assert_true(kbv_test_get(&out[0], i) == kbv_test_get(&in[0], r * 24 + c));
        assert_true(kbv_test_get(&out[1], i) == 2 * kbv_test_get(&in[0], i));
    }
    assert_int_equal(out[1].shape[0], 24);
    release_all(be, out, 2);
    release_all(be, in, 1);
    kbv_graph_free(&graph);
    kbv_backend_destroy(be);
}

/* Split pieces, narrow and expand are views, read where they lie by the
 * elementwise ops: x [B, 6, W], y [6, 1]; q, k, v = x.split(2, dim=1) (the
 * q, k, v split of attention); y0 = q + k; y1 = v * y.narrow(0, 2, 2)
 * .expand(B, 2, W); k returned as well. */
static const kbv_problem_def pieces = {
    .level = 0, .id = 45, .name = "45_Split_Views",
    .dims = {{"B", 3, 3}, {"C", 6, 6}, {"W", 50, 50}},
    .inputs = {{.name = "x", .dtype = KBV_F32, .shape = {"B", "C", "W"}, .gen = KBV_GEN_RANDN},
               {.name = "y", .dtype = KBV_F32, .shape = {"C", "1"}, .gen = KBV_GEN_RANDN}},
    .nodes = {
        {.op = KBV_OP_SPLIT, .args = {"x"}, .outs = {"q", "k", "v"}, .i = {2, 1}},
        {.op = KBV_OP_ADD, .args = {"q", "k"}, .out = "y0"},
        {.op = KBV_OP_NARROW, .args = {"y"}, .out = "yn", .i = {0, 2, 2}},
        {.op = KBV_OP_EXPAND, .args = {"yn"}, .out = "ye", .s = "(B, 2, W)"},
        {.op = KBV_OP_MUL, .args = {"v", "ye"}, .out = "y1"},
    },
    .outputs = {"y0", "y1", "k"},
};

static void test_split_narrow_expand(void **state)
{
    (void)state;
    kbv_backend *be = kbv_test_backend(KBV_F64);
    assert_int_equal(kbv_graph_build(kbv_test_problem(&pieces), KBV_SIZE_FULL, &graph), KBV_OK);
    kbv_tensor in[2], out[3];
    make_inputs(be, &graph, in);
    size_t base = be->mem.current, piece = counted(3 * 2 * 50 * 8);
    be->reset_peak(be);
    assert_int_equal(kbv_graph_run(&graph, be, in, NULL, out), KBV_OK);
    /* y0, y1 and the strided output k's contiguous copy */
    assert_int_equal(be->mem.peak - base, 3 * piece);
    for (int64_t b = 0; b < 3; b++)
        for (int64_t c = 0; c < 2; c++)
            for (int64_t w = 0; w < 50; w++) {
                int64_t i = (b * 2 + c) * 50 + w;
                double xq = kbv_test_get(&in[0], (b * 6 + c) * 50 + w);
                double xk = kbv_test_get(&in[0], (b * 6 + 2 + c) * 50 + w);
                double xv = kbv_test_get(&in[0], (b * 6 + 4 + c) * 50 + w);
                assert_true(kbv_test_get(&out[0], i) == xq + xk);
                assert_true(kbv_test_get(&out[1], i) == xv * kbv_test_get(&in[1], 2 + c));
                assert_true(kbv_test_get(&out[2], i) == xk);
            }
    assert_true(kbv_tensor_is_contiguous(&out[2]));
    release_all(be, out, 3);
    release_all(be, in, 2);
    kbv_graph_free(&graph);
    kbv_backend_destroy(be);
}

/* softmax wants a contiguous operand: x.transpose(1, 2).softmax(-1) copies
 * the transposed view for the op's duration (peak x, copy, result), and
 * after it only x and the result are held. */
static const kbv_problem_def softmax_t = {
    .level = 0, .id = 46, .name = "46_Softmax_Of_Transpose",
    .dims = {{"B", 2, 2}, {"R", 16, 16}, {"S", 24, 24}},
    .inputs = {{.name = "x", .dtype = KBV_F32, .shape = {"B", "R", "S"}, .gen = KBV_GEN_RANDN}},
    .nodes = {
        {.op = KBV_OP_TRANSPOSE_DIMS, .args = {"x"}, .out = "t", .i = {1, 2}},
        {.op = KBV_OP_SOFTMAX, .args = {"t"}, .out = "y", .i = {-1}},
    },
};

static void test_contiguous_operands(void **state)
{
    (void)state;
    kbv_backend *be = kbv_test_backend(KBV_F64);
    assert_int_equal(kbv_graph_build(kbv_test_problem(&softmax_t), KBV_SIZE_FULL, &graph),
                     KBV_OK);
    kbv_tensor in[1], out[1];
    make_inputs(be, &graph, in);
    size_t one = counted(2 * 16 * 24 * 8);
    be->reset_peak(be);
    assert_int_equal(kbv_graph_run(&graph, be, in, NULL, out), KBV_OK);
    assert_int_equal(be->mem.peak, 3 * one);
    assert_int_equal(be->mem.current, 2 * one);
    for (int64_t b = 0; b < 2; b++)
        for (int64_t s = 0; s < 24; s++) {
            double sum = 0;
            for (int64_t r = 0; r < 16; r++)
                sum += exp(kbv_test_get(&in[0], (b * 16 + r) * 24 + s));
            for (int64_t r = 0; r < 16; r++) {
                double want = exp(kbv_test_get(&in[0], (b * 16 + r) * 24 + s)) / sum;
                kbv_test_assert_close(kbv_test_get(&out[0], (b * 24 + s) * 16 + r), want,
                                      1e-12, "softmax of a transpose", r);
            }
        }
    release_all(be, out, 1);
    release_all(be, in, 1);
    kbv_graph_free(&graph);
    kbv_backend_destroy(be);
}

/* permute and a strided output: x.permute(2, 0, 1) returned comes out as a
 * contiguous copy of the permuted values. */
static void test_permute_output(void **state)
{
    (void)state;
    kbv_problem_def def = {
        .level = 0, .id = 47, .name = "47_Permute",
        .dims = {{"A", 2, 2}, {"B", 3, 3}, {"C", 5, 5}},
        .inputs = {{.name = "x", .dtype = KBV_F32, .shape = {"A", "B", "C"},
                    .gen = KBV_GEN_RANDN}},
        .nodes = {{.op = KBV_OP_PERMUTE, .args = {"x"}, .out = "p", .s = "(2, 0, 1)"}},
    };
    kbv_backend *be = kbv_test_backend(KBV_F32);
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_OK);
    kbv_tensor in[1], out[1];
    make_inputs(be, &graph, in);
    assert_int_equal(kbv_graph_run(&graph, be, in, NULL, out), KBV_OK);
    assert_true(kbv_tensor_is_contiguous(&out[0]));
    assert_true(out[0].shape[0] == 5 && out[0].shape[1] == 2 && out[0].shape[2] == 3);
    for (int64_t c = 0; c < 5; c++)
        for (int64_t a = 0; a < 2; a++)
            for (int64_t b = 0; b < 3; b++)
                assert_true(kbv_test_get(&out[0], (c * 2 + a) * 3 + b) ==
                            kbv_test_get(&in[0], (a * 3 + b) * 5 + c));
    release_all(be, out, 1);
    release_all(be, in, 1);
    kbv_graph_free(&graph);
    kbv_backend_destroy(be);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_shape_rules),
        cmocka_unit_test(test_refusals),
        cmocka_unit_test(test_channel_shuffle),
        cmocka_unit_test(test_reshape_contiguous),
        cmocka_unit_test(test_split_narrow_expand),
        cmocka_unit_test(test_contiguous_operands),
        cmocka_unit_test(test_permute_output),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
