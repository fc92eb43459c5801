# The ReLU "fast path" of published KernelBench answers (L1/19): forward
# returns torch.relu_(x), overwriting its input and never running a kernel
# of its own. The returned values are right, so a harness that compares
# outputs alone passes it; kbv hashes every input after each call (strict:
# input 'x' modified) and counts the extension's calls (no-custom-kernel).
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.relu_(x)
