/* The paper's hidden configs per problem (DESIGN section 4), on the CPU
 * backend at the small size: D1-D4 scale what get_inputs() returns (L1/98's
 * probabilities, L1/100's +-1 targets), L1/100's fifth config, the check
 * that drops a config whose fp32 reference is not finite and lists it, each
 * level-1 and level-2 problem's configs against the paper's hidden tests, and
 * L1/97 in float32. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "graph/problem_def.h"
#include "eval/audit.h"
#include "eval/configs.h"
#include "dist/draws.h"
#include "eval/verdict.h"
#include "graph/torch_render.h"
#include "record/results.h"

static kbv_backend *be[KBV_MODE_COUNT];

static int setup(void **state)
{
    (void)state;
    for (int m = 0; m < KBV_MODE_COUNT; m++)
        if (kbv_cpu_backend_create((kbv_mode)m, &be[m]) != KBV_OK)
            return -1;
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    for (int m = 0; m < KBV_MODE_COUNT; m++)
        kbv_backend_destroy(be[m]);
    return 0;
}

/* A problem's inputs at the small size under one draw, on backend b (float
 * values in b's storage: float32, or float64 holding float32 values). */
typedef struct drawn {
    kbv_graph g;
    kbv_backend *b;
    kbv_tensor in[KBV_STATIC_MAX_INPUTS];
} drawn;

static void draw_on(kbv_backend *b, const kbv_problem *def, const kbv_draw *d, drawn *x)
{
    memset(x, 0, sizeof *x);
    x->b = b;
    assert_int_equal(kbv_graph_build(def, KBV_SIZE_SMALL, &x->g), KBV_OK);
    for (int i = 0; i < x->g.n_inputs; i++) {
        kbv_tensor *t = &x->in[i];
        kbv_value_tensor(&x->g.values[i], t);
        t->dtype = b->float_dtype;
        size_t bytes = (size_t)kbv_value_numel(&x->g.values[i]) * kbv_dtype_size(t->dtype);
        assert_int_equal(b->alloc(b, bytes ? bytes : 1, &t->data), KBV_OK);
        assert_int_equal(b->fill(b, &def->inputs[i], i, d, t), KBV_OK);
    }
}

static void drawn_free(drawn *x)
{
    for (int i = 0; i < x->g.n_inputs; i++)
        x->b->release(x->b, x->in[i].data);
    kbv_graph_free(&x->g);
}

static const float *f32(const drawn *x, int i) { return (const float *)x->in[i].data; }
static int64_t numel(const drawn *x, int i) { return kbv_value_numel(&x->g.values[i]); }

/* Row sums of a 2-D input are all `want` (to float32 rounding). */
static void rows_sum_to(const drawn *x, int i, double want)
{
    const kbv_value *v = &x->g.values[i];
    int64_t rows = v->shape[0], cols = v->shape[1];
    for (int64_t r = 0; r < rows; r++) {
        double sum = 0;
        for (int64_t c = 0; c < cols; c++)
            sum += f32(x, i)[r * cols + c];
        if (fabs(sum - want) > 1e-5 * fabs(want))
            fail_msg("row %lld sums to %.9g, not %g", (long long)r, sum, want);
    }
}

/* Input i of draw a equals factor times input i of draw b, in float32. */
static void scaled_copy(const drawn *a, const drawn *b, int i, float factor)
{
    for (int64_t k = 0; k < numel(a, i); k++)
        if (f32(a, i)[k] != f32(b, i)[k] * factor)
            fail_msg("input %d [%lld]: %.9g != %.9g * %g", i, (long long)k, f32(a, i)[k],
                     f32(b, i)[k], factor);
}

/* The oracle sees the candidate's values: a float64 fill holds the same. */
static void same_on_fp64(const kbv_problem *def, const kbv_draw *d, const drawn *x)
{
    drawn y;
    draw_on(be[KBV_MODE_FP64], def, d, &y);
    for (int i = 0; i < x->g.n_inputs; i++)
        for (int64_t k = 0; k < numel(x, i); k++)
            assert_true(((const double *)y.in[i].data)[k] == (double)f32(x, i)[k]);
    drawn_free(&y);
}

