#include "report/report_tables.h"

#include <math.h>
#include <string.h>

const char *kbv_report_baseline_name(kbv_protocol p)
{
    return (unsigned)p < KBV_PROTO_COUNT ? kbv_precision_get(KBV_PRECISION_FP32)->baseline[p]
                                         : "?";
}

const char *kbv_report_baseline_label(const kbv_report_data *d, kbv_protocol p, char *buf,
                                      size_t cap)
{
    kbv_precision prec = KBV_PRECISION_FP32;
    if (!strcmp(d->precision, "mixed")) {
        snprintf(buf, cap, "%s; @bf16 rows %s", kbv_report_baseline_name(p),
                 kbv_precision_get(KBV_PRECISION_BF16)->baseline[p]);
        return buf;
    }
    if (kbv_precision_parse(d->precision, &prec) != KBV_OK)
        kbv_clear_error();   /* "-": no records */
    snprintf(buf, cap, "%s", kbv_precision_get(prec)->baseline[p]);
    return buf;
}

/* ---- numbers ------------------------------------------------------------ */

const char *kbv_report_fmt_pct(double x, char *buf, size_t cap)
{
    snprintf(buf, cap, isfinite(x) ? "%.1f" : "-", x);
    return buf;
}

const char *kbv_report_fmt_ratio(double x, bool ascii, char *buf, size_t cap)
{
    const char *times = ascii ? "x" : "\xC3\x97";
    if (!isfinite(x))
        snprintf(buf, cap, "-");
    else if (x >= 100)
        snprintf(buf, cap, "%.0f%s", x, times);
    else if (x >= 0.01)
        snprintf(buf, cap, "%.2f%s", x, times);
    else
        snprintf(buf, cap, "%.1e%s", x, times);
    return buf;
}

const char *kbv_report_fmt_frac(double x, char *buf, size_t cap)
{
    if (!isfinite(x))
        snprintf(buf, cap, "-");
    else if (x == 0)
        snprintf(buf, cap, "0");
    else if (x >= 0.001)
        snprintf(buf, cap, "%.3f", x);
    else
        snprintf(buf, cap, "%.1e", x);
    return buf;
}

const char *kbv_report_fmt_ms(double x, char *buf, size_t cap)
{
    if (!isfinite(x))
        snprintf(buf, cap, "-");
    else if (x >= 100)
        snprintf(buf, cap, "%.1f ms", x);
    else if (x >= 0.1)
        snprintf(buf, cap, "%.3f ms", x);
    else
        snprintf(buf, cap, "%.2f us", x * 1000);
    return buf;
}

const char *kbv_report_fmt_bytes(double x, char *buf, size_t cap)
{
    if (!isfinite(x) || x < 0)
        snprintf(buf, cap, "-");
    else if (x >= 1 << 30)
        snprintf(buf, cap, "%.2f GiB", x / (1 << 30));
    else if (x >= 1 << 20)
        snprintf(buf, cap, "%.1f MiB", x / (1 << 20));
    else if (x >= 1 << 10)
        snprintf(buf, cap, "%.1f KiB", x / (1 << 10));
    else
        snprintf(buf, cap, "%.0f B", x);
    return buf;
}

bool kbv_report_fail_seen(const kbv_report_data *d, kbv_fail_kind k)
{
    for (int g = 0; g < d->metrics.n; g++)
        for (int p = 0; p < KBV_PROTO_COUNT; p++)
            if (d->tally[g][p].fail[k])
                return true;
    return false;
}

static bool flag_seen(const kbv_report_data *d, int k)
{
    for (int g = 0; g < d->metrics.n; g++)
        for (int p = 0; p < KBV_PROTO_COUNT; p++)
            if (d->tally[g][p].flags[k])
                return true;
    return false;
}

/* ---- Markdown ----------------------------------------------------------- */

/* Text from a results file inside a Markdown table cell: no markup, no
 * column breaks, no raw HTML. */
