/* Facts about dtypes and tensor descriptors (kbv/candidate.h's kbv_dtype
 * and kbv_tensor) that every layer asks: one definition each. */
#ifndef KBV_TENSOR_H
#define KBV_TENSOR_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kbv/candidate.h"

#ifdef __cplusplus
extern "C" {
#endif

/* float32, float64, float16 and bfloat16. */
bool kbv_dtype_is_float(kbv_dtype dt);
/* Bytes per element; 0 for an unknown dtype. */
size_t kbv_dtype_size(kbv_dtype dt);
/* NumPy / PyTorch spelling: "float32", "bfloat16", "int64". */
const char *kbv_dtype_name(kbv_dtype dt);

/* Elements of t: the product of its shape, 1 for a 0-dim tensor. */
int64_t kbv_tensor_numel(const kbv_tensor *t);
/* Elements times the dtype's size. */
size_t kbv_tensor_bytes(const kbv_tensor *t);
/* Row-major contiguous: the strides of t's shape, ignoring dims of size 1
 * (whose stride walks nothing). */
bool kbv_tensor_is_contiguous(const kbv_tensor *t);

#ifdef __cplusplus
}
#endif

#endif
