/* Convolutions and pooling on the CUDA backend, issued as PyTorch eager
 * issues them (aten/src/ATen/native/Convolution.cpp and its cuDNN path):
 *
 *  - depthwise convolutions (groups == input channels > 1, not transposed)
 *    run in kbv's own kernel, as PyTorch runs them in its own for float and
 *    double (it uses cuDNN for them in half precision only);
 *  - every other convolution is one cuDNN call in NCHW: cudnnConvolution-
 *    Forward, or cudnnConvolutionBackwardData for a transposed one (its input
 *    is the "dy" of the convolution it transposes); 1-D convolutions run as
 *    2-D ones of height 1; a bias is added afterwards;
 *  - the algorithm is chosen once per shape, precision and device: by
 *    measuring (cudnnFind*AlgorithmEx, as benchmark=True) in the float32
 *    modes, by cuDNN's heuristic ranking (cudnnGet*Algorithm_v7, as the
 *    default benchmark=False) for float64 or with KBV_CUDNN_ALGO=heuristic;
 *    see use_find();
 *  - math: fp32-strict sets CUDNN_FMA_MATH (no TF32: PyTorch's
 *    allow_tf32=False), fp32 and tf32 CUDNN_DEFAULT_MATH, under which cuDNN
 *    may use TF32 tensor cores (PyTorch's default allow_tf32=True); the
 *    chosen algorithm's math type is set before the call; fp64 runs cuDNN in
 *    double; bf16 gives cuDNN bfloat16 tensors and filters with a float
 *    convolution type under CUDNN_DEFAULT_MATH (bf16 tensor cores), as
 *    PyTorch's ConvolutionDescriptor does for bf16 (its depthwise kernel too
 *    takes bf16 data and accumulates in float);
 *  - the workspace comes from the backend's allocator, so it counts in peak
 *    memory as PyTorch's does, and goes back right after the call;
 *  - tensors with more elements than a 32-bit int holds are split along the
 *    batch into chunks of at most 2^28 elements, as PyTorch does;
 *  - with KBV_CUDNN_API=graph or auto, each chunk runs through cuDNN's graph
 *    API instead (cuda_conv_graph.c), as PyTorch 2.x does; "auto" falls back
 *    to the calls above where it has no plan. The default is in one place:
 *    KBV_CUDNN_API_DEFAULT (cuda_conv_graph.h).
 *
 * cuDNN handles are per device and process-wide, like PyTorch's, and live
 * until the process ends; a mutex serialises their use. */
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include <cudnn.h>

#include "cuda/cuda_check.h"
#include "cuda/cuda_conv.h"
#include "cuda/cuda_conv_graph.h"
#include "cuda/cuda_conv_launch.h"
#include "cuda/cuda_dnn.h"
#include "cuda/cuda_impl.h"
#include "graph/ops_conv.h"
#include "graph/ops_table.h"

#define DNN_MAX_DEVICES 64
#define DNN_MAX_ALGOS 16
/* PyTorch's max_worksize for splitting the batch (split_batch_dim_to_32bit_out). */
#define DNN_SPLIT_ELEMENTS ((int64_t)1 << 28)

#define DNN_FAIL(cst, text)                                                                  \
    kbv_fail((cst) == CUDNN_STATUS_ALLOC_FAILED ? KBV_ERR_NOMEM : KBV_ERR_CUDA, "%s: %s",     \
             (text), cudnnGetErrorString(cst))

