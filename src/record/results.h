/* Results: one JSON object per evaluated sample, appended to a JSONL file
 * with write + fsync, so a killed run loses nothing and resumes where it
 * stopped. The record's fields are the contract read by metrics, reports and
 * other tools (docs/METHODOLOGY.md lists them). JSON has no NaN or infinity:
 * a quantity that is absent or not finite (an infinite relative error) is
 * written as null; reasons spell such values out. Strict times are medians
 * with their IQR ("t_kernel_iqr_ms"); standard and verified times are means
 * with their stddev ("t_kernel_sd_ms"). */
#ifndef KBV_RESULTS_H
#define KBV_RESULTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <jansson.h>

#include "core/status.h"
#include "kbv/candidate.h"
#include "record/precision.h"

/* The schema every record names ("schema"). Records of an earlier schema
 * are converted to this one as they are read, each conversion noted in the
 * record (`legacy`); none exist yet: every kbv so far wrote schema 1, its
 * later fields added beside the first ones and read as absent from the
 * records before them (below, kbv_legacy). A record of a later schema,
 * written by a newer kbv, is not read but counted (kbv_record_list.newer),
 * and kbv merge keeps it whole. */
#define KBV_RESULTS_SCHEMA 1
#define KBV_RECORD_MAX_DRAWS 15    /* 5 base draws, up to 6 hidden configs, D5..D8 */
#define KBV_RECORD_MAX_DROPPED 6
#define KBV_RECORD_MAX_FLAGS 8
#define KBV_RECORD_LOG_CAP 4096

typedef enum kbv_protocol {
    KBV_PROTO_STANDARD = 0,
    KBV_PROTO_VERIFIED,
    KBV_PROTO_STRICT,
    KBV_PROTO_COUNT
} kbv_protocol;

const char *kbv_protocol_name(kbv_protocol p);   /* "standard", "verified", "strict" */

/* The verified protocol's correctness gate (kbv eval and check --gate): as
 * the KernelBench-Verified paper's text says, or as its leaderboard code
 * computed the published numbers (docs/METHODOLOGY.md, "The verified gate").
 * Every record says which ("gate"); one written before gates were recorded
 * was judged under the text's. */
typedef enum kbv_gate {
    KBV_GATE_TEXT = 0,
    KBV_GATE_LEADERBOARD,
    KBV_GATE_COUNT
} kbv_gate;

typedef struct kbv_gate_info {
    const char *name;                /* the option's value and the record's "gate" */
    const char *help;                /* what it judges, for --help: lines of at most 52 columns */
} kbv_gate_info;

const kbv_gate_info *kbv_gate_get(kbv_gate g);
kbv_status kbv_gate_parse(const char *name, kbv_gate *g);

/* Where a sample's evaluation spent its wall time. The phases are exclusive
 * (one runs at a time), so they sum to at most the total; the rest is the
 * harness's own bookkeeping. JSON: "phase_s", docs/REPORTS.md. */
typedef enum kbv_phase {
    KBV_PHASE_NONE = -1,             /* charged to no phase */
    KBV_PHASE_COMPILE = 0,           /* kbv_compile: the compiler, or the cache lookup on a hit */
    KBV_PHASE_LOAD,                  /* the candidate process: start, CUDA init, dlopen, prepare, stop */
    KBV_PHASE_BASELINES,             /* the problem's baselines: measured, or found in the cache */
    KBV_PHASE_CORRECTNESS,           /* every protocol's draws: inputs, references, calls, verdicts */
    KBV_PHASE_TIMING,                /* the standard/verified timed calls and strict's timed trials */
    KBV_PHASE_AUDIT,                 /* strict's checks: integrity, guard bands, late writes,
                                        symbols, the traced pass, race run and hidden shapes */
    KBV_PHASE_COUNT
} kbv_phase;

const char *kbv_phase_name(kbv_phase p);         /* "compile", "load", ... */

/* Whose work kept the device busy during a sample (device seconds). They
 * never overlap: the evaluator synchronises its own work before each call
 * of the candidate. JSON: "busy_s", docs/REPORTS.md. */
