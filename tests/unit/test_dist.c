/* Input distributions (dist/dist.h) and the CPU backend's fill: known-answer
 * Philox vectors, the moments and exact transforms of each distribution, and
 * the structure and determinism of filled tensors. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "support/test_problem.h"
#include "graph/problem_def.h"
#include "dist/dist.h"
#include "exec/backend.h"

#define SAMPLES 200000
#define SEED 0x1234abcd5678ef01ull

/* Random123's kat_vectors for philox4x32_10. */
static void test_philox_known_answers(void **state)
{
    (void)state;
    kbv_philox_out z = kbv_philox(0, 0, 0, 0, 0, 0);
    assert_int_equal(z.v[0], 0x6627e8d5u);
    assert_int_equal(z.v[1], 0xe169c58du);
    assert_int_equal(z.v[2], 0xbc57ac4cu);
    assert_int_equal(z.v[3], 0x9b00dbd8u);
    kbv_philox_out o = kbv_philox(0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu,
                                  0xffffffffu, 0xffffffffu);
    assert_int_equal(o.v[0], 0x408f276du);
    assert_int_equal(o.v[1], 0x41c83b0eu);
    assert_int_equal(o.v[2], 0xa20bc7c6u);
    assert_int_equal(o.v[3], 0x6d5451fdu);
    kbv_philox_out pi = kbv_philox(0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u,
                                   0xa4093822u, 0x299f31d0u);
    assert_int_equal(pi.v[0], 0xd16cfe09u);
    assert_int_equal(pi.v[1], 0x94fdccebu);
    assert_int_equal(pi.v[2], 0x5001e420u);
    assert_int_equal(pi.v[3], 0x24126ea1u);
}

static void moments(kbv_dist dist, int is_randn, double *mean, double *sd, double *lo,
                    double *hi)
{
    double sum = 0, sq = 0;
    *lo = INFINITY;
    *hi = -INFINITY;
    for (uint64_t i = 0; i < SAMPLES; i++) {
        double x = kbv_dist_value(dist, is_randn, SEED, 7, i, 0);
        sum += x;
        sq += x * x;
        if (x < *lo)
            *lo = x;
        if (x > *hi)
            *hi = x;
    }
    *mean = sum / SAMPLES;
    *sd = sqrt(sq / SAMPLES - *mean * *mean);
}

static void test_rand_uniform(void **state)
{
    (void)state;
    double mean, sd, lo, hi;
    moments(KBV_DIST_BASE, 0, &mean, &sd, &lo, &hi);
    assert_true(lo >= 0.0 && hi < 1.0);
    assert_true(fabs(mean - 0.5) < 0.005);
    assert_true(fabs(sd - sqrt(1.0 / 12.0)) < 0.005);
    /* 24-bit resolution, like torch.rand's float32 values. */
    for (uint64_t i = 0; i < 1000; i++) {
        double x = kbv_dist_value(KBV_DIST_BASE, 0, SEED, 7, i, 0);
        assert_true(x * 16777216.0 == floor(x * 16777216.0));
    }
}

static void test_randn_normal(void **state)
{
    (void)state;
    double mean, sd, lo, hi;
    moments(KBV_DIST_BASE, 1, &mean, &sd, &lo, &hi);
    assert_true(fabs(mean) < 0.01);
    assert_true(fabs(sd - 1.0) < 0.01);
    assert_true(lo < -3.5 && hi > 3.5);
    moments(KBV_DIST_D6, 0, &mean, &sd, &lo, &hi); /* D6 is normal even for rand inputs */
    assert_true(fabs(mean) < 0.01);
    assert_true(fabs(sd - 1.0) < 0.01);
}

/* D1-D4 draw the base generator's values (their factor comes after the
 * structure, in the fill), and the factor multiplies as PyTorch's `t * f`. */
