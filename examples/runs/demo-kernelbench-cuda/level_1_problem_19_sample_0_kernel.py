# Honest control (KernelBench format, GPU, L1/19): a CUDA kernel through
# load_inline launched on PyTorch's current stream, which kbv makes its own
# (torch.cuda.ExternalStream). Passes every protocol with no flag.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

cuda_source = r"""
#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

__global__ void relu_kernel(const float *x, float *y, long long n) {
    long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
    if (i < n) y[i] = x[i] > 0.f ? x[i] : 0.f;
}

torch::Tensor relu_cuda(torch::Tensor x) {
    auto y = torch::empty_like(x);
    long long n = x.numel();
    relu_kernel<<<(unsigned)((n + 255) / 256), 256, 0, at::cuda::getCurrentCUDAStream()>>>(
        x.data_ptr<float>(), y.data_ptr<float>(), n);
    return y;
}
"""
cpp_source = "torch::Tensor relu_cuda(torch::Tensor x);"

relu_ext = load_inline(name="relu_cuda_stream_ext", cpp_sources=cpp_source,
                       cuda_sources=cuda_source, functions=["relu_cuda"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return relu_ext.relu_cuda(x)
