/* One sample through the three protocols (DESIGN section 4): the draws,
 * the references, the candidate's calls, the verdicts, the timings and the
 * memory, written into a results record.
 *
 * An evaluator owns the backends of one device its precision needs (fp32:
 * fp32-strict, fp32, tf32, fp64; bf16: fp32 for the device services, bf16,
 * fp64; eval/precision.h); it is created once per run and reused for every
 * sample. */
#ifndef KBV_PROTOCOL_H
#define KBV_PROTOCOL_H

#include <stdbool.h>
#include <stdint.h>

#include "core/status.h"
#include "eval/ahead.h"
#include "eval/baseline.h"
#include "exec/backend.h"
#include "graph/graph.h"
#include "record/results.h"

#define KBV_STRICT_MIN_TRIALS 30
#define KBV_STD_WARMUP 3
#define KBV_STD_TIMED 100
#define KBV_PROTOCOLS_ALL ((1u << KBV_PROTO_COUNT) - 1)

/* Whether the evaluator starts the next candidate process (process, sandbox,
 * CUDA context; for a KernelBench-format candidate the interpreter with
 * torch) while the current candidate runs, so that a candidate is loaded
 * into a process already up (eval/child.h, kbv_child_start_ahead). */
typedef enum kbv_start_ahead {
    KBV_START_AHEAD_AUTO = 0,     /* on a GPU, where the CUDA context is worth making ahead;
                                     not on the CPU, where the start would take cores from the
                                     candidate being evaluated */
    KBV_START_AHEAD_ON,
    KBV_START_AHEAD_OFF,
} kbv_start_ahead;

/* "auto", "on", "off", or a number N from 1 to KBV_AHEAD_MAX: on, with N
 * runners kept started ahead for each kind of candidate (*depth; 0 for the
 * others: each kind's default, eval/ahead.h). */
kbv_status kbv_start_ahead_parse(const char *s, kbv_start_ahead *out, int *depth);

typedef struct kbv_eval_opts {
    int device;                   /* CUDA ordinal; -1: the CPU backend */
    kbv_size size;
    uint64_t run_seed;            /* secret unless given */
    double call_timeout_s;        /* each request to the candidate (0: 60 s) */
    double start_timeout_s;       /* runner start, CUDA init, load (0: 60 s) */
    int strict_trials;            /* >= KBV_STRICT_MIN_TRIALS (smaller values are raised) */
    const char *runner;           /* NULL: kbv_runner_path() */
    unsigned protocols;           /* bit p: protocol p is evaluated (0: all); the work of the
                                     others is skipped and they are recorded as not evaluated */
    kbv_gate gate;                /* the verified protocol's correctness gate */
    kbv_precision precision;      /* fp32 or bf16: every baseline, reference and tensor dtype
                                     follow it (eval/precision.h) */
    unsigned vendor_libs;         /* the vendor libraries candidates may call (core/vendor_libs.h;
                                     kbv eval --allow-vendor-libs): linked, admitted by the binary
                                     allowlist, loaded before the sandbox closes; 0: none */
    kbv_start_ahead start_ahead;  /* the next candidate process started while the current
                                     one runs (kbv eval --start-ahead) */
    int start_ahead_depth;        /* how many are kept started ahead, 0: each kind's default
                                     (eval/ahead.h) */
} kbv_eval_opts;

typedef struct kbv_config_cache kbv_config_cache;
struct kbv_child;

typedef struct kbv_evaluator {
    kbv_eval_opts opts;
    kbv_backend *be[KBV_MODE_COUNT];   /* NULL for the modes the precision does not use */
    char device_name[128];        /* kbv_device_name_of the device */
    char arch[16];                /* what candidates are compiled for; "" on the CPU */
    size_t flush_bytes;
    kbv_config_cache *configs;    /* each problem's hidden configs, checked once (eval/configs.h) */
    kbv_ahead_pool ahead;         /* the next candidate processes, started ahead while the
                                     current one runs (eval/ahead.h) */
} kbv_evaluator;

kbv_status kbv_evaluator_create(const kbv_eval_opts *opts, kbv_evaluator **out);
void kbv_evaluator_destroy(kbv_evaluator *ev);

/* Evaluates the compiled candidate so_path on problem g (keyed "L1/19").
 * base: the problem's baselines on this device (kbv_baselines_get). Fills
 * rec->proto, rec->draws and rec->fault; the caller fills the identity and
 * compile fields. Whatever the candidate does is its verdict (KBV_OK); an
 * error means the harness itself could not evaluate. */
kbv_status kbv_protocol_run(kbv_evaluator *ev, const kbv_graph *g, const char *problem_key,
                            const kbv_baseline base[KBV_MODE_COUNT], const char *so_path,
                            kbv_record *rec);

/* Fills device and size from the command line: device "cpu", "cuda" or NULL
 * (the GPU when one is usable, else the CPU); size "full", "small" or NULL
 * (full on a GPU, small on the CPU). */
kbv_status kbv_eval_opts_resolve(const char *device, const char *size, kbv_eval_opts *o);

/* A run directory's level_..._sample_S.failed.json: a sample that was asked
 * for and never produced; kbv_sample_evaluate records it as failed. */
bool kbv_path_is_generation_failure(const char *path);

/* Compiles and evaluates one candidate file of problem def: rec->model,
 * rec->sample and rec->file are the caller's; everything else is filled.
 * The file is read under record/candidate_file.h's rule. A candidate that does
 * not compile, and a file that cannot be used as a candidate (empty, binary,
 * too large, a symbolic link, not a regular file, unreadable, gone), get a
 * record that says so: not compiled, every protocol failed with the reason
 * ("compile error: ...", "unusable candidate file (<kind>): ..."). base,
 * when not NULL, receives the baselines used (NAN-filled if none were
 * needed). */

kbv_status kbv_sample_evaluate(kbv_evaluator *ev, kbv_baseline_cache *cache,
                               const kbv_problem *def, const char *path, kbv_record *rec,
                               kbv_baseline base[KBV_MODE_COUNT]);

#endif
