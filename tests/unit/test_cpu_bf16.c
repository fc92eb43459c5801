/* The bf16 precision on the CPU backend: bfloat16 rounding as
 * Tensor.to(torch.bfloat16) rounds, the bf16 backend's ops (float32
 * compute, one rounding per op, float32 accumulation), and the device
 * services on bfloat16 tensors (fill, convert, poison, compare). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "graph/problem_def.h"
#include "core/bf16.h"
#include "eval/verdict.h"
#include "exec/backend.h"
#include "graph/graph.h"
#include "graph/ops_table.h"
#include "support/host_tensor.h"

static uint16_t bits_of(float f) { return kbv_bf16_from_float(f); }

static void test_rounding(void **state)
{
    (void)state;
    assert_int_equal(bits_of(1.0f), 0x3F80);
    /* ties go to the even neighbour: 1 + 2^-8 is halfway between 1 and 1 + 2^-7 */
    assert_int_equal(bits_of(1.0f + 0x1p-8f), 0x3F80);
    assert_int_equal(bits_of(1.0f + 3 * 0x1p-8f), 0x3F82);
    assert_int_equal(bits_of(-2.5f), 0xC020);
    /* the largest finite value, and the midpoint above it, which rounds to inf */
    assert_int_equal(bits_of(0x1.fep127f), 0x7F7F);
    assert_int_equal(bits_of(0x1.ffp127f), 0x7F80);
    assert_int_equal(bits_of(-INFINITY), 0xFF80);
    assert_int_equal(bits_of(NAN), 0x7FC0);
    assert_int_equal(bits_of(0x1p-133f), 0x0001);   /* the smallest subnormal */
    assert_true(kbv_bf16_to_float(0x3F82) == 1.0f + 0x1p-6f);
    /* from a float value, double and float agree */
    for (int i = 0; i < 100000; i++) {
        uint32_t b = (uint32_t)i * 2654435761u;
        float f;
        memcpy(&f, &b, 4);
        if (isnan(f))
            continue;
        assert_int_equal(kbv_bf16_from_double((double)f), bits_of(f));
    }
    /* from a double, one rounding: through float32 first would land on the tie
     * and round to even, down */
    double v = 1.0 + 0x1p-8 + 0x1p-40;
    assert_int_equal(bits_of((float)v), 0x3F80);
    assert_int_equal(kbv_bf16_from_double(v), 0x3F81);
    assert_int_equal(kbv_bf16_from_double(0x1.fe8p127), 0x7F7F);
    assert_int_equal(kbv_bf16_from_double(1e300), 0x7F80);
    assert_true(kbv_bf16_round(3.14) == 3.140625);
}

static kbv_backend *backend(kbv_mode m)
{
    kbv_backend *be = NULL;
    assert_int_equal(kbv_cpu_backend_create(m, &be), KBV_OK);
    return be;
}

static void test_backend(void **state)
{
    (void)state;
    kbv_backend *be = backend(KBV_MODE_BF16), *f32 = backend(KBV_MODE_FP32);
    assert_int_equal(be->float_dtype, KBV_BF16);
    assert_int_equal(be->mode, KBV_MODE_BF16);
    assert_string_equal(kbv_mode_name(KBV_MODE_BF16), "bf16");
    kbv_mode m;
    assert_int_equal(kbv_mode_parse("bf16", &m), KBV_OK);
    assert_int_equal(m, KBV_MODE_BF16);
    for (int op = 1; op < KBV_OP_COUNT; op++)
        assert_true((be->ops[op] != NULL) == (f32->ops[op] != NULL));
    /* bf16 shares no code with the float32 modes */
    kbv_graph g = {0};
    memset(&g, 0, sizeof g);
    assert_int_equal(kbv_mode_equivalent(be, &g, KBV_MODE_BF16), KBV_MODE_BF16);
    /* a Python number stays float32 beside bf16 tensors; integers stay */
    assert_int_equal(kbv_storage_dtype(be, KBV_F32, false), KBV_BF16);
    assert_int_equal(kbv_storage_dtype(be, KBV_F32, true), KBV_F32);
    assert_int_equal(kbv_storage_dtype(be, KBV_I64, false), KBV_I64);
    assert_int_equal(kbv_storage_dtype(f32, KBV_F32, true), KBV_F32);
    kbv_backend_destroy(be);
    kbv_backend_destroy(f32);
}

