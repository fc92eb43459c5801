/* The judging rules of DESIGN section 4, one test per rule. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cpu/cpu_backend.h"
#include "dist/draws.h"
#include "eval/verdict.h"
#include "exec/strict_rule.h"
#include "support/host_tensor.h"

/* One 64x64 output named "out". */
static kbv_tensor out64x64(void)
{
    kbv_tensor t;
    memset(&t, 0, sizeof t);
    t.dtype = KBV_F32;
    t.ndim = 2;
    t.shape[0] = t.shape[1] = 64;
    t.stride[0] = 64;
    t.stride[1] = 1;
    t.name = "out";
    return t;
}

/* A candidate that matches: allclose clean, strict error well inside the budget. */
static kbv_compare_stats good_cand(void)
{
    kbv_compare_stats s;
    memset(&s, 0, sizeof s);
    s.n = 4096;
    s.allclose_first = -1;
    s.strict_first = -1;
    s.max_abs_diff = 1e-6;
    s.sq_err = 1e-12;
    s.sq_ref = 1.0;      /* rel L2 1e-6 */
    s.max_err = 1e-6;
    s.max_ref = 2.0;
    return s;
}

/* tf32 baseline: rel L2 1e-4, max error 1e-4. */
static kbv_compare_stats tf32_stats(void)
{
    kbv_compare_stats s = good_cand();
    s.sq_err = 1e-8;
    s.max_err = 1e-4;
    return s;
}

static void judge(const kbv_compare_stats *c, const kbv_compare_stats *t, const char *integrity,
                  kbv_draw_verdict *v)
{
    kbv_tensor out = out64x64();
    kbv_judge_input in = {.n_outputs = 1, .outputs = &out, .cand = c, .tf32 = t, .tol = 1e-3,
                          .integrity = integrity};
    kbv_judge_draw(&in, v);
}

static void test_rel_l2_definition(void **state)
{
    (void)state;
    assert_true(kbv_rel_l2(0.0, 0.0) == 0.0);
    assert_true(kbv_rel_l2(0.0, 5.0) == 0.0);
    assert_true(isinf(kbv_rel_l2(1e-30, 0.0)));
    assert_true(fabs(kbv_rel_l2(4.0, 16.0) - 0.5) < 1e-15);
}

static void test_allclose_tolerance_by_dtype(void **state)
{
    (void)state;
    assert_true(kbv_allclose_tol(KBV_F32) == 1e-3);
    assert_true(kbv_allclose_tol(KBV_F64) == 1e-3);
    assert_true(kbv_allclose_tol(KBV_F16) == 1e-2);
    assert_true(kbv_allclose_tol(KBV_BF16) == 1e-2);
}

static void test_good_candidate_passes_both(void **state)
{
    (void)state;
    kbv_compare_stats c = good_cand(), t = tf32_stats();
    kbv_draw_verdict v;
    judge(&c, &t, NULL, &v);
    assert_true(v.std_pass);
    assert_false(v.std_skipped);
    assert_true(v.strict_pass);
    assert_string_equal(v.std_reason, "");
    assert_string_equal(v.strict_reason, "");
    assert_int_equal(v.first_bad_ndim, -1);
    assert_true(fabs(v.budget_rel_l2 - 8e-4) < 1e-12);
    assert_true(fabs(v.budget_max_err - 8e-4) < 1e-12);
}

static void test_allclose_failure_reason(void **state)
{
    (void)state;
    kbv_compare_stats c = good_cand(), t = tf32_stats();
    c.allclose_fail = 1234;
    c.allclose_first = 3 * 64 + 7;
    c.max_abs_diff = 0.98;
    kbv_draw_verdict v;
    judge(&c, &t, NULL, &v);
    assert_false(v.std_pass);
    assert_string_equal(v.std_reason,
                        "1234 of 4096 elements outside atol/rtol 1e-3 (max |diff| 0.98, first at "
                        "[3,7])");
    assert_int_equal(v.first_bad_ndim, 2);
    assert_int_equal(v.first_bad[0], 3);
    assert_int_equal(v.first_bad[1], 7);
}

/* Without strict's references (a run that does not evaluate strict): allclose
 * judged as ever, strict not judged at all, its numbers unknown. */
static void test_no_oracle_judges_allclose_alone(void **state)
{
    (void)state;
    kbv_compare_stats c = good_cand();
    kbv_draw_verdict v;
    judge(&c, NULL, "input 'x' modified", &v);
    assert_true(v.std_pass);
    assert_false(v.std_skipped);
    assert_true(v.strict_skipped);
    assert_false(v.strict_pass);
    assert_true(isnan(v.rel_l2) && isnan(v.budget_rel_l2) && isnan(v.max_err) &&
                isnan(v.budget_max_err));
    assert_true(v.max_abs_diff == 1e-6);
    c.allclose_fail = 7;
    c.allclose_first = 70;
    judge(&c, NULL, NULL, &v);
    assert_false(v.std_pass);
    assert_true(v.strict_skipped);
    assert_int_equal(v.first_bad_ndim, 2);   /* the allclose failure still located */
    assert_int_equal(v.first_bad[0], 1);
    assert_int_equal(v.first_bad[1], 6);
    /* with the references, the same stats are judged by strict too */
    kbv_compare_stats t = tf32_stats();
    c = good_cand();
    judge(&c, &t, NULL, &v);
    assert_false(v.strict_skipped);
    assert_true(v.strict_pass);
}

