#include "support/op_check.h"

#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>
#include <cmocka.h>

kbv_backend *kbv_test_backend(kbv_dtype dt)
{
    kbv_backend *be = NULL;
    assert_int_equal(kbv_cpu_backend_create(dt == KBV_F64 ? KBV_MODE_FP64 : KBV_MODE_FP32, &be),
                     KBV_OK);
    return be;
}

kbv_status kbv_test_run_op(kbv_backend *be, kbv_op op, const kbv_node_def *nd,
                           const kbv_tensor *args, int n_args, kbv_tensor *out)
{
    kbv_node node;
    memset(&node, 0, sizeof node);
    node.op = op;
    node.n_args = n_args;
    node.def = nd;
    return be->ops[op](be, &node, args, out);
}

/* Offset of flat index `flat` (row-major over t's shape) under t's strides. */
static int64_t offset_of(const kbv_tensor *t, int64_t flat)
{
    int64_t off = 0;
    for (int d = t->ndim - 1; d >= 0; d--) {
        off += (flat % t->shape[d]) * t->stride[d];
        flat /= t->shape[d];
    }
    return off;
}

double kbv_test_get(const kbv_tensor *t, int64_t flat)
{
    int64_t off = offset_of(t, flat);
    switch (t->dtype) {
    case KBV_F32: return ((const float *)t->data)[off];
    case KBV_F64: return ((const double *)t->data)[off];
    case KBV_I64: return (double)((const int64_t *)t->data)[off];
    default: fail_msg("dtype %d", (int)t->dtype); return 0;
    }
}

void kbv_test_set(kbv_tensor *t, int64_t flat, double v)
{
    int64_t off = offset_of(t, flat);
    switch (t->dtype) {
    case KBV_F32: ((float *)t->data)[off] = (float)v; break;
    case KBV_F64: ((double *)t->data)[off] = v; break;
    default: fail_msg("dtype %d", (int)t->dtype);
    }
}

void kbv_test_assert_close(double got, double ref, double tol, const char *what, int64_t at)
{
    if (isnan(ref)) {
        if (!isnan(got))
            fail_msg("%s [%lld]: got %.17g, expected NaN", what, (long long)at, got);
    } else if (isinf(ref) || isinf(got)) {
        if (got != ref)
            fail_msg("%s [%lld]: got %.17g, expected %.17g", what, (long long)at, got, ref);
    } else if (!(fabs(got - ref) <= tol * fmax(1.0, fabs(ref)))) {
        fail_msg("%s [%lld]: got %.17g, expected %.17g (tol %g)", what, (long long)at, got, ref,
                 tol);
    }
}

double kbv_test_tol(kbv_dtype dt) { return dt == KBV_F32 ? 4e-6 : 1e-13; }
