/* The problem builder and the counted form: problems past the static
 * format's room (params, nodes, operands), the first failure kept with its
 * place, in-place nodes checked, nodes with several outputs, and level 3's
 * ResNet-101, ShuffleNet and U-Net as built. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "exec/backend.h"
#include "graph/problem_builder.h"
#include "graph/problem_def.h"

#define N_SCALES 40   /* past KBV_STATIC_MAX_PARAMS */
#define N_STEPS 60    /* with the adds, past KBV_STATIC_MAX_NODES */

/* y = x + scale.0 + ... + scale.39 + 60 * 1.0: every param and node counts. */
static kbv_status build_long(kbv_builder *b)
{
    kbv_b_problem(b, 9, 1, "1_Long", NULL);
    kbv_b_dim(b, "B", 4, 3);
    kbv_b_dim(b, "D", 6, 5);
    kbv_b_input(b, "x", KBV_GEN_RANDN, "B,D");
    char name[32];
    for (int p = 0; p < N_SCALES; p++) {
        snprintf(name, sizeof name, "scales.%d.bias", p);
        kbv_b_param(b, name, KBV_INIT_ONES, "D", false);
    }
    const char *y = "x";
    kbv_b_attrs none = {0}, one = {.f = {1.0}};
    for (int p = 0; p < N_SCALES; p++) {
        snprintf(name, sizeof name, "scales.%d.bias", p);
        y = kbv_b_op2(b, KBV_OP_ADD, NULL, none, y, name);
    }
    for (int s = 0; s < N_STEPS; s++)
        y = kbv_b_op1(b, KBV_OP_ADD_SCALAR, s + 1 == N_STEPS ? "y" : NULL, one, y);
    return kbv_b_status(b);
}

static void test_counted_past_the_static_room(void **state)
{
    (void)state;
    const kbv_problem *p = NULL;
    assert_int_equal(kbv_builder_run(build_long, &p), KBV_OK);
    assert_int_equal(p->n_params, N_SCALES);
    assert_int_equal(p->n_nodes, N_SCALES + N_STEPS);
    assert_true(p->n_params > KBV_STATIC_MAX_PARAMS && p->n_nodes > KBV_STATIC_MAX_NODES);
    kbv_graph g = {0};
    assert_int_equal(kbv_graph_build(p, KBV_SIZE_SMALL, &g), KBV_OK);
    assert_int_equal(g.n_values, 1 + N_SCALES + N_SCALES + N_STEPS);
    assert_string_equal(g.values[g.outputs[0]].name, "y");

    kbv_backend *be = NULL;
    assert_int_equal(kbv_cpu_backend_create(KBV_MODE_FP64, &be), KBV_OK);
    kbv_tensor in, par[N_SCALES], out[1];
    kbv_value_tensor(&g.values[0], &in);
    in.dtype = KBV_F64;
    assert_int_equal(be->alloc(be, kbv_tensor_bytes(&in), &in.data), KBV_OK);
    kbv_draw d = {KBV_DIST_BASE, 7};
    assert_int_equal(be->fill(be, &p->inputs[0], 0, &d, &in), KBV_OK);
    for (int j = 0; j < N_SCALES; j++) {
        kbv_value_tensor(&g.values[1 + j], &par[j]);
        par[j].dtype = KBV_F64;
        assert_int_equal(be->alloc(be, kbv_tensor_bytes(&par[j]), &par[j].data), KBV_OK);
        assert_int_equal(be->fill_param(be, &g, j, &d, &par[j]), KBV_OK);
    }
    assert_int_equal(kbv_graph_run(&g, be, &in, par, out), KBV_OK);
    const double *x = in.data, *y = out[0].data;
    for (int64_t i = 0; i < 15; i++)
        assert_true(fabs(y[i] - (x[i] + N_SCALES + N_STEPS)) < 1e-12);
    be->release(be, out[0].data);
    for (int j = 0; j < N_SCALES; j++)
        be->release(be, par[j].data);
    be->release(be, in.data);
    kbv_backend_destroy(be);
    kbv_graph_free(&g);
    kbv_built_problem_free(p);
}

static kbv_status build_bad_shape(kbv_builder *b)
{
    kbv_b_problem(b, 9, 2, "2_Bad", NULL);
    kbv_b_dim(b, "B", 4, 3);
    kbv_b_input(b, "x", KBV_GEN_RAND, "B,,3");   /* an empty entry: the first failure */
    kbv_b_op1(b, KBV_OP_RELU, NULL, (kbv_b_attrs){0}, "nowhere");
    return kbv_b_status(b);
}