static void test_unwritten_output_fails_allclose_and_strict(void **state)
{
    (void)state;
    kbv_compare_stats c = good_cand(), t = tf32_stats();
    c.poison_left = 17;
    c.cand_nonfinite = 17;
    c.allclose_fail = 17;
    c.allclose_first = 0;
    kbv_draw_verdict v;
    judge(&c, &t, NULL, &v);
    assert_false(v.std_pass);
    assert_non_null(strstr(v.std_reason, "17 never written"));
    assert_false(v.strict_pass);
    assert_string_equal(v.strict_reason, "output not fully written: 17 elements");
    assert_int_equal(v.poison_left, 17);
}

static void test_nonfinite_reference_skips_standard_only(void **state)
{
    (void)state;
    kbv_compare_stats c = good_cand(), t = tf32_stats();
    c.ref_nonfinite = 3;
    c.allclose_fail = 3;   /* whatever allclose says, the draw is not judged */
    kbv_draw_verdict v;
    judge(&c, &t, NULL, &v);
    assert_true(v.std_skipped);
    assert_false(v.std_pass);
    assert_string_equal(v.std_reason, "");
    assert_true(v.strict_pass);
}

static void test_integrity_fails_strict_first(void **state)
{
    (void)state;
    kbv_compare_stats c = good_cand(), t = tf32_stats();
    c.poison_left = 1;
    kbv_draw_verdict v;
    judge(&c, &t, "input 'A' modified", &v);
    assert_false(v.strict_pass);
    assert_string_equal(v.strict_reason, "input 'A' modified");
}

static void test_class_failure(void **state)
{
    (void)state;
    kbv_compare_stats c = good_cand(), t = tf32_stats();
    c.class_fail = 2;
    c.strict_first = 64 + 1;
    kbv_draw_verdict v;
    judge(&c, &t, NULL, &v);
    assert_true(v.std_pass);
    assert_false(v.strict_pass);
    assert_non_null(strstr(v.strict_reason, "2 elements differ from the truth in class"));
    assert_non_null(strstr(v.strict_reason, "first at [1,1]"));
    assert_int_equal(v.first_bad_ndim, 2);
    assert_int_equal(v.first_bad[0], 1);
}

/* The element rule, case by case: what is judged and what passes. */
static void test_strict_element_rule(void **state)
{
    (void)state;
    const double M = kbv_strict_max_finite(KBV_F32), inf = INFINITY, nan = NAN;
    const struct {
        double c, o, s;
        kbv_strict_outcome want;
    } cases[] = {
        /* finite truth, finite baseline: the candidate must be finite */
        {1.0, 1.0, 1.0, KBV_STRICT_FINITE},
        {nan, 1.0, 1.0, KBV_STRICT_WRONG_CLASS},
        {inf, 1.0, 1.0, KBV_STRICT_WRONG_CLASS},
        /* the float64 oracle's own NaN or inf (overflow, then inf * 0 or
         * inf - inf) is not the truth: never judged, whatever the others say */
        {0.0, nan, nan, KBV_STRICT_ORACLE_NONFINITE},
        {nan, nan, nan, KBV_STRICT_ORACLE_NONFINITE},
        {0.0, inf, inf, KBV_STRICT_ORACLE_NONFINITE},
        {5.0, -inf, -inf, KBV_STRICT_ORACLE_NONFINITE},
        /* the truth overflows float32: any non-finite candidate passes (another
         * association order gives NaN or the other infinity), a finite one fails */
        {inf, 1e39, inf, KBV_STRICT_OVERFLOW},
        {nan, 1e39, inf, KBV_STRICT_OVERFLOW},
        {-inf, 1e39, nan, KBV_STRICT_OVERFLOW},
        {(double)FLT_MAX, 1e39, inf, KBV_STRICT_WRONG_CLASS},
        {0.0, -1e300, -inf, KBV_STRICT_WRONG_CLASS},
        /* the baseline overflowed where the truth is finite (and the reverse):
         * a float32 kernel and a more accurate one may differ, not judged */
        {1e30, 1e30, inf, KBV_STRICT_BASELINE_DIFFERS},
        {nan, 1e30, nan, KBV_STRICT_BASELINE_DIFFERS},
        {(double)FLT_MAX, 1e39, (double)FLT_MAX, KBV_STRICT_BASELINE_DIFFERS},
        /* at the overflow threshold a last-bit difference flips the class */
        {inf, M * (1 - 1e-7), M, KBV_STRICT_AT_OVERFLOW},
        {M, M * (1 + 1e-7), inf, KBV_STRICT_AT_OVERFLOW},
        {inf, M / (1 + 0.9 * KBV_STRICT_OVERFLOW_BAND), M, KBV_STRICT_AT_OVERFLOW},
        {inf, M / (1 + 1.1 * KBV_STRICT_OVERFLOW_BAND), M, KBV_STRICT_WRONG_CLASS},
        {M, M * (1 + 1.1 * KBV_STRICT_OVERFLOW_BAND), inf, KBV_STRICT_WRONG_CLASS},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        kbv_strict_outcome got = kbv_strict_element(cases[i].c, cases[i].o, cases[i].s, true, M);
        if (got != cases[i].want)
            fail_msg("case %zu: c %g o %g s %g: outcome %d, expected %d", i, cases[i].c,
                     cases[i].o, cases[i].s, (int)got, (int)cases[i].want);
    }
    /* judged or not */
    assert_true(kbv_strict_judged(KBV_STRICT_FINITE) && kbv_strict_judged(KBV_STRICT_OVERFLOW) &&
                kbv_strict_judged(KBV_STRICT_WRONG_CLASS));
    assert_false(kbv_strict_judged(KBV_STRICT_ORACLE_NONFINITE) ||
                 kbv_strict_judged(KBV_STRICT_BASELINE_DIFFERS) ||
                 kbv_strict_judged(KBV_STRICT_AT_OVERFLOW));
    /* without a baseline it is taken to agree */
    assert_int_equal(kbv_strict_element(1.0, 1e39, 0, false, M), KBV_STRICT_WRONG_CLASS);
    assert_int_equal(kbv_strict_element(inf, 1e39, 0, false, M), KBV_STRICT_OVERFLOW);
    /* float16 overflows at 65504; integers never */
    const double H = kbv_strict_max_finite(KBV_F16);
    assert_true(H == 65504.0);
    assert_int_equal(kbv_strict_element(inf, 7e4, inf, true, H), KBV_STRICT_OVERFLOW);
    assert_int_equal(kbv_strict_element(inf, 65000, 65000, true, H), KBV_STRICT_AT_OVERFLOW);
    assert_int_equal(kbv_strict_element(3e9, 3e9, 3e9, true, kbv_strict_max_finite(KBV_I64)),
                     KBV_STRICT_FINITE);
}

