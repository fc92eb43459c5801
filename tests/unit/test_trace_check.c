/* The traced pass's judgement: each rule fails on its own evidence, an
 * honest trace passes, and no trace (the CPU) is not judged. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "eval/trace_check.h"

static char *own_names[] = {"_Z11relu_kernelPKfPfl", "kbv_forward"};
static const kbv_symbol_list own = {2, own_names};

/* Three calls, each running the candidate's kernel on the harness stream. */
static kbv_child_trace honest(void)
{
    kbv_child_trace t;
    memset(&t, 0, sizeof t);
    t.available = 1;
    t.calls = 3;
    t.records = 3;
    t.n_names = 1;
    strcpy(t.names[0], "_Z11relu_kernelPKfPfl");
    for (int c = 0; c < 3; c++) {
        t.call_kernels[c] = 1;
        t.call_names[c] = 1u;
    }
    t.busy_ms = 2.9;
    t.event_ms = 3.0;
    return t;
}

static const char *judge(const kbv_child_trace *t, kbv_trace_verdict *v)
{
    kbv_trace_judge(t, &own, v);
    return v->flag;
}

static void honest_trace_passes(void **state)
{
    (void)state;
    kbv_child_trace t = honest();
    kbv_trace_verdict v;
    assert_null(judge(&t, &v));
    assert_true(v.judged);
    assert_string_equal(v.reason, "");
}

static void no_trace_is_not_judged(void **state)
{
    (void)state;
    kbv_child_trace t;
    memset(&t, 0, sizeof t);
    kbv_trace_verdict v;
    assert_null(judge(&t, &v));
    assert_false(v.judged);
}

static void each_rule_fails_on_its_evidence(void **state)
{
    (void)state;
    kbv_trace_verdict v;
    kbv_child_trace t = honest();
    t.foreign_stream = 2;
    strcpy(t.first_offender, "_Z6sneakyPf ran on a stream of its own");
    assert_string_equal(judge(&t, &v), "trace-foreign-stream");
    assert_non_null(strstr(v.reason, "_Z6sneakyPf"));

    t = honest();
    t.outside_call = 1;
    assert_string_equal(judge(&t, &v), "trace-outside-call");

    t = honest();   /* the second call only copied */
    t.call_names[1] = 0;
    assert_string_equal(judge(&t, &v), "trace-no-own-kernel");
    assert_non_null(strstr(v.reason, "call 1"));

    t = honest();   /* a vendor kernel alone is not the candidate's */
    t.n_names = 2;
    strcpy(t.names[1], "sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32");
    t.call_names[2] = 2u;
    assert_string_equal(judge(&t, &v), "trace-no-own-kernel");
    assert_non_null(strstr(v.reason, "sm90_xmma_gemm"));

    t = honest();
    t.busy_ms = 3.0 * (1 + KBV_TRACE_BUSY_SLACK) + 3 * KBV_TRACE_BUSY_SLACK_MS_PER_CALL + 0.01;
    assert_string_equal(judge(&t, &v), "trace-time-mismatch");
    t.busy_ms -= 0.02;   /* just inside the slack */
    assert_null(judge(&t, &v));

    t = honest();
    t.policy_window = 3;
    assert_string_equal(judge(&t, &v), "l2-persisting");

    t = honest();
    t.lost = 10;
    assert_string_equal(judge(&t, &v), "trace-incomplete");
}

static void long_names_match_when_cut(void **state)
{
    (void)state;
    char fn[400], traced[KBV_TRACE_NAME_MAX];
    memset(fn, 'a', sizeof fn - 1);
    fn[sizeof fn - 1] = '\0';
    memcpy(traced, fn, sizeof traced - 1);   /* cut as the runner cuts */
    traced[sizeof traced - 1] = '\0';
    assert_true(kbv_trace_name_is(traced, fn));
    assert_false(kbv_trace_name_is("abc", "abcd"));
    assert_false(kbv_trace_name_is("abcd", "abc"));
    assert_true(kbv_trace_name_is("abc", "abc"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(honest_trace_passes),
        cmocka_unit_test(no_trace_is_not_judged),
        cmocka_unit_test(each_rule_fails_on_its_evidence),
        cmocka_unit_test(long_names_match_when_cut),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