static void test_paper_transforms_exact(void **state)
{
    (void)state;
    for (int is_randn = 0; is_randn < 2; is_randn++) {
        for (uint64_t i = 0; i < 10000; i++) {
            double base = kbv_dist_value(KBV_DIST_BASE, is_randn, SEED, 3, i, 0);
            for (int d = KBV_DIST_D1; d <= KBV_DIST_D5; d++)
                assert_true(kbv_dist_value((kbv_dist)d, is_randn, SEED, 3, i, 0) == base);
            /* float32: one rounding of x * float32(f), exactly float arithmetic */
            float x = (float)base;
            assert_true((float)kbv_scale_value(KBV_F32, x, 3.0) == x * 3.0f);
            assert_true((float)kbv_scale_value(KBV_F32, x, 0.01) == x * 0.01f);
            assert_true((float)kbv_scale_value(KBV_F32, x, -1.0) == -x);
            assert_true(kbv_scale_value(KBV_F64, base, 0.01) == base * 0.01);
        }
    }
    assert_true(kbv_dist_factor(KBV_DIST_BASE) == 1.0 && kbv_dist_factor(KBV_DIST_D1) == 1.0);
    assert_true(kbv_dist_factor(KBV_DIST_D2) == 3.0 && kbv_dist_factor(KBV_DIST_D3) == 0.01);
    assert_true(kbv_dist_factor(KBV_DIST_D4) == -1.0);
    for (int d = KBV_DIST_D5; d < KBV_DIST_COUNT; d++)
        assert_true(kbv_dist_factor((kbv_dist)d) == 1.0);
    assert_true(kbv_pattern_value(KBV_PATTERN_ALT_SIGNS, 0) == -1.0);
    assert_true(kbv_pattern_value(KBV_PATTERN_ALT_SIGNS, 1) == 1.0);
    assert_true(kbv_pattern_value(KBV_PATTERN_ALT_SIGNS, 6) == -1.0);
}

/* D7 is D6's normal draw with about 1% of the elements multiplied by 100. */
static void test_heavy_tails(void **state)
{
    (void)state;
    int large = 0;
    for (uint64_t i = 0; i < SAMPLES; i++) {
        double n = kbv_dist_value(KBV_DIST_D6, 0, SEED, 5, i, 0);
        double h = kbv_dist_value(KBV_DIST_D7, 0, SEED, 5, i, 0);
        if (h == n)
            continue;
        assert_true(h == 100.0 * n);
        large++;
    }
    double frac = (double)large / SAMPLES;
    assert_true(frac > 0.008 && frac < 0.012);
}

/* D8 has exact zeros and runs of ties, and rows of different character. */
static void test_structured_rows(void **state)
{
    (void)state;
    const int64_t row_len = 64, rows = 400;
    int zeros = 0, ties = 0, near_one = 0;
    for (int64_t r = 0; r < rows; r++) {
        double prev = NAN;
        int row_near_one = 1;
        for (int64_t c = 0; c < row_len; c++) {
            double x = kbv_dist_value(KBV_DIST_D8, 1, SEED, 9, (uint64_t)(r * row_len + c),
                                      row_len);
            assert_true(isfinite(x));
            if (x == 0.0)
                zeros++;
            else if (x == prev)
                ties++;
            if (fabs(fabs(x) - 1.0) > 2.0)
                row_near_one = 0;
            prev = x;
        }
        near_one += row_near_one;
    }
    assert_true(zeros > 100);
    assert_true(ties > 100);
    assert_true(near_one > 0);
}

static void test_randint_range(void **state)
{
    (void)state;
    int seen[10] = {0};
    for (uint64_t i = 0; i < 10000; i++) {
        int64_t v = kbv_randint_value(SEED, 2, i, 0, 10);
        assert_true(v >= 0 && v < 10);
        seen[v]++;
    }
    for (int k = 0; k < 10; k++)
        assert_true(seen[k] > 800 && seen[k] < 1200);
}

/* ---- the CPU backend's fill ---- */

static kbv_tensor matrix(kbv_dtype dt, int64_t rows, int64_t cols, void *data)
{
    kbv_tensor t;
    memset(&t, 0, sizeof t);
    t.data = data;
    t.dtype = dt;
    t.ndim = 2;
    t.shape[0] = rows;
    t.shape[1] = cols;
    t.stride[0] = cols;
    t.stride[1] = 1;
    return t;
}