/* ---- L1/90 cumprod under D2: the false positive, reproduced ------------ */

#define CP_ROWS 4
#define CP_LEN 4096
#define CP_TILE 2048   /* the CUDA backend's row scan: 4 elements x 512 threads */

/* One row of cumprod in T with the CUDA row scan's association: each tile's
 * running product from its start, joined by a carry (the product of the
 * tiles before). tile = len: the plain sequential product. */
#define TILED_CUMPROD(T, name)                                                                   \
    static void name(const float *x, int64_t len, int64_t tile, T *y)                            \
    {                                                                                            \
        T carry = 1;                                                                             \
        for (int64_t base = 0; base < len; base += tile) {                                       \
            T local = 1;                                                                         \
            for (int64_t j = base; j < len && j < base + tile; j++) {                            \
                local *= (T)x[j];                                                                \
                y[j] = carry * local;                                                            \
            }                                                                                    \
            carry *= local;                                                                      \
        }                                                                                        \
    }
TILED_CUMPROD(double, cumprod_f64)
TILED_CUMPROD(float, cumprod_f32)

/* The honest candidate of the report: the product in double, rounded once. */
static void cumprod_double_rounded(const float *x, int64_t len, float *y)
{
    double acc = 1.0;
    for (int64_t j = 0; j < len; j++) {
        acc *= (double)x[j];
        y[j] = (float)acc;
    }
}

/* A candidate more accurate still: the product as mantissa and exponent
 * (frexp), so it neither overflows nor underflows before the one rounding,
 * and an exact zero gives exact zeros. */
static void cumprod_scaled(const float *x, int64_t len, float *y)
{
    double m = 1.0;
    long e = 0;
    for (int64_t j = 0; j < len; j++) {
        int k;
        m = frexp(m * (double)x[j], &k);
        e += k;
        if (m == 0.0)
            e = 0;
        y[j] = (float)ldexp(m, e > 100000 ? 100000 : e < -100000 ? -100000 : (int)e);
    }
}

/* rows of 3 x N(0,1) (D2 on randn), each with an exact zero at zero_at[r]
 * (Box-Muller gives one whenever its first uniform is 1: 2^-24 per element) */
static void d2_rows(float *x, const int64_t *zero_at)
{
    for (int r = 0; r < CP_ROWS; r++)
        for (int64_t j = 0; j < CP_LEN; j++) {
            kbv_philox_out b = kbv_rng(90, 0, KBV_RNG_ELEMENT, (uint64_t)(r * CP_LEN + j));
            x[r * CP_LEN + j] = j == zero_at[r] ? 0.0f : (float)(3.0 * kbv_normal(b.v[0], b.v[1]));
        }
}

/* Judges cand against the oracle with the fp32 tiled scan as the fp32-strict
 * and tf32 baselines, through the CPU backend's comparison. */
static void judge_cumprod(const kbv_tensor *cand, const kbv_tensor *oracle,
                          const kbv_tensor *fp32, kbv_draw_verdict *v, kbv_compare_stats *cs)
{
    kbv_backend *be = NULL;
    assert_int_equal(kbv_cpu_backend_create(KBV_MODE_FP32, &be), KBV_OK);
    kbv_compare_stats ts;
    assert_int_equal(be->compare(be, cand, fp32, oracle, fp32, 1e-3, 1e-3, cs), KBV_OK);
    assert_int_equal(be->compare(be, fp32, fp32, oracle, fp32, 1e-3, 1e-3, &ts), KBV_OK);
    kbv_judge_input in = {.n_outputs = 1, .outputs = cand, .cand = cs, .tf32 = &ts, .tol = 1e-3};
    kbv_judge_draw(&in, v);
    kbv_backend_destroy(be);
}

