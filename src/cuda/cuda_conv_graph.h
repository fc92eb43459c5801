/* Convolutions through cuDNN's graph (backend) API, beside the legacy v7
 * calls of cuda_conv.c: PyTorch 2.x reaches cuDNN 9 this way, and its
 * engine heuristics offer engines the legacy calls do not.
 *
 * One convolution is one operation graph (a CONVOLUTION_FORWARD operation,
 * or BACKWARD_DATA for a transposed one); its engine configurations come
 * from the heuristics (mode A, then the fallback list), filtered as
 * PyTorch filters them; the execution plan is chosen once per key and kept
 * for the life of the process. See cuda_conv_graph.c. */
#ifndef KBV_CUDA_CONV_GRAPH_H
#define KBV_CUDA_CONV_GRAPH_H

#include <stdint.h>

#include <cudnn.h>

#include "exec/backend.h"

/* Which cuDNN API runs a convolution. */
typedef enum kbv_cudnn_api {
    KBV_CUDNN_API_LEGACY = 0, /* the v7 calls alone */
    KBV_CUDNN_API_GRAPH,      /* the graph API alone: a shape it cannot run is an error */
    KBV_CUDNN_API_AUTO,       /* the graph API, the legacy calls where it has no plan */
} kbv_cudnn_api;

/* The API used when KBV_CUDNN_API is unset or unknown; the one place to
 * change it. Measured on an H200 beside PyTorch eager (fp32, kbv/torch):
 * L1/50 1.117 legacy, 1.081 graph; L1/56 1.047, 0.979; L1/62 1.112, 0.975;
 * L1/71 1.021, 0.966; L1/79 1.067, 0.963; L1/80 1.121, 0.971; L1/54 1.018,
 * 0.935; L1/63 1.004, 0.922 (bench/probes/conv_api.sh). So: the graph path,
 * with the legacy calls where it has no plan. */
#define KBV_CUDNN_API_DEFAULT KBV_CUDNN_API_AUTO

/* KBV_CUDNN_API=legacy|graph|auto from the environment (read at each call,
 * so a test may switch it), else KBV_CUDNN_API_DEFAULT. */
kbv_cudnn_api kbv_cuda_conv_api(void);

/* A convolution as cuDNN sees it, shared by both paths: nd tensor dims
 * (4 or 5; a 1-D one gets a height of 1), everything as int after the
 * batch split. For a transposed convolution x is the input (cuDNN's dy)
 * and y the output (dx). Compared with memcmp: zero it before filling. */
typedef struct kbv_conv_dnn_key {
    int device, transposed, is_f64, strict;
    int bf16;                        /* bfloat16 tensors with float compute (the bf16 mode) */
    int nd, groups;
    int x[5], w[5], y[5];
    int pad[3], stride[3], dil[3];
} kbv_conv_dnn_key;

/* y = conv(x, w) for k through the graph API on handle h (the device is
 * current, h is on the backend's stream); call with cuda_conv.c's cuDNN
 * lock held. The plan is chosen at the first call for k and the pointers'
 * alignment: the top KBV_CUDNN_GRAPH_PLANS (default 8) plans are timed on
 * these tensors (y is overwritten) and the fastest kept, as
 * torch.backends.cudnn.benchmark=True does; with KBV_CUDNN_GRAPH_PLANS=1,
 * or in float64, the first plan that builds is kept untimed, as the default
 * benchmark=False does. KBV_ERR_UNSUPPORTED when cuDNN has no plan for k
 * (remembered: later calls fail at once). The workspace comes from the
 * backend's allocator and goes back once the call is enqueued. */
kbv_status kbv_cuda_conv_graph_run(kbv_backend *be, cudnnHandle_t h, const kbv_conv_dnn_key *k,
                                   const void *x, const void *w, void *y);

/* Convolutions run through the graph API so far in this process (tests
 * check that the path was taken). */
uint64_t kbv_cuda_conv_graph_runs(void);

#endif
