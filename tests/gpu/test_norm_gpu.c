/* The normalisation, reduction, scan, loss and attention problems on a GPU:
 * each problem's graph on the CUDA backend (float64, fp32-strict, tf32)
 * against the CPU backend's float64 run on the same inputs, at the small CI
 * size (odd sizes: the scalar paths) and at a mid size with the catalog's
 * proportions (multiples of 4: the 16-byte paths). Inputs and params are
 * drawn on the host and copied over, so derived inputs (scaled, softmax'd,
 * +-1, bool masks, float16) are exactly the CPU's. The norm shapes below
 * reach every path of the CUDA normalisations (cuda_norm_layout.h) the
 * catalog's sizes take, and their edges, with random weights and biases so a
 * misplaced channel shows. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "exec/backend.h"
#include "graph/graph.h"
#include "graph/ops_table.h"

static const int problem_ids[] = {33, 34, 35, 36, 37, 38, 39, 40, 47, 48, 49, 51, 52, 53,
                                  88, 89, 90, 91, 92, 93, 94, 95, 96, 97, 98, 99, 100};

static void ok(kbv_status st)
{
    if (st != KBV_OK)
        print_error("%s\n", kbv_last_error());
    assert_int_equal(st, KBV_OK);
}

static bool is_float(kbv_dtype dt) { return dt == KBV_F32 || dt == KBV_F64 || dt == KBV_F16; }

/* Float values in the backend's dtype, except float16 inputs, which reach
 * the CUDA ops in their own dtype (as a candidate's inputs do) when `keep_half`. */
static kbv_dtype storage(const kbv_backend *be, kbv_dtype logical, bool keep_half)
{
    if (logical == KBV_F16 && keep_half)
        return KBV_F16;
    return is_float(logical) ? be->float_dtype : logical;
}

static size_t bytes_of(const kbv_tensor *t)
{
    int64_t n = 1;
    for (int d = 0; d < t->ndim; d++)
        n *= t->shape[d];
    return (size_t)n * kbv_dtype_size(t->dtype);
}

/* Mid dims: the catalog's, halved (largest first) until no value exceeds
 * 2^21 elements; num_classes stays (the targets' range depends on it) and
 * dims that must stay divisible (features of group norm) stay even. */
static void mid_dims(const kbv_problem_def *def, int64_t *dims)
{
    int n = 0;
    while (n < KBV_DEF_MAX_DIMS && def->dims[n].name) {
        dims[n] = def->dims[n].full;
        n++;
    }
    kbv_graph *g = malloc(sizeof *g);
    assert_non_null(g);
    for (;;) {
        ok(kbv_graph_build_dims(def, dims, g));
        int64_t biggest = 0;
        for (int v = 0; v < g->n_values; v++)
            if (kbv_value_numel(&g->values[v]) > biggest)
                biggest = kbv_value_numel(&g->values[v]);
        if (biggest <= ((int64_t)1 << 21))
            break;
        int at = -1;
        for (int d = 0; d < n; d++)
            if (strcmp(def->dims[d].name, "num_classes") && dims[d] > 8 &&
                (at < 0 || dims[d] > dims[at]))
                at = d;
        assert_true(at >= 0);
        dims[at] /= 2;
    }
    free(g);
}

/* Relative error of got against want: max |got - want| / max |want| over
 * elements finite in want; non-finite elements must match in class. */
static double rel_error(const double *got, const double *want, int64_t n, int64_t *bad_class)
{
    double diff = 0.0, scale = 0.0;
    *bad_class = 0;
    for (int64_t i = 0; i < n; i++) {
        if (!isfinite(want[i])) {
            bool same = isnan(want[i]) ? isnan(got[i]) : got[i] == want[i];
            *bad_class += !same;
            continue;
        }
        if (!isfinite(got[i])) {
            (*bad_class)++;
            continue;
        }
        diff = fmax(diff, fabs(got[i] - want[i]));
        scale = fmax(scale, fabs(want[i]));
    }
    return scale > 0 ? diff / scale : diff;
}

/* Runs g on be with inputs/params drawn on the host by cpu (in be's storage
 * dtypes), and returns the outputs as doubles on the host. */
