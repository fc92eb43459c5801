/* Reductions over several dims (sum, mean, amax: bitmask dims, keepdim),
 * logsumexp, and adaptive average pooling on the CPU backend, float32 and
 * float64, against naive float64 references: every mask of a 3-D tensor, a
 * strided operand, NaN and infinities through amax and logsumexp (PyTorch's
 * max shift, 0 where the max is infinite), and adaptive windows where the
 * output size does not divide the input's. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "graph/ops_rules.h"
#include "support/host_tensor.h"
#include "support/op_check.h"

static const kbv_dtype both[2] = {KBV_F32, KBV_F64};

static uint64_t rng = 1;
static double uniform(double lo, double hi)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return lo + (hi - lo) * (double)(rng >> 11) * (1.0 / 9007199254740992.0);
}

/* The reference of one reduction over the elements x[i] with in_group(i). */
static double ref_reduce(kbv_op op, const double *v, int64_t n)
{
    double s = 0, m = -INFINITY;
    bool nan = false;
    for (int64_t i = 0; i < n; i++) {
        s += v[i];
        nan |= isnan(v[i]);
        m = v[i] > m ? v[i] : m;
    }
    switch (op) {
    case KBV_OP_SUM_DIMS: return s;
    case KBV_OP_MEAN_DIMS: return s / (double)n;
    case KBV_OP_AMAX_DIMS: return nan ? NAN : m;
    default: {
        if (nan)
            return NAN;
        double shift = isinf(m) ? 0 : m, e = 0;
        for (int64_t i = 0; i < n; i++)
            e += exp(v[i] - shift);
        return log(e) + shift;
    }
    }
}

/* x [3, 4, 5], as a contiguous tensor or as a permuted view of [5, 3, 4]
 * storage; every mask, keepdim both ways. */
static void test_reduce_dims(void **state)
{
    (void)state;
    const int64_t shape[3] = {3, 4, 5}, storage_shape[3] = {5, 3, 4};
    const kbv_op ops[4] = {KBV_OP_SUM_DIMS, KBV_OP_MEAN_DIMS, KBV_OP_AMAX_DIMS,
                           KBV_OP_LOGSUMEXP};
    for (int t = 0; t < 2; t++) {
        kbv_dtype dt = both[t];
        kbv_backend *be = kbv_test_backend(dt);
        for (int strided = 0; strided < 2; strided++) {
            kbv_tensor store = kbv_test_tensor(dt, 3, strided ? storage_shape : shape);
            kbv_tensor x = store;
            if (strided) { /* x[i][j][k] = store[k][i][j] */
                for (int d = 0; d < 3; d++)
                    x.shape[d] = shape[d];
                x.stride[0] = 4;
                x.stride[1] = 1;
                x.stride[2] = 12;
            }
            rng = 5 + (uint64_t)strided;
            for (int64_t i = 0; i < 60; i++)
                kbv_test_set(&x, i, (double)(float)uniform(-3, 3));
            for (int o = 0; o < 4; o++)
                for (unsigned mask = 1; mask < 8; mask++)
                    for (int keep = 0; keep < 2; keep++) {
                        if (ops[o] == KBV_OP_LOGSUMEXP && (mask & (mask - 1)))
                            continue; /* one dim */
                        kbv_node_def nd = {.op = ops[o]};
                        nd.i[0] = ops[o] == KBV_OP_LOGSUMEXP ? (mask == 1 ? 0 : mask == 2 ? -2 : 2)
                                                             : (int64_t)mask;
                        nd.i[1] = keep;
                        int64_t oshape[3];
                        int ond = 0;
                        for (int d = 0; d < 3; d++)
                            if (!((mask >> d) & 1))
                                oshape[ond++] = shape[d];
                            else if (keep)
                                oshape[ond++] = 1;
                        kbv_tensor y = kbv_test_tensor(dt, ond, oshape);
                        assert_int_equal(kbv_test_run_op(be, ops[o], &nd, &x, 1, &y), KBV_OK);
                        int64_t ny = kbv_test_numel(&y);
                        for (int64_t e = 0; e < ny; e++) {
                            /* the kept coordinates of e, the others walked */
                            double v[60];
                            int64_t n = 0;
                            for (int64_t i = 0; i < 60; i++) {
                                int64_t c[3] = {i / 20, (i / 5) % 4, i % 5}, rest = e;
                                bool in = true;
                                for (int d = 2; d >= 0; d--) {
                                    if ((mask >> d) & 1)
                                        continue; /* size 1 in y, or absent */
                                    in &= c[d] == rest % shape[d];
                                    rest /= shape[d];
                                }
                                if (in)
                                    v[n++] = kbv_test_get(&x, i);
                            }
                            double want = ref_reduce(ops[o], v, n);
                            kbv_test_assert_close(kbv_test_get(&y, e), want,
                                                  8 * kbv_test_tol(dt), be->name, e);
                        }
                        free(y.data);
                    }
            free(store.data);
        }
        kbv_backend_destroy(be);
    }
}

