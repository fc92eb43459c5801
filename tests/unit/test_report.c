/* kbv report on tests/data/report/small.jsonl (two models, written by
 * make_fixtures.py), against numbers worked out by hand:
 *
 * alpha (problems L1/1, L1/2, L1/3, L2/5; L2/23 is degenerate, excluded):
 *   L1/1  sample 0: 2x / 1x / 1x, mem 200/100;  sample 1: 4x / 2x / 2x, mem 200/400
 *         best of k = sample 1 (fastest correct) under every protocol
 *   L1/2  compile error
 *   L1/3  standard 0.5x (mem 100/100); wrong on D3 under verified and strict
 *   L2/5  sample 0 crashes; sample 1: 2x / 1.5x (mem 100/50), wrong on a strict timed trial
 *   standard: 3 of 4 correct = 75%; speedup cbrt(4 * 0.5 * 2) = cbrt(4);
 *             Fast@0,0.5,0.8,1,1.5,2 = 75, 50, 50, 50, 50, 25; fallback (4 * 1 * 1 * 2)^(1/4);
 *             mem eff cbrt(0.5 * 1 * 2) = 1; mem-efficient 1 of 4 = 25%
 *   verified: L1/1 (2x) and L2/5 (1.5x): 50%, speedup sqrt(3), fallback 3^(1/4), Fast@1 50
 *   strict:   L1/1 (2x) only: 25%, speedup 2, fallback 2^(1/4)
 *   failures (6 samples): standard compile 1, crash 1; verified + wrong@D3;
 *             strict + wrong@timed
 * beta<b> (L1/1, L1/2, L1/3):
 *   standard 1x, 1.25x (sample 1; sample 0 timed out), 20x: 100%, cbrt(25), Fast@1 66.7
 *   verified 0.5x, wrong on D2, 16x: 66.7%, sqrt(8); strict 0.5x, wrong, 12.5x: sqrt(6.25)
 *   strict flags: review-speedup 1, shape-specialised 1 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "dist/draws.h"
#include "report/compare.h"
#include "report/figures.h"
#include "report/html.h"
#include "report/report_data.h"
#include "report/report_tables.h"

#define EPS 1e-9
#define FIXTURE(name) KBV_TEST_SOURCE_DIR "/tests/data/report/" name

static kbv_report_data data;

static int load_small(void **state)
{
    (void)state;
    const char *path = FIXTURE("small.jsonl");
    const kbv_report_config cfg = {KBV_DENOM_SAMPLED, NULL};
    if (kbv_report_data_load(&path, 1, &cfg, &data) != KBV_OK) {
        fprintf(stderr, "%s\n", kbv_last_error());
        return -1;
    }
    return 0;
}

static int free_small(void **state)
{
    (void)state;
    kbv_report_data_free(&data);
    return 0;
}

static const kbv_group_metrics *group(const char *model, int level)
{
    int g = kbv_report_group_of(&data, model, level);
    assert_true(g >= 0);
    return &data.metrics.groups[g];
}

static const kbv_report_tally *tally(const char *model, int level, kbv_protocol p)
{
    int g = kbv_report_group_of(&data, model, level);
    assert_true(g >= 0);
    return &data.tally[g][p];
}

static void assert_close(double got, double want, double eps)
{
    if (!(fabs(got - want) < eps))
        fail_msg("got %.12g, want %.12g", got, want);
}

static void assert_near(double got, double want) { assert_close(got, want, EPS); }

/* Runs a writer into memory and returns what it wrote (malloc'd). */
static char *cap_buf;
static size_t cap_len;
#define CAPTURE(out, call)                                                                   \
    do {                                                                                     \
        cap_buf = NULL;                                                                      \
        FILE *f = open_memstream(&cap_buf, &cap_len);                                        \
        assert_non_null(f);                                                                  \
        assert_int_equal((call), KBV_OK);                                                    \
        assert_int_equal(fclose(f), 0);                                                      \
        (out) = cap_buf;                                                                     \
    } while (0)

/* ---- the data ------------------------------------------------------------ */

static void test_index(void **state)
{
    (void)state;
    assert_int_equal(data.records.n, 11);
    assert_int_equal(data.n_models, 2);
    assert_string_equal(data.models[0], "alpha");
    assert_string_equal(data.models[1], "beta<b>");
    assert_int_equal(data.n_problems, 5);
    assert_string_equal(data.problems[0].key, "L1/1");
    assert_string_equal(data.problems[4].key, "L2/23");
    assert_true(data.problems[4].degenerate);
    assert_int_equal(data.metrics.n_excluded, 1);
    assert_string_equal(data.metrics.excluded[0], "L2/23");
    assert_string_equal(data.device, "NVIDIA H200");
    assert_string_equal(data.size, "full");
    /* reading order: alpha L1, L2, all; beta (one level) L1 only */
    assert_int_equal(data.n_rows, 4);
    assert_int_equal(data.metrics.groups[data.rows[0]].level, 1);
    assert_int_equal(data.metrics.groups[data.rows[2]].level, 0);
    assert_string_equal(data.metrics.groups[data.rows[3]].model, "beta<b>");
}

