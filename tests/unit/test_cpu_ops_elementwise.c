/* The elementwise ops of the level-2 problems on the CPU backend, float32
 * and float64, against float64 references written here from PyTorch's
 * definitions: clamp (NaN kept, min > max gives max), clamp max, a - c,
 * a / c, mish, hardswish, gelu (tanh), silu, and minimum / maximum with
 * broadcasting (a 0-dim operand, a column, a strided view) and NaN
 * propagation, also against a float32 0-dim constant. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "support/host_tensor.h"
#include "support/op_check.h"

static const kbv_dtype both[2] = {KBV_F32, KBV_F64};

static const double specials[] = {-INFINITY, -30, -5, -3, -2.5, -1, -0.5, -1e-3, 0, 1e-3, 0.5,
                                  1, 2.5, 3, 5, 19.5, 30, INFINITY, NAN};
#define N_SPECIALS (int64_t)(sizeof specials / sizeof specials[0])

static double ref_unary(kbv_op op, double x, double f0, double f1)
{
    switch (op) {
    case KBV_OP_CLAMP: return isnan(x) ? x : fmin(fmax(x, f0), f1);
    case KBV_OP_CLAMP_MAX: return isnan(x) ? x : fmin(x, f1);
    case KBV_OP_SUB_SCALAR: return x - f0;
    case KBV_OP_DIV_SCALAR: return x / f0;
    case KBV_OP_MISH: return x * tanh(log1p(exp(x)));
    case KBV_OP_HARDSWISH: return isnan(x) ? x : x * fmin(fmax(x + 3, 0), 6) / 6;
    case KBV_OP_GELU_TANH:
        return 0.5 * x * (1 + tanh(sqrt(2 / M_PI) * (x + 0.044715 * x * x * x)));
    case KBV_OP_SILU: return x / (1 + exp(-x));
    case KBV_OP_MIN_SCALAR: return isnan(x) ? x : fmin(x, (double)(float)f0);
    case KBV_OP_MAX_SCALAR: return isnan(x) ? x : fmax(x, (double)(float)f0);
    default: fail_msg("op %d", (int)op); return 0;
    }
}

static void test_unary(void **state)
{
    (void)state;
    static const struct {
        kbv_op op;
        double f0, f1;
    } cases[] = {
        {KBV_OP_CLAMP, -1.5, 2.0},   {KBV_OP_CLAMP, 2.0, -1.0}, /* min > max: max */
        {KBV_OP_CLAMP_MAX, 0, 0.25}, {KBV_OP_SUB_SCALAR, 0.7, 0}, {KBV_OP_DIV_SCALAR, 3.0, 0},
        {KBV_OP_MISH, 0, 0},         {KBV_OP_HARDSWISH, 0, 0},    {KBV_OP_GELU_TANH, 0, 0},
        {KBV_OP_SILU, 0, 0},         {KBV_OP_MIN_SCALAR, 0.1, 0}, {KBV_OP_MAX_SCALAR, -0.1, 0},
    };
    for (int t = 0; t < 2; t++) {
        kbv_dtype dt = both[t];
        kbv_backend *be = kbv_test_backend(dt);
        int64_t n = N_SPECIALS;
        kbv_tensor x = kbv_test_tensor(dt, 1, &n), y = kbv_test_tensor(dt, 1, &n);
        for (int64_t i = 0; i < n; i++)
            kbv_test_set(&x, i, specials[i]);
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            kbv_node_def nd;
            memset(&nd, 0, sizeof nd);
            /* clamp_max's bound is its f[0]; the reference takes it as f1 */
            nd.f[0] = cases[c].op == KBV_OP_CLAMP_MAX ? cases[c].f1 : cases[c].f0;
            nd.f[1] = cases[c].f1;
            assert_int_equal(kbv_test_run_op(be, cases[c].op, &nd, &x, 1, &y), KBV_OK);
            for (int64_t i = 0; i < n; i++) {
                double xi = kbv_test_get(&x, i);
                double want = ref_unary(cases[c].op, xi, cases[c].f0, cases[c].f1);
                if (dt == KBV_F32)
                    want = (double)(float)want;
                kbv_test_assert_close(kbv_test_get(&y, i), want, 4 * kbv_test_tol(dt),
                                      be->name, i);
            }
        }
        /* the 0-dim constant of min_scalar is a float32 number even in float64 */
        kbv_node_def nd = {.f = {0.1}};
        kbv_test_set(&x, 0, 0.2);
        assert_int_equal(kbv_test_run_op(be, KBV_OP_MIN_SCALAR, &nd, &x, 1, &y), KBV_OK);
        assert_true(kbv_test_get(&y, 0) == (double)0.1f);
        free(x.data);
        free(y.data);
        kbv_backend_destroy(be);
    }
}

