/* One sample's details on the report page: its verdicts beside the
 * candidate's source and the problem's PyTorch reference, every draw with
 * the command that reproduces its inputs, and the compiler output. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "core/vendor_libs.h"
#include "dist/draws.h"
#include "report/html_parts.h"
#include "report/judge_view.h"
#include "report/report_tables.h"
#include "report/sources.h"

/* The most of a candidate's source the page shows. */
#define SOURCE_SHOWN_MAX (64 * 1024)

/* ---- one sample's details -------------------------------------------------------- */

void kbv_html_dump_command(const kbv_record *r, const char *problem_key, const char *draw_label,
                           char *buf, size_t cap)
{
    kbv_draw_plan plan;
    const kbv_problem *def = kbv_problem_find(problem_key);
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

/* 1 pass, 0 fail, -1 not judged (`unjudged` says why: "skipped", "not evaluated") */
static void pass_cell(FILE *f, int pass, const char *unjudged)
{
    if (pass < 0)
        fprintf(f, "<td class=\"muted\">%s</td>", unjudged);
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
        pass_cell(f, dr->std_pass, "skipped");
        pass_cell(f, dr->strict_pass, "not evaluated");
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
        bool failed = dr->std_pass == 0 || dr->strict_pass == 0;
        fprintf(f, "%s\n", failed ? "   # failed here" : "");
    }
    fputs("</pre>\n", f);
}

/* Where the sources are looked for: the record's path as it is (relative
 * to where kbv eval ran), then beside each results file (report/sources.h). */
typedef struct source_dirs {
    const char *const *inputs;
    int n;
} source_dirs;

static void write_source(FILE *f, const kbv_record *r, const source_dirs *sd)
{
    fputs("<details class=\"code\"><summary>candidate source</summary>", f);
    kbv_source src;
    if (kbv_source_find(r, sd->inputs, sd->n, &src) != KBV_OK) {
        kbv_clear_error();   /* out of memory for one file: the page goes on without it */
        src.state = KBV_SOURCE_MISSING;
    }
    if (src.state == KBV_SOURCE_FOUND) {
        fputs("<pre>", f);
        kbv_xml_text_n(f, src.bytes, src.len < SOURCE_SHOWN_MAX ? src.len : SOURCE_SHOWN_MAX);
        fputs("</pre>", f);
        if (src.len > SOURCE_SHOWN_MAX)
            fprintf(f, "<p class=\"muted\">the first %d KiB of %zu bytes</p>",
                    SOURCE_SHOWN_MAX / 1024, src.len);
        fputs("<p class=\"meta\">from <code>", f);
        esc(f, src.where);
        fputs("</code></p>", f);
    } else if (src.state == KBV_SOURCE_CHANGED) {
        fputs("<p class=\"muted\">not shown: <code>", f);
        esc(f, src.where);
        fputs("</code> is not the source evaluated (", f);
        esc(f, src.why);
        fputs(")</p>", f);
    } else if (!r->file[0]) {
        fputs("<p class=\"muted\">the record names no file</p>", f);
    } else {
        fputs("<p class=\"muted\">not shown: <code>", f);
        esc(f, r->file);
        fputs("</code> is not here (run kbv report where kbv eval ran, or beside the results "
              "file)</p>", f);
    }
    kbv_source_free(&src);
    fputs("</details>\n", f);
}

/* The problem's PyTorch reference at the record's size, as kbv show --torch
 * prints it (the prompt's reference). */
static void write_reference(FILE *f, const kbv_record *r, const char *key)
{
    fputs("<details class=\"code\"><summary>PyTorch reference</summary>", f);
    char *text = NULL;
    if (kbv_reference_render(r, key, &text) == KBV_OK) {
        fputs("<pre>", f);
        esc(f, text);
        fprintf(f, "</pre><p class=\"meta\"><code>kbv show %s%s --torch</code></p>", key,
                !strcmp(r->size, "small") ? " --small" : "");
    } else {
        kbv_clear_error();
        fprintf(f, "<p class=\"muted\">%s is not a problem this kbv defines</p>", key);
    }
    free(text);
    fputs("</details>\n", f);
}

static void write_sample(FILE *f, const kbv_report_data *d, const kbv_report_sample *s,
                         const source_dirs *sd)
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
    char libs[64];
    fputs(" &middot; vendor libraries ", f);
    esc(f, kbv_vendor_format(r->vendor_libs, libs, sizeof libs));
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
    const kbv_judge_record *js[16];
    int nj = kbv_judgements_of(&d->judges, r, js, 16);
    for (int k = 0; k < nj; k++) {
        bool flag = kbv_judge_label_flags(js[k]->label);
        fputs("<p class=\"meta\">judge <code>", f);
        esc(f, js[k]->judge);
        fprintf(f, "</code>: <span class=\"%s\">%s</span>", flag ? "bad" : "ok",
                kbv_judge_label_name(js[k]->label));
        if (js[k]->pattern[0]) {
            fputs(" &mdash; ", f);
            esc(f, js[k]->pattern);
        }
        if (js[k]->explanation[0] || js[k]->error[0]) {
            fputs(". ", f);
            esc(f, js[k]->explanation[0] ? js[k]->explanation : js[k]->error);
        }
        fputs("</p>\n", f);
    }
    /* the drill-down: the code beside the verdicts */
    fputs("<div class=\"code2\">\n", f);
    write_source(f, r, sd);
    write_reference(f, r, q->key);
    fputs("</div>\n", f);
    write_draws(f, d, s);
    if (r->compile.log[0]) {
        fprintf(f, "<details%s><summary>compiler output (%zu bytes)</summary><pre>",
                r->compile.ok ? "" : " open", strlen(r->compile.log));
        esc(f, r->compile.log);
        fputs("</pre></details>\n", f);
    }
    fputs("</section>\n", f);
}

void kbv_html_samples(FILE *f, const kbv_report_data *d, const kbv_html_opts *o)
{
    const source_dirs sd = {o->inputs, o->n_inputs};
    fputs("<section id=\"samples\"><h2>Samples</h2>\n<p class=\"note\">Every sample's "
          "verdicts beside the candidate's source (the file the record names, shown when its "
          "SHA-256 is the one evaluated) and the problem's PyTorch reference, then its draws. "
          "Times: mean &plusmn; standard deviation (standard, verified) or "
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
                write_sample(f, d, &d->samples[i], &sd);
    }
    fputs("</section>\n", f);
}

