/* The wire protocol between the evaluator (eval/child.c) and kbv-runner.
 *
 * One SOCK_SEQPACKET socketpair, fd 3 in the runner; the arena's descriptor
 * (a memfd on CPU runs, an exported CUDA allocation on GPU runs) is fd 4,
 * given at the start or, to a runner started ahead of its candidate (its
 * arguments KBV_RUNNER_WARM_ARG, the CUDA ordinal it brings up while it
 * waits, -1 on the CPU, and KBV_RUNNER_WARM_PYTHON when it is for a
 * KernelBench-format candidate: the interpreter and torch brought up too),
 * passed with SETUP as SCM_RIGHTS and moved to fd 4;
 * stdout and stderr are a pipe the evaluator reads. Every message is one fixed-size struct below, starting with
 * a header carrying a magic, the protocol version, the message type and a
 * sequence number; a message of any other size, magic, version, type or
 * sequence is a protocol error. The evaluator sends SETUP once, with the
 * tensor counts, followed by the tensor table in TENSORS messages of up to
 * KBV_PROTO_TENSORS_PER_MSG entries (input sets set-major, then params,
 * then outputs; each carrying the setup's sequence number), then requests;
 * the runner answers the setup, once the whole table has arrived, and each
 * request with exactly one kbv_proto_reply.
 * The evaluator's view of the runner is eval/child.h; this header is all
 * the two share. */
#ifndef KBV_CHILD_PROTO_H
#define KBV_CHILD_PROTO_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "graph/problem.h"
#include "kbv/candidate.h"

#define KBV_PROTO_MAGIC 0x6b627672u  /* "kbvr" */
#define KBV_PROTO_VERSION 6u  /* 6: counted tensor tables and the KernelBench-format setup together */
#define KBV_PROTO_FD_SOCKET 3
#define KBV_PROTO_FD_ARENA 4
#define KBV_RUNNER_WARM_ARG "--warm"
#define KBV_RUNNER_WARM_PYTHON "python"
/* A candidate path naming a KernelBench-format file (".py"): the runner
 * hosts Python for it, and both sides tell it so. */
static inline bool kbv_proto_is_python_candidate(const char *path)
{
    size_t n = strlen(path);
    return n > 3 && !strcmp(path + n - 3, ".py");
}
#define KBV_PROTO_NAME_MAX 64
#define KBV_PROTO_PATH_MAX 4096
#define KBV_PROTO_REASON_MAX 512

#define KBV_CHILD_MAX_SETS 4      /* input buffer sets (rotation) */
#define KBV_CHILD_MAX_CALLS 128   /* calls per request */
#define KBV_PROTO_MAX_KERNELS 256 /* kernels of the candidate named in the setup */
#define KBV_PROTO_PYTHON_INIT_MAX 2048  /* a KernelBench-format candidate's init inputs */
#define KBV_PROTO_TENSORS_PER_MSG 64
/* Not a limit of problems: a count past it can only be a corrupt message,
 * and is refused before the runner allocates for it. */
#define KBV_PROTO_SANE_TENSORS (1 << 20)

/* Why a candidate failed at run time (KBV_FAULT_NONE: it did not). */
typedef enum kbv_child_fault {
    KBV_FAULT_NONE = 0,
    KBV_FAULT_LOAD,        /* dlopen failed, kbv_forward missing, ABI version wrong */
    KBV_FAULT_RETURNED,    /* kbv_prepare/kbv_forward returned non-zero */
    KBV_FAULT_CRASH,       /* killed by a signal or exited unexpectedly */
    KBV_FAULT_TIMEOUT,     /* a request passed its deadline */
    KBV_FAULT_CUDA,        /* a CUDA error after the call (sticky or launch) */
    KBV_FAULT_HARNESS,     /* the harness itself failed (spawn, protocol) */
    KBV_FAULT_SANDBOX,     /* the candidate made a system call the sandbox forbids */
    KBV_FAULT_COUNT
} kbv_child_fault;

