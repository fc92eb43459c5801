/* nn.LSTM and nn.GRU on the CUDA backend, as PyTorch runs them on a GPU
 * (aten/src/ATen/native/cudnn/RNN.cpp, its cuDNN v8 API path): one
 * cudnnRNNForward over every layer and direction.
 *
 *  - the descriptors: CUDNN_RNN_ALGO_STANDARD, CUDNN_LINEAR_INPUT,
 *    CUDNN_RNN_DOUBLE_BIAS (bias_ih and bias_hh), no projection, a dropout
 *    descriptor of probability 0, padded I/O with every sequence of the full
 *    length; made once per shape, precision and device and kept;
 *  - math: fp32-strict sets CUDNN_FMA_MATH (PyTorch's cudnn.allow_tf32 =
 *    False), fp32 and tf32 CUDNN_DEFAULT_MATH (allow_tf32 = True, its
 *    default), fp64 runs cuDNN in double; bf16 is not supported;
 *  - training mode (CUDNN_FWD_MODE_TRAINING, with its reserve space), as
 *    PyTorch runs a module that KernelBench builds in training mode;
 *  - layout: seq-first input and output as they are; a batch-first one is
 *    given to cuDNN as CUDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED, where
 *    PyTorch copies the input to seq-major first and returns a transposed
 *    view of a seq-major output;
 *  - weights: cuDNN reads one weight space; PyTorch's nn.LSTM keeps its
 *    params inside such a buffer (flatten_parameters), kbv's params are
 *    tensors of their own, so every call copies them into a weight space
 *    from the backend's allocator, one copy per param where cuDNN lays the
 *    gates of a matrix out back to back (PyTorch's path for weights that are
 *    not flat does the same copies);
 *  - the weight space, workspace, reserve space and any output cuDNN needs
 *    beside the node's result come from the backend's allocator and go back
 *    after the call is enqueued, so they count in peak memory.
 *
 * cuDNN's gate order is PyTorch's: LSTM linear layers 0-3 (input) and 4-7
 * (recurrent) are i, f, g, o; GRU's 0-2 and 3-5 are r, z, n. */
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/cuda_dnn.h"
#include "cuda/cuda_op_args.h"
#include "cuda/cuda_ops.h"
#include "graph/ops_rnn.h"

#define RNN_FAIL(cst, text)                                                                  \
    kbv_fail((cst) == CUDNN_STATUS_ALLOC_FAILED ? KBV_ERR_NOMEM : KBV_ERR_CUDA, "%s: %s",     \
             (text), cudnnGetErrorString(cst))

