/* kbv_graph_run on hand-built graphs: results, eager lifetimes (peak memory
 * is what eager PyTorch holds), views keeping their base alive, outputs
 * handed to the caller, and a clean release of everything on error. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "exec/backend.h"

/* ---- building graphs by hand (plain data, as kbv_graph_build leaves it) ---- */

/* Room for one hand-built graph at a time. */
#define HAND_VALUES 16
#define HAND_NODES 8
static kbv_value hand_values[HAND_VALUES];
static kbv_node hand_nodes[HAND_NODES];
static int hand_args[2 * HAND_NODES];
static int hand_outputs[4];

static void hand_graph(kbv_graph *g)
{
    memset(g, 0, sizeof *g);
    memset(hand_args, 0, sizeof hand_args);
    g->values = hand_values;
    g->nodes = hand_nodes;
    g->outputs = hand_outputs;
    g->arg_pool = hand_args;
}

static int add_value(kbv_graph *g, const char *name, kbv_value_kind kind, int def_index,
                     int ndim, const int64_t *shape)
{
    kbv_value *v = &g->values[g->n_values];
    memset(v, 0, sizeof *v);
    v->name = name;
    v->kind = kind;
    v->def_index = def_index;
    v->dtype = KBV_F32;
    v->ndim = ndim;
    for (int d = 0; d < ndim; d++)
        v->shape[d] = shape[d];
    v->last_use = -1;
    if (kind == KBV_VALUE_INPUT)
        g->n_inputs++;
    if (kind == KBV_VALUE_PARAM)
        g->n_params++;
    return g->n_values++;
}

static void add_node(kbv_graph *g, const kbv_node_def *def, int a0, int a1, int out)
{
    int k = g->n_nodes++;
    kbv_node *n = &g->nodes[k];
    memset(n, 0, sizeof *n);
    n->op = def->op;
    n->def = def;
    n->args = &g->arg_pool[2 * k];
    n->args[0] = a0;
    n->args[1] = a1;
    n->n_args = a1 >= 0 ? 2 : 1;
    n->out = out;
    g->values[a0].last_use = k;
    if (a1 >= 0)
        g->values[a1].last_use = k;
}

static void add_output(kbv_graph *g, int v)
{
    g->values[v].is_output = true;
    g->outputs[g->n_outputs++] = v;
}

static size_t counted(size_t bytes) { return (bytes + 511) / 512 * 512; }

/* A tensor of be's float dtype in be's memory, filled with a simple pattern. */
static kbv_tensor input_tensor(kbv_backend *be, int ndim, const int64_t *shape, double scale)
{
    kbv_tensor t;
    memset(&t, 0, sizeof t);
    t.dtype = be->float_dtype;
    t.ndim = ndim;
    int64_t n = 1;
    for (int d = ndim - 1; d >= 0; d--) {
        t.shape[d] = shape[d];
        t.stride[d] = n;
        n *= shape[d];
    }
    assert_int_equal(be->alloc(be, (size_t)n * kbv_dtype_size(t.dtype), &t.data), KBV_OK);
    for (int64_t i = 0; i < n; i++) {
        double v = scale * (double)((i * 37) % 11 - 5);
        if (t.dtype == KBV_F32)
            ((float *)t.data)[i] = (float)v;
        else
            ((double *)t.data)[i] = v;
    }
    return t;
}

static double elem(const kbv_tensor *t, int64_t i)
{
    return t->dtype == KBV_F32 ? ((float *)t->data)[i] : ((double *)t->data)[i];
}

