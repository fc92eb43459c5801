/* Every table of kbv report on a results file built here by hand, whose
 * every cell is worked out below -- written to a file, read back as kbv
 * report reads it, and checked in the report data, in tables.csv,
 * tables.md and summary.json.
 *
 * The suite: L1/1..4 and L2/1..3, L2/3 degenerate. Times in ms: t is the
 * kernel's (the standard timing, which verified shares; strict's too when
 * strict passes), fp32 and tf32 the baselines (standard against fp32,
 * verified and strict against tf32); memory kernel / baseline; "s" a sample.
 *
 * model m1 (levels 1 and 2; verified gate text):
 *   L1/1 s0  t 1.0, fp32 2.0, tf32 1.0; correct everywhere: 2x, 1x, 1x; mem 100/200; sol 0.5
 *        s1  t 0.5, fp32 2.0, tf32 1.0; standard 4x; wrong on D4 (verified, strict); mem 300/200
 *   L1/2 s0  does not compile
 *   L1/3 s0  t 2.5, fp32 2.0, tf32 1.6; standard 0.8x; wrong on D2; mem 100/100; sol 0.2
 *   L1/4     no sample
 *   L2/1 s0  t 1.0, fp32 3.0, tf32 1.5; correct: 3x, 1.5x, 1.5x; mem 50/100; sol 0.3
 *   L2/2 s0  crashes
 *   L2/3 s0  100x everywhere: degenerate, left out
 * model m2 (level 1; verified gate leaderboard):
 *   L1/1 s0  t 2.0, fp32 2.0, tf32 1.0; correct: 1x, 0.5x, 0.5x, verified by a leaderboard
 *            promotion (so wrong at 1e-4); mem 200/200; sol 0.1
 *   L1/2 s0  wrong on base#2
 *   L1/4 s0  t 1.0, fp32 4.0, tf32 1.0; standard 4x; wrong on D4; mem 100/100; sol 0.4
 *
 * Best of k: the fastest correct sample; m1 L1/1 is s1 (4x) under standard
 * and s0 under verified and strict. */
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

#include "report/attribution.h"
#include "report/figures.h"
#include "report/report_data.h"
#include "report/report_tables.h"

#define EPS 1e-9

/* One sample: its measurements, and each protocol's reason for failing
 * (NULL: correct). As kbv eval records them: the baselines always, the
 * kernel time and speedups when standard (for standard and verified) or
 * strict passed, the memory whenever the candidate ran. */
typedef struct sample_def {
    const char *model;
    int level, id, sample;
    bool compiled;
    double t, fp32, tf32, mem_kernel, mem_base, sol;
    const char *why[KBV_PROTO_COUNT];
    const char *fault;
    bool promoted;                 /* verified correct by a leaderboard promotion */
    const char *draws;             /* "LABEL" passes, "LABEL:a" fails allclose only,
                                      ":s" strict's rule only, ":x" both */
} sample_def;

#define NO NAN
#define BASE "base#0 base#1 base#2 base#3 base#4 "
static const sample_def defs[] = {
    {"m1", 1, 1, 0, true, 1.0, 2.0, 1.0, 100, 200, 0.5, {NULL, NULL, NULL}, NULL, false,
     BASE "D1 D2 D3 D4 D5 D6:a D7 D8"},
    {"m1", 1, 1, 1, true, 0.5, 2.0, 1.0, 300, 200, 0.8,
     {NULL, "D4: 3 elements outside", "D4: 3 elements outside"}, NULL, false,
     BASE "D1 D2:s D3 D4:x D5 D6 D7 D8"},
    {"m1", 1, 2, 0, false, NO, 2.0, 1.0, NO, NO, NO,
     {"compile error: x", "compile error: x", "compile error: x"}, NULL, false, ""},
    {"m1", 1, 3, 0, true, 2.5, 2.0, 1.6, 100, 100, 0.2,
     {NULL, "D2: 9 elements outside", "D2: 9 elements outside"}, NULL, false,
     BASE "D1 D2:x D3 D4:x D5 D6:s D7 D8"},
    {"m1", 2, 1, 0, true, 1.0, 3.0, 1.5, 50, 100, 0.3, {NULL, NULL, NULL}, NULL, false,
     BASE "D1 D2 D3 D4 D5 D6 D7 D8"},
    {"m1", 2, 2, 0, true, NO, 3.0, 1.5, NO, NO, NO,
     {"crash: killed by signal 11", "crash: killed by signal 11", "crash: killed by signal 11"},
     "crash", false, "base#0 base#1"},
    {"m1", 2, 3, 0, true, 0.01, 1.0, 1.0, 1, 1, 0.9, {NULL, NULL, NULL}, NULL, false,
     BASE "D1 D2 D3 D4:x"},
    {"m2", 1, 1, 0, true, 2.0, 2.0, 1.0, 200, 200, 0.1, {NULL, NULL, NULL}, NULL, true,
     BASE "D1 D2 D3 D4 D5 D6 D7 D8"},
    {"m2", 1, 2, 0, true, NO, 2.0, 1.0, 100, 100, NO,
     {"base#2: 7 elements outside", "base#2: 7 elements outside", "base#2: 7 elements outside"},
     NULL, false, "base#0 base#1 base#2:x base#3 base#4 D1 D2 D3 D4 D5 D6 D7 D8"},
    {"m2", 1, 4, 0, true, 1.0, 4.0, 1.0, 100, 100, 0.4,
     {NULL, "D4: 1 element outside", "D4: 1 element outside"}, NULL, false,
     BASE "D1 D2 D3 D4:x D5 D6 D7 D8:s"},
};
#define N_DEFS (int)(sizeof defs / sizeof defs[0])

