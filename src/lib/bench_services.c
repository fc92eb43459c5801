/* The evaluator's checks, pass by pass, on one problem's tensors: exported
 * from libkbv.so for bench/services (ctypes), which prints how close each
 * pass comes to a device-to-device copy timed beside it in the same process.
 *
 * The passes are those a checked draw makes over the data (the fills, the
 * poison, the hashes, the float64 copy, the comparisons, the references and
 * the oracle), each timed on the backend's own clock (CUDA events on its
 * stream, or CLOCK_MONOTONIC on the CPU) one call at a time. The problem must
 * have one input, no parameters and one output of the input's element count
 * (the elementwise problems, whose checks dominate an all-protocol run).
 *
 * kbv_bench_services returns 0 on success; on failure it prints the error
 * trace to stderr and returns 1. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dist/dist.h"
#include "exec/backend.h"
#include "graph/graph.h"
#include "graph/problem.h"

#define KBV_BENCH_EXPORT __attribute__((visibility("default")))

typedef enum service {
    SVC_COPY,             /* y = x: the rate the others are read against */
    SVC_FILL,             /* the input drawn (base distribution) */
    SVC_FILL_HIDDEN,      /* ... under a hidden distribution (D2, a factor) */
    SVC_POISON,           /* the output poisoned */
    SVC_HASH,             /* the input hashed */
    SVC_CONVERT,          /* the input's float64 copy, for the oracle */
    SVC_COMPARE,          /* allclose against one reference */
    SVC_COMPARE_STRICT,   /* allclose, and strict against the oracle and fp32-strict */
    SVC_COMPARE_BUDGET,   /* the same with the budget baseline judged in its pass (as a
                             strict draw compares; the budget is fp32-strict's buffer) */
    SVC_REFERENCE,        /* the problem on the float32 backend */
    SVC_ORACLE,           /* the problem on the float64 backend, as a strict draw runs it:
                             on the float32 input where the backend widens it as it reads
                             (kbv_graph_takes_f32_input), else on the float64 copy */
    SVC_COUNT
} service;

static const char *const service_names[SVC_COUNT] = {
    "copy", "fill", "fill-hidden", "poison", "hash", "convert-f64", "compare", "compare-strict",
    "compare-budget", "reference", "oracle",
};

KBV_BENCH_EXPORT int kbv_bench_service_count(void);
KBV_BENCH_EXPORT const char *kbv_bench_service_name(int i);
KBV_BENCH_EXPORT int kbv_bench_services(const char *problem_key, int small, int device,
                                        int warmup, int reps, double *ms_out,
                                        double *bytes_out, long long *elements_out);

int kbv_bench_service_count(void)
{
    return SVC_COUNT;
}

const char *kbv_bench_service_name(int i)
{
    return i >= 0 && i < SVC_COUNT ? service_names[i] : NULL;
}

typedef struct bench {
    const kbv_graph *g;
    kbv_backend *be, *be64;
    kbv_tensor x, y, z, x64, out, out64;   /* out, out64: the graph's, from kbv_graph_run */
    int64_t n;
    bool oracle_f32;   /* the oracle reads x itself (SVC_ORACLE) */
} bench;

static kbv_status make_tensor(kbv_backend *be, const kbv_graph *g, kbv_dtype dtype, kbv_tensor *t)
{
    kbv_value_tensor(&g->values[0], t);
    t->dtype = dtype;
    return be->alloc(be, (size_t)kbv_value_numel(&g->values[0]) * kbv_dtype_size(dtype), &t->data);
}

static void release_out(kbv_backend *be, kbv_tensor *t)
{
    if (t->data)
        be->release(be, t->data);
    t->data = NULL;
}

/* The previous run's output, unless it is the input itself (a view). */
static void release_graph_output(kbv_backend *be, kbv_tensor *out, const kbv_tensor *in)
{
    if (out->data == in->data)
        out->data = NULL;
    release_out(be, out);
}

/* The backend whose queue and clock service s runs on. */
static kbv_backend *backend_of(const bench *b, service s)
{
    return s == SVC_ORACLE ? b->be64 : b->be;
}

