/* The CUDA convolution and pooling ops against the CPU backend, on a GPU.
 *
 * Every convolution and pooling problem at its small size in every mode
 * against the CPU in float64; single ops on cases the problems do not reach
 * (groups, dilation, output padding, ceil_mode, count_include_pad, strided
 * views, bias, a depthwise multiplier, 3-D depthwise); every cuDNN
 * convolution of those, and the problems the graph path is meant for,
 * through cuDNN's graph API alone (KBV_CUDNN_API=graph); and, with
 * KBV_GPU_FULL=1 in the environment, every such problem at its full size:
 * each fp32 mode's relative L2 error against the GPU's float64 run, the
 * median time of a forward and its peak memory, printed as a table
 * (KBV_GPU_FULL_ONLY=41,45 picks problems; KBV_GPU_FULL_NOREF=1 times
 * fp32-strict and fp32 only, without the float64 reference). Every pooling
 * kernel (kbv_cuda_pool_algo) and every middle-dim reduction kernel
 * (kbv_cuda_reduce_algo), called directly, against the CPU and against the
 * default one, so that any of them can be made the default. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <cuda_runtime.h>

#include "graph/problem_def.h"
#include "cuda/cuda_conv.h"
#include "cuda/cuda_conv_graph.h"
#include "cuda/cuda_conv_launch.h"
#include "cuda/cuda_norm_launch.h"
#include "exec/backend.h"
#include "graph/graph.h"
#include "graph/ops_conv.h"
#include "graph/ops_table.h"

#define SEED 0xc0de2024ull

static const int problem_ids[] = {41, 42, 43, 44, 45, 46, 50, 54, 55, 56, 57, 58, 59, 60,
                                  61, 62, 63, 64, 65, 66, 67, 68, 69, 70, 71, 72, 73, 74,
                                  75, 76, 77, 78, 79, 80, 81, 82, 83, 84, 85, 86, 87};
#define N_PROBLEMS ((int)(sizeof problem_ids / sizeof problem_ids[0]))

static const kbv_mode modes[] = {KBV_MODE_FP32_STRICT, KBV_MODE_FP32, KBV_MODE_TF32,
                                 KBV_MODE_FP64};

static void ok(kbv_status st)
{
    if (st != KBV_OK)
        print_error("%s\n", kbv_last_error());
    assert_int_equal(st, KBV_OK);
}

/* The CUDA op table with the convolution and pooling ops filled in where it
 * has none (until the backend's own table holds them). */
static kbv_op_fn gpu_ops[KBV_OP_COUNT];

static kbv_backend *gpu_backend(kbv_mode mode)
{
    kbv_backend *be = NULL;
    ok(kbv_cuda_backend_create(0, mode, &be));
    memcpy(gpu_ops, be->ops, sizeof gpu_ops);
    for (int op = KBV_OP_NONE + 1; op < KBV_OP_COUNT; op++) {
        kbv_window_kind kind;
        int spatial;
        bool bias;
        if (gpu_ops[op] || !kbv_window_op((kbv_op)op, &kind, &spatial, &bias))
            continue;
        gpu_ops[op] = kind == KBV_WINDOW_MAX_POOL || kind == KBV_WINDOW_AVG_POOL
                          ? kbv_cuda_op_pool
                          : kbv_cuda_op_conv;
    }
    be->ops = gpu_ops;
    return be;
}

static int64_t numel_of(const kbv_tensor *t)
{
    int64_t n = 1;
    for (int d = 0; d < t->ndim; d++)
        n *= t->shape[d];
    return n;
}

static size_t bytes_of(const kbv_tensor *t)
{
    return (size_t)numel_of(t) * kbv_dtype_size(t->dtype);
}

static kbv_tensor value_tensor(kbv_backend *be, const kbv_value *v)
{
    kbv_tensor t;
    kbv_value_tensor(v, &t);
    if (t.dtype == KBV_F32)
        t.dtype = be->float_dtype;
    ok(be->alloc(be, bytes_of(&t), &t.data));
    return t;
}

static void draw_all(kbv_backend *be, const kbv_graph *g, const kbv_draw *draw, kbv_tensor *in,
                     kbv_tensor *params)
{
    for (int i = 0; i < g->n_inputs; i++) {
        in[i] = value_tensor(be, &g->values[i]);
        ok(be->fill(be, &g->def->inputs[g->values[i].def_index], i, draw, &in[i]));
    }
    for (int p = 0; p < g->n_params; p++) {
        const kbv_value *v = &g->values[g->n_inputs + p];
        params[p] = value_tensor(be, v);
        ok(be->fill_param(be, g, p, draw, &params[p]));
    }
}

static void release_all(kbv_backend *be, kbv_tensor *t, int n)
{
    for (int i = 0; i < n; i++)
        be->release(be, t[i].data);
}

static double *host_doubles(kbv_backend *be, const kbv_tensor *t)
{
    int64_t n = numel_of(t);
    double *out = malloc((size_t)(n > 0 ? n : 1) * sizeof *out);
    void *raw = malloc(bytes_of(t) + 1);
    assert_non_null(out);
    assert_non_null(raw);
    ok(be->to_host(be, raw, t->data, bytes_of(t)));
    for (int64_t i = 0; i < n; i++)
        out[i] = t->dtype == KBV_F32 ? (double)((float *)raw)[i] : ((double *)raw)[i];
    free(raw);
    return out;
}

