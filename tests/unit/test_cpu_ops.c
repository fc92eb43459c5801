/* Every CPU op in float32 and float64 against a naive float64 reference
 * written here (broadcasting, strided views, the 1-D matmul cases, PyTorch's
 * edge semantics), and the CPU backend's device services. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cmocka.h>

#include "exec/backend.h"
#include "support/host_tensor.h"
#include "graph/ops_table.h"

/* ---- tensors for the tests: malloc'd, contiguous unless a view ---- */




static double get_at(const kbv_tensor *t, const int64_t *idx)
{
    int64_t off = kbv_test_offset(t, idx);
    return t->dtype == KBV_F32 ? ((float *)t->data)[off] : ((double *)t->data)[off];
}

static void set_at(kbv_tensor *t, const int64_t *idx, double v)
{
    int64_t off = kbv_test_offset(t, idx);
    if (t->dtype == KBV_F32)
        ((float *)t->data)[off] = (float)v;
    else
        ((double *)t->data)[off] = v;
}

/* Next multi-index in row-major order; false after the last. */
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

static void fill_uniform(kbv_tensor *t, double lo, double hi)
{
    int64_t idx[KBV_MAX_DIMS] = {0};
    if (kbv_test_numel(t) == 0)
        return;
    do
        set_at(t, idx, uniform(lo, hi));
    while (next_index(idx, t->shape, t->ndim));
}

/* A transposed view (last two dims swapped) sharing t's memory. */
static kbv_tensor transposed(const kbv_tensor *t)
{
    kbv_tensor v = *t;
    int n = t->ndim;
    v.shape[n - 2] = t->shape[n - 1];
    v.shape[n - 1] = t->shape[n - 2];
    v.stride[n - 2] = t->stride[n - 1];
    v.stride[n - 1] = t->stride[n - 2];
    return v;
}

static kbv_status run_op(kbv_backend *be, kbv_op op, const kbv_node_def *nd, const kbv_tensor *args,
                         int n_args, kbv_tensor *out)
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
    assert_int_equal(be->float_dtype, dt);
    return be;
}

/* got matches ref: same class, and within tol relative to max(1, |ref|). */
static void assert_close(double got, double ref, double tol)
{
    if (isnan(ref)) {
        assert_true(isnan(got));
    } else if (isinf(ref)) {
        assert_true(got == ref);
    } else {
        if (!(fabs(got - ref) <= tol * fmax(1.0, fabs(ref))))
            fail_msg("got %.17g, expected %.17g (tol %g)", got, ref, tol);
    }
}

static double elem_tol(kbv_dtype dt) { return dt == KBV_F32 ? 2e-6 : 1e-14; }

static const kbv_dtype both[2] = {KBV_F32, KBV_F64};

static void test_every_op_implemented(void **state)
{
    (void)state;
    kbv_backend *be = backend(KBV_F32);
    for (int op = KBV_OP_NONE + 1; op < KBV_OP_COUNT; op++)
        if (!be->ops[op])
            fail_msg("op %s has no CPU implementation", kbv_op_table[op].name);
    assert_string_equal(be->name, "cpu-fp32");
    kbv_backend_destroy(be);
}

/* ---- elementwise ---- */

static const double selu_alpha = 1.6732632423543772848170429916717;
static const double selu_scale = 1.0507009873554804934193349852946;

static double ref_unary(kbv_op op, double x)
{
    switch (op) {
    case KBV_OP_ADD_SCALAR: return 2.5 + x;
    case KBV_OP_MUL_SCALAR: return x * -1.5;
    case KBV_OP_ABS: return fabs(x);
    case KBV_OP_RELU: return isnan(x) ? x : (x > 0 ? x : 0.0);
    case KBV_OP_LEAKY_RELU: return x > 0 ? x : 0.01 * x;
    case KBV_OP_SIGMOID: return 1.0 / (1.0 + exp(-x));
    case KBV_OP_TANH: return tanh(x);
    case KBV_OP_GELU: return 0.5 * x * (1.0 + erf(x / sqrt(2.0)));
    case KBV_OP_SELU: return x > 0 ? selu_scale * x : selu_scale * selu_alpha * expm1(x);
    case KBV_OP_HARDSIGMOID:
        return isnan(x) ? x : (x <= -3 ? 0.0 : (x >= 3 ? 1.0 : x / 6.0 + 0.5));
    case KBV_OP_SOFTPLUS: return x > 20 ? x : log1p(exp(x));
    case KBV_OP_ELU: return x > 0 ? x : 0.7 * expm1(x);
    case KBV_OP_HARDTANH: return isnan(x) ? x : (x < -0.5 ? -0.5 : (x > 2.0 ? 2.0 : x));
    case KBV_OP_EXP: return exp(x);
    default: fail_msg("not a unary op"); return 0;
    }
}

static const double specials[] = {-INFINITY, -100, -30, -20.5, -5, -3, -1, -1e-3, -0.0, 0.0,
                                  1e-3, 0.5, 1, 2.5, 3, 6, 19.9, 20, 20.5, 25, 100, INFINITY,
                                  NAN};

static void test_unary_ops(void **state)
{
    (void)state;
    const kbv_op ops[] = {KBV_OP_ADD_SCALAR, KBV_OP_MUL_SCALAR, KBV_OP_ABS,  KBV_OP_RELU,
                          KBV_OP_LEAKY_RELU, KBV_OP_SIGMOID,    KBV_OP_TANH, KBV_OP_GELU,
                          KBV_OP_SELU,       KBV_OP_HARDSIGMOID, KBV_OP_SOFTPLUS, KBV_OP_ELU,
                          KBV_OP_HARDTANH,   KBV_OP_EXP};
    kbv_node_def nd;
    for (int t = 0; t < 2; t++) {
        kbv_dtype dt = both[t];
        kbv_backend *be = backend(dt);
        const int n_spec = (int)(sizeof specials / sizeof specials[0]);
        int64_t shape[2] = {3, 40};
        kbv_tensor x = kbv_test_tensor(dt, 2, shape), y = kbv_test_tensor(dt, 2, shape);
        rng_state = 1;
        fill_uniform(&x, -8, 8);
        for (int i = 0; i < n_spec; i++) {
            int64_t idx[2] = {i / 40, i % 40};
            set_at(&x, idx, specials[i]);
        }
        for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
            memset(&nd, 0, sizeof nd);
            switch (ops[o]) {
            case KBV_OP_ADD_SCALAR: nd.f[0] = 2.5; break;
            case KBV_OP_MUL_SCALAR: nd.f[0] = -1.5; break;
            case KBV_OP_LEAKY_RELU: nd.f[0] = 0.01; break;
            case KBV_OP_ELU: nd.f[0] = 0.7; break;
            case KBV_OP_HARDTANH: nd.f[0] = -0.5; nd.f[1] = 2.0; break;
            default: break;
            }
            assert_int_equal(run_op(be, ops[o], &nd, &x, 1, &y), KBV_OK);
            int64_t idx[2] = {0, 0};
            do
                /* the reference rounded to the result's type: exp(100) is inf in float32 */
                assert_close(get_at(&y, idx),
                             dt == KBV_F32 ? (double)(float)ref_unary(ops[o], get_at(&x, idx))
                                           : ref_unary(ops[o], get_at(&x, idx)),
                             elem_tol(dt));
            while (next_index(idx, shape, 2));
        }
        free(x.data);
        free(y.data);
        kbv_backend_destroy(be);
    }
}

