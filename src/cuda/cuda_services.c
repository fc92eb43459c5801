/* The evaluator's device services on CUDA: drawing inputs and parameters,
 * conversion between float32, float64, float16 and bfloat16, poisoning
 * outputs, comparing outputs and hashing buffers. Each service finishes before it returns (the stream is
 * synchronised), so a buffer it wrote can be handed to the candidate process
 * at once, as with the CPU backend. */
#include <string.h>

#include "cuda/cuda_check.h"
#include "cuda/cuda_impl.h"
#include "graph/graph.h"

#define KBV_NO_INDEX 0x7fffffffffffffffLL

static kbv_status finish(kbv_cuda *cu, cudaError_t launch, const char *what)
{
    if (launch != cudaSuccess)
        return KBV_CUDA_FAIL(launch, what);
    KBV_CUDA_TRY(cudaStreamSynchronize(cu->stream));
    return KBV_OK;
}

static kbv_status need_contiguous(const kbv_tensor *t, const char *what)
{
    if (!kbv_tensor_is_contiguous(t))
        return kbv_fail(KBV_ERR_INVALID, "%s: tensor %s is not contiguous", what,
                        t->name ? t->name : "(unnamed)");
    return KBV_OK;
}


static kbv_status cuda_fill(kbv_backend *be, const kbv_input_def *in, int input_index,
                            const kbv_draw *draw, kbv_tensor *t)
{
    kbv_cuda *cu = kbv_cuda_of(be);
    const char *name = in->name ? in->name : "input";
    KBV_TRY(need_contiguous(t, "fill"));
    kbv_cuda_fill_spec sp;
    memset(&sp, 0, sizeof sp);
    sp.dtype = t->dtype;
    sp.logical = in->dtype;
    sp.gen = in->gen;
    sp.structure = in->structure;
    sp.dist = draw->dist;
    sp.seed = draw->seed;
    sp.key = kbv_input_key(input_index);
    sp.n = kbv_tensor_numel(t);
    sp.low = in->low;
    sp.high = in->high;
    sp.value = in->value;
    sp.factor = kbv_draw_factor(draw, in);
    sp.pattern = kbv_draw_pattern(draw, in);
    if (t->ndim >= 2) {
        sp.rows = t->shape[t->ndim - 2];
        sp.cols = t->shape[t->ndim - 1];
        sp.row_len = sp.cols;
    } else {
        sp.rows = 1;
        sp.cols = t->ndim == 1 ? t->shape[0] : 1;
        sp.row_len = 0;
    }
    if (!t->data && sp.n > 0)
        return kbv_fail(KBV_ERR_INVALID, "fill %s: tensor without memory", name);
    switch (in->gen) {
    case KBV_GEN_RAND:
    case KBV_GEN_RANDN:
        if (!kbv_dtype_is_float(t->dtype))
            return kbv_fail(KBV_ERR_INVALID, "fill %s: a float generator into a %s tensor", name,
                            kbv_dtype_name(t->dtype));
        break;
    case KBV_GEN_RANDINT:
    case KBV_GEN_SCALAR:
        if (in->structure != KBV_STRUCT_NONE
            && !(in->structure == KBV_STRUCT_SIGNS && in->gen == KBV_GEN_RANDINT))
            return kbv_fail(KBV_ERR_INVALID, "fill %s: structure needs a rand/randn generator",
                            name);
        break;
    default:
        return kbv_fail(KBV_ERR_INVALID, "fill %s: no generator", name);
    }
    switch (in->structure) {
    case KBV_STRUCT_NONE:
    case KBV_STRUCT_SCALED:
    case KBV_STRUCT_SIGNS:
        break;
    case KBV_STRUCT_SOFTMAX:
    case KBV_STRUCT_SCALED_SOFTMAX: /* over the last dim; a 0-d tensor is one row of one */
        if (sp.cols == 0)
            return KBV_OK;
        break;
    case KBV_STRUCT_TRIU:
    case KBV_STRUCT_TRIL:
    case KBV_STRUCT_SYMMETRIC:
        if (t->ndim < 2)
            return kbv_fail(KBV_ERR_INVALID, "fill %s: structure needs at least 2 dims", name);
        if (in->structure == KBV_STRUCT_SYMMETRIC && sp.rows != sp.cols)
            return kbv_fail(KBV_ERR_INVALID, "fill %s: symmetric needs square matrices, not "
                            "%lld x %lld", name, (long long)sp.rows, (long long)sp.cols);
        break;
    default:
        return kbv_fail(KBV_ERR_INVALID, "fill %s: unknown structure %d", name,
                        (int)in->structure);
    }
    KBV_TRY(finish(cu, kbv_cuda_launch_fill_input(cu->stream, cu->sms, &sp, t->data),
                   "kbv_cuda_launch_fill_input"));
    return KBV_OK;
}