static kbv_record records[N_DEFS];

static void build_record(const sample_def *x, kbv_record *r)
{
    kbv_record_init(r);
    snprintf(r->model, sizeof r->model, "%s", x->model);
    snprintf(r->problem, sizeof r->problem, "L%d/%d", x->level, x->id);
    r->level = x->level;
    r->problem_id = x->id;
    r->sample = x->sample;
    snprintf(r->device, sizeof r->device, "cpu");
    snprintf(r->size, sizeof r->size, "small");
    r->gate = !strcmp(x->model, "m2") ? KBV_GATE_LEADERBOARD : KBV_GATE_TEXT;
    r->compile.ok = x->compiled;
    const double base[KBV_PROTO_COUNT] = {x->fp32, x->tf32, x->tf32};
    for (int p = 0; p < KBV_PROTO_COUNT; p++) {
        kbv_proto_result *pr = &r->proto[p];
        pr->correct = x->why[p] == NULL;
        snprintf(pr->reason, sizeof pr->reason, "%s", x->why[p] ? x->why[p] : "");
        pr->draws_total = 5;
        pr->t_baseline_ms = base[p];
        bool timed = p == KBV_PROTO_STRICT ? x->why[p] == NULL : x->why[0] == NULL;
        if (timed) {
            pr->t_kernel_ms = x->t;
            pr->speedup = base[p] / x->t;
            pr->sol_fraction = x->sol;
        }
        pr->mem_kernel_bytes = x->mem_kernel;
        pr->mem_baseline_bytes = x->mem_base;
    }
    if (x->promoted)
        kbv_proto_add_flag(&r->proto[KBV_PROTO_VERIFIED], "leaderboard-promoted");
    char spec[256];
    snprintf(spec, sizeof spec, "%s", x->draws);
    for (char *tok = strtok(spec, " "); tok; tok = strtok(NULL, " ")) {
        kbv_draw_record *d = &r->draws[r->n_draws++];
        memset(d, 0, sizeof *d);
        char *how = strchr(tok, ':');
        if (how)
            *how++ = '\0';
        snprintf(d->dist, sizeof d->dist, "%s", tok);
        d->std_pass = !how || *how == 's';
        d->strict_pass = !how || *how == 'a';
        d->first_bad_ndim = -1;
    }
    if (x->fault) {
        r->has_fault = true;
        snprintf(r->fault_kind, sizeof r->fault_kind, "%s", x->fault);
        snprintf(r->fault_reason, sizeof r->fault_reason, "killed by signal 11");
    }
}

/* ---- what every cell holds --------------------------------------------- */

/* One column's numbers. */
typedef struct col {
    int correct;
    double speedup, fallback, mem_eff, mem_eff_pct, mem_up_pct, sol;
    double fast[KBV_FAST_COUNT];   /* Fast@0, 0.5, 0.8, 1, 1.5, 2 */
} col;

typedef struct expect {
    const char *model;
    int level;                     /* 0: pooled */
    int problems, sampled, samples, compiled;
    col p[KBV_PROTO_COUNT];
    /* the 2x2 (fp32+std is standard, tf32+hidden verified): correct, speedup, Fast@1 */
    struct {
        int correct;
        double speedup, fast1;
    } fp32_hidden, tf32_std, tf32_hidden_1e4;
} expect;

/* Percent of n. */
#define PCT(k, n) (100.0 * (k) / (n))

static expect expected[5];

static void build_expected(void)
{
    /* m1 level 1, 4 problems: standard solves L1/1 (s1, 4x) and L1/3 (0.8x:
     * not > 0.8); verified and strict L1/1 (s0, 1x) */
    col v1 = {1, 1, 1, 2, 25, 0, 0.5, {25, 25, 25, 0, 0, 0}};
    expected[0] = (expect){"m1", 1, 4, 3, 4, 2,
        {{2, sqrt(4 * 0.8), pow(4, 0.25), sqrt(200.0 / 300), 0, 50, sqrt(0.8 * 0.2),
          {50, 50, 25, 25, 25, 25}},
         v1, v1},
        /* fp32+hidden: L1/1 s0 at 2x; tf32+std: s1 at 2x and L1/3 at 1.6/2.5 */
        {1, 2, 25}, {2, sqrt(2 * 0.64), 25}, {0, NAN, NAN}};
    /* m1 level 2: L2/1 and L2/2 (L2/3 degenerate) */
    col v2 = {1, 1.5, sqrt(1.5), 2, 50, 0, 0.3, {50, 50, 50, 50, 0, 0}};
    expected[1] = (expect){"m1", 2, 2, 2, 2, 2,
        {{1, 3, sqrt(3.0), 2, 50, 0, 0.3, {50, 50, 50, 50, 50, 50}}, v2, v2},
        {1, 3, 50}, {1, 1.5, 50}, {0, NAN, NAN}};
    /* m1 pooled: the 6 */
    col va = {2, sqrt(1.5), pow(1.5, 1.0 / 6), 2, PCT(2, 6), 0, sqrt(0.5 * 0.3),
              {PCT(2, 6), PCT(2, 6), PCT(2, 6), PCT(1, 6), 0, 0}};
    expected[2] = (expect){"m1", 0, 6, 5, 6, 4,
        {{3, cbrt(4 * 0.8 * 3), pow(4 * 3, 1.0 / 6), cbrt(200.0 / 300 * 2), PCT(1, 6), PCT(1, 3),
          cbrt(0.8 * 0.2 * 0.3),
          {PCT(3, 6), PCT(3, 6), PCT(2, 6), PCT(2, 6), PCT(2, 6), PCT(2, 6)}},
         va, va},
        {2, sqrt(2 * 3.0), PCT(2, 6)}, {3, cbrt(2 * 0.64 * 1.5), PCT(2, 6)}, {0, NAN, NAN}};
    /* m2 level 1 (its pooled group is the same): standard solves L1/1 (1x)
     * and L1/4 (4x), verified L1/1 (0.5x) only, by a promotion */
    col v3 = {1, 0.5, 1, 1, 0, 0, 0.1, {25, 0, 0, 0, 0, 0}};
    for (int k = 3; k < 5; k++)
        expected[k] = (expect){"m2", k == 3 ? 1 : 0, 4, 3, 3, 3,
            {{2, 2, pow(4, 0.25), 1, 0, 0, 0.2, {50, 50, 50, 25, 25, 25}}, v3, v3},
            /* tf32+std: 0.5x and 1x (not > 1); at 1e-4 the promoted sample fails */
            {1, 1, 0}, {2, sqrt(0.5), 0}, {0, NAN, 0}};
}

