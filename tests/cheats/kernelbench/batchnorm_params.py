# Parameters by state_dict name (KernelBench format, L1/33 BatchNorm):
# ModelNew is nn.BatchNorm2d, whose weight, bias and running statistics
# have the problem's state_dict names (bn.weight, ...). kbv loads its own
# parameters into them, so the strict draws with redrawn parameters (D5)
# pass only because of that; correct everywhere, it fails strict for
# running PyTorch's op alone (no-custom-kernel).
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, num_features):
        super().__init__()
        self.bn = nn.BatchNorm2d(num_features)

    def forward(self, x):
        return self.bn(x)
