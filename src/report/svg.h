/* A small SVG writer for report figures: plot frames with linear or log
 * axes (ticks, grid, units), lines, step lines, points, bars, legends and
 * text. Output goes to a stdio stream (a file or open_memstream) and is a
 * pure function of the calls made: numbers are printed with fixed precision
 * and nothing depends on time, locale or addresses, so the same results give
 * byte-identical figures.
 *
 * Drawing calls do not return a status: a write error is sticky in the
 * stream, and kbv_svg_end reports it once. Every string drawn is escaped
 * (kbv_xml_text), so text from a results file cannot inject markup. */
#ifndef KBV_SVG_H
#define KBV_SVG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "core/status.h"

/* Writes s as XML/HTML character data or attribute value: & < > " ' become
 * entities, control characters other than tab and newline are dropped, and
 * bytes that are not valid UTF-8 become U+FFFD (a record's fixed-size fields
 * can cut a character in half). NULL writes nothing. */
void kbv_xml_text(FILE *f, const char *s);
/* The same for at most n bytes of s. */
void kbv_xml_text_n(FILE *f, const char *s, size_t n);

typedef struct kbv_svg {
    FILE *f;
    double width, height;
    int open_groups;            /* <g> and <a> still open, for kbv_svg_end */
} kbv_svg;

/* Opens <svg> of the given pixel size; title and desc are read by screen
 * readers and shown by browsers as the figure's name. A standalone figure
 * (a .svg file) gets the XML declaration and the SVG namespace; one inline
 * in HTML needs neither, so the page names no URL at all. */
void kbv_svg_begin(kbv_svg *s, FILE *f, double width, double height, const char *title,
                   const char *desc, bool standalone);
/* Closes what is open and </svg>; KBV_ERR_IO when the stream failed. */
kbv_status kbv_svg_end(kbv_svg *s);

/* ---- axes ------------------------------------------------------------- */

typedef struct kbv_axis {
    double lo, hi;              /* data range (both > 0 on a log axis) */
    bool log;                   /* log10 scale */
    double p0, p1;              /* pixels where lo and hi land (p1 < p0 for an upward y) */
    const char *label;          /* axis title with its unit, e.g. "speedup (x, log scale)" */
    const char *tick_suffix;    /* appended to tick labels ("x", "%"), or NULL */
} kbv_axis;

/* Pixel position of v, clamped to the axis range. */
double kbv_axis_map(const kbv_axis *a, double v);

/* Tick values in [lo, hi], ascending: on a linear axis multiples of 1, 2 or
 * 5 x 10^k (4 to 10 of them); on a log axis powers of ten, with 2 and 5
 * between them when the range spans few decades, and every other decade
 * when it spans many. Returns the count written (at most cap). */
int kbv_axis_ticks(const kbv_axis *a, double *ticks, int cap);

/* A tick label: "0.5", "1", "20", "1e-4", "3e+06" (shortest that reads well). */
void kbv_axis_format(double v, char *buf, size_t cap);

/* Widens [lo, hi] to tick-friendly ends (log: whole decades, or 1-2-5
 * steps for narrow ranges; linear: multiples of the tick step), and makes a
 * degenerate range non-empty. Non-positive values are ignored on log axes. */
void kbv_axis_nice(kbv_axis *a);

/* The plot area and its two axes (x: p0 = left, p1 = right; y: p0 =
 * bottom, p1 = top). */
typedef struct kbv_plot {
    double left, top, width, height;
    kbv_axis x, y;
} kbv_plot;

/* Sets the axes' pixel ranges from the plot area. */
void kbv_plot_layout(kbv_plot *p);
/* Frame, grid lines, ticks with labels and both axis titles. `x_ticks`
 * false leaves the x axis without numeric ticks (category axes). */
void kbv_svg_axes(kbv_svg *s, const kbv_plot *p, bool x_ticks);
/* A title centred above the plot area. */
void kbv_svg_plot_title(kbv_svg *s, const kbv_plot *p, const char *title);

/* ---- shapes ----------------------------------------------------------- */

typedef enum kbv_marker {
    KBV_MARKER_CIRCLE = 0,
    KBV_MARKER_SQUARE,
    KBV_MARKER_TRIANGLE,
    KBV_MARKER_DIAMOND,
    KBV_MARKER_COUNT
} kbv_marker;

/* `tip`, where taken, is a tooltip (<title>) shown on hover; NULL for none.
 * Colours are CSS colour strings chosen by the caller ("#0072b2"). */
void kbv_svg_rect(kbv_svg *s, double x, double y, double w, double h, const char *fill,
                  const char *stroke, const char *tip);
void kbv_svg_line(kbv_svg *s, double x1, double y1, double x2, double y2, const char *stroke,
                  double width, bool dashed);
/* A polyline through n points (nothing when n < 2). */
void kbv_svg_polyline(kbv_svg *s, const double *xs, const double *ys, int n, const char *stroke,
                      double width, bool dashed);
void kbv_svg_marker(kbv_svg *s, kbv_marker m, double x, double y, double size, const char *fill,
                    const char *tip);

typedef enum kbv_anchor { KBV_START = 0, KBV_MIDDLE, KBV_END } kbv_anchor;

/* Text at (x, y) (y is the baseline), rotated by `rotate` degrees about that
 * point; `bold` for titles. */
void kbv_svg_text(kbv_svg *s, double x, double y, const char *text, double size,
                  kbv_anchor anchor, double rotate, bool bold, const char *fill);

/* A link around the following shapes, to an in-page anchor ("#id"). */
void kbv_svg_link_begin(kbv_svg *s, const char *href);
void kbv_svg_link_end(kbv_svg *s);

/* ---- legends ---------------------------------------------------------- */

typedef enum kbv_legend_kind {
    KBV_LEGEND_SWATCH = 0,      /* a filled square (bars, heat map) */
    KBV_LEGEND_LINE,            /* a line segment (CDF) */
    KBV_LEGEND_MARKER,          /* a point marker (scatter) */
} kbv_legend_kind;

typedef struct kbv_legend_item {
    const char *label;
    const char *color;
    kbv_legend_kind kind;
    kbv_marker marker;          /* KBV_LEGEND_MARKER */
    bool dashed;                /* KBV_LEGEND_LINE */
} kbv_legend_item;

/* Items in rows from (x, y), wrapping at max_width; returns the height used. */
double kbv_svg_legend(kbv_svg *s, double x, double y, double max_width,
                      const kbv_legend_item *items, int n);

/* Rough width in pixels of text at a font size (for layout, not exact). */
double kbv_svg_text_width(const char *text, double size);

#endif
