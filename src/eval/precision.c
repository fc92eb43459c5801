#include "eval/precision.h"

#include "record/results.h"

#define BIT(m) (1u << (m))

static const kbv_precision_modes modes[KBV_PRECISION_COUNT] = {
    [KBV_PRECISION_FP32] = {
        .reference = KBV_MODE_FP32,
        .verified = KBV_MODE_TF32,
        .strict = KBV_MODE_TF32,
        .strict_class = KBV_MODE_FP32_STRICT,
        .report_fp32_strict = true,
        .timed = BIT(KBV_MODE_FP32_STRICT) | BIT(KBV_MODE_FP32) | BIT(KBV_MODE_TF32),
        .backends = BIT(KBV_MODE_FP32_STRICT) | BIT(KBV_MODE_FP32) | BIT(KBV_MODE_TF32) |
                    BIT(KBV_MODE_FP64),
    },
    [KBV_PRECISION_BF16] = {
        .reference = KBV_MODE_BF16,
        .verified = KBV_MODE_BF16,
        .strict = KBV_MODE_BF16,
        .strict_class = KBV_MODE_BF16,
        .report_fp32_strict = false,
        .timed = BIT(KBV_MODE_BF16),
        .backends = BIT(KBV_MODE_FP32) | BIT(KBV_MODE_BF16) | BIT(KBV_MODE_FP64),
    },
};

const kbv_precision_modes *kbv_precision_modes_get(kbv_precision p)
{
    return &modes[(unsigned)p < KBV_PRECISION_COUNT ? p : KBV_PRECISION_FP32];
}

kbv_mode kbv_precision_baseline(kbv_precision prec, int protocol)
{
    const kbv_precision_modes *m = kbv_precision_modes_get(prec);
    switch (protocol) {
    case KBV_PROTO_STANDARD: return m->reference;
    case KBV_PROTO_VERIFIED: return m->verified;
    default: return m->strict;
    }
}

unsigned kbv_precision_timed_for(kbv_precision prec, unsigned protocols)
{
    const kbv_precision_modes *m = kbv_precision_modes_get(prec);
    unsigned need = 0;
    for (int p = 0; p < KBV_PROTO_COUNT; p++)
        if (protocols >> p & 1u)
            need |= BIT(kbv_precision_baseline(prec, p));
    if ((protocols >> KBV_PROTO_STRICT & 1u) && m->report_fp32_strict)
        need |= BIT(KBV_MODE_FP32_STRICT);
    return need & m->timed;
}
