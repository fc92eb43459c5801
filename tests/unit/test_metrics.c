/* The metrics of DESIGN section 5 on hand-computed examples. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "report/metrics.h"

#define EPS 1e-9

/* A record of (model, level, id, sample); `correct` and the numbers apply to
 * every protocol unless a test changes one. */
static kbv_record rec(const char *model, int level, int id, int sample, bool correct,
                      double speedup, double mem_kernel, double mem_base, double sol)
{
    kbv_record r;
    kbv_record_init(&r);
    snprintf(r.model, sizeof r.model, "%s", model);
    snprintf(r.problem, sizeof r.problem, "L%d/%d", level, id);
    r.level = level;
    r.problem_id = id;
    r.sample = sample;
    for (int p = 0; p < KBV_PROTO_COUNT; p++) {
        kbv_proto_result *pr = &r.proto[p];
        pr->correct = correct;
        if (correct) {
            pr->t_baseline_ms = 1.0;
            pr->t_kernel_ms = 1.0 / speedup;
            pr->speedup = speedup;
            pr->mem_kernel_bytes = mem_kernel;
            pr->mem_baseline_bytes = mem_base;
            pr->sol_fraction = sol;
        }
    }
    return r;
}

static const kbv_group_metrics *group(const kbv_metrics *m, const char *model, int level)
{
    for (int i = 0; i < m->n; i++)
        if (!strcmp(m->groups[i].model, model) && m->groups[i].level == level)
            return &m->groups[i];
    return NULL;
}

/* Model A on four problems:
 *   L1/1: samples 0 (2x) and 1 (4x, faster): the result is sample 1, 4x, mem 100/50
 *   L1/2: one failing sample
 *   L1/3: 0.5x, mem 100/100
 *   L1/4: exactly 1x, mem 100/200 */
static void build_a(kbv_record *r)
{
    r[0] = rec("A", 1, 1, 0, true, 2.0, 100, 100, 0.9);
    r[1] = rec("A", 1, 1, 1, true, 4.0, 50, 100, 0.5);
    r[2] = rec("A", 1, 2, 0, false, 0, 0, 0, 0);
    r[3] = rec("A", 1, 3, 0, true, 0.5, 100, 100, 0.2);
    r[4] = rec("A", 1, 4, 0, true, 1.0, 200, 100, 0.1);
}

static void test_hand_computed_example(void **state)
{
    (void)state;
    kbv_record r[5];
    build_a(r);
    kbv_metrics m;
    assert_int_equal(kbv_metrics_compute(r, 5, &m), KBV_OK);
    const kbv_group_metrics *g = group(&m, "A", 0);
    assert_non_null(g);
    assert_int_equal(g->n_problems, 4);
    assert_int_equal(g->n_samples, 5);
    for (int p = 0; p < KBV_PROTO_COUNT; p++) {
        const kbv_proto_metrics *pm = &g->p[p];
        assert_int_equal(pm->n_problems, 4);
        assert_int_equal(pm->n_correct, 3);
        assert_true(fabs(pm->correct_pct - 75.0) < EPS);
        /* geomean(4, 0.5, 1) = 2^(1/3) */
        assert_true(fabs(pm->speedup - cbrt(2.0)) < EPS);
        /* Fast@p counts speedup > p strictly: 0 -> 3, 0.5 -> 2 (4, 1), 0.8 -> 2,
         * 1 -> 1, 1.5 -> 1, 2 -> 1 */
        const double want[KBV_FAST_COUNT] = {75, 50, 50, 25, 25, 25};
        for (int k = 0; k < KBV_FAST_COUNT; k++)
            assert_true(fabs(pm->fast_pct[k] - want[k]) < EPS);
        /* fallback: geomean(4, 1 (failure), 1 (0.5 kept baseline), 1) = sqrt(2) */
        assert_true(fabs(pm->fallback - sqrt(2.0)) < EPS);
        /* memory of the chosen samples: 100/50, 100/100, 100/200 -> geomean 1 */
        assert_true(fabs(pm->mem_eff - 1.0) < EPS);
        /* strictly smaller peak: only L1/1 */
        assert_true(fabs(pm->mem_eff_pct - 25.0) < EPS);
        /* SOL of the chosen samples: 0.5, 0.2, 0.1 */
        assert_true(fabs(pm->sol_fraction - cbrt(0.01)) < EPS);
    }
    /* one level: a level group equal to the pooled one */
    const kbv_group_metrics *l1 = group(&m, "A", 1);
    assert_non_null(l1);
    assert_int_equal(l1->n_problems, 4);
    assert_true(fabs(l1->p[0].speedup - g->p[0].speedup) < EPS);
    kbv_metrics_free(&m);
}

