/* The CUDA backend against the CPU backend, on a GPU.
 *
 * Every registered problem at its small size: inputs drawn on the GPU equal
 * the CPU's bit for bit (up to rare last-bit differences of device log/cos),
 * the graph in each CUDA mode matches the CPU float64 run, and compare()
 * counts what the CPU's compare() counts on the same data. Then single ops
 * on shapes the problems' small sizes do not reach (long softmax rows,
 * broadcasting, strided views, batched broadcasting matmul), the device
 * services (allocator accounting, poison, hash, convert, arena, timer), and
 * a full-size matmul and activation. */
#include <float.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "graph/problem_def.h"
#include "exec/backend.h"
#include "graph/graph.h"
#include "graph/ops_table.h"
#include "eval/runset.h"

#define SEED 0x5eed2024ull

static int64_t numel_of(const kbv_tensor *t)
{
    int64_t n = 1;
    for (int d = 0; d < t->ndim; d++)
        n *= t->shape[d];
    return n;
}

static size_t bytes_of(const kbv_tensor *t) { return (size_t)numel_of(t) * kbv_dtype_size(t->dtype); }

static void set_contiguous(kbv_tensor *t)
{
    int64_t s = 1;
    for (int d = t->ndim - 1; d >= 0; d--) {
        t->stride[d] = s;
        s *= t->shape[d];
    }
}

static void ok(kbv_status st)
{
    if (st != KBV_OK)
        print_error("%s\n", kbv_last_error());
    assert_int_equal(st, KBV_OK);
}

/* A tensor for graph value v in be's memory, float values in be's dtype. */
static kbv_tensor value_tensor(kbv_backend *be, const kbv_value *v)
{
    kbv_tensor t;
    kbv_value_tensor(v, &t);
    /* as the evaluator does, a float64 run takes float64 copies of float16 data */
    if (t.dtype == KBV_F32 || (t.dtype == KBV_F16 && be->float_dtype == KBV_F64))
        t.dtype = be->float_dtype;
    ok(be->alloc(be, bytes_of(&t), &t.data));
    return t;
}

/* Inputs and params of g drawn on be. */
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

static double half_to_double(uint16_t h)
{
    int e = (h >> 10) & 31, m = h & 1023;
    double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(1024 + m, e - 25);
    return (h & 0x8000u) ? -v : v;
}

/* Host copy of a tensor's data (on be, device or host), as double. */
static double *host_doubles(kbv_backend *be, const kbv_tensor *t)
{
    int64_t n = numel_of(t);
    double *out = malloc((size_t)(n > 0 ? n : 1) * sizeof *out);
    assert_non_null(out);
    void *raw = malloc(bytes_of(t) + 1);
    assert_non_null(raw);
    if (be->device >= 0)
        ok(be->to_host(be, raw, t->data, bytes_of(t)));
    else
        memcpy(raw, t->data, bytes_of(t));
    for (int64_t i = 0; i < n; i++) {
        switch (t->dtype) {
        case KBV_F32: out[i] = ((float *)raw)[i]; break;
        case KBV_F64: out[i] = ((double *)raw)[i]; break;
        case KBV_F16: out[i] = half_to_double(((uint16_t *)raw)[i]); break;
        case KBV_I32: out[i] = ((int32_t *)raw)[i]; break;
        case KBV_I64: out[i] = (double)((int64_t *)raw)[i]; break;
        default: out[i] = ((unsigned char *)raw)[i]; break;
        }
    }
    free(raw);
    return out;
}

/* Relative L2 distance of x from ref (absolute when ref is all zero). */
static double rel_l2(const double *x, const double *ref, int64_t n)
{
    double err = 0.0, norm = 0.0;
    for (int64_t i = 0; i < n; i++) {
        double d = x[i] - ref[i];
        err += d * d;
        norm += ref[i] * ref[i];
    }
    /* relative to an RMS of at least 1e-3, allclose's atol: an output that is
     * rounding noise around zero (L2/23's mean of a group norm, ~1e-17) has no
     * scale of its own to be relative to */
    norm = fmax(norm, (double)n * 1e-6);
    return norm > 0.0 ? sqrt(err / norm) : sqrt(err);
}

static const kbv_mode modes[] = {KBV_MODE_FP32_STRICT, KBV_MODE_FP32, KBV_MODE_TF32, KBV_MODE_FP64};

static double tolerance(kbv_mode m, kbv_dtype out)
{
    /* float16 data carries half's rounding (unit roundoff 4.9e-4) whatever the mode */
    if (out == KBV_F16 && m != KBV_MODE_FP64)
        return 2e-3;
    switch (m) {
    case KBV_MODE_TF32: return 5e-3;
    case KBV_MODE_FP64: return 1e-10; /* float64 on both sides: only summation order differs */
    default: return 1e-5;
    }
}

static void expect_same_stats(const kbv_compare_stats *g, const kbv_compare_stats *c)
{
    assert_int_equal(g->n, c->n);
    assert_int_equal(g->poison_left, c->poison_left);
    assert_int_equal(g->cand_nonfinite, c->cand_nonfinite);
    assert_int_equal(g->cand_nan, c->cand_nan);
    assert_int_equal(g->ref_nonfinite, c->ref_nonfinite);
    assert_int_equal(g->allclose_fail, c->allclose_fail);
    assert_int_equal(g->allclose_first, c->allclose_first);
    assert_int_equal(g->unjudged, c->unjudged);
    assert_int_equal(g->oracle_nonfinite, c->oracle_nonfinite);
    assert_int_equal(g->class_fail, c->class_fail);
    assert_int_equal(g->strict_first, c->strict_first);
    assert_true(g->max_abs_diff == c->max_abs_diff);
    assert_true(g->max_err == c->max_err);
    assert_true(g->max_ref == c->max_ref);
    /* sums in another order: equal to rounding */
    assert_true(fabs(g->sq_err - c->sq_err) <= 1e-9 * fabs(c->sq_err) + 1e-300);
    assert_true(fabs(g->sq_ref - c->sq_ref) <= 1e-9 * fabs(c->sq_ref) + 1e-300);
}

/* A budget baseline's fields from compare_budget: its strict error sums
 * exactly as compare(budget, ...) alone gave them, nothing else. */
static void expect_budget_of(const kbv_compare_stats *b, const kbv_compare_stats *alone)
{
    assert_int_equal(b->n, alone->n);
    assert_true(b->sq_err == alone->sq_err);
    assert_true(b->sq_ref == alone->sq_ref);
    assert_true(b->max_err == alone->max_err);
    assert_true(b->max_ref == alone->max_ref);
    assert_int_equal(b->allclose_fail + b->class_fail + b->unjudged + b->poison_left, 0);
    assert_int_equal(b->allclose_first, -1);
    assert_int_equal(b->strict_first, -1);
}

/* compare_budget against compare: the candidate's statistics and the
 * budget's error sums bit for bit what each judged alone gives, on the GPU
 * (the same grid and order) and on the CPU; `alias` the budget as the
 * reference's buffer (read once) or as a buffer of its own. */
static void check_compare_budget(kbv_backend *be, const kbv_tensor *cand, const kbv_tensor *budget,
                                 const kbv_tensor *ref, const kbv_tensor *oracle)
{
    kbv_compare_stats alone, budget_alone, fused, fused_budget;
    ok(be->compare(be, cand, ref, oracle, ref, 1e-5, 1e-5, &alone));
    ok(be->compare(be, budget, ref, oracle, ref, 1e-5, 1e-5, &budget_alone));
    ok(be->compare_budget(be, cand, budget, ref, oracle, ref, 1e-5, 1e-5, &fused, &fused_budget));
    assert_memory_equal(&fused, &alone, sizeof alone);
    expect_budget_of(&fused_budget, &budget_alone);
    assert_int_equal(be->compare_budget(be, cand, budget, ref, NULL, NULL, 1e-5, 1e-5, &fused,
                                        &fused_budget),
                     KBV_ERR_INVALID);
}

/* compare() on the GPU and on the CPU with the same data: the tf32 output
 * (with a NaN and a poisoned element planted) against the fp32-strict one
 * and the oracle. */
