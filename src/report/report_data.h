/* What every view of `kbv report` reads: the records of one or more results
 * files, deduplicated the way the metrics are (the last record of a model,
 * problem and sample wins), indexed by model and problem, with each
 * problem's chosen sample per protocol (its fastest correct one, as DESIGN
 * section 5), each failure's reason class, and per-group tallies of failure
 * reasons and audit flags beside the core metrics. */
#ifndef KBV_REPORT_DATA_H
#define KBV_REPORT_DATA_H

#include <stdbool.h>

#include "core/status.h"
#include "report/metrics.h"
#include "report/torch_ref.h"
#include "record/judge_record.h"
#include "record/results.h"

/* Why a sample failed a protocol, from its record. */
typedef enum kbv_fail_kind {
    KBV_FAIL_NONE = 0,        /* correct */
    KBV_FAIL_COMPILE,         /* did not compile */
    KBV_FAIL_LOAD,            /* the runner could not load it */
    KBV_FAIL_RETURNED,        /* kbv_prepare/kbv_forward returned non-zero */
    KBV_FAIL_CRASH,           /* killed by a signal */
    KBV_FAIL_TIMEOUT,         /* passed its deadline */
    KBV_FAIL_CUDA,            /* a CUDA error after a call */
    KBV_FAIL_HARNESS,         /* the harness failed on it */
    KBV_FAIL_WRONG_BASE,      /* wrong output on a draw of the base generators */
    KBV_FAIL_WRONG_D1,        /* ... on D1 .. D8: KBV_FAIL_WRONG_BASE + k */
    KBV_FAIL_WRONG_D8 = KBV_FAIL_WRONG_D1 + 7,
    KBV_FAIL_WRONG_EXTRA,     /* ... on a problem's extra hidden config ("H5") */
    KBV_FAIL_WRONG_TIMED,     /* wrong output on a strict timed trial (fresh inputs) */
    KBV_FAIL_AUDIT,           /* an audit (flag) failed */
    KBV_FAIL_UNJUDGED,        /* no draw could be judged */
    KBV_FAIL_OTHER,           /* a reason kbv does not recognise */
    KBV_FAIL_COUNT
} kbv_fail_kind;

#define KBV_DIST_SLOTS 10     /* base, D1 .. D8, extra hidden configs ("H5") */

const char *kbv_fail_kind_name(kbv_fail_kind k);   /* "compile", "wrong@D3", ... */
const char *kbv_fail_kind_text(kbv_fail_kind k);   /* "compile error", "wrong output on D3" */
char kbv_fail_kind_letter(kbv_fail_kind k);        /* heat-map mark: 'C', 'W', ... */
/* Slot of a draw label: "base#k" -> 0, "Dk" -> k, an extra config's "H"
 * and digits -> 9, anything else -1. */
int kbv_dist_slot(const char *label);
/* "base", "D1" .. "D8", "H" (the extra configs). */
const char *kbv_dist_slot_name(int slot);

/* A protocol's failure class for a record (KBV_FAIL_NONE when correct),
 * from its reason as kbv eval writes it: "crash: ... during D2" is the
 * record's fault; "D3: ..." wrong output on that draw; "timed trial 7: ..."
 * wrong output while timed; "compile error: ..." (or compile.ok false) a
 * compile failure; "no draw ..." unjudged; "timing not credible ..." or a
 * protocol with flags an audit. */
kbv_fail_kind kbv_classify_failure(const kbv_record *r, kbv_protocol p);

/* t_baseline / t_kernel, from `speedup` or the two times; NAN when absent. */
double kbv_report_speedup(const kbv_proto_result *p);
/* m_baseline / m_kernel; NAN when absent. */
double kbv_report_mem_ratio(const kbv_proto_result *p);

typedef struct kbv_report_problem {
    int level, id;
    char key[16];             /* "L1/19" */
    bool degenerate;          /* excluded from the aggregates */
    bool sampled;             /* some model has a sample of it */
} kbv_report_problem;

