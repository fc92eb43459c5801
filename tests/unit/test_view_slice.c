/* Basic slicing a[s] (the slice view): the shape rule follows Python's
 * rules (defaults, negative bounds, clamping, steps), refuses what it does
 * not support, and on the CPU backend the result is a view of the operand's
 * memory (PatchMerging's x[:, 1::2, 0::2, :] and Swin-MLP's
 * x[:, 4:-3, 4:-3, :]) that walks exactly the elements Python would pick. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "graph/ops_rules.h"
#include "support/host_tensor.h"
#include "support/op_check.h"

static void test_slice_rule(void **state)
{
    (void)state;
    const int64_t shape[3] = {10, 7, 5};
    int64_t start[3], step[3], len[3];
    assert_int_equal(kbv_slice_dims(NULL, ":, 0::2, 1::2", 3, shape, start, step, len), KBV_OK);
    assert_true(len[0] == 10 && len[1] == 4 && len[2] == 2);
    assert_true(start[1] == 0 && step[1] == 2 && start[2] == 1 && step[2] == 2);
    assert_int_equal(kbv_slice_dims(NULL, "4:-3", 3, shape, start, step, len), KBV_OK);
    assert_true(start[0] == 4 && len[0] == 3 && len[1] == 7 && len[2] == 5);
    assert_int_equal(kbv_slice_dims(NULL, "-100:100:3, 5:2", 3, shape, start, step, len), KBV_OK);
    assert_true(start[0] == 0 && len[0] == 4 && step[0] == 3 && len[1] == 0);
    assert_int_equal(kbv_slice_dims(NULL, " : , :-1 ,", 3, shape, start, step, len) == KBV_OK, 0);
    /* a stop naming a dim, unresolved without a graph: start and step hold */
    assert_int_equal(kbv_slice_dims(NULL, "1:seq_len:2", 3, shape, start, step, len), KBV_OK);
    assert_true(start[0] == 1 && step[0] == 2 && len[0] == -1 && len[1] == 7);
    const char *bad[] = {"", "1", ":, 2", "::0", "::-1", "1:2:3:4", ":, :, :, :", "a:", "::a",
                         ":,,:", "1:2x"};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++)
        if (kbv_slice_dims(NULL, bad[k], 3, shape, start, step, len) == KBV_OK)
            fail_msg("'%s' was accepted", bad[k]);
}

/* [4, 6, 3] sliced both ways on the CPU: views, the elements Python picks. */
static void test_slice_is_a_view(void **state)
{
    (void)state;
    kbv_backend *be = kbv_test_backend(KBV_F32);
    const int64_t s[3] = {4, 6, 3};
    kbv_tensor a = kbv_test_tensor(KBV_F32, 3, s);
    for (int64_t i = 0; i < 72; i++)
        kbv_test_set(&a, i, (double)i);
    kbv_node_def gather = {.op = KBV_OP_SLICE, .s = "1::2, 0::2"};
    kbv_tensor g = {.dtype = KBV_F32, .ndim = 3, .shape = {2, 3, 3}};
    assert_int_equal(kbv_test_run_op(be, KBV_OP_SLICE, &gather, &a, 1, &g), KBV_OK);
    assert_ptr_equal(g.data, (float *)a.data + 18);
    assert_true(g.stride[0] == 36 && g.stride[1] == 6 && g.stride[2] == 1);
    for (int64_t i = 0; i < 2; i++)
        for (int64_t j = 0; j < 3; j++)
            for (int64_t k = 0; k < 3; k++)
                assert_true(kbv_test_get(&g, (i * 3 + j) * 3 + k) ==
                            (double)((1 + 2 * i) * 18 + 2 * j * 3 + k));
    kbv_node_def cut = {.op = KBV_OP_SLICE, .s = ":, 2:-1, 1:"};
    kbv_tensor c = {.dtype = KBV_F32, .ndim = 3, .shape = {4, 3, 2}};
    assert_int_equal(kbv_test_run_op(be, KBV_OP_SLICE, &cut, &a, 1, &c), KBV_OK);
    assert_ptr_equal(c.data, (float *)a.data + 7);
    for (int64_t i = 0; i < 4; i++)
        for (int64_t j = 0; j < 3; j++)
            for (int64_t k = 0; k < 2; k++)
                assert_true(kbv_test_get(&c, (i * 3 + j) * 2 + k) ==
                            (double)(i * 18 + (2 + j) * 3 + 1 + k));
    free(a.data);
    be->destroy(be);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_slice_rule),
        cmocka_unit_test(test_slice_is_a_view),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
