/* The op table, the graph builder, the problem registry, the PyTorch
 * rendering's pieces and the speed-of-light bound. */
#include <ctype.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "support/test_problem.h"
#include "graph/problem_def.h"
#include "eval/verdict.h"
#include "graph/graph.h"
#include "graph/ops_table.h"
#include "graph/torch_render.h"
#include "eval/ceilings.h"

/* ------------------------------------------------------------- op table */

static void test_op_table_rows_complete(void **state)
{
    (void)state;
    for (int op = KBV_OP_NONE + 1; op < KBV_OP_COUNT; op++) {
        const kbv_op_info *info = &kbv_op_table[op];
        assert_non_null(info->name);
        assert_non_null(info->shape);
        assert_non_null(info->flops);
        assert_non_null(info->torch);
        /* a fixed count, or any count from min_args (cat), rendered as one list;
         * {*N} lists those from N on, after {0} ... {N-1} (an RNN's weights) */
        const char *list = strstr(info->torch, "{*");
        assert_true((info->n_args >= 1 && info->n_args <= KBV_STATIC_MAX_ARGS) ||
                    (info->n_args == -1 && info->min_args >= 1 && list));
        if (info->n_args == -1 && list[2] != '}') {
            int first = list[2] - '0';
            assert_true(first >= 1 && first <= info->min_args && list[3] == '}');
            for (int a = 0; a < first; a++) {
                char placeholder[4] = {'{', (char)('0' + a), '}', '\0'};
                assert_non_null(strstr(info->torch, placeholder));
            }
        }
        /* every operand appears in the rendering */
        for (int a = 0; a < info->n_args; a++) {
            char placeholder[4] = {'{', (char)('0' + a), '}', '\0'};
            assert_non_null(strstr(info->torch, placeholder));
        }
        for (int other = KBV_OP_NONE + 1; other < op; other++)
            assert_string_not_equal(info->name, kbv_op_table[other].name);
    }
    assert_null(kbv_op_table[KBV_OP_NONE].name);
    assert_true(kbv_op_table[KBV_OP_TRANSPOSE].is_view);
    assert_false(kbv_op_table[KBV_OP_DIAG].is_view);
    assert_false(kbv_op_table[KBV_OP_MATMUL].is_view);
}

/* ------------------------------------------- hand-built one-node problems */

/* A problem "L0/<id>" with inputs a (shape_a) and b (shape_b, may be NULL
 * for one operand) and one node. */
static kbv_problem_def one_node(kbv_op op, const char *const *shape_a, const char *const *shape_b)
{
    kbv_problem_def def;
    memset(&def, 0, sizeof def);
    def.level = 0;
    def.id = 7;
    def.name = "7_Test";
    def.dims[0] = (kbv_dim_def){"K", 5, 3};
    def.inputs[0].name = "a";
    def.inputs[0].dtype = KBV_F32;
    def.inputs[0].gen = KBV_GEN_RANDN;
    for (int d = 0; shape_a[d]; d++)
        def.inputs[0].shape[d] = shape_a[d];
    def.nodes[0].op = op;
    def.nodes[0].args[0] = "a";
    def.nodes[0].out = "out";
    if (shape_b) {
        def.inputs[1].name = "b";
        def.inputs[1].dtype = KBV_F32;
        def.inputs[1].gen = KBV_GEN_RAND;
        for (int d = 0; shape_b[d]; d++)
            def.inputs[1].shape[d] = shape_b[d];
        def.nodes[0].args[1] = "b";
    }
    return def;
}

static void assert_out_shape(const kbv_graph *g, int ndim, const int64_t *shape)
{
    const kbv_value *out = &g->values[g->outputs[0]];
    assert_int_equal(out->ndim, ndim);
    for (int d = 0; d < ndim; d++)
        assert_int_equal(out->shape[d], shape[d]);
}

static kbv_graph graph;

static void test_matmul_shapes(void **state)
{
    (void)state;
    {
        const char *a[] = {"16", "1024", "K", NULL}, *b[] = {"K", "768", NULL};
        kbv_problem_def def = one_node(KBV_OP_MATMUL, a, b);
        assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_OK);
        assert_out_shape(&graph, 3, (int64_t[]){16, 1024, 768});
        assert_true(kbv_graph_flops(&graph) == 2.0 * 16 * 1024 * 768 * 5);
    }
    {
        const char *a[] = {"2048", "K", NULL}, *b[] = {"K", "1", NULL};
        kbv_problem_def def = one_node(KBV_OP_MATMUL, a, b);
        assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_SMALL, &graph), KBV_OK);
        assert_out_shape(&graph, 2, (int64_t[]){2048, 1});
    }
    { /* 1-D x 1-D: a dot product, 0-dim */
        const char *a[] = {"K", NULL}, *b[] = {"K", NULL};
        kbv_problem_def def = one_node(KBV_OP_MATMUL, a, b);
        assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_OK);
        assert_out_shape(&graph, 0, NULL);
        assert_true(kbv_graph_flops(&graph) == 10.0);
    }
    { /* 2-D x 1-D and 1-D x 3-D */
        const char *a[] = {"4", "K", NULL}, *b[] = {"K", NULL};
        kbv_problem_def def = one_node(KBV_OP_MATMUL, a, b);
        assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_OK);
        assert_out_shape(&graph, 1, (int64_t[]){4});
        const char *c[] = {"K", NULL}, *d[] = {"2", "K", "6", NULL};
        def = one_node(KBV_OP_MATMUL, c, d);
        assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_OK);
        assert_out_shape(&graph, 2, (int64_t[]){2, 6});
    }
    { /* batch dims broadcast */
        const char *a[] = {"3", "1", "4", "K", NULL}, *b[] = {"2", "K", "6", NULL};
        kbv_problem_def def = one_node(KBV_OP_MATMUL, a, b);
        assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_OK);
        assert_out_shape(&graph, 4, (int64_t[]){3, 2, 4, 6});
    }
    { /* inner sizes differ: the message names the problem and node */
        const char *a[] = {"4", "K", NULL}, *b[] = {"6", "4", NULL};
        kbv_problem_def def = one_node(KBV_OP_MATMUL, a, b);
        assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_ERR_INVALID);
        assert_non_null(strstr(kbv_last_error(), "L0/7"));
        assert_non_null(strstr(kbv_last_error(), "node 'out' (matmul)"));
        assert_non_null(strstr(kbv_last_error(), "inner sizes differ"));
    }
    { /* batch dims that do not broadcast */
        const char *a[] = {"3", "4", "K", NULL}, *b[] = {"2", "K", "6", NULL};
        kbv_problem_def def = one_node(KBV_OP_MATMUL, a, b);
        assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_ERR_INVALID);
    }
}