/* L1/98: D1-D3 scale the probabilities after the softmax; strict's D6 keeps
 * them probability vectors. */
static void test_l1_098_scales_probabilities(void **state)
{
    (void)state;
    const kbv_problem *def = kbv_problem_find("L1/98");
    kbv_backend *b = be[KBV_MODE_FP32];
    drawn base, d2, d3, d6;
    const kbv_draw db = {KBV_DIST_BASE, 11}, dd2 = {KBV_DIST_D2, 11}, dd3 = {KBV_DIST_D3, 11},
                   dd6 = {KBV_DIST_D6, 11};
    draw_on(b, def, &db, &base);
    draw_on(b, def, &dd2, &d2);
    draw_on(b, def, &dd3, &d3);
    draw_on(b, def, &dd6, &d6);
    for (int i = 0; i < 2; i++) {
        rows_sum_to(&base, i, 1.0);
        rows_sum_to(&d2, i, 3.0);
        rows_sum_to(&d3, i, 0.01);
        rows_sum_to(&d6, i, 1.0);
        scaled_copy(&d2, &base, i, 3.0f);
        scaled_copy(&d3, &base, i, 0.01f);
    }
    same_on_fp64(def, &dd2, &d2);
    drawn_free(&base);
    drawn_free(&d2);
    drawn_free(&d3);
    drawn_free(&d6);
}

/* L1/100: D1-D4 scale the +-1 targets with the predictions; H5 holds the
 * paper's alternating targets beside a fresh, unscaled draw of predictions;
 * strict's transforms keep +-1. */
static void test_l1_100_scales_targets_and_h5(void **state)
{
    (void)state;
    const kbv_problem *def = kbv_problem_find("L1/100");
    kbv_backend *b = be[KBV_MODE_FP32];
    drawn base, dk, h5, d7;
    const kbv_draw db = {KBV_DIST_BASE, 21};
    draw_on(b, def, &db, &base);
    for (int64_t k = 0; k < numel(&base, 1); k++)
        assert_true(fabsf(f32(&base, 1)[k]) == 1.0f);
    static const float factor[4] = {1.0f, 3.0f, 0.01f, -1.0f};
    for (int k = 1; k <= 4; k++) {
        const kbv_draw d = {(kbv_dist)(KBV_DIST_D1 + k - 1), 21};
        draw_on(b, def, &d, &dk);
        scaled_copy(&dk, &base, 0, factor[k - 1]);
        scaled_copy(&dk, &base, 1, factor[k - 1]);
        if (k == 4)
            same_on_fp64(def, &d, &dk);
        drawn_free(&dk);
    }
    kbv_draw_plan plan;
    kbv_draw_plan_make(7, def, &plan);
    const kbv_planned_draw *pd = NULL;
    for (int i = 0; i < plan.n; i++)
        if (!strcmp(plan.d[i].label, "H5"))
            pd = &plan.d[i];
    assert_non_null(pd);
    assert_true(pd->verified && !pd->standard);
    kbv_draw dh = pd->draw, dhb = {KBV_DIST_BASE, pd->draw.seed};
    draw_on(b, def, &dh, &h5);
    for (int64_t k = 0; k < numel(&h5, 1); k++)
        assert_true(f32(&h5, 1)[k] == (k % 2 ? 1.0f : -1.0f));   /* torch.ones; x[::2] = -1 */
    drawn again;
    draw_on(b, def, &dhb, &again);
    scaled_copy(&h5, &again, 0, 1.0f);
    same_on_fp64(def, &dh, &h5);
    drawn_free(&again);
    const kbv_draw dd7 = {KBV_DIST_D7, 21};
    draw_on(b, def, &dd7, &d7);
    scaled_copy(&d7, &base, 1, 1.0f);
    drawn_free(&d7);
    drawn_free(&h5);
    drawn_free(&base);
}

/* Every level-1 problem's configs as the paper's hidden tests have them
 * (hidden_tests/level1/N_hidden.py): D1-D4, but no D2 for L1/90 and no D4
 * for L1/98 (its generator found those references not finite), and a fifth
 * for L1/100. The check agrees here: what is kept is finite, what is
 * omitted is not. */
