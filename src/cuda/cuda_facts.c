/* The CUDA backend's device facts (exec/backend.h), read from the runtime
 * by ordinal: no backend, stream or cuBLAS handle is made for them. */
#include <stdio.h>
#include <string.h>

#include <cuda_runtime_api.h>

#include "exec/backend.h"

#define FLUSH_BYTES_UNKNOWN_L2 ((size_t)256 << 20)   /* above 2x the L2 of every current GPU */

/* An attribute that is only informative: 0 when it cannot be read. */
static int attribute_or_zero(enum cudaDeviceAttr attr, int device)
{
    int v = 0;
    if (cudaDeviceGetAttribute(&v, attr, device) != cudaSuccess) {
        (void)cudaGetLastError();
        return 0;
    }
    return v;
}

kbv_status kbv_cuda_device_facts(int device, kbv_device_facts *out)
{
    memset(out, 0, sizeof *out);
    out->device = device;
    struct cudaDeviceProp prop;
    cudaError_t err = cudaGetDeviceProperties(&prop, device);
    if (err != cudaSuccess)
        return kbv_fail(KBV_ERR_CUDA, "cudaGetDeviceProperties(%d): %s", device,
                        cudaGetErrorString(err));
    snprintf(out->name, sizeof out->name, "%s", prop.name);
    err = cudaRuntimeGetVersion(&out->runtime_version);
    if (err != cudaSuccess)
        return kbv_fail(KBV_ERR_CUDA, "cudaRuntimeGetVersion: %s", cudaGetErrorString(err));
    if (cudaDeviceGetAttribute(&out->cc_major, cudaDevAttrComputeCapabilityMajor, device) !=
            cudaSuccess ||
        cudaDeviceGetAttribute(&out->cc_minor, cudaDevAttrComputeCapabilityMinor, device) !=
            cudaSuccess)
        return kbv_fail(KBV_ERR_CUDA, "compute capability of GPU %d", device);
    out->sm_count = prop.multiProcessorCount;
    int l2 = attribute_or_zero(cudaDevAttrL2CacheSize, device);
    out->cache_bytes = l2 > 0 ? (size_t)l2 : 0;
    out->flush_bytes = l2 > 0 ? 2 * (size_t)l2 : FLUSH_BYTES_UNKNOWN_L2;
    out->sm_clock_khz = attribute_or_zero(cudaDevAttrClockRate, device);
    out->mem_clock_khz = attribute_or_zero(cudaDevAttrMemoryClockRate, device);
    if (cudaDriverGetVersion(&out->driver_version) != cudaSuccess) {
        (void)cudaGetLastError();
        out->driver_version = 0;
    }
    return KBV_OK;
}

kbv_status kbv_cuda_device_count(int *n)
{
    *n = 0;
    int c = 0;
    cudaError_t err = cudaGetDeviceCount(&c);
    if (err != cudaSuccess)
        return kbv_fail(KBV_ERR_CUDA, "cudaGetDeviceCount: %s", cudaGetErrorString(err));
    *n = c;
    return KBV_OK;
}
