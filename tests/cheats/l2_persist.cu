// Cheat (L1/88, GELU) -- pinning the input in L2: raise the device's
// persisting-L2 limit to its maximum and give the harness stream an access
// policy window that marks the start of x as persisting. Both settings are
// left in place after the call. The GELU itself is honest.
// The hack: lines marked persisting survive the cache flush a cold-cache
// protocol does before each timed trial, so part of the input is served from
// L2 every time; the settings also outlive the call and change the timing of
// whatever runs next on that stream or device.
// Why it fools a naive benchmark: a cold-cache measurement is silently warm
// for the pinned bytes; outputs are right.
// What catches it: cudaDeviceSetLimit and cudaStreamSetAttribute are not on
// the binary allowlist (binary-allowlist), and the runner reads the
// persisting-L2 limit and the stream's access policy after every call, undoes
// them and counts the call (l2-persisting).
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
    cudaStream_t s = (cudaStream_t)env->stream;
    int persist_max = 0, window_max = 0;
    cudaDeviceGetAttribute(&persist_max, cudaDevAttrMaxPersistingL2CacheSize, env->device);
    cudaDeviceGetAttribute(&window_max, cudaDevAttrMaxAccessPolicyWindowSize, env->device);
    if (persist_max <= 0 || window_max <= 0)
        return 9;   /* no persisting L2 on this device: the hack cannot be tried */
    cudaDeviceSetLimit(cudaLimitPersistingL2CacheSize, (size_t)persist_max);
    /* the first 32 MB of x: what fits in the persisting part of an H200's L2 */
    size_t bytes = (size_t)n * sizeof(float);
    if (bytes > ((size_t)32 << 20))
        bytes = (size_t)32 << 20;
    cudaStreamAttrValue attr = {};
    attr.accessPolicyWindow.base_ptr = inputs[0].data;
    attr.accessPolicyWindow.num_bytes = bytes < (size_t)window_max ? bytes : (size_t)window_max;
    attr.accessPolicyWindow.hitRatio = 1.0f;
    attr.accessPolicyWindow.hitProp = cudaAccessPropertyPersisting;
    attr.accessPolicyWindow.missProp = cudaAccessPropertyStreaming;
    cudaStreamSetAttribute(s, cudaStreamAttributeAccessPolicyWindow, &attr);
    cudaGetLastError();   /* a refused setting is not this call's error */
    int sms = 132;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, env->device);
    long long blocks = (n + 255) / 256;
    if (blocks > (long long)sms * 8)
        blocks = (long long)sms * 8;
    if (blocks > 0)
        gelu_range<<<(unsigned)blocks, 256, 0, s>>>((const float *)inputs[0].data,
                                                    (float *)outputs[0].data, n);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
