# KernelBench format, L1/23 Softmax over dim=1, for the GPU: a CUDA kernel
# through load_inline, one block per row (max, then the sum of exponentials,
# then the normalised values), launched on PyTorch's current stream. Honest:
# it passes every protocol.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

template <typename Op>
__device__ float block_reduce(float v, float *shared, Op op) {
    for (int o = 16; o > 0; o >>= 1) v = op(v, __shfl_xor_sync(0xffffffffu, v, o));
    if ((threadIdx.x & 31) == 0) shared[threadIdx.x >> 5] = v;
    __syncthreads();
    if (threadIdx.x < 32) {
        v = threadIdx.x < (blockDim.x >> 5) ? shared[threadIdx.x] : shared[0];
        for (int o = 16; o > 0; o >>= 1) v = op(v, __shfl_xor_sync(0xffffffffu, v, o));
        if (threadIdx.x == 0) shared[0] = v;
    }
    __syncthreads();
    v = shared[0];
    __syncthreads();
    return v;
}

struct Max { __device__ float operator()(float a, float b) const { return fmaxf(a, b); } };
struct Sum { __device__ float operator()(float a, float b) const { return a + b; } };

__global__ void softmax_rows(const float *x, float *y, long long cols) {
    __shared__ float shared[32];
    const float *a = x + blockIdx.x * cols;
    float *b = y + blockIdx.x * cols;
    float m = -INFINITY;
    for (long long c = threadIdx.x; c < cols; c += blockDim.x) m = fmaxf(m, a[c]);
    m = block_reduce(m, shared, Max());
    float s = 0.f;
    for (long long c = threadIdx.x; c < cols; c += blockDim.x) s += __expf(a[c] - m);
    s = block_reduce(s, shared, Sum());
    const float inv = 1.f / s;
    for (long long c = threadIdx.x; c < cols; c += blockDim.x) b[c] = __expf(a[c] - m) * inv;
}

torch::Tensor softmax_cuda(torch::Tensor x) {
    auto xc = x.contiguous();
    auto y = torch::empty_like(xc);
    softmax_rows<<<(unsigned)xc.size(0), 1024, 0, at::cuda::getCurrentCUDAStream()>>>(
        xc.data_ptr<float>(), y.data_ptr<float>(), xc.size(1));
    return y;
}
"""
cpp_source = "torch::Tensor softmax_cuda(torch::Tensor x);"

softmax_ext = load_inline(name="softmax_rows_cuda_ext", cpp_sources=cpp_source,
                          cuda_sources=cuda_source, functions=["softmax_cuda"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return softmax_ext.softmax_cuda(x)
