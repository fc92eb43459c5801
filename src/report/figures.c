#include "report/figures.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_tables.h"
#include "report/svg.h"

/* ---- colours and names --------------------------------------------------- */

static const char *const model_colors[] = {"#0072b2", "#e69f00", "#009e73", "#cc79a7",
                                           "#56b4e9", "#d55e00", "#7f7f7f", "#000000"};
#define N_MODEL_COLORS (int)(sizeof model_colors / sizeof model_colors[0])

/* standard is the paper's "before" (grey), verified its "after" */
static const char *const proto_colors[KBV_PROTO_COUNT] = {"#a6a6a6", "#0072b2", "#d55e00"};

const char *kbv_figure_model_color(int model)
{
    return model_colors[(model % N_MODEL_COLORS + N_MODEL_COLORS) % N_MODEL_COLORS];
}

static void mix(const int a[3], const int b[3], double t, int out[3])
{
    for (int i = 0; i < 3; i++)
        out[i] = (int)lround(a[i] + (b[i] - a[i]) * t);
}

void kbv_figure_speedup_color(double speedup, char *buf, size_t cap)
{
    static const int white[3] = {0xf7, 0xf7, 0xf7};
    static const int red[2][3] = {{0xef, 0x8a, 0x62}, {0xb2, 0x18, 0x2b}};
    static const int blue[2][3] = {{0x67, 0xa9, 0xcf}, {0x21, 0x66, 0xac}};
    double t = isfinite(speedup) && speedup > 0 ? log2(speedup) / 3 : 0;
    t = t < -1 ? -1 : t > 1 ? 1 : t;
    const int(*ramp)[3] = t < 0 ? red : blue;
    double a = fabs(t);
    int c[3];
    if (a <= 0.5)
        mix(white, ramp[0], a * 2, c);
    else
        mix(ramp[0], ramp[1], (a - 0.5) * 2, c);
    snprintf(buf, cap, "#%02x%02x%02x", c[0], c[1], c[2]);
}

/* At most max_chars characters of s (UTF-8 aware), "…" when cut. */
static void short_text(const char *s, int max_chars, char *buf, size_t cap)
{
    size_t i = 0;
    int chars = 0;
    while (s[i] && chars < max_chars) {
        i++;
        while (s[i] && ((unsigned char)s[i] & 0xC0) == 0x80)
            i++;
        chars++;
    }
    if (!s[i])
        snprintf(buf, cap, "%s", s);
    else
        snprintf(buf, cap, "%.*s\xE2\x80\xA6", (int)i, s);
}

static int cmp_double(const void *pa, const void *pb)
{
    double a = *(const double *)pa, b = *(const double *)pb;
    return (a > b) - (a < b);
}

/* The chosen sample's speedup of model m on problem q, NAN when none. */
static double chosen_speedup(const kbv_report_data *d, int m, int q, kbv_protocol p)
{
    const kbv_report_cell *c = kbv_report_cell_of(d, m, q);
    if (c->n == 0 || c->best[p] < 0)
        return NAN;
    return kbv_report_speedup(&d->samples[c->best[p]].rec->proto[p]);
}

/* ---- grouped bars: protocols or conditions per model and level ------------ */

#define MAX_SERIES 4

/* What a bar figure shows: per metrics group, one bar per series. */
typedef struct bar_series {
    int n;
    const char *labels[MAX_SERIES];
    const char *colors[MAX_SERIES];
    bool log;                   /* speedups on a log axis from 1x; else percentages from 0 */
    const char *y_label, *what;
    double (*value)(const kbv_group_metrics *g, int k);
    int (*solved)(const kbv_group_metrics *g, int k, int *of);
} bar_series;

static double proto_speedup(const kbv_group_metrics *g, int k) { return g->p[k].speedup; }
static double proto_fast1(const kbv_group_metrics *g, int k)
{
    return g->p[k].fast_pct[KBV_FAST_HEADLINE];
}
static int proto_solved(const kbv_group_metrics *g, int k, int *of)
{
    *of = g->p[k].n_problems;
    return g->p[k].n_correct;
}

static const kbv_condition decomposed[MAX_SERIES] = {KBV_COND_FP32_STD, KBV_COND_FP32_HIDDEN,
                                                     KBV_COND_TF32_STD, KBV_COND_TF32_HIDDEN};
static double cond_speedup(const kbv_group_metrics *g, int k)
{
    return g->cond[decomposed[k]].speedup;
}
static int cond_solved(const kbv_group_metrics *g, int k, int *of)
{
    *of = g->cond[decomposed[k]].n_problems;
    return g->cond[decomposed[k]].n_correct;
}

static const kbv_condition tolerances[2] = {KBV_COND_TF32_HIDDEN, KBV_COND_TF32_HIDDEN_1E4};
static double tol_correct(const kbv_group_metrics *g, int k)
{
    return g->cond[tolerances[k]].correct_pct;
}
static int tol_solved(const kbv_group_metrics *g, int k, int *of)
{
    *of = g->cond[tolerances[k]].n_problems;
    return g->cond[tolerances[k]].n_correct;
}

static void series_of(kbv_figure_kind kind, bar_series *bs)
{
    memset(bs, 0, sizeof *bs);
    static const char *const proto_labels[KBV_PROTO_COUNT] = {
        "standard (vs fp32)", "verified (vs tf32)", "strict (vs tf32)"};
    switch (kind) {
    case KBV_FIG_SPEEDUP_BARS:
    case KBV_FIG_FAST1_BARS:
        bs->n = KBV_PROTO_COUNT;
        for (int p = 0; p < KBV_PROTO_COUNT; p++) {
            bs->labels[p] = proto_labels[p];
            bs->colors[p] = proto_colors[p];
        }
        bs->log = kind == KBV_FIG_SPEEDUP_BARS;
        bs->value = bs->log ? proto_speedup : proto_fast1;
        bs->solved = proto_solved;
        bs->y_label = bs->log ? "correct speedup (geometric mean, log scale)"
                              : "Fast@1 (% of problems)";
        bs->what = bs->log ? "geometric-mean speedup" : "Fast@1";
        break;
    case KBV_FIG_DECOMPOSED: {
        static const char *const colors[MAX_SERIES] = {"#a6a6a6", "#56b4e9", "#e69f00",
                                                       "#0072b2"};
        bs->n = MAX_SERIES;
        for (int k = 0; k < MAX_SERIES; k++) {
            bs->labels[k] = kbv_condition_name(decomposed[k]);
            bs->colors[k] = colors[k];
        }
        bs->log = true;
        bs->value = cond_speedup;
        bs->solved = cond_solved;
        bs->y_label = "correct speedup (geometric mean, log scale)";
        bs->what = "geometric-mean speedup";
        break;
    }
    default: {
        static const char *const labels[2] = {"verified at 1e-3", "verified at 1e-4"};
        static const char *const colors[2] = {"#009e73", "#cc79a7"};
        bs->n = 2;
        for (int k = 0; k < 2; k++) {
            bs->labels[k] = labels[k];
            bs->colors[k] = colors[k];
        }
        bs->value = tol_correct;
        bs->solved = tol_solved;
        bs->y_label = "correct (% of problems)";
        bs->what = "correct";
        break;
    }
    }
}

