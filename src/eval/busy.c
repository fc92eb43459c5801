#include "eval/busy.h"

#include "core/clock.h"

void kbv_busy_add(kbv_record *rec, kbv_busy kind, double seconds)
{
    if (!rec || kind < 0 || kind >= KBV_BUSY_COUNT)
        return;
    if (!rec->has_busy) {
        for (int k = 0; k < KBV_BUSY_COUNT; k++)
            rec->busy_s[k] = 0;
        for (int k = 0; k < KBV_CHECK_COUNT; k++)
            rec->checks_s[k] = 0;
        rec->has_busy = true;
    }
    rec->busy_s[kind] += seconds;
}

/* The seconds since the mark, to the innermost open stretch's kind. */
static void charge(kbv_busy_meter *m, kbv_record *rec, double now)
{
    int inner = m->depth <= KBV_BUSY_MAX_DEPTH ? m->depth - 1 : KBV_BUSY_MAX_DEPTH - 1;
    double seconds = now - m->mark;
    m->mark = now;
    if (!rec)
        return;
    kbv_busy_add(rec, KBV_BUSY_CHECKS, seconds);
    rec->checks_s[m->work[inner]] += seconds;
}

void kbv_busy_enter(kbv_busy_meter *m, kbv_record *rec, kbv_check_work work)
{
    double now = kbv_monotonic_s();
    if (m->depth > 0)
        charge(m, rec, now);
    m->mark = now;
    if (m->depth < KBV_BUSY_MAX_DEPTH)   /* deeper: charged to the deepest kept */
        m->work[m->depth] = work >= 0 && work < KBV_CHECK_COUNT ? work : KBV_CHECK_FILLS;
    m->depth++;
}

void kbv_busy_leave(kbv_busy_meter *m, kbv_record *rec)
{
    if (m->depth == 0)
        return;
    charge(m, rec, kbv_monotonic_s());
    m->depth--;
}