static void test_best_of_k(void **state)
{
    (void)state;
    /* alpha L1/1: sample 1 is faster, under every protocol */
    const kbv_report_cell *c = kbv_report_cell_of(&data, 0, 0);
    assert_int_equal(c->n, 2);
    for (int p = 0; p < KBV_PROTO_COUNT; p++)
        assert_int_equal(data.samples[c->best[p]].rec->sample, 1);
    /* beta L1/2: sample 1 is the only correct one under standard; under
     * verified neither is, and the one shown passed more draws (6 > 5) */
    c = kbv_report_cell_of(&data, 1, 1);
    assert_int_equal(data.samples[c->best[KBV_PROTO_STANDARD]].rec->sample, 1);
    assert_int_equal(c->best[KBV_PROTO_VERIFIED], -1);
    assert_int_equal(data.samples[c->shown[KBV_PROTO_VERIFIED]].rec->sample, 1);
    assert_string_equal(data.samples[c->shown[KBV_PROTO_VERIFIED]].anchor, "s-m1-L1-2-1");
    /* beta never ran L2/5 */
    assert_int_equal(kbv_report_cell_of(&data, 1, 3)->n, 0);
}

static void test_metrics_by_hand(void **state)
{
    (void)state;
    const kbv_group_metrics *a = group("alpha", 0);
    assert_int_equal(a->n_problems, 4);
    assert_int_equal(a->n_samples, 6);
    const kbv_proto_metrics *s = &a->p[KBV_PROTO_STANDARD];
    assert_near(s->correct_pct, 75);
    assert_near(s->speedup, cbrt(4));
    const double fast[KBV_FAST_COUNT] = {75, 50, 50, 50, 50, 25};
    for (int k = 0; k < KBV_FAST_COUNT; k++)
        assert_near(s->fast_pct[k], fast[k]);
    assert_near(s->fallback, pow(8, 0.25));
    assert_near(s->mem_eff, 1);
    assert_near(s->mem_eff_pct, 25);
    const kbv_proto_metrics *v = &a->p[KBV_PROTO_VERIFIED];
    assert_near(v->correct_pct, 50);
    assert_near(v->speedup, sqrt(3));
    assert_near(v->fallback, pow(3, 0.25));
    assert_near(v->fast_pct[KBV_FAST_HEADLINE], 50);
    const kbv_proto_metrics *t = &a->p[KBV_PROTO_STRICT];
    assert_near(t->correct_pct, 25);
    assert_near(t->speedup, 2);
    assert_near(t->fallback, pow(2, 0.25));
    /* alpha's level 2: L2/5 only, the degenerate L2/23 left out */
    assert_int_equal(group("alpha", 2)->n_problems, 1);

    const kbv_group_metrics *b = group("beta<b>", 0);
    assert_near(b->p[KBV_PROTO_STANDARD].correct_pct, 100);
    assert_near(b->p[KBV_PROTO_STANDARD].speedup, cbrt(25));
    assert_near(b->p[KBV_PROTO_STANDARD].fast_pct[KBV_FAST_HEADLINE], 200.0 / 3);
    assert_near(b->p[KBV_PROTO_VERIFIED].correct_pct, 200.0 / 3);
    assert_near(b->p[KBV_PROTO_VERIFIED].speedup, sqrt(8));
    assert_near(b->p[KBV_PROTO_STRICT].speedup, 2.5);
}

static void test_failure_tallies(void **state)
{
    (void)state;
    const kbv_report_tally *s = tally("alpha", 0, KBV_PROTO_STANDARD);
    assert_int_equal(s->samples, 6);
    assert_int_equal(s->failed, 2);
    assert_int_equal(s->fail[KBV_FAIL_COMPILE], 1);
    assert_int_equal(s->fail[KBV_FAIL_CRASH], 1);
    const kbv_report_tally *v = tally("alpha", 0, KBV_PROTO_VERIFIED);
    assert_int_equal(v->failed, 3);
    assert_int_equal(v->fail[KBV_FAIL_WRONG_BASE + 3], 1);
    const kbv_report_tally *t = tally("alpha", 0, KBV_PROTO_STRICT);
    assert_int_equal(t->failed, 4);
    assert_int_equal(t->fail[KBV_FAIL_WRONG_TIMED], 1);
    /* the level groups split the pooled counts */
    assert_int_equal(tally("alpha", 1, KBV_PROTO_STRICT)->failed, 2);
    assert_int_equal(tally("alpha", 2, KBV_PROTO_STRICT)->failed, 2);

    const kbv_report_tally *bs = tally("beta<b>", 1, KBV_PROTO_STANDARD);
    assert_int_equal(bs->failed, 1);
    assert_int_equal(bs->fail[KBV_FAIL_TIMEOUT], 1);
    const kbv_report_tally *bv = tally("beta<b>", 1, KBV_PROTO_VERIFIED);
    assert_int_equal(bv->failed, 2);
    assert_int_equal(bv->fail[KBV_FAIL_WRONG_BASE + 2], 1);
    /* flags: sorted names, counted per sample */
    assert_int_equal(data.n_flags, 2);
    assert_string_equal(data.flag_names[0], "review-speedup");
    assert_string_equal(data.flag_names[1], "shape-specialised");
    const kbv_report_tally *bt = tally("beta<b>", 1, KBV_PROTO_STRICT);
    assert_int_equal(bt->flags[0], 1);
    assert_int_equal(bt->flags[1], 1);
    assert_int_equal(tally("beta<b>", 1, KBV_PROTO_STANDARD)->flags[0], 0);
}