/* Relative L2 distance; NaN where the two disagree about a non-finite value. */
static double rel_l2(const double *x, const double *ref, int64_t n)
{
    double err = 0.0, norm = 0.0;
    for (int64_t i = 0; i < n; i++) {
        if (!isfinite(ref[i]) || !isfinite(x[i])) {
            if (!(isnan(ref[i]) ? isnan(x[i]) : x[i] == ref[i]))
                return NAN;
            continue;
        }
        double d = x[i] - ref[i];
        err += d * d;
        norm += ref[i] * ref[i];
    }
    return norm > 0.0 ? sqrt(err / norm) : sqrt(err);
}

static double tolerance(kbv_mode m)
{
    switch (m) {
    case KBV_MODE_TF32:
    case KBV_MODE_FP32: return 5e-3; /* cuDNN may use TF32 */
    case KBV_MODE_FP64: return 1e-12;
    default: return 1e-5;
    }
}

/* ------------------------------------------------ problems, small size */

static void check_problem_small(const kbv_problem *def)
{
    char key[32];
    kbv_problem_key(def, key, sizeof key);
    kbv_graph *g = calloc(1, sizeof *g);
    assert_non_null(g);
    ok(kbv_graph_build(def, KBV_SIZE_SMALL, g));
    kbv_draw draw = {KBV_DIST_D6, SEED + (uint64_t)def->id};
    kbv_backend *cpu = NULL;
    ok(kbv_cpu_backend_create(KBV_MODE_FP64, &cpu));
    kbv_tensor in64[KBV_STATIC_MAX_INPUTS], p64[KBV_STATIC_MAX_PARAMS], out64[KBV_STATIC_MAX_OUTPUTS];
    draw_all(cpu, g, &draw, in64, p64);
    ok(kbv_graph_run(g, cpu, in64, p64, out64));
    double *oracle = host_doubles(cpu, &out64[0]);
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
        kbv_backend *gpu = gpu_backend(modes[m]);
        kbv_tensor in[KBV_STATIC_MAX_INPUTS], params[KBV_STATIC_MAX_PARAMS], out[KBV_STATIC_MAX_OUTPUTS];
        draw_all(gpu, g, &draw, in, params);
        ok(kbv_graph_run(g, gpu, in, params, out));
        double *got = host_doubles(gpu, &out[0]);
        double err = rel_l2(got, oracle, numel_of(&out[0]));
        print_message("%s %s: rel L2 %.3g\n", key, gpu->name, err);
        if (!(err < tolerance(modes[m])))
            fail_msg("%s %s: rel L2 %.3g", key, gpu->name, err);
        free(got);
        release_all(gpu, out, g->n_outputs);
        release_all(gpu, in, g->n_inputs);
        release_all(gpu, params, g->n_params);
        assert_int_equal(gpu->mem.current, 0); /* workspaces went back */
        kbv_backend_destroy(gpu);
    }
    free(oracle);
    release_all(cpu, out64, g->n_outputs);
    release_all(cpu, in64, g->n_inputs);
    release_all(cpu, p64, g->n_params);
    kbv_backend_destroy(cpu);
    kbv_graph_free(g);
    free(g);
}

static void test_problems_small(void **state)
{
    (void)state;
    for (int i = 0; i < N_PROBLEMS; i++) {
        char key[16];
        snprintf(key, sizeof key, "L1/%d", problem_ids[i]);
        const kbv_problem *def = kbv_problem_find(key);
        assert_non_null(def);
        check_problem_small(def);
    }
}

/* ------------------------------------------------------- single ops */

static uint64_t rng = 99;
static double uniform(void)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return 2.0 * (double)(rng >> 11) * (1.0 / 9007199254740992.0) - 1.0;
}

typedef struct host_tensor {
    int ndim;
    int64_t shape[KBV_MAX_DIMS];
    double *v;
} host_tensor;

static host_tensor host_random(int ndim, const int64_t *shape)
{
    host_tensor h = {ndim, {0}, NULL};
    memcpy(h.shape, shape, sizeof(int64_t) * (size_t)ndim);
    int64_t n = 1;
    for (int d = 0; d < ndim; d++)
        n *= shape[d];
    h.v = malloc((size_t)n * sizeof(double));
    assert_non_null(h.v);
    for (int64_t i = 0; i < n; i++)
        h.v[i] = (double)(float)uniform();
    return h;
}

/* h on be in be's float dtype; every other element of the last dim when
 * strided (a view of a tensor twice as wide). */
static kbv_tensor upload(kbv_backend *be, const host_tensor *h, bool strided, void **owner)
{
    kbv_tensor t;
    memset(&t, 0, sizeof t);
    t.dtype = be->float_dtype;
    t.ndim = h->ndim;
    int64_t n = 1, stride = 1;
    for (int d = h->ndim - 1; d >= 0; d--) {
        t.shape[d] = h->shape[d];
        t.stride[d] = stride * (strided ? 2 : 1);
        stride *= h->shape[d];
        n *= h->shape[d];
    }
    size_t es = kbv_dtype_size(t.dtype), total = (size_t)n * (strided ? 2 : 1);
    unsigned char *raw = calloc(total, es);
    assert_non_null(raw);
    for (int64_t i = 0; i < n; i++) {
        size_t at = (size_t)i * (strided ? 2 : 1);
        if (t.dtype == KBV_F32)
            ((float *)raw)[at] = (float)h->v[i];
        else
            ((double *)raw)[at] = h->v[i];
    }
    ok(be->alloc(be, total * es, owner));
    ok(be->from_host(be, *owner, raw, total * es));
    free(raw);
    t.data = *owner;
    return t;
}

