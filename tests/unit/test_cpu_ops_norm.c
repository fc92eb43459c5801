/* The normalisation, reduction, scan, loss and attention ops of the CPU
 * backend in float32 and float64 against naive float64 references written
 * here (PyTorch's semantics: biased variance, first index on ties, NaN
 * propagation, xlogy, eps inside pairwise distances), and the float16 and
 * derived-input services they rely on (fill, convert, compare). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "cpu/cpu_half.h"
#include "exec/backend.h"
#include "support/host_tensor.h"
#include "graph/ops_table.h"

/* ---- tensors: malloc'd, contiguous unless a view ---- */




static double get_off(const kbv_tensor *t, int64_t off)
{
    switch (t->dtype) {
    case KBV_F32: return ((float *)t->data)[off];
    case KBV_F64: return ((double *)t->data)[off];
    case KBV_F16: return kbv_half_to_double(((uint16_t *)t->data)[off]);
    case KBV_I64: return (double)((int64_t *)t->data)[off];
    case KBV_BOOL: return ((unsigned char *)t->data)[off];
    default: fail_msg("dtype"); return 0;
    }
}

static double get_at(const kbv_tensor *t, const int64_t *idx) { return get_off(t, kbv_test_offset(t, idx)); }

static void set_off(kbv_tensor *t, int64_t off, double v)
{
    switch (t->dtype) {
    case KBV_F32: ((float *)t->data)[off] = (float)v; break;
    case KBV_F64: ((double *)t->data)[off] = v; break;
    case KBV_F16: ((uint16_t *)t->data)[off] = kbv_half_from_double(v); break;
    case KBV_I64: ((int64_t *)t->data)[off] = (int64_t)v; break;
    case KBV_BOOL: ((unsigned char *)t->data)[off] = v != 0; break;
    default: fail_msg("dtype");
    }
}

static void set_at(kbv_tensor *t, const int64_t *idx, double v) { set_off(t, kbv_test_offset(t, idx), v); }

static bool next_index(int64_t *idx, const int64_t *shape, int ndim)
{
    for (int d = ndim - 1; d >= 0; d--) {
        if (++idx[d] < shape[d])
            return true;
        idx[d] = 0;
    }
    return false;
}

static uint64_t rng_state;
static double uniform(double lo, double hi)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return lo + (hi - lo) * (double)(rng_state >> 11) * (1.0 / 9007199254740992.0);
}

/* Values exactly representable in float32, so both dtypes see the same input. */
static void fill_uniform(kbv_tensor *t, double lo, double hi)
{
    for (int64_t i = 0; i < kbv_test_numel(t); i++)
        set_off(t, i, (double)(float)uniform(lo, hi));
}

static kbv_status run_op(kbv_backend *be, kbv_op op, const kbv_node_def *nd,
                         const kbv_tensor *args, int n_args, kbv_tensor *out)
{
    kbv_node node;
    memset(&node, 0, sizeof node);
    node.op = op;
    node.n_args = n_args;
    node.def = nd;
    return be->ops[op](be, &node, args, out);
}

static kbv_backend *backend(kbv_dtype dt)
{
    kbv_backend *be = NULL;
    assert_int_equal(kbv_cpu_backend_create(dt == KBV_F64 ? KBV_MODE_FP64 : KBV_MODE_FP32, &be),
                     KBV_OK);
    return be;
}

static void assert_close(double got, double ref, double tol)
{
    if (isnan(ref)) {
        if (!isnan(got))
            fail_msg("got %.17g, expected NaN", got);
    } else if (isinf(ref)) {
        assert_true(got == ref);
    } else if (!(fabs(got - ref) <= tol * fmax(1.0, fabs(ref)))) {
        fail_msg("got %.17g, expected %.17g (tol %g)", got, ref, tol);
    }
}

static double tol_of(kbv_dtype dt) { return dt == KBV_F32 ? 2e-6 : 1e-13; }

static const kbv_dtype both[2] = {KBV_F32, KBV_F64};

static void free_all(kbv_tensor *ts, int n)
{
    for (int k = 0; k < n; k++)
        free(ts[k].data);
}

/* ---- normalisation ---- */

/* Reference: mean and biased variance over the elements where group(i) == g. */
static void ref_norm(const kbv_tensor *x, const int64_t *group_of, int64_t groups, double eps,
                     double *mean, double *invstd)
{
    int64_t n = kbv_test_numel(x);
    for (int64_t g = 0; g < groups; g++) {
        double s = 0, c = 0, q = 0;
        for (int64_t i = 0; i < n; i++)
            if (group_of[i] == g) {
                s += get_off(x, i);
                c++;
            }
        mean[g] = s / c;
        for (int64_t i = 0; i < n; i++)
            if (group_of[i] == g)
                q += (get_off(x, i) - mean[g]) * (get_off(x, i) - mean[g]);
        invstd[g] = 1.0 / sqrt(q / c + eps);
    }
}

