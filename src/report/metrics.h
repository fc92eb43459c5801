/* Aggregate metrics (DESIGN section 5), per model, per level and pooled,
 * for each protocol. A problem counts when the model has a sample for it
 * and it is not degenerate; its result is its fastest correct sample. */
#ifndef KBV_METRICS_H
#define KBV_METRICS_H

#include <stdbool.h>

#include "core/status.h"
#include "record/results.h"

#define KBV_FAST_COUNT 5
extern const double kbv_fast_thresholds[KBV_FAST_COUNT];   /* 0, 0.5, 1, 1.5, 2 */
#define KBV_FAST_HEADLINE 2                                 /* Fast@1 */

typedef struct kbv_proto_metrics {
    int n_problems;               /* the denominator of every percentage */
    int n_correct;                /* problems with >= 1 correct sample */
    double correct_pct;
    double speedup;               /* geomean over correct problems of t_baseline / t_kernel */
    double fast_pct[KBV_FAST_COUNT];
    double fallback;              /* geomean over all problems of max(1, speedup), failures 1 */
    double mem_eff;               /* geomean over correct problems of m_baseline / m_kernel */
    double mem_eff_pct;           /* chosen sample's peak < baseline's, over all problems */
    double sol_fraction;          /* geomean over correct problems */
} kbv_proto_metrics;

typedef struct kbv_group_metrics {
    char model[128];              /* kbv_record_table_name: "MODEL @bf16" for a bf16 run */
    kbv_precision precision;
    int level;                    /* 0: all levels pooled */
    int n_problems, n_samples;
    kbv_proto_metrics p[KBV_PROTO_COUNT];
} kbv_group_metrics;

#define KBV_METRICS_MAX_EXCLUDED 64

typedef struct kbv_metrics {
    int n;
    kbv_group_metrics *groups;    /* per model (sorted): pooled (level 0), then each level */
    int n_excluded;               /* degenerate problems that had samples */
    char excluded[KBV_METRICS_MAX_EXCLUDED][16];
} kbv_metrics;

/* The exclusion hook: problems whose output is degenerate (constant, or
 * independent of an input), left out of every aggregate. */
bool kbv_problem_is_degenerate(int level, int id);

/* Computes the metrics of records (later records of the same model, problem
 * and sample replace earlier ones). */
kbv_status kbv_metrics_compute(const kbv_record *recs, int n, kbv_metrics *m);
void kbv_metrics_free(kbv_metrics *m);

#endif