static void test_best_of_k_is_fastest_correct(void **state)
{
    (void)state;
    kbv_record r[3];
    /* sample 0 is fastest but wrong; sample 2 is correct and faster than sample 1 */
    r[0] = rec("B", 1, 7, 0, false, 0, 0, 0, 0);
    r[0].proto[0].t_kernel_ms = 0.01;
    r[0].proto[0].speedup = 100;
    r[1] = rec("B", 1, 7, 1, true, 1.5, 10, 10, 0.1);
    r[2] = rec("B", 1, 7, 2, true, 3.0, 20, 10, 0.3);
    kbv_metrics m;
    assert_int_equal(kbv_metrics_compute(r, 3, &m), KBV_OK);
    const kbv_group_metrics *g = group(&m, "B", 0);
    assert_int_equal(g->p[0].n_problems, 1);
    assert_true(fabs(g->p[0].speedup - 3.0) < EPS);
    /* memory follows the chosen (fastest) sample, not the leanest */
    assert_true(fabs(g->p[0].mem_eff - 0.5) < EPS);
    assert_true(fabs(g->p[0].mem_eff_pct - 0.0) < EPS);
    assert_true(fabs(g->p[0].sol_fraction - 0.3) < EPS);
    kbv_metrics_free(&m);
}

static void test_protocols_judged_separately(void **state)
{
    (void)state;
    kbv_record r[2];
    r[0] = rec("C", 1, 1, 0, true, 2.0, 1, 1, 0.1);
    r[1] = rec("C", 1, 2, 0, true, 8.0, 1, 1, 0.1);
    /* strict rejects problem 2 */
    r[1].proto[KBV_PROTO_STRICT].correct = false;
    kbv_metrics m;
    assert_int_equal(kbv_metrics_compute(r, 2, &m), KBV_OK);
    const kbv_group_metrics *g = group(&m, "C", 0);
    assert_true(fabs(g->p[KBV_PROTO_STANDARD].correct_pct - 100.0) < EPS);
    assert_true(fabs(g->p[KBV_PROTO_STANDARD].speedup - 4.0) < EPS);
    assert_true(fabs(g->p[KBV_PROTO_STRICT].correct_pct - 50.0) < EPS);
    assert_true(fabs(g->p[KBV_PROTO_STRICT].speedup - 2.0) < EPS);
    /* fallback over both problems: sqrt(2 * 1) */
    assert_true(fabs(g->p[KBV_PROTO_STRICT].fallback - sqrt(2.0)) < EPS);
    kbv_metrics_free(&m);
}

static void test_all_failed_model(void **state)
{
    (void)state;
    kbv_record r[2];
    r[0] = rec("D", 1, 1, 0, false, 0, 0, 0, 0);
    r[1] = rec("D", 1, 2, 0, false, 0, 0, 0, 0);
    kbv_metrics m;
    assert_int_equal(kbv_metrics_compute(r, 2, &m), KBV_OK);
    const kbv_group_metrics *g = group(&m, "D", 0);
    assert_true(g->p[0].correct_pct == 0.0);
    assert_true(isnan(g->p[0].speedup));        /* no solved problem: undefined */
    assert_true(g->p[0].fallback == 1.0);       /* the baseline kept everywhere */
    assert_true(g->p[0].fast_pct[KBV_FAST_HEADLINE] == 0.0);
    assert_true(g->p[0].mem_eff_pct == 0.0);
    assert_true(isnan(g->p[0].mem_eff) && isnan(g->p[0].sol_fraction));
    kbv_metrics_free(&m);
}