static void group_level(const kbv_group_metrics *g, char *buf, size_t cap)
{
    if (g->level)
        snprintf(buf, cap, "L%d", g->level);
    else
        snprintf(buf, cap, "all");
}

static kbv_status fig_bars(FILE *f, const kbv_report_data *d, const kbv_figure *fig,
                           bool standalone)
{
    bar_series bs;
    series_of(fig->kind, &bs);
    const bool speed = bs.log;
    const double left = 76, right = 24, top = 104, bottom = 78;
    int n = d->n_rows, ns = bs.n;
    double bar = 17, gap = 22, gw = ns * bar + gap;
    double width = fmax(fmax(560, left + right + n * gw + 8),
                        kbv_svg_text_width(fig->title, 14) + 28);
    double height = 424;
    /* few groups: wider bars, up to 30 px, so they fill the plot */
    if (n > 0 && (width - left - right - 8) / n > gw) {
        gw = fmin((width - left - right - 8) / n, ns * 30 + 40);
        bar = fmin(30, (gw - gap) / ns);
        gap = gw - ns * bar;
    }
    kbv_plot pl = {.left = left, .top = top, .width = width - left - right,
                   .height = height - top - bottom};
    pl.y.log = speed;
    pl.y.lo = speed ? 1 : 0;
    pl.y.hi = speed ? 1 : 100;
    for (int i = 0; speed && i < n; i++)
        for (int k = 0; k < ns; k++) {
            double v = bs.value(&d->metrics.groups[d->rows[i]], k);
            if (v > 0 && isfinite(v)) {
                pl.y.lo = fmin(pl.y.lo, v);
                pl.y.hi = fmax(pl.y.hi, v);
            }
        }
    if (speed) {
        pl.y.lo /= 1.15;
        pl.y.hi *= 1.15;
        kbv_axis_nice(&pl.y);
    }
    pl.y.label = bs.y_label;
    pl.y.tick_suffix = speed ? "\xC3\x97" : "%";
    pl.x.lo = 0;
    pl.x.hi = 1;
    kbv_plot_layout(&pl);

    kbv_svg s;
    kbv_svg_begin(&s, f, width, height, fig->title, fig->caption, standalone);
    kbv_svg_text(&s, 14, 22, fig->title, 14, KBV_START, 0, true, "#111111");
    kbv_legend_item items[MAX_SERIES + 1];
    for (int k = 0; k < ns; k++)
        items[k] = (kbv_legend_item){bs.labels[k], bs.colors[k], KBV_LEGEND_SWATCH, 0, false};
    items[ns] = (kbv_legend_item){"1\xC3\x97 = as fast as the baseline", "#222222",
                                  KBV_LEGEND_LINE, 0, true};
    kbv_svg_legend(&s, 14, 34, width - 28, items, ns + (speed ? 1 : 0));
    kbv_svg_axes(&s, &pl, false);
    double base_y = kbv_axis_map(&pl.y, speed ? 1 : 0);
    for (int i = 0; i < n; i++) {
        const kbv_group_metrics *g = &d->metrics.groups[d->rows[i]];
        double gx = left + 4 + i * gw + gap / 2;
        char level[16], tip[400], val[32];
        group_level(g, level, sizeof level);
        for (int k = 0; k < ns; k++) {
            double v = bs.value(g, k);
            double x = gx + k * bar;
            if (!isfinite(v) || (speed && !(v > 0))) {
                kbv_svg_text(&s, x + bar / 2 + 3, base_y - 4, "n/a", 9, KBV_START, -90, false,
                             "#777777");
                continue;
            }
            double y = kbv_axis_map(&pl.y, v);
            if (speed)
                kbv_report_fmt_ratio(v, false, val, sizeof val);
            else
                snprintf(val, sizeof val, "%.0f%%", v);
            int of, solved = bs.solved(g, k, &of);
            snprintf(tip, sizeof tip, "%s %s, %s: %s %s (%d of %d problems correct)", g->model,
                     level, bs.labels[k], val, bs.what, solved, of);
            kbv_svg_rect(&s, x, fmin(y, base_y), bar - 2, fmax(fabs(base_y - y), 1),
                         bs.colors[k], "#333333", tip);
            /* the value along the bar's end, outside it */
            bool down = y > base_y;
            kbv_svg_text(&s, x + bar / 2 + 3, down ? y + 4 : y - 4, val, 9.5,
                         down ? KBV_END : KBV_START, -90, false, "#222222");
        }
        kbv_svg_text(&s, gx + ns * bar / 2, pl.top + pl.height + 16, level, 11.5, KBV_MIDDLE, 0,
                     false, "#222222");
    }
    /* model names under their levels, separated by a rule */
    for (int i = 0; i < n;) {
        int j = i + 1;
        while (j < n && !strcmp(d->metrics.groups[d->rows[j]].model,
                                d->metrics.groups[d->rows[i]].model))
            j++;
        double x0 = left + 4 + i * gw, x1 = left + 4 + j * gw;
        char name[160];
        short_text(d->metrics.groups[d->rows[i]].model, (int)((x1 - x0) / 7.5) + 1, name,
                   sizeof name);
        kbv_svg_text(&s, (x0 + x1) / 2, pl.top + pl.height + 36, name, 12, KBV_MIDDLE, 0, true,
                     "#111111");
        if (j < n)
            kbv_svg_line(&s, x1, pl.top, x1, pl.top + pl.height + 40, "#bbbbbb", 1, false);
        i = j;
    }
    if (speed)
        kbv_svg_line(&s, left, base_y, left + pl.width, base_y, "#222222", 1.5, true);
    return kbv_svg_end(&s);
}

/* ---- speedup CDF ---------------------------------------------------------- */

