/* The convolution and pooling ops: their keyword-argument parser, output
 * sizes and shape rules, and the CPU implementations in float32 and float64
 * against naive float64 references written here in another way (a gather
 * over every output element with explicit bounds checks, where the CPU
 * backend clips loop ranges and, for transposed convolutions, scatters). */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "exec/backend.h"
#include "support/host_tensor.h"
#include "graph/ops_conv.h"
#include "graph/ops_table.h"

/* ---- tensors: malloc'd, contiguous unless made a view ---- */

static int64_t numel_of(int ndim, const int64_t *shape)
{
    int64_t n = 1;
    for (int d = 0; d < ndim; d++)
        n *= shape[d];
    return n;
}


static double get_at(const kbv_tensor *t, const int64_t *idx)
{
    int64_t off = 0;
    for (int d = 0; d < t->ndim; d++)
        off += idx[d] * t->stride[d];
    return t->dtype == KBV_F32 ? ((float *)t->data)[off] : ((double *)t->data)[off];
}

static void set_at(kbv_tensor *t, const int64_t *idx, double v)
{
    int64_t off = 0;
    for (int d = 0; d < t->ndim; d++)
        off += idx[d] * t->stride[d];
    if (t->dtype == KBV_F32)
        ((float *)t->data)[off] = (float)v;
    else
        ((double *)t->data)[off] = v;
}

static bool next_index(int64_t *idx, const int64_t *shape, int ndim)
{
    for (int d = ndim - 1; d >= 0; d--) {
        if (++idx[d] < shape[d])
            return true;
        idx[d] = 0;
    }
    return false;
}

static uint64_t rng_state = 12345;
static double uniform(double lo, double hi)
{
    rng_state = rng_state * 6364136223846793005ull + 1442695040888963407ull;
    return lo + (hi - lo) * (double)(rng_state >> 11) * (1.0 / 9007199254740992.0);
}

static void fill_uniform(kbv_tensor *t, double lo, double hi)
{
    int64_t idx[KBV_MAX_DIMS] = {0};
    do
        set_at(t, idx, uniform(lo, hi));
    while (next_index(idx, t->shape, t->ndim));
}

/* t's values in a strided view: every other element along dim d of a
 * tensor twice as long there, whose other elements are noise. The owner
 * (to free) goes to *owner. */
static kbv_tensor strided_copy(const kbv_tensor *t, int d, kbv_tensor *owner)
{
    int64_t shape[KBV_MAX_DIMS];
    memcpy(shape, t->shape, sizeof shape);
    shape[d] *= 2;
    *owner = kbv_test_tensor(t->dtype, t->ndim, shape);
    fill_uniform(owner, -9.0, 9.0); /* the skipped elements must not matter */
    kbv_tensor v = *owner;
    v.shape[d] = t->shape[d];
    v.stride[d] *= 2;
    int64_t idx[KBV_MAX_DIMS] = {0};
    do
        set_at(&v, idx, get_at(t, idx));
    while (next_index(idx, t->shape, t->ndim));
    return v;
}

static kbv_backend *backend(kbv_dtype dt)
{
    kbv_backend *be = NULL;
    assert_int_equal(kbv_cpu_backend_create(dt == KBV_F64 ? KBV_MODE_FP64 : KBV_MODE_FP32, &be),
                     KBV_OK);
    return be;
}

static kbv_status run_op(kbv_backend *be, kbv_op op, const char *s, const kbv_tensor *args,
                         int n_args, kbv_tensor *out)
{
    kbv_node_def nd;
    memset(&nd, 0, sizeof nd);
    nd.op = op;
    nd.s = s;
    kbv_node node;
    memset(&node, 0, sizeof node);
    node.op = op;
    node.n_args = n_args;
    node.def = &nd;
    return be->ops[op](be, &node, args, out);
}

static const kbv_dtype both[2] = {KBV_F32, KBV_F64};

/* |got - ref| within tol of the sum of the magnitudes that made ref. */
static void assert_sum_close(double got, double ref, double abssum, double tol, const char *what)
{
    if (isnan(ref) || isinf(ref)) {
        if (!(isnan(ref) ? isnan(got) : got == ref))
            fail_msg("%s: got %.17g, expected %.17g", what, got, ref);
        return;
    }
    if (!(fabs(got - ref) <= tol * abssum + 1e-300))
        fail_msg("%s: got %.17g, expected %.17g (terms' magnitude %g)", what, got, ref, abssum);
}

/* ------------------------------------------------------------- parser */