typedef enum kbv_busy {
    KBV_BUSY_CANDIDATE = 0,          /* the candidate's calls, on the runner's clock (CUDA events
                                        around each kbv_forward; CLOCK_MONOTONIC on the CPU) */
    KBV_BUSY_CHECKS,                 /* the evaluator's device work for the draws: fills, poison,
                                        the references and the float64 oracle, comparisons, hashes */
    KBV_BUSY_BASELINES,              /* measuring the problem's baselines (0 on a cache hit) */
    KBV_BUSY_COUNT
} kbv_busy;

const char *kbv_busy_name(kbv_busy b);           /* "candidate", "checks", "baselines" */

/* The checks' device seconds by the kind of work (they add up to busy_s's
 * "checks"): where the evaluator's own share of a draw goes. JSON: "checks_s". */
typedef enum kbv_check_work {
    KBV_CHECK_FILLS = 0,             /* inputs and params drawn (and strict's in-place changes) */
    KBV_CHECK_POISON,                /* the outputs poisoned before a call */
    KBV_CHECK_HASHES,                /* inputs, params, outputs and guard bands hashed */
    KBV_CHECK_REFERENCES,            /* the baselines run on the draw (fp32, fp32-strict, tf32) */
    KBV_CHECK_ORACLE,                /* float64 copies of the inputs and the float64 oracle */
    KBV_CHECK_COMPARISONS,           /* the candidate's and the budget baseline's comparisons */
    KBV_CHECK_COUNT
} kbv_check_work;

const char *kbv_check_work_name(kbv_check_work w);  /* "fills", "poison", ... */

/* One protocol's outcome. Absent quantities are NAN (null in JSON). */
typedef struct kbv_proto_result {
    bool correct;
    char reason[384];                /* "" when correct */
    int draws_passed, draws_total, draws_skipped;
    double t_kernel_ms;              /* mean (standard, verified) or median (strict) */
    double t_kernel_spread_ms;       /* its stddev (JSON t_kernel_sd_ms) or IQR (t_kernel_iqr_ms) */
    double t_baseline_ms;            /* fp32 mean, tf32 mean, tf32 median */
    double speedup;                  /* t_baseline / t_kernel */
    double mem_kernel_bytes, mem_baseline_bytes;
    double sol_fraction;             /* speed-of-light time / t_kernel */
    double t_fp32_strict_ms;         /* strict only: the fp32-strict baseline's median */
    unsigned sm_mhz;                 /* lowest SM clock sampled while timing; 0: none (JSON absent) */
    bool throttled;                  /* still under the clock guard's threshold after its re-runs */
    int n_flags;
    char flags[KBV_RECORD_MAX_FLAGS][32];
    char advisory[384];              /* why an advisory flag was raised; "" when none */
    bool skipped;                    /* not evaluated (kbv eval --protocols): JSON "evaluated": false */
} kbv_proto_result;

/* One draw of the correctness phase. */
typedef struct kbv_draw_record {
    char dist[8];                    /* "base#0".."base#4", "D1".."D8", an extra config "H5" */
    int std_pass;                    /* 1, 0, or -1 when skipped (reference not finite) */
    int strict_pass;                 /* 1, 0, or -1 when not judged (strict not evaluated, so
                                        no float64 oracle: rel_l2 to budget_max_err NaN) */
    int64_t allclose_fail, unjudged, poison_left;
    int64_t oracle_nonfinite;        /* of the unjudged: the float64 oracle itself NaN or +-inf */
    double max_abs_diff, rel_l2, budget_rel_l2, max_err, budget_max_err;
    int first_bad_ndim;              /* -1: none */
    int64_t first_bad[KBV_MAX_DIMS];
} kbv_draw_record;

/* A hidden config the evaluation left out (DESIGN section 4): omitted by
 * the problem's definition, as the paper's hidden tests omit it, or found
 * with a reference that is not finite. JSON "configs_dropped". */
typedef struct kbv_dropped_config {
    char config[8];                  /* "D4" */
    char reason[224];
} kbv_dropped_config;

/* What a schema-1 record written by an earlier kbv lacks, and how it is read
 * (kbv_record.legacy, a mask; reports say how many records carry each). */
