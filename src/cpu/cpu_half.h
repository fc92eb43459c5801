/* IEEE binary16 (float16) on the host: conversion to and from double with
 * round-to-nearest-even, without relying on a compiler's _Float16. Used
 * where float16 tensors are filled, converted, compared, and where an op
 * rounds its result to float16 as PyTorch's half kernels write it. */
#ifndef KBV_CPU_HALF_H
#define KBV_CPU_HALF_H

#include <math.h>
#include <stdint.h>

/* The float16 bit pattern nearest to v (ties to even); overflow gives inf. */
static inline uint16_t kbv_half_from_double(double v)
{
    uint16_t sign = signbit(v) ? 0x8000u : 0u;
    if (isnan(v))
        return (uint16_t)(sign | 0x7E00u);
    double a = fabs(v);
    if (a >= 65520.0) /* at or past the midpoint between 65504 and 2^16: inf */
        return (uint16_t)(sign | 0x7C00u);
    if (a < 0x1p-14) { /* subnormal: a multiple of 2^-24; 1024 of them is the smallest normal */
        double units = nearbyint(a * 0x1p24);
        return (uint16_t)(sign | (uint16_t)units);
    }
    int e = 0;
    (void)frexp(a, &e); /* a = m 2^e with m in [0.5, 1) */
    e -= 1;             /* now 2^e <= a < 2^(e+1), e in [-14, 15] */
    uint32_t mant = (uint32_t)nearbyint(ldexp(a, 10 - e)); /* in [1024, 2048] */
    uint32_t exp = (uint32_t)(e + 15);
    if (mant == 2048u) {
        mant = 1024u;
        exp++;
    }
    if (exp >= 31u)
        return (uint16_t)(sign | 0x7C00u);
    return (uint16_t)(sign | (exp << 10) | (mant - 1024u));
}

static inline double kbv_half_to_double(uint16_t h)
{
    int exp = (h >> 10) & 31, mant = h & 1023;
    double v;
    if (exp == 0)
        v = ldexp((double)mant, -24);
    else if (exp == 31)
        v = mant ? NAN : INFINITY;
    else
        v = ldexp((double)(mant + 1024), exp - 25);
    return (h & 0x8000u) ? -v : v;
}

/* v rounded to the nearest float16 value. */
static inline double kbv_half_round(double v)
{
    return kbv_half_to_double(kbv_half_from_double(v));
}

#endif