static kbv_status run_node(kbv_backend *be, const kbv_node_def *nd, const kbv_tensor *args,
                           int n_args, kbv_tensor *out)
{
    kbv_node node;
    memset(&node, 0, sizeof node);
    node.op = nd->op;
    node.n_args = n_args;
    node.def = nd;
    return be->ops[nd->op](be, &node, args, out);
}

static kbv_status run_op(kbv_backend *be, kbv_op op, const char *s, const kbv_tensor *args,
                         int n_args, kbv_tensor *out)
{
    kbv_node_def nd;
    memset(&nd, 0, sizeof nd);
    nd.op = op;
    nd.s = s;
    return run_node(be, &nd, args, n_args, out);
}

/* op(args) on the CPU in float64 and on the GPU in every mode (contiguous
 * and with strided operands): relative L2 within the mode's tolerance. */
static void check_op(kbv_op op, const char *s, const host_tensor *args, int n_args, int out_ndim,
                     const int64_t *out_shape)
{
    kbv_backend *cpu = NULL;
    ok(kbv_cpu_backend_create(KBV_MODE_FP64, &cpu));
    kbv_tensor cargs[3], cout;
    void *owners[3];
    for (int a = 0; a < n_args; a++)
        cargs[a] = upload(cpu, &args[a], false, &owners[a]);
    memset(&cout, 0, sizeof cout);
    cout.dtype = KBV_F64;
    cout.ndim = out_ndim;
    int64_t n = 1;
    for (int d = out_ndim - 1; d >= 0; d--) {
        cout.shape[d] = out_shape[d];
        cout.stride[d] = n;
        n *= out_shape[d];
    }
    ok(cpu->alloc(cpu, (size_t)n * 8, &cout.data));
    kbv_status st = run_op(cpu, op, s, cargs, n_args, &cout);
    if (st != KBV_OK)
        fail_msg("cpu %s \"%s\": %s", kbv_op_table[op].name, s, kbv_last_error());
    double *ref = host_doubles(cpu, &cout);

    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
        kbv_backend *gpu = gpu_backend(modes[m]);
        for (int strided = 0; strided < 2; strided++) {
            kbv_tensor gargs[3], gout = cout;
            void *gowners[3];
            for (int a = 0; a < n_args; a++)
                gargs[a] = upload(gpu, &args[a], strided, &gowners[a]);
            gout.dtype = gpu->float_dtype;
            ok(gpu->alloc(gpu, (size_t)n * kbv_dtype_size(gout.dtype), &gout.data));
            ok(gpu->poison(gpu, &gout));
            st = run_op(gpu, op, s, gargs, n_args, &gout);
            if (st != KBV_OK)
                fail_msg("%s %s \"%s\": %s", gpu->name, kbv_op_table[op].name, s,
                         kbv_last_error());
            double *got = host_doubles(gpu, &gout);
            double err = rel_l2(got, ref, n);
            if (!(err < tolerance(modes[m])))
                fail_msg("%s %s \"%s\"%s: rel L2 %.3g", gpu->name, kbv_op_table[op].name, s,
                         strided ? " (strided)" : "", err);
            free(got);
            gpu->release(gpu, gout.data);
            for (int a = 0; a < n_args; a++)
                gpu->release(gpu, gowners[a]);
        }
        kbv_backend_destroy(gpu);
    }
    free(ref);
    cpu->release(cpu, cout.data);
    for (int a = 0; a < n_args; a++)
        cpu->release(cpu, owners[a]);
    kbv_backend_destroy(cpu);
}

typedef struct conv_op_case {
    kbv_op op;
    const char *s;
    int nd;
    int64_t x[5], w[5], y[5];
} conv_op_case;

static const conv_op_case conv_cases[] = {
    {KBV_OP_CONV1D_BIAS, "stride=3, dilation=4, groups=2, padding=2", 3, {2, 4, 17},
     {6, 2, 3}, {2, 6, 5}},
    {KBV_OP_CONV2D, "padding=(2, 4), dilation=(2, 3), groups=2", 4, {2, 4, 11, 29},
     {6, 2, 5, 9}, {2, 6, 7, 13}},
    {KBV_OP_CONV2D_BIAS, "stride=4, padding=2", 4, {3, 3, 23, 27}, {8, 3, 11, 11},
     {3, 8, 5, 6}},
    /* depthwise: plain, with a multiplier and bias, strided and dilated, 1-D, 3-D */
    {KBV_OP_CONV2D, "groups=6", 4, {2, 6, 37, 41}, {6, 1, 3, 3}, {2, 6, 35, 39}},
    {KBV_OP_CONV2D_BIAS, "groups=3, padding=1", 4, {2, 3, 40, 9}, {6, 1, 3, 7},
     {2, 6, 40, 5}},
    {KBV_OP_CONV2D, "groups=4, stride=2, dilation=(2, 3), padding=(1, 2)", 4,
     {1, 4, 70, 67}, {4, 1, 5, 3}, {1, 4, 32, 33}},
    {KBV_OP_CONV1D, "groups=5, padding=2", 3, {2, 5, 300}, {10, 1, 5}, {2, 10, 300}},
    {KBV_OP_CONV3D, "groups=3, padding=1", 5, {2, 3, 5, 9, 11}, {3, 1, 3, 3, 3},
     {2, 3, 5, 9, 11}},
    {KBV_OP_CONV3D_BIAS, "stride=(1, 2, 1), groups=1", 5, {2, 3, 5, 7, 6}, {4, 3, 3, 5, 1},
     {2, 4, 3, 2, 6}},
    /* transposed */
    {KBV_OP_CONV_TRANSPOSE1D_BIAS,
     "stride=2, padding=1, dilation=3, output_padding=1, groups=2", 3, {2, 4, 13},
     {4, 3, 5}, {2, 6, 36}},
    {KBV_OP_CONV_TRANSPOSE2D, "stride=(2, 3), padding=(1, 2), dilation=(2, 1), groups=4",
     4, {2, 4, 5, 7}, {4, 2, 3, 5}, {2, 8, 11, 19}},
    {KBV_OP_CONV_TRANSPOSE2D_BIAS, "stride=5, padding=1, dilation=2", 4, {2, 3, 3, 5},
     {3, 5, 3, 3}, {2, 5, 13, 23}},
    {KBV_OP_CONV_TRANSPOSE3D, "stride=2, padding=(1, 2, 3), output_padding=1, groups=4", 5,
     {2, 8, 3, 5, 5}, {8, 2, 3, 5, 7}, {2, 8, 6, 10, 10}},
};