/* One call of service s, on its backend's queue. */
static kbv_status run_service(bench *b, service s)
{
    const kbv_input_def *in = &b->g->def->inputs[b->g->values[0].def_index];
    const int in_index = b->g->values[0].def_index;
    kbv_compare_stats stats;
    switch (s) {
    case SVC_COPY:
        return b->be->copy(b->be, b->y.data, b->x.data, (size_t)b->n * sizeof(float));
    case SVC_FILL: {
        kbv_draw d = {.dist = KBV_DIST_BASE, .seed = 11};
        return b->be->fill(b->be, in, in_index, &d, &b->x);
    }
    case SVC_FILL_HIDDEN: {
        kbv_draw d = {.dist = KBV_DIST_D2, .seed = 12};
        return b->be->fill(b->be, in, in_index, &d, &b->z);
    }
    case SVC_POISON: return b->be->poison(b->be, &b->y);
    case SVC_HASH: {
        uint64_t h;
        return b->be->hash(b->be, b->x.data, (size_t)b->n * sizeof(float), &h);
    }
    case SVC_CONVERT: return b->be->convert(b->be, &b->x, &b->x64);
    case SVC_COMPARE:
        return b->be->compare(b->be, &b->y, &b->x, NULL, NULL, 1e-3, 1e-3, &stats);
    case SVC_COMPARE_STRICT:
        return b->be->compare(b->be, &b->y, &b->x, &b->x64, &b->z, 1e-3, 1e-3, &stats);
    case SVC_COMPARE_BUDGET: {
        kbv_compare_stats budget;
        return b->be->compare_budget(b->be, &b->y, &b->z, &b->x, &b->x64, &b->z, 1e-3, 1e-3,
                                     &stats, &budget);
    }
    case SVC_REFERENCE:
        release_graph_output(b->be, &b->out, &b->x);
        return kbv_graph_run(b->g, b->be, &b->x, NULL, &b->out);
    case SVC_ORACLE: {
        const kbv_tensor *in = b->oracle_f32 ? &b->x : &b->x64;
        release_graph_output(b->be64, &b->out64, in);
        return kbv_graph_run(b->g, b->be64, in, NULL, &b->out64);
    }
    default: return kbv_fail(KBV_ERR_INTERNAL, "no service %d", (int)s);
    }
}

static double service_bytes(const bench *b, service s)
{
    const double f = 4.0 * (double)b->n, d = 8.0 * (double)b->n;
    switch (s) {
    case SVC_COPY: return 2 * f;
    case SVC_FILL:
    case SVC_FILL_HIDDEN:
    case SVC_POISON:
    case SVC_HASH: return f;
    case SVC_CONVERT: return f + d;
    case SVC_COMPARE: return 2 * f;
    case SVC_COMPARE_STRICT:   /* candidate, reference, fp32-strict, oracle */
    case SVC_COMPARE_BUDGET: return 3 * f + d;   /* the budget is fp32-strict's, read once */
    case SVC_REFERENCE: return kbv_graph_min_bytes_stored(b->g, KBV_F32);
    case SVC_ORACLE:   /* a float32 input is read in 4 bytes */
        return kbv_graph_min_bytes_stored(b->g, KBV_F64) - (b->oracle_f32 ? f : 0.0);
    default: return NAN;
    }
}

static kbv_status time_services(bench *b, int warmup, int reps, double *ms_out, double *bytes_out)
{
    /* each tensor holds values before anything reads it: x the input, z a
     * hidden draw, y poisoned and then x's copy (so that the comparisons
     * see an honest candidate's finite output), x64 x in float64 */
    static const service order[SVC_COUNT] = {SVC_FILL, SVC_FILL_HIDDEN, SVC_POISON, SVC_COPY,
                                             SVC_HASH, SVC_CONVERT, SVC_COMPARE,
                                             SVC_COMPARE_STRICT, SVC_COMPARE_BUDGET,
                                             SVC_REFERENCE, SVC_ORACLE};
    for (int k = 0; k < SVC_COUNT; k++) {
        service s = order[k];
        kbv_backend *be = backend_of(b, s);
        bytes_out[s] = service_bytes(b, s);
        for (int w = 0; w < warmup; w++)
            KBV_TRY(run_service(b, s));
        KBV_TRY(be->sync(be));
        for (int r = 0; r < reps; r++) {
            KBV_TRY(be->timer_start(be));
            KBV_TRY(run_service(b, s));
            KBV_TRY(be->timer_stop(be, &ms_out[(size_t)s * (size_t)reps + (size_t)r]));
        }
        KBV_TRY(be->sync(be));
    }
    return KBV_OK;
}

