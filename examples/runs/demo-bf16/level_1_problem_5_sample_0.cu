// C = A * s for a bf16 run on the GPU: A is bfloat16, s the Python float 3.14
// -- a Python number is not cast to bfloat16, so s is a 0-d float32 tensor in
// device memory -- and each product is computed in float and rounded to
// bfloat16 once, as PyTorch's mul does. Grid-stride, two elements at a time.
#include <kbv/candidate.h>
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <stdint.h>

__global__ void scale_bf16(const __nv_bfloat16 *__restrict__ a, const float *__restrict__ sp,
                           __nv_bfloat16 *__restrict__ c, long long n)
{
    const float s = *sp;
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        c[i] = __float2bfloat16_rn(__bfloat162float(a[i]) * s);
}

KBV_EXPORT int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                           const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)state; (void)params; (void)n_params;
    if (n_inputs != 2 || n_outputs != 1 || inputs[0].dtype != KBV_BF16 ||
        inputs[1].dtype != KBV_F32 || inputs[1].ndim != 0 || outputs[0].dtype != KBV_BF16)
        return 1;
    long long n = 1;
    for (int d = 0; d < inputs[0].ndim; d++) n *= inputs[0].shape[d];
    if (n == 0) return 0;
    int sms = 132;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, env->device);
    long long blocks = (n + 255) / 256;
    if (blocks > (long long)sms * 16) blocks = (long long)sms * 16;
    scale_bf16<<<(unsigned)blocks, 256, 0, (cudaStream_t)env->stream>>>(
        (const __nv_bfloat16 *)inputs[0].data, (const float *)inputs[1].data,
        (__nv_bfloat16 *)outputs[0].data, n);
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
