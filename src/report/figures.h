/* The report's figures, as SVG (report/svg.h):
 *   speedup before/after   grouped bars per model and level: standard (vs
 *                          fp32), verified (vs tf32) and strict; the
 *                          geometric-mean correct speedup, and Fast@1
 *   speedup CDF            per protocol, a step line per model (log x, 1x line)
 *   memory vs speed        per-problem scatter, log-log, quadrants at 1;
 *                          colour = model, marker = level
 *   decomposed, tolerance  the 2x2's speedups; verified at 1e-3 and 1e-4
 *   per-level points       a panel per level, a point per model (speedup, memory)
 *   scatter grid           a per-problem panel per model, marker = level
 *   failures by dist       per model: samples failing each distribution
 *   heat map               model x problem: speedup colour, failures lettered
 * One list (kbv_figures_plan) drives both the page and the .svg files. */
#ifndef KBV_FIGURES_H
#define KBV_FIGURES_H

#include <stdbool.h>
#include <stdio.h>

#include "core/status.h"
#include "report/report_data.h"

typedef enum kbv_figure_kind {
    KBV_FIG_SPEEDUP_BARS = 0,   /* arg: unused */
    KBV_FIG_FAST1_BARS,
    KBV_FIG_DECOMPOSED,         /* the 2x2's speedups (the paper's Figure 7) */
    KBV_FIG_TOLERANCE,          /* verified correct % at 1e-3 and 1e-4 (its Figure 6) */
    KBV_FIG_CDF,                /* arg: protocol */
    KBV_FIG_SCATTER,            /* arg: protocol */
    KBV_FIG_LEVEL_POINTS,       /* arg: protocol; per level, a point per model (Figure 3) */
    KBV_FIG_SCATTER_GRID,       /* arg: protocol; a per-problem panel per model (Figure 4) */
    KBV_FIG_FAILURES,           /* arg: model index (Figure 5) */
    KBV_FIG_HEATMAP,            /* arg: protocol */
} kbv_figure_kind;

typedef struct kbv_figure {
    kbv_figure_kind kind;
    int arg;
    char name[48];              /* file stem and page anchor: "cdf-verified" */
    char title[160];
    char caption[600];          /* what is plotted and how to read it */
} kbv_figure;

/* The figures for d, in page order; `focus` is the protocol of the scatter
 * and the heat map. Returns the count (at most cap). */
int kbv_figures_plan(const kbv_report_data *d, kbv_protocol focus, kbv_figure *out, int cap);

/* Writes one figure as <svg> (standalone: a complete .svg file). */
kbv_status kbv_figure_write(FILE *f, const kbv_report_data *d, const kbv_figure *fig,
                            bool standalone);

/* ---- the figures' data, for checking them ---------------------------- */

/* Why a sample stopped before its draws said anything: the fault column. */
typedef enum kbv_fault_stack {
    KBV_STACK_COMPILE = 0, KBV_STACK_LOAD, KBV_STACK_CRASH, KBV_STACK_TIMEOUT, KBV_STACK_OTHER,
    KBV_STACK_COUNT
} kbv_fault_stack;

/* Where a model's samples fail, by distribution, as the paper counts (every
 * failed config of a sample, not only the first): a sample fails a
 * distribution when one of its draws there failed the rule of the protocol
 * the distribution belongs to -- allclose for base, D1-D4 and the extra
 * hidden configs (standard, verified), strict's for D5-D8 (when strict was
 * evaluated). A draw outside allclose that only strict judges, or over
 * strict's budget where allclose judges, is not a failure there. A sample
 * whose candidate faulted (compile, load, crash, timeout, ...) is counted
 * once in `fault` under that reason, besides any draw it failed first. */
typedef struct kbv_failure_counts {
    int samples;                       /* the model's samples, degenerate problems left out */
    int dist[KBV_DIST_SLOTS];          /* by kbv_dist_slot */
    int fault[KBV_STACK_COUNT];
} kbv_failure_counts;

void kbv_figure_failure_counts(const kbv_report_data *d, int model, kbv_failure_counts *out);

/* A model's point for a problem on the per-problem scatters: its chosen
 * sample's speedup and m_baseline / m_kernel under protocol p; false when
 * it has none (unsolved, untimed, no memory, or a degenerate problem). */
bool kbv_figure_problem_point(const kbv_report_data *d, int model, int problem, kbv_protocol p,
                              double *speedup, double *mem_ratio);

/* A model's colour (Okabe-Ito palette, cycling). */
const char *kbv_figure_model_color(int model);
/* The heat map's colour for a speedup: red below 1x, white at 1x, blue
 * above, saturating at 1/8x and 8x. */
void kbv_figure_speedup_color(double speedup, char *buf, size_t cap);

#endif