#define RNN_TRY_GOTO(call, st, label)                                                        \
    do {                                                                                     \
        cudnnStatus_t rnn_st_ = (call);                                                      \
        if (rnn_st_ != CUDNN_STATUS_SUCCESS) {                                               \
            (st) = RNN_FAIL(rnn_st_, #call);                                                 \
            goto label;                                                                      \
        }                                                                                    \
    } while (0)

/* What the descriptors depend on. */
typedef struct rnn_key {
    int device;
    bool lstm, is_f64, strict, batch_first;
    int layers, dirs;
    int seq, batch, input, hidden;
} rnn_key;

/* One key's descriptors and sizes, made once and kept. The parameter
 * offsets are into the weight space: per pseudo-layer (layer * dirs + dir)
 * and linear layer id, its matrix and its bias. */
typedef struct rnn_entry {
    rnn_key key;
    cudnnRNNDescriptor_t rnn;
    cudnnDropoutDescriptor_t dropout;
    cudnnRNNDataDescriptor_t x, y;
    cudnnTensorDescriptor_t h;
    size_t weight_bytes, work_bytes, reserve_bytes;
    size_t *matrix_at, *bias_at;   /* [pseudo-layers * 2 * gates]; NULL until the first call */
} rnn_entry;

static rnn_entry **rnn_cache;
static size_t rnn_cache_n, rnn_cache_cap;

static void entry_free(rnn_entry *e)
{
    if (!e)
        return;
    if (e->h)
        cudnnDestroyTensorDescriptor(e->h);
    if (e->y)
        cudnnDestroyRNNDataDescriptor(e->y);
    if (e->x)
        cudnnDestroyRNNDataDescriptor(e->x);
    if (e->rnn)
        cudnnDestroyRNNDescriptor(e->rnn);
    if (e->dropout)
        cudnnDestroyDropoutDescriptor(e->dropout);
    free(e->matrix_at);
    free(e->bias_at);
    free(e);
}

/* The descriptors of k; call with the cuDNN lock held. */
static kbv_status entry_make(cudnnHandle_t h, const rnn_key *k, rnn_entry **out)
{
    kbv_status st = KBV_OK;
    rnn_entry *e = calloc(1, sizeof *e);
    int *lengths = calloc((size_t)k->batch, sizeof *lengths);
    if (!e || !lengths)
        KBV_FAIL_GOTO(st, fail, KBV_ERR_NOMEM, "cuDNN RNN: descriptors");
    e->key = *k;
    const cudnnDataType_t dt = k->is_f64 ? CUDNN_DATA_DOUBLE : CUDNN_DATA_FLOAT;
    const cudnnMathType_t math = k->strict && !k->is_f64 ? CUDNN_FMA_MATH : CUDNN_DEFAULT_MATH;
    RNN_TRY_GOTO(cudnnCreateDropoutDescriptor(&e->dropout), st, fail);
    RNN_TRY_GOTO(cudnnSetDropoutDescriptor(e->dropout, h, 0.0f, NULL, 0, 0), st, fail);
    RNN_TRY_GOTO(cudnnCreateRNNDescriptor(&e->rnn), st, fail);
    RNN_TRY_GOTO(cudnnSetRNNDescriptor_v8(e->rnn, CUDNN_RNN_ALGO_STANDARD,
                                          k->lstm ? CUDNN_LSTM : CUDNN_GRU,
                                          CUDNN_RNN_DOUBLE_BIAS,
                                          k->dirs == 2 ? CUDNN_BIDIRECTIONAL
                                                       : CUDNN_UNIDIRECTIONAL,
                                          CUDNN_LINEAR_INPUT, dt, dt, math, k->input, k->hidden,
                                          k->hidden, k->layers, e->dropout,
                                          CUDNN_RNN_PADDED_IO_ENABLED),
                 st, fail);
    for (int b = 0; b < k->batch; b++)
        lengths[b] = k->seq;
    const cudnnRNNDataLayout_t layout = k->batch_first ? CUDNN_RNN_DATA_LAYOUT_BATCH_MAJOR_UNPACKED
                                                       : CUDNN_RNN_DATA_LAYOUT_SEQ_MAJOR_UNPACKED;
    RNN_TRY_GOTO(cudnnCreateRNNDataDescriptor(&e->x), st, fail);
    RNN_TRY_GOTO(cudnnSetRNNDataDescriptor(e->x, dt, layout, k->seq, k->batch, k->input, lengths,
                                           NULL),
                 st, fail);
    RNN_TRY_GOTO(cudnnCreateRNNDataDescriptor(&e->y), st, fail);
    RNN_TRY_GOTO(cudnnSetRNNDataDescriptor(e->y, dt, layout, k->seq, k->batch,
                                           k->dirs * k->hidden, lengths, NULL),
                 st, fail);
    const int hdims[3] = {k->layers * k->dirs, k->batch, k->hidden};
    const int hstrides[3] = {k->batch * k->hidden, k->hidden, 1};
    RNN_TRY_GOTO(cudnnCreateTensorDescriptor(&e->h), st, fail);
    RNN_TRY_GOTO(cudnnSetTensorNdDescriptor(e->h, dt, 3, hdims, hstrides), st, fail);
    RNN_TRY_GOTO(cudnnGetRNNWeightSpaceSize(h, e->rnn, &e->weight_bytes), st, fail);
    RNN_TRY_GOTO(cudnnGetRNNTempSpaceSizes(h, e->rnn, CUDNN_FWD_MODE_TRAINING, e->x,
                                           &e->work_bytes, &e->reserve_bytes),
                 st, fail);
    free(lengths);
    *out = e;
    return KBV_OK;
fail:
    free(lengths);
    entry_free(e);
    return st;
}

static kbv_status entry_for(cudnnHandle_t h, const rnn_key *k, rnn_entry **out)
{
    for (size_t i = 0; i < rnn_cache_n; i++)
        if (!memcmp(&rnn_cache[i]->key, k, sizeof *k)) {
            *out = rnn_cache[i];
            return KBV_OK;
        }
    if (rnn_cache_n == rnn_cache_cap) {
        size_t cap = rnn_cache_cap ? 2 * rnn_cache_cap : 8;
        rnn_entry **grown = realloc(rnn_cache, cap * sizeof *grown);
        if (!grown)
            return kbv_fail(KBV_ERR_NOMEM, "cuDNN RNN: descriptor cache");
        rnn_cache = grown;
        rnn_cache_cap = cap;
    }
    rnn_entry *e = NULL;
    KBV_TRY(entry_make(h, k, &e));
    rnn_cache[rnn_cache_n++] = e;
    *out = e;
    return KBV_OK;
}

/* Where cuDNN keeps each matrix and bias in a weight space at `space`. */
static kbv_status entry_offsets(cudnnHandle_t h, rnn_entry *e, void *space)
{
    kbv_status st = KBV_OK;
    const int gates = e->key.lstm ? 4 : 3, pseudo = e->key.layers * e->key.dirs;
    const size_t n = (size_t)pseudo * 2 * (size_t)gates;
    cudnnTensorDescriptor_t md = NULL, bd = NULL;
    size_t *m_at = calloc(n, sizeof *m_at), *b_at = calloc(n, sizeof *b_at);
    if (!m_at || !b_at)
        KBV_FAIL_GOTO(st, done, KBV_ERR_NOMEM, "cuDNN RNN: %zu weight offsets", n);
    RNN_TRY_GOTO(cudnnCreateTensorDescriptor(&md), st, done);
    RNN_TRY_GOTO(cudnnCreateTensorDescriptor(&bd), st, done);
    for (int p = 0; p < pseudo; p++)
        for (int id = 0; id < 2 * gates; id++) {
            void *m = NULL, *b = NULL;
            RNN_TRY_GOTO(cudnnGetRNNWeightParams(h, e->rnn, p, e->weight_bytes, space, id, md,
                                                 &m, bd, &b),
                         st, done);
            if (!m || !b)
                KBV_FAIL_GOTO(st, done, KBV_ERR_CUDA,
                              "cuDNN RNN: no matrix or bias for layer %d, linear layer %d", p, id);
            m_at[(size_t)p * 2 * gates + id] = (size_t)((char *)m - (char *)space);
            b_at[(size_t)p * 2 * gates + id] = (size_t)((char *)b - (char *)space);
        }
    e->matrix_at = m_at;
    e->bias_at = b_at;
    m_at = b_at = NULL;
done:
    if (md)
        cudnnDestroyTensorDescriptor(md);
    if (bd)
        cudnnDestroyTensorDescriptor(bd);
    free(m_at);
    free(b_at);
    return st;
}

/* One PyTorch param (gates blocks of `block` bytes each) into the weight
 * space at the gates' offsets, one copy per run of blocks cuDNN keeps back
 * to back. */
static kbv_status copy_param(kbv_cuda *cu, const kbv_node *node, char *space,
                             const size_t *at, int gates, const char *src, size_t block)
{
    for (int g = 0; g < gates;) {
        int run = 1;
        while (g + run < gates && at[g + run] == at[g] + (size_t)run * block)
            run++;
        KBV_TRY(kbv_cuda_launched(cudaMemcpyAsync(space + at[g], src + (size_t)g * block,
                                                  (size_t)run * block, cudaMemcpyDeviceToDevice,
                                                  cu->stream),
                                  node));
        g += run;
    }
    return KBV_OK;
}

/* Every param of the node into the weight space. */
static kbv_status fill_weights(kbv_cuda *cu, const kbv_node *node, const rnn_entry *e,
                               const kbv_rnn_dims *r, const kbv_tensor *args, char *space,
                               size_t es)
{
    const int G = r->gates;
    const size_t H = (size_t)r->hidden;
    for (int l = 0; l < r->layers; l++)
        for (int d = 0; d < r->dirs; d++) {
            const size_t in = l == 0 ? (size_t)r->input : (size_t)r->dirs * H;
            const size_t base = (size_t)(l * r->dirs + d) * 2 * (size_t)G;
            const kbv_tensor *w_ih = &args[kbv_rnn_weight_arg(r, l, d, 0)];
            const kbv_tensor *w_hh = &args[kbv_rnn_weight_arg(r, l, d, 1)];
            const kbv_tensor *b_ih = &args[kbv_rnn_weight_arg(r, l, d, 2)];
            const kbv_tensor *b_hh = &args[kbv_rnn_weight_arg(r, l, d, 3)];
            KBV_TRY(copy_param(cu, node, space, e->matrix_at + base, G, w_ih->data, H * in * es));
            KBV_TRY(copy_param(cu, node, space, e->matrix_at + base + G, G, w_hh->data,
                               H * H * es));
            KBV_TRY(copy_param(cu, node, space, e->bias_at + base, G, b_ih->data, H * es));
            KBV_TRY(copy_param(cu, node, space, e->bias_at + base + G, G, b_hh->data, H * es));
        }
    return KBV_OK;
}

static bool fits_int(int64_t v) { return v >= 0 && v <= INT_MAX; }

kbv_status kbv_cuda_op_rnn(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                           kbv_tensor *out)
{
    kbv_cuda *cu = kbv_cuda_of(be);
    const char *op = kbv_cuda_op_name(node->op);
    int is_f64 = 0, f = 0;
    KBV_TRY(kbv_cuda_float_of(be, &args[0], &is_f64));
    const int states = node->op == KBV_OP_LSTM ? 2 : 1;
    if (node->n_args < 2 + states || args[2 + states].ndim != 2)
        return kbv_fail(KBV_ERR_INVALID, "%s: no 2-D weight_hh_l0 among %d operands", op,
                        node->n_args);
    kbv_rnn_dims r;
    KBV_TRY(kbv_rnn_dims_of(node->def, node->n_args, args[0].ndim, args[0].shape,
                            args[2 + states].shape[1], &r));
    for (int k = 0; k < node->n_args; k++) {
        KBV_TRY(kbv_cuda_float_of(be, &args[k], &f));
        if (f != is_f64 || !kbv_tensor_is_contiguous(&args[k]))
            return kbv_fail(KBV_ERR_UNSUPPORTED, "%s: operand %d is not contiguous in the "
                            "input's dtype", op, k);
    }
    const int64_t T = r.seq, B = r.batch, H = r.hidden, DH = r.dirs * r.hidden;
    const int64_t out_n = r.result == 0 ? T * B * DH : (int64_t)r.layers * r.dirs * B * H;
    KBV_TRY(kbv_cuda_check_out(out, out_n, args[0].dtype, op));
    if (!fits_int(T) || !fits_int(B) || !fits_int(r.input) || !fits_int(DH) ||
        !fits_int(r.layers * r.dirs * B * H) || T == 0 || B == 0)
        return kbv_fail(KBV_ERR_UNSUPPORTED, "%s: sizes beyond cuDNN's int (or empty): seq %lld, "
                        "batch %lld", op, (long long)T, (long long)B);
    const size_t es = is_f64 ? sizeof(double) : sizeof(float);
    const rnn_key k = {.device = cu->device, .lstm = r.is_lstm, .is_f64 = is_f64 != 0,
                       .strict = be->mode == KBV_MODE_FP32_STRICT, .batch_first = r.batch_first,
                       .layers = r.layers, .dirs = r.dirs, .seq = (int)T, .batch = (int)B,
                       .input = (int)r.input, .hidden = (int)H};

    kbv_status st = KBV_OK;
    void *space = NULL, *work = NULL, *reserve = NULL, *y_scratch = NULL;
    cudnnHandle_t h = NULL;
    KBV_TRY(kbv_cuda_dnn_acquire(cu, &h));
    rnn_entry *e = NULL;
    KBV_TRY_GOTO(entry_for(h, &k, &e), st, done);
    KBV_TRY_GOTO(be->alloc(be, e->weight_bytes, &space), st, done);
    if (!e->matrix_at)
        KBV_TRY_GOTO(entry_offsets(h, e, space), st, done);
    KBV_TRY_GOTO(fill_weights(cu, node, e, &r, args, space, es), st, done);
    if (e->work_bytes > 0)
        KBV_TRY_GOTO(be->alloc(be, e->work_bytes, &work), st, done);
    if (e->reserve_bytes > 0)
        KBV_TRY_GOTO(be->alloc(be, e->reserve_bytes, &reserve), st, done);
    void *y = out->data;
    if (r.result != 0) {
        KBV_TRY_GOTO(be->alloc(be, (size_t)(T * B * DH) * es, &y_scratch), st, done);
        y = y_scratch;
    }
    RNN_TRY_GOTO(cudnnRNNForward(h, e->rnn, CUDNN_FWD_MODE_TRAINING, NULL, e->x, args[0].data,
                                 e->y, y, e->h, args[1].data, r.result == 1 ? out->data : NULL,
                                 r.is_lstm ? e->h : NULL, r.is_lstm ? args[2].data : NULL,
                                 r.result == 2 ? out->data : NULL, e->weight_bytes, space,
                                 e->work_bytes, work, e->reserve_bytes, reserve),
                 st, done);
done:
    kbv_cuda_dnn_release();
    be->release(be, y_scratch);
    be->release(be, reserve);
    be->release(be, work);
    be->release(be, space);
    return st;
}