/* out = 2 * relu(A @ B): three nodes, two intermediates. */
static void test_chain_lifetimes(void **state)
{
    (void)state;
    for (int m = 0; m < 2; m++) {
        kbv_backend *be = NULL;
        assert_int_equal(kbv_cpu_backend_create(m ? KBV_MODE_FP64 : KBV_MODE_FP32, &be),
                         KBV_OK);
        const int64_t sa[] = {16, 24}, sb[] = {24, 32}, so[] = {16, 32};
        kbv_graph g;
        hand_graph(&g);
        int A = add_value(&g, "A", KBV_VALUE_INPUT, 0, 2, sa);
        int B = add_value(&g, "B", KBV_VALUE_INPUT, 1, 2, sb);
        int t0 = add_value(&g, "t0", KBV_VALUE_NODE, 0, 2, so);
        int t1 = add_value(&g, "t1", KBV_VALUE_NODE, 1, 2, so);
        int out = add_value(&g, "out", KBV_VALUE_NODE, 2, 2, so);
        kbv_node_def defs[3] = {{.op = KBV_OP_MATMUL, .out = "t0"},
                                {.op = KBV_OP_RELU, .out = "t1"},
                                {.op = KBV_OP_MUL_SCALAR, .out = "out", .f = {2.0}}};
        add_node(&g, &defs[0], A, B, t0);
        add_node(&g, &defs[1], t0, -1, t1);
        add_node(&g, &defs[2], t1, -1, out);
        add_output(&g, out);

        kbv_tensor in[2] = {input_tensor(be, 2, sa, 0.5), input_tensor(be, 2, sb, 0.25)};
        size_t es = kbv_dtype_size(be->float_dtype);
        size_t inputs = counted(16 * 24 * es) + counted(24 * 32 * es);
        size_t one = counted(16 * 32 * es);
        assert_int_equal(be->mem.current, inputs);
        be->reset_peak(be);

        kbv_tensor res[1];
        assert_int_equal(kbv_graph_run(&g, be, in, NULL, res), KBV_OK);
        /* Eager PyTorch holds A, B, t0 and t1 while relu runs (t0 dies right
         * after), then A, B, t1 and out: never three intermediates. */
        assert_int_equal(be->mem.peak, inputs + 2 * one);
        assert_int_equal(be->mem.current, inputs + one);
        assert_int_equal(res[0].dtype, be->float_dtype);
        assert_int_equal(res[0].ndim, 2);
        assert_int_equal(res[0].stride[0], 32);
        for (int64_t i = 0; i < 16; i++)
            for (int64_t j = 0; j < 32; j++) {
                double sum = 0;
                for (int64_t k = 0; k < 24; k++)
                    sum += elem(&in[0], i * 24 + k) * elem(&in[1], k * 32 + j);
                double expect = 2.0 * (sum > 0 ? sum : 0.0);
                assert_true(fabs(elem(&res[0], i * 32 + j) - expect) <= 1e-5 * (1 + fabs(expect)));
            }
        be->release(be, res[0].data);
        be->release(be, in[0].data);
        be->release(be, in[1].data);
        assert_int_equal(be->mem.current, 0);
        kbv_backend_destroy(be);
    }
}

