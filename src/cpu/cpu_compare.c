/* Comparison of a candidate output with its references (DESIGN section 4),
 * filling exactly the fields of kbv_compare_stats.
 *
 * allclose (standard, verified): per element against ref, in double
 * arithmetic. An element fails where ref is finite and the candidate is not
 * finite or |c - r| > atol + rtol |r|; where ref is not finite the element is
 * only counted (ref_nonfinite): the caller skips such a draw.
 *
 * strict (only with an oracle): each element by exec/strict_rule.h against
 * the float64 oracle and the fp32-strict baseline (the oracle alone when no
 * baseline is given); a judged finite element's error against the oracle
 * accumulates in double.
 *
 * Operands are float32 or float64; a candidate's float16 or bfloat16 output
 * is read as such (its type's largest finite value then decides what
 * overflows); integer and bool outputs (argmax indices) are compared as the
 * exact values they hold. */
#include <math.h>
#include <stdbool.h>
#include <string.h>

#include "cpu/cpu_backend.h"
#include "core/bf16.h"
#include "cpu/cpu_half.h"
#include "exec/strict_rule.h"

static inline double load(const kbv_tensor *t, int64_t i)
{
    switch (t->dtype) {
    case KBV_F32: return (double)((const float *)t->data)[i];
    case KBV_F16: return kbv_half_to_double(((const uint16_t *)t->data)[i]);
    case KBV_BF16: return kbv_bf16_to_double(((const uint16_t *)t->data)[i]);
    case KBV_I64: return (double)((const int64_t *)t->data)[i];
    case KBV_I32: return (double)((const int32_t *)t->data)[i];
    case KBV_BOOL: return (double)((const unsigned char *)t->data)[i];
    default: return ((const double *)t->data)[i];
    }
}

/* Whether element i still holds the poison written by kbv_cpu_poison: the
 * 4-byte pattern repeated from the (4-byte aligned) start of the tensor. */
static inline bool is_poison(const kbv_tensor *t, int64_t i)
{
    size_t size = kbv_dtype_size(t->dtype);
    const unsigned char *p = (const unsigned char *)t->data + (size_t)i * size;
    const uint32_t word = kbv_poison_word(t->dtype);
    unsigned char pattern[4];
    memcpy(pattern, &word, 4);
    for (size_t b = 0; b < size; b++)
        if (p[b] != pattern[((size_t)i * size + b) % 4])
            return false;
    return true;
}

static kbv_status check_operand(const kbv_tensor *t, const char *role, int64_t n)
{
    if (kbv_tensor_numel(t) != n)
        return kbv_fail(KBV_ERR_INVALID, "compare: %s has %lld elements, the candidate %lld",
                        role, (long long)kbv_tensor_numel(t), (long long)n);
    if (!t->data && n > 0)
        return kbv_fail(KBV_ERR_INVALID, "compare: %s without memory", role);
    return KBV_OK;
}

kbv_status kbv_cpu_compare(kbv_backend *be, const kbv_tensor *cand, const kbv_tensor *ref,
                           const kbv_tensor *oracle, const kbv_tensor *strict,
                           double atol, double rtol, kbv_compare_stats *out)
{
    (void)be;
    memset(out, 0, sizeof *out);
    out->allclose_first = -1;
    out->strict_first = -1;
    int64_t n = kbv_tensor_numel(cand);
    KBV_TRY(check_operand(cand, "candidate", n));
    if (ref)
        KBV_TRY(check_operand(ref, "reference", n));
    if (oracle)
        KBV_TRY(check_operand(oracle, "oracle", n));
    if (oracle && strict)
        KBV_TRY(check_operand(strict, "strict baseline", n));
    out->n = n;
    const double max_finite = kbv_strict_max_finite(cand->dtype);
    const double band = kbv_strict_band(cand->dtype);

    for (int64_t i = 0; i < n; i++) {
        double c = load(cand, i);
        bool c_finite = isfinite(c);
        if (is_poison(cand, i))
            out->poison_left++;
        if (!c_finite)
            out->cand_nonfinite++;
        if (isnan(c))
            out->cand_nan++;

        if (ref) {
            double r = load(ref, i);
            if (!isfinite(r)) {
                out->ref_nonfinite++;
            } else {
                double diff = fabs(c - r);
                if (!c_finite || diff > atol + rtol * fabs(r)) {
                    if (out->allclose_fail++ == 0)
                        out->allclose_first = i;
                }
                if (c_finite && diff > out->max_abs_diff)
                    out->max_abs_diff = diff;
            }
        }

        if (oracle) {
            double o = load(oracle, i);
            kbv_strict_outcome k = kbv_strict_element_in(c, o, strict ? load(strict, i) : 0.0,
                                                         strict != NULL, max_finite, band);
            if (!kbv_strict_judged(k)) {
                out->unjudged++;
                if (k == KBV_STRICT_ORACLE_NONFINITE)
                    out->oracle_nonfinite++;
            } else if (k == KBV_STRICT_WRONG_CLASS) {
                if (out->class_fail++ == 0)
                    out->strict_first = i;
            } else if (k == KBV_STRICT_FINITE) {
                double d = c - o;
                out->sq_err += d * d;
                out->sq_ref += o * o;
                if (fabs(d) > out->max_err)
                    out->max_err = fabs(d);
                if (fabs(o) > out->max_ref)
                    out->max_ref = fabs(o);
            }
        }
    }
    return KBV_OK;
}

/* The budget judged alone, by the same loop: on the CPU a second pass costs
 * what the fields it keeps cost to compute, and its sums are compare's. */
kbv_status kbv_cpu_compare_budget(kbv_backend *be, const kbv_tensor *cand,
                                  const kbv_tensor *budget, const kbv_tensor *ref,
                                  const kbv_tensor *oracle, const kbv_tensor *strict, double atol,
                                  double rtol, kbv_compare_stats *out,
                                  kbv_compare_stats *budget_out)
{
    if (!oracle)
        return kbv_fail(KBV_ERR_INVALID, "compare: a budget baseline without an oracle");
    kbv_compare_stats alone;
    KBV_TRY(kbv_cpu_compare(be, cand, ref, oracle, strict, atol, rtol, out));
    KBV_TRY(kbv_cpu_compare(be, budget, ref, oracle, strict, atol, rtol, &alone));
    memset(budget_out, 0, sizeof *budget_out);
    budget_out->allclose_first = -1;
    budget_out->strict_first = -1;
    budget_out->n = alone.n;
    budget_out->sq_err = alone.sq_err;
    budget_out->sq_ref = alone.sq_ref;
    budget_out->max_err = alone.max_err;
    budget_out->max_ref = alone.max_ref;
    return KBV_OK;
}
