/* The options kbv check, eval and baseline share: where and how a run happens
 * (--device, --size, --seed, --timeout, --precision), taken and checked in
 * one place. */
#ifndef KBV_RUN_OPTIONS_H
#define KBV_RUN_OPTIONS_H

#include <stdbool.h>
#include <stdio.h>

#include "record/results.h"

typedef struct kbv_run_options {
    const char *device;   /* "cpu", "cuda" or NULL (decide from the machine) */
    const char *size;     /* "full", "small" or NULL */
    const char *seed;     /* the run seed as given, or NULL (a fresh secret one) */
    double timeout_s;     /* --timeout; 0 when not given */
    kbv_precision precision;  /* --precision; fp32 when not given */
} kbv_run_options;

/* Takes argv[*a] and its value when it is one of the run options (--timeout
 * only when allow_timeout), advancing *a. 1: taken; 0: not a run option;
 * -1: a bad value, already reported on stderr as "CMD: ...". */
int kbv_run_option_take(const char *cmd, int argc, char **argv, int *a, bool allow_timeout,
                        kbv_run_options *o);

/* Checks --device and --size. 0 when valid, else 2 after reporting. */
int kbv_run_options_check(const char *cmd, const kbv_run_options *o);

/* The --precision lines of --help, from the precision table (record/precision.h). */
void kbv_precision_print_help(FILE *f);

/* Takes --gate NAME at argv[*a] (kbv eval, kbv check), advancing *a. 1:
 * taken; 0: not --gate; -1: an unknown gate, already reported. */
int kbv_gate_option_take(const char *cmd, int argc, char **argv, int *a, kbv_gate *gate);
/* The --gate lines of --help, from the gate table (record/results.h). */
void kbv_gate_print_help(FILE *f);

/* Parses --protocols: names from standard, verified, strict (or "all"),
 * comma-separated, into a mask with bit p set for protocol p. 0 when valid,
 * else 2 after reporting. */
int kbv_protocols_parse(const char *cmd, const char *list, unsigned *mask);

#endif
