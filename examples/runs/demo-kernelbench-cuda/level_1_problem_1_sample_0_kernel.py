# PyTorch work on a stream of its own (KernelBench format, GPU, L1/1): the
# shape of the paper's L1/13 answer, which ran torch.matmul on a
# torch.cuda.Stream and returned at once (0.059 ms for a 4096^3 product in
# the paper's pipeline). Here the result must reach kbv's output on kbv's
# stream, so the file waits for its stream there (without the wait its
# output would be read before it is written): the timing covers the GEMM,
# and the traced pass fails the work off kbv's stream (trace-foreign-stream)
# besides no-custom-kernel.
import torch
import torch.nn as nn


class ModelNew(nn.Module):
    def __init__(self):
        super().__init__()
        self.side = torch.cuda.Stream()

    def forward(self, A, B):
        self.side.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(self.side):
            C = torch.matmul(A, B)
        torch.cuda.current_stream().wait_stream(self.side)
        return C