/* PyTorch's edge semantics, pinned on single values. */
static double unary1(kbv_backend *be, kbv_op op, double f0, double f1, double x)
{
    kbv_node_def nd;
    memset(&nd, 0, sizeof nd);
    nd.f[0] = f0;
    nd.f[1] = f1;
    kbv_tensor in = kbv_test_tensor(be->float_dtype, 0, NULL), out = kbv_test_tensor(be->float_dtype, 0, NULL);
    set_at(&in, NULL, x);
    assert_int_equal(run_op(be, op, &nd, &in, 1, &out), KBV_OK);
    double y = get_at(&out, NULL);
    free(in.data);
    free(out.data);
    return y;
}

static void test_unary_edges(void **state)
{
    (void)state;
    for (int t = 0; t < 2; t++) {
        kbv_backend *be = backend(both[t]);
        /* softplus is the identity above threshold 20, log1p(exp(x)) at or below */
        assert_true(unary1(be, KBV_OP_SOFTPLUS, 0, 0, 20.5) == 20.5);
        assert_true(unary1(be, KBV_OP_SOFTPLUS, 0, 0, 1000) == 1000);
        assert_true(unary1(be, KBV_OP_SOFTPLUS, 0, 0, -INFINITY) == 0.0);
        if (both[t] == KBV_F64)
            assert_true(unary1(be, KBV_OP_SOFTPLUS, 0, 0, 20.0) > 20.0);
        /* NaN goes through clamps, as torch.clamp and std::min/max leave it */
        assert_true(isnan(unary1(be, KBV_OP_RELU, 0, 0, NAN)));
        assert_true(isnan(unary1(be, KBV_OP_HARDSIGMOID, 0, 0, NAN)));
        assert_true(isnan(unary1(be, KBV_OP_HARDTANH, -1, 1, NAN)));
        /* exp(-inf) = 0, as segsum's masked entries become in Mamba-2 */
        assert_true(unary1(be, KBV_OP_EXP, 0, 0, -INFINITY) == 0.0);
        assert_true(unary1(be, KBV_OP_EXP, 0, 0, INFINITY) == INFINITY);
        assert_true(unary1(be, KBV_OP_RELU, 0, 0, -INFINITY) == 0.0);
        /* exact erf gelu: gelu(-inf) = -inf * 0 = NaN in PyTorch too */
        assert_true(isnan(unary1(be, KBV_OP_GELU, 0, 0, -INFINITY)));
        assert_true(unary1(be, KBV_OP_SIGMOID, 0, 0, -INFINITY) == 0.0);
        assert_true(unary1(be, KBV_OP_SIGMOID, 0, 0, INFINITY) == 1.0);
        assert_true(unary1(be, KBV_OP_ELU, 0.7, 0, -INFINITY) == (both[t] == KBV_F32 ? -0.7f : -0.7));
        assert_true(unary1(be, KBV_OP_LEAKY_RELU, 0.01, 0, -INFINITY) == -INFINITY);
        assert_true(unary1(be, KBV_OP_HARDSIGMOID, 0, 0, 3.0) == 1.0);
        assert_true(unary1(be, KBV_OP_HARDSIGMOID, 0, 0, 0.0) == 0.5);
        kbv_backend_destroy(be);
    }
    /* selu's limit is -alpha*scale with both constants in the element type,
     * as PyTorch computes it: torch.selu(-inf) = -1.7580993175506592 (float32). */
    kbv_backend *be = backend(KBV_F32);
    assert_true((float)unary1(be, KBV_OP_SELU, 0, 0, -INFINITY) == -1.7580993175506592f);
    assert_true((float)unary1(be, KBV_OP_SELU, 0, 0, 3.0) == 3.1521029472351074f);
    kbv_backend_destroy(be);
    be = backend(KBV_F64);
    assert_close(unary1(be, KBV_OP_SELU, 0, 0, -INFINITY), -1.7580993408473766, 1e-15);
    kbv_backend_destroy(be);
}

/* Broadcast index of out-index idx into an operand of shape s (ndim n). */
static void bcast_index(const int64_t *idx, int out_nd, const kbv_tensor *t, int64_t *ti)
{
    int lead = out_nd - t->ndim;
    for (int d = 0; d < t->ndim; d++)
        ti[d] = t->shape[d] == 1 ? 0 : idx[d + lead];
}

static double ref_binary(kbv_op op, double a, double b)
{
    switch (op) {
    case KBV_OP_ADD: return a + b;
    case KBV_OP_SUB: return a - b;
    case KBV_OP_MUL: return a * b;
    default: return a / b;
    }
}

static void check_binary(kbv_backend *be, int na, const int64_t *sa, int nb, const int64_t *sb,
                         int no, const int64_t *so, bool view_a)
{
    kbv_dtype dt = be->float_dtype;
    kbv_tensor a_mem, a, b = kbv_test_tensor(dt, nb, sb), out = kbv_test_tensor(dt, no, so);
    if (view_a) {
        /* a as the transpose of a contiguous tensor of the swapped shape */
        int64_t swapped[KBV_MAX_DIMS];
        memcpy(swapped, sa, sizeof(int64_t) * (size_t)na);
        swapped[na - 2] = sa[na - 1];
        swapped[na - 1] = sa[na - 2];
        a_mem = kbv_test_tensor(dt, na, swapped);
        a = transposed(&a_mem);
    } else {
        a_mem = kbv_test_tensor(dt, na, sa);
        a = a_mem;
    }
    fill_uniform(&a, -3, 3);
    fill_uniform(&b, 0.5, 3);
    const kbv_op ops[] = {KBV_OP_ADD, KBV_OP_SUB, KBV_OP_MUL, KBV_OP_DIV};
    for (int o = 0; o < 4; o++) {
        kbv_tensor args[2] = {a, b};
        assert_int_equal(run_op(be, ops[o], NULL, args, 2, &out), KBV_OK);
        int64_t idx[KBV_MAX_DIMS] = {0}, ia[KBV_MAX_DIMS], ib[KBV_MAX_DIMS];
        do {
            bcast_index(idx, no, &a, ia);
            bcast_index(idx, no, &b, ib);
            double ref = ref_binary(ops[o], get_at(&a, ia), get_at(&b, ib));
            if (dt == KBV_F32)
                ref = (float)ref; /* one rounding: exact in float32 too */
            assert_true(get_at(&out, idx) == ref);
        } while (next_index(idx, so, no));
    }
    free(a_mem.data);
    free(b.data);
    free(out.data);
}

