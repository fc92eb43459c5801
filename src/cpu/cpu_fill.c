/* Input and parameter generation on the host, element by element from the
 * pure functions of dist/dist.h, so the CUDA backend draws the same values.
 *
 * Float values are rounded to float32 (the dtype get_inputs() produces)
 * unless the tensor's logical dtype is float64 (kept) or float16 (rounded to
 * float16), then stored in the tensor's storage dtype: an fp64 run holds
 * exactly the values the candidate sees, and a bfloat16 tensor holds the
 * float32 value rounded once more, as the paper's .to(torch.bfloat16) of
 * what get_inputs() and the module's initialisers made.
 *
 * Derived structures (problem_def.h) act on the distribution's draw G and
 * are kept under every distribution: G * s with one U[0,1) factor s per
 * draw and tensor, a softmax over the last dim (computed in double, then
 * rounded), and +-1 signs from randint(0, 2). D1-D4's factor multiplies the
 * result (dist.h), and an extra config's pattern replaces its input. */
#include <math.h>
#include <stdbool.h>

#include "cpu/cpu_backend.h"
#include "core/bf16.h"
#include "cpu/cpu_half.h"

static kbv_status store_value(kbv_dtype dt, void *data, int64_t i, double v)
{
    switch (dt) {
    case KBV_F32: ((float *)data)[i] = (float)v; return KBV_OK;
    case KBV_F64: ((double *)data)[i] = v; return KBV_OK;
    case KBV_F16: ((uint16_t *)data)[i] = kbv_half_from_double(v); return KBV_OK;
    case KBV_BF16: ((uint16_t *)data)[i] = kbv_bf16_from_double(v); return KBV_OK;
    case KBV_I32: ((int32_t *)data)[i] = (int32_t)v; return KBV_OK;
    case KBV_I64: ((int64_t *)data)[i] = (int64_t)v; return KBV_OK;
    case KBV_BOOL: ((unsigned char *)data)[i] = v != 0.0; return KBV_OK;
    default:
        return kbv_fail(KBV_ERR_UNSUPPORTED, "cannot store into a %s tensor on the CPU",
                        kbv_dtype_name(dt));
    }
}

static kbv_status check_tensor(const kbv_tensor *t, const char *what)
{
    if (!t->data && kbv_tensor_numel(t) > 0)
        return kbv_fail(KBV_ERR_INVALID, "%s: tensor without memory", what);
    return KBV_OK;
}

/* v as a value of the input's logical float dtype. */
static double logical_value(kbv_dtype logical, double v)
{
    if (logical == KBV_F64)
        return v;
    if (logical == KBV_F16)
        return kbv_half_round(v);
    return (double)(float)v;
}

/* Stores v, element i as get_inputs() makes it, times the draw's factor
 * (D1-D4) in the input's dtype, as the paper's `t * factor`. */
static kbv_status put(const kbv_input_def *in, double factor, kbv_tensor *t, int64_t i, double v)
{
    if (factor != 1.0)
        v = logical_value(in->dtype, kbv_scale_value(in->dtype, v, factor));
    return store_value(t->dtype, t->data, i, v);
}

/* One float element of a rand/randn input before structure. */
static double draw_float(const kbv_input_def *in, const kbv_draw *draw, uint32_t key,
                         uint64_t index, int64_t row_len)
{
    double v = kbv_dist_value(draw->dist, in->gen == KBV_GEN_RANDN, draw->seed, key, index,
                              row_len);
    return logical_value(in->dtype, v);
}

/* The torch.rand(()) factor of a scaled input: one per draw and tensor. */
static double scale_factor(const kbv_input_def *in, const kbv_draw *draw, uint32_t key)
{
    return logical_value(in->dtype, kbv_u01(kbv_rng(draw->seed, key, KBV_RNG_TENSOR, 0).v[0]));
}