/* ---- the file, read back ------------------------------------------------ */

static kbv_suite suite;
static kbv_report_data data;
static char path[64], torch_path[64];

/* PyTorch's times on this device (bench/torch_baselines.py's lines): L1/1 in
 * both modes, L1/3 in fp32 with compile failing, L2/1 in tf32; an entry of
 * another GPU that must not match. */
static const char torch_lines[] =
    "{\"kind\": \"torch-baseline\", \"problem\": \"L1/1\", \"size\": \"small\", "
    "\"mode\": \"fp32\", \"gpu\": \"cpu\", \"eager_ms\": 9.0, \"compile_ms\": 9.0}\n"
    "{\"kind\": \"torch-baseline\", \"problem\": \"L1/1\", \"size\": \"small\", "
    "\"mode\": \"fp32\", \"gpu\": \"cpu\", \"eager_ms\": 1.0, \"compile_ms\": 0.5}\n"
    "{\"kind\": \"torch-baseline\", \"problem\": \"L1/1\", \"size\": \"small\", "
    "\"mode\": \"tf32\", \"gpu\": \"cpu\", \"eager_ms\": 0.8, \"compile_ms\": 0.4}\n"
    "{\"kind\": \"torch-baseline\", \"problem\": \"L1/3\", \"size\": \"small\", "
    "\"mode\": \"fp32\", \"gpu\": \"cpu\", \"eager_ms\": 5.0, \"compile_error\": \"x\"}\n"
    "{\"kind\": \"torch-baseline\", \"problem\": \"L2/1\", \"size\": \"small\", "
    "\"mode\": \"tf32\", \"gpu\": \"cpu\", \"eager_ms\": 2.0, \"compile_ms\": 1.0}\n"
    "{\"kind\": \"torch-baseline\", \"problem\": \"L2/1\", \"size\": \"small\", "
    "\"mode\": \"tf32\", \"gpu\": \"NVIDIA H200\", \"eager_ms\": 0.1}\n";

static int setup(void **state)
{
    (void)state;
    for (int i = 0; i < N_DEFS; i++)
        build_record(&defs[i], &records[i]);
    build_expected();
    snprintf(path, sizeof path, "/tmp/kbv-paper-XXXXXX");
    int fd = mkstemp(path);
    if (fd < 0)
        return -1;
    FILE *f = fdopen(fd, "w");
    for (int i = 0; i < N_DEFS; i++) {
        json_t *o;
        if (kbv_record_to_json(&records[i], &o) != KBV_OK)
            return -1;
        json_dumpf(o, f, JSON_COMPACT);
        fputc('\n', f);
        json_decref(o);
    }
    fclose(f);
    memset(&suite, 0, sizeof suite);
    for (int id = 1; id <= 4; id++)
        kbv_suite_add(&suite, 1, id);
    for (int id = 1; id <= 3; id++)
        kbv_suite_add(&suite, 2, id);
    kbv_degenerate_list l;
    memset(&l, 0, sizeof l);
    l.n = 1;
    l.items[0].level = 2;
    l.items[0].id = 3;
    snprintf(l.source, sizeof l.source, "the test's list");
    kbv_suite_exclude(&suite, &l);
    const char *paths[] = {path};
    kbv_report_config cfg = {KBV_DENOM_SUITE, &suite};
    if (kbv_report_data_load(paths, 1, &cfg, &data) != KBV_OK) {
        fprintf(stderr, "%s\n", kbv_last_error());
        return -1;
    }
    snprintf(torch_path, sizeof torch_path, "/tmp/kbv-torch-XXXXXX");
    fd = mkstemp(torch_path);
    if (fd < 0)
        return -1;
    f = fdopen(fd, "w");
    fputs(torch_lines, f);
    fclose(f);
    if (kbv_torch_load(torch_path, &data.torch) != KBV_OK) {
        fprintf(stderr, "%s\n", kbv_last_error());
        return -1;
    }
    return 0;
}

static int teardown(void **state)
{
    (void)state;
    kbv_report_data_free(&data);
    kbv_suite_free(&suite);
    unlink(path);
    unlink(torch_path);
    return 0;
}

static void near(double got, double want, const char *what)
{
    if (isnan(want) ? !isnan(got) : !(fabs(got - want) < EPS))
        fail_msg("%s: got %.12g, want %.12g", what, got, want);
}

