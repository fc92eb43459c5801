/* What a practitioner would use instead of a kernel: PyTorch eager and
 * torch.compile (inductor, default mode) on kbv's rendering of each
 * problem, timed on the GPU by bench/torch_baselines.py as kbv's standard
 * protocol times (the mean of 100 calls) and written beside kbv's
 * baselines (kbv report --torch FILE). Reports show each model's speedup
 * against them where they were measured: a kernel that beats eager can still
 * lose to compile. A record is matched to an entry of its problem, size and
 * the precision mode of the protocol's baseline (standard: fp32; verified,
 * strict: tf32) on its device (the record's device names the entry's GPU). */
#ifndef KBV_TORCH_REF_H
#define KBV_TORCH_REF_H

#include <stdbool.h>

#include "core/status.h"
#include "record/results.h"

typedef struct kbv_torch_entry {
    char problem[16];          /* "L1/19" */
    char size[8];              /* "full", "small" */
    char mode[8];              /* "fp32", "tf32" */
    char gpu[128];             /* torch.cuda.get_device_name(), or "cpu" */
    double eager_ms, compile_ms;   /* NAN: not measured (compile_error says why) */
    char compile_error[224];
} kbv_torch_entry;

typedef struct kbv_torch_times {
    int n, cap;
    kbv_torch_entry *e;        /* the newest entry of each key */
    char source[1024];         /* the file read; "" when none */
} kbv_torch_times;

/* Reads bench/torch_baselines.py's file; a line that is not one of its
 * entries is an error naming it. A later entry of a key replaces an earlier. */
kbv_status kbv_torch_load(const char *path, kbv_torch_times *t);
void kbv_torch_free(kbv_torch_times *t);

/* The entry for a record under protocol p, NULL when none was measured. */
const kbv_torch_entry *kbv_torch_find(const kbv_torch_times *t, const kbv_record *r,
                                      kbv_protocol p);
/* The precision mode of protocol p's baseline: "fp32" or "tf32". */
const char *kbv_torch_mode(kbv_protocol p);

/* A metrics group against PyTorch, under one protocol: over the group's
 * problems with a measurement (a problem not solved counts as not faster),
 * the geometric-mean speedup of the solved ones against each, and the share
 * solved faster than each (Fast@1 against eager, against compile). */
typedef struct kbv_torch_metrics {
    int eager_measured, compile_measured;   /* the group's problems with each time */
    int eager_solved, compile_solved;       /* of them, solved with a kernel time */
    double vs_eager, vs_compile;            /* geomean of t_torch / t_kernel */
    double fast1_eager, fast1_compile;      /* % of the measured solved faster */
} kbv_torch_metrics;

struct kbv_report_data;
/* For metrics group g (report data) under protocol p. */
void kbv_torch_metrics_of(const struct kbv_report_data *d, const kbv_torch_times *t, int g,
                          kbv_protocol p, kbv_torch_metrics *out);

#endif