static void test_later_record_replaces_earlier(void **state)
{
    (void)state;
    kbv_record r[3];
    r[0] = rec("E", 1, 1, 0, true, 2.0, 1, 1, 0.1);
    r[1] = rec("E", 1, 2, 0, true, 2.0, 1, 1, 0.1);
    r[2] = rec("E", 1, 1, 0, false, 0, 0, 0, 0);   /* sample 0 of L1/1 re-evaluated */
    kbv_metrics m;
    assert_int_equal(kbv_metrics_compute(r, 3, &m), KBV_OK);
    const kbv_group_metrics *g = group(&m, "E", 0);
    assert_int_equal(g->n_samples, 2);
    assert_true(fabs(g->p[0].correct_pct - 50.0) < EPS);
    kbv_metrics_free(&m);
}

static void test_levels_models_and_exclusions(void **state)
{
    (void)state;
    kbv_degenerate_list paper;
    assert_int_equal(kbv_degenerate_load(KBV_DEGENERATE_PAPER, &paper), KBV_OK);
    assert_int_equal(paper.n, 3);
    assert_true(kbv_degenerate_has(&paper, 2, 23));
    assert_true(kbv_degenerate_has(&paper, 2, 80));
    assert_true(kbv_degenerate_has(&paper, 2, 83));
    for (int id = 1; id <= 100; id++)
        assert_false(kbv_degenerate_has(&paper, 1, id));
    kbv_record r[5];
    r[0] = rec("Z", 1, 1, 0, true, 2.0, 1, 1, 0.1);
    r[1] = rec("Z", 2, 5, 0, false, 0, 0, 0, 0);
    r[2] = rec("Z", 2, 23, 0, true, 50.0, 1, 1, 0.1);   /* degenerate: excluded */
    r[3] = rec("Y", 1, 1, 0, true, 0.5, 1, 1, 0.1);
    r[4] = rec("Y", 1, 1, 1, false, 0, 0, 0, 0);
    kbv_metrics m;
    assert_int_equal(kbv_metrics_compute(r, 5, &m), KBV_OK);
    /* Y: pooled, L1; Z: pooled, L1, L2 -- models sorted */
    assert_int_equal(m.n, 5);
    assert_string_equal(m.groups[0].model, "Y");
    assert_int_equal(m.groups[0].level, 0);
    const kbv_group_metrics *z = group(&m, "Z", 0), *z2 = group(&m, "Z", 2);
    assert_int_equal(z->n_problems, 2);
    assert_true(fabs(z->p[0].correct_pct - 50.0) < EPS);
    assert_true(fabs(z->p[0].speedup - 2.0) < EPS);
    assert_int_equal(z2->n_problems, 1);
    assert_true(z2->p[0].correct_pct == 0.0);
    const kbv_group_metrics *y = group(&m, "Y", 0);
    assert_true(fabs(y->p[0].fallback - 1.0) < EPS);
    assert_true(fabs(y->p[0].fast_pct[0] - 100.0) < EPS);
    assert_true(fabs(y->p[0].fast_pct[KBV_FAST_HEADLINE] - 0.0) < EPS);
    assert_int_equal(m.n_excluded, 1);
    assert_string_equal(m.excluded[0], "L2/23");
    kbv_metrics_free(&m);
}

static void test_speedup_from_times_when_absent(void **state)
{
    (void)state;
    kbv_record r = rec("F", 1, 1, 0, true, 2.0, 1, 1, 0.1);
    r.proto[0].speedup = NAN;
    r.proto[0].t_baseline_ms = 3.0;
    r.proto[0].t_kernel_ms = 1.0;
    kbv_metrics m;
    assert_int_equal(kbv_metrics_compute(&r, 1, &m), KBV_OK);
    assert_true(fabs(m.groups[0].p[0].speedup - 3.0) < EPS);
    kbv_metrics_free(&m);
}

/* A protocol not evaluated (kbv eval --protocols) has no problems: its
 * numbers are undefined rather than 0% correct, and the others are intact. */
