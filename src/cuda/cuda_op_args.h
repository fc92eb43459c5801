/* The start and end every CUDA op of kbv's own kernels shares: the op's
 * name for messages, the launch check, and the operand prologue -- the
 * operand in the backend's float dtype, the output checked (contiguous,
 * element count, dtype), and a contiguous view of the operand, copied to
 * scratch when it is strided (PyTorch's kernels read contiguous memory). */
#ifndef KBV_CUDA_OP_ARGS_H
#define KBV_CUDA_OP_ARGS_H

#include "cuda/cuda_impl.h"

/* The op table's name of op, "op" when it has none. */
const char *kbv_cuda_op_name(kbv_op op);

/* A failed launch of node's kernel (cudaGetLastError) as a kbv_status. */
kbv_status kbv_cuda_launched(cudaError_t err, const kbv_node *node);

typedef struct kbv_cuda_operand {
    kbv_tensor x;   /* contiguous: the operand itself or its copy */
    void *copy;     /* the copy's scratch, NULL when the operand was contiguous */
    int is_f64;
} kbv_cuda_operand;

/* The prologue for operand arg and an output of out_numel elements of
 * out_dtype; on success the caller ends with kbv_cuda_operand_release. */
kbv_status kbv_cuda_operand_get(kbv_backend *be, const kbv_node *node, const kbv_tensor *arg,
                                const kbv_tensor *out, int64_t out_numel, kbv_dtype out_dtype,
                                kbv_cuda_operand *op);
void kbv_cuda_operand_release(kbv_backend *be, kbv_cuda_operand *op);

#endif
