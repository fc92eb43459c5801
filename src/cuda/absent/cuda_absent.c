/* Built only without CUDA: the GPU backend is absent and says so. */
#include "exec/backend.h"

#include <string.h>

kbv_status kbv_cuda_backend_create(int device, kbv_mode mode, kbv_backend **out)
{
    (void)device;
    (void)mode;
    *out = NULL;
    return kbv_fail(KBV_ERR_UNSUPPORTED, "this kbv was built without CUDA");
}

bool kbv_cuda_available(void) { return false; }

kbv_status kbv_cuda_device_facts(int device, kbv_device_facts *out)
{
    memset(out, 0, sizeof *out);
    out->device = device;
    return kbv_fail(KBV_ERR_UNSUPPORTED, "GPU %d: this kbv was built without CUDA", device);
}

kbv_status kbv_cuda_device_count(int *n)
{
    *n = 0;
    return KBV_OK;
}
