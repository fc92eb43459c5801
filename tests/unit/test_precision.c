/* The precisions (record/precision.h, eval/precision.h): the table's names
 * and baselines agree with the modes, a run times the baselines of its
 * protocols alone, records carry the precision through
 * JSON, resume and the tables, and strict's thresholds follow the output
 * type (the bf16 class: band 1e-1, floors 1e-5; float32's 1e-2 and 1e-6). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "eval/precision.h"
#include "eval/verdict.h"
#include "exec/strict_rule.h"
#include "record/results.h"
#include "report/metrics.h"

static void test_table_matches_modes(void **state)
{
    (void)state;
    for (int p = 0; p < KBV_PRECISION_COUNT; p++) {
        const kbv_precision_info *info = kbv_precision_get((kbv_precision)p);
        kbv_precision back;
        assert_int_equal(kbv_precision_parse(info->name, &back), KBV_OK);
        assert_int_equal(back, p);
        const kbv_precision_modes *m = kbv_precision_modes_get((kbv_precision)p);
        for (int q = 0; q < KBV_PROTO_COUNT; q++) {
            kbv_mode b = kbv_precision_baseline((kbv_precision)p, q);
            assert_string_equal(kbv_mode_name(b), info->baseline[q]);
            assert_true(m->timed >> b & 1u);      /* a protocol's baseline is measured */
            assert_true(m->backends >> b & 1u);
        }
        assert_true(m->backends >> KBV_MODE_FP32 & 1u);   /* the device services */
        assert_true(m->backends >> KBV_MODE_FP64 & 1u);   /* the oracle */
        assert_true(m->backends >> m->strict_class & 1u);
    }
    const kbv_precision_info *bf = kbv_precision_get(KBV_PRECISION_BF16);
    assert_string_equal(bf->name, "bf16");
    assert_int_equal(bf->float_dtype, KBV_BF16);
    assert_string_equal(bf->prompt_display, "BF16 (bfloat16)");   /* the paper's */
    assert_null(kbv_precision_get(KBV_PRECISION_FP32)->prompt_display);
    const kbv_precision_modes *m = kbv_precision_modes_get(KBV_PRECISION_BF16);
    assert_int_equal(m->timed, 1u << KBV_MODE_BF16);
    assert_int_equal(m->strict_class, KBV_MODE_BF16);
    assert_false(m->report_fp32_strict);
    assert_false(m->backends >> KBV_MODE_TF32 & 1u);
    kbv_precision p;
    assert_int_equal(kbv_precision_parse("fp16", &p), KBV_ERR_PARSE);
}

/* The baselines a run measures follow its protocols: each protocol's own,
 * fp32-strict's beside strict's in fp32, nothing else. */
static void test_timed_follows_the_protocols(void **state)
{
    (void)state;
    const unsigned S = 1u << KBV_PROTO_STANDARD, V = 1u << KBV_PROTO_VERIFIED,
                   T = 1u << KBV_PROTO_STRICT;
    const unsigned fs = 1u << KBV_MODE_FP32_STRICT, f = 1u << KBV_MODE_FP32,
                   tf = 1u << KBV_MODE_TF32, bf = 1u << KBV_MODE_BF16;
    const kbv_precision F = KBV_PRECISION_FP32, B = KBV_PRECISION_BF16;
    assert_int_equal(kbv_precision_timed_for(F, S), f);
    assert_int_equal(kbv_precision_timed_for(F, V), tf);
    assert_int_equal(kbv_precision_timed_for(F, T), tf | fs);
    assert_int_equal(kbv_precision_timed_for(F, S | V), f | tf);
    assert_int_equal(kbv_precision_timed_for(F, S | V | T), kbv_precision_modes_get(F)->timed);
    assert_int_equal(kbv_precision_timed_for(F, 0), 0);
    for (unsigned set = 1; set < 8; set++)
        assert_int_equal(kbv_precision_timed_for(B, set), bf);
}

static void test_record_carries_precision(void **state)
{
    (void)state;
    kbv_record a, b;
    kbv_record_init(&a);
    snprintf(a.model, sizeof a.model, "m");
    snprintf(a.problem, sizeof a.problem, "L1/19");
    a.level = 1;
    a.problem_id = 19;
    a.precision = KBV_PRECISION_BF16;
    json_t *o = NULL;
    assert_int_equal(kbv_record_to_json(&a, &o), KBV_OK);
    assert_string_equal(json_string_value(json_object_get(o, "precision")), "bf16");
    assert_int_equal(kbv_record_from_json(o, &b), KBV_OK);
    assert_int_equal(b.precision, KBV_PRECISION_BF16);
    assert_true(kbv_record_same_job(&a, &b));
    /* a record written before precisions were recorded is fp32's */
    json_object_del(o, "precision");
    assert_int_equal(kbv_record_from_json(o, &b), KBV_OK);
    assert_int_equal(b.precision, KBV_PRECISION_FP32);
    assert_false(kbv_record_same_job(&a, &b));   /* the other precision: evaluated again */
    json_object_set_new(o, "precision", json_string("fp8"));
    assert_int_not_equal(kbv_record_from_json(o, &b), KBV_OK);
    json_decref(o);

    char name[160];
    assert_string_equal(kbv_record_table_name(&a, name, sizeof name), "m @bf16");
    a.precision = KBV_PRECISION_FP32;
    assert_string_equal(kbv_record_table_name(&a, name, sizeof name), "m");
}