static void test_parse_defaults_and_tuples(void **state)
{
    (void)state;
    kbv_window w;
    assert_int_equal(kbv_window_parse(KBV_OP_CONV2D, "", &w), KBV_OK);
    assert_int_equal(w.kind, KBV_WINDOW_CONV);
    assert_int_equal(w.spatial, 2);
    assert_false(w.has_bias);
    assert_int_equal(w.stride[0], 1);
    assert_int_equal(w.stride[1], 1);
    assert_int_equal(w.padding[1], 0);
    assert_int_equal(w.dilation[0], 1);
    assert_int_equal(w.groups, 1);

    assert_int_equal(kbv_window_parse(KBV_OP_CONV_TRANSPOSE3D_BIAS,
                                      " stride=(2, 1,3), padding = 1, output_padding=(1, 0, 2),"
                                      " groups=4, dilation=(1,2,1), ",
                                      &w),
                     KBV_OK);
    assert_int_equal(w.kind, KBV_WINDOW_CONV_TRANSPOSE);
    assert_true(w.has_bias);
    assert_int_equal(w.stride[0], 2);
    assert_int_equal(w.stride[2], 3);
    assert_int_equal(w.padding[2], 1);
    assert_int_equal(w.output_padding[2], 2);
    assert_int_equal(w.dilation[1], 2);
    assert_int_equal(w.groups, 4);

    /* pooling: stride defaults to the kernel size; flags */
    assert_int_equal(kbv_window_parse(KBV_OP_AVG_POOL2D, "kernel_size=(3, 11)", &w), KBV_OK);
    assert_int_equal(w.stride[0], 3);
    assert_int_equal(w.stride[1], 11);
    assert_true(w.count_include_pad);
    assert_false(w.ceil_mode);
    assert_int_equal(kbv_window_parse(KBV_OP_AVG_POOL1D,
                                      "kernel_size=4, stride=2, padding=2, ceil_mode=True, "
                                      "count_include_pad=False",
                                      &w),
                     KBV_OK);
    assert_true(w.ceil_mode);
    assert_false(w.count_include_pad);
    assert_int_equal(kbv_window_parse(KBV_OP_MAX_POOL3D, "kernel_size=3, dilation=(1, 2, 3)", &w),
                     KBV_OK);
    assert_int_equal(w.dilation[2], 3);
    assert_int_equal(w.stride[1], 3);
}