static void test_norms(void **state)
{
    (void)state;
    const int64_t N = 3, C = 4, H = 5, W = 3, S = H * W, G = 2;
    const int64_t shape[4] = {N, C, H, W};
    const kbv_op ops[4] = {KBV_OP_BATCH_NORM, KBV_OP_INSTANCE_NORM, KBV_OP_GROUP_NORM,
                           KBV_OP_LAYER_NORM};
    for (int t = 0; t < 2; t++) {
        kbv_dtype dt = both[t];
        kbv_backend *be = backend(dt);
        for (int o = 0; o < 4; o++) {
            kbv_op op = ops[o];
            kbv_tensor x = kbv_test_tensor(dt, 4, shape), y = kbv_test_tensor(dt, 4, shape);
            /* layer norm's affine covers the trailing (C, H, W) dims */
            int64_t wshape[3] = {C, H, W};
            kbv_tensor w = op == KBV_OP_LAYER_NORM ? kbv_test_tensor(dt, 3, wshape) : kbv_test_tensor(dt, 1, &C);
            kbv_tensor b = op == KBV_OP_LAYER_NORM ? kbv_test_tensor(dt, 3, wshape) : kbv_test_tensor(dt, 1, &C);
            rng_state = 11 + (uint64_t)o;
            fill_uniform(&x, -2, 3);
            fill_uniform(&w, 0.5, 2);
            fill_uniform(&b, -1, 1);
            kbv_node_def nd;
            memset(&nd, 0, sizeof nd);
            nd.f[0] = 1e-5;
            nd.i[0] = G;
            kbv_tensor args[3] = {x, w, b};
            assert_int_equal(run_op(be, op, &nd, args, op == KBV_OP_INSTANCE_NORM ? 1 : 3, &y),
                             KBV_OK);

            int64_t n = kbv_test_numel(&x), groups = 0;
            int64_t *group_of = malloc(sizeof *group_of * (size_t)n);
            for (int64_t i = 0; i < n; i++) {
                int64_t ni = i / (C * S), c = (i / S) % C;
                switch (op) {
                case KBV_OP_BATCH_NORM: group_of[i] = c; groups = C; break;
                case KBV_OP_INSTANCE_NORM: group_of[i] = ni * C + c; groups = N * C; break;
                case KBV_OP_GROUP_NORM: group_of[i] = ni * G + c / (C / G); groups = N * G; break;
                default: group_of[i] = ni; groups = N; break;
                }
            }
            double mean[64], invstd[64];
            ref_norm(&x, group_of, groups, 1e-5, mean, invstd);
            for (int64_t i = 0; i < n; i++) {
                int64_t g = group_of[i], c = (i / S) % C;
                double v = (get_off(&x, i) - mean[g]) * invstd[g];
                if (op == KBV_OP_LAYER_NORM)
                    v = v * get_off(&w, i % (C * S)) + get_off(&b, i % (C * S));
                else if (op != KBV_OP_INSTANCE_NORM)
                    v = v * get_off(&w, c) + get_off(&b, c);
                assert_close(get_off(&y, i), v, 4 * tol_of(dt));
            }
            free(group_of);
            kbv_tensor all[4] = {x, y, w, b};
            free_all(all, 4);
        }
        kbv_backend_destroy(be);
    }
}

static void test_norm_constant_input(void **state)
{
    (void)state;
    /* zero variance: (x - mean) = 0 exactly, so the output is the bias */
    kbv_backend *be = backend(KBV_F32);
    int64_t shape[3] = {2, 3, 4}, c = 3;
    kbv_tensor x = kbv_test_tensor(KBV_F32, 3, shape), y = kbv_test_tensor(KBV_F32, 3, shape);
    kbv_tensor w = kbv_test_tensor(KBV_F32, 1, &c), b = kbv_test_tensor(KBV_F32, 1, &c);
    for (int64_t i = 0; i < 24; i++)
        set_off(&x, i, 7.0);
    for (int64_t i = 0; i < 3; i++) {
        set_off(&w, i, 2.0);
        set_off(&b, i, (double)i);
    }
    kbv_node_def nd = {.f = {1e-5}};
    kbv_tensor args[3] = {x, w, b};
    assert_int_equal(run_op(be, KBV_OP_BATCH_NORM, &nd, args, 3, &y), KBV_OK);
    for (int64_t i = 0; i < 24; i++)
        assert_true(get_off(&y, i) == (double)((i / 4) % 3));
    kbv_tensor all[4] = {x, y, w, b};
    free_all(all, 4);
    kbv_backend_destroy(be);
}

/* ---- reductions ---- */

static double ref_reduce(kbv_op op, const double *v, int64_t n, int64_t *index)
{
    double acc = 0;
    int64_t best = 0;
    for (int64_t k = 0; k < n; k++) {
        acc += op == KBV_OP_NORM_DIM ? v[k] * v[k] : v[k];
        if (isnan(v[best]))
            continue;
        if (isnan(v[k]) || (op == KBV_OP_MAX || op == KBV_OP_ARGMAX ? v[k] > v[best] : v[k] < v[best]))
            best = k;
    }
    *index = best;
    switch (op) {
    case KBV_OP_SUM: return acc;
    case KBV_OP_MEAN: return acc / (double)n;
    case KBV_OP_NORM_DIM: return sqrt(acc);
    case KBV_OP_ARGMAX:
    case KBV_OP_ARGMIN: return (double)best;
    default: return v[best];
    }
}