static void md_text(FILE *f, const char *s)
{
    for (; *s; s++) {
        switch (*s) {
        case '|': case '\\': case '`': case '*': case '_': case '[': case ']':
            fputc('\\', f);
            fputc(*s, f);
            break;
        case '<': fputs("&lt;", f); break;
        case '>': fputs("&gt;", f); break;
        case '&': fputs("&amp;", f); break;
        case '\n': case '\r': case '\t': fputc(' ', f); break;
        default: fputc(*s, f); break;
        }
    }
}

static void md_level(FILE *f, const kbv_group_metrics *g)
{
    if (g->level)
        fprintf(f, " L%d |", g->level);
    else
        fputs(" all |", f);
}

static void md_group_head(FILE *f, const kbv_group_metrics *g)
{
    fputs("| ", f);
    md_text(f, g->model);
    fputs(" |", f);
    md_level(f, g);
}

static void md_headline(FILE *f, const kbv_report_data *d, const int *order, int n)
{
    char a[32], b[32], c[32];
    fputs("## Headline: the three protocols side by side\n\n"
          "Correct % of problems; speedup = geometric mean of t_baseline / t_kernel over the "
          "correctly solved problems; Fast@1 = % of all problems solved correctly and faster "
          "than the baseline.\n\n| model | level | problems |", f);
    for (int p = 0; p < KBV_PROTO_COUNT; p++) {
        char base[48];
        fprintf(f, " %s correct %% | %s speedup (vs %s) | %s Fast@1 |",
                kbv_protocol_name((kbv_protocol)p), kbv_protocol_name((kbv_protocol)p),
                kbv_report_baseline_label(d, (kbv_protocol)p, base, sizeof base),
                kbv_protocol_name((kbv_protocol)p));
    }
    fputs("\n|---|---|--:|", f);
    for (int p = 0; p < KBV_PROTO_COUNT; p++)
        fputs("--:|--:|--:|", f);
    fputc('\n', f);
    for (int i = 0; i < n; i++) {
        const kbv_group_metrics *g = &d->metrics.groups[order[i]];
        md_group_head(f, g);
        fprintf(f, " %d |", g->n_problems);
        for (int p = 0; p < KBV_PROTO_COUNT; p++) {
            const kbv_proto_metrics *pm = &g->p[p];
            fprintf(f, " %s | %s | %s |", kbv_report_fmt_pct(pm->correct_pct, a, sizeof a),
                    kbv_report_fmt_ratio(pm->speedup, false, b, sizeof b),
                    kbv_report_fmt_pct(pm->fast_pct[KBV_FAST_HEADLINE], c, sizeof c));
        }
        fputc('\n', f);
    }
    fputc('\n', f);
}

static void md_protocol(FILE *f, const kbv_report_data *d, const int *order, int n,
                        kbv_protocol p)
{
    char b[12][32], base[48];
    fprintf(f, "## All metrics: %s (baseline %s)\n\n", kbv_protocol_name(p),
            kbv_report_baseline_label(d, p, base, sizeof base));
    fputs("| model | level | problems | samples | correct | correct % | speedup | fallback |", f);
    for (int k = 0; k < KBV_FAST_COUNT; k++)
        fprintf(f, " Fast@%g %% |", kbv_fast_thresholds[k]);
    fputs(" mem eff | mem-eff % | SOL fraction |\n|---|---|--:|--:|--:|--:|--:|--:|", f);
    for (int k = 0; k < KBV_FAST_COUNT; k++)
        fputs("--:|", f);
    fputs("--:|--:|--:|\n", f);
    for (int i = 0; i < n; i++) {
        const kbv_group_metrics *g = &d->metrics.groups[order[i]];
        const kbv_proto_metrics *pm = &g->p[p];
        md_group_head(f, g);
        fprintf(f, " %d | %d | %d | %s | %s | %s |", g->n_problems, g->n_samples, pm->n_correct,
                kbv_report_fmt_pct(pm->correct_pct, b[0], sizeof b[0]),
                kbv_report_fmt_ratio(pm->speedup, false, b[1], sizeof b[1]),
                kbv_report_fmt_ratio(pm->fallback, false, b[2], sizeof b[2]));
        for (int k = 0; k < KBV_FAST_COUNT; k++)
            fprintf(f, " %s |", kbv_report_fmt_pct(pm->fast_pct[k], b[3], sizeof b[3]));
        fprintf(f, " %s | %s | %s |\n", kbv_report_fmt_ratio(pm->mem_eff, false, b[4], sizeof b[4]),
                kbv_report_fmt_pct(pm->mem_eff_pct, b[5], sizeof b[5]),
                kbv_report_fmt_frac(pm->sol_fraction, b[6], sizeof b[6]));
    }
    fputc('\n', f);
}

