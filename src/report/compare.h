/* `kbv report --compare A.jsonl B.jsonl`: per problem, what changed between
 * two runs (one model twice, or two models): the verdict, and the kernel
 * time of each run's chosen sample (its fastest correct one).
 *
 * Whether a difference in time is real is judged against the noise between
 * runs, not only inside one: two runs of identical code differ by far more
 * than one run's spread (the clock, the machine's load, a re-measured
 * baseline). That run-to-run noise is the standard deviation of
 * log(t_run1 / t_run2) between two runs of the same code, taken from, in
 * this order:
 *   repeats     results files of repeated runs of the same code
 *               (--noise FILE..., e.g. bench/repeatability.sh's run-N/
 *               results.jsonl): per sample (model, problem and sample), from
 *               its times across the runs; else per problem, over the
 *               repeats' samples of it; else the pooled value;
 *   baselines   A's and B's own baselines when each run measured them anew
 *               (identical code in both runs): a robust spread (1.4826 x the
 *               median |log ratio|) over the problems, baselines the two
 *               share bit for bit (one cached measurement) left out;
 *   none        differences are shown, not judged.
 * A difference is no change when |log(tA / tB)| <= 2 sqrt(n^2 + eA^2 + eB^2),
 * n the run-to-run noise (A's and B's samples' noises combined as
 * sqrt((nA^2 + nB^2) / 2)) and eA, eB the relative standard error of each
 * run's own time: its recorded spread as a standard deviation (sd, or
 * IQR / 1.349 for strict) over the root of its trials (100 for the mean of
 * standard and verified; for strict's median 1.2533 / sqrt(30), 30 being
 * its fewest trials). */
#ifndef KBV_COMPARE_H
#define KBV_COMPARE_H

#include <stdbool.h>
#include <stdio.h>

#include "core/status.h"
#include "report/report_data.h"

typedef enum kbv_change {
    KBV_CHANGE_SAME = 0,      /* both correct, times within the noise */
    KBV_CHANGE_FASTER,        /* both correct, B faster beyond the noise */
    KBV_CHANGE_SLOWER,        /* both correct, B slower beyond the noise */
    KBV_CHANGE_UNTIMED,       /* both correct, a time is missing */
    KBV_CHANGE_FIXED,         /* wrong in A, correct in B */
    KBV_CHANGE_BROKEN,        /* correct in A, wrong in B */
    KBV_CHANGE_BOTH_WRONG,
    KBV_CHANGE_ONLY_A,        /* B has no sample of the problem */
    KBV_CHANGE_ONLY_B,
    KBV_CHANGE_UNJUDGED,      /* both correct, times differ, the run-to-run noise unknown */
    KBV_CHANGE_COUNT
} kbv_change;

const char *kbv_change_name(kbv_change c);   /* "no change", "faster", ... */

/* The noise rule alone: how B's time compares with A's. sigma_a, sigma_b
 * are the standard errors of each run's time (ms, NAN: not recorded, taken
 * as 0),
 * run_noise the sd of log(t_run1 / t_run2) between runs (NAN: unknown, and
 * a difference is KBV_CHANGE_UNJUDGED). */
kbv_change kbv_compare_times(double t_a, double sigma_a, double t_b, double sigma_b,
                             double run_noise, bool *noise_known);

typedef enum kbv_noise_source {
    KBV_NOISE_NONE = 0,       /* unknown */
    KBV_NOISE_REPEATS,        /* repeated runs of the same code (--noise) */
    KBV_NOISE_BASELINES,      /* A's and B's baselines, each measured anew */
} kbv_noise_source;

/* The run-to-run noise of each protocol's kernel times. */
typedef struct kbv_noise {
    kbv_noise_source source[KBV_PROTO_COUNT];
    double pooled[KBV_PROTO_COUNT];   /* sd of log(t1 / t2) between two runs */
    int n_estimates[KBV_PROTO_COUNT]; /* sample times or baseline pairs behind it */
    int n_runs;                       /* repeats read */
    int n_problems;
    struct {
        int level, id;
        double sd[KBV_PROTO_COUNT];   /* NAN: none for this problem */
    } *problems;                      /* repeats only, sorted by level and id */
    int n_keys;
    struct {
        char model[128];
        int level, id, sample;
        double sd[KBV_PROTO_COUNT];   /* NAN: fewer than two timed runs */
    } *keys;                          /* repeats only: each sample's own */
} kbv_noise;

/* The noise from repeated runs of the same code: each file one run. */
kbv_status kbv_noise_from_repeats(const char *const *paths, int n_paths, kbv_noise *n);
/* The run-to-run noise of protocol p for a sample: its own in the repeats,
 * else its problem's (over the repeats' samples of it), else the pooled
 * value; NAN when unknown. */
double kbv_noise_of(const kbv_noise *n, kbv_protocol p, const char *model, int level, int id,
                    int sample);
void kbv_noise_free(kbv_noise *n);

/* A recorded spread as a standard deviation: sd as is, IQR / 1.349. */
double kbv_compare_sigma(const kbv_proto_result *r, kbv_protocol p);
/* The standard error of a recorded time: kbv_compare_sigma over the root of
 * its trials (see above). */
double kbv_compare_stderr(const kbv_proto_result *r, kbv_protocol p);

/* One side of one problem. */
typedef struct kbv_compare_side {
    const kbv_report_sample *sample;   /* chosen (or shown failing) sample; NULL: absent */
    bool correct;
    double t_ms, spread_ms, sigma_ms, stderr_ms, speedup;
} kbv_compare_side;

typedef struct kbv_compare_row {
    int level, id;
    char key[16];
    kbv_compare_side a, b;
    kbv_change change;
    bool noise_known;
    double noise;             /* the run-to-run noise used (sd of the log ratio) */
} kbv_compare_row;

typedef struct kbv_comparison {
    kbv_report_data a, b;
    const char *path_a, *path_b;
    int model_a, model_b;     /* indices into a.models and b.models */
    int n_rows;
    kbv_compare_row *rows[KBV_PROTO_COUNT];   /* [n_rows] each, by level and id */
    int counts[KBV_PROTO_COUNT][KBV_CHANGE_COUNT];
    kbv_noise noise;
} kbv_comparison;

/* Reads both files (and the repeats, when n_noise > 0) and compares.
 * model_a / model_b choose a model in a file that holds several (NULL: the
 * file must hold exactly one). */
kbv_status kbv_compare_load(const char *path_a, const char *path_b, const char *model_a,
                            const char *model_b, const char *const *noise_paths, int n_noise,
                            kbv_comparison *c);
/* Builds the rows from c->a and c->b (loaded by the caller) and the models. */
kbv_status kbv_compare_build(kbv_comparison *c);
void kbv_compare_free(kbv_comparison *c);

/* One protocol as a terminal table, and all three as Markdown. */
void kbv_compare_print(FILE *f, const kbv_comparison *c, kbv_protocol p);
kbv_status kbv_compare_markdown(FILE *f, const kbv_comparison *c);

#endif