#define KBV_TRACE_MAX_NAMES 32      /* distinct kernel names a traced pass reports */
#define KBV_TRACE_NAME_MAX 128       /* longer names are cut (both sides cut alike) */
#define KBV_TRACE_MODULE_MAX 48      /* the file name of the object a kernel came from */

/* Where a traced kernel was launched from: the host function its launch
 * named lies in the candidate's object, in another one (a vendor library),
 * or the launch was not seen (a library that launches through the driver,
 * or no launch callbacks in this process). */
typedef enum kbv_trace_origin {
    KBV_ORIGIN_UNKNOWN = 0,
    KBV_ORIGIN_CANDIDATE = 1,
    KBV_ORIGIN_OTHER = 2,
} kbv_trace_origin;

/* What the device did during a traced pass (kbv_child_trace_calls), as the
 * runner saw it through CUPTI activity records: kernels, copies and sets,
 * each placed against the calls' windows (from just before kbv_forward to
 * the device being idle after it). The evaluator judges it (eval/trace_check.h). */
typedef struct kbv_child_trace {
    int32_t available;         /* 0: no tracing here (the CPU, or CUPTI refused) */
    int32_t calls;
    int32_t records;           /* kernels, copies and sets seen during the pass */
    int32_t lost;              /* records CUPTI dropped or the runner could not keep */
    int32_t foreign_stream;    /* records on a stream other than the harness's */
    int32_t outside_call;      /* records not inside any call's window */
    int32_t policy_window;     /* kernels launched with an L2 access-policy window */
    int32_t n_names;           /* distinct kernel names in names[] */
    int32_t names_truncated;   /* more distinct names than KBV_TRACE_MAX_NAMES */
    int32_t pad;
    uint32_t call_kernels[KBV_CHILD_MAX_CALLS];  /* per call: kernels inside its window */
    uint32_t call_names[KBV_CHILD_MAX_CALLS];    /* per call: bit i when names[i] ran in it */
    double busy_ms;            /* time some record was active inside the windows */
    double event_ms;           /* the calls' event-timed durations, summed */
    char names[KBV_TRACE_MAX_NAMES][KBV_TRACE_NAME_MAX];
    char first_offender[KBV_TRACE_NAME_MAX];   /* the first foreign or outside record */
    /* Origins: names[] are distinct per (name, origin, module). origins is
     * 1 when the pass saw the kernels' launches (CUPTI runtime callbacks),
     * so that name_origin says where each came from; 0: all unknown. */
    int32_t origins;
    int32_t pad2;
    int8_t name_origin[KBV_TRACE_MAX_NAMES];   /* kbv_trace_origin of names[i] */
    char name_module[KBV_TRACE_MAX_NAMES][KBV_TRACE_MODULE_MAX];  /* OTHER: its file's name */
} kbv_child_trace;

/* What the runner saw of a KernelBench-format candidate (all zero for a C
 * candidate), inside the candidate's own interpreter: the evaluator's
 * strict audits judge it (docs/THREATS.md says what it cannot see). */
typedef struct kbv_child_python {
    int32_t calls;                    /* calls of forward so far */
    int32_t calls_without_extension;  /* of them: no function of a compiled extension ran */
    int32_t has_extension;            /* the candidate loaded one (load_inline, load) */
    int32_t threads_started;          /* Python threads alive beyond those at load */
    char torch_patched[96];           /* the first torch callable it replaced, "" when none */
} kbv_child_python;

typedef enum kbv_proto_type {
    KBV_MSG_SETUP = 1,    /* evaluator -> runner: kbv_proto_setup */
    KBV_MSG_PREPARE,      /* kbv_proto_request: kbv_prepare on the params */
    KBV_MSG_CALL,         /* kbv_proto_request: timed calls of kbv_forward */
    KBV_MSG_MEMORY,       /* kbv_proto_request: peak bytes so far */
    KBV_MSG_EXIT,         /* kbv_proto_request: kbv_finish, then exit */
    KBV_MSG_REPLY,        /* runner -> evaluator: kbv_proto_reply */
    KBV_MSG_TRACE,        /* kbv_proto_request: untimed calls under activity tracing */
    KBV_MSG_TENSORS,      /* evaluator -> runner, after SETUP: kbv_proto_tensors */
} kbv_proto_type;

