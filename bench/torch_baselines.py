#!/usr/bin/env python3
"""PyTorch eager and torch.compile on kbv's rendering of each problem, on this GPU.

What a practitioner would run instead of a kernel: the problem's PyTorch module
(`kbv show KEY --torch`, the rendering models are shown) in eager mode, and the
same module through torch.compile (inductor, default mode). Each is timed as
kbv's standard protocol times (CUDA events, warm-ups of at least 3 calls and
100 ms, the mean of 100 calls) in each precision mode asked (fp32: PyTorch's
defaults; tf32: TF32 matmuls), on inputs kbv draws on the GPU (libkbv.so,
kbv_bench_fill_inputs) when it can, else the rendering's own get_inputs().

Writes one JSON object per problem, size and mode to the file kbv report reads
with --torch (default: <cache>/baselines/torch-<gpu>.jsonl beside kbv's own
baselines, <cache> as kbv's: $KBV_CACHE_DIR, else $XDG_CACHE_HOME/kbv, else
~/.cache/kbv), appending: the newest entry of a key wins. A problem whose
compile fails keeps its eager time and says why (compile_error).

    bench/torch_baselines.py --problems L1/1-100,L2/1-100 [--modes fp32,tf32]
    kbv report results.jsonl --torch ~/.cache/kbv/baselines/torch-nvidia-h200.jsonl

--device cpu times on the CPU (time.perf_counter), for trying the script
without a GPU; kbv's CPU records compare with it.
"""
import argparse
import ctypes
import json
import math
import os
import re
import statistics
import subprocess
import sys
import time

import torch

MODES = {
    # mode: (torch.backends.cuda.matmul.allow_tf32, torch.backends.cudnn.allow_tf32)
    "fp32": (False, True),
    "tf32": (True, True),
}
WARMUP_CALLS, WARMUP_MS, TIMED_CALLS = 3, 100.0, 100


def parse_problems(spec):
    keys = []
    for part in spec.split(","):
        m = re.fullmatch(r"L(\d+)/(\d+)(?:-(\d+))?", part.strip())
        if not m:
            sys.exit(f"bad problem spec '{part}': use L1/1-32 or L1/19,L1/23")
        lvl, lo, hi = int(m.group(1)), int(m.group(2)), int(m.group(3) or m.group(2))
        keys += [f"L{lvl}/{i}" for i in range(lo, hi + 1)]
    return keys


def slug(name):
    s = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")
    return s or "x"


def default_out(gpu):
    cache = os.environ.get("KBV_CACHE_DIR")
    if not cache:
        xdg = os.environ.get("XDG_CACHE_HOME")
        cache = os.path.join(xdg, "kbv") if xdg else os.path.expanduser("~/.cache/kbv")
    return os.path.join(cache, "baselines", f"torch-{slug(gpu)}.jsonl")


def sync(device):
    if device == "cuda":
        torch.cuda.synchronize()


def time_calls(fn, args, device):
    """kbv's standard timing: warm-ups of >= 3 calls and >= 100 ms, then the mean (and sd)
    of 100 calls, each timed alone."""
    start = time.perf_counter()
    calls = 0
    while calls < WARMUP_CALLS or (time.perf_counter() - start) * 1e3 < WARMUP_MS:
        fn(*args)
        sync(device)
        calls += 1
        if calls >= 1000:
            break
    ms = []
    if device == "cuda":
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        for _ in range(TIMED_CALLS):
            a.record()
            fn(*args)
            b.record()
            b.synchronize()
            ms.append(a.elapsed_time(b))
    else:
        for _ in range(TIMED_CALLS):
            t0 = time.perf_counter()
            fn(*args)
            ms.append((time.perf_counter() - t0) * 1e3)
    return statistics.fmean(ms), statistics.pstdev(ms)


def inputs_for(a, lib, key, ns, device):
    """The module's inputs: drawn by kbv on the GPU when libkbv.so can, else get_inputs()."""
    if lib is not None and device == "cuda":
        with torch.device("meta"):
            meta = ns["get_inputs"]()
        bufs, args = [], []
        for x in meta:
            if isinstance(x, torch.Tensor):
                t = torch.empty(x.shape, dtype=x.dtype, device="cuda")
                bufs.append(t)
                args.append(t)
            else:
                bufs.append(torch.empty((), dtype=torch.float32, device="cuda"))
                args.append(x)
        ptrs = (ctypes.c_void_p * len(bufs))(*[b.data_ptr() for b in bufs])
        if lib.kbv_bench_fill_inputs(key.encode(), int(a.small), 0, a.seed, ptrs, len(bufs)) == 0:
            torch.cuda.synchronize()
            return args, "kbv"
    torch.manual_seed(a.seed)
    args = [x.to(device) if isinstance(x, torch.Tensor) else x for x in ns["get_inputs"]()]
    return args, "get_inputs"