static void test_parse_errors(void **state)
{
    (void)state;
    static const struct {
        kbv_op op;
        const char *s;
        const char *message;
    } bad[] = {
        {KBV_OP_CONV2D, NULL, "no keyword arguments"},
        {KBV_OP_CONV2D, "strides=1", "'strides' is not supported"},
        {KBV_OP_CONV2D, "kernel_size=3", "'kernel_size' is not supported"},
        {KBV_OP_CONV2D, "output_padding=1", "'output_padding' is not supported"},
        {KBV_OP_CONV2D, "stride=(1, 2, 3)", "stride has 3 entries, expected one integer or 2"},
        {KBV_OP_CONV1D, "stride=1, stride=2", "stride given twice"},
        {KBV_OP_CONV2D, "stride=0", "stride should be greater than zero"},
        {KBV_OP_CONV2D, "padding=-1", "not a non-negative integer"},
        {KBV_OP_CONV2D, "padding='same'", "not a non-negative integer"},
        {KBV_OP_CONV2D, "groups=(2, 2)", "groups is one integer"},
        {KBV_OP_CONV2D, "groups=0", "groups should be greater than zero"},
        {KBV_OP_CONV2D, "stride=1 padding=0", "expected ','"},
        {KBV_OP_CONV2D, "stride 1", "expected '='"},
        {KBV_OP_CONV2D, "stride=(1, 2", "expected ',' or ')'"},
        {KBV_OP_CONV2D, "stride=()", "empty tuple"},
        {KBV_OP_CONV2D, "dilation=True", "takes integers"},
        {KBV_OP_CONV_TRANSPOSE1D, "stride=2, output_padding=2", "output padding must be smaller"},
        {KBV_OP_MAX_POOL2D, "stride=2", "kernel_size is required"},
        {KBV_OP_MAX_POOL2D, "kernel_size=3, padding=2", "pad should be at most half"},
        {KBV_OP_MAX_POOL2D, "kernel_size=3, ceil_mode=1", "takes True or False"},
        {KBV_OP_MAX_POOL2D, "kernel_size=3, count_include_pad=True", "is not supported"},
        {KBV_OP_AVG_POOL2D, "kernel_size=3, dilation=2", "'dilation' is not supported"},
        {KBV_OP_AVG_POOL2D, "kernel_size=0", "kernel size should be greater than zero"},
        {KBV_OP_MATMUL, "", "not a convolution or pooling op"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        kbv_window w;
        assert_int_equal(kbv_window_parse(bad[i].op, bad[i].s, &w), KBV_ERR_INVALID);
        if (!strstr(kbv_last_error(), bad[i].message))
            fail_msg("\"%s\": message '%s' lacks '%s'", bad[i].s ? bad[i].s : "(null)",
                     kbv_last_error(), bad[i].message);
    }
}

/* Output sizes PyTorch gives (the catalog's shapes and hand-checked cases). */
static void test_output_sizes(void **state)
{
    (void)state;
    assert_int_equal(kbv_conv_out_size(224, 11, 4, 2, 1), 55);
    assert_int_equal(kbv_conv_out_size(524280, 3, 3, 0, 4), 174758);
    assert_int_equal(kbv_conv_out_size(512, 9, 1, 4, 3), 496);
    assert_int_equal(kbv_conv_out_size(4, 5, 1, 0, 1), 0);
    assert_int_equal(kbv_conv_transpose_out_size(12, 3, 2, 1, 1, 1), 24);
    assert_int_equal(kbv_conv_transpose_out_size(64, 3, 5, 1, 2, 0), 318);
    assert_int_equal(kbv_conv_transpose_out_size(131072, 3, 2, 1, 2, 0), 262145);
    assert_int_equal(kbv_pool_out_size(65536, 8, 1, 4, 3, false), 65523);
    assert_int_equal(kbv_pool_out_size(2048, 11, 11, 0, 1, false), 186);
    assert_int_equal(kbv_pool_out_size(128, 3, 2, 1, 3, false), 62);
    /* ceil_mode: a last partial window counts unless it starts in the right padding */
    assert_int_equal(kbv_pool_out_size(10, 3, 2, 0, 1, false), 4);
    assert_int_equal(kbv_pool_out_size(10, 3, 2, 0, 1, true), 5);
    assert_int_equal(kbv_pool_out_size(5, 2, 2, 1, 1, true), 3);
    assert_int_equal(kbv_pool_out_size(6, 2, 2, 1, 1, true), 4);
    assert_int_equal(kbv_pool_out_size(4, 3, 3, 1, 1, true), 2);
}

static kbv_value value(const char *name, int ndim, const int64_t *shape)
{
    kbv_value v;
    memset(&v, 0, sizeof v);
    v.name = name;
    v.dtype = KBV_F32;
    v.ndim = ndim;
    memcpy(v.shape, shape, sizeof(int64_t) * (size_t)ndim);
    return v;
}

static kbv_status shape_of(kbv_op op, const char *s, const kbv_value *x, const kbv_value *w,
                           const kbv_value *b, kbv_value *out)
{
    kbv_node_def nd;
    memset(&nd, 0, sizeof nd);
    nd.op = op;
    nd.s = s;
    const kbv_value *args[3] = {x, w, b};
    memset(out, 0, sizeof *out);
    return kbv_op_table[op].shape(&nd, args, out);
}

static void test_shape_rules(void **state)
{
    (void)state;
    kbv_value out;
    kbv_value x = value("x", 5, (int64_t[]){8, 32, 12, 24, 48});
    kbv_value w = value("w", 5, (int64_t[]){32, 8, 3, 5, 7});
    assert_int_equal(shape_of(KBV_OP_CONV_TRANSPOSE3D,
                              "stride=2, padding=(1, 2, 3), output_padding=1, groups=4", &x, &w,
                              NULL, &out),
                     KBV_OK);
    assert_int_equal(out.ndim, 5);
    assert_int_equal(out.shape[1], 32);
    assert_int_equal(out.shape[2], 24);
    assert_int_equal(out.shape[3], 48);
    assert_int_equal(out.shape[4], 96);

    /* channels that do not match, named in the message */
    kbv_value x2 = value("x", 4, (int64_t[]){2, 6, 9, 9});
    kbv_value w2 = value("w", 4, (int64_t[]){4, 4, 3, 3});
    assert_int_equal(shape_of(KBV_OP_CONV2D, "groups=2", &x2, &w2, NULL, &out), KBV_ERR_INVALID);
    assert_non_null(strstr(kbv_last_error(), "expects the input to have 8 channels"));
    kbv_value w3 = value("w", 4, (int64_t[]){4, 3, 3, 3});
    assert_int_equal(shape_of(KBV_OP_CONV2D, "groups=2", &x2, &w3, NULL, &out), KBV_OK);
    assert_int_equal(out.shape[1], 4);
    assert_int_equal(out.shape[2], 7);
    kbv_value w_odd = value("w", 4, (int64_t[]){5, 3, 3, 3});
    assert_int_equal(shape_of(KBV_OP_CONV2D, "groups=2", &x2, &w_odd, NULL, &out),
                     KBV_ERR_INVALID);
    /* kernel larger than the padded input */
    assert_int_equal(shape_of(KBV_OP_CONV2D, "dilation=5, groups=2", &x2, &w3, NULL, &out),
                     KBV_ERR_INVALID);
    assert_non_null(strstr(kbv_last_error(), "too small"));
    /* bias of the wrong length */
    kbv_value b = value("b", 1, (int64_t[]){3});
    assert_int_equal(shape_of(KBV_OP_CONV2D_BIAS, "groups=2", &x2, &w3, &b, &out),
                     KBV_ERR_INVALID);
    b.shape[0] = 4;
    assert_int_equal(shape_of(KBV_OP_CONV2D_BIAS, "groups=2", &x2, &w3, &b, &out), KBV_OK);
    /* wrong rank */
    assert_int_equal(shape_of(KBV_OP_CONV1D, "", &x2, &w3, NULL, &out), KBV_ERR_INVALID);

    /* pools keep leading dims; an input without batch dim is accepted */
    kbv_value p = value("x", 3, (int64_t[]){5, 10, 7});
    assert_int_equal(shape_of(KBV_OP_MAX_POOL2D, "kernel_size=3, stride=2, ceil_mode=True", &p,
                              NULL, NULL, &out),
                     KBV_OK);
    assert_int_equal(out.ndim, 3);
    assert_int_equal(out.shape[0], 5);
    assert_int_equal(out.shape[1], 5);
    assert_int_equal(out.shape[2], 3);
    assert_int_equal(shape_of(KBV_OP_MAX_POOL3D, "kernel_size=3", &p, NULL, NULL, &out),
                     KBV_ERR_INVALID);
    kbv_value tiny = value("x", 3, (int64_t[]){1, 2, 2});
    assert_int_equal(shape_of(KBV_OP_AVG_POOL1D, "kernel_size=3", &tiny, NULL, NULL, &out),
                     KBV_ERR_INVALID);
}

/* ------------------------------------------------- convolution references */

typedef struct conv_case {
    int spatial;
    bool transposed, bias;
    int64_t batch, cin, cout, groups;
    int64_t in[3], k[3];
    const char *s;
    int64_t stride[3], pad[3], dil[3], out_pad[3];
} conv_case;

/* y[n, oc, o] = b[oc] + sum over the group's channels and taps of w * x, by
 * gathering: for a transposed convolution the input position i is found
 * from o = i * s - p + k * d, when it divides. */
static void reference_conv(const conv_case *c, const kbv_tensor *x, const kbv_tensor *w,
                           const kbv_tensor *b, const kbv_tensor *y, kbv_tensor *ref,
                           kbv_tensor *mag)
{
    const int sp = c->spatial;
    int64_t yi[KBV_MAX_DIMS] = {0};
    const int64_t cin_g = c->cin / c->groups, cout_g = c->cout / c->groups;
    do {
        int64_t n = yi[0], oc = yi[1], g = oc / cout_g;
        double sum = b ? get_at(b, &oc) : 0.0, abssum = fabs(sum);
        for (int64_t ci = 0; ci < cin_g; ci++) {
            int64_t ic = g * cin_g + ci;
            int64_t ki[3] = {0, 0, 0};
            do {
                int64_t xi[5] = {n, ic, 0, 0, 0};
                bool inside = true;
                for (int d = 0; d < sp; d++) {
                    int64_t o = yi[2 + d];
                    if (!c->transposed) {
                        xi[2 + d] = o * c->stride[d] - c->pad[d] + ki[d] * c->dil[d];
                    } else {
                        int64_t t = o + c->pad[d] - ki[d] * c->dil[d];
                        if (t < 0 || t % c->stride[d] != 0) {
                            inside = false;
                            break;
                        }
                        xi[2 + d] = t / c->stride[d];
                    }
                    if (xi[2 + d] < 0 || xi[2 + d] >= c->in[d])
                        inside = false;
                }
                if (!inside)
                    continue;
                int64_t wi[5];
                wi[0] = c->transposed ? ic : oc;
                wi[1] = c->transposed ? oc - g * cout_g : ci;
                for (int d = 0; d < sp; d++)
                    wi[2 + d] = ki[d];
                double term = get_at(w, wi) * get_at(x, xi);
                sum += term;
                abssum += fabs(term);
            } while (next_index(ki, c->k, sp));
        }
        set_at(ref, yi, sum);
        set_at(mag, yi, abssum);
    } while (next_index(yi, y->shape, y->ndim));
}

static kbv_op conv_op(const conv_case *c)
{
    static const kbv_op ops[2][2][3] = {
        {{KBV_OP_CONV1D, KBV_OP_CONV2D, KBV_OP_CONV3D},
         {KBV_OP_CONV1D_BIAS, KBV_OP_CONV2D_BIAS, KBV_OP_CONV3D_BIAS}},
        {{KBV_OP_CONV_TRANSPOSE1D, KBV_OP_CONV_TRANSPOSE2D, KBV_OP_CONV_TRANSPOSE3D},
         {KBV_OP_CONV_TRANSPOSE1D_BIAS, KBV_OP_CONV_TRANSPOSE2D_BIAS,
          KBV_OP_CONV_TRANSPOSE3D_BIAS}},
    };
    return ops[c->transposed][c->bias][c->spatial - 1];
}

/* Runs one case in both dtypes, contiguous and (x, w) as strided views. */
static void check_conv(const conv_case *c)
{
    const int sp = c->spatial, nd = sp + 2;
    int64_t xs[5] = {c->batch, c->cin}, ws[5], ys[5] = {c->batch, c->cout};
    ws[0] = c->transposed ? c->cin : c->cout;
    ws[1] = (c->transposed ? c->cout : c->cin) / c->groups;
    for (int d = 0; d < sp; d++) {
        xs[2 + d] = c->in[d];
        ws[2 + d] = c->k[d];
        int64_t eff = c->dil[d] * (c->k[d] - 1) + 1;
        ys[2 + d] = c->transposed
                        ? (c->in[d] - 1) * c->stride[d] - 2 * c->pad[d] + eff + c->out_pad[d]
                        : (c->in[d] + 2 * c->pad[d] - eff) / c->stride[d] + 1;
        assert_true(ys[2 + d] >= 1);
    }
    for (int t = 0; t < 2; t++) {
        kbv_backend *be = backend(both[t]);
        kbv_tensor x = kbv_test_tensor(both[t], nd, xs), w = kbv_test_tensor(both[t], nd, ws);
        kbv_tensor b = kbv_test_tensor(both[t], 1, (int64_t[]){c->cout});
        kbv_tensor y = kbv_test_tensor(both[t], nd, ys);
        kbv_tensor ref = kbv_test_tensor(KBV_F64, nd, ys), mag = kbv_test_tensor(KBV_F64, nd, ys);
        fill_uniform(&x, -1.0, 1.0);
        fill_uniform(&w, -0.5, 0.5);
        fill_uniform(&b, -1.0, 1.0);
        reference_conv(c, &x, &w, c->bias ? &b : NULL, &y, &ref, &mag);
        double tol = both[t] == KBV_F32 ? 1e-5 : 1e-14;
        /* contiguous; strided along the last dims; strided along the channels */
        for (int view = 0; view < 3; view++) {
            kbv_tensor owner_x, owner_w;
            kbv_tensor args[3] = {x, w, b};
            if (view) {
                args[0] = strided_copy(&x, view == 1 ? nd - 1 : 1, &owner_x);
                args[1] = strided_copy(&w, view == 1 ? nd - 1 : 1, &owner_w);
            }
            memset(y.data, 0xff, (size_t)numel_of(nd, ys) * (both[t] == KBV_F32 ? 4 : 8));
            kbv_status st = run_op(be, conv_op(c), c->s, args, c->bias ? 3 : 2, &y);
            if (st != KBV_OK)
                fail_msg("%s \"%s\": %s", kbv_op_table[conv_op(c)].name, c->s,
                         kbv_last_error());
            int64_t idx[KBV_MAX_DIMS] = {0};
            char what[160];
            snprintf(what, sizeof what, "%s \"%s\" %s%s", kbv_op_table[conv_op(c)].name, c->s,
                     kbv_dtype_name(both[t]), view ? " (strided views)" : "");
            do
                assert_sum_close(get_at(&y, idx), get_at(&ref, idx), get_at(&mag, idx), tol,
                                 what);
            while (next_index(idx, ys, nd));
            if (view) {
                free(owner_x.data);
                free(owner_w.data);
            }
        }
        free(x.data);
        free(w.data);
        free(b.data);
        free(y.data);
        free(ref.data);
        free(mag.data);
        kbv_backend_destroy(be);
    }
}

static void test_conv(void **state)
{
    (void)state;
    static const conv_case cases[] = {
        /* spatial, transposed, bias, N, Cin, Cout, groups, in, k, s, stride, pad, dil, out_pad */
        {1, false, false, 2, 3, 4, 1, {13}, {3}, "stride=1", {1}, {0}, {1}, {0}},
        {1, false, true, 2, 4, 6, 2, {17}, {3}, "stride=3, dilation=4, groups=2, padding=2",
         {3}, {2}, {4}, {0}},
        {2, false, false, 2, 3, 5, 1, {9, 11}, {5, 7}, "padding=(2, 3)", {1, 1}, {2, 3}, {1, 1},
         {0, 0}},
        {2, false, true, 3, 3, 2, 1, {23, 27}, {11, 11}, "stride=4, padding=2", {4, 4}, {2, 2},
         {1, 1}, {0, 0}},
        {2, false, false, 2, 6, 6, 6, {7, 9}, {3, 3}, "groups=6", {1, 1}, {0, 0}, {1, 1}, {0, 0}},
        {2, false, false, 1, 4, 8, 4, {8, 10}, {3, 1}, "groups=4, stride=(2, 1), padding=(1, 0)",
         {2, 1}, {1, 0}, {1, 1}, {0, 0}},
        {2, false, false, 2, 4, 6, 2, {11, 29}, {5, 9},
         "padding=(2, 4), dilation=(2, 3), groups=2", {1, 1}, {2, 4}, {2, 3}, {0, 0}},
        {2, false, false, 2, 5, 7, 1, {6, 5}, {1, 1}, "", {1, 1}, {0, 0}, {1, 1}, {0, 0}},
        {3, false, false, 2, 3, 4, 1, {5, 7, 6}, {3, 5, 1}, "stride=(1, 2, 1)", {1, 2, 1},
         {0, 0, 0}, {1, 1, 1}, {0, 0, 0}},
        {3, false, true, 1, 4, 4, 2, {6, 7, 8}, {3, 3, 3},
         "stride=2, padding=1, dilation=(1, 2, 1), groups=2", {2, 2, 2}, {1, 1, 1}, {1, 2, 1},
         {0, 0, 0}},
        /* transposed */
        {1, true, false, 2, 3, 4, 1, {11}, {3}, "stride=1", {1}, {0}, {1}, {0}},
        {1, true, true, 2, 4, 6, 2, {13}, {5},
         "stride=2, padding=1, dilation=3, output_padding=1, groups=2", {2}, {1}, {3}, {1}},
        {1, true, false, 2, 3, 5, 1, {9}, {3}, "stride=2, padding=1, dilation=2", {2}, {1}, {2},
         {0}},
        {2, true, false, 2, 4, 8, 4, {5, 7}, {3, 5},
         "stride=(2, 3), padding=(1, 2), dilation=(2, 1), groups=4", {2, 3}, {1, 2}, {2, 1},
         {0, 0}},
        {2, true, true, 2, 3, 5, 1, {3, 5}, {3, 3}, "stride=5, padding=1, dilation=2", {5, 5},
         {1, 1}, {2, 2}, {0, 0}},
        {2, true, false, 2, 3, 3, 1, {5, 9}, {3, 7}, "padding=(1, 3)", {1, 1}, {1, 3}, {1, 1},
         {0, 0}},
        {3, true, false, 2, 8, 8, 4, {3, 5, 5}, {3, 5, 7},
         "stride=2, padding=(1, 2, 3), output_padding=1, groups=4", {2, 2, 2}, {1, 2, 3},
         {1, 1, 1}, {1, 1, 1}},
        {3, true, true, 1, 3, 4, 1, {3, 4, 5}, {3, 3, 3},
         "stride=(2, 1, 3), padding=(0, 1, 1), output_padding=(1, 0, 2), dilation=(1, 2, 1)",
         {2, 1, 3}, {0, 1, 1}, {1, 2, 1}, {1, 0, 2}},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_conv(&cases[i]);
}

/* Operands the op cannot use are refused with a message, not read. */
static void test_conv_rejects_mismatches(void **state)
{
    (void)state;
    kbv_backend *be = backend(KBV_F32);
    kbv_tensor x = kbv_test_tensor(KBV_F32, 4, (int64_t[]){1, 4, 6, 6});
    kbv_tensor w = kbv_test_tensor(KBV_F32, 4, (int64_t[]){3, 4, 3, 3});
    kbv_tensor y = kbv_test_tensor(KBV_F32, 4, (int64_t[]){1, 3, 4, 4});
    kbv_tensor args[2] = {x, w};
    assert_int_equal(run_op(be, KBV_OP_CONV2D, "groups=2", args, 2, &y), KBV_ERR_INVALID);
    assert_int_equal(run_op(be, KBV_OP_CONV2D, "padding=1", args, 2, &y), KBV_ERR_INVALID);
    assert_non_null(strstr(kbv_last_error(), "expected 6"));
    assert_int_equal(run_op(be, KBV_OP_CONV2D, "", args, 2, &y), KBV_OK);
    kbv_tensor xd = x;
    xd.dtype = KBV_F64;
    kbv_tensor args_d[2] = {xd, w};
    assert_int_equal(run_op(be, KBV_OP_CONV2D, "", args_d, 2, &y), KBV_ERR_UNSUPPORTED);
    free(x.data);
    free(w.data);
    free(y.data);
    kbv_backend_destroy(be);
}

/* ---------------------------------------------------- pooling references */

typedef struct pool_case {
    int spatial;
    bool is_max, unbatched;
    int64_t lead[2];
    int64_t in[3];
    const char *s;
    int64_t k[3], stride[3], pad[3], dil[3];
    bool ceil_mode, count_include_pad;
} pool_case;

static int64_t pool_out(int64_t in, int64_t k, int64_t s, int64_t p, int64_t d, bool ceil_mode)
{
    /* the number of window starts o * s - p (o >= 0) whose window fits the
     * padded input, plus with ceil_mode one that starts inside the input or
     * the left padding and runs past the end */
    int64_t eff = d * (k - 1) + 1, o = 0;
    while (o * s - p + eff <= in + p)
        o++;
    if (ceil_mode && o * s - p < in && o * s - p + eff > in + p)
        o++;
    return o;
}

static void reference_pool(const pool_case *c, const kbv_tensor *x, const kbv_tensor *y,
                           kbv_tensor *ref)
{
    const int lead = c->unbatched ? 1 : 2, sp = c->spatial;
    int64_t yi[KBV_MAX_DIMS] = {0};
    do {
        double best = -INFINITY, sum = 0.0;
        int64_t padded = 1, valid = 1;
        for (int d = 0; d < sp; d++) {
            int64_t in_padded = 0, in_input = 0;
            for (int64_t k = 0; k < c->k[d]; k++) {
                int64_t pos = yi[lead + d] * c->stride[d] - c->pad[d] + k;
                in_padded += pos < c->in[d] + c->pad[d];
                in_input += pos >= 0 && pos < c->in[d];
            }
            padded *= in_padded;
            valid *= in_input;
        }
        int64_t ki[3] = {0, 0, 0};
        do {
            int64_t xi[KBV_MAX_DIMS];
            memcpy(xi, yi, sizeof xi);
            bool inside = true;
            for (int d = 0; d < sp; d++) {
                xi[lead + d] = yi[lead + d] * c->stride[d] - c->pad[d] + ki[d] * c->dil[d];
                inside = inside && xi[lead + d] >= 0 && xi[lead + d] < c->in[d];
            }
            if (!inside)
                continue;
            double v = get_at(x, xi);
            if (isnan(v) || v > best)
                best = isnan(best) ? best : v;
            sum += v;
        } while (next_index(ki, c->k, sp));
        double r;
        if (c->is_max)
            r = best;
        else if (valid == 0)
            r = 0.0;
        else
            r = sum / (double)(c->count_include_pad ? padded : valid);
        set_at(ref, yi, r);
    } while (next_index(yi, y->shape, y->ndim));
}

static kbv_op pool_op(const pool_case *c)
{
    static const kbv_op ops[2][3] = {
        {KBV_OP_AVG_POOL1D, KBV_OP_AVG_POOL2D, KBV_OP_AVG_POOL3D},
        {KBV_OP_MAX_POOL1D, KBV_OP_MAX_POOL2D, KBV_OP_MAX_POOL3D},
    };
    return ops[c->is_max][c->spatial - 1];
}

static void check_pool(const pool_case *c, bool with_nan)
{
    const int lead = c->unbatched ? 1 : 2, nd = lead + c->spatial;
    int64_t xs[KBV_MAX_DIMS], ys[KBV_MAX_DIMS];
    for (int d = 0; d < lead; d++)
        xs[d] = ys[d] = c->lead[d];
    for (int d = 0; d < c->spatial; d++) {
        xs[lead + d] = c->in[d];
        ys[lead + d] = pool_out(c->in[d], c->k[d], c->stride[d], c->pad[d], c->dil[d],
                                c->ceil_mode);
        assert_int_equal(ys[lead + d], kbv_pool_out_size(c->in[d], c->k[d], c->stride[d],
                                                          c->pad[d], c->dil[d], c->ceil_mode));
    }
    for (int t = 0; t < 2; t++) {
        kbv_backend *be = backend(both[t]);
        kbv_tensor x = kbv_test_tensor(both[t], nd, xs), y = kbv_test_tensor(both[t], nd, ys);
        kbv_tensor ref = kbv_test_tensor(KBV_F64, nd, ys);
        fill_uniform(&x, -2.0, 2.0);
        if (with_nan) {
            int64_t idx[KBV_MAX_DIMS] = {0};
            idx[nd - 1] = xs[nd - 1] / 2;
            set_at(&x, idx, NAN);
            idx[nd - 1] = 0;
            set_at(&x, idx, -INFINITY);
        }
        reference_pool(c, &x, &y, &ref);
        for (int view = 0; view < 2; view++) {
            kbv_tensor owner;
            kbv_tensor arg = view ? strided_copy(&x, nd - 1, &owner) : x;
            kbv_status st = run_op(be, pool_op(c), c->s, &arg, 1, &y);
            if (st != KBV_OK)
                fail_msg("%s \"%s\": %s", kbv_op_table[pool_op(c)].name, c->s,
                         kbv_last_error());
            char what[160];
            snprintf(what, sizeof what, "%s \"%s\" %s%s", kbv_op_table[pool_op(c)].name, c->s,
                     kbv_dtype_name(both[t]), view ? " (strided view)" : "");
            int64_t idx[KBV_MAX_DIMS] = {0};
            do {
                double r = get_at(&ref, idx);
                /* the sum of at most 27 terms of magnitude <= 2 */
                assert_sum_close(get_at(&y, idx), r, 54.0,
                                 both[t] == KBV_F32 ? 4e-7 : 1e-15, what);
            } while (next_index(idx, ys, nd));
            if (view)
                free(owner.data);
        }
        free(x.data);
        free(y.data);
        free(ref.data);
        kbv_backend_destroy(be);
    }
}

static void test_pool(void **state)
{
    (void)state;
    static const pool_case cases[] = {
        /* spatial, max, unbatched, lead, in, s, k, stride, pad, dil, ceil, count_include_pad */
        {1, true, false, {3, 5}, {37}, "kernel_size=8, stride=1, padding=4, dilation=3", {8},
         {1}, {4}, {3}, false, true},
        {2, true, false, {2, 3}, {11, 13}, "kernel_size=4, stride=1, padding=1, dilation=1",
         {4, 4}, {1, 1}, {1, 1}, {1, 1}, false, true},
        {3, true, false, {2, 3}, {9, 11, 13}, "kernel_size=3, stride=2, padding=1, dilation=3",
         {3, 3, 3}, {2, 2, 2}, {1, 1, 1}, {3, 3, 3}, false, true},
        {2, true, true, {4, 0}, {10, 7}, "kernel_size=(3, 2), stride=2, padding=(1, 1), "
         "ceil_mode=True", {3, 2}, {2, 2}, {1, 1}, {1, 1}, true, true},
        {1, true, false, {2, 2}, {10}, "kernel_size=3, stride=2, ceil_mode=True", {3}, {2},
         {0}, {1}, true, true},
        {1, false, false, {3, 5}, {37}, "kernel_size=8, stride=1, padding=4", {8}, {1}, {4},
         {1}, false, true},
        {2, false, false, {2, 3}, {25, 35}, "kernel_size=11", {11, 11}, {11, 11}, {0, 0},
         {1, 1}, false, true},
        {3, false, false, {2, 3}, {7, 9, 11}, "kernel_size=3, stride=2, padding=1", {3, 3, 3},
         {2, 2, 2}, {1, 1, 1}, {1, 1, 1}, false, true},
        {2, false, false, {2, 2}, {9, 8}, "kernel_size=(4, 3), stride=(3, 2), padding=(2, 1), "
         "ceil_mode=True", {4, 3}, {3, 2}, {2, 1}, {1, 1}, true, true},
        {2, false, true, {3, 0}, {9, 8}, "kernel_size=(4, 3), stride=(3, 2), padding=(2, 1), "
         "ceil_mode=True, count_include_pad=False", {4, 3}, {3, 2}, {2, 1}, {1, 1}, true,
         false},
        {3, false, false, {1, 2}, {5, 6, 7}, "kernel_size=3, stride=2, padding=1, "
         "count_include_pad=False", {3, 3, 3}, {2, 2, 2}, {1, 1, 1}, {1, 1, 1}, false, false},
        {1, false, false, {1, 2}, {5}, "kernel_size=2, stride=2, padding=1, ceil_mode=True",
         {2}, {2}, {1}, {1}, true, true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_pool(&cases[i], false);
}

/* A NaN in a max-pooling window wins and -inf is an ordinary value; in an
 * average it spreads to every window that holds it. */
static void test_pool_nonfinite(void **state)
{
    (void)state;
    static const pool_case cases[] = {
        {1, true, false, {2, 2}, {15}, "kernel_size=3, stride=1, padding=1", {3}, {1}, {1}, {1},
         false, true},
        {2, true, false, {1, 2}, {5, 9}, "kernel_size=2, stride=1, dilation=2", {2, 2}, {1, 1},
         {0, 0}, {2, 2}, false, true},
        {1, false, false, {2, 2}, {15}, "kernel_size=3, stride=2, padding=1", {3}, {2}, {1},
         {1}, false, true},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_pool(&cases[i], true);
}

/* FLOPs: 2 per multiply-add, every tap of the weight; pools one per tap. */
static void test_flops(void **state)
{
    (void)state;
    static kbv_graph g;
    const kbv_problem *def = kbv_problem_find("L1/55");
    assert_non_null(def);
    assert_int_equal(kbv_graph_build(def, KBV_SIZE_FULL, &g), KBV_OK);
    assert_true(kbv_graph_flops(&g) == 2.0 * 8 * 128 * 510 * 1022 * (64.0 * 9));
    def = kbv_problem_find("L1/75");
    assert_non_null(def);
    assert_int_equal(kbv_graph_build(def, KBV_SIZE_FULL, &g), KBV_OK);
    /* every input element meets C_out / groups * prod(k) = 16 * 15 taps */
    assert_true(kbv_graph_flops(&g) == 2.0 * (16.0 * 32 * 128 * 256) * (16 * 15));
    def = kbv_problem_find("L1/50");
    assert_non_null(def);
    assert_int_equal(kbv_graph_build(def, KBV_SIZE_FULL, &g), KBV_OK);
    double out = 256.0 * 96 * 55 * 55;
    assert_true(kbv_graph_flops(&g) == 2.0 * out * (3 * 121) + out);
    def = kbv_problem_find("L1/45");
    assert_non_null(def);
    assert_int_equal(kbv_graph_build(def, KBV_SIZE_FULL, &g), KBV_OK);
    assert_true(kbv_graph_flops(&g) == 16.0 * 64 * 186 * 186 * 122);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_defaults_and_tuples),
        cmocka_unit_test(test_parse_errors),
        cmocka_unit_test(test_output_sizes),
        cmocka_unit_test(test_shape_rules),
        cmocka_unit_test(test_conv),
        cmocka_unit_test(test_conv_rejects_mismatches),
        cmocka_unit_test(test_pool),
        cmocka_unit_test(test_pool_nonfinite),
        cmocka_unit_test(test_flops),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