static kbv_status fig_cdf(FILE *f, const kbv_report_data *d, const kbv_figure *fig,
                          bool standalone)
{
    kbv_status st = KBV_OK;
    kbv_protocol p = (kbv_protocol)fig->arg;
    double *vals = malloc((size_t)(d->n_problems + 1) * sizeof *vals);
    double *xs = malloc((size_t)(2 * d->n_problems + 4) * sizeof *xs);
    double *ys = malloc((size_t)(2 * d->n_problems + 4) * sizeof *ys);
    if (!vals || !xs || !ys) {
        st = kbv_fail(KBV_ERR_NOMEM, "speedup CDF over %d problems", d->n_problems);
        goto done;
    }
    const double width = 420, height = 380;
    kbv_plot pl = {.left = 64, .top = 88, .width = width - 64 - 18, .height = height - 88 - 58};
    pl.x.log = true;
    pl.x.lo = pl.x.hi = 1;
    for (int m = 0; m < d->n_models; m++)
        for (int q = 0; q < d->n_problems; q++) {
            double v = d->problems[q].degenerate ? NAN : chosen_speedup(d, m, q, p);
            if (v > 0 && isfinite(v)) {
                pl.x.lo = fmin(pl.x.lo, v);
                pl.x.hi = fmax(pl.x.hi, v);
            }
        }
    /* keep the 1x line off the frame */
    pl.x.lo /= 1.2;
    pl.x.hi *= 1.2;
    kbv_axis_nice(&pl.x);
    pl.x.label = "speedup t_baseline / t_kernel (log scale)";
    pl.x.tick_suffix = "\xC3\x97";
    pl.y.lo = 0;
    pl.y.hi = 100;
    pl.y.label = "problems solved at \xE2\x89\xA4 x (% of all)";
    pl.y.tick_suffix = "%";
    kbv_plot_layout(&pl);

    kbv_svg s;
    kbv_svg_begin(&s, f, width, height, fig->title, fig->caption, standalone);
    kbv_svg_text(&s, 14, 22, fig->title, 14, KBV_START, 0, true, "#111111");
    kbv_legend_item items[64];
    char labels[64][40];
    int n_items = 0;
    for (int m = 0; m < d->n_models && n_items < 64; m++) {
        short_text(d->models[m], 30, labels[n_items], sizeof labels[n_items]);
        items[n_items] = (kbv_legend_item){labels[n_items], kbv_figure_model_color(m),
                                           KBV_LEGEND_LINE, 0, m >= N_MODEL_COLORS};
        n_items++;
    }
    kbv_svg_legend(&s, 14, 32, width - 28, items, n_items);
    kbv_svg_axes(&s, &pl, true);
    double one = kbv_axis_map(&pl.x, 1);
    kbv_svg_line(&s, one, pl.top, one, pl.top + pl.height, "#222222", 1.3, true);
    kbv_svg_text(&s, one + 4, pl.top + 12, "1\xC3\x97", 10.5, KBV_START, 0, false, "#222222");
    for (int m = 0; m < d->n_models; m++) {
        /* the denominator of the model's percentages (the pooled group's) */
        int g = kbv_report_group_of(d, d->models[m], 0);
        int n_all = g >= 0 ? d->metrics.groups[g].p[p].n_problems : 0, k = 0;
        for (int q = 0; q < d->n_problems; q++) {
            if (d->problems[q].degenerate || kbv_report_cell_of(d, m, q)->n == 0)
                continue;
            double v = chosen_speedup(d, m, q, p);
            if (v > 0 && isfinite(v))
                vals[k++] = v;
        }
        if (n_all == 0)
            continue;
        qsort(vals, (size_t)k, sizeof *vals, cmp_double);
        int np = 0;
        double y = 0;
        xs[np] = pl.x.p0;
        ys[np++] = kbv_axis_map(&pl.y, 0);
        for (int i = 0; i < k; i++) {
            double x = kbv_axis_map(&pl.x, vals[i]);
            xs[np] = x;
            ys[np++] = kbv_axis_map(&pl.y, y);
            y = 100.0 * (i + 1) / n_all;
            xs[np] = x;
            ys[np++] = kbv_axis_map(&pl.y, y);
        }
        xs[np] = pl.x.p1;
        ys[np++] = kbv_axis_map(&pl.y, y);
        kbv_svg_polyline(&s, xs, ys, np, kbv_figure_model_color(m), 2.2, m >= N_MODEL_COLORS);
    }
    st = kbv_svg_end(&s);
done:
    free(vals);
    free(xs);
    free(ys);
    return st;
}

/* ---- memory vs speed --------------------------------------------------- */

static const char *const level_names[KBV_MARKER_COUNT] = {"L1", "L2", "L3", "L4"};
static const char *const level_colors[KBV_MARKER_COUNT] = {"#0072b2", "#e69f00", "#d55e00",
                                                           "#009e73"};

static kbv_marker level_marker(int level)
{
    return level >= 1 && level <= KBV_MARKER_COUNT ? (kbv_marker)(level - 1) : KBV_MARKER_CIRCLE;
}

bool kbv_figure_problem_point(const kbv_report_data *d, int model, int problem, kbv_protocol p,
                              double *speedup, double *mem_ratio)
{
    const kbv_report_cell *c = kbv_report_cell_of(d, model, problem);
    *speedup = *mem_ratio = NAN;
    if (d->problems[problem].degenerate || c->n == 0 || c->best[p] < 0)
        return false;
    const kbv_proto_result *r = &d->samples[c->best[p]].rec->proto[p];
    *speedup = kbv_report_speedup(r);
    *mem_ratio = kbv_report_mem_ratio(r);
    return *speedup > 0 && isfinite(*speedup) && *mem_ratio > 0 && isfinite(*mem_ratio);
}

/* Widens both axes of pl to hold (x, y). */
static void fit(kbv_plot *pl, double x, double y)
{
    pl->x.lo = fmin(pl->x.lo, x);
    pl->x.hi = fmax(pl->x.hi, x);
    pl->y.lo = fmin(pl->y.lo, y);
    pl->y.hi = fmax(pl->y.hi, y);
}

/* Log-log axes at 1 on both, 20% margins, labelled for speedup and memory. */
static void speed_memory_axes(kbv_plot *pl, bool titles)
{
    pl->x.log = pl->y.log = true;
    pl->x.lo /= 1.2;
    pl->x.hi *= 1.2;
    pl->y.lo /= 1.2;
    pl->y.hi *= 1.2;
    kbv_axis_nice(&pl->x);
    kbv_axis_nice(&pl->y);
    pl->x.label = titles ? "speedup t_baseline / t_kernel (log scale)" : "speedup (log)";
    pl->x.tick_suffix = "\xC3\x97";
    pl->y.label = titles ? "memory efficiency m_baseline / m_kernel (log)" : "memory eff. (log)";
    pl->y.tick_suffix = "\xC3\x97";
    kbv_plot_layout(pl);
}

static void unit_lines(kbv_svg *s, const kbv_plot *pl)
{
    double x1 = kbv_axis_map(&pl->x, 1), y1 = kbv_axis_map(&pl->y, 1);
    kbv_svg_line(s, x1, pl->top, x1, pl->top + pl->height, "#222222", 1.3, true);
    kbv_svg_line(s, pl->left, y1, pl->left + pl->width, y1, "#222222", 1.3, true);
}

