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
    int kind;       /* KBV_CUDA_KIND_F32, _F64 or (kbv_cuda_operand_get_kind) _BF16 */
} kbv_cuda_operand;

/* The prologue for operand arg, a float tensor, and an output of out_numel
 * elements of out_dtype; on success the caller ends with
 * kbv_cuda_operand_release. */
kbv_status kbv_cuda_operand_get(kbv_backend *be, const kbv_node *node, const kbv_tensor *arg,
                                const kbv_tensor *out, int64_t out_numel, kbv_dtype out_dtype,
                                kbv_cuda_operand *op);
/* The same for an op whose kernels take bfloat16 too (their launchers take
 * a kind, cuda_launch.h): a bfloat16 operand is accepted in a bf16 backend
 * and op->kind says which; kbv_cuda_operand_get refuses it, so an op whose
 * kernels know float and double only never misreads one. */
kbv_status kbv_cuda_operand_get_kind(kbv_backend *be, const kbv_node *node,
                                     const kbv_tensor *arg, const kbv_tensor *out,
                                     int64_t out_numel, kbv_dtype out_dtype,
                                     kbv_cuda_operand *op);
/* The same for an operand of any dtype (layout ops): is_f64 is 0 unless it
 * is a float64 tensor. */
kbv_status kbv_cuda_operand_get_any(kbv_backend *be, const kbv_node *node, const kbv_tensor *arg,
                                    const kbv_tensor *out, int64_t out_numel,
                                    kbv_dtype out_dtype, kbv_cuda_operand *op);
void kbv_cuda_operand_release(kbv_backend *be, kbv_cuda_operand *op);

/* Node's dim attribute i[0] resolved against t's rank (negative counts from
 * the end). */
kbv_status kbv_cuda_resolve_dim(const kbv_node *node, const kbv_tensor *t, int *dim);
/* t as [outer, len, inner] around dim. */
void kbv_cuda_split_at(const kbv_tensor *t, int dim, int64_t *outer, int64_t *len,
                       int64_t *inner);
/* Scratch of `bytes` from the backend's allocator (NULL for 0): counted, as
 * PyTorch's kernels' buffers are; the caller releases it. */
kbv_status kbv_cuda_scratch(kbv_backend *be, size_t bytes, void **p);

#endif