static void check_compare(kbv_backend *gpu, kbv_backend *cpu, const kbv_tensor *cand_dev,
                          const double *strict_host, const double *oracle_host)
{
    int64_t n = numel_of(cand_dev);
    kbv_tensor cand_h = *cand_dev, strict_h = *cand_dev, oracle_h = *cand_dev;
    cand_h.dtype = strict_h.dtype = KBV_F32;
    oracle_h.dtype = KBV_F64;
    ok(cpu->alloc(cpu, bytes_of(&cand_h), &cand_h.data));
    ok(cpu->alloc(cpu, bytes_of(&strict_h), &strict_h.data));
    ok(cpu->alloc(cpu, bytes_of(&oracle_h), &oracle_h.data));
    ok(gpu->to_host(gpu, cand_h.data, cand_dev->data, bytes_of(cand_dev)));
    for (int64_t i = 0; i < n; i++) {
        ((float *)strict_h.data)[i] = (float)strict_host[i];
        ((double *)oracle_h.data)[i] = oracle_host[i];
    }
    ((float *)cand_h.data)[0] = NAN;
    if (n > 8) {
        /* one element per outcome of exec/strict_rule.h beyond the plain ones */
        float *cf = cand_h.data, *sf = strict_h.data;
        double *of = oracle_h.data;
        of[1] = NAN;                               /* the oracle's own NaN: not judged */
        of[2] = 1e39, sf[2] = INFINITY, cf[2] = NAN;   /* the truth overflows: passes */
        of[3] = FLT_MAX * (1.0 + 1e-7);            /* at the overflow threshold */
        of[4] = 1e30, sf[4] = INFINITY;            /* fp32-strict overflowed alone */
    }
    if (n > 2) {
        uint32_t poison = KBV_POISON_F32;
        memcpy((float *)cand_h.data + n - 1, &poison, sizeof poison);
    }
    kbv_tensor cand_d = cand_h, strict_d = strict_h, oracle_d = oracle_h;
    ok(gpu->alloc(gpu, bytes_of(&cand_d), &cand_d.data));
    ok(gpu->alloc(gpu, bytes_of(&strict_d), &strict_d.data));
    ok(gpu->alloc(gpu, bytes_of(&oracle_d), &oracle_d.data));
    ok(gpu->from_host(gpu, cand_d.data, cand_h.data, bytes_of(&cand_h)));
    ok(gpu->from_host(gpu, strict_d.data, strict_h.data, bytes_of(&strict_h)));
    ok(gpu->from_host(gpu, oracle_d.data, oracle_h.data, bytes_of(&oracle_h)));

    kbv_compare_stats g, c;
    ok(gpu->compare(gpu, &cand_d, &strict_d, &oracle_d, &strict_d, 1e-5, 1e-5, &g));
    ok(cpu->compare(cpu, &cand_h, &strict_h, &oracle_h, &strict_h, 1e-5, 1e-5, &c));
    expect_same_stats(&g, &c);
    /* a budget baseline that is the reference's and the class baseline's
     * buffer (modes running the same code share their outputs): each element
     * read once on the GPU, the same statistics */
    kbv_compare_stats ga, ca;
    ok(gpu->compare(gpu, &strict_d, &strict_d, &oracle_d, &strict_d, 1e-5, 1e-5, &ga));
    ok(cpu->compare(cpu, &strict_h, &strict_h, &oracle_h, &strict_h, 1e-5, 1e-5, &ca));
    expect_same_stats(&ga, &ca);
    assert_int_equal(ga.allclose_fail, 0);
    /* the budget judged in the candidate's pass: as the reference's buffer,
     * as a buffer of its own (the candidate's values), and on the CPU */
    check_compare_budget(gpu, &cand_d, &strict_d, &strict_d, &oracle_d);
    check_compare_budget(gpu, &strict_d, &cand_d, &strict_d, &oracle_d);
    check_compare_budget(cpu, &cand_h, &strict_h, &strict_h, &oracle_h);
    check_compare_budget(cpu, &strict_h, &cand_h, &strict_h, &oracle_h);
    assert_int_equal(g.n, n);
    assert_true(g.cand_nonfinite >= 1 + (n > 2));
    assert_int_equal(g.poison_left, n > 2 ? 1 : 0);
    assert_int_equal(g.allclose_first, 0);
    assert_int_equal(g.strict_first, 0);
    if (n > 8) {
        assert_true(g.oracle_nonfinite >= 1);
        assert_true(g.unjudged >= 3);
    }
    /* without an oracle the strict fields stay empty */
    ok(gpu->compare(gpu, &cand_d, &strict_d, NULL, NULL, 1e-5, 1e-5, &g));
    assert_int_equal(g.class_fail, 0);
    assert_int_equal(g.strict_first, -1);
    assert_true(g.sq_ref == 0.0);

    gpu->release(gpu, cand_d.data);
    gpu->release(gpu, strict_d.data);
    gpu->release(gpu, oracle_d.data);
    cpu->release(cpu, cand_h.data);
    cpu->release(cpu, strict_h.data);
    cpu->release(cpu, oracle_h.data);
}

/* Elements that differ in any bit between a GPU and a CPU tensor of one dtype. */
static int64_t count_mismatches(kbv_backend *gpu, const kbv_tensor *dev, const kbv_tensor *host)
{
    size_t bytes = bytes_of(dev);
    assert_int_equal(bytes, bytes_of(host));
    unsigned char *raw = malloc(bytes + 1);
    assert_non_null(raw);
    ok(gpu->to_host(gpu, raw, dev->data, bytes));
    size_t esize = kbv_dtype_size(dev->dtype);
    int64_t bad = 0;
    for (size_t off = 0; off < bytes; off += esize)
        bad += memcmp(raw + off, (const unsigned char *)host->data + off, esize) != 0;
    free(raw);
    return bad;
}

/* An op that cuDNN runs with TF32 allowed outside fp32-strict: the
 * convolutions, LSTM and GRU (ops_table.h). */
static bool has_conv(const kbv_graph *g)
{
    for (int i = 0; i < g->n_nodes; i++)
        if (kbv_op_table[g->nodes[i].op].tf32 == KBV_TF32_CONV)
            return true;
    return false;
}

/* Tensors for a graph's inputs, params and outputs, as many as it has
 * (level 3 has hundreds of params). */
typedef struct tensor_sets {
    kbv_tensor *in, *params, *out;
} tensor_sets;

static tensor_sets sets_new(const kbv_graph *g)
{
    tensor_sets t = {calloc((size_t)g->n_inputs + 1, sizeof(kbv_tensor)),
                     calloc((size_t)g->n_params + 1, sizeof(kbv_tensor)),
                     calloc((size_t)g->n_outputs + 1, sizeof(kbv_tensor))};
    assert_true(t.in && t.params && t.out);
    return t;
}

static void sets_free(tensor_sets *t)
{
    free(t->in);
    free(t->params);
    free(t->out);
}