static void test_bmm_einsum_shapes(void **state)
{
    (void)state;
    const char *a3[] = {"2", "4", "K", NULL}, *b3[] = {"2", "K", "6", NULL};
    kbv_problem_def def = one_node(KBV_OP_BMM, a3, b3);
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_OK);
    assert_out_shape(&graph, 3, (int64_t[]){2, 4, 6});
    const char *b3bad[] = {"3", "K", "6", NULL};
    def = one_node(KBV_OP_BMM, a3, b3bad);
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_ERR_INVALID);

    const char *a4[] = {"2", "3", "4", "K", NULL}, *b2[] = {"K", "6", NULL};
    def = one_node(KBV_OP_EINSUM, a4, b2);
    def.nodes[0].s = "bijl,lk->bijk";
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_OK);
    assert_out_shape(&graph, 4, (int64_t[]){2, 3, 4, 6});
    assert_true(kbv_graph_flops(&graph) == 2.0 * 2 * 3 * 4 * 6 * 5);
    static const char *const rejected[] = {
        "bijl,lk->bjik", /* permuted output */
        "bijl,kl->bijk", /* second operand transposed */
        "bijj,jk->bijk", /* repeated label */
        "bijl,lk->bij",  /* a reduction */
        "bijl,lk",       /* no output */
        "bij...,lk->bijk",
    };
    for (size_t r = 0; r < sizeof rejected / sizeof rejected[0]; r++) {
        def.nodes[0].s = rejected[r];
        assert_int_not_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_OK);
        assert_non_null(strstr(kbv_last_error(), "einsum"));
    }
}

static void test_layout_shapes(void **state)
{
    (void)state;
    const char *a2[] = {"4", "K", NULL}, *a3[] = {"2", "4", "K", NULL}, *a1[] = {"K", NULL};
    kbv_problem_def def = one_node(KBV_OP_TRANSPOSE, a2, NULL);
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_OK);
    assert_out_shape(&graph, 2, (int64_t[]){5, 4});
    assert_true(kbv_graph_flops(&graph) == 0.0);
    def = one_node(KBV_OP_TRANSPOSE, a3, NULL);
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_ERR_INVALID);

    def = one_node(KBV_OP_DIAG, a1, NULL);
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_OK);
    assert_out_shape(&graph, 2, (int64_t[]){5, 5});
    def = one_node(KBV_OP_DIAG, a2, NULL);
    assert_int_not_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_OK);

    def = one_node(KBV_OP_TRIU, a3, NULL);
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_OK);
    assert_out_shape(&graph, 3, (int64_t[]){2, 4, 5});
    def = one_node(KBV_OP_TRIL, a1, NULL);
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_ERR_INVALID);
}

static void test_elementwise_shapes(void **state)
{
    (void)state;
    const char *m[] = {"3", "K", NULL}, *col[] = {"3", "1", NULL}, *row[] = {"K", NULL},
               *scalar[] = {NULL}, *bad[] = {"3", NULL};
    kbv_problem_def def = one_node(KBV_OP_MUL, m, scalar);
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_OK);
    assert_out_shape(&graph, 2, (int64_t[]){3, 5});
    assert_true(kbv_graph_flops(&graph) == 15.0);

    def = one_node(KBV_OP_ADD, col, row);
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_OK);
    assert_out_shape(&graph, 2, (int64_t[]){3, 5});

    def = one_node(KBV_OP_SUB, m, bad);
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_ERR_INVALID);
    assert_non_null(strstr(kbv_last_error(), "broadcast"));

    def = one_node(KBV_OP_SOFTMAX, m, NULL);
    def.nodes[0].i[0] = -1;
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_OK);
    assert_true(kbv_graph_flops(&graph) == 5.0 * 15);
    def.nodes[0].i[0] = 2;
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_ERR_INVALID);
    def.nodes[0].i[0] = -3;
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_ERR_INVALID);

    def = one_node(KBV_OP_HARDTANH, m, NULL);
    def.nodes[0].f[0] = 1.0;
    def.nodes[0].f[1] = -1.0;
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_ERR_INVALID);

    /* integer tensors: abs keeps int64, sigmoid and division give float32 */
    def = one_node(KBV_OP_ABS, m, NULL);
    def.inputs[0].dtype = KBV_I64;
    def.inputs[0].gen = KBV_GEN_RANDINT;
    def.inputs[0].high = 10;
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_OK);
    assert_int_equal(graph.values[graph.outputs[0]].dtype, KBV_I64);
    def.nodes[0].op = KBV_OP_SIGMOID;
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_OK);
    assert_int_equal(graph.values[graph.outputs[0]].dtype, KBV_F32);
}

