/* Input distributions (DESIGN section 4), as pure functions of
 * (seed, tensor key, element index): the same header compiles into the CPU
 * backend and into CUDA kernels, so every element can be drawn in parallel
 * and any draw can be reproduced from its seed (kbv dump --seed).
 *
 * An input is made in three steps, as get_inputs() and the paper's hidden
 * tests make it: the base generator's draw G, transformed under D5-D8
 * (kbv_dist_value); the input's structure (problem_def.h) applied to G; the
 * result multiplied by D1-D4's factor (kbv_dist_factor, kbv_scale_value),
 * as the paper scales the float tensors get_inputs() returns. An extra
 * config (kbv_draw.extra) replaces one input by a pattern instead.
 *
 * Random bits come from Philox4x32-10 (Salmon et al., SC'11), counter-based. */
#ifndef KBV_DIST_H
#define KBV_DIST_H

#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "core/tensor.h"
#include "graph/problem.h"

#ifdef __CUDACC__
#define KBV_HD __host__ __device__ __forceinline__
#else
#define KBV_HD static inline
#endif

typedef enum kbv_dist {
    KBV_DIST_BASE = 0,  /* the base generator, as get_inputs() draws (standard's 5 draws) */
    KBV_DIST_D1,        /* x 1, after structure */
    KBV_DIST_D2,        /* x 3, after structure */
    KBV_DIST_D3,        /* x 0.01, after structure */
    KBV_DIST_D4,        /* x (-1), after structure */
    KBV_DIST_D5,        /* parameters redrawn so each matters; inputs from the base generator */
    KBV_DIST_D6,        /* standard normal */
    KBV_DIST_D7,        /* heavy tails: normal, 1% of elements x 100 */
    KBV_DIST_D8,        /* structure per row: zeros and ties, near-one magnitudes, offset and scale */
    KBV_DIST_COUNT
} kbv_dist;

/* One draw: a distribution and the seed of this draw; for one of a
 * problem's extra hidden configs (dist KBV_DIST_BASE) the config too. */
typedef struct kbv_draw {
    kbv_dist dist;
    uint64_t seed;
    const kbv_extra_config_def *extra;   /* NULL: none */
} kbv_draw;

typedef struct kbv_philox_out { uint32_t v[4]; } kbv_philox_out;

KBV_HD uint32_t kbv_mulhilo(uint32_t a, uint32_t b, uint32_t *hi)
{
    uint64_t p = (uint64_t)a * (uint64_t)b;
    *hi = (uint32_t)(p >> 32);
    return (uint32_t)p;
}

/* Philox4x32-10 of counter (c0..c3) under key (k0, k1). */
KBV_HD kbv_philox_out kbv_philox(uint32_t c0, uint32_t c1, uint32_t c2, uint32_t c3,
                                 uint32_t k0, uint32_t k1)
{
    for (int r = 0; r < 10; r++) {
        uint32_t hi0, hi1;
        uint32_t lo0 = kbv_mulhilo(0xD2511F53u, c0, &hi0);
        uint32_t lo1 = kbv_mulhilo(0xCD9E8D57u, c2, &hi1);
        uint32_t n0 = hi1 ^ c1 ^ k0, n1 = lo1, n2 = hi0 ^ c3 ^ k1, n3 = lo0;
        c0 = n0; c1 = n1; c2 = n2; c3 = n3;
        k0 += 0x9E3779B9u;
        k1 += 0xBB67AE85u;
    }
    kbv_philox_out o = {{c0, c1, c2, c3}};
    return o;
}

/* Counter layout: (index lo, index hi, tensor key, purpose). */
enum { KBV_RNG_ELEMENT = 0, KBV_RNG_ROW = 1, KBV_RNG_TENSOR = 2 };

KBV_HD kbv_philox_out kbv_rng(uint64_t seed, uint32_t key, uint32_t purpose, uint64_t index)
{
    return kbv_philox((uint32_t)index, (uint32_t)(index >> 32), key, purpose,
                      (uint32_t)seed, (uint32_t)(seed >> 32));
}

/* U[0,1) with 24 random bits: torch.rand's float32 resolution. */
KBV_HD double kbv_u01(uint32_t bits) { return (double)(bits >> 8) * (1.0 / 16777216.0); }

/* N(0,1) by Box-Muller from two words (first uniform in (0,1]). */
KBV_HD double kbv_normal(uint32_t a, uint32_t b)
{
    double u1 = ((double)(a >> 8) + 1.0) * (1.0 / 16777216.0);
    double u2 = kbv_u01(b);
    return sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
}