static void test_binary_broadcasting(void **state)
{
    (void)state;
    for (int t = 0; t < 2; t++) {
        kbv_backend *be = backend(both[t]);
        rng_state = 7;
        const int64_t s234[] = {2, 3, 4}, s31[] = {3, 1}, s4[] = {4}, s131[] = {1, 3, 1},
                      s214[] = {2, 1, 4}, s34[] = {3, 4};
        check_binary(be, 3, s234, 3, s234, 3, s234, false);
        check_binary(be, 3, s234, 2, s31, 3, s234, false);
        check_binary(be, 3, s234, 1, s4, 3, s234, false);
        check_binary(be, 3, s234, 0, NULL, 3, s234, false);  /* 0-dim operand */
        check_binary(be, 3, s131, 3, s214, 3, s234, false);  /* both broadcast */
        check_binary(be, 2, s34, 1, s4, 2, s34, true);       /* transposed view */
        check_binary(be, 0, NULL, 0, NULL, 0, NULL, false);  /* scalars */
        /* shapes that do not broadcast are rejected */
        kbv_tensor a = kbv_test_tensor(be->float_dtype, 2, s34), b = kbv_test_tensor(be->float_dtype, 1, s31 + 0),
                   out = kbv_test_tensor(be->float_dtype, 2, s34);
        b.shape[0] = 3;
        kbv_tensor args[2] = {a, b};
        assert_int_equal(run_op(be, KBV_OP_ADD, NULL, args, 2, &out), KBV_ERR_INVALID);
        /* mixed dtypes are rejected */
        kbv_tensor other = kbv_test_tensor(both[t] == KBV_F32 ? KBV_F64 : KBV_F32, 2, s34);
        kbv_tensor mixed[2] = {a, other};
        assert_int_equal(run_op(be, KBV_OP_ADD, NULL, mixed, 2, &out), KBV_ERR_UNSUPPORTED);
        free(a.data);
        free(b.data);
        free(out.data);
        free(other.data);
        kbv_backend_destroy(be);
    }
}

/* ---- matmul ---- */

/* Naive torch.matmul in double; bound[i] = sum |a||b| for the error bound. */
static void check_matmul(kbv_backend *be, kbv_op op, const kbv_node_def *nd, const kbv_tensor *a,
                         const kbv_tensor *b, kbv_tensor *out)
{
    kbv_tensor args[2] = {*a, *b};
    assert_int_equal(run_op(be, op, nd, args, 2, out), KBV_OK);
    bool a1 = a->ndim == 1, b1 = b->ndim == 1;
    int64_t K = a->shape[a->ndim - 1];
    int nbatch = out->ndim - !a1 - !b1;
    int64_t idx[KBV_MAX_DIMS] = {0};
    double eps = be->float_dtype == KBV_F32 ? 0x1p-24 : 0x1p-53;
    do {
        int64_t ia[KBV_MAX_DIMS] = {0}, ib[KBV_MAX_DIMS] = {0};
        /* batch dims, broadcast */
        int la = a->ndim - 2, lb = b->ndim - 2;
        for (int d = 0; d < la; d++)
            ia[d] = a->shape[d] == 1 ? 0 : idx[nbatch - la + d];
        for (int d = 0; d < lb; d++)
            ib[d] = b->shape[d] == 1 ? 0 : idx[nbatch - lb + d];
        int64_t i = a1 ? 0 : idx[nbatch], j = b1 ? 0 : idx[out->ndim - 1];
        double sum = 0, mag = 0;
        for (int64_t k = 0; k < K; k++) {
            if (a1) {
                ia[0] = k;
            } else {
                ia[a->ndim - 2] = i;
                ia[a->ndim - 1] = k;
            }
            if (b1) {
                ib[0] = k;
            } else {
                ib[b->ndim - 2] = k;
                ib[b->ndim - 1] = j;
            }
            double p = get_at(a, ia) * get_at(b, ib);
            sum += p;
            mag += fabs(p);
        }
        double got = get_at(out, idx);
        if (!(fabs(got - sum) <= 2.0 * (double)(K + 1) * eps * mag + 1e-300))
            fail_msg("matmul: got %.17g, expected %.17g", got, sum);
    } while (next_index(idx, out->shape, out->ndim));
}