static void run_on(kbv_backend *be, kbv_backend *cpu, const kbv_graph *g, const kbv_draw *draw,
                   bool keep_half, double **outs)
{
    kbv_tensor in[KBV_DEF_MAX_INPUTS], par[KBV_DEF_MAX_PARAMS], out[KBV_DEF_MAX_OUTPUTS];
    for (int i = 0; i < g->n_inputs + g->n_params; i++) {
        const kbv_value *v = &g->values[i];
        kbv_tensor *t = i < g->n_inputs ? &in[i] : &par[i - g->n_inputs];
        kbv_value_tensor(v, t);
        t->dtype = storage(be, v->dtype, keep_half);
        size_t bytes = bytes_of(t);
        kbv_tensor host = *t;
        host.data = malloc(bytes ? bytes : 1);
        assert_non_null(host.data);
        if (i < g->n_inputs)
            ok(cpu->fill(cpu, &g->def->inputs[v->def_index], v->def_index, draw, &host));
        else
            ok(cpu->fill_param(cpu, g, i - g->n_inputs, draw, &host));
        ok(be->alloc(be, bytes, &t->data));
        ok(be->from_host(be, t->data, host.data, bytes));
        free(host.data);
    }
    ok(kbv_graph_run(g, be, in, par, out));
    ok(be->sync(be));
    for (int k = 0; k < g->n_outputs; k++) {
        size_t bytes = bytes_of(&out[k]);
        int64_t n = (int64_t)(bytes / kbv_dtype_size(out[k].dtype));
        void *host = malloc(bytes ? bytes : 1);
        ok(be->to_host(be, host, out[k].data, bytes));
        outs[k] = malloc(sizeof(double) * (size_t)(n ? n : 1));
        for (int64_t e = 0; e < n; e++)
            switch (out[k].dtype) {
            case KBV_F32: outs[k][e] = ((float *)host)[e]; break;
            case KBV_F64: outs[k][e] = ((double *)host)[e]; break;
            case KBV_I64: outs[k][e] = (double)((int64_t *)host)[e]; break;
            default: fail_msg("output dtype %s", kbv_dtype_name(out[k].dtype));
            }
        free(host);
        be->release(be, out[k].data);
    }
    for (int i = 0; i < g->n_inputs; i++)
        be->release(be, in[i].data);
    for (int j = 0; j < g->n_params; j++)
        be->release(be, par[j].data);
}

static void check_problem(const kbv_problem_def *def, const int64_t *dims, const char *size)
{
    kbv_graph *g = malloc(sizeof *g);
    assert_non_null(g);
    ok(kbv_graph_build_dims(def, dims, g));
    kbv_backend *cpu64 = NULL;
    ok(kbv_cpu_backend_create(KBV_MODE_FP64, &cpu64));
    kbv_draw draw = {KBV_DIST_BASE, 0x5eed0000ull + (uint64_t)def->id};
    double *want[KBV_DEF_MAX_OUTPUTS] = {0};
    run_on(cpu64, cpu64, g, &draw, false, want);
    static const kbv_mode modes[] = {KBV_MODE_FP64, KBV_MODE_FP32_STRICT, KBV_MODE_TF32};
    for (size_t m = 0; m < sizeof modes / sizeof modes[0]; m++)
        for (int half = 0; half < 2; half++) {
            bool has_half = false;
            for (int i = 0; i < g->n_inputs; i++)
                has_half |= g->values[i].dtype == KBV_F16;
            if (half && (!has_half || modes[m] == KBV_MODE_FP64))
                continue;
            kbv_backend *gpu = NULL, *cpu = NULL;
            ok(kbv_cuda_backend_create(0, modes[m], &gpu));
            ok(kbv_cpu_backend_create(modes[m], &cpu));
            double *got[KBV_DEF_MAX_OUTPUTS] = {0};
            run_on(gpu, cpu, g, &draw, half, got);
            for (int k = 0; k < g->n_outputs; k++) {
                const kbv_value *v = &g->values[g->outputs[k]];
                int64_t n = kbv_value_numel(v), bad = 0;
                double e = rel_error(got[k], want[k], n, &bad);
                /* float64 must agree to rounding; fp32 to accumulation order; float16
                 * outputs and TF32 tensor-core products (L1/97's attention since it runs
                 * on float32 inputs) to their 10-bit mantissas; int64 indices exactly */
                bool tf32_math = modes[m] == KBV_MODE_TF32 &&
                                 kbv_mode_equivalent(gpu, g, KBV_MODE_TF32) == KBV_MODE_TF32;
                double tol = modes[m] == KBV_MODE_FP64 ? 1e-9
                             : v->dtype == KBV_F16     ? 2e-3
                             : v->dtype == KBV_I64     ? 0.0
                             : tf32_math               ? 5e-3
                                                       : 2e-5;
                /* cumprod of randn: fp32 underflow and overflow make classes differ */
                bool classes_free = def->id == 90 && modes[m] != KBV_MODE_FP64;
                printf("   L%d/%d %-6s %-11s%s out %d: rel %.2e%s\n", def->level, def->id, size,
                       kbv_mode_name(modes[m]), half ? " f16-in" : "", k, e,
                       bad ? " (class differences)" : "");
                if (e > tol || (bad && !classes_free))
                    fail_msg("L%d/%d %s %s output %d: relative error %.3e (tolerance %.0e), %lld "
                             "class differences",
                             def->level, def->id, size, kbv_mode_name(modes[m]), k, e, tol, (long long)bad);
                free(got[k]);
            }
            kbv_backend_destroy(gpu);
            kbv_backend_destroy(cpu);
        }
    for (int k = 0; k < g->n_outputs; k++)
        free(want[k]);
    kbv_backend_destroy(cpu64);
    free(g);
}