/* Base draw of one element: rand (U[0,1)) or randn (N(0,1)). */
KBV_HD double kbv_base_value(int is_randn, kbv_philox_out r)
{
    return is_randn ? kbv_normal(r.v[0], r.v[1]) : kbv_u01(r.v[0]);
}

/* Rows for D8: the last dim of a tensor of ndim >= 2, else blocks of 256. */
#define KBV_D8_BLOCK 256

/* One element of a float input's draw G under a distribution, before its
 * structure is applied: the base generator's value (base, D1-D5: D1-D4
 * scale after structure) or D6-D8's. is_randn: base generator is randn.
 * row_len: last-dim length (for D8). */
KBV_HD double kbv_dist_value(kbv_dist dist, int is_randn, uint64_t seed, uint32_t key,
                             uint64_t index, int64_t row_len)
{
    kbv_philox_out r = kbv_rng(seed, key, KBV_RNG_ELEMENT, index);
    switch (dist) {
    case KBV_DIST_BASE:
    case KBV_DIST_D1:
    case KBV_DIST_D2:
    case KBV_DIST_D3:
    case KBV_DIST_D4:
    case KBV_DIST_D5: return kbv_base_value(is_randn, r);
    case KBV_DIST_D6: return kbv_normal(r.v[0], r.v[1]);
    case KBV_DIST_D7: {
        double x = kbv_normal(r.v[0], r.v[1]);
        return (r.v[2] % 100u) == 0 ? 100.0 * x : x;
    }
    case KBV_DIST_D8: {
        uint64_t len = row_len > 0 ? (uint64_t)row_len : KBV_D8_BLOCK;
        uint64_t row = index / len, col = index % len;
        kbv_philox_out rr = kbv_rng(seed, key, KBV_RNG_ROW, row);
        switch (rr.v[0] % 4u) {
        case 0: { /* exact zeros (1 in 4) and runs of 8 tied values */
            if ((r.v[2] & 3u) == 0)
                return 0.0;
            kbv_philox_out t = kbv_rng(seed, key, KBV_RNG_ROW,
                                       (row << 20) ^ (col / 8) ^ 0x8000000000000000ull);
            return kbv_normal(t.v[0], t.v[1]);
        }
        case 1: { /* magnitudes near 1, random signs */
            double m = exp(0.3 * kbv_normal(r.v[0], r.v[1]));
            return (r.v[2] & 1u) ? -m : m;
        }
        case 2: { /* per-row offset N(0, 2^2) and scale exp(N(0,1)) */
            double offset = 2.0 * kbv_normal(rr.v[1], rr.v[2]);
            double scale = exp(kbv_normal(rr.v[3], rr.v[1] ^ rr.v[2]));
            return offset + scale * kbv_normal(r.v[0], r.v[1]);
        }
        default:
            return kbv_normal(r.v[0], r.v[1]);
        }
    }
    default: return 0.0;
    }
}

/* D1-D4's factor for the float tensors get_inputs() returns; 1 otherwise. */
KBV_HD double kbv_dist_factor(kbv_dist dist)
{
    switch (dist) {
    case KBV_DIST_D2: return 3.0;
    case KBV_DIST_D3: return 0.01;
    case KBV_DIST_D4: return -1.0;
    default: return 1.0;
    }
}

/* x * factor as PyTorch computes `t * factor` for a tensor t of dtype
 * `logical` holding x: the Python float meets a float32 or float16 tensor as
 * float32 (float16 multiplies in float32 and rounds once more), a float64
 * tensor as itself. The caller rounds the result to `logical`; for float32
 * that one rounding is PyTorch's, as the product of two floats is exact in
 * double. */
KBV_HD double kbv_scale_value(int logical, double x, double factor)
{
    if (logical == KBV_F64)
        return x * factor;
    double p = x * (double)(float)factor;
    return logical == KBV_F16 ? (double)(float)p : p;
}

/* Element `index` of an extra config's pattern. */
KBV_HD double kbv_pattern_value(int pattern, uint64_t index)
{
    switch (pattern) {
    case KBV_PATTERN_ALT_SIGNS: return (index & 1u) ? 1.0 : -1.0;
    default: return 0.0;
    }
}

/* One element of a randint input: low + uniform integer below (high - low). */
KBV_HD int64_t kbv_randint_value(uint64_t seed, uint32_t key, uint64_t index,
                                 int64_t low, int64_t high)
{
    kbv_philox_out r = kbv_rng(seed, key, KBV_RNG_ELEMENT, index);
    uint64_t span = (uint64_t)(high - low);
    uint64_t bits = ((uint64_t)r.v[1] << 32) | r.v[0];
    return low + (int64_t)(span ? bits % span : 0);
}

