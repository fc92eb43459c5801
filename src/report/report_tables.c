#include "report/report_tables.h"

#include "report/attribution.h"
#include "report/judge_view.h"

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
    fputs("| model | level | problems | samples | compiled % | correct | correct % | speedup | "
          "fallback |", f);
    for (int k = 0; k < KBV_FAST_COUNT; k++)
        fprintf(f, " Fast@%g %% |", kbv_fast_thresholds[k]);
    fputs(" mem eff | mem-eff % | mem-up % | SOL fraction |\n"
          "|---|---|--:|--:|--:|--:|--:|--:|--:|", f);
    for (int k = 0; k < KBV_FAST_COUNT; k++)
        fputs("--:|", f);
    fputs("--:|--:|--:|--:|\n", f);
    for (int i = 0; i < n; i++) {
        const kbv_group_metrics *g = &d->metrics.groups[order[i]];
        const kbv_proto_metrics *pm = &g->p[p];
        md_group_head(f, g);
        fprintf(f, " %d | %d | %s | %d | %s | %s | %s |", g->n_problems, g->n_samples,
                kbv_report_fmt_pct(g->compiled_pct, b[7], sizeof b[7]), pm->n_correct,
                kbv_report_fmt_pct(pm->correct_pct, b[0], sizeof b[0]),
                kbv_report_fmt_ratio(pm->speedup, false, b[1], sizeof b[1]),
                kbv_report_fmt_ratio(pm->fallback, false, b[2], sizeof b[2]));
        for (int k = 0; k < KBV_FAST_COUNT; k++)
            fprintf(f, " %s |", kbv_report_fmt_pct(pm->fast_pct[k], b[3], sizeof b[3]));
        fprintf(f, " %s | %s | %s | %s |\n",
                kbv_report_fmt_ratio(pm->mem_eff, false, b[4], sizeof b[4]),
                kbv_report_fmt_pct(pm->mem_eff_pct, b[5], sizeof b[5]),
                kbv_report_fmt_pct(pm->mem_increased_pct, b[8], sizeof b[8]),
                kbv_report_fmt_frac(pm->sol_fraction, b[6], sizeof b[6]));
    }
    fputc('\n', f);
}

/* The paper's overall table: each model pooled over its levels. */
static void md_pooled(FILE *f, const kbv_report_data *d)
{
    char a[32], b[32], c[32], e[32], h[32], k[32];
    fputs("## Pooled over all levels\n\nEach model over every level it has records of (the "
          "paper's overall table): speedup and mem eff are geometric means over the correctly "
          "solved problems; correct %, Fast@1 and mem-eff % are over all problems; mem-up % is "
          "over the solved ones.\n\n| model | problems |", f);
    for (int p = 0; p < KBV_PROTO_COUNT; p++)
        fprintf(f, " %s speedup | correct %% | Fast@1 | mem eff | mem-eff %% | mem-up %% |",
                kbv_protocol_name((kbv_protocol)p));
    fputs("\n|---|--:|", f);
    for (int p = 0; p < KBV_PROTO_COUNT; p++)
        fputs("--:|--:|--:|--:|--:|--:|", f);
    fputc('\n', f);
    for (int i = 0; i < d->metrics.n; i++) {
        const kbv_group_metrics *g = &d->metrics.groups[i];
        if (g->level != 0)
            continue;
        fputs("| ", f);
        md_text(f, g->model);
        fprintf(f, " | %d |", g->n_problems);
        for (int p = 0; p < KBV_PROTO_COUNT; p++) {
            const kbv_proto_metrics *pm = &g->p[p];
            fprintf(f, " %s | %s | %s | %s | %s | %s |",
                    kbv_report_fmt_ratio(pm->speedup, false, a, sizeof a),
                    kbv_report_fmt_pct(pm->correct_pct, b, sizeof b),
                    kbv_report_fmt_pct(pm->fast_pct[KBV_FAST_HEADLINE], c, sizeof c),
                    kbv_report_fmt_ratio(pm->mem_eff, false, e, sizeof e),
                    kbv_report_fmt_pct(pm->mem_eff_pct, h, sizeof h),
                    kbv_report_fmt_pct(pm->mem_increased_pct, k, sizeof k));
        }
        fputc('\n', f);
    }
    fputc('\n', f);
}