static void md_failures(FILE *f, const kbv_report_data *d, const int *order, int n)
{
    fputs("## Failures by reason (samples)\n\n"
          "Every failing sample counted once per protocol, under its reason: compile, load, "
          "returned (non-zero), crash, timeout, cuda (CUDA error), wrong@DIST (wrong output, "
          "first on that distribution), audit, unjudged (no draw could be judged), other.\n\n",
          f);
    bool any = false;
    for (int k = 1; k < KBV_FAIL_COUNT; k++)
        any = any || kbv_report_fail_seen(d, (kbv_fail_kind)k);
    if (!any) {
        fputs("No sample failed.\n\n", f);
        return;
    }
    fputs("| model | level | protocol | samples | failed |", f);
    int cols = 0;
    for (int k = 1; k < KBV_FAIL_COUNT; k++)
        if (kbv_report_fail_seen(d, (kbv_fail_kind)k)) {
            fprintf(f, " %s |", kbv_fail_kind_name((kbv_fail_kind)k));
            cols++;
        }
    fputs("\n|---|---|---|--:|--:|", f);
    for (int c = 0; c < cols; c++)
        fputs("--:|", f);
    fputc('\n', f);
    for (int i = 0; i < n; i++)
        for (int p = 0; p < KBV_PROTO_COUNT; p++) {
            const kbv_report_tally *t = &d->tally[order[i]][p];
            md_group_head(f, &d->metrics.groups[order[i]]);
            fprintf(f, " %s | %d | %d |", kbv_protocol_name((kbv_protocol)p), t->samples,
                    t->failed);
            for (int k = 1; k < KBV_FAIL_COUNT; k++)
                if (kbv_report_fail_seen(d, (kbv_fail_kind)k))
                    fprintf(f, " %d |", t->fail[k]);
            fputc('\n', f);
        }
    fputc('\n', f);
}

static void md_flags(FILE *f, const kbv_report_data *d, const int *order, int n)
{
    fputs("## Audit flags (samples carrying each)\n\n", f);
    int seen = 0;
    for (int k = 0; k < d->n_flags; k++)
        seen += flag_seen(d, k);
    if (!seen) {
        fputs("No audit flag was raised.\n\n", f);
        return;
    }
    fputs("| model | level | protocol |", f);
    for (int k = 0; k < d->n_flags; k++)
        if (flag_seen(d, k)) {
            fputc(' ', f);
            md_text(f, d->flag_names[k]);
            fputs(" |", f);
        }
    fputs("\n|---|---|---|", f);
    for (int c = 0; c < seen; c++)
        fputs("--:|", f);
    fputc('\n', f);
    for (int i = 0; i < n; i++)
        for (int p = 0; p < KBV_PROTO_COUNT; p++) {
            md_group_head(f, &d->metrics.groups[order[i]]);
            fprintf(f, " %s |", kbv_protocol_name((kbv_protocol)p));
            for (int k = 0; k < d->n_flags; k++)
                if (flag_seen(d, k))
                    fprintf(f, " %d |", d->tally[order[i]][p].flags[k]);
            fputc('\n', f);
        }
    fputc('\n', f);
}