def bench_problem(a, lib, key, gpu, out):
    show = [a.kbv, "show", key, "--torch"] + (["--small"] if a.small else [])
    src = subprocess.run(show, check=True, capture_output=True, text=True).stdout
    ns = {}
    exec(compile(src, f"<{key}>", "exec"), ns)
    args, drawn = inputs_for(a, lib, key, ns, a.device)
    model = ns["Model"](*ns["get_init_inputs"]()).to(a.device)
    for mode in a.modes.split(","):
        mm, cd = MODES[mode]
        if a.device == "cuda":
            torch.backends.cuda.matmul.allow_tf32 = mm
            torch.backends.cudnn.allow_tf32 = cd
        entry = {"kind": "torch-baseline", "problem": key, "size": "small" if a.small else "full",
                 "mode": mode, "gpu": gpu, "torch": torch.__version__, "inputs": drawn,
                 "measured_at": int(time.time())}
        with torch.no_grad():
            entry["eager_ms"], entry["eager_sd_ms"] = time_calls(model, args, a.device)
            if not hasattr(torch, "compile"):
                entry["compile_error"] = f"torch {torch.__version__} has no torch.compile"
            else:
                try:
                    torch._dynamo.reset()
                    compiled = torch.compile(model)   # inductor, default mode
                    entry["compile_ms"], entry["compile_sd_ms"] = time_calls(compiled, args,
                                                                             a.device)
                except Exception as e:   # the eager time stays; the failure is said
                    entry["compile_error"] = f"{type(e).__name__}: {str(e).splitlines()[0][:200]}"
        out.write(json.dumps(entry) + "\n")
        out.flush()
        c = entry.get("compile_ms")
        print(f"{key:7s} {mode:5s} eager {entry['eager_ms']:9.4f} ms  compile "
              + (f"{c:9.4f} ms  eager/compile {entry['eager_ms'] / c:5.2f}" if c else
                 f"-  ({entry['compile_error']})"), flush=True)
    del model, args
    if a.device == "cuda":
        torch.cuda.empty_cache()


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--kbv", default="build/kbv", help="the kbv executable")
    ap.add_argument("--lib", default="build/libkbv.so", help="libkbv.so (ctypes), for kbv's draws")
    ap.add_argument("--problems", default="L1/1-100")
    ap.add_argument("--modes", default="fp32,tf32")
    ap.add_argument("--small", action="store_true", help="CI shapes instead of the catalog's")
    ap.add_argument("--seed", type=int, default=1234)
    ap.add_argument("--device", choices=("cuda", "cpu"), default="cuda")
    ap.add_argument("--out", help="the file to append to (default: beside kbv's baselines)")
    a = ap.parse_args()
    for m in a.modes.split(","):
        if m not in MODES:
            sys.exit(f"unknown mode '{m}' (fp32, tf32)")
    if a.device == "cuda" and not torch.cuda.is_available():
        sys.exit("no CUDA device for PyTorch (--device cpu times on the CPU)")
    gpu = torch.cuda.get_device_name() if a.device == "cuda" else "cpu"
    lib = None
    if a.device == "cuda" and os.path.exists(a.lib):
        try:
            lib = ctypes.CDLL(a.lib)
            lib.kbv_bench_fill_inputs.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_int,
                                                  ctypes.c_ulonglong,
                                                  ctypes.POINTER(ctypes.c_void_p), ctypes.c_int]
        except (OSError, AttributeError) as e:
            print(f"libkbv.so unusable ({e}): inputs from get_inputs()", file=sys.stderr)
            lib = None
    path = a.out or default_out(gpu)
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    failed = []
    with open(path, "a") as out:
        for key in parse_problems(a.problems):
            try:
                bench_problem(a, lib, key, gpu, out)
            except Exception as e:   # one problem's failure must not cost the others'
                print(f"{key}: FAILED: {e}", file=sys.stderr, flush=True)
                failed.append(key)
    print(f"wrote {path}" + (f"; failed: {' '.join(failed)}" if failed else ""))
    print(f"use: kbv report RESULTS.jsonl --torch {path}")


if __name__ == "__main__":
    main()