static void test_matmul_shapes(void **state)
{
    (void)state;
    for (int t = 0; t < 2; t++) {
        kbv_backend *be = backend(both[t]);
        kbv_dtype dt = both[t];
        rng_state = 11;
        /* 2-D, odd sizes; then larger than the cache blocks (K > 256, N > 512) */
        int64_t sa[] = {5, 7}, sb[] = {7, 3}, so[] = {5, 3};
        kbv_tensor a = kbv_test_tensor(dt, 2, sa), b = kbv_test_tensor(dt, 2, sb), o = kbv_test_tensor(dt, 2, so);
        fill_uniform(&a, -1, 1);
        fill_uniform(&b, -1, 1);
        check_matmul(be, KBV_OP_MATMUL, NULL, &a, &b, &o);
        free(a.data), free(b.data), free(o.data);
        int64_t la[] = {9, 300}, lb[] = {300, 600}, lo[] = {9, 600};
        a = kbv_test_tensor(dt, 2, la), b = kbv_test_tensor(dt, 2, lb), o = kbv_test_tensor(dt, 2, lo);
        fill_uniform(&a, -1, 1);
        fill_uniform(&b, -1, 1);
        check_matmul(be, KBV_OP_MATMUL, NULL, &a, &b, &o);
        free(a.data), free(b.data), free(o.data);
        /* 1-D cases: vector @ matrix, matrix @ vector, dot (0-dim) */
        int64_t v7[] = {7}, m73[] = {7, 3}, m47[] = {4, 7}, s3[] = {3}, s4[] = {4};
        a = kbv_test_tensor(dt, 1, v7), b = kbv_test_tensor(dt, 2, m73), o = kbv_test_tensor(dt, 1, s3);
        fill_uniform(&a, -1, 1);
        fill_uniform(&b, -1, 1);
        check_matmul(be, KBV_OP_MATMUL, NULL, &a, &b, &o);
        free(b.data), free(o.data);
        b = kbv_test_tensor(dt, 2, m47), o = kbv_test_tensor(dt, 1, s4);
        fill_uniform(&b, -1, 1);
        check_matmul(be, KBV_OP_MATMUL, NULL, &b, &a, &o);
        free(o.data);
        o = kbv_test_tensor(dt, 0, NULL);
        check_matmul(be, KBV_OP_MATMUL, NULL, &a, &a, &o);
        free(a.data), free(b.data), free(o.data);
        /* batch dims broadcast: [2,1,4,5] @ [3,5,6] -> [2,3,4,6]; N-D @ 2-D; N-D @ 1-D */
        int64_t ba[] = {2, 1, 4, 5}, bb[] = {3, 5, 6}, bo[] = {2, 3, 4, 6};
        a = kbv_test_tensor(dt, 4, ba), b = kbv_test_tensor(dt, 3, bb), o = kbv_test_tensor(dt, 4, bo);
        fill_uniform(&a, -1, 1);
        fill_uniform(&b, -1, 1);
        check_matmul(be, KBV_OP_MATMUL, NULL, &a, &b, &o);
        free(b.data), free(o.data);
        int64_t m56[] = {5, 6}, o2[] = {2, 1, 4, 6}, v5[] = {5}, o3[] = {2, 1, 4};
        b = kbv_test_tensor(dt, 2, m56), o = kbv_test_tensor(dt, 4, o2);
        fill_uniform(&b, -1, 1);
        check_matmul(be, KBV_OP_MATMUL, NULL, &a, &b, &o);
        free(b.data), free(o.data);
        b = kbv_test_tensor(dt, 1, v5), o = kbv_test_tensor(dt, 3, o3);
        fill_uniform(&b, -1, 1);
        check_matmul(be, KBV_OP_MATMUL, NULL, &a, &b, &o);
        free(a.data), free(b.data), free(o.data);
        /* inner sizes that differ are rejected */
        a = kbv_test_tensor(dt, 2, sa), b = kbv_test_tensor(dt, 2, m47), o = kbv_test_tensor(dt, 2, so);
        kbv_tensor args[2] = {a, b};
        assert_int_equal(run_op(be, KBV_OP_MATMUL, NULL, args, 2, &o), KBV_ERR_INVALID);
        free(a.data), free(b.data), free(o.data);
        kbv_backend_destroy(be);
    }
}

/* A^T B, A B^T, A^T B^T through strided views (KernelBench L1/16-18), small
 * and across the kernel's cache blocks (K > 256, N > 512). */
static void test_matmul_transposed_views(void **state)
{
    (void)state;
    const int64_t sizes[2][3] = {{17, 33, 21}, {9, 300, 600}}; /* M, K, N */
    for (int t = 0; t < 2; t++) {
        kbv_backend *be = backend(both[t]);
        kbv_dtype dt = both[t];
        rng_state = 13;
        for (int z = 0; z < 2; z++) {
            int64_t M = sizes[z][0], K = sizes[z][1], N = sizes[z][2];
            int64_t s_at[] = {K, M}, s_b[] = {K, N}, s_bt[] = {N, K}, s_a[] = {M, K},
                    s_o[] = {M, N};
            kbv_tensor at = kbv_test_tensor(dt, 2, s_at), b = kbv_test_tensor(dt, 2, s_b), bt = kbv_test_tensor(dt, 2, s_bt),
                       a = kbv_test_tensor(dt, 2, s_a), o = kbv_test_tensor(dt, 2, s_o);
            fill_uniform(&at, -1, 1);
            fill_uniform(&b, -1, 1);
            fill_uniform(&bt, -1, 1);
            fill_uniform(&a, -1, 1);
            kbv_tensor at_v = transposed(&at), bt_v = transposed(&bt);
            check_matmul(be, KBV_OP_MATMUL, NULL, &at_v, &b, &o);
            check_matmul(be, KBV_OP_MATMUL, NULL, &a, &bt_v, &o);
            check_matmul(be, KBV_OP_MATMUL, NULL, &at_v, &bt_v, &o);
            free(at.data), free(b.data), free(bt.data), free(a.data), free(o.data);
        }
        kbv_backend_destroy(be);
    }
}

/* float32 accumulates in float32, k ascending, like a plain FP32 GEMM: the
 * result is bit-identical to that loop, whichever operand is transposed. */
static void test_matmul_f32_accumulation(void **state)
{
    (void)state;
    kbv_backend *be = backend(KBV_F32);
    rng_state = 17;
    const int64_t M = 6, K = 700, N = 5;
    int64_t sa[] = {M, K}, sb[] = {K, N}, sbt[] = {N, K}, so[] = {M, N};
    kbv_tensor a = kbv_test_tensor(KBV_F32, 2, sa), b = kbv_test_tensor(KBV_F32, 2, sb), bt = kbv_test_tensor(KBV_F32, 2, sbt),
               o = kbv_test_tensor(KBV_F32, 2, so), o2 = kbv_test_tensor(KBV_F32, 2, so);
    fill_uniform(&a, 0, 1);
    fill_uniform(&b, 0, 1);
    for (int64_t k = 0; k < K; k++)
        for (int64_t j = 0; j < N; j++)
            ((float *)bt.data)[j * K + k] = ((float *)b.data)[k * N + j];
    kbv_tensor args[2] = {a, b};
    assert_int_equal(run_op(be, KBV_OP_MATMUL, NULL, args, 2, &o), KBV_OK);
    args[1] = transposed(&bt);
    assert_int_equal(run_op(be, KBV_OP_MATMUL, NULL, args, 2, &o2), KBV_OK);
    bool differs_from_double = false;
    for (int64_t i = 0; i < M; i++)
        for (int64_t j = 0; j < N; j++) {
            float acc = 0.0f;
            double dacc = 0.0;
            for (int64_t k = 0; k < K; k++) {
                float p = ((float *)a.data)[i * K + k] * ((float *)b.data)[k * N + j];
                acc += p;
                dacc += (double)p;
            }
            assert_true(((float *)o.data)[i * N + j] == acc);
            assert_true(((float *)o2.data)[i * N + j] == acc);
            differs_from_double |= acc != (float)dacc;
        }
    assert_true(differs_from_double); /* the check can tell the two apart */
    free(a.data), free(b.data), free(bt.data), free(o.data), free(o2.data);
    kbv_backend_destroy(be);
}