static kbv_input_def input(kbv_gen gen, kbv_structure structure)
{
    kbv_input_def in;
    memset(&in, 0, sizeof in);
    in.name = "A";
    in.dtype = KBV_F32;
    in.gen = gen;
    in.structure = structure;
    return in;
}

#define N 37

static void test_fill_deterministic(void **state)
{
    (void)state;
    kbv_backend *be = NULL;
    assert_int_equal(kbv_cpu_backend_create(KBV_MODE_FP32, &be), KBV_OK);
    float a[N * N], b[N * N], c[N * N];
    kbv_tensor ta = matrix(KBV_F32, N, N, a), tb = matrix(KBV_F32, N, N, b),
               tc = matrix(KBV_F32, N, N, c);
    kbv_input_def in = input(KBV_GEN_RANDN, KBV_STRUCT_NONE);
    kbv_draw d = {KBV_DIST_D6, 42}, other = {KBV_DIST_D6, 43};
    assert_int_equal(be->fill(be, &in, 0, &d, &ta), KBV_OK);
    assert_int_equal(be->fill(be, &in, 0, &d, &tb), KBV_OK);
    assert_memory_equal(a, b, sizeof a);
    assert_int_equal(be->fill(be, &in, 0, &other, &tc), KBV_OK);
    assert_memory_not_equal(a, c, sizeof a);
    /* Another input index is another tensor key: different values. */
    assert_int_equal(be->fill(be, &in, 1, &d, &tc), KBV_OK);
    assert_memory_not_equal(a, c, sizeof a);
    /* Each element is dist.h's value at its flat index, rounded to float32. */
    for (int64_t i = 0; i < N * N; i++)
        assert_true(a[i] == (float)kbv_dist_value(KBV_DIST_D6, 1, 42, kbv_input_key(0),
                                                   (uint64_t)i, N));
    kbv_backend_destroy(be);
}

/* An fp64 run holds exactly the float32 values a candidate sees. */
static void test_fill_f64_holds_f32_values(void **state)
{
    (void)state;
    kbv_backend *be = NULL;
    assert_int_equal(kbv_cpu_backend_create(KBV_MODE_FP64, &be), KBV_OK);
    assert_int_equal(be->float_dtype, KBV_F64);
    float a[N * N];
    double b[N * N];
    kbv_tensor ta = matrix(KBV_F32, N, N, a), tb = matrix(KBV_F64, N, N, b);
    kbv_input_def in = input(KBV_GEN_RAND, KBV_STRUCT_SYMMETRIC);
    kbv_draw d = {KBV_DIST_D8, 7};
    assert_int_equal(be->fill(be, &in, 2, &d, &ta), KBV_OK);
    assert_int_equal(be->fill(be, &in, 2, &d, &tb), KBV_OK);
    for (int i = 0; i < N * N; i++)
        assert_true(b[i] == (double)a[i]);
    kbv_backend_destroy(be);
}

static void test_fill_symmetric(void **state)
{
    (void)state;
    kbv_backend *be = NULL;
    assert_int_equal(kbv_cpu_backend_create(KBV_MODE_FP32, &be), KBV_OK);
    float a[N * N];
    kbv_tensor t = matrix(KBV_F32, N, N, a);
    kbv_input_def in = input(KBV_GEN_RAND, KBV_STRUCT_SYMMETRIC);
    kbv_draw d = {KBV_DIST_D2, 99};
    assert_int_equal(be->fill(be, &in, 0, &d, &t), KBV_OK);
    int distinct = 0;
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            assert_true(a[i * N + j] == a[j * N + i]);
            distinct += a[i * N + j] != a[0];
        }
    assert_true(distinct > N * N / 2);
    /* (G + G^T) / 2 in float32, G the base draw at each flat index, then x3
     * (D2 scales the symmetric matrix get_inputs() returns) */
    uint32_t key = kbv_input_key(0);
    float g12 = (float)kbv_dist_value(KBV_DIST_BASE, 0, 99, key, 1 * N + 2, N);
    float g21 = (float)kbv_dist_value(KBV_DIST_BASE, 0, 99, key, 2 * N + 1, N);
    float sym = (g12 + g21) * 0.5f;
    assert_true(a[1 * N + 2] == sym * 3.0f);
    kbv_backend_destroy(be);
}

