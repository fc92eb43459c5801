/* Convolutions through cuDNN's graph (backend) API, as PyTorch 2.x issues
 * them (aten/src/ATen/native/cudnn/Conv_v8.cpp through cudnn-frontend):
 *
 *  - the operation graph holds one operation: CONVOLUTION_FORWARD, or
 *    CONVOLUTION_BACKWARD_DATA for a transposed convolution (its input is
 *    the dy of the convolution it transposes, its output the dx); tensors
 *    are NCHW-contiguous with PyTorch's byte alignment (the largest power of
 *    two up to 32 that divides the address), uids 'x', 'w', 'y'; groups
 *    follow from the weight's channel dim; the compute type is the data
 *    type (float or double); alpha 1 and beta 0 as float, as the frontend's
 *    defaults;
 *  - engine configurations come from the heuristics in mode A (what PyTorch
 *    calls CUDNN_HEUR_MODE_INSTANT), then from the fallback list, and are
 *    filtered as PyTorch's filterEngineConfigs does: never an engine that
 *    down-converts its inputs; for float data with TF32 off (fp32-strict,
 *    torch.backends.cudnn.allow_tf32=False) no tensor-core engine. fp32 and
 *    tf32 allow them, as allow_tf32=True (PyTorch's default, and what
 *    bench/baselines_vs_torch.py sets in both modes). float64 keeps
 *    everything, as PyTorch filters float data alone;
 *  - the plan is chosen once per key (shape, precision, device, the three
 *    alignments) and kept, like cuda_conv.c's algorithm: the fastest of the
 *    first KBV_CUDNN_GRAPH_PLANS plans that build (timed on the call's own
 *    tensors), or the first that builds (float64, or KBV_CUDNN_GRAPH_PLANS=1);
 *    the first that builds is PyTorch's (benchmark=False), and no plan with
 *    a larger workspace than it is considered, so that the baseline is at
 *    least as fast as PyTorch's choice and never heavier; a plan whose
 *    workspace exceeds 90% of the free device memory is skipped, as
 *    cuda_conv.c caps its search;
 *  - a key with no plan is remembered, with the reason, so that the caller
 *    falls back at once on later calls.
 *
 * KBV_CUDNN_GRAPH_VERBOSE=1 prints each choice to stderr: the engines timed
 * and the one kept. */
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/cuda_check.h"
#include "cuda/cuda_conv_graph.h"

#define GRAPH_MAX_PLANS 64
#define GRAPH_DEFAULT_PLANS 8
#define GRAPH_TIMED_RUNS 3 /* after one warm-up; the fastest counts */

#define UID_X ((int64_t)'x')
#define UID_W ((int64_t)'w')
#define UID_Y ((int64_t)'y')

#define DNN_FAIL(cst, text)                                                                  \
    kbv_fail((cst) == CUDNN_STATUS_INTERNAL_ERROR_HOST_ALLOCATION_FAILED ? KBV_ERR_NOMEM     \
                                                                         : KBV_ERR_CUDA,     \
             "%s: %s", (text), cudnnGetErrorString(cst))