static void check_problem(const kbv_problem *def)
{
    char key[32];
    kbv_problem_key(def, key, sizeof key);
    kbv_graph *g = calloc(1, sizeof *g);
    assert_non_null(g);
    ok(kbv_graph_build(def, KBV_SIZE_SMALL, g));
    kbv_draw draw = {KBV_DIST_BASE, SEED + (uint64_t)def->id};

    /* the oracle: the CPU in float64 */
    kbv_backend *cpu64 = NULL, *cpu32 = NULL;
    ok(kbv_cpu_backend_create(KBV_MODE_FP64, &cpu64));
    ok(kbv_cpu_backend_create(KBV_MODE_FP32, &cpu32));
    tensor_sets s64 = sets_new(g), s32 = sets_new(g);
    kbv_tensor *in64 = s64.in, *p64 = s64.params, *out64 = s64.out;
    kbv_tensor *in32 = s32.in, *p32 = s32.params;
    draw_all(cpu64, g, &draw, in64, p64);
    draw_all(cpu32, g, &draw, in32, p32);
    ok(kbv_graph_run(g, cpu64, in64, p64, out64));
    double **oracle = calloc((size_t)g->n_outputs + 1, sizeof *oracle);
    double **strict_out = calloc((size_t)g->n_outputs + 1, sizeof *strict_out);
    assert_true(oracle && strict_out);
    for (int o = 0; o < g->n_outputs; o++)
        oracle[o] = host_doubles(cpu64, &out64[o]);
    /* the CPU's float32 error: deep nets amplify rounding (ResNet-101 at the small
     * size, batch norm over two samples: 6e-4), which a fixed bound cannot know */
    double *cpu32_err = calloc((size_t)g->n_outputs + 1, sizeof *cpu32_err);
    assert_non_null(cpu32_err);
    {
        kbv_tensor *out32 = s32.out;
        ok(kbv_graph_run(g, cpu32, in32, p32, out32));
        for (int o = 0; o < g->n_outputs; o++) {
            double *got = host_doubles(cpu32, &out32[o]);
            cpu32_err[o] = rel_l2(got, oracle[o], numel_of(&out32[o]));
            free(got);
        }
        release_all(cpu32, out32, g->n_outputs);
    }

    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++) {
        kbv_backend *gpu = NULL;
        ok(kbv_cuda_backend_create(0, modes[m], &gpu));
        tensor_sets sg = sets_new(g);
        kbv_tensor *in = sg.in, *params = sg.params, *out = sg.out;
        draw_all(gpu, g, &draw, in, params);
        if (modes[m] == KBV_MODE_FP32) {
            for (int i = 0; i < g->n_inputs; i++) {
                int64_t n = numel_of(&in[i]), bad = count_mismatches(gpu, &in[i], &in32[i]);
                print_message("%s input %d: %lld of %lld elements differ from the CPU draw\n", key,
                              i, (long long)bad, (long long)n);
                assert_true(bad <= n / 10000);
            }
        }
        ok(kbv_graph_run(g, gpu, in, params, out));
        for (int o = 0; o < g->n_outputs; o++) {
            int64_t n = numel_of(&out[o]);
            assert_int_equal(n, numel_of(&out64[o]));
            double *got = host_doubles(gpu, &out[o]);
            double err = rel_l2(got, oracle[o], n);
            print_message("%s %s output %d: rel L2 %.3g\n", key, gpu->name, o, err);
            /* float16 inputs carry half's rounding into any output type */
            kbv_dtype carried = out[o].dtype;
            for (int i = 0; i < g->n_inputs; i++)
                if (def->inputs[i].dtype == KBV_F16)
                    carried = KBV_F16;
            /* fp32 is PyTorch's default: cuDNN may use TF32 (allow_tf32 is on) */
            const kbv_mode judged = modes[m] == KBV_MODE_FP32 && has_conv(g) ? KBV_MODE_TF32
                                                                             : modes[m];
            /* TF32's unit roundoff is 2^13 float32's: amplified as float32's is */
            const double amplified = 8.0 * cpu32_err[o] * (judged == KBV_MODE_TF32 ? 8192.0 : 1.0);
            const double bound = modes[m] == KBV_MODE_FP64
                                     ? tolerance(judged, carried)
                                     : fmax(tolerance(judged, carried), amplified);
            if (!(err < bound))
                print_message("%s %s output %d: rel L2 %.3g over %.3g (the CPU's float32: %.3g)\n",
                              key, gpu->name, o, err, bound, cpu32_err[o]);
            assert_true(err < bound);
            if (modes[m] == KBV_MODE_FP32_STRICT)
                strict_out[o] = got;
            else
                free(got);
            if (modes[m] == KBV_MODE_TF32 && out[o].dtype == KBV_F32)
                check_compare(gpu, cpu32, &out[o], strict_out[o], oracle[o]);
        }
        release_all(gpu, out, g->n_outputs);
        release_all(gpu, in, g->n_inputs);
        release_all(gpu, params, g->n_params);
        sets_free(&sg);
        /* everything this test allocated is back; the cuBLAS workspace may stay */
        assert_true(gpu->mem.current == 0 || gpu->mem.current == (size_t)32 << 20);
        kbv_backend_destroy(gpu);
    }

    for (int o = 0; o < g->n_outputs; o++) {
        free(oracle[o]);
        free(strict_out[o]);
    }
    free(oracle);
    free(strict_out);
    free(cpu32_err);
    release_all(cpu64, out64, g->n_outputs);
    release_all(cpu64, in64, g->n_inputs);
    release_all(cpu64, p64, g->n_params);
    release_all(cpu32, in32, g->n_inputs);
    release_all(cpu32, p32, g->n_params);
    sets_free(&s64);
    sets_free(&s32);
    kbv_backend_destroy(cpu64);
    kbv_backend_destroy(cpu32);
    kbv_graph_free(g);
    free(g);
}

static kbv_tensor shaped(int ndim, const int64_t *shape);

/* The first op of def the CUDA backend lacks, or KBV_OP_NONE. */
static kbv_op missing_op(const kbv_backend *gpu, const kbv_problem *def)
{
    for (int k = 0; k < def->n_nodes; k++)
        if (!gpu->ops[def->nodes[k].op])
            return def->nodes[k].op;
    return KBV_OP_NONE;
}

static void test_every_problem_small(void **state)
{
    (void)state;
    assert_true(kbv_problem_count() > 0);
    /* KBV_GPU_TEST_PROBLEMS=L3/25-50 (kbv's selector) checks those alone */
    const char *only = getenv("KBV_GPU_TEST_PROBLEMS");
    kbv_problem_set sel;
    if (only && *only)
        ok(kbv_problem_set_parse(only, &sel));
    kbv_backend *probe = NULL;
    ok(kbv_cuda_backend_create(0, KBV_MODE_FP32, &probe));
    int checked = 0, skipped = 0;
    for (int i = 0; i < kbv_problem_count(); i++) {
        const kbv_problem *def = kbv_problem_at(i);
        if (only && *only && !kbv_problem_set_contains(&sel, def->level, def->id))
            continue;
        kbv_op op = missing_op(probe, def);
        if (op != KBV_OP_NONE) {
            char key[32];
            print_message("%s skipped: op %s is not on the CUDA backend yet\n",
                          kbv_problem_key(def, key, sizeof key), kbv_op_table[op].name);
            skipped++;
            continue;
        }
        check_problem(def);
        checked++;
    }
    kbv_backend_destroy(probe);
    print_message("%d problems checked, %d skipped for missing CUDA ops\n", checked, skipped);
    assert_true(checked > 0);
}