static void check_conv_case(const conv_op_case *c)
{
    kbv_window_kind kind;
    int spatial;
    bool bias;
    assert_true(kbv_window_op(c->op, &kind, &spatial, &bias));
    host_tensor args[3] = {host_random(c->nd, c->x), host_random(c->nd, c->w),
                           host_random(1, &c->y[1])};
    check_op(c->op, c->s, args, bias ? 3 : 2, c->nd, c->y);
    for (int a = 0; a < 3; a++)
        free(args[a].v);
}

static void test_conv_ops(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof conv_cases / sizeof conv_cases[0]; i++)
        check_conv_case(&conv_cases[i]);
}

/* ------------------------------------- convolutions, cuDNN graph API */

/* Cases the graph path meets beyond conv_cases: 1-D strided, 2-D with
 * everything at once, 3-D grouped and dilated, a transposed 1-D of one
 * group, a transposed 3-D with bias. */
static const conv_op_case graph_cases[] = {
    {KBV_OP_CONV1D, "stride=2, padding=3", 3, {3, 5, 64}, {7, 5, 7}, {3, 7, 32}},
    {KBV_OP_CONV2D_BIAS, "stride=(2, 1), padding=(3, 1), dilation=(1, 2), groups=3", 4,
     {2, 6, 19, 23}, {9, 2, 5, 3}, {2, 9, 11, 21}},
    {KBV_OP_CONV3D, "padding=(0, 1, 2), dilation=(1, 2, 1), groups=2", 5, {2, 4, 6, 7, 8},
     {6, 2, 3, 3, 5}, {2, 6, 4, 5, 8}},
    {KBV_OP_CONV_TRANSPOSE1D, "stride=3, padding=2", 3, {2, 6, 20}, {6, 4, 5}, {2, 4, 58}},
    {KBV_OP_CONV_TRANSPOSE3D_BIAS, "stride=(1, 2, 2), padding=1, dilation=(2, 1, 1)", 5,
     {2, 3, 4, 5, 6}, {3, 4, 3, 3, 3}, {2, 4, 6, 9, 11}},
};

/* The problems whose convolutions the graph path is meant for, and two
 * that are fine on the legacy path. */
static const int graph_problem_ids[] = {50, 54, 56, 62, 63, 71, 79, 80};

static char *saved_api;

static int graph_api_on(void **state)
{
    (void)state;
    const char *v = getenv("KBV_CUDNN_API");
    saved_api = v ? strdup(v) : NULL;
    return setenv("KBV_CUDNN_API", "graph", 1); /* graph alone: no silent fallback */
}

static int graph_api_off(void **state)
{
    (void)state;
    int rc = saved_api ? setenv("KBV_CUDNN_API", saved_api, 1) : unsetenv("KBV_CUDNN_API");
    free(saved_api);
    saved_api = NULL;
    return rc;
}

/* Depthwise convolutions run in kbv's own kernel, never through cuDNN. */
static bool is_depthwise(const conv_op_case *c)
{
    kbv_window win;
    ok(kbv_window_parse(c->op, c->s, &win));
    return win.kind == KBV_WINDOW_CONV && win.groups > 1 && win.groups == c->x[1] &&
           c->w[0] % c->x[1] == 0;
}

/* Every cuDNN convolution of conv_cases and graph_cases, and the problems
 * of graph_problem_ids at their small size, through the graph API alone
 * (KBV_CUDNN_API=graph), against the CPU in every mode: fp32-strict and
 * fp64 at tight tolerances, fp32 and tf32 loosely (TF32 allowed). Each
 * case must have run through the graph path. */
static void test_conv_graph_api(void **state)
{
    (void)state;
    assert_int_equal(kbv_cuda_conv_api(), KBV_CUDNN_API_GRAPH);
    const conv_op_case *lists[2] = {conv_cases, graph_cases};
    const size_t counts[2] = {sizeof conv_cases / sizeof conv_cases[0],
                              sizeof graph_cases / sizeof graph_cases[0]};
    for (int l = 0; l < 2; l++)
        for (size_t i = 0; i < counts[l]; i++) {
            const conv_op_case *c = &lists[l][i];
            if (is_depthwise(c))
                continue;
            const uint64_t before = kbv_cuda_conv_graph_runs();
            check_conv_case(c);
            if (kbv_cuda_conv_graph_runs() == before)
                fail_msg("%s \"%s\": the graph path did not run", kbv_op_table[c->op].name,
                         c->s);
        }
    for (size_t i = 0; i < sizeof graph_problem_ids / sizeof graph_problem_ids[0]; i++) {
        char key[16];
        snprintf(key, sizeof key, "L1/%d", graph_problem_ids[i]);
        const kbv_problem *def = kbv_problem_find(key);
        assert_non_null(def);
        const uint64_t before = kbv_cuda_conv_graph_runs();
        check_problem_small(def);
        if (kbv_cuda_conv_graph_runs() == before)
            fail_msg("%s: the graph path did not run", key);
    }
}