static void test_classify(void **state)
{
    (void)state;
    kbv_record r;
    kbv_record_init(&r);
    r.compile.ok = true;
    kbv_proto_result *p = &r.proto[KBV_PROTO_STRICT];
    struct {
        const char *reason, *fault;
        int flags;
        kbv_fail_kind want;
    } cases[] = {
        {"crash: killed by SIGSEGV during D2", "crash", 0, KBV_FAIL_CRASH},
        {"timeout: no reply in 60 s during timed trial 3", "timeout", 0, KBV_FAIL_TIMEOUT},
        {"D2: crash: killed by SIGSEGV", "crash", 0, KBV_FAIL_CRASH},
        {"D3: rel L2 error 1e-1 > budget 8e-6", "crash", 0, KBV_FAIL_WRONG_BASE + 3},
        {"base#4: 3 of 10 elements outside atol/rtol 1e-3", NULL, 0, KBV_FAIL_WRONG_BASE},
        {"D8: input 'A' modified", NULL, 0, KBV_FAIL_WRONG_D8},
        {"timed trial 7: max |error| 1 > budget 2", NULL, 0, KBV_FAIL_WRONG_TIMED},
        {"no draw could be judged: the fp32 reference is not finite on all 5", NULL, 0,
         KBV_FAIL_UNJUDGED},
        {"median time 1e-3 ms is below 0.9 x the speed-of-light time", NULL, 1, KBV_FAIL_AUDIT},
        {"timing not credible: 100 calls reported 1 ms", NULL, 0, KBV_FAIL_AUDIT},
        {"something new", NULL, 0, KBV_FAIL_OTHER},
        {"load: undefined symbol during load", "load", 0, KBV_FAIL_LOAD},
        {"weird: x", "martian", 0, KBV_FAIL_OTHER},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        snprintf(p->reason, sizeof p->reason, "%s", cases[i].reason);
        r.has_fault = cases[i].fault != NULL;
        snprintf(r.fault_kind, sizeof r.fault_kind, "%s", cases[i].fault ? cases[i].fault : "");
        r.fault_reason[0] = '\0';
        p->n_flags = 0;
        if (cases[i].flags)
            kbv_proto_add_flag(p, "below-sol");
        kbv_fail_kind got = kbv_classify_failure(&r, KBV_PROTO_STRICT);
        if (got != cases[i].want)
            fail_msg("'%s': %s, want %s", cases[i].reason, kbv_fail_kind_name(got),
                     kbv_fail_kind_name(cases[i].want));
    }
    r.has_fault = false;
    r.compile.ok = false;
    snprintf(p->reason, sizeof p->reason, "compile error: x.cu(1): error");
    assert_int_equal(kbv_classify_failure(&r, KBV_PROTO_STRICT), KBV_FAIL_COMPILE);
    p->correct = true;
    assert_int_equal(kbv_classify_failure(&r, KBV_PROTO_STRICT), KBV_FAIL_NONE);
}

/* ---- the tables -------------------------------------------------------------- */

static void test_markdown(void **state)
{
    (void)state;
    char *md;
    kbv_summary_info info = {"small.jsonl", data.device, data.size, data.records.n};
    CAPTURE(md, kbv_report_write_markdown(f, &data, &info));
    /* the headline row of alpha, pooled: standard, verified, strict side by side */
    assert_non_null(strstr(md, "| alpha | all | 4 | 75.0 | 1.59\xC3\x97 | 50.0 | 50.0 | "
                               "1.73\xC3\x97 | 50.0 | 25.0 | 2.00\xC3\x97 | 25.0 |"));
    /* the model name cannot become markup */
    assert_non_null(strstr(md, "| beta&lt;b&gt; | L1 | 3 | 100.0 | 2.92\xC3\x97 | 66.7 |"));
    assert_null(strstr(md, "beta<b>"));
    /* all metrics, standard: compiled 3 of 4 (L1/2 did not), Fast@0..2, mem eff,
     * mem-eff %, mem-up % (L1/1's chosen sample is heavier: 1 of 3 solved), SOL
     * cbrt(0.2 * 0.05 * 0.3) */
    assert_non_null(strstr(md, "| alpha | all | 4 | 6 | 75.0 | 3 | 75.0 | 1.59\xC3\x97 | "
                               "1.68\xC3\x97 | 75.0 | 50.0 | 50.0 | 50.0 | 50.0 | 25.0 | "
                               "1.00\xC3\x97 | 25.0 | 33.3 | 0.144 |"));
    /* failures: only the classes that occur get a column */
    assert_non_null(strstr(md, "| model | level | protocol | samples | failed | compile | crash "
                               "| timeout | wrong@D2 | wrong@D3 | wrong@timed |"));
    assert_non_null(strstr(md, "| alpha | all | strict | 6 | 4 | 1 | 1 | 0 | 0 | 1 | 1 |"));
    assert_non_null(strstr(md, "| review-speedup | shape-specialised |"));
    assert_non_null(strstr(md, "Excluded as degenerate: L2/23 (kbv audit's findings"));
    assert_non_null(strstr(md, "Problems (`--denominator sampled`)"));
    free(md);
}

