/* The report page's tables: the summary, the pooled and ranked views, every
 * metric, the per-sample numbers, the decompositions, failures and flags,
 * and each model's per-problem results. Every table sorts by a click on a
 * header (the page's script); the numbers are the report data's. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/attribution.h"
#include "report/judge_view.h"
#include "report/html_parts.h"
#include "report/report_tables.h"

/* ---- summary and metrics tables ------------------------------------------------ */

static void write_summary(FILE *f, const kbv_report_data *d)
{
    char a[32], b[32], c[32], e[32];
    fputs("<section id=\"summary\"><h2>Summary: the three protocols side by side</h2>\n"
          "<p class=\"note\"><b>problems</b>: ", f);
    esc(f, kbv_denominator_text(d->denominator));
    fprintf(f, " (<code>--denominator %s</code>)", kbv_denominator_name(d->denominator));
    fputs("; a problem's result "
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
    fputs("<table class=\"sortable\" id=\"t-summary\"><thead><tr>"
          "<th rowspan=\"2\" data-col=\"0\">model</th><th rowspan=\"2\" data-col=\"1\">level</th>"
          "<th rowspan=\"2\" data-col=\"2\">problems</th>",
          f);
    char base[48];
    for (int p = 0; p < KBV_PROTO_COUNT; p++)
        fprintf(f, "<th colspan=\"4\" class=\"p%d\">%s (vs %s)</th>", p,
                kbv_protocol_name((kbv_protocol)p),
                kbv_report_baseline_label(d, (kbv_protocol)p, base, sizeof base));
    fputs("</tr><tr>", f);
    static const char *const cols[] = {"correct", "speedup", "Fast@1", "fallback"};
    char cls[8];
    for (int p = 0; p < KBV_PROTO_COUNT; p++)
        for (int k = 0; k < 4; k++) {
            snprintf(cls, sizeof cls, "p%d", p);
            th_sort(f, 3 + 4 * p + k, cls, cols[k]);
        }
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
        fputs(" (", f);
        esc(f, d->metrics.degenerate_from);
        fputs(").</p>\n", f);
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
          "problems solved with speedup &gt; p. <b>mem-up %</b>: solved problems whose chosen "
          "sample's peak is above the baseline's, over the solved problems (the paper's "
          "&ldquo;kernels that increase peak memory&rdquo;). <b>compiled %</b>: problems with a "
          "sample that compiled.</p>\n",
          f);
    char base[48];
    for (int p = 0; p < KBV_PROTO_COUNT; p++) {
        fprintf(f, "<h3>%s (baseline %s)</h3>\n<table class=\"sortable\" id=\"t-metrics-%s\">"
                   "<thead><tr><th>model</th><th>level</th>"
                   "<th>problems</th><th>samples</th><th>compiled %%</th><th>correct</th>"
                   "<th>correct %%</th><th>speedup</th><th>fallback</th>",
                kbv_protocol_name((kbv_protocol)p),
                kbv_report_baseline_label(d, (kbv_protocol)p, base, sizeof base),
                kbv_protocol_name((kbv_protocol)p));
        for (int k = 0; k < KBV_FAST_COUNT; k++)
            fprintf(f, "<th>Fast@%g</th>", kbv_fast_thresholds[k]);
        fputs("<th>mem eff</th><th>mem-eff %</th><th>mem-up %</th><th>SOL</th></tr></thead>"
              "<tbody>\n", f);
        for (int i = 0; i < d->n_rows; i++) {
            const kbv_group_metrics *g = &d->metrics.groups[d->rows[i]];
            const kbv_proto_metrics *pm = &g->p[p];
            fprintf(f, "<tr%s>", g->level == 0 ? " class=\"all\"" : "");
            group_cells(f, g, kbv_report_model_index(d, g->model));
            td_int(f, g->n_problems);
            td_int(f, g->n_samples);
            td_num(f, kbv_report_fmt_pct(g->compiled_pct, b, sizeof b));
            td_int(f, pm->n_correct);
            td_num(f, kbv_report_fmt_pct(pm->correct_pct, b, sizeof b));
            td_num(f, kbv_report_fmt_ratio(pm->speedup, false, b, sizeof b));
            td_num(f, kbv_report_fmt_ratio(pm->fallback, false, b, sizeof b));
            for (int k = 0; k < KBV_FAST_COUNT; k++)
                td_num(f, kbv_report_fmt_pct(pm->fast_pct[k], b, sizeof b));
            td_num(f, kbv_report_fmt_ratio(pm->mem_eff, false, b, sizeof b));
            td_num(f, kbv_report_fmt_pct(pm->mem_eff_pct, b, sizeof b));
            td_num(f, kbv_report_fmt_pct(pm->mem_increased_pct, b, sizeof b));
            td_num(f, kbv_report_fmt_frac(pm->sol_fraction, b, sizeof b));
            fputs("</tr>\n", f);
        }
        fputs("</tbody></table>\n", f);
    }
    fputs("</section>\n", f);
}