kbv_status kbv_report_write_markdown(FILE *f, const kbv_report_data *d,
                                     const kbv_summary_info *info)
{
    const int *order = d->rows, n = d->n_rows;
    fputs("# kbv report\n\nResults: ", f);
    md_text(f, info && info->results_path ? info->results_path : "-");
    fprintf(f, " (%d records). Device: ", info ? info->n_records : d->records.n);
    md_text(f, d->device);
    fputs("; size: ", f);
    md_text(f, d->size);
    fputs("; precision: ", f);
    md_text(f, d->precision);
    if (strcmp(d->precision, "fp32") && strcmp(d->precision, "-"))
        fputs(". Rows named MODEL @bf16 are a bf16 run (--precision bf16): bfloat16 tensors, "
              "allclose 1e-2, every protocol's baseline the bf16 one", f);
    fputs(".\n\nPer model, the problems it has samples for; a problem's result is its fastest "
          "correct sample (best of k). Percentages are over all of those problems.",
          f);
    if (d->metrics.n_excluded) {
        fputs(" Excluded as degenerate:", f);
        for (int i = 0; i < d->metrics.n_excluded; i++)
            fprintf(f, "%s %s", i ? "," : "", d->metrics.excluded[i]);
        fputc('.', f);
    }
    fputs("\n\n", f);
    if (n == 0)
        fputs("No records.\n", f);
    else {
        md_headline(f, d, order, n);
        for (int p = 0; p < KBV_PROTO_COUNT; p++)
            md_protocol(f, d, order, n, (kbv_protocol)p);
        md_failures(f, d, order, n);
        md_flags(f, d, order, n);
    }
    if (ferror(f))
        return kbv_fail(KBV_ERR_IO, "writing the Markdown tables failed");
    return KBV_OK;
}

/* ---- CSV ---------------------------------------------------------------- */

static void csv_text(FILE *f, const char *s)
{
    if (!strpbrk(s, ",\"\n\r")) {
        fputs(s, f);
        return;
    }
    fputc('"', f);
    for (; *s; s++) {
        if (*s == '"')
            fputc('"', f);
        fputc(*s, f);
    }
    fputc('"', f);
}

static void csv_num(FILE *f, double x)
{
    if (isfinite(x))
        fprintf(f, ",%.6g", x);
    else
        fputc(',', f);
}

kbv_status kbv_report_write_csv(FILE *f, const kbv_report_data *d)
{
    const int *order = d->rows, n = d->n_rows;
    fputs("model,level,protocol,baseline,problems,samples,correct,correct_pct,speedup,"
          "fallback_speedup",
          f);
    for (int k = 0; k < KBV_FAST_COUNT; k++)
        fprintf(f, ",fast_%g_pct", kbv_fast_thresholds[k]);
    fputs(",mem_efficiency,mem_efficient_pct,sol_fraction,failed_samples", f);
    for (int k = 1; k < KBV_FAIL_COUNT; k++)
        fprintf(f, ",fail_%s", kbv_fail_kind_name((kbv_fail_kind)k));
    fputs(",flags\n", f);
    for (int i = 0; i < n; i++) {
        const kbv_group_metrics *g = &d->metrics.groups[order[i]];
        for (int p = 0; p < KBV_PROTO_COUNT; p++) {
            const kbv_proto_metrics *pm = &g->p[p];
            const kbv_report_tally *t = &d->tally[order[i]][p];
            csv_text(f, g->model);
            if (g->level)
                fprintf(f, ",%d", g->level);
            else
                fputs(",all", f);
            fprintf(f, ",%s,%s,%d,%d,%d", kbv_protocol_name((kbv_protocol)p),
                    kbv_precision_get(g->precision)->baseline[p], g->n_problems, g->n_samples,
                    pm->n_correct);
            csv_num(f, pm->correct_pct);
            csv_num(f, pm->speedup);
            csv_num(f, pm->fallback);
            for (int k = 0; k < KBV_FAST_COUNT; k++)
                csv_num(f, pm->fast_pct[k]);
            csv_num(f, pm->mem_eff);
            csv_num(f, pm->mem_eff_pct);
            csv_num(f, pm->sol_fraction);
            fprintf(f, ",%d", t->failed);
            for (int k = 1; k < KBV_FAIL_COUNT; k++)
                fprintf(f, ",%d", t->fail[k]);
            /* flags as "name=count" joined by spaces: one column whatever the audits */
            char flags[1024] = "";
            size_t used = 0;
            for (int k = 0; k < d->n_flags && used < sizeof flags; k++)
                if (t->flags[k])
                    used += (size_t)snprintf(flags + used, sizeof flags - used, "%s%s=%d",
                                             used ? " " : "", d->flag_names[k], t->flags[k]);
            fputc(',', f);
            csv_text(f, flags);
            fputc('\n', f);
        }
    }
    if (ferror(f))
        return kbv_fail(KBV_ERR_IO, "writing the CSV table failed");
    return KBV_OK;
}

