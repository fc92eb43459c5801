/* The shape rules, FLOP counts and PyTorch renderings of the ops the
 * level-2 problems use: linear, the new elementwise ops, reductions over a
 * bitmask of dims, logsumexp, adaptive pooling, views, clone and dropout. */
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
#include "graph/graph.h"
#include "graph/ops_rules.h"
#include "graph/ops_table.h"
#include "graph/torch_render.h"

static kbv_graph graph;

/* "L0/8" with dims B = 4, C = 6, H = 5 (small: 2, 3, 7), input x, up to two
 * more operands y, z of their own shapes, and one node. */
static kbv_problem_def one_node(kbv_op op, const char *const *sx, const char *const *sy,
                                const char *const *sz)
{
    kbv_problem_def def;
    memset(&def, 0, sizeof def);
    def.level = 0;
    def.id = 8;
    def.name = "8_Ops";
    def.dims[0] = (kbv_dim_def){"B", 4, 2};
    def.dims[1] = (kbv_dim_def){"C", 6, 3};
    def.dims[2] = (kbv_dim_def){"H", 5, 7};
    const char *const *shapes[3] = {sx, sy, sz};
    const char *names[3] = {"x", "y", "z"};
    def.nodes[0].op = op;
    def.nodes[0].out = "out";
    for (int k = 0; k < 3 && shapes[k]; k++) {
        def.inputs[k].name = names[k];
        def.inputs[k].dtype = KBV_F32;
        def.inputs[k].gen = KBV_GEN_RANDN;
        for (int d = 0; shapes[k][d]; d++)
            def.inputs[k].shape[d] = shapes[k][d];
        def.nodes[0].args[k] = names[k];
    }
    return def;
}

static void assert_out(int ndim, const int64_t *shape)
{
    const kbv_value *out = &graph.values[graph.outputs[0]];
    assert_int_equal(out->ndim, ndim);
    for (int d = 0; d < ndim; d++)
        assert_int_equal(out->shape[d], shape[d]);
}

static void assert_render(const char *want)
{
    char buf[512];
    assert_int_equal(kbv_render_node(&graph, 0, buf, sizeof buf), KBV_OK);
    assert_string_equal(buf, want);
}

static const char *x3[] = {"B", "C", "H", NULL};

static void test_linear(void **state)
{
    (void)state;
    const char *w[] = {"C", "H", NULL}, *b[] = {"C", NULL}, *x[] = {"B", "3", "H", NULL};
    kbv_problem_def def = one_node(KBV_OP_LINEAR, x, w, b);
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_OK);
    assert_out(3, (int64_t[]){4, 3, 6});
    /* 2 M N K plus the bias */
    assert_true(kbv_graph_flops(&graph) == 2.0 * 12 * 6 * 5 + 12 * 6);
    assert_render("torch.nn.functional.linear(x, y, z)");
    /* without a bias: F.linear(x, w, None) */
    def = one_node(KBV_OP_LINEAR, x, w, NULL);
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_OK);
    assert_true(kbv_graph_flops(&graph) == 2.0 * 12 * 6 * 5);
    assert_render("torch.nn.functional.linear(x, y, None)");
    /* a 1-D input */
    const char *v[] = {"H", NULL};
    def = one_node(KBV_OP_LINEAR, v, w, b);
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_OK);
    assert_out(1, (int64_t[]){6});
    /* mismatched K, a wrong bias, one operand only */
    const char *wrong[] = {"C", "C", NULL}, *bias_h[] = {"H", NULL};
    def = one_node(KBV_OP_LINEAR, x, wrong, b);
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_ERR_INVALID);
    def = one_node(KBV_OP_LINEAR, x, w, bias_h);
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_ERR_INVALID);
    def = one_node(KBV_OP_LINEAR, x, NULL, NULL);
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_ERR_INVALID);
    assert_non_null(strstr(kbv_last_message(), "1 operands given, 3 or fewer expected"));
    assert_int_equal(kbv_op_table[KBV_OP_LINEAR].tf32, KBV_TF32_MATMUL);
}