static void test_level1_configs_as_the_paper(void **state)
{
    (void)state;
    int checked = 0;
    for (int p = 0; p < kbv_problem_count(); p++) {
        const kbv_problem *def = kbv_problem_at(p);
        if (def->level != 1)
            continue;
        kbv_graph g = {0};
        kbv_config_check check;
        assert_int_equal(kbv_graph_build(def, KBV_SIZE_SMALL, &g), KBV_OK);
        assert_int_equal(kbv_configs_check(be[KBV_MODE_FP32], &g, &check), KBV_OK);
        const char *omitted = def->id == 90 ? "D2" : def->id == 98 ? "D4" : NULL;
        const char *extra = def->id == 100 ? "H5" : NULL;
        assert_int_equal(check.n, extra ? 5 : 4);
        for (int c = 0; c < check.n; c++) {
            const kbv_config_verdict *v = &check.c[c];
            bool should_omit = omitted && !strcmp(v->label, omitted);
            if (v->omitted != should_omit)
                fail_msg("L1/%d %s: omitted %d", def->id, v->label, v->omitted);
            if ((v->nonfinite > 0) != v->omitted)
                fail_msg("L1/%d %s: %lld of %lld reference elements not finite", def->id,
                         v->label, (long long)v->nonfinite, (long long)v->n);
        }
        if (extra)
            assert_string_equal(check.c[4].label, extra);
        kbv_draw_plan plan;
        kbv_draw_plan_make(1, def, &plan);
        kbv_draw_plan_check(&plan, &check);
        assert_int_equal(plan.n, 13 - (omitted != NULL) + (extra != NULL));
        assert_int_equal(plan.n_dropped, omitted != NULL);
        kbv_graph_free(&g);
        checked++;
    }
    assert_int_equal(checked, 100);
}

/* Every level-2 problem's configs as the paper's hidden tests have them
 * (hidden_tests/level2/N_hidden.py, all 100 alike): D1-D4, nothing left out
 * and nothing added. The check agrees: each reference is finite at the small
 * size, so none is dropped and the plan draws all 13. */
static void test_level2_configs_as_the_paper(void **state)
{
    (void)state;
    int checked = 0;
    for (int p = 0; p < kbv_problem_count(); p++) {
        const kbv_problem *def = kbv_problem_at(p);
        if (def->level != 2)
            continue;
        kbv_graph g = {0};
        kbv_config_check check;
        assert_int_equal(def->hidden.omit, 0);
        assert_null(def->hidden.extra[0].label);
        assert_int_equal(kbv_graph_build(def, KBV_SIZE_SMALL, &g), KBV_OK);
        assert_int_equal(kbv_configs_check(be[KBV_MODE_FP32], &g, &check), KBV_OK);
        assert_int_equal(check.n, 4);
        for (int c = 0; c < check.n; c++) {
            const kbv_config_verdict *v = &check.c[c];
            if (v->omitted || v->nonfinite > 0)
                fail_msg("L2/%d %s: omitted %d, %lld of %lld reference elements not finite",
                         def->id, v->label, v->omitted, (long long)v->nonfinite,
                         (long long)v->n);
        }
        kbv_draw_plan plan;
        kbv_draw_plan_make(1, def, &plan);
        kbv_draw_plan_check(&plan, &check);
        assert_int_equal(plan.n, 13);
        assert_int_equal(plan.n_dropped, 0);
        kbv_graph_free(&g);
        checked++;
    }
    assert_true(checked >= 50);
}

/* L1/98 as if its definition did not omit D4: the check finds D4's
 * reference NaN (the log of negated probabilities) and drops it, and the
 * plan, the audit and a results record list it with the reason. */
