/* Pieces the report page's writers share (html.c, html_tables.c,
 * html_sample.c): escaped text, table cells, and the page's sections. */
#ifndef KBV_HTML_PARTS_H
#define KBV_HTML_PARTS_H

#include <stdio.h>

#include "report/html.h"
#include "report/report_data.h"
#include "report/svg.h"

#define esc(f, s) kbv_xml_text((f), (s))

static inline void td_num(FILE *f, const char *text)
{
    fputs("<td class=\"n\">", f);
    esc(f, text);
    fputs("</td>", f);
}

/* A number cell that sorts by v (the page's script reads data-v). */
static inline void td_val(FILE *f, const char *text, double v)
{
    if (v == v)   /* not NaN */
        fprintf(f, "<td class=\"n\" data-v=\"%.9g\">", v);
    else
        fputs("<td class=\"n\">", f);
    esc(f, text);
    fputs("</td>", f);
}

static inline void td_int(FILE *f, int v)
{
    fprintf(f, "<td class=\"n\" data-v=\"%d\">%d</td>", v, v);
}

/* A header that sorts its table by column `col` when clicked. */
static inline void th_sort(FILE *f, int col, const char *cls, const char *text)
{
    fprintf(f, "<th data-col=\"%d\"%s%s%s>", col, cls ? " class=\"" : "", cls ? cls : "",
            cls ? "\"" : "");
    esc(f, text);
    fputs("</th>", f);
}

static inline void level_text(int level, char *buf, size_t cap)
{
    if (level)
        snprintf(buf, cap, "L%d", level);
    else
        snprintf(buf, cap, "all");
}

static inline void anchor_href(FILE *f, const char *anchor, const char *text)
{
    fprintf(f, "<a href=\"#%s\">", anchor);
    esc(f, text);
    fputs("</a>", f);
}

static inline void group_cells(FILE *f, const kbv_group_metrics *g, int model_index)
{
    char level[16];
    level_text(g->level, level, sizeof level);
    fprintf(f, "<td><a href=\"#problems-m%d\">", model_index);
    esc(f, g->model);
    fprintf(f, "</a></td><td>%s</td>", level);
}

/* The sections, in page order (html_tables.c, html_sample.c). */
void kbv_html_summary(FILE *f, const kbv_report_data *d);
void kbv_html_metric_tables(FILE *f, const kbv_report_data *d, kbv_protocol focus);
void kbv_html_failures(FILE *f, const kbv_report_data *d);
void kbv_html_problems(FILE *f, const kbv_report_data *d);
void kbv_html_samples(FILE *f, const kbv_report_data *d, const kbv_html_opts *o);

#endif
