#include "report/html.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "dist/draws.h"
#include "kbv_build_config.h"
#include "report/figures.h"
#include "report/report_tables.h"
#include "report/svg.h"

#define esc(f, s) kbv_xml_text((f), (s))

static const char css[] =
    "body{font-family:'DejaVu Sans',Helvetica,Arial,sans-serif;font-size:14px;color:#1a1a1a;"
    "background:#fafafa;margin:0;padding:0 14px 40px;max-width:1360px;box-sizing:border-box}"
    "h1{font-size:24px;margin:14px 0 4px}h2{font-size:19px;margin:26px 0 8px;padding-top:6px;"
    "border-top:2px solid #d0d0d0}h3{font-size:16px;margin:18px 0 6px}"
    "h4{font-size:14px;margin:0 0 4px}"
    "nav a{margin-right:14px}a{color:#0a58a8;text-decoration:none}a:hover{text-decoration:"
    "underline}"
    ".meta{color:#555;margin:2px 0 6px}.note{color:#444;max-width:1100px;margin:4px 0 10px}"
    "table{border-collapse:collapse;margin:6px 0 14px;background:#fff}"
    "th,td{border:1px solid #d4d4d4;padding:3px 7px;vertical-align:top}"
    "th{background:#eef1f5;font-weight:600}td.n{text-align:right;font-variant-numeric:"
    "tabular-nums;white-space:nowrap}"
    "th.p0{background:#ececec}th.p1{background:#dce9f5}th.p2{background:#f8e3d6}"
    "tr.all td{font-weight:600;background:#f6f6f6}"
    ".ok{color:#17672c;font-weight:600}.bad{color:#a31c1c;font-weight:600}"
    ".muted{color:#888}"
    ".figs{display:flex;flex-wrap:wrap;gap:12px;align-items:flex-start}"
    "figure{margin:0;background:#fff;border:1px solid #d4d4d4;padding:6px;width:min-content;"
    "max-width:100%}"
    "figure .plot{overflow-x:auto}figcaption{font-size:12.5px;color:#333;padding:4px 2px 0}"
    "figure svg{display:block}"
    "code,pre{font-family:'DejaVu Sans Mono',Menlo,Consolas,monospace;font-size:12.5px}"
    "pre{background:#f3f3f3;border:1px solid #ddd;padding:6px;white-space:pre-wrap;"
    "word-break:break-all;max-height:320px;overflow:auto}"
    ".sample{background:#fff;border:1px solid #d4d4d4;padding:8px 10px;margin:10px 0;"
    "overflow-x:auto}"
    ".sample:target{border:2px solid #0a58a8;background:#f5f9ff}"
    "td.reason{max-width:520px}";

/* ---- small pieces ---------------------------------------------------------- */

static void td_num(FILE *f, const char *text)
{
    fputs("<td class=\"n\">", f);
    esc(f, text);
    fputs("</td>", f);
}

static void td_int(FILE *f, int v) { fprintf(f, "<td class=\"n\">%d</td>", v); }

static void level_text(int level, char *buf, size_t cap)
{
    if (level)
        snprintf(buf, cap, "L%d", level);
    else
        snprintf(buf, cap, "all");
}

static void anchor_href(FILE *f, const char *anchor, const char *text)
{
    fprintf(f, "<a href=\"#%s\">", anchor);
    esc(f, text);
    fputs("</a>", f);
}

/* ---- summary and metrics tables ------------------------------------------------ */

static void group_cells(FILE *f, const kbv_group_metrics *g, int model_index)
{
    char level[16];
    level_text(g->level, level, sizeof level);
    fprintf(f, "<td><a href=\"#problems-m%d\">", model_index);
    esc(f, g->model);
    fprintf(f, "</a></td><td>%s</td>", level);
}