static void test_protocol_not_evaluated(void **state)
{
    (void)state;
    kbv_record r[2];
    r[0] = rec("G", 1, 1, 0, true, 2.0, 1, 1, 0.1);
    r[1] = rec("G", 1, 2, 0, false, 0, 0, 0, 0);
    for (int i = 0; i < 2; i++)
        kbv_proto_skip(&r[i].proto[KBV_PROTO_STRICT], "not evaluated");
    kbv_metrics m;
    assert_int_equal(kbv_metrics_compute(r, 2, &m), KBV_OK);
    const kbv_group_metrics *g = group(&m, "G", 0);
    assert_int_equal(g->p[KBV_PROTO_VERIFIED].n_problems, 2);
    assert_true(fabs(g->p[KBV_PROTO_VERIFIED].correct_pct - 50.0) < EPS);
    assert_int_equal(g->p[KBV_PROTO_STRICT].n_problems, 0);
    assert_true(isnan(g->p[KBV_PROTO_STRICT].correct_pct));
    assert_true(isnan(g->p[KBV_PROTO_STRICT].fallback));
    kbv_metrics_free(&m);
}

/* A suite of L1/1..6 and L2/1..4 with L2/3 degenerate. */
static void small_suite(kbv_suite *s)
{
    memset(s, 0, sizeof *s);
    for (int id = 1; id <= 6; id++)
        assert_int_equal(kbv_suite_add(s, 1, id), KBV_OK);
    for (int id = 4; id >= 1; id--)   /* any order: the suite keeps itself sorted */
        assert_int_equal(kbv_suite_add(s, 2, id), KBV_OK);
    kbv_degenerate_list l;
    memset(&l, 0, sizeof l);
    l.n = 1;
    l.items[0].level = 2;
    l.items[0].id = 3;
    snprintf(l.source, sizeof l.source, "a test list");
    assert_int_equal(kbv_suite_exclude(s, &l), KBV_OK);
    assert_int_equal(kbv_suite_count(s, 1, false), 6);
    assert_int_equal(kbv_suite_count(s, 2, false), 3);
    assert_int_equal(kbv_suite_count(s, 2, true), 4);
    assert_int_equal(kbv_suite_count(s, 0, false), 9);
}

/* The paper's denominators: every problem of the suite at the model's levels,
 * one without a sample counting as failed; against the sampled view. */
static void test_suite_denominators(void **state)
{
    (void)state;
    kbv_suite suite;
    small_suite(&suite);
    kbv_record r[5];
    r[0] = rec("A", 1, 1, 0, true, 2.0, 1, 1, 0.1);
    r[1] = rec("A", 1, 2, 0, false, 0, 0, 0, 0);
    r[2] = rec("A", 2, 1, 0, true, 4.0, 1, 2, 0.1);
    r[3] = rec("A", 2, 3, 0, true, 100.0, 1, 1, 0.1);   /* degenerate: left out */
    r[4] = rec("B", 1, 1, 0, true, 0.5, 1, 1, 0.1);
    kbv_metrics m;
    kbv_metrics_opts o = {KBV_DENOM_SUITE, &suite};
    assert_int_equal(kbv_metrics_compute_with(r, 5, &o, &m), KBV_OK);
    assert_int_equal(m.denominator, KBV_DENOM_SUITE);
    const kbv_group_metrics *a1 = group(&m, "A", 1), *a2 = group(&m, "A", 2),
                            *a = group(&m, "A", 0), *b = group(&m, "B", 0);
    assert_int_equal(a1->n_problems, 6);
    assert_int_equal(a1->n_sampled, 2);
    assert_int_equal(a1->n_samples, 2);
    assert_true(fabs(a1->p[0].correct_pct - 100.0 / 6) < EPS);
    assert_true(fabs(a1->p[0].speedup - 2.0) < EPS);
    assert_true(fabs(a1->p[0].fallback - pow(2.0, 1.0 / 6)) < EPS);
    assert_true(fabs(a1->p[0].fast_pct[KBV_FAST_HEADLINE] - 100.0 / 6) < EPS);
    assert_int_equal(a2->n_problems, 3);
    assert_true(fabs(a2->p[0].correct_pct - 100.0 / 3) < EPS);
    assert_true(fabs(a2->p[0].mem_eff_pct - 100.0 / 3) < EPS);
    assert_int_equal(a->n_problems, 9);
    assert_int_equal(a->p[0].n_correct, 2);
    assert_true(fabs(a->p[0].speedup - sqrt(8.0)) < EPS);
    /* B has level 1 only: its pooled group is level 1's six */
    assert_int_equal(b->n_problems, 6);
    assert_null(group(&m, "B", 2));
    assert_int_equal(m.n_excluded, 1);
    assert_string_equal(m.excluded[0], "L2/3");
    assert_string_equal(m.degenerate_from, "a test list");
    kbv_metrics_free(&m);

    o.denominator = KBV_DENOM_SAMPLED;
    assert_int_equal(kbv_metrics_compute_with(r, 5, &o, &m), KBV_OK);
    a1 = group(&m, "A", 1);
    assert_int_equal(a1->n_problems, 2);
    assert_true(fabs(a1->p[0].correct_pct - 50.0) < EPS);
    assert_int_equal(group(&m, "A", 0)->n_problems, 3);
    kbv_metrics_free(&m);
    kbv_suite_free(&suite);
}

