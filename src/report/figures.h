/* The report's figures, as SVG (report/svg.h):
 *   speedup before/after   grouped bars per model and level: standard (vs
 *                          fp32), verified (vs tf32) and strict; the
 *                          geometric-mean correct speedup, and Fast@1
 *   speedup CDF            per protocol, a step line per model (log x, 1x line)
 *   memory vs speed        per-problem scatter, log-log, quadrants at 1;
 *                          colour = model, marker = level
 *   failures by dist       per model, stacked bars: where samples fail
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
    KBV_FIG_CDF,                /* arg: protocol */
    KBV_FIG_SCATTER,            /* arg: protocol */
    KBV_FIG_FAILURES,           /* arg: model index */
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

/* A model's colour (Okabe-Ito palette, cycling). */
const char *kbv_figure_model_color(int model);
/* The heat map's colour for a speedup: red below 1x, white at 1x, blue
 * above, saturating at 1/8x and 8x. */
void kbv_figure_speedup_color(double speedup, char *buf, size_t cap);

#endif