/* Field `name` of the CSV row whose first three fields are model,level,protocol. */
static void csv_field(const char *csv, const char *row_key, const char *name, char *out,
                      size_t cap)
{
    const char *hdr_end = strchr(csv, '\n');
    assert_non_null(hdr_end);
    int col = -1, i = 0;
    for (const char *p = csv; p < hdr_end; i++) {
        const char *e = memchr(p, ',', (size_t)(hdr_end - p));
        if (!e)
            e = hdr_end;
        if ((size_t)(e - p) == strlen(name) && !strncmp(p, name, strlen(name)))
            col = i;
        p = e + 1;
    }
    if (col < 0)
        fail_msg("no column %s", name);
    const char *row = strstr(csv, row_key);
    assert_non_null(row);
    for (int k = 0; k < col; k++) {
        row = strchr(row, ',');
        assert_non_null(row);
        row++;
    }
    size_t n = strcspn(row, ",\n");
    snprintf(out, cap, "%.*s", (int)n, row);
}

static void test_csv(void **state)
{
    (void)state;
    char *csv, v[64];
    CAPTURE(csv, kbv_report_write_csv(f, &data));
    /* one header and 4 groups x 3 protocols, every row as wide as the header */
    int lines = 0, cols0 = -1;
    for (const char *p = csv; *p;) {
        const char *e = strchr(p, '\n');
        assert_non_null(e);
        int cols = 1;
        for (const char *c = p; c < e; c++)
            cols += *c == ',';
        if (cols0 < 0)
            cols0 = cols;
        assert_int_equal(cols, cols0);
        lines++;
        p = e + 1;
    }
    assert_int_equal(lines, 1 + 4 * 3);
    csv_field(csv, "\nalpha,all,verified,", "correct_pct", v, sizeof v);
    assert_string_equal(v, "50");
    csv_field(csv, "\nalpha,all,verified,", "speedup", v, sizeof v);
    assert_close(atof(v), sqrt(3), 1e-5);   /* CSV numbers have 6 significant digits */
    csv_field(csv, "\nalpha,all,strict,", "fail_wrong@timed", v, sizeof v);
    assert_string_equal(v, "1");
    csv_field(csv, "\nalpha,2,standard,", "fail_crash", v, sizeof v);
    assert_string_equal(v, "1");
    csv_field(csv, "\nbeta<b>,1,strict,", "flags", v, sizeof v);
    assert_string_equal(v, "review-speedup=1 shape-specialised=1");
    csv_field(csv, "\nbeta<b>,1,strict,", "speedup", v, sizeof v);
    assert_near(atof(v), 2.5);
    free(csv);
}

static void test_summary_json(void **state)
{
    (void)state;
    json_t *o = NULL;
    const char *inputs[] = {"small.jsonl"};
    kbv_summary_info info = {"small.jsonl", data.device, data.size, data.records.n};
    assert_int_equal(kbv_report_summary(&data, &info, inputs, 1, &o), KBV_OK);
    json_t *groups = json_object_get(o, "groups");
    int seen = 0;
    size_t i;
    json_t *g;
    json_array_foreach(groups, i, g) {
        const char *model = json_string_value(json_object_get(g, "model"));
        if (strcmp(model, "alpha") || !json_is_string(json_object_get(g, "level")))
            continue;
        seen++;
        json_t *strict = json_object_get(g, "strict");
        assert_int_equal(json_integer_value(json_object_get(strict, "failed_samples")), 4);
        json_t *fails = json_object_get(strict, "failures");
        assert_int_equal(json_integer_value(json_object_get(fails, "compile")), 1);
        assert_int_equal(json_integer_value(json_object_get(fails, "wrong@D3")), 1);
        assert_int_equal(json_integer_value(json_object_get(fails, "load")), 0);
        assert_near(json_real_value(json_object_get(json_object_get(g, "standard"),
                                                    "correct_pct")),
                    75);
    }
    assert_int_equal(seen, 1);
    assert_int_equal(json_array_size(json_object_get(o, "models")), 2);
    assert_string_equal(json_string_value(json_array_get(json_object_get(o, "excluded"), 0)),
                        "L2/23");
    json_decref(o);
}

