/* pad (F.pad, constant mode) on the CPU backend: the shape rule pairs the
 * list from the last dim backwards; each element is the operand's shifted
 * one or the pad value; a strided operand is read where it lies; bad lists
 * are refused. Expected values are computed here element by element from
 * the definition of F.pad. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "graph/ops_shifted.h"
#include "support/host_tensor.h"
#include "support/op_check.h"

static double value_of(int64_t i) { return (double)((i * 37) % 11 - 5) * 0.25; }

static kbv_tensor filled(kbv_dtype dt, int ndim, const int64_t *shape)
{
    kbv_tensor t = kbv_test_tensor(dt, ndim, shape);
    for (int64_t i = 0; i < kbv_test_numel(&t); i++)
        kbv_test_set(&t, i, value_of(i));
    return t;
}

/* Swin-MLP's shifted-window pad: F.pad(x, [0, 0, 2, 1, 3, 0]) of [2, 3, 4, 5]
 * pads dim 2 by (2, 1) and dim 1 by (3, 0). */
static void test_pad_4d(void **state)
{
    (void)state;
    for (int mode = 0; mode < 2; mode++) {
        kbv_dtype dt = mode ? KBV_F64 : KBV_F32;
        kbv_backend *be = kbv_test_backend(dt);
        const int64_t s[4] = {2, 3, 4, 5}, os[4] = {2, 6, 7, 5};
        kbv_tensor a = filled(dt, 4, s);
        kbv_node_def nd = {.op = KBV_OP_PAD, .s = "[0, 0, 2, 1, 3, 0]"};
        kbv_shift_map m;
        assert_int_equal(kbv_shift_map_of(&nd, 4, s, &m), KBV_OK);
        for (int d = 0; d < 4; d++)
            assert_true(m.out_shape[d] == os[d]);
        kbv_tensor out = kbv_test_tensor(dt, 4, os);
        assert_int_equal(kbv_test_run_op(be, KBV_OP_PAD, &nd, &a, 1, &out), KBV_OK);
        int64_t i = 0;
        for (int64_t n = 0; n < 2; n++)
            for (int64_t h = 0; h < 6; h++)
                for (int64_t w = 0; w < 7; w++)
                    for (int64_t c = 0; c < 5; c++, i++) {
                        int64_t sh = h - 3, sw = w - 2;
                        bool inside = sh >= 0 && sh < 3 && sw >= 0 && sw < 4;
                        double want = inside ? value_of(((n * 3 + sh) * 4 + sw) * 5 + c) : 0.0;
                        assert_true(kbv_test_get(&out, i) == want);
                    }
        free(out.data);
        free(a.data);
        be->destroy(be);
    }
}

/* F.pad(x.t(), (1, 2), "constant", -1.5) of x [2, 3]: the transpose read
 * through its strides, the value in the padding. */
static void test_pad_strided_with_value(void **state)
{
    (void)state;
    kbv_backend *be = kbv_test_backend(KBV_F32);
    const int64_t s[2] = {2, 3};
    kbv_tensor a = filled(KBV_F32, 2, s);
    kbv_tensor t = a; /* [3, 2] view */
    t.shape[0] = 3;
    t.shape[1] = 2;
    t.stride[0] = 1;
    t.stride[1] = 3;
    kbv_node_def nd = {.op = KBV_OP_PAD, .s = "(1, 2)", .f = {-1.5}};
    const int64_t os[2] = {3, 5};
    kbv_tensor out = kbv_test_tensor(KBV_F32, 2, os);
    assert_int_equal(kbv_test_run_op(be, KBV_OP_PAD, &nd, &t, 1, &out), KBV_OK);
    for (int64_t r = 0; r < 3; r++)
        for (int64_t c = 0; c < 5; c++) {
            double want = c >= 1 && c < 3 ? value_of((c - 1) * 3 + r) : -1.5;
            assert_true(kbv_test_get(&out, r * 5 + c) == want);
        }
    free(out.data);
    free(a.data);
    be->destroy(be);
}

static void test_pad_refuses_bad_lists(void **state)
{
    (void)state;
    const int64_t s[2] = {2, 3};
    kbv_shift_map m;
    const char *bad[] = {"[1]", "[1, 2, 3]", "[0, 0, 0, 0, 1, 1]", "[-1, 0]", "1, 2", "[1, x]"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        kbv_node_def nd = {.op = KBV_OP_PAD, .s = bad[k]};
        assert_int_not_equal(kbv_shift_map_of(&nd, 2, s, &m), KBV_OK);
    }
    kbv_node_def ok = {.op = KBV_OP_PAD, .s = "[]"};
    assert_int_equal(kbv_shift_map_of(&ok, 2, s, &m), KBV_OK);
    assert_true(m.out_shape[0] == 2 && m.out_shape[1] == 3);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pad_4d),
        cmocka_unit_test(test_pad_strided_with_value),
        cmocka_unit_test(test_pad_refuses_bad_lists),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
