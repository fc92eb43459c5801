/* The paper's per-problem decomposition of its two corrections (appendix
 * "Per-problem decomposition", its Table of TF32 only / hidden only / both
 * / neither): a problem is affected by the TF32 baseline when at least one
 * model's speedup on it drops by 50% or more (relative) when the baseline
 * is switched from fp32 to tf32, and by the hidden tests when at least one
 * model solves it under the standard tests but under none of its samples
 * with the hidden configs added (verified). Both need the model to have
 * solved it under fp32 + standard; the union is over the report's models.
 * The speedup compared is that of the model's fastest standard-correct
 * sample against each baseline: drop = 1 - t_tf32 / t_fp32. */
#ifndef KBV_ATTRIBUTION_H
#define KBV_ATTRIBUTION_H

#include "core/status.h"
#include "report/report_data.h"

typedef enum kbv_attribution_class {
    KBV_ATTR_NEITHER = 0,
    KBV_ATTR_TF32_ONLY,
    KBV_ATTR_HIDDEN_ONLY,
    KBV_ATTR_BOTH,
    KBV_ATTR_COUNT
} kbv_attribution_class;

const char *kbv_attribution_class_name(kbv_attribution_class c);   /* "TF32 only", ... */

#define KBV_ATTRIBUTION_DROP 0.5   /* the paper's ">= 50% relative drop" */

typedef struct kbv_attribution_row {
    int level;                     /* 0: every level */
    int count[KBV_ATTR_COUNT];
    int total;                     /* the level's problems (the report's denominator) */
} kbv_attribution_row;

typedef struct kbv_attribution_problem {
    int cls;                       /* kbv_attribution_class; -1: degenerate, left out */
    int tf32_model, hidden_model;  /* a model that meets each criterion, -1 when none */
    double drop;                   /* the largest relative drop seen (NAN: no model solved it) */
} kbv_attribution_problem;

typedef struct kbv_attribution {
    int n_rows;
    kbv_attribution_row *rows;     /* each level of the report, then the pooled row */
    kbv_attribution_problem *problems;   /* [d->n_problems] */
} kbv_attribution;

kbv_status kbv_attribution_compute(const kbv_report_data *d, kbv_attribution *a);
void kbv_attribution_free(kbv_attribution *a);

#endif