static void write_pooled(FILE *f, const kbv_report_data *d)
{
    char b[32];
    fputs("<section id=\"pooled\"><h2>Pooled over all levels</h2>\n<p class=\"note\">Each "
          "model over every level it has records of, as the paper's overall table.</p>\n"
          "<table class=\"sortable\" id=\"t-pooled\"><thead><tr><th rowspan=\"2\" data-col=\"0\">"
          "model</th><th rowspan=\"2\" data-col=\"1\">problems</th>", f);
    char base[48];
    for (int p = 0; p < KBV_PROTO_COUNT; p++)
        fprintf(f, "<th colspan=\"6\" class=\"p%d\">%s (vs %s)</th>", p,
                kbv_protocol_name((kbv_protocol)p),
                kbv_report_baseline_label(d, (kbv_protocol)p, base, sizeof base));
    fputs("</tr><tr>", f);
    static const char *const cols[] = {"speedup", "correct %", "Fast@1", "mem eff", "mem-eff %",
                                       "mem-up %"};
    char cls[8];
    for (int p = 0; p < KBV_PROTO_COUNT; p++)
        for (int k = 0; k < 6; k++) {
            snprintf(cls, sizeof cls, "p%d", p);
            th_sort(f, 2 + 6 * p + k, cls, cols[k]);
        }
    fputs("</tr></thead><tbody>\n", f);
    for (int i = 0; i < d->metrics.n; i++) {
        const kbv_group_metrics *g = &d->metrics.groups[i];
        if (g->level != 0)
            continue;
        fprintf(f, "<tr><td><a href=\"#problems-m%d\">", kbv_report_model_index(d, g->model));
        esc(f, g->model);
        fputs("</a></td>", f);
        td_int(f, g->n_problems);
        for (int p = 0; p < KBV_PROTO_COUNT; p++) {
            const kbv_proto_metrics *pm = &g->p[p];
            td_num(f, kbv_report_fmt_ratio(pm->speedup, false, b, sizeof b));
            td_num(f, kbv_report_fmt_pct(pm->correct_pct, b, sizeof b));
            td_num(f, kbv_report_fmt_pct(pm->fast_pct[KBV_FAST_HEADLINE], b, sizeof b));
            td_num(f, kbv_report_fmt_ratio(pm->mem_eff, false, b, sizeof b));
            td_num(f, kbv_report_fmt_pct(pm->mem_eff_pct, b, sizeof b));
            td_num(f, kbv_report_fmt_pct(pm->mem_increased_pct, b, sizeof b));
        }
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table>\n</section>\n", f);
}

static void write_per_sample(FILE *f, const kbv_report_data *d)
{
    char b[48];
    fputs("<section id=\"per-sample\"><h2>Per sample</h2>\n<p class=\"note\">Sample index s "
          "alone: sample s of every problem, a problem without one counting as failed, as the "
          "paper's <code>benchmark_eval_analysis.py</code>; mean &plusmn; std (numpy's, ddof 0) "
          "over the indices, an index with no correct problem counting speedup 0 as there. "
          "Then each index's compiled and correct %.</p>\n", f);
    char base[48];
    for (int p = 0; p < KBV_PROTO_COUNT; p++) {
        fprintf(f, "<h3>%s (baseline %s)</h3>\n<table class=\"sortable\" "
                   "id=\"t-per-sample-%s\"><thead><tr><th>model</th><th>level</th>"
                   "<th>indices</th><th>compiled %%</th><th>correct %%</th><th>speedup</th>"
                   "<th>fallback</th>",
                kbv_protocol_name((kbv_protocol)p),
                kbv_report_baseline_label(d, (kbv_protocol)p, base, sizeof base),
                kbv_protocol_name((kbv_protocol)p));
        for (int k = 0; k < KBV_FAST_COUNT; k++)
            fprintf(f, "<th>Fast@%g</th>", kbv_fast_thresholds[k]);
        fputs("<th>each index: compiled / correct %</th></tr></thead><tbody>\n", f);
        for (int i = 0; i < d->n_rows; i++) {
            const kbv_group_metrics *g = &d->metrics.groups[d->rows[i]];
            const kbv_per_sample *ps = &g->spread[p];
            fprintf(f, "<tr%s>", g->level == 0 ? " class=\"all\"" : "");
            group_cells(f, g, kbv_report_model_index(d, g->model));
            td_int(f, ps->n);
            td_num(f, kbv_report_fmt_mean_sd(ps->compiled_pct, true, b, sizeof b));
            td_num(f, kbv_report_fmt_mean_sd(ps->correct_pct, true, b, sizeof b));
            td_num(f, kbv_report_fmt_mean_sd(ps->speedup, false, b, sizeof b));
            td_num(f, kbv_report_fmt_mean_sd(ps->fallback, false, b, sizeof b));
            for (int k = 0; k < KBV_FAST_COUNT; k++)
                td_num(f, kbv_report_fmt_mean_sd(ps->fast_pct[k], true, b, sizeof b));
            fputs("<td>", f);
            for (int s = 0; s < g->n_sample_ids; s++) {
                const kbv_sample_metrics *sm = &g->per_sample[s];
                char c1[16], c2[16];
                fprintf(f, "%s#%d: %s / %s", s ? "; " : "", sm->sample,
                        kbv_report_fmt_pct(sm->compiled_pct, c1, sizeof c1),
                        kbv_report_fmt_pct(sm->p[p].correct_pct, c2, sizeof c2));
            }
            fputs("</td></tr>\n", f);
        }
        fputs("</tbody></table>\n", f);
    }
    fputs("</section>\n", f);
}

static void write_decomposition(FILE *f, const kbv_report_data *d)
{
    static const kbv_condition conds[] = {KBV_COND_FP32_STD, KBV_COND_FP32_HIDDEN,
                                          KBV_COND_TF32_STD, KBV_COND_TF32_HIDDEN};
    char b[32];
    fputs("<section id=\"decomposition\"><h2>The two corrections, decomposed</h2>\n"
          "<p class=\"note\">The same samples judged with each baseline (fp32: PyTorch's "
          "defaults; tf32) and each test set (standard: the base draws; hidden: with the hidden "
          "configs, as verified); kernel times from the standard timing, as the paper's. Per "
          "cell: correct %, speedup (geometric mean over the solved problems), Fast@1; then "
          "each speedup over fp32+standard's.</p>\n<table class=\"sortable\" id=\"t-decomposition\">"
          "<thead><tr><th rowspan=\"2\" data-col=\"0\">model</th><th rowspan=\"2\" data-col=\"1\">"
          "level</th><th rowspan=\"2\" data-col=\"2\">problems</th>", f);
    for (size_t k = 0; k < sizeof conds / sizeof conds[0]; k++)
        fprintf(f, "<th colspan=\"3\" class=\"p%d\">%s</th>", k < 2 ? 0 : 1,
                kbv_condition_name(conds[k]));
    fputs("<th colspan=\"3\">of fp32+standard's speedup</th></tr><tr>", f);
    int col = 3;
    for (size_t k = 0; k < sizeof conds / sizeof conds[0]; k++) {
        th_sort(f, col++, NULL, "correct");
        th_sort(f, col++, NULL, "speedup");
        th_sort(f, col++, NULL, "Fast@1");
    }
    th_sort(f, col++, NULL, "TF32 alone");
    th_sort(f, col++, NULL, "hidden alone");
    th_sort(f, col++, NULL, "both");
    fputs("</tr></thead><tbody>\n", f);
    for (int i = 0; i < d->n_rows; i++) {
        const kbv_group_metrics *g = &d->metrics.groups[d->rows[i]];
        fprintf(f, "<tr%s>", g->level == 0 ? " class=\"all\"" : "");
        group_cells(f, g, kbv_report_model_index(d, g->model));
        td_int(f, g->n_problems);
        for (size_t k = 0; k < sizeof conds / sizeof conds[0]; k++) {
            const kbv_proto_metrics *pm = &g->cond[conds[k]];
            td_num(f, kbv_report_fmt_pct(pm->correct_pct, b, sizeof b));
            td_num(f, kbv_report_fmt_ratio(pm->speedup, false, b, sizeof b));
            td_num(f, kbv_report_fmt_pct(pm->fast_pct[KBV_FAST_HEADLINE], b, sizeof b));
        }
        double base = g->cond[KBV_COND_FP32_STD].speedup;
        for (int k = 1; k < 4; k++)
            td_num(f, kbv_report_fmt_ratio(g->cond[conds[k]].speedup / base, false, b, sizeof b));
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table>\n", f);
}

static void write_attribution(FILE *f, const kbv_report_data *d)
{
    kbv_attribution at;
    if (kbv_attribution_compute(d, &at) != KBV_OK) {
        kbv_clear_error();
        return;
    }
    fputs("<h3 id=\"attribution\">Per-problem attribution</h3>\n<p class=\"note\">A problem is "
          "affected by the TF32 baseline when some model's speedup on it drops by 50% or more "
          "from the fp32 to the tf32 baseline, and by the hidden tests when some model solves "
          "it under the standard tests but under none of its samples with the hidden configs; "
          "both need the model to have solved it under fp32 + standard (the paper's appendix "
          "table, a union over the models).</p>\n<table><thead><tr><th>level</th>", f);
    for (int k = KBV_ATTR_TF32_ONLY; k <= KBV_ATTR_BOTH; k++)
        fprintf(f, "<th>%s</th>", kbv_attribution_class_name((kbv_attribution_class)k));
    fputs("<th>neither</th><th>total</th></tr></thead><tbody>\n", f);
    for (int r = 0; r < at.n_rows; r++) {
        const kbv_attribution_row *row = &at.rows[r];
        char level[16], cell[48];
        level_text(row->level, level, sizeof level);
        fprintf(f, "<tr%s><td>%s</td>", row->level ? "" : " class=\"all\"", level);
        static const int order[] = {KBV_ATTR_TF32_ONLY, KBV_ATTR_HIDDEN_ONLY, KBV_ATTR_BOTH,
                                    KBV_ATTR_NEITHER};
        for (int k = 0; k < 4; k++) {
            snprintf(cell, sizeof cell, "%d (%.1f%%)", row->count[order[k]],
                     row->total ? 100.0 * row->count[order[k]] / row->total : 0.0);
            td_num(f, cell);
        }
        td_int(f, row->total);
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table>\n<p class=\"note\">Affected problems: ", f);
    int shown = 0;
    for (int q = 0; q < d->n_problems; q++) {
        const kbv_attribution_problem *ap = &at.problems[q];
        if (ap->cls <= KBV_ATTR_NEITHER)
            continue;
        int m = ap->tf32_model >= 0 ? ap->tf32_model : ap->hidden_model;
        char text[96], a[16];
        snprintf(text, sizeof text, "%s %s", d->problems[q].key,
                 kbv_attribution_class_name((kbv_attribution_class)ap->cls));
        if (isfinite(ap->drop)) {
            snprintf(a, sizeof a, " (drop %.0f%%)", 100 * ap->drop);
            strncat(text, a, sizeof text - strlen(text) - 1);
        }
        fputs(shown++ ? ", " : "", f);
        fprintf(f, "<a href=\"#p-m%d-L%d-%d\">", m, d->problems[q].level, d->problems[q].id);
        esc(f, text);
        fputs("</a>", f);
    }
    fputs(shown ? ".</p>\n" : "none.</p>\n", f);
    kbv_attribution_free(&at);
}

static void write_tolerance(FILE *f, const kbv_report_data *d)
{
    char b[32];
    fputs("<h3 id=\"tolerance\">Tolerance: 1e-3 against 1e-4</h3>\n<p class=\"note\">Verified "
          "(tf32 baseline, hidden tests) at the published tolerance and at 1e-4. Only records "
          "of the leaderboard gate (<code>kbv eval --gate leaderboard</code>) judge 1e-4, as the "
          "paper's stored hidden runs did: there a sample promoted to correct at 1e-3 fails at "
          "1e-4. <code>-</code>: the records cannot say.</p>\n<table class=\"sortable\" "
          "id=\"t-tolerance\"><thead><tr><th>model</th>"
          "<th>level</th><th>problems</th><th>correct % @1e-3</th><th>speedup @1e-3</th>"
          "<th>correct % @1e-4</th><th>speedup @1e-4</th></tr></thead><tbody>\n", f);
    for (int i = 0; i < d->n_rows; i++) {
        const kbv_group_metrics *g = &d->metrics.groups[d->rows[i]];
        const kbv_proto_metrics *lo = &g->cond[KBV_COND_TF32_HIDDEN],
                                *hi = &g->cond[KBV_COND_TF32_HIDDEN_1E4];
        fprintf(f, "<tr%s>", g->level == 0 ? " class=\"all\"" : "");
        group_cells(f, g, kbv_report_model_index(d, g->model));
        td_int(f, g->n_problems);
        td_num(f, kbv_report_fmt_pct(lo->correct_pct, b, sizeof b));
        td_num(f, kbv_report_fmt_ratio(lo->speedup, false, b, sizeof b));
        td_num(f, kbv_report_fmt_pct(hi->correct_pct, b, sizeof b));
        td_num(f, kbv_report_fmt_ratio(hi->speedup, false, b, sizeof b));
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table>\n</section>\n", f);
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

/* ---- per-problem results ------------------------------------------------------- */

static void result_cell(FILE *f, const kbv_report_data *d, const kbv_report_cell *c,
                        kbv_protocol p)
{
    char text[64], a[32];
    const kbv_report_sample *s = &d->samples[c->shown[p]];
    /* sorts by the speedup; a failure below every speedup */
    double v = c->best[p] >= 0 ? kbv_report_speedup(&s->rec->proto[p]) : -1;
    if (isfinite(v))
        fprintf(f, "<td data-v=\"%.9g\">", v);
    else
        fputs("<td>", f);
    if (c->best[p] >= 0) {
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
        fprintf(f, "</h3>\n<table class=\"sortable\" id=\"t-problems-m%d\"><thead><tr>"
                   "<th>problem</th><th>samples</th>", m);
        for (int p = 0; p < KBV_PROTO_COUNT; p++)
            fprintf(f, "<th class=\"p%d\">%s</th>", p, kbv_protocol_name((kbv_protocol)p));
        fputs("</tr></thead><tbody>\n", f);
        for (int q = 0; q < d->n_problems; q++) {
            const kbv_report_cell *c = kbv_report_cell_of(d, m, q);
            if (c->n == 0)
                continue;
            fprintf(f, "<tr id=\"p-m%d-L%d-%d\"><td data-v=\"%d\">%s%s</td><td>", m,
                    d->problems[q].level, d->problems[q].id, q, d->problems[q].key,
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


static void write_torch(FILE *f, const kbv_report_data *d)
{
    if (d->torch.n == 0)
        return;
    char b[32];
    fputs("<section id=\"torch\"><h2>Against PyTorch eager and torch.compile</h2>\n"
          "<p class=\"note\">What a practitioner would run instead: the problem's PyTorch "
          "module in eager mode and through torch.compile (inductor, default mode), timed on "
          "this device by <code>bench/torch_baselines.py</code> in the protocol's precision "
          "mode. Over the problems measured: the geometric-mean speedup of the solved ones and "
          "the share solved faster. A kernel that beats eager can still lose to compile. Times "
          "from <code>", f);
    esc(f, d->torch.source);
    fputs("</code>.</p>\n<table class=\"sortable\" id=\"t-torch\"><thead><tr><th>model</th>"
          "<th>level</th><th>protocol</th><th>measured</th><th>vs eager</th>"
          "<th>Fast@1 vs eager</th><th>measured (compile)</th><th>vs compile</th>"
          "<th>Fast@1 vs compile</th></tr></thead><tbody>\n", f);
    for (int i = 0; i < d->n_rows; i++)
        for (int p = 0; p < KBV_PROTO_COUNT; p++) {
            const kbv_group_metrics *g = &d->metrics.groups[d->rows[i]];
            kbv_torch_metrics tm;
            kbv_torch_metrics_of(d, &d->torch, d->rows[i], (kbv_protocol)p, &tm);
            fprintf(f, "<tr%s>", g->level == 0 ? " class=\"all\"" : "");
            group_cells(f, g, kbv_report_model_index(d, g->model));
            fprintf(f, "<td>%s</td>", kbv_protocol_name((kbv_protocol)p));
            td_int(f, tm.eager_measured);
            td_num(f, kbv_report_fmt_ratio(tm.vs_eager, false, b, sizeof b));
            td_num(f, kbv_report_fmt_pct(tm.fast1_eager, b, sizeof b));
            td_int(f, tm.compile_measured);
            td_num(f, kbv_report_fmt_ratio(tm.vs_compile, false, b, sizeof b));
            td_num(f, kbv_report_fmt_pct(tm.fast1_compile, b, sizeof b));
            fputs("</tr>\n", f);
        }
    fputs("</tbody></table>\n</section>\n", f);
}

static void write_judge(FILE *f, const kbv_report_data *d)
{
    if (d->judges.n == 0)
        return;
    kbv_judge_table t;
    if (kbv_judge_table_compute(d, &d->judges, &t) != KBV_OK) {
        kbv_clear_error();
        return;
    }
    fputs("<section id=\"judge\"><h2>The judge beside strict</h2>\n<p class=\"note\">A "
          "model's reading of each judged sample's source (<code>kbv judge</code>, the paper's "
          "judge prompt) against strict's verdict: flagged = a *_HACK label. Each sample's "
          "details show the judge's label and reasons.</p>\n<table class=\"sortable\" "
          "id=\"t-judge\"><thead><tr><th>model</th><th>level</th><th>judge</th><th>judged</th>"
          "<th>flagged</th><th>uncertain</th><th>strict fails</th><th>both</th>"
          "<th>judge only</th><th>strict only</th><th>neither</th><th>agreement %</th></tr>"
          "</thead><tbody>\n", f);
    for (int i = 0; i < t.n; i++) {
        const kbv_judge_row *r = &t.rows[i];
        char level[16], a[16];
        level_text(r->level, level, sizeof level);
        fprintf(f, "<tr%s><td>", r->level ? "" : " class=\"all\"");
        esc(f, r->model);
        fprintf(f, "</td><td>%s</td><td>", level);
        esc(f, r->judge);
        fputs("</td>", f);
        int v[] = {r->judged, r->flagged, r->uncertain, r->strict_fails, r->both, r->judge_only,
                   r->strict_only, r->neither};
        for (size_t k = 0; k < sizeof v / sizeof v[0]; k++)
            td_int(f, v[k]);
        td_num(f, kbv_report_fmt_pct(r->judged ? 100.0 * (r->both + r->neither) / r->judged : NAN,
                                     a, sizeof a));
        fputs("</tr>\n", f);
    }
    fputs("</tbody></table>\n</section>\n", f);
    kbv_judge_table_free(&t);
}

/* ---- ranks ------------------------------------------------------------------- */

typedef struct ranked {
    const kbv_group_metrics *g;
    kbv_protocol p;
} ranked;

/* Fast@1 first (the headline), then the speedup, then the model's name. */
static int cmp_rank(const void *pa, const void *pb)
{
    const ranked *a = pa, *b = pb;
    const kbv_proto_metrics *x = &a->g->p[a->p], *y = &b->g->p[b->p];
    double fx = isfinite(x->fast_pct[KBV_FAST_HEADLINE]) ? x->fast_pct[KBV_FAST_HEADLINE] : -1,
           fy = isfinite(y->fast_pct[KBV_FAST_HEADLINE]) ? y->fast_pct[KBV_FAST_HEADLINE] : -1;
    if (fx != fy)
        return fx > fy ? -1 : 1;
    double sx = isfinite(x->speedup) ? x->speedup : 0, sy = isfinite(y->speedup) ? y->speedup : 0;
    if (sx != sy)
        return sx > sy ? -1 : 1;
    return strcmp(a->g->model, b->g->model);
}

/* Per level, then pooled: the models ranked under the focus protocol. */
static void write_ranks(FILE *f, const kbv_report_data *d, kbv_protocol focus)
{
    char b[32];
    int levels[64], nl = 0;
    for (int i = 0; i < d->metrics.n; i++) {
        int l = d->metrics.groups[i].level;
        bool seen = false;
        for (int k = 0; k < nl && !seen; k++)
            seen = levels[k] == l;
        if (!seen && nl < 63)
            levels[nl++] = l;
    }
    /* ascending, the pooled group (level 0) last */
    for (int i = 1; i < nl; i++)
        for (int k = i; k > 0 && (levels[k - 1] == 0 || (levels[k] != 0 && levels[k - 1] > levels[k]));
             k--) {
            int t = levels[k];
            levels[k] = levels[k - 1];
            levels[k - 1] = t;
        }
    ranked *r = malloc((size_t)(d->metrics.n + 1) * sizeof *r);
    if (!r)
        return;
    fprintf(f, "<section id=\"rank\"><h2>Ranks per level (%s)</h2>\n<p class=\"note\">Per "
               "level, and over each model's levels pooled: the models ranked by Fast@1 under "
               "%s (the headline), then by speedup. Each table sorts by any column.</p>\n",
            kbv_protocol_name(focus), kbv_protocol_name(focus));
    for (int k = 0; k < nl; k++) {
        int n = 0;
        for (int i = 0; i < d->metrics.n; i++)
            if (d->metrics.groups[i].level == levels[k])
                r[n++] = (ranked){&d->metrics.groups[i], focus};
        qsort(r, (size_t)n, sizeof *r, cmp_rank);
        if (levels[k])
            fprintf(f, "<h3>Level %d</h3>\n<table class=\"sortable\" id=\"t-rank-L%d\">",
                    levels[k], levels[k]);
        else
            fputs("<h3>All levels pooled</h3>\n<table class=\"sortable\" id=\"t-rank-all\">", f);
        fputs("<thead><tr><th>rank</th><th>model</th><th>problems</th><th>Fast@1</th>"
              "<th>correct %</th><th>speedup</th><th>fallback</th><th>mem eff</th>"
              "<th>mem-eff %</th></tr></thead><tbody>\n", f);
        for (int i = 0; i < n; i++) {
            const kbv_proto_metrics *pm = &r[i].g->p[focus];
            fprintf(f, "<tr><td class=\"n\" data-v=\"%d\">%d</td><td><a href=\"#problems-m%d\">",
                    i + 1, i + 1, kbv_report_model_index(d, r[i].g->model));
            esc(f, r[i].g->model);
            fputs("</a></td>", f);
            td_int(f, r[i].g->n_problems);
            td_num(f, kbv_report_fmt_pct(pm->fast_pct[KBV_FAST_HEADLINE], b, sizeof b));
            td_num(f, kbv_report_fmt_pct(pm->correct_pct, b, sizeof b));
            td_num(f, kbv_report_fmt_ratio(pm->speedup, false, b, sizeof b));
            td_num(f, kbv_report_fmt_ratio(pm->fallback, false, b, sizeof b));
            td_num(f, kbv_report_fmt_ratio(pm->mem_eff, false, b, sizeof b));
            td_num(f, kbv_report_fmt_pct(pm->mem_eff_pct, b, sizeof b));
            fputs("</tr>\n", f);
        }
        fputs("</tbody></table>\n", f);
    }
    fputs("</section>\n", f);
    free(r);
}

/* ---- the sections ---------------------------------------------------------------- */

void kbv_html_summary(FILE *f, const kbv_report_data *d) { write_summary(f, d); }

void kbv_html_metric_tables(FILE *f, const kbv_report_data *d, kbv_protocol focus)
{
    write_pooled(f, d);
    write_ranks(f, d, focus);
    write_metrics(f, d);
    write_per_sample(f, d);
    write_decomposition(f, d);
    write_attribution(f, d);
    write_tolerance(f, d);
    write_torch(f, d);
    write_judge(f, d);
}

void kbv_html_failures(FILE *f, const kbv_report_data *d) { write_failures(f, d); }

void kbv_html_problems(FILE *f, const kbv_report_data *d) { write_problems(f, d); }