/* out = relu(X).T @ B: the transpose's base must outlive the view. */
static void test_view_keeps_base_alive(void **state)
{
    (void)state;
    kbv_backend *be = NULL;
    assert_int_equal(kbv_cpu_backend_create(KBV_MODE_FP32, &be), KBV_OK);
    const int64_t sx[] = {24, 16}, st[] = {16, 24}, sb[] = {24, 8}, so[] = {16, 8};
    kbv_graph g;
    hand_graph(&g);
    int X = add_value(&g, "X", KBV_VALUE_INPUT, 0, 2, sx);
    int B = add_value(&g, "B", KBV_VALUE_PARAM, 0, 2, sb);
    int r = add_value(&g, "r", KBV_VALUE_NODE, 0, 2, sx);
    int rt = add_value(&g, "rt", KBV_VALUE_NODE, 1, 2, st);
    int out = add_value(&g, "out", KBV_VALUE_NODE, 2, 2, so);
    kbv_node_def defs[3] = {{.op = KBV_OP_RELU, .out = "r"},
                            {.op = KBV_OP_TRANSPOSE, .out = "rt"},
                            {.op = KBV_OP_MATMUL, .out = "out"}};
    add_node(&g, &defs[0], X, -1, r);
    add_node(&g, &defs[1], r, -1, rt);
    add_node(&g, &defs[2], rt, B, out);
    add_output(&g, out);
    kbv_tensor x = input_tensor(be, 2, sx, 1.0), b = input_tensor(be, 2, sb, 0.5);
    size_t base = be->mem.current;
    be->reset_peak(be);
    kbv_tensor res[1];
    assert_int_equal(kbv_graph_run(&g, be, &x, &b, res), KBV_OK);
    /* r (alive through its view) and out coexist; the view allocates nothing */
    assert_int_equal(be->mem.peak, base + counted(24 * 16 * 4) + counted(16 * 8 * 4));
    assert_int_equal(be->mem.current, base + counted(16 * 8 * 4));
    for (int64_t i = 0; i < 16; i++)
        for (int64_t j = 0; j < 8; j++) {
            double sum = 0;
            for (int64_t k = 0; k < 24; k++) {
                double xv = elem(&x, k * 16 + i);
                sum += (xv > 0 ? xv : 0) * elem(&b, k * 8 + j);
            }
            assert_true(fabs(elem(&res[0], i * 8 + j) - sum) <= 1e-5 * (1 + fabs(sum)));
        }
    be->release(be, res[0].data);
    be->release(be, x.data);
    be->release(be, b.data);
    assert_int_equal(be->mem.current, 0);
    kbv_backend_destroy(be);
}

/* An intermediate nobody reads is dropped at once; an output that is an
 * input comes back as its own copy, and a contiguous view that walks the
 * whole of its block as that block (PyTorch returns the view itself). */
static void test_unused_and_aliased_outputs(void **state)
{
    (void)state;
    kbv_backend *be = NULL;
    assert_int_equal(kbv_cpu_backend_create(KBV_MODE_FP32, &be), KBV_OK);
    const int64_t sx[] = {1, 300}, sxt[] = {300, 1};
    kbv_graph g;
    hand_graph(&g);
    int X = add_value(&g, "X", KBV_VALUE_INPUT, 0, 2, sx);
    int dead = add_value(&g, "dead", KBV_VALUE_NODE, 0, 2, sx);
    int r = add_value(&g, "r", KBV_VALUE_NODE, 1, 2, sx);
    int rt = add_value(&g, "rt", KBV_VALUE_NODE, 2, 2, sxt);
    kbv_node_def defs[3] = {{.op = KBV_OP_TANH, .out = "dead"},
                            {.op = KBV_OP_ABS, .out = "r"},
                            {.op = KBV_OP_TRANSPOSE, .out = "rt"}};
    add_node(&g, &defs[0], X, -1, dead);
    add_node(&g, &defs[1], X, -1, r);
    add_node(&g, &defs[2], r, -1, rt);
    add_output(&g, rt);
    add_output(&g, X);
    kbv_tensor x = input_tensor(be, 2, sx, 1.0);
    size_t base = be->mem.current, one = counted(300 * 4);
    be->reset_peak(be);
    kbv_tensor res[2];
    assert_int_equal(kbv_graph_run(&g, be, &x, NULL, res), KBV_OK);
    /* never dead and r at once; at the end r (handed over as rt) and the
     * copy of X */
    assert_int_equal(be->mem.peak, base + 2 * one);
    assert_int_equal(be->mem.current, base + 2 * one);
    assert_int_equal(res[0].ndim, 2);
    assert_int_equal(res[0].shape[0], 300);
    assert_int_equal(res[0].stride[0], 1);
    assert_ptr_not_equal(res[1].data, x.data);
    for (int64_t i = 0; i < 300; i++) {
        assert_true(elem(&res[0], i) == fabs(elem(&x, i)));
        assert_true(elem(&res[1], i) == elem(&x, i));
    }
    be->release(be, res[0].data);
    be->release(be, res[1].data);
    be->release(be, x.data);
    assert_int_equal(be->mem.current, 0);
    kbv_backend_destroy(be);
}