static void test_fill_triangular(void **state)
{
    (void)state;
    kbv_backend *be = NULL;
    assert_int_equal(kbv_cpu_backend_create(KBV_MODE_FP32, &be), KBV_OK);
    float a[N * N];
    kbv_tensor t = matrix(KBV_F32, N, N, a);
    kbv_draw d = {KBV_DIST_D4, 5};
    kbv_input_def up = input(KBV_GEN_RAND, KBV_STRUCT_TRIU);
    assert_int_equal(be->fill(be, &up, 0, &d, &t), KBV_OK);
    for (int i = 0; i < N; i++)
        for (int j = 0; j < N; j++) {
            if (j < i)
                assert_true(a[i * N + j] == 0.0f);
            else
                assert_true(a[i * N + j] <= 0.0f); /* D4: -U[0,1) */
        }
    assert_true(a[0 * N + 5] != 0.0f);
    kbv_input_def low = input(KBV_GEN_RAND, KBV_STRUCT_TRIL);
    assert_int_equal(be->fill(be, &low, 0, &d, &t), KBV_OK);
    for (int i = 0; i < N; i++)
        for (int j = i + 1; j < N; j++)
            assert_true(a[i * N + j] == 0.0f);
    assert_true(a[5 * N + 0] != 0.0f);
    kbv_backend_destroy(be);
}

static void test_fill_randint_and_scalar(void **state)
{
    (void)state;
    kbv_backend *be = NULL;
    assert_int_equal(kbv_cpu_backend_create(KBV_MODE_FP64, &be), KBV_OK);
    int64_t labels[100];
    kbv_tensor t;
    memset(&t, 0, sizeof t);
    t.data = labels;
    t.dtype = KBV_I64;
    t.ndim = 1;
    t.shape[0] = 100;
    t.stride[0] = 1;
    kbv_input_def in = input(KBV_GEN_RANDINT, KBV_STRUCT_NONE);
    in.dtype = KBV_I64;
    in.low = 3;
    in.high = 8;
    kbv_draw d = {KBV_DIST_D2, 11}; /* integers are never scaled */
    assert_int_equal(be->fill(be, &in, 0, &d, &t), KBV_OK);
    for (int i = 0; i < 100; i++) {
        assert_true(labels[i] >= 3 && labels[i] < 8);
        assert_int_equal(labels[i], kbv_randint_value(11, kbv_input_key(0), (uint64_t)i, 3, 8));
    }
    /* A Python float scalar passed with float32 tensors is float32(3.14). */
    double s = 0;
    kbv_tensor ts;
    memset(&ts, 0, sizeof ts);
    ts.data = &s;
    ts.dtype = KBV_F64;
    kbv_input_def sc = input(KBV_GEN_SCALAR, KBV_STRUCT_NONE);
    sc.value = 3.14;
    assert_int_equal(be->fill(be, &sc, 1, &d, &ts), KBV_OK);
    assert_true(s == (double)3.14f);
    kbv_backend_destroy(be);
}

/* A problem whose params take each initialiser: fc.weight [16, 16] (fan_in
 * 16, derived), fc.bias [16] (its weight's fan_in), a randn [16, 16] and a
 * constant 0-dim param. */
static const kbv_problem_def init_problem = {
    .level = 9,
    .id = 1,
    .name = "1_Inits",
    .dims = {{"n", 16, 16}},
    .inputs = {{.name = "x", .dtype = KBV_F32, .shape = {"n", "n"}, .gen = KBV_GEN_RAND}},
    .params = {
        {.name = "fc.weight", .dtype = KBV_F32, .shape = {"n", "n"},
         .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "fc.bias", .dtype = KBV_F32, .shape = {"n"}, .init = KBV_INIT_UNIFORM_FAN_IN},
        {.name = "noise", .dtype = KBV_F32, .shape = {"n", "n"}, .init = KBV_INIT_RANDN},
        {.name = "scale", .dtype = KBV_F32, .init = KBV_INIT_CONST, .value = 0.1},
        {.name = "ones", .dtype = KBV_F32, .shape = {"n", "n"}, .init = KBV_INIT_ONES},
        {.name = "small", .dtype = KBV_F32, .shape = {"n", "n"}, .init = KBV_INIT_NORMAL,
         .value = 0.01},
    },
    .nodes = {{.op = KBV_OP_RELU, .args = {"x"}, .out = "y"}},
};