/* Parameter initialisers as the element function below takes them. */
typedef enum kbv_param_kind {
    KBV_PARAM_CONSTANT = 0,   /* zeros, ones, KBV_INIT_CONST: every element `value` */
    KBV_PARAM_UNIFORM_FAN_IN, /* U(-1/sqrt(fan_in), 1/sqrt(fan_in)) */
    KBV_PARAM_RANDN,          /* N(0, 1) */
    KBV_PARAM_NORMAL,         /* N(0, value^2) */
    KBV_PARAM_TRIL_ONES,      /* 1 where col <= row of a [..., N, N] square (fan_in: N) */
    KBV_PARAM_XAVIER_UNIFORM, /* U(-a, a), a = sqrt(6 / fan_in), fan_in: fan_in + fan_out */
    /* Swin V2's computed buffers (kbv_swin_buffer_value): fan_in carries the
     * geometry, KBV_SWIN_GEOMETRY(side, window), value the shift */
    KBV_PARAM_SWIN_COORDS_TABLE,
    KBV_PARAM_SWIN_POSITION_INDEX,
    KBV_PARAM_SWIN_ATTN_MASK,
} kbv_param_kind;

/* The kind and constant of an initialiser; false for an unknown one. */
static inline bool kbv_param_kind_of(kbv_init init, double const_value, int *kind, double *value)
{
    *value = 0.0;
    switch (init) {
    case KBV_INIT_NONE:
    case KBV_INIT_ZEROS: *kind = KBV_PARAM_CONSTANT; return true;
    case KBV_INIT_ONES: *kind = KBV_PARAM_CONSTANT; *value = 1.0; return true;
    case KBV_INIT_CONST: *kind = KBV_PARAM_CONSTANT; *value = const_value; return true;
    case KBV_INIT_UNIFORM_FAN_IN: *kind = KBV_PARAM_UNIFORM_FAN_IN; return true;
    case KBV_INIT_UNIFORM_HIDDEN: *kind = KBV_PARAM_UNIFORM_FAN_IN; return true; /* fan_in: hidden */
    case KBV_INIT_RANDN: *kind = KBV_PARAM_RANDN; return true;
    case KBV_INIT_NORMAL: *kind = KBV_PARAM_NORMAL; *value = const_value; return true;
    case KBV_INIT_TRIL_ONES: *kind = KBV_PARAM_TRIL_ONES; return true;
    case KBV_INIT_XAVIER_UNIFORM: *kind = KBV_PARAM_XAVIER_UNIFORM; return true;
    case KBV_INIT_SWIN_COORDS_TABLE: *kind = KBV_PARAM_SWIN_COORDS_TABLE; return true;
    case KBV_INIT_SWIN_POSITION_INDEX: *kind = KBV_PARAM_SWIN_POSITION_INDEX; return true;
    case KBV_INIT_SWIN_ATTN_MASK: *kind = KBV_PARAM_SWIN_ATTN_MASK; *value = const_value; return true;
    }
    return false;
}

/* Element `index` of a Swin V2 buffer as the module's __init__ computes it.
 * relative_coords_table: (dh, dw) in [-(W-1), W-1], each / (W - 1) * 8, then
 * sign(t) * log2(|t| + 1) / log2(8), in float32 as the module's tensors;
 * relative_position_index: (dh + W - 1) * (2W - 1) + (dw + W - 1) for tokens
 * p, q of a window (dh, dw their offsets); attn_mask: 0 where tokens p, q of
 * window k lie in the same of the 3 x 3 regions the shift cuts the image into
 * ([0, S - W), [S - W, S - shift), [S - shift, S) per axis), -100 otherwise. */