static void test_cumprod_overflow_then_zero(void **state)
{
    (void)state;
    int64_t shape[] = {CP_ROWS, CP_LEN};
    kbv_tensor x = kbv_test_tensor(KBV_F32, 2, shape), cand = kbv_test_tensor(KBV_F32, 2, shape),
               fp32 = kbv_test_tensor(KBV_F32, 2, shape),
               oracle = kbv_test_tensor(KBV_F64, 2, shape);
    float *xs = x.data, *c = cand.data, *f = fp32.data;
    double *o = oracle.data;
    /* zeros after float32 overflows (~190 steps at 0.46 of log per step) and
     * before (600, 1200) or after (3000, 3900) float64 does (~1540) */
    const int64_t zero_at[CP_ROWS] = {600, 1200, 3000, 3900};
    d2_rows(xs, zero_at);
    for (int oracle_tile = 0; oracle_tile < 2; oracle_tile++) {
        /* the oracle as the CUDA backend computes it (a tiled scan: its carry
         * overflows, then 0 * inf = NaN where the truth is 0) and as the CPU
         * backend does (sequential: overflow, then inf * 0 at the late zeros) */
        int64_t tile = oracle_tile ? CP_TILE : CP_LEN;
        for (int r = 0; r < CP_ROWS; r++) {
            cumprod_f64(xs + r * CP_LEN, CP_LEN, tile, o + r * CP_LEN);
            cumprod_f32(xs + r * CP_LEN, CP_LEN, CP_TILE, f + r * CP_LEN);
        }
        for (int variant = 0; variant < 2; variant++) {
            for (int r = 0; r < CP_ROWS; r++)
                (variant ? cumprod_scaled : cumprod_double_rounded)(xs + r * CP_LEN, CP_LEN,
                                                                     c + r * CP_LEN);
            int64_t nan_agree_finite_cand = 0;
            for (int64_t i = 0; i < (int64_t)CP_ROWS * CP_LEN; i++)
                nan_agree_finite_cand += isnan(o[i]) && isnan(f[i]) && isfinite(c[i]);
            kbv_draw_verdict v;
            kbv_compare_stats cs;
            judge_cumprod(&cand, &oracle, &fp32, &v, &cs);
            /* the situation of the report: the oracle and fp32-strict agree on
             * NaN where the honest candidate has the truth, 0 -- the old class
             * rule judged those and failed it. (Only the sequential oracle and
             * the double candidate, the same arithmetic, agree everywhere.) */
            if (oracle_tile || variant)
                assert_true(nan_agree_finite_cand > 1000);
            if (!v.strict_pass)
                fail_msg("oracle %s, candidate %s: %s", oracle_tile ? "tiled" : "sequential",
                         variant ? "scaled" : "double", v.strict_reason);
            assert_int_equal(cs.class_fail, 0);
            assert_true(cs.oracle_nonfinite >= nan_agree_finite_cand);
            assert_true(v.rel_l2 < 1e-6);
        }
    }
    /* and the rule still fails what it must: zeros where the truth overflows
     * float32 (a cumprod that stops at the first underflow, as the paper's
     * appendix hack does) */
    for (int r = 0; r < CP_ROWS; r++)
        cumprod_f64(xs + r * CP_LEN, CP_LEN, CP_LEN, o + r * CP_LEN);
    cumprod_double_rounded(xs, (int64_t)CP_ROWS * CP_LEN, c);  /* then spoilt: */
    for (int64_t j = 300; j < 400; j++)
        c[j] = 0.0f;
    kbv_draw_verdict v;
    kbv_compare_stats cs;
    judge_cumprod(&cand, &oracle, &fp32, &v, &cs);
    assert_false(v.strict_pass);
    assert_true(cs.class_fail >= 90);
    assert_non_null(strstr(v.strict_reason, "in class"));
    free(x.data), free(cand.data), free(fp32.data), free(oracle.data);
}

static void test_rel_l2_budget_boundary(void **state)
{
    (void)state;
    kbv_compare_stats t = tf32_stats(), c = good_cand();
    kbv_draw_verdict v;
    /* exactly 8x the tf32 error passes (<=) */
    c.sq_err = 64.0 * t.sq_err;
    judge(&c, &t, NULL, &v);
    assert_true(v.strict_pass);
    /* just over fails, with the numbers in the reason */
    c.sq_err = 64.0 * t.sq_err * 1.01;
    judge(&c, &t, NULL, &v);
    assert_false(v.strict_pass);
    assert_string_equal(v.strict_reason, "rel L2 error 8.0e-4 > budget 8.0e-4");
    /* the example of the brief */
    c.sq_err = 3.1e-2 * 3.1e-2;
    t.sq_err = 3e-5 * 3e-5;
    judge(&c, &t, NULL, &v);
    assert_string_equal(v.strict_reason, "rel L2 error 3.1e-2 > budget 2.4e-4");
    assert_true(fabs(v.rel_l2 - 3.1e-2) < 1e-12);
}

static void test_rel_l2_floor_when_tf32_exact(void **state)
{
    (void)state;
    kbv_compare_stats t = tf32_stats(), c = good_cand();
    t.sq_err = 0;
    t.max_err = 0;
    kbv_draw_verdict v;
    c.sq_err = 7.9e-6 * 7.9e-6;   /* rel 7.9e-6 <= 8 * 1e-6 */
    c.max_err = 0;
    judge(&c, &t, NULL, &v);
    assert_true(v.strict_pass);
    assert_true(fabs(v.budget_rel_l2 - 8e-6) < 1e-18);
    c.sq_err = 8.1e-6 * 8.1e-6;
    judge(&c, &t, NULL, &v);
    assert_false(v.strict_pass);
}

