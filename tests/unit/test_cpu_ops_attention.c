/* The attention ops on the CPU backend. masked_fill writes its value (-inf
 * here, as the causal mask does) where the bool mask is true and the
 * operand elsewhere: a [1, 1, T, T] mask broadcast over [B, H, T, T], a
 * transposed (strided) operand, float32 and float64; its shape rule takes
 * a bool mask that broadcasts to the operand's shape and nothing else.
 * eq_scalar gives bool bytes of a strided operand; slice is a view of
 * leading ranges (bias[:, :, :T, :T]) at the operand's own strides, a stop
 * past the end stopping at the end as in Python; unfold twice (ViT's patches) is a
 * view whose elements are the patches' pixels. */
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

static void test_eq_scalar(void **state)
{
    (void)state;
    const kbv_dtype dts[2] = {KBV_F32, KBV_F64};
    for (int t = 0; t < 2; t++) {
        kbv_backend *be = kbv_test_backend(dts[t]);
        const int64_t s[2] = {4, 4};
        kbv_tensor x = kbv_test_tensor(dts[t], 2, s), y = kbv_test_tensor(KBV_BOOL, 2, s);
        for (int64_t i = 0; i < 16; i++) /* tril(ones(4, 4)) */
            kbv_test_set(&x, i, i % 4 <= i / 4 ? 1.0 : 0.0);
        kbv_node_def nd = {.op = KBV_OP_EQ_SCALAR, .f = {0.0}};
        assert_int_equal(kbv_test_run_op(be, KBV_OP_EQ_SCALAR, &nd, &x, 1, &y), KBV_OK);
        const unsigned char *m = y.data;
        for (int64_t i = 0; i < 16; i++)
            assert_int_equal(m[i], i % 4 > i / 4);
        kbv_tensor xt = x; /* the transpose: true below the diagonal */
        xt.stride[0] = 1;
        xt.stride[1] = 4;
        assert_int_equal(kbv_test_run_op(be, KBV_OP_EQ_SCALAR, &nd, &xt, 1, &y), KBV_OK);
        for (int64_t i = 0; i < 16; i++)
            assert_int_equal(m[i], i % 4 < i / 4);
        free(x.data);
        free(y.data);
        be->destroy(be);
    }
}

static void test_slice_is_a_view(void **state)
{
    (void)state;
    const int64_t s[4] = {1, 1, 6, 6};
    kbv_value a = value_shaped(KBV_F32, 4, s), out;
    const kbv_value *args[1] = {&a};
    const kbv_op_info *info = &kbv_op_table[KBV_OP_SLICE];
    kbv_node_def nd = {.op = KBV_OP_SLICE, .s = ":, :, :4, :4"};
    memset(&out, 0, sizeof out);
    assert_int_equal(info->shape(&nd, args, &out), KBV_OK);
    assert_true(out.ndim == 4 && out.shape[1] == 1 && out.shape[2] == 4 && out.shape[3] == 4);
    nd.s = ":1, :, :2"; /* the dims after the last entry stay whole */
    assert_int_equal(info->shape(&nd, args, &out), KBV_OK);
    assert_true(out.shape[0] == 1 && out.shape[2] == 2 && out.shape[3] == 6);
    nd.s = ":, :, :7"; /* Python's rules: a stop past the end stops at the end */
    assert_int_equal(info->shape(&nd, args, &out), KBV_OK);
    assert_true(out.shape[2] == 6);
    nd.s = ":, :, :, :, :";
    assert_int_not_equal(info->shape(&nd, args, &out), KBV_OK);

    kbv_backend *be = kbv_test_backend(KBV_F32);
    kbv_tensor x = kbv_test_tensor(KBV_F32, 4, s);
    for (int64_t i = 0; i < 36; i++)
        kbv_test_set(&x, i, (double)i);
    nd.s = ":, :, :4, :4";
    kbv_tensor v = {.dtype = KBV_F32, .ndim = 4, .shape = {1, 1, 4, 4}};
    assert_int_equal(kbv_test_run_op(be, KBV_OP_SLICE, &nd, &x, 1, &v), KBV_OK);
    assert_ptr_equal(v.data, x.data);
    assert_true(v.stride[2] == 6 && v.stride[3] == 1);
    for (int64_t i = 0; i < 16; i++)
        assert_true(kbv_test_get(&v, i) == (double)(i / 4 * 6 + i % 4));
    free(x.data);
    be->destroy(be);
}

/* [1, 1, 4, 6].unfold(2, 2, 2).unfold(3, 3, 3): [1, 1, 2, 2, 2, 3], patch
 * (i, j) pixel (r, c) at row 2i + r, column 3j + c. */
static void test_unfold_patches(void **state)
{
    (void)state;
    kbv_backend *be = kbv_test_backend(KBV_F64);
    const int64_t s[4] = {1, 1, 4, 6};
    kbv_tensor x = kbv_test_tensor(KBV_F64, 4, s);
    for (int64_t i = 0; i < 24; i++)
        kbv_test_set(&x, i, (double)i);
    kbv_node_def rows = {.op = KBV_OP_UNFOLD, .i = {2, 2, 2}};
    kbv_node_def cols = {.op = KBV_OP_UNFOLD, .i = {3, 3, 3}};
    kbv_value a = value_shaped(KBV_F64, 4, s), ra, ca;
    const kbv_value *args[1] = {&a};
    memset(&ra, 0, sizeof ra);
    memset(&ca, 0, sizeof ca);
    assert_int_equal(kbv_op_table[KBV_OP_UNFOLD].shape(&rows, args, &ra), KBV_OK);
    args[0] = &ra;
    assert_int_equal(kbv_op_table[KBV_OP_UNFOLD].shape(&cols, args, &ca), KBV_OK);
    const int64_t want[6] = {1, 1, 2, 2, 2, 3};
    assert_int_equal(ca.ndim, 6);
    for (int d = 0; d < 6; d++)
        assert_true(ca.shape[d] == want[d]);
    kbv_tensor r = {.dtype = KBV_F64, .ndim = 5, .shape = {1, 1, 2, 6, 2}};
    kbv_tensor p = {.dtype = KBV_F64, .ndim = 6, .shape = {1, 1, 2, 2, 2, 3}};
    assert_int_equal(kbv_test_run_op(be, KBV_OP_UNFOLD, &rows, &x, 1, &r), KBV_OK);
    assert_int_equal(kbv_test_run_op(be, KBV_OP_UNFOLD, &cols, &r, 1, &p), KBV_OK);
    assert_ptr_equal(p.data, x.data);
    for (int64_t i = 0; i < 24; i++) {
        int64_t pi = i / 12, pj = i / 6 % 2, pr = i / 3 % 2, pc = i % 3;
        assert_true(kbv_test_get(&p, i) == (double)((2 * pi + pr) * 6 + 3 * pj + pc));
    }
    kbv_node_def too_big = {.op = KBV_OP_UNFOLD, .i = {2, 5, 1}};
    args[0] = &a;
    assert_int_not_equal(kbv_op_table[KBV_OP_UNFOLD].shape(&too_big, args, &ra), KBV_OK);
    free(x.data);
    be->destroy(be);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_unfold_patches),
        cmocka_unit_test(test_eq_scalar),
        cmocka_unit_test(test_slice_is_a_view),
        cmocka_unit_test(test_masked_fill_causal),
        cmocka_unit_test(test_masked_fill_shape_rule),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
