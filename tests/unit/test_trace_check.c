/* The traced pass's judgement: each rule fails on its own evidence, an
 * honest trace passes, and no trace (the CPU) is not judged. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <string.h>

#include "eval/trace_check.h"

/* The candidate's functions; the last is a host function it named like a
 * cuBLAS kernel, so that a library kernel of that name would match by name. */
#define GEMM "sm90_xmma_gemm_f32f32_tf32f32_f32_tn_n_tilesize128x128x32"
static char *own_names[] = {"_Z11relu_kernelPKfPfl", "kbv_forward", GEMM};
static const kbv_symbol_list own = {3, own_names};

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
    kbv_trace_judge(t, &own, false, v);
    return v->flag;
}

/* The same, in a run that allows vendor libraries. */
static const char *judge_vendor(const kbv_child_trace *t, kbv_trace_verdict *v)
{
    kbv_trace_judge(t, &own, true, v);
    return v->flag;
}

/* honest(), with its launches traced: the candidate's kernel from its own
 * object and, in every call, a cuBLASLt GEMM from libcublasLt. */
static kbv_child_trace with_library(void)
{
    kbv_child_trace t = honest();
    t.origins = 1;
    t.name_origin[0] = KBV_ORIGIN_CANDIDATE;
    t.n_names = 2;
    strcpy(t.names[1], GEMM);
    t.name_origin[1] = KBV_ORIGIN_OTHER;
    strcpy(t.name_module[1], "libcublasLt.so.13");
    for (int c = 0; c < 3; c++) {
        t.call_kernels[c] = 2;
        t.call_names[c] = 3u;
    }
    return t;
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
    strcpy(t.names[1], "sm90_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize64x64x8");
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

/* Under --allow-vendor-libs: library kernels on the harness stream are fine
 * beside one of the candidate's own per call, never instead of it. */
static void library_kernels_are_told_by_their_origin(void **state)
{
    (void)state;
    kbv_trace_verdict v;
    kbv_child_trace t = with_library();
    assert_null(judge_vendor(&t, &v));
    assert_null(judge(&t, &v));

    t = with_library();   /* call 1 ran the library's GEMM alone */
    t.call_names[1] = 2u;
    assert_string_equal(judge_vendor(&t, &v), "trace-no-own-kernel");
    assert_non_null(strstr(v.reason, "call 1"));
    assert_non_null(strstr(v.reason, "launched from libcublasLt.so.13"));

    /* the library's kernel bears a name the candidate defines: its origin
     * still says whose it is, with or without the option */
    t = with_library();
    for (int c = 0; c < 3; c++)
        t.call_names[c] = 2u;
    assert_string_equal(judge_vendor(&t, &v), "trace-no-own-kernel");
    assert_string_equal(judge(&t, &v), "trace-no-own-kernel");

    /* a kernel whose launch the trace did not see: by its name without the
     * option (as before origins were traced), never the candidate's with it */
    t = with_library();
    t.name_origin[0] = KBV_ORIGIN_UNKNOWN;
    assert_null(judge(&t, &v));
    assert_string_equal(judge_vendor(&t, &v), "trace-no-own-kernel");
    assert_non_null(strstr(v.reason, "launched by no call the trace saw"));

    /* no launches traced at all: without the option the names decide ... */
    t = honest();
    assert_null(judge(&t, &v));
    /* ... with it the pass cannot tell the library's kernels from the candidate's */
    assert_string_equal(judge_vendor(&t, &v), "trace-incomplete");

    /* a kernel from the candidate's object must still be a function it defines */
    t = with_library();
    strcpy(t.names[0], "_Z7unknownPf");
    assert_string_equal(judge_vendor(&t, &v), "trace-no-own-kernel");

    /* the other rules hold for library work too: a GEMM on another stream */
    t = with_library();
    t.foreign_stream = 1;
    strcpy(t.first_offender, GEMM " ran on a stream of its own");
    assert_string_equal(judge_vendor(&t, &v), "trace-foreign-stream");
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
        cmocka_unit_test(library_kernels_are_told_by_their_origin),
        cmocka_unit_test(long_names_match_when_cut),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