static void test_build_errors_name_the_culprit(void **state)
{
    (void)state;
    const char *m[] = {"3", "Q", NULL};
    kbv_problem_def def = one_node(KBV_OP_RELU, m, NULL);
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_ERR_INVALID);
    assert_non_null(strstr(kbv_last_error(), "L0/7"));
    assert_non_null(strstr(kbv_last_error(), "unknown dim 'Q'"));

    const char *ok[] = {"3", "K", NULL};
    def = one_node(KBV_OP_RELU, ok, NULL);
    def.nodes[0].args[0] = "missing";
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_ERR_INVALID);
    assert_non_null(strstr(kbv_last_error(), "unknown operand 'missing'"));

    def = one_node(KBV_OP_RELU, ok, NULL);
    def.nodes[0].out = "a"; /* same name as the input */
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_ERR_INVALID);
    assert_non_null(strstr(kbv_last_error(), "already used"));

    def = one_node(KBV_OP_ADD, ok, NULL); /* one operand for a binary op */
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_ERR_INVALID);
    assert_non_null(strstr(kbv_last_error(), "1 operands given, 2 expected"));

    def = one_node(KBV_OP_RELU, ok, NULL);
    def.outputs[0] = "a"; /* an input is not a node output */
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_ERR_INVALID);

    def = one_node(KBV_OP_RELU, ok, NULL);
    def.inputs[0].structure = KBV_STRUCT_TRIU; /* not square */
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_ERR_INVALID);

    def = one_node(KBV_OP_RELU, ok, NULL);
    int64_t dims[1] = {0};
    assert_int_equal(kbv_graph_build_dims(kbv_test_problem(&def), dims, &graph), KBV_ERR_INVALID);
    dims[0] = 11;
    assert_int_equal(kbv_graph_build_dims(kbv_test_problem(&def), dims, &graph), KBV_OK);
    assert_int_equal(graph.values[graph.outputs[0]].shape[1], 11);
}

/* The hidden configs are checked when a problem is built: D1-D4 bits with
 * their reason, one left; an extra labelled H<digits>, once, replacing a
 * float tensor input by a known pattern. */
static void test_hidden_configs_checked(void **state)
{
    (void)state;
    const char *ok[] = {"3", "K", NULL};
    kbv_problem_def def = one_node(KBV_OP_RELU, ok, NULL);
    def.inputs[1] = (kbv_input_def){.name = "n", .dtype = KBV_I64, .shape = {"K"},
                                    .gen = KBV_GEN_RANDINT, .low = 0, .high = 4};
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_SMALL, &graph), KBV_OK);

    kbv_problem_def bad = def;
    bad.hidden.omit = KBV_OMIT_D4;   /* no reason */
    assert_int_equal(kbv_graph_build(kbv_test_problem(&bad), KBV_SIZE_SMALL, &graph), KBV_ERR_INVALID);
    assert_non_null(strstr(kbv_last_error(), "reason"));
    bad.hidden.omit_why = "why";
    assert_int_equal(kbv_graph_build(kbv_test_problem(&bad), KBV_SIZE_SMALL, &graph), KBV_OK);
    bad.hidden.omit = KBV_OMIT_D1 | KBV_OMIT_D2 | KBV_OMIT_D3 | KBV_OMIT_D4;
    assert_int_equal(kbv_graph_build(kbv_test_problem(&bad), KBV_SIZE_SMALL, &graph), KBV_ERR_INVALID);
    bad.hidden.omit = 1u << 4;
    assert_int_equal(kbv_graph_build(kbv_test_problem(&bad), KBV_SIZE_SMALL, &graph), KBV_ERR_INVALID);

    const kbv_extra_config_def good = {.label = "H5", .input = "a",
                                       .pattern = KBV_PATTERN_ALT_SIGNS, .what = "w"};
    bad = def;
    bad.hidden.extra[0] = good;
    assert_int_equal(kbv_graph_build(kbv_test_problem(&bad), KBV_SIZE_SMALL, &graph), KBV_OK);
    bad.hidden.extra[1] = good;   /* twice */
    assert_int_equal(kbv_graph_build(kbv_test_problem(&bad), KBV_SIZE_SMALL, &graph), KBV_ERR_INVALID);
    assert_non_null(strstr(kbv_last_error(), "H5"));
    bad.hidden.extra[1].label = "D5";   /* a distribution's name */
    assert_int_equal(kbv_graph_build(kbv_test_problem(&bad), KBV_SIZE_SMALL, &graph), KBV_ERR_INVALID);
    bad.hidden.extra[1].label = "H6";
    bad.hidden.extra[1].input = "n";   /* an integer input */
    assert_int_equal(kbv_graph_build(kbv_test_problem(&bad), KBV_SIZE_SMALL, &graph), KBV_ERR_INVALID);
    assert_non_null(strstr(kbv_last_error(), "'n' is not a float tensor input"));
    bad.hidden.extra[1].input = "missing";
    assert_int_equal(kbv_graph_build(kbv_test_problem(&bad), KBV_SIZE_SMALL, &graph), KBV_ERR_INVALID);
    bad.hidden.extra[1].input = "a";
    bad.hidden.extra[1].pattern = KBV_PATTERN_NONE;
    assert_int_equal(kbv_graph_build(kbv_test_problem(&bad), KBV_SIZE_SMALL, &graph), KBV_ERR_INVALID);
    bad.hidden.extra[1].pattern = KBV_PATTERN_ALT_SIGNS;
    assert_int_equal(kbv_graph_build(kbv_test_problem(&bad), KBV_SIZE_SMALL, &graph), KBV_OK);

    /* the suite's: only L1/90, L1/98 and L1/100 differ from D1-D4 at level 1 */
    for (int i = 0; i < kbv_problem_count(); i++) {
        const kbv_problem *p = kbv_problem_at(i);
        if (p->level != 1)
            continue;
        unsigned omit = p->id == 90 ? KBV_OMIT_D2 : p->id == 98 ? KBV_OMIT_D4 : 0;
        if (p->hidden.omit != omit)
            fail_msg("L1/%d omits 0x%x", p->id, p->hidden.omit);
        assert_true(!omit || p->hidden.omit_why);
        if (p->id == 100) {
            assert_string_equal(p->hidden.extra[0].label, "H5");
            assert_string_equal(p->hidden.extra[0].input, "targets");
            assert_int_equal(p->hidden.extra[0].pattern, KBV_PATTERN_ALT_SIGNS);
            assert_null(p->hidden.extra[1].label);
        } else if (p->hidden.extra[0].label) {
            fail_msg("L1/%d has an extra config", p->id);
        }
    }
    /* at level 2 every hidden test is D1-D4 (hidden_tests/level2/N_hidden.py) */
    for (int i = 0; i < kbv_problem_count(); i++) {
        const kbv_problem *p = kbv_problem_at(i);
        if (p->level == 2 && (p->hidden.omit || p->hidden.extra[0].label))
            fail_msg("L2/%d differs from D1-D4", p->id);
    }
}

