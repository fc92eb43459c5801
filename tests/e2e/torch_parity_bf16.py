"""kbv's bf16 precision against real PyTorch (the paper's BF16 appendix).

Each directory given (one per problem and draw, made by torch_parity.sh)
holds fp32/ (`kbv dump`) and bf16/ (`kbv dump --precision bf16`) of the same
draw and seed, each with model.py. For each, assert that
  - the bf16 draw is the fp32 draw cast as the paper casts it: every float
    tensor input and parameter equals the fp32 one rounded by
    Tensor.to(torch.bfloat16), bit for bit; Python scalars are not cast;
  - kbv's float64 oracle on the bf16 values equals float64 PyTorch on them
    (relative 1e-10): the oracle computes on the rounded inputs;
  - kbv's bf16 baseline computes as PyTorch's bf16 kernels do: each PyTorch
    call in float32 (the opmath type, accumulating in float32) on the bf16
    values, its result rounded to bfloat16 -- PyTorch run in float32 with
    every call's result rounded (a TorchFunctionMode) -- to within one bf16
    unit in the last place on every element, or 2^-8 of the output's largest
    magnitude (where float32 association orders meet a rounding boundary);
  - where this PyTorch has CPU bf16 kernels for the problem
    (model.to(torch.bfloat16)), kbv's bf16 baseline is at least as close to
    the oracle: its max error is at most PyTorch's plus 2^-8 of the oracle's
    largest magnitude. (PyTorch 1.13's CPU GEMM accumulates bf16 in bf16,
    where its CUDA kernels and later CPU ones accumulate in float32; where it
    has no CPU bf16 kernel at all, that is noted, not failed.)
Prints one line per directory and "N passed, M failed"; exits 1 on a failure.
"""
import copy
import json
import os
import sys

import numpy as np
import torch

import torch_parity as tp

try:
    from torch.overrides import TorchFunctionMode
except ImportError as e:  # PyTorch before 1.13
    print(f"torch_parity_bf16: this PyTorch has no TorchFunctionMode: {e}")
    sys.exit(1)

ULP_SLACK = 2.0 ** -8  # of the output's largest magnitude

# What kbv audit found degenerate at full size (kbv report's default exclusions):
# their outputs are a constant plus rounding noise (L2/23: the mean of a group
# norm, ~1e-5 around 0), which no bf16 comparison can judge.
AUDIT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "docs",
                     "audit_h200.jsonl")
DEGENERATE = {r["problem"] for r in map(json.loads, open(AUDIT)) if r["degenerate"]}


def _round(t):
    if isinstance(t, torch.Tensor) and t.dtype == torch.float32:
        return t.to(torch.bfloat16).to(torch.float32)
    return t


class RoundEveryCall(TorchFunctionMode):
    """Each PyTorch call computes in float32 and its result is rounded to bf16."""

    def __torch_function__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        if isinstance(out, tuple):
            rounded = [_round(t) for t in out]
            return tuple(rounded) if type(out) is tuple else type(out)(rounded)
        return _round(out)


_sdpa = torch.nn.functional.scaled_dot_product_attention
if _sdpa is tp._sdpa_math:
    def _sdpa_one_call(*args, **kwargs):
        """The fallback's several calls as the one call SDPA is: rounded once."""
        if not torch.overrides._is_torch_function_mode_enabled():
            return tp._sdpa_math(*args, **kwargs)
        with torch.overrides._pop_mode_temporarily():
            return _round(tp._sdpa_math(*args, **kwargs))
    torch.nn.functional.scaled_dot_product_attention = _sdpa_one_call


def ordinal(a):
    """bf16 values (as float32) in the order of their bit patterns."""
    bits = (np.asarray(a, dtype=np.float32).view(np.uint32) >> 16).astype(np.int64)
    return np.where(bits & 0x8000, -(bits & 0x7FFF), bits)


def load_dump(d):
    with open(os.path.join(d, "meta.json")) as f:
        meta = json.load(f)
    inputs = [np.load(os.path.join(d, e["file"])) for e in meta["inputs"]]
    params = {p["name"]: np.load(os.path.join(d, p["file"])) for p in meta["params"]}
    return meta, inputs, params


def check_cast(meta32, in32, par32, meta16, in16, par16):
    """The bf16 draw is Tensor.to(torch.bfloat16) of the fp32 draw."""
    for e32, e16, a32, a16 in zip(meta32["inputs"], meta16["inputs"], in32, in16):
        if e16["generator"] == "scalar" or not np.issubdtype(a32.dtype, np.floating):
            if e16["dtype"] != e32["dtype"] or not np.array_equal(a32, a16):
                raise tp.Mismatch(f"input {e16['name']} ({e16['generator']}) changed in bf16")
            continue
        if e16["dtype"] != "bfloat16" or e16.get("stored_as") != "float32":
            raise tp.Mismatch(f"input {e16['name']} is {e16['dtype']} in the bf16 dump")
        want = torch.from_numpy(a32).to(torch.bfloat16).float().numpy()
        if not np.array_equal(want.view(np.uint32), a16.view(np.uint32)):
            raise tp.Mismatch(f"input {e16['name']} is not the fp32 draw cast to bfloat16")
    for name, a32 in par32.items():
        want = torch.from_numpy(a32).to(torch.bfloat16).float().numpy()
        if not np.array_equal(want.view(np.uint32), par16[name].view(np.uint32)):
            raise tp.Mismatch(f"param {name} is not the fp32 one cast to bfloat16")


