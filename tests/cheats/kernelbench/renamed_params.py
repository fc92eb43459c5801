# Parameters under other names (KernelBench format, L1/33): ModelNew keeps
# the weights as norm.* where the problem has bn.*. kbv cannot load its
# parameters into it (the paper's harness seeds construction instead, so a
# module with other names would run on its own initial values): every
# protocol fails, saying which name is missing.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self, num_features):
        super().__init__()
        self.norm = nn.BatchNorm2d(num_features)

    def forward(self, x):
        return self.norm(x)