/* G * s, then (for the softmax structures) a softmax over each last-dim row. */
static kbv_status fill_derived(const kbv_input_def *in, const kbv_draw *draw, uint32_t key,
                               int64_t row_len, double factor, kbv_tensor *t)
{
    int64_t n = kbv_tensor_numel(t);
    bool scaled = in->structure == KBV_STRUCT_SCALED ||
                  in->structure == KBV_STRUCT_SCALED_SOFTMAX;
    double s = scaled ? scale_factor(in, draw, key) : 1.0;
    if (in->structure == KBV_STRUCT_SCALED) {
        for (int64_t i = 0; i < n; i++)
            KBV_TRY(put(in, factor, t, i,
                        logical_value(in->dtype,
                                      draw_float(in, draw, key, (uint64_t)i, row_len) * s)));
        return KBV_OK;
    }
    int64_t len = t->ndim >= 1 ? t->shape[t->ndim - 1] : 1;
    if (len == 0)
        return KBV_OK;
    for (int64_t row = 0; row < n / len; row++) {
        const int64_t base = row * len;
        double max = -INFINITY, sum = 0.0;
        for (int64_t k = 0; k < len; k++) {
            double g = draw_float(in, draw, key, (uint64_t)(base + k), row_len);
            if (scaled)
                g = logical_value(in->dtype, g * s);
            max = g > max ? g : max;
        }
        for (int64_t k = 0; k < len; k++) {
            double g = draw_float(in, draw, key, (uint64_t)(base + k), row_len);
            if (scaled)
                g = logical_value(in->dtype, g * s);
            sum += exp(g - max);
        }
        for (int64_t k = 0; k < len; k++) {
            double g = draw_float(in, draw, key, (uint64_t)(base + k), row_len);
            if (scaled)
                g = logical_value(in->dtype, g * s);
            KBV_TRY(put(in, factor, t, base + k, logical_value(in->dtype, exp(g - max) / sum)));
        }
    }
    return KBV_OK;
}

/* (G + G^T) / 2 element, in the logical dtype's arithmetic as PyTorch does it. */
static double symmetric_value(const kbv_input_def *in, double g_ij, double g_ji)
{
    if (in->dtype == KBV_F64)
        return (g_ij + g_ji) * 0.5;
    return (double)((float)((float)g_ij + (float)g_ji) * 0.5f);
}

