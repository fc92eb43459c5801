/* Built only without CUDA: the GPU backend is absent and says so. */
#include "exec/backend.h"

kbv_status kbv_cuda_backend_create(int device, kbv_mode mode, kbv_backend **out)
{
    (void)device;
    (void)mode;
    *out = NULL;
    return kbv_fail(KBV_ERR_UNSUPPORTED, "this kbv was built without CUDA");
}

bool kbv_cuda_available(void) { return false; }
