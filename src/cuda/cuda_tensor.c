/* Tensor descriptors as the CUDA ops see them: the backend's float dtype,
 * broadcast layouts, contiguous copies of strided views, output checks
 * (element counts and contiguity are core/tensor.h's). */
#include "cuda/cuda_check.h"
#include "cuda/cuda_impl.h"
#include "graph/graph.h"

kbv_status kbv_cuda_float_kind(const kbv_backend *be, const kbv_tensor *t, int *kind)
{
    if (t->dtype != be->float_dtype)
        return kbv_fail(KBV_ERR_UNSUPPORTED, "%s: tensor %s is %s, expected %s", be->name,
                        t->name ? t->name : "(unnamed)", kbv_dtype_name(t->dtype),
                        kbv_dtype_name(be->float_dtype));
    *kind = t->dtype == KBV_F64    ? KBV_CUDA_KIND_F64
            : t->dtype == KBV_BF16 ? KBV_CUDA_KIND_BF16
                                   : KBV_CUDA_KIND_F32;
    return KBV_OK;
}

kbv_status kbv_cuda_float_of(const kbv_backend *be, const kbv_tensor *t, int *is_f64)
{
    /* an op that asks for float or double has no bf16 kernel: refuse, never misread */
    if (t->dtype == KBV_BF16)
        return kbv_fail(KBV_ERR_UNSUPPORTED, "%s: this op has no bfloat16 kernel (tensor %s)",
                        be->name, t->name ? t->name : "(unnamed)");
    int kind;
    KBV_TRY(kbv_cuda_float_kind(be, t, &kind));
    *is_f64 = kind == KBV_CUDA_KIND_F64;
    return KBV_OK;
}

kbv_status kbv_cuda_broadcast_layout(const kbv_tensor *t, int out_ndim, const int64_t *out_shape,
                                     kbv_cuda_layout *l)
{
    if (t->ndim > out_ndim || out_ndim > KBV_MAX_DIMS)
        return kbv_fail(KBV_ERR_INVALID, "broadcast of a %d-d tensor to %d dims", t->ndim,
                        out_ndim);
    l->ndim = out_ndim;
    for (int d = 0; d < out_ndim; d++) {
        int td = d - (out_ndim - t->ndim);
        l->shape[d] = out_shape[d];
        if (td < 0) {
            l->stride[d] = 0;
        } else if (t->shape[td] == out_shape[d]) {
            l->stride[d] = out_shape[d] == 1 ? 0 : t->stride[td];
        } else if (t->shape[td] == 1) {
            l->stride[d] = 0;
        } else {
            return kbv_fail(KBV_ERR_INVALID, "dim %d of size %lld does not broadcast to %lld", td,
                            (long long)t->shape[td], (long long)out_shape[d]);
        }
    }
    return KBV_OK;
}

kbv_status kbv_cuda_contiguous(kbv_backend *be, const kbv_tensor *t, kbv_tensor *copy,
                               void **scratch)
{
    *copy = *t;
    *scratch = NULL;
    if (kbv_tensor_is_contiguous(t))
        return KBV_OK;
    kbv_cuda *cu = kbv_cuda_of(be);
    size_t esize = kbv_dtype_size(t->dtype);
    int64_t n = kbv_tensor_numel(t);
    KBV_TRY(be->alloc(be, (size_t)n * esize, scratch));
    kbv_cuda_layout l;
    l.ndim = t->ndim;
    for (int d = 0; d < t->ndim; d++) {
        l.shape[d] = t->shape[d];
        l.stride[d] = t->stride[d];
    }
    cudaError_t err = kbv_cuda_launch_copy_strided(cu->stream, esize, t->data, &l, *scratch);
    if (err != cudaSuccess) {
        be->release(be, *scratch);
        *scratch = NULL;
        return KBV_CUDA_FAIL(err, "kbv_cuda_launch_copy_strided(contiguous copy)");
    }
    copy->data = *scratch;
    int64_t stride = 1;
    for (int d = t->ndim - 1; d >= 0; d--) {
        copy->stride[d] = stride;
        stride *= t->shape[d];
    }
    return KBV_OK;
}

kbv_status kbv_cuda_check_out(const kbv_tensor *out, int64_t n, kbv_dtype dtype, const char *op)
{
    if (out->dtype != dtype)
        return kbv_fail(KBV_ERR_INVALID, "%s: output is %s, expected %s", op,
                        kbv_dtype_name(out->dtype), kbv_dtype_name(dtype));
    if (kbv_tensor_numel(out) != n)
        return kbv_fail(KBV_ERR_INVALID, "%s: output has %lld elements, expected %lld", op,
                        (long long)kbv_tensor_numel(out), (long long)n);
    if (!kbv_tensor_is_contiguous(out))
        return kbv_fail(KBV_ERR_INVALID, "%s: output is not contiguous", op);
    if (n > 0 && !out->data)
        return kbv_fail(KBV_ERR_INVALID, "%s: output has no storage", op);
    return KBV_OK;
}
