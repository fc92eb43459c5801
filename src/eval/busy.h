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
 * cheap: no tracing, two clock reads a stretch. */
#ifndef KBV_EVAL_BUSY_H
#define KBV_EVAL_BUSY_H

#include "record/results.h"

typedef struct kbv_busy_meter {
    int depth;                       /* stretches entered and not left (they nest) */
    double since;                    /* CLOCK_MONOTONIC seconds the outermost began */
} kbv_busy_meter;

/* Adds seconds of kind to rec->busy_s (zeroed the first time). rec NULL: nothing. */
void kbv_busy_add(kbv_record *rec, kbv_busy kind, double seconds);

/* A stretch of the evaluator's device work begins; stretches nest, and only
 * the outermost is timed, so no second is counted twice. */
void kbv_busy_enter(kbv_busy_meter *m);
/* ... and ends: the outermost charges its seconds to rec's `kind`. */
void kbv_busy_leave(kbv_busy_meter *m, kbv_record *rec, kbv_busy kind);

#endif