static double ref_binary(kbv_op op, double a, double b)
{
    if (isnan(a))
        return a;
    if (isnan(b))
        return b;
    return op == KBV_OP_MINIMUM ? fmin(a, b) : fmax(a, b);
}

/* out [3, 4] from a [3, 4] (or its transposed [4, 3] storage) and b of
 * shapes [4], [3, 1], [] and [3, 4]. */
static void test_minimum_maximum(void **state)
{
    (void)state;
    const int64_t s34[2] = {3, 4}, s4[1] = {4}, s31[2] = {3, 1}, s43[2] = {4, 3};
    for (int t = 0; t < 2; t++) {
        kbv_dtype dt = both[t];
        kbv_backend *be = kbv_test_backend(dt);
        kbv_tensor bs[4] = {kbv_test_tensor(dt, 1, s4), kbv_test_tensor(dt, 2, s31),
                            kbv_test_tensor(dt, 0, NULL), kbv_test_tensor(dt, 2, s34)};
        kbv_tensor store = kbv_test_tensor(dt, 2, s43), out = kbv_test_tensor(dt, 2, s34);
        for (int64_t i = 0; i < 12; i++)
            kbv_test_set(&store, i, i == 5 ? NAN : (double)((i * 7) % 11) - 5.0);
        for (int k = 0; k < 4; k++)
            for (int64_t i = 0; i < kbv_test_numel(&bs[k]); i++)
                kbv_test_set(&bs[k], i, i == 2 ? NAN : 1.5 - (double)i);
        kbv_tensor a = store; /* a = store.T: strides (1, 3) */
        a.shape[0] = 3;
        a.shape[1] = 4;
        a.stride[0] = 1;
        a.stride[1] = 3;
        for (int o = 0; o < 2; o++) {
            kbv_op op = o ? KBV_OP_MAXIMUM : KBV_OP_MINIMUM;
            for (int k = 0; k < 4; k++) {
                for (int order = 0; order < 2; order++) {
                    kbv_tensor args[2] = {order ? bs[k] : a, order ? a : bs[k]};
                    assert_int_equal(kbv_test_run_op(be, op, NULL, args, 2, &out), KBV_OK);
                    for (int64_t i = 0; i < 12; i++) {
                        int64_t r = i / 4, c = i % 4, bi;
                        switch (k) {
                        case 0: bi = c; break;
                        case 1: bi = r; break;
                        case 2: bi = 0; break;
                        default: bi = i; break;
                        }
                        double av = kbv_test_get(&a, i), bv = kbv_test_get(&bs[k], bi);
                        double want = order ? ref_binary(op, bv, av) : ref_binary(op, av, bv);
                        kbv_test_assert_close(kbv_test_get(&out, i), want, 0, be->name, i);
                    }
                }
            }
        }
        for (int k = 0; k < 4; k++)
            free(bs[k].data);
        free(store.data);
        free(out.data);
        kbv_backend_destroy(be);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unary),
        cmocka_unit_test(test_minimum_maximum),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
