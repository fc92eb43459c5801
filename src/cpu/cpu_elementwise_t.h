/* Elementwise kernels for one element type (see cpu_template.h). PyTorch's
 * formulas, branch for branch, so NaN and infinity behave as in PyTorch:
 * comparisons (not fmin/fmax) keep a NaN operand NaN. */

/* hardsigmoid as PyTorch writes it: std::min(std::max(x + 3, 0), 6) / 6,
 * where std::max(a, b) is (a < b) ? b : a, so a NaN stays NaN. */
static inline KBV_T KBV_FN(relu6_of_plus3)(KBV_T x)
{
    KBV_T y = x + (KBV_T)3;
    y = y < (KBV_T)0 ? (KBV_T)0 : y;
    return (KBV_T)6 < y ? (KBV_T)6 : y;
}

static inline KBV_T KBV_FN(hardsigmoid)(KBV_T x) { return KBV_FN(relu6_of_plus3)(x) / (KBV_T)6; }

/* torch.minimum / torch.maximum: a NaN operand wins (the first one). */
static inline KBV_T KBV_FN(nan_min)(KBV_T a, KBV_T b)
{
    return a != a ? a : (b != b ? b : (b < a ? b : a));
}

static inline KBV_T KBV_FN(nan_max)(KBV_T a, KBV_T b)
{
    return a != a ? a : (b != b ? b : (a < b ? b : a));
}

/* Runs EXPR (in terms of x) over every element of operand 1 into operand 0. */
#define KBV_UNARY_LOOP(EXPR)                                                         \
    for (int64_t r_ = 0; r_ < it->outer_count; r_++, kbv_cpu_iter_advance(it)) {     \
        KBV_T *o_ = dst + it->offset[0];                                             \
        const KBV_T *a_ = src + it->offset[1];                                       \
        const int64_t so_ = it->inner_stride[0], sa_ = it->inner_stride[1];          \
        for (int64_t j_ = 0; j_ < it->inner; j_++) {                                 \
            const KBV_T x = a_[j_ * sa_];                                            \
            o_[j_ * so_] = (EXPR);                                                   \
        }                                                                            \
    }

