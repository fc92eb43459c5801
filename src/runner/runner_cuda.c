/* The runner's CUDA device: the arena is the evaluator's allocation, imported
 * from the file descriptor it was exported as (CUDA virtual memory API) and
 * mapped with its own large pages -- or, when no descriptor came, opened
 * through legacy CUDA IPC. The candidate works on a non-blocking stream, calls are
 * timed with events on it, and the candidate's own allocations are seen
 * through CUPTI memory activity records. */
#include "runner/runner.h"
#include "runner/runner_python.h"
#include "runner/runner_trace.h"
#include "runner/runner_vendor.h"

#ifdef KBV_HAVE_CUDA

#include "cuda/cuda_launch.h"

#include <cuda.h>
#include <cuda_runtime_api.h>
#include <cupti.h>
#include <fcntl.h>
#include <unistd.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(sizeof(cudaIpcMemHandle_t) <= sizeof(((kbv_proto_setup *)0)->ipc),
               "the IPC handle fits the setup message");

#define CUPTI_BUFFER_BYTES (1u << 20)

typedef struct cuda_state {
    cudaStream_t stream;
    cudaStream_t noise_stream; /* the race run's noise, beside the candidate's stream */
    size_t l2_limit;           /* the persisting-L2 limit the harness set */
    cudaEvent_t start, end;
    cudaError_t start_err;     /* recording the start event, reported at the stop */
    void *flush_buf;
    size_t flush_bytes;
    bool ipc_open;
    CUdeviceptr vmm_base;      /* the arena mapped from its descriptor */
    size_t vmm_bytes;
    CUmemGenericAllocationHandle vmm_handle;
} cuda_state;

/* ---- CUPTI memory tracking ----------------------------------------------
 * CUPTI hands records over from its own thread, so they are queued under a
 * lock and applied in timestamp order when the evaluator asks for the peak.
 * Every device allocation after track_begin is seen here, env->alloc's
 * cudaMalloc included, so scratch is counted once, in its true order. */

typedef struct mem_event {
    uint64_t timestamp;
    uint64_t seq;              /* arrival order, to break timestamp ties */
    uint64_t address;
    uint64_t bytes;
    bool alloc;
} mem_event;

typedef struct live_block {
    uint64_t address;
    size_t bytes;
} live_block;

static struct {
    pthread_mutex_t lock;
    bool on;
    mem_event *pending;
    size_t n_pending, cap_pending;
    uint64_t seq;
    bool overflow;             /* an event was lost: the peak is a lower bound */
    live_block *live;
    size_t n_live, cap_live;
    size_t live_bytes, peak_bytes;
} track = {.lock = PTHREAD_MUTEX_INITIALIZER};

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records)
{
    void *p = NULL;
    if (posix_memalign(&p, 8, CUPTI_BUFFER_BYTES) != 0)
        p = NULL;
    *buffer = p;
    *size = p ? CUPTI_BUFFER_BYTES : 0;
    *max_records = 0;
}

static bool counted_kind(CUpti_ActivityMemoryKind kind)
{
    /* device memory in any form; host allocations (pinned, pageable) are not */
    return kind == CUPTI_ACTIVITY_MEMORY_KIND_DEVICE || kind == CUPTI_ACTIVITY_MEMORY_KIND_ARRAY ||
           kind == CUPTI_ACTIVITY_MEMORY_KIND_MANAGED ||
           kind == CUPTI_ACTIVITY_MEMORY_KIND_DEVICE_STATIC ||
           kind == CUPTI_ACTIVITY_MEMORY_KIND_MANAGED_STATIC;
}

