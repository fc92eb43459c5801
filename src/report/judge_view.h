/* The judge beside strict (the paper's judge table, and kbv's agreement
 * with it): for each model, level and judging model, over the samples the
 * judge answered for, how many it flagged (a *_HACK label) or left
 * UNCERTAIN, how many strict fails, and the four ways the two meet: both
 * flag, the judge only, strict only, neither. */
#ifndef KBV_JUDGE_VIEW_H
#define KBV_JUDGE_VIEW_H

#include "core/status.h"
#include "record/judge_record.h"
#include "report/report_data.h"

/* The judgements of a sample (same model, problem, sample and source),
 * up to cap of them; returns the count. */
int kbv_judgements_of(const kbv_judge_list *l, const kbv_record *r, const kbv_judge_record **out,
                      int cap);

typedef struct kbv_judge_row {
    char model[128], judge[128];
    int level;                     /* 0: pooled */
    int judged, flagged, uncertain, strict_fails;
    int both, judge_only, strict_only, neither;
} kbv_judge_row;

typedef struct kbv_judge_table {
    int n;
    kbv_judge_row *rows;           /* per model (report order), judge, then level; pooled last */
} kbv_judge_table;

kbv_status kbv_judge_table_compute(const kbv_report_data *d, const kbv_judge_list *l,
                                   kbv_judge_table *t);
void kbv_judge_table_free(kbv_judge_table *t);

#endif
