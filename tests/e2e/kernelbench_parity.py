"""Checks kbv's problem definitions against KernelBench's own modules.

Usage: kernelbench_parity.py MODULES_DIR DIR...

MODULES_DIR holds KernelBench's problem files by level (level2/<name>.py,
tests/data/kernelbench). Each DIR is one problem's dump from torch_parity.sh
(`kbv dump --small`, model.py = `kbv show --torch --small`, plus
model_full.py = `kbv show --torch` at the full size). For every problem whose
module is there:
  - the module's get_init_inputs() equals kbv's at the full size, value and
    Python type (ints stay ints, tuples tuples);
  - the module's get_inputs() calls the same generators with the same shapes
    and dtypes as kbv's at the full size (run on the meta device: nothing is
    allocated);
  - the module's Model, built from kbv's small get_init_inputs(), has kbv's
    params as its state_dict (in order; BatchNorm's num_batches_tracked aside,
    which kbv does not list), the buffers its __init__ computes equal to kbv's
    (the dump marks them "computed"); with them loaded, its forward() on the dumped
    inputs matches kbv's float64 oracle as torch_parity.py's rendering must
    (float64 to 1e-10, float32 to 1e-4 relative).
Every problem of level 2 and above must have its module; every module must
have its problem. Level-1 problems without a module are counted, not checked.
Prints one line per problem and "N passed, M failed"; exits 1 on a failure.
"""
import contextlib
import json
import os
import sys
import types

from torch_parity import F64_TOL, Mismatch, as_tuple, dtype_name, f32_tol_for, rel_error

import numpy as np
import torch

GENERATORS = ("rand", "randn", "randint", "rand_like", "randn_like")
NOT_LISTED = ("num_batches_tracked",)  # BatchNorm's step counter: no effect on forward()


@contextlib.contextmanager
def default_dtype(dtype):
    """torch's default dtype set to dtype for the block."""
    saved = torch.get_default_dtype()
    torch.set_default_dtype(dtype)
    try:
        yield
    finally:
        torch.set_default_dtype(saved)


def load_source(path, name):
    """exec a module file; its namespace."""
    with open(path) as f:
        source = f.read()
    ns = {"__name__": name, "__file__": path}
    exec(compile(source, path, "exec"), ns)
    return ns


class RecordingTorch(types.ModuleType):
    """torch, but its random generators record their calls and return meta
    tensors (shape and dtype, no storage)."""

    def __init__(self):
        super().__init__("torch")
        self.calls = []

    def __getattr__(self, attr):
        real = getattr(torch, attr)
        if attr not in GENERATORS:
            return real

        def record(*args, **kwargs):
            kwargs = dict(kwargs)
            kwargs["device"] = "meta"
            out = real(*args, **kwargs)
            self.calls.append((attr, tuple(out.shape), dtype_name(out)))
            return out
        return record


def drawn(ns):
    """get_inputs() of a namespace, on the meta device: its generator calls and
    what it returns (shape and dtype of tensors, Python scalars as they are)."""
    recorder = RecordingTorch()
    saved = ns.get("torch")
    ns["torch"] = recorder
    try:
        values = ns["get_inputs"]()
    finally:
        ns["torch"] = saved
    returned = [(tuple(v.shape), dtype_name(v)) if isinstance(v, torch.Tensor) else v
                for v in values]
    return recorder.calls, returned


def same_value(a, b):
    """Equal in value and Python type, tuples and lists element by element."""
    if type(a) is not type(b):
        return False
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b))
    return a == b


def check_full_interface(module_ns, kbv_full_ns):
    got, want = module_ns["get_init_inputs"](), kbv_full_ns["get_init_inputs"]()
    if not same_value(list(got), list(want)):
        raise Mismatch(f"get_init_inputs(): KernelBench {got!r}, kbv {want!r}")
    calls, returned = drawn(module_ns)
    kcalls, kreturned = drawn(kbv_full_ns)
    if calls != kcalls or returned != kreturned:
        raise Mismatch(f"get_inputs(): KernelBench draws {calls} -> {returned}, kbv "
                       f"{kcalls} -> {kreturned}")