#define DNN_TRY_GOTO(call, st, label)                                                        \
    do {                                                                                     \
        cudnnStatus_t dnn_st_ = (call);                                                      \
        if (dnn_st_ != CUDNN_STATUS_SUCCESS) {                                               \
            (st) = DNN_FAIL(dnn_st_, #call);                                                 \
            goto label;                                                                      \
        }                                                                                    \
    } while (0)

#define SET(desc, name, type, n, value) cudnnBackendSetAttribute((desc), (name), (type), (n), (value))

/* ------------------------------------------------------- the switch */

kbv_cudnn_api kbv_cuda_conv_api(void)
{
    const char *v = getenv("KBV_CUDNN_API");
    if (v && !strcmp(v, "legacy"))
        return KBV_CUDNN_API_LEGACY;
    if (v && !strcmp(v, "graph"))
        return KBV_CUDNN_API_GRAPH;
    if (v && !strcmp(v, "auto"))
        return KBV_CUDNN_API_AUTO;
    return KBV_CUDNN_API_DEFAULT;
}

/* ------------------------------------------------------ the cache */

typedef struct graph_key {
    kbv_conv_dnn_key conv;
    int align_x, align_w, align_y;
} graph_key;

/* One key's descriptors and chosen plan, made once and kept; usable false:
 * no plan, and why. */
typedef struct graph_entry {
    graph_key key;
    bool usable;
    char why[320];
    cudnnBackendDescriptor_t tx, tw, ty, conv, op, graph, cfg, plan;
    int64_t workspace;
} graph_entry;

static graph_entry **graph_cache;
static size_t graph_cache_n, graph_cache_cap;
static uint64_t graph_runs; /* under cuda_conv.c's lock, as everything here */

uint64_t kbv_cuda_conv_graph_runs(void)
{
    return graph_runs;
}

static void destroy(cudnnBackendDescriptor_t *d)
{
    if (*d)
        cudnnBackendDestroyDescriptor(*d);
    *d = NULL;
}

static void entry_clear(graph_entry *e)
{
    destroy(&e->plan);
    destroy(&e->cfg);
    destroy(&e->graph);
    destroy(&e->op);
    destroy(&e->conv);
    destroy(&e->tx);
    destroy(&e->tw);
    destroy(&e->ty);
    e->workspace = 0;
}

/* PyTorch's getAlignment. */
static int alignment_of(const void *p)
{
    const uintptr_t a = (uintptr_t)p;
    int al = 1;
    while (al < 32 && a % (uintptr_t)(2 * al) == 0)
        al *= 2;
    return al;
}

static bool verbose(void)
{
    const char *v = getenv("KBV_CUDNN_GRAPH_VERBOSE");
    return v && !strcmp(v, "1");
}

/* How many plans to time: 1 means the first that builds, untimed. The
 * float64 oracle is never timed. */
static int plans_wanted(const kbv_conv_dnn_key *k)
{
    if (k->is_f64)
        return 1;
    const char *v = getenv("KBV_CUDNN_GRAPH_PLANS");
    if (!v || !*v)
        return GRAPH_DEFAULT_PLANS;
    char *end = NULL;
    long n = strtol(v, &end, 10);
    if (*end || n < 1)
        return GRAPH_DEFAULT_PLANS;
    return n > GRAPH_MAX_PLANS ? GRAPH_MAX_PLANS : (int)n;
}

/* ------------------------------------------------ the operation graph */

static kbv_status tensor_make(int64_t uid, const int *dims, int nd, int64_t align,
                              cudnnDataType_t dt, cudnnBackendDescriptor_t *t)
{
    kbv_status st = KBV_OK;
    int64_t d64[5], s64[5], s = 1;
    for (int i = nd - 1; i >= 0; i--) {
        d64[i] = dims[i];
        s64[i] = s;
        s *= dims[i];
    }
    DNN_TRY_GOTO(cudnnBackendCreateDescriptor(CUDNN_BACKEND_TENSOR_DESCRIPTOR, t), st, done);
    DNN_TRY_GOTO(SET(*t, CUDNN_ATTR_TENSOR_DATA_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &dt), st, done);
    DNN_TRY_GOTO(SET(*t, CUDNN_ATTR_TENSOR_DIMENSIONS, CUDNN_TYPE_INT64, nd, d64), st, done);
    DNN_TRY_GOTO(SET(*t, CUDNN_ATTR_TENSOR_STRIDES, CUDNN_TYPE_INT64, nd, s64), st, done);
    DNN_TRY_GOTO(SET(*t, CUDNN_ATTR_TENSOR_UNIQUE_ID, CUDNN_TYPE_INT64, 1, &uid), st, done);
    DNN_TRY_GOTO(SET(*t, CUDNN_ATTR_TENSOR_BYTE_ALIGNMENT, CUDNN_TYPE_INT64, 1, &align), st,
                 done);
    DNN_TRY_GOTO(cudnnBackendFinalize(*t), st, done);
done:
    return st; /* a half-made descriptor goes with the entry */
}

static kbv_status conv_make(const kbv_conv_dnn_key *k, cudnnDataType_t dt,
                            cudnnBackendDescriptor_t *c)
{
    kbv_status st = KBV_OK;
    const int64_t sp = k->nd - 2;
    int64_t pad[3], stride[3], dil[3];
    for (int i = 0; i < sp; i++) {
        pad[i] = k->pad[i];
        stride[i] = k->stride[i];
        dil[i] = k->dil[i];
    }
    const cudnnConvolutionMode_t mode = CUDNN_CROSS_CORRELATION;
    DNN_TRY_GOTO(cudnnBackendCreateDescriptor(CUDNN_BACKEND_CONVOLUTION_DESCRIPTOR, c), st, done);
    DNN_TRY_GOTO(SET(*c, CUDNN_ATTR_CONVOLUTION_COMP_TYPE, CUDNN_TYPE_DATA_TYPE, 1, &dt), st,
                 done);
    DNN_TRY_GOTO(SET(*c, CUDNN_ATTR_CONVOLUTION_CONV_MODE, CUDNN_TYPE_CONVOLUTION_MODE, 1, &mode),
                 st, done);
    DNN_TRY_GOTO(SET(*c, CUDNN_ATTR_CONVOLUTION_SPATIAL_DIMS, CUDNN_TYPE_INT64, 1, &sp), st, done);
    DNN_TRY_GOTO(SET(*c, CUDNN_ATTR_CONVOLUTION_DILATIONS, CUDNN_TYPE_INT64, sp, dil), st, done);
    DNN_TRY_GOTO(SET(*c, CUDNN_ATTR_CONVOLUTION_FILTER_STRIDES, CUDNN_TYPE_INT64, sp, stride), st,
                 done);
    DNN_TRY_GOTO(SET(*c, CUDNN_ATTR_CONVOLUTION_PRE_PADDINGS, CUDNN_TYPE_INT64, sp, pad), st,
                 done);
    DNN_TRY_GOTO(SET(*c, CUDNN_ATTR_CONVOLUTION_POST_PADDINGS, CUDNN_TYPE_INT64, sp, pad), st,
                 done);
    DNN_TRY_GOTO(cudnnBackendFinalize(*c), st, done);
done:
    return st;
}

/* The tensors, convolution, operation and graph of e's key. */
static kbv_status graph_make(cudnnHandle_t h, graph_entry *e)
{
    kbv_status st = KBV_OK;
    const kbv_conv_dnn_key *k = &e->key.conv;
    /* bfloat16 tensors compute in float, as PyTorch sets the convolution's type */
    const cudnnDataType_t dt = k->bf16     ? CUDNN_DATA_BFLOAT16
                               : k->is_f64 ? CUDNN_DATA_DOUBLE
                                           : CUDNN_DATA_FLOAT;
    const cudnnDataType_t compute = k->bf16 ? CUDNN_DATA_FLOAT : dt;
    KBV_TRY_GOTO(tensor_make(UID_X, k->x, k->nd, e->key.align_x, dt, &e->tx), st, done);
    KBV_TRY_GOTO(tensor_make(UID_W, k->w, k->nd, e->key.align_w, dt, &e->tw), st, done);
    KBV_TRY_GOTO(tensor_make(UID_Y, k->y, k->nd, e->key.align_y, dt, &e->ty), st, done);
    KBV_TRY_GOTO(conv_make(k, compute, &e->conv), st, done);
    /* the operation's attribute names: forward, or backward data for a
     * transposed convolution (its x is cuDNN's dy, its y cuDNN's dx) */
    typedef struct op_attrs {
        cudnnBackendDescriptorType_t type;
        cudnnBackendAttributeName_t x, w, y, conv, alpha, beta;
    } op_attrs;
    static const op_attrs fwd = {
        CUDNN_BACKEND_OPERATION_CONVOLUTION_FORWARD_DESCRIPTOR,
        CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_X, CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_W,
        CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_Y,
        CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_CONV_DESC,
        CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_ALPHA,
        CUDNN_ATTR_OPERATION_CONVOLUTION_FORWARD_BETA};
    static const op_attrs bwd_data = {
        CUDNN_BACKEND_OPERATION_CONVOLUTION_BACKWARD_DATA_DESCRIPTOR,
        CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DY, CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_W,
        CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_DX,
        CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_CONV_DESC,
        CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_ALPHA,
        CUDNN_ATTR_OPERATION_CONVOLUTION_BWD_DATA_BETA};
    const op_attrs *a = k->transposed ? &bwd_data : &fwd;
    const float alpha = 1.0f, beta = 0.0f;
    DNN_TRY_GOTO(cudnnBackendCreateDescriptor(a->type, &e->op), st, done);
    DNN_TRY_GOTO(SET(e->op, a->x, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &e->tx), st, done);
    DNN_TRY_GOTO(SET(e->op, a->w, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &e->tw), st, done);
    DNN_TRY_GOTO(SET(e->op, a->y, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &e->ty), st, done);
    DNN_TRY_GOTO(SET(e->op, a->conv, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1, &e->conv), st, done);
    DNN_TRY_GOTO(SET(e->op, a->alpha, CUDNN_TYPE_FLOAT, 1, &alpha), st, done);
    DNN_TRY_GOTO(SET(e->op, a->beta, CUDNN_TYPE_FLOAT, 1, &beta), st, done);
    DNN_TRY_GOTO(cudnnBackendFinalize(e->op), st, done);
    DNN_TRY_GOTO(cudnnBackendCreateDescriptor(CUDNN_BACKEND_OPERATIONGRAPH_DESCRIPTOR, &e->graph),
                 st, done);
    DNN_TRY_GOTO(SET(e->graph, CUDNN_ATTR_OPERATIONGRAPH_OPS, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                     &e->op),
                 st, done);
    /* deprecated in late cuDNN 9 releases but still read; older ones need it */
    DNN_TRY_GOTO(SET(e->graph, CUDNN_ATTR_OPERATIONGRAPH_HANDLE, CUDNN_TYPE_HANDLE, 1, &h), st,
                 done);
    DNN_TRY_GOTO(cudnnBackendFinalize(e->graph), st, done);
done:
    return st;
}

/* ------------------------------------------------- engines and plans */

/* The engine configurations of a heuristic mode, best first (n may be 0);
 * the caller destroys each and frees the array. */
static kbv_status heuristic_configs(cudnnBackendDescriptor_t graph, cudnnBackendHeurMode_t mode,
                                    cudnnBackendDescriptor_t **out, int64_t *n_out)
{
    kbv_status st = KBV_OK;
    cudnnBackendDescriptor_t heur = NULL, *cfgs = NULL;
    int64_t n = 0, got = 0;
    *out = NULL;
    *n_out = 0;
    DNN_TRY_GOTO(cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINEHEUR_DESCRIPTOR, &heur), st,
                 done);
    DNN_TRY_GOTO(SET(heur, CUDNN_ATTR_ENGINEHEUR_OPERATION_GRAPH, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                     &graph),
                 st, done);
    DNN_TRY_GOTO(SET(heur, CUDNN_ATTR_ENGINEHEUR_MODE, CUDNN_TYPE_HEUR_MODE, 1, &mode), st, done);
    DNN_TRY_GOTO(cudnnBackendFinalize(heur), st, done);
    DNN_TRY_GOTO(cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                          CUDNN_TYPE_BACKEND_DESCRIPTOR, 0, &n, NULL),
                 st, done);
    if (n <= 0)
        goto done;
    cfgs = calloc((size_t)n, sizeof *cfgs);
    if (!cfgs)
        KBV_FAIL_GOTO(st, done, KBV_ERR_NOMEM, "cuDNN graph API: %lld engine configs",
                      (long long)n);
    /* results are copied into descriptors the caller made */
    for (int64_t i = 0; i < n; i++)
        DNN_TRY_GOTO(cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINECFG_DESCRIPTOR, &cfgs[i]),
                     st, done);
    DNN_TRY_GOTO(cudnnBackendGetAttribute(heur, CUDNN_ATTR_ENGINEHEUR_RESULTS,
                                          CUDNN_TYPE_BACKEND_DESCRIPTOR, n, &got, cfgs),
                 st, done);
    for (int64_t i = got; i < n; i++)
        destroy(&cfgs[i]);
    *out = cfgs;
    *n_out = got < n ? got : n;
    cfgs = NULL;