static void test_fill_param(void **state)
{
    (void)state;
    kbv_backend *be = NULL;
    assert_int_equal(kbv_cpu_backend_create(KBV_MODE_FP32, &be), KBV_OK);
    static kbv_graph g;
    assert_int_equal(kbv_graph_build(kbv_test_problem(&init_problem), KBV_SIZE_FULL, &g), KBV_OK);
    assert_int_equal(g.values[g.n_inputs + 0].fan_in, 16);
    assert_int_equal(g.values[g.n_inputs + 1].fan_in, 16);
    float w[256];
    kbv_tensor t = matrix(KBV_F32, 16, 16, w);
    kbv_draw base = {KBV_DIST_BASE, 3}, d5 = {KBV_DIST_D5, 3};
    assert_int_equal(be->fill_param(be, &g, 0, &base, &t), KBV_OK);
    float lo = 1, hi = -1;
    for (int i = 0; i < 256; i++) {
        assert_true(fabsf(w[i]) <= 0.25f);
        lo = w[i] < lo ? w[i] : lo;
        hi = w[i] > hi ? w[i] : hi;
    }
    assert_true(lo < -0.2f && hi > 0.2f);
    /* the bias takes fc.weight's fan_in: U(-1/4, 1/4) too */
    kbv_tensor bias = matrix(KBV_F32, 1, 16, w);
    bias.ndim = 1;
    bias.shape[0] = 16;
    bias.stride[0] = 1;
    assert_int_equal(be->fill_param(be, &g, 1, &base, &bias), KBV_OK);
    float bmax = 0;
    for (int i = 0; i < 16; i++)
        bmax = fabsf(w[i]) > bmax ? fabsf(w[i]) : bmax;
    assert_true(bmax <= 0.25f && bmax > 0.1f);
    /* randn: mean near 0, variance near 1, values beyond the uniform bound */
    assert_int_equal(be->fill_param(be, &g, 2, &base, &t), KBV_OK);
    double sum = 0, sq = 0, most = 0;
    for (int i = 0; i < 256; i++) {
        sum += w[i];
        sq += (double)w[i] * w[i];
        most = fabs(w[i]) > most ? fabs(w[i]) : most;
    }
    assert_true(fabs(sum / 256) < 0.2 && fabs(sq / 256 - 1.0) < 0.25 && most > 1.5);
    /* a constant: float32(0.1), as nn.Parameter(torch.tensor(0.1)) holds */
    float c = 0;
    kbv_tensor scalar = {.data = &c, .dtype = KBV_F32, .ndim = 0};
    assert_int_equal(be->fill_param(be, &g, 3, &base, &scalar), KBV_OK);
    assert_true(c == 0.1f);
    assert_int_equal(be->fill_param(be, &g, 4, &base, &t), KBV_OK);
    for (int i = 0; i < 256; i++)
        assert_true(w[i] == 1.0f);
    /* D5: constants move so that every element matters. */
    assert_int_equal(be->fill_param(be, &g, 4, &d5, &t), KBV_OK);
    int moved = 0;
    for (int i = 0; i < 256; i++)
        moved += w[i] != 1.0f;
    assert_int_equal(moved, 256);
    assert_true(w[0] != w[1]);
    /* normal(0, 0.01), as nn.init.normal_(w, 0, 0.01) */
    assert_int_equal(be->fill_param(be, &g, 5, &base, &t), KBV_OK);
    sum = sq = most = 0;
    for (int i = 0; i < 256; i++) {
        sum += w[i];
        sq += (double)w[i] * w[i];
        most = fabs(w[i]) > most ? fabs(w[i]) : most;
    }
    assert_true(fabs(sum / 256) < 0.002 && fabs(sqrt(sq / 256) - 0.01) < 0.0015 && most > 0.015);
    assert_int_equal(be->fill_param(be, &g, 6, &base, &t), KBV_ERR_INVALID);
    kbv_backend_destroy(be);
}