/* ------------------------------------------------------------- registry */

static void test_find_variants(void **state)
{
    (void)state;
    const kbv_problem *relu = kbv_problem_find("L1/19");
    assert_non_null(relu);
    assert_string_equal(relu->name, "19_ReLU");
    assert_ptr_equal(kbv_problem_find("l1/19"), relu);
    assert_ptr_equal(kbv_problem_find("1/19"), relu);
    assert_ptr_equal(kbv_problem_find("L1/19_ReLU"), relu);
    assert_ptr_equal(kbv_problem_find("l1/19_relu"), relu);
    assert_string_equal(kbv_problem_find("L1/1_Square_matrix_multiplication_")->name,
                        "1_Square_matrix_multiplication_");
    static const char *const unknown[] = {"L1/999", "L9/1", "L1/19_Tanh", "", "L1/", "L1/19x",
                                          "L1/-19", "19_ReLU", "L1 /19", "LL1/19"};
    for (size_t u = 0; u < sizeof unknown / sizeof unknown[0]; u++)
        assert_null(kbv_problem_find(unknown[u]));
    assert_null(kbv_problem_find(NULL));
    char key[32];
    assert_string_equal(kbv_problem_key(relu, key, sizeof key), "L1/19");
    assert_null(kbv_problem_at(-1));
    assert_null(kbv_problem_at(kbv_problem_count()));
}

static void test_registry_order_and_keys_unique(void **state)
{
    (void)state;
    int n = kbv_problem_count();
    assert_true(n >= 32);
    for (int i = 0; i < n; i++) {
        const kbv_problem *def = kbv_problem_at(i);
        char key[32];
        kbv_problem_key(def, key, sizeof key);
        assert_ptr_equal(kbv_problem_find(key), def);
        if (i > 0) {
            const kbv_problem *prev = kbv_problem_at(i - 1);
            assert_true(prev->level < def->level ||
                        (prev->level == def->level && prev->id < def->id));
        }
    }
    for (int id = 1; id <= 32; id++) {
        char key[16];
        snprintf(key, sizeof key, "L1/%d", id);
        assert_non_null(kbv_problem_find(key));
    }
    for (int id = 1; id <= 100; id++) {
        char key[16];
        snprintf(key, sizeof key, "L2/%d", id);
        const kbv_problem *def = kbv_problem_find(key);
        assert_non_null(def);
        assert_int_equal(def->level, 2);
        assert_int_equal(def->id, id);
    }
    assert_ptr_equal(kbv_problem_find("L2/1_conv2d_relu_biasadd"), kbv_problem_find("L2/1"));
}

/* A model whose first input's last dim is a literal ("batch_size,3,224,224"):
 * its module fixes the image, so the small size keeps it. */
static bool image_fixed_by_module(const kbv_problem *def)
{
    if (def->n_inputs < 1)
        return false;
    const kbv_input_def *in = &def->inputs[0];
    int last = -1;
    for (int d = 0; d < KBV_MAX_DIMS && in->shape[d]; d++)
        last = d;
    return last >= 2 && isdigit((unsigned char)in->shape[last][0]);
}

