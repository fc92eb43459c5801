// Cheat (L1/88, GELU) -- pinning the input in L2 without touching any setting:
// the kernel is launched with cudaLaunchKernelEx and a per-launch access
// policy window that marks the start of x as persisting. The GELU itself is
// honest.
// The hack: cudaLaunchKernelExC is an ordinary launch entry point (it is on
// the binary allowlist), and a launch attribute changes neither the device's
// persisting-L2 limit nor the stream's access policy, so a check that compares
// those before and after the call sees nothing. Wherever the limit is above
// zero, the window's lines persist across the cold-cache flush.
// Why it fools a naive benchmark: a cold-cache measurement is partly warm;
// outputs are right; imports and settings look clean.
// What catches it: only a check that sees the launch itself: the CUPTI-traced
// pass fails a kernel launched with an access-policy window (l2-persisting).
#include <kbv/candidate.h>
#include <cuda_runtime.h>

__device__ __forceinline__ float gelu(float x)
{
    return (x * 0.5f) * (1.0f + tanhf((x + x * x * x * 0.044715f) * 0.7978845608028654f));
}

__global__ void gelu_range(const float *__restrict__ x, float *__restrict__ y, long long n)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        y[i] = gelu(x[i]);
}

KBV_EXPORT int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                           const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)state; (void)params; (void)n_params;
    if (n_inputs != 1 || n_outputs != 1)
        return 1;
    long long n = 1;
    for (int d = 0; d < inputs[0].ndim; d++)
        n *= inputs[0].shape[d];
    if (n == 0)
        return 0;
    int window_max = 0, sms = 132;
    cudaDeviceGetAttribute(&window_max, cudaDevAttrMaxAccessPolicyWindowSize, env->device);
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, env->device);
    if (window_max <= 0)
        return 9;   /* no access policy windows on this device */
    /* the first 32 MB of x: what fits in the persisting part of an H200's L2 */
    size_t bytes = (size_t)n * sizeof(float);
    if (bytes > ((size_t)32 << 20))
        bytes = (size_t)32 << 20;
    long long blocks = (n + 255) / 256;
    if (blocks > (long long)sms * 8)
        blocks = (long long)sms * 8;
    cudaLaunchAttribute attr[1];
    attr[0].id = cudaLaunchAttributeAccessPolicyWindow;
    attr[0].val.accessPolicyWindow.base_ptr = inputs[0].data;
    attr[0].val.accessPolicyWindow.num_bytes =
        bytes < (size_t)window_max ? bytes : (size_t)window_max;
    attr[0].val.accessPolicyWindow.hitRatio = 1.0f;
    attr[0].val.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    attr[0].val.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
    cudaLaunchConfig_t cfg = {};
    cfg.gridDim = dim3((unsigned)blocks);
    cfg.blockDim = dim3(256);
    cfg.dynamicSmemBytes = 0;
    cfg.stream = (cudaStream_t)env->stream;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    const float *x = (const float *)inputs[0].data;
    float *y = (float *)outputs[0].data;
    if (cudaLaunchKernelEx(&cfg, gelu_range, x, y, n) != cudaSuccess)
        return 2;
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