static void test_problems_small(void **state)
{
    (void)state;
    for (size_t p = 0; p < sizeof problem_ids / sizeof problem_ids[0]; p++) {
        char key[16];
        snprintf(key, sizeof key, "L1/%d", problem_ids[p]);
        const kbv_problem_def *def = kbv_problem_find(key);
        assert_non_null(def);
        int64_t dims[KBV_DEF_MAX_DIMS] = {0};
        for (int d = 0; d < KBV_DEF_MAX_DIMS && def->dims[d].name; d++)
            dims[d] = def->dims[d].small;
        check_problem(def, dims, "small");
    }
}

static void test_problems_mid(void **state)
{
    (void)state;
    for (size_t p = 0; p < sizeof problem_ids / sizeof problem_ids[0]; p++) {
        char key[16];
        snprintf(key, sizeof key, "L1/%d", problem_ids[p]);
        const kbv_problem_def *def = kbv_problem_find(key);
        assert_non_null(def);
        int64_t dims[KBV_DEF_MAX_DIMS] = {0};
        mid_dims(def, dims);
        check_problem(def, dims, "mid");
    }
}

/* One normalisation of x [n, c] or [n, c, s] (level 0: not catalog problems).
 * The id says which path and edge it reaches. */
#define NORM_W(dim) {.name = "w", .dtype = KBV_F32, .shape = {dim}, .init = KBV_INIT_RANDN}
#define NORM_B(dim) {.name = "b", .dtype = KBV_F32, .shape = {dim}, .init = KBV_INIT_RANDN}
#define NORM_X2 {.name = "x", .dtype = KBV_F32, .shape = {"n", "c"}, .gen = KBV_GEN_RAND}
#define NORM_X3 {.name = "x", .dtype = KBV_F32, .shape = {"n", "c", "s"}, .gen = KBV_GEN_RAND}
#define NORM_DEF(ident, what, N, C, S, x, norm_op, ...)                                             \
    {.level = 0, .id = ident, .name = what,                                                    \
     .dims = {{"n", N, N}, {"c", C, C}, {"s", S, S}}, .inputs = {x},                           \
     .params = {NORM_W("c"), NORM_B("c")},                                                      \
     .nodes = {{.op = norm_op, .args = {"x", "w", "b"}, .out = "y", __VA_ARGS__}}}

