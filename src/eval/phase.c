#include "eval/phase.h"

void kbv_phase_clock_start(kbv_phase_clock *c, kbv_record *rec, kbv_phase phase)
{
    if (!rec->has_phases) {
        for (int k = 0; k < KBV_PHASE_COUNT; k++)
            rec->phase_s[k] = 0;
        rec->has_phases = true;
    }
    c->rec = rec;
    c->current = phase;
    c->started = c->since = kbv_monotonic_s();
}

kbv_phase kbv_phase_enter(kbv_phase_clock *c, kbv_phase phase)
{
    double now = kbv_monotonic_s();
    kbv_phase was = c->current;
    if (was > KBV_PHASE_NONE && was < KBV_PHASE_COUNT)
        c->rec->phase_s[was] += now - c->since;
    c->current = phase;
    c->since = now;
    return was;
}

double kbv_phase_clock_stop(kbv_phase_clock *c)
{
    kbv_phase_enter(c, KBV_PHASE_NONE);
    return c->since - c->started;
}