done:
    if (cfgs) {
        for (int64_t i = 0; i < n; i++)
            destroy(&cfgs[i]);
        free(cfgs);
    }
    destroy(&heur);
    return st;
}

/* The engine behind cfg: its global index and whether PyTorch would leave
 * it out (filterEngineConfigs, deterministic off): an engine that
 * down-converts its inputs always, a tensor-core one for float data when
 * TF32 is off. An engine whose notes cannot be read is left out. */
static bool engine_excluded(cudnnBackendDescriptor_t cfg, const kbv_conv_dnn_key *k,
                            int64_t *index)
{
    cudnnBackendDescriptor_t eng = NULL;
    cudnnBackendNumericalNote_t notes[CUDNN_NUMERICAL_NOTE_TYPE_COUNT];
    int64_t n = 0, got = 0;
    bool excluded = true;
    *index = -1;
    if (cudnnBackendCreateDescriptor(CUDNN_BACKEND_ENGINE_DESCRIPTOR, &eng) !=
            CUDNN_STATUS_SUCCESS ||
        cudnnBackendGetAttribute(cfg, CUDNN_ATTR_ENGINECFG_ENGINE, CUDNN_TYPE_BACKEND_DESCRIPTOR,
                                 1, &got, &eng) != CUDNN_STATUS_SUCCESS ||
        cudnnBackendGetAttribute(eng, CUDNN_ATTR_ENGINE_NUMERICAL_NOTE, CUDNN_TYPE_NUMERICAL_NOTE,
                                 CUDNN_NUMERICAL_NOTE_TYPE_COUNT, &n,
                                 notes) != CUDNN_STATUS_SUCCESS)
        goto done;
    (void)cudnnBackendGetAttribute(eng, CUDNN_ATTR_ENGINE_GLOBAL_INDEX, CUDNN_TYPE_INT64, 1, &got,
                                   index);
    excluded = false;
    for (int64_t i = 0; i < n && i < CUDNN_NUMERICAL_NOTE_TYPE_COUNT; i++) {
        if (notes[i] == CUDNN_NUMERICAL_NOTE_DOWN_CONVERT_INPUTS)
            excluded = true;
        if (notes[i] == CUDNN_NUMERICAL_NOTE_TENSOR_CORE && k->strict && !k->is_f64)
            excluded = true;
    }
done:
    destroy(&eng);
    return excluded;
}