/* A problem a record names joins the suite; a level the suite lacks is counted
 * over the problems the records name; a protocol no sample evaluated has no
 * problems in the suite view too. */
static void test_suite_grows_with_records(void **state)
{
    (void)state;
    kbv_suite suite;
    small_suite(&suite);
    kbv_record r[3];
    r[0] = rec("C", 1, 9, 0, true, 2.0, 1, 1, 0.1);
    r[1] = rec("C", 4, 1, 0, true, 2.0, 1, 1, 0.1);
    r[2] = rec("C", 4, 2, 0, false, 0, 0, 0, 0);
    for (int i = 0; i < 3; i++)
        kbv_proto_skip(&r[i].proto[KBV_PROTO_STRICT], "not evaluated");
    kbv_metrics m;
    kbv_metrics_opts o = {KBV_DENOM_SUITE, &suite};
    assert_int_equal(kbv_metrics_compute_with(r, 3, &o, &m), KBV_OK);
    assert_int_equal(group(&m, "C", 1)->n_problems, 7);
    assert_int_equal(group(&m, "C", 4)->n_problems, 2);
    assert_true(fabs(group(&m, "C", 4)->p[0].correct_pct - 50.0) < EPS);
    assert_int_equal(group(&m, "C", 0)->n_problems, 9);
    assert_int_equal(group(&m, "C", 0)->p[KBV_PROTO_STRICT].n_problems, 0);
    assert_true(isnan(group(&m, "C", 0)->p[KBV_PROTO_STRICT].correct_pct));
    /* the caller's suite is not changed */
    assert_int_equal(kbv_suite_find(&suite, 1, 9), -1);
    kbv_metrics_free(&m);
    kbv_suite_free(&suite);
}

/* The default suite: the audit's findings (the paper's three, L2/36, L3/28,
 * L3/36 and L3/37): 100, 96 and 47; with the paper's list, the paper's 100,
 * 97 and 50. */
static void test_default_suite(void **state)
{
    (void)state;
    kbv_suite s;
    assert_int_equal(kbv_suite_default(NULL, &s), KBV_OK);
    assert_int_equal(kbv_suite_count(&s, 1, false), 100);
    assert_int_equal(kbv_suite_count(&s, 2, false), 96);
    assert_int_equal(kbv_suite_count(&s, 3, false), 47);
    assert_int_equal(kbv_suite_count(&s, 0, false), 243);
    assert_true(s.p[kbv_suite_find(&s, 2, 80)].degenerate);
    assert_true(s.p[kbv_suite_find(&s, 2, 36)].degenerate);
    assert_true(s.p[kbv_suite_find(&s, 3, 28)].degenerate);
    assert_true(s.p[kbv_suite_find(&s, 3, 36)].degenerate);
    assert_true(s.p[kbv_suite_find(&s, 3, 37)].degenerate);
    assert_false(s.p[kbv_suite_find(&s, 3, 35)].degenerate);
    assert_false(s.p[kbv_suite_find(&s, 3, 38)].degenerate);
    assert_true(s.p[kbv_suite_find(&s, 1, 19)].in_registry);
    assert_non_null(strstr(s.degenerate_from, "kbv audit"));
    kbv_suite_free(&s);
    kbv_degenerate_list audit;
    assert_int_equal(kbv_degenerate_load(NULL, &audit), KBV_OK);
    assert_int_equal(audit.n, 7);
    for (int i = 0; i < audit.n; i++) {  /* the reason read off the audit's line */
        assert_non_null(strstr(audit.items[i].why, "ignores "));
        if (audit.items[i].level == 3 && audit.items[i].id == 36)
            assert_non_null(strstr(audit.items[i].why, "ignores h0, c0"));
    }
    assert_int_equal(kbv_suite_default(KBV_DEGENERATE_PAPER, &s), KBV_OK);
    assert_int_equal(kbv_suite_count(&s, 2, false), 97);
    assert_int_equal(kbv_suite_count(&s, 0, false), 247);
    assert_false(s.p[kbv_suite_find(&s, 2, 36)].degenerate);
    kbv_suite_free(&s);
}