/* D1-D4 multiply what the structure made, as the paper scales the tensors
 * get_inputs() returns: for every structure, the Dk draw of a seed is the
 * base draw of that seed times the factor, in float32 arithmetic; an fp64
 * run holds the same values. D5-D8 keep the structure's values as they are. */
static void test_fill_scales_after_structure(void **state)
{
    (void)state;
    kbv_backend *be = NULL, *be64 = NULL;
    assert_int_equal(kbv_cpu_backend_create(KBV_MODE_FP32, &be), KBV_OK);
    assert_int_equal(kbv_cpu_backend_create(KBV_MODE_FP64, &be64), KBV_OK);
    static const struct { kbv_gen gen; kbv_structure st; } cases[] = {
        {KBV_GEN_RAND, KBV_STRUCT_NONE},          {KBV_GEN_RANDN, KBV_STRUCT_NONE},
        {KBV_GEN_RAND, KBV_STRUCT_TRIU},          {KBV_GEN_RAND, KBV_STRUCT_TRIL},
        {KBV_GEN_RANDN, KBV_STRUCT_SYMMETRIC},    {KBV_GEN_RAND, KBV_STRUCT_SCALED},
        {KBV_GEN_RAND, KBV_STRUCT_SOFTMAX},       {KBV_GEN_RAND, KBV_STRUCT_SCALED_SOFTMAX},
        {KBV_GEN_RANDINT, KBV_STRUCT_SIGNS},
    };
    static const float factor[4] = {1.0f, 3.0f, 0.01f, -1.0f};
    float base[N * N], got[N * N];
    double got64[N * N];
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        kbv_input_def in = input(cases[c].gen, cases[c].st);
        if (cases[c].st == KBV_STRUCT_SIGNS)
            in.high = 2;
        kbv_tensor tb = matrix(KBV_F32, N, N, base), tg = matrix(KBV_F32, N, N, got);
        kbv_tensor t64 = matrix(KBV_F64, N, N, got64);
        kbv_draw b = {KBV_DIST_BASE, 77};
        assert_int_equal(be->fill(be, &in, 0, &b, &tb), KBV_OK);
        for (int k = 1; k <= 4; k++) {
            kbv_draw d = {(kbv_dist)(KBV_DIST_D1 + k - 1), 77};
            assert_int_equal(be->fill(be, &in, 0, &d, &tg), KBV_OK);
            assert_int_equal(be64->fill(be64, &in, 0, &d, &t64), KBV_OK);
            for (int i = 0; i < N * N; i++) {
                if (got[i] != base[i] * factor[k - 1])
                    fail_msg("case %zu D%d [%d]: %.9g != %.9g * %g", c, k, i, got[i], base[i],
                             factor[k - 1]);
                assert_true(got64[i] == (double)got[i]);
            }
        }
        if (cases[c].st == KBV_STRUCT_SOFTMAX) {
            /* D2's rows are probability vectors times 3 */
            kbv_draw d = {KBV_DIST_D2, 77};
            assert_int_equal(be->fill(be, &in, 0, &d, &tg), KBV_OK);
            for (int r = 0; r < N; r++) {
                double sum = 0;
                for (int j = 0; j < N; j++)
                    sum += got[r * N + j];
                assert_true(fabs(sum - 3.0) < 1e-5);
            }
        }
        if (cases[c].st == KBV_STRUCT_SIGNS) {
            /* strict's transforms keep +-1 targets */
            for (int d = KBV_DIST_D5; d < KBV_DIST_COUNT; d++) {
                kbv_draw dd = {(kbv_dist)d, 77};
                assert_int_equal(be->fill(be, &in, 0, &dd, &tg), KBV_OK);
                for (int i = 0; i < N * N; i++)
                    assert_true(got[i] == base[i]);
            }
        }
    }
    kbv_backend_destroy(be64);
    kbv_backend_destroy(be);
}

/* An extra config replaces its input by the pattern and leaves the others a
 * base draw, unscaled; a draw without it never touches the pattern. */