static const kbv_group_metrics *group_of(const char *model, int level)
{
    int g = kbv_report_group_of(&data, model, level);
    if (g < 0)
        fail_msg("no group %s L%d", model, level);
    return &data.metrics.groups[g];
}

/* ---- the tables' data ----------------------------------------------------- */

static void test_every_metric(void **state)
{
    (void)state;
    assert_int_equal(data.records.n, N_DEFS);
    assert_int_equal(data.metrics.n, 5);   /* m1: all, L1, L2; m2: all, L1 */
    for (size_t e = 0; e < sizeof expected / sizeof expected[0]; e++) {
        const expect *x = &expected[e];
        const kbv_group_metrics *g = group_of(x->model, x->level);
        char what[96];
        snprintf(what, sizeof what, "%s L%d", x->model, x->level);
        assert_int_equal(g->n_problems, x->problems);
        assert_int_equal(g->n_sampled, x->sampled);
        assert_int_equal(g->n_samples, x->samples);
        assert_int_equal(g->n_compiled, x->compiled);
        near(g->compiled_pct, PCT(x->compiled, x->problems), what);
        for (int p = 0; p < KBV_PROTO_COUNT; p++) {
            const kbv_proto_metrics *pm = &g->p[p];
            snprintf(what, sizeof what, "%s L%d %s", x->model, x->level,
                     kbv_protocol_name((kbv_protocol)p));
            assert_int_equal(pm->n_problems, x->problems);
            assert_int_equal(pm->n_correct, x->p[p].correct);
            near(pm->correct_pct, PCT(x->p[p].correct, x->problems), what);
            near(pm->speedup, x->p[p].speedup, what);
            near(pm->fallback, x->p[p].fallback, what);
            near(pm->mem_eff, x->p[p].mem_eff, what);
            near(pm->mem_eff_pct, x->p[p].mem_eff_pct, what);
            near(pm->mem_increased_pct, x->p[p].mem_up_pct, what);
            near(pm->sol_fraction, x->p[p].sol, what);
            for (int k = 0; k < KBV_FAST_COUNT; k++)
                near(pm->fast_pct[k], x->p[p].fast[k], what);
        }
        /* the 2x2: its corners are standard and verified */
        const kbv_proto_metrics *c = g->cond;
        snprintf(what, sizeof what, "%s L%d 2x2", x->model, x->level);
        for (int p = 0; p < 2; p++) {
            const kbv_proto_metrics *corner = &c[p == 0 ? KBV_COND_FP32_STD : KBV_COND_TF32_HIDDEN];
            assert_int_equal(corner->n_correct, g->p[p].n_correct);
            near(corner->speedup, g->p[p].speedup, what);
            near(corner->fast_pct[KBV_FAST_HEADLINE], g->p[p].fast_pct[KBV_FAST_HEADLINE], what);
        }
        assert_int_equal(c[KBV_COND_FP32_HIDDEN].n_correct, x->fp32_hidden.correct);
        near(c[KBV_COND_FP32_HIDDEN].speedup, x->fp32_hidden.speedup, what);
        near(c[KBV_COND_FP32_HIDDEN].fast_pct[KBV_FAST_HEADLINE], x->fp32_hidden.fast1, what);
        assert_int_equal(c[KBV_COND_TF32_STD].n_correct, x->tf32_std.correct);
        near(c[KBV_COND_TF32_STD].speedup, x->tf32_std.speedup, what);
        near(c[KBV_COND_TF32_STD].fast_pct[KBV_FAST_HEADLINE], x->tf32_std.fast1, what);
        /* 1e-4: only m2's records (the leaderboard gate) say; its promoted sample fails */
        const kbv_proto_metrics *tol = &c[KBV_COND_TF32_HIDDEN_1E4];
        bool leaderboard = !strcmp(x->model, "m2");
        assert_int_equal(tol->n_problems, leaderboard ? x->problems : 0);
        assert_int_equal(tol->n_correct, x->tf32_hidden_1e4.correct);
        near(tol->correct_pct, leaderboard ? 0 : NAN, what);
        near(tol->speedup, x->tf32_hidden_1e4.speedup, what);
    }
    assert_int_equal(data.metrics.n_excluded, 1);
    assert_string_equal(data.metrics.excluded[0], "L2/3");
}

/* Each sample index alone. m1 level 1, standard:
 *   s0: L1/1 2x, L1/2 not compiled, L1/3 0.8x, L1/4 none: compiled 50, correct 50,
 *       speedup sqrt(1.6), fallback 2^(1/4), Fast@1 25
 *   s1: L1/1 4x only: compiled 25, correct 25, speedup 4, fallback 4^(1/4), Fast@1 25
 * verified: s0 L1/1 1x (25%); s1 none (0%, speedup counted 0). */
