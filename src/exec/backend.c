/* Backend-independent parts of the backend interface: precision mode names
 * and destruction through the backend's own table. */
#include "exec/backend.h"

#include <string.h>

static const char *const mode_names[KBV_MODE_COUNT] = {
    [KBV_MODE_FP32_STRICT] = "fp32-strict",
    [KBV_MODE_FP32] = "fp32",
    [KBV_MODE_TF32] = "tf32",
    [KBV_MODE_FP64] = "fp64",
};

const char *kbv_mode_name(kbv_mode m)
{
    if ((unsigned)m >= KBV_MODE_COUNT)
        return "unknown-mode";
    return mode_names[m];
}

kbv_status kbv_mode_parse(const char *s, kbv_mode *m)
{
    if (!s)
        return kbv_fail(KBV_ERR_PARSE, "precision mode missing");
    for (int i = 0; i < KBV_MODE_COUNT; i++) {
        if (strcmp(s, mode_names[i]) == 0) {
            *m = (kbv_mode)i;
            return KBV_OK;
        }
    }
    return kbv_fail(KBV_ERR_PARSE,
                    "unknown precision mode '%s' (expected fp32-strict, fp32, tf32 or fp64)", s);
}

void kbv_backend_destroy(kbv_backend *be)
{
    if (be && be->destroy)
        be->destroy(be);
}
