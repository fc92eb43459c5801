/* Evaluation across the ranks of an MPI job (kbv eval --mpi, started by
 * mpirun or srun): rank 0 coordinates, every other rank evaluates.
 *
 * Rank 0 evaluates nothing. Once the first evaluating rank is ready it plans
 * the jobs (the caller's plan(), with that rank's device), then hands them
 * out one at a time, in order, to the ranks as they come free; each rank
 * sends back its finished record as the JSON text a results file holds, and
 * rank 0 gives it to the caller's record(): the results file has one writer.
 *
 * An evaluating rank runs the normal evaluator, on the CPU or on one GPU of
 * its node: the one numbered by its local rank among the node's evaluating
 * ranks (Open MPI's OMPI_COMM_WORLD_LOCAL_RANK, rank 0 not counted), the
 * others hidden with CUDA_VISIBLE_DEVICES. A rank whose node has no GPU left
 * for it, or whose device or size differs from the first ready rank's,
 * evaluates nothing (rank 0 says so).
 *
 * Failures: MPI errors are returned, never fatal, and rank 0 never waits on
 * one rank: it polls for a message from any. Evaluating ranks send a
 * heartbeat every 2 seconds from a thread of their own; a rank silent for
 * KBV_MPI_SILENCE_S seconds (default 120, at least 10; checked only when no
 * message is pending) or whose communication fails is lost: its job is reported to
 * failed() and not recorded (a rerun redoes it), and it gets nothing more.
 * Open MPI's mpirun ends the whole job when a rank dies: rank 0 then gets
 * SIGTERM, reports the jobs in flight the same way and stops. Every rank
 * ends when its launcher (mpirun, orted, slurmstepd) does, so a killed
 * mpirun leaves no rank writing. */
#ifndef KBV_MPI_EVAL_H
#define KBV_MPI_EVAL_H

#include <stdbool.h>
#include <stdint.h>

#include "core/status.h"
#include "eval/baseline.h"
#include "eval/protocol.h"
#include "record/results.h"

/* Whether this kbv was built with MPI (the other functions fail otherwise). */
bool kbv_mpi_available(void);

typedef struct kbv_mpi_world {
    int rank, size;
    int node_index;    /* this rank's number among its node's evaluating ranks */
    int node_count;    /* evaluating ranks on this node */
} kbv_mpi_world;

/* MPI_Init (threads serialised), MPI errors returned, the node layout.
 * Collective: rank 0's *seed becomes every rank's. */
kbv_status kbv_mpi_begin(uint64_t *seed, kbv_mpi_world *w);

/* MPI_Finalize; MPI_Abort(exit_code) instead when abort_all (a rank was lost
 * or the job is being torn down, so a finalize could wait forever). */
void kbv_mpi_end(bool abort_all, int exit_code);

/* The device of the first ready rank, which every rank must share. */
typedef struct kbv_mpi_device {
    char name[128];    /* kbv_device_name: what records say */
    char size[8];      /* "full" or "small" */
    char arch[16];     /* the GPU architecture candidates are built for; "" on the CPU */
} kbv_mpi_device;

typedef struct kbv_mpi_coordinator_ops {
    /* Once, when the first rank is ready: plans the jobs 0..*n_jobs-1. An
     * error stops the run before anything is handed out. */
    kbv_status (*plan)(void *ctx, const kbv_mpi_device *dev, int *n_jobs);
    /* What an evaluating rank needs to know of job (malloc'd text). */
    kbv_status (*job_text)(void *ctx, int job, char **text);
    /* Job was handed out now. */
    void (*dispatched)(void *ctx, int job);
    /* A finished record of job, to append; an error stops the run. */
    kbv_status (*record)(void *ctx, int job, const kbv_record *rec, double seconds);
    /* Job could not be evaluated, and why. */
    void (*failed)(void *ctx, int job, const char *why);
    void *ctx;
} kbv_mpi_coordinator_ops;

typedef struct kbv_mpi_stats {
    int ranks;         /* evaluating ranks */
    int ready;         /* that became ready */
    int unused;        /* that could not start, or not on the run's device */
    int lost;          /* that died or fell silent */
    int signal;        /* the signal that stopped rank 0, or 0 */
} kbv_mpi_stats;

/* Rank 0: runs the jobs on the other ranks, then tells them to stop.
 * Returns when every job was recorded or failed, when no rank is left, or
 * on a signal (stats->signal; jobs in flight go to failed()); an error is
 * the coordinator's own (plan() or record() failed, no rank could start). */
kbv_status kbv_mpi_coordinate(const kbv_mpi_world *w, const kbv_mpi_coordinator_ops *ops,
                              kbv_mpi_stats *stats);

typedef struct kbv_mpi_evaluator_ops {
    /* Evaluates the job described by text (job_text's) into rec. An error is
     * that job's harness failure. */
    kbv_status (*evaluate)(void *ctx, kbv_evaluator *ev, kbv_baseline_cache *cache,
                           const char *text, kbv_record *rec);
    void *ctx;
} kbv_mpi_evaluator_ops;

/* Any other rank: creates its evaluator (device and size as given on the
 * command line, resolved on this node; eval: the rest of its options) and
 * evaluates jobs until rank 0 says stop. */
kbv_status kbv_mpi_serve(const kbv_mpi_world *w, const char *device, const char *size,
                         const kbv_eval_opts *eval, const kbv_mpi_evaluator_ops *ops);

#endif
