/* The traced pass of the strict protocol (docs/THREATS.md, "CUPTI audit").
 *
 * While it runs, CUPTI records every kernel, copy and set of this process
 * with device timestamps and stream ids. Each call's window runs from just
 * before kbv_forward (the harness stream idle) to the device being idle
 * after it; both ends are read with cuptiGetTimestamp, the records' clock.
 * A record counts as inside a call when it starts and ends within that
 * call's window. The summary names the kernels that ran in each call, so
 * that the evaluator can tell the candidate's own kernels from others by
 * the symbols of the built object, which this process does not read.
 *
 * Each kernel also carries where its launch came from. CUPTI's runtime-API
 * callbacks see every launch in the launching thread, with the host
 * function it names (cudaLaunchKernel's func), or the kernel handle the
 * runtime gave for one (__cudaGetKernel, seen from before the candidate was
 * loaded). The object that host function lies in (dladdr) is the kernel's
 * origin: the candidate's, or another, a vendor library, named by its file.
 * The launch's correlation id finds the kernel's record. A kernel whose
 * launch no callback saw (a library that launches through the driver) has
 * no origin. */
#include "runner/runner_trace.h"

#ifdef KBV_HAVE_CUDA

#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define TRACE_MAX_RECORDS 65536
#define MAX_KERNEL_HANDLES 4096
#define LAUNCH_SLOTS (1u << 17)    /* open addressing by correlation id, > 2x the records */
#define MAX_MODULES 16

typedef struct traced {
    uint64_t start, end;
    uint32_t stream;
    uint32_t corr;             /* the launch's correlation id (kernels) */
    int name;                  /* index in the summary's names, -1: a copy or set */
    bool policy;               /* a kernel launched with an access-policy window */
} traced;

/* ---- launches: where each kernel came from ------------------------------ */

/* The parameters of the runtime's kernel-handle entry points as CUPTI hands
 * them over: the function's arguments in order, like the generated structs
 * of generated_cuda_runtime_api_meta.h (through cupti.h), which has none
 * for these two. */
typedef struct get_kernel_params {
    cudaKernel_t *kernel;
    const void *entry;         /* the host function */
} get_kernel_params;
typedef struct launch_by_handle_params {
    cudaKernel_t kernel;       /* then the grid, block, arguments, memory, stream */
} launch_by_handle_params;

typedef struct launch_slot {
    uint32_t corr;
    int8_t used, origin, module;   /* origin: kbv_trace_origin; module: index, -1 none */
    int8_t probe;                  /* the runner's probe launched it */
} launch_slot;

static struct {
    pthread_mutex_t lock;
    bool subscribed;
    CUpti_SubscriberHandle sub;
    const void *candidate_base;    /* dli_fbase of the candidate's object */
    int n_handles;                 /* kernel handles and the host functions they are for */
    struct {
        cudaKernel_t kernel;
        const void *fn;
    } handles[MAX_KERNEL_HANDLES];
    int n_own;                     /* the candidate's kernels as the driver sees a launch of
                                      them: their CUkernel handles and CUfunctions */
    const void *own[2 * MAX_KERNEL_HANDLES];
    bool on;                       /* launches are being recorded (a traced pass) */
    bool probing;                  /* the runner's probe is launching */
    launch_slot slots[LAUNCH_SLOTS];
    int n_modules;
    char modules[MAX_MODULES][KBV_TRACE_MODULE_MAX];
} seen = {.lock = PTHREAD_MUTEX_INITIALIZER};

/* The runtime launch this thread is inside (its correlation id), so that the
 * driver launch it makes is known to be that one's. */
static _Thread_local uint32_t runtime_launch;

static const CUpti_CallbackId runtime_launch_cbids[] = {
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000,
    CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000,
    CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_v13000,
    CUPTI_RUNTIME_TRACE_CBID___cudaLaunchKernel_ptsz_v13000,
};
static const CUpti_CallbackId driver_launch_cbids[] = {
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel,
    CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz,
};
#define N_RUNTIME_LAUNCH (sizeof runtime_launch_cbids / sizeof runtime_launch_cbids[0])
#define N_DRIVER_LAUNCH (sizeof driver_launch_cbids / sizeof driver_launch_cbids[0])

/* The host function a runtime launch names; NULL when it named a handle
 * nobody saw the runtime give out. */