/* A model's fp32 and bf16 records are two groups of the metrics, never one
 * (the same sample in both precisions would otherwise replace each other). */
static void test_metrics_keep_precisions_apart(void **state)
{
    (void)state;
    kbv_record r[2];
    for (int i = 0; i < 2; i++) {
        kbv_record_init(&r[i]);
        snprintf(r[i].model, sizeof r[i].model, "m");
        snprintf(r[i].problem, sizeof r[i].problem, "L1/19");
        r[i].level = 1;
        r[i].problem_id = 19;
        for (int p = 0; p < KBV_PROTO_COUNT; p++) {
            r[i].proto[p].correct = i == 0;
            r[i].proto[p].t_kernel_ms = 1.0;
            r[i].proto[p].t_baseline_ms = 2.0;
        }
    }
    r[1].precision = KBV_PRECISION_BF16;
    kbv_metrics m;
    assert_int_equal(kbv_metrics_compute(r, 2, &m), KBV_OK);
    int found = 0;
    for (int i = 0; i < m.n; i++) {
        if (m.groups[i].level != 0)
            continue;
        found++;
        const bool bf16 = m.groups[i].precision == KBV_PRECISION_BF16;
        assert_string_equal(m.groups[i].model, bf16 ? "m @bf16" : "m");
        assert_true(m.groups[i].p[KBV_PROTO_STANDARD].correct_pct == (bf16 ? 0.0 : 100.0));
    }
    assert_int_equal(found, 2);
    kbv_metrics_free(&m);
}

static void test_strict_thresholds_follow_the_type(void **state)
{
    (void)state;
    assert_true(kbv_allclose_tol(KBV_BF16) == 1e-2);
    assert_true(kbv_allclose_tol(KBV_F32) == 1e-3);
    /* float32's floors are DESIGN's 1e-6; bf16's the same fraction of its tolerance */
    assert_true(fabs(kbv_strict_floor(KBV_F32) - 1e-6) < 1e-18);
    assert_true(fabs(kbv_strict_floor(KBV_BF16) - 1e-5) < 1e-17);
    assert_true(kbv_strict_band(KBV_F32) == 1e-2);
    assert_true(kbv_strict_band(KBV_BF16) == 1e-1);
    const double M = kbv_strict_max_finite(KBV_BF16), inf = INFINITY;
    /* 5% under bf16's largest finite value: judged under float32's band, not under bf16's */
    assert_int_equal(kbv_strict_element_in(M, 0.95 * M, M, true, M, kbv_strict_band(KBV_F32)),
                     KBV_STRICT_FINITE);
    assert_int_equal(kbv_strict_element_in(inf, 0.95 * M, M, true, M, kbv_strict_band(KBV_BF16)),
                     KBV_STRICT_AT_OVERFLOW);
    assert_int_equal(kbv_strict_element_in(inf, 1.2 * M, inf, true, M, kbv_strict_band(KBV_BF16)),
                     KBV_STRICT_OVERFLOW);
    assert_int_equal(kbv_strict_element_in(M, 0.8 * M, M, true, M, kbv_strict_band(KBV_BF16)),
                     KBV_STRICT_FINITE);

    /* the budget's floor where the bf16 baseline is exact (ReLU): 8 x 1e-5 */
    kbv_tensor out;
    memset(&out, 0, sizeof out);
    out.dtype = KBV_BF16;
    out.ndim = 1;
    out.shape[0] = 100;
    out.stride[0] = 1;
    kbv_compare_stats base, cand;
    memset(&base, 0, sizeof base);
    base.n = 100;
    base.allclose_first = base.strict_first = -1;
    base.sq_ref = 1.0;
    base.max_ref = 1.0;
    cand = base;
    cand.sq_err = 7e-5 * 7e-5;   /* rel L2 7e-5 < 8e-5 */
    cand.max_err = 7e-5;
    kbv_judge_input in = {.n_outputs = 1, .outputs = &out, .cand = &cand, .tf32 = &base,
                          .tol = kbv_allclose_tol(KBV_BF16)};
    kbv_draw_verdict v;
    kbv_judge_draw(&in, &v);
    assert_true(v.strict_pass);
    assert_true(fabs(v.budget_rel_l2 - 8e-5) < 1e-12);
    cand.sq_err = 9e-5 * 9e-5;
    kbv_judge_draw(&in, &v);
    assert_false(v.strict_pass);
    /* the same error in a float32 output is far over its floor of 8e-6 */
    out.dtype = KBV_F32;
    cand.sq_err = 7e-5 * 7e-5;
    kbv_judge_draw(&in, &v);
    assert_false(v.strict_pass);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_table_matches_modes),
        cmocka_unit_test(test_timed_follows_the_protocols),
        cmocka_unit_test(test_record_carries_precision),
        cmocka_unit_test(test_metrics_keep_precisions_apart),
        cmocka_unit_test(test_strict_thresholds_follow_the_type),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
