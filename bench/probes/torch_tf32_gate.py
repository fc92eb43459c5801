"""Does PyTorch's own TF32 output pass the paper's correctness gate?

The paper (facebookresearch/kernel_bench_verified, src/eval.py) times against
PyTorch with TF32 allowed but judges correctness with allclose(atol = rtol =
1e-3) against PyTorch's fp32 output. This runs KernelBench's own modules on
the GPU at full size, once with TF32 off and once with it on (matmul and
cuDNN), on the paper's base draws (seeds 1..5) and its D2 (x3), and counts the
draws where the TF32 output fails that gate -- the same check `kbv audit`
makes of kbv's tf32 baseline, made of PyTorch's.

Usage: torch_tf32_gate.py MODULES_DIR PROBLEM... (names like L2/12)
Prints one line per problem: "L2/12 base 1/5 fail, D2 1/1 fail, max|diff| ...".
"""
import glob
import os
import sys

import torch


def load(modules_dir, key):
    level, pid = key[1:].split("/")
    path = glob.glob(os.path.join(modules_dir, f"level{level}", f"{pid}_*.py"))[0]
    ns = {"__name__": "kb_module"}
    exec(compile(open(path).read(), path, "exec"), ns)
    return ns


def run(ns, seed, scale, tf32):
    torch.backends.cuda.matmul.allow_tf32 = tf32
    torch.backends.cudnn.allow_tf32 = tf32
    torch.manual_seed(seed)
    model = ns["Model"](*ns["get_init_inputs"]()).cuda()
    torch.manual_seed(seed + 1000)
    inputs = [x.cuda() * scale if torch.is_tensor(x) and x.is_floating_point() else
              (x.cuda() if torch.is_tensor(x) else x) for x in ns["get_inputs"]()]
    with torch.no_grad():
        return model(*inputs)


def main():
    modules_dir, keys = sys.argv[1], sys.argv[2:]
    for key in keys:
        ns = load(modules_dir, key)
        cells, worst = [], 0.0
        for label, seeds, scale in (("base", range(1, 6), 1.0), ("D2", [1], 3.0)):
            failed = 0
            for seed in seeds:
                ref = run(ns, seed, scale, False)
                out = run(ns, seed, scale, True)
                if not torch.isfinite(ref).all():
                    continue
                worst = max(worst, (out - ref).abs().max().item())
                failed += not torch.allclose(out, ref, atol=1e-3, rtol=1e-3)
                del ref, out
                torch.cuda.empty_cache()
            cells.append(f"{label} {failed}/{len(seeds)} fail")
        print(f"{key} {', '.join(cells)}, max|tf32 - fp32| {worst:.3g}", flush=True)


if __name__ == "__main__":
    main()