static void test_first_failure_kept_with_its_place(void **state)
{
    (void)state;
    const kbv_problem *p = NULL;
    assert_int_equal(kbv_builder_run(build_bad_shape, &p), KBV_ERR_INVALID);
    assert_null(p);
    const char *msg = kbv_last_error();
    assert_non_null(strstr(msg, "L9/2"));
    assert_non_null(strstr(msg, "problem_builder.c"));
    assert_non_null(strstr(msg, "shape 'B,,3'"));
}

/* In place over an input, or over a value read later, is refused. */
static int in_place_case;

static kbv_status build_in_place(kbv_builder *b)
{
    kbv_b_problem(b, 9, 3, "3_InPlace", NULL);
    kbv_b_dim(b, "B", 4, 3);
    kbv_b_input(b, "x", KBV_GEN_RAND, "B");
    kbv_b_attrs in_place = {.in_place = true}, two = {.f = {2.0}};
    if (in_place_case == 0) {
        kbv_b_op1(b, KBV_OP_RELU, "y", in_place, "x");
    } else {
        const char *t = kbv_b_op1(b, KBV_OP_MUL_SCALAR, "t", two, "x");
        const char *r = kbv_b_op1(b, KBV_OP_RELU, "r", in_place, t);
        kbv_b_op2(b, KBV_OP_ADD, "y", (kbv_b_attrs){0}, r, in_place_case == 1 ? t : "x");
    }
    return kbv_b_status(b);
}

static void test_in_place_checked(void **state)
{
    (void)state;
    static const char *const why[] = {"in place needs", "read later", NULL};
    for (in_place_case = 0; in_place_case < 3; in_place_case++) {
        const kbv_problem *p = NULL;
        assert_int_equal(kbv_builder_run(build_in_place, &p), KBV_OK);
        kbv_graph g = {0};
        kbv_status st = kbv_graph_build(p, KBV_SIZE_SMALL, &g);
        if (why[in_place_case]) {
            assert_int_equal(st, KBV_ERR_INVALID);
            assert_non_null(strstr(kbv_last_error(), why[in_place_case]));
        } else {
            assert_int_equal(st, KBV_OK);
            assert_true(g.nodes[1].def->in_place);
        }
        kbv_graph_free(&g);
        kbv_built_problem_free(p);
    }
}

/* L3/10 as the registry holds it: torchvision's state_dict names and
 * counts, fan-ins derived from the shapes. */
static void test_resnet101_as_built(void **state)
{
    (void)state;
    const kbv_problem *p = kbv_problem_find("L3/10");
    assert_non_null(p);
    assert_string_equal(p->name, "10_ResNet101");
    int buffers = 0;
    for (int j = 0; j < p->n_params; j++)
        buffers += p->params[j].is_buffer;
    assert_int_equal(p->n_params - buffers, 314);
    assert_int_equal(buffers, 208);
    assert_string_equal(p->params[0].name, "conv1.weight");
    assert_string_equal(p->params[p->n_params - 1].name, "fc.bias");
    kbv_graph g = {0};
    assert_int_equal(kbv_graph_build(p, KBV_SIZE_SMALL, &g), KBV_OK);
    bool found = false;
    for (int j = 0; j < g.n_params; j++) {
        const kbv_value *v = &g.values[g.n_inputs + j];
        if (!strcmp(v->name, "layer3.22.conv2.weight")) {
            found = true;
            assert_int_equal(v->ndim, 4);
            assert_int_equal(v->shape[0], 256);
            assert_int_equal(v->fan_in, 256 * 9);
        }
    }
    assert_true(found);
    const kbv_value *out = &g.values[g.outputs[0]];
    assert_int_equal(out->shape[0], 2);
    assert_int_equal(out->shape[1], 10);
    kbv_graph_free(&g);
}

/* q, k, v = x.split(D, dim=-1), then q * k + v: the builder's node with
 * several outputs, and its failures. */
static kbv_status build_split(kbv_builder *b)
{
    kbv_b_problem(b, 9, 3, "3_Split", NULL);
    kbv_b_dim(b, "B", 4, 3);
    kbv_b_dim(b, "D", 6, 5);
    kbv_b_input(b, "x", KBV_GEN_RANDN, "B,15");
    kbv_b_attrs split = {.i = {5, -1}}, none = {0};
    static const char *const qkv[3] = {"q", "k", "v"};
    kbv_b_node_outs(b, KBV_OP_SPLIT, split, "x", 3, qkv);
    const char *y = kbv_b_op2(b, KBV_OP_MUL, NULL, none, "q", "k");
    kbv_b_op2(b, KBV_OP_ADD, "y", none, y, "v");
    return kbv_b_status(b);
}

