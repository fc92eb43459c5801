# PyTorch's own op instead of the extension (KernelBench format, L1/19):
# the file compiles a kernel with load_inline, so it looks like a custom
# kernel, but forward returns torch.relu and never calls it. Its outputs
# are right, so allclose passes; kbv counts the calls of the extension's
# functions and fails strict: no-custom-kernel.
import torch
import torch.nn as nn
from torch.utils.cpp_extension import load_inline

relu_source = r"""
#include <torch/extension.h>

torch::Tensor relu_unused(torch::Tensor x) {
    return x.clamp_min(0);
}
"""

relu_ext = load_inline(name="relu_unused_ext", cpp_sources=relu_source, functions=["relu_unused"],
                       verbose=False)


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.relu(x)