/* ---- the page and the figures -------------------------------------------------- */

static int count(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle))
        n++;
    return n;
}

static void test_page(void **state)
{
    (void)state;
    char *html;
    const char *inputs[] = {"small.jsonl"};
    kbv_summary_info info = {"small.jsonl", data.device, data.size, data.records.n};
    kbv_html_opts o = {NULL, &info, inputs, 1, KBV_PROTO_VERIFIED};
    CAPTURE(html, kbv_html_write(f, &data, &o));
    /* offline: no URL, one inline script (sorting), nothing loaded; everything from the
     * file escaped */
    assert_null(strstr(html, "http:"));
    assert_null(strstr(html, "https:"));
    assert_int_equal(count(html, "<script"), 1);
    assert_int_equal(count(html, "<script>"), 1);
    assert_null(strstr(html, " src="));
    /* sortable tables, a rank view per level, and each sample's code beside its verdicts */
    assert_non_null(strstr(html, "<table class=\"sortable\" id=\"t-summary\">"));
    assert_non_null(strstr(html, "<table class=\"sortable\" id=\"t-rank-L1\">"));
    assert_non_null(strstr(html, "<table class=\"sortable\" id=\"t-rank-all\">"));
    assert_int_equal(count(html, "<summary>candidate source</summary>"), data.n_samples);
    assert_int_equal(count(html, "<summary>PyTorch reference</summary>"), data.n_samples);
    /* L1/1 is defined: its reference is kbv show --torch's */
    assert_non_null(strstr(html, "class Model(nn.Module)"));
    assert_non_null(strstr(html, "<code>kbv show L1/1 --torch</code>"));
    assert_null(strstr(html, "beta<b>"));
    assert_non_null(strstr(html, "beta&lt;b&gt;"));
    assert_non_null(strstr(html, "near &lt;script&gt;alert(1)&lt;/script&gt; &amp; more"));
    /* every sample has its anchor, and figures and tables link to them */
    for (int i = 0; i < data.n_samples; i++) {
        char id[80], href[80];
        snprintf(id, sizeof id, "id=\"%s\"", data.samples[i].anchor);
        snprintf(href, sizeof href, "href=\"#%s\"", data.samples[i].anchor);
        assert_int_equal(count(html, id), 1);
        assert_true(count(html, href) >= 1);
    }
    /* inline figures, one per planned figure, all closed */
    kbv_figure figs[64];
    int n = kbv_figures_plan(&data, KBV_PROTO_VERIFIED, figs, 64);
    /* before/after x2, decomposed, tolerance, 3 CDFs, 3 memory-vs-speed, 2 failures, heat map */
    assert_int_equal(n, 2 + 2 + 3 + 3 + 2 + 1);
    assert_int_equal(count(html, "<svg "), n);
    assert_int_equal(count(html, "</svg>"), n);
    /* the reproduction command carries the draw's own seed, derived from the run seed */
    kbv_draw_plan plan;
    kbv_draw_plan_make(20240611, kbv_problem_find("L1/3"), &plan);
    assert_string_equal(plan.d[7].label, "D3");
    char cmd[200];
    snprintf(cmd, sizeof cmd, "kbv dump L1/3 --full --dist D3 --seed %llu --out dump-L1_3-D3",
             (unsigned long long)plan.d[7].draw.seed);
    assert_non_null(strstr(html, cmd));
    /* first mismatching element and the timing spread of a sample */
    assert_non_null(strstr(html, "<code>[1,2]</code>"));
    assert_non_null(strstr(html, "2.000 ms \xC2\xB1 0.100 ms sd"));
    free(html);
}

static void test_figures_deterministic(void **state)
{
    (void)state;
    kbv_figure figs[64];
    int n = kbv_figures_plan(&data, KBV_PROTO_STRICT, figs, 64);
    for (int i = 0; i < n; i++) {
        char *a, *b;
        CAPTURE(a, kbv_figure_write(f, &data, &figs[i], true));
        CAPTURE(b, kbv_figure_write(f, &data, &figs[i], true));
        assert_string_equal(a, b);
        assert_int_equal(count(a, "<svg "), 1);
        assert_int_equal(count(a, "</svg>"), 1);
        assert_null(strstr(a, "nan"));
        assert_null(strstr(a, "inf\""));
        free(a);
        free(b);
    }
    /* the heat map marks alpha's L1/2 compile failure with its letter and links it */
    char *heat = NULL;
    for (int i = 0; i < n; i++)
        if (figs[i].kind == KBV_FIG_HEATMAP)
            CAPTURE(heat, kbv_figure_write(f, &data, &figs[i], false));
    assert_non_null(heat);
    assert_non_null(strstr(heat, "alpha, L1/2: compile error in all 1 sample"));
    assert_non_null(strstr(heat, "href=\"#s-m0-L1-2-0\""));
    assert_null(strstr(heat, "L2/23"));   /* degenerate: not plotted */
    free(heat);
    char c1[16], c2[16], c3[16];
    kbv_figure_speedup_color(1, c1, sizeof c1);
    kbv_figure_speedup_color(8, c2, sizeof c2);
    kbv_figure_speedup_color(1.0 / 64, c3, sizeof c3);
    assert_string_equal(c1, "#f7f7f7");
    assert_string_equal(c2, "#2166ac");
    assert_string_equal(c3, "#b2182b");
}