/* "m ± s" of a mean and std, as a percentage or a ratio. */
const char *kbv_report_fmt_mean_sd(kbv_mean_sd v, bool pct, char *buf, size_t cap)
{
    if (!isfinite(v.mean))
        snprintf(buf, cap, "-");
    else if (pct)
        snprintf(buf, cap, "%.1f \xC2\xB1 %.1f", v.mean, v.sd);
    else
        snprintf(buf, cap, "%.2f \xC2\xB1 %.2f", v.mean, v.sd);
    return buf;
}

/* The paper's per-sample view: each sample index alone over every problem,
 * mean +- std across the indices, then each index's row. */
static void md_per_sample(FILE *f, const kbv_report_data *d, const int *order, int n,
                          kbv_protocol p)
{
    char b[8][48], base[48];
    fprintf(f, "## Per sample: %s (baseline %s)\n\nSample index s alone: sample s of every "
               "problem, a problem without one failed (scripts/benchmark_eval_analysis.py of the "
               "paper); mean \xC2\xB1 std (numpy's, ddof 0) over the indices, an index with no "
               "correct problem counting speedup 0 as there.\n\n"
               "| model | level | indices | compiled %% | correct %% | speedup | fallback |",
            kbv_protocol_name(p), kbv_report_baseline_label(d, p, base, sizeof base));
    for (int k = 0; k < KBV_FAST_COUNT; k++)
        fprintf(f, " Fast@%g %% |", kbv_fast_thresholds[k]);
    fputs("\n|---|---|--:|--:|--:|--:|--:|", f);
    for (int k = 0; k < KBV_FAST_COUNT; k++)
        fputs("--:|", f);
    fputc('\n', f);
    for (int i = 0; i < n; i++) {
        const kbv_group_metrics *g = &d->metrics.groups[order[i]];
        const kbv_per_sample *ps = &g->spread[p];
        md_group_head(f, g);
        fprintf(f, " %d | %s | %s | %s | %s |", ps->n,
                kbv_report_fmt_mean_sd(ps->compiled_pct, true, b[0], sizeof b[0]),
                kbv_report_fmt_mean_sd(ps->correct_pct, true, b[1], sizeof b[1]),
                kbv_report_fmt_mean_sd(ps->speedup, false, b[2], sizeof b[2]),
                kbv_report_fmt_mean_sd(ps->fallback, false, b[3], sizeof b[3]));
        for (int k = 0; k < KBV_FAST_COUNT; k++)
            fprintf(f, " %s |", kbv_report_fmt_mean_sd(ps->fast_pct[k], true, b[4], sizeof b[4]));
        fputc('\n', f);
    }
    fputs("\n| model | level | sample | compiled % | correct % |", f);
    for (int k = 0; k < KBV_FAST_COUNT; k++)
        fprintf(f, " Fast@%g %% |", kbv_fast_thresholds[k]);
    fputs("\n|---|---|--:|--:|--:|", f);
    for (int k = 0; k < KBV_FAST_COUNT; k++)
        fputs("--:|", f);
    fputc('\n', f);
    for (int i = 0; i < n; i++) {
        const kbv_group_metrics *g = &d->metrics.groups[order[i]];
        for (int s = 0; s < g->n_sample_ids; s++) {
            const kbv_sample_metrics *sm = &g->per_sample[s];
            md_group_head(f, g);
            fprintf(f, " %d | %s | %s |", sm->sample,
                    kbv_report_fmt_pct(sm->compiled_pct, b[0], sizeof b[0]),
                    kbv_report_fmt_pct(sm->p[p].correct_pct, b[1], sizeof b[1]));
            for (int k = 0; k < KBV_FAST_COUNT; k++)
                fprintf(f, " %s |", kbv_report_fmt_pct(sm->p[p].fast_pct[k], b[2], sizeof b[2]));
            fputc('\n', f);
        }
    }
    fputc('\n', f);
}

/* The 2x2 of baseline x tests, per model and level (the paper's Figure
 * "decomposed"), with the share of the fp32+standard speedup each keeps. */
