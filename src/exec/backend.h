/* A backend: one device (the CPU, or one CUDA GPU) in one precision mode.
 *
 * It executes graphs op by op like PyTorch eager (kbv_graph_run in
 * exec/graph_run.c walks the nodes and calls ops[node->op]) and offers the
 * device services the evaluator needs: shared arenas for the candidate
 * process, input generation, poisoning, comparison, hashing. Backends are
 * tables of function pointers; src/cpu and src/cuda each fill one. */
#ifndef KBV_BACKEND_H
#define KBV_BACKEND_H

#include <stdbool.h>
#include <stdint.h>

#include "core/status.h"
#include "dist/dist.h"
#include "graph/graph.h"

typedef enum kbv_mode {
    KBV_MODE_FP32_STRICT = 0,  /* matmul FP32 without tensor cores; conv without TF32 */
    KBV_MODE_FP32,             /* PyTorch defaults: matmul FP32, conv TF32 allowed */
    KBV_MODE_TF32,             /* matmul and conv on TF32 tensor cores */
    KBV_MODE_FP64,             /* the oracle: everything in float64 */
    KBV_MODE_BF16,             /* PyTorch eager after .to(torch.bfloat16): bfloat16 tensors, each
                                  op computing in float32 and rounding its result once; matmul
                                  and conv on bf16 tensor cores with float32 accumulation */
    KBV_MODE_COUNT
} kbv_mode;

/* "fp32-strict", "fp32", "tf32", "fp64", "bf16" */
const char *kbv_mode_name(kbv_mode m);
struct kbv_backend;
/* The first timed mode (fp32-strict, fp32, tf32) that runs exactly the code
 * mode m runs for graph g on a backend like be: the mode's own where g has
 * an op whose TF32 use tells m apart (ops_table.h), else one that shares
 * everything -- on a backend without tensor-core math, fp32-strict for all.
 * Baselines of such modes are one measurement, so that identical kernels
 * cannot come out different by the noise between two measurements. */
kbv_mode kbv_mode_equivalent(const struct kbv_backend *be, const kbv_graph *g, kbv_mode m);
kbv_status kbv_mode_parse(const char *s, kbv_mode *m);
/* The dtype a tensor of dtype `logical` in the problem is stored in on be:
 * float tensors as be->float_dtype, others as they are. A Python number
 * given to forward() (python_scalar: an input of the scalar generator) stays
 * float32 beside bfloat16 tensors, as PyTorch's .to(torch.bfloat16) casts
 * tensors only and a Python float meets a bf16 tensor as float32. */
kbv_dtype kbv_storage_dtype(const struct kbv_backend *be, kbv_dtype logical, bool python_scalar);

/* Allocator statistics, as torch.cuda.memory_allocated/max_memory_allocated
 * report them: requests rounded up to 512 bytes. */
typedef struct kbv_mem_stats {
    size_t current;
    size_t peak;
} kbv_mem_stats;

/* Memory both the evaluator and the candidate process see: a MAP_SHARED
 * memfd on the CPU; on a GPU one physical allocation made with the CUDA
 * virtual memory API and shared as a POSIX file descriptor. (A cudaMalloc of
 * 18 GB opened through legacy CUDA IPC ran streaming kernels 2-4x slower in
 * the importing process on an H200, while a VMM allocation shared by
 * descriptor ran at native speed: bench/probes/ipc_bandwidth.cu.) */
typedef struct kbv_arena {
    void *base;                /* in the evaluator's address space */
    size_t bytes;              /* on a GPU rounded up to the allocation granularity */
    int fd;                    /* the memfd (CPU) or the exported allocation (GPU) */
    unsigned char ipc[64];     /* legacy CUDA IPC handle, when fd is -1 on a GPU */
    uint64_t handle;           /* GPU: CUmemGenericAllocationHandle */
} kbv_arena;

/* Statistics of one comparison of a candidate output against references.
 * Standard/verified fields use ref (allclose); strict fields use the oracle
 * and the fp32-strict baseline (DESIGN section 4). */