static void test_bmm_and_einsum(void **state)
{
    (void)state;
    for (int t = 0; t < 2; t++) {
        kbv_backend *be = backend(both[t]);
        kbv_dtype dt = both[t];
        rng_state = 19;
        int64_t sa[] = {3, 4, 5}, sb[] = {3, 5, 6}, so[] = {3, 4, 6};
        kbv_tensor a = kbv_test_tensor(dt, 3, sa), b = kbv_test_tensor(dt, 3, sb), o = kbv_test_tensor(dt, 3, so);
        fill_uniform(&a, -1, 1);
        fill_uniform(&b, -1, 1);
        check_matmul(be, KBV_OP_BMM, NULL, &a, &b, &o);
        int64_t s2[] = {5, 6};
        kbv_tensor b2 = kbv_test_tensor(dt, 2, s2);
        kbv_tensor args[2] = {a, b2};
        assert_int_equal(run_op(be, KBV_OP_BMM, NULL, args, 2, &o), KBV_ERR_INVALID);
        free(a.data), free(b.data), free(o.data), free(b2.data);

        /* L1/11: "bijl,lk->bijk" is matmul over the last dim of A */
        kbv_node_def nd;
        memset(&nd, 0, sizeof nd);
        nd.s = "bijl,lk->bijk";
        int64_t ea[] = {2, 3, 4, 5}, eb[] = {5, 6}, eo[] = {2, 3, 4, 6};
        a = kbv_test_tensor(dt, 4, ea), b = kbv_test_tensor(dt, 2, eb), o = kbv_test_tensor(dt, 4, eo);
        fill_uniform(&a, -1, 1);
        fill_uniform(&b, -1, 1);
        check_matmul(be, KBV_OP_EINSUM, &nd, &a, &b, &o);
        nd.s = "bijl, lk -> bijk";
        check_matmul(be, KBV_OP_EINSUM, &nd, &a, &b, &o);
        /* contractions that are not this matmul are refused, not miscomputed */
        kbv_tensor eargs[2] = {a, b};
        nd.s = "bijl,kl->bijk";
        assert_int_equal(run_op(be, KBV_OP_EINSUM, &nd, eargs, 2, &o), KBV_ERR_UNSUPPORTED);
        nd.s = "bijl,lk->bjik";
        assert_int_equal(run_op(be, KBV_OP_EINSUM, &nd, eargs, 2, &o), KBV_ERR_UNSUPPORTED);
        nd.s = "...l,lk->...k";
        assert_int_equal(run_op(be, KBV_OP_EINSUM, &nd, eargs, 2, &o), KBV_ERR_UNSUPPORTED);
        free(a.data), free(b.data), free(o.data);
        kbv_backend_destroy(be);
    }
}

/* ---- layout ---- */

static void test_transpose_is_a_view(void **state)
{
    (void)state;
    kbv_backend *be = backend(KBV_F32);
    int64_t s[] = {3, 5}, st[] = {5, 3};
    kbv_tensor a = kbv_test_tensor(KBV_F32, 2, s), out = kbv_test_tensor(KBV_F32, 2, st);
    free(out.data);
    out.data = NULL;
    assert_int_equal(run_op(be, KBV_OP_TRANSPOSE, NULL, &a, 1, &out), KBV_OK);
    assert_ptr_equal(out.data, a.data);
    assert_int_equal(out.stride[0], 1);
    assert_int_equal(out.stride[1], 5);
    kbv_tensor wrong = kbv_test_tensor(KBV_F32, 2, s);
    assert_int_equal(run_op(be, KBV_OP_TRANSPOSE, NULL, &a, 1, &wrong), KBV_ERR_INVALID);
    free(a.data), free(wrong.data);
    kbv_backend_destroy(be);
}

static void test_diag(void **state)
{
    (void)state;
    for (int t = 0; t < 2; t++) {
        kbv_backend *be = backend(both[t]);
        kbv_dtype dt = both[t];
        rng_state = 23;
        int64_t s4[] = {4}, s44[] = {4, 4}, s35[] = {3, 5}, s3[] = {3};
        kbv_tensor v = kbv_test_tensor(dt, 1, s4), m = kbv_test_tensor(dt, 2, s44);
        fill_uniform(&v, 1, 2);
        fill_uniform(&m, 1, 2); /* garbage that must be overwritten */
        assert_int_equal(run_op(be, KBV_OP_DIAG, NULL, &v, 1, &m), KBV_OK);
        for (int64_t i = 0; i < 4; i++)
            for (int64_t j = 0; j < 4; j++) {
                int64_t ij[2] = {i, j}, ii[1] = {i};
                assert_true(get_at(&m, ij) == (i == j ? get_at(&v, ii) : 0.0));
            }
        /* 2-D -> its diagonal, here of a transposed view */
        kbv_tensor src = kbv_test_tensor(dt, 2, s35), d = kbv_test_tensor(dt, 1, s3);
        fill_uniform(&src, -1, 1);
        kbv_tensor srcv = transposed(&src); /* 5 x 3 */
        assert_int_equal(run_op(be, KBV_OP_DIAG, NULL, &srcv, 1, &d), KBV_OK);
        for (int64_t i = 0; i < 3; i++) {
            int64_t ii[1] = {i}, ij[2] = {i, i};
            assert_true(get_at(&d, ii) == get_at(&src, ij));
        }
        free(v.data), free(m.data), free(src.data), free(d.data);
        kbv_backend_destroy(be);
    }
}

