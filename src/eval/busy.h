/* How long the device was busy during a sample (rec->busy_s), by whose work.
 *
 * The candidate's share is what the runner measured: the sum of every call's
 * time on its clock (CUDA events around each kbv_forward on its stream; on
 * the CPU, CLOCK_MONOTONIC around it), over every request of the sample.
 * The evaluator's share is timed on the host around each stretch of its
 * device work that ends in a synchronisation (a fill and its sync, the
 * references, a comparison that returns its statistics): on the CPU that is
 * exactly the time inside the backend's compute; on a GPU it also counts the
 * launch latency the device waits through, so it is an upper bound. Both are
 * cheap: no tracing, two clock reads a stretch.
 *
 * Each stretch of the evaluator's names the kind of work it waits for
 * (kbv_check_work): a stretch begun inside another charges its own seconds
 * to its kind and the outer one the rest, so the kinds add up to the
 * checks' seconds and none is counted twice. A stretch that waits for work
 * enqueued by another kind would take that kind's seconds: the evaluator
 * synchronises each kind's work before the next begins. */
#ifndef KBV_EVAL_BUSY_H
#define KBV_EVAL_BUSY_H

#include "record/results.h"

#define KBV_BUSY_MAX_DEPTH 8

typedef struct kbv_busy_meter {
    int depth;                       /* stretches entered and not left (they nest) */
    double mark;                     /* CLOCK_MONOTONIC seconds the innermost began or resumed */
    kbv_check_work work[KBV_BUSY_MAX_DEPTH];   /* each open stretch's kind, outermost first */
} kbv_busy_meter;

/* Adds seconds of kind to rec->busy_s (zeroed the first time). rec NULL: nothing. */
void kbv_busy_add(kbv_record *rec, kbv_busy kind, double seconds);

/* A stretch of the evaluator's device work of kind `work` begins; stretches
 * nest, and each second is charged once, to the innermost open stretch:
 * to rec's busy_s "checks" and its checks_s[work]. */
void kbv_busy_enter(kbv_busy_meter *m, kbv_record *rec, kbv_check_work work);
/* ... and ends (one leave more than the enters: ignored). */
void kbv_busy_leave(kbv_busy_meter *m, kbv_record *rec);

#endif