static void test_reductions_along_dim(void **state)
{
    (void)state;
    const kbv_op ops[] = {KBV_OP_SUM,    KBV_OP_MEAN,   KBV_OP_MAX,     KBV_OP_MIN,
                          KBV_OP_ARGMAX, KBV_OP_ARGMIN, KBV_OP_NORM_DIM};
    const int64_t shape[3] = {3, 5, 4};
    for (int t = 0; t < 2; t++) {
        kbv_dtype dt = both[t];
        kbv_backend *be = backend(dt);
        kbv_tensor x = kbv_test_tensor(dt, 3, shape);
        rng_state = 5;
        fill_uniform(&x, -3, 3);
        /* ties: the first index must win */
        int64_t tie_a[3] = {0, 1, 2}, tie_b[3] = {0, 3, 2};
        set_at(&x, tie_a, 9.0);
        set_at(&x, tie_b, 9.0);
        /* a NaN wins max/min and its index wins argmax/argmin */
        int64_t nan_at[3] = {2, 2, 1};
        set_at(&x, nan_at, NAN);
        for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++)
            for (int dim = -1; dim < 3; dim++)
                for (int keep = 0; keep < 2; keep++) {
                    int d = dim < 0 ? dim + 3 : dim;
                    int64_t oshape[3];
                    int on = 0;
                    for (int k = 0; k < 3; k++)
                        if (k != d || keep)
                            oshape[on++] = k == d ? 1 : shape[k];
                    bool is_index = ops[o] == KBV_OP_ARGMAX || ops[o] == KBV_OP_ARGMIN;
                    kbv_tensor y = kbv_test_tensor(is_index ? KBV_I64 : dt, on, oshape);
                    kbv_node_def nd = {.i = {dim, keep}};
                    assert_int_equal(run_op(be, ops[o], &nd, &x, 1, &y), KBV_OK);
                    int64_t idx[3] = {0, 0, 0};
                    do {
                        if (idx[d] != 0)
                            continue;
                        double line[8];
                        int64_t j[3] = {idx[0], idx[1], idx[2]};
                        for (int64_t k = 0; k < shape[d]; k++) {
                            j[d] = k;
                            line[k] = get_at(&x, j);
                        }
                        int64_t best;
                        double want = ref_reduce(ops[o], line, shape[d], &best);
                        int64_t oidx[3];
                        for (int k = 0, s = 0; k < 3; k++)
                            if (k != d || keep)
                                oidx[s++] = k == d ? 0 : idx[k];
                        assert_close(get_at(&y, oidx), want, tol_of(dt));
                    } while (next_index(idx, shape, 3));
                    free(y.data);
                }
        free(x.data);
        kbv_backend_destroy(be);
    }
}

/* F.normalize along each dim, of a strided view too: x / max(||x||, eps)
 * per line, a zero line staying zero (0 / eps) and a NaN line NaN. */
static void test_normalize(void **state)
{
    (void)state;
    const int64_t shape[3] = {3, 5, 4};
    for (int t = 0; t < 2; t++) {
        kbv_dtype dt = both[t];
        kbv_backend *be = backend(dt);
        kbv_tensor x = kbv_test_tensor(dt, 3, shape);
        rng_state = 9;
        fill_uniform(&x, -3, 3);
        for (int64_t k = 0; k < 4; k++) { /* the line x[1, 2, :] is zero */
            int64_t at[3] = {1, 2, k};
            set_at(&x, at, 0.0);
        }
        int64_t nan_at[3] = {2, 2, 1};
        set_at(&x, nan_at, NAN);
        for (int dim = -1; dim < 3; dim++) {
            int d = dim < 0 ? dim + 3 : dim;
            kbv_tensor y = kbv_test_tensor(dt, 3, shape);
            kbv_node_def nd = {.i = {dim}, .f = {1e-12}};
            assert_int_equal(run_op(be, KBV_OP_NORMALIZE, &nd, &x, 1, &y), KBV_OK);
            int64_t idx[3] = {0, 0, 0};
            do {
                int64_t j[3] = {idx[0], idx[1], idx[2]};
                double acc = 0;
                for (int64_t k = 0; k < shape[d]; k++) {
                    j[d] = k;
                    acc += get_at(&x, j) * get_at(&x, j);
                }
                double norm = sqrt(acc);
                double want = get_at(&x, idx) / (isnan(norm) || norm > 1e-12 ? norm : 1e-12);
                if (isnan(want))
                    assert_true(isnan(get_at(&y, idx)));
                else
                    assert_close(get_at(&y, idx), want, tol_of(dt));
            } while (next_index(idx, shape, 3));
            free(y.data);
        }
        /* a transposed view [4, 5] of a [5, 4] block, normalised along dim 0 */
        int64_t s2[2] = {5, 4}, t2[2] = {4, 5};
        kbv_tensor m = kbv_test_tensor(dt, 2, s2), mt = m, y = kbv_test_tensor(dt, 2, t2);
        fill_uniform(&m, -2, 2);
        mt.shape[0] = 4;
        mt.shape[1] = 5;
        mt.stride[0] = 1;
        mt.stride[1] = 4;
        kbv_node_def nd = {.i = {0}, .f = {1e-12}};
        assert_int_equal(run_op(be, KBV_OP_NORMALIZE, &nd, &mt, 1, &y), KBV_OK);
        for (int64_t c = 0; c < 5; c++) {
            double acc = 0;
            for (int64_t r = 0; r < 4; r++)
                acc += get_off(&m, c * 4 + r) * get_off(&m, c * 4 + r);
            for (int64_t r = 0; r < 4; r++) {
                int64_t at[2] = {r, c};
                assert_close(get_at(&y, at), get_off(&m, c * 4 + r) / sqrt(acc), tol_of(dt));
            }
        }
        free(m.data);
        free(y.data);
        free(x.data);
        kbv_backend_destroy(be);
    }
}

static void test_reduction_of_a_view(void **state)
{
    (void)state;
    /* a transposed view: sum along dim 1 of x^T is the sum along dim 0 of x */
    kbv_backend *be = backend(KBV_F64);
    int64_t shape[2] = {3, 4};
    kbv_tensor x = kbv_test_tensor(KBV_F64, 2, shape);
    for (int64_t i = 0; i < 12; i++)
        set_off(&x, i, (double)(i * i));
    kbv_tensor v = x;
    v.shape[0] = 4;
    v.shape[1] = 3;
    v.stride[0] = 1;
    v.stride[1] = 4;
    int64_t four = 4;
    kbv_tensor y = kbv_test_tensor(KBV_F64, 1, &four);
    kbv_node_def nd = {.i = {1, 0}};
    assert_int_equal(run_op(be, KBV_OP_SUM, &nd, &v, 1, &y), KBV_OK);
    for (int64_t c = 0; c < 4; c++)
        assert_true(get_off(&y, c) == (double)(c * c + (c + 4) * (c + 4) + (c + 8) * (c + 8)));
    free(x.data);
    free(y.data);
    kbv_backend_destroy(be);
}

