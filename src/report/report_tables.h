/* The report's tables -- per model, per level and pooled, the three
 * protocols side by side -- as Markdown (for papers), CSV (one row per
 * model, level and protocol) and JSON (the core summary, with failure and
 * flag counts added). The numbers are the core metrics (report/metrics.h);
 * the failure and flag counts are the report data's tallies. */
#ifndef KBV_REPORT_TABLES_H
#define KBV_REPORT_TABLES_H

#include <stdio.h>

#include <jansson.h>

#include "core/status.h"
#include "report/report_data.h"
#include "report/table.h"

/* The baseline a protocol's speedups are measured against: fp32, tf32, tf32. */
const char *kbv_report_baseline_name(kbv_protocol p);
/* The same for the records of d: bf16 when they are a bf16 run's, both
 * ("tf32; @bf16 rows bf16") when fp32 and bf16 rows are side by side. */
const char *kbv_report_baseline_label(const kbv_report_data *d, kbv_protocol p, char *buf,
                                      size_t cap);

/* Number formats shared by the tables and the page; NAN prints "-".
 * The multiplication sign is UTF-8 "×" unless ascii. */
const char *kbv_report_fmt_pct(double x, char *buf, size_t cap);
const char *kbv_report_fmt_ratio(double x, bool ascii, char *buf, size_t cap);
const char *kbv_report_fmt_frac(double x, char *buf, size_t cap);
const char *kbv_report_fmt_ms(double x, char *buf, size_t cap);
const char *kbv_report_fmt_bytes(double x, char *buf, size_t cap);
/* "1.2 ± 0.3" (pct: one decimal, else two); "-" when undefined. */
const char *kbv_report_fmt_mean_sd(kbv_mean_sd v, bool pct, char *buf, size_t cap);

/* Whether any group under any protocol counted failure class k. */
bool kbv_report_fail_seen(const kbv_report_data *d, kbv_fail_kind k);

kbv_status kbv_report_write_markdown(FILE *f, const kbv_report_data *d,
                                     const kbv_summary_info *info);
kbv_status kbv_report_write_csv(FILE *f, const kbv_report_data *d);
kbv_status kbv_report_summary(const kbv_report_data *d, const kbv_summary_info *info,
                              const char *const *inputs, int n_inputs, json_t **out);

#endif