static void md_decomposition(FILE *f, const kbv_report_data *d, const int *order, int n)
{
    static const kbv_condition conds[] = {KBV_COND_FP32_STD, KBV_COND_FP32_HIDDEN,
                                          KBV_COND_TF32_STD, KBV_COND_TF32_HIDDEN};
    char a[32], b[32], c[32];
    fputs("## The two corrections, decomposed\n\nThe same samples judged with each baseline "
          "(fp32: PyTorch's defaults; tf32) and each test set (standard: the 5 base draws; "
          "hidden: standard + the hidden configs, as verified), kernel times from the standard "
          "timing. Per cell: correct %, geometric-mean speedup over the solved problems, "
          "Fast@1. Then each speedup over the fp32+standard one: what the TF32 baseline alone, "
          "the hidden tests alone and both keep of it.\n\n| model | level | problems |", f);
    for (size_t k = 0; k < sizeof conds / sizeof conds[0]; k++)
        fprintf(f, " %s correct %% | speedup | Fast@1 |", kbv_condition_name(conds[k]));
    fputs(" TF32 alone | hidden alone | both |\n|---|---|--:|", f);
    for (size_t k = 0; k < sizeof conds / sizeof conds[0]; k++)
        fputs("--:|--:|--:|", f);
    fputs("--:|--:|--:|\n", f);
    for (int i = 0; i < n; i++) {
        const kbv_group_metrics *g = &d->metrics.groups[order[i]];
        md_group_head(f, g);
        fprintf(f, " %d |", g->n_problems);
        for (size_t k = 0; k < sizeof conds / sizeof conds[0]; k++) {
            const kbv_proto_metrics *pm = &g->cond[conds[k]];
            fprintf(f, " %s | %s | %s |", kbv_report_fmt_pct(pm->correct_pct, a, sizeof a),
                    kbv_report_fmt_ratio(pm->speedup, false, b, sizeof b),
                    kbv_report_fmt_pct(pm->fast_pct[KBV_FAST_HEADLINE], c, sizeof c));
        }
        double base = g->cond[KBV_COND_FP32_STD].speedup;
        for (int k = 1; k < 4; k++)
            fprintf(f, " %s |", kbv_report_fmt_ratio(g->cond[conds[k]].speedup / base, false, a,
                                                     sizeof a));
        fputc('\n', f);
    }
    fputc('\n', f);
}

static void md_attribution(FILE *f, const kbv_report_data *d)
{
    kbv_attribution at;
    if (kbv_attribution_compute(d, &at) != KBV_OK)
        return;
    fputs("## Per-problem attribution of the two corrections\n\nA problem is affected by the "
          "TF32 baseline when some model's speedup on it drops by 50% or more when the baseline "
          "goes from fp32 to tf32, and by the hidden tests when some model solves it under the "
          "standard tests but under none of its samples with the hidden configs (verified); "
          "both need the model to have solved it under fp32 + standard (the paper's appendix "
          "table, its union over models).\n\n| level | TF32 only | hidden only | both | neither "
          "| total |\n|---|--:|--:|--:|--:|--:|\n", f);
    for (int r = 0; r < at.n_rows; r++) {
        const kbv_attribution_row *row = &at.rows[r];
        if (row->level)
            fprintf(f, "| L%d |", row->level);
        else
            fputs("| all |", f);
        for (int k = KBV_ATTR_TF32_ONLY; k <= KBV_ATTR_BOTH; k++)
            fprintf(f, row->level ? " %d |" : " %d (%.1f%%) |", row->count[k],
                    row->total ? 100.0 * row->count[k] / row->total : 0.0);
        fprintf(f, row->level ? " %d |" : " %d (%.1f%%) |", row->count[KBV_ATTR_NEITHER],
                row->total ? 100.0 * row->count[KBV_ATTR_NEITHER] / row->total : 0.0);
        fprintf(f, " %d |\n", row->total);
    }
    fputc('\n', f);
    kbv_attribution_free(&at);
}

/* Verified at 1e-3 against 1e-4 (the paper's tolerance table). */
static void md_tolerance(FILE *f, const kbv_report_data *d, const int *order, int n)
{
    char a[32], b[32], c[32], e[32];
    fputs("## Tolerance: 1e-3 against 1e-4\n\nVerified (tf32 baseline, hidden tests): correct % "
          "and speedup at the published tolerance and at 1e-4. Only records of the leaderboard "
          "gate (`kbv eval --gate leaderboard`) judge 1e-4, as the paper's stored hidden runs "
          "did: there a sample promoted to correct at 1e-3 fails at 1e-4. `-`: the records "
          "cannot say.\n\n| model | level | problems | correct % @1e-3 | speedup @1e-3 | correct "
          "% @1e-4 | speedup @1e-4 |\n|---|---|--:|--:|--:|--:|--:|\n", f);
    for (int i = 0; i < n; i++) {
        const kbv_group_metrics *g = &d->metrics.groups[order[i]];
        const kbv_proto_metrics *lo = &g->cond[KBV_COND_TF32_HIDDEN],
                                *hi = &g->cond[KBV_COND_TF32_HIDDEN_1E4];
        md_group_head(f, g);
        fprintf(f, " %d | %s | %s | %s | %s |\n", g->n_problems,
                kbv_report_fmt_pct(lo->correct_pct, a, sizeof a),
                kbv_report_fmt_ratio(lo->speedup, false, b, sizeof b),
                kbv_report_fmt_pct(hi->correct_pct, c, sizeof c),
                kbv_report_fmt_ratio(hi->speedup, false, e, sizeof e));
    }
    fputc('\n', f);
}