static void test_reduce_all(void **state)
{
    (void)state;
    for (int t = 0; t < 2; t++) {
        kbv_dtype dt = both[t];
        kbv_backend *be = backend(dt);
        int64_t shape[3] = {2, 7, 5};
        kbv_tensor x = kbv_test_tensor(dt, 3, shape), y = kbv_test_tensor(dt, 0, NULL);
        rng_state = 9;
        fill_uniform(&x, -1, 2);
        double sum = 0, sq = 0;
        for (int64_t i = 0; i < 70; i++) {
            sum += get_off(&x, i);
            sq += get_off(&x, i) * get_off(&x, i);
        }
        kbv_node_def nd = {0};
        assert_int_equal(run_op(be, KBV_OP_MEAN_ALL, &nd, &x, 1, &y), KBV_OK);
        assert_close(get_off(&y, 0), sum / 70, tol_of(dt));
        assert_int_equal(run_op(be, KBV_OP_NORM_FRO, &nd, &x, 1, &y), KBV_OK);
        assert_close(get_off(&y, 0), sqrt(sq), tol_of(dt));
        set_off(&x, 3, INFINITY);
        assert_int_equal(run_op(be, KBV_OP_NORM_FRO, &nd, &x, 1, &y), KBV_OK);
        assert_true(isinf(get_off(&y, 0)));
        free(x.data);
        free(y.data);
        kbv_backend_destroy(be);
    }
}

/* ---- pointwise ---- */

static void test_pointwise(void **state)
{
    (void)state;
    static const double xs[] = {-INFINITY, -2.5, -1, -0.0, 0.0, 0.25, 1, 3, 1e20, INFINITY, NAN};
    const int n = (int)(sizeof xs / sizeof xs[0]);
    for (int t = 0; t < 2; t++) {
        kbv_dtype dt = both[t];
        kbv_backend *be = backend(dt);
        int64_t len = n;
        kbv_tensor x = kbv_test_tensor(dt, 1, &len), y = kbv_test_tensor(dt, 1, &len);
        for (int i = 0; i < n; i++)
            set_off(&x, i, xs[i]);
        static const double exps[] = {2.0, 3.0, 0.5, -0.5, -1.0, -2.0, 2.5};
        for (size_t e = 0; e < sizeof exps / sizeof exps[0]; e++) {
            kbv_node_def nd = {.f = {exps[e]}};
            assert_int_equal(run_op(be, KBV_OP_POW_SCALAR, &nd, &x, 1, &y), KBV_OK);
            for (int i = 0; i < n; i++) {
                /* PyTorch takes roots for +-0.5: sqrt(-inf) is NaN where pow gives inf */
                double v = get_off(&x, i);
                double want = exps[e] == 0.5    ? sqrt(v)
                              : exps[e] == -0.5 ? 1.0 / sqrt(v)
                                                : pow(v, exps[e]);
                if (dt == KBV_F32) /* float32 overflows to inf (1e20 ** 2, 3, 2.5) */
                    want = (double)(float)want;
                assert_close(get_off(&y, i), want, 1e-6);
            }
        }
        kbv_node_def none = {0};
        assert_int_equal(run_op(be, KBV_OP_SQRT, &none, &x, 1, &y), KBV_OK);
        for (int i = 0; i < n; i++)
            assert_close(get_off(&y, i), sqrt(get_off(&x, i)), 1e-6);
        assert_int_equal(run_op(be, KBV_OP_LOG, &none, &x, 1, &y), KBV_OK);
        for (int i = 0; i < n; i++)
            assert_close(get_off(&y, i), log(get_off(&x, i)), 1e-6);
        kbv_node_def one = {.f = {1.0}};
        assert_int_equal(run_op(be, KBV_OP_RSUB_SCALAR, &one, &x, 1, &y), KBV_OK);
        for (int i = 0; i < n; i++)
            assert_close(get_off(&y, i), 1.0 - get_off(&x, i), 1e-6);
        kbv_node_def zero = {.f = {0.0}};
        assert_int_equal(run_op(be, KBV_OP_CLAMP_MIN, &zero, &x, 1, &y), KBV_OK);
        for (int i = 0; i < n; i++) {
            double v = get_off(&x, i);
            assert_close(get_off(&y, i), isnan(v) ? v : (v < 0 ? 0.0 : v), 0);
        }
        free(x.data);
        free(y.data);
        kbv_backend_destroy(be);
    }
}

static void test_mul_mask(void **state)
{
    (void)state;
    for (int t = 0; t < 2; t++) {
        kbv_dtype dt = both[t];
        kbv_backend *be = backend(dt);
        int64_t shape[2] = {3, 4}, row = 4;
        kbv_tensor x = kbv_test_tensor(dt, 2, shape), y = kbv_test_tensor(dt, 2, shape);
        kbv_tensor mask = kbv_test_tensor(KBV_BOOL, 2, shape), mrow = kbv_test_tensor(KBV_BOOL, 1, &row);
        rng_state = 3;
        fill_uniform(&x, -2, 2);
        set_off(&x, 5, INFINITY);
        for (int64_t i = 0; i < 12; i++)
            set_off(&mask, i, (double)(i % 3 == 0));
        set_off(&mask, 5, 0.0);
        kbv_node_def nd = {0};
        kbv_tensor args[2] = {x, mask};
        assert_int_equal(run_op(be, KBV_OP_MUL_MASK, &nd, args, 2, &y), KBV_OK);
        for (int64_t i = 0; i < 12; i++)
            assert_close(get_off(&y, i), get_off(&x, i) * get_off(&mask, i), 0);
        assert_true(isnan(get_off(&y, 5))); /* inf * false is NaN, as in PyTorch */
        /* a broadcast row mask */
        for (int64_t i = 0; i < 4; i++)
            set_off(&mrow, i, (double)(i & 1));
        args[1] = mrow;
        assert_int_equal(run_op(be, KBV_OP_MUL_MASK, &nd, args, 2, &y), KBV_OK);
        for (int64_t i = 0; i < 12; i++)
            if (i != 5)
                assert_close(get_off(&y, i), get_off(&x, i) * (double)((i % 4) & 1), 0);
        kbv_tensor all[4] = {x, y, mask, mrow};
        free_all(all, 4);
        kbv_backend_destroy(be);
    }
}

