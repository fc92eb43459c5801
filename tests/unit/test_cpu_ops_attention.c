/* The attention ops on the CPU backend. masked_fill writes its value (-inf
 * here, as the causal mask does) where the bool mask is true and the
 * operand elsewhere: a [1, 1, T, T] mask broadcast over [B, H, T, T], a
 * transposed (strided) operand, float32 and float64; its shape rule takes
 * a bool mask that broadcasts to the operand's shape and nothing else. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "graph/ops_table.h"
#include "support/host_tensor.h"
#include "support/op_check.h"

static double value_of(int64_t i) { return (double)((i * 37) % 11 - 5) * 0.1; }

/* tril(ones(T, T)) == 0 as bytes: true above the diagonal. */
static void causal_mask(kbv_tensor *mask, int64_t T)
{
    unsigned char *m = mask->data;
    for (int64_t r = 0; r < T; r++)
        for (int64_t c = 0; c < T; c++)
            m[r * T + c] = c > r;
}

static void test_masked_fill_causal(void **state)
{
    (void)state;
    const kbv_dtype dts[2] = {KBV_F32, KBV_F64};
    for (int t = 0; t < 2; t++) {
        kbv_backend *be = kbv_test_backend(dts[t]);
        const int64_t T = 5, s[4] = {2, 3, T, T}, ms[4] = {1, 1, T, T};
        kbv_tensor x = kbv_test_tensor(dts[t], 4, s), y = kbv_test_tensor(dts[t], 4, s);
        kbv_tensor mask = kbv_test_tensor(KBV_BOOL, 4, ms);
        for (int64_t i = 0; i < kbv_test_numel(&x); i++)
            kbv_test_set(&x, i, value_of(i));
        causal_mask(&mask, T);
        kbv_node_def nd = {.op = KBV_OP_MASKED_FILL, .f = {-INFINITY}};
        kbv_tensor args[2] = {x, mask};
        assert_int_equal(kbv_test_run_op(be, KBV_OP_MASKED_FILL, &nd, args, 2, &y), KBV_OK);
        for (int64_t i = 0; i < kbv_test_numel(&y); i++) {
            int64_t r = i / T % T, c = i % T;
            double want = c > r ? -INFINITY : kbv_test_get(&x, i);
            assert_true(kbv_test_get(&y, i) == want);
        }
        /* a strided operand: x's last two dims transposed, and a finite fill */
        kbv_tensor xt = x;
        xt.stride[2] = x.stride[3];
        xt.stride[3] = x.stride[2];
        nd.f[0] = 2.5;
        args[0] = xt;
        assert_int_equal(kbv_test_run_op(be, KBV_OP_MASKED_FILL, &nd, args, 2, &y), KBV_OK);
        for (int64_t i = 0; i < kbv_test_numel(&y); i++) {
            int64_t r = i / T % T, c = i % T;
            double want = c > r ? 2.5 : kbv_test_get(&xt, i);
            assert_true(kbv_test_get(&y, i) == want);
        }
        /* a float mask is refused */
        args[0] = x;
        args[1] = x;
        assert_int_not_equal(kbv_test_run_op(be, KBV_OP_MASKED_FILL, &nd, args, 2, &y), KBV_OK);
        free(x.data);
        free(y.data);
        free(mask.data);
        be->destroy(be);
    }
}

static kbv_value value_shaped(kbv_dtype dt, int ndim, const int64_t *shape)
{
    kbv_value v;
    memset(&v, 0, sizeof v);
    v.dtype = dt;
    v.ndim = ndim;
    memcpy(v.shape, shape, sizeof(int64_t) * (size_t)ndim);
    return v;
}

static void test_masked_fill_shape_rule(void **state)
{
    (void)state;
    const int64_t s[4] = {2, 3, 5, 5}, ms[2] = {5, 5}, wide[5] = {4, 2, 3, 5, 5};
    kbv_value a = value_shaped(KBV_F32, 4, s), m = value_shaped(KBV_BOOL, 2, ms);
    kbv_value mw = value_shaped(KBV_BOOL, 5, wide), mf = value_shaped(KBV_F32, 2, ms), out;
    kbv_node_def nd = {.op = KBV_OP_MASKED_FILL};
    const kbv_op_info *info = &kbv_op_table[KBV_OP_MASKED_FILL];
    const kbv_value *ok[2] = {&a, &m}, *widens[2] = {&a, &mw}, *floats[2] = {&a, &mf};
    memset(&out, 0, sizeof out);
    assert_int_equal(info->shape(&nd, ok, &out), KBV_OK);
    assert_int_equal(out.dtype, KBV_F32);
    assert_int_equal(out.ndim, 4);
    assert_true(out.shape[0] == 2 && out.shape[3] == 5);
    assert_int_not_equal(info->shape(&nd, widens, &out), KBV_OK);
    assert_int_not_equal(info->shape(&nd, floats, &out), KBV_OK);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_masked_fill_causal),
        cmocka_unit_test(test_masked_fill_shape_rule),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