typedef struct kbv_compare_stats {
    int64_t n;                 /* elements */
    int64_t poison_left;       /* elements still holding the poison pattern */
    int64_t cand_nonfinite;    /* candidate NaN or inf */
    int64_t cand_nan;          /* of those, NaN (the poison included) */
    /* allclose(cand, ref, atol, rtol) */
    int64_t ref_nonfinite;     /* reference elements that are not finite */
    int64_t allclose_fail;     /* |c - r| > atol + rtol |r|, or c not finite where r is */
    int64_t allclose_first;    /* first failing index, -1 if none */
    double max_abs_diff;       /* max |c - r| over finite pairs */
    /* strict, against the float64 oracle; only when an oracle was given
     * (the rule of exec/strict_rule.h) */
    int64_t unjudged;          /* elements not judged, for any of the rule's reasons */
    int64_t oracle_nonfinite;  /* of those, where the float64 oracle itself is NaN or +-inf */
    int64_t class_fail;        /* judged elements where the candidate's class is wrong */
    int64_t strict_first;      /* first judged element that fails its class, -1 if none */
    double sq_err, sq_ref;     /* sums of (c - o)^2 and o^2 over judged finite elements */
    double max_err, max_ref;   /* max |c - o| and max |o| over judged finite elements */
} kbv_compare_stats;

#define KBV_POISON_F32 0x7FF0DEADu   /* a quiet NaN no arithmetic produces */
/* For 2-byte floats each half is 0x7FF0: a NaN in float16 and in bfloat16
 * with a payload no arithmetic produces (the halves of KBV_POISON_F32 would
 * leave every other bfloat16 element the finite -6.2e18). */
#define KBV_POISON_HALF2 0x7FF07FF0u

/* The 4-byte word a tensor of dtype dt is poisoned with, repeated. */
static inline uint32_t kbv_poison_word(kbv_dtype dt)
{
    return dt == KBV_F16 || dt == KBV_BF16 ? KBV_POISON_HALF2 : KBV_POISON_F32;
}

typedef struct kbv_backend kbv_backend;

/* One op on this backend: args and out are tensors in this backend's memory,
 * float values stored as be->float_dtype; out->data is already allocated
 * (for view ops, out->data and out->stride are to be set by the op). */
typedef kbv_status (*kbv_op_fn)(kbv_backend *be, const kbv_node *node,
                                const kbv_tensor *args, kbv_tensor *out);

struct kbv_backend {
    const char *name;          /* "cpu-f32", "cuda-tf32", ... */
    kbv_mode mode;
    bool tensor_math;          /* matmul and conv choose TF32 by mode (CUDA); false: every
                                  float32 mode runs the same code (the CPU) */
    kbv_dtype float_dtype;     /* storage of float values: KBV_F32, KBV_F64 or KBV_BF16 */
    int device;                /* CUDA ordinal; -1 on the CPU */
    const kbv_op_fn *ops;      /* KBV_OP_COUNT entries; NULL = unsupported */
    /* Where float_dtype is float64: whether op takes a contiguous float32
     * operand and reads it as its (exact) float64 value, so that the
     * oracle's inputs need no float64 copy first (kbv_graph_takes_f32_input);
     * NULL: no op does. */
    bool (*widens_f32)(const kbv_backend *be, kbv_op op);
    kbv_mem_stats mem;         /* of alloc/release below */

    /* Scratch through the backend's caching allocator (counted in mem). */
    kbv_status (*alloc)(kbv_backend *be, size_t bytes, void **ptr);
    void (*release)(kbv_backend *be, void *ptr);
    void (*reset_peak)(kbv_backend *be);          /* peak = current */
    void (*trim)(kbv_backend *be);                /* return cached blocks to the device */
    kbv_status (*sync)(kbv_backend *be);          /* wait for all enqueued work */

