/* Aggregate metrics (DESIGN section 5), per model, per level and pooled,
 * for each protocol. Each problem's result is its fastest correct sample.
 * What a percentage is over -- its denominator -- is one of two views:
 *   suite    the suite's problems of the level less the degenerate ones
 *            (100, 97, 50: report/suite.h); a problem the model has no
 *            sample for, or whose generation failed, counts as failed.
 *            The paper's, and kbv report's default.
 *   sampled  the problems the model has samples for, degenerate ones left
 *            out: kbv eval's and kbv merge's end-of-run table, where a run
 *            may cover part of the suite on purpose. */
#ifndef KBV_METRICS_H
#define KBV_METRICS_H

#include <stdbool.h>

#include "core/status.h"
#include "record/results.h"
#include "report/suite.h"

#define KBV_FAST_COUNT 6
extern const double kbv_fast_thresholds[KBV_FAST_COUNT];   /* 0, 0.5, 0.8, 1, 1.5, 2 */
#define KBV_FAST_HEADLINE 3                                 /* Fast@1 */

typedef enum kbv_denominator {
    KBV_DENOM_SUITE = 0,          /* the suite's problems, less the degenerate ones */
    KBV_DENOM_SAMPLED,            /* the problems with samples */
    KBV_DENOM_COUNT
} kbv_denominator;

const char *kbv_denominator_name(kbv_denominator d);   /* "suite", "sampled" */
/* What a group's "problems" are, in words, for table headers. */
const char *kbv_denominator_text(kbv_denominator d);
kbv_status kbv_denominator_parse(const char *name, kbv_denominator *d);

typedef struct kbv_proto_metrics {
    int n_problems;               /* the denominator of every percentage */
    int n_correct;                /* problems with >= 1 correct sample */
    double correct_pct;
    double speedup;               /* geomean over correct problems of t_baseline / t_kernel */
    double fast_pct[KBV_FAST_COUNT];
    double fallback;              /* geomean over all problems of max(1, speedup), failures 1 */
    double mem_eff;               /* geomean over correct problems of m_baseline / m_kernel */
    double mem_eff_pct;           /* chosen sample's peak < baseline's, over all problems */
    double mem_increased_pct;     /* chosen sample's peak > baseline's, over solved problems
                                     (the paper's "28% increase peak memory") */
    double sol_fraction;          /* geomean over correct problems */
} kbv_proto_metrics;

/* One sample index alone (the paper's per-sample breakdown): sample s of
 * every problem, a problem without one failed. */
typedef struct kbv_sample_metrics {
    int sample;                   /* the index: records' "sample" */
    double compiled_pct;          /* problems whose sample s compiled */
    kbv_proto_metrics p[KBV_PROTO_COUNT];
} kbv_sample_metrics;

typedef struct kbv_mean_sd {
    double mean, sd;              /* over the sample indices; sd as numpy's std (ddof 0) */
} kbv_mean_sd;

/* The per-sample numbers' mean +- std, as scripts/benchmark_eval_analysis.py
 * prints them; a sample index with no correct problem has speedup 0 there,
 * and here. */
typedef struct kbv_per_sample {
    int n;                        /* sample indices */
    kbv_mean_sd compiled_pct, correct_pct, speedup, fallback, mem_eff_pct;
    kbv_mean_sd fast_pct[KBV_FAST_COUNT];
} kbv_per_sample;

/* The paper's decompositions (its section "Decomposing the two corrections"
 * and appendix "Tolerance sensitivity"): the same samples judged with the
 * baseline (fp32 or tf32) and the tests (standard, or standard + hidden)
 * crossed, and verified at the leaderboard's stored tolerance. Kernel
 * times are the standard timing's (standard and verified share it, as
 * the paper times only the standard run); the fp32 baseline is standard's,
 * the tf32 one verified's. */
typedef enum kbv_condition {
    KBV_COND_FP32_STD = 0,        /* fp32 baseline, standard tests: the paper's "before" */
    KBV_COND_FP32_HIDDEN,         /* fp32 baseline, standard + hidden tests */
    KBV_COND_TF32_STD,            /* tf32 baseline, standard tests */
    KBV_COND_TF32_HIDDEN,         /* tf32 baseline, standard + hidden: verified, at 1e-3 */
    KBV_COND_TF32_HIDDEN_1E4,     /* verified at 1e-4: records of the leaderboard gate
                                     (kbv eval --gate leaderboard) judge it, as the paper's
                                     stored hidden runs; correct without a promotion */
    KBV_COND_COUNT
} kbv_condition;

const char *kbv_condition_name(kbv_condition c);   /* "fp32+standard", ... */

typedef struct kbv_group_metrics {
    char model[128];              /* kbv_record_table_name: "MODEL @bf16" for a bf16 run */
    kbv_precision precision;
    int level;                    /* 0: all the model's levels pooled */
    int n_problems;               /* the denominator (view above) */
    int n_sampled;                /* of them, problems with >= 1 sample */
    int n_samples;
    int n_compiled;               /* problems with >= 1 sample that compiled */
    double compiled_pct;
    kbv_proto_metrics p[KBV_PROTO_COUNT];
    kbv_proto_metrics cond[KBV_COND_COUNT];  /* no problems where the records cannot say
                                                (1e-4 without the leaderboard gate) */
    int n_sample_ids;
    kbv_sample_metrics *per_sample;          /* [n_sample_ids], by sample index */
    kbv_per_sample spread[KBV_PROTO_COUNT];  /* their mean +- std */
} kbv_group_metrics;

#define KBV_METRICS_MAX_EXCLUDED 64

typedef struct kbv_metrics {
    kbv_denominator denominator;
    int n;
    kbv_group_metrics *groups;    /* per model (sorted): pooled (level 0), then each level */
    int n_excluded;               /* degenerate problems left out (suite view: those of the
                                     levels reported; sampled view: those with samples) */
    char excluded[KBV_METRICS_MAX_EXCLUDED][16];
    char degenerate_from[256];    /* where the degenerate list came from */
} kbv_metrics;

typedef struct kbv_metrics_opts {
    kbv_denominator denominator;
    const kbv_suite *suite;       /* NULL: kbv_suite_default(NULL) */
} kbv_metrics_opts;

/* A record's level and problem id, from its fields or its key "L1/19". */
void kbv_record_problem_of(const kbv_record *r, int *level, int *id);

/* Computes the metrics of records (later records of the same model, problem
 * and sample replace earlier ones). A model's groups are the levels it has
 * records of, and their pooled group. Problems a record names that the
 * suite lacks join it. */
kbv_status kbv_metrics_compute_with(const kbv_record *recs, int n, const kbv_metrics_opts *o,
                                    kbv_metrics *m);
/* The sampled view over the default suite: kbv eval's and kbv merge's table. */
kbv_status kbv_metrics_compute(const kbv_record *recs, int n, kbv_metrics *m);
void kbv_metrics_free(kbv_metrics *m);

#endif
