#include "record/precision.h"

#include <string.h>

/* The one table of precisions. */
static const kbv_precision_info precisions[KBV_PRECISION_COUNT] = {
    [KBV_PRECISION_FP32] = {"fp32",
                            "float32 tensors; standard's baseline fp32,\n"
                            "verified's and strict's tf32 (default)",
                            KBV_F32, {"fp32", "tf32", "tf32"}, NULL},
    [KBV_PRECISION_BF16] = {"bf16",
                            "the paper's BF16 appendix: every float tensor\n"
                            "(inputs, parameters, outputs; not a Python\n"
                            "number) bfloat16, the fp32 draw rounded;\n"
                            "allclose 1e-2; every protocol's baseline the\n"
                            "bf16 one (PyTorch's bf16 eager: float32 compute,\n"
                            "bf16 tensor cores); kbv prompt and generate add\n"
                            "the paper's BF16 note",
                            KBV_BF16, {"bf16", "bf16", "bf16"}, "BF16 (bfloat16)"},
};

const kbv_precision_info *kbv_precision_get(kbv_precision p)
{
    return &precisions[(unsigned)p < KBV_PRECISION_COUNT ? p : KBV_PRECISION_FP32];
}

kbv_status kbv_precision_parse(const char *name, kbv_precision *p)
{
    for (int i = 0; i < KBV_PRECISION_COUNT; i++)
        if (name && !strcmp(name, precisions[i].name)) {
            *p = (kbv_precision)i;
            return KBV_OK;
        }
    return kbv_fail(KBV_ERR_PARSE, "precision '%s': expected fp32 or bf16", name ? name : "");
}