/* A problem's graph at its small size, on bf16 inputs drawn by the backend. */
typedef struct run {
    kbv_graph g;
    kbv_tensor in[KBV_STATIC_MAX_INPUTS], par[KBV_STATIC_MAX_PARAMS], out[KBV_STATIC_MAX_OUTPUTS];
} run;

static kbv_tensor value_tensor(kbv_backend *be, const kbv_value *v, bool scalar)
{
    kbv_tensor t = kbv_test_tensor(kbv_storage_dtype(be, v->dtype, scalar), v->ndim, v->shape);
    return t;
}

static void draw(kbv_backend *be, const char *key, kbv_dist dist, uint64_t seed, run *r)
{
    const kbv_problem *def = kbv_problem_find(key);
    assert_non_null(def);
    memset(&r->g, 0, sizeof r->g);
    assert_int_equal(kbv_graph_build(def, KBV_SIZE_SMALL, &r->g), KBV_OK);
    kbv_draw d = {dist, seed};
    for (int i = 0; i < r->g.n_inputs; i++) {
        r->in[i] = value_tensor(be, &r->g.values[i], def->inputs[i].gen == KBV_GEN_SCALAR);
        assert_int_equal(be->fill(be, &def->inputs[i], i, &d, &r->in[i]), KBV_OK);
    }
    for (int j = 0; j < r->g.n_params; j++) {
        r->par[j] = value_tensor(be, &r->g.values[r->g.n_inputs + j], false);
        assert_int_equal(be->fill_param(be, &r->g, j, &d, &r->par[j]), KBV_OK);
    }
}

static void run_free(kbv_backend *be, run *r)
{
    for (int i = 0; i < r->g.n_inputs; i++)
        free(r->in[i].data);
    for (int j = 0; j < r->g.n_params; j++)
        free(r->par[j].data);
    for (int k = 0; k < r->g.n_outputs; k++)
        if (r->out[k].data)
            be->release(be, r->out[k].data);
    kbv_graph_free(&r->g);
}

/* Every input and parameter of a bf16 draw is the float32 draw rounded once. */
static void test_fill_rounds_the_fp32_draw(void **state)
{
    (void)state;
    kbv_backend *bf = backend(KBV_MODE_BF16), *f32 = backend(KBV_MODE_FP32);
    static const char *const keys[] = {"L1/1", "L1/5", "L1/33", "L1/95", "L1/98", "L1/100"};
    static const kbv_dist dists[] = {KBV_DIST_BASE, KBV_DIST_D2, KBV_DIST_D3, KBV_DIST_D6};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        for (size_t q = 0; q < sizeof dists / sizeof dists[0]; q++) {
            run a, b;
            memset(&a, 0, sizeof a);
            memset(&b, 0, sizeof b);
            draw(bf, keys[k], dists[q], 77, &a);
            draw(f32, keys[k], dists[q], 77, &b);
            for (int i = 0; i < a.g.n_inputs + a.g.n_params; i++) {
                const kbv_tensor *x = i < a.g.n_inputs ? &a.in[i] : &a.par[i - a.g.n_inputs];
                const kbv_tensor *y = i < a.g.n_inputs ? &b.in[i] : &b.par[i - a.g.n_inputs];
                int64_t n = kbv_test_numel(x);
                if (x->dtype == KBV_BF16) {
                    assert_int_equal(y->dtype, KBV_F32);
                    for (int64_t e = 0; e < n; e++)
                        assert_int_equal(((uint16_t *)x->data)[e],
                                         kbv_bf16_from_float(((float *)y->data)[e]));
                } else {
                    /* integers, and L1/5's Python float: unchanged */
                    assert_int_equal(x->dtype, y->dtype);
                    assert_memory_equal(x->data, y->data, (size_t)n * kbv_dtype_size(x->dtype));
                }
            }
            run_free(bf, &a);
            run_free(f32, &b);
        }
    kbv_backend_destroy(bf);
    kbv_backend_destroy(f32);
}

/* Each op of a bf16 graph computes in float32 on the bf16 values and rounds
 * once: the bf16 run equals the float32 run on the same (bf16) values with
 * each op's result rounded -- here for single-op problems, where that is the
 * float32 output rounded. */