/* ---- --compare -------------------------------------------------------------------- */

static void test_noise_rule(void **state)
{
    (void)state;
    bool known;
    /* run-to-run noise 0.01 in log time, each run's own spread 1% */
    assert_int_equal(kbv_compare_times(1.0, 0.01, 0.99, 0.0099, 0.01, &known), KBV_CHANGE_SAME);
    assert_true(known);
    /* the boundary: |log(tA / tB)| against 2 sqrt(n^2 + rA^2 + rB^2) = 2 * 0.05 */
    assert_int_equal(kbv_compare_times(exp(0.0999), 0, 1.0, 0, 0.05, &known), KBV_CHANGE_SAME);
    assert_int_equal(kbv_compare_times(exp(0.1001), 0, 1.0, 0, 0.05, &known), KBV_CHANGE_FASTER);
    assert_int_equal(kbv_compare_times(1.0, 0.01, 0.9, 0.009, 0.01, &known), KBV_CHANGE_FASTER);
    assert_int_equal(kbv_compare_times(1.0, 0.01, 1.1, 0.011, 0.01, &known), KBV_CHANGE_SLOWER);
    /* a run's spread not recorded adds nothing; the run-to-run noise still judges */
    assert_int_equal(kbv_compare_times(1.0, NAN, 0.99, 0.01, 0.01, &known), KBV_CHANGE_SAME);
    assert_true(known);
    /* the within-run spread alone does not judge: two runs of identical code differ by more */
    assert_int_equal(kbv_compare_times(1.0, 0.001, 0.5, 0.001, NAN, &known),
                     KBV_CHANGE_UNJUDGED);
    assert_false(known);
    assert_int_equal(kbv_compare_times(1.0, 0.001, 1.0, 0.001, NAN, &known), KBV_CHANGE_SAME);
    assert_int_equal(kbv_compare_times(NAN, 0.01, 0.99, 0.01, 0.01, &known), KBV_CHANGE_UNTIMED);
    kbv_proto_result r;
    r.t_kernel_spread_ms = 1.349;
    assert_near(kbv_compare_sigma(&r, KBV_PROTO_STRICT), 1.0);
    assert_near(kbv_compare_sigma(&r, KBV_PROTO_VERIFIED), 1.349);
}

/* The noise of three repeats of A's code (make_fixtures.py compare_noise):
 * L1/1..7 at t x (0.99, 1, 1.01), L1/8 at t x (0.7, 1, 1.3). */
static void test_noise_from_repeats(void **state)
{
    (void)state;
    const char *runs[] = {FIXTURE("compare_noise_1.jsonl"), FIXTURE("compare_noise_2.jsonl"),
                          FIXTURE("compare_noise_3.jsonl")};
    kbv_noise n;
    assert_int_equal(kbv_noise_from_repeats(runs, 3, &n), KBV_OK);
    assert_int_equal(n.n_runs, 3);
    for (int p = 0; p < KBV_PROTO_COUNT; p++) {
        assert_int_equal(n.source[p], KBV_NOISE_REPEATS);
        assert_int_equal(n.n_estimates[p], 7);
    }
    double l[3] = {log(0.99), 0, log(1.01)}, m = (l[0] + l[1] + l[2]) / 3, v = 0;
    for (int i = 0; i < 3; i++)
        v += (l[i] - m) * (l[i] - m) / 2;
    /* two runs differ by sqrt(2) sd: the sample's own */
    assert_near(kbv_noise_of(&n, KBV_PROTO_STANDARD, "gamma", 1, 1, 0), sqrt(2 * v));
    double l8[3] = {log(0.7), 0, log(1.3)}, m8 = (l8[0] + l8[1] + l8[2]) / 3, v8 = 0;
    for (int i = 0; i < 3; i++)
        v8 += (l8[i] - m8) * (l8[i] - m8) / 2;
    assert_near(kbv_noise_of(&n, KBV_PROTO_STRICT, "gamma", 1, 8, 0), sqrt(2 * v8));
    /* another model's sample of L1/8: the problem's, over the repeats' samples of it */
    assert_near(kbv_noise_of(&n, KBV_PROTO_STRICT, "delta", 1, 8, 3), sqrt(2 * v8));
    /* a problem the repeats lack: the pooled value, over every sample time */
    assert_near(kbv_noise_of(&n, KBV_PROTO_STANDARD, "gamma", 1, 4, 0),
                sqrt(2 * (6 * v + v8) / 7));
    assert_int_equal(n.n_keys, 7);
    kbv_noise_free(&n);
}