/* Every generator and structure drawn on the GPU equals the CPU's draw. */
static void test_fill_matches_cpu(void **state)
{
    (void)state;
    typedef struct fill_case {
        kbv_input_def in;
        kbv_dtype storage;
        int ndim;
        int64_t shape[3];
        kbv_dist dist;
    } fill_case;
    const fill_case cases[] = {
        {{.name = "rand", .dtype = KBV_F32, .gen = KBV_GEN_RAND}, KBV_F32, 2, {37, 61}, KBV_DIST_BASE},
        /* float32 rand under D1-D5 takes a float kernel of its own (cuda_fill.cu) */
        {{.name = "rand_d2", .dtype = KBV_F32, .gen = KBV_GEN_RAND}, KBV_F32, 2, {37, 61}, KBV_DIST_D2},
        {{.name = "rand_d3", .dtype = KBV_F32, .gen = KBV_GEN_RAND}, KBV_F32, 1, {100003}, KBV_DIST_D3},
        {{.name = "rand_d4", .dtype = KBV_F32, .gen = KBV_GEN_RAND}, KBV_F32, 1, {4099}, KBV_DIST_D4},
        {{.name = "rand_d5", .dtype = KBV_F32, .gen = KBV_GEN_RAND}, KBV_F32, 1, {4099}, KBV_DIST_D5},
        {{.name = "randn_d8", .dtype = KBV_F32, .gen = KBV_GEN_RANDN}, KBV_F32, 2, {37, 1000}, KBV_DIST_D8},
        {{.name = "randn_d7_f64", .dtype = KBV_F32, .gen = KBV_GEN_RANDN}, KBV_F64, 1, {5001}, KBV_DIST_D7},
        {{.name = "logical_f64", .dtype = KBV_F64, .gen = KBV_GEN_RANDN}, KBV_F64, 1, {4097}, KBV_DIST_D2},
        {{.name = "logical_f16", .dtype = KBV_F16, .gen = KBV_GEN_RANDN}, KBV_F16, 2, {3, 333}, KBV_DIST_D6},
        {{.name = "triu", .dtype = KBV_F32, .gen = KBV_GEN_RAND, .structure = KBV_STRUCT_TRIU}, KBV_F32, 3, {2, 33, 45}, KBV_DIST_D4},
        {{.name = "tril", .dtype = KBV_F32, .gen = KBV_GEN_RAND, .structure = KBV_STRUCT_TRIL}, KBV_F64, 2, {45, 33}, KBV_DIST_D3},
        {{.name = "symmetric", .dtype = KBV_F32, .gen = KBV_GEN_RANDN, .structure = KBV_STRUCT_SYMMETRIC}, KBV_F32, 3, {2, 47, 47}, KBV_DIST_BASE},
        {{.name = "scaled", .dtype = KBV_F32, .gen = KBV_GEN_RAND, .structure = KBV_STRUCT_SCALED}, KBV_F32, 2, {17, 19}, KBV_DIST_D2},
        {{.name = "softmax", .dtype = KBV_F32, .gen = KBV_GEN_RAND, .structure = KBV_STRUCT_SOFTMAX}, KBV_F32, 2, {13, 1000}, KBV_DIST_BASE},
        {{.name = "scaled_softmax", .dtype = KBV_F32, .gen = KBV_GEN_RAND, .structure = KBV_STRUCT_SCALED_SOFTMAX}, KBV_F32, 2, {7, 4096}, KBV_DIST_D6},
        {{.name = "signs", .dtype = KBV_F32, .gen = KBV_GEN_RANDINT, .structure = KBV_STRUCT_SIGNS, .low = 0, .high = 2}, KBV_F32, 1, {999}, KBV_DIST_BASE},
        {{.name = "randint", .dtype = KBV_I64, .gen = KBV_GEN_RANDINT, .low = -3, .high = 1000}, KBV_I64, 1, {999}, KBV_DIST_BASE},
        {{.name = "randint32", .dtype = KBV_I32, .gen = KBV_GEN_RANDINT, .low = 0, .high = 10}, KBV_I32, 1, {999}, KBV_DIST_BASE},
        {{.name = "scalar", .dtype = KBV_F32, .gen = KBV_GEN_SCALAR, .value = 3.14}, KBV_F64, 0, {0}, KBV_DIST_D2},
    };
    kbv_backend *gpu = NULL, *cpu = NULL;
    ok(kbv_cuda_backend_create(0, KBV_MODE_FP32, &gpu));
    ok(kbv_cpu_backend_create(KBV_MODE_FP32, &cpu));
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++) {
        const fill_case *c = &cases[k];
        kbv_tensor d = shaped(c->ndim, c->shape), h = d;
        d.dtype = h.dtype = c->storage;
        ok(gpu->alloc(gpu, bytes_of(&d), &d.data));
        ok(cpu->alloc(cpu, bytes_of(&h), &h.data));
        kbv_draw draw = {c->dist, SEED + k};
        ok(gpu->fill(gpu, &c->in, (int)k, &draw, &d));
        ok(cpu->fill(cpu, &c->in, (int)k, &draw, &h));
        int64_t n = numel_of(&d), bad = count_mismatches(gpu, &d, &h);
        print_message("fill %-15s %lld of %lld elements differ from the CPU draw\n", c->in.name,
                      (long long)bad, (long long)n);
        if (c->in.dtype == KBV_F64) {
            /* float64 draws keep device log/cos/exp's last bits: equal to a few ulp */
            double *gv = host_doubles(gpu, &d), *hv = host_doubles(cpu, &h);
            for (int64_t i = 0; i < n; i++)
                assert_true(fabs(gv[i] - hv[i]) <= 4.0 * 0x1p-52 * fabs(hv[i]));
            free(gv);
            free(hv);
        } else if (c->in.gen == KBV_GEN_RANDN || c->in.structure == KBV_STRUCT_SOFTMAX ||
                   c->in.structure == KBV_STRUCT_SCALED_SOFTMAX) {
            assert_true(bad <= n / 10000);   /* device log/cos/exp: a rare last bit */
        } else {
            assert_int_equal(bad, 0);   /* no transcendental on the way: every bit the CPU's */
        }
        gpu->release(gpu, d.data);
        cpu->release(cpu, h.data);
    }
    kbv_backend_destroy(gpu);
    kbv_backend_destroy(cpu);
}

/* ---- single ops against the CPU float64 backend ---- */

static kbv_tensor shaped(int ndim, const int64_t *shape)
{
    kbv_tensor t;
    memset(&t, 0, sizeof t);
    t.ndim = ndim;
    for (int d = 0; d < ndim; d++)
        t.shape[d] = shape[d];
    set_contiguous(&t);
    return t;
}

/* Deterministic mixed-sign values of moderate size. */
static double pattern(int arg, int64_t i)
{
    uint64_t z = (uint64_t)i * 0x9E3779B97F4A7C15ull + (uint64_t)arg * 0xBF58476D1CE4E5B9ull;
    z ^= z >> 29;
    z *= 0x94D049BB133111EBull;
    z ^= z >> 32;
    return ((double)(z % 10000) * 2.0 + 1.0 - 10000.0) / 2500.0; /* odd numerator: never 0 */
}

/* Puts host values of a tensor's storage into be's memory (same strides);
 * with causal_cols > 0, element (row, col) of rows of that many columns is
 * -inf above the diagonal, as masked_fill(-inf) leaves attention scores. */
static void upload(kbv_backend *be, kbv_tensor *t, int arg, int64_t storage, int64_t causal_cols)
{
    size_t esize = kbv_dtype_size(t->dtype);
    void *host = malloc((size_t)storage * esize);
    assert_non_null(host);
    for (int64_t i = 0; i < storage; i++) {
        float v = (float)pattern(arg, i);
        if (causal_cols > 0 && i % causal_cols > i / causal_cols % causal_cols)
            v = -INFINITY;
        if (t->dtype == KBV_F32)
            ((float *)host)[i] = v;
        else
            ((double *)host)[i] = v;
    }
    ok(be->alloc(be, (size_t)storage * esize, &t->data));
    ok(be->from_host(be, t->data, host, (size_t)storage * esize));
    free(host);
}

typedef struct op_case {
    const char *what;
    kbv_node_def def;
    int n_args;
    kbv_tensor args[3];     /* shapes and strides (storage = `storage` elements) */
    int64_t storage[3];
    kbv_tensor out;         /* shape */
    int64_t causal_cols;    /* arg 0 causally masked with -inf (upload), 0: not */
} op_case;

/* Runs one op on a backend: uploads the args, returns the output on the host. */
static double *run_op(kbv_backend *be, const op_case *c)
{
    kbv_node node;
    memset(&node, 0, sizeof node);
    node.op = c->def.op;
    node.def = &c->def;
    node.n_args = c->n_args;
    kbv_tensor args[3], out = c->out;
    for (int a = 0; a < c->n_args; a++) {
        args[a] = c->args[a];
        args[a].dtype = be->float_dtype;
        upload(be, &args[a], a, c->storage[a], a == 0 ? c->causal_cols : 0);
    }
    out.dtype = be->float_dtype;
    set_contiguous(&out);
    ok(be->alloc(be, bytes_of(&out), &out.data));
    if (be->poison)
        ok(be->poison(be, &out));
    ok(be->ops[c->def.op](be, &node, args, &out));
    ok(be->sync(be));
    double *host = host_doubles(be, &out);
    be->release(be, out.data);
    for (int a = 0; a < c->n_args; a++)
        be->release(be, args[a].data);
    return host;
}

static void check_op(const op_case *c)
{
    kbv_backend *cpu = NULL;
    ok(kbv_cpu_backend_create(KBV_MODE_FP64, &cpu));
    double *want = run_op(cpu, c);
    int64_t n = numel_of(&c->out);
    const kbv_mode ms[] = {KBV_MODE_FP32, KBV_MODE_FP64};
    for (int m = 0; m < 2; m++) {
        kbv_backend *gpu = NULL;
        ok(kbv_cuda_backend_create(0, ms[m], &gpu));
        double *got = run_op(gpu, c);
        int64_t nonfinite = 0;
        for (int64_t i = 0; i < n; i++)
            nonfinite += !isfinite(got[i]);
        double err = rel_l2(got, want, n);
        print_message("op %-40s %s: rel L2 %.3g\n", c->what, gpu->name, err);
        assert_int_equal(nonfinite, 0);
        assert_true(err < (ms[m] == KBV_MODE_FP64 ? 1e-12 : 1e-5));
        free(got);
        kbv_backend_destroy(gpu);
    }
    free(want);
    kbv_backend_destroy(cpu);
}

#define SHAPE(...) ((int64_t[]){__VA_ARGS__})
#define NDIM(...) ((int)(sizeof((int64_t[]){__VA_ARGS__}) / sizeof(int64_t)))

static op_case make_case(const char *what, kbv_op op, int n_args)
{
    op_case c;
    memset(&c, 0, sizeof c);
    c.what = what;
    c.def.op = op;
    c.n_args = n_args;
    return c;
}