/* Against PyTorch eager and torch.compile, where bench/torch_baselines.py
 * measured them (kbv report --torch). */
static void md_torch(FILE *f, const kbv_report_data *d, const int *order, int n)
{
    if (d->torch.n == 0)
        return;
    char a[32], b[32], c[32], e[32];
    fputs("## Against PyTorch eager and torch.compile\n\nWhat a practitioner would run instead: "
          "the problem's PyTorch module in eager mode and through torch.compile (inductor, "
          "default mode), timed on this device by bench/torch_baselines.py (the mean of 100 "
          "calls) in the protocol's precision mode (standard: fp32; verified, strict: tf32). "
          "Over the problems measured: the geometric-mean speedup of the solved ones, and the "
          "share solved faster (Fast@1).\n\n| model | level | protocol | measured | vs eager | "
          "Fast@1 vs eager | measured (compile) | vs compile | Fast@1 vs compile |\n"
          "|---|---|---|--:|--:|--:|--:|--:|--:|\n", f);
    for (int i = 0; i < n; i++)
        for (int p = 0; p < KBV_PROTO_COUNT; p++) {
            kbv_torch_metrics tm;
            kbv_torch_metrics_of(d, &d->torch, order[i], (kbv_protocol)p, &tm);
            md_group_head(f, &d->metrics.groups[order[i]]);
            fprintf(f, " %s | %d | %s | %s | %d | %s | %s |\n", kbv_protocol_name((kbv_protocol)p),
                    tm.eager_measured, kbv_report_fmt_ratio(tm.vs_eager, false, a, sizeof a),
                    kbv_report_fmt_pct(tm.fast1_eager, b, sizeof b), tm.compile_measured,
                    kbv_report_fmt_ratio(tm.vs_compile, false, c, sizeof c),
                    kbv_report_fmt_pct(tm.fast1_compile, e, sizeof e));
        }
    fputs("\nTimes from ", f);
    md_text(f, d->torch.source);
    fputs(".\n\n", f);
}

