/* The one wall clock kbv measures its own durations with. */
#ifndef KBV_CLOCK_H
#define KBV_CLOCK_H

/* Seconds on CLOCK_MONOTONIC (from an arbitrary origin). */
double kbv_monotonic_s(void);

#endif