static void test_nonfinite_config_dropped_and_listed(void **state)
{
    (void)state;
    kbv_problem undeclared = *kbv_problem_find("L1/98");
    memset(&undeclared.hidden, 0, sizeof undeclared.hidden);
    undeclared.level = 9;   /* a key of its own */
    kbv_graph g = {0};
    assert_int_equal(kbv_graph_build(&undeclared, KBV_SIZE_SMALL, &g), KBV_OK);
    kbv_config_check check;
    assert_int_equal(kbv_configs_check(be[KBV_MODE_FP32], &g, &check), KBV_OK);
    assert_int_equal(check.n, 4);
    assert_string_equal(check.c[3].label, "D4");
    assert_false(check.c[3].omitted);
    assert_true(check.c[3].nonfinite > 0);
    for (int c = 0; c < 3; c++)
        assert_true(check.c[c].nonfinite == 0);

    kbv_draw_plan plan;
    kbv_draw_plan_make(3, &undeclared, &plan);
    assert_int_equal(plan.n, 13);
    kbv_draw_plan_check(&plan, &check);
    assert_int_equal(plan.n, 12);
    assert_int_equal(plan.n_verified, 8);
    assert_int_equal(plan.n_dropped, 1);
    assert_string_equal(plan.dropped[0].label, "D4");
    assert_non_null(strstr(plan.dropped[0].reason, "not finite"));
    for (int i = 0; i < plan.n; i++)
        assert_string_not_equal(plan.d[i].label, "D4");

    kbv_audit_result r;
    assert_int_equal(kbv_audit_problem(be, &g, 1, &r), KBV_OK);
    assert_int_equal(r.n_dropped, 1);
    assert_string_equal(r.dropped[0].label, "D4");
    assert_int_equal(r.n_omit_finite, 0);
    assert_int_equal(r.draws, 8);   /* base, D1-D3, D5-D8 */
    assert_int_equal(r.tf32_standard.skipped, 0);

    /* the record of a sample lists it, and reads it back */
    kbv_record rec, back;
    kbv_record_init(&rec);
    snprintf(rec.model, sizeof rec.model, "m");
    snprintf(rec.problem, sizeof rec.problem, "L1/98");
    rec.n_dropped = 1;
    snprintf(rec.dropped[0].config, sizeof rec.dropped[0].config, "%s", plan.dropped[0].label);
    snprintf(rec.dropped[0].reason, sizeof rec.dropped[0].reason, "%s", plan.dropped[0].reason);
    json_t *o = NULL;
    assert_int_equal(kbv_record_to_json(&rec, &o), KBV_OK);
    const json_t *list = json_object_get(o, "configs_dropped");
    assert_int_equal(json_array_size(list), 1);
    assert_string_equal(json_string_value(json_object_get(json_array_get(list, 0), "config")),
                        "D4");
    assert_int_equal(kbv_record_from_json(o, &back), KBV_OK);
    assert_int_equal(back.n_dropped, 1);
    assert_string_equal(back.dropped[0].config, "D4");
    assert_string_equal(back.dropped[0].reason, rec.dropped[0].reason);
    json_decref(o);
    /* a record with none writes none */
    rec.n_dropped = 0;
    assert_int_equal(kbv_record_to_json(&rec, &o), KBV_OK);
    assert_null(json_object_get(o, "configs_dropped"));
    json_decref(o);
    kbv_graph_free(&g);
}

/* The audit of the real L1/98 and L1/100: the declared omission listed
 * (its reason holds at this size), H5 among the draws. */
static void test_audit_lists_configs(void **state)
{
    (void)state;
    kbv_graph g = {0};
    kbv_audit_result r;
    assert_int_equal(kbv_graph_build(kbv_problem_find("L1/98"), KBV_SIZE_SMALL, &g), KBV_OK);
    assert_int_equal(kbv_audit_problem(be, &g, 1, &r), KBV_OK);
    assert_int_equal(r.n_dropped, 1);
    assert_string_equal(r.dropped[0].label, "D4");
    assert_non_null(strstr(r.dropped[0].reason, "NaN"));
    assert_int_equal(r.n_omit_finite, 0);
    assert_int_equal(r.draws, 8);
    assert_int_equal(kbv_graph_build(kbv_problem_find("L1/100"), KBV_SIZE_SMALL, &g), KBV_OK);
    assert_int_equal(kbv_audit_problem(be, &g, 1, &r), KBV_OK);
    assert_int_equal(r.n_dropped, 0);
    assert_int_equal(r.draws, 10);   /* base, D1-D4, H5, D5-D8 */
    assert_int_equal(r.tf32_standard.judged, 6);
    assert_int_equal(r.tf32_standard.failed, 0);
    assert_false(kbv_audit_degenerate(&r));
    kbv_graph_free(&g);
}