/* ---- scans and their layout ops ---- */

static void test_scans(void **state)
{
    (void)state;
    const int64_t shape[2] = {3, 7};
    for (int t = 0; t < 2; t++) {
        kbv_dtype dt = both[t];
        kbv_backend *be = backend(dt);
        kbv_tensor x = kbv_test_tensor(dt, 2, shape), y = kbv_test_tensor(dt, 2, shape);
        rng_state = 21;
        fill_uniform(&x, -1.5, 1.5);
        for (int prod = 0; prod < 2; prod++)
            for (int dim = -2; dim < 2; dim++) {
                kbv_node_def nd = {.i = {dim}};
                assert_int_equal(run_op(be, prod ? KBV_OP_CUMPROD : KBV_OP_CUMSUM, &nd, &x, 1,
                                        &y),
                                 KBV_OK);
                int d = dim < 0 ? dim + 2 : dim;
                int64_t idx[2] = {0, 0};
                do {
                    double acc = prod ? 1 : 0;
                    int64_t j[2] = {idx[0], idx[1]};
                    for (int64_t k = 0; k <= idx[d]; k++) {
                        j[d] = k;
                        acc = prod ? acc * get_at(&x, j) : acc + get_at(&x, j);
                    }
                    assert_close(get_at(&y, idx), acc, tol_of(dt));
                } while (next_index(idx, shape, 2));
            }
        /* flip along each dim */
        for (int dim = 0; dim < 2; dim++) {
            kbv_node_def nd = {.i = {dim}};
            assert_int_equal(run_op(be, KBV_OP_FLIP, &nd, &x, 1, &y), KBV_OK);
            int64_t idx[2] = {0, 0};
            do {
                int64_t j[2] = {idx[0], idx[1]};
                j[dim] = shape[dim] - 1 - idx[dim];
                assert_true(get_at(&y, idx) == get_at(&x, j));
            } while (next_index(idx, shape, 2));
        }
        /* zeros column, cat, [:-1] and the exclusive scan they make */
        int64_t zshape[2] = {3, 1}, cshape[2] = {3, 8};
        kbv_tensor z = kbv_test_tensor(dt, 2, zshape), c = kbv_test_tensor(dt, 2, cshape);
        set_off(&z, 0, 5.0);
        kbv_node_def nd1 = {.i = {1}};
        assert_int_equal(run_op(be, KBV_OP_ZEROS_SLICE, &nd1, &x, 1, &z), KBV_OK);
        assert_true(get_off(&z, 0) == 0.0);
        kbv_tensor cargs[2] = {z, x};
        assert_int_equal(run_op(be, KBV_OP_CAT, &nd1, cargs, 2, &c), KBV_OK);
        for (int64_t r = 0; r < 3; r++) {
            assert_true(get_off(&c, r * 8) == 0.0);
            for (int64_t k = 0; k < 7; k++)
                assert_true(get_off(&c, r * 8 + 1 + k) == get_off(&x, r * 7 + k));
        }
        kbv_tensor view = c;
        view.shape[0] = 2;
        view.data = NULL;
        kbv_node_def none = {0};
        assert_int_equal(run_op(be, KBV_OP_DROP_LAST, &none, &c, 1, &view), KBV_OK);
        assert_ptr_equal(view.data, c.data);
        assert_int_equal(view.stride[0], 8);
        /* cat along dim 0 of a transposed view */
        int64_t tshape[2] = {7, 3}, c0shape[2] = {10, 3};
        kbv_tensor xt = x, c0 = kbv_test_tensor(dt, 2, c0shape), w = kbv_test_tensor(dt, 2, zshape);
        xt.shape[0] = 7;
        xt.shape[1] = 3;
        xt.stride[0] = 1;
        xt.stride[1] = 7;
        (void)tshape;
        kbv_tensor targs[2] = {xt, xt};
        targs[1].shape[0] = 3; /* the first 3 rows of x^T */
        kbv_node_def nd0 = {.i = {0}};
        assert_int_equal(run_op(be, KBV_OP_CAT, &nd0, targs, 2, &c0), KBV_OK);
        for (int64_t r = 0; r < 10; r++)
            for (int64_t k = 0; k < 3; k++)
                assert_true(get_off(&c0, r * 3 + k) == get_off(&x, k * 7 + (r < 7 ? r : r - 7)));
        kbv_tensor all[6] = {x, y, z, c, c0, w};
        free_all(all, 6);
        kbv_backend_destroy(be);
    }
}

/* ---- losses ---- */