static const kbv_problem_def norm_shapes[] = {
    /* batch norm, columns path: [N, C] with 16-byte columns, a partial last tile */
    NORM_DEF(1, "batch_norm [777, 4100]", 777, 4100, 1, NORM_X2, KBV_OP_BATCH_NORM, .f = {1e-5, 0.1}),
    /* ... single columns (C odd), fewer rows than a chunk */
    NORM_DEF(2, "batch_norm [33, 1001]", 33, 1001, 1, NORM_X2, KBV_OP_BATCH_NORM, .f = {1e-5, 0.1}),
    NORM_DEF(3, "batch_norm [333, 1001]", 333, 1001, 1, NORM_X2, KBV_OP_BATCH_NORM, .f = {1e-5, 0.1}),
    /* ... spatial 7: a 16-byte vector straddles channels */
    NORM_DEF(4, "batch_norm [130, 96, 7]", 130, 96, 7, NORM_X3, KBV_OP_BATCH_NORM, .f = {1e-5, 0.1}),
    /* ... the largest spatial it takes; then the chunks path */
    NORM_DEF(5, "batch_norm [64, 5, 255]", 64, 5, 255, NORM_X3, KBV_OP_BATCH_NORM, .f = {1e-5, 0.1}),
    NORM_DEF(6, "batch_norm [16, 8, 256]", 16, 8, 256, NORM_X3, KBV_OP_BATCH_NORM, .f = {1e-5, 0.1}),
    /* group norm, rows path: [N, C] (L2/37's groups of 64), w and b as vectors */
    NORM_DEF(7, "group_norm [4096, 1024] / 16", 4096, 1024, 1, NORM_X2, KBV_OP_GROUP_NORM, .i = {16}, .f = {1e-5}),
    /* ... groups of 3 single elements */
    NORM_DEF(8, "group_norm [300, 96] / 32", 300, 96, 1, NORM_X2, KBV_OP_GROUP_NORM, .i = {32}, .f = {1e-5}),
    /* ... 3 channels of 5 per group (scalar), 6 channels of 4 (vectors, w per element) */
    NORM_DEF(9, "group_norm [50, 12, 5] / 4", 50, 12, 5, NORM_X3, KBV_OP_GROUP_NORM, .i = {4}, .f = {1e-5}),
    NORM_DEF(10, "group_norm [64, 48, 4] / 8", 64, 48, 4, NORM_X3, KBV_OP_GROUP_NORM, .i = {8}, .f = {1e-5}),
    /* ... one channel per group: x * alpha + beta */
    NORM_DEF(11, "group_norm [40, 16, 8] / 16", 40, 16, 8, NORM_X3, KBV_OP_GROUP_NORM, .i = {16}, .f = {1e-5}),
    /* ... the longest run it takes; then the chunks path */
    NORM_DEF(12, "group_norm [64, 2048] / 1", 64, 2048, 1, NORM_X2, KBV_OP_GROUP_NORM, .i = {1}, .f = {1e-5}),
    NORM_DEF(13, "group_norm [16, 2052] / 1", 16, 2052, 1, NORM_X2, KBV_OP_GROUP_NORM, .i = {1}, .f = {1e-5}),
    /* ... chunks of 16384 across channels of 20000 (16-byte) and 20001 elements */
    NORM_DEF(19, "group_norm [2, 6, 20000] / 2", 2, 6, 20000, NORM_X3, KBV_OP_GROUP_NORM, .i = {2}, .f = {1e-5}),
    NORM_DEF(20, "group_norm [2, 6, 20001] / 2", 2, 6, 20001, NORM_X3, KBV_OP_GROUP_NORM, .i = {2}, .f = {1e-5}),
    /* layer norm, rows path: L2/3's rows of 64, odd rows of 63, rows of 2048 */
    NORM_DEF(14, "layer_norm [8192, 64]", 8192, 64, 1, NORM_X2, KBV_OP_LAYER_NORM, .f = {1e-5}),
    NORM_DEF(15, "layer_norm [999, 63]", 999, 63, 1, NORM_X2, KBV_OP_LAYER_NORM, .f = {1e-5}),
    NORM_DEF(16, "layer_norm [32, 2048]", 32, 2048, 1, NORM_X2, KBV_OP_LAYER_NORM, .f = {1e-5}),
};

static const kbv_problem_def instance_shapes[] = {
    /* instance norm, rows path: single elements, vectors */
    {.level = 0, .id = 17, .name = "instance_norm [20, 30, 49]",
     .dims = {{"n", 20, 20}, {"c", 30, 30}, {"s", 49, 49}}, .inputs = {NORM_X3},
     .nodes = {{.op = KBV_OP_INSTANCE_NORM, .args = {"x"}, .out = "y", .f = {1e-5}}}},
    {.level = 0, .id = 18, .name = "instance_norm [8, 16, 64]",
     .dims = {{"n", 8, 8}, {"c", 16, 16}, {"s", 64, 64}}, .inputs = {NORM_X3},
     .nodes = {{.op = KBV_OP_INSTANCE_NORM, .args = {"x"}, .out = "y", .f = {1e-5}}}},
};

static void check_shape(const kbv_problem_def *def)
{
    int64_t dims[KBV_DEF_MAX_DIMS] = {0};
    for (int d = 0; d < KBV_DEF_MAX_DIMS && def->dims[d].name; d++)
        dims[d] = def->dims[d].full;
    printf("  %s\n", def->name);
    check_problem(def, dims, "shape");
}

