/* A run's pace: per device, the fraction of the run's wall time the device
 * was busy (its records' busy_s, eval/busy.h) and where the rest went, by
 * phase (their phase_s), with the evaluations per device-hour that gives.
 *
 * Every device is held for the whole run, so each one's wall time is the
 * run's. Of a worker's share of it, what no sample's total_s covers is idle
 * (the worker starting, waiting for a job, the parent recording one); what a
 * sample's total_s covers but no phase is the evaluator's own bookkeeping
 * ("other"). With several workers on one device the shares add up: the
 * fractions are of workers x wall. JSON: the summary's "pace", docs/REPORTS.md. */
#ifndef KBV_EVAL_PACE_H
#define KBV_EVAL_PACE_H

#include <stdio.h>

#include <jansson.h>

#include "core/status.h"
#include "record/results.h"

#define KBV_PACE_MAX_LANES 64
#define KBV_PACE_ANY_DEVICE (-2)   /* records whose device the run does not tell apart (MPI) */

typedef struct kbv_pace_lane {
    int device;                      /* CUDA ordinal, -1 the CPU, KBV_PACE_ANY_DEVICE */
    int devices;                     /* 1; every lane's in kbv_pace_total */
    int workers;                     /* evaluators that ran on it */
    int samples;                     /* records counted (those with phase_s) */
    double phase_s[KBV_PHASE_COUNT];
    double total_s;                  /* the samples' total_s */
    double busy_s[KBV_BUSY_COUNT];
    double checks_s[KBV_CHECK_COUNT];   /* busy_s's checks by kind of work */
} kbv_pace_lane;

typedef struct kbv_pace {
    const char *protocols;           /* "standard", "standard,verified", "all" */
    double started;                  /* CLOCK_MONOTONIC seconds; 0: not started */
    double wall_s;                   /* set by kbv_pace_stop */
    int n_lanes;
    kbv_pace_lane lanes[KBV_PACE_MAX_LANES];
} kbv_pace;

/* Starts the run's clock; protocols names the set evaluated (kept, not copied). */
void kbv_pace_start(kbv_pace *p, const char *protocols);
/* One more evaluator on device (its lane made on first use). */
kbv_status kbv_pace_worker(kbv_pace *p, int device);
/* A finished record of device's; records without phase_s are not counted. */
kbv_status kbv_pace_add(kbv_pace *p, int device, const kbv_record *rec);
/* Stops the run's clock. */
void kbv_pace_stop(kbv_pace *p);

/* What a lane's wall time went to, as fractions of workers x wall. */
typedef struct kbv_pace_share {
    double wall_s;                   /* workers x the run's wall time */
    double busy;                     /* the device busy (every kbv_busy) */
    double busy_of[KBV_BUSY_COUNT];
    double checks_of[KBV_CHECK_COUNT];   /* the checks' busy by kind of work */
    double phase[KBV_PHASE_COUNT];
    double other;                    /* inside a sample, in no phase */
    double idle;                     /* in no sample */
    double per_hour;                 /* evaluations per device-hour */
} kbv_pace_share;

void kbv_pace_share_of(const kbv_pace *p, const kbv_pace_lane *lane, kbv_pace_share *out);
/* Every lane together, as one device of n_lanes x wall. */
void kbv_pace_total(const kbv_pace *p, kbv_pace_lane *out);

/* The block printed after the results table; nothing when no sample was counted. */
void kbv_pace_print(FILE *f, const kbv_pace *p);
/* The summary's "pace" object: per device and in total. */
kbv_status kbv_pace_json(const kbv_pace *p, json_t **out);

#endif
