/* Dtype and tensor-descriptor facts (see tensor.h). */
#include "core/tensor.h"

bool kbv_dtype_is_float(kbv_dtype dt)
{
    return dt == KBV_F32 || dt == KBV_F64 || dt == KBV_F16 || dt == KBV_BF16;
}

size_t kbv_dtype_size(kbv_dtype dt)
{
    switch (dt) {
    case KBV_F32: return 4;
    case KBV_F64: return 8;
    case KBV_F16: return 2;
    case KBV_BF16: return 2;
    case KBV_I32: return 4;
    case KBV_I64: return 8;
    case KBV_BOOL: return 1;
    }
    return 0;
}

const char *kbv_dtype_name(kbv_dtype dt)
{
    switch (dt) {
    case KBV_F32: return "float32";
    case KBV_F64: return "float64";
    case KBV_F16: return "float16";
    case KBV_BF16: return "bfloat16";
    case KBV_I32: return "int32";
    case KBV_I64: return "int64";
    case KBV_BOOL: return "bool";
    }
    return "unknown";
}

int64_t kbv_tensor_numel(const kbv_tensor *t)
{
    int64_t n = 1;
    for (int d = 0; d < t->ndim; d++)
        n *= t->shape[d];
    return n;
}

size_t kbv_tensor_bytes(const kbv_tensor *t)
{
    return (size_t)kbv_tensor_numel(t) * kbv_dtype_size(t->dtype);
}

bool kbv_tensor_is_contiguous(const kbv_tensor *t)
{
    int64_t expect = 1;
    for (int d = t->ndim - 1; d >= 0; d--) {
        if (t->shape[d] != 1 && t->stride[d] != expect)
            return false;
        expect *= t->shape[d];
    }
    return true;
}
