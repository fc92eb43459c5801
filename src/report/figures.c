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

/* ---- speedup and Fast@1 before/after ----------------------------------- */

static double bar_value(const kbv_group_metrics *g, kbv_protocol p, bool speed)
{
    return speed ? g->p[p].speedup : g->p[p].fast_pct[KBV_FAST_HEADLINE];
}

static void group_level(const kbv_group_metrics *g, char *buf, size_t cap)
{
    if (g->level)
        snprintf(buf, cap, "L%d", g->level);
    else
        snprintf(buf, cap, "all");
}

static kbv_status fig_bars(FILE *f, const kbv_report_data *d, const kbv_figure *fig,
                           bool standalone, bool speed)
{
    const double left = 76, right = 24, top = 104, bottom = 78;
    int n = d->n_rows;
    double bar = 17, gap = 22, gw = KBV_PROTO_COUNT * bar + gap;
    double width = fmax(fmax(560, left + right + n * gw + 8),
                        kbv_svg_text_width(fig->title, 14) + 28);
    double height = 424;
    /* few groups: wider bars, up to 30 px, so they fill the plot */
    if (n > 0 && (width - left - right - 8) / n > gw) {
        gw = fmin((width - left - right - 8) / n, KBV_PROTO_COUNT * 30 + 40);
        bar = fmin(30, (gw - gap) / KBV_PROTO_COUNT);
        gap = gw - KBV_PROTO_COUNT * bar;
    }
    kbv_plot pl = {.left = left, .top = top, .width = width - left - right,
                   .height = height - top - bottom};
    pl.y.log = speed;
    pl.y.lo = speed ? 1 : 0;
    pl.y.hi = speed ? 1 : 100;
    for (int i = 0; speed && i < n; i++)
        for (int p = 0; p < KBV_PROTO_COUNT; p++) {
            double v = bar_value(&d->metrics.groups[d->rows[i]], (kbv_protocol)p, true);
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
    pl.y.label = speed ? "correct speedup (geometric mean, log scale)" : "Fast@1 (% of problems)";
    pl.y.tick_suffix = speed ? "\xC3\x97" : "%";
    pl.x.lo = 0;
    pl.x.hi = 1;
    kbv_plot_layout(&pl);

    kbv_svg s;
    kbv_svg_begin(&s, f, width, height, fig->title, fig->caption, standalone);
    kbv_svg_text(&s, 14, 22, fig->title, 14, KBV_START, 0, true, "#111111");
    kbv_legend_item items[KBV_PROTO_COUNT + 1];
    char labels[KBV_PROTO_COUNT][48];
    for (int p = 0; p < KBV_PROTO_COUNT; p++) {
        snprintf(labels[p], sizeof labels[p], "%s (vs %s)", kbv_protocol_name((kbv_protocol)p),
                 kbv_report_baseline_name((kbv_protocol)p));
        items[p] = (kbv_legend_item){labels[p], proto_colors[p], KBV_LEGEND_SWATCH, 0, false};
    }
    items[KBV_PROTO_COUNT] = (kbv_legend_item){"1\xC3\x97 = as fast as the baseline", "#222222",
                                               KBV_LEGEND_LINE, 0, true};
    kbv_svg_legend(&s, 14, 34, width - 28, items, KBV_PROTO_COUNT + (speed ? 1 : 0));
    kbv_svg_axes(&s, &pl, false);
    double base_y = kbv_axis_map(&pl.y, speed ? 1 : 0);
    for (int i = 0; i < n; i++) {
        const kbv_group_metrics *g = &d->metrics.groups[d->rows[i]];
        double gx = left + 4 + i * gw + gap / 2;
        char level[16], tip[400], val[32];
        group_level(g, level, sizeof level);
        for (int p = 0; p < KBV_PROTO_COUNT; p++) {
            double v = bar_value(g, (kbv_protocol)p, speed);
            double x = gx + p * bar;
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
            snprintf(tip, sizeof tip, "%s %s, %s (vs %s): %s%s (%d of %d problems correct)",
                     g->model, level, kbv_protocol_name((kbv_protocol)p),
                     kbv_report_baseline_name((kbv_protocol)p), val,
                     speed ? " geometric-mean speedup" : " Fast@1", g->p[p].n_correct,
                     g->p[p].n_problems);
            kbv_svg_rect(&s, x, fmin(y, base_y), bar - 2, fmax(fabs(base_y - y), 1),
                         proto_colors[p], "#333333", tip);
            /* the value along the bar's end, outside it */
            bool down = y > base_y;
            kbv_svg_text(&s, x + bar / 2 + 3, down ? y + 4 : y - 4, val, 9.5,
                         down ? KBV_END : KBV_START, -90, false, "#222222");
        }
        kbv_svg_text(&s, gx + KBV_PROTO_COUNT * bar / 2, pl.top + pl.height + 16, level, 11.5,
                     KBV_MIDDLE, 0, false, "#222222");
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
    if (speed) {
        kbv_svg_line(&s, left, base_y, left + pl.width, base_y, "#222222", 1.5, true);
    }
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

static kbv_marker level_marker(int level)
{
    return level >= 1 && level <= KBV_MARKER_COUNT ? (kbv_marker)(level - 1) : KBV_MARKER_CIRCLE;
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
            const kbv_report_cell *c = kbv_report_cell_of(d, m, q);
            if (d->problems[q].degenerate || c->n == 0 || c->best[p] < 0)
                continue;
            const kbv_proto_result *r = &d->samples[c->best[p]].rec->proto[p];
            double x = kbv_report_speedup(r), y = kbv_report_mem_ratio(r);
            if (!(x > 0 && isfinite(x) && y > 0 && isfinite(y)))
                continue;
            pl.x.lo = fmin(pl.x.lo, x);
            pl.x.hi = fmax(pl.x.hi, x);
            pl.y.lo = fmin(pl.y.lo, y);
            pl.y.hi = fmax(pl.y.hi, y);
            levels_seen[level_marker(d->problems[q].level)] = true;
            points++;
        }
    pl.x.lo /= 1.2;
    pl.x.hi *= 1.2;
    pl.y.lo /= 1.2;
    pl.y.hi *= 1.2;
    kbv_axis_nice(&pl.x);
    kbv_axis_nice(&pl.y);
    pl.x.label = "speedup t_baseline / t_kernel (log scale)";
    pl.x.tick_suffix = "\xC3\x97";
    pl.y.label = "memory efficiency m_baseline / m_kernel (log)";
    pl.y.tick_suffix = "\xC3\x97";
    kbv_plot_layout(&pl);

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
    double x1 = kbv_axis_map(&pl.x, 1), y1 = kbv_axis_map(&pl.y, 1);
    kbv_svg_line(&s, x1, pl.top, x1, pl.top + pl.height, "#222222", 1.3, true);
    kbv_svg_line(&s, pl.left, y1, pl.left + pl.width, y1, "#222222", 1.3, true);
    /* what each quadrant means, in its far corner */
    double r = pl.left + pl.width - 6, l = pl.left + 6, t = pl.top + 15,
           b = pl.top + pl.height - 7;
    kbv_svg_text(&s, r, t, "faster, less memory", 11, KBV_END, 0, false, "#1b6e2a");
    kbv_svg_text(&s, l, t, "slower, less memory", 11, KBV_START, 0, false, "#555555");
    kbv_svg_text(&s, r, b, "faster, more memory", 11, KBV_END, 0, false, "#555555");
    kbv_svg_text(&s, l, b, "slower, more memory", 11, KBV_START, 0, false, "#a01c1c");
    for (int m = 0; m < d->n_models; m++)
        for (int q = 0; q < d->n_problems; q++) {
            const kbv_report_cell *c = kbv_report_cell_of(d, m, q);
            if (d->problems[q].degenerate || c->n == 0 || c->best[p] < 0)
                continue;
            const kbv_report_sample *smp = &d->samples[c->best[p]];
            const kbv_proto_result *r2 = &smp->rec->proto[p];
            double x = kbv_report_speedup(r2), y = kbv_report_mem_ratio(r2);
            if (!(x > 0 && isfinite(x) && y > 0 && isfinite(y)))
                continue;
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

/* ---- failures by distribution ------------------------------------------ */

/* The stacks: how a draw failed, or why a sample never reached one. */
enum {
    STACK_ALLCLOSE = 0, STACK_BUDGET, STACK_UNWRITTEN,
    STACK_COMPILE, STACK_LOAD, STACK_CRASH, STACK_TIMEOUT, STACK_OTHER, STACK_COUNT
};
static const char *const stack_labels[STACK_COUNT] = {
    "outside allclose (paper's rule)", "within allclose, over strict budget",
    "output not fully written", "compile error", "load failed",
    "crash / non-zero / CUDA error", "timeout", "other"};
static const char *const stack_colors[STACK_COUNT] = {
    "#d55e00", "#e69f00", "#cc79a7", "#4d4d4d", "#999999", "#0072b2", "#56b4e9", "#009e73"};

#define DIST_COLUMNS (1 + KBV_DIST_SLOTS)   /* "no draw", base, D1..D8, H */

static int stack_of_draw(const kbv_draw_record *dr)
{
    if (dr->poison_left > 0)
        return STACK_UNWRITTEN;
    if (dr->std_pass == 0)
        return STACK_ALLCLOSE;
    if (!dr->strict_pass)
        return STACK_BUDGET;
    return -1;
}

static int stack_of_fault(kbv_fail_kind k)
{
    switch (k) {
    case KBV_FAIL_COMPILE: return STACK_COMPILE;
    case KBV_FAIL_LOAD: return STACK_LOAD;
    case KBV_FAIL_CRASH: case KBV_FAIL_RETURNED: case KBV_FAIL_CUDA: return STACK_CRASH;
    case KBV_FAIL_TIMEOUT: return STACK_TIMEOUT;
    default: return STACK_OTHER;
    }
}

static void count_failures(const kbv_report_data *d, int m, int counts[DIST_COLUMNS][STACK_COUNT])
{
    memset(counts, 0, sizeof(int) * DIST_COLUMNS * STACK_COUNT);
    for (int i = 0; i < d->n_samples; i++) {
        const kbv_report_sample *smp = &d->samples[i];
        if (smp->model != m || d->problems[smp->problem].degenerate)
            continue;
        const kbv_record *r = smp->rec;
        if (r->n_draws == 0) {
            kbv_fail_kind k = smp->fail[KBV_PROTO_STANDARD];
            if (k != KBV_FAIL_NONE)
                counts[0][stack_of_fault(k)]++;
            continue;
        }
        /* each sample once per distribution: its first failing draw there */
        int seen[KBV_DIST_SLOTS] = {0};
        for (int k = 0; k < r->n_draws; k++) {
            int slot = kbv_dist_slot(r->draws[k].dist);
            int stack = stack_of_draw(&r->draws[k]);
            if (slot < 0 || stack < 0 || seen[slot])
                continue;
            seen[slot] = 1;
            counts[1 + slot][stack]++;
        }
    }
}

static kbv_status fig_failures(FILE *f, const kbv_report_data *d, const kbv_figure *fig,
                               bool standalone)
{
    int m = fig->arg;
    int counts[DIST_COLUMNS][STACK_COUNT];
    count_failures(d, m, counts);
    int max_total = 0;
    bool used[STACK_COUNT] = {false};
    for (int c = 0; c < DIST_COLUMNS; c++) {
        int total = 0;
        for (int k = 0; k < STACK_COUNT; k++) {
            total += counts[c][k];
            used[k] = used[k] || counts[c][k] > 0;
        }
        max_total = total > max_total ? total : max_total;
    }
    const double width = 520, height = 380;
    kbv_plot pl = {.left = 62, .top = 104, .width = width - 62 - 16, .height = height - 104 - 58};
    pl.y.lo = 0;
    pl.y.hi = max_total > 0 ? max_total : 1;
    kbv_axis_nice(&pl.y);
    pl.y.label = "samples failing (count)";
    pl.x.lo = 0;
    pl.x.hi = 1;
    pl.x.label = "distribution of the draw (DESIGN section 4)";
    kbv_plot_layout(&pl);
    /* the count axis: whole samples only */
    if (pl.y.hi < 5)
        pl.y.hi = 5;
    kbv_plot_layout(&pl);

    kbv_svg s;
    kbv_svg_begin(&s, f, width, height, fig->title, fig->caption, standalone);
    kbv_svg_text(&s, 14, 22, fig->title, 14, KBV_START, 0, true, "#111111");
    kbv_legend_item items[STACK_COUNT];
    int n_items = 0;
    for (int k = 0; k < STACK_COUNT; k++)
        if (used[k] || k <= STACK_BUDGET)
            items[n_items++] =
                (kbv_legend_item){stack_labels[k], stack_colors[k], KBV_LEGEND_SWATCH, 0, false};
    kbv_svg_legend(&s, 14, 32, width - 28, items, n_items);
    kbv_svg_axes(&s, &pl, false);
    double cw = pl.width / DIST_COLUMNS;
    for (int c = 0; c < DIST_COLUMNS; c++) {
        const char *name = c == 0 ? "no draw" : kbv_dist_slot_name(c - 1);
        double x = pl.left + c * cw + cw * 0.18, w = cw * 0.64;
        double acc = 0;
        for (int k = 0; k < STACK_COUNT; k++) {
            if (!counts[c][k])
                continue;
            double y0 = kbv_axis_map(&pl.y, acc), y1 = kbv_axis_map(&pl.y, acc + counts[c][k]);
            char tip[200];
            snprintf(tip, sizeof tip, "%s: %d sample%s, %s", name, counts[c][k],
                     counts[c][k] == 1 ? "" : "s", stack_labels[k]);
            kbv_svg_rect(&s, x, y1, w, y0 - y1, stack_colors[k], "#333333", tip);
            acc += counts[c][k];
        }
        if (acc > 0) {
            char total[16];
            snprintf(total, sizeof total, "%.0f", acc);
            kbv_svg_text(&s, x + w / 2, kbv_axis_map(&pl.y, acc) - 4, total, 10, KBV_MIDDLE, 0,
                         false, "#222222");
        }
        kbv_svg_text(&s, x + w / 2, pl.top + pl.height + 16, name, 11, KBV_MIDDLE, 0, false,
                     "#222222");
    }
    if (max_total == 0)
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
    for (int m = 0; m < d->n_models; m++)
        ADD(KBV_FIG_FAILURES, m, char nm[64];
            short_text(d->models[m], 40, nm, sizeof nm);
            snprintf(out[n].name, sizeof out[n].name, "failures-m%d", m);
            snprintf(out[n].title, sizeof out[n].title, "Where %s fails, by distribution", nm);
            snprintf(out[n].caption, sizeof out[n].caption,
                     "Samples of this model failing a draw of each distribution, each sample "
                     "counted once per distribution under its first failing draw there: "
                     "outside allclose (the paper's rule, against the fp32 output), within "
                     "allclose but over the strict error budget (float64 oracle), or output not "
                     "fully written. 'no draw': samples that never produced an output, by "
                     "reason."));
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
    case KBV_FIG_SPEEDUP_BARS: KBV_TRY(fig_bars(f, d, fig, standalone, true)); break;
    case KBV_FIG_FAST1_BARS: KBV_TRY(fig_bars(f, d, fig, standalone, false)); break;
    case KBV_FIG_CDF: KBV_TRY(fig_cdf(f, d, fig, standalone)); break;
    case KBV_FIG_SCATTER: KBV_TRY(fig_scatter(f, d, fig, standalone)); break;
    case KBV_FIG_FAILURES: KBV_TRY(fig_failures(f, d, fig, standalone)); break;
    case KBV_FIG_HEATMAP: KBV_TRY(fig_heatmap(f, d, fig, standalone)); break;
    default: return kbv_fail(KBV_ERR_INVALID, "unknown figure kind %d", (int)fig->kind);
    }
    return KBV_OK;
}
