/* A small C API, exported from libkbv.so, for measuring kbv's baselines
 * side by side with PyTorch in one process (bench/, through ctypes): the
 * caller owns the input buffers (torch tensors), kbv draws into them and
 * times its own baseline on them on the current device.
 *
 * Functions return 0 on success; on failure they print the error trace to
 * stderr and return 1. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cuda/cuda_check.h"
#include "cuda/cuda_impl.h"
#include "graph/graph.h"

#define KBV_BENCH_EXPORT __attribute__((visibility("default")))

KBV_BENCH_EXPORT int kbv_bench_fill_inputs(const char *problem_key, int small, int dist,
                                           unsigned long long seed, void **device_ptrs, int n);
KBV_BENCH_EXPORT int kbv_bench_time_baseline(const char *problem_key, int small, const char *mode,
                                             void **device_inputs, int n_inputs, int warmup,
                                             int reps, double *ms_out, double *peak_bytes_out);

static int report(kbv_status st)
{
    if (st == KBV_OK)
        return 0;
    fprintf(stderr, "kbv: %s\n", kbv_last_error());
    return 1;
}

static kbv_status build(const char *key, int small, kbv_graph **g)
{
    *g = NULL;
    const kbv_problem *def = key ? kbv_problem_find(key) : NULL;
    if (!def)
        return kbv_fail(KBV_ERR_NOT_FOUND, "no problem \"%s\"", key ? key : "(null)");
    kbv_graph *graph = calloc(1, sizeof *graph);
    if (!graph)
        return kbv_fail(KBV_ERR_NOMEM, "graph of %s", key);
    kbv_status st = kbv_graph_build(def, small ? KBV_SIZE_SMALL : KBV_SIZE_FULL, graph);
    if (st != KBV_OK) {
        free(graph);
        return kbv_relay_at(__FILE__, __LINE__, st);
    }
    *g = graph;
    return KBV_OK;
}

static kbv_status current_backend(kbv_mode mode, kbv_backend **be)
{
    int device = 0;
    KBV_CUDA_TRY(cudaGetDevice(&device));
    KBV_TRY(kbv_cuda_backend_create(device, mode, be));
    return KBV_OK;
}

/* The input tensor of graph value i, float values stored as `float_dtype`. */
static void input_tensor(const kbv_graph *g, int i, kbv_dtype float_dtype, void *data,
                         kbv_tensor *t)
{
    kbv_value_tensor(&g->values[i], t);
    if (t->dtype == KBV_F32)
        t->dtype = float_dtype;
    t->data = data;
}

static kbv_status fill_inputs(const char *key, int small, int dist, unsigned long long seed,
                              void **ptrs, int n)
{
    kbv_status st = KBV_OK;
    kbv_graph *g = NULL;
    kbv_backend *be = NULL;
    if (dist < 0 || dist >= KBV_DIST_COUNT)
        return kbv_fail(KBV_ERR_INVALID, "distribution %d out of range", dist);
    KBV_TRY_GOTO(build(key, small, &g), st, done);
    if (n != g->n_inputs)
        KBV_FAIL_GOTO(st, done, KBV_ERR_INVALID, "%s has %d inputs, %d buffers given", key,
                      g->n_inputs, n);
    KBV_TRY_GOTO(current_backend(KBV_MODE_FP32, &be), st, done);
    kbv_draw draw = {(kbv_dist)dist, (uint64_t)seed};
    for (int i = 0; i < n; i++) {
        kbv_tensor t;
        input_tensor(g, i, KBV_F32, ptrs[i], &t);
        KBV_TRY_GOTO(be->fill(be, &g->def->inputs[g->values[i].def_index], i, &draw, &t), st,
                     done);
    }
    KBV_TRY_GOTO(be->sync(be), st, done);
done:
    if (be)
        be->destroy(be);
    kbv_graph_free(g);
    free(g);
    return st;
}

int kbv_bench_fill_inputs(const char *problem_key, int small, int dist, unsigned long long seed,
                          void **device_ptrs, int n)
{
    return report(fill_inputs(problem_key, small, dist, seed, device_ptrs, n));
}

/* One forward, its outputs released (back to the cache) at once. */
static kbv_status run_once(const kbv_graph *g, kbv_backend *be, const kbv_tensor *inputs,
                           const kbv_tensor *params)
{
    kbv_tensor *outputs = calloc((size_t)g->n_outputs + 1, sizeof *outputs);
    if (!outputs)
        return kbv_fail(KBV_ERR_NOMEM, "outputs of %d", g->n_outputs);
    kbv_status st = kbv_graph_run(g, be, inputs, params, outputs);
    for (int i = 0; st == KBV_OK && i < g->n_outputs; i++)
        be->release(be, outputs[i].data);
    free(outputs);
    if (st != KBV_OK)
        return kbv_relay_at(__FILE__, __LINE__, st);
    return KBV_OK;
}