static void test_cross_entropy(void **state)
{
    (void)state;
    for (int t = 0; t < 2; t++) {
        kbv_dtype dt = both[t];
        kbv_backend *be = backend(dt);
        int64_t shape[2] = {5, 6}, rows = 5;
        kbv_tensor x = kbv_test_tensor(dt, 2, shape), tg = kbv_test_tensor(KBV_I64, 1, &rows), y = kbv_test_tensor(dt, 0, NULL);
        rng_state = 17;
        fill_uniform(&x, -4, 4);
        int64_t targets[5] = {0, 5, 2, -100, 3};
        memcpy(tg.data, targets, sizeof targets);
        double sum = 0;
        for (int64_t r = 0; r < 5; r++) {
            if (targets[r] == -100)
                continue;
            double s = 0;
            for (int64_t c = 0; c < 6; c++)
                s += exp(get_off(&x, r * 6 + c));
            sum += log(s) - get_off(&x, r * 6 + targets[r]);
        }
        kbv_node_def nd = {0};
        kbv_tensor args[2] = {x, tg};
        assert_int_equal(run_op(be, KBV_OP_CROSS_ENTROPY, &nd, args, 2, &y), KBV_OK);
        assert_close(get_off(&y, 0), sum / 4, tol_of(dt));
        ((int64_t *)tg.data)[1] = 6; /* out of range */
        assert_int_equal(run_op(be, KBV_OP_CROSS_ENTROPY, &nd, args, 2, &y), KBV_ERR_INVALID);
        kbv_tensor all[3] = {x, tg, y};
        free_all(all, 3);
        kbv_backend_destroy(be);
    }
}

static void test_pair_losses(void **state)
{
    (void)state;
    for (int t = 0; t < 2; t++) {
        kbv_dtype dt = both[t];
        kbv_backend *be = backend(dt);
        int64_t shape[2] = {4, 9};
        kbv_tensor a = kbv_test_tensor(dt, 2, shape), b = kbv_test_tensor(dt, 2, shape), y = kbv_test_tensor(dt, 0, NULL);
        rng_state = 29;
        fill_uniform(&a, -3, 3);
        fill_uniform(&b, 0, 1);
        set_off(&b, 0, 0.0); /* xlogy(0, 0) = 0 */
        kbv_node_def beta = {.f = {0.7}};
        kbv_tensor args[3] = {a, b, b};
        assert_int_equal(run_op(be, KBV_OP_SMOOTH_L1, &beta, args, 2, &y), KBV_OK);
        double s = 0, kl = 0;
        for (int64_t i = 0; i < 36; i++) {
            double d = fabs(get_off(&a, i) - get_off(&b, i));
            s += d < 0.7 ? 0.5 * d * d / 0.7 : d - 0.35;
            double tv = get_off(&b, i);
            kl += (tv > 0 ? tv * log(tv) : 0.0) - tv * get_off(&a, i);
        }
        assert_close(get_off(&y, 0), s / 36, tol_of(dt));
        kbv_node_def none = {0};
        assert_int_equal(run_op(be, KBV_OP_KL_DIV, &none, args, 2, &y), KBV_OK);
        assert_close(get_off(&y, 0), kl / 4, tol_of(dt));
        /* a zero target meeting an input of -inf: 0 * -inf is NaN, as in PyTorch */
        set_off(&a, 0, -INFINITY);
        args[0] = a;
        assert_int_equal(run_op(be, KBV_OP_KL_DIV, &none, args, 2, &y), KBV_OK);
        assert_true(isnan(get_off(&y, 0)));

        /* triplet margin: eps is added to each difference */
        kbv_tensor p = kbv_test_tensor(dt, 2, shape), n = kbv_test_tensor(dt, 2, shape);
        fill_uniform(&a, 0, 1);
        fill_uniform(&p, 0, 1);
        fill_uniform(&n, 0, 1);
        kbv_node_def tm = {.f = {1.0, 2.0, 1e-6}};
        kbv_tensor targs[3] = {a, p, n};
        assert_int_equal(run_op(be, KBV_OP_TRIPLET_MARGIN, &tm, targs, 3, &y), KBV_OK);
        double sum = 0;
        for (int64_t r = 0; r < 4; r++) {
            double dp = 0, dn = 0;
            for (int64_t c = 0; c < 9; c++) {
                double u = get_off(&a, r * 9 + c) - get_off(&p, r * 9 + c) + 1e-6;
                double v = get_off(&a, r * 9 + c) - get_off(&n, r * 9 + c) + 1e-6;
                dp += u * u;
                dn += v * v;
            }
            sum += fmax(1.0 + sqrt(dp) - sqrt(dn), 0.0);
        }
        assert_close(get_off(&y, 0), sum / 4, tol_of(dt));
        kbv_tensor all[5] = {a, b, y, p, n};
        free_all(all, 5);
        kbv_backend_destroy(be);
    }
}

/* ---- attention ---- */

static void ref_sdpa(const kbv_tensor *q, const kbv_tensor *k, const kbv_tensor *v, int64_t B,
                     int64_t L, int64_t S, int64_t E, int64_t Ev, double *out)
{
    for (int64_t b = 0; b < B; b++)
        for (int64_t l = 0; l < L; l++) {
            double sc[16], mx = -INFINITY, sum = 0;
            for (int64_t j = 0; j < S; j++) {
                double s = 0;
                for (int64_t e = 0; e < E; e++)
                    s += get_off(q, (b * L + l) * E + e) * get_off(k, (b * S + j) * E + e);
                sc[j] = s / sqrt((double)E);
                mx = fmax(mx, sc[j]);
            }
            for (int64_t j = 0; j < S; j++)
                sum += exp(sc[j] - mx);
            for (int64_t e = 0; e < Ev; e++) {
                double acc = 0;
                for (int64_t j = 0; j < S; j++)
                    acc += exp(sc[j] - mx) / sum * get_off(v, (b * S + j) * Ev + e);
                out[(b * L + l) * Ev + e] = acc;
            }
        }
}