static void test_triu_tril(void **state)
{
    (void)state;
    for (int t = 0; t < 2; t++) {
        kbv_backend *be = backend(both[t]);
        kbv_dtype dt = both[t];
        rng_state = 29;
        int64_t s[] = {2, 4, 6};
        kbv_tensor a = kbv_test_tensor(dt, 3, s), o = kbv_test_tensor(dt, 3, s);
        fill_uniform(&a, 1, 2);
        int64_t nan_at[3] = {1, 3, 0}, inf_at[3] = {0, 2, 1};
        set_at(&a, nan_at, NAN); /* below the diagonal: becomes an exact 0 under triu */
        set_at(&a, inf_at, INFINITY);
        for (int upper = 0; upper < 2; upper++) {
            for (int64_t diag = -2; diag <= 2; diag++) {
                kbv_node_def nd;
                memset(&nd, 0, sizeof nd);
                nd.i[0] = diag;
                assert_int_equal(run_op(be, upper ? KBV_OP_TRIU : KBV_OP_TRIL, &nd, &a, 1, &o),
                                 KBV_OK);
                int64_t idx[3] = {0, 0, 0};
                do {
                    int64_t i = idx[1], j = idx[2];
                    bool keep = upper ? j - i >= diag : j - i <= diag;
                    double x = get_at(&a, idx), y = get_at(&o, idx);
                    if (keep)
                        assert_true(y == x || (isnan(x) && isnan(y)));
                    else
                        assert_true(y == 0.0);
                } while (next_index(idx, s, 3));
            }
        }
        free(a.data), free(o.data);
        kbv_backend_destroy(be);
    }
}

/* ---- softmax ---- */

static void check_softmax(kbv_backend *be, const kbv_tensor *x, int64_t dim, bool is_log)
{
    kbv_dtype dt = be->float_dtype;
    kbv_tensor y = kbv_test_tensor(dt, x->ndim, x->shape);
    kbv_node_def nd;
    memset(&nd, 0, sizeof nd);
    nd.i[0] = dim;
    assert_int_equal(run_op(be, is_log ? KBV_OP_LOG_SOFTMAX : KBV_OP_SOFTMAX, &nd, x, 1, &y),
                     KBV_OK);
    int d = (int)(dim < 0 ? dim + x->ndim : dim);
    int64_t idx[KBV_MAX_DIMS] = {0};
    do {
        if (idx[d] != 0)
            continue;
        /* one line: reference with the max subtracted, in double */
        int64_t li[KBV_MAX_DIMS];
        memcpy(li, idx, sizeof li);
        double mx = -INFINITY, sum = 0, got_sum = 0;
        for (li[d] = 0; li[d] < x->shape[d]; li[d]++)
            mx = fmax(mx, get_at(x, li));
        for (li[d] = 0; li[d] < x->shape[d]; li[d]++)
            sum += exp(get_at(x, li) - mx);
        for (li[d] = 0; li[d] < x->shape[d]; li[d]++) {
            double v = get_at(x, li) - mx;
            double ref = is_log ? v - log(sum) : exp(v) / sum;
            double got = get_at(&y, li);
            assert_close(got, ref, dt == KBV_F32 ? 1e-5 : 1e-13);
            got_sum += is_log ? exp(got) : got;
        }
        assert_close(got_sum, 1.0, dt == KBV_F32 ? 1e-5 : 1e-13);
    } while (next_index(idx, x->shape, x->ndim));
    free(y.data);
}

static void test_softmax(void **state)
{
    (void)state;
    for (int t = 0; t < 2; t++) {
        kbv_backend *be = backend(both[t]);
        kbv_dtype dt = both[t];
        rng_state = 31;
        int64_t s[] = {3, 5, 7};
        kbv_tensor x = kbv_test_tensor(dt, 3, s);
        fill_uniform(&x, -5, 5);
        /* large values: fine only because the max is subtracted */
        int64_t big[3] = {1, 2, 3};
        set_at(&x, big, 1000.0);
        for (int is_log = 0; is_log < 2; is_log++) {
            for (int64_t dim = -3; dim < 3; dim++)
                check_softmax(be, &x, dim, is_log);
        }
        /* over a transposed view */
        int64_t s2[] = {6, 9};
        kbv_tensor m = kbv_test_tensor(dt, 2, s2);
        fill_uniform(&m, -2, 2);
        kbv_tensor mv = transposed(&m);
        check_softmax(be, &mv, 1, false);
        check_softmax(be, &mv, 0, true);
        /* a NaN poisons its line only, as in PyTorch */
        int64_t s1[] = {2, 3};
        kbv_tensor n = kbv_test_tensor(dt, 2, s1), y = kbv_test_tensor(dt, 2, s1);
        fill_uniform(&n, 0, 1);
        int64_t at[2] = {0, 1};
        set_at(&n, at, NAN);
        kbv_node_def nd;
        memset(&nd, 0, sizeof nd);
        nd.i[0] = 1;
        assert_int_equal(run_op(be, KBV_OP_SOFTMAX, &nd, &n, 1, &y), KBV_OK);
        for (int64_t j = 0; j < 3; j++) {
            int64_t r0[2] = {0, j}, r1[2] = {1, j};
            assert_true(isnan(get_at(&y, r0)));
            assert_true(isfinite(get_at(&y, r1)));
        }
        nd.i[0] = 2;
        assert_int_equal(run_op(be, KBV_OP_SOFTMAX, &nd, &n, 1, &y), KBV_ERR_INVALID);
        free(x.data), free(m.data), free(n.data), free(y.data);
        kbv_backend_destroy(be);
    }
}

/* ---- device services ---- */

static void test_allocator_stats(void **state)
{
    (void)state;
    kbv_backend *be = backend(KBV_F32);
    void *a = NULL, *b = NULL, *c = NULL;
    assert_int_equal(be->alloc(be, 1, &a), KBV_OK);
    assert_int_equal(be->mem.current, 512);
    assert_int_equal(be->alloc(be, 513, &b), KBV_OK);
    assert_int_equal(be->mem.current, 512 + 1024);
    assert_int_equal(be->alloc(be, 4096, &c), KBV_OK);
    assert_int_equal(be->mem.peak, 512 + 1024 + 4096);
    assert_true((uintptr_t)a % 256 == 0 && (uintptr_t)b % 256 == 0 && (uintptr_t)c % 256 == 0);
    memset(b, 0xab, 513); /* the whole request is usable */
    be->release(be, c);
    assert_int_equal(be->mem.current, 512 + 1024);
    assert_int_equal(be->mem.peak, 512 + 1024 + 4096);
    be->reset_peak(be);
    assert_int_equal(be->mem.peak, 512 + 1024);
    be->release(be, a);
    be->release(be, b);
    be->release(be, NULL);
    assert_int_equal(be->mem.current, 0);
    be->trim(be);
    assert_int_equal(be->sync(be), KBV_OK);
    void *huge = NULL;
    assert_int_equal(be->alloc(be, SIZE_MAX - 16, &huge), KBV_ERR_NOMEM);
    assert_null(huge);
    kbv_backend_destroy(be);
}

