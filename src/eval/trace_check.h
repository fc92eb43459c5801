/* The strict protocol's judgement of a traced pass (kbv_child_trace_calls):
 * every kernel, copy and set on the harness stream and inside a call's
 * window, at least one kernel of the candidate's own object in every call,
 * the device's busy time consistent with the event-timed time, no L2
 * access-policy window. Pure: the CUDA side is src/runner/runner_trace.c.
 *
 * A kernel is the candidate's own when its launch came from the candidate's
 * object (kbv_trace_origin) and its name is a function that object defines.
 * Where no launch was seen (origin unknown) the name alone decides -- unless
 * the run allows vendor libraries: their kernels run on the same stream,
 * and a candidate may define a function named like one of them, so there
 * only the origin tells them apart, and a pass without origins (the
 * runner's probe kernel was not found by its launch) is incomplete. */
#ifndef KBV_TRACE_CHECK_H
#define KBV_TRACE_CHECK_H

#include <stdbool.h>
#include <stddef.h>

#include "eval/child.h"
#include "eval/symbols.h"

/* Slack allowed between the device's busy time and the events' time:
 * relative, and absolute per call (timestamps of two clocks' resolution). */
#define KBV_TRACE_BUSY_SLACK 0.10
#define KBV_TRACE_BUSY_SLACK_MS_PER_CALL 0.05

typedef struct kbv_trace_verdict {
    bool judged;               /* false: no trace here (CPU, or CUPTI refused) */
    const char *flag;          /* NULL: passed; else the failing flag's name */
    char reason[320];
} kbv_trace_verdict;

/* own: the functions the candidate's object defines (kbv_symbols.functions),
 * NULL when it has no object of its own (a KernelBench-format file: the
 * own-kernel rule is not judged here); vendor_libs: the run allows vendor libraries. */
void kbv_trace_judge(const kbv_child_trace *t, const kbv_symbol_list *own, bool vendor_libs,
                     kbv_trace_verdict *v);

/* Whether a kernel name from a trace (cut at KBV_TRACE_NAME_MAX - 1) is fn. */
bool kbv_trace_name_is(const char *traced, const char *fn);

#endif
