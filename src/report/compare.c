#include "report/compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_tables.h"

/* IQR of a normal distribution in standard deviations. */
#define IQR_PER_SD 1.349
/* Differences within this many combined standard deviations are noise. */
#define NOISE_SIGMAS 2.0

static const char *const change_names[KBV_CHANGE_COUNT] = {
    "no change", "faster", "slower", "untimed", "fixed", "broken", "both wrong",
    "only in A", "only in B",
};

const char *kbv_change_name(kbv_change c)
{
    return (unsigned)c < KBV_CHANGE_COUNT ? change_names[c] : "?";
}

kbv_change kbv_compare_times(double t_a, double sigma_a, double t_b, double sigma_b,
                             bool *noise_known)
{
    *noise_known = isfinite(sigma_a) && isfinite(sigma_b) && sigma_a >= 0 && sigma_b >= 0;
    if (!(t_a > 0 && isfinite(t_a) && t_b > 0 && isfinite(t_b)))
        return KBV_CHANGE_UNTIMED;
    double noise = *noise_known ? NOISE_SIGMAS * sqrt(sigma_a * sigma_a + sigma_b * sigma_b) : 0;
    if (fabs(t_a - t_b) <= noise)
        return KBV_CHANGE_SAME;
    return t_b < t_a ? KBV_CHANGE_FASTER : KBV_CHANGE_SLOWER;
}

double kbv_compare_sigma(const kbv_proto_result *r, kbv_protocol p)
{
    double s = r->t_kernel_spread_ms;
    if (!isfinite(s) || s < 0)
        return NAN;
    return p == KBV_PROTO_STRICT ? s / IQR_PER_SD : s;
}

/* ---- building ------------------------------------------------------------ */

static kbv_status pick_model(const kbv_report_data *d, const char *path, const char *want,
                             const char *option, int *out)
{
    if (want) {
        *out = kbv_report_model_index(d, want);
        if (*out < 0)
            return kbv_fail(KBV_ERR_NOT_FOUND, "%s has no records of model '%s'", path, want);
        return KBV_OK;
    }
    if (d->n_models == 1) {
        *out = 0;
        return KBV_OK;
    }
    if (d->n_models == 0)
        return kbv_fail(KBV_ERR_INVALID, "%s holds no records", path);
    char names[512] = "";
    size_t used = 0;
    for (int i = 0; i < d->n_models && used < sizeof names; i++)
        used += (size_t)snprintf(names + used, sizeof names - used, "%s'%s'", i ? ", " : "",
                                 d->models[i]);
    return kbv_fail(KBV_ERR_INVALID, "%s holds %d models (%s): choose one with %s", path,
                    d->n_models, names, option);
}

static void fill_side(const kbv_report_data *d, int model, int problem, kbv_protocol p,
                      kbv_compare_side *s)
{
    memset(s, 0, sizeof *s);
    s->t_ms = s->spread_ms = s->sigma_ms = s->speedup = NAN;
    if (problem < 0)
        return;
    const kbv_report_cell *c = kbv_report_cell_of(d, model, problem);
    if (c->n == 0)
        return;
    s->sample = &d->samples[c->shown[p]];
    s->correct = c->best[p] >= 0;
    if (!s->correct)
        return;
    const kbv_proto_result *r = &s->sample->rec->proto[p];
    s->t_ms = r->t_kernel_ms;
    s->spread_ms = r->t_kernel_spread_ms;
    s->sigma_ms = kbv_compare_sigma(r, p);
    s->speedup = kbv_report_speedup(r);
}

static int find_problem(const kbv_report_data *d, int level, int id)
{
    for (int i = 0; i < d->n_problems; i++)
        if (d->problems[i].level == level && d->problems[i].id == id)
            return i;
    return -1;
}