static void test_arena_is_shared(void **state)
{
    (void)state;
    kbv_backend *be = backend(KBV_F32);
    kbv_arena arena;
    assert_int_equal(be->arena_create(be, 10000, &arena), KBV_OK);
    assert_true(arena.bytes >= 10000);
    assert_true(arena.fd >= 0);
    /* A second mapping of the fd (what the candidate process does) sees the same bytes. */
    unsigned char *other = mmap(NULL, arena.bytes, PROT_READ | PROT_WRITE, MAP_SHARED, arena.fd, 0);
    assert_true(other != MAP_FAILED);
    memset(arena.base, 0x5a, 10000);
    assert_int_equal(other[9999], 0x5a);
    other[0] = 0x11;
    assert_int_equal(((unsigned char *)arena.base)[0], 0x11);
    munmap(other, arena.bytes);
    int fd = arena.fd;
    be->arena_destroy(be, &arena);
    assert_null(arena.base);
    assert_int_equal(arena.fd, -1);
    assert_int_equal(fcntl(fd, F_GETFD), -1); /* closed */
    kbv_backend_destroy(be);
}

static void test_copy_convert_poison(void **state)
{
    (void)state;
    kbv_backend *be = backend(KBV_F64);
    int64_t s[] = {3, 3};
    kbv_tensor f = kbv_test_tensor(KBV_F32, 2, s), d = kbv_test_tensor(KBV_F64, 2, s), back = kbv_test_tensor(KBV_F32, 2, s);
    rng_state = 37;
    fill_uniform(&f, -1, 1);
    assert_int_equal(be->convert(be, &f, &d), KBV_OK);
    assert_int_equal(be->convert(be, &d, &back), KBV_OK);
    assert_memory_equal(f.data, back.data, 9 * sizeof(float));
    ((double *)d.data)[4] = 1.0 + 0x1p-40; /* rounds to nearest */
    assert_int_equal(be->convert(be, &d, &back), KBV_OK);
    assert_true(((float *)back.data)[4] == 1.0f);
    int64_t s4[] = {4};
    kbv_tensor small = kbv_test_tensor(KBV_F32, 1, s4);
    assert_int_equal(be->convert(be, &d, &small), KBV_ERR_INVALID);

    float host[9];
    assert_int_equal(be->to_host(be, host, f.data, sizeof host), KBV_OK);
    assert_memory_equal(host, f.data, sizeof host);
    assert_int_equal(be->from_host(be, back.data, host, sizeof host), KBV_OK);
    assert_int_equal(be->copy(be, d.data, f.data, 0), KBV_OK);

    assert_int_equal(be->poison(be, &f), KBV_OK);
    assert_int_equal(be->poison(be, &d), KBV_OK);
    for (int i = 0; i < 9; i++) {
        uint32_t w;
        uint64_t q;
        memcpy(&w, (float *)f.data + i, 4);
        memcpy(&q, (double *)d.data + i, 8);
        assert_int_equal(w, KBV_POISON_F32);
        assert_true(q == ((uint64_t)KBV_POISON_F32 << 32 | KBV_POISON_F32));
        assert_true(isnan(((float *)f.data)[i]) && isnan(((double *)d.data)[i]));
    }
    free(f.data), free(d.data), free(back.data), free(small.data);
    kbv_backend_destroy(be);
}

/* allclose fields against ref; strict fields against oracle + strict baseline. */
static void test_compare(void **state)
{
    (void)state;
    kbv_backend *be = backend(KBV_F32);
    int64_t s[] = {8};
    kbv_tensor cand = kbv_test_tensor(KBV_F32, 1, s), ref = kbv_test_tensor(KBV_F32, 1, s), orc = kbv_test_tensor(KBV_F64, 1, s),
               strict = kbv_test_tensor(KBV_F32, 1, s);
    float *c = cand.data, *r = ref.data, *st = strict.data;
    double *o = orc.data;
    const double base[8] = {1.0, 2.0, -3.0, 4.0, 5.0, 6.0, 7.0, 8.0};
    for (int i = 0; i < 8; i++) {
        c[i] = r[i] = st[i] = (float)base[i];
        o[i] = base[i] + 1e-9;
    }
    c[1] = 2.0f + 0.003f;         /* fails allclose 1e-3 (tol 0.003) only just */
    c[2] = NAN;                   /* non-finite where the reference is finite */
    r[3] = INFINITY;              /* reference not finite: counted, not judged */
    o[4] = 1e39;                  /* the truth overflows float32; the strict baseline says 5: */
    o[5] = NAN;                   /* the oracle's own NaN is not the truth: the candidate's */
    st[5] = NAN;                  /* 6 is not judged, though fp32-strict agrees with it */
    o[6] = 1e39;                  /* overflow on both sides; the candidate must not be finite */
    st[6] = INFINITY;
    c[6] = INFINITY;
    r[6] = INFINITY;
    be->poison(be, &(kbv_tensor){.data = &c[7], .dtype = KBV_F32, .ndim = 0});
    kbv_compare_stats cs;
    assert_int_equal(be->compare(be, &cand, &ref, &orc, &strict, 1e-3, 1e-3, &cs), KBV_OK);
    assert_int_equal(cs.n, 8);
    assert_int_equal(cs.poison_left, 1);
    assert_int_equal(cs.cand_nonfinite, 3);   /* NaN, +inf, poison */
    assert_int_equal(cs.ref_nonfinite, 2);    /* r[3], r[6] */
    assert_int_equal(cs.allclose_fail, 3);    /* c[1], c[2], c[7] */
    assert_int_equal(cs.allclose_first, 1);
    assert_true(fabs(cs.max_abs_diff - 0.003) < 1e-6);
    assert_int_equal(cs.cand_nan, 2);         /* c[2], the poison */
    assert_int_equal(cs.unjudged, 2);         /* elements 4 and 5 */
    assert_int_equal(cs.oracle_nonfinite, 1); /* element 5 */
    assert_int_equal(cs.class_fail, 2);       /* 2 (NaN for finite), 7 (the poison) */
    assert_int_equal(cs.strict_first, 2);
    /* judged finite: 0, 1, 3 against the unrounded oracle */
    double e0 = 1.0 - (1.0 + 1e-9), e1 = (double)(2.0f + 0.003f) - (2.0 + 1e-9),
           e3 = 4.0 - (4.0 + 1e-9);
    assert_true(fabs(cs.sq_err - (e0 * e0 + e1 * e1 + e3 * e3)) < 1e-15);
    double o0 = 1 + 1e-9, o1 = 2 + 1e-9, o3 = 4 + 1e-9;
    assert_true(fabs(cs.sq_ref - (o0 * o0 + o1 * o1 + o3 * o3)) < 1e-12);
    assert_true(fabs(cs.max_err - fabs(e1)) < 1e-15);
    assert_true(cs.max_ref == o3);

    /* the budget baseline judged in the same call: the candidate's fields
     * as compare's, the budget's error sums as compare of it alone, the rest
     * of its fields empty; a budget needs an oracle */
    kbv_compare_stats fused, budget, alone;
    assert_int_equal(be->compare_budget(be, &cand, &strict, &ref, &orc, &strict, 1e-3, 1e-3,
                                        &fused, &budget),
                     KBV_OK);
    assert_memory_equal(&fused, &cs, sizeof cs);
    assert_int_equal(be->compare(be, &strict, &ref, &orc, &strict, 1e-3, 1e-3, &alone), KBV_OK);
    assert_true(alone.sq_ref > 0);
    assert_int_equal(budget.n, 8);
    assert_true(budget.sq_err == alone.sq_err && budget.sq_ref == alone.sq_ref);
    assert_true(budget.max_err == alone.max_err && budget.max_ref == alone.max_ref);
    assert_int_equal(budget.allclose_fail + budget.unjudged + budget.class_fail, 0);
    assert_int_equal(budget.strict_first, -1);
    assert_int_equal(be->compare_budget(be, &cand, &strict, &ref, NULL, NULL, 1e-3, 1e-3, &fused,
                                        &budget),
                     KBV_ERR_INVALID);

    /* without an oracle the strict fields stay zero */
    assert_int_equal(be->compare(be, &cand, &ref, NULL, NULL, 1e-3, 1e-3, &cs), KBV_OK);
    assert_int_equal(cs.unjudged + cs.class_fail, 0);
    assert_true(cs.sq_err == 0 && cs.max_ref == 0);
    assert_int_equal(cs.strict_first, -1);
    /* a clean candidate */
    assert_int_equal(be->compare(be, &ref, &ref, NULL, NULL, 0, 0, &cs), KBV_OK);
    assert_int_equal(cs.allclose_fail, 0);
    assert_int_equal(cs.allclose_first, -1);
    int64_t s4[] = {4};
    kbv_tensor small = kbv_test_tensor(KBV_F32, 1, s4);
    assert_int_equal(be->compare(be, &small, &ref, NULL, NULL, 0, 0, &cs), KBV_ERR_INVALID);
    free(cand.data), free(ref.data), free(orc.data), free(strict.data), free(small.data);
    kbv_backend_destroy(be);
}