static void test_every_problem_builds(void **state)
{
    (void)state;
    for (int i = 0; i < kbv_problem_count(); i++) {
        const kbv_problem *def = kbv_problem_at(i);
        for (int s = 0; s < 2; s++) {
            kbv_status st = kbv_graph_build(def, (kbv_size)s, &graph);
            if (st != KBV_OK)
                fail_msg("%s: %s", def->name, kbv_last_error());
            assert_true(graph.n_outputs >= 1);
            assert_true(kbv_graph_flops(&graph) >= 0.0);
            assert_true(kbv_graph_min_bytes(&graph) > 0.0);
        }
        /* small shapes stay small: at most a few ten thousand elements; a whole
         * model (level 3) keeps its module's widths, so its params are what they
         * are, and its inputs and activations stay under a million elements, or
         * four million where the module fixes the image (VGG's classifier takes
         * 512 * 7 * 7 features: one 224x224 image through 64 channels) */
        assert_int_equal(kbv_graph_build(def, KBV_SIZE_SMALL, &graph), KBV_OK);
        const bool model = def->level >= 3;
        const int64_t most = !model ? 40000 : image_fixed_by_module(def) ? (1 << 22) : (1 << 20);
        for (int v = 0; v < graph.n_values; v++) {
            const kbv_value *val = &graph.values[v];
            if (model && val->kind == KBV_VALUE_PARAM)
                continue;
            if (kbv_value_numel(val) > most)
                fail_msg("%s: small '%s' has %lld elements", def->name, val->name,
                         (long long)kbv_value_numel(val));
        }
    }
}

/* --------------------------------------------------- against the catalog */

static FILE *open_catalog(void)
{
    static const char *const paths[] = {
        KBV_TEST_SOURCE_DIR "/../shared/catalog/kernelbench_problems.tsv",
        "/work/shared/catalog/kernelbench_problems.tsv",
        KBV_TEST_SOURCE_DIR "/tests/data/kernelbench_problems.tsv",
    };
    for (size_t p = 0; p < sizeof paths / sizeof paths[0]; p++) {
        FILE *f = fopen(paths[p], "r");
        if (f)
            return f;
    }
    return NULL;
}

/* The catalog's "out [a,b,c]" of a row, into shape; returns ndim or -1. */
static int catalog_out_shape(const char *line, int64_t *shape)
{
    const char *p = strstr(line, "out [");
    if (!p)
        return -1;
    p += 5;
    int n = 0;
    while (*p && *p != ']' && n < KBV_MAX_DIMS) {
        char *end = NULL;
        shape[n++] = strtoll(p, &end, 10);
        if (end == p)
            return -1;
        p = *end == ',' ? end + 1 : end;
    }
    return *p == ']' ? n : -1;
}

static void test_full_shapes_match_catalog(void **state)
{
    (void)state;
    FILE *f = open_catalog();
    assert_non_null(f);
    char line[8192];
    int checked = 0;
    while (fgets(line, sizeof line, f)) {
        int level = 0, id = 0;
        char name[256];
        if (sscanf(line, "%d\t%d\t%255[^\t]", &level, &id, name) != 3)
            continue;
        char key[32];
        snprintf(key, sizeof key, "L%d/%d", level, id);
        const kbv_problem *def = kbv_problem_find(key);
        if (!def)
            continue;
        assert_string_equal(def->name, name);
        int64_t shape[KBV_MAX_DIMS];
        int ndim = catalog_out_shape(line, shape);
        assert_true(ndim >= 0);
        assert_int_equal(kbv_graph_build(def, KBV_SIZE_FULL, &graph), KBV_OK);
        const kbv_value *out = &graph.values[graph.outputs[0]];
        if (out->ndim != ndim)
            fail_msg("%s: %d output dims, catalog has %d", key, out->ndim, ndim);
        for (int d = 0; d < ndim; d++)
            if (out->shape[d] != shape[d])
                fail_msg("%s: output dim %d is %lld, catalog has %lld", key, d,
                         (long long)out->shape[d], (long long)shape[d]);
        checked++;
    }
    fclose(f);
    assert_int_equal(checked, kbv_problem_count());
}

/* ------------------------------------------------------------- counts */

static void test_counts(void **state)
{
    (void)state;
    assert_int_equal(kbv_graph_build(kbv_problem_find("L1/1"), KBV_SIZE_FULL, &graph), KBV_OK);
    assert_true(kbv_graph_flops(&graph) == 2.0 * 4096.0 * 4096.0 * 4096.0);
    assert_true(kbv_graph_min_bytes(&graph) == 3.0 * 4096 * 4096 * 4);

    assert_int_equal(kbv_graph_build(kbv_problem_find("L1/11"), KBV_SIZE_FULL, &graph), KBV_OK);
    assert_true(kbv_graph_flops(&graph) == 2.0 * 8 * 256 * 512 * 768 * 256);

    /* L1/5: the 0-dim scalar counts 4 bytes */
    assert_int_equal(kbv_graph_build(kbv_problem_find("L1/5"), KBV_SIZE_FULL, &graph), KBV_OK);
    assert_int_equal(graph.values[1].ndim, 0);
    assert_true(kbv_graph_min_bytes(&graph) == 2.0 * 65536 * 16384 * 4 + 4);

    /* L1/25: sigmoid (4) and multiply (1) per element */
    assert_int_equal(kbv_graph_build(kbv_problem_find("L1/25"), KBV_SIZE_SMALL, &graph), KBV_OK);
    assert_int_equal(graph.n_nodes, 2);
    assert_true(kbv_graph_flops(&graph) == 5.0 * 7 * 301);
    /* the intermediate is not counted in the minimum bytes */
    assert_true(kbv_graph_min_bytes(&graph) == 2.0 * 7 * 301 * 4);
}

