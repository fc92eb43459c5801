# Work beside the call on a thread (KernelBench format, L1/19): forward
# hands part of its work to a Python thread it keeps running, so what the
# timer sees is less than what the call costs. The runner counts Python
# threads alive beyond those at load (strict: python-thread).
import threading
import queue

import torch
import torch.nn as nn

jobs = queue.Queue()


def worker():
    while True:
        x, out, done = jobs.get()
        out.copy_(torch.relu(x))
        done.set()


threading.Thread(target=worker, daemon=True).start()


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()

    def forward(self, x):
        out = torch.empty_like(x)
        done = threading.Event()
        jobs.put((x, out, done))
        done.wait()
        return out