static void queue_event(const CUpti_ActivityMemory4 *m)
{
    bool alloc = m->memoryOperationType == CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_ALLOCATION;
    if (!alloc && m->memoryOperationType != CUPTI_ACTIVITY_MEMORY_OPERATION_TYPE_RELEASE)
        return;
    if (!counted_kind(m->memoryKind))
        return;
    if (track.n_pending == track.cap_pending) {
        size_t cap = track.cap_pending ? 2 * track.cap_pending : 256;
        mem_event *grown = realloc(track.pending, cap * sizeof *grown);
        if (!grown) {
            track.overflow = true;
            return;
        }
        track.pending = grown;
        track.cap_pending = cap;
    }
    track.pending[track.n_pending++] = (mem_event){
        .timestamp = m->timestamp, .seq = track.seq++, .address = m->address,
        .bytes = m->bytes, .alloc = alloc};
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream_id, uint8_t *buffer,
                                      size_t size, size_t valid)
{
    (void)ctx;
    (void)stream_id;
    (void)size;
    pthread_mutex_lock(&track.lock);
    if (track.on) {
        CUpti_Activity *rec = NULL;
        while (cuptiActivityGetNextRecord(buffer, valid, &rec) == CUPTI_SUCCESS) {
            if (rec->kind == CUPTI_ACTIVITY_KIND_MEMORY2)
                queue_event((const CUpti_ActivityMemory4 *)rec);
            else
                runner_trace_take(rec);
        }
    }
    pthread_mutex_unlock(&track.lock);
    free(buffer);
}

static int event_order(const void *a, const void *b)
{
    const mem_event *x = a, *y = b;
    if (x->timestamp != y->timestamp)
        return x->timestamp < y->timestamp ? -1 : 1;
    return x->seq < y->seq ? -1 : (x->seq > y->seq);
}

/* Applies the queued events to the live set; called with the lock held. */
static void apply_events(void)
{
    qsort(track.pending, track.n_pending, sizeof *track.pending, event_order);
    for (size_t i = 0; i < track.n_pending; i++) {
        const mem_event *e = &track.pending[i];
        if (e->alloc) {
            if (track.n_live == track.cap_live) {
                size_t cap = track.cap_live ? 2 * track.cap_live : 64;
                live_block *grown = realloc(track.live, cap * sizeof *grown);
                if (!grown) {
                    track.overflow = true;
                    continue;
                }
                track.live = grown;
                track.cap_live = cap;
            }
            size_t bytes = runner_round512((size_t)e->bytes);
            track.live[track.n_live++] = (live_block){e->address, bytes};
            track.live_bytes += bytes;
            if (track.live_bytes > track.peak_bytes)
                track.peak_bytes = track.live_bytes;
        } else {
            /* releases of blocks from before tracking began are not ours */
            for (size_t j = 0; j < track.n_live; j++) {
                if (track.live[j].address == e->address) {
                    track.live_bytes -= track.live[j].bytes;
                    track.live[j] = track.live[--track.n_live];
                    break;
                }
            }
        }
    }
    track.n_pending = 0;
}

/* ---- the device table --------------------------------------------------- */

static kbv_child_fault cuda_fault(cudaError_t err, const char *what, char *reason)
{
    snprintf(reason, RUNNER_REASON_CAP, "%s: %s: %s", what, cudaGetErrorName(err),
             cudaGetErrorString(err));
    return KBV_FAULT_CUDA;
}

static kbv_child_fault setup_failed(cudaError_t err, const char *what, char *reason)
{
    snprintf(reason, RUNNER_REASON_CAP, "runner setup: %s: %s", what, cudaGetErrorString(err));
    return KBV_FAULT_HARNESS;
}

static kbv_child_fault driver_failed(CUresult res, const char *what, char *reason)
{
    const char *text = NULL;
    cuGetErrorString(res, &text);
    snprintf(reason, RUNNER_REASON_CAP, "runner setup: %s: %s", what, text ? text : "unknown");
    return KBV_FAULT_HARNESS;
}

