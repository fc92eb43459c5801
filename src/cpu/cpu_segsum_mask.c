/* Mamba-2's segsum mask on the CPU: ~tril(ones(T, T, bool)), true strictly
 * above the diagonal. */
#include "cpu/cpu_ops.h"

kbv_status kbv_cpu_segsum_mask(kbv_backend *be, const kbv_node *node, const kbv_tensor *args,
                               kbv_tensor *out)
{
    (void)be;
    (void)node;
    const int64_t t = args[0].ndim > 0 ? args[0].shape[args[0].ndim - 1] : 0;
    if (out->dtype != KBV_BOOL || out->ndim != 2 || out->shape[0] != t || out->shape[1] != t)
        return kbv_fail(KBV_ERR_INVALID, "segsum_mask: the output is not a bool [%lld, %lld]",
                        (long long)t, (long long)t);
    unsigned char *m = out->data;
    for (int64_t i = 0; i < t; i++)
        for (int64_t j = 0; j < t; j++)
            m[i * out->stride[0] + j * out->stride[1]] = j > i;
    return KBV_OK;
}