static kbv_status fig_scatter(FILE *f, const kbv_report_data *d, const kbv_figure *fig,
                              bool standalone)
{
    kbv_protocol p = (kbv_protocol)fig->arg;
    const double width = 760, height = 520;
    kbv_plot pl = {.left = 80, .top = 92, .width = width - 80 - 24, .height = height - 92 - 60};
    pl.x.log = pl.y.log = true;
    pl.x.lo = pl.x.hi = pl.y.lo = pl.y.hi = 1;
    bool levels_seen[KBV_MARKER_COUNT] = {false};
    int points = 0;
    for (int m = 0; m < d->n_models; m++)
        for (int q = 0; q < d->n_problems; q++) {
            double x, y;
            if (!kbv_figure_problem_point(d, m, q, p, &x, &y))
                continue;
            fit(&pl, x, y);
            levels_seen[level_marker(d->problems[q].level)] = true;
            points++;
        }
    speed_memory_axes(&pl, true);

    kbv_svg s;
    kbv_svg_begin(&s, f, width, height, fig->title, fig->caption, standalone);
    kbv_svg_text(&s, 14, 22, fig->title, 14, KBV_START, 0, true, "#111111");
    kbv_legend_item items[72];
    char labels[64][40];
    int n_items = 0;
    for (int m = 0; m < d->n_models && n_items < 64; m++) {
        short_text(d->models[m], 30, labels[n_items], sizeof labels[n_items]);
        items[n_items] = (kbv_legend_item){labels[n_items], kbv_figure_model_color(m),
                                           KBV_LEGEND_SWATCH, 0, false};
        n_items++;
    }
    for (int l = 0; l < KBV_MARKER_COUNT; l++)
        if (levels_seen[l])
            items[n_items++] = (kbv_legend_item){level_names[l], "#ffffff", KBV_LEGEND_MARKER,
                                                 (kbv_marker)l, false};
    kbv_svg_legend(&s, 14, 32, width - 28, items, n_items);
    kbv_svg_axes(&s, &pl, true);
    unit_lines(&s, &pl);
    /* what each quadrant means, in its far corner */
    double r = pl.left + pl.width - 6, l = pl.left + 6, t = pl.top + 15,
           b = pl.top + pl.height - 7;
    kbv_svg_text(&s, r, t, "faster, less memory", 11, KBV_END, 0, false, "#1b6e2a");
    kbv_svg_text(&s, l, t, "slower, less memory", 11, KBV_START, 0, false, "#555555");
    kbv_svg_text(&s, r, b, "faster, more memory", 11, KBV_END, 0, false, "#555555");
    kbv_svg_text(&s, l, b, "slower, more memory", 11, KBV_START, 0, false, "#a01c1c");
    for (int m = 0; m < d->n_models; m++)
        for (int q = 0; q < d->n_problems; q++) {
            double x, y;
            if (!kbv_figure_problem_point(d, m, q, p, &x, &y))
                continue;
            const kbv_report_sample *smp = &d->samples[kbv_report_cell_of(d, m, q)->best[p]];
            char tip[400], a[32], bb[32], href[64];
            snprintf(tip, sizeof tip, "%s, %s sample %d: speedup %s, memory efficiency %s",
                     d->models[m], d->problems[q].key, smp->rec->sample,
                     kbv_report_fmt_ratio(x, false, a, sizeof a),
                     kbv_report_fmt_ratio(y, false, bb, sizeof bb));
            snprintf(href, sizeof href, "#%s", smp->anchor);
            kbv_svg_link_begin(&s, href);
            kbv_svg_marker(&s, level_marker(d->problems[q].level), kbv_axis_map(&pl.x, x),
                           kbv_axis_map(&pl.y, y), 10, kbv_figure_model_color(m), tip);
            kbv_svg_link_end(&s);
        }
    if (points == 0)
        kbv_svg_text(&s, pl.left + pl.width / 2, pl.top + pl.height / 2,
                     "no correct sample with timings and memory", 13, KBV_MIDDLE, 0, false,
                     "#777777");
    return kbv_svg_end(&s);
}

/* ---- panels: per level (a point per model), per model (a point per problem) ---- */

#define PANEL_W 300
#define PANEL_H 260
#define PANELS_PER_ROW 4

/* The levels of the report's rows, ascending; returns the count. */
static int report_levels(const kbv_report_data *d, int *levels, int cap)
{
    int n = 0;
    for (int i = 0; i < d->metrics.n; i++) {
        int l = d->metrics.groups[i].level;
        bool seen = l == 0;
        for (int k = 0; k < n && !seen; k++)
            seen = levels[k] == l;
        if (!seen && n < cap)
            levels[n++] = l;
    }
    for (int i = 1; i < n; i++)
        for (int k = i; k > 0 && levels[k - 1] > levels[k]; k--) {
            int t = levels[k];
            levels[k] = levels[k - 1];
            levels[k - 1] = t;
        }
    return n;
}

/* The plot area of panel k of n. */
static kbv_plot panel_at(int k, double top)
{
    kbv_plot pl = {.left = 70 + (k % PANELS_PER_ROW) * PANEL_W,
                   .top = top + (k / PANELS_PER_ROW) * (PANEL_H + 30),
                   .width = PANEL_W - 84, .height = PANEL_H - 64};
    pl.x.lo = pl.x.hi = pl.y.lo = pl.y.hi = 1;
    return pl;
}

static kbv_status fig_level_points(FILE *f, const kbv_report_data *d, const kbv_figure *fig,
                                   bool standalone)
{
    kbv_protocol p = (kbv_protocol)fig->arg;
    int levels[16];
    int nl = report_levels(d, levels, 16);
    int cols = nl < PANELS_PER_ROW ? (nl > 0 ? nl : 1) : PANELS_PER_ROW;
    double top = 96, width = fmax(460, 20 + cols * PANEL_W);
    double height = top + ((nl + PANELS_PER_ROW - 1) / PANELS_PER_ROW) * (PANEL_H + 30) + 10;
    kbv_svg s;
    kbv_svg_begin(&s, f, width, height, fig->title, fig->caption, standalone);
    kbv_svg_text(&s, 14, 22, fig->title, 14, KBV_START, 0, true, "#111111");
    kbv_legend_item items[64];
    char labels[64][40];
    int n_items = 0;
    for (int m = 0; m < d->n_models && n_items < 64; m++) {
        short_text(d->models[m], 30, labels[n_items], sizeof labels[n_items]);
        items[n_items] = (kbv_legend_item){labels[n_items], kbv_figure_model_color(m),
                                           KBV_LEGEND_MARKER, KBV_MARKER_DIAMOND, false};
        n_items++;
    }
    kbv_svg_legend(&s, 14, 32, width - 28, items, n_items);
    for (int k = 0; k < nl; k++) {
        kbv_plot pl = panel_at(k, top);
        int points = 0;
        for (int m = 0; m < d->n_models; m++) {
            int g = kbv_report_group_of(d, d->models[m], levels[k]);
            if (g < 0)
                continue;
            const kbv_proto_metrics *pm = &d->metrics.groups[g].p[p];
            if (pm->speedup > 0 && isfinite(pm->speedup) && pm->mem_eff > 0 &&
                isfinite(pm->mem_eff)) {
                fit(&pl, pm->speedup, pm->mem_eff);
                points++;
            }
        }
        speed_memory_axes(&pl, false);
        char title[32];
        snprintf(title, sizeof title, "Level %d", levels[k]);
        kbv_svg_plot_title(&s, &pl, title);
        kbv_svg_axes(&s, &pl, true);
        unit_lines(&s, &pl);
        for (int m = 0; m < d->n_models; m++) {
            int g = kbv_report_group_of(d, d->models[m], levels[k]);
            if (g < 0)
                continue;
            const kbv_proto_metrics *pm = &d->metrics.groups[g].p[p];
            if (!(pm->speedup > 0 && isfinite(pm->speedup) && pm->mem_eff > 0 &&
                  isfinite(pm->mem_eff)))
                continue;
            char tip[300], a[32], b[32];
            snprintf(tip, sizeof tip, "%s, level %d (%s): speedup %s, memory efficiency %s over "
                     "%d solved of %d", d->models[m], levels[k], kbv_protocol_name(p),
                     kbv_report_fmt_ratio(pm->speedup, false, a, sizeof a),
                     kbv_report_fmt_ratio(pm->mem_eff, false, b, sizeof b), pm->n_correct,
                     pm->n_problems);
            kbv_svg_marker(&s, KBV_MARKER_DIAMOND, kbv_axis_map(&pl.x, pm->speedup),
                           kbv_axis_map(&pl.y, pm->mem_eff), 13, kbv_figure_model_color(m), tip);
        }
        if (points == 0)
            kbv_svg_text(&s, pl.left + pl.width / 2, pl.top + pl.height / 2, "nothing solved", 12,
                         KBV_MIDDLE, 0, false, "#777777");
    }
    return kbv_svg_end(&s);
}