static kbv_status cuda_fill_param(kbv_backend *be, const kbv_graph *g, int param,
                                  const kbv_draw *draw, kbv_tensor *t)
{
    kbv_cuda *cu = kbv_cuda_of(be);
    if (param < 0 || param >= g->n_params)
        return kbv_fail(KBV_ERR_INVALID, "fill_param: no param %d", param);
    const kbv_value *pv = &g->values[g->n_inputs + param];
    const int param_index = pv->def_index;
    const kbv_param_def *p = &g->def->params[param_index];
    const char *name = p->name ? p->name : "param";
    KBV_TRY(need_contiguous(t, "fill_param"));
    if (!t->data && kbv_tensor_numel(t) > 0)
        return kbv_fail(KBV_ERR_INVALID, "fill_param %s: tensor without memory", name);
    int kind;
    double value;
    if (!kbv_param_kind_of(p->init, p->value, &kind, &value))
        return kbv_fail(KBV_ERR_INVALID, "fill_param %s: unknown initialiser %d", name,
                        (int)p->init);
    /* integer buffers (counters) are never perturbed */
    const int d5 = draw->dist == KBV_DIST_D5 && kbv_dtype_is_float(p->dtype);
    KBV_TRY(finish(cu,
                   kbv_cuda_launch_fill_param(cu->stream, cu->sms, t->dtype, p->dtype, kind,
                                              pv->fan_in, value, d5, draw->seed,
                                              kbv_param_key(param_index), kbv_tensor_numel(t),
                                              t->data),
                   "kbv_cuda_launch_fill_param"));
    return KBV_OK;
}

static kbv_status cuda_convert(kbv_backend *be, const kbv_tensor *src, kbv_tensor *dst)
{
    kbv_cuda *cu = kbv_cuda_of(be);
    KBV_TRY(need_contiguous(src, "convert"));
    KBV_TRY(need_contiguous(dst, "convert"));
    const int64_t n = kbv_tensor_numel(src);
    if (kbv_tensor_numel(dst) != n)
        return kbv_fail(KBV_ERR_INVALID, "convert: %lld elements into %lld", (long long)n,
                        (long long)kbv_tensor_numel(dst));
    if (!kbv_dtype_is_float(src->dtype) || !kbv_dtype_is_float(dst->dtype))
        return kbv_fail(KBV_ERR_UNSUPPORTED,
                        "convert: %s to %s (float32/float64/float16/bfloat16 only)",
                        kbv_dtype_name(src->dtype), kbv_dtype_name(dst->dtype));
    KBV_TRY(finish(cu,
                   kbv_cuda_launch_convert(cu->stream, cu->sms, src->data, src->dtype, dst->data,
                                           dst->dtype, n),
                   "kbv_cuda_launch_convert"));
    return KBV_OK;
}