static void test_last_use_and_outputs(void **state)
{
    (void)state;
    /* L1/30: a = abs(x); d = 1 + a; y = x / d */
    assert_int_equal(kbv_graph_build(kbv_problem_find("L1/30"), KBV_SIZE_SMALL, &graph), KBV_OK);
    assert_int_equal(graph.n_inputs, 1);
    assert_int_equal(graph.n_params, 0);
    assert_int_equal(graph.n_nodes, 3);
    assert_int_equal(graph.n_values, 4);
    assert_string_equal(graph.values[0].name, "x");
    assert_int_equal(graph.values[0].last_use, 2);
    assert_int_equal(graph.values[1].last_use, 1);
    assert_int_equal(graph.values[2].last_use, 2);
    assert_int_equal(graph.values[3].last_use, -1);
    assert_int_equal(graph.n_outputs, 1);
    assert_int_equal(graph.outputs[0], 3);
    assert_true(graph.values[3].is_output);
    assert_false(graph.values[1].is_output);
    assert_int_equal(graph.nodes[2].args[0], 0);
    assert_int_equal(graph.nodes[2].args[1], 2);

    kbv_tensor t;
    kbv_value_tensor(&graph.values[3], &t);
    assert_null(t.data);
    assert_int_equal(t.ndim, 2);
    assert_int_equal(t.shape[0], 7);
    assert_int_equal(t.shape[1], 301);
    assert_int_equal(t.stride[0], 301);
    assert_int_equal(t.stride[1], 1);
    assert_string_equal(t.name, "y");
}

static void test_dtypes(void **state)
{
    (void)state;
    assert_int_equal(kbv_dtype_size(KBV_F32), 4);
    assert_int_equal(kbv_dtype_size(KBV_F64), 8);
    assert_int_equal(kbv_dtype_size(KBV_BF16), 2);
    assert_int_equal(kbv_dtype_size(KBV_I64), 8);
    assert_int_equal(kbv_dtype_size(KBV_BOOL), 1);
    assert_string_equal(kbv_dtype_name(KBV_F32), "float32");
    assert_string_equal(kbv_dtype_name(KBV_I64), "int64");
}

/* ------------------------------------------------------------- rendering */

static void test_render_float(void **state)
{
    (void)state;
    static const struct { double v; const char *repr; } cases[] = {
        {1.0, "1.0"},   {0.01, "0.01"},   {3.14, "3.14"},     {-1.0, "-1.0"},
        {1e-05, "1e-05"}, {0.1 + 0.2, "0.30000000000000004"}, {1e16, "1e+16"},
    };
    char buf[64];
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        kbv_render_float(cases[c].v, buf, sizeof buf);
        assert_string_equal(buf, cases[c].repr);
    }
}

static char *render(const char *key, kbv_size size)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    assert_int_equal(kbv_render_torch(kbv_problem_find(key), size, f), KBV_OK);
    fclose(f);
    return text;
}

static void test_render_torch(void **state)
{
    (void)state;
    char *t = render("L1/30", KBV_SIZE_SMALL);
    assert_non_null(strstr(t, "class Model(nn.Module):"));
    assert_non_null(strstr(t, "    def forward(self, x):\n"
                              "        a = torch.abs(x)\n"
                              "        d = (1.0 + a)\n"
                              "        del a\n"
                              "        y = (x / d)\n"
                              "        del d\n"
                              "        return y\n"));
    assert_non_null(strstr(t, "batch_size = 7\ndim = 301\n"));
    assert_non_null(strstr(t, "    x = torch.rand(batch_size, dim)\n    return [x]\n"));
    assert_non_null(strstr(t, "def get_init_inputs():\n    return []\n"));
    free(t);

    t = render("L1/5", KBV_SIZE_FULL);
    assert_non_null(strstr(t, "    s = 3.14\n    return [A, s]\n"));
    assert_non_null(strstr(t, "M = 65536\nN = 16384\n"));
    free(t);

    t = render("L1/13", KBV_SIZE_SMALL);
    assert_non_null(strstr(t, "    A = torch.rand(N, N)\n    A = (A + A.T) / 2\n"));
    free(t);

    t = render("L1/14", KBV_SIZE_SMALL);
    assert_non_null(strstr(t, "    A = torch.triu(torch.rand(N, N))\n"));
    assert_non_null(strstr(t, "        C = torch.triu(P, diagonal=0)\n"));
    free(t);

    t = render("L1/31", KBV_SIZE_SMALL);
    assert_non_null(strstr(t, "    def __init__(self, alpha):\n        super().__init__()\n"
                              "        self.alpha = alpha\n"));
    assert_non_null(strstr(t, "torch.nn.functional.elu(x, alpha=1.0)"));
    assert_non_null(strstr(t, "def get_init_inputs():\n    return [1.0]\n"));
    free(t);

    t = render("L1/11", KBV_SIZE_SMALL);
    assert_non_null(strstr(t, "C = torch.einsum(\"bijl,lk->bijk\", A, B)"));
    free(t);
}