static kbv_status time_baseline(const char *key, int small, const char *mode_name, void **ptrs,
                                int n, int warmup, int reps, double *ms, double *peak_bytes)
{
    kbv_status st = KBV_OK;
    kbv_graph *g = NULL;
    kbv_backend *be = NULL;
    kbv_tensor *inputs = NULL, *params = NULL, *outputs = NULL;
    void **owned = NULL;
    int n_owned = 0;
    size_t resident = 0;
    kbv_mode mode;
    if (warmup < 0 || reps < 1)
        return kbv_fail(KBV_ERR_INVALID, "warmup %d, reps %d", warmup, reps);
    KBV_TRY(kbv_mode_parse(mode_name, &mode));
    KBV_TRY_GOTO(build(key, small, &g), st, done);
    if (n != g->n_inputs)
        KBV_FAIL_GOTO(st, done, KBV_ERR_INVALID, "%s has %d inputs, %d buffers given", key,
                      g->n_inputs, n);
    inputs = calloc((size_t)g->n_inputs + 1, sizeof *inputs);
    params = calloc((size_t)g->n_params + 1, sizeof *params);
    outputs = calloc((size_t)g->n_outputs + 1, sizeof *outputs);
    owned = calloc((size_t)(g->n_inputs + g->n_params) + 1, sizeof *owned);
    if (!inputs || !params || !outputs || !owned)
        KBV_FAIL_GOTO(st, done, KBV_ERR_NOMEM, "tensors of %s", key);
    KBV_TRY_GOTO(current_backend(mode, &be), st, done);

    /* Inputs are the caller's float32 buffers; float64 and bfloat16 runs
     * read converted copies (bfloat16 rounded to nearest even, as
     * tensor.to(torch.bfloat16); a Python number input stays float32).
     * Either way they are resident, as in PyTorch's measurement. */
    for (int i = 0; i < n; i++) {
        kbv_tensor given;
        input_tensor(g, i, KBV_F32, ptrs[i], &given);
        const size_t bytes = (size_t)kbv_value_numel(&g->values[i]) * kbv_dtype_size(given.dtype);
        const kbv_dtype want = kbv_storage_dtype(
            be, given.dtype, g->def->inputs[g->values[i].def_index].gen == KBV_GEN_SCALAR);
        if (want != given.dtype) {
            const size_t want_bytes =
                (size_t)kbv_value_numel(&g->values[i]) * kbv_dtype_size(want);
            input_tensor(g, i, want, NULL, &inputs[i]);
            KBV_TRY_GOTO(be->alloc(be, want_bytes, &inputs[i].data), st, done);
            owned[n_owned++] = inputs[i].data;
            KBV_TRY_GOTO(be->convert(be, &given, &inputs[i]), st, done);
            resident += kbv_cuda_round_bytes(want_bytes);
        } else {
            inputs[i] = given;
            resident += kbv_cuda_round_bytes(bytes);
        }
    }
    /* Parameters are drawn here, from their initialisers (seed 0). */
    kbv_draw draw = {KBV_DIST_BASE, 0};
    for (int p = 0; p < g->n_params; p++) {
        const int v = g->n_inputs + p;
        input_tensor(g, v, be->float_dtype, NULL, &params[p]);
        const size_t bytes =
            (size_t)kbv_value_numel(&g->values[v]) * kbv_dtype_size(params[p].dtype);
        KBV_TRY_GOTO(be->alloc(be, bytes, &params[p].data), st, done);
        owned[n_owned++] = params[p].data;
        KBV_TRY_GOTO(be->fill_param(be, g, p, &draw, &params[p]), st, done);
        resident += kbv_cuda_round_bytes(bytes);
    }

    /* the first run allocates the cache and cuBLAS's workspace, untimed */
    KBV_TRY_GOTO(run_once(g, be, inputs, params), st, done);
    for (int w = 0; w < warmup; w++)
        KBV_TRY_GOTO(run_once(g, be, inputs, params), st, done);
    KBV_TRY_GOTO(be->sync(be), st, done);
    be->reset_peak(be);
    const size_t base = be->mem.current;
    for (int r = 0; r < reps; r++) {
        KBV_TRY_GOTO(be->timer_start(be), st, done);
        memset(outputs, 0, sizeof *outputs * (size_t)g->n_outputs);
        KBV_TRY_GOTO(kbv_graph_run(g, be, inputs, params, outputs), st, done);
        KBV_TRY_GOTO(be->timer_stop(be, &ms[r]), st, done);
        for (int i = 0; i < g->n_outputs; i++)
            be->release(be, outputs[i].data);
    }
    /* every run frees what it made, so the peak over all runs is one run's */
    *peak_bytes = (double)resident + (double)(be->mem.peak - base);
done:
    if (be) {
        for (int i = 0; i < n_owned; i++)
            be->release(be, owned[i]);
        be->destroy(be);
    }
    kbv_graph_free(g);
    free(g);
    free(inputs);
    free(params);
    free(outputs);
    free(owned);
    return st;
}

int kbv_bench_time_baseline(const char *problem_key, int small, const char *mode,
                            void **device_inputs, int n_inputs, int warmup, int reps,
                            double *ms_out, double *peak_bytes_out)
{
    return report(time_baseline(problem_key, small, mode, device_inputs, n_inputs, warmup, reps,
                                ms_out, peak_bytes_out));
}