/* Maps the arena from the descriptor on KBV_PROTO_FD_ARENA, then closes it. */
static kbv_child_fault import_arena(cuda_state *s, int device, size_t bytes, void **base,
                                    char *reason)
{
    CUresult res;
    CUmemGenericAllocationHandle h;
    res = cuMemImportFromShareableHandle(&h, (void *)(intptr_t)KBV_PROTO_FD_ARENA,
                                         CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR);
    close(KBV_PROTO_FD_ARENA);
    if (res != CUDA_SUCCESS)
        return driver_failed(res, "cuMemImportFromShareableHandle (the arena)", reason);
    s->vmm_handle = h;
    CUmemAllocationProp prop;
    size_t gran = 0;
    if ((res = cuMemGetAllocationPropertiesFromHandle(&prop, h)) != CUDA_SUCCESS ||
        (res = cuMemGetAllocationGranularity(&gran, &prop,
                                             CU_MEM_ALLOC_GRANULARITY_RECOMMENDED)) != CUDA_SUCCESS)
        return driver_failed(res, "arena properties", reason);
    if (gran == 0 || bytes % gran != 0) {
        snprintf(reason, RUNNER_REASON_CAP, "runner setup: arena of %zu bytes is not a multiple "
                 "of its granularity %zu", bytes, gran);
        return KBV_FAULT_HARNESS;
    }
    if ((res = cuMemAddressReserve(&s->vmm_base, bytes, gran, 0, 0)) != CUDA_SUCCESS)
        return driver_failed(res, "cuMemAddressReserve", reason);
    s->vmm_bytes = bytes;
    if ((res = cuMemMap(s->vmm_base, bytes, 0, h, 0)) != CUDA_SUCCESS)
        return driver_failed(res, "cuMemMap (the arena)", reason);
    CUmemAccessDesc access;
    memset(&access, 0, sizeof access);
    access.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    access.location.id = device;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    if ((res = cuMemSetAccess(s->vmm_base, bytes, &access, 1)) != CUDA_SUCCESS)
        return driver_failed(res, "cuMemSetAccess (the arena)", reason);
    *base = (void *)s->vmm_base;
    return KBV_FAULT_NONE;
}

static kbv_child_fault cuda_init(runner *r, char *reason)
{
    cuda_state *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(reason, RUNNER_REASON_CAP, "runner: out of memory");
        return KBV_FAULT_HARNESS;
    }
    r->dev_state = s;
    cudaError_t err;
    if ((err = cudaSetDevice(r->setup.device)) != cudaSuccess)
        return setup_failed(err, "cudaSetDevice", reason);
    if ((err = cudaFree(NULL)) != cudaSuccess)
        return setup_failed(err, "CUDA initialisation", reason);
    void *base = NULL;
    if (fcntl(KBV_PROTO_FD_ARENA, F_GETFD) >= 0) {
        kbv_child_fault f = import_arena(s, r->setup.device, (size_t)r->setup.arena_bytes,
                                         &base, reason);
        if (f != KBV_FAULT_NONE)
            return f;
    } else {
        cudaIpcMemHandle_t handle;
        memcpy(&handle, r->setup.ipc, sizeof handle);
        if ((err = cudaIpcOpenMemHandle(&base, handle, cudaIpcMemLazyEnablePeerAccess)) !=
            cudaSuccess)
            return setup_failed(err, "cudaIpcOpenMemHandle (the arena)", reason);
        s->ipc_open = true;
    }
    r->base = base;
    /* a KernelBench-format file's kernels are mostly launched with no stream:
     * a blocking harness stream orders the legacy default stream's work with
     * its own, inside its events (the traced pass accepts both) */
    const bool python = kbv_proto_is_python_candidate(r->setup.candidate);
    if ((err = cudaStreamCreateWithFlags(&s->stream, python ? cudaStreamDefault
                                                            : cudaStreamNonBlocking)) !=
        cudaSuccess)
        return setup_failed(err, "cudaStreamCreateWithFlags", reason);
    runner_trace_allow_legacy(python);
    r->env.stream = s->stream;
    if ((err = cudaEventCreate(&s->start)) != cudaSuccess ||
        (err = cudaEventCreate(&s->end)) != cudaSuccess)
        return setup_failed(err, "cudaEventCreate", reason);
    if (r->setup.flush_bytes > 0) {
        s->flush_bytes = (size_t)r->setup.flush_bytes;
        if ((err = cudaMalloc(&s->flush_buf, s->flush_bytes)) != cudaSuccess)
            return setup_failed(err, "cudaMalloc (the flush buffer)", reason);
        /* first use now, so whatever it loads lazily is loaded before tracking */
        if ((err = cudaMemsetAsync(s->flush_buf, 0, s->flush_bytes, s->stream)) != cudaSuccess)
            return setup_failed(err, "cudaMemsetAsync (the flush buffer)", reason);
    }
    if ((err = cudaStreamCreateWithFlags(&s->noise_stream, cudaStreamNonBlocking)) != cudaSuccess)
        return setup_failed(err, "cudaStreamCreateWithFlags (noise)", reason);
    /* the harness sets the persisting-L2 limit (it is not 0 when a process
     * starts on an H200) and l2_check finds it changed after any call */
    cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, 0);
    if (cudaDeviceGetLimit(&s->l2_limit, cudaLimitPersistingL2CacheSize) != cudaSuccess)
        s->l2_limit = 0;
    (void)cudaGetLastError();
    if ((err = cudaEventRecord(s->start, s->stream)) != cudaSuccess ||
        (err = cudaEventRecord(s->end, s->stream)) != cudaSuccess ||
        (err = cudaStreamSynchronize(s->stream)) != cudaSuccess)
        return setup_failed(err, "first use of the stream", reason);
    return KBV_FAULT_NONE;
}