/* Each problem and size is checked once per evaluator. */
static void test_config_cache(void **state)
{
    (void)state;
    kbv_config_cache *cache = NULL;
    kbv_graph small = {0}, other = {0};
    const kbv_config_check *a = NULL, *b = NULL, *c = NULL;
    assert_int_equal(kbv_graph_build(kbv_problem_find("L1/98"), KBV_SIZE_SMALL, &small), KBV_OK);
    int64_t dims[2] = {5, 7};
    assert_int_equal(kbv_graph_build_dims(kbv_problem_find("L1/98"), dims, &other), KBV_OK);
    assert_int_equal(kbv_config_cache_get(&cache, be[KBV_MODE_FP32], &small, &a), KBV_OK);
    assert_int_equal(kbv_config_cache_get(&cache, be[KBV_MODE_FP32], &small, &b), KBV_OK);
    assert_ptr_equal(a, b);
    assert_int_equal(kbv_config_cache_get(&cache, be[KBV_MODE_FP32], &other, &c), KBV_OK);
    assert_ptr_not_equal(a, c);
    assert_true(a->c[3].omitted && a->c[3].nonfinite > 0);
    kbv_config_cache_free(cache);
    kbv_graph_free(&small);
    kbv_graph_free(&other);
}

/* L1/97 runs on float32 inputs at allclose 1e-3, as the paper's harness ran
 * it (it casts every input to the run's precision); the CPU backend's
 * float32 attention agrees with the float64 oracle on a D2 draw. */
static void test_l1_097_fp32(void **state)
{
    (void)state;
    const kbv_problem *def = kbv_problem_find("L1/97");
    drawn x, x64;
    const kbv_draw d = {KBV_DIST_D2, 5};
    draw_on(be[KBV_MODE_FP32], def, &d, &x);
    draw_on(be[KBV_MODE_FP64], def, &d, &x64);
    for (int i = 0; i < 3; i++)
        assert_int_equal(def->inputs[i].dtype, KBV_F32);
    const kbv_value *ov = &x.g.values[x.g.outputs[0]];
    assert_int_equal(ov->dtype, KBV_F32);
    assert_true(kbv_allclose_tol(ov->dtype) == 1e-3);
    kbv_tensor out[1], out64[1];
    assert_int_equal(kbv_graph_run(&x.g, be[KBV_MODE_FP32], x.in, NULL, out), KBV_OK);
    assert_int_equal(kbv_graph_run(&x64.g, be[KBV_MODE_FP64], x64.in, NULL, out64), KBV_OK);
    assert_int_equal(out[0].dtype, KBV_F32);
    double max_diff = 0, max_ref = 0;
    for (int64_t k = 0; k < kbv_value_numel(ov); k++) {
        double y = ((const float *)out[0].data)[k], y64 = ((const double *)out64[0].data)[k];
        max_diff = fmax(max_diff, fabs(y - y64));
        max_ref = fmax(max_ref, fabs(y64));
    }
    assert_true(max_ref > 0.5 && max_diff <= 1e-6 * max_ref);
    be[KBV_MODE_FP32]->release(be[KBV_MODE_FP32], out[0].data);
    be[KBV_MODE_FP64]->release(be[KBV_MODE_FP64], out64[0].data);
    drawn_free(&x);
    drawn_free(&x64);
    /* the PyTorch rendering draws float32, as the candidate gets */
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    assert_non_null(f);
    assert_int_equal(kbv_render_torch(def, KBV_SIZE_SMALL, f), KBV_OK);
    fclose(f);
    assert_null(strstr(text, "float16"));
    assert_non_null(strstr(text, "torch.nn.functional.scaled_dot_product_attention(Q, K, V)"));
    free(text);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_l1_098_scales_probabilities),
        cmocka_unit_test(test_l1_100_scales_targets_and_h5),
        cmocka_unit_test(test_level1_configs_as_the_paper),
        cmocka_unit_test(test_level2_configs_as_the_paper),
        cmocka_unit_test(test_nonfinite_config_dropped_and_listed),
        cmocka_unit_test(test_audit_lists_configs),
        cmocka_unit_test(test_config_cache),
        cmocka_unit_test(test_l1_097_fp32),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