static kbv_status cuda_poison(kbv_backend *be, kbv_tensor *t)
{
    kbv_cuda *cu = kbv_cuda_of(be);
    KBV_TRY(need_contiguous(t, "poison"));
    size_t bytes = (size_t)kbv_tensor_numel(t) * kbv_dtype_size(t->dtype);
    KBV_TRY(finish(cu,
                   kbv_cuda_launch_poison(cu->stream, cu->sms, t->data, bytes,
                                          kbv_poison_word(t->dtype)),
                   "kbv_cuda_launch_poison"));
    return KBV_OK;
}

/* Device buffers for reduction results, made once; outside the allocator
 * (they are the harness's, not the baseline's). */
static kbv_status service_ready(kbv_cuda *cu)
{
    if (cu->service)
        return KBV_OK;
    size_t grid = (size_t)kbv_cuda_compare_grid(cu->sms);
    size_t bytes = (grid + 1) * sizeof(kbv_cuda_compare_acc) + sizeof(unsigned long long);
    KBV_CUDA_TRY(cudaMalloc(&cu->service, bytes));
    cu->cmp_partials = (kbv_cuda_compare_acc *)cu->service;
    cu->cmp_result = cu->cmp_partials + grid;
    cu->hash_result = (unsigned long long *)(cu->cmp_result + 1);
    return KBV_OK;
}

static kbv_status check_operand(const kbv_tensor *t, int64_t n, const char *role)
{
    if (kbv_tensor_numel(t) != n)
        return kbv_fail(KBV_ERR_INVALID, "compare: %s has %lld elements, the candidate %lld", role,
                        (long long)kbv_tensor_numel(t), (long long)n);
    if (!t->data && n > 0)
        return kbv_fail(KBV_ERR_INVALID, "compare: %s without memory", role);
    KBV_TRY(need_contiguous(t, "compare"));
    return KBV_OK;
}

/* One pass over cand and its references (and budget, when not NULL: its
 * strict error sums into *budget_out). */
static kbv_status compare_pass(kbv_backend *be, const kbv_tensor *cand, const kbv_tensor *budget,
                               const kbv_tensor *ref, const kbv_tensor *oracle,
                               const kbv_tensor *strict, double atol, double rtol,
                               kbv_compare_stats *out, kbv_compare_stats *budget_out)
{
    kbv_cuda *cu = kbv_cuda_of(be);
    memset(out, 0, sizeof *out);
    out->allclose_first = -1;
    out->strict_first = -1;
    const int64_t n = kbv_tensor_numel(cand);
    KBV_TRY(check_operand(cand, n, "the candidate"));
    if (ref)
        KBV_TRY(check_operand(ref, n, "the reference"));
    if (oracle)
        KBV_TRY(check_operand(oracle, n, "the oracle"));
    if (oracle && strict)
        KBV_TRY(check_operand(strict, n, "the strict baseline"));
    if (budget) {
        if (!oracle)
            return kbv_fail(KBV_ERR_INVALID, "compare: a budget baseline without an oracle");
        KBV_TRY(check_operand(budget, n, "the budget baseline"));
        memset(budget_out, 0, sizeof *budget_out);
        budget_out->allclose_first = -1;
        budget_out->strict_first = -1;
        budget_out->n = n;
    }
    out->n = n;
    if (n == 0)
        return KBV_OK;
    KBV_TRY(service_ready(cu));
    kbv_cuda_compare_args args;
    memset(&args, 0, sizeof args);
    args.cand = cand->data;
    args.cand_dtype = cand->dtype;
    if (ref) {
        args.ref = ref->data;
        args.ref_dtype = ref->dtype;
    }
    if (oracle) {
        args.oracle = oracle->data;
        args.oracle_dtype = oracle->dtype;
        if (strict) { /* without an oracle the strict baseline has nothing to judge */
            args.strict = strict->data;
            args.strict_dtype = strict->dtype;
        }
    }
    if (budget) {
        args.budget = budget->data;
        args.budget_dtype = budget->dtype;
    }
    args.n = n;
    args.atol = atol;
    args.rtol = rtol;
    cudaError_t err =
        kbv_cuda_launch_compare(cu->stream, cu->sms, &args, cu->cmp_partials, cu->cmp_result);
    if (err != cudaSuccess)
        return KBV_CUDA_FAIL(err, "kbv_cuda_launch_compare");
    kbv_cuda_compare_acc acc;
    KBV_CUDA_TRY(cudaMemcpyAsync(&acc, cu->cmp_result, sizeof acc, cudaMemcpyDeviceToHost,
                                 cu->stream));
    KBV_CUDA_TRY(cudaStreamSynchronize(cu->stream));

    out->poison_left = acc.poison_left;
    out->cand_nonfinite = acc.cand_nonfinite;
    out->cand_nan = acc.cand_nan;
    if (ref) {
        out->ref_nonfinite = acc.ref_nonfinite;
        out->allclose_fail = acc.allclose_fail;
        out->allclose_first = acc.allclose_first == KBV_NO_INDEX ? -1 : acc.allclose_first;
        out->max_abs_diff = acc.max_abs_diff;
    }
    if (oracle) {
        out->unjudged = acc.unjudged;
        out->oracle_nonfinite = acc.oracle_nonfinite;
        out->class_fail = acc.class_fail;
        out->strict_first = acc.strict_first == KBV_NO_INDEX ? -1 : acc.strict_first;
        out->sq_err = acc.sq_err;
        out->sq_ref = acc.sq_ref;
        out->max_err = acc.max_err;
        out->max_ref = acc.max_ref;
    }
    if (budget) {
        budget_out->sq_err = acc.budget_sq_err;
        budget_out->sq_ref = acc.budget_sq_ref;
        budget_out->max_err = acc.budget_max_err;
        budget_out->max_ref = acc.budget_max_ref;
    }
    return KBV_OK;
}