/* Params: dotted state_dict names become nested modules, declared once. */
static void test_render_params(void **state)
{
    (void)state;
    const char *m[] = {"3", "K", NULL};
    kbv_problem_def def = one_node(KBV_OP_ADD, m, NULL);
    def.nodes[0].args[1] = "bn.bias";
    def.params[0] = (kbv_param_def){.name = "bn.weight", .dtype = KBV_F32, .shape = {"K"},
                                    .init = KBV_INIT_ONES};
    def.params[1] = (kbv_param_def){.name = "bn.bias", .dtype = KBV_F32, .shape = {"K"},
                                    .init = KBV_INIT_RANDN};
    def.params[2] = (kbv_param_def){.name = "bn.running_mean", .dtype = KBV_F32,
                                    .shape = {"K"}, .init = KBV_INIT_ZEROS, .is_buffer = 1};
    /* fan_in derived: fc.weight [K, 16] has 16, fc.bias takes fc.weight's */
    def.params[3] = (kbv_param_def){.name = "fc.weight", .dtype = KBV_F32, .shape = {"K", "16"},
                                    .init = KBV_INIT_UNIFORM_FAN_IN};
    def.params[4] = (kbv_param_def){.name = "fc.bias", .dtype = KBV_F32, .shape = {"K"},
                                    .init = KBV_INIT_UNIFORM_FAN_IN};
    def.params[5] = (kbv_param_def){.name = "scale", .dtype = KBV_F32,
                                    .init = KBV_INIT_CONST, .value = 0.5};
    def.params[6] = (kbv_param_def){.name = "shift", .dtype = KBV_F32, .shape = {"1", "K"},
                                    .init = KBV_INIT_CONST, .value = 0.02};
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_int_equal(kbv_render_torch(kbv_test_problem(&def), KBV_SIZE_SMALL, f), KBV_OK);
    fclose(f);
    assert_non_null(strstr(text, "import math\n"));
    assert_non_null(strstr(text, "        self.bn = nn.Module()\n"
                                 "        self.bn.weight = nn.Parameter(torch.ones(K))\n"
                                 "        self.bn.bias = nn.Parameter(torch.randn(K))\n"
                                 "        self.bn.register_buffer(\"running_mean\", "
                                 "torch.zeros(K))\n"
                                 "        self.fc = nn.Module()\n"
                                 "        self.fc.weight = nn.Parameter(torch.empty(K, 16).uniform_("
                                 "-1 / math.sqrt(16), 1 / math.sqrt(16)))\n"
                                 "        self.fc.bias = nn.Parameter(torch.empty(K).uniform_("
                                 "-1 / math.sqrt(16), 1 / math.sqrt(16)))\n"
                                 "        self.scale = nn.Parameter(torch.tensor(0.5))\n"
                                 "        self.shift = nn.Parameter(torch.ones(1, K) * 0.02)\n"));
    assert_non_null(strstr(text, "        out = (a + self.bn.bias)\n"));
    assert_null(strstr(strstr(text, "self.bn = nn.Module()") + 1, "self.bn = nn.Module()"));
    free(text);
}

/* The fan_in every level-1 problem file carried by hand until it was
 * derived from the shape: the derivation gives the same at the catalog's
 * size (the values PyTorch's nn.Conv*d / ConvTranspose*d compute). */
static const struct {
    int id;
    const char *param;
    int64_t fan_in;
} written_fan_in[] = {
    {50, "conv1.weight", 363},
    {50, "conv1.bias", 363},
    {54, "conv3d.weight", 81},
    {55, "conv2d.weight", 576},
    {56, "conv2d.weight", 2240},
    {57, "conv_transpose2d.weight", 576},
    {58, "conv_transpose3d.weight", 1680},
    {59, "conv3d.weight", 27},
    {60, "conv3d.weight", 315},
    {61, "conv_transpose3d.weight", 1296},
    {62, "conv2d.weight", 1440},
    {63, "conv2d.weight", 144},
    {64, "conv1d_transpose.weight", 384},
    {65, "conv_transpose2d.weight", 1344},
    {66, "conv3d.weight", 315},
    {67, "conv1d.weight", 192},
    {68, "conv_transpose3d.weight", 4800},
    {69, "conv_transpose2d.weight", 1920},
    {70, "conv_transpose3d.weight", 648},
    {71, "conv_transpose2d.weight", 288},
    {72, "conv_transpose3d.weight", 840},
    {73, "conv_transpose3d.weight", 864},
    {74, "conv1d_transpose.weight", 320},
    {75, "conv_transpose2d.weight", 240},
    {76, "conv1d.weight", 192},
    {77, "conv_transpose3d.weight", 1728},
    {78, "conv_transpose2d.weight", 672},
    {79, "conv1d_transpose.weight", 192},
    {80, "conv2d.weight", 1440},
    {81, "conv_transpose2d.weight", 576},
    {82, "conv2d.weight", 9},
    {83, "conv2d.weight", 3},
    {84, "conv2d.weight", 9},
    {85, "conv2d.weight", 21},
    {86, "depthwise.weight", 9},
    {86, "pointwise.weight", 64},
    {87, "conv1d.weight", 64},
};