static void write_summary(FILE *f, const kbv_report_data *d)
{
    char a[32], b[32], c[32], e[32];
    fputs("<section id=\"summary\"><h2>Summary: the three protocols side by side</h2>\n"
          "<p class=\"note\">Per model, the problems it has samples for; a problem's result "
          "is its fastest correct sample (best of k). <b>correct</b>: % of problems with a "
          "correct sample. <b>speedup</b>: geometric mean of t_baseline / t_kernel over the "
          "correctly solved problems. <b>Fast@1</b>: % of all problems solved correctly and "
          "faster than the baseline. <b>fallback</b>: geometric mean over all problems of "
          "max(1, speedup), failures counting 1 (what keeping the baseline whenever the "
          "kernel fails or loses gives).</p>\n",
          f);
    if (d->n_rows == 0) {
        fputs("<p>No records.</p></section>\n", f);
        return;
    }
    fputs("<table><thead><tr><th rowspan=\"2\">model</th><th rowspan=\"2\">level</th>"
          "<th rowspan=\"2\">problems</th>",
          f);
    for (int p = 0; p < KBV_PROTO_COUNT; p++) {
        char base[48];
        fprintf(f, "<th colspan=\"4\" class=\"p%d\">%s (vs ", p,
                kbv_protocol_name((kbv_protocol)p));
        esc(f, kbv_report_baseline_label(d, (kbv_protocol)p, base, sizeof base));
        fputs(")</th>", f);
    }
    fputs("</tr><tr>", f);
    for (int p = 0; p < KBV_PROTO_COUNT; p++)
        fprintf(f, "<th class=\"p%d\">correct</th><th class=\"p%d\">speedup</th>"
                   "<th class=\"p%d\">Fast@1</th><th class=\"p%d\">fallback</th>",
                p, p, p, p);
    fputs("</tr></thead><tbody>\n", f);
    for (int i = 0; i < d->n_rows; i++) {
        const kbv_group_metrics *g = &d->metrics.groups[d->rows[i]];
        fprintf(f, "<tr%s>", g->level == 0 ? " class=\"all\"" : "");
        group_cells(f, g, kbv_report_model_index(d, g->model));
        td_int(f, g->n_problems);
        for (int p = 0; p < KBV_PROTO_COUNT; p++) {
            const kbv_proto_metrics *pm = &g->p[p];
            snprintf(e, sizeof e, "%s%%", kbv_report_fmt_pct(pm->correct_pct, a, sizeof a));
            td_num(f, isfinite(pm->correct_pct) ? e : "-");
            td_num(f, kbv_report_fmt_ratio(pm->speedup, false, b, sizeof b));
            snprintf(e, sizeof e, "%s%%",
                     kbv_report_fmt_pct(pm->fast_pct[KBV_FAST_HEADLINE], c, sizeof c));
            td_num(f, isfinite(pm->fast_pct[KBV_FAST_HEADLINE]) ? e : "-");
            td_num(f, kbv_report_fmt_ratio(pm->fallback, false, a, sizeof a));
        }
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table>\n", f);
    if (d->metrics.n_excluded) {
        fputs("<p class=\"note\">Excluded from every aggregate as degenerate (output constant "
              "or independent of an input):",
              f);
        for (int i = 0; i < d->metrics.n_excluded; i++)
            fprintf(f, "%s %s", i ? "," : "", d->metrics.excluded[i]);
        fputs(".</p>\n", f);
    }
    fputs("</section>\n", f);
}

static void write_metrics(FILE *f, const kbv_report_data *d)
{
    char b[32];
    fputs("<section id=\"metrics\"><h2>All metrics</h2>\n<p class=\"note\"><b>mem eff</b>: "
          "geometric mean over correct problems of m_baseline / m_kernel (peak device bytes). "
          "<b>mem-eff %</b>: problems whose chosen sample's peak is below the baseline's, over "
          "all problems. <b>SOL</b>: geometric mean of speed-of-light time / t_kernel, SOL = "
          "max(FLOPs / peak rate, minimum bytes / bandwidth) on an H200. Fast@p: % of all "
          "problems solved with speedup &gt; p.</p>\n",
          f);
    for (int p = 0; p < KBV_PROTO_COUNT; p++) {
        char base[48];
        fprintf(f, "<h3>%s (baseline ", kbv_protocol_name((kbv_protocol)p));
        esc(f, kbv_report_baseline_label(d, (kbv_protocol)p, base, sizeof base));
        fputs(")</h3>\n<table><thead><tr><th>model</th><th>level</th>"
              "<th>problems</th><th>samples</th><th>correct</th><th>correct %</th>"
              "<th>speedup</th><th>fallback</th>",
              f);
        for (int k = 0; k < KBV_FAST_COUNT; k++)
            fprintf(f, "<th>Fast@%g</th>", kbv_fast_thresholds[k]);
        fputs("<th>mem eff</th><th>mem-eff %</th><th>SOL</th></tr></thead><tbody>\n", f);
        for (int i = 0; i < d->n_rows; i++) {
            const kbv_group_metrics *g = &d->metrics.groups[d->rows[i]];
            const kbv_proto_metrics *pm = &g->p[p];
            fprintf(f, "<tr%s>", g->level == 0 ? " class=\"all\"" : "");
            group_cells(f, g, kbv_report_model_index(d, g->model));
            td_int(f, g->n_problems);
            td_int(f, g->n_samples);
            td_int(f, pm->n_correct);
            td_num(f, kbv_report_fmt_pct(pm->correct_pct, b, sizeof b));
            td_num(f, kbv_report_fmt_ratio(pm->speedup, false, b, sizeof b));
            td_num(f, kbv_report_fmt_ratio(pm->fallback, false, b, sizeof b));
            for (int k = 0; k < KBV_FAST_COUNT; k++)
                td_num(f, kbv_report_fmt_pct(pm->fast_pct[k], b, sizeof b));
            td_num(f, kbv_report_fmt_ratio(pm->mem_eff, false, b, sizeof b));
            td_num(f, kbv_report_fmt_pct(pm->mem_eff_pct, b, sizeof b));
            td_num(f, kbv_report_fmt_frac(pm->sol_fraction, b, sizeof b));
            fputs("</tr>\n", f);
        }
        fputs("</tbody></table>\n", f);
    }
    fputs("</section>\n", f);
}

static bool any_flag(const kbv_report_data *d, int k)
{
    for (int g = 0; g < d->metrics.n; g++)
        for (int p = 0; p < KBV_PROTO_COUNT; p++)
            if (d->tally[g][p].flags[k])
                return true;
    return false;
}

static void write_failures(FILE *f, const kbv_report_data *d)
{
    fputs("<section id=\"failures\"><h2>Failures by reason and audit flags</h2>\n"
          "<p class=\"note\">Samples (not problems): every failing sample is counted once per "
          "protocol under its reason. wrong@DIST is wrong output, first on that distribution "
          "(base: the problem's own generators; D1-D4 the paper's; D5-D8 strict's).</p>\n",
          f);
    int cols = 0;
    for (int k = 1; k < KBV_FAIL_COUNT; k++)
        cols += kbv_report_fail_seen(d, (kbv_fail_kind)k);
    if (cols == 0) {
        fputs("<p>No sample failed.</p>\n", f);
    } else {
        fputs("<table><thead><tr><th>model</th><th>level</th><th>protocol</th><th>samples</th>"
              "<th>failed</th>",
              f);
        for (int k = 1; k < KBV_FAIL_COUNT; k++)
            if (kbv_report_fail_seen(d, (kbv_fail_kind)k))
                fprintf(f, "<th title=\"%s\">%s</th>", kbv_fail_kind_text((kbv_fail_kind)k),
                        kbv_fail_kind_name((kbv_fail_kind)k));
        fputs("</tr></thead><tbody>\n", f);
        for (int i = 0; i < d->n_rows; i++)
            for (int p = 0; p < KBV_PROTO_COUNT; p++) {
                const kbv_group_metrics *g = &d->metrics.groups[d->rows[i]];
                const kbv_report_tally *t = &d->tally[d->rows[i]][p];
                fprintf(f, "<tr%s>", g->level == 0 ? " class=\"all\"" : "");
                group_cells(f, g, kbv_report_model_index(d, g->model));
                fprintf(f, "<td>%s</td>", kbv_protocol_name((kbv_protocol)p));
                td_int(f, t->samples);
                td_int(f, t->failed);
                for (int k = 1; k < KBV_FAIL_COUNT; k++)
                    if (kbv_report_fail_seen(d, (kbv_fail_kind)k))
                        td_int(f, t->fail[k]);
                fputs("</tr>\n", f);
            }
        fputs("</tbody></table>\n", f);
    }
    int flags = 0;
    for (int k = 0; k < d->n_flags; k++)
        flags += any_flag(d, k);
    fputs("<h3>Audit flags (samples carrying each)</h3>\n", f);
    if (flags == 0) {
        fputs("<p>No audit flag was raised.</p>\n</section>\n", f);
        return;
    }
    fputs("<table><thead><tr><th>model</th><th>level</th><th>protocol</th>", f);
    for (int k = 0; k < d->n_flags; k++)
        if (any_flag(d, k)) {
            fputs("<th>", f);
            esc(f, d->flag_names[k]);
            fputs("</th>", f);
        }
    fputs("</tr></thead><tbody>\n", f);
    for (int i = 0; i < d->n_rows; i++)
        for (int p = 0; p < KBV_PROTO_COUNT; p++) {
            const kbv_group_metrics *g = &d->metrics.groups[d->rows[i]];
            fprintf(f, "<tr%s>", g->level == 0 ? " class=\"all\"" : "");
            group_cells(f, g, kbv_report_model_index(d, g->model));
            fprintf(f, "<td>%s</td>", kbv_protocol_name((kbv_protocol)p));
            for (int k = 0; k < d->n_flags; k++)
                if (any_flag(d, k))
                    td_int(f, d->tally[d->rows[i]][p].flags[k]);
            fputs("</tr>\n", f);
        }
    fputs("</tbody></table>\n</section>\n", f);
}

/* ---- figures ------------------------------------------------------------------ */

static kbv_status write_figures(FILE *f, const kbv_report_data *d, kbv_protocol focus)
{
    kbv_figure figs[64];
    int n = kbv_figures_plan(d, focus, figs, 64);
    fputs("<section id=\"figures\"><h2>Figures</h2>\n<div class=\"figs\">\n", f);
    for (int i = 0; i < n; i++) {
        /* the heat map starts a row of its own */
        if (figs[i].kind == KBV_FIG_HEATMAP)
            fputs("</div>\n<div class=\"figs\">\n", f);
        fprintf(f, "<figure id=\"fig-%s\"><div class=\"plot\">\n", figs[i].name);
        KBV_TRY(kbv_figure_write(f, d, &figs[i], false));
        fputs("</div><figcaption><b>", f);
        esc(f, figs[i].title);
        fputs(".</b> ", f);
        esc(f, figs[i].caption);
        fputs("</figcaption></figure>\n", f);
    }
    fputs("</div>\n</section>\n", f);
    return KBV_OK;
}

/* ---- per-problem results ------------------------------------------------------- */

static void result_cell(FILE *f, const kbv_report_data *d, const kbv_report_cell *c,
                        kbv_protocol p)
{
    char text[64], a[32];
    const kbv_report_sample *s = &d->samples[c->shown[p]];
    fputs("<td>", f);
    if (c->best[p] >= 0) {
        double v = kbv_report_speedup(&s->rec->proto[p]);
        snprintf(text, sizeof text, "%s", isfinite(v) ? kbv_report_fmt_ratio(v, false, a, sizeof a)
                                                      : "correct (untimed)");
        fprintf(f, "<span class=\"ok\">");
        anchor_href(f, s->anchor, text);
        fprintf(f, "</span>");
    } else {
        fprintf(f, "<span class=\"bad\">");
        anchor_href(f, s->anchor, kbv_fail_kind_text(s->fail[p]));
        fprintf(f, "</span>");
    }
    fputs("</td>", f);
}

static void write_problems(FILE *f, const kbv_report_data *d)
{
    fputs("<section id=\"problems\"><h2>Per-problem results</h2>\n<p class=\"note\">Per "
          "protocol: the speedup of the fastest correct sample, or why every sample failed "
          "(the one that passed most draws). Each links to that sample's details.</p>\n",
          f);
    for (int m = 0; m < d->n_models; m++) {
        fprintf(f, "<h3 id=\"problems-m%d\">", m);
        esc(f, d->models[m]);
        fputs("</h3>\n<table><thead><tr><th>problem</th><th>samples</th>", f);
        for (int p = 0; p < KBV_PROTO_COUNT; p++)
            fprintf(f, "<th class=\"p%d\">%s</th>", p, kbv_protocol_name((kbv_protocol)p));
        fputs("</tr></thead><tbody>\n", f);
        for (int q = 0; q < d->n_problems; q++) {
            const kbv_report_cell *c = kbv_report_cell_of(d, m, q);
            if (c->n == 0)
                continue;
            fprintf(f, "<tr id=\"p-m%d-L%d-%d\"><td>%s%s</td><td>", m, d->problems[q].level,
                    d->problems[q].id, d->problems[q].key,
                    d->problems[q].degenerate ? " <span class=\"muted\">(excluded)</span>" : "");
            for (int i = c->first; i < c->first + c->n; i++) {
                char num[16];
                snprintf(num, sizeof num, "%d", d->samples[i].rec->sample);
                if (i > c->first)
                    fputc(' ', f);
                anchor_href(f, d->samples[i].anchor, num);
            }
            fputs("</td>", f);
            for (int p = 0; p < KBV_PROTO_COUNT; p++)
                result_cell(f, d, c, (kbv_protocol)p);
            fputs("</tr>\n", f);
        }
        fputs("</tbody></table>\n", f);
    }
    fputs("</section>\n", f);
}

/* ---- one sample's details -------------------------------------------------------- */

void kbv_html_dump_command(const kbv_record *r, const char *problem_key, const char *draw_label,
                           char *buf, size_t cap)
{
    kbv_draw_plan plan;
    const kbv_problem_def *def = kbv_problem_find(problem_key);
    plan.n = 0;
    if (def)
        kbv_draw_plan_make(r->seed, def, &plan);
    /* kbv dump names a base draw "base", the others by their label */
    const char *dist = kbv_dist_slot(draw_label) == 0 ? "base" : draw_label;
    unsigned long long seed = 0;
    bool found = false;
    for (int i = 0; i < plan.n && !found; i++)
        if (!strcmp(plan.d[i].label, draw_label)) {
            seed = (unsigned long long)plan.d[i].draw.seed;
            found = true;
        }
    char dir[64];
    snprintf(dir, sizeof dir, "dump-%s-%s", problem_key, draw_label);
    for (char *c = dir; *c; c++)
        if (*c == '/' || *c == '#')
            *c = '_';
    const char *size = !strcmp(r->size, "full")    ? " --full"
                       : !strcmp(r->size, "small") ? " --small"
                                                   : "";
    if (found)
        snprintf(buf, cap, "kbv dump %s%s --dist %s --seed %llu --out %s", problem_key, size, dist,
                 seed, dir);
    else
        snprintf(buf, cap, "(no draw '%s' in kbv's plan)", draw_label);
}

static void fmt_time(const kbv_proto_result *r, kbv_protocol p, char *buf, size_t cap)
{
    char t[32], s[32];
    kbv_report_fmt_ms(r->t_kernel_ms, t, sizeof t);
    if (!isfinite(r->t_kernel_ms))
        snprintf(buf, cap, "-");
    else if (isfinite(r->t_kernel_spread_ms))
        snprintf(buf, cap, "%s %s %s %s", t, p == KBV_PROTO_STRICT ? "median, IQR" : "\xC2\xB1",
                 kbv_report_fmt_ms(r->t_kernel_spread_ms, s, sizeof s),
                 p == KBV_PROTO_STRICT ? "" : "sd");
    else
        snprintf(buf, cap, "%s (spread not recorded)", t);
}

static void write_verdicts(FILE *f, const kbv_report_sample *s)
{
    const kbv_record *r = s->rec;
    char a[48], b[48], c[160];
    fputs("<table><thead><tr><th>protocol</th><th>verdict</th><th>reason</th><th>draws</th>"
          "<th>t_kernel</th><th>t_baseline</th><th>speedup</th><th>memory kernel / baseline</th>"
          "<th>SOL</th><th>flags</th></tr></thead><tbody>\n",
          f);
    for (int p = 0; p < KBV_PROTO_COUNT; p++) {
        const kbv_proto_result *pr = &r->proto[p];
        fprintf(f, "<tr><td>%s (vs %s)</td>", kbv_protocol_name((kbv_protocol)p),
                kbv_precision_get(r->precision)->baseline[p]);
        if (pr->correct)
            fputs("<td class=\"ok\">correct</td>", f);
        else
            fprintf(f, "<td class=\"bad\">%s</td>", kbv_fail_kind_text(s->fail[p]));
        fputs("<td class=\"reason\">", f);
        esc(f, pr->reason);
        fprintf(f, "</td><td class=\"n\">%d / %d", pr->draws_passed, pr->draws_total);
        if (pr->draws_skipped)
            fprintf(f, " (%d skipped)", pr->draws_skipped);
        fputs("</td>", f);
        fmt_time(pr, (kbv_protocol)p, c, sizeof c);
        td_num(f, c);
        kbv_report_fmt_ms(pr->t_baseline_ms, a, sizeof a);
        if (p == KBV_PROTO_STRICT && isfinite(pr->t_fp32_strict_ms)) {
            snprintf(c, sizeof c, "%s (fp32-strict %s)", a,
                     kbv_report_fmt_ms(pr->t_fp32_strict_ms, b, sizeof b));
            td_num(f, c);
        } else {
            td_num(f, a);
        }
        td_num(f, kbv_report_fmt_ratio(kbv_report_speedup(pr), false, a, sizeof a));
        kbv_report_fmt_bytes(pr->mem_kernel_bytes, a, sizeof a);
        kbv_report_fmt_bytes(pr->mem_baseline_bytes, b, sizeof b);
        snprintf(c, sizeof c, "%s / %s", a, b);
        td_num(f, c);
        td_num(f, kbv_report_fmt_frac(pr->sol_fraction, a, sizeof a));
        fputs("<td>", f);
        for (int k = 0; k < pr->n_flags; k++) {
            if (k)
                fputs(", ", f);
            esc(f, pr->flags[k]);
        }
        fputs("</td></tr>\n", f);
    }
    fputs("</tbody></table>\n", f);
}

static void pass_cell(FILE *f, int pass)
{
    if (pass < 0)
        fputs("<td class=\"muted\">skipped</td>", f);
    else if (pass)
        fputs("<td class=\"ok\">pass</td>", f);
    else
        fputs("<td class=\"bad\">fail</td>", f);
}

static void write_draws(FILE *f, const kbv_report_data *d, const kbv_report_sample *s)
{
    const kbv_record *r = s->rec;
    const char *key = d->problems[s->problem].key;
    char a[48], b[48], c[600];
    if (r->n_draws == 0) {
        fputs("<p class=\"muted\">No draw was run.</p>\n", f);
        return;
    }
    fputs("<table><thead><tr><th>draw</th><th>allclose (standard, verified)</th>"
          "<th>strict</th><th>outside allclose</th><th>max |diff|</th><th>rel L2 / budget</th>"
          "<th>max error / budget</th><th>unjudged</th><th>not written</th>"
          "<th>first mismatch</th></tr></thead><tbody>\n",
          f);
    for (int k = 0; k < r->n_draws; k++) {
        const kbv_draw_record *dr = &r->draws[k];
        fputs("<tr><td>", f);
        esc(f, dr->dist);
        fputs("</td>", f);
        pass_cell(f, dr->std_pass);
        pass_cell(f, dr->strict_pass);
        snprintf(c, sizeof c, "%lld", (long long)dr->allclose_fail);
        td_num(f, c);
        kbv_report_fmt_frac(dr->max_abs_diff, a, sizeof a);
        td_num(f, a);
        snprintf(c, sizeof c, "%s / %s", kbv_report_fmt_frac(dr->rel_l2, a, sizeof a),
                 kbv_report_fmt_frac(dr->budget_rel_l2, b, sizeof b));
        td_num(f, c);
        snprintf(c, sizeof c, "%s / %s", kbv_report_fmt_frac(dr->max_err, a, sizeof a),
                 kbv_report_fmt_frac(dr->budget_max_err, b, sizeof b));
        td_num(f, c);
        snprintf(c, sizeof c, "%lld", (long long)dr->unjudged);
        td_num(f, c);
        snprintf(c, sizeof c, "%lld", (long long)dr->poison_left);
        td_num(f, c);
        fputs("<td>", f);
        if (dr->first_bad_ndim >= 0) {
            fputs("<code>[", f);
            for (int i = 0; i < dr->first_bad_ndim; i++)
                fprintf(f, "%s%lld", i ? "," : "", (long long)dr->first_bad[i]);
            fputs("]</code>", f);
        }
        fputs("</td></tr>\n", f);
    }
    fputs("</tbody></table>\n<p class=\"meta\">Each draw's inputs, reproduced:</p><pre>", f);
    for (int k = 0; k < r->n_draws; k++) {
        const kbv_draw_record *dr = &r->draws[k];
        kbv_html_dump_command(r, key, dr->dist, c, sizeof c);
        esc(f, c);
        bool failed = dr->std_pass == 0 || !dr->strict_pass;
        fprintf(f, "%s\n", failed ? "   # failed here" : "");
    }
    fputs("</pre>\n", f);
}

static void write_sample(FILE *f, const kbv_report_data *d, const kbv_report_sample *s)
{
    const kbv_record *r = s->rec;
    const kbv_report_problem *q = &d->problems[s->problem];
    fprintf(f, "<section class=\"sample\" id=\"%s\"><h4>", s->anchor);
    esc(f, d->models[s->model]);
    fprintf(f, " &middot; %s &middot; sample %d", q->key, r->sample);
    if (q->degenerate)
        fputs(" <span class=\"muted\">(problem excluded as degenerate)</span>", f);
    fprintf(f, " <a href=\"#p-m%d-L%d-%d\">&uarr; problem</a></h4>\n<p class=\"meta\">file <code>",
            s->model, q->level, q->id);
    esc(f, r->file[0] ? r->file : "-");
    fputs("</code> &middot; source sha256 <code>", f);
    kbv_xml_text_n(f, r->source_sha256[0] ? r->source_sha256 : "-", 16);
    fputs("</code> &middot; device ", f);
    esc(f, r->device[0] ? r->device : "-");
    fputs(" &middot; size ", f);
    esc(f, r->size[0] ? r->size : "-");
    fputs(" &middot; precision ", f);
    esc(f, kbv_precision_get(r->precision)->name);
    fprintf(f, " &middot; run seed %llu &middot; compile ", (unsigned long long)r->seed);
    if (r->compile.ok)
        fputs("<span class=\"ok\">ok</span>", f);
    else
        fputs("<span class=\"bad\">failed</span>", f);
    if (isfinite(r->compile.seconds))
        fprintf(f, " (%.1f s%s)", r->compile.seconds, r->compile.cached ? ", cached" : "");
    fputs("</p>\n", f);
    if (r->has_fault) {
        fputs("<p class=\"bad\">fault: ", f);
        esc(f, r->fault_kind);
        fputs(" &mdash; ", f);
        esc(f, r->fault_reason);
        fputs("</p>\n", f);
    }
    write_verdicts(f, s);
    write_draws(f, d, s);
    if (r->compile.log[0]) {
        fprintf(f, "<details%s><summary>compiler output (%zu bytes)</summary><pre>",
                r->compile.ok ? "" : " open", strlen(r->compile.log));
        esc(f, r->compile.log);
        fputs("</pre></details>\n", f);
    }
    fputs("</section>\n", f);
}

static void write_samples(FILE *f, const kbv_report_data *d)
{
    fputs("<section id=\"samples\"><h2>Samples</h2>\n<p class=\"note\">Every sample's "
          "verdicts and draws. Times: mean &plusmn; standard deviation (standard, verified) or "
          "median and interquartile range (strict). Memory: peak device bytes. Each "
          "<code>kbv dump</code> command writes one draw's inputs exactly as the evaluation "
          "drew them (the seed is the draw's, derived from the run seed in the record), with "
          "parameters and the float64 oracle output, as .npy.</p>\n",
          f);
    for (int m = 0; m < d->n_models; m++) {
        fputs("<h3>", f);
        esc(f, d->models[m]);
        fputs("</h3>\n", f);
        for (int i = 0; i < d->n_samples; i++)
            if (d->samples[i].model == m)
                write_sample(f, d, &d->samples[i]);
    }
    fputs("</section>\n", f);
}

/* ---- the page ---------------------------------------------------------------------- */

kbv_status kbv_html_write(FILE *f, const kbv_report_data *d, const kbv_html_opts *o)
{
    const char *title = o->title ? o->title : "kbv report";
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<link rel=\"icon\" href=\"data:,\">\n<title>",
          f);
    esc(f, title);
    fprintf(f, "</title>\n<style>%s</style>\n</head>\n<body>\n<header><h1>", css);
    esc(f, title);
    fputs("</h1>\n<p class=\"meta\">Results: ", f);
    for (int i = 0; i < o->n_inputs; i++) {
        if (i)
            fputs(", ", f);
        fputs("<code>", f);
        esc(f, o->inputs[i]);
        fputs("</code>", f);
    }
    fprintf(f, " &middot; %d records, %d samples, %d models, %d problems &middot; device ",
            d->records.n, d->n_samples, d->n_models, d->n_problems);
    esc(f, d->device);
    fputs(" &middot; size ", f);
    esc(f, d->size);
    fputs(" &middot; precision ", f);
    esc(f, d->precision);
    fprintf(f, " &middot; kbv %s</p>\n", KBV_VERSION);
    if (d->malformed)
        fprintf(f, "<p class=\"bad\">%d malformed line%s skipped (first: ", d->malformed,
                d->malformed == 1 ? "" : "s");
    if (d->malformed) {
        esc(f, d->malformed_where);
        fputs(").</p>\n", f);
    }
    fputs("<nav><a href=\"#summary\">Summary</a><a href=\"#figures\">Figures</a>"
          "<a href=\"#metrics\">All metrics</a><a href=\"#failures\">Failures and flags</a>"
          "<a href=\"#problems\">Per problem</a><a href=\"#samples\">Samples</a></nav>\n"
          "</header>\n",
          f);
    write_summary(f, d);
    KBV_TRY(write_figures(f, d, o->focus));
    write_metrics(f, d);
    write_failures(f, d);
    write_problems(f, d);
    write_samples(f, d);
    fputs("</body>\n</html>\n", f);
    if (ferror(f))
        return kbv_fail(KBV_ERR_IO, "writing the HTML report failed");
    return KBV_OK;
}