static char *write_temp(const char *text)
{
    static char path[] = "/tmp/kbv-degenerate-XXXXXX";
    char *p = strdup(path);
    int fd = mkstemp(p);
    assert_true(fd >= 0);
    FILE *f = fdopen(fd, "w");
    fputs(text, f);
    fclose(f);
    return p;
}

/* The degenerate list from a file: kbv audit --json lines or keys. */
static void test_degenerate_file(void **state)
{
    (void)state;
    char *p = write_temp("# from an audit\n"
                         "{\"problem\": \"L2/23\", \"name\": \"x\", \"degenerate\": true}\n"
                         "{\"problem\": \"L2/24\", \"degenerate\": false}\n"
                         "{\"problem\": \"L2/23\", \"degenerate\": true}\n"  /* a rerun */
                         "\n"
                         "L3/7 constant after the softmax\n");
    kbv_degenerate_list l;
    assert_int_equal(kbv_degenerate_load(p, &l), KBV_OK);
    assert_int_equal(l.n, 2);
    assert_true(kbv_degenerate_has(&l, 2, 23));
    assert_false(kbv_degenerate_has(&l, 2, 24));
    assert_true(kbv_degenerate_has(&l, 3, 7));
    assert_string_equal(l.items[1].why, "constant after the softmax");
    assert_string_equal(l.source, p);
    kbv_suite s;
    assert_int_equal(kbv_suite_default(p, &s), KBV_OK);
    assert_int_equal(kbv_suite_count(&s, 2, false), 99);
    assert_int_equal(kbv_suite_count(&s, 3, false), 49);
    kbv_suite_free(&s);
    unlink(p);
    free(p);
    p = write_temp("L2/23\nnot a key\n");
    assert_int_equal(kbv_degenerate_load(p, &l), KBV_ERR_PARSE);
    assert_non_null(strstr(kbv_last_error(), "line 2"));
    kbv_clear_error();
    unlink(p);
    free(p);
    assert_int_equal(kbv_degenerate_load("/nonexistent/list", &l), KBV_ERR_NOT_FOUND);
    kbv_clear_error();
}

/* The paper's metrics beside the best of k: Fast@0.8, memory increased among
 * the solved, compiled %, and each sample index alone with its mean +- std.
 * Suite L1/1..4; model P:
 *   L1/1  s0 2x (mem 100/100), s1 4x (mem 50/100)     best: s1, lighter
 *   L1/2  s0 does not compile, s1 0.5x (mem 200/100)  best: s1, heavier
 *   L1/3  s0 and s2 compile and are wrong
 *   L1/4  no sample */
