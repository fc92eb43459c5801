/* Guarding timings against a throttled or cold GPU, as nvbench does: the SM
 * clock is sampled while a measurement runs; one whose lowest sample is
 * below KBV_CLOCK_LOW_FRACTION of the clock's ceiling was taken on a
 * throttled GPU, and is measured again after a pause (KBV_CLOCK_RECOVERY_MS),
 * up to KBV_CLOCK_ATTEMPTS times; the clock seen is recorded either way.
 * Warm-ups run for at least KBV_WARMUP_MIN_MS as well as their count, so the
 * clock has left its idle state before anything is timed. On a backend with
 * no clock (the CPU) the guard sees nothing and never asks for a re-run. */
#ifndef KBV_CLOCK_GUARD_H
#define KBV_CLOCK_GUARD_H

#include <stdbool.h>

#include "exec/backend.h"

#define KBV_CLOCK_LOW_FRACTION 0.75   /* nvbench's default throttle threshold */
#define KBV_CLOCK_RECOVERY_MS 50      /* nvbench's default throttle recovery delay */
#define KBV_CLOCK_ATTEMPTS 3
#define KBV_WARMUP_MIN_MS 100.0
#define KBV_WARMUP_MAX_RUNS 1000

typedef struct kbv_clock_guard {
    unsigned min_mhz;   /* lowest sample since kbv_clock_guard_begin; 0: none */
    unsigned max_mhz;   /* the clock's ceiling */
    int samples;
} kbv_clock_guard;

void kbv_clock_guard_begin(kbv_clock_guard *g);
/* One sample of be's SM clock into g (nothing on a backend without one). */
void kbv_clock_guard_sample(kbv_clock_guard *g, kbv_backend *be);
/* Whether what g watched ran throttled. */
bool kbv_clock_guard_low(const kbv_clock_guard *g);
/* The pause before a throttled measurement is taken again. */
void kbv_clock_guard_recover(void);
/* Whether a warm-up of `runs` runs that took `elapsed_ms` in all is enough. */
bool kbv_warmup_enough(int runs, int min_runs, double elapsed_ms);

#endif