static kbv_status fig_scatter_grid(FILE *f, const kbv_report_data *d, const kbv_figure *fig,
                                   bool standalone)
{
    kbv_protocol p = (kbv_protocol)fig->arg;
    int nm = d->n_models;
    int cols = nm < PANELS_PER_ROW ? (nm > 0 ? nm : 1) : PANELS_PER_ROW;
    double top = 80, width = fmax(460, 20 + cols * PANEL_W);
    double height = top + ((nm + PANELS_PER_ROW - 1) / PANELS_PER_ROW) * (PANEL_H + 30) + 10;
    bool levels_seen[KBV_MARKER_COUNT] = {false};
    for (int q = 0; q < d->n_problems; q++)
        if (!d->problems[q].degenerate && d->problems[q].sampled)
            levels_seen[level_marker(d->problems[q].level)] = true;
    kbv_svg s;
    kbv_svg_begin(&s, f, width, height, fig->title, fig->caption, standalone);
    kbv_svg_text(&s, 14, 22, fig->title, 14, KBV_START, 0, true, "#111111");
    kbv_legend_item items[KBV_MARKER_COUNT];
    int n_items = 0;
    for (int l = 0; l < KBV_MARKER_COUNT; l++)
        if (levels_seen[l])
            items[n_items++] = (kbv_legend_item){level_names[l], level_colors[l],
                                                 KBV_LEGEND_MARKER, (kbv_marker)l, false};
    kbv_svg_legend(&s, 14, 32, width - 28, items, n_items);
    for (int m = 0; m < nm; m++) {
        kbv_plot pl = panel_at(m, top);
        int points = 0;
        for (int q = 0; q < d->n_problems; q++) {
            double x, y;
            if (kbv_figure_problem_point(d, m, q, p, &x, &y)) {
                fit(&pl, x, y);
                points++;
            }
        }
        speed_memory_axes(&pl, false);
        char title[48];
        short_text(d->models[m], 36, title, sizeof title);
        kbv_svg_plot_title(&s, &pl, title);
        kbv_svg_axes(&s, &pl, true);
        unit_lines(&s, &pl);
        for (int q = 0; q < d->n_problems; q++) {
            double x, y;
            if (!kbv_figure_problem_point(d, m, q, p, &x, &y))
                continue;
            const kbv_report_sample *smp = &d->samples[kbv_report_cell_of(d, m, q)->best[p]];
            char tip[300], a[32], b[32], href[64];
            snprintf(tip, sizeof tip, "%s, %s sample %d: speedup %s, memory efficiency %s",
                     d->models[m], d->problems[q].key, smp->rec->sample,
                     kbv_report_fmt_ratio(x, false, a, sizeof a),
                     kbv_report_fmt_ratio(y, false, b, sizeof b));
            snprintf(href, sizeof href, "#%s", smp->anchor);
            int l = level_marker(d->problems[q].level);
            kbv_svg_link_begin(&s, href);
            kbv_svg_marker(&s, (kbv_marker)l, kbv_axis_map(&pl.x, x), kbv_axis_map(&pl.y, y), 8,
                           level_colors[l], tip);
            kbv_svg_link_end(&s);
        }
        if (points == 0)
            kbv_svg_text(&s, pl.left + pl.width / 2, pl.top + pl.height / 2, "nothing solved", 12,
                         KBV_MIDDLE, 0, false, "#777777");
    }
    return kbv_svg_end(&s);
}

/* ---- failures by distribution ------------------------------------------ */

static const char *const fault_labels[KBV_STACK_COUNT] = {
    "compile error", "load failed", "crash / non-zero / CUDA error", "timeout", "other fault"};
static const char *const fault_colors[KBV_STACK_COUNT] = {"#4d4d4d", "#999999", "#56b4e9",
                                                          "#cc79a7", "#009e73"};

static int fault_stack(const kbv_record *r, kbv_fail_kind k)
{
    if (!r->compile.ok || k == KBV_FAIL_COMPILE)
        return KBV_STACK_COMPILE;
    switch (k) {
    case KBV_FAIL_LOAD: return KBV_STACK_LOAD;
    case KBV_FAIL_CRASH: case KBV_FAIL_RETURNED: case KBV_FAIL_CUDA: return KBV_STACK_CRASH;
    case KBV_FAIL_TIMEOUT: return KBV_STACK_TIMEOUT;
    default: return KBV_STACK_OTHER;
    }
}

/* Whether a draw failed the rule of the protocol its distribution belongs to. */
static bool draw_failed(const kbv_record *r, const kbv_draw_record *dr, int slot)
{
    if (slot >= 5 && slot <= 8)   /* D5-D8: strict's */
        return !r->proto[KBV_PROTO_STRICT].skipped && dr->strict_pass == 0;
    return dr->std_pass == 0;     /* base, D1-D4, the extra hidden configs: allclose */
}

void kbv_figure_failure_counts(const kbv_report_data *d, int model, kbv_failure_counts *out)
{
    memset(out, 0, sizeof *out);
    for (int i = 0; i < d->n_samples; i++) {
        const kbv_report_sample *smp = &d->samples[i];
        if (smp->model != model || d->problems[smp->problem].degenerate)
            continue;
        const kbv_record *r = smp->rec;
        out->samples++;
        /* every failed distribution once per sample */
        bool seen[KBV_DIST_SLOTS] = {false};
        for (int k = 0; k < r->n_draws; k++) {
            int slot = kbv_dist_slot(r->draws[k].dist);
            if (slot >= 0 && !seen[slot] && draw_failed(r, &r->draws[k], slot)) {
                seen[slot] = true;
                out->dist[slot]++;
            }
        }
        kbv_fail_kind k = smp->fail[KBV_PROTO_STANDARD];
        if (r->has_fault || !r->compile.ok)
            out->fault[fault_stack(r, k)]++;
    }
}

/* The bars: base, D1 .. D8, H, then the faults stacked. */
#define DIST_COLUMNS (KBV_DIST_SLOTS + 1)