static void test_fan_in_derived(void **state)
{
    (void)state;
    int checked = 0;
    for (size_t r = 0; r < sizeof written_fan_in / sizeof written_fan_in[0]; r++) {
        char key[16];
        snprintf(key, sizeof key, "L1/%d", written_fan_in[r].id);
        const kbv_problem *def = kbv_problem_find(key);
        assert_non_null(def);
        assert_int_equal(kbv_graph_build(def, KBV_SIZE_FULL, &graph), KBV_OK);
        bool found = false;
        for (int p = 0; p < graph.n_params; p++) {
            const kbv_value *v = &graph.values[graph.n_inputs + p];
            if (strcmp(v->name, written_fan_in[r].param))
                continue;
            int64_t fan_in = 0;
            assert_int_equal(kbv_param_fan_in(&graph, p, &fan_in), KBV_OK);
            if (fan_in != written_fan_in[r].fan_in)
                fail_msg("%s %s: derived fan_in %lld, written %lld", key, v->name,
                         (long long)fan_in, (long long)written_fan_in[r].fan_in);
            assert_int_equal(v->fan_in, fan_in);
            found = true;
        }
        assert_true(found);
        checked++;
    }
    assert_int_equal(checked, 37);
    /* every uniform param of every problem has one, and no file writes it */
    for (int i = 0; i < kbv_problem_count(); i++) {
        const kbv_problem *def = kbv_problem_at(i);
        assert_int_equal(kbv_graph_build(def, KBV_SIZE_SMALL, &graph), KBV_OK);
        for (int p = 0; p < graph.n_params; p++) {
            const kbv_param_def *pd = &def->params[graph.values[graph.n_inputs + p].def_index];
            if (pd->init == KBV_INIT_UNIFORM_FAN_IN)
                assert_true(graph.values[graph.n_inputs + p].fan_in > 0);
            assert_int_equal(pd->fan_in, 0);
        }
    }
    /* a written fan_in that the shape contradicts, and a bias without a weight */
    const char *m[] = {"3", "K", NULL};
    kbv_problem_def def = one_node(KBV_OP_RELU, m, NULL);
    def.params[0] = (kbv_param_def){.name = "w", .dtype = KBV_F32, .shape = {"4", "K", "3"},
                                    .init = KBV_INIT_UNIFORM_FAN_IN, .fan_in = 15};
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_OK); /* 5 * 3 */
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_SMALL, &graph), KBV_ERR_INVALID);
    assert_non_null(strstr(kbv_last_message(), "written fan_in 15, but its shape gives 9"));
    def.params[0] = (kbv_param_def){.name = "conv.bias", .dtype = KBV_F32, .shape = {"K"},
                                    .init = KBV_INIT_UNIFORM_FAN_IN};
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_ERR_INVALID);
    assert_non_null(strstr(kbv_last_message(), "'conv.bias'"));
    def.params[0] = (kbv_param_def){.name = "s", .dtype = KBV_I64, .init = KBV_INIT_RANDN};
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_ERR_INVALID);
}

static void test_sol(void **state)
{
    (void)state;
    double flops = 2.0 * 4096 * 4096 * 4096, bytes = 3.0 * 4096 * 4096 * 4;
    assert_true(kbv_sol_seconds(flops, bytes, 1) == flops / 430.6e12);
    assert_true(kbv_sol_seconds(flops, bytes, 0) == flops / 51.3e12);
    /* an elementwise op is memory bound */
    assert_true(kbv_sol_seconds(1e6, 8e6, 1) == 8e6 / 4.30e12);
    /* the below-sol floor: read bandwidth and the FP16 tensor peak, below
     * the SOL time of any precision */
    assert_true(kbv_sol_floor_seconds(1e6, 8e6) == 8e6 / 4.8e12);
    assert_true(fabs(kbv_sol_floor_seconds(flops, bytes) * 1070.5e12 / flops - 1) < 1e-3);
    for (double f = 1e3; f < 1e15; f *= 31)
        for (double b = 1e3; b < 1e12; b *= 17)
            assert_true(kbv_sol_floor_seconds(f, b) < kbv_sol_seconds(f, b, 1));
    /* L1/4 (2048 x 1048576 matrix-vector, read-bound): a kernel that reads at
     * the HBM peak (less 0.1%) is at SOL fraction 1.12 against the copy
     * bandwidth -- below 0.9 x the copy SOL time, not below the floor */
    double mv_flops = 2.0 * 2048 * 1048576, mv_bytes = 4.0 * (2048.0 * 1048576 + 1048576 + 2048);
    double honest_ms = 1e3 * mv_bytes / (0.999 * 4.8e12);
    assert_true(kbv_below_sol(honest_ms, 1e3 * kbv_sol_seconds(mv_flops, mv_bytes, 1)));
    assert_false(kbv_below_sol(honest_ms, 1e3 * kbv_sol_floor_seconds(mv_flops, mv_bytes)));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_op_table_rows_complete),
        cmocka_unit_test(test_matmul_shapes),
        cmocka_unit_test(test_bmm_einsum_shapes),
        cmocka_unit_test(test_layout_shapes),
        cmocka_unit_test(test_elementwise_shapes),
        cmocka_unit_test(test_build_errors_name_the_culprit),
        cmocka_unit_test(test_hidden_configs_checked),
        cmocka_unit_test(test_find_variants),
        cmocka_unit_test(test_registry_order_and_keys_unique),
        cmocka_unit_test(test_every_problem_builds),
        cmocka_unit_test(test_full_shapes_match_catalog),
        cmocka_unit_test(test_counts),
        cmocka_unit_test(test_last_use_and_outputs),
        cmocka_unit_test(test_dtypes),
        cmocka_unit_test(test_render_float),
        cmocka_unit_test(test_render_torch),
        cmocka_unit_test(test_render_params),
        cmocka_unit_test(test_fan_in_derived),
        cmocka_unit_test(test_sol),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
