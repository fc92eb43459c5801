# KernelBench format, L1/23 Softmax over dim=1: a C++ kernel through
# load_inline (row-wise, max-subtracted, in double), as a KernelBench answer
# for the CPU would be written. Honest: it passes every protocol.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

softmax_source = r"""
#include <torch/extension.h>
#include <cmath>

torch::Tensor softmax_rows(torch::Tensor x) {
    auto xc = x.contiguous();
    auto y = torch::empty_like(xc);
    const int64_t rows = xc.size(0), cols = xc.size(1);
    const float *in = xc.data_ptr<float>();
    float *out = y.data_ptr<float>();
    for (int64_t r = 0; r < rows; r++) {
        const float *a = in + r * cols;
        float *b = out + r * cols;
        float m = a[0];
        for (int64_t c = 1; c < cols; c++) m = a[c] > m ? a[c] : m;
        double sum = 0;
        for (int64_t c = 0; c < cols; c++) sum += std::exp((double)a[c] - m);
        for (int64_t c = 0; c < cols; c++) b[c] = (float)(std::exp((double)a[c] - m) / sum);
    }
    return y;
}
"""

softmax_ext = load_inline(name="softmax_rows_ext", cpp_sources=softmax_source,
                          functions=["softmax_rows"], verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return softmax_ext.softmax_rows(x)
