#include "eval/trace_check.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

bool kbv_trace_name_is(const char *traced, const char *fn)
{
    const size_t cut = KBV_TRACE_NAME_MAX - 1;
    if (strlen(traced) < cut)
        return strcmp(traced, fn) == 0;
    return strncmp(traced, fn, cut) == 0;
}

static bool defined_by(const char *traced, const kbv_symbol_list *own)
{
    for (int i = 0; own && i < own->n; i++)
        if (kbv_trace_name_is(traced, own->names[i]))
            return true;
    return false;
}

/* Whether names[i] of t is a kernel of the candidate's own (trace_check.h). */
static bool is_own(const kbv_child_trace *t, int i, const kbv_symbol_list *own, bool vendor_libs)
{
    kbv_trace_origin origin = t->origins ? (kbv_trace_origin)t->name_origin[i] : KBV_ORIGIN_UNKNOWN;
    if (origin == KBV_ORIGIN_OTHER || (origin == KBV_ORIGIN_UNKNOWN && vendor_libs))
        return false;
    return defined_by(t->names[i], own);
}

/* "NAME", with where it came from when that was another object. */
static void describe_kernel(const kbv_child_trace *t, int i, char *buf, size_t cap)
{
    kbv_trace_origin origin = t->origins ? (kbv_trace_origin)t->name_origin[i] : KBV_ORIGIN_UNKNOWN;
    if (origin == KBV_ORIGIN_OTHER && t->name_module[i][0])
        snprintf(buf, cap, "%.100s, launched from %.47s", t->names[i], t->name_module[i]);
    else if (origin == KBV_ORIGIN_OTHER)
        snprintf(buf, cap, "%.100s, launched from another object", t->names[i]);
    else if (origin == KBV_ORIGIN_UNKNOWN && t->origins)
        snprintf(buf, cap, "%.100s, launched by no call the trace saw", t->names[i]);
    else
        snprintf(buf, cap, "%.120s", t->names[i]);
}

static void fail(kbv_trace_verdict *v, const char *flag, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static void fail(kbv_trace_verdict *v, const char *flag, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    v->flag = flag;
    vsnprintf(v->reason, sizeof v->reason, fmt, ap);
    va_end(ap);
}

void kbv_trace_judge(const kbv_child_trace *t, const kbv_symbol_list *own, bool vendor_libs,
                     kbv_trace_verdict *v)
{
    memset(v, 0, sizeof *v);
    if (!t->available)
        return;
    v->judged = true;
    if (t->lost > 0) {
        fail(v, "trace-incomplete", "traced pass: %d activity records were lost (too many "
             "launches to account for)", t->lost);
        return;
    }
    if (t->foreign_stream > 0) {
        fail(v, "trace-foreign-stream", "traced pass: %s (%d records off the stream the "
             "harness gave)", t->first_offender, t->foreign_stream);
        return;
    }
    if (t->outside_call > 0) {
        fail(v, "trace-outside-call", "traced pass: %s (%d records outside the calls' "
             "windows)", t->first_offender, t->outside_call);
        return;
    }
    if (vendor_libs && !t->origins) {
        fail(v, "trace-incomplete", "traced pass: the kernels' launches could not be traced to "
             "the objects they came from, which a run that allows vendor libraries needs to "
             "tell the candidate's kernels from theirs");
        return;
    }
    for (int c = 0; own && c < t->calls; c++) {
        bool found = false;
        for (int i = 0; i < t->n_names && !found; i++)
            found = (t->call_names[c] >> i & 1u) && is_own(t, i, own, vendor_libs);
        if (!found) {
            char ran[KBV_TRACE_NAME_MAX + 64] = "no kernel at all";
            for (int i = 0; i < t->n_names; i++)
                if (t->call_names[c] >> i & 1u) {
                    describe_kernel(t, i, ran, sizeof ran);
                    break;
                }
            fail(v, "trace-no-own-kernel", "traced pass: call %d ran no kernel of the "
                 "candidate's own object (it ran: %.170s)", c, ran);
            return;
        }
    }
    const double allowed = t->event_ms * (1.0 + KBV_TRACE_BUSY_SLACK) +
                           KBV_TRACE_BUSY_SLACK_MS_PER_CALL * t->calls;
    if (t->busy_ms > allowed) {
        fail(v, "trace-time-mismatch", "traced pass: the device was busy %.3f ms inside the "
             "calls, the events timed %.3f ms", t->busy_ms, t->event_ms);
        return;
    }
    if (t->policy_window > 0) {
        fail(v, "l2-persisting", "traced pass: %d kernels were launched with an L2 "
             "access-policy window", t->policy_window);
        return;
    }
}
