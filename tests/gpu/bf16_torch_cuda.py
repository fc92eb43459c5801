"""kbv's CUDA bf16 baselines against PyTorch's own CUDA bf16, on the GPU.

Each directory given holds fp32/ and bf16/ dumps of one draw
(`kbv dump --device cuda [--precision bf16]`, made by bf16_torch_cuda.sh)
with model.py. For each, assert that
  - the bf16 draw is the fp32 draw cast by Tensor.to(torch.bfloat16), bit for
    bit (the CUDA fill rounds as the CPU one does);
  - the oracle equals float64 PyTorch on the rounded values (relative 1e-10);
  - PyTorch's CUDA bf16 output (model.to(torch.bfloat16) on bf16 inputs, the
    paper's reference in a bf16 run) passes the bf16 gate against kbv's bf16
    baseline: torch.allclose(atol=rtol=1e-2), both ways round, so the
    reference kbv judges against is one PyTorch's own output would pass;
  - kbv's baseline is about as accurate as PyTorch's: its max error against
    the oracle is at most twice PyTorch's plus 2^-8 of the oracle's largest
    magnitude.
Each line also says how many elements are bit-identical to PyTorch's and the
largest distance in bf16 ulps. Prints "N passed, M failed"; exits 1 on a
failure.
"""
import copy
import os
import sys

import numpy as np
import torch

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "e2e"))
import torch_parity as tp  # noqa: E402
import torch_parity_bf16 as tb  # noqa: E402

TOL = 1e-2  # the paper's bf16 tolerance


def check_problem(d):
    meta32, in32, par32 = tb.load_dump(os.path.join(d, "fp32"))
    meta, inputs, params = tb.load_dump(os.path.join(d, "bf16"))
    label = f"{meta['problem']} {meta['name']} {meta['dist']}"
    tb.check_cast(meta32, in32, par32, meta, inputs, params)
    model = tb.build_model(os.path.join(d, "bf16"), meta, params)
    args = [float(a) if e["generator"] == "scalar" else torch.from_numpy(a)
            for a, e in zip(inputs, meta["inputs"])]
    with torch.no_grad():
        out64 = tp.as_tuple(copy.deepcopy(model).double().cuda()(
            *[x.double().cuda() if isinstance(x, torch.Tensor) and x.is_floating_point()
              else x.cuda() if isinstance(x, torch.Tensor) else x for x in args]))
        native = tp.as_tuple(copy.deepcopy(model).to(torch.bfloat16).cuda()(
            *[x.to(torch.bfloat16).cuda() if isinstance(x, torch.Tensor) and x.is_floating_point()
              else x.cuda() if isinstance(x, torch.Tensor) else x for x in args]))
    same = total = worst = 0
    notes = []
    for i, e in enumerate(meta["outputs"]):
        oracle = np.load(os.path.join(d, "bf16", e["file"]))
        base = np.load(os.path.join(d, "bf16", e["baseline"]["file"]))
        e64 = tp.rel_error(out64[i].cpu().numpy(), oracle)
        if e64 > tp.F64_TOL:
            raise tp.Mismatch(f"output {i}: float64 PyTorch differs from kbv's oracle by {e64:.3e}")
        t = native[i].cpu()
        if not t.is_floating_point():
            if not np.array_equal(t.numpy(), base):
                raise tp.Mismatch(f"output {i}: {t.dtype} output differs from PyTorch's")
            same += base.size
            total += base.size
            continue
        w = t.float().numpy()
        tw, tb_ = torch.from_numpy(w), torch.from_numpy(base.astype(np.float32))
        base = np.asarray(base, dtype=np.float32).reshape(w.shape)
        oracle = np.asarray(oracle, dtype=np.float64).reshape(w.shape)
        finite = np.isfinite(base) & np.isfinite(w)
        if not np.array_equal(np.isfinite(base), np.isfinite(w)):
            notes.append(f"output {i}: {int((np.isfinite(base) != np.isfinite(w)).sum())} "
                         "elements finite on one side only")
        fm = torch.from_numpy(np.asarray(finite))
        if not (torch.allclose(tw[fm], tb_[fm], atol=TOL, rtol=TOL) and
                torch.allclose(tb_[fm], tw[fm], atol=TOL, rtol=TOL)):
            diff = np.abs(w.astype(np.float64) - base) - TOL * np.abs(base)
            k = int(np.argmax(np.where(finite, diff, -np.inf)))
            raise tp.Mismatch(f"output {i}: PyTorch's CUDA bf16 output fails allclose 1e-2 "
                              f"against kbv's bf16 baseline, worst at flat {k}: kbv "
                              f"{base.flat[k]!r}, PyTorch {w.flat[k]!r}")
        big = float(np.max(np.abs(oracle[np.isfinite(oracle)]), initial=0.0))
        ok = finite & np.isfinite(oracle)
        err_kbv = float(np.max(np.abs(base[ok] - oracle[ok]), initial=0.0))
        err_torch = float(np.max(np.abs(w[ok].astype(np.float64) - oracle[ok]), initial=0.0))
        if err_kbv > 2 * err_torch + tb.ULP_SLACK * big:
            raise tp.Mismatch(f"output {i}: kbv's bf16 baseline max error {err_kbv:.3e} against "
                              f"the oracle, PyTorch's {err_torch:.3e}")
        ulps = np.abs(tb.ordinal(w) - tb.ordinal(base))
        same += int((ulps == 0).sum())
        total += w.size
        worst = max(worst, int(ulps[finite].max()) if finite.any() else 0)
        notes.append(f"max err kbv {err_kbv:.2e} torch {err_torch:.2e}")
    return label, (f"{same} of {total} elements identical to PyTorch's CUDA bf16, at most "
                   f"{worst} bf16 ulp apart; " + "; ".join(notes))


if __name__ == "__main__":
    if not torch.cuda.is_available():
        print("bf16_torch_cuda: no CUDA device for PyTorch")
        sys.exit(1)
    sys.exit(tp.main(sys.argv[1:], check_problem))