static void set_arg(op_case *c, int a, int ndim, const int64_t *shape)
{
    c->args[a] = shaped(ndim, shape);
    c->storage[a] = numel_of(&c->args[a]);
}

/* Arg a as the transpose (a view) of a contiguous [shape[1], shape[0]]. */
static void set_arg_transposed(op_case *c, int a, const int64_t *shape)
{
    set_arg(c, a, 2, shape);
    c->args[a].stride[0] = 1;
    c->args[a].stride[1] = shape[0];
}

static void set_out(op_case *c, int ndim, const int64_t *shape) { c->out = shaped(ndim, shape); }

static void check_op_shaped(op_case *c, int ndim, const int64_t *out_shape)
{
    set_out(c, ndim, out_shape);
    check_op(c);
}

static void test_softmax_shapes(void **state)
{
    (void)state;
    const kbv_op ops[] = {KBV_OP_SOFTMAX, KBV_OP_LOG_SOFTMAX};
    for (int k = 0; k < 2; k++) {
        op_case c = make_case("softmax rows 70001 (unaligned)", ops[k], 1);
        c.def.i[0] = -1;
        set_arg(&c, 0, 2, SHAPE(6, 70001));
        set_out(&c, 2, SHAPE(6, 70001));
        check_op(&c);
        c = make_case("softmax rows 65536 (vector, split)", ops[k], 1);
        c.def.i[0] = 1;
        set_arg(&c, 0, 2, SHAPE(5, 65536));
        set_out(&c, 2, SHAPE(5, 65536));
        check_op(&c);
        c = make_case("softmax 3000 rows of 2048", ops[k], 1);
        c.def.i[0] = -1;
        set_arg(&c, 0, 2, SHAPE(3000, 2048));
        set_out(&c, 2, SHAPE(3000, 2048));
        check_op(&c);
        c = make_case("softmax dim 1 of [3,500,7] (strided)", ops[k], 1);
        c.def.i[0] = 1;
        set_arg(&c, 0, 3, SHAPE(3, 500, 7));
        set_out(&c, 3, SHAPE(3, 500, 7));
        check_op(&c);
        /* a warp per row, the row in registers: every lane count (1 to 32 a lane) */
        static const int64_t warp_cols[] = {1, 32, 33, 49, 100, 256, 257, 512, 1000, 1024};
        for (size_t w = 0; w < sizeof warp_cols / sizeof warp_cols[0]; w++) {
            c = make_case("softmax rows of 1..1024 (a warp per row)", ops[k], 1);
            c.def.i[0] = -1;
            set_arg(&c, 0, 2, SHAPE(301, warp_cols[w]));
            set_out(&c, 2, SHAPE(301, warp_cols[w]));
            check_op(&c);
        }
        c = make_case("softmax of a transposed view", ops[k], 1);
        c.def.i[0] = -1;
        set_arg_transposed(&c, 0, SHAPE(37, 61));
        set_out(&c, 2, SHAPE(37, 61));
        check_op(&c);
        /* causal attention's rows: every element right of the diagonal -inf,
         * so a lane or a thread can hold only -inf (a warp per row of 7, a
         * block per row of 1500); softmax alone, as log_softmax's result is
         * -inf there */
        if (ops[k] != KBV_OP_SOFTMAX)
            continue;
        c = make_case("softmax of causally masked rows of 7", ops[k], 1);
        c.def.i[0] = -1;
        c.causal_cols = 7;
        set_arg(&c, 0, 2, SHAPE(2 * 8 * 7, 7));
        set_out(&c, 2, SHAPE(2 * 8 * 7, 7));
        check_op(&c);
        c = make_case("softmax of causally masked rows of 512", ops[k], 1);
        c.def.i[0] = -1;
        c.causal_cols = 512;
        set_arg(&c, 0, 2, SHAPE(2 * 512, 512));
        set_out(&c, 2, SHAPE(2 * 512, 512));
        check_op(&c);
        c = make_case("softmax of causally masked rows of 1500", ops[k], 1);
        c.def.i[0] = -1;
        c.causal_cols = 1500;
        set_arg(&c, 0, 2, SHAPE(600, 1500));
        set_out(&c, 2, SHAPE(600, 1500));
        check_op(&c);
    }
}

/* F.normalize: NetVLAD's dim 1 of [B, D, K] (the norm over the middle
 * dim) and of [B, D*K] (the last), and a transposed view. */
static void test_normalize_shapes(void **state)
{
    (void)state;
    op_case c = make_case("normalize dim 1 of [3,512,17]", KBV_OP_NORMALIZE, 1);
    c.def.i[0] = 1;
    c.def.f[0] = 1e-12;
    set_arg(&c, 0, 3, SHAPE(3, 512, 17));
    set_out(&c, 3, SHAPE(3, 512, 17));
    check_op(&c);
    /* Swin V2's q and k: the last dim of 32 (a warp per row) of a permuted view */
    c = make_case("normalize last dim of permuted [4,6,7,32]", KBV_OP_NORMALIZE, 1);
    c.def.i[0] = -1;
    c.def.f[0] = 1e-12;
    set_arg(&c, 0, 4, SHAPE(4, 6, 7, 32));
    c.args[0].stride[1] = 32;         /* [4, 7, 6, 32] with dims 1 and 2 swapped */
    c.args[0].stride[2] = 6 * 32;
    check_op_shaped(&c, 4, SHAPE(4, 6, 7, 32));
    c = make_case("normalize last dim of [700,200] (a warp per row)", KBV_OP_NORMALIZE, 1);
    c.def.i[0] = -1;
    c.def.f[0] = 1e-12;
    set_arg(&c, 0, 2, SHAPE(700, 200));
    check_op_shaped(&c, 2, SHAPE(700, 200));
    c = make_case("max of rows of 40 (a warp per row)", KBV_OP_MAX, 1);
    c.def.i[0] = 1;
    set_arg(&c, 0, 2, SHAPE(900, 40));
    check_op_shaped(&c, 1, SHAPE(900));
    c = make_case("normalize dim 1 of [5,8704]", KBV_OP_NORMALIZE, 1);
    c.def.i[0] = 1;
    c.def.f[0] = 1e-12;
    set_arg(&c, 0, 2, SHAPE(5, 8704));
    set_out(&c, 2, SHAPE(5, 8704));
    check_op(&c);
    c = make_case("normalize of a transposed view", KBV_OP_NORMALIZE, 1);
    c.def.i[0] = 0;
    c.def.f[0] = 1e-12;
    set_arg_transposed(&c, 0, SHAPE(37, 61));
    set_out(&c, 2, SHAPE(37, 61));
    check_op(&c);
}

/* einsum_n's pairwise steps through cuBLAS: Mamba-2's chunk recurrence
 * (a reshape copy, the bmm's output copied into the result) and its
 * intra-chunk states (an elementwise step, then a bmm). */
static void test_einsum_shapes(void **state)
{
    (void)state;
    op_case c = make_case("einsum bhzc,bchpn->bzhpn", KBV_OP_EINSUM_N, 2);
    c.def.s = "bhzc,bchpn->bzhpn";
    c.def.n_args = 2;
    set_arg(&c, 0, 4, SHAPE(3, 4, 5, 5));
    set_arg(&c, 1, 5, SHAPE(3, 5, 4, 16, 8));
    set_out(&c, 5, SHAPE(3, 5, 4, 16, 8));
    check_op(&c);
    c = make_case("einsum bclhn,bhcl,bclhp->bchpn", KBV_OP_EINSUM_N, 3);
    c.def.s = "bclhn,bhcl,bclhp->bchpn";
    c.def.n_args = 3;
    set_arg(&c, 0, 5, SHAPE(3, 2, 64, 4, 16));
    set_arg(&c, 1, 4, SHAPE(3, 4, 2, 64));
    set_arg(&c, 2, 5, SHAPE(3, 2, 64, 4, 32));
    set_out(&c, 5, SHAPE(3, 2, 4, 32, 16));
    check_op(&c);
}