def check_forward(d, meta, module_ns, kbv_small_ns):
    # The module's size constants at kbv's small sizes: an __init__ that reads
    # one (L3/33's self.hidden = torch.randn((batch_size, hidden_size))) builds
    # the model at the size it runs at.
    for name in meta.get("dims", {}):
        if name in module_ns and name in kbv_small_ns:
            module_ns[name] = kbv_small_ns[name]
    torch.manual_seed(0)
    model = module_ns["Model"](*kbv_small_ns["get_init_inputs"]())
    keys = [k for k in model.state_dict().keys() if k.rsplit(".", 1)[-1] not in NOT_LISTED]
    want_keys = [p["name"] for p in meta["params"]]
    if keys != want_keys:
        raise Mismatch(f"KernelBench's state_dict {keys} != kbv's params {want_keys}")
    state = {p["name"]: torch.from_numpy(np.load(os.path.join(d, p["file"]))) for p in meta["params"]}
    # Buffers the module's __init__ computes (Swin V2's tables and masks): kbv's
    # must be the module's own, value for value, before kbv's are loaded.
    own = model.state_dict()
    for p in meta["params"]:
        if p.get("computed") and not torch.equal(own[p["name"]], state[p["name"]]):
            raise Mismatch(f"computed buffer {p['name']} differs from the module's own: "
                           f"max |diff| {(own[p['name']].double() - state[p['name']].double()).abs().max():.3e}")
    missing, unexpected = model.load_state_dict(state, strict=False)
    if unexpected or any(k.rsplit(".", 1)[-1] not in NOT_LISTED for k in missing):
        raise Mismatch(f"load_state_dict: missing {missing}, unexpected {unexpected}")

    inputs = []
    for entry in meta["inputs"]:
        arr = np.load(os.path.join(d, entry["file"]))
        inputs.append(float(arr) if entry["generator"] == "scalar" else torch.from_numpy(arr))
    oracle = [np.load(os.path.join(d, o["file"])) for o in meta["outputs"]]

    def run(dtype):
        # A fresh model per dtype with kbv's params, converted in place: a
        # deep copy would leave L3/44's mlpf lambda on the original's float32
        # submodules (it closes over self.mlp as built).
        torch.manual_seed(0)
        m = module_ns["Model"](*kbv_small_ns["get_init_inputs"]())
        m.load_state_dict(state, strict=False)
        m = m.to(dtype)  # training mode, as KernelBench builds it
        args = [a.to(dtype) if isinstance(a, torch.Tensor) and a.is_floating_point() else a
                for a in inputs]
        with torch.no_grad():
            try:
                return as_tuple(m(*args))
            except RuntimeError:
                if dtype != torch.float64:
                    raise
            # forward() made a float32 tensor of its own (the paper's L3/35:
            # torch.zeros without a dtype), which float64 operands cannot meet:
            # again with float64 as torch's default dtype
            with default_dtype(torch.float64):
                return as_tuple(m(*args))

    out64, out32 = run(torch.float64), run(torch.float32)
    if len(out64) != len(oracle):
        raise Mismatch(f"forward returns {len(out64)} outputs, kbv's oracle {len(oracle)}")
    worst64 = worst32 = 0.0
    for i, (o64, o32, want) in enumerate(zip(out64, out32, oracle)):
        if not np.issubdtype(want.dtype, np.floating):
            for got in (o64, o32):
                if not np.array_equal(got.numpy(), want):
                    raise Mismatch(f"output {i}: integer output differs from kbv's oracle")
            continue
        e64, e32 = rel_error(o64.numpy(), want), rel_error(o32.numpy(), want)
        if e64 > F64_TOL:
            raise Mismatch(f"output {i}: KernelBench's float64 forward differs from kbv's oracle "
                           f"by {e64:.3e} (tolerance {F64_TOL:g})")
        f32_tol = f32_tol_for(meta)
        if e32 > f32_tol:
            raise Mismatch(f"output {i}: KernelBench's float32 forward differs from kbv's oracle "
                           f"by {e32:.3e} (tolerance {f32_tol:g})")
        worst64, worst32 = max(worst64, e64), max(worst32, e32)
    return f"f64 rel {worst64:.1e}, f32 rel {worst32:.1e}"


def main(modules_dir, dirs):
    # the modules' own imports: einops, which KernelBench's Mamba-2 modules
    # use, is a test-only shim there (einops/__init__.py) unless installed
    sys.path.append(modules_dir)
    passed = failed = unchecked = 0
    seen = set()
    for d in dirs:
        name = os.path.basename(d.rstrip("/"))
        try:
            if os.path.exists(os.path.join(d, "FAILED")):
                with open(os.path.join(d, "FAILED")) as f:
                    raise Mismatch(f.read().strip())
            with open(os.path.join(d, "meta.json")) as f:
                meta = json.load(f)
            level = int(meta["problem"][1:].split("/")[0])
            rel = os.path.join(f"level{level}", meta["name"] + ".py")
            path = os.path.join(modules_dir, rel)
            if not os.path.exists(path):
                if level == 1:
                    unchecked += 1
                    continue
                raise Mismatch(f"no KernelBench module {rel} in {modules_dir}")
            seen.add(rel)
            module_ns = load_source(path, "kernelbench_module")
            kbv_small = load_source(os.path.join(d, "model.py"), "kbv_small")
            kbv_full = load_source(os.path.join(d, "model_full.py"), "kbv_full")
            check_full_interface(module_ns, kbv_full)
            detail = check_forward(d, meta, module_ns, kbv_small)
            print(f"ok   {meta['problem']} {meta['name']}: interface equal, {detail}")
            passed += 1
        except Exception as e:  # every failure is reported, then counted
            print(f"FAIL {name}: {type(e).__name__}: {e}")
            failed += 1
    for sub in sorted(os.listdir(modules_dir)):
        if not sub.startswith("level"):
            continue
        for f in sorted(os.listdir(os.path.join(modules_dir, sub))):
            if f.endswith(".py") and os.path.join(sub, f) not in seen:
                print(f"FAIL {sub}/{f}: a KernelBench module without a checked kbv problem")
                failed += 1
    print(f"{passed} passed, {failed} failed ({unchecked} level-1 problems have no module here)")
    return 1 if failed or not passed else 0


if __name__ == "__main__":
    if len(sys.argv) < 3:
        print(__doc__)
        sys.exit(2)
    sys.exit(main(sys.argv[1], sys.argv[2:]))