static void test_elementwise(void **state)
{
    (void)state;
    static const struct {
        kbv_op op;
        double f0, f1, flops;
        const char *render;
    } cases[] = {
        {KBV_OP_CLAMP, -1.5, 2.0, 2, "torch.clamp(x, min=-1.5, max=2.0)"},
        {KBV_OP_CLAMP_MAX, 0.25, 0, 1, "torch.clamp(x, max=0.25)"},
        {KBV_OP_SUB_SCALAR, 0.5, 0, 1, "(x - 0.5)"},
        {KBV_OP_DIV_SCALAR, 3.0, 0, 1, "(x / 3.0)"},
        {KBV_OP_MISH, 0, 0, 6, "torch.nn.functional.mish(x)"},
        {KBV_OP_HARDSWISH, 0, 0, 5, "torch.nn.functional.hardswish(x)"},
        {KBV_OP_GELU_TANH, 0, 0, 9, "torch.nn.functional.gelu(x, approximate=\"tanh\")"},
        {KBV_OP_SILU, 0, 0, 4, "torch.nn.functional.silu(x)"},
        {KBV_OP_MIN_SCALAR, 0.5, 0, 1, "torch.min(x, torch.tensor(0.5))"},
        {KBV_OP_MAX_SCALAR, -0.5, 0, 1, "torch.max(x, torch.tensor(-0.5))"},
    };
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        kbv_problem_def def = one_node(cases[c].op, x3, NULL, NULL);
        def.nodes[0].f[0] = cases[c].f0;
        def.nodes[0].f[1] = cases[c].f1;
        assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_OK);
        assert_out(3, (int64_t[]){4, 6, 5});
        assert_true(kbv_graph_flops(&graph) == cases[c].flops * 120);
        assert_render(cases[c].render);
        assert_int_equal(graph.values[graph.outputs[0]].dtype, KBV_F32);
    }
    /* minimum / maximum broadcast, a 0-dim operand included */
    const char *col[] = {"C", "1", NULL}, *scalar[] = {NULL};
    kbv_problem_def def = one_node(KBV_OP_MINIMUM, x3, col, NULL);
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_OK);
    assert_out(3, (int64_t[]){4, 6, 5});
    assert_render("torch.minimum(x, y)");
    def = one_node(KBV_OP_MAXIMUM, scalar, x3, NULL);
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_OK);
    assert_out(3, (int64_t[]){4, 6, 5});
    assert_render("torch.maximum(x, y)");
    const char *bad[] = {"4", NULL};
    def = one_node(KBV_OP_MAXIMUM, x3, bad, NULL);
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_ERR_INVALID);
}

static void test_reductions(void **state)
{
    (void)state;
    /* dims (1, 2) kept and dropped */
    kbv_problem_def def = one_node(KBV_OP_SUM_DIMS, x3, NULL, NULL);
    def.nodes[0].i[0] = 0x6;
    def.nodes[0].i[1] = 1;
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_OK);
    assert_out(3, (int64_t[]){4, 1, 1});
    assert_true(kbv_graph_flops(&graph) == 120);
    assert_render("torch.sum(x, dim=(1, 2), keepdim=True)");
    def.nodes[0].op = KBV_OP_MEAN_DIMS;
    def.nodes[0].i[1] = 0;
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_OK);
    assert_out(1, (int64_t[]){4});
    assert_render("torch.mean(x, dim=(1, 2), keepdim=False)");
    def.nodes[0].op = KBV_OP_AMAX_DIMS;
    def.nodes[0].i[0] = 0x1;
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_OK);
    assert_out(2, (int64_t[]){6, 5});
    assert_render("torch.amax(x, dim=(0,), keepdim=False)");
    def.nodes[0].i[0] = 0x7; /* every dim: 0-dim */
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_OK);
    assert_out(0, NULL);
    def.nodes[0].i[0] = 0x8; /* dim 3 of a 3-D tensor */
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_ERR_INVALID);
    def.nodes[0].i[0] = 0;
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_ERR_INVALID);
    def.nodes[0].i[0] = 1;
    def.nodes[0].i[1] = 2;
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_ERR_INVALID);

    /* logsumexp along one dim, negative allowed */
    def = one_node(KBV_OP_LOGSUMEXP, x3, NULL, NULL);
    def.nodes[0].i[0] = -2;
    def.nodes[0].i[1] = 1;
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_OK);
    assert_out(3, (int64_t[]){4, 1, 5});
    assert_true(kbv_graph_flops(&graph) == 4.0 * 120 + 20);
    assert_render("torch.logsumexp(x, dim=-2, keepdim=True)");
    def.nodes[0].i[0] = 3;
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_ERR_INVALID);
}