#define DNN_TRY_GOTO(call, st, label)                                                        \
    do {                                                                                     \
        cudnnStatus_t dnn_st_ = (call);                                                      \
        if (dnn_st_ != CUDNN_STATUS_SUCCESS) {                                               \
            (st) = DNN_FAIL(dnn_st_, #call);                                                 \
            goto label;                                                                      \
        }                                                                                    \
    } while (0)

static const char *op_name(kbv_op op)
{
    return (unsigned)op < KBV_OP_COUNT && kbv_op_table[op].name ? kbv_op_table[op].name : "op";
}

static kbv_status launched(cudaError_t err, const char *what)
{
    if (err != cudaSuccess)
        return kbv_fail(err == cudaErrorMemoryAllocation ? KBV_ERR_NOMEM : KBV_ERR_CUDA,
                        "%s kernel launch: %s (%s)", what, cudaGetErrorString(err),
                        cudaGetErrorName(err));
    return KBV_OK;
}

/* ------------------------------------------------------ geometry */

/* A convolution as cuDNN sees it: nd tensor dims (4 or 5; a 1-D one gets a
 * height of 1), everything as int after the batch split. */
typedef struct conv_shape {
    int spatial;
    bool transposed;
    int64_t batch, cin, cout, groups;
    int64_t x[5], w[5], y[5];   /* [N, C, *spatial] and the weight, spatial + 2 dims */
} conv_shape;

static int64_t prod(const int64_t *v, int n)
{
    int64_t p = 1;
    for (int i = 0; i < n; i++)
        p *= v[i];
    return p;
}

/* Checks x, w, out against the window (the shape rule's formulas) and
 * fills sh. */
static kbv_status conv_shape_of(const char *op, const kbv_window *win, const kbv_tensor *x,
                                const kbv_tensor *w, const kbv_tensor *out, conv_shape *sh)
{
    const int sp = win->spatial, nd = sp + 2;
    if (x->ndim != nd || w->ndim != nd || out->ndim != nd)
        return kbv_fail(KBV_ERR_INVALID, "%s: input, weight and output need %d dims (have %d, "
                        "%d, %d)", op, nd, x->ndim, w->ndim, out->ndim);
    memset(sh, 0, sizeof *sh);
    sh->spatial = sp;
    sh->transposed = win->kind == KBV_WINDOW_CONV_TRANSPOSE;
    sh->batch = x->shape[0];
    sh->cin = x->shape[1];
    sh->cout = out->shape[1];
    sh->groups = win->groups;
    for (int d = 0; d < nd; d++) {
        sh->x[d] = x->shape[d];
        sh->w[d] = w->shape[d];
        sh->y[d] = out->shape[d];
    }
    int64_t cin_w = sh->transposed ? w->shape[0] : w->shape[1] * sh->groups;
    int64_t cout_w = sh->transposed ? w->shape[1] * sh->groups : w->shape[0];
    if (sh->cin != cin_w || sh->cout != cout_w || sh->cin % sh->groups ||
        sh->cout % sh->groups || out->shape[0] != sh->batch)
        return kbv_fail(KBV_ERR_INVALID, "%s: channels do not match: input %lld, output %lld, "
                        "weight [%lld, %lld, ...], groups %lld", op, (long long)sh->cin,
                        (long long)sh->cout, (long long)w->shape[0], (long long)w->shape[1],
                        (long long)sh->groups);
    for (int d = 0; d < sp; d++) {
        int64_t k = w->shape[2 + d], in = x->shape[2 + d];
        int64_t expect = sh->transposed
                             ? kbv_conv_transpose_out_size(in, k, win->stride[d], win->padding[d],
                                                           win->dilation[d],
                                                           win->output_padding[d])
                             : kbv_conv_out_size(in, k, win->stride[d], win->padding[d],
                                                 win->dilation[d]);
        if (out->shape[2 + d] != expect)
            return kbv_fail(KBV_ERR_INVALID, "%s: output extent %lld along spatial dim %d, "
                            "expected %lld", op, (long long)out->shape[2 + d], d,
                            (long long)expect);
    }
    return KBV_OK;
}

/* The window in three spatial dims (leading ones of size 1). */
static void window3(const kbv_window *win, const int64_t *in, const int64_t *out,
                    const int64_t *k, kbv_cuda_window *w)
{
    const int pad = 3 - win->spatial;
    for (int d = 0; d < 3; d++) {
        int s = d - pad;
        w->in[d] = s < 0 ? 1 : in[s];
        w->out[d] = s < 0 ? 1 : out[s];
        w->k[d] = s < 0 ? 1 : k[s];
        w->stride[d] = s < 0 ? 1 : win->stride[s];
        w->pad[d] = s < 0 ? 0 : win->padding[s];
        w->dil[d] = s < 0 ? 1 : win->dilation[s];
    }
}

/* ------------------------------------------------ cuDNN state */

/* A convolution as cuDNN sees it (cuda_conv_graph.h), shared with the
 * graph-API path. */
typedef kbv_conv_dnn_key dnn_key;

/* The descriptors of one key. */
typedef struct dnn_descs {
    cudnnTensorDescriptor_t x, y;
    cudnnFilterDescriptor_t w;
    cudnnConvolutionDescriptor_t conv;
} dnn_descs;

/* One key's descriptors and chosen algorithm, made once and kept. */
typedef struct dnn_entry {
    dnn_key key;
    dnn_descs d;
    int algo;
    cudnnMathType_t math;
    size_t workspace;
} dnn_entry;

static pthread_mutex_t dnn_lock = PTHREAD_MUTEX_INITIALIZER;
static cudnnHandle_t dnn_handles[DNN_MAX_DEVICES];
static dnn_entry **dnn_cache;
static size_t dnn_cache_n, dnn_cache_cap;

/* The device's handle (the device is current), on the backend's stream. */
static kbv_status dnn_handle(kbv_cuda *cu, cudnnHandle_t *out)
{
    kbv_status st = KBV_OK;
    if (cu->device < 0 || cu->device >= DNN_MAX_DEVICES)
        return kbv_fail(KBV_ERR_UNSUPPORTED, "cuDNN: device %d beyond the %d supported",
                        cu->device, DNN_MAX_DEVICES);
    if (!dnn_handles[cu->device])
        DNN_TRY_GOTO(cudnnCreate(&dnn_handles[cu->device]), st, done);
    DNN_TRY_GOTO(cudnnSetStream(dnn_handles[cu->device], cu->stream), st, done);
    *out = dnn_handles[cu->device];
done:
    return st;
}

kbv_status kbv_cuda_dnn_acquire(kbv_cuda *cu, cudnnHandle_t *out)
{
    pthread_mutex_lock(&dnn_lock);
    kbv_status st = dnn_handle(cu, out);
    if (st != KBV_OK)
        pthread_mutex_unlock(&dnn_lock);
    return st;
}

void kbv_cuda_dnn_release(void) { pthread_mutex_unlock(&dnn_lock); }

/* How the algorithm is chosen: "find" (default) measures every algorithm
 * once per shape, as torch.backends.cudnn.benchmark=True does, and takes
 * the fastest; "heuristic" (KBV_CUDNN_ALGO=heuristic) takes cuDNN's
 * heuristic ranking as PyTorch's default (benchmark=False) does. PyTorch
 * 2.x ranks through cuDNN's v8 engine heuristics, which the legacy v7 call
 * does not reproduce: measuring keeps the baseline at least as fast. The
 * float64 oracle is never timed, so it skips the search. */
static bool use_find(const dnn_key *k)
{
    const char *v = getenv("KBV_CUDNN_ALGO");
    return !k->is_f64 && !(v && !strcmp(v, "heuristic"));
}

static void descs_destroy(dnn_descs *d)
{
    if (d->x)
        cudnnDestroyTensorDescriptor(d->x);
    if (d->y)
        cudnnDestroyTensorDescriptor(d->y);
    if (d->w)
        cudnnDestroyFilterDescriptor(d->w);
    if (d->conv)
        cudnnDestroyConvolutionDescriptor(d->conv);
    memset(d, 0, sizeof *d);
}

static void contiguous_strides(const int *dims, int nd, int *strides)
{
    int s = 1;
    for (int i = nd - 1; i >= 0; i--) {
        strides[i] = s;
        s *= dims[i];
    }
}

static kbv_status descs_make(const dnn_key *k, dnn_descs *d)
{
    kbv_status st = KBV_OK;
    memset(d, 0, sizeof *d);
    const cudnnDataType_t dt = k->bf16     ? CUDNN_DATA_BFLOAT16
                               : k->is_f64 ? CUDNN_DATA_DOUBLE
                                           : CUDNN_DATA_FLOAT;
    const cudnnDataType_t compute = k->bf16 ? CUDNN_DATA_FLOAT : dt;
    int xs[5], ys[5];
    contiguous_strides(k->x, k->nd, xs);
    contiguous_strides(k->y, k->nd, ys);
    DNN_TRY_GOTO(cudnnCreateTensorDescriptor(&d->x), st, fail);
    DNN_TRY_GOTO(cudnnCreateTensorDescriptor(&d->y), st, fail);
    DNN_TRY_GOTO(cudnnCreateFilterDescriptor(&d->w), st, fail);
    DNN_TRY_GOTO(cudnnCreateConvolutionDescriptor(&d->conv), st, fail);
    DNN_TRY_GOTO(cudnnSetTensorNdDescriptor(d->x, dt, k->nd, k->x, xs), st, fail);
    DNN_TRY_GOTO(cudnnSetTensorNdDescriptor(d->y, dt, k->nd, k->y, ys), st, fail);
    DNN_TRY_GOTO(cudnnSetFilterNdDescriptor(d->w, dt, CUDNN_TENSOR_NCHW, k->nd, k->w), st, fail);
    DNN_TRY_GOTO(cudnnSetConvolutionNdDescriptor(d->conv, k->nd - 2, k->pad, k->stride, k->dil,
                                                 CUDNN_CROSS_CORRELATION, compute),
                 st, fail);
    DNN_TRY_GOTO(cudnnSetConvolutionGroupCount(d->conv, k->groups), st, fail);
    /* PyTorch: FMA only when TF32 is not allowed for float data */
    const cudnnMathType_t math = k->strict && !k->is_f64 ? CUDNN_FMA_MATH : CUDNN_DEFAULT_MATH;
    DNN_TRY_GOTO(cudnnSetConvolutionMathType(d->conv, math), st, fail);
    return KBV_OK;
fail:
    descs_destroy(d);
    return st;
}

/* Workspace of algo under the descriptor's current math type; false when
 * cuDNN does not offer the algorithm here. */
static bool workspace_of(cudnnHandle_t h, const dnn_key *k, const dnn_descs *d, int algo,
                         size_t *bytes)
{
    cudnnStatus_t s = k->transposed
                          ? cudnnGetConvolutionBackwardDataWorkspaceSize(
                                h, d->w, d->x, d->conv, d->y, (cudnnConvolutionBwdDataAlgo_t)algo,
                                bytes)
                          : cudnnGetConvolutionForwardWorkspaceSize(
                                h, d->x, d->w, d->conv, d->y, (cudnnConvolutionFwdAlgo_t)algo,
                                bytes);
    return s == CUDNN_STATUS_SUCCESS;
}

/* Whether a ranked entry is usable: it succeeded, and it does not need
 * tensor-op math where TF32 is not allowed. */
static bool keep(const dnn_key *k, cudnnStatus_t status, cudnnMathType_t math)
{
    if (status != CUDNN_STATUS_SUCCESS)
        return false;
    return !(k->strict && !k->is_f64 &&
             (math == CUDNN_TENSOR_OP_MATH || math == CUDNN_TENSOR_OP_MATH_ALLOW_CONVERSION));
}

/* The math type to run an entry with: FMA only where TF32 is not allowed
 * (PyTorch asserts that is what cuDNN returns then). */
static cudnnMathType_t math_for(const dnn_key *k, cudnnMathType_t math)
{
    return k->strict && !k->is_f64 ? CUDNN_FMA_MATH : math;
}

/* A ranking of (algorithm, math type) pairs, best first. */
typedef struct ranking {
    int n;
    int algo[DNN_MAX_ALGOS];
    cudnnMathType_t math[DNN_MAX_ALGOS];
} ranking;

#define RANK_KEEP(perf, count, k, r)                                                         \
    do {                                                                                     \
        for (int i_ = 0; i_ < (count) && (r)->n < DNN_MAX_ALGOS; i_++)                       \
            if (keep((k), (perf)[i_].status, (perf)[i_].mathType)) {                         \
                (r)->algo[(r)->n] = (int)(perf)[i_].algo;                                    \
                (r)->math[(r)->n++] = math_for((k), (perf)[i_].mathType);                    \
            }                                                                                \
    } while (0)

/* cuDNN's heuristic ranking (cudnnGetConvolution*Algorithm_v7). */
static kbv_status rank_heuristic(cudnnHandle_t h, const dnn_key *k, const dnn_descs *d,
                                 ranking *r)
{
    kbv_status st = KBV_OK;
    int count = 0;
    if (k->transposed) {
        cudnnConvolutionBwdDataAlgoPerf_t perf[DNN_MAX_ALGOS];
        DNN_TRY_GOTO(cudnnGetConvolutionBackwardDataAlgorithm_v7(h, d->w, d->x, d->conv, d->y,
                                                                 DNN_MAX_ALGOS, &count, perf),
                     st, done);
        RANK_KEEP(perf, count, k, r);
    } else {
        cudnnConvolutionFwdAlgoPerf_t perf[DNN_MAX_ALGOS];
        DNN_TRY_GOTO(cudnnGetConvolutionForwardAlgorithm_v7(h, d->x, d->w, d->conv, d->y,
                                                            DNN_MAX_ALGOS, &count, perf),
                     st, done);
        RANK_KEEP(perf, count, k, r);
    }
done:
    return st;
}

/* The measured ranking (cudnnFind*AlgorithmEx) on the call's own tensors
 * (y is overwritten, and written again by the call that follows). The
 * search workspace is the largest any algorithm asks for that fits in 90%
 * of the free device memory (the fastest algorithms often want gigabytes),
 * from cudaMalloc: a one-time search, not part of a forward's memory. */
static kbv_status rank_measured(cudnnHandle_t h, const dnn_key *k, const dnn_descs *d,
                                const void *x, const void *w, void *y, ranking *r)
{
    kbv_status st = KBV_OK;
    size_t ws_bytes = 0, free_bytes = 0, total_bytes = 0;
    void *ws = NULL;
    if (cudaMemGetInfo(&free_bytes, &total_bytes) != cudaSuccess) {
        (void)cudaGetLastError();
        free_bytes = 0;
    }
    for (int a = 0; a < DNN_MAX_ALGOS; a++) {
        size_t b = 0;
        if (workspace_of(h, k, d, a, &b) && b > ws_bytes && b <= free_bytes / 10 * 9)
            ws_bytes = b;
    }
    while (ws_bytes > 0 && cudaMalloc(&ws, ws_bytes) != cudaSuccess) {
        (void)cudaGetLastError();
        ws = NULL;
        ws_bytes = ws_bytes > ((size_t)1 << 20) ? ws_bytes / 2 : 0;
    }
    int count = 0;
    if (k->transposed) {
        cudnnConvolutionBwdDataAlgoPerf_t perf[DNN_MAX_ALGOS];
        DNN_TRY_GOTO(cudnnFindConvolutionBackwardDataAlgorithmEx(h, d->w, w, d->x, x, d->conv,
                                                                 d->y, y, DNN_MAX_ALGOS, &count,
                                                                 perf, ws, ws_bytes),
                     st, done);
        RANK_KEEP(perf, count, k, r);
    } else {
        cudnnConvolutionFwdAlgoPerf_t perf[DNN_MAX_ALGOS];
        DNN_TRY_GOTO(cudnnFindConvolutionForwardAlgorithmEx(h, d->x, x, d->w, w, d->conv, d->y,
                                                            y, DNN_MAX_ALGOS, &count, perf, ws,
                                                            ws_bytes),
                     st, done);
        RANK_KEEP(perf, count, k, r);
    }
done:
    if (ws)
        cudaFree(ws);
    return st;
}

/* The entry for k: from the cache, or made now (descriptors, ranking, the
 * first ranked algorithm whose workspace size cuDNN reports). */
static kbv_status dnn_entry_for(cudnnHandle_t h, const dnn_key *k, const void *x, const void *w,
                                void *y, const dnn_entry **out)
{
    kbv_status st = KBV_OK;
    for (size_t i = 0; i < dnn_cache_n; i++)
        if (!memcmp(&dnn_cache[i]->key, k, sizeof *k)) {
            *out = dnn_cache[i];
            return KBV_OK;
        }
    if (dnn_cache_n == dnn_cache_cap) {
        size_t cap = dnn_cache_cap ? 2 * dnn_cache_cap : 32;
        dnn_entry **grown = realloc(dnn_cache, cap * sizeof *grown);
        if (!grown)
            return kbv_fail(KBV_ERR_NOMEM, "cuDNN algorithm cache");
        dnn_cache = grown;
        dnn_cache_cap = cap;
    }
    dnn_entry *e = calloc(1, sizeof *e);
    if (!e)
        return kbv_fail(KBV_ERR_NOMEM, "cuDNN algorithm cache entry");
    e->key = *k;
    KBV_TRY_GOTO(descs_make(k, &e->d), st, fail);
    ranking r = {0};
    if (use_find(k))
        KBV_TRY_GOTO(rank_measured(h, k, &e->d, x, w, y, &r), st, fail);
    if (r.n == 0)
        KBV_TRY_GOTO(rank_heuristic(h, k, &e->d, &r), st, fail);
    for (int i = 0; i < r.n; i++) {
        DNN_TRY_GOTO(cudnnSetConvolutionMathType(e->d.conv, r.math[i]), st, fail);
        if (workspace_of(h, k, &e->d, r.algo[i], &e->workspace)) {
            e->algo = r.algo[i];
            e->math = r.math[i];
            dnn_cache[dnn_cache_n++] = e;
            *out = e;
            return KBV_OK;
        }
    }
    st = kbv_fail(KBV_ERR_UNSUPPORTED, "cuDNN offers no algorithm for this %sconvolution",
                  k->transposed ? "transposed " : "");
fail:
    descs_destroy(&e->d);
    free(e);
    return st;
}

/* One cuDNN convolution of the shapes in k; call with dnn_lock held. The
 * workspace comes from the backend's allocator and goes back right after
 * the call is enqueued (stream-ordered, as PyTorch's caching allocator). */
static kbv_status dnn_convolve(kbv_backend *be, cudnnHandle_t h, const dnn_key *k, const void *x,
                               const void *w, void *y)
{
    kbv_status st = KBV_OK;
    const dnn_entry *e = NULL;
    void *ws = NULL;
    KBV_TRY(dnn_entry_for(h, k, x, w, y, &e));
    if (e->workspace > 0)
        KBV_TRY(be->alloc(be, e->workspace, &ws));
    const double one_d = 1.0, zero_d = 0.0;
    const float one_f = 1.0f, zero_f = 0.0f;
    const void *one = k->is_f64 ? (const void *)&one_d : (const void *)&one_f;
    const void *zero = k->is_f64 ? (const void *)&zero_d : (const void *)&zero_f;
    if (k->transposed)
        DNN_TRY_GOTO(cudnnConvolutionBackwardData(h, one, e->d.w, w, e->d.x, x, e->d.conv,
                                                  (cudnnConvolutionBwdDataAlgo_t)e->algo, ws,
                                                  e->workspace, zero, e->d.y, y),
                     st, done);
    else
        DNN_TRY_GOTO(cudnnConvolutionForward(h, one, e->d.x, x, e->d.w, w, e->d.conv,
                                             (cudnnConvolutionFwdAlgo_t)e->algo, ws,
                                             e->workspace, zero, e->d.y, y),
                     st, done);
done:
    be->release(be, ws);
    return st;
}

/* One cuDNN convolution through the API KBV_CUDNN_API picks (cuda_conv_
 * graph.h): the graph API, the legacy calls, or the graph API with the
 * legacy calls where it has no plan. Call with dnn_lock held. */
static kbv_status dnn_dispatch(kbv_backend *be, cudnnHandle_t h, const dnn_key *k, const void *x,
                               const void *w, void *y)
{
    const kbv_cudnn_api api = kbv_cuda_conv_api();
    /* float64 (the oracle's mode) stays on the legacy calls: the graph path
     * gave NaN there for a grouped, dilated 1-D convolution on the H200 */
    if (api != KBV_CUDNN_API_LEGACY && !k->is_f64) {
        kbv_status st = kbv_cuda_conv_graph_run(be, h, k, x, w, y);
        if (st == KBV_OK)
            return KBV_OK;
        if (api == KBV_CUDNN_API_GRAPH)
            return kbv_relay_at(__FILE__, __LINE__, st);
        kbv_clear_error(); /* auto: the legacy calls take over */
    }
    KBV_TRY(dnn_convolve(be, h, k, x, w, y));
    return KBV_OK;
}

/* The cuDNN key of a batch chunk of `batch` elements. */
static void make_key(const kbv_cuda *cu, const kbv_backend *be, const conv_shape *sh,
                     const kbv_window *win, int64_t batch, int kind, dnn_key *k)
{
    memset(k, 0, sizeof *k); /* compared with memcmp */
    k->device = cu->device;
    k->transposed = sh->transposed;
    k->is_f64 = kind == KBV_CUDA_KIND_F64;
    k->bf16 = kind == KBV_CUDA_KIND_BF16;
    k->strict = be->mode == KBV_MODE_FP32_STRICT;
    k->groups = (int)sh->groups;
    /* a 1-D convolution runs as a 2-D one of height 1, as PyTorch's view1d_as_2d */
    const int lift = sh->spatial == 1 ? 1 : 0;
    k->nd = sh->spatial + 2 + lift;
    const int64_t *src[3] = {sh->x, sh->w, sh->y};
    int *dst[3] = {k->x, k->w, k->y};
    for (int t = 0; t < 3; t++) {
        dst[t][0] = (int)src[t][0];
        dst[t][1] = (int)src[t][1];
        if (lift)
            dst[t][2] = 1;
        for (int s = 0; s < sh->spatial; s++)
            dst[t][2 + lift + s] = (int)src[t][2 + s];
    }
    k->x[0] = k->y[0] = (int)batch;
    if (lift) {
        k->pad[0] = 0;
        k->stride[0] = 1;
        k->dil[0] = 1;
    }
    for (int s = 0; s < sh->spatial; s++) {
        k->pad[lift + s] = (int)win->padding[s];
        k->stride[lift + s] = (int)win->stride[s];
        k->dil[lift + s] = (int)win->dilation[s];
    }
}

/* The whole convolution through cuDNN, in batch chunks when a tensor has
 * more elements than cuDNN's int indexing allows. */
static kbv_status conv_cudnn(kbv_backend *be, const conv_shape *sh, const kbv_window *win,
                             int kind, const void *x, const void *w, void *y)
{
    kbv_cuda *cu = kbv_cuda_of(be);
    kbv_status st = KBV_OK;
    const int nd = sh->spatial + 2;
    const int64_t x_inner = prod(sh->x + 1, nd - 1), y_inner = prod(sh->y + 1, nd - 1);
    const int64_t inner = x_inner > y_inner ? x_inner : y_inner;
    int64_t chunk = sh->batch;
    if (sh->batch * inner > INT_MAX) {
        chunk = DNN_SPLIT_ELEMENTS / inner;
        if (chunk < 1)
            chunk = 1;
        if (chunk * inner >= INT_MAX)
            return kbv_fail(KBV_ERR_UNSUPPORTED, "cuDNN: one batch element has %lld elements, "
                            "more than 32-bit indexing allows", (long long)inner);
    }
    for (int d = 0; d < nd; d++)
        if (sh->w[d] > INT_MAX)
            return kbv_fail(KBV_ERR_UNSUPPORTED, "cuDNN: weight dim of %lld", (long long)sh->w[d]);
    const size_t esize = kind == KBV_CUDA_KIND_F64 ? 8 : kind == KBV_CUDA_KIND_BF16 ? 2 : 4;
    pthread_mutex_lock(&dnn_lock);
    cudnnHandle_t h = NULL;
    KBV_TRY_GOTO(dnn_handle(cu, &h), st, done);
    for (int64_t n0 = 0; n0 < sh->batch; n0 += chunk) {
        int64_t n = sh->batch - n0 < chunk ? sh->batch - n0 : chunk;
        dnn_key k;
        make_key(cu, be, sh, win, n, kind, &k);
        KBV_TRY_GOTO(dnn_dispatch(be, h, &k, (const char *)x + (size_t)(n0 * x_inner) * esize, w,
                                  (char *)y + (size_t)(n0 * y_inner) * esize),
                     st, done);
    }
done:
    pthread_mutex_unlock(&dnn_lock);
    return st;
}

/* ----------------------------------------------------------------- ops */

kbv_status kbv_cuda_op_conv(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                            kbv_tensor *out)
{
    kbv_cuda *cu = kbv_cuda_of(be);
    kbv_status st = KBV_OK;
    const char *op = op_name(node->op);
    void *scratch_x = NULL, *scratch_w = NULL;
    kbv_window win;
    KBV_TRY(kbv_window_parse(node->op, node->def ? node->def->s : NULL, &win));
    if (win.kind != KBV_WINDOW_CONV && win.kind != KBV_WINDOW_CONV_TRANSPOSE)
        return kbv_fail(KBV_ERR_INVALID, "%s is not a convolution", op);
    if (node->n_args != (win.has_bias ? 3 : 2))
        return kbv_fail(KBV_ERR_INVALID, "%s: %d operands", op, node->n_args);
    int kind, kind_other;
    KBV_TRY(kbv_cuda_float_kind(be, &args[0], &kind));
    KBV_TRY(kbv_cuda_float_kind(be, &args[1], &kind_other));
    const kbv_tensor *b = win.has_bias ? &args[2] : NULL;
    int kind_bias = kind;
    if (b)
        KBV_TRY(kbv_cuda_float_kind(be, b, &kind_bias));
    if (kind_other != kind || kind_bias != kind)
        return kbv_fail(KBV_ERR_UNSUPPORTED, "%s: operands of two float types", op);
    conv_shape sh;
    KBV_TRY(conv_shape_of(op, &win, &args[0], &args[1], out, &sh));
    KBV_TRY(kbv_cuda_check_out(out, kbv_tensor_numel(out), args[0].dtype, op));
    if (b && (b->ndim != 1 || b->shape[0] != sh.cout))
        return kbv_fail(KBV_ERR_INVALID, "%s: bias needs %lld elements", op, (long long)sh.cout);
    if (kbv_tensor_numel(out) == 0)
        return KBV_OK;
    kbv_tensor x, w, bc;
    void *scratch_b = NULL;
    KBV_TRY_GOTO(kbv_cuda_contiguous(be, &args[0], &x, &scratch_x), st, done);
    KBV_TRY_GOTO(kbv_cuda_contiguous(be, &args[1], &w, &scratch_w), st, done);
    if (b)
        KBV_TRY_GOTO(kbv_cuda_contiguous(be, b, &bc, &scratch_b), st, done);

    const int nd = sh.spatial + 2;
    const bool depthwise = !sh.transposed && sh.groups > 1 && sh.groups == sh.cin &&
                           sh.cout % sh.cin == 0;
    if (depthwise) {
        kbv_cuda_window cw;
        window3(&win, sh.x + 2, sh.y + 2, sh.w + 2, &cw);
        st = launched(kbv_cuda_launch_depthwise(cu->stream, kind, &cw, sh.batch, sh.cin,
                                                sh.cout / sh.cin, x.data, w.data,
                                                b ? bc.data : NULL, out->data),
                      op);
    } else {
        KBV_TRY_GOTO(conv_cudnn(be, &sh, &win, kind, x.data, w.data, out->data), st, done);
        if (b)
            st = launched(kbv_cuda_launch_bias_add(cu->stream, kind, sh.batch, sh.cout,
                                                   prod(sh.y + 2, nd - 2), bc.data, out->data),
                          "bias add");
    }
done:
    be->release(be, scratch_x);
    be->release(be, scratch_w);
    be->release(be, scratch_b);
    return st;
}

kbv_status kbv_cuda_op_pool(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                            kbv_tensor *out)
{
    kbv_cuda *cu = kbv_cuda_of(be);
    kbv_status st = KBV_OK;
    const char *op = op_name(node->op);
    void *scratch = NULL;
    kbv_window win;
    KBV_TRY(kbv_window_parse(node->op, node->def ? node->def->s : NULL, &win));
    if (win.kind != KBV_WINDOW_MAX_POOL && win.kind != KBV_WINDOW_AVG_POOL)
        return kbv_fail(KBV_ERR_INVALID, "%s is not a pooling", op);
    int kind;
    KBV_TRY(kbv_cuda_float_kind(be, &args[0], &kind));
    const kbv_tensor *xin = &args[0];
    const int lead = xin->ndim - win.spatial;
    if ((lead != 1 && lead != 2) || out->ndim != xin->ndim)
        return kbv_fail(KBV_ERR_INVALID, "%s: input of %d dims and output of %d", op, xin->ndim,
                        out->ndim);
    KBV_TRY(kbv_cuda_check_out(out, kbv_tensor_numel(out), xin->dtype, op));
    int64_t ks[3], outs[3];
    for (int d = 0; d < win.spatial; d++) {
        ks[d] = win.kernel[d];
        outs[d] = kbv_pool_out_size(xin->shape[lead + d], win.kernel[d], win.stride[d],
                                    win.padding[d], win.dilation[d], win.ceil_mode);
        if (out->shape[lead + d] != outs[d])
            return kbv_fail(KBV_ERR_INVALID, "%s: output extent %lld along spatial dim %d, "
                            "expected %lld", op, (long long)out->shape[lead + d], d,
                            (long long)outs[d]);
    }
    for (int d = 0; d < lead; d++)
        if (out->shape[d] != xin->shape[d])
            return kbv_fail(KBV_ERR_INVALID, "%s: output dim %d differs from the input's", op, d);
    if (kbv_tensor_numel(out) == 0)
        return KBV_OK;
    kbv_tensor x;
    KBV_TRY(kbv_cuda_contiguous(be, xin, &x, &scratch));
    kbv_cuda_window cw;
    window3(&win, xin->shape + lead, outs, ks, &cw);
    st = launched(kbv_cuda_launch_pool(cu->stream, win.kind == KBV_WINDOW_MAX_POOL, kind,
                                       win.count_include_pad, &cw, prod(xin->shape, lead), x.data,
                                       out->data),
                  op);
    be->release(be, scratch);
    return st;
}
