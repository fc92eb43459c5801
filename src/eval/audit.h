/* The problem audit (DESIGN section 2, issue "all of level 1"): across
 * distributions and seeds, is a problem's float64 output constant, or
 * independent of one of its inputs? Would trivial outputs (zeros, a copy of
 * the first input) pass the paper's allclose gate? And does the tf32
 * baseline itself pass every protocol's correctness gate (otherwise the gate
 * is unfair to TF32 kernels)? The baseline is judged exactly as a candidate
 * is (kbv_judge_draw): the standard/verified allclose gate against the fp32
 * baseline on the base and D1-D4 draws, the strict gate against the float64
 * oracle on every draw. */
#ifndef KBV_AUDIT_H
#define KBV_AUDIT_H

#include <stdbool.h>

#include "core/status.h"
#include "dist/draws.h"
#include "eval/verdict.h"
#include "exec/backend.h"
#include "graph/graph.h"

/* One correctness gate applied to the tf32 baseline over the audit's draws. */
typedef struct kbv_audit_gate {
    int judged;                                   /* draws judged */
    int failed;                                   /* of those, draws that fail the gate */
    int skipped;                                  /* not judged: the fp32 reference is not finite */
    char first_failure[KBV_REASON_CAP + 32];      /* "D2 seed 1: <reason>"; "" when none failed */
} kbv_audit_gate;

/* Ignored inputs named in a result (all are counted in n_ignored). */
#define KBV_AUDIT_NAMED_IGNORED 8

typedef struct kbv_audit_result {
    bool constant;                                /* the oracle's output never varied */
    int n_ignored;                                /* inputs the output does not depend on */
    char ignored[KBV_AUDIT_NAMED_IGNORED][64];    /* the first of them, by name */
    bool zeros_pass;                              /* all-zero output passes allclose on every base draw */
    bool copy_pass;                               /* a copy of input 0 passes allclose on every base draw */
    int draws;                                    /* draws examined */
    int n_dropped;                                /* hidden configs the protocols leave out */
    kbv_config_drop dropped[KBV_MAX_CONFIGS];     /* at this size, and why */
    int n_omit_finite;                            /* of those the definition omits: finite */
    char omit_finite[KBV_MAX_CONFIGS][8];         /* here on the check draw (the paper's
                                                     reason does not hold at this size) */
    kbv_audit_gate tf32_standard;                 /* allclose vs fp32, base and D1-D4 draws */
    kbv_audit_gate tf32_strict;                   /* the strict rules vs the oracle, every draw */
    double tf32_max_diff;                         /* largest |tf32 - fp32| on the standard gate's draws */
} kbv_audit_result;

/* degenerate: constant, or ignores an input -- up to float64 rounding (1e-9 of
 * the output's scale), not bit for bit. */
bool kbv_audit_degenerate(const kbv_audit_result *r);

/* Audits g on the backends of one device (be indexed by kbv_mode), with
 * `seeds` seeds per distribution: base, the problem's hidden configs (D1-D4
 * and extras, less those the protocols drop: eval/configs.h checks them
 * first), D5-D8. The degenerate checks use the base parameters throughout;
 * the gates redraw them for D5, as the protocols do. */
kbv_status kbv_audit_problem(kbv_backend *const be[KBV_MODE_COUNT], const kbv_graph *g,
                             int seeds, kbv_audit_result *out);

#endif
