/* A stopwatch over a sample's phases (kbv_phase): one phase runs at a time,
 * and entering a phase charges the time since the last switch to the phase
 * that was running. Phases therefore never overlap, and the seconds in a
 * record's phase_s add up to at most its total_s. */
#ifndef KBV_PHASE_H
#define KBV_PHASE_H

#include "core/clock.h"
#include "record/results.h"

typedef struct kbv_phase_clock {
    kbv_record *rec;              /* whose phase_s is charged */
    kbv_phase current;
    double started, since;        /* CLOCK_MONOTONIC seconds */
} kbv_phase_clock;

/* Starts charging rec->phase_s (zeroed the first time a record is timed),
 * in phase `phase` (KBV_PHASE_NONE: none yet). */
void kbv_phase_clock_start(kbv_phase_clock *c, kbv_record *rec, kbv_phase phase);

/* Charges the time since the last switch and enters `phase`; returns the
 * phase that was running, so a nested step can go back to it. */
kbv_phase kbv_phase_enter(kbv_phase_clock *c, kbv_phase phase);

/* Charges the running phase and stops; returns the seconds since start. */
double kbv_phase_clock_stop(kbv_phase_clock *c);

#endif
