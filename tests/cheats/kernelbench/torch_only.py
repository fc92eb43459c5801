# No custom kernel at all (KernelBench format, L1/19): ModelNew is the
# reference written again in PyTorch. Correct and as fast as PyTorch, so it
# passes standard and verified; strict fails it: no-custom-kernel (it loads
# no compiled extension).
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.relu(x)