typedef enum kbv_legacy {
    KBV_LEGACY_NO_GATE = 1 << 0,     /* no "gate": before kbv eval --gate, judged by the text's */
    KBV_LEGACY_NO_SANDBOX = 1 << 1,  /* no "sandbox": before the sandbox, the candidate ran
                                        unconfined (a forbidden call did not fail it) */
} kbv_legacy;
#define KBV_LEGACY_COUNT 2

/* The note for legacy bit k (0 .. KBV_LEGACY_COUNT - 1), in words. */
const char *kbv_legacy_note(int k);

typedef struct kbv_record {
    unsigned legacy;                 /* kbv_legacy bits: what an earlier kbv did not record */
    char model[128];
    char problem[32];                /* "L1/19" */
    int level, problem_id, sample;
    char file[1024];
    char source_sha256[65];
    char device[128];
    char size[8];                    /* "full" or "small" */
    uint64_t seed;
    kbv_gate gate;                   /* the verified protocol's gate */
    kbv_precision precision;         /* fp32 or bf16 (record/precision.h); absent: fp32 */
    unsigned vendor_libs;            /* the vendor libraries the run allowed (core/vendor_libs.h):
                                        JSON "vendor_libs": ["cublas", ...], [] for none; a
                                        record without it was written when none could be */
    struct {
        bool ok, cached;
        double seconds;
        char log[KBV_RECORD_LOG_CAP + 1];
    } compile;
    kbv_proto_result proto[KBV_PROTO_COUNT];
    int n_draws;
    kbv_draw_record draws[KBV_RECORD_MAX_DRAWS];
    int n_dropped;                   /* the problem's hidden configs left out, and why */
    kbv_dropped_config dropped[KBV_RECORD_MAX_DROPPED];
    bool has_fault;
    char fault_kind[24];
    char fault_reason[512];
    char output[KBV_RECORD_LOG_CAP + 1];  /* what the candidate printed (stdout, stderr) */
    char sandbox[160];               /* the confinement it ran under, as kbv_sandbox_mode says */
    /* how the candidate got the problem's parameters: "arguments" (kbv_forward's, the ABI) or
     * "state_dict" (a KernelBench-format ModelNew's, loaded by name; KernelBench seeds the
     * module's construction instead); "" in records of an earlier kbv */
    char params[16];
    bool has_phases;                 /* phase_s and total_s were measured */
    double phase_s[KBV_PHASE_COUNT]; /* wall seconds per kbv_phase */
    double total_s;                  /* the whole sample, compile to verdict */
    bool has_busy;                   /* busy_s was measured */
    double busy_s[KBV_BUSY_COUNT];   /* device seconds per kbv_busy */
    double checks_s[KBV_CHECK_COUNT];   /* busy_s's checks by kbv_check_work (with has_busy) */
} kbv_record;

/* A record with every quantity absent (NAN) and nothing correct. */
void kbv_record_init(kbv_record *rec);
/* Marks a protocol not evaluated: no verdict, no numbers, the reason why. */
void kbv_proto_skip(kbv_proto_result *p, const char *why);
/* Adds an advisory or failure flag to a protocol (no duplicates). */
void kbv_proto_add_flag(kbv_proto_result *p, const char *flag);
bool kbv_proto_has_flag(const kbv_proto_result *p, const char *flag);

/* The compiler output, cut to KBV_RECORD_LOG_CAP bytes at a character boundary. */
void kbv_record_set_log(kbv_record *rec, const char *log);
/* Appends what the candidate printed (dropped: bytes its process printed
 * beyond what was kept), cut like the log. */
void kbv_record_add_output(kbv_record *rec, const char *text, size_t dropped);
/* Copies at most max_bytes of src into dst (cap bytes with the NUL), as valid
 * UTF-8: bytes that are not become '?', a character is never cut. Returns
 * the length written. */
size_t kbv_utf8_copy(char *dst, size_t cap, const char *src, size_t max_bytes);
/* SHA-256 of a file's bytes, lowercase hex: the source identity for resume. */
kbv_status kbv_file_sha256(const char *path, char hex[65]);