static kbv_status build_split_unnamed(kbv_builder *b)
{
    kbv_b_problem(b, 9, 4, "4_Split_Unnamed", NULL);
    kbv_b_dim(b, "B", 4, 3);
    kbv_b_input(b, "x", KBV_GEN_RANDN, "B,15");
    kbv_b_attrs split = {.i = {5, -1}};
    static const char *const two[2] = {"q", NULL};
    kbv_b_node_outs(b, KBV_OP_SPLIT, split, "x", 2, two);
    return kbv_b_status(b);
}

static void test_several_outputs(void **state)
{
    (void)state;
    const kbv_problem *p = NULL;
    assert_int_equal(kbv_builder_run(build_split, &p), KBV_OK);
    assert_int_equal(p->nodes[0].n_outs, 3);
    assert_null(p->nodes[0].out);
    assert_string_equal(p->nodes[0].outs[2], "v");
    kbv_graph g = {0};
    assert_int_equal(kbv_graph_build(p, KBV_SIZE_FULL, &g), KBV_OK);
    assert_int_equal(g.nodes[0].n_outs, 3);
    for (int j = 0; j < 3; j++) {
        const kbv_value *piece = &g.values[g.nodes[0].out + j];
        assert_int_equal(piece->shape[1], 5);
        assert_int_equal(piece->out_index, j);
    }
    assert_string_equal(g.values[g.outputs[0]].name, "y");
    kbv_graph_free(&g);
    kbv_built_problem_free(p);
    p = NULL;
    assert_int_equal(kbv_builder_run(build_split_unnamed, &p), KBV_ERR_INVALID);
    assert_null(p);
    assert_non_null(strstr(kbv_last_message(), "output 1"));
}

static int count_op(const kbv_problem *p, kbv_op op)
{
    int n = 0;
    for (int j = 0; j < p->n_nodes; j++)
        n += p->nodes[j].op == op;
    return n;
}

static bool has_param(const kbv_problem *p, const char *name)
{
    for (int j = 0; j < p->n_params; j++)
        if (!strcmp(p->params[j].name, name))
            return true;
    return false;
}

/* L3/26 and L3/45 as the registry holds them: the modules' state_dict
 * counts and names, one channel shuffle (one contiguous copy) per unit, a
 * shortcut conv only where a unit changes the channels; the U-Net's four
 * upsamplings and cats. */
static void test_shufflenet_unet_as_built(void **state)
{
    (void)state;
    const kbv_problem *p = kbv_problem_find("L3/26");
    assert_non_null(p);
    int buffers = 0;
    for (int j = 0; j < p->n_params; j++)
        buffers += p->params[j].is_buffer;
    assert_int_equal(p->n_params - buffers, 134);
    assert_int_equal(buffers, 88);
    assert_int_equal(count_op(p, KBV_OP_CONTIGUOUS), 13);
    assert_int_equal(count_op(p, KBV_OP_TRANSPOSE_DIMS), 13);
    assert_true(has_param(p, "stage3.0.shortcut.0.weight"));
    assert_false(has_param(p, "stage3.1.shortcut.0.weight"));
    assert_true(has_param(p, "stage4.2.conv2.weight"));
    assert_string_equal(p->params[p->n_params - 1].name, "fc.bias");
    kbv_graph g = {0};
    assert_int_equal(kbv_graph_build(p, KBV_SIZE_SMALL, &g), KBV_OK);
    assert_int_equal(g.values[g.outputs[0]].shape[1], 10);
    kbv_graph_free(&g);

    p = kbv_problem_find("L3/45");
    assert_non_null(p);
    assert_int_equal(count_op(p, KBV_OP_CONV_TRANSPOSE2D_BIAS), 4);
    assert_int_equal(count_op(p, KBV_OP_CAT), 4);
    assert_int_equal(count_op(p, KBV_OP_SOFTMAX), 18);
    assert_string_equal(p->params[0].name, "encoder1.double_conv.0.weight");
    assert_true(has_param(p, "upconv4.weight"));
    assert_string_equal(p->params[p->n_params - 1].name, "final_conv.bias");
    assert_int_equal(kbv_graph_build(p, KBV_SIZE_FULL, &g), KBV_OK);
    const kbv_value *out = &g.values[g.outputs[0]];
    assert_true(out->shape[0] == 8 && out->shape[1] == 4 && out->shape[2] == 64 &&
                out->shape[3] == 512);
    kbv_graph_free(&g);
}

