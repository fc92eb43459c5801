/* The report as one self-contained HTML page: inline CSS, inline SVG
 * figures and one inline script that sorts the tables (the page is whole
 * without it), no URLs, so it opens offline from disk or as a CI artefact.
 * Sections: summary (the three protocols side by side), figures, the
 * pooled table, ranks per level, all metrics, the per-sample numbers, the
 * decompositions, failures and audit flags, per-problem results, and every
 * sample's details under an anchor (#s-m0-L1-19-0) that the figures and
 * tables link to: its verdicts beside the candidate's source and the
 * problem's PyTorch reference, errors per distribution, first mismatching
 * element, timings with their spread, memory, flags, compiler output, and
 * the `kbv dump` command that reproduces each draw's inputs. Everything
 * taken from a results file is escaped. The writers: html.c (the page),
 * html_tables.c (the tables), html_sample.c (a sample's details). */
#ifndef KBV_HTML_H
#define KBV_HTML_H

#include <stdio.h>

#include "core/status.h"
#include "report/report_data.h"
#include "report/table.h"

typedef struct kbv_html_opts {
    const char *title;                 /* page title; NULL: "kbv report" */
    const kbv_summary_info *info;
    const char *const *inputs;         /* the results files read (sources are looked for
                                          beside them too) */
    int n_inputs;
    kbv_protocol focus;                /* protocol of the scatter and heat map */
} kbv_html_opts;

kbv_status kbv_html_write(FILE *f, const kbv_report_data *d, const kbv_html_opts *o);

/* The command that writes a draw's inputs, params and oracle for a sample:
 * "kbv dump L1/19 --full --dist D6 --seed N --out dump-L1_19-D6", where N
 * is the draw's seed derived from the record's run seed. */
void kbv_html_dump_command(const kbv_record *r, const char *problem_key, const char *draw_label,
                           char *buf, size_t cap);

#endif