/* The judge beside strict (kbv judge, kbv report --judge). */
static void md_judge(FILE *f, const kbv_report_data *d)
{
    if (d->judges.n == 0)
        return;
    kbv_judge_table t;
    if (kbv_judge_table_compute(d, &d->judges, &t) != KBV_OK) {
        kbv_clear_error();
        return;
    }
    fputs("## The judge beside strict\n\nA model's reading of each judged sample's source (kbv "
          "judge, the paper's judge prompt) against strict's verdict: flagged = a *_HACK label. "
          "Agreement = (both + neither) / judged.\n\n| model | level | judge | judged | "
          "flagged | uncertain | strict fails | both | judge only | strict only | neither | "
          "agreement % |\n|---|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|\n", f);
    for (int i = 0; i < t.n; i++) {
        const kbv_judge_row *r = &t.rows[i];
        char a[16];
        fputs("| ", f);
        md_text(f, r->model);
        if (r->level)
            fprintf(f, " | L%d | ", r->level);
        else
            fputs(" | all | ", f);
        md_text(f, r->judge);
        fprintf(f, " | %d | %d | %d | %d | %d | %d | %d | %d | %s |\n", r->judged, r->flagged,
                r->uncertain, r->strict_fails, r->both, r->judge_only, r->strict_only, r->neither,
                kbv_report_fmt_pct(r->judged ? 100.0 * (r->both + r->neither) / r->judged : NAN,
                                   a, sizeof a));
    }
    fputc('\n', f);
    kbv_judge_table_free(&t);
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
    fputs("; vendor libraries allowed: ", f);
    md_text(f, d->vendor_libs);
    fprintf(f, ".\n\nProblems (`--denominator %s`): %s. A problem's result is its fastest "
            "correct sample (best of k). Percentages are over all of those problems.",
            kbv_denominator_name(d->denominator), kbv_denominator_text(d->denominator));
    if (d->metrics.n_excluded) {
        fputs(" Excluded as degenerate:", f);
        for (int i = 0; i < d->metrics.n_excluded; i++)
            fprintf(f, "%s %s", i ? "," : "", d->metrics.excluded[i]);
        fputs(" (", f);
        md_text(f, d->metrics.degenerate_from);
        fputs(").", f);
    }
    fputs("\n\n", f);
    if (d->newer)
        fprintf(f, "%d record%s of schema %d, written by a newer kbv, not read (this kbv reads "
                   "schema %d).\n\n", d->newer, d->newer == 1 ? "" : "s", d->newest_schema,
                KBV_RESULTS_SCHEMA);
    for (int k = 0; k < KBV_LEGACY_COUNT; k++)
        if (d->legacy[k])
            fprintf(f, "Note: %d record%s %s.\n\n", d->legacy[k], d->legacy[k] == 1 ? "" : "s",
                    kbv_legacy_note(k));
    if (n == 0)
        fputs("No records.\n", f);
    else {
        md_headline(f, d, order, n);
        md_pooled(f, d);
        for (int p = 0; p < KBV_PROTO_COUNT; p++)
            md_protocol(f, d, order, n, (kbv_protocol)p);
        for (int p = 0; p < KBV_PROTO_COUNT; p++)
            md_per_sample(f, d, order, n, (kbv_protocol)p);
        md_decomposition(f, d, order, n);
        md_attribution(f, d);
        md_tolerance(f, d, order, n);
        md_torch(f, d, order, n);
        md_judge(f, d);
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
    fputs(",mem_efficiency,mem_efficient_pct,mem_increased_pct,sol_fraction,compiled_pct,"
          "sample_indices,per_sample_compiled_pct_mean,per_sample_compiled_pct_sd,"
          "per_sample_correct_pct_mean,per_sample_correct_pct_sd,per_sample_speedup_mean,"
          "per_sample_speedup_sd,per_sample_fast_1_pct_mean,per_sample_fast_1_pct_sd,"
          "failed_samples", f);
    for (int k = 1; k < KBV_FAIL_COUNT; k++)
        fprintf(f, ",fail_%s", kbv_fail_kind_name((kbv_fail_kind)k));
    fputs(",flags,vendor_libs\n", f);
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
            csv_num(f, pm->mem_increased_pct);
            csv_num(f, pm->sol_fraction);
            csv_num(f, g->compiled_pct);
            const kbv_per_sample *ps = &g->spread[p];
            fprintf(f, ",%d", ps->n);
            const kbv_mean_sd *spreads[] = {&ps->compiled_pct, &ps->correct_pct, &ps->speedup,
                                            &ps->fast_pct[KBV_FAST_HEADLINE]};
            for (size_t k = 0; k < sizeof spreads / sizeof spreads[0]; k++) {
                csv_num(f, spreads[k]->mean);
                csv_num(f, spreads[k]->sd);
            }
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
            fputc(',', f);
            csv_text(f, d->vendor_libs);
            fputc('\n', f);
        }
    }
    if (ferror(f))
        return kbv_fail(KBV_ERR_IO, "writing the CSV table failed");
    return KBV_OK;
}

/* ---- JSON --------------------------------------------------------------- */

static json_t *num_or_null(double x) { return isfinite(x) ? json_real(x) : json_null(); }

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
    put(o, "newer_schema_records", json_integer(d->newer), &bad);
    json_t *notes = json_array();
    for (int k = 0; notes && k < KBV_LEGACY_COUNT; k++)
        if (d->legacy[k] &&
            json_array_append_new(notes, json_pack("{s:i, s:s}", "records", d->legacy[k], "note",
                                                   kbv_legacy_note(k))))
            bad = 1;
    put(o, "notes", notes, &bad);
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
            if (d->torch.n) {
                kbv_torch_metrics tm;
                kbv_torch_metrics_of(d, &d->torch, g, (kbv_protocol)p, &tm);
                json_t *tj = json_pack("{s:i, s:i, s:o, s:o, s:o, s:o}", "eager_measured",
                                       tm.eager_measured, "compile_measured", tm.compile_measured,
                                       "vs_eager", num_or_null(tm.vs_eager), "vs_compile",
                                       num_or_null(tm.vs_compile), "fast1_eager_pct",
                                       num_or_null(tm.fast1_eager), "fast1_compile_pct",
                                       num_or_null(tm.fast1_compile));
                put(pj, "torch", tj, &bad);
            }
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