static const char *dist_color(int slot)
{
    return slot == 0 ? proto_colors[KBV_PROTO_STANDARD]
           : slot >= 5 && slot <= 8 ? proto_colors[KBV_PROTO_STRICT]
                                    : proto_colors[KBV_PROTO_VERIFIED];
}

static kbv_status fig_failures(FILE *f, const kbv_report_data *d, const kbv_figure *fig,
                               bool standalone)
{
    kbv_failure_counts fc;
    kbv_figure_failure_counts(d, fig->arg, &fc);
    int faults = 0, max_count = 0;
    for (int k = 0; k < KBV_STACK_COUNT; k++)
        faults += fc.fault[k];
    for (int c = 0; c < KBV_DIST_SLOTS; c++)
        max_count = fc.dist[c] > max_count ? fc.dist[c] : max_count;
    max_count = faults > max_count ? faults : max_count;
    const double width = 540, height = 390;
    kbv_plot pl = {.left = 62, .top = 112, .width = width - 62 - 16, .height = height - 112 - 58};
    pl.y.lo = 0;
    pl.y.hi = fc.samples > 0 ? fmin(100, 100.0 * max_count / fc.samples * 1.15) : 1;
    if (pl.y.hi < 10)
        pl.y.hi = 10;
    kbv_axis_nice(&pl.y);
    pl.y.label = "samples failing (% of the model's)";
    pl.y.tick_suffix = "%";
    pl.x.lo = 0;
    pl.x.hi = 1;
    pl.x.label = "distribution of the draw (DESIGN section 4)";
    kbv_plot_layout(&pl);

    kbv_svg s;
    kbv_svg_begin(&s, f, width, height, fig->title, fig->caption, standalone);
    kbv_svg_text(&s, 14, 22, fig->title, 14, KBV_START, 0, true, "#111111");
    kbv_legend_item items[3 + KBV_STACK_COUNT];
    int n_items = 0;
    items[n_items++] = (kbv_legend_item){"outside allclose: base (standard)",
                                         proto_colors[KBV_PROTO_STANDARD], KBV_LEGEND_SWATCH, 0,
                                         false};
    items[n_items++] = (kbv_legend_item){"outside allclose: D1-D4, H (verified)",
                                         proto_colors[KBV_PROTO_VERIFIED], KBV_LEGEND_SWATCH, 0,
                                         false};
    items[n_items++] = (kbv_legend_item){"strict's rule: D5-D8", proto_colors[KBV_PROTO_STRICT],
                                         KBV_LEGEND_SWATCH, 0, false};
    for (int k = 0; k < KBV_STACK_COUNT; k++)
        if (fc.fault[k])
            items[n_items++] = (kbv_legend_item){fault_labels[k], fault_colors[k],
                                                 KBV_LEGEND_SWATCH, 0, false};
    kbv_svg_legend(&s, 14, 32, width - 28, items, n_items);
    kbv_svg_axes(&s, &pl, false);
    double cw = pl.width / DIST_COLUMNS;
    double total = fc.samples > 0 ? fc.samples : 1;
    for (int c = 0; c < DIST_COLUMNS; c++) {
        const char *name = c < KBV_DIST_SLOTS ? kbv_dist_slot_name(c) : "fault";
        double x = pl.left + c * cw + cw * 0.18, w = cw * 0.64;
        int count = 0;
        char tip[240];
        if (c < KBV_DIST_SLOTS) {
            count = fc.dist[c];
            if (count) {
                double y0 = kbv_axis_map(&pl.y, 0), y1 = kbv_axis_map(&pl.y, 100.0 * count / total);
                snprintf(tip, sizeof tip, "%s: %d of %d samples fail a draw there (%.1f%%)", name,
                         count, fc.samples, 100.0 * count / total);
                kbv_svg_rect(&s, x, y1, w, y0 - y1, dist_color(c), "#333333", tip);
            }
        } else {
            double acc = 0;
            for (int k = 0; k < KBV_STACK_COUNT; k++) {
                if (!fc.fault[k])
                    continue;
                double y0 = kbv_axis_map(&pl.y, 100.0 * acc / total),
                       y1 = kbv_axis_map(&pl.y, 100.0 * (acc + fc.fault[k]) / total);
                snprintf(tip, sizeof tip, "%d sample%s: %s", fc.fault[k],
                         fc.fault[k] == 1 ? "" : "s", fault_labels[k]);
                kbv_svg_rect(&s, x, y1, w, y0 - y1, fault_colors[k], "#333333", tip);
                acc += fc.fault[k];
            }
            count = faults;
        }
        if (count > 0) {
            char label[16];
            snprintf(label, sizeof label, "%d", count);
            kbv_svg_text(&s, x + w / 2, kbv_axis_map(&pl.y, 100.0 * count / total) - 4, label, 10,
                         KBV_MIDDLE, 0, false, "#222222");
        }
        kbv_svg_text(&s, x + w / 2, pl.top + pl.height + 16, name, 11, KBV_MIDDLE, 0, false,
                     "#222222");
    }
    if (max_count == 0)
        kbv_svg_text(&s, pl.left + pl.width / 2, pl.top + pl.height / 2,
                     "no sample of this model failed a draw", 13, KBV_MIDDLE, 0, false,
                     "#1b6e2a");
    return kbv_svg_end(&s);
}

/* ---- heat map ------------------------------------------------------------ */

#define HEAT_COLUMNS 50