typedef struct pool_op_case {
    kbv_op op;
    const char *s;
    int nd;
    int64_t x[5], y[5];
    bool nan;
} pool_op_case;

static void test_pool_ops(void **state)
{
    (void)state;
    static const pool_op_case cases[] = {
        {KBV_OP_MAX_POOL1D, "kernel_size=8, stride=1, padding=4, dilation=3", 3, {3, 5, 3000},
         {3, 5, 2987}, false},
        {KBV_OP_MAX_POOL1D, "kernel_size=3, stride=1, padding=1", 3, {2, 2, 15}, {2, 2, 15},
         true},
        {KBV_OP_MAX_POOL2D, "kernel_size=(3, 2), stride=2, padding=1, ceil_mode=True", 3,
         {4, 10, 7}, {4, 6, 4}, false},
        {KBV_OP_MAX_POOL3D, "kernel_size=3, stride=2, padding=1, dilation=3", 5,
         {2, 3, 9, 11, 13}, {2, 3, 3, 4, 5}, false},
        {KBV_OP_AVG_POOL1D, "kernel_size=8, stride=1, padding=4", 3, {3, 5, 2500},
         {3, 5, 2501}, false},
        {KBV_OP_AVG_POOL2D, "kernel_size=11", 4, {2, 3, 25, 2048}, {2, 3, 2, 186}, false},
        {KBV_OP_AVG_POOL2D, "kernel_size=(4, 3), stride=(3, 2), padding=(2, 1), ceil_mode=True, "
                            "count_include_pad=False",
         4, {2, 2, 9, 8}, {2, 2, 4, 5}, false},
        {KBV_OP_AVG_POOL3D, "kernel_size=3, stride=2, padding=1", 5, {2, 3, 7, 9, 11},
         {2, 3, 4, 5, 6}, true},
        {KBV_OP_AVG_POOL3D, "kernel_size=3, stride=2, padding=1, count_include_pad=False", 5,
         {1, 2, 5, 6, 7}, {1, 2, 3, 3, 4}, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const pool_op_case *c = &cases[i];
        host_tensor x = host_random(c->nd, c->x);
        if (c->nan) {
            x.v[7] = NAN;
            x.v[2] = -INFINITY;
        }
        check_op(c->op, c->s, &x, 1, c->nd, c->y);
        free(x.v);
    }
}

/* ------------------------------------- every kernel, called directly */

static void cuda_ok(cudaError_t e)
{
    if (e != cudaSuccess)
        print_error("%s\n", cudaGetErrorString(e));
    assert_int_equal(e, cudaSuccess);
}

/* n doubles on the device as float (is_f64 0) or double */
static void *device_copy(const double *v, int64_t n, int is_f64)
{
    size_t es = is_f64 ? 8 : 4;
    unsigned char *raw = malloc((size_t)(n > 0 ? n : 1) * es);
    assert_non_null(raw);
    for (int64_t i = 0; i < n; i++) {
        if (is_f64)
            ((double *)raw)[i] = v[i];
        else
            ((float *)raw)[i] = (float)v[i];
    }
    void *d = NULL;
    cuda_ok(cudaMalloc(&d, (size_t)(n > 0 ? n : 1) * es));
    cuda_ok(cudaMemcpy(d, raw, (size_t)n * es, cudaMemcpyHostToDevice));
    free(raw);
    return d;
}

/* n floats, doubles (is_f64) or int64s (is_index) from the device as doubles */
static double *host_copy(const void *d, int64_t n, int is_f64, bool is_index)
{
    size_t es = is_f64 || is_index ? 8 : 4;
    unsigned char *raw = malloc((size_t)(n > 0 ? n : 1) * es);
    double *v = malloc((size_t)(n > 0 ? n : 1) * sizeof *v);
    assert_non_null(raw);
    assert_non_null(v);
    cuda_ok(cudaMemcpy(raw, d, (size_t)n * es, cudaMemcpyDeviceToHost));
    for (int64_t i = 0; i < n; i++)
        v[i] = is_index ? (double)((int64_t *)raw)[i]
               : is_f64 ? ((double *)raw)[i]
                        : (double)((float *)raw)[i];
    free(raw);
    return v;
}

/* Elements equal, NaN matching NaN; the first that differs or -1. */
static int64_t first_difference(const double *a, const double *b, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        if (!(a[i] == b[i] || (isnan(a[i]) && isnan(b[i]))))
            return i;
    return -1;
}

/* op(x) on the CPU backend in float64 into a new array of out_n doubles
 * (the int64 indices of argmax/argmin as doubles). */
static double *cpu_reference(const kbv_node_def *nd, const host_tensor *x, int out_ndim,
                             const int64_t *out_shape, bool is_index)
{
    kbv_backend *cpu = NULL;
    ok(kbv_cpu_backend_create(KBV_MODE_FP64, &cpu));
    void *owner = NULL;
    kbv_tensor cx = upload(cpu, x, false, &owner), cout;
    memset(&cout, 0, sizeof cout);
    cout.dtype = is_index ? KBV_I64 : KBV_F64;
    cout.ndim = out_ndim;
    int64_t n = 1;
    for (int d = out_ndim - 1; d >= 0; d--) {
        cout.shape[d] = out_shape[d];
        cout.stride[d] = n;
        n *= out_shape[d];
    }
    ok(cpu->alloc(cpu, (size_t)(n > 0 ? n : 1) * 8, &cout.data));
    kbv_status st = run_node(cpu, nd, &cx, 1, &cout);
    if (st != KBV_OK)
        fail_msg("cpu %s \"%s\": %s", kbv_op_table[nd->op].name, nd->s ? nd->s : "",
                 kbv_last_error());
    double *ref = malloc((size_t)(n > 0 ? n : 1) * sizeof *ref);
    int64_t *raw = malloc((size_t)(n > 0 ? n : 1) * 8);
    assert_non_null(ref);
    assert_non_null(raw);
    ok(cpu->to_host(cpu, raw, cout.data, (size_t)n * 8));
    for (int64_t i = 0; i < n; i++) {
        double v;
        memcpy(&v, &raw[i], sizeof v);
        ref[i] = is_index ? (double)raw[i] : v;
    }
    free(raw);
    cpu->release(cpu, cout.data);
    cpu->release(cpu, owner);
    kbv_backend_destroy(cpu);
    return ref;
}

typedef struct pool_algo_case {
    kbv_op op;
    const char *s;
    int nd;
    int64_t x[5];
    bool nan;
} pool_algo_case;

/* One pooling through every kernel, float and double: each against the CPU
 * and bit for bit against the rows kernel (they add in the same order). */
static void check_pool_algos(const pool_algo_case *c)
{
    kbv_window win;
    ok(kbv_window_parse(c->op, c->s, &win));
    const int lead = c->nd - win.spatial, pad = 3 - win.spatial;
    int64_t y_shape[5], planes = 1, n_out = 1;
    for (int d = 0; d < lead; d++) {
        y_shape[d] = c->x[d];
        planes *= c->x[d];
    }
    kbv_cuda_window cw;
    for (int d = 0; d < 3; d++) {
        const int sd = d - pad; /* spatial dim, or < 0: a leading dim of size 1 */
        cw.in[d] = sd < 0 ? 1 : c->x[lead + sd];
        cw.k[d] = sd < 0 ? 1 : win.kernel[sd];
        cw.stride[d] = sd < 0 ? 1 : win.stride[sd];
        cw.pad[d] = sd < 0 ? 0 : win.padding[sd];
        cw.dil[d] = sd < 0 ? 1 : win.dilation[sd];
        cw.out[d] = sd < 0 ? 1
                           : kbv_pool_out_size(cw.in[d], cw.k[d], cw.stride[d], cw.pad[d],
                                               cw.dil[d], win.ceil_mode);
        if (sd >= 0)
            y_shape[lead + sd] = cw.out[d];
        n_out *= cw.out[d];
    }
    n_out *= planes;
    host_tensor x = host_random(c->nd, c->x);
    if (c->nan) {
        x.v[7] = NAN;
        x.v[2] = -INFINITY;
        x.v[40] = NAN;
    }
    int64_t n_in = 1;
    for (int d = 0; d < c->nd; d++)
        n_in *= c->x[d];
    kbv_node_def nd;
    memset(&nd, 0, sizeof nd);
    nd.op = c->op;
    nd.s = c->s;
    double *ref = cpu_reference(&nd, &x, c->nd, y_shape, false);
    const bool is_max = win.kind == KBV_WINDOW_MAX_POOL;
    for (int is_f64 = 0; is_f64 < 2; is_f64++) {
        void *dx = device_copy(x.v, n_in, is_f64), *dy = NULL;
        cuda_ok(cudaMalloc(&dy, (size_t)n_out * 8));
        double *first = NULL;
        for (int algo = 0; algo < KBV_CUDA_POOL_ALGO_COUNT; algo++) {
            cuda_ok(cudaMemset(dy, 0xff, (size_t)n_out * 8)); /* NaN where nothing is written */
            cuda_ok(kbv_cuda_launch_pool_algo(0, is_max, is_f64, win.count_include_pad, &cw,
                                              planes, dx, dy, algo));
            cuda_ok(cudaDeviceSynchronize());
            double *got = host_copy(dy, n_out, is_f64, false);
            double err = rel_l2(got, ref, n_out);
            if (!(err < (is_f64 ? 1e-12 : 1e-5)))
                fail_msg("%s \"%s\" algo %d %s: rel L2 %.3g against the CPU",
                         kbv_op_table[c->op].name, c->s, algo, is_f64 ? "f64" : "f32", err);
            if (!first) {
                first = got;
                continue;
            }
            int64_t at = first_difference(got, first, n_out);
            if (at >= 0)
                fail_msg("%s \"%s\" algo %d %s: element %lld is %.17g, algo 0 gives %.17g",
                         kbv_op_table[c->op].name, c->s, algo, is_f64 ? "f64" : "f32",
                         (long long)at, got[at], first[at]);
            free(got);
        }
        free(first);
        cuda_ok(cudaFree(dx));
        cuda_ok(cudaFree(dy));
    }
    free(ref);
    free(x.v);
}

static void test_pool_algos(void **state)
{
    (void)state;
    /* kernel widths on each side of the direct kernel's unrolled bounds (4, 8, 16),
     * dilated and not, windows clipped by padding and by ceil_mode */
    static const pool_algo_case cases[] = {
        {KBV_OP_MAX_POOL1D, "kernel_size=8, stride=1, padding=4, dilation=3", 3, {3, 5, 300},
         true},
        {KBV_OP_MAX_POOL1D, "kernel_size=20, stride=3, padding=9, dilation=2, ceil_mode=True",
         3, {2, 3, 200}, true},
        {KBV_OP_MAX_POOL1D, "kernel_size=17, stride=2, padding=8", 3, {2, 2, 100}, false},
        {KBV_OP_MAX_POOL2D, "kernel_size=(3, 2), stride=2, padding=1, ceil_mode=True", 3,
         {4, 10, 7}, false},
        {KBV_OP_MAX_POOL2D, "kernel_size=4, stride=1, padding=1", 4, {2, 3, 17, 19}, true},
        {KBV_OP_MAX_POOL2D, "kernel_size=(5, 7), stride=(2, 3), padding=(2, 3), dilation=(2, 3)",
         4, {2, 2, 21, 40}, false},
        {KBV_OP_MAX_POOL3D, "kernel_size=3, stride=2, padding=1, dilation=3", 5,
         {2, 3, 9, 11, 13}, true},
        {KBV_OP_AVG_POOL1D, "kernel_size=8, stride=1, padding=4", 3, {3, 5, 250}, false},
        {KBV_OP_AVG_POOL1D, "kernel_size=20, stride=5, padding=10, count_include_pad=False", 3,
         {2, 3, 101}, false},
        {KBV_OP_AVG_POOL2D, "kernel_size=11", 4, {2, 3, 25, 70}, false},
        {KBV_OP_AVG_POOL2D, "kernel_size=(4, 3), stride=(3, 2), padding=(2, 1), ceil_mode=True, "
                            "count_include_pad=False",
         4, {2, 2, 9, 8}, false},
        {KBV_OP_AVG_POOL2D, "kernel_size=3, stride=2, padding=1, ceil_mode=True", 4,
         {1, 2, 8, 8}, true},
        {KBV_OP_AVG_POOL3D, "kernel_size=3, stride=2, padding=1", 5, {2, 3, 7, 9, 11}, true},
        {KBV_OP_AVG_POOL3D, "kernel_size=3, stride=2, padding=1, count_include_pad=False", 5,
         {1, 2, 5, 6, 7}, false},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        check_pool_algos(&cases[i]);
}

/* One reduction of [outer, len, inner] along len through every kernel,
 * float and double, on uniform data or (ties) quarters with NaNs: each
 * against the CPU, and against the column kernel (max, min and the arg
 * reductions exactly, sums to rounding). */
static void check_reduce_algos(kbv_op op, const int64_t shape[3], bool ties)
{
    const bool is_index = op == KBV_OP_ARGMAX || op == KBV_OP_ARGMIN;
    const bool is_sum = op == KBV_OP_SUM || op == KBV_OP_MEAN || op == KBV_OP_NORM_DIM;
    host_tensor x = host_random(3, shape);
    const int64_t n_in = shape[0] * shape[1] * shape[2], n_out = shape[0] * shape[2];
    if (ties) {
        for (int64_t i = 0; i < n_in; i++)
            x.v[i] = round(x.v[i] * 4.0) / 4.0;
        for (int64_t i = 5; i < n_in; i += 97)
            x.v[i] = NAN;
    }
    kbv_node_def nd;
    memset(&nd, 0, sizeof nd);
    nd.op = op;
    nd.i[0] = 1; /* dim; keepdim 0 */
    const int64_t out_shape[2] = {shape[0], shape[2]};
    double *ref = cpu_reference(&nd, &x, 2, out_shape, is_index);
    for (int is_f64 = 0; is_f64 < 2; is_f64++) {
        void *dx = device_copy(x.v, n_in, is_f64), *dy = NULL;
        cuda_ok(cudaMalloc(&dy, (size_t)n_out * 8));
        double *first = NULL;
        for (int algo = 0; algo < KBV_CUDA_REDUCE_ALGO_COUNT; algo++) {
            cuda_ok(cudaMemset(dy, 0xff, (size_t)n_out * 8));
            cuda_ok(kbv_cuda_launch_reduce_dim_algo(0, op, is_f64, dx, dy, shape[0], shape[1],
                                                    shape[2], algo));
            cuda_ok(cudaDeviceSynchronize());
            double *got = host_copy(dy, n_out, is_f64, is_index);
            const double err = rel_l2(got, ref, n_out);
            const double tol = !is_sum ? 0.0 : is_f64 ? 1e-12 : 1e-5;
            if (!(is_sum ? err < tol : first_difference(got, ref, n_out) < 0))
                fail_msg("%s [%lld, %lld, %lld]%s algo %d %s: rel L2 %.3g against the CPU",
                         kbv_op_table[op].name, (long long)shape[0], (long long)shape[1],
                         (long long)shape[2], ties ? " ties" : "", algo, is_f64 ? "f64" : "f32",
                         err);
            if (!first) {
                first = got;
                continue;
            }
            const bool agree = is_sum ? rel_l2(got, first, n_out) < (is_f64 ? 1e-14 : 1e-6)
                                      : first_difference(got, first, n_out) < 0;
            if (!agree)
                fail_msg("%s [%lld, %lld, %lld]%s algo %d %s: differs from algo 0",
                         kbv_op_table[op].name, (long long)shape[0], (long long)shape[1],
                         (long long)shape[2], ties ? " ties" : "", algo, is_f64 ? "f64" : "f32");
            free(got);
        }
        free(first);
        cuda_ok(cudaFree(dx));
        cuda_ok(cudaFree(dy));
    }
    free(ref);
    free(x.v);
}

static void test_reduce_algos(void **state)
{
    (void)state;
    /* short and long columns, fewer than 32 and not a multiple of 32 of them,
     * parts left empty (len below 16 x the split), rows (inner 1) */
    static const int64_t shapes[][3] = {{3, 37, 41}, {2, 100, 33}, {4, 5, 70},
                                        {2, 1000, 3}, {1, 2053, 40}, {5, 300, 1}};
    static const kbv_op ops[] = {KBV_OP_SUM,    KBV_OP_MEAN,   KBV_OP_MAX,     KBV_OP_MIN,
                                 KBV_OP_ARGMAX, KBV_OP_ARGMIN, KBV_OP_NORM_DIM};
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; s++)
        for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++)
            for (int ties = 0; ties < 2; ties++)
                check_reduce_algos(ops[o], shapes[s], ties);
}

