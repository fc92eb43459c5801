/* Mamba-2's segsum mask on the CPU: ~tril(ones(T, T, bool)), true exactly
 * strictly above the diagonal, T the operand's last size; its shape rule. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "exec/backend.h"
#include "graph/ops_table.h"
#include "support/host_tensor.h"
#include "support/op_check.h"

static void test_mask(void **state)
{
    (void)state;
    kbv_backend *be = kbv_test_backend(KBV_F64);
    int64_t xs[3] = {2, 3, 5}, ms[2] = {5, 5};
    kbv_tensor x = kbv_test_tensor(KBV_F64, 3, xs), m = kbv_test_tensor(KBV_BOOL, 2, ms);
    kbv_node_def nd = {.op = KBV_OP_SEGSUM_MASK, .n_args = 1};
    assert_int_equal(kbv_test_run_op(be, KBV_OP_SEGSUM_MASK, &nd, &x, 1, &m), KBV_OK);
    const unsigned char *v = m.data;
    for (int i = 0; i < 5; i++)
        for (int j = 0; j < 5; j++)
            assert_int_equal(v[i * 5 + j], j > i);
    /* an output of another shape is refused */
    int64_t bad[2] = {3, 3};
    kbv_tensor wrong = kbv_test_tensor(KBV_BOOL, 2, bad);
    assert_int_equal(kbv_test_run_op(be, KBV_OP_SEGSUM_MASK, &nd, &x, 1, &wrong), KBV_ERR_INVALID);
    free(x.data);
    free(m.data);
    free(wrong.data);
    kbv_backend_destroy(be);
}

static void test_shape_rule(void **state)
{
    (void)state;
    kbv_value x = {.name = "x", .dtype = KBV_F32, .ndim = 4, .shape = {2, 8, 2, 64}}, out = {0};
    const kbv_value *args[1] = {&x};
    kbv_node_def nd = {.op = KBV_OP_SEGSUM_MASK, .n_args = 1};
    assert_int_equal(kbv_op_table[KBV_OP_SEGSUM_MASK].shape(&nd, args, &out), KBV_OK);
    assert_int_equal(out.dtype, KBV_BOOL);
    assert_int_equal(out.ndim, 2);
    assert_int_equal(out.shape[0], 64);
    assert_int_equal(out.shape[1], 64);
    kbv_value scalar = {.name = "s", .dtype = KBV_F32, .ndim = 0};
    args[0] = &scalar;
    assert_int_equal(kbv_op_table[KBV_OP_SEGSUM_MASK].shape(&nd, args, &out), KBV_ERR_INVALID);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_mask),
        cmocka_unit_test(test_shape_rule),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
