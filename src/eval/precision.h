/* What each precision (record/precision.h) runs: the baseline every
 * protocol is timed and judged against, the references a draw computes, and
 * the backends an evaluator needs.
 *
 *                         fp32                      bf16
 *   standard's baseline   fp32 (allclose reference) bf16 (allclose reference)
 *   verified's baseline   tf32                      bf16
 *   strict's baseline     tf32 (its error budget)   bf16 (its error budget)
 *   strict's class rule   fp32-strict               bf16
 *   strict also reports   fp32-strict's time        --
 *   the oracle            fp64                      fp64 (on the bf16 values)
 *
 * The paper's BF16 run had one baseline, PyTorch's bf16 eager
 * (baseline_time_torch_bf16); kbv's bf16 mode is that (exec/backend.h). */
#ifndef KBV_EVAL_PRECISION_H
#define KBV_EVAL_PRECISION_H

#include <stdbool.h>

#include "exec/backend.h"
#include "record/precision.h"

typedef struct kbv_precision_modes {
    kbv_mode reference;        /* standard's baseline; the allclose reference of every draw */
    kbv_mode verified;         /* verified's baseline */
    kbv_mode strict;           /* strict's baseline, whose error sets strict's budget */
    kbv_mode strict_class;     /* the baseline strict's class rule agrees with */
    bool report_fp32_strict;   /* strict records fp32-strict's time beside its own */
    unsigned timed;            /* bit m: mode m's baseline is measured (kbv_baselines_get) */
    unsigned backends;         /* bit m: the evaluator holds a backend of mode m (fp32 always:
                                  the device services, and the hidden configs' check, which
                                  the paper made once in float32 for every precision) */
} kbv_precision_modes;

const kbv_precision_modes *kbv_precision_modes_get(kbv_precision p);

/* The baseline mode protocol p is timed against (its memory baseline too). */
kbv_mode kbv_precision_baseline(kbv_precision prec, int protocol);

/* The baselines a run of `protocols` (bit p: protocol p) has measured, a
 * subset of timed: each protocol's own (kbv_precision_baseline) and, with
 * strict, fp32-strict's where strict reports it. A verified-only fp32 run
 * times tf32 alone, not fp32-strict and fp32 beside it. */
unsigned kbv_precision_timed_for(kbv_precision prec, unsigned protocols);

#endif
