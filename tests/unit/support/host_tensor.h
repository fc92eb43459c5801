/* Host tensors for the op tests: zeroed, contiguous, freed with free(t.data). */
#ifndef KBV_TEST_HOST_TENSOR_H
#define KBV_TEST_HOST_TENSOR_H

#include <stdint.h>

#include "kbv/candidate.h"

kbv_tensor kbv_test_tensor(kbv_dtype dt, int ndim, const int64_t *shape);
int64_t kbv_test_numel(const kbv_tensor *t);
/* Element offset of the index idx[0..ndim) under t's strides. */
int64_t kbv_test_offset(const kbv_tensor *t, const int64_t *idx);

#endif
