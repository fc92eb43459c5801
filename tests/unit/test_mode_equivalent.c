/* Which precision modes run the same code for a problem (exec/backend.h
 * kbv_mode_equivalent): the baselines of such modes are one measurement. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "exec/backend.h"
#include "graph/problem.h"
#include "support/test_problem.h"


static void expect(const kbv_backend *be, const char *key, kbv_mode strict, kbv_mode fp32,
                   kbv_mode tf32)
{
    const kbv_graph *g = kbv_test_catalog_graph(key);
    assert_int_equal(kbv_mode_equivalent(be, g, KBV_MODE_FP32_STRICT), strict);
    assert_int_equal(kbv_mode_equivalent(be, g, KBV_MODE_FP32), fp32);
    assert_int_equal(kbv_mode_equivalent(be, g, KBV_MODE_TF32), tf32);
    assert_int_equal(kbv_mode_equivalent(be, g, KBV_MODE_FP64), KBV_MODE_FP64);
}

/* With tensor-core math (CUDA): elementwise problems run one code in every
 * mode; a matmul tells tf32 apart (cuBLAS' default math is fp32-strict's and
 * fp32's); a convolution tells fp32-strict apart (cuDNN may use TF32 in
 * fp32, as PyTorch's defaults). */
static void test_tensor_math(void **state)
{
    (void)state;
    kbv_backend be = {.tensor_math = true};
    const kbv_mode S = KBV_MODE_FP32_STRICT, F = KBV_MODE_FP32, T = KBV_MODE_TF32;
    expect(&be, "L1/19", S, S, S);   /* ReLU */
    expect(&be, "L1/23", S, S, S);   /* softmax */
    expect(&be, "L1/1", S, S, T);    /* matmul */
    expect(&be, "L1/97", S, S, T);   /* attention */
    expect(&be, "L1/55", S, F, F);   /* conv2d */
}

/* Without it (the CPU backend) every float32 mode is plain float32. */
static void test_no_tensor_math(void **state)
{
    (void)state;
    kbv_backend be = {.tensor_math = false};
    const kbv_mode S = KBV_MODE_FP32_STRICT;
    expect(&be, "L1/1", S, S, S);
    expect(&be, "L1/55", S, S, S);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_tensor_math),
        cmocka_unit_test(test_no_tensor_math),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
