/* bfloat16 on the host (the CPU backend, and host code that fills bfloat16
 * memory): conversion to and from float and double with round-to-nearest-
 * even, as Tensor.to(torch.bfloat16) rounds, without relying on a
 * compiler's __bf16. A bfloat16 is the top half of a float32:
 * the same sign and 8 exponent bits, 7 of the 23 fraction bits. */
#ifndef KBV_CORE_BF16_H
#define KBV_CORE_BF16_H

#include <math.h>
#include <stdint.h>
#include <string.h>

/* The bfloat16 nearest to f (ties to even); a NaN becomes 0x7FC0, as
 * c10::BFloat16's round_to_nearest_even gives. */
static inline uint16_t kbv_bf16_from_float(float f)
{
    uint32_t bits;
    memcpy(&bits, &f, sizeof bits);
    if (isnan(f))
        return 0x7FC0u;
    bits += 0x7FFFu + ((bits >> 16) & 1u);
    return (uint16_t)(bits >> 16);
}

static inline float kbv_bf16_to_float(uint16_t h)
{
    uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static inline double kbv_bf16_to_double(uint16_t h) { return (double)kbv_bf16_to_float(h); }

/* The bfloat16 nearest to v, rounded once from the double (no rounding
 * through float32 first, which can land on the wrong side of a tie). */
static inline uint16_t kbv_bf16_from_double(double v)
{
    if (isnan(v))
        return 0x7FC0u;
    uint16_t sign = signbit(v) ? 0x8000u : 0u;
    double a = fabs(v);
    if (a >= 0x1.ffp127) /* at or past the midpoint between the largest finite value and 2^128 */
        return (uint16_t)(sign | 0x7F80u);
    if (a < 0x1p-126) { /* subnormal: a multiple of 2^-133; 128 of them is the smallest normal */
        double units = nearbyint(a * 0x1p133);
        return (uint16_t)(sign | (uint16_t)units);
    }
    int e = 0;
    (void)frexp(a, &e); /* a = m 2^e with m in [0.5, 1) */
    e -= 1;             /* now 2^e <= a < 2^(e+1), e in [-126, 127] */
    uint32_t mant = (uint32_t)nearbyint(ldexp(a, 7 - e)); /* in [128, 256] */
    uint32_t exp = (uint32_t)(e + 127);
    if (mant == 256u) {
        mant = 128u;
        exp++;
    }
    if (exp >= 255u)
        return (uint16_t)(sign | 0x7F80u);
    return (uint16_t)(sign | (exp << 7) | (mant - 128u));
}

/* v rounded to the nearest bfloat16 value. */
static inline double kbv_bf16_round(double v) { return kbv_bf16_to_double(kbv_bf16_from_double(v)); }

#endif