static void test_max_err_budget_and_floor(void **state)
{
    (void)state;
    kbv_compare_stats t = tf32_stats(), c = good_cand();
    kbv_draw_verdict v;
    c.max_err = 8e-4;    /* = 8 x tf32 max error */
    judge(&c, &t, NULL, &v);
    assert_true(v.strict_pass);
    c.max_err = 9e-4;
    judge(&c, &t, NULL, &v);
    assert_false(v.strict_pass);
    assert_string_equal(v.strict_reason, "max |error| 9.0e-4 > budget 8.0e-4");
    /* floor: 1e-6 x max |oracle| when tf32 is exact */
    t.max_err = 0;
    t.sq_err = 0;
    c.sq_err = 0;
    c.max_ref = 1000.0;
    c.max_err = 8e-3;     /* 8 x 1e-6 x 1000 */
    judge(&c, &t, NULL, &v);
    assert_true(v.strict_pass);
    c.max_err = 8.1e-3;
    judge(&c, &t, NULL, &v);
    assert_false(v.strict_pass);
}

static void test_nan_error_fails(void **state)
{
    (void)state;
    kbv_compare_stats t = tf32_stats(), c = good_cand();
    c.max_err = NAN;
    kbv_draw_verdict v;
    judge(&c, &t, NULL, &v);
    assert_false(v.strict_pass);
}

static void test_zero_reference_with_error_fails(void **state)
{
    (void)state;
    kbv_compare_stats t = tf32_stats(), c = good_cand();
    c.sq_ref = 0;
    c.sq_err = 1e-20;
    kbv_draw_verdict v;
    judge(&c, &t, NULL, &v);
    assert_false(v.strict_pass);
    assert_true(isinf(v.rel_l2));
}

static void test_second_output_named(void **state)
{
    (void)state;
    kbv_tensor outs[2] = {out64x64(), out64x64()};
    outs[1].name = "h";
    kbv_compare_stats c[2] = {good_cand(), good_cand()}, t[2] = {tf32_stats(), tf32_stats()};
    c[1].sq_err = 1.0;
    kbv_judge_input in = {.n_outputs = 2, .outputs = outs, .cand = c, .tf32 = t, .tol = 1e-3};
    kbv_draw_verdict v;
    kbv_judge_draw(&in, &v);
    assert_false(v.strict_pass);
    assert_non_null(strstr(v.strict_reason, "output 'h': rel L2 error 1.0e0"));
    assert_true(v.rel_l2 == 1.0);   /* the worst output is reported */
    assert_int_equal(v.n, 8192);
}

static void test_tally_first_failure_wins(void **state)
{
    (void)state;
    kbv_tally t;
    memset(&t, 0, sizeof t);
    kbv_draw_verdict ok = {.std_pass = true, .strict_pass = true};
    kbv_draw_verdict bad = {.std_pass = false};
    snprintf(bad.std_reason, sizeof bad.std_reason, "first");
    kbv_draw_verdict bad2 = {.std_pass = false};
    snprintf(bad2.std_reason, sizeof bad2.std_reason, "second");
    kbv_draw_verdict skip = {.std_skipped = true};
    kbv_tally_add_std(&t, "base#0", &ok);
    kbv_tally_add_std(&t, "base#1", &skip);
    kbv_tally_add_std(&t, "D4", &bad);
    kbv_tally_add_std(&t, "D5", &bad2);
    assert_int_equal(t.total, 4);
    assert_int_equal(t.passed, 1);
    assert_int_equal(t.skipped, 1);
    assert_false(kbv_tally_correct(&t));
    assert_string_equal(t.reason, "D4: first");
    kbv_tally_fail(&t, "crash");
    assert_string_equal(t.reason, "D4: first");
}

static void test_tally_all_skipped_is_not_correct(void **state)
{
    (void)state;
    kbv_tally t;
    memset(&t, 0, sizeof t);
    kbv_draw_verdict skip = {.std_skipped = true};
    for (int i = 0; i < 5; i++)
        kbv_tally_add_std(&t, "base", &skip);
    assert_false(kbv_tally_correct(&t));
    assert_non_null(strstr(t.reason, "not finite on all 5"));

    memset(&t, 0, sizeof t);
    kbv_draw_verdict ok = {.std_pass = true};
    kbv_tally_add_std(&t, "base#0", &skip);
    kbv_tally_add_std(&t, "base#1", &ok);
    assert_true(kbv_tally_correct(&t));
}

static void test_tally_strict_uses_strict_rule(void **state)
{
    (void)state;
    kbv_tally t;
    memset(&t, 0, sizeof t);
    kbv_draw_verdict v = {.std_pass = false, .std_skipped = true, .strict_pass = true};
    kbv_tally_add_strict(&t, "D6", &v);
    assert_true(kbv_tally_correct(&t));
    v.strict_pass = false;
    snprintf(v.strict_reason, sizeof v.strict_reason, "rel L2 error 3.1e-2 > budget 2.4e-4");
    kbv_tally_add_strict(&t, "D6", &v);
    assert_false(kbv_tally_correct(&t));
    assert_string_equal(t.reason, "D6: rel L2 error 3.1e-2 > budget 2.4e-4");
}

/* ---- the leaderboard gate (scripts/generate_leaderboard.py) ----------- */

/* A draw as the stored run judged it: pass, or fail with this max |diff|. */
static kbv_stored_draw stored(bool pass, double max_diff)
{
    kbv_stored_draw d;
    memset(&d, 0, sizeof d);
    d.pass = pass;
    d.max_diff = max_diff;
    if (!pass)
        snprintf(d.reason, sizeof d.reason, "outside atol/rtol 1e-4");
    return d;
}