static void test_hash(void **state)
{
    (void)state;
    kbv_backend *be = backend(KBV_F32);
    unsigned char buf[1000];
    for (int i = 0; i < 1000; i++)
        buf[i] = (unsigned char)(i * 7);
    uint64_t h1, h2, h3, h4, h5;
    assert_int_equal(be->hash(be, buf, sizeof buf, &h1), KBV_OK);
    assert_int_equal(be->hash(be, buf, sizeof buf, &h2), KBV_OK);
    assert_true(h1 == h2);
    buf[999] ^= 1; /* a bit of the tail */
    assert_int_equal(be->hash(be, buf, sizeof buf, &h3), KBV_OK);
    assert_true(h3 != h1);
    buf[999] ^= 1;
    uint64_t w0, w1; /* swap two 8-byte words: position matters */
    memcpy(&w0, buf, 8);
    memcpy(&w1, buf + 8, 8);
    memcpy(buf, &w1, 8);
    memcpy(buf + 8, &w0, 8);
    assert_int_equal(be->hash(be, buf, sizeof buf, &h4), KBV_OK);
    assert_true(h4 != h1);
    assert_int_equal(be->hash(be, buf, 999, &h5), KBV_OK); /* length matters */
    assert_true(h5 != h4);
    kbv_backend_destroy(be);
}

static void test_timer_and_flush(void **state)
{
    (void)state;
    kbv_backend *be = backend(KBV_F32);
    double ms = -1;
    assert_int_equal(be->timer_stop(be, &ms), KBV_ERR_INVALID);
    assert_int_equal(be->timer_start(be), KBV_OK);
    usleep(2000);
    assert_int_equal(be->timer_stop(be, &ms), KBV_OK);
    assert_true(ms >= 2.0 && ms < 1000.0);
    assert_int_equal(be->flush_cache(be), KBV_OK);
    assert_int_equal(be->flush_cache(be), KBV_OK);
    kbv_backend_destroy(be);
}

static void test_modes(void **state)
{
    (void)state;
    for (int m = 0; m < KBV_MODE_COUNT; m++) {
        kbv_mode parsed;
        assert_int_equal(kbv_mode_parse(kbv_mode_name((kbv_mode)m), &parsed), KBV_OK);
        assert_int_equal(parsed, m);
        kbv_backend *be = NULL;
        assert_int_equal(kbv_cpu_backend_create((kbv_mode)m, &be), KBV_OK);
        assert_int_equal(be->float_dtype, m == KBV_MODE_FP64   ? KBV_F64
                                          : m == KBV_MODE_BF16 ? KBV_BF16
                                                               : KBV_F32);
        assert_int_equal(be->device, -1);
        kbv_backend_destroy(be);
    }
    kbv_mode parsed;
    assert_int_equal(kbv_mode_parse("fp16", &parsed), KBV_ERR_PARSE);
    assert_string_equal(kbv_mode_name(KBV_MODE_FP32_STRICT), "fp32-strict");
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_every_op_implemented),
        cmocka_unit_test(test_unary_ops),
        cmocka_unit_test(test_unary_edges),
        cmocka_unit_test(test_binary_broadcasting),
        cmocka_unit_test(test_matmul_shapes),
        cmocka_unit_test(test_matmul_transposed_views),
        cmocka_unit_test(test_matmul_f32_accumulation),
        cmocka_unit_test(test_bmm_and_einsum),
        cmocka_unit_test(test_transpose_is_a_view),
        cmocka_unit_test(test_diag),
        cmocka_unit_test(test_triu_tril),
        cmocka_unit_test(test_softmax),
        cmocka_unit_test(test_allocator_stats),
        cmocka_unit_test(test_arena_is_shared),
        cmocka_unit_test(test_copy_convert_poison),
        cmocka_unit_test(test_compare),
        cmocka_unit_test(test_hash),
        cmocka_unit_test(test_timer_and_flush),
        cmocka_unit_test(test_modes),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