kbv_status kbv_cpu_fill(kbv_backend *be, const kbv_input_def *in, int input_index,
                        const kbv_draw *draw, kbv_tensor *t)
{
    (void)be;
    KBV_TRY(check_tensor(t, in->name ? in->name : "input"));
    const char *name = in->name ? in->name : "input";
    int64_t n = kbv_tensor_numel(t);
    uint32_t key = kbv_input_key(input_index);
    int nd = t->ndim;
    const double factor = kbv_draw_factor(draw, in);
    const kbv_pattern pattern = kbv_draw_pattern(draw, in);

    if (pattern != KBV_PATTERN_NONE) {
        for (int64_t i = 0; i < n; i++)
            KBV_TRY(store_value(t->dtype, t->data, i,
                                logical_value(in->dtype, kbv_pattern_value(pattern, (uint64_t)i))));
        return KBV_OK;
    }
    if (in->gen == KBV_GEN_RANDINT || in->gen == KBV_GEN_SCALAR) {
        if (in->structure != KBV_STRUCT_NONE &&
            !(in->structure == KBV_STRUCT_SIGNS && in->gen == KBV_GEN_RANDINT))
            return kbv_fail(KBV_ERR_INVALID, "input %s: structure needs a rand/randn generator",
                            name);
        for (int64_t i = 0; i < n; i++) {
            if (in->gen == KBV_GEN_SCALAR) {
                double v = in->value;
                if (in->dtype == KBV_F32)
                    v = (double)(float)v; /* a Python float meets a float32 tensor as float32 */
                KBV_TRY(store_value(t->dtype, t->data, i, v));
            } else if (in->structure == KBV_STRUCT_SIGNS) {
                int64_t bit = kbv_randint_value(draw->seed, key, (uint64_t)i, 0, 2);
                KBV_TRY(put(in, factor, t, i, (double)(2 * bit - 1)));
            } else if (t->dtype == KBV_I64) {
                ((int64_t *)t->data)[i] =
                    kbv_randint_value(draw->seed, key, (uint64_t)i, in->low, in->high);
            } else {
                KBV_TRY(store_value(t->dtype, t->data, i,
                                    (double)kbv_randint_value(draw->seed, key, (uint64_t)i,
                                                              in->low, in->high)));
            }
        }
        return KBV_OK;
    }
    if (in->gen != KBV_GEN_RAND && in->gen != KBV_GEN_RANDN)
        return kbv_fail(KBV_ERR_INVALID, "input %s: no generator", name);
    if (t->dtype != KBV_F32 && t->dtype != KBV_F64 && t->dtype != KBV_F16 &&
        t->dtype != KBV_BF16)
        return kbv_fail(KBV_ERR_INVALID, "input %s: a float generator into a %s tensor", name,
                        kbv_dtype_name(t->dtype));

    int64_t row_len = nd >= 2 ? t->shape[nd - 1] : 0;
    if (in->structure == KBV_STRUCT_NONE) {
        for (int64_t i = 0; i < n; i++)
            KBV_TRY(put(in, factor, t, i, draw_float(in, draw, key, (uint64_t)i, row_len)));
        return KBV_OK;
    }
    if (in->structure == KBV_STRUCT_SCALED || in->structure == KBV_STRUCT_SOFTMAX ||
        in->structure == KBV_STRUCT_SCALED_SOFTMAX)
        return fill_derived(in, draw, key, row_len, factor, t);

    /* Structure acts on the last two dims; leading dims are a batch. */
    if (nd < 2)
        return kbv_fail(KBV_ERR_INVALID, "input %s: structure needs at least 2 dims", name);
    int64_t rows = t->shape[nd - 2], cols = t->shape[nd - 1];
    if (in->structure == KBV_STRUCT_SYMMETRIC && rows != cols)
        return kbv_fail(KBV_ERR_INVALID, "input %s: symmetric needs square matrices, not "
                        "%lld x %lld", name, (long long)rows, (long long)cols);
    for (int64_t idx = 0; idx < n; idx++) {
        int64_t j = idx % cols, i = (idx / cols) % rows;
        int64_t mat = idx - (i * cols + j); /* flat index of this matrix's (0, 0) */
        double v;
        switch (in->structure) {
        case KBV_STRUCT_TRIU:
            v = j >= i ? draw_float(in, draw, key, (uint64_t)idx, row_len) : 0.0;
            break;
        case KBV_STRUCT_TRIL:
            v = j <= i ? draw_float(in, draw, key, (uint64_t)idx, row_len) : 0.0;
            break;
        case KBV_STRUCT_SYMMETRIC:
            v = symmetric_value(in, draw_float(in, draw, key, (uint64_t)idx, row_len),
                                draw_float(in, draw, key, (uint64_t)(mat + j * cols + i),
                                           row_len));
            break;
        default:
            return kbv_fail(KBV_ERR_INVALID, "input %s: unknown structure %d", name,
                            (int)in->structure);
        }
        KBV_TRY(put(in, factor, t, idx, v));
    }
    return KBV_OK;
}

kbv_status kbv_cpu_fill_param(kbv_backend *be, const kbv_graph *g, int param,
                              const kbv_draw *draw, kbv_tensor *t)
{
    (void)be;
    if (param < 0 || param >= g->n_params)
        return kbv_fail(KBV_ERR_INVALID, "fill_param: no param %d", param);
    const kbv_value *pv = &g->values[g->n_inputs + param];
    const int param_index = pv->def_index;
    const kbv_param_def *p = &g->def->params[param_index];
    const char *name = p->name ? p->name : "param";
    KBV_TRY(check_tensor(t, name));
    int kind;
    double value;
    if (!kbv_param_kind_of(p->init, p->value, &kind, &value))
        return kbv_fail(KBV_ERR_INVALID, "param %s: unknown initialiser %d", name, (int)p->init);
    /* Integer buffers (counters) are never perturbed. */
    int d5 = draw->dist == KBV_DIST_D5 && kbv_dtype_is_float(p->dtype);
    uint32_t key = kbv_param_key(param_index);
    int64_t n = kbv_tensor_numel(t);
    for (int64_t i = 0; i < n; i++) {
        double v = kbv_param_value(kind, pv->fan_in, value, d5, draw->seed, key, (uint64_t)i);
        if (p->dtype == KBV_F32)
            v = (double)(float)v;
        KBV_TRY(store_value(t->dtype, t->data, i, v));
    }
    return KBV_OK;
}