/* The gate over five standard draws with these max |diff| (0: passed) and
 * four hidden draws passing or not. */
static bool gate_verdict(const double *std_diff, bool hidden_pass, bool *promoted)
{
    kbv_gate_tally t;
    memset(&t, 0, sizeof t);
    for (int i = 0; i < 5; i++) {
        kbv_stored_draw d = stored(std_diff[i] == 0.0, std_diff[i]);
        kbv_gate_add_standard(&t, "base", &d);
    }
    for (int i = 0; i < 4; i++) {
        kbv_stored_draw d = stored(hidden_pass, hidden_pass ? 0.0 : 0.5);
        kbv_gate_add_hidden(&t, "D", &d);
    }
    char note[512];
    bool ok = kbv_gate_correct(&t, 1e-3, promoted, note, sizeof note);
    assert_true(*promoted == (strstr(note, "hidden configs not judged") != NULL));
    return ok;
}

static void test_leaderboard_gate(void **state)
{
    (void)state;
    bool promoted;
    const double clean[5] = {0, 0, 0, 0, 0};
    assert_true(gate_verdict(clean, true, &promoted) && !promoted);
    /* standard passed at 1e-4: the hidden draws are judged */
    assert_false(gate_verdict(clean, false, &promoted) || promoted);
    /* near-misses of the standard draws alone are promoted; the hidden configs not judged */
    const double near[5] = {5e-4, 0, 9e-4, 0, 0};
    assert_true(gate_verdict(near, true, &promoted) && promoted);
    assert_true(gate_verdict(near, false, &promoted) && promoted);
    /* max |diff| is stored as f"{d:.6f}": 0.0009996 is 0.001000, not below 1e-3 */
    const double rounded_up[5] = {9.996e-4, 0, 0, 0, 0}, rounded_down[5] = {9.994e-4, 0, 0, 0, 0};
    assert_false(gate_verdict(rounded_up, true, &promoted));
    assert_true(gate_verdict(rounded_down, true, &promoted) && promoted);
    const double far[5] = {5e-4, 2e-3, 0, 0, 0};
    assert_false(gate_verdict(far, true, &promoted) || promoted);
    /* Python's max(): a NaN after the first failed draw is passed over, a
     * NaN first wins; an infinity always wins */
    const double nan_later[5] = {5e-4, NAN, 0, 0, 0}, nan_first[5] = {NAN, 5e-4, 0, 0, 0};
    assert_true(gate_verdict(nan_later, true, &promoted) && promoted);
    assert_false(gate_verdict(nan_first, true, &promoted));
    const double inf_later[5] = {5e-4, INFINITY, 0, 0, 0};
    assert_false(gate_verdict(inf_later, true, &promoted));

    /* faults: one during the standard draws is a runtime error, never
     * promoted; one during D1-D4 counts only if those ran */
    kbv_gate_tally t;
    char note[512];
    memset(&t, 0, sizeof t);
    kbv_stored_draw miss = stored(false, 5e-4), pass = stored(true, 0);
    kbv_gate_add_standard(&t, "base#0", &miss);
    kbv_gate_fault(&t, true, "crash: killed by SIGSEGV during base#1");
    assert_false(kbv_gate_correct(&t, 1e-3, &promoted, note, sizeof note) || promoted);
    memset(&t, 0, sizeof t);
    kbv_gate_add_standard(&t, "base#0", &miss);
    kbv_gate_fault(&t, false, "crash: killed by SIGSEGV during D4");
    assert_true(kbv_gate_correct(&t, 1e-3, &promoted, note, sizeof note) && promoted);
    memset(&t, 0, sizeof t);
    kbv_gate_add_standard(&t, "base#0", &pass);
    kbv_gate_fault(&t, false, "crash: killed by SIGSEGV during D4");
    assert_false(kbv_gate_correct(&t, 1e-3, &promoted, note, sizeof note));
    assert_string_equal(t.stored.reason, "crash: killed by SIGSEGV during D4");
}

/* The stored draw from comparison statistics at 1e-4. */
static void test_judge_stored(void **state)
{
    (void)state;
    kbv_tensor out = out64x64();
    kbv_compare_stats c = good_cand();
    kbv_judge_input in = {.n_outputs = 1, .outputs = &out, .cand = &c, .tol = 1e-4};
    kbv_stored_draw d;
    kbv_judge_stored(&in, &d);
    assert_true(d.pass && !d.skipped && d.max_diff == 1e-6);
    c.allclose_fail = 3;
    c.allclose_first = 70;
    c.max_abs_diff = 4e-4;
    kbv_judge_stored(&in, &d);
    assert_false(d.pass);
    assert_true(d.max_diff == 4e-4);
    assert_non_null(strstr(d.reason, "3 of 4096 elements outside atol/rtol 1e-4"));
    /* torch.max(abs(ref - out)): an inf output makes it inf, a NaN NaN */
    c.cand_nonfinite = 1;
    kbv_judge_stored(&in, &d);
    assert_true(isinf(d.max_diff));
    c.cand_nan = 1;
    kbv_judge_stored(&in, &d);
    assert_true(isnan(d.max_diff));
    c.ref_nonfinite = 1;
    kbv_judge_stored(&in, &d);
    assert_true(d.skipped && !d.pass);
    assert_true(kbv_leaderboard_stored_tol(KBV_F32) == 1e-4);
    assert_true(kbv_leaderboard_stored_tol(KBV_BF16) == 1e-2);
}