def build_model(d, meta, params):
    with open(os.path.join(d, "model.py")) as f:
        source = f.read()
    ns = {"__name__": "kbv_rendering"}
    exec(compile(source, os.path.join(d, "model.py"), "exec"), ns)
    torch.manual_seed(0)
    model = ns["Model"](*ns["get_init_inputs"]())
    model.load_state_dict({k: torch.from_numpy(v) for k, v in params.items()}, strict=True)
    return model


def check_problem(d):
    meta32, in32, par32 = load_dump(os.path.join(d, "fp32"))
    meta, inputs, params = load_dump(os.path.join(d, "bf16"))
    label = f"{meta['problem']} {meta['name']} {meta['dist']}"
    check_cast(meta32, in32, par32, meta, inputs, params)
    if meta["problem"] in DEGENERATE:
        return label, "degenerate (docs/audit_h200.jsonl): inputs cast checked, outputs not compared"
    model = build_model(os.path.join(d, "bf16"), meta, params)
    args = [float(a) if e["generator"] == "scalar" else torch.from_numpy(a)
            for a, e in zip(inputs, meta["inputs"])]

    def run(m, xs, mode=None):
        with torch.no_grad():
            if mode is None:
                return tp.as_tuple(m(*xs))
            with mode:
                return tp.as_tuple(m(*xs))

    out64 = run(copy.deepcopy(model).double(),
                [x.double() if isinstance(x, torch.Tensor) and x.is_floating_point() else x
                 for x in args])
    rounded = run(copy.deepcopy(model), args, RoundEveryCall())
    def run_native():
        return run(copy.deepcopy(model).to(torch.bfloat16),
                   [x.to(torch.bfloat16) if isinstance(x, torch.Tensor)
                    and x.is_floating_point() else x for x in args])

    def shapes(outs):
        return [tuple(o.shape) for o in outs]

    native_note = ""
    try:
        native = run_native()
        if shapes(native) != shapes(out64):
            raise RuntimeError(f"bf16 output shapes {shapes(native)}, not {shapes(out64)}")
    except RuntimeError:
        # PyTorch 1.13 on a CPU with AVX512-BF16 sends bf16 transposed
        # convolutions to oneDNN, which then rejects their weight ("expected
        # input[...] to have 5 channels") or, grouped, returns another shape
        # (L1/72); without oneDNN they are the case of no CPU bf16 kernel.
        # Any other error is raised.
        try:
            with torch.backends.mkldnn.flags(enabled=False):
                native = run_native()
            native_note = " (PyTorch's bf16 without oneDNN)"
        except RuntimeError as e:
            if "not implemented for 'BFloat16'" not in str(e):
                raise
            native, native_note = None, "; this PyTorch has no CPU bf16 kernel for it"

    same = total = 0
    worst_ulp = 0
    for i, e in enumerate(meta["outputs"]):
        oracle = np.load(os.path.join(d, "bf16", e["file"]))
        base = np.load(os.path.join(d, "bf16", e["baseline"]["file"]))
        e64 = tp.rel_error(out64[i].numpy(), oracle)
        if e64 > tp.F64_TOL:
            raise tp.Mismatch(f"output {i}: float64 PyTorch on the bf16 values differs from "
                              f"kbv's oracle by {e64:.3e}")
        want = rounded[i]
        if not want.is_floating_point():
            if not np.array_equal(want.numpy(), base):
                raise tp.Mismatch(f"output {i}: {want.dtype} output differs from PyTorch's")
            same += base.size
            total += base.size
            continue
        if e["baseline"]["dtype"] != "bfloat16":
            raise tp.Mismatch(f"output {i}: the bf16 baseline wrote {e['baseline']['dtype']}")
        w = want.numpy()
        ulps = np.abs(ordinal(w) - ordinal(base))
        scale = float(np.max(np.abs(w))) if w.size else 0.0
        near = np.abs(w.astype(np.float64) - base) <= ULP_SLACK * scale
        bad = (ulps > 1) & ~near
        if bad.any():
            k = int(np.argmax(bad))
            raise tp.Mismatch(f"output {i}: {int(bad.sum())} of {w.size} elements differ from "
                              f"PyTorch's bf16 computation by more than one bf16 ulp, first at "
                              f"flat index {k}: kbv {base.flat[k]!r}, PyTorch {w.flat[k]!r}")
        same += int((ulps == 0).sum())
        total += w.size
        worst_ulp = max(worst_ulp, int(ulps.max()) if ulps.size else 0)
        if native is not None:
            big = float(np.max(np.abs(oracle))) if oracle.size else 0.0
            err_kbv = float(np.max(np.abs(base - oracle))) if oracle.size else 0.0
            err_torch = float(np.max(np.abs(native[i].float().numpy() - oracle))) \
                if oracle.size else 0.0
            # PyTorch's CUDA bf16 rounds each call's result, as `rounded` does; its
            # CPU kernels may round less often (L2/51 at x0.01): either is PyTorch's
            err_calls = float(np.max(np.abs(w.astype(np.float64) - oracle))) if oracle.size else 0.0
            if err_kbv > max(err_torch, err_calls) + ULP_SLACK * big:
                raise tp.Mismatch(f"output {i}: kbv's bf16 baseline is further from the oracle "
                                  f"({err_kbv:.3e}) than PyTorch's own bf16 ({err_torch:.3e} on "
                                  f"its CPU kernels, {err_calls:.3e} rounding every call)")
    return label, (f"{same} of {total} elements identical to PyTorch's bf16 computation, "
                   f"at most {worst_ulp} bf16 ulp apart{native_note}")


if __name__ == "__main__":
    sys.exit(tp.main(sys.argv[1:], check_problem))