static const void *launched_function(CUpti_CallbackId cbid, const void *params)
{
    switch (cbid) {
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000:
        return ((const cudaLaunchKernel_v7000_params *)params)->func;
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_ptsz_v7000:
        return ((const cudaLaunchKernel_ptsz_v7000_params *)params)->func;
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_v11060:
        return ((const cudaLaunchKernelExC_v11060_params *)params)->func;
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernelExC_ptsz_v11060:
        return ((const cudaLaunchKernelExC_ptsz_v11060_params *)params)->func;
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_v9000:
        return ((const cudaLaunchCooperativeKernel_v9000_params *)params)->func;
    case CUPTI_RUNTIME_TRACE_CBID_cudaLaunchCooperativeKernel_ptsz_v9000:
        return ((const cudaLaunchCooperativeKernel_ptsz_v9000_params *)params)->func;
    default: {
        cudaKernel_t k = ((const launch_by_handle_params *)params)->kernel;
        const void *fn = NULL;
        pthread_mutex_lock(&seen.lock);
        for (int i = 0; i < seen.n_handles && !fn; i++)
            if (seen.handles[i].kernel == k)
                fn = seen.handles[i].fn;
        pthread_mutex_unlock(&seen.lock);
        return fn;
    }
    }
}

/* The function a driver launch runs: a CUfunction, or a CUkernel passed as one. */
static const void *driver_function(CUpti_CallbackId cbid, const void *params)
{
    switch (cbid) {
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
        return ((const cuLaunchKernel_params *)params)->f;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
        return ((const cuLaunchKernel_ptsz_params *)params)->f;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
        return ((const cuLaunchKernelEx_params *)params)->f;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
        return ((const cuLaunchKernelEx_ptsz_params *)params)->f;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel:
        return ((const cuLaunchCooperativeKernel_params *)params)->f;
    case CUPTI_DRIVER_TRACE_CBID_cuLaunchCooperativeKernel_ptsz:
        return ((const cuLaunchCooperativeKernel_ptsz_params *)params)->f;
    default:
        return NULL;
    }
}

/* Index of a module's file name, added when new; -1 when full. Lock held. */
static int module_index(const char *path)
{
    const char *base = path ? strrchr(path, '/') : NULL;
    base = base ? base + 1 : path ? path : "";
    for (int i = 0; i < seen.n_modules; i++)
        if (!strncmp(seen.modules[i], base, KBV_TRACE_MODULE_MAX - 1))
            return i;
    if (seen.n_modules == MAX_MODULES)
        return -1;
    snprintf(seen.modules[seen.n_modules], KBV_TRACE_MODULE_MAX, "%s", base);
    return seen.n_modules++;
}

/* Adds p to the candidate's kernels as the driver knows them, once. Lock held. */
static void own_add(const void *p)
{
    for (int i = 0; i < seen.n_own; i++)
        if (seen.own[i] == p)
            return;
    if (p && seen.n_own < (int)(sizeof seen.own / sizeof seen.own[0]))
        seen.own[seen.n_own++] = p;
}

/* A kernel handle and the host function it is for, once; the candidate's
 * when that function lies in its object. */
static void note_handle(cudaKernel_t kernel, const void *fn)
{
    Dl_info info;
    bool in_candidate = fn && dladdr(fn, &info);
    pthread_mutex_lock(&seen.lock);
    in_candidate = in_candidate && seen.candidate_base && info.dli_fbase == seen.candidate_base;
    bool known = false;
    for (int i = 0; i < seen.n_handles && !known; i++)
        known = seen.handles[i].kernel == kernel;
    if (!known && seen.n_handles < MAX_KERNEL_HANDLES) {
        seen.handles[seen.n_handles].kernel = kernel;
        seen.handles[seen.n_handles].fn = fn;
        seen.n_handles++;
    }
    if (in_candidate)
        own_add(kernel);
    pthread_mutex_unlock(&seen.lock);
}

/* The slot of correlation id corr, made when new; NULL when the table is full. Lock held. */
static launch_slot *slot_for(uint32_t corr)
{
    uint32_t h = corr & (LAUNCH_SLOTS - 1);
    for (uint32_t probe = 0; probe < LAUNCH_SLOTS; probe++, h = (h + 1) & (LAUNCH_SLOTS - 1)) {
        launch_slot *s = &seen.slots[h];
        if (!s->used) {
            *s = (launch_slot){.corr = corr, .used = 1, .origin = KBV_ORIGIN_UNKNOWN, .module = -1,
                               .probe = seen.probing};
            return s;
        }
        if (s->corr == corr)
            return s;
    }
    return NULL;
}