static kbv_status fig_heatmap(FILE *f, const kbv_report_data *d, const kbv_figure *fig,
                              bool standalone)
{
    kbv_protocol p = (kbv_protocol)fig->arg;
    int n_cols = 0;
    for (int q = 0; q < d->n_problems; q++)
        n_cols += !d->problems[q].degenerate;
    const double cell = 20, label_h = 46, gap = 16;
    double name_w = 60;
    char name[64];
    for (int m = 0; m < d->n_models; m++) {
        short_text(d->models[m], 28, name, sizeof name);
        name_w = fmax(name_w, kbv_svg_text_width(name, 12) + 26);
    }
    int per_row = n_cols < HEAT_COLUMNS ? (n_cols > 0 ? n_cols : 1) : HEAT_COLUMNS;
    int blocks = n_cols > 0 ? (n_cols + per_row - 1) / per_row : 1;
    double block_h = label_h + d->n_models * cell + gap;
    double top = 112, left = 14 + name_w;
    double width = fmax(640, left + per_row * cell + 24);
    double height = top + blocks * block_h + 24;

    bool kinds_seen[KBV_FAIL_COUNT] = {false};
    kbv_svg s;
    kbv_svg_begin(&s, f, width, height, fig->title, fig->caption, standalone);
    kbv_svg_text(&s, 14, 22, fig->title, 14, KBV_START, 0, true, "#111111");

    /* colour scale: 1/8x .. 8x in steps */
    const double scale_x = 30, scale_y = 40, scale_w = 280;
    for (int i = 0; i < 56; i++) {
        double t = (i + 0.5) / 56;
        char col[16];
        kbv_figure_speedup_color(pow(2, -3 + 6 * t), col, sizeof col);
        kbv_svg_rect(&s, scale_x + i * scale_w / 56, scale_y, scale_w / 56 + 0.4, 12, col, NULL,
                     NULL);
    }
    kbv_svg_rect(&s, scale_x, scale_y, scale_w, 12, "none", "#777777", NULL);
    static const char *const scale_labels[] = {"\xE2\x89\xA4" "1/8\xC3\x97", "1/4\xC3\x97",
                                               "1/2\xC3\x97", "1\xC3\x97", "2\xC3\x97",
                                               "4\xC3\x97", "\xE2\x89\xA5" "8\xC3\x97"};
    for (int i = 0; i <= 6; i++) {
        double x = scale_x + i * scale_w / 6;
        kbv_svg_line(&s, x, scale_y + 12, x, scale_y + 16, "#555555", 1, false);
        kbv_svg_text(&s, x, scale_y + 27, scale_labels[i], 10, KBV_MIDDLE, 0, false, "#333333");
    }
    kbv_svg_text(&s, scale_x + scale_w + 10, scale_y + 10, "speedup of the fastest correct sample",
                 11, KBV_START, 0, false, "#222222");

    int col = 0;
    for (int q = 0; q < d->n_problems; q++) {
        const kbv_report_problem *pr = &d->problems[q];
        if (pr->degenerate)
            continue;
        int block = col / per_row, k = col % per_row;
        double bx = left + k * cell, by = top + block * block_h;
        col++;
        kbv_svg_text(&s, bx + cell / 2 + 3, by + label_h - 4, pr->key, 9.5, KBV_START, -65,
                     false, "#333333");
        for (int m = 0; m < d->n_models; m++) {
            double y = by + label_h + m * cell;
            if (k == 0) {
                short_text(d->models[m], 28, name, sizeof name);
                kbv_svg_text(&s, left - 20, y + cell / 2 + 4, name, 12, KBV_END, 0, false,
                             "#222222");
                kbv_svg_rect(&s, left - 15, y + 5, 10, 10, kbv_figure_model_color(m), "#444444",
                             NULL);
            }
            const kbv_report_cell *c = kbv_report_cell_of(d, m, q);
            char tip[600], fill[16], href[64], a[32];
            if (c->n == 0) {
                snprintf(tip, sizeof tip, "%s, %s: no samples", d->models[m], pr->key);
                kbv_svg_rect(&s, bx + 5, y + 5, cell - 10, cell - 10, "#ffffff", "#d0d0d0", tip);
                continue;
            }
            const kbv_report_sample *smp = &d->samples[c->shown[p]];
            snprintf(href, sizeof href, "#%s", smp->anchor);
            kbv_svg_link_begin(&s, href);
            if (c->best[p] >= 0) {
                double v = kbv_report_speedup(&smp->rec->proto[p]);
                kbv_figure_speedup_color(v, fill, sizeof fill);
                snprintf(tip, sizeof tip, "%s, %s: %s (sample %d, fastest correct of %d)",
                         d->models[m], pr->key,
                         isfinite(v) ? kbv_report_fmt_ratio(v, false, a, sizeof a)
                                     : "correct, untimed",
                         smp->rec->sample, c->n);
                kbv_svg_rect(&s, bx + 1, y + 1, cell - 2, cell - 2, fill, "#bbbbbb", tip);
                if (!isfinite(v))
                    kbv_svg_text(&s, bx + cell / 2, y + cell / 2 + 4, "?", 10, KBV_MIDDLE, 0,
                                 false, "#333333");
            } else {
                kbv_fail_kind kind = smp->fail[p];
                char letter[2] = {kbv_fail_kind_letter(kind), '\0'};
                kinds_seen[kind] = true;
                snprintf(tip, sizeof tip, "%s, %s: %s in all %d sample%s (shown: sample %d: %s)",
                         d->models[m], pr->key, kbv_fail_kind_text(kind), c->n,
                         c->n == 1 ? "" : "s", smp->rec->sample, smp->rec->proto[p].reason);
                kbv_svg_rect(&s, bx + 1, y + 1, cell - 2, cell - 2, "#3d3d3d", "#222222", tip);
                kbv_svg_text(&s, bx + cell / 2, y + cell / 2 + 4, letter, 11, KBV_MIDDLE, 0, true,
                             "#ffffff");
            }
            kbv_svg_link_end(&s);
        }
    }
    if (n_cols == 0)
        kbv_svg_text(&s, left, top + 30, "no problems", 13, KBV_START, 0, false, "#777777");

    /* the failure letters used, beside the scale */
    char legend[600] = "";
    size_t used = 0;
    char seen_letters[32] = "";
    for (int k = 1; k < KBV_FAIL_COUNT && used < sizeof legend; k++) {
        if (!kinds_seen[k])
            continue;
        char letter = kbv_fail_kind_letter((kbv_fail_kind)k);
        if (strchr(seen_letters, letter))
            continue;
        size_t sl = strlen(seen_letters);
        if (sl + 1 < sizeof seen_letters) {
            seen_letters[sl] = letter;
            seen_letters[sl + 1] = '\0';
        }
        const char *text = letter == 'W' ? "wrong output" : kbv_fail_kind_text((kbv_fail_kind)k);
        used += (size_t)snprintf(legend + used, sizeof legend - used, "%s%c = %s",
                                 seen_letters[1] ? ", " : "Dark: failed in every sample, ",
                                 letter, text);
    }
    kbv_svg_text(&s, scale_x, scale_y + 46, "Small hollow square: no samples.", 11, KBV_START, 0,
                 false, "#222222");
    if (used)
        kbv_svg_text(&s, scale_x, scale_y + 62, legend, 11, KBV_START, 0, false, "#222222");
    return kbv_svg_end(&s);
}

/* ---- the plan ------------------------------------------------------------ */

