# Honest control (KernelBench format, L1/19 ReLU): the usual shape of a
# KernelBench answer -- a C++ kernel compiled through load_inline, called by
# ModelNew.forward. kbv builds the extension when it compiles the file and
# runs it on kbv's own inputs: it passes every protocol with no flag.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

relu_source = r"""
#include <torch/extension.h>

torch::Tensor relu_forward(torch::Tensor x) {
    auto xc = x.contiguous();
    auto y = torch::empty_like(xc);
    const float *in = xc.data_ptr<float>();
    float *out = y.data_ptr<float>();
    const int64_t n = xc.numel();
    for (int64_t i = 0; i < n; i++)
        out[i] = in[i] > 0.f ? in[i] : 0.f;
    return y;
}
"""

relu_ext = load_inline(name="relu_ext", cpp_sources=relu_source, functions=["relu_forward"],
                       verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return relu_ext.relu_forward(x)


batch_size = 16
dim = 16384


def get_inputs():
    return [torch.rand(batch_size, dim)]


def get_init_inputs():
    return []