/* The execution plan of cfg and its workspace; false when cuDNN does not
 * build it here (an expected outcome for many configurations). */
static bool plan_make(cudnnHandle_t h, cudnnBackendDescriptor_t cfg,
                      cudnnBackendDescriptor_t *plan, int64_t *workspace)
{
    int64_t got = 0;
    cudnnStatus_t s = cudnnBackendCreateDescriptor(CUDNN_BACKEND_EXECUTION_PLAN_DESCRIPTOR, plan);
    if (s == CUDNN_STATUS_SUCCESS)
        s = SET(*plan, CUDNN_ATTR_EXECUTION_PLAN_HANDLE, CUDNN_TYPE_HANDLE, 1, &h);
    if (s == CUDNN_STATUS_SUCCESS)
        s = SET(*plan, CUDNN_ATTR_EXECUTION_PLAN_ENGINE_CONFIG, CUDNN_TYPE_BACKEND_DESCRIPTOR, 1,
                &cfg);
    if (s == CUDNN_STATUS_SUCCESS)
        s = cudnnBackendFinalize(*plan);
    if (s == CUDNN_STATUS_SUCCESS)
        s = cudnnBackendGetAttribute(*plan, CUDNN_ATTR_EXECUTION_PLAN_WORKSPACE_SIZE,
                                     CUDNN_TYPE_INT64, 1, &got, workspace);
    if (s != CUDNN_STATUS_SUCCESS)
        destroy(plan);
    return s == CUDNN_STATUS_SUCCESS;
}