static kbv_status cuda_compare(kbv_backend *be, const kbv_tensor *cand, const kbv_tensor *ref,
                               const kbv_tensor *oracle, const kbv_tensor *strict, double atol,
                               double rtol, kbv_compare_stats *out)
{
    return compare_pass(be, cand, NULL, ref, oracle, strict, atol, rtol, out, NULL);
}

static kbv_status cuda_compare_budget(kbv_backend *be, const kbv_tensor *cand,
                                      const kbv_tensor *budget, const kbv_tensor *ref,
                                      const kbv_tensor *oracle, const kbv_tensor *strict,
                                      double atol, double rtol, kbv_compare_stats *out,
                                      kbv_compare_stats *budget_out)
{
    return compare_pass(be, cand, budget, ref, oracle, strict, atol, rtol, out, budget_out);
}

static kbv_status cuda_hash(kbv_backend *be, const void *data, size_t bytes, uint64_t *out)
{
    kbv_cuda *cu = kbv_cuda_of(be);
    KBV_TRY(service_ready(cu));
    cudaError_t err = kbv_cuda_launch_hash(cu->stream, cu->sms, data, bytes, cu->hash_result);
    if (err != cudaSuccess)
        return KBV_CUDA_FAIL(err, "kbv_cuda_launch_hash");
    unsigned long long h = 0;
    KBV_CUDA_TRY(cudaMemcpyAsync(&h, cu->hash_result, sizeof h, cudaMemcpyDeviceToHost, cu->stream));
    KBV_CUDA_TRY(cudaStreamSynchronize(cu->stream));
    *out = (uint64_t)h;
    return KBV_OK;
}

void kbv_cuda_install_services(kbv_backend *be)
{
    be->fill = cuda_fill;
    be->fill_param = cuda_fill_param;
    be->convert = cuda_convert;
    be->poison = cuda_poison;
    be->compare = cuda_compare;
    be->compare_budget = cuda_compare_budget;
    be->hash = cuda_hash;
}
