/* The degenerate-problem audit (DESIGN section 2, issue "all of level 1"):
 * across distributions and seeds, is a problem's float64 output constant, or
 * independent of one of its inputs? Would trivial outputs (zeros, a copy of
 * the first input) pass the paper's allclose gate? Does the TF32 baseline
 * itself pass that gate (otherwise the gate is unfair to TF32 kernels)? */
#ifndef KBV_AUDIT_H
#define KBV_AUDIT_H

#include <stdbool.h>

#include "core/status.h"
#include "exec/backend.h"
#include "graph/graph.h"

typedef struct kbv_audit_result {
    bool constant;                                /* the oracle's output never varied */
    int n_ignored;
    char ignored[KBV_DEF_MAX_INPUTS][64];         /* inputs the output does not depend on */
    bool zeros_pass;                              /* all-zero output passes allclose on every base draw */
    bool copy_pass;                               /* a copy of input 0 passes allclose on every base draw */
    int draws;                                    /* draws examined */
    int tf32_fail;                                /* base and D1-D4 draws where tf32 fails allclose vs fp32 */
    int tf32_judged;
    double tf32_max_diff;                         /* its largest |tf32 - fp32| */
} kbv_audit_result;

/* degenerate: constant, or ignores an input. */
bool kbv_audit_degenerate(const kbv_audit_result *r);

/* Audits g on the fp32, tf32 and fp64 backends of one device (be indexed by
 * kbv_mode), with `seeds` seeds per distribution (base and D1-D8). */
kbv_status kbv_audit_problem(kbv_backend *const be[KBV_MODE_COUNT], const kbv_graph *g,
                             int seeds, kbv_audit_result *out);

#endif