/* One execution of plan on x, w, y (a variant pack per call, as PyTorch). */
static cudnnStatus_t execute(cudnnHandle_t h, cudnnBackendDescriptor_t plan, const void *x,
                             const void *w, void *y, void *ws)
{
    cudnnBackendDescriptor_t vp = NULL;
    int64_t uids[3] = {UID_X, UID_W, UID_Y};
    void *ptrs[3] = {(void *)x, (void *)w, y};
    cudnnStatus_t s = cudnnBackendCreateDescriptor(CUDNN_BACKEND_VARIANT_PACK_DESCRIPTOR, &vp);
    if (s == CUDNN_STATUS_SUCCESS)
        s = SET(vp, CUDNN_ATTR_VARIANT_PACK_UNIQUE_IDS, CUDNN_TYPE_INT64, 3, uids);
    if (s == CUDNN_STATUS_SUCCESS)
        s = SET(vp, CUDNN_ATTR_VARIANT_PACK_DATA_POINTERS, CUDNN_TYPE_VOID_PTR, 3, ptrs);
    if (s == CUDNN_STATUS_SUCCESS)
        s = SET(vp, CUDNN_ATTR_VARIANT_PACK_WORKSPACE, CUDNN_TYPE_VOID_PTR, 1, &ws);
    if (s == CUDNN_STATUS_SUCCESS)
        s = cudnnBackendFinalize(vp);
    if (s == CUDNN_STATUS_SUCCESS)
        s = cudnnBackendExecute(h, plan, vp);
    destroy(&vp);
    return s;
}