kbv_status kbv_record_to_json(const kbv_record *rec, json_t **out);
/* KBV_ERR_UNSUPPORTED: a record of a later schema (a newer kbv wrote it). */
kbv_status kbv_record_from_json(const json_t *obj, kbv_record *rec);
/* A record's "schema", -1 when it has none. */
long long kbv_record_schema(const json_t *obj);

/* The name a record's results are tabled under: its model, with " @bf16"
 * for a bf16 run -- a model's fp32 and bf16 runs are two rows of every
 * table, summary and report, never one. */
const char *kbv_record_table_name(const kbv_record *r, char *buf, size_t cap);
/* Orders records by model, then precision (0 when they share a table row). */
int kbv_record_table_cmp(const kbv_record *a, const kbv_record *b);

/* Identity of a record for resume: a sample is done when a record with the
 * same (model, problem, sample, source_sha256, size, device, gate,
 * precision, vendor_libs) exists. */
bool kbv_record_same_job(const kbv_record *a, const kbv_record *b);

/* All records of a file, in order; a line that does not parse (such as one
 * torn by a killed run) is skipped and counted. A missing file is empty.
 *
 * What a kbv results file is: a file of lines in which every line that is
 * not blank is a results record (a JSON object of "schema" 1 with a "model"
 * and a "problem" string) or begins as kbv begins every record it writes,
 * with {"schema": -- a record cut short by a killed run, however short the
 * cut (even "{"), or one of another schema. An empty file is one. A CSV, a
 * JSON array or pretty-printed object, notes: not; kbv eval and kbv merge
 * refuse to write to those. */
typedef struct kbv_record_list {
    kbv_record *items;
    int n, cap;
    int malformed;                   /* lines skipped */
    int first_malformed_line;        /* 1-based, 0 if none */
    int foreign;                     /* of those, lines no kbv wrote (see above) */
    int first_foreign_line;          /* 1-based, 0 if none */
    int newer;                       /* of the malformed, records of a later schema (a newer
                                        kbv wrote them: whole, but not readable here) */
    int first_newer_line;            /* 1-based, 0 if none */
    int newest_schema;               /* the latest schema among them */
} kbv_record_list;

kbv_status kbv_records_load(const char *path, kbv_record_list *list);
kbv_status kbv_record_list_push(kbv_record_list *list, const kbv_record *rec);
void kbv_record_list_free(kbv_record_list *list);

/* An open results file: the records already there, and appends.
 *
 * Only one kbv process at a time writes a results file: it holds an
 * exclusive flock(2) on the file for as long as it is open, and another
 * that tries is refused at once (a lock is the holder's until it exits or
 * closes the file, so a killed run never leaves one behind). Only the
 * parent process writes: workers and MPI ranks send it their records. */
typedef struct kbv_results {
    char path[1024];
    int fd;
    kbv_record_list done;
    bool repaired;                   /* a torn last line was closed with a newline */
    bool created;                    /* there was no file: this open made it */
    bool refused;                    /* it may not be written: another kbv process holds it,
                                        or it is not a kbv results file (the message, one line
                                        for the user, says which) */
} kbv_results;

/* Takes the file for appending (created when missing, locked; refused, and
 * left as it is, when another kbv process holds it or it is not a kbv
 * results file), loads the records there and repairs a torn last line. */
kbv_status kbv_results_open(const char *path, kbv_results *r);
/* The same without loading or repairing: for kbv merge, which replaces the
 * file whole and holds it meanwhile. */
kbv_status kbv_results_claim(const char *path, kbv_results *r);
/* Whether a sample with the identity of `key` is already recorded. */
bool kbv_results_has(const kbv_results *r, const kbv_record *key);
/* The same, with every protocol of the mask (bit p: protocol p) evaluated:
 * a sample recorded by a run of fewer protocols is evaluated again. */
bool kbv_results_has_protocols(const kbv_results *r, const kbv_record *key, unsigned protocols);
/* Appends one line and fsyncs; on failure the file is cut back to where it
 * was, so what was written before stays whole. */
kbv_status kbv_results_append(kbv_results *r, const kbv_record *rec);
/* Closes the file and lets the lock go (r->refused stays). */
void kbv_results_close(kbv_results *r);

#endif
