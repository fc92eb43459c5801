# The file's own sizes (KernelBench format, L1/19): it redefines the
# problem's size constants and get_inputs, and its forward works only at
# them (a view to its own batch_size x dim). A harness that executes the
# file where its inputs come from times it on its own small inputs; kbv
# builds every input from its own definition of the problem, so the view
# fails on the real shapes and every protocol fails.
import torch
import torch.nn as nn

batch_size = 2
dim = 8


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.relu(x.view(batch_size, dim))


def get_inputs():
    return [torch.rand(batch_size, dim)]


def get_init_inputs():
    return []