/* A plan that built, with its configuration. */
typedef struct candidate {
    cudnnBackendDescriptor_t cfg, plan;
    int64_t workspace, engine;
    float ms; /* INFINITY: not timed, or failed to run */
} candidate;

/* Gathers up to `want` candidates, mode A's ranking first, then the
 * fallback list; workspaces above cap are skipped, and so are those above
 * the first candidate's: that one is PyTorch's choice (benchmark=False takes
 * the first plan that builds), so the baseline's plan is never heavier than
 * PyTorch's. Without this rule the fastest plans of L1/55, 60 and 66 took
 * 1.5-2x PyTorch's peak memory in cuDNN workspace, which would flatter every
 * candidate's memory ratio there. */
static kbv_status gather(cudnnHandle_t h, const graph_entry *e, int want, int64_t cap,
                         candidate *c, int *n_out, int *seen_out)
{
    kbv_status st = KBV_OK;
    static const cudnnBackendHeurMode_t modes[] = {CUDNN_HEUR_MODE_A, CUDNN_HEUR_MODE_FALLBACK};
    cudnnBackendDescriptor_t *cfgs = NULL;
    int64_t n_cfgs = 0;
    int n = 0, seen = 0;
    for (size_t m = 0; m < sizeof modes / sizeof modes[0] && n < want; m++) {
        kbv_status hs = heuristic_configs(e->graph, modes[m], &cfgs, &n_cfgs);
        if (hs != KBV_OK && n > 0) { /* the fallback list is optional once plans exist */
            kbv_clear_error();
            break;
        }
        KBV_TRY_GOTO(hs, st, done);
        for (int64_t i = 0; i < n_cfgs; i++) {
            int64_t engine = -1, ws = 0;
            cudnnBackendDescriptor_t plan = NULL;
            seen++;
            if (n < want && !engine_excluded(cfgs[i], &e->key.conv, &engine) &&
                plan_make(h, cfgs[i], &plan, &ws)) {
                if (ws <= cap) {
                    c[n] = (candidate){cfgs[i], plan, ws, engine, INFINITY};
                    cfgs[i] = NULL; /* kept by the candidate */
                    if (n++ == 0)
                        cap = ws;
                } else {
                    destroy(&plan);
                }
            }
            destroy(&cfgs[i]);
        }
        free(cfgs);
        cfgs = NULL;
    }
done:
    *n_out = n;
    *seen_out = seen;
    return st;
}