kbv_status kbv_compare_build(kbv_comparison *c)
{
    int cap = c->a.n_problems + c->b.n_problems;
    for (int p = 0; p < KBV_PROTO_COUNT; p++) {
        c->rows[p] = calloc((size_t)(cap ? cap : 1), sizeof *c->rows[p]);
        if (!c->rows[p])
            return kbv_fail(KBV_ERR_NOMEM, "comparing %d problems", cap);
    }
    memset(c->counts, 0, sizeof c->counts);
    /* the union of both runs' problems with samples of the chosen models, in order */
    int ia = 0, ib = 0, n = 0;
    while (ia < c->a.n_problems || ib < c->b.n_problems) {
        const kbv_report_problem *pa = ia < c->a.n_problems ? &c->a.problems[ia] : NULL;
        const kbv_report_problem *pb = ib < c->b.n_problems ? &c->b.problems[ib] : NULL;
        const kbv_report_problem *q;
        if (pa && pb && pa->level == pb->level && pa->id == pb->id) {
            q = pa;
            ia++;
            ib++;
        } else if (pa && (!pb || pa->level < pb->level ||
                          (pa->level == pb->level && pa->id < pb->id))) {
            q = pa;
            ia++;
        } else {
            q = pb;
            ib++;
        }
        int qa = find_problem(&c->a, q->level, q->id), qb = find_problem(&c->b, q->level, q->id);
        bool has_a = qa >= 0 && kbv_report_cell_of(&c->a, c->model_a, qa)->n > 0;
        bool has_b = qb >= 0 && kbv_report_cell_of(&c->b, c->model_b, qb)->n > 0;
        if (!has_a && !has_b)
            continue;
        for (int p = 0; p < KBV_PROTO_COUNT; p++) {
            kbv_compare_row *r = &c->rows[p][n];
            r->level = q->level;
            r->id = q->id;
            snprintf(r->key, sizeof r->key, "%s", q->key);
            fill_side(&c->a, c->model_a, has_a ? qa : -1, (kbv_protocol)p, &r->a);
            fill_side(&c->b, c->model_b, has_b ? qb : -1, (kbv_protocol)p, &r->b);
            r->noise_known = true;
            if (!has_a)
                r->change = KBV_CHANGE_ONLY_B;
            else if (!has_b)
                r->change = KBV_CHANGE_ONLY_A;
            else if (r->a.correct && r->b.correct)
                r->change = kbv_compare_times(r->a.t_ms, r->a.sigma_ms, r->b.t_ms, r->b.sigma_ms,
                                              &r->noise_known);
            else if (r->b.correct)
                r->change = KBV_CHANGE_FIXED;
            else if (r->a.correct)
                r->change = KBV_CHANGE_BROKEN;
            else
                r->change = KBV_CHANGE_BOTH_WRONG;
            c->counts[p][r->change]++;
        }
        n++;
    }
    c->n_rows = n;
    return KBV_OK;
}

kbv_status kbv_compare_load(const char *path_a, const char *path_b, const char *model_a,
                            const char *model_b, kbv_comparison *c)
{
    kbv_status st = KBV_OK;
    memset(c, 0, sizeof *c);
    c->path_a = path_a;
    c->path_b = path_b;
    /* per problem with samples: the comparison has no denominator */
    const kbv_report_config cfg = {KBV_DENOM_SAMPLED, NULL};
    KBV_TRY_GOTO(kbv_report_data_load(&path_a, 1, &cfg, &c->a), st, fail);
    KBV_TRY_GOTO(kbv_report_data_load(&path_b, 1, &cfg, &c->b), st, fail);
    KBV_TRY_GOTO(pick_model(&c->a, path_a, model_a, "--model-a", &c->model_a), st, fail);
    KBV_TRY_GOTO(pick_model(&c->b, path_b, model_b, "--model-b", &c->model_b), st, fail);
    KBV_TRY_GOTO(kbv_compare_build(c), st, fail);
    return KBV_OK;
fail:
    kbv_compare_free(c);
    return st;
}

void kbv_compare_free(kbv_comparison *c)
{
    kbv_report_data_free(&c->a);
    kbv_report_data_free(&c->b);
    for (int p = 0; p < KBV_PROTO_COUNT; p++)
        free(c->rows[p]);
    memset(c, 0, sizeof *c);
}

/* ---- writing ------------------------------------------------------------- */

static void verdict_text(const kbv_compare_side *s, kbv_protocol p, char *buf, size_t cap)
{
    if (!s->sample)
        snprintf(buf, cap, "-");
    else if (s->correct)
        snprintf(buf, cap, "correct");
    else
        snprintf(buf, cap, "%s", kbv_fail_kind_name(s->sample->fail[p]));
}

/* "0.512 ms ± 0.004" (sd) or "0.512 ms IQR 0.010" (strict). */
static void time_text(const kbv_compare_side *s, kbv_protocol p, bool ascii, char *buf,
                      size_t cap)
{
    char t[32], sp[32];
    if (!isfinite(s->t_ms)) {
        snprintf(buf, cap, "-");
        return;
    }
    kbv_report_fmt_ms(s->t_ms, t, sizeof t);
    if (!isfinite(s->spread_ms))
        snprintf(buf, cap, "%s (no spread)", t);
    else if (p == KBV_PROTO_STRICT)
        snprintf(buf, cap, "%s IQR %s", t, kbv_report_fmt_ms(s->spread_ms, sp, sizeof sp));
    else
        snprintf(buf, cap, "%s %s %s", t, ascii ? "+-" : "\xC2\xB1",
                 kbv_report_fmt_ms(s->spread_ms, sp, sizeof sp));
}

static void change_text(const kbv_compare_row *r, char *buf, size_t cap)
{
    if ((r->change == KBV_CHANGE_FASTER || r->change == KBV_CHANGE_SLOWER) && r->a.t_ms > 0 &&
        r->b.t_ms > 0)
        snprintf(buf, cap, "B %s %.2fx%s", r->change == KBV_CHANGE_FASTER ? "faster" : "slower",
                 r->change == KBV_CHANGE_FASTER ? r->a.t_ms / r->b.t_ms : r->b.t_ms / r->a.t_ms,
                 r->noise_known ? "" : " (noise unknown)");
    else if (r->change == KBV_CHANGE_SAME)
        snprintf(buf, cap, "no change (within noise)");
    else
        snprintf(buf, cap, "%s", kbv_change_name(r->change));
}

