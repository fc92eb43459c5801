/* Evaluation workers: K processes on one node, each with its own evaluator
 * on its own device (a GPU of --gpus, or the CPU), fed jobs one at a time by
 * the parent over a socketpair.
 *
 * The parent never initialises CUDA: it learns the devices through a probe
 * child (kbv_devices_probe) and forks the workers before anything touches
 * the GPU. A GPU worker sees only its own device (CUDA_VISIBLE_DEVICES is
 * narrowed to it), so it and the candidates it starts use ordinal 0.
 *
 * The parent is the only writer of the results file: a worker sends each
 * finished record back, the parent appends and fsyncs it. A worker that dies
 * (signal, crash, the OOM killer) costs only the job it held: that job goes
 * back to the front of the queue and is tried once more by the next free
 * worker, and a replacement worker is forked in its place. A job whose
 * worker dies twice is reported as a harness failure (no record is written,
 * so a rerun tries it again). Workers die with the parent (PR_SET_PDEATHSIG),
 * and the candidate processes with their worker. */
#ifndef KBV_WORKERS_H
#define KBV_WORKERS_H

#include <stdbool.h>
#include <sys/types.h>

#include "core/status.h"
#include "eval/baseline.h"
#include "eval/protocol.h"
#include "record/results.h"

#define KBV_MAX_GPUS 64
#define KBV_MAX_WORKERS 256

/* The device a run resolves to, found without initialising CUDA here. */
typedef struct kbv_device_probe {
    kbv_eval_opts opts;              /* device (-1 CPU, 0 the first GPU) and size resolved */
    int n_gpus;                      /* GPUs visible (0 on a CPU run) */
    char names[KBV_MAX_GPUS][128];   /* kbv_device_name_of each visible GPU */
    char arch[KBV_MAX_GPUS][16];     /* kbv_device_arch_of each: what candidates are built for */
    char cpu_name[128];              /* kbv_device_name(-1) */
} kbv_device_probe;

/* kbv_eval_opts_resolve(device, size) and the visible GPUs, computed in a
 * child process that exits afterwards. */
kbv_status kbv_devices_probe(const char *device, const char *size, kbv_device_probe *out);

/* Narrows CUDA_VISIBLE_DEVICES to the ordinal-th visible device, before
 * CUDA is initialised: this process and the candidates it starts then see
 * that GPU alone, as ordinal 0. */
kbv_status kbv_visible_gpu_narrow(int ordinal);

/* Another process on this node may have measured baselines since this one
 * loaded its cache (known: the file's size then, -1 when unknown): reloads
 * it when the file grew, rather than measure them again. */
void kbv_baseline_cache_refresh(kbv_baseline_cache *cache, off_t *known);

/* "0,1,3": distinct ordinals below n_visible, at most cap of them. */
kbv_status kbv_gpu_list_parse(const char *s, int n_visible, int *out, int cap, int *n);

/* What the workers do with a job (an index into the caller's own job list,
 * which the workers inherit by fork). */
typedef struct kbv_worker_ops {
    /* In a worker: evaluate job into rec. An error is a harness failure of
     * that job (sent to the parent's failed()). */
    kbv_status (*evaluate)(void *ctx, kbv_evaluator *ev, kbv_baseline_cache *cache, int job,
                           kbv_record *rec);
    /* In the parent: a finished record, to be appended. An error stops the
     * run (nothing more can be recorded). device: the worker's (-1 the CPU);
     * seconds: dispatch to result. */
    kbv_status (*record)(void *ctx, int job, int device, const kbv_record *rec, double seconds);
    /* In the parent: job could not be evaluated, and why. */
    void (*failed)(void *ctx, int job, const char *why);
    /* In the parent: what job is, for messages (a candidate's path). */
    const char *(*describe)(void *ctx, int job);
    void *ctx;
} kbv_worker_ops;

typedef struct kbv_workers_opts {
    int n;                           /* worker processes, 1 .. KBV_MAX_WORKERS */
    const int *devices;              /* each worker's device: -1 the CPU, else a CUDA ordinal */
    kbv_eval_opts eval;              /* the evaluators' options (device set per worker) */
    const char *device_name;         /* every worker's device must report this name */
    int max_respawns;                /* replacements per worker slot (0: 3) */
    const kbv_results *results;      /* the parent's results file, or NULL: a worker closes
                                        the descriptor it inherits (only the parent writes) */
} kbv_workers_opts;

typedef struct kbv_workers_stats {
    int started;                     /* worker processes forked, replacements included */
    int deaths;                      /* workers that died while holding a job */
    int retried;                     /* jobs given to another worker after such a death */
} kbv_workers_stats;

/* Runs jobs[0..n_jobs) on o->n workers, in that order as workers come free.
 * Returns when every job was recorded or failed, or on an error of the
 * parent's own (record() failed, no worker could be started): jobs not
 * done by then are left unrecorded, for a rerun to resume. */
kbv_status kbv_workers_run(const kbv_workers_opts *o, const int *jobs, int n_jobs,
                           const kbv_worker_ops *ops, kbv_workers_stats *stats);

#endif