static void cuda_track_begin(runner *r)
{
    (void)r;
    const char *msg = NULL;
    runner_trace_watch();
    CUptiResult cr = cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed);
    if (cr == CUPTI_SUCCESS)
        cr = cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMORY2);
    if (cr != CUPTI_SUCCESS) {
        cuptiGetResultString(cr, &msg);
        fprintf(stderr, "kbv-runner: CUPTI memory tracking unavailable (%s); counting "
                "env->alloc scratch only\n", msg ? msg : "unknown error");
        return;
    }
    pthread_mutex_lock(&track.lock);
    track.on = true;
    pthread_mutex_unlock(&track.lock);
}

static kbv_child_fault cuda_loaded(runner *r, char *reason)
{
    int n = r->setup.n_kernels < KBV_PROTO_MAX_KERNELS ? (int)r->setup.n_kernels
                                                        : KBV_PROTO_MAX_KERNELS;
    runner_trace_candidate(r->so, r->setup.kernels, n);
    return runner_vendor_prepare(r->setup.vendor_libs, reason);
}

static void *cuda_alloc(runner *r, size_t bytes)
{
    (void)r;
    void *p = NULL;
    if (cudaMalloc(&p, bytes) != cudaSuccess) {
        cudaGetLastError();  /* the candidate sees NULL; not a sticky error of its call */
        return NULL;
    }
    return p;
}

static void cuda_release(runner *r, void *ptr)
{
    (void)r;
    cudaFree(ptr);
}

static kbv_child_fault cuda_flush(runner *r, unsigned round, char *reason)
{
    cuda_state *s = r->dev_state;
    if (!s->flush_buf)
        return KBV_FAULT_NONE;
    cudaError_t err = cudaMemsetAsync(s->flush_buf, (int)(round & 0xff), s->flush_bytes, s->stream);
    return err == cudaSuccess ? KBV_FAULT_NONE : cuda_fault(err, "cache flush", reason);
}

static void cuda_timer_start(runner *r)
{
    cuda_state *s = r->dev_state;
    s->start_err = cudaEventRecord(s->start, s->stream);
}

/* The first error of: the stream's work, the device's work, the last call. */
static cudaError_t settle(cuda_state *s)
{
    cudaError_t e1 = cudaStreamSynchronize(s->stream);
    cudaError_t e2 = cudaDeviceSynchronize();  /* work the candidate put elsewhere */
    cudaError_t e3 = cudaGetLastError();
    return e1 != cudaSuccess ? e1 : e2 != cudaSuccess ? e2 : e3;
}

static kbv_child_fault cuda_timer_stop(runner *r, double *ms, const char *what, char *reason)
{
    cuda_state *s = r->dev_state;
    cudaError_t rec = cudaEventRecord(s->end, s->stream);
    cudaError_t err = settle(s);
    if (err == cudaSuccess)
        err = s->start_err != cudaSuccess ? s->start_err : rec;
    if (err != cudaSuccess)
        return cuda_fault(err, what, reason);
    float elapsed = 0;
    if ((err = cudaEventElapsedTime(&elapsed, s->start, s->end)) != cudaSuccess)
        return cuda_fault(err, what, reason);
    *ms = elapsed;
    return KBV_FAULT_NONE;
}