static void test_compare_runs(void **state)
{
    (void)state;
    kbv_comparison c;
    const char *runs[] = {FIXTURE("compare_noise_1.jsonl"), FIXTURE("compare_noise_2.jsonl"),
                          FIXTURE("compare_noise_3.jsonl")};
    assert_int_equal(kbv_compare_load(FIXTURE("compare_a.jsonl"), FIXTURE("compare_b.jsonl"),
                                      NULL, NULL, runs, 3, &c),
                     KBV_OK);
    assert_int_equal(c.n_rows, 8);
    /* L1/8: B 1.3x slower, but its own repeats spread 0.7x to 1.3x: within the noise */
    const kbv_change want_std[] = {KBV_CHANGE_SAME,   KBV_CHANGE_FASTER, KBV_CHANGE_BROKEN,
                                   KBV_CHANGE_FIXED,  KBV_CHANGE_FASTER, KBV_CHANGE_ONLY_A,
                                   KBV_CHANGE_FASTER, KBV_CHANGE_SAME};
    for (int i = 0; i < 8; i++) {
        const kbv_compare_row *r = &c.rows[KBV_PROTO_STANDARD][i];
        assert_int_equal(r->id, i + 1);
        if (r->change != want_std[i])
            fail_msg("L1/%d: %s, want %s", i + 1, kbv_change_name(r->change),
                     kbv_change_name(want_std[i]));
    }
    /* A records no sd on L1/5: its spread adds nothing, the run-to-run noise judges */
    assert_true(c.rows[KBV_PROTO_STANDARD][4].noise_known);
    /* strict L1/7: IQR 0.2 on both sides is a standard error of 0.148 x 1.2533 / sqrt(30) =
     * 0.034 on a median of 30 trials; with the repeats' 1.4% between runs, 1.0 against 0.7
     * is beyond the noise */
    assert_int_equal(c.rows[KBV_PROTO_STRICT][6].change, KBV_CHANGE_FASTER);
    assert_near(c.rows[KBV_PROTO_STRICT][6].a.stderr_ms, 0.2 / 1.349 * 1.2533 / sqrt(30));
    assert_int_equal(c.counts[KBV_PROTO_STANDARD][KBV_CHANGE_FASTER], 3);

    char *md;
    CAPTURE(md, kbv_compare_markdown(f, &c));
    assert_non_null(strstr(md, "| L1/2 | correct | correct | 1.000 ms \xC2\xB1 10.00 us | "
                               "0.800 ms \xC2\xB1 10.00 us | 1.00\xC3\x97 | 1.25\xC3\x97 | "
                               "B faster 1.25x |"));
    assert_non_null(strstr(md, "| L1/1 | correct | correct |"));
    assert_non_null(strstr(md, "no change (within noise) |"));
    assert_non_null(strstr(md, "| L1/4 | compile | correct |"));
    assert_non_null(strstr(md, "from 3 repeated runs, 7 sample times"));
    free(md);
    char *text;
    CAPTURE(text, (kbv_compare_print(f, &c, KBV_PROTO_STRICT), KBV_OK));
    assert_non_null(strstr(text, "strict protocol"));
    assert_non_null(strstr(text, "1.000 ms IQR 0.200 ms"));
    free(text);
    kbv_compare_free(&c);

    /* no repeats, and A and B share their baselines (bit for bit): nothing is judged */
    assert_int_equal(kbv_compare_load(FIXTURE("compare_a.jsonl"), FIXTURE("compare_b.jsonl"),
                                      NULL, NULL, NULL, 0, &c),
                     KBV_OK);
    assert_int_equal(c.noise.source[KBV_PROTO_STANDARD], KBV_NOISE_NONE);
    assert_int_equal(c.rows[KBV_PROTO_STANDARD][1].change, KBV_CHANGE_UNJUDGED);
    assert_int_equal(c.counts[KBV_PROTO_STANDARD][KBV_CHANGE_FASTER], 0);
    CAPTURE(md, kbv_compare_markdown(f, &c));
    assert_non_null(strstr(md, "B faster 1.25x (run-to-run noise unknown)"));
    free(md);
    kbv_compare_free(&c);

    /* B's baselines measured anew: |log| ratios 0.0198, 0.0202, 0.0296, 0.0305 on L1/1,
     * L1/2, L1/5, L1/7 (L1/8's equal: one cached measurement, left out; L1/3 and L1/4 have a
     * baseline on one side only); 1.4826 x their median */
    assert_int_equal(kbv_compare_load(FIXTURE("compare_a.jsonl"),
                                      FIXTURE("compare_b_rebased.jsonl"), NULL, NULL, NULL, 0, &c),
                     KBV_OK);
    assert_int_equal(c.noise.source[KBV_PROTO_VERIFIED], KBV_NOISE_BASELINES);
    assert_int_equal(c.noise.n_estimates[KBV_PROTO_VERIFIED], 4);
    assert_close(c.noise.pooled[KBV_PROTO_VERIFIED],
                 1.4826 * (fabs(log(0.98)) + fabs(log(1.03))) / 2, 1e-12);
    assert_int_equal(c.rows[KBV_PROTO_STANDARD][0].change, KBV_CHANGE_SAME);
    assert_int_equal(c.rows[KBV_PROTO_STANDARD][1].change, KBV_CHANGE_FASTER);
    kbv_compare_free(&c);
}