static void test_elementwise_shapes(void **state)
{
    (void)state;
    const kbv_op unary[] = {KBV_OP_ABS,     KBV_OP_RELU,        KBV_OP_LEAKY_RELU, KBV_OP_SIGMOID,
                            KBV_OP_TANH,    KBV_OP_GELU,        KBV_OP_SELU,       KBV_OP_HARDSIGMOID,
                            KBV_OP_SOFTPLUS, KBV_OP_ELU,        KBV_OP_HARDTANH,   KBV_OP_ADD_SCALAR,
                            KBV_OP_MUL_SCALAR, KBV_OP_EXP};
    for (size_t k = 0; k < sizeof unary / sizeof unary[0]; k++) {
        op_case c = make_case("unary, 1000003 elements (vector + tail)", unary[k], 1);
        c.def.f[0] = unary[k] == KBV_OP_HARDTANH ? -1.0 : 0.37;
        c.def.f[1] = 1.0;
        set_arg(&c, 0, 1, SHAPE(1000003));
        set_out(&c, 1, SHAPE(1000003));
        check_op(&c);
        c = make_case("unary on a transposed view", unary[k], 1);
        c.def.f[0] = unary[k] == KBV_OP_HARDTANH ? -1.0 : 1.5;
        c.def.f[1] = 1.0;
        set_arg_transposed(&c, 0, SHAPE(37, 61));
        set_out(&c, 2, SHAPE(37, 61));
        check_op(&c);
    }
    const kbv_op binary[] = {KBV_OP_ADD, KBV_OP_SUB, KBV_OP_MUL, KBV_OP_DIV};
    for (size_t k = 0; k < 4; k++) {
        op_case c = make_case("binary same shape, odd length", binary[k], 2);
        set_arg(&c, 0, 2, SHAPE(3, 333));
        set_arg(&c, 1, 2, SHAPE(3, 333));
        set_out(&c, 2, SHAPE(3, 333));
        check_op(&c);
        c = make_case("binary [37,61] op [61]", binary[k], 2);
        set_arg(&c, 0, 2, SHAPE(37, 61));
        set_arg(&c, 1, 1, SHAPE(61));
        set_out(&c, 2, SHAPE(37, 61));
        check_op(&c);
        c = make_case("binary [37,1] op [1,61]", binary[k], 2);
        set_arg(&c, 0, 2, SHAPE(37, 1));
        set_arg(&c, 1, 2, SHAPE(1, 61));
        set_out(&c, 2, SHAPE(37, 61));
        check_op(&c);
        c = make_case("binary 0-dim op [999]", binary[k], 2);
        set_arg(&c, 0, 0, NULL);
        set_arg(&c, 1, 1, SHAPE(999));
        set_out(&c, 1, SHAPE(999));
        check_op(&c);
        c = make_case("binary transposed op contiguous", binary[k], 2);
        set_arg_transposed(&c, 0, SHAPE(37, 61));
        set_arg(&c, 1, 2, SHAPE(37, 61));
        set_out(&c, 2, SHAPE(37, 61));
        check_op(&c);
    }
}

static void test_layout_shapes(void **state)
{
    (void)state;
    const kbv_op tri[] = {KBV_OP_TRIU, KBV_OP_TRIL};
    for (int k = 0; k < 2; k++) {
        op_case c = make_case("tri [2,33,45] k=1 (scalar path)", tri[k], 1);
        c.def.i[0] = 1;
        set_arg(&c, 0, 3, SHAPE(2, 33, 45));
        set_out(&c, 3, SHAPE(2, 33, 45));
        check_op(&c);
        c = make_case("tri [64,128] k=-2 (vector path)", tri[k], 1);
        c.def.i[0] = -2;
        set_arg(&c, 0, 2, SHAPE(64, 128));
        set_out(&c, 2, SHAPE(64, 128));
        check_op(&c);
        c = make_case("tri of a transposed view", tri[k], 1);
        set_arg_transposed(&c, 0, SHAPE(40, 24));
        set_out(&c, 2, SHAPE(40, 24));
        check_op(&c);
    }
    op_case c = make_case("diag embed [64] (vector path)", KBV_OP_DIAG, 1);
    set_arg(&c, 0, 1, SHAPE(64));
    set_out(&c, 2, SHAPE(64, 64));
    check_op(&c);
    c = make_case("diag embed [37]", KBV_OP_DIAG, 1);
    set_arg(&c, 0, 1, SHAPE(37));
    set_out(&c, 2, SHAPE(37, 37));
    check_op(&c);
    c = make_case("diag extract [37,61]", KBV_OP_DIAG, 1);
    set_arg(&c, 0, 2, SHAPE(37, 61));
    set_out(&c, 1, SHAPE(37));
    check_op(&c);
}

/* A view of a contiguous tensor permuted: view dim d is dim perm[d] of the
 * stored shape (its strides). */
static void set_arg_permuted(op_case *c, int a, int ndim, const int64_t *stored,
                             const int *perm)
{
    set_arg(c, a, ndim, stored);
    kbv_tensor t = c->args[a];
    for (int d = 0; d < ndim; d++) {
        c->args[a].shape[d] = t.shape[perm[d]];
        c->args[a].stride[d] = t.stride[perm[d]];
    }
}

/* Strided copies (a permuted view copied in order, as the executor's clone
 * for .contiguous() or a reshape does), whose dims merge where their strides
 * nest: attention's heads split and merged, Mamba-2's chunks. */
static void test_strided_copies(void **state)
{
    (void)state;
    op_case c = make_case("copy of [B,T,H,D] as [B,H,T,D]", KBV_OP_CLONE, 1);
    set_arg_permuted(&c, 0, 4, SHAPE(3, 50, 4, 16), (int[]){0, 2, 1, 3});
    check_op_shaped(&c, 4, SHAPE(3, 4, 50, 16));
    c = make_case("copy of a 5-d permute with size-1 dims", KBV_OP_CLONE, 1);
    set_arg_permuted(&c, 0, 5, SHAPE(2, 1, 7, 9, 5), (int[]){4, 2, 1, 0, 3});
    check_op_shaped(&c, 5, SHAPE(5, 7, 1, 2, 9));
    c = make_case("copy of a transposed view (inner stride > 1)", KBV_OP_CLONE, 1);
    set_arg_transposed(&c, 0, SHAPE(333, 77));
    check_op_shaped(&c, 2, SHAPE(333, 77));
}

static void test_matmul_shapes(void **state)
{
    (void)state;
    /* q @ k^T and att @ v with q, k, v views of one fused projection: batch
     * dims that fold into no single stride, copied as PyTorch's reshape does */
    op_case q = make_case("matmul of head-split views (copied, one GEMM)", KBV_OP_MATMUL, 2);
    set_arg_permuted(&q, 0, 4, SHAPE(3, 20, 4, 8), (int[]){0, 2, 1, 3});   /* [3,4,20,8] */
    set_arg_permuted(&q, 1, 4, SHAPE(3, 20, 4, 8), (int[]){0, 2, 3, 1});   /* [3,4,8,20] */
    q.out = shaped(4, SHAPE(3, 4, 20, 20));
    check_op(&q);
    op_case c = make_case("matmul [2,1,5,7] @ [3,7,4] (batch loop)", KBV_OP_MATMUL, 2);
    set_arg(&c, 0, 4, SHAPE(2, 1, 5, 7));
    set_arg(&c, 1, 3, SHAPE(3, 7, 4));
    set_out(&c, 4, SHAPE(2, 3, 5, 4));
    check_op(&c);
    c = make_case("matmul [5] @ [3,5,4]", KBV_OP_MATMUL, 2);
    set_arg(&c, 0, 1, SHAPE(5));
    set_arg(&c, 1, 3, SHAPE(3, 5, 4));
    set_out(&c, 2, SHAPE(3, 4));
    check_op(&c);
    c = make_case("matmul [5,7] @ [7]", KBV_OP_MATMUL, 2);
    set_arg(&c, 0, 2, SHAPE(5, 7));
    set_arg(&c, 1, 1, SHAPE(7));
    set_out(&c, 1, SHAPE(5));
    check_op(&c);
    c = make_case("matmul [7] @ [7]", KBV_OP_MATMUL, 2);
    set_arg(&c, 0, 1, SHAPE(7));
    set_arg(&c, 1, 1, SHAPE(7));
    set_out(&c, 0, NULL);
    check_op(&c);
    c = make_case("matmul [4,6,5] @ [5,3] (fold)", KBV_OP_MATMUL, 2);
    set_arg(&c, 0, 3, SHAPE(4, 6, 5));
    set_arg(&c, 1, 2, SHAPE(5, 3));
    set_out(&c, 3, SHAPE(4, 6, 3));
    check_op(&c);
    c = make_case("matmul A.T @ B.T", KBV_OP_MATMUL, 2);
    set_arg_transposed(&c, 0, SHAPE(9, 13));
    set_arg_transposed(&c, 1, SHAPE(13, 11));
    set_out(&c, 2, SHAPE(9, 11));
    check_op(&c);
    c = make_case("bmm [3,5,7] @ [3,7,2]", KBV_OP_BMM, 2);
    set_arg(&c, 0, 3, SHAPE(3, 5, 7));
    set_arg(&c, 1, 3, SHAPE(3, 7, 2));
    set_out(&c, 3, SHAPE(3, 5, 2));
    check_op(&c);
    c = make_case("einsum bij,bjk->bik", KBV_OP_EINSUM, 2);
    c.def.s = "bij,bjk->bik";
    set_arg(&c, 0, 3, SHAPE(3, 5, 7));
    set_arg(&c, 1, 3, SHAPE(3, 7, 2));
    set_out(&c, 3, SHAPE(3, 5, 2));
    check_op(&c);
    c = make_case("einsum bijl,lk->bijk (fold)", KBV_OP_EINSUM, 2);
    c.def.s = "bijl,lk->bijk";
    set_arg(&c, 0, 4, SHAPE(2, 3, 5, 7));
    set_arg(&c, 1, 2, SHAPE(7, 4));
    set_out(&c, 4, SHAPE(2, 3, 5, 4));
    check_op(&c);
}

