"""Why does TF32 fail the paper's gate on Mamba-2 (L3/48, L3/49)?

`kbv audit` finds the tf32 baseline failing allclose(atol = rtol = 1e-3)
against fp32 on every judged draw of L3/48 and L3/49 at full size. This runs
KernelBench's module on the CPU in float64 on one chunk of the batch (A, B and
C are per batch element, so a chunk is the full-size model on fewer
elements), once as it is and once with every einsum operand rounded to TF32
(10-bit mantissa, to nearest even: what the tensor cores read; the arithmetic
stays float64), and prints how many elements fail the gate against the float64
output, how large the outputs are, and the failing elements' median magnitude
and relative error. The draw is torch's own (torch.manual_seed), not kbv's.

Usage: mamba_tf32_rounding.py MODULES_DIR [--chunk N] [--seed S]
(MODULES_DIR is tests/data/kernelbench: its einops shim is used where einops
is not installed.)
"""
import glob
import os
import sys

import torch


def to_tf32(t):
    bits = t.float().view(torch.int32)
    bits = (bits + 0x0FFF + ((bits >> 13) & 1)) & ~0x1FFF
    return bits.view(torch.float32).double()


def main():
    args = sys.argv[1:]
    opts = {"--chunk": 128, "--seed": 1}
    for name in list(opts):
        if name in args:
            k = args.index(name)
            opts[name] = int(args[k + 1])
            del args[k:k + 2]
    modules_dir = args[0]
    sys.path.append(modules_dir)  # the einops shim, after an installed einops
    torch.set_grad_enabled(False)
    einsum = torch.einsum

    def einsum_tf32(eq, *operands):
        return einsum(eq, *[to_tf32(o) for o in operands])

    for pid in (48, 49):
        path = glob.glob(os.path.join(modules_dir, "level3", f"{pid}_*.py"))[0]
        ns = {"__name__": "kb_module"}
        exec(compile(open(path).read(), path, "exec"), ns)
        chunk = opts["--chunk"]
        torch.manual_seed(opts["--seed"])
        model = ns["Model"](chunk, *ns["get_init_inputs"]()[1:]).double()
        x = torch.rand(chunk, ns["seq_length"], ns["n_heads"], ns["d_head"], dtype=torch.float64)
        ref = model(x)
        torch.einsum = einsum_tf32
        try:
            out = model(x)
        finally:
            torch.einsum = einsum
        size = ref.abs()
        bad = (out - ref).abs() > 1e-3 + 1e-3 * size
        q = torch.quantile(size.flatten()[:10_000_000].float(),
                           torch.tensor([0.5, 0.9, 0.99])).tolist()
        print(f"L3/{pid} (batch {chunk} of {ns['batch_size']}, seed {opts['--seed']}): "
              f"{100 * bad.double().mean().item():.1f}% of {ref.numel()} elements fail "
              f"allclose(1e-3) with TF32-rounded einsum operands; |output| median {q[0]:.3g}, "
              f"90% {q[1]:.3g}, 99% {q[2]:.3g}, max {size.max().item():.3g}; failing elements: "
              f"median |output| {size[bad].median().item():.3g}, median relative error "
              f"{((out - ref).abs()[bad] / size[bad]).median().item():.3g}", flush=True)


if __name__ == "__main__":
    main()