static void test_norm_shapes(void **state)
{
    (void)state;
    for (size_t k = 0; k < sizeof norm_shapes / sizeof norm_shapes[0]; k++)
        check_shape(&norm_shapes[k]);
    for (size_t k = 0; k < sizeof instance_shapes / sizeof instance_shapes[0]; k++)
        check_shape(&instance_shapes[k]);
}

/* With KBV_NORM_TIMING set: each problem at the catalog's size, inputs drawn
 * on the GPU, the fp32 baseline timed (2 warm-ups, mean of 5, warm L2)
 * against PyTorch's time from the anchors file when it is found. */
static double anchor_ms(const char *name)
{
    static const char *const paths[] = {KBV_TEST_SOURCE_DIR "/../shared/anchors/torch_eager_h200.tsv",
                                        "/work/shared/anchors/torch_eager_h200.tsv"};
    for (size_t p = 0; p < sizeof paths / sizeof paths[0]; p++) {
        FILE *f = fopen(paths[p], "r");
        if (!f)
            continue;
        char line[1024];
        double ms = NAN;
        while (fgets(line, sizeof line, f)) {
            char n[256];
            double strict, dflt;
            if (sscanf(line, "1\t%255[^\t]\t%lf\t%lf", n, &strict, &dflt) == 3 && !strcmp(n, name))
                ms = dflt;
        }
        fclose(f);
        return ms;
    }
    return NAN;
}

static void test_timing(void **state)
{
    (void)state;
    if (!getenv("KBV_NORM_TIMING"))
        skip();
    kbv_graph *g = malloc(sizeof *g);
    assert_non_null(g);
    for (size_t p = 0; p < sizeof problem_ids / sizeof problem_ids[0]; p++) {
        char key[16];
        snprintf(key, sizeof key, "L1/%d", problem_ids[p]);
        const kbv_problem_def *def = kbv_problem_find(key);
        ok(kbv_graph_build(def, KBV_SIZE_FULL, g));
        kbv_backend *gpu = NULL;
        ok(kbv_cuda_backend_create(0, KBV_MODE_FP32, &gpu));
        kbv_tensor in[KBV_DEF_MAX_INPUTS], par[KBV_DEF_MAX_PARAMS], out[KBV_DEF_MAX_OUTPUTS];
        kbv_draw draw = {KBV_DIST_BASE, 7};
        for (int i = 0; i < g->n_inputs + g->n_params; i++) {
            const kbv_value *v = &g->values[i];
            kbv_tensor *t = i < g->n_inputs ? &in[i] : &par[i - g->n_inputs];
            kbv_value_tensor(v, t);
            t->dtype = storage(gpu, v->dtype, true);
            ok(gpu->alloc(gpu, bytes_of(t), &t->data));
            if (i < g->n_inputs) {
                kbv_input_def d = g->def->inputs[v->def_index];
                if (d.structure > KBV_STRUCT_SYMMETRIC) /* timing only: plain draws */
                    d.structure = KBV_STRUCT_NONE;
                if (d.gen == KBV_GEN_RANDINT && is_float(d.dtype))
                    d.gen = KBV_GEN_RAND;
                ok(gpu->fill(gpu, &d, v->def_index, &draw, t));
            } else {
                ok(gpu->fill_param(gpu, g, i - g->n_inputs, &draw, t));
            }
        }
        double total = 0.0;
        for (int r = 0; r < 7; r++) {
            double ms = 0.0;
            ok(gpu->timer_start(gpu));
            ok(kbv_graph_run(g, gpu, in, par, out));
            ok(gpu->timer_stop(gpu, &ms));
            for (int k = 0; k < g->n_outputs; k++)
                gpu->release(gpu, out[k].data);
            if (r >= 2)
                total += ms;
        }
        double torch = anchor_ms(def->name);
        printf("TIME L1/%-3d %-36s kbv %8.3f ms  torch %8.3f ms  ratio %.2f\n", def->id,
               def->name, total / 5, torch, total / 5 / torch);
        fflush(stdout);
        for (int i = 0; i < g->n_inputs; i++)
            gpu->release(gpu, in[i].data);
        for (int j = 0; j < g->n_params; j++)
            gpu->release(gpu, par[j].data);
        kbv_backend_destroy(gpu);
    }
    free(g);
}

int main(void)
{
    if (!kbv_cuda_available()) {
        printf("no usable CUDA device: skipped\n");
        return 0;
    }
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_problems_small),
        cmocka_unit_test(test_problems_mid),
        cmocka_unit_test(test_norm_shapes),
        cmocka_unit_test(test_timing),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