/* Attention whose scores exceed the chunk cuda_attention.c computes at a
 * time (256 MiB): three items of 6000 x 6000 scores go through one by one,
 * each at its own offset into Q, K, V and the output. */
static void test_attention_chunks(void **state)
{
    (void)state;
    op_case c = make_case("sdpa [3,6000,16] (chunked batch)", KBV_OP_SDPA, 3);
    set_arg(&c, 0, 3, SHAPE(3, 6000, 16));
    set_arg(&c, 1, 3, SHAPE(3, 6000, 16));
    set_arg(&c, 2, 3, SHAPE(3, 6000, 8));
    set_out(&c, 3, SHAPE(3, 6000, 8));
    check_op(&c);
}

/* ---- device services ---- */

static void test_allocator_accounting(void **state)
{
    (void)state;
    kbv_backend *be = NULL;
    ok(kbv_cuda_backend_create(0, KBV_MODE_FP32, &be));
    assert_int_equal(be->mem.current, 0);
    void *a = NULL, *b = NULL, *c = NULL;
    ok(be->alloc(be, 1000, &a));
    assert_int_equal(be->mem.current, 1024);
    ok(be->alloc(be, 512, &b));
    assert_int_equal(be->mem.current, 1536);
    assert_int_equal(be->mem.peak, 1536);
    assert_true(((uintptr_t)a % 256) == 0 && ((uintptr_t)b % 256) == 0);
    be->release(be, a);
    assert_int_equal(be->mem.current, 512);
    assert_int_equal(be->mem.peak, 1536);
    ok(be->alloc(be, 1023, &c)); /* same rounded size: the cached block again */
    assert_ptr_equal(c, a);
    assert_int_equal(be->mem.current, 1536);
    be->release(be, c);
    be->release(be, b);
    assert_int_equal(be->mem.current, 0);
    be->reset_peak(be);
    assert_int_equal(be->mem.peak, 0);
    void *z = (void *)1;
    ok(be->alloc(be, 0, &z));
    assert_null(z);
    assert_int_equal(be->mem.current, 0);
    be->trim(be);
    ok(be->alloc(be, (size_t)3 << 30, &a)); /* a large block, 64-bit sizes */
    assert_int_equal(be->mem.current, (size_t)3 << 30);
    be->release(be, a);
    be->trim(be);
    assert_int_equal(be->mem.current, 0);
    kbv_backend_destroy(be);
}

/* The CUDA backend's hash (cuda_compare.cu): the sum over the buffer's 8-byte words w_i,
 * little-endian and zero-padded, of splitmix64(w_i ^ i). */
static uint64_t hash_reference(const unsigned char *p, size_t bytes)
{
    uint64_t sum = 0;
    for (size_t i = 0; i < (bytes + 7) / 8; i++) {
        uint64_t w = 0;
        memcpy(&w, p + 8 * i, bytes - 8 * i < 8 ? bytes - 8 * i : 8);
        uint64_t z = (w ^ (uint64_t)i) + 0x9E3779B97F4A7C15ull;
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        sum += z ^ (z >> 31);
    }
    return sum;
}

static void test_poison_hash_convert(void **state)
{
    (void)state;
    kbv_backend *be = NULL;
    ok(kbv_cuda_backend_create(0, KBV_MODE_FP32, &be));
    const int64_t n = 100003;
    kbv_tensor f = shaped(1, SHAPE(n)), d = shaped(1, SHAPE(n));
    f.dtype = KBV_F32;
    d.dtype = KBV_F64;
    ok(be->alloc(be, bytes_of(&f), &f.data));
    ok(be->alloc(be, bytes_of(&d), &d.data));

    ok(be->poison(be, &f));
    ok(be->poison(be, &d));
    uint32_t *words = malloc(bytes_of(&d));
    assert_non_null(words);
    ok(be->to_host(be, words, f.data, bytes_of(&f)));
    for (int64_t i = 0; i < n; i++)
        assert_int_equal(words[i], KBV_POISON_F32);
    ok(be->to_host(be, words, d.data, bytes_of(&d)));
    for (int64_t i = 0; i < 2 * n; i++)
        assert_int_equal(words[i], KBV_POISON_F32);
    kbv_compare_stats st;
    ok(be->compare(be, &f, NULL, NULL, NULL, 0.0, 0.0, &st));
    assert_int_equal(st.poison_left, n);
    assert_int_equal(st.cand_nonfinite, n);

    /* hash: the documented formula, and any change changes it */
    float *host = (float *)words;
    for (int64_t i = 0; i < n; i++)
        host[i] = (float)pattern(3, i);
    ok(be->from_host(be, f.data, host, bytes_of(&f)));
    uint64_t h1 = 0, h2 = 0, want = 0;
    ok(be->hash(be, f.data, bytes_of(&f), &h1));
    want = hash_reference((unsigned char *)host, bytes_of(&f));
    assert_true(h1 == want);
    host[n / 2] = -host[n / 2];
    ok(be->from_host(be, f.data, host, bytes_of(&f)));
    ok(be->hash(be, f.data, bytes_of(&f), &h2));
    assert_true(h1 != h2);
    /* every load path: 32-byte chunks and a tail (16-byte aligned), 8-byte words
     * (8-byte aligned), bytes (unaligned), each with an odd length */
    const size_t starts[] = {3, 8, 16, 0}, lengths[] = {1001, 1001, 4093, 97};
    for (int k = 0; k < 4; k++) {
        ok(be->hash(be, (char *)f.data + starts[k], lengths[k], &h2));
        assert_true(h2 == hash_reference((unsigned char *)host + starts[k], lengths[k]));
    }

    /* convert: float -> double -> float is the identity */
    ok(be->convert(be, &f, &d));
    kbv_tensor back = f;
    ok(be->alloc(be, bytes_of(&f), &back.data));
    ok(be->convert(be, &d, &back));
    float *round = malloc(bytes_of(&f));
    assert_non_null(round);
    ok(be->to_host(be, round, back.data, bytes_of(&f)));
    assert_memory_equal(round, host, bytes_of(&f));
    free(round);
    free(words);
    be->release(be, back.data);
    be->release(be, f.data);
    be->release(be, d.data);
    kbv_backend_destroy(be);
}

static void test_arena_timer_flush(void **state)
{
    (void)state;
    kbv_backend *be = NULL;
    ok(kbv_cuda_backend_create(0, KBV_MODE_FP32, &be));
    kbv_arena arena;
    ok(be->arena_create(be, (size_t)1 << 20, &arena));
    assert_non_null(arena.base);
    /* one VMM allocation, rounded up to its granularity, shared by descriptor */
    assert_true(arena.bytes >= (size_t)1 << 20);
    assert_true(arena.fd >= 0);
    assert_true(arena.handle != 0);
    ok(be->poison(be, &(kbv_tensor){.data = arena.base, .dtype = KBV_F32, .ndim = 1,
                                    .shape = {(int64_t)(arena.bytes / 4)}, .stride = {1}}));
    assert_int_equal(be->mem.current, 0); /* arenas are not the baseline's memory */
    be->arena_destroy(be, &arena);
    assert_null(arena.base);

    double ms = -1.0;
    ok(be->timer_start(be));
    ok(be->flush_cache(be));
    ok(be->timer_stop(be, &ms));
    assert_true(ms > 0.0 && ms < 1000.0);
    assert_int_equal(be->mem.current, 0);
    kbv_backend_destroy(be);
}