/* Records of earlier kbv versions are read, with a note of what they lack;
 * records of a later schema are counted, never dropped silently. */
static void test_old_and_newer_records(void **state)
{
    (void)state;
    const char *path = FIXTURE("legacy.jsonl");
    kbv_report_data d;
    assert_int_equal(kbv_report_data_load(&path, 1, NULL, &d), KBV_OK);
    assert_int_equal(d.records.n, 2);
    assert_int_equal(d.malformed, 2);
    assert_int_equal(d.newer, 2);
    assert_int_equal(d.newest_schema, 2);
    assert_non_null(strstr(d.newer_where, "legacy.jsonl line 3"));
    assert_int_equal(d.legacy[0], 2);   /* no gate */
    assert_int_equal(d.legacy[1], 2);   /* no sandbox */
    const kbv_record *r = &d.records.items[0];
    assert_int_equal(r->gate, KBV_GATE_TEXT);
    assert_true(r->legacy & KBV_LEGACY_NO_GATE);
    assert_true(r->proto[KBV_PROTO_VERIFIED].correct);
    assert_int_equal(r->n_draws, 13);
    assert_int_equal(r->draws[0].oracle_nonfinite, 0);
    assert_near(r->proto[KBV_PROTO_STANDARD].speedup, 2);
    assert_false(d.records.items[1].compile.ok);
    /* the metrics count them as any other */
    int g = kbv_report_group_of(&d, "old-kbv", 1);
    assert_int_equal(d.metrics.groups[g].p[KBV_PROTO_STANDARD].n_correct, 1);
    char *md;
    kbv_summary_info info = {path, d.device, d.size, d.records.n, d.gate};
    CAPTURE(md, kbv_report_write_markdown(f, &d, &info));
    assert_non_null(strstr(md, "2 records of schema 2, written by a newer kbv, not read"));
    assert_non_null(strstr(md, "Note: 2 records written before kbv recorded the verified gate"));
    free(md);
    kbv_report_data_free(&d);
    /* a current record names the fields, so it carries no note */
    assert_int_equal(data.legacy[0] + data.legacy[1], 0);
}

static void test_compare_needs_a_model(void **state)
{
    (void)state;
    kbv_comparison c;
    kbv_status st = kbv_compare_load(FIXTURE("small.jsonl"), FIXTURE("compare_b.jsonl"), NULL,
                                     NULL, NULL, 0, &c);
    assert_int_equal(st, KBV_ERR_INVALID);
    assert_non_null(strstr(kbv_last_error(), "--model-a"));
    kbv_clear_error();
    assert_int_equal(kbv_compare_load(FIXTURE("small.jsonl"), FIXTURE("compare_b.jsonl"),
                                      "beta<b>", NULL, NULL, 0, &c),
                     KBV_OK);
    /* beta has L1/1-3, B has L1/1-5, L1/7, L1/8 */
    assert_int_equal(c.n_rows, 7);
    kbv_compare_free(&c);
    assert_int_equal(kbv_compare_load(FIXTURE("small.jsonl"), FIXTURE("compare_b.jsonl"),
                                      "nobody", NULL, NULL, 0, &c),
                     KBV_ERR_NOT_FOUND);
    kbv_clear_error();
    const char *missing = FIXTURE("no-such-file.jsonl");
    kbv_report_data d;
    assert_int_equal(kbv_report_data_load(&missing, 1, NULL, &d), KBV_ERR_NOT_FOUND);
    kbv_clear_error();
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_index),
        cmocka_unit_test(test_best_of_k),
        cmocka_unit_test(test_metrics_by_hand),
        cmocka_unit_test(test_failure_tallies),
        cmocka_unit_test(test_classify),
        cmocka_unit_test(test_markdown),
        cmocka_unit_test(test_csv),
        cmocka_unit_test(test_summary_json),
        cmocka_unit_test(test_page),
        cmocka_unit_test(test_figures_deterministic),
        cmocka_unit_test(test_noise_rule),
        cmocka_unit_test(test_noise_from_repeats),
        cmocka_unit_test(test_compare_runs),
        cmocka_unit_test(test_compare_needs_a_model),
        cmocka_unit_test(test_old_and_newer_records),
    };
    return cmocka_run_group_tests(tests, load_small, free_small);
}