static kbv_status check_shape(const kbv_graph *g, const char *key)
{
    if (g->n_inputs != 1 || g->n_params != 0 || g->n_outputs != 1 ||
        kbv_value_numel(&g->values[g->outputs[0]]) != kbv_value_numel(&g->values[0]) ||
        g->values[0].dtype != KBV_F32 || g->def->inputs[g->values[0].def_index].gen ==
                                             KBV_GEN_SCALAR)
        return kbv_fail(KBV_ERR_UNSUPPORTED,
                        "%s: the services bench takes a problem with one float input, no "
                        "parameters and one output of the input's size (an elementwise one)",
                        key);
    return KBV_OK;
}

static kbv_status bench_run(const char *key, int small, int device, int warmup, int reps,
                            double *ms_out, double *bytes_out, long long *elements_out)
{
    kbv_status st = KBV_OK;
    kbv_graph g = {0};
    bench b = {.g = &g};
    const kbv_problem *def = key ? kbv_problem_find(key) : NULL;
    if (!def)
        return kbv_fail(KBV_ERR_NOT_FOUND, "no problem \"%s\"", key ? key : "(null)");
    if (warmup < 0 || reps < 1)
        return kbv_fail(KBV_ERR_INVALID, "warmup %d, reps %d: need warmup >= 0, reps >= 1",
                        warmup, reps);
    KBV_TRY(kbv_graph_build(def, small ? KBV_SIZE_SMALL : KBV_SIZE_FULL, &g));
    KBV_TRY_GOTO(check_shape(&g, key), st, done);
    if (device < 0) {
        KBV_TRY_GOTO(kbv_cpu_backend_create(KBV_MODE_FP32, &b.be), st, done);
        KBV_TRY_GOTO(kbv_cpu_backend_create(KBV_MODE_FP64, &b.be64), st, done);
    } else {
        KBV_TRY_GOTO(kbv_cuda_backend_create(device, KBV_MODE_FP32, &b.be), st, done);
        KBV_TRY_GOTO(kbv_cuda_backend_create(device, KBV_MODE_FP64, &b.be64), st, done);
    }
    b.n = kbv_value_numel(&g.values[0]);
    b.oracle_f32 = kbv_graph_takes_f32_input(b.be64, &g, 0);
    *elements_out = b.n;
    KBV_TRY_GOTO(make_tensor(b.be, &g, KBV_F32, &b.x), st, done);
    KBV_TRY_GOTO(make_tensor(b.be, &g, KBV_F32, &b.y), st, done);
    KBV_TRY_GOTO(make_tensor(b.be, &g, KBV_F32, &b.z), st, done);
    KBV_TRY_GOTO(make_tensor(b.be, &g, KBV_F64, &b.x64), st, done);
    KBV_TRY_GOTO(time_services(&b, warmup, reps, ms_out, bytes_out), st, done);
done:
    /* the graphs' outputs first: either may be its input */
    if (b.be64) {
        b.be64->sync(b.be64);
        release_graph_output(b.be64, &b.out64, b.oracle_f32 ? &b.x : &b.x64);
    }
    if (b.be) {
        b.be->sync(b.be);
        release_graph_output(b.be, &b.out, &b.x);
        release_out(b.be, &b.x);
        release_out(b.be, &b.y);
        release_out(b.be, &b.z);
        release_out(b.be, &b.x64);
    }
    kbv_backend_destroy(b.be64);
    kbv_backend_destroy(b.be);
    kbv_graph_free(&g);
    return st;
}

int kbv_bench_services(const char *problem_key, int small, int device, int warmup, int reps,
                       double *ms_out, double *bytes_out, long long *elements_out)
{
    kbv_status st = bench_run(problem_key, small, device, warmup, reps, ms_out, bytes_out,
                              elements_out);
    if (st == KBV_OK)
        return 0;
    fprintf(stderr, "kbv: %s\n", kbv_last_error());
    return 1;
}