static kbv_status KBV_FN(unary_run)(const kbv_node *node, kbv_cpu_iter *it, const void *in,
                                    void *out)
{
    const KBV_T *src = in;
    KBV_T *dst = out;
    const double *f = node->def ? node->def->f : NULL;
    static const double f_none[4] = {0, 0, 0, 0};
    if (!f)
        f = f_none;
    switch (node->op) {
    case KBV_OP_ADD_SCALAR: {
        const KBV_T c = (KBV_T)f[0];
        KBV_UNARY_LOOP(c + x);
        break;
    }
    case KBV_OP_MUL_SCALAR: {
        const KBV_T c = (KBV_T)f[0];
        KBV_UNARY_LOOP(x * c);
        break;
    }
    case KBV_OP_ABS:
        KBV_UNARY_LOOP(KBV_MATH(fabs)(x));
        break;
    case KBV_OP_RELU:
        KBV_UNARY_LOOP(x < 0 ? (KBV_T)0 : x);
        break;
    case KBV_OP_LEAKY_RELU: {
        const KBV_T slope = (KBV_T)f[0];
        KBV_UNARY_LOOP(x > 0 ? x : x * slope);
        break;
    }
    case KBV_OP_SIGMOID:
        KBV_UNARY_LOOP((KBV_T)1 / ((KBV_T)1 + KBV_MATH(exp)(-x)));
        break;
    case KBV_OP_TANH:
        KBV_UNARY_LOOP(KBV_MATH(tanh)(x));
        break;
    case KBV_OP_GELU: {
        const KBV_T inv_sqrt2 = (KBV_T)0.70710678118654752440;
        KBV_UNARY_LOOP(x * (KBV_T)0.5 * ((KBV_T)1 + KBV_MATH(erf)(x * inv_sqrt2)));
        break;
    }
    case KBV_OP_SELU: {
        /* torch.nn.functional.selu: elu with PyTorch's alpha and scale; the
         * negative branch's coefficient is their product in the element type. */
        const KBV_T alpha = (KBV_T)1.6732632423543772848170429916717;
        const KBV_T scale = (KBV_T)1.0507009873554804934193349852946;
        const KBV_T negcoef = alpha * scale;
        KBV_UNARY_LOOP(x <= 0 ? KBV_MATH(expm1)(x) * negcoef : x * scale);
        break;
    }
    case KBV_OP_HARDSIGMOID:
        KBV_UNARY_LOOP(KBV_FN(hardsigmoid)(x));
        break;
    case KBV_OP_SOFTPLUS:
        /* beta 1, threshold 20: linear above the threshold. */
        KBV_UNARY_LOOP(x > (KBV_T)20 ? x : KBV_MATH(log1p)(KBV_MATH(exp)(x)));
        break;
    case KBV_OP_ELU: {
        const KBV_T alpha = (KBV_T)f[0];
        KBV_UNARY_LOOP(x <= 0 ? KBV_MATH(expm1)(x) * alpha : x);
        break;
    }
    case KBV_OP_HARDTANH: {
        const KBV_T lo = (KBV_T)f[0], hi = (KBV_T)f[1];
        KBV_UNARY_LOOP(x < lo ? lo : (x > hi ? hi : x));
        break;
    }
    /* the level-2 ops, with PyTorch's CPU formulas (ATen/native/cpu) */
    case KBV_OP_CLAMP: { /* clamp_scalar: NaN stays NaN; min > max gives max */
        const KBV_T lo = (KBV_T)f[0], hi = (KBV_T)f[1];
        KBV_UNARY_LOOP(x != x ? x : ((x < lo ? lo : x) > hi ? hi : (x < lo ? lo : x)));
        break;
    }
    case KBV_OP_CLAMP_MAX: {
        const KBV_T hi = (KBV_T)f[0];
        KBV_UNARY_LOOP(x != x ? x : (x > hi ? hi : x));
        break;
    }
    case KBV_OP_SUB_SCALAR: {
        const KBV_T c = (KBV_T)f[0];
        KBV_UNARY_LOOP(x - c);
        break;
    }
    case KBV_OP_DIV_SCALAR: {
        const KBV_T c = (KBV_T)f[0];
        KBV_UNARY_LOOP(x / c);
        break;
    }
    case KBV_OP_MISH: /* x * tanh(log1p(exp(x))), no threshold, as PyTorch */
        KBV_UNARY_LOOP(x * KBV_MATH(tanh)(KBV_MATH(log1p)(KBV_MATH(exp)(x))));
        break;
    case KBV_OP_HARDSWISH: /* x * min(max(x + 3, 0), 6) / 6; NaN stays NaN */
        KBV_UNARY_LOOP(x * KBV_FN(relu6_of_plus3)(x) / (KBV_T)6);
        break;
    case KBV_OP_GELU_TANH: {
        /* 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3))) */
        const KBV_T beta = (KBV_T)(0.79788456080286535587989211986876);
        const KBV_T kappa = (KBV_T)0.044715;
        KBV_UNARY_LOOP((KBV_T)0.5 * x *
                       ((KBV_T)1 + KBV_MATH(tanh)(beta * (x + kappa * (x * x * x)))));
        break;
    }
    case KBV_OP_SILU:
        KBV_UNARY_LOOP(x / ((KBV_T)1 + KBV_MATH(exp)(-x)));
        break;
    case KBV_OP_MIN_SCALAR: { /* the constant is a float32 0-dim tensor */
        const KBV_T c = (KBV_T)(float)f[0];
        KBV_UNARY_LOOP(KBV_FN(nan_min)(x, c));
        break;
    }
    case KBV_OP_MAX_SCALAR: {
        const KBV_T c = (KBV_T)(float)f[0];
        KBV_UNARY_LOOP(KBV_FN(nan_max)(x, c));
        break;
    }
    case KBV_OP_EXP:
        KBV_UNARY_LOOP(KBV_MATH(exp)(x));
        break;
    default:
        return kbv_fail(KBV_ERR_UNSUPPORTED, "%s is not a unary elementwise op",
                        kbv_cpu_op_name(node));
    }
    return KBV_OK;
}
#undef KBV_UNARY_LOOP

/* Runs EXPR (in terms of a and b) over operands 1 and 2 into operand 0. */
#define KBV_BINARY_LOOP(EXPR)                                                        \
    for (int64_t r_ = 0; r_ < it->outer_count; r_++, kbv_cpu_iter_advance(it)) {     \
        KBV_T *o_ = dst + it->offset[0];                                             \
        const KBV_T *a_ = lhs + it->offset[1];                                       \
        const KBV_T *b_ = rhs + it->offset[2];                                       \
        const int64_t so_ = it->inner_stride[0], sa_ = it->inner_stride[1],          \
                      sb_ = it->inner_stride[2];                                     \
        for (int64_t j_ = 0; j_ < it->inner; j_++) {                                 \
            const KBV_T a = a_[j_ * sa_], b = b_[j_ * sb_];                          \
            o_[j_ * so_] = (EXPR);                                                   \
        }                                                                            \
    }

static kbv_status KBV_FN(binary_run)(const kbv_node *node, kbv_cpu_iter *it, const void *in0,
                                     const void *in1, void *out)
{
    const KBV_T *lhs = in0, *rhs = in1;
    KBV_T *dst = out;
    switch (node->op) {
    case KBV_OP_ADD:
        KBV_BINARY_LOOP(a + b);
        break;
    case KBV_OP_SUB:
        KBV_BINARY_LOOP(a - b);
        break;
    case KBV_OP_MUL:
        KBV_BINARY_LOOP(a * b);
        break;
    case KBV_OP_DIV:
        KBV_BINARY_LOOP(a / b);
        break;
    case KBV_OP_MINIMUM:
        KBV_BINARY_LOOP(KBV_FN(nan_min)(a, b));
        break;
    case KBV_OP_MAXIMUM:
        KBV_BINARY_LOOP(KBV_FN(nan_max)(a, b));
        break;
    default:
        return kbv_fail(KBV_ERR_UNSUPPORTED, "%s is not a binary elementwise op",
                        kbv_cpu_op_name(node));
    }
    return KBV_OK;
}
#undef KBV_BINARY_LOOP