/* --------------------------------------------- problems, full size */

static int compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* One problem at full size: fp64 on the GPU as the reference, then each
 * fp32 mode's error, median time of `reps` forwards and peak memory. */
static void full_problem(const kbv_problem *def, int reps, bool with_ref)
{
    char key[32];
    kbv_problem_key(def, key, sizeof key);
    kbv_graph *g = calloc(1, sizeof *g);
    assert_non_null(g);
    ok(kbv_graph_build(def, KBV_SIZE_FULL, g));
    kbv_draw draw = {KBV_DIST_BASE, SEED + (uint64_t)def->id};
    double *ref = NULL;
    printf("%-6s", key);
    for (int m = 3; m >= 0; m--) { /* fp64 first: the reference */
        if ((!with_ref && modes[m] == KBV_MODE_FP64) || (!with_ref && modes[m] == KBV_MODE_TF32))
            continue;
        kbv_backend *gpu = gpu_backend(modes[m]);
        kbv_tensor in[KBV_STATIC_MAX_INPUTS], params[KBV_STATIC_MAX_PARAMS], out[KBV_STATIC_MAX_OUTPUTS];
        draw_all(gpu, g, &draw, in, params);
        double times[64], err = 0.0;
        size_t resident = gpu->mem.current, peak = 0;
        const bool is_ref = modes[m] == KBV_MODE_FP64;
        const int warmups = is_ref ? 0 : 2, runs = is_ref ? 1 : reps;
        for (int r = -warmups; r < runs; r++) {
            gpu->reset_peak(gpu);
            ok(gpu->timer_start(gpu));
            ok(kbv_graph_run(g, gpu, in, params, out));
            double ms = 0.0;
            ok(gpu->timer_stop(gpu, &ms));
            if (r >= 0)
                times[r] = ms;
            peak = gpu->mem.peak - resident;
            if (r == runs - 1 && with_ref) {
                double *got = host_doubles(gpu, &out[0]);
                if (is_ref) {
                    ref = got;
                } else {
                    err = ref ? rel_l2(got, ref, numel_of(&out[0])) : NAN;
                    free(got);
                }
            }
            release_all(gpu, out, g->n_outputs);
        }
        qsort(times, (size_t)runs, sizeof times[0], compare_doubles);
        if (is_ref)
            printf("  fp64 %.3f ms", times[0]);
        else
            printf("  | %s %.3f ms (IQR %.3f) err %.2e peak %.1f MB", gpu->name + 5,
                   times[runs / 2], times[(3 * runs) / 4] - times[runs / 4], err,
                   (double)peak / 1048576.0);
        fflush(stdout);
        release_all(gpu, in, g->n_inputs);
        release_all(gpu, params, g->n_params);
        kbv_backend_destroy(gpu);
    }
    printf("\n");
    free(ref);
    kbv_graph_free(g);
    free(g);
}

