// ReLU for a bf16 run (kbv eval --precision bf16 --device cuda): the tensors
// are bfloat16 (KBV_BF16); any other dtype is refused. ReLU of a bf16 value
// is exact: one pass over the bits, 8 elements per 16-byte load, grid-stride,
// a scalar kernel for the tail (or unaligned buffers).
#include <kbv/candidate.h>
#include <cuda_runtime.h>
#include <stdint.h>

__device__ __forceinline__ uint32_t relu2(uint32_t w)   // two bf16 in one word
{
    uint32_t out = 0;
#pragma unroll
    for (int h = 0; h < 2; h++) {
        uint32_t v = (w >> (16 * h)) & 0xFFFFu;
        bool nan = (v & 0x7F80u) == 0x7F80u && (v & 0x7Fu);
        out |= ((v & 0x8000u) && !nan ? 0u : v) << (16 * h);   // negatives to +0; NaN passes
    }
    return out;
}

__global__ void relu_vec8(const uint4 *__restrict__ x, uint4 *__restrict__ y, long long n8)
{
    for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n8;
         i += (long long)gridDim.x * blockDim.x) {
        uint4 v = x[i];
        y[i] = make_uint4(relu2(v.x), relu2(v.y), relu2(v.z), relu2(v.w));
    }
}

__global__ void relu_tail(const uint16_t *x, uint16_t *y, long long start, long long n)
{
    for (long long i = start + blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n;
         i += (long long)gridDim.x * blockDim.x)
        y[i] = (uint16_t)relu2(x[i]);
}

KBV_EXPORT int kbv_forward(const kbv_env *env, void *state, const kbv_tensor *inputs, int n_inputs,
                           const kbv_tensor *params, int n_params, kbv_tensor *outputs, int n_outputs)
{
    (void)state; (void)params; (void)n_params;
    if (n_inputs != 1 || n_outputs != 1 || inputs[0].dtype != KBV_BF16 ||
        outputs[0].dtype != KBV_BF16)
        return 1;
    long long n = 1;
    for (int d = 0; d < inputs[0].ndim; d++) n *= inputs[0].shape[d];
    const uint16_t *x = (const uint16_t *)inputs[0].data;
    uint16_t *y = (uint16_t *)outputs[0].data;
    cudaStream_t s = (cudaStream_t)env->stream;
    int sms = 132;
    cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, env->device);
    const long long max_blocks = (long long)sms * 16;
    bool aligned = (((uintptr_t)x | (uintptr_t)y) & 15) == 0;
    long long n8 = aligned ? n / 8 : 0;
    if (n8 > 0) {
        long long blocks = (n8 + 255) / 256;
        if (blocks > max_blocks) blocks = max_blocks;
        relu_vec8<<<(unsigned)blocks, 256, 0, s>>>((const uint4 *)x, (uint4 *)y, n8);
    }
    long long rest = n - n8 * 8;
    if (rest > 0) {
        long long blocks = (rest + 255) / 256;
        if (blocks > max_blocks) blocks = max_blocks;
        relu_tail<<<(unsigned)blocks, 256, 0, s>>>(x, y, n8 * 8, n);
    }
    return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