static void test_ops_round_the_f32_result(void **state)
{
    (void)state;
    kbv_backend *bf = backend(KBV_MODE_BF16), *f32 = backend(KBV_MODE_FP32);
    static const char *const keys[] = {"L1/1", "L1/5", "L1/21", "L1/23", "L1/26", "L1/47",
                                       "L1/51", "L1/63", "L1/89", "L1/95"};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        run a;
        memset(&a, 0, sizeof a);
        draw(bf, keys[k], KBV_DIST_D6, 5, &a);
        kbv_tensor in32[KBV_STATIC_MAX_INPUTS], par32[KBV_STATIC_MAX_PARAMS];
        for (int i = 0; i < a.g.n_inputs + a.g.n_params; i++) {
            const kbv_tensor *x = i < a.g.n_inputs ? &a.in[i] : &a.par[i - a.g.n_inputs];
            kbv_tensor *y = i < a.g.n_inputs ? &in32[i] : &par32[i - a.g.n_inputs];
            *y = *x;
            if (x->dtype != KBV_BF16)
                continue;
            *y = kbv_test_tensor(KBV_F32, x->ndim, x->shape);
            assert_int_equal(f32->convert(f32, x, y), KBV_OK);
        }
        kbv_tensor out32[KBV_STATIC_MAX_OUTPUTS];
        assert_int_equal(kbv_graph_run(&a.g, bf, a.in, a.par, a.out), KBV_OK);
        assert_int_equal(kbv_graph_run(&a.g, f32, in32, par32, out32), KBV_OK);
        assert_int_equal(a.g.n_nodes, 1);
        for (int o = 0; o < a.g.n_outputs; o++) {
            int64_t n = kbv_test_numel(&a.out[o]);
            if (a.out[o].dtype == KBV_I64) {  /* argmax: indices, as float32's */
                assert_memory_equal(a.out[o].data, out32[o].data, (size_t)n * 8);
                f32->release(f32, out32[o].data);
                continue;
            }
            assert_int_equal(a.out[o].dtype, KBV_BF16);
            for (int64_t e = 0; e < n; e++)
                assert_int_equal(((uint16_t *)a.out[o].data)[e],
                                 kbv_bf16_from_float(((float *)out32[o].data)[e]));
            f32->release(f32, out32[o].data);
        }
        for (int i = 0; i < a.g.n_inputs + a.g.n_params; i++) {
            const kbv_tensor *x = i < a.g.n_inputs ? &a.in[i] : &a.par[i - a.g.n_inputs];
            if (x->dtype == KBV_BF16)
                free((i < a.g.n_inputs ? in32[i] : par32[i - a.g.n_inputs]).data);
        }
        run_free(bf, &a);
    }
    kbv_backend_destroy(bf);
    kbv_backend_destroy(f32);
}

/* A GEMM accumulates in float32: 256 + 511 x 0.25 is 383.75 (bf16 384), where
 * a bf16 accumulator sticks at 256 (its spacing there is 2). Between ops,
 * results are bf16: L1/36's RMSNorm chain rounds each op's output. */