KBV_HD double kbv_swin_buffer_value(int kind, int64_t geometry, double shift, uint64_t index)
{
    const int64_t W = geometry & 0xffff, S = geometry >> 16, N = W * W;
    const int64_t i = (int64_t)index;
    if (kind == KBV_PARAM_SWIN_COORDS_TABLE) {
        const int64_t L = 2 * W - 1, c = i % 2, col = (i / 2) % L, row = (i / 2) / L;
        float t = (float)((c == 0 ? row : col) - (W - 1));
        t = t / (float)(W - 1);
        t = t * 8.0f;
        float sign = t > 0.0f ? 1.0f : t < 0.0f ? -1.0f : 0.0f;
        return (double)(sign * log2f(fabsf(t) + 1.0f) / 3.0f);
    }
    if (kind == KBV_PARAM_SWIN_POSITION_INDEX) {
        const int64_t p = i / N, q = i % N;
        return (double)((p / W - q / W + W - 1) * (2 * W - 1) + (p % W - q % W + W - 1));
    }
    /* KBV_PARAM_SWIN_ATTN_MASK */
    const int64_t s = (int64_t)shift, per_row = S / W;
    const int64_t k = i / (N * N), p = (i / N) % N, q = i % N;
    const int64_t top = (k / per_row) * W, left = (k % per_row) * W;
    int64_t region[2];
    for (int t = 0; t < 2; t++) {
        const int64_t tok = t ? q : p, h = top + tok / W, w = left + tok % W;
        const int64_t rh = h < S - W ? 0 : h < S - s ? 1 : 2;
        const int64_t rw = w < S - W ? 0 : w < S - s ? 1 : 2;
        region[t] = rh * 3 + rw;
    }
    return region[0] == region[1] ? 0.0 : -100.0;
}

/* Parameter element under its initialiser (kbv_param_kind; value for a
 * constant or the normal's std, fan_in for the uniform one). Under D5 each element moves so it
 * matters (constants get N(0, 0.5^2) noise) and the whole tensor is scaled
 * by U(0.5, 2). */
KBV_HD double kbv_param_value(int kind, int64_t fan_in, double value, int d5, uint64_t seed,
                              uint32_t key, uint64_t index)
{
    if (kind == KBV_PARAM_TRIL_ONES) { /* a mask's structure: D5 leaves it */
        const uint64_t n = fan_in > 0 ? (uint64_t)fan_in : 1;
        return index % n <= index / n % n ? 1.0 : 0.0;
    }
    if (kind >= KBV_PARAM_SWIN_COORDS_TABLE) /* computed, never perturbed */
        return kbv_swin_buffer_value(kind, fan_in, value, index);
    kbv_philox_out r = kbv_rng(seed, key, KBV_RNG_ELEMENT, index);
    double v;
    if (kind == KBV_PARAM_XAVIER_UNIFORM) {
        double bound = fan_in > 0 ? sqrt(6.0 / (double)fan_in) : 0.0;
        v = (2.0 * kbv_u01(r.v[0]) - 1.0) * bound;
    } else if (kind == KBV_PARAM_UNIFORM_FAN_IN) {
        double bound = fan_in > 0 ? 1.0 / sqrt((double)fan_in) : 0.0;
        v = (2.0 * kbv_u01(r.v[0]) - 1.0) * bound;
    } else if (kind == KBV_PARAM_RANDN) {
        v = kbv_normal(r.v[0], r.v[1]);
    } else if (kind == KBV_PARAM_NORMAL) {
        v = value * kbv_normal(r.v[0], r.v[1]);
    } else {
        v = value;
        if (d5)
            v += 0.5 * kbv_normal(r.v[0], r.v[1]);
    }
    if (d5) {
        kbv_philox_out t = kbv_rng(seed, key, KBV_RNG_TENSOR, 0);
        v *= 0.5 + 1.5 * kbv_u01(t.v[0]);
    }
    return v;
}

/* The key of a tensor within a draw: inputs 1..n, params 0x100 + i. */
KBV_HD uint32_t kbv_input_key(int input_index) { return 1u + (uint32_t)input_index; }
KBV_HD uint32_t kbv_param_key(int param_index) { return 0x100u + (uint32_t)param_index; }

/* Host side: how a draw treats input `in`, for every backend's fill. */

/* The pattern `in` holds under the draw's extra config, KBV_PATTERN_NONE
 * when it is drawn. */
static inline kbv_pattern kbv_draw_pattern(const kbv_draw *draw, const kbv_input_def *in)
{
    if (!draw->extra || !draw->extra->input || !in->name || strcmp(draw->extra->input, in->name))
        return KBV_PATTERN_NONE;
    return draw->extra->pattern;
}

/* The factor `in`'s values are multiplied by: D1-D4's for a float tensor
 * (whatever made its values: a +-1 target is scaled too), 1 for integer
 * tensors and Python scalars, which the paper's scaling leaves alone. */
static inline double kbv_draw_factor(const kbv_draw *draw, const kbv_input_def *in)
{
    return kbv_dtype_is_float(in->dtype) && in->gen != KBV_GEN_SCALAR ? kbv_dist_factor(draw->dist) : 1.0;
}

#endif