static void test_paper_metrics(void **state)
{
    (void)state;
    kbv_suite suite;
    memset(&suite, 0, sizeof suite);
    for (int id = 1; id <= 4; id++)
        assert_int_equal(kbv_suite_add(&suite, 1, id), KBV_OK);
    kbv_record r[6];
    r[0] = rec("P", 1, 1, 0, true, 2.0, 100, 100, 0.1);
    r[1] = rec("P", 1, 1, 1, true, 4.0, 50, 100, 0.1);
    r[2] = rec("P", 1, 2, 0, false, 0, 0, 0, 0);
    r[3] = rec("P", 1, 2, 1, true, 0.5, 200, 100, 0.1);
    r[4] = rec("P", 1, 3, 0, false, 0, 0, 0, 0);
    r[5] = rec("P", 1, 3, 2, false, 0, 0, 0, 0);
    for (int i = 0; i < 6; i++)
        r[i].compile.ok = i != 2;
    kbv_metrics m;
    kbv_metrics_opts o = {KBV_DENOM_SUITE, &suite};
    assert_int_equal(kbv_metrics_compute_with(r, 6, &o, &m), KBV_OK);
    const kbv_group_metrics *g = group(&m, "P", 1);
    assert_int_equal(g->n_problems, 4);
    assert_int_equal(g->n_compiled, 3);
    assert_true(fabs(g->compiled_pct - 75.0) < EPS);
    const kbv_proto_metrics *pm = &g->p[KBV_PROTO_VERIFIED];
    assert_true(fabs(pm->correct_pct - 50.0) < EPS);
    assert_true(fabs(kbv_fast_thresholds[2] - 0.8) < EPS);
    assert_true(fabs(pm->fast_pct[2] - 25.0) < EPS);              /* Fast@0.8: 4x only */
    assert_true(fabs(pm->mem_eff_pct - 25.0) < EPS);              /* of all 4 */
    assert_true(fabs(pm->mem_increased_pct - 50.0) < EPS);        /* of the 2 solved */
    /* each sample index alone */
    assert_int_equal(g->n_sample_ids, 3);
    const kbv_sample_metrics *s0 = &g->per_sample[0], *s1 = &g->per_sample[1],
                             *s2 = &g->per_sample[2];
    assert_int_equal(s0->sample, 0);
    assert_int_equal(s2->sample, 2);
    assert_true(fabs(s0->compiled_pct - 50.0) < EPS);
    assert_true(fabs(s1->compiled_pct - 50.0) < EPS);
    assert_true(fabs(s2->compiled_pct - 25.0) < EPS);
    assert_true(fabs(s0->p[1].correct_pct - 25.0) < EPS);
    assert_true(fabs(s0->p[1].speedup - 2.0) < EPS);
    assert_true(fabs(s0->p[1].fallback - pow(2.0, 0.25)) < EPS);
    assert_true(fabs(s1->p[1].correct_pct - 50.0) < EPS);
    assert_true(fabs(s1->p[1].speedup - sqrt(2.0)) < EPS);
    assert_true(fabs(s1->p[1].fast_pct[KBV_FAST_HEADLINE] - 25.0) < EPS);
    assert_true(s2->p[1].correct_pct == 0.0);
    assert_true(isnan(s2->p[1].speedup));
    /* mean +- std over the three, s2's speedup counting 0 */
    const kbv_per_sample *ps = &g->spread[KBV_PROTO_VERIFIED];
    assert_int_equal(ps->n, 3);
    assert_true(fabs(ps->correct_pct.mean - 25.0) < EPS);
    assert_true(fabs(ps->correct_pct.sd - sqrt(1250.0 / 3)) < EPS);
    double sp[3] = {2.0, sqrt(2.0), 0.0}, mean = (sp[0] + sp[1] + sp[2]) / 3, sq = 0;
    for (int i = 0; i < 3; i++)
        sq += (sp[i] - mean) * (sp[i] - mean);
    assert_true(fabs(ps->speedup.mean - mean) < EPS);
    assert_true(fabs(ps->speedup.sd - sqrt(sq / 3)) < EPS);
    assert_true(fabs(ps->compiled_pct.mean - 125.0 / 3) < EPS);
    kbv_metrics_free(&m);
    kbv_suite_free(&suite);
}

static void test_empty(void **state)
{
    (void)state;
    kbv_metrics m;
    assert_int_equal(kbv_metrics_compute(NULL, 0, &m), KBV_OK);
    assert_int_equal(m.n, 0);
    kbv_metrics_free(&m);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_hand_computed_example),
        cmocka_unit_test(test_best_of_k_is_fastest_correct),
        cmocka_unit_test(test_protocols_judged_separately),
        cmocka_unit_test(test_all_failed_model),
        cmocka_unit_test(test_later_record_replaces_earlier),
        cmocka_unit_test(test_levels_models_and_exclusions),
        cmocka_unit_test(test_speedup_from_times_when_absent),
        cmocka_unit_test(test_protocol_not_evaluated),
        cmocka_unit_test(test_suite_denominators),
        cmocka_unit_test(test_suite_grows_with_records),
        cmocka_unit_test(test_default_suite),
        cmocka_unit_test(test_degenerate_file),
        cmocka_unit_test(test_paper_metrics),
        cmocka_unit_test(test_empty),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