    /* Device services (mode-independent). */
    kbv_status (*arena_create)(kbv_backend *be, size_t bytes, kbv_arena *arena);
    void (*arena_destroy)(kbv_backend *be, kbv_arena *arena);
    kbv_status (*copy)(kbv_backend *be, void *dst, const void *src, size_t bytes);   /* device to device */
    kbv_status (*to_host)(kbv_backend *be, void *host, const void *src, size_t bytes);
    kbv_status (*from_host)(kbv_backend *be, void *dst, const void *host, size_t bytes);
    /* Fills t (contiguous, its own dtype) with input `in` drawn under dist. */
    kbv_status (*fill)(kbv_backend *be, const kbv_input_def *in, int input_index,
                       const kbv_draw *draw, kbv_tensor *t);
    /* Fills g's param p (state_dict order) by its initialiser, with the
     * fan_in g derived (draw->dist D5 redraws, see dist.h). */
    kbv_status (*fill_param)(kbv_backend *be, const kbv_graph *g, int p, const kbv_draw *draw,
                             kbv_tensor *t);
    /* Converts between float dtypes elementwise (same element count, contiguous). */
    kbv_status (*convert)(kbv_backend *be, const kbv_tensor *src, kbv_tensor *dst);
    kbv_status (*poison)(kbv_backend *be, kbv_tensor *t);
    /* oracle (F64) and strict (F32) may be NULL: then strict fields stay 0. */
    kbv_status (*compare)(kbv_backend *be, const kbv_tensor *cand, const kbv_tensor *ref,
                          const kbv_tensor *oracle, const kbv_tensor *strict,
                          double atol, double rtol, kbv_compare_stats *out);
    /* compare's statistics of cand in *out and, from the same pass, the
     * budget baseline's strict error sums in *budget_out (n, sq_err, sq_ref,
     * max_err, max_ref as compare(budget, ref, oracle, strict) gives them; its
     * other fields 0, first indices -1): strict's two judgements of a draw,
     * with the references read once. oracle is required. */
    kbv_status (*compare_budget)(kbv_backend *be, const kbv_tensor *cand,
                                 const kbv_tensor *budget, const kbv_tensor *ref,
                                 const kbv_tensor *oracle, const kbv_tensor *strict, double atol,
                                 double rtol, kbv_compare_stats *out,
                                 kbv_compare_stats *budget_out);
    kbv_status (*hash)(kbv_backend *be, const void *data, size_t bytes, uint64_t *out);
    /* Timing on the backend's own clock: CUDA events on its stream, or
     * CLOCK_MONOTONIC on the CPU. timer_stop waits for the work and returns ms. */
    kbv_status (*timer_start)(kbv_backend *be);
    kbv_status (*timer_stop)(kbv_backend *be, double *ms);
    /* The SM clock now and its ceiling, MHz, as the driver reports them (NVML);
     * NULL, or 0 and 0, where there is no such clock (the CPU). */
    kbv_status (*sm_clock)(kbv_backend *be, unsigned *mhz, unsigned *max_mhz);
    /* Evicts the last-level cache (writes >= 2x its size), before a cold trial. */
    kbv_status (*flush_cache)(kbv_backend *be);
    void (*destroy)(kbv_backend *be);
    void *impl;
};

/* Whether g's input `input` (a float32 tensor) can be given to g's run on be
 * as it is, though be stores float64: every node that reads it is an op be
 * widens on reading (be->widens_f32), neither a view nor in place, and the
 * input is not an output of g itself. Its run then equals the run on the
 * input's float64 copy, without the copy. */
bool kbv_graph_takes_f32_input(const kbv_backend *be, const kbv_graph *g, int input);

kbv_status kbv_cpu_backend_create(kbv_mode mode, kbv_backend **out);
/* Defined in src/cuda when built with CUDA; otherwise returns KBV_ERR_UNSUPPORTED. */
kbv_status kbv_cuda_backend_create(int device, kbv_mode mode, kbv_backend **out);
bool kbv_cuda_available(void);
void kbv_backend_destroy(kbv_backend *be);

/* What a device is, as its backend knows it: what records and caches name
 * it by, what candidates are compiled for, what a cache flush must evict.
 * Asked by device ordinal without making a backend (the device probe asks
 * every GPU before any backend exists). Facts a device does not have, or
 * that could not be read, are 0. */
typedef struct kbv_device_facts {
    int device;                /* CUDA ordinal; -1 for the CPU */
    char name[256];            /* the device's own name: "NVIDIA H200"; "cpu" */
    int cc_major, cc_minor;    /* CUDA compute capability */
    int sm_count;              /* streaming multiprocessors */
    size_t cache_bytes;        /* the GPU's L2; the CPU's last-level cache */
    size_t flush_bytes;        /* what a cache flush writes to evict it (>= 2x cache_bytes) */
    int sm_clock_khz;          /* peak SM clock */
    int mem_clock_khz;         /* peak memory clock */
    int driver_version;        /* CUDA's numbering: 13000 is 13.0 */
    int runtime_version;
} kbv_device_facts;

kbv_status kbv_cpu_device_facts(kbv_device_facts *out);
/* Defined in src/cuda when built with CUDA; otherwise KBV_ERR_UNSUPPORTED. */
kbv_status kbv_cuda_device_facts(int device, kbv_device_facts *out);
/* GPUs the CUDA runtime shows (0 when built without CUDA). */
kbv_status kbv_cuda_device_count(int *n);

/* Runs g on be: inputs and params are tensors in be's memory (float values
 * as be->float_dtype); outputs are allocated through be->alloc and returned
 * (the caller releases them with be->release). Intermediates are freed after
 * their last use, as Python's reference counting frees eager temporaries. */
kbv_status kbv_graph_run(const kbv_graph *g, kbv_backend *be,
                         const kbv_tensor *inputs, const kbv_tensor *params,
                         kbv_tensor *outputs);

#endif
