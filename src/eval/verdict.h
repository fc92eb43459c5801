/* Judging: turns comparison statistics into pass/fail with a reason
 * (DESIGN section 4), and timing samples into summaries and checks.
 * Pure functions of their arguments; the protocol's steps (judge_call.c,
 * timing.c) gather the statistics. */
#ifndef KBV_VERDICT_H
#define KBV_VERDICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "exec/backend.h"

#define KBV_REASON_CAP 320

/* Budget multipliers and floors of the strict rule. The floors are DESIGN's
 * 1e-6 (relative L2, and times max |oracle| for the max error) for float32
 * outputs: 1e-3 of the type's allclose tolerance, which is how kbv derives
 * them for float16/bfloat16 outputs (1e-5; kbv_strict_floor). */
#define KBV_STRICT_FACTOR 8.0
#define KBV_STRICT_FLOOR_OF_TOL 1e-3

/* The floor of the relative L2 budget and of the max-error budget (times
 * max |oracle|) for an output dtype: KBV_STRICT_FLOOR_OF_TOL x its allclose
 * tolerance. */
double kbv_strict_floor(kbv_dtype dt);
/* Timing checks. */
#define KBV_SOL_MARGIN 0.9               /* faster than 0.9 x the speed-of-light floor fails */
#define KBV_REVIEW_SPEEDUP 10.0          /* above this vs tf32: advisory flag */

/* sqrt(sq_err / sq_ref); 0 when sq_err == 0, +inf when sq_ref == 0 < sq_err. */
double kbv_rel_l2(double sq_err, double sq_ref);

/* allclose tolerance (atol = rtol) for an output dtype: 1e-2 for fp16/bf16, else 1e-3. */
double kbv_allclose_tol(kbv_dtype dt);
/* The leaderboard gate's stored tolerance: the paper's hidden runs were
 * judged at 1e-4 for float32 (its KB_FP32_TOL) and at the usual 1e-2 for
 * fp16/bf16; its promotion threshold is kbv_allclose_tol. */
double kbv_leaderboard_stored_tol(kbv_dtype dt);

/* What one draw is judged on: per output, the candidate's statistics against
 * (fp32 reference, oracle, fp32-strict) and the tf32 baseline's against the
 * same, plus the integrity audit's finding. */
typedef struct kbv_judge_input {
    int n_outputs;
    const kbv_tensor *outputs;        /* shapes and names, for messages */
    const kbv_compare_stats *cand;    /* [n_outputs] */
    const kbv_compare_stats *tf32;    /* [n_outputs]; NULL: compared without the float64 oracle
                                         (strict not evaluated), strict not judged */
    double tol;                       /* allclose atol = rtol */
    const char *integrity;            /* NULL, or "input 'A' modified", ... */
} kbv_judge_input;

typedef struct kbv_draw_verdict {
    bool std_skipped;                 /* the fp32 reference is not finite: not judged */
    bool std_pass;                    /* allclose (meaningless when skipped) */
    bool strict_skipped;              /* no oracle (in->tf32 NULL): strict not judged */
    bool strict_pass;                 /* false when skipped */
    int64_t n, allclose_fail, unjudged, poison_left;
    int64_t oracle_nonfinite;         /* of the unjudged: the float64 oracle NaN or +-inf */
    double max_abs_diff;
    /* of the output closest to (or furthest over) its budget */
    double rel_l2, budget_rel_l2, max_err, budget_max_err;
    int first_bad_ndim;               /* -1: none */
    int64_t first_bad[KBV_MAX_DIMS];  /* multi-index of the first failing element */
    char std_reason[KBV_REASON_CAP];  /* "" when passed or skipped */
    char strict_reason[KBV_REASON_CAP];
} kbv_draw_verdict;

void kbv_judge_draw(const kbv_judge_input *in, kbv_draw_verdict *v);

/* One draw as the paper's hidden run stored it (the leaderboard gate):
 * allclose at kbv_leaderboard_stored_tol, in = the candidate's statistics
 * at that tolerance (allclose fields only), and the max |diff| its harness
 * recorded, torch.max(abs(ref - out)): NaN when any output element is NaN,
 * else inf when one is inf. */
typedef struct kbv_stored_draw {
    bool skipped;                     /* the fp32 reference is not finite: not judged */
    bool pass;
    double max_diff;
    char reason[KBV_REASON_CAP];      /* "" when passed or skipped */
} kbv_stored_draw;

void kbv_judge_stored(const kbv_judge_input *in, kbv_stored_draw *d);

/* A protocol's running verdict over its draws: the first failure decides. */
typedef struct kbv_tally {
    int passed, total, skipped;
    bool failed;
    char reason[KBV_REASON_CAP];
} kbv_tally;

void kbv_tally_add_std(kbv_tally *t, const char *label, const kbv_draw_verdict *v);
void kbv_tally_add_strict(kbv_tally *t, const char *label, const kbv_draw_verdict *v);
/* Records a failure that is not a draw's (fault, audit); the first one wins. */
void kbv_tally_fail(kbv_tally *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Correct: no failure and at least one judged draw. Sets the reason when
 * every draw was skipped. */
bool kbv_tally_correct(kbv_tally *t);

/* The verified protocol under the leaderboard gate, as
 * scripts/generate_leaderboard.py re-reads a hidden run (src/eval.py): the
 * standard draws at the stored tolerance; the hidden configs only when every
 * standard draw passed there (the harness ran them only then); and a sample
 * whose standard draws failed is promoted when no call faulted and Python's
 * max() over the failed draws' max |diff|, each rounded to 6 decimals, in
 * draw order, is below the promotion threshold. */
typedef struct kbv_gate_tally {
    kbv_tally stored;                 /* the draws judged as stored */
    bool std_failed;                  /* a standard draw failed: the hidden configs never ran */
    bool std_fault;                   /* a call faulted during the standard draws */
    int n_diffs;
    double max_diff;                  /* of the failed standard draws, as Python's max() */
} kbv_gate_tally;

void kbv_gate_add_standard(kbv_gate_tally *t, const char *label, const kbv_stored_draw *d);
void kbv_gate_add_hidden(kbv_gate_tally *t, const char *label, const kbv_stored_draw *d);
/* A fault (crash, timeout, ...) during a standard draw, or during a hidden config. */
void kbv_gate_fault(kbv_gate_tally *t, bool in_standard, const char *why);
/* Correct as the leaderboard counts it; *promoted when by promotion (its
 * why in note, "" otherwise). */
bool kbv_gate_correct(kbv_gate_tally *t, double promote_below, bool *promoted, char *note,
                      size_t cap);

/* Summary of timed calls. */
typedef struct kbv_time_stats {
    int n;
    double mean, sd;                  /* sample standard deviation */
    double median, q1, q3, iqr;       /* quartiles by linear interpolation */
    double sum;
} kbv_time_stats;

void kbv_time_stats_of(const double *ms, int n, kbv_time_stats *st);

/* Times are credible when the evaluator's wall clock over the request is at
 * least their sum. */
bool kbv_timing_credible(double sum_reported_ms, double wall_ms);
/* A time below KBV_SOL_MARGIN x the speed-of-light floor (kbv_sol_floor_seconds) is
 * impossible. */
bool kbv_below_sol(double t_ms, double sol_ms);

/* Compact scientific notation for reasons and tables: 3.1e-2 with
 * decimals = 1, 1e-3 with decimals = 0. */
const char *kbv_fmt_sci(double x, int decimals, char *buf, size_t cap);

#endif