static kbv_child_fault cuda_sync_check(runner *r, const char *what, char *reason)
{
    cudaError_t err = settle(r->dev_state);
    return err == cudaSuccess ? KBV_FAULT_NONE : cuda_fault(err, what, reason);
}

/* A changed persisting-L2 limit or an access-policy window on the candidate's
 * stream keeps data in L2 across the cache flush between timed calls; found
 * after a call, it is reported and undone before the next. */
static bool cuda_l2_check(runner *r)
{
    cuda_state *s = r->dev_state;
    bool found = false;
    size_t limit = 0;
    if (cudaDeviceGetLimit(&limit, cudaLimitPersistingL2CacheSize) == cudaSuccess &&
        limit != s->l2_limit) {
        found = true;
        cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, s->l2_limit);
    }
    cudaStreamAttrValue v;
    memset(&v, 0, sizeof v);
    if (cudaStreamGetAttribute(s->stream, cudaStreamAttributeAccessPolicyWindow, &v) ==
            cudaSuccess &&
        v.accessPolicyWindow.num_bytes > 0) {
        found = true;
        memset(&v, 0, sizeof v);
        cudaStreamSetAttribute(s->stream, cudaStreamAttributeAccessPolicyWindow, &v);
    }
    if (found)
        cudaCtxResetPersistingL2Cache();
    (void)cudaGetLastError();  /* a refused query is not the candidate's error */
    return found;
}

static void cuda_noise(runner *r, int us)
{
    cuda_state *s = r->dev_state;
    if (s->flush_buf && us > 0 &&
        kbv_cuda_launch_noise(s->noise_stream, s->flush_buf, s->flush_bytes, us) != cudaSuccess)
        (void)cudaGetLastError();  /* no noise: the run is merely quieter */
}

/* The traced pass's probe of its launch callbacks: one short kernel of the
 * runner's own on the noise stream, launched as a candidate's are. */
static void trace_probe(void *ctx)
{
    cuda_state *s = ctx;
    if (!s->flush_buf ||
        kbv_cuda_launch_noise(s->noise_stream, s->flush_buf, s->flush_bytes, 1) != cudaSuccess ||
        cudaStreamSynchronize(s->noise_stream) != cudaSuccess)
        (void)cudaGetLastError();   /* no probe: the pass says it has no origins */
}

static bool cuda_trace_begin(runner *r)
{
    cuda_state *s = r->dev_state;
    pthread_mutex_lock(&track.lock);
    bool on = track.on;   /* records arrive through the memory tracker's buffers */
    pthread_mutex_unlock(&track.lock);
    return on && runner_trace_start(s->stream, s->noise_stream, trace_probe, s);
}

static void cuda_trace_mark(runner *r, int call, bool end)
{
    (void)r;
    runner_trace_mark(call, end);
}

static void cuda_trace_end(runner *r, kbv_child_trace *out)
{
    (void)r;
    runner_trace_finish(out);
}

static size_t cuda_peak_bytes(runner *r)
{
    pthread_mutex_lock(&track.lock);
    bool on = track.on;
    pthread_mutex_unlock(&track.lock);
    if (!on)
        return r->scratch_peak;
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    pthread_mutex_lock(&track.lock);
    apply_events();
    size_t peak = track.peak_bytes;
    if (track.overflow)
        fprintf(stderr, "kbv-runner: memory records lost; the peak is a lower bound\n");
    pthread_mutex_unlock(&track.lock);
    return peak;
}