static void test_float_accumulation(void **state)
{
    (void)state;
    kbv_backend *be = backend(KBV_MODE_BF16);
    const int64_t K = 512;
    kbv_node_def def = {.op = KBV_OP_MATMUL};
    kbv_node node = {.op = KBV_OP_MATMUL, .n_args = 2, .def = &def};
    int64_t sa[2] = {1, K}, sb[2] = {K, 1}, so[2] = {1, 1};
    kbv_tensor args[2] = {kbv_test_tensor(KBV_BF16, 2, sa), kbv_test_tensor(KBV_BF16, 2, sb)};
    kbv_tensor out = kbv_test_tensor(KBV_BF16, 2, so);
    for (int64_t k = 0; k < K; k++) {
        ((uint16_t *)args[0].data)[k] = kbv_bf16_from_float(1.0f);
        ((uint16_t *)args[1].data)[k] = kbv_bf16_from_float(k == 0 ? 256.0f : 0.25f);
    }
    assert_int_equal(be->ops[KBV_OP_MATMUL](be, &node, args, &out), KBV_OK);
    assert_true(kbv_bf16_to_float(((uint16_t *)out.data)[0]) == 384.0f);
    /* a transposed (strided) operand is read through its strides */
    kbv_tensor bt = args[1];
    bt.shape[0] = 1;
    bt.shape[1] = K;
    bt.stride[0] = 1;
    bt.stride[1] = 1;
    kbv_node_def tdef = {.op = KBV_OP_SUM, .i = {1, 0}};
    kbv_node sum = {.op = KBV_OP_SUM, .n_args = 1, .def = &tdef};
    int64_t s1[1] = {1};
    kbv_tensor out1 = kbv_test_tensor(KBV_BF16, 1, s1);
    assert_int_equal(be->ops[KBV_OP_SUM](be, &sum, &bt, &out1), KBV_OK);
    assert_true(kbv_bf16_to_float(((uint16_t *)out1.data)[0]) == 384.0f);
    free(args[0].data);
    free(args[1].data);
    free(out.data);
    free(out1.data);
    kbv_backend_destroy(be);
}

static void test_services(void **state)
{
    (void)state;
    kbv_backend *be = backend(KBV_MODE_BF16);
    int64_t shape[1] = {5};
    kbv_tensor b = kbv_test_tensor(KBV_BF16, 1, shape), d = kbv_test_tensor(KBV_F64, 1, shape);
    const double vals[5] = {1.0, -3.140625, 0x1.fep127, 1.0 + 0x1p-8 + 0x1p-40, 0.0};
    memcpy(d.data, vals, sizeof vals);
    assert_int_equal(be->convert(be, &d, &b), KBV_OK);
    const uint16_t *h = b.data;
    assert_int_equal(h[0], 0x3F80);
    assert_int_equal(h[1], 0xC049);
    assert_int_equal(h[2], 0x7F7F);
    assert_int_equal(h[3], 0x3F81);   /* rounded once from the double */
    kbv_tensor back = kbv_test_tensor(KBV_F64, 1, shape);
    assert_int_equal(be->convert(be, &b, &back), KBV_OK);
    assert_true(((double *)back.data)[1] == -3.140625);

    /* poison: a NaN in every element, found again by the comparison */
    assert_int_equal(be->poison(be, &b), KBV_OK);
    for (int i = 0; i < 5; i++)
        assert_true(isnan(kbv_bf16_to_float(h[i])));
    kbv_tensor ref = kbv_test_tensor(KBV_BF16, 1, shape);
    kbv_compare_stats st;
    assert_int_equal(be->compare(be, &b, &ref, NULL, NULL, 1e-2, 1e-2, &st), KBV_OK);
    assert_int_equal(st.poison_left, 5);
    assert_int_equal(st.allclose_fail, 5);

    /* allclose at bf16's 1e-2: a value one bf16 step from 1 (0.4%) passes,
     * one 2% away fails */
    uint16_t *c = b.data, *r = ref.data;
    for (int i = 0; i < 5; i++)
        r[i] = kbv_bf16_from_float(1.0f);
    c[0] = kbv_bf16_from_float(1.0f);
    c[1] = kbv_bf16_from_float(1.0078125f);
    c[2] = kbv_bf16_from_float(1.0f);
    c[3] = kbv_bf16_from_float(1.0f);
    c[4] = kbv_bf16_from_float(1.0234375f);
    double tol = kbv_allclose_tol(KBV_BF16);
    assert_true(tol == 1e-2);
    assert_true(kbv_allclose_tol(KBV_F32) == 1e-3);
    assert_int_equal(be->compare(be, &b, &ref, NULL, NULL, tol, tol, &st), KBV_OK);
    assert_int_equal(st.poison_left, 0);
    assert_int_equal(st.allclose_fail, 1);
    assert_int_equal(st.allclose_first, 4);
    free(b.data);
    free(d.data);
    free(back.data);
    free(ref.data);
    kbv_backend_destroy(be);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rounding),
        cmocka_unit_test(test_backend),
        cmocka_unit_test(test_fill_rounds_the_fp32_draw),
        cmocka_unit_test(test_ops_round_the_f32_result),
        cmocka_unit_test(test_float_accumulation),
        cmocka_unit_test(test_services),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