/* L3/20 as built: MobileNetV2's _initialize_weights as data (conv weights
 * N(0, 2 / fan_out), the Linear's N(0, 0.01^2), its bias zeros), its
 * 158 params and 104 buffers, and ReLU6 as an in-place hardtanh(0, 6). */
static void test_mobilenet_v2_as_built(void **state)
{
    (void)state;
    const kbv_problem *p = kbv_problem_find("L3/20");
    assert_non_null(p);
    int buffers = 0, normal = 0;
    for (int j = 0; j < p->n_params; j++) {
        buffers += p->params[j].is_buffer;
        normal += p->params[j].init == KBV_INIT_NORMAL;
    }
    assert_int_equal(p->n_params - buffers, 158);
    assert_int_equal(buffers, 104);
    assert_int_equal(normal, 52 + 1);   /* every conv and the Linear */
    assert_string_equal(p->params[0].name, "features.0.weight");
    assert_int_equal(p->params[0].init, KBV_INIT_NORMAL);
    assert_true(fabs(p->params[0].value - sqrt(2.0 / (32 * 3 * 3))) < 1e-15);
    const kbv_param_def *w = &p->params[p->n_params - 2], *bias = &p->params[p->n_params - 1];
    assert_string_equal(w->name, "classifier.1.weight");
    assert_true(w->init == KBV_INIT_NORMAL && w->value == 0.01);
    assert_string_equal(bias->name, "classifier.1.bias");
    assert_int_equal(bias->init, KBV_INIT_ZEROS);
    int relu6 = 0;
    for (int n = 0; n < p->n_nodes; n++) {
        const kbv_node_def *nd = &p->nodes[n];
        if (nd->op == KBV_OP_HARDTANH) {
            assert_true(nd->in_place && nd->f[0] == 0.0 && nd->f[1] == 6.0);
            relu6++;
        }
    }
    assert_int_equal(relu6, 1 + 1 + 16 * 2 + 1);
    kbv_graph g = {0};
    assert_int_equal(kbv_graph_build(p, KBV_SIZE_SMALL, &g), KBV_OK);
    kbv_graph_free(&g);
}

/* A normal initialiser needs a positive std, and a param's value a param. */
static kbv_status build_zero_std(kbv_builder *b)
{
    kbv_b_problem(b, 9, 2, "2_ZeroStd", NULL);
    kbv_b_dim(b, "D", 4, 3);
    kbv_b_input(b, "x", KBV_GEN_RANDN, "D");
    kbv_b_param(b, "w", KBV_INIT_NORMAL, "D", false);
    kbv_b_attrs none = {0};
    kbv_b_op2(b, KBV_OP_ADD, NULL, none, "x", "w");
    return kbv_b_status(b);
}

static kbv_status build_value_first(kbv_builder *b)
{
    kbv_b_problem(b, 9, 3, "3_ValueFirst", NULL);
    kbv_b_param_value(b, 0.5);
    return kbv_b_status(b);
}

static void test_normal_initialiser_checked(void **state)
{
    (void)state;
    const kbv_problem *p = NULL;
    assert_int_equal(kbv_builder_run(build_zero_std, &p), KBV_OK);
    kbv_graph g = {0};
    assert_int_equal(kbv_graph_build(p, KBV_SIZE_SMALL, &g), KBV_ERR_INVALID);
    assert_non_null(strstr(kbv_last_error(), "std"));
    kbv_graph_free(&g);
    kbv_built_problem_free(p);
    p = NULL;
    assert_int_not_equal(kbv_builder_run(build_value_first, &p), KBV_OK);
    assert_null(p);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_counted_past_the_static_room),
        cmocka_unit_test(test_first_failure_kept_with_its_place),
        cmocka_unit_test(test_in_place_checked),
        cmocka_unit_test(test_resnet101_as_built),
        cmocka_unit_test(test_several_outputs),
        cmocka_unit_test(test_shufflenet_unet_as_built),
        cmocka_unit_test(test_mobilenet_v2_as_built),
        cmocka_unit_test(test_normal_initialiser_checked),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