/* A runtime launch of host function fn: its origin is the object fn lies in. */
static void record_runtime_launch(uint32_t corr, const void *fn)
{
    Dl_info info;
    bool found = fn && dladdr(fn, &info);
    pthread_mutex_lock(&seen.lock);
    launch_slot *s = seen.on ? slot_for(corr) : NULL;
    if (s && found && seen.candidate_base && info.dli_fbase == seen.candidate_base) {
        s->origin = KBV_ORIGIN_CANDIDATE;
    } else if (s && found) {
        s->origin = KBV_ORIGIN_OTHER;
        s->module = (int8_t)module_index(info.dli_fname);
    }
    pthread_mutex_unlock(&seen.lock);
}

/* A driver launch of f, made inside the runtime launch `outer` (0: none):
 * the candidate's when f is one of its kernels. Otherwise the driver's view
 * proves nothing (the candidate's kernels may be known to it by no handle
 * that was seen), so it leaves the origin unknown, or the runtime's. */
static void record_driver_launch(uint32_t corr, uint32_t outer, const void *f)
{
    pthread_mutex_lock(&seen.lock);
    bool own = false;
    for (int i = 0; i < seen.n_own && !own; i++)
        own = seen.own[i] == f;
    launch_slot *s = seen.on ? slot_for(corr) : NULL;
    launch_slot *o = seen.on && outer ? slot_for(outer) : NULL;
    if (own && s)
        s->origin = KBV_ORIGIN_CANDIDATE;
    if (own && o && o->origin == KBV_ORIGIN_UNKNOWN)
        o->origin = KBV_ORIGIN_CANDIDATE;
    if (s && o && s->origin == KBV_ORIGIN_UNKNOWN) {   /* the runtime's view, under the driver's id */
        s->origin = o->origin;
        s->module = o->module;
    }
    pthread_mutex_unlock(&seen.lock);
}

/* The launch with this correlation id, or NULL. Lock held. */
static const launch_slot *launch_of(uint32_t corr)
{
    uint32_t h = corr & (LAUNCH_SLOTS - 1);
    for (uint32_t probe = 0; probe < LAUNCH_SLOTS; probe++, h = (h + 1) & (LAUNCH_SLOTS - 1)) {
        if (!seen.slots[h].used)
            return NULL;
        if (seen.slots[h].corr == corr)
            return &seen.slots[h];
    }
    return NULL;
}

static void CUPTIAPI on_api(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid,
                            const void *data)
{
    (void)userdata;
    const CUpti_CallbackData *cb = data;
    if (!cb || !cb->functionParams)
        return;
    if (domain == CUPTI_CB_DOMAIN_DRIVER_API) {
        if (cb->callbackSite == CUPTI_API_ENTER)
            record_driver_launch(cb->correlationId, runtime_launch,
                                 driver_function(cbid, cb->functionParams));
        return;
    }
    if (domain != CUPTI_CB_DOMAIN_RUNTIME_API)
        return;
    if (cbid == CUPTI_RUNTIME_TRACE_CBID___cudaGetKernel_v13000 ||
        cbid == CUPTI_RUNTIME_TRACE_CBID_cudaGetKernel_v12000) {
        const get_kernel_params *p = cb->functionParams;
        if (cb->callbackSite == CUPTI_API_EXIT && p->kernel && *p->kernel)
            note_handle(*p->kernel, p->entry);
        return;
    }
    if (cb->callbackSite == CUPTI_API_ENTER) {
        runtime_launch = cb->correlationId;
        record_runtime_launch(cb->correlationId, launched_function(cbid, cb->functionParams));
    } else {
        runtime_launch = 0;
    }
}

void runner_trace_watch(void)
{
    if (cuptiSubscribe(&seen.sub, on_api, NULL) != CUPTI_SUCCESS)
        return;
    if (cuptiEnableCallback(1, seen.sub, CUPTI_CB_DOMAIN_RUNTIME_API,
                            CUPTI_RUNTIME_TRACE_CBID___cudaGetKernel_v13000) != CUPTI_SUCCESS ||
        cuptiEnableCallback(1, seen.sub, CUPTI_CB_DOMAIN_RUNTIME_API,
                            CUPTI_RUNTIME_TRACE_CBID_cudaGetKernel_v12000) != CUPTI_SUCCESS) {
        cuptiUnsubscribe(seen.sub);
        return;
    }
    seen.subscribed = true;
}

