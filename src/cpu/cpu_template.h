/* Type parameters for kernels written once and compiled for float and double.
 *
 * A family file defines its kernels in a template header written in terms of
 * KBV_T (the element type), KBV_FN(name) (name_f32 / name_f64) and
 * KBV_MATH(fn) (expf / exp), then includes it twice:
 *
 *     #define KBV_CPU_TYPE_F32
 *     #include "cpu/cpu_template.h"
 *     #include "cpu/cpu_matmul_t.h"
 *     #define KBV_CPU_TYPE_F64
 *     #include "cpu/cpu_template.h"
 *     #include "cpu/cpu_matmul_t.h"
 *
 * Each inclusion of this header consumes the KBV_CPU_TYPE_* request. */
#undef KBV_T
#undef KBV_SFX
#undef KBV_MATH_SFX

#if defined(KBV_CPU_TYPE_F32)
#define KBV_T float
#define KBV_SFX f32
#define KBV_MATH_SFX f
#undef KBV_CPU_TYPE_F32
#elif defined(KBV_CPU_TYPE_F64)
#define KBV_T double
#define KBV_SFX f64
#define KBV_MATH_SFX
#undef KBV_CPU_TYPE_F64
#else
#error "define KBV_CPU_TYPE_F32 or KBV_CPU_TYPE_F64 before including cpu_template.h"
#endif

#ifndef KBV_CPU_TEMPLATE_HELPERS
#define KBV_CPU_TEMPLATE_HELPERS
#define KBV_CAT_(a, b) a##b
#define KBV_CAT(a, b) KBV_CAT_(a, b)
#define KBV_FN(name) KBV_CAT(KBV_CAT(name, _), KBV_SFX)
#define KBV_MATH(fn) KBV_CAT(fn, KBV_MATH_SFX)
#endif