/* ---- JSON --------------------------------------------------------------- */

static void put(json_t *o, const char *key, json_t *v, int *bad)
{
    if (!v || json_object_set_new(o, key, v))
        *bad = 1;
}

kbv_status kbv_report_summary(const kbv_report_data *d, const kbv_summary_info *info,
                              const char *const *inputs, int n_inputs, json_t **out)
{
    json_t *o = NULL;
    int bad = 0;
    KBV_TRY(kbv_summary_json(&d->metrics, info, &o));
    json_t *in = json_array();
    for (int i = 0; in && i < n_inputs; i++)
        if (json_array_append_new(in, json_string(inputs[i])))
            bad = 1;
    put(o, "inputs", in, &bad);
    json_t *models = json_array();
    for (int i = 0; models && i < d->n_models; i++)
        if (json_array_append_new(models, json_string(d->models[i])))
            bad = 1;
    put(o, "models", models, &bad);
    put(o, "failures_are",
        json_string("samples failing each protocol, by reason (docs/REPORTS.md)"), &bad);
    /* the core writes one group per metrics group, in the same order */
    json_t *groups = json_object_get(o, "groups");
    if (json_array_size(groups) != (size_t)d->metrics.n)
        bad = 1;
    for (int g = 0; !bad && g < d->metrics.n; g++) {
        json_t *gj = json_array_get(groups, (size_t)g);
        for (int p = 0; p < KBV_PROTO_COUNT; p++) {
            json_t *pj = json_object_get(gj, kbv_protocol_name((kbv_protocol)p));
            const kbv_report_tally *t = &d->tally[g][p];
            if (!json_is_object(pj)) {
                bad = 1;
                break;
            }
            put(pj, "failed_samples", json_integer(t->failed), &bad);
            json_t *fails = json_object();
            for (int k = 1; fails && k < KBV_FAIL_COUNT; k++)
                put(fails, kbv_fail_kind_name((kbv_fail_kind)k), json_integer(t->fail[k]), &bad);
            put(pj, "failures", fails, &bad);
            json_t *flags = json_object();
            for (int k = 0; flags && k < d->n_flags; k++)
                if (t->flags[k])
                    put(flags, d->flag_names[k], json_integer(t->flags[k]), &bad);
            put(pj, "flags", flags, &bad);
        }
    }
    if (bad) {
        json_decref(o);
        return kbv_fail(KBV_ERR_INVALID, "cannot encode the report summary as JSON (invalid "
                                         "UTF-8 in a name or path?)");
    }
    *out = o;
    return KBV_OK;
}