static void test_time_stats(void **state)
{
    (void)state;
    double ms[] = {4, 1, 3, 2, 5};
    kbv_time_stats st;
    kbv_time_stats_of(ms, 5, &st);
    assert_true(st.mean == 3.0);
    assert_true(fabs(st.sd - sqrt(2.5)) < 1e-12);
    assert_true(st.median == 3.0);
    assert_true(st.q1 == 2.0 && st.q3 == 4.0 && st.iqr == 2.0);
    assert_true(st.sum == 15.0);
    double even[] = {1, 2, 3, 4};
    kbv_time_stats_of(even, 4, &st);
    assert_true(st.median == 2.5);
    assert_true(fabs(st.q1 - 1.75) < 1e-12 && fabs(st.q3 - 3.25) < 1e-12);
    kbv_time_stats_of(NULL, 0, &st);
    assert_true(isnan(st.mean) && isnan(st.median));
}

static void test_timing_checks(void **state)
{
    (void)state;
    assert_true(kbv_timing_credible(10.0, 10.0));
    assert_true(kbv_timing_credible(10.0, 12.0));
    assert_false(kbv_timing_credible(10.0, 9.99));
    assert_false(kbv_below_sol(0.9, 1.0));
    assert_true(kbv_below_sol(0.899, 1.0));
    assert_false(kbv_below_sol(0.1, 0.0));   /* no bound known */
}

static void test_fmt_sci(void **state)
{
    (void)state;
    char b[32];
    assert_string_equal(kbv_fmt_sci(3.1e-2, 1, b, sizeof b), "3.1e-2");
    assert_string_equal(kbv_fmt_sci(1e-3, 0, b, sizeof b), "1e-3");
    assert_string_equal(kbv_fmt_sci(1e-2, 0, b, sizeof b), "1e-2");
    assert_string_equal(kbv_fmt_sci(2.5e12, 1, b, sizeof b), "2.5e12");
    assert_string_equal(kbv_fmt_sci(1.0, 1, b, sizeof b), "1.0e0");
    assert_string_equal(kbv_fmt_sci(INFINITY, 1, b, sizeof b), "inf");
    assert_string_equal(kbv_fmt_sci(NAN, 1, b, sizeof b), "nan");
}

/* Which draws each protocol judges, and the seeds behind them. */
static void test_draw_plan(void **state)
{
    (void)state;
    kbv_draw_plan a, b, c;
    kbv_draw_plan_make(42, kbv_problem_find("L1/19"), &a);
    kbv_draw_plan_make(42, kbv_problem_find("L1/19"), &b);
    kbv_draw_plan_make(42, kbv_problem_find("L1/20"), &c);
    assert_int_equal(a.n, 13);
    int standard = 0, verified = 0;
    for (int i = 0; i < a.n; i++) {
        standard += a.d[i].standard;
        verified += a.d[i].verified;
        assert_true(a.d[i].draw.seed == b.d[i].draw.seed);     /* reproducible */
        assert_true(a.d[i].draw.seed != c.d[i].draw.seed);     /* per problem */
        for (int j = 0; j < i; j++)
            assert_true(a.d[i].draw.seed != a.d[j].draw.seed); /* fresh each draw */
    }
    assert_int_equal(standard, 5);
    assert_int_equal(verified, 9);
    assert_int_equal(a.n_standard, 5);
    assert_int_equal(a.n_verified, 9);
    assert_int_equal(a.verified_end, 9);
    assert_int_equal(a.n_dropped, 0);
    assert_string_equal(a.d[0].label, "base#0");
    assert_int_equal(a.d[4].draw.dist, KBV_DIST_BASE);
    assert_string_equal(a.d[5].label, "D1");
    assert_int_equal(a.d[8].draw.dist, KBV_DIST_D4);
    assert_true(a.d[8].verified && !a.d[9].verified);
    assert_true(a.d[9].redraw_params && a.d[9].draw.dist == KBV_DIST_D5);
    assert_string_equal(a.d[12].label, "D8");
    assert_true(a.params.seed != a.params_d5.seed);
    /* the seeds are those of the fixed plan: draw i of the 13, by label */
    for (int i = 0; i < a.n; i++)
        assert_true(a.d[i].draw.seed == kbv_seed_derive(42, "L1/19", KBV_SEED_DRAW, (uint32_t)i));
    kbv_draw_plan_make(43, kbv_problem_find("L1/19"), &c);
    assert_true(a.d[0].draw.seed != c.d[0].draw.seed);         /* per run */
}

/* The paper's per-problem configs: L1/98 has no D4, L1/90 no D2, L1/100 a
 * fifth (H5); a draw keeps its label's seed whatever configs surround it. */