static void test_adaptive_pool(void **state)
{
    (void)state;
    kbv_adaptive ad;
    assert_int_equal(kbv_adaptive_parse(KBV_OP_ADAPTIVE_AVG_POOL2D, "output_size=(1, 1)", &ad),
                     KBV_OK);
    assert_true(ad.spatial == 2 && ad.out[0] == 1 && ad.out[1] == 1);
    assert_int_equal(kbv_adaptive_parse(KBV_OP_ADAPTIVE_AVG_POOL3D, "output_size=4", &ad),
                     KBV_OK);
    assert_true(ad.spatial == 3 && ad.out[0] == 4 && ad.out[2] == 4);
    assert_int_equal(kbv_adaptive_parse(KBV_OP_ADAPTIVE_AVG_POOL2D, "output_size=(None, 3)", &ad),
                     KBV_OK);
    assert_true(ad.out[0] == 0 && ad.out[1] == 3);
    assert_int_equal(kbv_adaptive_parse(KBV_OP_ADAPTIVE_AVG_POOL2D, "output_size=(1, 1, 1)", &ad),
                     KBV_ERR_INVALID);
    assert_int_equal(kbv_adaptive_parse(KBV_OP_ADAPTIVE_AVG_POOL1D, "output_size=0", &ad),
                     KBV_ERR_INVALID);
    assert_int_equal(kbv_adaptive_parse(KBV_OP_ADAPTIVE_AVG_POOL1D, "kernel_size=2", &ad),
                     KBV_ERR_INVALID);
    /* PyTorch's windows: 5 -> 3 is [0, 2), [1, 4), [3, 5) */
    assert_true(kbv_adaptive_start(0, 5, 3) == 0 && kbv_adaptive_end(0, 5, 3) == 2);
    assert_true(kbv_adaptive_start(1, 5, 3) == 1 && kbv_adaptive_end(1, 5, 3) == 4);
    assert_true(kbv_adaptive_start(2, 5, 3) == 3 && kbv_adaptive_end(2, 5, 3) == 5);

    const char *x4[] = {"B", "C", "H", "7", NULL};
    kbv_problem_def def = one_node(KBV_OP_ADAPTIVE_AVG_POOL2D, x4, NULL, NULL);
    def.nodes[0].s = "output_size=(3, 2)";
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_OK);
    assert_out(4, (int64_t[]){4, 6, 3, 2});
    /* windows along H (5 -> 3): 2 + 3 + 2 = 7; along 7 -> 2: 4 + 4 = 8 */
    assert_true(kbv_graph_flops(&graph) == 24.0 * 7 * 8 + 4 * 6 * 3 * 2);
    assert_render("torch.nn.functional.adaptive_avg_pool2d(x, output_size=(3, 2))");
    def.nodes[0].op = KBV_OP_ADAPTIVE_AVG_POOL3D; /* [C, D, H, W] unbatched */
    def.nodes[0].s = "output_size=1";
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_OK);
    assert_out(4, (int64_t[]){4, 1, 1, 1});
    def.nodes[0].op = KBV_OP_ADAPTIVE_AVG_POOL1D;
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_ERR_INVALID);
}