static void test_per_sample(void **state)
{
    (void)state;
    const kbv_group_metrics *g = group_of("m1", 1);
    assert_int_equal(g->n_sample_ids, 2);
    const kbv_sample_metrics *s0 = &g->per_sample[0], *s1 = &g->per_sample[1];
    near(s0->compiled_pct, 50, "s0 compiled");
    near(s1->compiled_pct, 25, "s1 compiled");
    near(s0->p[0].correct_pct, 50, "s0 correct");
    near(s0->p[0].speedup, sqrt(1.6), "s0 speedup");
    near(s0->p[0].fallback, pow(2, 0.25), "s0 fallback");
    near(s1->p[0].correct_pct, 25, "s1 correct");
    near(s1->p[0].speedup, 4, "s1 speedup");
    near(s1->p[0].fast_pct[KBV_FAST_HEADLINE], 25, "s1 Fast@1");
    const kbv_per_sample *ps = &g->spread[KBV_PROTO_STANDARD];
    assert_int_equal(ps->n, 2);
    near(ps->compiled_pct.mean, 37.5, "compiled mean");
    near(ps->compiled_pct.sd, 12.5, "compiled sd");
    near(ps->correct_pct.mean, 37.5, "correct mean");
    near(ps->speedup.mean, (sqrt(1.6) + 4) / 2, "speedup mean");
    near(ps->speedup.sd, (4 - sqrt(1.6)) / 2, "speedup sd");
    near(ps->fallback.mean, (pow(2, 0.25) + pow(4, 0.25)) / 2, "fallback mean");
    const kbv_per_sample *pv = &g->spread[KBV_PROTO_VERIFIED];
    near(pv->correct_pct.mean, 12.5, "verified correct mean");
    near(pv->correct_pct.sd, 12.5, "verified correct sd");
    near(pv->speedup.mean, 0.5, "verified speedup mean (s1 counts 0)");
    near(pv->speedup.sd, 0.5, "verified speedup sd");
}

/* Failures by reason, per sample, in the groups' tallies. */
static void test_failure_tallies(void **state)
{
    (void)state;
    int g = kbv_report_group_of(&data, "m1", 0);
    const kbv_report_tally *t = data.tally[g];
    /* m1's 6 samples outside the degenerate problem */
    assert_int_equal(t[KBV_PROTO_STANDARD].samples, 6);
    assert_int_equal(t[KBV_PROTO_STANDARD].failed, 2);
    assert_int_equal(t[KBV_PROTO_STANDARD].fail[KBV_FAIL_COMPILE], 1);
    assert_int_equal(t[KBV_PROTO_STANDARD].fail[KBV_FAIL_CRASH], 1);
    assert_int_equal(t[KBV_PROTO_VERIFIED].failed, 4);
    assert_int_equal(t[KBV_PROTO_VERIFIED].fail[KBV_FAIL_WRONG_BASE + 4], 1);
    assert_int_equal(t[KBV_PROTO_VERIFIED].fail[KBV_FAIL_WRONG_BASE + 2], 1);
    assert_int_equal(t[KBV_PROTO_STRICT].failed, 4);
    assert_int_equal(t[KBV_PROTO_STRICT].fail[KBV_FAIL_WRONG_BASE + 2], 1);
    g = kbv_report_group_of(&data, "m2", 1);
    assert_int_equal(data.tally[g][KBV_PROTO_STANDARD].fail[KBV_FAIL_WRONG_BASE], 1);
}

/* The attribution: L1/1 TF32 only (m1's and m2's speedups halve: a drop of
 * exactly 50% counts), L1/2 neither (nobody solves it), L1/3 hidden only
 * (m1 solves it under standard only; its drop is 1 - 1.6/2 = 20%), L1/4 both
 * (m2: a drop of 75%, and wrong on D4); L2/1 TF32 only, L2/2 neither. */
static void test_attribution(void **state)
{
    (void)state;
    kbv_attribution at;
    assert_int_equal(kbv_attribution_compute(&data, &at), KBV_OK);
    assert_int_equal(at.n_rows, 3);
    const int want[3][KBV_ATTR_COUNT + 1] = {
        {1, 1, 1, 1, 4}, {1, 1, 0, 0, 2}, {2, 2, 1, 1, 6}};   /* neither, TF32, hidden, both */
    for (int r = 0; r < 3; r++) {
        assert_int_equal(at.rows[r].level, r < 2 ? r + 1 : 0);
        for (int k = 0; k < KBV_ATTR_COUNT; k++)
            assert_int_equal(at.rows[r].count[k], want[r][k]);
        assert_int_equal(at.rows[r].total, want[r][KBV_ATTR_COUNT]);
    }
    static const struct {
        const char *key;
        int cls;
        double drop;
    } per[] = {{"L1/1", KBV_ATTR_TF32_ONLY, 0.5}, {"L1/2", KBV_ATTR_NEITHER, NAN},
               {"L1/3", KBV_ATTR_HIDDEN_ONLY, 0.2}, {"L1/4", KBV_ATTR_BOTH, 0.75},
               {"L2/1", KBV_ATTR_TF32_ONLY, 0.5}, {"L2/2", KBV_ATTR_NEITHER, NAN},
               {"L2/3", -1, NAN}};
    for (size_t i = 0; i < sizeof per / sizeof per[0]; i++) {
        int q = -1;
        for (int k = 0; k < data.n_problems; k++)
            if (!strcmp(data.problems[k].key, per[i].key))
                q = k;
        assert_true(q >= 0);
        assert_int_equal(at.problems[q].cls, per[i].cls);
        near(at.problems[q].drop, per[i].drop, per[i].key);
    }
    kbv_attribution_free(&at);
}

/* ---- the figures' data ------------------------------------------------- */

/* Failures by distribution, every failed distribution of a sample counted,
 * each by its own protocol's rule. m1 (6 samples): D2 once (L1/3; L1/1 s1's
 * D2 is over strict's budget only, which does not judge D2 here), D4 twice
 * (L1/1 s1 and L1/3: both of L1/3's failed configs count), D6 once (L1/3 by
 * strict's rule; L1/1 s0's allclose miss there is not a failure: allclose
 * does not judge D6); faults: the compile error and the crash. m2 (3):
 * base (L1/2), D4 and D8 (L1/4). */