static void test_fill_extra_pattern(void **state)
{
    (void)state;
    kbv_backend *be = NULL;
    assert_int_equal(kbv_cpu_backend_create(KBV_MODE_FP32, &be), KBV_OK);
    const kbv_extra_config_def h5 = {.label = "H5", .input = "targets",
                                     .pattern = KBV_PATTERN_ALT_SIGNS, .what = "test"};
    kbv_input_def targets = input(KBV_GEN_RANDINT, KBV_STRUCT_SIGNS);
    targets.name = "targets";
    targets.high = 2;
    kbv_input_def pred = input(KBV_GEN_RAND, KBV_STRUCT_NONE);
    float t[N], p[N * N], pb[N * N];
    kbv_tensor tt = matrix(KBV_F32, 1, N, t), tp = matrix(KBV_F32, N, N, p),
               tpb = matrix(KBV_F32, N, N, pb);
    tt.ndim = 1;
    tt.shape[0] = N;
    tt.stride[0] = 1;
    kbv_draw x = {KBV_DIST_BASE, 5, &h5}, b = {KBV_DIST_BASE, 5, NULL};
    assert_int_equal(be->fill(be, &targets, 1, &x, &tt), KBV_OK);
    for (int i = 0; i < N; i++)
        assert_true(t[i] == (i % 2 ? 1.0f : -1.0f));
    assert_int_equal(be->fill(be, &pred, 0, &x, &tp), KBV_OK);
    assert_int_equal(be->fill(be, &pred, 0, &b, &tpb), KBV_OK);
    assert_memory_equal(p, pb, sizeof p);
    assert_int_equal(be->fill(be, &targets, 1, &b, &tt), KBV_OK);
    int alternating = 1;
    for (int i = 0; i < N; i++)
        alternating &= t[i] == (i % 2 ? 1.0f : -1.0f);
    assert_false(alternating);
    kbv_backend_destroy(be);
}

/* A causal mask's tril(ones) is structure: 1 on and below the diagonal of
 * each square, under every draw, D5 included. xavier_uniform_ stays inside
 * sqrt(6 / (fan_in + fan_out)) and reaches near it. */
static void test_param_tril_and_xavier(void **state)
{
    (void)state;
    int kind;
    double value;
    assert_true(kbv_param_kind_of(KBV_INIT_TRIL_ONES, 0.0, &kind, &value));
    for (int d5 = 0; d5 <= 1; d5++)
        for (uint64_t i = 0; i < 2 * 5 * 5; i++) {
            uint64_t r = i / 5 % 5, c = i % 5;
            assert_true(kbv_param_value(kind, 5, value, d5, 7, kbv_param_key(0), i) ==
                        (c <= r ? 1.0 : 0.0));
        }
    assert_true(kbv_param_kind_of(KBV_INIT_XAVIER_UNIFORM, 0.0, &kind, &value));
    const int64_t fan_sum = 128 + 384;
    const double bound = sqrt(6.0 / (double)fan_sum);
    double most = 0.0;
    for (uint64_t i = 0; i < 4096; i++) {
        double v = kbv_param_value(kind, fan_sum, value, 0, 7, kbv_param_key(1), i);
        assert_true(fabs(v) <= bound);
        most = fmax(most, fabs(v));
    }
    assert_true(most > 0.99 * bound);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_philox_known_answers),
        cmocka_unit_test(test_rand_uniform),
        cmocka_unit_test(test_randn_normal),
        cmocka_unit_test(test_paper_transforms_exact),
        cmocka_unit_test(test_heavy_tails),
        cmocka_unit_test(test_structured_rows),
        cmocka_unit_test(test_randint_range),
        cmocka_unit_test(test_fill_deterministic),
        cmocka_unit_test(test_fill_f64_holds_f32_values),
        cmocka_unit_test(test_fill_symmetric),
        cmocka_unit_test(test_fill_triangular),
        cmocka_unit_test(test_fill_randint_and_scalar),
        cmocka_unit_test(test_fill_param),
        cmocka_unit_test(test_fill_scales_after_structure),
        cmocka_unit_test(test_fill_extra_pattern),
        cmocka_unit_test(test_param_tril_and_xavier),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
