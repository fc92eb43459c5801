/* The strict protocol's rule for one output element (DESIGN section 4), in
 * one place for both backends' comparisons (cpu/cpu_compare.c,
 * cuda/cuda_compare.cu) and the unit tests.
 *
 * What an element is judged against is the truth as the output type would
 * hold it. The float64 oracle gives that truth only where it is finite: a
 * NaN or infinity there comes from float64 arithmetic that overflowed (a
 * product past 1e308, then inf * 0 = NaN or inf - inf) or from an undefined
 * value, and kbv's inputs are always finite, so it is never the truth and
 * the element is not judged. Where the oracle is finite, its magnitude says
 * whether the truth fits the output type: below its largest finite value by
 * more than KBV_STRICT_OVERFLOW_BAND the truth is finite, above it by more
 * than the band the truth overflows the type (an exact rounding gives
 * +-inf); inside the band an honest kernel's last-bit error can land either
 * side, so the element is not judged.
 *
 * The fp32-strict baseline (in a bf16 run the bf16 one) then says what
 * every implementation in the output's precision gets: an element is judged only where the baseline agrees that the truth
 * is finite (the baseline finite) or that it overflows (the baseline not
 * finite); where the baseline overflowed and the truth is finite, or the
 * reverse, a float32 kernel and a more accurate one legitimately differ.
 *
 * A judged element passes when the candidate is finite where the truth is
 * finite (its error then counts toward the budget), and not finite where
 * the truth overflows: +-inf or NaN alike, since a float32 kernel that
 * associates differently turns an overflow into inf * 0 = NaN or the other
 * infinity as easily as the baseline's order gives +inf. */
#ifndef KBV_STRICT_RULE_H
#define KBV_STRICT_RULE_H

#include <float.h>
#include <math.h>
#include <stdbool.h>

#include "kbv/candidate.h"

#ifdef __CUDACC__
#define KBV_STRICT_FN __host__ __device__ __forceinline__
#else
#define KBV_STRICT_FN static inline
#endif

/* Relative width of the band around an output type's largest finite value
 * where the truth's class is not judged: 10x allclose's rtol, far above the
 * relative error of any honest kernel (a float32 cumprod reaches 1e-5 by the
 * time it overflows), and a sliver of the range no cheat can use. */
#define KBV_STRICT_OVERFLOW_BAND 1e-2
/* The same for float16 and bfloat16 outputs, derived the same way: 10x their
 * allclose rtol of 1e-2. An honest bf16 kernel's error is a few bf16
 * roundings (2^-8 = 3.9e-3 each: RMSNorm's chain of five ops rounds five
 * times), above the float32 band but far below this one. */
#define KBV_STRICT_OVERFLOW_BAND_HALF 1e-1

typedef enum kbv_strict_outcome {
    KBV_STRICT_FINITE = 0,         /* judged, passes: truth and candidate finite; error counts */
    KBV_STRICT_OVERFLOW,           /* judged, passes: the truth overflows, the candidate too */
    KBV_STRICT_WRONG_CLASS,        /* judged, fails: finite for an overflow, or the reverse */
    KBV_STRICT_ORACLE_NONFINITE,   /* not judged: the float64 oracle is NaN or +-inf */
    KBV_STRICT_BASELINE_DIFFERS,   /* not judged: the fp32-strict baseline disagrees */
    KBV_STRICT_AT_OVERFLOW,        /* not judged: |oracle| inside the band around the maximum */
} kbv_strict_outcome;

/* Largest finite value of an output dtype. Integers and bool hold exact
 * values far below it, so for them nothing overflows. */
KBV_STRICT_FN double kbv_strict_max_finite(int dtype)
{
    switch (dtype) {
    case KBV_F32: return (double)FLT_MAX;
    case KBV_F16: return 65504.0;
    case KBV_BF16: return 3.3895313892515355e38;
    default: return DBL_MAX;
    }
}

/* The overflow band of an output dtype. */
KBV_STRICT_FN double kbv_strict_band(int dtype)
{
    return dtype == KBV_F16 || dtype == KBV_BF16 ? KBV_STRICT_OVERFLOW_BAND_HALF
                                                 : KBV_STRICT_OVERFLOW_BAND;
}

KBV_STRICT_FN bool kbv_strict_judged(kbv_strict_outcome o) { return o <= KBV_STRICT_WRONG_CLASS; }

/* The truth's side of an element's outcome, which every output judged
 * against the same oracle and class baseline shares: o the float64 oracle,
 * s_finite whether the class baseline is finite (the fp32-strict baseline;
 * bf16 in a bf16 run; have_strict false: no baseline, it is taken to agree),
 * max_finite and band from kbv_strict_max_finite and kbv_strict_band of the
 * judged output's dtype. Returns why the element is not judged, or the
 * truth's class: KBV_STRICT_FINITE or KBV_STRICT_OVERFLOW. */
KBV_STRICT_FN kbv_strict_outcome kbv_strict_truth(double o, bool s_finite, bool have_strict,
                                                  double max_finite, double band)
{
    if (!isfinite(o))
        return KBV_STRICT_ORACLE_NONFINITE;
    const double a = fabs(o);
    bool overflows;
    if (a * (1.0 + band) < max_finite)
        overflows = false;
    else if (a > max_finite * (1.0 + band))
        overflows = true;
    else
        return KBV_STRICT_AT_OVERFLOW;
    if ((have_strict ? s_finite : !overflows) == overflows)
        return KBV_STRICT_BASELINE_DIFFERS;
    return overflows ? KBV_STRICT_OVERFLOW : KBV_STRICT_FINITE;
}

/* An output's outcome given the truth's (kbv_strict_truth) and whether the
 * output is finite. */
KBV_STRICT_FN kbv_strict_outcome kbv_strict_of(kbv_strict_outcome truth, bool finite)
{
    if (!kbv_strict_judged(truth))
        return truth;
    return finite == (truth == KBV_STRICT_OVERFLOW) ? KBV_STRICT_WRONG_CLASS : truth;
}

/* Element outcome: candidate c, float64 oracle o, class baseline s, the
 * rest as kbv_strict_truth takes them. */
KBV_STRICT_FN kbv_strict_outcome kbv_strict_element_in(double c, double o, double s,
                                                       bool have_strict, double max_finite,
                                                       double band)
{
    return kbv_strict_of(kbv_strict_truth(o, have_strict && isfinite(s), have_strict,
                                          max_finite, band),
                         isfinite(c));
}

/* The same with the float32 band. */
KBV_STRICT_FN kbv_strict_outcome kbv_strict_element(double c, double o, double s, bool have_strict,
                                                    double max_finite)
{
    return kbv_strict_element_in(c, o, s, have_strict, max_finite, KBV_STRICT_OVERFLOW_BAND);
}

#endif