static void test_problems_full(void **state)
{
    (void)state;
    const char *full = getenv("KBV_GPU_FULL");
    if (!full || strcmp(full, "1") != 0) {
        print_message("full sizes skipped (set KBV_GPU_FULL=1)\n");
        return;
    }
    const char *only = getenv("KBV_GPU_FULL_ONLY"); /* e.g. "41,45,87" */
    for (int i = 0; i < N_PROBLEMS; i++) {
        if (only) {
            char tag[8];
            snprintf(tag, sizeof tag, "%d", problem_ids[i]);
            const char *p = strstr(only, tag);
            if (!p || (p > only && p[-1] != ',') || (p[strlen(tag)] && p[strlen(tag)] != ','))
                continue;
        }
        char key[16];
        snprintf(key, sizeof key, "L1/%d", problem_ids[i]);
        const char *noref = getenv("KBV_GPU_FULL_NOREF");
        full_problem(kbv_problem_find(key), 10, !(noref && !strcmp(noref, "1")));
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_conv_ops),
        cmocka_unit_test_setup_teardown(test_conv_graph_api, graph_api_on, graph_api_off),
        cmocka_unit_test(test_pool_ops),
        cmocka_unit_test(test_pool_algos),
        cmocka_unit_test(test_reduce_algos),
        cmocka_unit_test(test_problems_small),
        cmocka_unit_test(test_problems_full),
    };
    const char *filter = getenv("KBV_GPU_TEST_FILTER"); /* e.g. "test_problems_full" */
    if (filter)
        cmocka_set_test_filter(filter);
    return cmocka_run_group_tests(tests, NULL, NULL);
}