static void cuda_fini(runner *r)
{
    cuda_state *s = r->dev_state;
    pthread_mutex_lock(&track.lock);
    bool on = track.on;
    pthread_mutex_unlock(&track.lock);
    if (on) {
        cuptiActivityDisable(CUPTI_ACTIVITY_KIND_MEMORY2);
        cuptiActivityFlushAll(0);
        pthread_mutex_lock(&track.lock);
        track.on = false;
        free(track.pending);
        free(track.live);
        track.pending = NULL;
        track.live = NULL;
        track.n_pending = track.cap_pending = track.n_live = track.cap_live = 0;
        pthread_mutex_unlock(&track.lock);
    }
    if (s) {
        /* after a sticky error these fail; the process is about to exit anyway */
        if (s->flush_buf)
            cudaFree(s->flush_buf);
        if (s->start)
            cudaEventDestroy(s->start);
        if (s->end)
            cudaEventDestroy(s->end);
        if (s->stream)
            cudaStreamDestroy(s->stream);
        if (s->noise_stream)
            cudaStreamDestroy(s->noise_stream);
        if (s->ipc_open)
            cudaIpcCloseMemHandle(r->base);
        if (s->vmm_base) {
            cuMemUnmap(s->vmm_base, s->vmm_bytes);
            cuMemAddressFree(s->vmm_base, s->vmm_bytes);
        }
        if (s->vmm_handle)
            cuMemRelease(s->vmm_handle);
        free(s);
    }
    r->dev_state = NULL;
    r->base = NULL;
}

/* The context cuda_init would make first, made while the runner waits for
 * its setup; cuda_init's own cudaSetDevice and cudaFree then find it. */
static void cuda_warm(int device)
{
    if (cudaSetDevice(device) == cudaSuccess)
        (void)cudaFree(NULL);
    (void)cudaGetLastError();
}

#else /* !KBV_HAVE_CUDA */

static void cuda_warm(int device) { (void)device; }

#include <stdio.h>

static kbv_child_fault cuda_init(runner *r, char *reason)
{
    (void)r;
    snprintf(reason, RUNNER_REASON_CAP, "this kbv-runner was built without CUDA");
    return KBV_FAULT_HARNESS;
}

static void cuda_track_begin(runner *r) { (void)r; }
static kbv_child_fault cuda_loaded(runner *r, char *reason)
{
    return runner_vendor_prepare(r->setup.vendor_libs, reason);
}
static void *cuda_alloc(runner *r, size_t bytes) { (void)r; (void)bytes; return NULL; }
static void cuda_release(runner *r, void *ptr) { (void)r; (void)ptr; }
static kbv_child_fault cuda_flush(runner *r, unsigned round, char *reason)
{
    (void)r; (void)round; (void)reason;
    return KBV_FAULT_HARNESS;
}
static void cuda_timer_start(runner *r) { (void)r; }
static kbv_child_fault cuda_timer_stop(runner *r, double *ms, const char *what, char *reason)
{
    (void)r; (void)ms; (void)what; (void)reason;
    return KBV_FAULT_HARNESS;
}
static kbv_child_fault cuda_sync_check(runner *r, const char *what, char *reason)
{
    (void)r; (void)what; (void)reason;
    return KBV_FAULT_HARNESS;
}
static bool cuda_l2_check(runner *r) { (void)r; return false; }
static void cuda_noise(runner *r, int us) { (void)r; (void)us; }
static bool cuda_trace_begin(runner *r) { (void)r; return false; }
static void cuda_trace_mark(runner *r, int call, bool end) { (void)r; (void)call; (void)end; }
static void cuda_trace_end(runner *r, kbv_child_trace *out) { (void)r; (void)out; }
static size_t cuda_peak_bytes(runner *r) { (void)r; return 0; }
static void cuda_fini(runner *r) { (void)r; }

#endif /* KBV_HAVE_CUDA */

const runner_device runner_cuda = {
    .init = cuda_init,
    .track_begin = cuda_track_begin,
    .loaded = cuda_loaded,
    .alloc = cuda_alloc,
    .release = cuda_release,
    .flush = cuda_flush,
    .timer_start = cuda_timer_start,
    .timer_stop = cuda_timer_stop,
    .sync_check = cuda_sync_check,
    .peak_bytes = cuda_peak_bytes,
    .l2_check = cuda_l2_check,
    .noise = cuda_noise,
    .trace_begin = cuda_trace_begin,
    .trace_mark = cuda_trace_mark,
    .trace_end = cuda_trace_end,
    .fini = cuda_fini,
    .warm = cuda_warm,
};