/* Times each candidate on the call's tensors: one warm-up, then the
 * fastest of GRAPH_TIMED_RUNS. The search workspace is the largest one
 * asked for, from cudaMalloc (a one-time search, not a forward's memory),
 * halved while it does not fit; a candidate that needs more is not timed. */
static kbv_status time_candidates(cudnnHandle_t h, candidate *c, int n, const void *x,
                                  const void *w, void *y)
{
    kbv_status st = KBV_OK;
    cudaStream_t stream = NULL;
    cudaEvent_t t0 = NULL, t1 = NULL;
    void *ws = NULL;
    size_t ws_bytes = 0;
    for (int i = 0; i < n; i++)
        if ((size_t)c[i].workspace > ws_bytes)
            ws_bytes = (size_t)c[i].workspace;
    while (ws_bytes > 0 && cudaMalloc(&ws, ws_bytes) != cudaSuccess) {
        (void)cudaGetLastError();
        ws = NULL;
        ws_bytes = ws_bytes > ((size_t)1 << 20) ? ws_bytes / 2 : 0;
    }
    DNN_TRY_GOTO(cudnnGetStream(h, &stream), st, done);
    KBV_CUDA_TRY_GOTO(cudaEventCreate(&t0), st, done);
    KBV_CUDA_TRY_GOTO(cudaEventCreate(&t1), st, done);
    for (int i = 0; i < n; i++) {
        if ((size_t)c[i].workspace > ws_bytes)
            continue;
        if (execute(h, c[i].plan, x, w, y, ws) != CUDNN_STATUS_SUCCESS) {
            (void)cudaGetLastError();
            continue;
        }
        for (int r = 0; r < GRAPH_TIMED_RUNS; r++) {
            float ms = 0.0f;
            KBV_CUDA_TRY_GOTO(cudaEventRecord(t0, stream), st, done);
            cudnnStatus_t s = execute(h, c[i].plan, x, w, y, ws);
            KBV_CUDA_TRY_GOTO(cudaEventRecord(t1, stream), st, done);
            KBV_CUDA_TRY_GOTO(cudaEventSynchronize(t1), st, done);
            KBV_CUDA_TRY_GOTO(cudaEventElapsedTime(&ms, t0, t1), st, done);
            if (s != CUDNN_STATUS_SUCCESS) {
                c[i].ms = INFINITY;
                break;
            }
            if (ms < c[i].ms)
                c[i].ms = ms;
        }
    }
done:
    if (t0)
        cudaEventDestroy(t0);
    if (t1)
        cudaEventDestroy(t1);
    if (ws) {
        /* the timed runs are on the stream: finish them before freeing */
        (void)cudaStreamSynchronize(stream);
        cudaFree(ws);
    }
    return st;
}

static void print_choice(const graph_entry *e, const candidate *c, int n, int seen, int best)
{
    const kbv_conv_dnn_key *k = &e->key.conv;
    fprintf(stderr, "cudnn graph: %s%s %s x[%d,%d,%d,%d,%d] w[%d,%d,%d,%d,%d]: %d configs, "
            "%d plans:", k->transposed ? "bwd-data" : "fwd", k->strict ? " strict" : "",
            k->bf16 ? "bf16" : k->is_f64 ? "f64" : "f32", k->x[0], k->x[1], k->x[2], k->x[3],
            k->nd > 4 ? k->x[4] : 0, k->w[0], k->w[1], k->w[2], k->w[3],
            k->nd > 4 ? k->w[4] : 0, seen, n);
    for (int i = 0; i < n; i++)
        fprintf(stderr, " %s%lld:%.4gms/%lldB", i == best ? "*" : "", (long long)c[i].engine,
                (double)c[i].ms, (long long)c[i].workspace);
    fprintf(stderr, "\n");
}

/* Chooses e's plan (see the top of the file); e->usable stays false when
 * there is none, with the reason in e->why. */