void runner_trace_candidate(void *so, const uint64_t *kernels, int n_kernels)
{
    Dl_info info;
    void *forward = so ? dlsym(so, "kbv_forward") : NULL;
    if (forward && dladdr(forward, &info)) {
        pthread_mutex_lock(&seen.lock);
        seen.candidate_base = info.dli_fbase;
        pthread_mutex_unlock(&seen.lock);
    }
    struct link_map *lm = NULL;
    if (!so || dlinfo(so, RTLD_DI_LINKMAP, &lm) != 0 || !lm)
        return;
    /* each kernel by every name the driver may be given for it: its handle
     * (context-independent), and its function in this context */
    for (int i = 0; i < n_kernels; i++) {
        const void *fn = (const void *)(lm->l_addr + (uintptr_t)kernels[i]);
        cudaKernel_t k = NULL;
        cudaFunction_t f = NULL;
        CUfunction kf = NULL;
        if (!kernels[i])
            continue;
        if (cudaGetKernel(&k, fn) == cudaSuccess && k) {
            note_handle(k, fn);
            if (cuKernelGetFunction(&kf, (CUkernel)k) != CUDA_SUCCESS)
                kf = NULL;
        }
        if (cudaGetFuncBySymbol(&f, fn) != cudaSuccess)
            f = NULL;
        pthread_mutex_lock(&seen.lock);
        own_add(k);
        own_add(f);
        own_add(kf);
        pthread_mutex_unlock(&seen.lock);
    }
    (void)cudaGetLastError();   /* an offset that is no kernel is no error of the candidate's */
}

/* Enables (on) or disables the launch callbacks of both domains; false when
 * one could not be enabled (then none is). */
static bool launch_callbacks(bool on)
{
    bool ok = true;
    for (size_t i = 0; i < N_RUNTIME_LAUNCH; i++)
        ok = cuptiEnableCallback(on, seen.sub, CUPTI_CB_DOMAIN_RUNTIME_API,
                                 runtime_launch_cbids[i]) == CUPTI_SUCCESS && ok;
    for (size_t i = 0; i < N_DRIVER_LAUNCH; i++)
        ok = cuptiEnableCallback(on, seen.sub, CUPTI_CB_DOMAIN_DRIVER_API,
                                 driver_launch_cbids[i]) == CUPTI_SUCCESS && ok;
    if (on && !ok)
        launch_callbacks(false);
    return ok;
}

/* Launch callbacks on for a traced pass; false when they cannot be. */
static bool launches_start(void)
{
    if (!seen.subscribed || !seen.candidate_base)
        return false;
    pthread_mutex_lock(&seen.lock);
    memset(seen.slots, 0, sizeof seen.slots);
    seen.n_modules = 0;
    seen.on = true;
    pthread_mutex_unlock(&seen.lock);
    if (!launch_callbacks(true)) {
        pthread_mutex_lock(&seen.lock);
        seen.on = false;
        pthread_mutex_unlock(&seen.lock);
        return false;
    }
    return true;
}

/* The runner's probe, with its launches marked as its own. */
static void run_probe(void (*probe)(void *ctx), void *ctx)
{
    pthread_mutex_lock(&seen.lock);
    seen.probing = true;
    pthread_mutex_unlock(&seen.lock);
    probe(ctx);
    pthread_mutex_lock(&seen.lock);
    seen.probing = false;
    pthread_mutex_unlock(&seen.lock);
}

static void launches_stop(void)
{
    if (!seen.subscribed)
        return;
    launch_callbacks(false);
    pthread_mutex_lock(&seen.lock);
    seen.on = false;
    pthread_mutex_unlock(&seen.lock);
}

static struct {
    pthread_mutex_t lock;
    bool on;
    uint32_t harness_stream;
    bool legacy_allowed, legacy_known;   /* runner_trace_allow_legacy */
    uint32_t legacy_stream;
    traced rec[TRACE_MAX_RECORDS];
    int n, lost;
    uint64_t window[KBV_CHILD_MAX_CALLS][2];
    int calls;
    bool origins;              /* the pass records launches (launches_start) */
    bool probe_known;          /* probe_stream is the probe's */
    uint32_t probe_stream;
    kbv_child_trace names;     /* only n_names, names[], name_origin[], name_module[] and
                                  names_truncated are used here */
} trace = {.lock = PTHREAD_MUTEX_INITIALIZER};

static const CUpti_ActivityKind traced_kinds[] = {
    CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, CUPTI_ACTIVITY_KIND_MEMCPY, CUPTI_ACTIVITY_KIND_MEMSET};
#define N_KINDS (sizeof traced_kinds / sizeof traced_kinds[0])

