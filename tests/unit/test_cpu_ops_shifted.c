/* pad (F.pad, constant mode) and roll (torch.roll) on the CPU backend: the
 * pad rule pairs the list from the last dim backwards; each element is the
 * operand's shifted one, wrapped (roll) or the pad value (pad); a strided
 * operand is read where it lies; bad attributes are refused. Expected
 * values are computed here element by element from the definitions of
 * F.pad and torch.roll (out[i] = x[(i - shift) mod n] per rolled dim).
 * index (a[b]) gathers rows, negative indices counting from the end. */
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

/* Swin V2's cyclic shift and its reverse on [2, 5, 4, 3]: rolled by (-3, -1)
 * over dims (1, 2) then by (3, 1) back, the operand again; a shift larger
 * than the dim wraps, and one dim named twice adds its shifts. */
static void test_roll(void **state)
{
    (void)state;
    for (int mode = 0; mode < 2; mode++) {
        kbv_dtype dt = mode ? KBV_F64 : KBV_F32;
        kbv_backend *be = kbv_test_backend(dt);
        const int64_t s[4] = {2, 5, 4, 3};
        kbv_tensor a = filled(dt, 4, s);
        kbv_tensor r = kbv_test_tensor(dt, 4, s), back = kbv_test_tensor(dt, 4, s);
        kbv_node_def fwd = {.op = KBV_OP_ROLL, .s = "shifts=(-3, -1), dims=(1, 2)"};
        kbv_node_def rev = {.op = KBV_OP_ROLL, .s = "shifts=(3, 1), dims=(1, -2)"};
        assert_int_equal(kbv_test_run_op(be, KBV_OP_ROLL, &fwd, &a, 1, &r), KBV_OK);
        assert_int_equal(kbv_test_run_op(be, KBV_OP_ROLL, &rev, &r, 1, &back), KBV_OK);
        int64_t i = 0;
        for (int64_t n = 0; n < 2; n++)
            for (int64_t h = 0; h < 5; h++)
                for (int64_t w = 0; w < 4; w++)
                    for (int64_t c = 0; c < 3; c++, i++) {
                        int64_t sh = ((h + 3) % 5), sw = ((w + 1) % 4);
                        assert_true(kbv_test_get(&r, i) ==
                                    kbv_test_get(&a, ((n * 5 + sh) * 4 + sw) * 3 + c));
                        assert_true(kbv_test_get(&back, i) == kbv_test_get(&a, i));
                    }
        kbv_shift_map m;
        kbv_node_def wide = {.op = KBV_OP_ROLL, .s = "shifts=(7, 1, 1), dims=(1, 3, 3)"};
        assert_int_equal(kbv_shift_map_of(&wide, 4, s, &m), KBV_OK);
        assert_true(m.wrap && m.offset[0] == 0 && m.offset[1] == 2 && m.offset[2] == 0 &&
                    m.offset[3] == 2);
        free(back.data);
        free(r.data);
        free(a.data);
        be->destroy(be);
    }
}

static void test_roll_refuses_bad_attributes(void **state)
{
    (void)state;
    const int64_t s[2] = {2, 3};
    kbv_shift_map m;
    const char *bad[] = {"shifts=(1,), dims=(0, 1)", "shifts=(1, 2)", "dims=(0,)",
                         "shifts=(1,), dims=(2,)", "shifts=(), dims=()", "shifts=1, dims=0"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        kbv_node_def nd = {.op = KBV_OP_ROLL, .s = bad[k]};
        if (kbv_shift_map_of(&nd, 2, s, &m) == KBV_OK)
            fail_msg("'%s' was accepted", bad[k]);
    }
}

/* a[b]: rows of [4, 2, 3] picked by [3, -4, 3, 1], an index out of range
 * refused. */
static void test_index_rows(void **state)
{
    (void)state;
    kbv_backend *be = kbv_test_backend(KBV_F64);
    const int64_t s[3] = {4, 2, 3}, is[1] = {4}, os[3] = {4, 2, 3};
    kbv_tensor in[2] = {filled(KBV_F64, 3, s), kbv_test_tensor(KBV_I64, 1, is)};
    const int64_t rows[4] = {3, -4, 3, 1};
    memcpy(in[1].data, rows, sizeof rows);
    kbv_tensor out = kbv_test_tensor(KBV_F64, 3, os);
    kbv_node_def nd = {.op = KBV_OP_INDEX};
    assert_int_equal(kbv_test_run_op(be, KBV_OP_INDEX, &nd, in, 2, &out), KBV_OK);
    for (int64_t m = 0; m < 4; m++)
        for (int64_t j = 0; j < 6; j++)
            assert_true(kbv_test_get(&out, m * 6 + j) == value_of((rows[m] + 4) % 4 * 6 + j));
    ((int64_t *)in[1].data)[2] = 4;
    assert_int_not_equal(kbv_test_run_op(be, KBV_OP_INDEX, &nd, in, 2, &out), KBV_OK);
    free(out.data);
    free(in[1].data);
    free(in[0].data);
    be->destroy(be);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_pad_4d),
        cmocka_unit_test(test_pad_strided_with_value),
        cmocka_unit_test(test_pad_refuses_bad_lists),
        cmocka_unit_test(test_roll),
        cmocka_unit_test(test_roll_refuses_bad_attributes),
        cmocka_unit_test(test_index_rows),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