/* ---- full size ---- */

static double time_run(kbv_backend *be, const kbv_graph *g, const kbv_tensor *in,
                       const kbv_tensor *params, kbv_tensor *out)
{
    double best = 1e30;
    for (int r = 0; r < 3; r++) {
        double ms = 0.0;
        ok(be->timer_start(be));
        ok(kbv_graph_run(g, be, in, params, out));
        ok(be->timer_stop(be, &ms));
        if (r < 2)
            release_all(be, out, g->n_outputs);
        best = ms < best ? ms : best;
    }
    return best;
}

static void test_full_size_relu(void **state)
{
    (void)state;
    kbv_graph *g = calloc(1, sizeof *g);
    assert_non_null(g);
    ok(kbv_graph_build(kbv_problem_find("L1/19"), KBV_SIZE_FULL, g));
    kbv_backend *be = NULL;
    ok(kbv_cuda_backend_create(0, KBV_MODE_FP32, &be));
    kbv_draw draw = {KBV_DIST_BASE, SEED}; /* rand >= 0: relu is the identity */
    kbv_tensor in[1], out[1];
    draw_all(be, g, &draw, in, NULL);
    double ms = time_run(be, g, in, NULL, out);
    double gbs = 2.0 * (double)bytes_of(&in[0]) / (ms * 1e6);
    print_message("L1/19 full size fp32: %.3f ms (%.0f GB/s)\n", ms, gbs);
    kbv_compare_stats st;
    ok(be->compare(be, &out[0], &in[0], NULL, NULL, 0.0, 0.0, &st));
    assert_int_equal(st.n, numel_of(&in[0]));
    assert_int_equal(st.allclose_fail, 0);
    assert_int_equal(st.poison_left, 0);
    assert_int_equal(st.cand_nonfinite, 0);
    release_all(be, out, 1);
    release_all(be, in, 1);
    kbv_backend_destroy(be);
    kbv_graph_free(g);
    free(g);
}

static void test_full_size_matmul(void **state)
{
    (void)state;
    kbv_graph *g = calloc(1, sizeof *g);
    assert_non_null(g);
    ok(kbv_graph_build(kbv_problem_find("L1/1"), KBV_SIZE_FULL, g));
    const kbv_mode ms2[] = {KBV_MODE_FP32, KBV_MODE_TF32};
    for (int m = 0; m < 2; m++) {
        kbv_backend *be = NULL;
        ok(kbv_cuda_backend_create(0, ms2[m], &be));
        kbv_draw draw = {KBV_DIST_BASE, SEED};
        kbv_tensor in[2], out[1];
        draw_all(be, g, &draw, in, NULL);
        double ms = time_run(be, g, in, NULL, out);
        const int64_t N = in[0].shape[0];
        print_message("L1/1 full size %s: %.3f ms (%.1f TFLOP/s)\n", be->name, ms,
                      2.0 * (double)N * N * N / (ms * 1e9));
        double *a = host_doubles(be, &in[0]), *b = host_doubles(be, &in[1]);
        double *c = host_doubles(be, &out[0]);
        double worst = 0.0;
        for (int s = 0; s < 16; s++) {
            int64_t i = (s * 977) % N, j = (s * 1553 + 11) % N;
            double want = 0.0;
            for (int64_t k = 0; k < N; k++)
                want += a[i * N + k] * b[k * N + j];
            double rel = fabs(c[i * N + j] - want) / fabs(want);
            worst = rel > worst ? rel : worst;
        }
        print_message("L1/1 full size %s: worst sampled relative error %.3g\n", be->name, worst);
        assert_true(worst < (ms2[m] == KBV_MODE_TF32 ? 5e-3 : 1e-5));
        free(a);
        free(b);
        free(c);
        release_all(be, out, 1);
        release_all(be, in, 2);
        kbv_backend_destroy(be);
    }
    kbv_graph_free(g);
    free(g);
}

/* The oracle on a float32 input (kbv_graph_takes_f32_input): the float64
 * backend's elementwise ops read it as its float64 value, and their outputs
 * are the run's on the input's float64 copy, bit for bit; heavy-tailed
 * inputs (D7) reach every branch of the activations. Problems whose input
 * meets a binary op or a product still get the copy. */
static void test_oracle_reads_f32(void **state)
{
    (void)state;
    static const char *const widened[] = {"L1/19", "L1/20", "L1/21", "L1/22", "L1/26",
                                          "L1/27", "L1/28", "L1/29", "L1/31", "L1/32"};
    static const char *const copied[] = {"L1/1", "L1/25", "L1/30", "L1/88"};
    kbv_backend *be32 = NULL, *be64 = NULL;
    ok(kbv_cuda_backend_create(0, KBV_MODE_FP32, &be32));
    ok(kbv_cuda_backend_create(0, KBV_MODE_FP64, &be64));
    kbv_graph g = {0};
    for (size_t k = 0; k < sizeof copied / sizeof *copied; k++) {
        ok(kbv_graph_build(kbv_problem_find(copied[k]), KBV_SIZE_SMALL, &g));
        assert_false(kbv_graph_takes_f32_input(be64, &g, 0));
    }
    for (size_t k = 0; k < sizeof widened / sizeof *widened; k++) {
        ok(kbv_graph_build(kbv_problem_find(widened[k]), KBV_SIZE_SMALL, &g));
        assert_true(kbv_graph_takes_f32_input(be64, &g, 0));
        assert_false(kbv_graph_takes_f32_input(be32, &g, 0));
        kbv_draw draw = {KBV_DIST_D7, SEED + k};
        kbv_tensor x, x64, copy_out, f32_out;
        draw_all(be32, &g, &draw, &x, NULL);
        x64 = x;
        x64.dtype = KBV_F64;
        ok(be64->alloc(be64, bytes_of(&x64), &x64.data));
        ok(be64->convert(be64, &x, &x64));
        ok(kbv_graph_run(&g, be64, &x64, NULL, &copy_out));
        ok(kbv_graph_run(&g, be64, &x, NULL, &f32_out));
        assert_int_equal(f32_out.dtype, KBV_F64);
        assert_int_equal(numel_of(&f32_out), numel_of(&x));
        uint64_t h_copy, h_f32;
        ok(be64->hash(be64, copy_out.data, bytes_of(&copy_out), &h_copy));
        ok(be64->hash(be64, f32_out.data, bytes_of(&f32_out), &h_f32));
        if (h_copy != h_f32)
            print_error("%s: the oracle on float32 differs from the one on its copy\n",
                        widened[k]);
        assert_true(h_copy == h_f32);
        release_all(be64, &copy_out, 1);
        release_all(be64, &f32_out, 1);
        release_all(be64, &x64, 1);
        release_all(be32, &x, 1);
    }
    kbv_graph_free(&g);
    kbv_backend_destroy(be64);
    kbv_backend_destroy(be32);
}

static int need_gpu(void **state)
{
    (void)state;
    if (!kbv_cuda_available()) {
        print_message("no CUDA device: skipping\n");
        return -1;
    }
    return 0;
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_allocator_accounting),
        cmocka_unit_test(test_poison_hash_convert),
        cmocka_unit_test(test_arena_timer_flush),
        cmocka_unit_test(test_elementwise_shapes),
        cmocka_unit_test(test_softmax_shapes),
        cmocka_unit_test(test_normalize_shapes),
        cmocka_unit_test(test_einsum_shapes),
        cmocka_unit_test(test_layout_shapes),
        cmocka_unit_test(test_strided_copies),
        cmocka_unit_test(test_matmul_shapes),
        cmocka_unit_test(test_attention_chunks),
        cmocka_unit_test(test_fill_matches_cpu),
        cmocka_unit_test(test_every_problem_small),
        cmocka_unit_test(test_oracle_reads_f32),
        cmocka_unit_test(test_full_size_relu),
        cmocka_unit_test(test_full_size_matmul),
    };
    /* KBV_GPU_TEST_FILTER=test_softmax_shapes (a glob) runs only the tests it names */
    const char *only = getenv("KBV_GPU_TEST_FILTER");
    if (only && *only)
        cmocka_set_test_filter(only);
    return cmocka_run_group_tests(tests, need_gpu, NULL);
}