void runner_trace_allow_legacy(bool allow)
{
    trace.legacy_allowed = allow;
}

bool runner_trace_start(cudaStream_t harness, cudaStream_t probe_stream,
                        void (*probe)(void *ctx), void *probe_ctx)
{
    CUcontext ctx = NULL;
    uint32_t id = 0, probe_id = 0;
    if (cuCtxGetCurrent(&ctx) != CUDA_SUCCESS ||
        cuptiGetStreamIdEx(ctx, (CUstream)harness, 0, &id) != CUPTI_SUCCESS)
        return false;
    const bool probe_known =
        cuptiGetStreamIdEx(ctx, (CUstream)probe_stream, 0, &probe_id) == CUPTI_SUCCESS;
    uint32_t legacy_id = 0;
    const bool legacy_known = trace.legacy_allowed &&
        cuptiGetStreamIdEx(ctx, (CUstream)NULL, 0, &legacy_id) == CUPTI_SUCCESS;
    pthread_mutex_lock(&trace.lock);
    trace.legacy_known = legacy_known;
    trace.legacy_stream = legacy_id;
    trace.on = true;
    trace.harness_stream = id;
    trace.probe_stream = probe_id;
    trace.probe_known = probe_known;
    trace.n = trace.lost = trace.calls = 0;
    memset(&trace.names, 0, sizeof trace.names);
    pthread_mutex_unlock(&trace.lock);
    const bool origins = probe_known && launches_start();
    pthread_mutex_lock(&trace.lock);
    trace.origins = origins;
    pthread_mutex_unlock(&trace.lock);
    /* launch attributes carry a kernel's L2 access-policy window */
    cuptiActivityEnableLaunchAttributes(1);
    for (size_t k = 0; k < N_KINDS; k++) {
        if (cuptiActivityEnable(traced_kinds[k]) != CUPTI_SUCCESS) {
            for (size_t j = 0; j < k; j++)
                cuptiActivityDisable(traced_kinds[j]);
            launches_stop();
            pthread_mutex_lock(&trace.lock);
            trace.on = false;
            pthread_mutex_unlock(&trace.lock);
            return false;
        }
    }
    /* before the first call: its record proves (or not) that a kernel's
     * record finds its launch; runner_trace_finish sets it aside */
    if (origins)
        run_probe(probe, probe_ctx);
    return true;
}

void runner_trace_mark(int call, bool end)
{
    uint64_t now = 0;
    cuptiGetTimestamp(&now);
    pthread_mutex_lock(&trace.lock);
    if (call >= 0 && call < KBV_CHILD_MAX_CALLS) {
        trace.window[call][end ? 1 : 0] = now;
        if (end && call + 1 > trace.calls)
            trace.calls = call + 1;
    }
    pthread_mutex_unlock(&trace.lock);
}

/* Index of a kernel in the summary by (name, origin, module), added when
 * new; -1 when full. The launch of correlation id corr gives the origin. */
static int name_index(const char *name, uint32_t corr)
{
    kbv_child_trace *t = &trace.names;
    char cut[KBV_TRACE_NAME_MAX], module[KBV_TRACE_MODULE_MAX] = "";
    snprintf(cut, sizeof cut, "%s", name ? name : "?");
    int8_t origin = KBV_ORIGIN_UNKNOWN;
    pthread_mutex_lock(&seen.lock);
    const launch_slot *l = trace.origins ? launch_of(corr) : NULL;
    if (l) {
        origin = l->origin;
        if (l->module >= 0)
            snprintf(module, sizeof module, "%s", seen.modules[l->module]);
    }
    pthread_mutex_unlock(&seen.lock);
    for (int i = 0; i < t->n_names; i++)
        if (!strcmp(t->names[i], cut) && t->name_origin[i] == origin &&
            !strcmp(t->name_module[i], module))
            return i;
    if (t->n_names == KBV_TRACE_MAX_NAMES) {
        t->names_truncated = 1;
        return -1;
    }
    memcpy(t->names[t->n_names], cut, sizeof cut);
    t->name_origin[t->n_names] = origin;
    memcpy(t->name_module[t->n_names], module, sizeof module);
    return t->n_names++;
}