/* Rows with NaN, -inf, +inf and a large offset through amax and logsumexp. */
static void test_reduce_specials(void **state)
{
    (void)state;
    static const double rows[5][4] = {
        {1, NAN, 2, 3},
        {-INFINITY, -INFINITY, -INFINITY, -INFINITY},
        {-INFINITY, 1, 2, -INFINITY},
        {INFINITY, 1, 2, 3},
        {1000, 1001, 999, 1000.5},
    };
    const int64_t shape[2] = {5, 4}, out_shape[1] = {5};
    for (int t = 0; t < 2; t++) {
        kbv_dtype dt = both[t];
        kbv_backend *be = kbv_test_backend(dt);
        kbv_tensor x = kbv_test_tensor(dt, 2, shape), y = kbv_test_tensor(dt, 1, out_shape);
        for (int64_t i = 0; i < 20; i++)
            kbv_test_set(&x, i, rows[i / 4][i % 4]);
        const kbv_op ops[2] = {KBV_OP_AMAX_DIMS, KBV_OP_LOGSUMEXP};
        for (int o = 0; o < 2; o++) {
            kbv_node_def nd = {.op = ops[o], .i = {ops[o] == KBV_OP_LOGSUMEXP ? -1 : 2, 0}};
            assert_int_equal(kbv_test_run_op(be, ops[o], &nd, &x, 1, &y), KBV_OK);
            for (int r = 0; r < 5; r++)
                kbv_test_assert_close(kbv_test_get(&y, r), ref_reduce(ops[o], rows[r], 4),
                                      4 * kbv_test_tol(dt), be->name, r);
        }
        /* logsumexp of the large row stays finite: the max shift */
        assert_true(isfinite(kbv_test_get(&y, 4)) && kbv_test_get(&y, 4) > 1001);
        free(x.data);
        free(y.data);
        kbv_backend_destroy(be);
    }
}

/* The window of output i along in -> out, by PyTorch's formulas in floats. */
static void window(int64_t i, int64_t in, int64_t out, int64_t *lo, int64_t *hi)
{
    *lo = (int64_t)floor((double)(i * in) / (double)out);
    *hi = (int64_t)ceil((double)((i + 1) * in) / (double)out);
}

static void test_adaptive_pool(void **state)
{
    (void)state;
    static const struct {
        kbv_op op;
        int ndim;
        int64_t in[5], out[5];
        const char *s;
    } cases[] = {
        {KBV_OP_ADAPTIVE_AVG_POOL1D, 3, {2, 3, 7}, {2, 3, 3}, "output_size=3"},
        {KBV_OP_ADAPTIVE_AVG_POOL1D, 2, {3, 5}, {3, 8}, "output_size=8"}, /* out > in */
        {KBV_OP_ADAPTIVE_AVG_POOL2D, 4, {2, 2, 5, 7}, {2, 2, 3, 2}, "output_size=(3, 2)"},
        {KBV_OP_ADAPTIVE_AVG_POOL2D, 4, {1, 3, 6, 4}, {1, 3, 1, 1}, "output_size=(1, 1)"},
        {KBV_OP_ADAPTIVE_AVG_POOL2D, 4, {1, 2, 6, 4}, {1, 2, 6, 3}, "output_size=(None, 3)"},
        {KBV_OP_ADAPTIVE_AVG_POOL3D, 5, {1, 2, 5, 4, 3}, {1, 2, 2, 3, 2},
         "output_size=(2, 3, 2)"},
    };
    for (int t = 0; t < 2; t++) {
        kbv_dtype dt = both[t];
        kbv_backend *be = kbv_test_backend(dt);
        for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
            kbv_tensor x = kbv_test_tensor(dt, cases[c].ndim, cases[c].in);
            kbv_tensor y = kbv_test_tensor(dt, cases[c].ndim, cases[c].out);
            rng = 17 + c;
            int64_t nx = kbv_test_numel(&x), ny = kbv_test_numel(&y);
            for (int64_t i = 0; i < nx; i++)
                kbv_test_set(&x, i, (double)(float)uniform(-2, 2));
            kbv_node_def nd = {.op = cases[c].op, .s = cases[c].s};
            assert_int_equal(kbv_test_run_op(be, cases[c].op, &nd, &x, 1, &y), KBV_OK);
            const int nd_ = cases[c].ndim, spatial = cases[c].op - KBV_OP_ADAPTIVE_AVG_POOL1D + 1;
            for (int64_t e = 0; e < ny; e++) {
                int64_t yi[5], rest = e;
                for (int d = nd_ - 1; d >= 0; d--) {
                    yi[d] = rest % cases[c].out[d];
                    rest /= cases[c].out[d];
                }
                double s = 0;
                int64_t n = 0;
                for (int64_t i = 0; i < nx; i++) {
                    int64_t r = i;
                    bool in = true;
                    for (int d = nd_ - 1; d >= 0; d--) {
                        int64_t xi = r % cases[c].in[d];
                        r /= cases[c].in[d];
                        if (d < nd_ - spatial) {
                            in &= xi == yi[d];
                        } else {
                            int64_t lo, hi;
                            window(yi[d], cases[c].in[d], cases[c].out[d], &lo, &hi);
                            in &= xi >= lo && xi < hi;
                        }
                    }
                    if (in) {
                        s += kbv_test_get(&x, i);
                        n++;
                    }
                }
                kbv_test_assert_close(kbv_test_get(&y, e), s / (double)n, 4 * kbv_test_tol(dt),
                                      cases[c].s, e);
            }
            free(x.data);
            free(y.data);
        }
        kbv_backend_destroy(be);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reduce_dims),
        cmocka_unit_test(test_reduce_specials),
        cmocka_unit_test(test_adaptive_pool),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