/* out = relu_(x * 2) += x, ReLU(inplace=True) and += as in a ResNet block:
 * the in-place nodes write over t0's block and allocate nothing, and the
 * output is that block, handed over without a copy. */
static void test_in_place_allocates_nothing(void **state)
{
    (void)state;
    kbv_backend *be = NULL;
    assert_int_equal(kbv_cpu_backend_create(KBV_MODE_FP32, &be), KBV_OK);
    const int64_t sx[] = {16, 24};
    kbv_graph g;
    hand_graph(&g);
    int X = add_value(&g, "X", KBV_VALUE_INPUT, 0, 2, sx);
    int t0 = add_value(&g, "t0", KBV_VALUE_NODE, 0, 2, sx);
    int t1 = add_value(&g, "t1", KBV_VALUE_NODE, 1, 2, sx);
    int out = add_value(&g, "out", KBV_VALUE_NODE, 2, 2, sx);
    kbv_node_def defs[3] = {{.op = KBV_OP_MUL_SCALAR, .out = "t0", .f = {2.0}},
                            {.op = KBV_OP_RELU, .out = "t1", .in_place = 1},
                            {.op = KBV_OP_ADD, .out = "out", .in_place = 1}};
    add_node(&g, &defs[0], X, -1, t0);
    add_node(&g, &defs[1], t0, -1, t1);
    add_node(&g, &defs[2], t1, X, out);
    add_output(&g, out);
    kbv_tensor x = input_tensor(be, 2, sx, 0.5);
    size_t in = be->mem.current, one = counted(16 * 24 * sizeof(float));
    be->reset_peak(be);
    kbv_tensor res[1];
    assert_int_equal(kbv_graph_run(&g, be, &x, NULL, res), KBV_OK);
    assert_int_equal(be->mem.peak, in + one);
    assert_int_equal(be->mem.current, in + one);
    for (int64_t i = 0; i < 16 * 24; i++) {
        double v = elem(&x, i), want = fmax(2.0 * v, 0.0) + v;
        assert_true(fabs(elem(&res[0], i) - want) <= 1e-6);
    }
    be->release(be, res[0].data);
    be->release(be, x.data);
    assert_int_equal(be->mem.current, 0);
    kbv_backend_destroy(be);
}