static void test_sdpa(void **state)
{
    (void)state;
    const int64_t B = 2, L = 3, S = 5, E = 4, Ev = 6;
    int64_t qs[3] = {B, L, E}, ks[3] = {B, S, E}, vs[3] = {B, S, Ev}, os[3] = {B, L, Ev};
    double want[64];
    /* float32 and float64 operands; then float16 operands (i[0] = 1) into a
     * float32 run, whose output is rounded to float16 */
    for (int c = 0; c < 3; c++) {
        kbv_dtype in_dt = c == 2 ? KBV_F16 : both[c], out_dt = c == 2 ? KBV_F32 : both[c];
        kbv_backend *be = backend(out_dt);
        kbv_tensor q = kbv_test_tensor(in_dt, 3, qs), k = kbv_test_tensor(in_dt, 3, ks), v = kbv_test_tensor(in_dt, 3, vs);
        kbv_tensor o = kbv_test_tensor(out_dt, 3, os);
        rng_state = 31;
        fill_uniform(&q, -2, 2);
        fill_uniform(&k, -2, 2);
        fill_uniform(&v, -1, 1);
        ref_sdpa(&q, &k, &v, B, L, S, E, Ev, want);
        kbv_node_def nd = {.i = {c == 2}};
        kbv_tensor args[3] = {q, k, v};
        assert_int_equal(run_op(be, KBV_OP_SDPA, &nd, args, 3, &o), KBV_OK);
        for (int64_t i = 0; i < B * L * Ev; i++) {
            if (c == 2) {
                assert_true(get_off(&o, i) == kbv_half_round(want[i]));
            } else {
                assert_close(get_off(&o, i), want[i], tol_of(out_dt));
            }
        }
        kbv_tensor all[4] = {q, k, v, o};
        free_all(all, 4);
        kbv_backend_destroy(be);
    }
}

/* ---- float16 and derived inputs ---- */

static void test_half_conversion(void **state)
{
    (void)state;
    assert_int_equal(kbv_half_from_double(1.0), 0x3C00);
    assert_int_equal(kbv_half_from_double(-2.0), 0xC000);
    assert_int_equal(kbv_half_from_double(65504.0), 0x7BFF);
    assert_int_equal(kbv_half_from_double(65519.99), 0x7BFF);
    assert_int_equal(kbv_half_from_double(65520.0), 0x7C00); /* the tie rounds to inf */
    assert_int_equal(kbv_half_from_double(INFINITY), 0x7C00);
    assert_true((kbv_half_from_double(NAN) & 0x7C00) == 0x7C00);
    assert_int_equal(kbv_half_from_double(0x1p-24), 0x0001);   /* smallest subnormal */
    assert_int_equal(kbv_half_from_double(0x1p-25), 0x0000);   /* tie to even: 0 */
    assert_int_equal(kbv_half_from_double(0x1.8p-24), 0x0002); /* tie to even: 2 */
    assert_int_equal(kbv_half_from_double(0x1.ffcp-15), 0x0400); /* rounds up to normal */
    assert_int_equal(kbv_half_from_double(-0.0), 0x8000);
    /* 1 + 2^-11 is a tie between 1 and 1 + 2^-10: even mantissa (1) wins */
    assert_int_equal(kbv_half_from_double(1.0 + 0x1p-11), 0x3C00);
    assert_int_equal(kbv_half_from_double(1.0 + 0x1.8p-10), 0x3C02);
    for (uint32_t h = 0; h < 0x7C00; h++)
        assert_int_equal(kbv_half_from_double(kbv_half_to_double((uint16_t)h)), h);
}

static void test_half_services(void **state)
{
    (void)state;
    kbv_backend *be = backend(KBV_F32);
    int64_t n = 6;
    kbv_tensor h = kbv_test_tensor(KBV_F16, 1, &n), f = kbv_test_tensor(KBV_F32, 1, &n), d = kbv_test_tensor(KBV_F64, 1, &n);
    static const double vals[6] = {0.1, -3.75, 1e-7, 70000, 2048.5, 1.0};
    for (int i = 0; i < 6; i++)
        set_off(&d, i, vals[i]);
    assert_int_equal(be->convert(be, &d, &h), KBV_OK);
    assert_int_equal(be->convert(be, &h, &f), KBV_OK);
    for (int i = 0; i < 6; i++)
        assert_true(get_off(&f, i) == kbv_half_round(vals[i]));
    assert_true(isinf(get_off(&f, 3)));

    /* compare: a float16 candidate is judged against the oracle rounded to float16 */
    for (int i = 0; i < 6; i++)
        set_off(&d, i, i == 3 ? 1.0 : vals[i]);
    assert_int_equal(be->convert(be, &d, &h), KBV_OK);
    assert_int_equal(be->convert(be, &d, &f), KBV_OK);
    kbv_compare_stats st;
    assert_int_equal(be->compare(be, &h, &f, &d, &f, 1e-2, 1e-2, &st), KBV_OK);
    assert_int_equal(st.allclose_fail, 0);
    assert_int_equal(st.class_fail, 0);
    assert_int_equal(st.poison_left, 0);
    assert_true(st.max_err > 0 && st.max_err < 1e-3 * 2048.5);
    /* poison is found in float16 and int64 outputs */
    assert_int_equal(be->poison(be, &h), KBV_OK);
    assert_int_equal(be->compare(be, &h, NULL, NULL, NULL, 1e-2, 1e-2, &st), KBV_OK);
    assert_int_equal(st.poison_left, 6);
    kbv_tensor ix = kbv_test_tensor(KBV_I64, 1, &n), iref = kbv_test_tensor(KBV_I64, 1, &n);
    for (int i = 0; i < 6; i++) {
        set_off(&ix, i, i);
        set_off(&iref, i, i == 4 ? 7 : i);
    }
    assert_int_equal(be->compare(be, &ix, &iref, NULL, NULL, 1e-3, 1e-3, &st), KBV_OK);
    assert_int_equal(st.allclose_fail, 1);
    assert_int_equal(st.allclose_first, 4);
    assert_int_equal(be->poison(be, &ix), KBV_OK);
    assert_int_equal(be->compare(be, &ix, &iref, NULL, NULL, 1e-3, 1e-3, &st), KBV_OK);
    assert_int_equal(st.poison_left, 6);
    kbv_tensor all[5] = {h, f, d, ix, iref};
    free_all(all, 5);
    kbv_backend_destroy(be);
}