void runner_trace_take(const CUpti_Activity *rec)
{
    traced r = {0};
    r.name = -1;
    switch (rec->kind) {
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
    case CUPTI_ACTIVITY_KIND_KERNEL: {
        const CUpti_ActivityKernel10 *k = (const CUpti_ActivityKernel10 *)rec;
        r.start = k->start, r.end = k->end, r.stream = k->streamId;
        r.corr = k->correlationId;
        r.policy = k->pAccessPolicyWindow && k->pAccessPolicyWindow->num_bytes > 0;
        pthread_mutex_lock(&trace.lock);
        r.name = name_index(k->name, k->correlationId);
        if (r.name < 0)
            r.name = -2;   /* a kernel whose name did not fit */
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMCPY: {
        const CUpti_ActivityMemcpy6 *m = (const CUpti_ActivityMemcpy6 *)rec;
        r.start = m->start, r.end = m->end, r.stream = m->streamId;
        pthread_mutex_lock(&trace.lock);
        break;
    }
    case CUPTI_ACTIVITY_KIND_MEMSET: {
        const CUpti_ActivityMemset4 *m = (const CUpti_ActivityMemset4 *)rec;
        r.start = m->start, r.end = m->end, r.stream = m->streamId;
        pthread_mutex_lock(&trace.lock);
        break;
    }
    default:
        return;
    }
    if (!trace.on)
        ; /* a record from before the pass, flushed late: not the pass's */
    else if (trace.n == TRACE_MAX_RECORDS)
        trace.lost++;
    else
        trace.rec[trace.n++] = r;
    pthread_mutex_unlock(&trace.lock);
}

static int by_start(const void *a, const void *b)
{
    const traced *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

static void describe(char *dst, const traced *r, const char *what)
{
    if (dst[0])
        return;
    const char *name = r->name >= 0 ? trace.names.names[r->name] : r->name == -1 ? "a copy or set" : "a kernel";
    snprintf(dst, KBV_TRACE_NAME_MAX, "%.80s %s", name, what);
}

void runner_trace_finish(kbv_child_trace *out)
{
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    for (size_t k = 0; k < N_KINDS; k++)
        cuptiActivityDisable(traced_kinds[k]);
    cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    launches_stop();
    pthread_mutex_lock(&trace.lock);
    trace.on = false;
    memset(out, 0, sizeof *out);
    out->available = 1;
    memcpy(out->name_origin, trace.names.name_origin, sizeof out->name_origin);
    memcpy(out->name_module, trace.names.name_module, sizeof out->name_module);
    out->calls = trace.calls;
    out->records = trace.n;
    out->lost = trace.lost;
    out->n_names = trace.names.n_names;
    out->names_truncated = trace.names.names_truncated;
    memcpy(out->names, trace.names.names, sizeof out->names);
    qsort(trace.rec, (size_t)trace.n, sizeof trace.rec[0], by_start);
    uint64_t busy_ns = 0;
    uint64_t covered_to[KBV_CHILD_MAX_CALLS] = {0};
    bool probe_found = false;
    for (int i = 0; i < trace.n; i++) {
        const traced *r = &trace.rec[i];
        if (trace.probe_known && r->stream == trace.probe_stream && trace.calls > 0 &&
            r->end <= trace.window[0][0]) {
            /* the probe's, before the first call: not the candidate's */
            if (r->name != -1) {
                pthread_mutex_lock(&seen.lock);
                const launch_slot *l = launch_of(r->corr);
                probe_found = probe_found || (l && l->probe);
                pthread_mutex_unlock(&seen.lock);
            }
            out->records--;
            continue;
        }
        if (r->stream != trace.harness_stream &&
            !(trace.legacy_known && r->stream == trace.legacy_stream)) {
            out->foreign_stream++;
            describe(out->first_offender, r, "ran on a stream of its own");
        }
        if (r->policy)
            out->policy_window++;
        int call = -1;
        for (int c = 0; c < trace.calls; c++)
            if (r->start >= trace.window[c][0] && r->end <= trace.window[c][1])
                call = c;
        if (call < 0) {
            out->outside_call++;
            describe(out->first_offender, r, "ran outside the calls");
            continue;
        }
        if (r->name != -1)
            out->call_kernels[call]++;
        if (r->name >= 0)
            out->call_names[call] |= 1u << r->name;
        /* busy time: the union of the records' intervals (sorted by start) */
        uint64_t from = r->start > covered_to[call] ? r->start : covered_to[call];
        if (r->end > from)
            busy_ns += r->end - from;
        if (r->end > covered_to[call])
            covered_to[call] = r->end;
    }
    out->busy_ms = (double)busy_ns * 1e-6;
    /* origins only where the probe's own kernel was found by its launch */
    out->origins = trace.origins && probe_found;
    pthread_mutex_unlock(&trace.lock);
}

#endif /* KBV_HAVE_CUDA */