static void counts_line(FILE *f, const kbv_comparison *c, kbv_protocol p)
{
    static const kbv_change order[] = {KBV_CHANGE_FIXED, KBV_CHANGE_BROKEN, KBV_CHANGE_FASTER,
                                       KBV_CHANGE_SLOWER, KBV_CHANGE_SAME, KBV_CHANGE_UNTIMED,
                                       KBV_CHANGE_BOTH_WRONG, KBV_CHANGE_ONLY_A,
                                       KBV_CHANGE_ONLY_B};
    fprintf(f, "%d problems:", c->n_rows);
    bool first = true;
    for (size_t i = 0; i < sizeof order / sizeof order[0]; i++) {
        int n = c->counts[p][order[i]];
        if (!n)
            continue;
        fprintf(f, "%s %d %s", first ? "" : ",", n, kbv_change_name(order[i]));
        first = false;
    }
    fputs(first ? " none\n" : "\n", f);
}

static void header_lines(FILE *f, const kbv_comparison *c, bool md)
{
    const char *dev_a = c->a.device, *dev_b = c->b.device;
    fprintf(f, "A = %s (model %s%s%s), B = %s (model %s%s%s)\n", c->path_a, md ? "`" : "",
            c->a.models[c->model_a], md ? "`" : "", c->path_b, md ? "`" : "",
            c->b.models[c->model_b], md ? "`" : "");
    fputs(md ? "\n" : "", f);
    fprintf(f, "Chosen sample per problem: the fastest correct one. Noise: the recorded sd "
               "(standard, verified) or IQR / 1.349 (strict); |tA - tB| <= 2 sqrt(sA^2 + sB^2) "
               "is no change.\n");
    if (strcmp(dev_a, dev_b))
        fprintf(f, "%sNote: A ran on %s and B on %s: kernel times are not comparable across "
                   "devices; compare the speedups.\n",
                md ? "\n" : "", dev_a, dev_b);
}

void kbv_compare_print(FILE *f, const kbv_comparison *c, kbv_protocol p)
{
    char va[32], vb[32], ta[64], tb[64], sa[32], sb[32], ch[64];
    fprintf(f, "\nkbv compare, %s protocol (vs %s)\n", kbv_protocol_name(p),
            kbv_report_baseline_name(p));
    header_lines(f, c, false);
    fprintf(f, "\n%-8s %-11s %-11s %-26s %-26s %8s %8s  %s\n", "problem", "A", "B",
            "A t_kernel", "B t_kernel", "A speed", "B speed", "change");
    for (int i = 0; i < c->n_rows; i++) {
        const kbv_compare_row *r = &c->rows[p][i];
        verdict_text(&r->a, p, va, sizeof va);
        verdict_text(&r->b, p, vb, sizeof vb);
        time_text(&r->a, p, true, ta, sizeof ta);
        time_text(&r->b, p, true, tb, sizeof tb);
        change_text(r, ch, sizeof ch);
        fprintf(f, "%-8s %-11s %-11s %-26s %-26s %8s %8s  %s\n", r->key, va, vb, ta, tb,
                kbv_report_fmt_ratio(r->a.speedup, true, sa, sizeof sa),
                kbv_report_fmt_ratio(r->b.speedup, true, sb, sizeof sb), ch);
    }
    fputc('\n', f);
    counts_line(f, c, p);
}

kbv_status kbv_compare_markdown(FILE *f, const kbv_comparison *c)
{
    char va[32], vb[32], ta[64], tb[64], sa[32], sb[32], ch[64];
    fputs("# kbv compare\n\n", f);
    header_lines(f, c, true);
    for (int p = 0; p < KBV_PROTO_COUNT; p++) {
        fprintf(f, "\n## %s (vs %s)\n\n", kbv_protocol_name((kbv_protocol)p),
                kbv_report_baseline_name((kbv_protocol)p));
        counts_line(f, c, (kbv_protocol)p);
        fputs("\n| problem | A | B | A t_kernel | B t_kernel | A speedup | B speedup | change |\n"
              "|---|---|---|--:|--:|--:|--:|---|\n",
              f);
        for (int i = 0; i < c->n_rows; i++) {
            const kbv_compare_row *r = &c->rows[p][i];
            verdict_text(&r->a, (kbv_protocol)p, va, sizeof va);
            verdict_text(&r->b, (kbv_protocol)p, vb, sizeof vb);
            time_text(&r->a, (kbv_protocol)p, false, ta, sizeof ta);
            time_text(&r->b, (kbv_protocol)p, false, tb, sizeof tb);
            change_text(r, ch, sizeof ch);
            fprintf(f, "| %s | %s | %s | %s | %s | %s | %s | %s |\n", r->key, va, vb, ta, tb,
                    kbv_report_fmt_ratio(r->a.speedup, false, sa, sizeof sa),
                    kbv_report_fmt_ratio(r->b.speedup, false, sb, sizeof sb), ch);
        }
    }
    if (ferror(f))
        return kbv_fail(KBV_ERR_IO, "writing the comparison failed");
    return KBV_OK;
}