static kbv_status plan_choose(cudnnHandle_t h, graph_entry *e, const void *x, const void *w,
                              void *y)
{
    kbv_status st = KBV_OK;
    candidate c[GRAPH_MAX_PLANS];
    int n = 0, seen = 0, best = -1;
    const int want = plans_wanted(&e->key.conv);
    size_t free_bytes = 0, total_bytes = 0;
    if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) {
        (void)cudaGetLastError();
        free_bytes = 0;
    }
    const int64_t cap = (int64_t)(free_bytes / 10 * 9);
    KBV_TRY_GOTO(gather(h, e, want, cap, c, &n, &seen), st, done);
    if (n == 1) {
        best = 0;
    } else if (n > 1) {
        KBV_TRY_GOTO(time_candidates(h, c, n, x, w, y), st, done);
        for (int i = 0; i < n; i++)
            if (isfinite(c[i].ms) && (best < 0 || c[i].ms < c[best].ms))
                best = i;
    }
    if (verbose())
        print_choice(e, c, n, seen, best);
    if (best < 0) {
        snprintf(e->why, sizeof e->why, "%d engine configs, %d plans built, none ran", seen, n);
        goto done;
    }
    e->cfg = c[best].cfg;
    e->plan = c[best].plan;
    e->workspace = c[best].workspace;
    c[best].cfg = c[best].plan = NULL;
    e->usable = true;
done:
    for (int i = 0; i < n; i++) {
        destroy(&c[i].plan);
        destroy(&c[i].cfg);
    }
    return st;
}

/* The entry for gk: from the cache, or made now. A key without a plan (or
 * whose graph cuDNN refused) gets an entry too, marked unusable. */
static kbv_status entry_for(cudnnHandle_t h, const graph_key *gk, const void *x, const void *w,
                            void *y, const graph_entry **out)
{
    kbv_status st = KBV_OK;
    for (size_t i = 0; i < graph_cache_n; i++)
        if (!memcmp(&graph_cache[i]->key, gk, sizeof *gk)) {
            *out = graph_cache[i];
            return KBV_OK;
        }
    if (graph_cache_n == graph_cache_cap) {
        size_t cap = graph_cache_cap ? 2 * graph_cache_cap : 32;
        graph_entry **grown = realloc(graph_cache, cap * sizeof *grown);
        if (!grown)
            return kbv_fail(KBV_ERR_NOMEM, "cuDNN graph plan cache");
        graph_cache = grown;
        graph_cache_cap = cap;
    }
    graph_entry *e = calloc(1, sizeof *e);
    if (!e)
        return kbv_fail(KBV_ERR_NOMEM, "cuDNN graph plan cache entry");
    e->key = *gk;
    st = graph_make(h, e);
    if (st == KBV_OK)
        st = plan_choose(h, e, x, w, y);
    if (st != KBV_OK) {
        snprintf(e->why, sizeof e->why, "%s", kbv_last_error());
        kbv_clear_error();
        st = KBV_OK;
    }
    if (!e->usable)
        entry_clear(e);
    graph_cache[graph_cache_n++] = e;
    *out = e;
    return st;
}

/* ---------------------------------------------------------- the call */

kbv_status kbv_cuda_conv_graph_run(kbv_backend *be, cudnnHandle_t h, const kbv_conv_dnn_key *k,
                                   const void *x, const void *w, void *y)
{
    kbv_status st = KBV_OK;
    const graph_entry *e = NULL;
    void *ws = NULL;
    graph_key gk;
    memset(&gk, 0, sizeof gk); /* compared with memcmp */
    gk.conv = *k;
    gk.align_x = alignment_of(x);
    gk.align_w = alignment_of(w);
    gk.align_y = alignment_of(y);
    KBV_TRY(entry_for(h, &gk, x, w, y, &e));
    if (!e->usable)
        return kbv_fail(KBV_ERR_UNSUPPORTED, "cuDNN graph API: no plan for this %sconvolution "
                        "(%s)", k->transposed ? "transposed " : "", e->why);
    if (e->workspace > 0)
        KBV_TRY(be->alloc(be, (size_t)e->workspace, &ws));
    DNN_TRY_GOTO(execute(h, e->plan, x, w, y, ws), st, done);
    graph_runs++;
done:
    be->release(be, ws);
    return st;
}