typedef struct kbv_report_sample {
    const kbv_record *rec;
    int model, problem;       /* indices into models and problems */
    kbv_fail_kind fail[KBV_PROTO_COUNT];
    char anchor[48];          /* in-page id of its details: "s-m0-L1-19-0" */
} kbv_report_sample;

/* One model on one problem. */
typedef struct kbv_report_cell {
    int first, n;             /* its samples: samples[first .. first + n - 1] */
    int best[KBV_PROTO_COUNT];   /* fastest correct sample, -1 when none */
    int shown[KBV_PROTO_COUNT];  /* best, else the failing sample that passed most draws */
} kbv_report_cell;

#define KBV_REPORT_MAX_FLAGS 48

/* One metrics group (model and level) under one protocol. */
typedef struct kbv_report_tally {
    int samples, failed;
    int fail[KBV_FAIL_COUNT];
    int flags[KBV_REPORT_MAX_FLAGS];   /* samples carrying flag_names[i] */
} kbv_report_tally;

/* How the data is counted: the denominator view and the suite with its
 * degenerate problems (report/metrics.h, report/suite.h). */
typedef struct kbv_report_config {
    kbv_denominator denominator;
    const kbv_suite *suite;   /* NULL: kbv_suite_default(NULL) */
} kbv_report_config;

typedef struct kbv_report_data {
    kbv_denominator denominator;
    kbv_suite suite;          /* the config's, with every problem a record names */
    kbv_record_list records;  /* every record read, in order */
    int malformed;            /* lines skipped while reading (torn, foreign or newer) */
    char malformed_where[1100];  /* "FILE line N" of the first one */
    int newer;                /* of them, records of a later schema (a newer kbv wrote them) */
    int newest_schema;
    char newer_where[1100];   /* "FILE line N" of the first one */
    int legacy[KBV_LEGACY_COUNT];   /* samples whose record lacks what bit k says */

    int n_models;
    char (*models)[128];      /* sorted as the metrics sort them */
    int n_problems;
    kbv_report_problem *problems;  /* sorted by level, then id: the problems with samples,
                                      and in the suite view every problem of the suite at
                                      the levels the records have */
    int n_samples;
    kbv_report_sample *samples;    /* by model, problem, sample */
    kbv_report_cell *cells;        /* [model * n_problems + problem] */

    kbv_metrics metrics;
    int n_rows;
    int *rows;                /* metrics groups in reading order: per model its
                                 levels, then its pooled group when it has two
                                 levels or more */
    kbv_report_tally (*tally)[KBV_PROTO_COUNT];   /* [metrics.n] */
    int n_flags;
    char flag_names[KBV_REPORT_MAX_FLAGS][32];    /* sorted */

    kbv_torch_times torch;    /* PyTorch eager and compile times (kbv report --torch); n 0: none */
    kbv_judge_list judges;    /* kbv judge's answers (kbv report --judge); n 0: none */

    char device[128];         /* the records' device, or "mixed" */
    char size[8];             /* "full", "small", or "mixed" */
    char gate[16];            /* the records' verified gate, or "mixed" */
    char precision[8];        /* the records' precision, or "mixed": a bf16 run's rows are
                                 its model's name with " @bf16" (kbv_record_table_name) */
    char vendor_libs[64];     /* the vendor libraries their runs allowed ("none"), or "mixed" */
} kbv_report_data;

/* Reads each results file (a missing one is an error) and builds; cfg NULL:
 * the suite view over the default suite. */
kbv_status kbv_report_data_load(const char *const *paths, int n_paths,
                                const kbv_report_config *cfg, kbv_report_data *d);
/* Builds the indexes from d->records (filled by the caller). */
kbv_status kbv_report_data_build(kbv_report_data *d, const kbv_report_config *cfg);
void kbv_report_data_free(kbv_report_data *d);

const kbv_report_cell *kbv_report_cell_of(const kbv_report_data *d, int model, int problem);
/* The metrics group of (model, level) (level 0: pooled); -1 when none. */
int kbv_report_group_of(const kbv_report_data *d, const char *model, int level);
/* Index of a model by name, -1 when absent. */
int kbv_report_model_index(const kbv_report_data *d, const char *model);

#endif