static void test_views(void **state)
{
    (void)state;
    kbv_problem_def def = one_node(KBV_OP_UNSQUEEZE, x3, NULL, NULL);
    def.nodes[0].i[0] = -1;
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_OK);
    assert_out(4, (int64_t[]){4, 6, 5, 1});
    assert_render("x.unsqueeze(-1)");
    def.nodes[0].i[0] = 1;
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_OK);
    assert_out(4, (int64_t[]){4, 1, 6, 5});
    def.nodes[0].i[0] = 4;
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_ERR_INVALID);

    const char *ones[] = {"B", "1", "H", "1", NULL};
    def = one_node(KBV_OP_SQUEEZE, ones, NULL, NULL);
    def.nodes[0].i[0] = 1;
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_OK);
    assert_out(3, (int64_t[]){4, 5, 1});
    assert_render("x.squeeze(1)");
    def.nodes[0].i[0] = 0; /* size 4: unchanged, as PyTorch */
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_OK);
    assert_out(4, (int64_t[]){4, 1, 5, 1});
    def.nodes[0].op = KBV_OP_SQUEEZE_ALL;
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_OK);
    assert_out(2, (int64_t[]){4, 5});
    assert_render("x.squeeze()");

    def = one_node(KBV_OP_FLATTEN, x3, NULL, NULL);
    def.nodes[0].i[0] = 1;
    def.nodes[0].i[1] = -1;
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_OK);
    assert_out(2, (int64_t[]){4, 30});
    assert_render("torch.flatten(x, start_dim=1, end_dim=-1)");
    def.nodes[0].i[0] = 2;
    def.nodes[0].i[1] = 1;
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_ERR_INVALID);

    /* view: dim names resolve at the graph's size, -1 is inferred */
    def = one_node(KBV_OP_VIEW, x3, NULL, NULL);
    def.nodes[0].s = "(B, -1)";
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_OK);
    assert_out(2, (int64_t[]){4, 30});
    assert_render("x.view(B, -1)");
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_SMALL, &graph), KBV_OK);
    assert_out(2, (int64_t[]){2, 21});
    def.nodes[0].s = "(-1, C, 1, H)";
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_OK);
    assert_out(4, (int64_t[]){4, 6, 1, 5});
    def.nodes[0].s = "(120,)";
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_OK);
    assert_out(1, (int64_t[]){120});
    static const char *const bad[] = {"(7, -1)", "(-1, -1)", "(B, W)", "(B, 30", "B, -2"};
    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
        def.nodes[0].s = bad[b];
        assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_ERR_INVALID);
    }

    def = one_node(KBV_OP_CLONE, x3, NULL, NULL);
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_OK);
    assert_out(3, (int64_t[]){4, 6, 5});
    assert_render("x.clone()");
    assert_false(kbv_op_table[KBV_OP_CLONE].is_view);

    def = one_node(KBV_OP_DROPOUT, x3, NULL, NULL);
    def.nodes[0].f[0] = 0.2;
    def.nodes[0].i[0] = 1;
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_OK);
    assert_render("torch.nn.functional.dropout(x, p=0.2, training=True)");
    assert_true(kbv_graph_flops(&graph) == 0);
    def.nodes[0].f[0] = 1.5;
    assert_int_equal(kbv_graph_build(kbv_test_problem(&def), KBV_SIZE_FULL, &graph), KBV_ERR_INVALID);

    const kbv_op views[] = {KBV_OP_UNSQUEEZE, KBV_OP_SQUEEZE, KBV_OP_SQUEEZE_ALL, KBV_OP_VIEW,
                            KBV_OP_FLATTEN, KBV_OP_DROPOUT};
    for (size_t v = 0; v < sizeof views / sizeof views[0]; v++)
        assert_true(kbv_op_table[views[v]].is_view);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_linear),
        cmocka_unit_test(test_elementwise),
        cmocka_unit_test(test_reductions),
        cmocka_unit_test(test_adaptive_pool),
        cmocka_unit_test(test_views),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