static void test_fill_derived_inputs(void **state)
{
    (void)state;
    kbv_backend *be = backend(KBV_F32);
    kbv_draw draws[3] = {{KBV_DIST_BASE, 5}, {KBV_DIST_D6, 6}, {KBV_DIST_D8, 7}};
    int64_t shape[2] = {4, 9}, rows = 4;
    for (int k = 0; k < 3; k++) {
        /* rand * rand(()): one factor s in [0, 1) for the whole tensor */
        kbv_input_def scaled = {.name = "p", .dtype = KBV_F32, .shape = {"4", "9"},
                                .gen = KBV_GEN_RAND, .structure = KBV_STRUCT_SCALED};
        kbv_input_def plain = scaled;
        plain.structure = KBV_STRUCT_NONE;
        kbv_tensor a = kbv_test_tensor(KBV_F32, 2, shape), b = kbv_test_tensor(KBV_F32, 2, shape);
        assert_int_equal(be->fill(be, &scaled, 0, &draws[k], &a), KBV_OK);
        assert_int_equal(be->fill(be, &plain, 0, &draws[k], &b), KBV_OK);
        double s = -1;
        for (int64_t i = 0; i < 36; i++)
            if (get_off(&b, i) != 0.0 && s < 0)
                s = get_off(&a, i) / get_off(&b, i);
        assert_true(s >= 0 && s < 1);
        for (int64_t i = 0; i < 36; i++)
            assert_close(get_off(&a, i), get_off(&b, i) * s, 1e-6);

        /* softmax rows: positive, summing to 1 */
        kbv_input_def soft = scaled;
        soft.structure = k == 1 ? KBV_STRUCT_SOFTMAX : KBV_STRUCT_SCALED_SOFTMAX;
        assert_int_equal(be->fill(be, &soft, 1, &draws[k], &a), KBV_OK);
        for (int64_t r = 0; r < 4; r++) {
            double sum = 0;
            for (int64_t c = 0; c < 9; c++) {
                assert_true(get_off(&a, r * 9 + c) > 0);
                sum += get_off(&a, r * 9 + c);
            }
            assert_close(sum, 1.0, 1e-6);
        }

        /* +-1 signs under every distribution, both present */
        kbv_input_def signs = {.name = "t", .dtype = KBV_F32, .shape = {"4"},
                               .gen = KBV_GEN_RANDINT, .structure = KBV_STRUCT_SIGNS, .low = 0,
                               .high = 2};
        kbv_tensor t = kbv_test_tensor(KBV_F32, 1, &rows);
        assert_int_equal(be->fill(be, &signs, 2, &draws[k], &t), KBV_OK);
        for (int64_t i = 0; i < 4; i++)
            assert_true(fabs(get_off(&t, i)) == 1.0);

        /* a bool mask of 0 and 1; float16 inputs hold float16 values in any storage */
        kbv_input_def mask = {.name = "m", .dtype = KBV_BOOL, .shape = {"4", "9"},
                              .gen = KBV_GEN_RANDINT, .low = 0, .high = 2};
        kbv_tensor m = kbv_test_tensor(KBV_BOOL, 2, shape);
        assert_int_equal(be->fill(be, &mask, 3, &draws[k], &m), KBV_OK);
        int ones = 0;
        for (int64_t i = 0; i < 36; i++) {
            unsigned char v = ((unsigned char *)m.data)[i];
            assert_true(v == 0 || v == 1);
            ones += v;
        }
        assert_true(ones > 0 && ones < 36);
        kbv_input_def half = plain;
        half.dtype = KBV_F16;
        kbv_tensor h = kbv_test_tensor(KBV_F16, 2, shape);
        assert_int_equal(be->fill(be, &half, 4, &draws[k], &h), KBV_OK);
        assert_int_equal(be->fill(be, &half, 4, &draws[k], &a), KBV_OK); /* float32 storage */
        for (int64_t i = 0; i < 36; i++) {
            assert_true(get_off(&a, i) == get_off(&h, i));
            assert_true(kbv_half_round(get_off(&a, i)) == get_off(&a, i));
        }
        kbv_tensor all[5] = {a, b, t, m, h};
        free_all(all, 5);
    }
    kbv_backend_destroy(be);
}

/* Every op of this family has its CPU implementation and a 1..4-operand row. */
static void test_family_registered(void **state)
{
    (void)state;
    kbv_backend *be = backend(KBV_F32);
    for (int op = KBV_OP_BATCH_NORM; op <= KBV_OP_SDPA; op++) {
        assert_non_null(be->ops[op]);
        assert_non_null(kbv_op_table[op].name);
    }
    kbv_backend_destroy(be);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_family_registered),
        cmocka_unit_test(test_norms),
        cmocka_unit_test(test_norm_constant_input),
        cmocka_unit_test(test_reductions_along_dim),
        cmocka_unit_test(test_reduction_of_a_view),
        cmocka_unit_test(test_reduce_all),
        cmocka_unit_test(test_pointwise),
        cmocka_unit_test(test_mul_mask),
        cmocka_unit_test(test_scans),
        cmocka_unit_test(test_cross_entropy),
        cmocka_unit_test(test_pair_losses),
        cmocka_unit_test(test_sdpa),
        cmocka_unit_test(test_normalize),
        cmocka_unit_test(test_half_conversion),
        cmocka_unit_test(test_half_services),
        cmocka_unit_test(test_fill_derived_inputs),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