static void test_failures_by_distribution(void **state)
{
    (void)state;
    kbv_failure_counts fc;
    kbv_figure_failure_counts(&data, kbv_report_model_index(&data, "m1"), &fc);
    assert_int_equal(fc.samples, 6);
    const int m1[KBV_DIST_SLOTS] = {0, 0, 1, 0, 2, 0, 1, 0, 0, 0};   /* base, D1..D8, H */
    for (int k = 0; k < KBV_DIST_SLOTS; k++)
        assert_int_equal(fc.dist[k], m1[k]);
    assert_int_equal(fc.fault[KBV_STACK_COMPILE], 1);
    assert_int_equal(fc.fault[KBV_STACK_CRASH], 1);
    assert_int_equal(fc.fault[KBV_STACK_LOAD] + fc.fault[KBV_STACK_TIMEOUT] +
                         fc.fault[KBV_STACK_OTHER], 0);
    kbv_figure_failure_counts(&data, kbv_report_model_index(&data, "m2"), &fc);
    assert_int_equal(fc.samples, 3);
    const int m2[KBV_DIST_SLOTS] = {1, 0, 0, 0, 1, 0, 0, 0, 1, 0};
    for (int k = 0; k < KBV_DIST_SLOTS; k++)
        assert_int_equal(fc.dist[k], m2[k]);
    for (int k = 0; k < KBV_STACK_COUNT; k++)
        assert_int_equal(fc.fault[k], 0);
}

static int problem_of(const char *key)
{
    for (int q = 0; q < data.n_problems; q++)
        if (!strcmp(data.problems[q].key, key))
            return q;
    fail_msg("no problem %s", key);
    return -1;
}

/* The per-problem scatters' points: the chosen sample's speedup and memory
 * ratio; none for an unsolved, absent or degenerate problem. The per-level
 * panels plot each group's speedup and mem eff, checked above. */
static void test_scatter_points(void **state)
{
    (void)state;
    static const struct {
        const char *model, *key;
        kbv_protocol p;
        bool has;
        double x, y;
    } pts[] = {
        {"m1", "L1/1", KBV_PROTO_STANDARD, true, 4, 200.0 / 300},
        {"m1", "L1/1", KBV_PROTO_VERIFIED, true, 1, 2},
        {"m1", "L1/3", KBV_PROTO_STANDARD, true, 0.8, 1},
        {"m1", "L1/3", KBV_PROTO_VERIFIED, false, NAN, NAN},
        {"m1", "L1/4", KBV_PROTO_STANDARD, false, NAN, NAN},
        {"m1", "L2/1", KBV_PROTO_STRICT, true, 1.5, 2},
        {"m1", "L2/3", KBV_PROTO_STANDARD, false, NAN, NAN},
        {"m2", "L1/4", KBV_PROTO_STANDARD, true, 4, 1},
    };
    for (size_t i = 0; i < sizeof pts / sizeof pts[0]; i++) {
        double x, y;
        bool has = kbv_figure_problem_point(&data, kbv_report_model_index(&data, pts[i].model),
                                            problem_of(pts[i].key), pts[i].p, &x, &y);
        assert_int_equal(has, pts[i].has);
        if (has) {
            near(x, pts[i].x, pts[i].key);
            near(y, pts[i].y, pts[i].key);
        }
    }
}

/* Every figure draws, and the plan names the paper's figures. */
static void test_figures_written(void **state)
{
    (void)state;
    kbv_figure figs[64];
    int n = kbv_figures_plan(&data, KBV_PROTO_VERIFIED, figs, 64);
    /* before/after x2, decomposed, tolerance, 3 CDFs, scatter, per level, per model,
     * 2 models' failures, heat map */
    assert_int_equal(n, 13);
    bool level_points = false, grid = false, decomposed = false, tolerance = false;
    for (int i = 0; i < n; i++) {
        char *svg = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&svg, &len);
        assert_int_equal(kbv_figure_write(f, &data, &figs[i], true), KBV_OK);
        fclose(f);
        assert_non_null(strstr(svg, "</svg>"));
        level_points |= figs[i].kind == KBV_FIG_LEVEL_POINTS && strstr(svg, "Level 2");
        /* verified: m1's L1/1 at 1x, 2x; m2's L1/4 is wrong on D4, no point */
        grid |= figs[i].kind == KBV_FIG_SCATTER_GRID &&
                strstr(svg, "m1, L1/1 sample 0: speedup 1.00\xC3\x97, memory efficiency "
                            "2.00\xC3\x97") &&
                !strstr(svg, "m2, L1/4");
        decomposed |= figs[i].kind == KBV_FIG_DECOMPOSED && strstr(svg, "fp32+hidden");
        tolerance |= figs[i].kind == KBV_FIG_TOLERANCE && strstr(svg, "verified at 1e-4");
        free(svg);
    }
    assert_true(level_points);
    assert_true(grid);
    assert_true(decomposed);
    assert_true(tolerance);
}

/* Against PyTorch. m1 level 1, standard (fp32 times): L1/1 solved by s1 at
 * 0.5 ms against eager 1.0 (the later of its two entries) and compile 0.5;
 * L1/3 at 2.5 ms against eager 5.0, its compile failed: vs eager 2x on both,
 * Fast@1 2 of 2; vs compile 1x on L1/1 (not faster). Verified (tf32): L1/1 s0
 * at 1.0 ms against 0.8 and 0.4. m1 level 2, verified: L2/1 at 1.0 against 2.0
 * and 1.0 (the H200 entry is another device's). m2 level 1, standard: L1/1
 * at 2.0 against 1.0 and 0.5. */
