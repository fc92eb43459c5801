# Patching torch itself (KernelBench format, L1/19): the file replaces
# torch.cuda.synchronize and torch.cuda.Event.elapsed_time, which a
# harness timing in Python relies on, and torch.nn.functional.relu, which a
# reference module in the same interpreter would call. kbv times and judges
# outside PyTorch, so none of it changes a verdict; the runner compares
# torch's callables with a snapshot taken before the file ran (strict:
# torch-patched).
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.cuda.synchronize = lambda *args, **kwargs: None
torch.cuda.Event.elapsed_time = lambda self, end: 1e-3
F.relu = lambda x, inplace=False: x


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        return torch.clamp_min(x, 0)
