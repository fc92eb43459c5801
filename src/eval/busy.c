#include "eval/busy.h"

#include "core/clock.h"

void kbv_busy_add(kbv_record *rec, kbv_busy kind, double seconds)
{
    if (!rec || kind < 0 || kind >= KBV_BUSY_COUNT)
        return;
    if (!rec->has_busy) {
        for (int k = 0; k < KBV_BUSY_COUNT; k++)
            rec->busy_s[k] = 0;
        rec->has_busy = true;
    }
    rec->busy_s[kind] += seconds;
}

void kbv_busy_enter(kbv_busy_meter *m)
{
    if (m->depth++ == 0)
        m->since = kbv_monotonic_s();
}

void kbv_busy_leave(kbv_busy_meter *m, kbv_record *rec, kbv_busy kind)
{
    if (m->depth > 0 && --m->depth == 0)
        kbv_busy_add(rec, kind, kbv_monotonic_s() - m->since);
}