static void test_against_torch(void **state)
{
    (void)state;
    kbv_torch_metrics tm;
    kbv_torch_metrics_of(&data, &data.torch, kbv_report_group_of(&data, "m1", 1),
                         KBV_PROTO_STANDARD, &tm);
    assert_int_equal(tm.eager_measured, 2);
    assert_int_equal(tm.compile_measured, 1);
    assert_int_equal(tm.eager_solved, 2);
    near(tm.vs_eager, 2, "m1 L1 vs eager");
    near(tm.fast1_eager, 100, "m1 L1 Fast@1 vs eager");
    near(tm.vs_compile, 1, "m1 L1 vs compile");
    near(tm.fast1_compile, 0, "m1 L1 Fast@1 vs compile");
    kbv_torch_metrics_of(&data, &data.torch, kbv_report_group_of(&data, "m1", 1),
                         KBV_PROTO_VERIFIED, &tm);
    assert_int_equal(tm.eager_measured, 1);
    near(tm.vs_eager, 0.8, "m1 L1 verified vs eager");
    near(tm.vs_compile, 0.4, "m1 L1 verified vs compile");
    kbv_torch_metrics_of(&data, &data.torch, kbv_report_group_of(&data, "m1", 2),
                         KBV_PROTO_VERIFIED, &tm);
    assert_int_equal(tm.eager_measured, 1);
    near(tm.vs_eager, 2, "m1 L2 vs eager");
    near(tm.fast1_compile, 0, "m1 L2 Fast@1 vs compile (1x is not faster)");
    kbv_torch_metrics_of(&data, &data.torch, kbv_report_group_of(&data, "m1", 0),
                         KBV_PROTO_VERIFIED, &tm);
    assert_int_equal(tm.eager_measured, 2);
    near(tm.vs_eager, sqrt(0.8 * 2), "m1 pooled vs eager");
    near(tm.fast1_eager, 50, "m1 pooled Fast@1 vs eager");
    kbv_torch_metrics_of(&data, &data.torch, kbv_report_group_of(&data, "m2", 1),
                         KBV_PROTO_STANDARD, &tm);
    assert_int_equal(tm.eager_measured, 1);
    near(tm.vs_eager, 0.5, "m2 vs eager");
    near(tm.vs_compile, 0.25, "m2 vs compile");
    /* a line that is not an entry is an error that names it */
    char bad[] = "/tmp/kbv-torch-bad-XXXXXX";
    int fd = mkstemp(bad);
    assert_true(fd >= 0);
    assert_true(write(fd, "{\"kind\": \"other\"}\n", 18) == 18);
    close(fd);
    kbv_torch_times t;
    assert_int_equal(kbv_torch_load(bad, &t), KBV_ERR_PARSE);
    assert_non_null(strstr(kbv_last_error(), "line 1"));
    kbv_clear_error();
    unlink(bad);
}

/* ---- the same numbers in the files ------------------------------------------ */

/* The field `name` of the CSV row that starts with `key`, as a number (NAN
 * when empty). */
static double csv_number(const char *csv, const char *key, const char *name)
{
    const char *end = strchr(csv, '\n');
    int col = -1, i = 0;
    for (const char *p = csv; p < end; i++) {
        const char *e = memchr(p, ',', (size_t)(end - p));
        if (!e)
            e = end;
        if ((size_t)(e - p) == strlen(name) && !strncmp(p, name, strlen(name)))
            col = i;
        p = e + 1;
    }
    if (col < 0)
        fail_msg("no column %s", name);
    char line_key[64];
    snprintf(line_key, sizeof line_key, "\n%s,", key);
    const char *row = strstr(csv, line_key);
    if (!row)
        fail_msg("no row %s", key);
    row++;
    for (int k = 0; k < col; k++)
        row = strchr(row, ',') + 1;
    if (*row == ',' || *row == '\n')
        return NAN;
    return strtod(row, NULL);
}

static void csv_near(double got, double want, const char *what)
{
    /* the CSV holds 6 significant digits */
    if (isnan(want) ? !isnan(got) : !(fabs(got - want) <= 1e-5 * fmax(1, fabs(want))))
        fail_msg("%s: got %.12g, want %.12g", what, got, want);
}

static void test_csv_cells(void **state)
{
    (void)state;
    char *csv = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&csv, &len);
    assert_int_equal(kbv_report_write_csv(f, &data), KBV_OK);
    fclose(f);
    static const char *const fast_cols[KBV_FAST_COUNT] = {
        "fast_0_pct", "fast_0.5_pct", "fast_0.8_pct", "fast_1_pct", "fast_1.5_pct", "fast_2_pct"};
    for (size_t e = 0; e < sizeof expected / sizeof expected[0]; e++) {
        const expect *x = &expected[e];
        /* m2 has one level: no pooled row in the tables */
        if (!strcmp(x->model, "m2") && x->level == 0)
            continue;
        for (int p = 0; p < KBV_PROTO_COUNT; p++) {
            char key[64], what[96];
            if (x->level)
                snprintf(key, sizeof key, "%s,%d,%s", x->model, x->level,
                         kbv_protocol_name((kbv_protocol)p));
            else
                snprintf(key, sizeof key, "%s,all,%s", x->model,
                         kbv_protocol_name((kbv_protocol)p));
            snprintf(what, sizeof what, "csv %s", key);
            csv_near(csv_number(csv, key, "problems"), x->problems, what);
            csv_near(csv_number(csv, key, "correct"), x->p[p].correct, what);
            csv_near(csv_number(csv, key, "correct_pct"), PCT(x->p[p].correct, x->problems), what);
            csv_near(csv_number(csv, key, "speedup"), x->p[p].speedup, what);
            csv_near(csv_number(csv, key, "fallback_speedup"), x->p[p].fallback, what);
            csv_near(csv_number(csv, key, "mem_efficiency"), x->p[p].mem_eff, what);
            csv_near(csv_number(csv, key, "mem_efficient_pct"), x->p[p].mem_eff_pct, what);
            csv_near(csv_number(csv, key, "mem_increased_pct"), x->p[p].mem_up_pct, what);
            csv_near(csv_number(csv, key, "sol_fraction"), x->p[p].sol, what);
            csv_near(csv_number(csv, key, "compiled_pct"), PCT(x->compiled, x->problems), what);
            for (int k = 0; k < KBV_FAST_COUNT; k++)
                csv_near(csv_number(csv, key, fast_cols[k]), x->p[p].fast[k], what);
        }
    }
    csv_near(csv_number(csv, "m1,1,standard", "per_sample_speedup_mean"), (sqrt(1.6) + 4) / 2,
             "csv per-sample speedup mean");
    csv_near(csv_number(csv, "m1,1,standard", "per_sample_correct_pct_sd"), 12.5,
             "csv per-sample correct sd");
    free(csv);
}

