#include "support/host_tensor.h"

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "graph/graph.h"

kbv_tensor kbv_test_tensor(kbv_dtype dt, int ndim, const int64_t *shape)
{
    kbv_tensor t;
    memset(&t, 0, sizeof t);
    t.dtype = dt;
    t.ndim = ndim;
    int64_t n = 1;
    for (int d = ndim - 1; d >= 0; d--) {
        t.shape[d] = shape[d];
        t.stride[d] = n;
        n *= shape[d];
    }
    t.data = calloc((size_t)(n ? n : 1), kbv_dtype_size(dt));
    assert_non_null(t.data);
    return t;
}

int64_t kbv_test_numel(const kbv_tensor *t)
{
    int64_t n = 1;
    for (int d = 0; d < t->ndim; d++)
        n *= t->shape[d];
    return n;
}

int64_t kbv_test_offset(const kbv_tensor *t, const int64_t *idx)
{
    int64_t off = 0;
    for (int d = 0; d < t->ndim; d++)
        off += idx[d] * t->stride[d];
    return off;
}