/* Failures anywhere release everything the run allocated and clear outputs. */
static void test_errors_clean_up(void **state)
{
    (void)state;
    kbv_backend *be = NULL;
    assert_int_equal(kbv_cpu_backend_create(KBV_MODE_FP32, &be), KBV_OK);
    const int64_t sa[] = {8, 8}, sbad[] = {5, 8};
    kbv_tensor a = input_tensor(be, 2, sa, 1.0);
    size_t base = be->mem.current;
    kbv_tensor res[2];

    /* 1. an op this backend lacks, after two nodes ran */
    kbv_graph g;
    hand_graph(&g);
    int A = add_value(&g, "A", KBV_VALUE_INPUT, 0, 2, sa);
    int t0 = add_value(&g, "t0", KBV_VALUE_NODE, 0, 2, sa);
    int t1 = add_value(&g, "t1", KBV_VALUE_NODE, 1, 2, sa);
    int t2 = add_value(&g, "t2", KBV_VALUE_NODE, 2, 2, sa);
    kbv_node_def defs[3] = {{.op = KBV_OP_RELU, .out = "t0"},
                            {.op = KBV_OP_SIGMOID, .out = "t1"},
                            {.op = KBV_OP_MUL_SCALAR, .out = "t2", .f = {3}}};
    add_node(&g, &defs[0], A, -1, t0);
    add_node(&g, &defs[1], A, -1, t1);
    add_node(&g, &defs[2], t0, -1, t2);
    add_output(&g, t1);
    add_output(&g, t2);
    kbv_op_fn ops[KBV_OP_COUNT];
    memcpy(ops, be->ops, sizeof ops);
    ops[KBV_OP_MUL_SCALAR] = NULL;
    const kbv_op_fn *saved = be->ops;
    be->ops = ops;
    memset(res, 0xff, sizeof res);
    assert_int_equal(kbv_graph_run(&g, be, &a, NULL, res), KBV_ERR_UNSUPPORTED);
    assert_non_null(strstr(kbv_last_error(), "mul_scalar"));
    assert_int_equal(be->mem.current, base);
    assert_null(res[0].data);
    assert_null(res[1].data);
    be->ops = saved;
    /* the same graph runs with the full table */
    assert_int_equal(kbv_graph_run(&g, be, &a, NULL, res), KBV_OK);
    assert_true(elem(&res[1], 1) == 3.0f * fmaxf((float)elem(&a, 1), 0.0f));
    be->release(be, res[0].data);
    be->release(be, res[1].data);
    assert_int_equal(be->mem.current, base);

    /* 2. an op that fails on its operands: t0 [8,8] @ C [5,8], inner sizes differ */
    kbv_tensor ab[2] = {a, input_tensor(be, 2, sbad, 1.0)};
    size_t base2 = be->mem.current;
    hand_graph(&g);
    A = add_value(&g, "A", KBV_VALUE_INPUT, 0, 2, sa);
    int C = add_value(&g, "C", KBV_VALUE_INPUT, 1, 2, sbad);
    t0 = add_value(&g, "t0", KBV_VALUE_NODE, 0, 2, sa);
    t1 = add_value(&g, "t1", KBV_VALUE_NODE, 1, 2, sa);
    kbv_node_def d2[2] = {{.op = KBV_OP_TANH, .out = "t0"}, {.op = KBV_OP_MATMUL, .out = "t1"}};
    add_node(&g, &d2[0], A, -1, t0);
    add_node(&g, &d2[1], t0, C, t1);
    add_output(&g, t1);
    assert_int_equal(kbv_graph_run(&g, be, ab, NULL, res), KBV_ERR_INVALID);
    assert_int_equal(be->mem.current, base2);
    assert_null(res[0].data);
    be->release(be, ab[1].data);
    assert_int_equal(be->mem.current, base);

    /* 3. an output that is a non-contiguous view comes out as a contiguous
     * copy of its values (t1 = relu(A).T) */
    hand_graph(&g);
    A = add_value(&g, "A", KBV_VALUE_INPUT, 0, 2, sa);
    t0 = add_value(&g, "t0", KBV_VALUE_NODE, 0, 2, sa);
    t1 = add_value(&g, "t1", KBV_VALUE_NODE, 1, 2, sa);
    kbv_node_def d3[2] = {{.op = KBV_OP_RELU, .out = "t0"}, {.op = KBV_OP_TRANSPOSE, .out = "t1"}};
    add_node(&g, &d3[0], A, -1, t0);
    add_node(&g, &d3[1], t0, -1, t1);
    add_output(&g, t0);
    add_output(&g, t1);
    assert_int_equal(kbv_graph_run(&g, be, &a, NULL, res), KBV_OK);
    assert_true(kbv_tensor_is_contiguous(&res[1]));
    assert_ptr_not_equal(res[1].data, res[0].data);
    for (int64_t i = 0; i < 64; i++)
        assert_true(elem(&res[1], i) == elem(&res[0], (i % 8) * 8 + i / 8));
    be->release(be, res[0].data);
    be->release(be, res[1].data);
    assert_int_equal(be->mem.current, base);

    be->release(be, a.data);
    kbv_backend_destroy(be);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_in_place_allocates_nothing),
        cmocka_unit_test(test_chain_lifetimes),
        cmocka_unit_test(test_view_keeps_base_alive),
        cmocka_unit_test(test_unused_and_aliased_outputs),
        cmocka_unit_test(test_errors_clean_up),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
