/* The end-of-run report: a terminal table (one row per model, the three
 * protocols side by side) and the same numbers as a summary JSON. */
#ifndef KBV_TABLE_H
#define KBV_TABLE_H

#include <stdio.h>

#include <jansson.h>

#include "core/status.h"
#include "report/metrics.h"

/* What the numbers were computed over, for the header and the JSON. */
typedef struct kbv_summary_info {
    const char *results_path;
    const char *device;
    const char *size;
    int n_records;                 /* records the metrics were computed over */
    const char *gate;              /* the records' verified gate, "mixed", or NULL: not said */
    const char *precision;         /* the records' precision, "mixed", or NULL: not said */
    const char *vendor_libs;       /* the vendor libraries their runs allowed ("cublas,cudnn",
                                      "none"), "mixed", or NULL: not said */
    json_t *pace;                  /* the run's pace (eval/pace.h), kept as given; NULL: none */
} kbv_summary_info;

void kbv_table_print(FILE *f, const kbv_metrics *m, const kbv_summary_info *info);

kbv_status kbv_summary_json(const kbv_metrics *m, const kbv_summary_info *info, json_t **out);
/* Writes the summary JSON to path (through a temporary file and a rename). */
kbv_status kbv_summary_write(const char *path, const kbv_metrics *m, const kbv_summary_info *info);

#endif
