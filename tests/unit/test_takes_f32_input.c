/* Which inputs a float64 run takes as float32 (exec/backend.h
 * kbv_graph_takes_f32_input): the oracle skips the float64 copy of an input
 * only where every op that reads it widens it on reading. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include <cmocka.h>

#include "exec/backend.h"
#include "graph/problem.h"
#include "support/test_problem.h"


/* Whether be's run of problem `key` takes its input `input` as float32. */
static bool takes(const kbv_backend *be, const char *key, int input)
{
    return kbv_graph_takes_f32_input(be, kbv_test_catalog_graph(key), input);
}

/* A float64 backend whose ReLU, tanh and GELU widen float32 (as CUDA's
 * elementwise ops do) and nothing else. */
static bool widens_three(const kbv_backend *be, kbv_op op)
{
    (void)be;
    return op == KBV_OP_RELU || op == KBV_OP_TANH || op == KBV_OP_GELU;
}

static void test_every_reader_must_widen(void **state)
{
    (void)state;
    kbv_backend be = {.float_dtype = KBV_F64, .widens_f32 = widens_three};
    assert_true(takes(&be, "L1/19", 0));    /* relu(x) */
    assert_true(takes(&be, "L1/22", 0));    /* tanh(x) */
    assert_false(takes(&be, "L1/21", 0));   /* sigmoid: not widened */
    assert_false(takes(&be, "L1/25", 0));   /* x * sigmoid(x) */
    assert_false(takes(&be, "L1/1", 0));    /* a product */
    assert_false(takes(&be, "L1/19", 1));   /* no such input */
    assert_false(takes(&be, "L1/19", -1));
}

/* Only a float64 backend that says so: a float32 one, or one without
 * widens_f32 (the CPU's), copies every input first. */
static void test_only_where_the_backend_widens(void **state)
{
    (void)state;
    kbv_backend f32 = {.float_dtype = KBV_F32, .widens_f32 = widens_three};
    kbv_backend none = {.float_dtype = KBV_F64};
    assert_false(takes(&f32, "L1/19", 0));
    assert_false(takes(&none, "L1/19", 0));
    kbv_backend *cpu = NULL;
    assert_int_equal(kbv_cpu_backend_create(KBV_MODE_FP64, &cpu), KBV_OK);
    assert_false(takes(cpu, "L1/19", 0));
    kbv_backend_destroy(cpu);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_reader_must_widen),
        cmocka_unit_test(test_only_where_the_backend_widens),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