typedef struct kbv_proto_header {
    uint32_t magic;
    uint32_t version;
    uint32_t type;        /* kbv_proto_type */
    uint32_t seq;         /* a reply carries the sequence number of its request */
} kbv_proto_header;

typedef struct kbv_proto_tensor {
    uint64_t offset;      /* bytes from the start of the arena */
    int32_t dtype;        /* kbv_dtype */
    int32_t ndim;
    int64_t shape[KBV_MAX_DIMS];
    int64_t stride[KBV_MAX_DIMS];
    char name[KBV_PROTO_NAME_MAX];
} kbv_proto_tensor;

typedef struct kbv_proto_setup {
    kbv_proto_header h;
    int32_t device;                   /* CUDA ordinal, -1 for the CPU */
    int32_t parent_pid;
    uint64_t arena_bytes;
    uint64_t flush_bytes;
    uint32_t vendor_libs;             /* vendor libraries to load before the run stage */
    uint32_t n_kernels;               /* the candidate's kernels, by their host functions' */
    uint64_t kernels[KBV_PROTO_MAX_KERNELS];   /* offsets in its object (st_value) */
    unsigned char ipc[64];            /* cudaIpcMemHandle_t of the arena (CUDA) */
    char candidate[KBV_PROTO_PATH_MAX];
    /* KernelBench-format candidates (a .py candidate): Python source, from
     * kbv's definition of the problem at the run's size, that sets
     * init_inputs (what get_init_inputs() returns); "" for C candidates */
    char python_init[KBV_PROTO_PYTHON_INIT_MAX];
    int32_t n_inputs, n_params, n_outputs, n_sets;   /* the table that follows */
} kbv_proto_setup;

/* A slice of the tensor table: entries first .. first + count - 1. */
typedef struct kbv_proto_tensors {
    kbv_proto_header h;
    int32_t first;
    int32_t count;        /* 1..KBV_PROTO_TENSORS_PER_MSG */
    kbv_proto_tensor t[KBV_PROTO_TENSORS_PER_MSG];
} kbv_proto_tensors;

typedef struct kbv_proto_request {
    kbv_proto_header h;
    int32_t set;          /* CALL: input set */
    int32_t n_calls;      /* CALL: 1..KBV_CHILD_MAX_CALLS */
    int32_t flush;        /* CALL: evict the cache before each call */
    int32_t noise_us;     /* CALL: keep the GPU busy beside each call for about this long */
} kbv_proto_request;

typedef struct kbv_proto_reply {
    kbv_proto_header h;
    int32_t fault;        /* kbv_child_fault */
    int32_t n_times;
    uint64_t peak_bytes;  /* MEMORY */
    double times_ms[KBV_CHILD_MAX_CALLS];
    char reason[KBV_PROTO_REASON_MAX];
    int32_t l2_persisting;   /* CALL, TRACE: calls after which persisting L2 was set */
    int32_t sandbox_denied;  /* every reply: forbidden system calls made so far */
    int32_t sandbox_syscall; /* the first of them */
    int32_t pad;
    char sandbox_path[64];   /* the first one's path, when it named one ("" else) */
    kbv_child_trace trace;   /* TRACE */
    kbv_child_python python; /* every reply */
} kbv_proto_reply;

/* Both ends are built from one tree, but the runner may be a stale binary
 * ($KBV_RUNNER): the version and the sizes guard against that. */
_Static_assert(sizeof(kbv_proto_setup) < 64 * 1024, "setup fits one socket message");
_Static_assert(sizeof(kbv_proto_tensors) < 64 * 1024, "a table slice fits one socket message");

#endif