int kbv_figures_plan(const kbv_report_data *d, kbv_protocol focus, kbv_figure *out, int cap)
{
    int n = 0;
    const char *fp = kbv_protocol_name(focus);
#define ADD(kind_, arg_, ...)                                                              \
    do {                                                                                   \
        if (n < cap) {                                                                     \
            out[n] = (kbv_figure){kind_, arg_, "", "", ""};                                \
            __VA_ARGS__;                                                                   \
            n++;                                                                           \
        }                                                                                  \
    } while (0)
    ADD(KBV_FIG_SPEEDUP_BARS, 0,
        snprintf(out[n].name, sizeof out[n].name, "speedup-before-after");
        snprintf(out[n].title, sizeof out[n].title,
                 "Correct speedup: standard vs verified vs strict");
        snprintf(out[n].caption, sizeof out[n].caption,
                 "Geometric mean of t_baseline / t_kernel over each model's correctly solved "
                 "problems (fastest correct sample). Standard times against the fp32 baseline "
                 "with 5 base draws (KernelBench as the paper ran it); verified against tf32 "
                 "with D1-D4 added (the paper's fix); strict against tf32 with the float64 "
                 "oracle, D5-D8 and the audits. Bars start at 1x: up is faster than the "
                 "baseline. n/a: nothing solved."));
    ADD(KBV_FIG_FAST1_BARS, 0,
        snprintf(out[n].name, sizeof out[n].name, "fast1-before-after");
        snprintf(out[n].title, sizeof out[n].title,
                 "Fast@1: standard vs verified vs strict");
        snprintf(out[n].caption, sizeof out[n].caption,
                 "Share of all problems solved correctly and faster than the protocol's "
                 "baseline. The drop from standard to verified is what the paper's protocol "
                 "removes; strict removes more."));
    ADD(KBV_FIG_DECOMPOSED, 0,
        snprintf(out[n].name, sizeof out[n].name, "decomposed");
        snprintf(out[n].title, sizeof out[n].title,
                 "The two corrections: baseline x tests");
        snprintf(out[n].caption, sizeof out[n].caption,
                 "Geometric-mean correct speedup of the same samples under the fp32 or tf32 "
                 "baseline and the standard or standard + hidden tests, kernel times from the "
                 "standard timing (the paper's decomposition): fp32+standard is the standard "
                 "protocol, tf32+hidden the verified one. Bars start at 1x."));
    ADD(KBV_FIG_TOLERANCE, 0,
        snprintf(out[n].name, sizeof out[n].name, "tolerance");
        snprintf(out[n].title, sizeof out[n].title, "Verified correct %%: 1e-3 against 1e-4");
        snprintf(out[n].caption, sizeof out[n].caption,
                 "Share of all problems solved under verified at the published tolerance and at "
                 "1e-4 (the paper's stored hidden runs). Only records of kbv eval --gate "
                 "leaderboard judge 1e-4; n/a where the records cannot say."));
    for (int p = 0; p < KBV_PROTO_COUNT; p++)
        ADD(KBV_FIG_CDF, p, const char *pn = kbv_protocol_name((kbv_protocol)p);
            snprintf(out[n].name, sizeof out[n].name, "cdf-%s", pn);
            snprintf(out[n].title, sizeof out[n].title, "Speedup CDF: %s (vs %s)", pn,
                     kbv_report_baseline_name((kbv_protocol)p));
            snprintf(out[n].caption, sizeof out[n].caption,
                     "Per model, the share of all its problems solved correctly with a speedup "
                     "of at most x (fastest correct sample, %s protocol). Each curve ends at "
                     "the share solved with a timing; the part right of the dashed 1x line is "
                     "Fast@1.",
                     pn));
    ADD(KBV_FIG_SCATTER, focus,
        snprintf(out[n].name, sizeof out[n].name, "memory-vs-speed-%s", fp);
        snprintf(out[n].title, sizeof out[n].title,
                 "Memory efficiency vs speedup per problem (%s)", fp);
        snprintf(out[n].caption, sizeof out[n].caption,
                 "One point per model and correctly solved problem (its fastest correct sample "
                 "under %s): speedup on x, baseline peak memory / kernel peak memory on y, both "
                 "log scale. Colour is the model, marker shape the level. Top right is faster "
                 "and leaner than the baseline. Points link to the sample's details.",
                 fp));
    ADD(KBV_FIG_LEVEL_POINTS, focus,
        snprintf(out[n].name, sizeof out[n].name, "memory-vs-speed-levels-%s", fp);
        snprintf(out[n].title, sizeof out[n].title,
                 "Memory efficiency vs speedup per level (%s)", fp);
        snprintf(out[n].caption, sizeof out[n].caption,
                 "One panel per level, one point per model: its correct speedup and correct "
                 "memory efficiency (geometric means over the problems it solves under %s), "
                 "both log scale, dashed lines at 1x (the paper's Figure 3). Up and right is "
                 "faster and leaner.",
                 fp));
    ADD(KBV_FIG_SCATTER_GRID, focus,
        snprintf(out[n].name, sizeof out[n].name, "memory-vs-speed-models-%s", fp);
        snprintf(out[n].title, sizeof out[n].title,
                 "Memory efficiency vs speedup per problem, by model (%s)", fp);
        snprintf(out[n].caption, sizeof out[n].caption,
                 "One panel per model, one point per problem it solves under %s (its fastest "
                 "correct sample): speedup and m_baseline / m_kernel, both log scale; colour "
                 "and marker are the level (the paper's Figure 4). Points link to the sample.",
                 fp));
    for (int m = 0; m < d->n_models; m++)
        ADD(KBV_FIG_FAILURES, m, char nm[64];
            short_text(d->models[m], 40, nm, sizeof nm);
            snprintf(out[n].name, sizeof out[n].name, "failures-m%d", m);
            snprintf(out[n].title, sizeof out[n].title, "Where %s fails, by distribution", nm);
            snprintf(out[n].caption, sizeof out[n].caption,
                     "Share of this model's samples failing a draw of each distribution, every "
                     "failed distribution of a sample counted (not only the first: the paper's "
                     "count), each by the rule of its own protocol: allclose against the fp32 "
                     "output for base (standard), D1-D4 and H (verified); strict's rule against "
                     "the float64 oracle for D5-D8. 'fault': samples whose candidate did not "
                     "compile, load or finish, by reason."));
    ADD(KBV_FIG_HEATMAP, focus,
        snprintf(out[n].name, sizeof out[n].name, "heatmap-%s", fp);
        snprintf(out[n].title, sizeof out[n].title, "Per-problem results (%s)", fp);
        snprintf(out[n].caption, sizeof out[n].caption,
                 "One cell per model and problem: the colour is the speedup of the fastest "
                 "correct sample under %s (red slower, blue faster than the baseline); a dark "
                 "cell failed in every sample, lettered with the reason of the sample that got "
                 "furthest. Hover for details; click for the sample.",
                 fp));
#undef ADD
    return n;
}

kbv_status kbv_figure_write(FILE *f, const kbv_report_data *d, const kbv_figure *fig,
                            bool standalone)
{
    switch (fig->kind) {
    case KBV_FIG_SPEEDUP_BARS:
    case KBV_FIG_FAST1_BARS:
    case KBV_FIG_DECOMPOSED:
    case KBV_FIG_TOLERANCE: KBV_TRY(fig_bars(f, d, fig, standalone)); break;
    case KBV_FIG_LEVEL_POINTS: KBV_TRY(fig_level_points(f, d, fig, standalone)); break;
    case KBV_FIG_SCATTER_GRID: KBV_TRY(fig_scatter_grid(f, d, fig, standalone)); break;
    case KBV_FIG_CDF: KBV_TRY(fig_cdf(f, d, fig, standalone)); break;
    case KBV_FIG_SCATTER: KBV_TRY(fig_scatter(f, d, fig, standalone)); break;
    case KBV_FIG_FAILURES: KBV_TRY(fig_failures(f, d, fig, standalone)); break;
    case KBV_FIG_HEATMAP: KBV_TRY(fig_heatmap(f, d, fig, standalone)); break;
    default: return kbv_fail(KBV_ERR_INVALID, "unknown figure kind %d", (int)fig->kind);
    }
    return KBV_OK;
}