static void test_draw_plan_configs(void **state)
{
    (void)state;
    kbv_draw_plan p98, p100, p90;
    kbv_draw_plan_make(42, kbv_problem_find("L1/98"), &p98);
    assert_int_equal(p98.n, 12);
    assert_int_equal(p98.n_verified, 8);
    assert_int_equal(p98.verified_end, 8);
    assert_string_equal(p98.d[7].label, "D3");
    assert_string_equal(p98.d[8].label, "D5");
    assert_true(p98.d[8].draw.seed == kbv_seed_derive(42, "L1/98", KBV_SEED_DRAW, 9));
    assert_int_equal(p98.n_dropped, 1);
    assert_string_equal(p98.dropped[0].label, "D4");
    assert_non_null(strstr(p98.dropped[0].reason, "NaN"));

    kbv_draw_plan_make(42, kbv_problem_find("L1/90"), &p90);
    assert_int_equal(p90.n_dropped, 1);
    assert_string_equal(p90.dropped[0].label, "D2");
    assert_string_equal(p90.d[6].label, "D3");

    kbv_draw_plan_make(42, kbv_problem_find("L1/100"), &p100);
    assert_int_equal(p100.n, 14);
    assert_int_equal(p100.n_verified, 10);
    assert_int_equal(p100.verified_end, 10);
    assert_int_equal(p100.n_dropped, 0);
    const kbv_planned_draw *h5 = &p100.d[9];
    assert_string_equal(h5->label, "H5");
    assert_true(h5->verified && !h5->standard && !h5->redraw_params);
    assert_int_equal(h5->draw.dist, KBV_DIST_BASE);
    assert_non_null(h5->draw.extra);
    assert_string_equal(h5->draw.extra->input, "targets");
    assert_true(h5->draw.seed == kbv_seed_derive(42, "L1/100", KBV_SEED_DRAW, 13));
    assert_string_equal(p100.d[10].label, "D5");

    /* a config taken out (as a check that finds it not finite does) */
    assert_true(kbv_draw_plan_drop(&p100, "D2", "why"));
    assert_false(kbv_draw_plan_drop(&p100, "D2", "twice"));
    assert_false(kbv_draw_plan_drop(&p100, "base#0", "not a config"));
    assert_false(kbv_draw_plan_drop(&p100, "D6", "not a config"));
    assert_int_equal(p100.n, 13);
    assert_int_equal(p100.n_verified, 9);
    assert_int_equal(p100.verified_end, 9);
    assert_int_equal(p100.n_dropped, 1);
    assert_string_equal(p100.dropped[0].label, "D2");
    assert_string_equal(p100.d[6].label, "D3");

    /* labels name draws for kbv dump */
    kbv_draw d;
    assert_true(kbv_draw_from_label(kbv_problem_find("L1/100"), "h5", &d));
    assert_true(d.extra && d.dist == KBV_DIST_BASE);
    assert_true(kbv_draw_from_label(kbv_problem_find("L1/100"), "D3", &d));
    assert_true(!d.extra && d.dist == KBV_DIST_D3);
    assert_false(kbv_draw_from_label(kbv_problem_find("L1/19"), "H5", &d));
    assert_false(kbv_draw_from_label(kbv_problem_find("L1/19"), "D9", &d));
}

static void test_seed_parse_and_draw(void **state)
{
    (void)state;
    uint64_t s;
    assert_int_equal(kbv_seed_parse("0", &s), KBV_OK);
    assert_true(s == 0);
    assert_int_equal(kbv_seed_parse("9007199254740991", &s), KBV_OK);
    assert_true(s == KBV_SEED_MAX);
    assert_int_equal(kbv_seed_parse("9007199254740992", &s), KBV_ERR_PARSE);
    assert_int_equal(kbv_seed_parse("-1", &s), KBV_ERR_PARSE);
    assert_int_equal(kbv_seed_parse("12x", &s), KBV_ERR_PARSE);
    assert_int_equal(kbv_seed_parse("", &s), KBV_ERR_PARSE);
    uint64_t r1, r2;
    assert_int_equal(kbv_run_seed_new(&r1), KBV_OK);
    assert_int_equal(kbv_run_seed_new(&r2), KBV_OK);
    assert_true(r1 <= KBV_SEED_MAX && r2 <= KBV_SEED_MAX);
    assert_true(r1 != r2);
    kbv_clear_error();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rel_l2_definition),
        cmocka_unit_test(test_allclose_tolerance_by_dtype),
        cmocka_unit_test(test_good_candidate_passes_both),
        cmocka_unit_test(test_allclose_failure_reason),
        cmocka_unit_test(test_no_oracle_judges_allclose_alone),
        cmocka_unit_test(test_unwritten_output_fails_allclose_and_strict),
        cmocka_unit_test(test_nonfinite_reference_skips_standard_only),
        cmocka_unit_test(test_integrity_fails_strict_first),
        cmocka_unit_test(test_class_failure),
        cmocka_unit_test(test_strict_element_rule),
        cmocka_unit_test(test_cumprod_overflow_then_zero),
        cmocka_unit_test(test_rel_l2_budget_boundary),
        cmocka_unit_test(test_rel_l2_floor_when_tf32_exact),
        cmocka_unit_test(test_max_err_budget_and_floor),
        cmocka_unit_test(test_nan_error_fails),
        cmocka_unit_test(test_zero_reference_with_error_fails),
        cmocka_unit_test(test_second_output_named),
        cmocka_unit_test(test_tally_first_failure_wins),
        cmocka_unit_test(test_tally_all_skipped_is_not_correct),
        cmocka_unit_test(test_tally_strict_uses_strict_rule),
        cmocka_unit_test(test_leaderboard_gate),
        cmocka_unit_test(test_judge_stored),
        cmocka_unit_test(test_time_stats),
        cmocka_unit_test(test_timing_checks),
        cmocka_unit_test(test_fmt_sci),
        cmocka_unit_test(test_draw_plan),
        cmocka_unit_test(test_draw_plan_configs),
        cmocka_unit_test(test_seed_parse_and_draw),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