static void test_markdown_tables(void **state)
{
    (void)state;
    char *md = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&md, &len);
    kbv_summary_info info = {path, data.device, data.size, data.records.n, data.gate};
    assert_int_equal(kbv_report_write_markdown(f, &data, &info), KBV_OK);
    fclose(f);
    /* the pooled table: m1 over 6 problems, m2 over 4 */
    assert_non_null(strstr(md, "| m1 | 6 | 2.13\xC3\x97 | 50.0 | 33.3 | 1.10\xC3\x97 | 16.7 | "
                               "33.3 |"));
    assert_non_null(strstr(md, "| m2 | 4 | 2.00\xC3\x97 | 50.0 | 25.0 | 1.00\xC3\x97 | 0.0 | "
                               "0.0 |"));
    /* the attribution, per level: TF32 only, hidden only, both, neither, total */
    assert_non_null(strstr(md, "| L1 | 1 | 1 | 1 | 1 | 4 |\n| L2 | 1 | 0 | 0 | 1 | 2 |\n"
                               "| all | 2 (33.3%) | 1 (16.7%) | 1 (16.7%) | 2 (33.3%) | 6 |"));
    /* against PyTorch (test_against_torch's numbers) */
    assert_non_null(strstr(md, "| m1 | L1 | standard | 2 | 2.00\xC3\x97 | 100.0 | 1 | "
                               "1.00\xC3\x97 | 0.0 |"));
    /* the tolerance table: m1 cannot say at 1e-4, m2 loses its promoted sample */
    assert_non_null(strstr(md, "| m1 | L1 | 4 | 25.0 | 1.00\xC3\x97 | - | - |"));
    assert_non_null(strstr(md, "| m2 | L1 | 4 | 25.0 | 0.50\xC3\x97 | 0.0 | - |"));
    /* per sample, standard, m1 L1: compiled 37.5 +- 12.5, correct 37.5 +- 12.5 */
    assert_non_null(strstr(md, "| m1 | L1 | 2 | 37.5 \xC2\xB1 12.5 | 37.5 \xC2\xB1 12.5 | "
                               "2.63 \xC2\xB1 1.37 |"));
    assert_non_null(strstr(md, "| m1 | L1 | 1 | 25.0 | 25.0 | 25.0 | 25.0 | 25.0 | 25.0 | 25.0 | "
                               "25.0 |"));
    free(md);
}

static void test_summary_json(void **state)
{
    (void)state;
    json_t *o;
    kbv_summary_info info = {path, data.device, data.size, data.records.n, data.gate};
    assert_int_equal(kbv_report_summary(&data, &info, NULL, 0, &o), KBV_OK);
    assert_string_equal(json_string_value(json_object_get(o, "denominator")), "suite");
    json_t *groups = json_object_get(o, "groups");
    size_t i;
    json_t *g;
    int seen = 0;
    json_array_foreach(groups, i, g)
    {
        if (strcmp(json_string_value(json_object_get(g, "model")), "m1") ||
            json_integer_value(json_object_get(g, "level")) != 1)
            continue;
        seen++;
        json_t *std = json_object_get(g, "standard");
        near(json_number_value(json_object_get(std, "mem_increased_pct")), 50, "json mem-up");
        json_t *ps = json_object_get(std, "per_sample");
        near(json_number_value(json_object_get(json_object_get(ps, "speedup"), "sd")),
             (4 - sqrt(1.6)) / 2, "json per-sample speedup sd");
        json_t *s1 = json_array_get(json_object_get(ps, "samples"), 1);
        assert_int_equal(json_integer_value(json_object_get(s1, "sample")), 1);
        near(json_number_value(json_object_get(s1, "compiled_pct")), 25, "json s1 compiled");
    }
    assert_int_equal(seen, 1);
    json_decref(o);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_metric),
        cmocka_unit_test(test_per_sample),
        cmocka_unit_test(test_failure_tallies),
        cmocka_unit_test(test_attribution),
        cmocka_unit_test(test_against_torch),
        cmocka_unit_test(test_failures_by_distribution),
        cmocka_unit_test(test_scatter_points),
        cmocka_unit_test(test_figures_written),
        cmocka_unit_test(test_csv_cells),
        cmocka_unit_test(test_markdown_tables),
        cmocka_unit_test(test_summary_json),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
